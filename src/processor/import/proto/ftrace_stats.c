/*
** This file reads TracePacket.ftrace_stats (FtraceStats), the recorder's figures about the
** kernel's ring buffers: each CPU's entries, overruns, bytes and events read and its oldest and
** newest times at the start and at the end of the trace (handed to the Linux sink as stats), the
** setup errors listed at the start (failed and unknown events, atrace's errors, an exclusive
** feature refused), and the zero-length records the recorder skipped.
*/
#include <stdint.h>

#include "processor/import/ftrace/ftrace.h"
#include "processor/import/importer.h"
#include "processor/import/proto/proto.h"

/* One FtraceCpuStats: its cpu and figures in trak__ftrace_cpu_stats' order. */
static void cpu_stats(trak_importer *imp, int end, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int64_t cpu = 0, fig[8] = {0};
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    switch (f.number) {
    case TRAK_PB_FtraceCpuStats_cpu:
      cpu = (int64_t)f.value;
      break;
    case TRAK_PB_FtraceCpuStats_entries:
      fig[0] = (int64_t)f.value;
      break;
    case TRAK_PB_FtraceCpuStats_overrun:
      fig[1] = (int64_t)f.value;
      break;
    case TRAK_PB_FtraceCpuStats_commit_overrun:
      fig[2] = (int64_t)f.value;
      break;
    case TRAK_PB_FtraceCpuStats_bytes_read:
      fig[3] = (int64_t)f.value;
      break;
    case TRAK_PB_FtraceCpuStats_dropped_events:
      fig[4] = (int64_t)f.value;
      break;
    case TRAK_PB_FtraceCpuStats_read_events:
      fig[5] = (int64_t)f.value;
      break;
    case TRAK_PB_FtraceCpuStats_now_ts:
    case TRAK_PB_FtraceCpuStats_oldest_event_ts: {
      double s = trak_pb_as_double(&f) * 1e9; /* seconds, kept as ns (saturating) */
      int64_t ns = !(s == s) ? 0 : s >= 9223372036854775807.0 ? INT64_MAX : (int64_t)s;
      fig[f.number == TRAK_PB_FtraceCpuStats_now_ts ? 6 : 7] = ns;
      break;
    }
    default:
      break;
    }
  }
  trak__ftrace_cpu_stats(imp, end, cpu, fig);
}

/* The setup errors an FtraceStats packet at the start of the trace lists, in Perfetto's order:
** failed events, unknown events, atrace's errors, the exclusive-feature error (the last of each
** single string). */
static void setup_errors(trak_importer *imp, uint32_t seq_id, const uint8_t *data, size_t len) {
  static const struct {
    uint32_t field;
    const char *prefix;
  } kinds[] = {{TRAK_PB_FtraceStats_failed_ftrace_events, "Ftrace event failed: "},
               {TRAK_PB_FtraceStats_unknown_ftrace_events, "Ftrace event unknown: "},
               {TRAK_PB_FtraceStats_atrace_errors, "Atrace failures: "},
               {TRAK_PB_FtraceStats_exclusive_feature_error, "Ftrace exclusive feature error: "}};
  trak_pb_decoder dec;
  trak_pb_field f;
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    int repeated = k < 2;
    trak_pb_field last = {0};
    trak__dec_init(imp, &dec, data, len);
    while (trak_pb_decoder_next(&dec, &f) > 0) {
      if (f.number != kinds[k].field || f.wire_type != TRAK_PB_WIRE_LEN) continue;
      if (repeated)
        trak__ftrace_setup_error(imp, seq_id, kinds[k].prefix, f.data, f.len);
      else
        last = f;
    }
    if (last.len) trak__ftrace_setup_error(imp, seq_id, kinds[k].prefix, last.data, last.len);
  }
}

void trak__ftrace_stats_packet(trak_importer *imp, uint32_t seq_id, const uint8_t *data,
                               size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  uint64_t phase = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_FtraceStats_phase) phase = f.value;
  if (phase != TRAK_PB_FtraceStats_START_OF_TRACE && phase != TRAK_PB_FtraceStats_END_OF_TRACE)
    return; /* Perfetto ignores an unknown phase too */
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_FtraceStats_cpu_stats && f.wire_type == TRAK_PB_WIRE_LEN)
      cpu_stats(imp, phase == TRAK_PB_FtraceStats_END_OF_TRACE, f.data, f.len);
  if (phase == TRAK_PB_FtraceStats_START_OF_TRACE) setup_errors(imp, seq_id, data, len);
  /* The recorder's decoding failures: Perfetto counts the zero-length records it skipped, and
  ** refuses to load a trace with any other (trak reads it all the same). */
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_FtraceStats_ftrace_parse_errors && f.wire_type == TRAK_PB_WIRE_VARINT &&
        f.value == TRAK_PB_FTRACE_STATUS_ABI_ZERO_DATA_LENGTH)
      imp->stats[TRAK_STAT_FTRACE_ABI_ZERO_DATA_LENGTH]++;
}
