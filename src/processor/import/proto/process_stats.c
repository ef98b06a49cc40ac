/*
** This file holds TracePacket.process_stats, the per-process figures of Perfetto's
** linux.process_stats data source (and Chrome's), imported as Perfetto's system probes parsers
** import them. Per process: the /proc memory figures become bytes (KiB * 1024) on its
** process_memory counter tracks ("mem.virt", "mem.rss", "mem.rss.anon", "mem.rss.file",
** "mem.rss.shmem", "mem.swap", "mem.locked", "mem.rss.watermark", "mem.dmabuf_rss"), the smaps
** rollup on its smaps tracks ("mem.smaps.pss", ...), oom_score_adj on its "oom_score_adj" track,
** the run time in user and kernel mode on "runtime.user_ns" / "runtime.kernel_ns"; each listed
** thread joins the process; chrome_private_footprint_kb and chrome_peak_resident_set_kb become
** bytes on "chrome.private_footprint_kb" / "chrome.peak_resident_set_kb" (type
** chrome_process_stats), is_peak_rss_resettable the process arg of that name. Fields Perfetto has
** no counter for count proc_stat_unknown_counters as it counts them (fds are not imported).
*/
#include <stdio.h>
#include <string.h>

#include "processor/import/ftrace/ftrace.h"
#include "processor/import/proto/track_event.h"

/* A Chrome figure in bytes on the process's counter track for `key` ("private_footprint_kb"). */
static void chrome_counter(trak_importer *imp, trak_packet_ctx *ctx, uint32_t upid, const char *key,
                           int which, double value) {
  char name[64];
  size_t n = (size_t)snprintf(name, sizeof name, "chrome.%s", key);
  uint32_t name_id = trak__strpool_intern(&imp->tables->strings, name, n);
  uint64_t track_key = trak__track_key(TRAK_TK_CHROME_PROCESS_STATS, upid, (uint64_t)which);
  uint32_t track =
      trak__keyed_track(imp, track_key, name_id, upid, 1, TRAK_TK_CHROME_PROCESS_STATS);
  trak__system_counter(imp, ctx, track, value);
}

/* The kind and key of a /proc figure of ProcessStats.Process (TRAK_TK_NONE: not one). */
static trak_track_kind_id linux_figure(uint32_t field, const char **key) {
  switch (field) {
  case TRAK_PB_ProcessStats_Process_vm_size_kb:
    return *key = "virt", TRAK_TK_PROCESS_MEMORY;
  case TRAK_PB_ProcessStats_Process_vm_rss_kb:
    return *key = "rss", TRAK_TK_PROCESS_MEMORY;
  case TRAK_PB_ProcessStats_Process_rss_anon_kb:
    return *key = "rss.anon", TRAK_TK_PROCESS_MEMORY;
  case TRAK_PB_ProcessStats_Process_rss_file_kb:
    return *key = "rss.file", TRAK_TK_PROCESS_MEMORY;
  case TRAK_PB_ProcessStats_Process_rss_shmem_kb:
    return *key = "rss.shmem", TRAK_TK_PROCESS_MEMORY;
  case TRAK_PB_ProcessStats_Process_vm_swap_kb:
    return *key = "swap", TRAK_TK_PROCESS_MEMORY;
  case TRAK_PB_ProcessStats_Process_vm_locked_kb:
    return *key = "locked", TRAK_TK_PROCESS_MEMORY;
  case TRAK_PB_ProcessStats_Process_vm_hwm_kb:
    return *key = "rss.watermark", TRAK_TK_PROCESS_MEMORY;
  case TRAK_PB_ProcessStats_Process_dmabuf_rss_kb:
    return *key = "dmabuf_rss", TRAK_TK_PROCESS_MEMORY;
  case TRAK_PB_ProcessStats_Process_smr_rss_kb:
    return *key = "rss", TRAK_TK_SMAPS;
  case TRAK_PB_ProcessStats_Process_smr_pss_kb:
    return *key = "pss", TRAK_TK_SMAPS;
  case TRAK_PB_ProcessStats_Process_smr_pss_anon_kb:
    return *key = "pss.anon", TRAK_TK_SMAPS;
  case TRAK_PB_ProcessStats_Process_smr_pss_file_kb:
    return *key = "pss.file", TRAK_TK_SMAPS;
  case TRAK_PB_ProcessStats_Process_smr_pss_shmem_kb:
    return *key = "pss.smem", TRAK_TK_SMAPS;
  case TRAK_PB_ProcessStats_Process_smr_swap_pss_kb:
    return *key = "swap.pss", TRAK_TK_SMAPS;
  case TRAK_PB_ProcessStats_Process_runtime_user_mode:
    return *key = "user_ns", TRAK_TK_PROC_STAT_RUNTIME;
  case TRAK_PB_ProcessStats_Process_runtime_kernel_mode:
    return *key = "kernel_ns", TRAK_TK_PROC_STAT_RUNTIME;
  case TRAK_PB_ProcessStats_Process_oom_score_adj:
    return *key = NULL, TRAK_TK_OOM_SCORE_ADJ;
  default:
    return TRAK_TK_NONE;
  }
}

