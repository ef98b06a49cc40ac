/*
** This file holds the scheduling events of kernels traced without ftrace (generic_kernel.proto:
** TracePacket.generic_kernel_*): a task entering a state on a CPU becomes sched_slice and
** thread_state rows, a rename a thread's name, a frequency change a cpufreq counter, as
** Perfetto's generic kernel parser makes them. Each event tells of one task only, so a CPU's
** switch arrives as two events in either order: "A runs" then "B stops", or "B stops" then "A
** runs". The second order closes B's slice with no end state when A starts running; B's own
** event at that same time then gives the slice (and B's state row) its state.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/sequence.h"
#include "processor/tables/sched_cols.h"

/* The task states of GenericKernelTaskStateEvent.state, as thread_state names them. */
enum { GK_UNKNOWN, GK_CREATED, GK_RUNNABLE, GK_RUNNING, GK_DEAD = 7, GK_DESTROYED = 8, GK_STATES };
static const char *const state_names[GK_STATES] = {"Unknown", "Created", "R", "Running", "S",
                                                   "D",       "T",       "Z", "X"};

/* A CPU's running slice: the sched_slice row + 1 (0: none) and its task. */
typedef struct gk_cpu {
  uint32_t slice;
  uint32_t utid;
  int64_t tid;
} gk_cpu;

struct trak_fgk {
  TRAK_VEC(gk_cpu) cpus;     /* by CPU number */
  TRAK_VEC(uint32_t) hanging; /* by utid: its slice closed by another task's start (row + 1) */
  uint32_t names[GK_STATES];  /* string ids of state_names */
};

/* The state of generic kernel events, made with the state names' string ids on first use. */
static trak_fgk *gk_get(trak_importer *imp) {
  trak_ftrace *f = trak__ftrace_get(imp);
  if (f->gk) return f->gk;
  if (!(f->gk = calloc(1, sizeof *f->gk))) abort();
  for (uint32_t s = 0; s < GK_STATES; s++) /* task_utid compares with these */
    f->gk->names[s] = trak__ftrace_str(imp, state_names[s]);
  return f->gk;
}

void trak__generic_kernel_free(trak_ftrace *f) {
  if (!f->gk) return;
  trak_vec_free(f->gk->cpus);
  trak_vec_free(f->gk->hanging);
  free(f->gk);
  f->gk = NULL;
}

static gk_cpu *gk_cpu_get(trak_fgk *g, uint32_t cpu) {
  while (g->cpus.n <= cpu) {
    gk_cpu none = {0, TRAK_NULL_U32, 0};
    trak_vec_push(g->cpus, none);
  }
  return &g->cpus.v[cpu];
}

/* ---- tokenizing: every event is queued with the packets, applied in timestamp order ------ */

static int64_t field_i64(const trak_pb_field *f) {
  return (int64_t)f->value;
}

/* A GenericKernelTaskStateEvent: x tid, s1 comm, a state, p1 prio, cpu its CPU. */
static void state_event(trak_importer *imp, int64_t ts, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_fq_rec r = {.ts = ts, .type = TRAK_FQ_GK_STATE};
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    int is_len = f.wire_type == TRAK_PB_WIRE_LEN;
    if (f.number == TRAK_PB_GenericKernelTaskStateEvent_cpu && !is_len)
      r.cpu = (uint32_t)(int32_t)f.value;
    else if (f.number == TRAK_PB_GenericKernelTaskStateEvent_comm && is_len)
      r.s1 = trak__strpool_intern(&imp->tables->strings, (const char *)f.data, f.len);
    else if (f.number == TRAK_PB_GenericKernelTaskStateEvent_tid && !is_len)
      r.x = field_i64(&f);
    else if (f.number == TRAK_PB_GenericKernelTaskStateEvent_state && !is_len)
      r.a = f.value < GK_STATES ? (uint32_t)f.value : GK_UNKNOWN;
    else if (f.number == TRAK_PB_GenericKernelTaskStateEvent_prio && !is_len)
      r.p1 = (int32_t)f.value;
  }
  if (r.cpu >= 4096) r.cpu = 4095; /* as the ftrace sink's CPUs */
  trak__fq_push_to(imp, TRAK_FQ_PACKETS, &r);
}

