-- trace: golden/linux/ftrace_block_io.pbtxt
-- The linux.block_io module on ftrace_block_io's requests (two devices, overlapping
-- requests, a done with nothing open); trace_processor_shell v58.2's answers.
INCLUDE PERFETTO MODULE linux.block_io; SELECT ts, ops_in_queue_or_device, dev FROM linux_active_block_io_operations_by_device ORDER BY dev, ts;
INCLUDE PERFETTO MODULE linux.block_io; SELECT linux_device_major_id(dev) AS major, linux_device_minor_id(dev) AS minor FROM (SELECT DISTINCT dev FROM linux_active_block_io_operations_by_device) ORDER BY 1, 2;
INCLUDE PERFETTO MODULE linux.block_io; SELECT linux_device_major_id(265289728) AS major, linux_device_minor_id(265289728) AS minor, linux_device_minor_id(1048831) AS wide_minor;
