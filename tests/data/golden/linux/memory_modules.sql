-- linux.memory.process and linux.memory.high_watermark on polled process memory;
-- trace_processor_shell v58.2's answers.
INCLUDE PERFETTO MODULE linux.memory.high_watermark; SELECT ts, dur, upid, pid, process_name, anon_rss, file_rss, shmem_rss, rss, swap, anon_rss_and_swap, rss_and_swap FROM memory_rss_and_swap_per_process ORDER BY upid, ts;
INCLUDE PERFETTO MODULE linux.memory.high_watermark; SELECT ts, dur, upid, pid, process_name, rss_high_watermark FROM memory_rss_high_watermark_per_process ORDER BY upid, ts;