/* A GenericKernelTaskRenameEvent: x tid, s1 comm. */
static void rename_event(trak_importer *imp, int64_t ts, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_fq_rec r = {.ts = ts, .type = TRAK_FQ_GK_RENAME};
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_GenericKernelTaskRenameEvent_tid && f.wire_type != TRAK_PB_WIRE_LEN)
      r.x = field_i64(&f);
    else if (f.number == TRAK_PB_GenericKernelTaskRenameEvent_comm &&
             f.wire_type == TRAK_PB_WIRE_LEN)
      r.s1 = trak__strpool_intern(&imp->tables->strings, (const char *)f.data, f.len);
  }
  trak__fq_push_to(imp, TRAK_FQ_PACKETS, &r);
}

/* A GenericKernelCpuFrequencyEvent: the CPU's cpufreq counter, in kHz. */
static void freq_event(trak_importer *imp, int64_t ts, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  uint32_t cpu = 0;
  int64_t hz = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type == TRAK_PB_WIRE_LEN) continue;
    if (f.number == TRAK_PB_GenericKernelCpuFrequencyEvent_cpu)
      cpu = (uint32_t)(int32_t)f.value;
    else if (f.number == TRAK_PB_GenericKernelCpuFrequencyEvent_freq_hz)
      hz = field_i64(&f);
  }
  trak__cpu_counter(imp, TRAK_TK_CPU_FREQUENCY, cpu < 4096 ? cpu : 4095, ts, (double)hz / 1000.0);
}

/* ---- the process tree: applied now, or in timestamp order once task events are queued ---- */

/* A process with a command line: its parent's process and its own (neither with a main thread
** unless the tree says so), its parent, its name (the command line up to its first space) and
** command line. A process without one is skipped, as in Perfetto. */
static void tree_process(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int64_t pid = 0, ppid = 0;
  const char *cmd = NULL;
  size_t cmd_len = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    int is_len = f.wire_type == TRAK_PB_WIRE_LEN;
    if (f.number == TRAK_PB_GenericKernelProcessTree_Process_pid && !is_len)
      pid = field_i64(&f);
    else if (f.number == TRAK_PB_GenericKernelProcessTree_Process_ppid && !is_len)
      ppid = field_i64(&f);
    else if (f.number == TRAK_PB_GenericKernelProcessTree_Process_cmdline && is_len)
      cmd = (const char *)f.data, cmd_len = f.len;
  }
  if (!cmd) return;
  trak_tables *t = imp->tables;
  uint32_t parent = trak__process_for_pid_bare(imp, ppid);
  uint32_t upid = trak__process_for_pid_bare(imp, pid);
  t->process.parent_upid[upid] = parent;
  const char *space = memchr(cmd, ' ', cmd_len);
  size_t name_len = space ? (size_t)(space - cmd) : cmd_len;
  trak__process_name_set(imp, upid, trak__strpool_intern(&t->strings, cmd, name_len),
                         TRAK_PROCESS_NAME_SYSTEM);
  t->process.cmdline[upid] = trak__strpool_intern(&t->strings, cmd, cmd_len);
}

/* A thread: in its process (made without a main thread), main or not and idle or not as the
** tree says, named at process-tree priority. */
static void tree_thread(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int64_t tid = 0, pid = 0;
  uint8_t is_main = 0, is_idle = 0;
  uint32_t comm = 0;
  trak_tables *t = imp->tables;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    int is_len = f.wire_type == TRAK_PB_WIRE_LEN;
    if (f.number == TRAK_PB_GenericKernelProcessTree_Thread_tid && !is_len)
      tid = field_i64(&f);
    else if (f.number == TRAK_PB_GenericKernelProcessTree_Thread_pid && !is_len)
      pid = field_i64(&f);
    else if (f.number == TRAK_PB_GenericKernelProcessTree_Thread_comm && is_len)
      comm = trak__strpool_intern(&t->strings, (const char *)f.data, f.len);
    else if (f.number == TRAK_PB_GenericKernelProcessTree_Thread_is_main_thread && !is_len)
      is_main = f.value != 0;
    else if (f.number == TRAK_PB_GenericKernelProcessTree_Thread_is_idle && !is_len)
      is_idle = f.value != 0;
  }
  uint32_t utid = trak__thread_in_process(imp, tid, trak__process_for_pid_bare(imp, pid));
  t->thread.is_main[utid] = is_main;
  t->thread.is_idle[utid] = is_idle;
  trak__thread_name_set(imp, utid, comm, TRAK_THREAD_NAME_PROCESS_TREE);
}

