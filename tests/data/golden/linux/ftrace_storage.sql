-- Storage events: ufshcd_command's commands in flight (doorbell's bits) on
-- "io.ufs.command.count", each command a slice named by its SCSI opcode (and group id) on its
-- tag's "io.ufs.command.tag[NNN]"; ufshcd_clk_gating's state on "io.ufs.clkgating (...)";
-- android_fs_dataread_start/_end pairs (same inode and offset, any thread) as
-- "android_fs_data_read" slices on the lanes of "android_fs", with their args. The same as
-- trace_processor_shell v58.2.
SELECT t.name, t.type, c.ts, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts, t.id;
SELECT s.ts, s.dur, s.name, t.name AS track, t.type, extract_arg(s.arg_set_id, 'file_path') AS path, extract_arg(s.arg_set_id, 'offset_start') AS o1, extract_arg(s.arg_set_id, 'bytes_read_start') AS b1, extract_arg(s.arg_set_id, 'offset_end') AS o2, extract_arg(s.arg_set_id, 'bytes_read_end') AS b2 FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;
