/*
** This file holds TracePacket.process_tree, the snapshot of processes and threads that
** Perfetto's process stats data source takes, imported as Perfetto's importer does: each
** process with a command line (others are skipped) makes its parent's process and its own
** (each with its main thread), keeps its first parent, gets its name (the first argument, up
** to a space when it is the only one; a kworker's without the workqueue suffix) at system
** priority, its command line (the arguments joined by spaces), and its uid with Android's app
** and user ids; with cmdline_is_comm the command line also names the main thread. Then each
** thread joins its process and takes its name at process-tree priority. Rare packets.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/clocks.h"
#include "processor/import/ftrace/ftrace.h"
#include "processor/import/proto/proto.h"

/* A kworker's name without the workqueue it last ran ("kworker/45:2-mm_percpu_wq"). */
static size_t kworker_len(const char *s, size_t n) {
  if (n < 8 || memcmp(s, "kworker/", 8)) return n;
  for (size_t i = 8; i < n; i++)
    if (s[i] == '+' || s[i] == '-') return i;
  return n;
}

static uint32_t intern(trak_importer *imp, const void *s, size_t n) {
  return trak__strpool_intern(&imp->tables->strings, (const char *)s, n);
}

static void process(trak_importer *imp, trak_sequence *seq, const uint8_t *data, size_t len,
                    trak_map *kthreads) {
  trak_tables *t = imp->tables;
  trak_pb_decoder dec;
  trak_pb_field f;
  int64_t pid = 0, ppid = 0, uid = 0, start_from_boot = 0;
  int has_uid = 0, is_comm = 0, has_start = 0, is_kthread = -1; /* -1: not said */
  trak_span argv0_span = {0};
  size_t n_args = 0, args_len = 0; /* the arguments: how many, their bytes and separators */
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_ProcessTree_Process_cmdline && f.wire_type == TRAK_PB_WIRE_LEN) {
      if (!n_args++) argv0_span = (trak_span){f.data, f.len};
      args_len += f.len + 1;
      continue;
    }
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    if (f.number == TRAK_PB_ProcessTree_Process_pid) pid = trak_pb_as_int32(&f);
    if (f.number == TRAK_PB_ProcessTree_Process_ppid) ppid = trak_pb_as_int32(&f);
    if (f.number == TRAK_PB_ProcessTree_Process_uid) uid = (uint32_t)f.value, has_uid = 1;
    if (f.number == TRAK_PB_ProcessTree_Process_cmdline_is_comm) is_comm = f.value != 0;
    if (f.number == TRAK_PB_ProcessTree_Process_is_kthread) is_kthread = f.value != 0;
    if (f.number == TRAK_PB_ProcessTree_Process_process_start_from_boot)
      start_from_boot = (int64_t)f.value, has_start = 1;
  }
  if (!n_args) return;
  const char *argv0 = (const char *)argv0_span.data;
  size_t argv0_len = argv0_span.len;
  char *cmdline = malloc(args_len); /* every argument, however long (a linker's can be 10 KB) */
  if (!cmdline) abort();
  size_t cmd_len = 0;
  if (ppid == 2) { /* kthreadd's children are kernel threads */
    int added;
    trak__map_put(kthreads, (uint64_t)pid, 1, &added);
  }
  size_t kw = ppid == 2 ? kworker_len(argv0, argv0_len) : argv0_len;
  if (kw != argv0_len) { /* the name is the whole command line */
    argv0_len = kw;
    memcpy(cmdline, argv0, kw), cmd_len = kw;
  } else {
    if (n_args == 1) { /* a command line rewritten with spaces: its name is the first word */
      const char *sp = memchr(argv0, ' ', argv0_len);
      if (sp) argv0_len = (size_t)(sp - argv0);
    }
    size_t i = 0;
    trak__dec_init(imp, &dec, data, len);
    while (trak_pb_decoder_next(&dec, &f) > 0) {
      if (f.number != TRAK_PB_ProcessTree_Process_cmdline || f.wire_type != TRAK_PB_WIRE_LEN)
        continue;
      if (i++) cmdline[cmd_len++] = ' ';
      memcpy(cmdline + cmd_len, f.data, f.len);
      cmd_len += f.len;
    }
  }
  uint32_t parent = trak__process_for_pid(imp, ppid);
  uint32_t upid = trak__process_for_pid(imp, pid);
  trak__process_in_tree(imp, upid, imp->descriptor_ts);
  if (t->process.parent_upid[upid] == TRAK_NULL_U32)
    t->process.parent_upid[upid] = parent;
  else if (t->process.parent_upid[upid] != parent) /* reparented: the first parent stays */
    trak__report(imp, TRAK_STAT_PARENT_PID_CHANGED,
                 "process %lld listed with parent pid %lld, another parent than before; the "
                 "first parent is kept",
                 (long long)pid, (long long)ppid);
  trak__process_name_set(imp, upid, intern(imp, argv0, argv0_len), TRAK_PROCESS_NAME_SYSTEM);
  t->process.cmdline[upid] = intern(imp, cmdline, cmd_len);
  if (is_comm)
    trak__thread_name_set(imp, trak__thread_for_tid(imp, pid, pid), intern(imp, cmdline, cmd_len),
                          TRAK_THREAD_NAME_PROCESS_TREE);
  free(cmdline);
  if (has_uid) {
    t->process.uid[upid] = uid;
    t->process.android_appid[upid] = uid % 100000;
    t->process.android_user_id[upid] = uid / 100000;
  }
  /* The age is in the boot clock (0 is a real age: early kernel threads); it sets start_ts
  ** only where no event did. */
  if (has_start && t->process.start_ts[upid] == INT64_MIN)
    t->process.start_ts[upid] =
        trak__clock_try_convert(imp, seq, TRAK_PB_BUILTIN_CLOCK_BOOTTIME, start_from_boot);
  if (is_kthread >= 0) { /* Linux 6.4+ says it outright */
    uint32_t k = intern(imp, "is_kthread", 10);
    trak__process_arg(imp, upid, k, k, TRAK_ARG_BOOL, is_kthread, 0);
  }
}