/* A /proc figure of process `upid` on its track of `kind` and `key`. */
static void linux_counter(trak_importer *imp, trak_packet_ctx *ctx, uint32_t upid,
                          trak_track_kind_id kind, const char *key, const trak_pb_field *f) {
  static const char *const prefix[] = {[TRAK_TK_PROCESS_MEMORY] = "mem.",
                                       [TRAK_TK_SMAPS] = "mem.smaps.",
                                       [TRAK_TK_PROC_STAT_RUNTIME] = "runtime."};
  trak_strpool *strings = &imp->tables->strings;
  char name[64];
  uint32_t key_id = 0;
  size_t n;
  if (key) {
    key_id = trak__strpool_intern(strings, key, strlen(key));
    n = (size_t)snprintf(name, sizeof name, "%s%s", prefix[kind], key);
  } else {
    n = (size_t)snprintf(name, sizeof name, "oom_score_adj");
  }
  uint32_t track = trak__system_counter_track(imp, kind, upid, 0, key_id,
                                              trak__strpool_intern(strings, name, n));
  /* memory in KiB becomes bytes; run times are nanoseconds, oom_score_adj signed */
  double value = kind == TRAK_TK_OOM_SCORE_ADJ       ? (double)(int64_t)f->value
                 : kind == TRAK_TK_PROC_STAT_RUNTIME ? (double)f->value
                                                     : (double)((int64_t)f->value * 1024);
  trak__system_counter(imp, ctx, track, value);
}

/* A listed thread of process `pid` joins it. */
static void thread(trak_importer *imp, int64_t pid, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_ProcessStats_Thread_tid && f.wire_type == TRAK_PB_WIRE_VARINT)
      trak__thread_for_tid(imp, trak_pb_as_int32(&f), pid);
}

static void process(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int64_t pid = (uint32_t)trak__dec_varint(imp, data, len, TRAK_PB_ProcessStats_Process_pid, 0);
  uint32_t upid = TRAK_NULL_U32;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_ProcessStats_Process_pid) continue;
    if (f.number == TRAK_PB_ProcessStats_Process_threads) {
      if (f.wire_type == TRAK_PB_WIRE_LEN) thread(imp, pid, f.data, f.len);
      continue;
    }
    if (f.number == TRAK_PB_ProcessStats_Process_fds) continue;
    /* Perfetto's process stats parser skips the Chrome fields but (by an oversight) not
    ** chrome_peak_resident_set_kb, and has a counter for every other field it knows. */
    const char *key;
    trak_track_kind_id kind = linux_figure(f.number, &key);
    if (f.number == TRAK_PB_ProcessStats_Process_chrome_peak_resident_set_kb ||
        (kind == TRAK_TK_NONE && f.number != TRAK_PB_ProcessStats_Process_is_peak_rss_resettable &&
         f.number != TRAK_PB_ProcessStats_Process_chrome_private_footprint_kb))
      imp->stats[TRAK_STAT_PROC_STAT_UNKNOWN_COUNTERS]++;
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    if (upid == TRAK_NULL_U32) upid = trak__process_for_pid(imp, pid);
    if (kind != TRAK_TK_NONE) {
      linux_counter(imp, ctx, upid, kind, key, &f);
      continue;
    }
    int which = f.number == TRAK_PB_ProcessStats_Process_chrome_private_footprint_kb   ? 1
                : f.number == TRAK_PB_ProcessStats_Process_chrome_peak_resident_set_kb ? 2
                : f.number == TRAK_PB_ProcessStats_Process_is_peak_rss_resettable      ? 3
                                                                                       : 0;
    if (which == 3) {
      uint32_t k = trak__strpool_intern(&imp->tables->strings, "is_peak_rss_resettable", 22);
      trak__process_arg(imp, upid, k, k, TRAK_ARG_BOOL, f.value != 0, 0);
    } else if (which) {
      chrome_counter(imp, ctx, upid, which == 1 ? "private_footprint_kb" : "peak_resident_set_kb",
                     which, (double)((int64_t)f.value * 1024));
    }
  }
}

void trak__process_stats(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                         size_t len) {
  if (trak__ftrace_defer_packet(imp, ctx, TRAK_PB_TracePacket_process_stats, data, len)) return;
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_ProcessStats_processes && f.wire_type == TRAK_PB_WIRE_LEN)
      process(imp, ctx, f.data, f.len);
}