void trak__generic_process_tree(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  for (uint32_t pass = TRAK_PB_GenericKernelProcessTree_processes;; pass++) {
    trak__dec_init(imp, &dec, data, len);
    while (trak_pb_decoder_next(&dec, &f) > 0) {
      if (f.number != pass || f.wire_type != TRAK_PB_WIRE_LEN) continue;
      if (pass == TRAK_PB_GenericKernelProcessTree_processes)
        tree_process(imp, f.data, f.len);
      else
        tree_thread(imp, f.data, f.len);
    }
    if (pass == TRAK_PB_GenericKernelProcessTree_threads) break;
  }
}

void trak__generic_kernel_packet(trak_importer *imp, const trak_packet_ctx *ctx, uint32_t field,
                                 const uint8_t *data, size_t len) {
  if (field == TRAK_PB_TracePacket_generic_kernel_process_tree) {
    if (!trak__ftrace_defer_packet(imp, ctx, field, data, len)) {
      imp->descriptor_ts = ctx->has_ts ? ctx->ts : imp->latest_ts; /* orders names */
      trak__generic_process_tree(imp, data, len);
    }
    return;
  }
  if (!ctx->has_ts) {
    trak__report(imp, TRAK_STAT_PACKET_MALFORMED, "generic kernel event without a timestamp");
    return;
  }
  if (field == TRAK_PB_TracePacket_generic_kernel_task_state_event)
    state_event(imp, ctx->ts, data, len);
  else if (field == TRAK_PB_TracePacket_generic_kernel_task_rename_event)
    rename_event(imp, ctx->ts, data, len);
  else if (field == TRAK_PB_TracePacket_generic_kernel_cpu_freq_event)
    freq_event(imp, ctx->ts, data, len);
}

/* ---- applying, in timestamp order ------------------------------------------------------ */

static void invalid_order(trak_importer *imp, const trak_fq_rec *r) {
  trak__report(imp, TRAK_STAT_GENERIC_TASK_STATE_INVALID_ORDER,
               "generic kernel task %lld: state %u at %lld cannot follow its previous state",
               (long long)r->x, r->a, (long long)r->ts);
}

/* The thread the event tells of, made or ended as its state says; TRAK_NULL_U32 when the state
** cannot follow the thread's previous one (counted). */
static uint32_t task_utid(trak_importer *imp, trak_fgk *g, const trak_fq_rec *r) {
  uint32_t utid = trak__thread_lookup(imp, r->x);
  switch (r->a) {
  case GK_CREATED:
    if (utid != TRAK_NULL_U32) {
      invalid_order(imp, r);
      return TRAK_NULL_U32;
    }
    utid = trak__thread_start_new(imp, r->x, -1);
    imp->tables->thread.start_ts[utid] = r->ts;
    break;
  case GK_DESTROYED:
    if (utid == TRAK_NULL_U32) {
      utid = trak__thread_for_tid(imp, r->x, -1);
      trak__thread_name_set(imp, utid, r->s1, TRAK_THREAD_NAME_KERNEL);
    }
    trak__thread_end(imp, r->x, r->ts);
    return utid;
  case GK_UNKNOWN:
    trak__report(imp, TRAK_STAT_TASK_STATE_INVALID,
                 "generic kernel task %lld: unknown state at %lld", (long long)r->x,
                 (long long)r->ts);
    return TRAK_NULL_U32;
  default:
    if (utid != TRAK_NULL_U32) {
      uint32_t prev = trak__ts_prev_state(imp, utid); /* only DESTROYED may follow DEAD */
      if ((prev && prev == g->names[GK_DEAD]) ||
          (r->a == GK_RUNNING && prev && prev == g->names[GK_RUNNING])) {
        invalid_order(imp, r);
        return TRAK_NULL_U32;
      }
    } else {
      utid = trak__thread_for_tid(imp, r->x, -1);
    }
    break;
  }
  trak__thread_name_set(imp, utid, r->s1, TRAK_THREAD_NAME_KERNEL);
  return utid;
}

