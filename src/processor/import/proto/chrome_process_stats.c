/*
** This file holds the Chrome figures of TracePacket.process_stats, as Perfetto's Chrome system
** probes parser imports them: per process, chrome_private_footprint_kb and
** chrome_peak_resident_set_kb become counter values in bytes (KiB * 1024) on the process's
** tracks "chrome.private_footprint_kb" / "chrome.peak_resident_set_kb" (type
** chrome_process_stats), and is_peak_rss_resettable becomes the process arg of that name.
** The other (Linux /proc) figures of ProcessStats are not imported; the fields Perfetto has
** no counter for are counted in proc_stat_unknown_counters as it counts them.
*/
#include <stdio.h>
#include <string.h>

#include "processor/import/proto/track_event.h"

/* A value on the process's counter track for `key` ("private_footprint_kb"). */
static void counter(trak_importer *imp, trak_packet_ctx *ctx, uint32_t upid, const char *key,
                    int which, double value) {
  char name[64];
  size_t n = (size_t)snprintf(name, sizeof name, "chrome.%s", key);
  uint32_t name_id = trak__strpool_intern(&imp->tables->strings, name, n);
  uint64_t track_key = trak__track_key(TRAK_TK_CHROME_PROCESS_STATS, upid, (uint64_t)which);
  uint32_t track =
      trak__keyed_track(imp, track_key, name_id, upid, 1, TRAK_TK_CHROME_PROCESS_STATS);
  trak_ev ev = {ctx->ts,
                (uint32_t)TRAK_EV_COUNTER << TRAK_EV_TYPE_SHIFT | track,
                (uint32_t)imp->packet_index,
                {{0, 0}},
                TRAK_NULL_U32,
                0};
  ev.u.value = value;
  trak__te_push(imp, ctx->seq, &ev);
}

static void process(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int64_t pid = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_ProcessStats_Process_pid && f.wire_type == TRAK_PB_WIRE_VARINT)
      pid = (uint32_t)f.value;
  uint32_t upid = TRAK_NULL_U32;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    /* Perfetto's process stats parser skips the Chrome fields but (by an oversight) not
    ** chrome_peak_resident_set_kb, and has a counter for every other field it knows. */
    if (f.number == TRAK_PB_ProcessStats_Process_chrome_peak_resident_set_kb ||
        f.number > TRAK_PB_ProcessStats_Process_dmabuf_rss_kb)
      imp->stats[TRAK_STAT_PROC_STAT_UNKNOWN_COUNTERS]++;
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    int which = f.number == TRAK_PB_ProcessStats_Process_chrome_private_footprint_kb   ? 1
                : f.number == TRAK_PB_ProcessStats_Process_chrome_peak_resident_set_kb ? 2
                : f.number == TRAK_PB_ProcessStats_Process_is_peak_rss_resettable      ? 3
                                                                                       : 0;
    if (!which) continue;
    if (upid == TRAK_NULL_U32) upid = trak__process_for_pid(imp, pid);
    if (which == 3) {
      uint32_t key = trak__strpool_intern(&imp->tables->strings, "is_peak_rss_resettable", 22);
      trak__process_arg(imp, upid, key, key, TRAK_ARG_BOOL, f.value != 0, 0);
    } else {
      counter(imp, ctx, upid, which == 1 ? "private_footprint_kb" : "peak_resident_set_kb", which,
              (double)((int64_t)f.value * 1024));
    }
  }
}

void trak__chrome_process_stats(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                                size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_ProcessStats_processes && f.wire_type == TRAK_PB_WIRE_LEN)
      process(imp, ctx, f.data, f.len);
}
