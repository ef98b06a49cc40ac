/*
** This file holds the kernel events Perfetto's ftrace parser makes slices of on a thread's
** track: signal_generate and signal_deliver as instants (arg signal.sig) on the track of the
** thread signalled or receiving, workqueue_execute_start/end as slices of category "workqueue"
** named by the work's function (arg cpu) on the worker's track, kprobe_event's slices and
** instants on its writer's track, mark_victim's "mem.oom_kill" instant on the victim's track,
** funcgraph_entry/exit's slices on the thread's "Funcgraph" track (the idle task's per CPU);
** and the queue of such slices for other files (vmscan.c).
*/

#include "processor/import/ftrace/ftrace_internal.h"

/* The arg a record's slice has (its `p1`). */
enum { ARG_NONE, ARG_SIGNAL, ARG_CPU, ARG_SET /* x: an arg set made by the caller */ };

/* Queues a slice record (TRAK_EV_*) named `name` of category `cat` (string ids, 0: none) on
** the track of thread `tid`, with the arg `arg` = `value`. */
static void push(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, uint32_t type,
                 uint32_t name, uint32_t cat, int arg, int64_t value) {
  trak_fq_rec r = {ts, value, cpu, tid, type, name, cat, arg, 0, TRAK_FQ_THREAD_SLICE, 0, 0};
  trak__ftrace_cpu_seen(imp, cpu);
  trak__fq_push(imp, &r);
}

/* The thread's "Funcgraph" track (type thread_funcgraph), made on first use. */
static uint32_t funcgraph_track(trak_importer *imp, uint32_t utid) {
  uint64_t key = trak__track_key(TRAK_TK_THREAD_FUNCGRAPH, utid, 0);
  uint32_t *known = trak__map_get(&imp->tracks.by_uuid, key | 1ULL << 63);
  if (known) return *known;
  uint32_t track = trak__keyed_track(imp, key, trak__ftrace_str(imp, "Funcgraph"), TRAK_NULL_U32,
                                     0, TRAK_TK_THREAD_FUNCGRAPH);
  trak_track_info *info = &imp->tracks.info.v[track];
  info->is_thread = 1, info->utid = utid;
  info->machine = imp->tables->thread.machine_id[utid];
  return track;
}

void trak__funcgraph(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int entry,
                     uint32_t name) {
  uint32_t type = entry ? TRAK_EV_BEGIN : TRAK_EV_END;
  if (tid == 0) { /* the idle tasks share tid 0: a track per CPU */
    trak__ftrace_slice_ev(imp, ts, type, trak__ftrace_cpu_track(imp, TRAK_TK_CPU_FUNCGRAPH, cpu),
                          entry ? name : 0, 0, TRAK_NULL_U32);
    return;
  }
  trak_fq_rec r = {ts, 0, cpu, tid, type, entry ? name : 0, 0, ARG_NONE, 1, TRAK_FQ_THREAD_SLICE,
                   0, 0};
  trak__ftrace_cpu_seen(imp, cpu);
  trak__fq_push(imp, &r);
}

void trak__thread_slice(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, uint32_t type,
                        uint32_t name, uint32_t set) {
  push(imp, cpu, ts, tid, type, name, 0, set == TRAK_NULL_U32 ? ARG_NONE : ARG_SET, set);
}

void trak__signal(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int deliver,
                  int32_t sig) {
  push(imp, cpu, ts, tid, TRAK_EV_INSTANT,
       trak__ftrace_str(imp, deliver ? "signal_deliver" : "signal_generate"), 0, ARG_SIGNAL, sig);
}

void trak__workqueue_start(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                           uint32_t name, int cpu_arg) {
  push(imp, cpu, ts, tid, TRAK_EV_BEGIN, name, trak__ftrace_str(imp, "workqueue"),
       cpu_arg ? ARG_CPU : ARG_NONE, cpu);
}

void trak__workqueue_end(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid) {
  push(imp, cpu, ts, tid, TRAK_EV_END, 0, trak__ftrace_str(imp, "workqueue"), ARG_NONE, 0);
}

void trak__kprobe(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int64_t type,
                  uint32_t name) {
  /* KprobeEvent.KprobeType: BEGIN 1, END 2, INSTANT 3 (UNKNOWN 0 makes nothing) */
  static const uint32_t ev[] = {0, TRAK_EV_BEGIN, TRAK_EV_END, TRAK_EV_INSTANT};
  if (type >= 1 && type <= 3) push(imp, cpu, ts, tid, ev[type], name, 0, ARG_NONE, 0);
}

void trak__oom_victim(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid) {
  push(imp, cpu, ts, tid, TRAK_EV_INSTANT, trak__ftrace_str(imp, "mem.oom_kill"), 0, ARG_NONE, 0);
}

void trak__fa_thread_slice(trak_importer *imp, const trak_fq_rec *r) {
  uint32_t utid = trak__ftrace_utid(imp, r->pid);
  uint32_t track = r->p2 ? funcgraph_track(imp, utid) : trak__legacy_thread_track(imp, utid);
  uint32_t set = r->p1 == ARG_SET ? (uint32_t)r->x : TRAK_NULL_U32;
  if (r->p1 == ARG_SIGNAL || r->p1 == ARG_CPU) {
    set = trak__ftrace_args_begin(imp);
    trak__ftrace_arg_int(imp, set,
                         trak__ftrace_str(imp, r->p1 == ARG_SIGNAL ? "signal.sig" : "cpu"), r->x);
    set = trak__args_share(imp, set);
  }
  trak__ftrace_slice_ev(imp, r->ts, r->a, track, r->s1, r->s2, set);
}