/* How the event changed the CPU's slices, which says what it does to thread states. */
enum { SW_NONE, SW_START, SW_START_WITH_PENDING, SW_CLOSE, SW_END_STATE };

static int sched_switch(trak_importer *imp, trak_fgk *g, const trak_fq_rec *r, uint32_t utid,
                        uint32_t state, gk_cpu *prev_out) {
  trak_tables *t = imp->tables;
  gk_cpu *c = gk_cpu_get(g, r->cpu);
  *prev_out = *c;
  if (r->a == GK_RUNNING) {
    int rc = SW_START;
    if (c->slice) { /* another task's slice, closed with no end state until that task says */
      uint32_t row = c->slice - 1;
      t->sched_slice.dur[row] = trak__wsub(r->ts, t->sched_slice.ts[row]);
      while (g->hanging.n <= c->utid)
        trak_vec_push(g->hanging, 0);
      g->hanging.v[c->utid] = c->slice;
      rc = SW_START_WITH_PENDING;
    }
    uint32_t ucpu = trak__ftrace_ucpu(imp, r->cpu);
    trak__ftrace_cpu_seen(imp, r->cpu);
    uint32_t row = trak__sched_slice_push(t);
    t->sched_slice.ts[row] = r->ts;
    t->sched_slice.utid[row] = utid;
    trak__ss_priority_set(t, row, r->p1);
    trak__ss_ucpu_set(t, row, ucpu);
    *c = (gk_cpu){row + 1, utid, r->x};
    return rc;
  }
  if (c->slice && c->tid == r->x) { /* the running task stops */
    uint32_t row = c->slice - 1;
    t->sched_slice.dur[row] = trak__wsub(r->ts, t->sched_slice.ts[row]);
    trak__ss_end_state_set(t, row, state);
    *c = (gk_cpu){0, TRAK_NULL_U32, 0};
    return SW_CLOSE;
  }
  /* the state of a task another's start switched out, at that same time */
  uint32_t hang = utid < g->hanging.n ? g->hanging.v[utid] : 0;
  if (hang) {
    uint32_t row = hang - 1;
    int64_t dur = t->sched_slice.dur[row];
    if (dur >= 0 && r->ts == trak__wadd(t->sched_slice.ts[row], dur)) {
      trak__ss_end_state_set(t, row, state);
      g->hanging.v[utid] = 0;
      return SW_END_STATE;
    }
  }
  return SW_NONE;
}

void trak__fa_gk_state(trak_importer *imp, const trak_fq_rec *r) {
  trak_fgk *g = gk_get(imp);
  uint32_t utid = task_utid(imp, g, r);
  if (utid == TRAK_NULL_U32) return;
  uint32_t state = g->names[r->a];
  gk_cpu prev;
  int rc = sched_switch(imp, g, r, utid, state, &prev);
  if (rc == SW_END_STATE) {
    trak__ts_update_pending(imp, utid, state);
    return;
  }
  if (rc == SW_START_WITH_PENDING) trak__ts_push(imp, r->ts, prev.utid, 0, TRAK_NULL_U32);
  uint32_t ucpu = r->a == GK_RUNNING ? trak__ftrace_ucpu(imp, r->cpu) : TRAK_NULL_U32;
  trak__ts_push(imp, r->ts, utid, state, ucpu);
}

void trak__fa_gk_rename(trak_importer *imp, const trak_fq_rec *r) {
  trak__ftrace_thread_rename(imp, trak__thread_for_tid(imp, r->x, -1), r->s1);
}