static void thread(trak_importer *imp, const uint8_t *data, size_t len, const trak_map *kthreads) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int64_t tid = 0, tgid = 0;
  trak_span name = {0};
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_ProcessTree_Thread_name && f.wire_type == TRAK_PB_WIRE_LEN)
      name = (trak_span){f.data, f.len};
    else if (f.number == TRAK_PB_ProcessTree_Thread_tid && f.wire_type == TRAK_PB_WIRE_VARINT)
      tid = trak_pb_as_int32(&f);
    else if (f.number == TRAK_PB_ProcessTree_Thread_tgid && f.wire_type == TRAK_PB_WIRE_VARINT)
      tgid = trak_pb_as_int32(&f);
  }
  uint32_t utid = trak__thread_for_tid(imp, tid, tgid);
  trak__thread_in_tree(imp, utid, imp->descriptor_ts);
  if (!name.data) return;
  size_t n = name.len;
  if (tid == tgid && trak__map_get(kthreads, (uint64_t)tid))
    n = kworker_len((const char *)name.data, n);
  trak__thread_name_set(imp, utid, intern(imp, name.data, n), TRAK_THREAD_NAME_PROCESS_TREE);
}

void trak__process_tree(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                        size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_map kthreads = {0}; /* pids of kernel threads (children of kthreadd) */
  if (trak__ftrace_defer_packet(imp, ctx, TRAK_PB_TracePacket_process_tree, data, len))
    return;                                                    /* applied in ts order */
  imp->descriptor_ts = ctx->has_ts ? ctx->ts : imp->latest_ts; /* orders names of one priority */
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_ProcessTree_processes && f.wire_type == TRAK_PB_WIRE_LEN)
      process(imp, ctx->seq, f.data, f.len, &kthreads);
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_ProcessTree_threads && f.wire_type == TRAK_PB_WIRE_LEN)
      thread(imp, f.data, f.len, &kthreads);
  trak__map_free(&kthreads);
}
