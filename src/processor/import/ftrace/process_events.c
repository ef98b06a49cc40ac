/*
** This file holds process tracking from kernel events: task_newtask (a new process with its
** parent, or a new thread of the creator's process, each with start_ts), task_rename,
** sched_process_free (end_ts, tid reuse), the kernel's names of threads, and the wakeups and
** blocked reasons that feed the thread-state tracker, and ProcessTree packets deferred to their
** place among kernel events. Perfetto's ProcessTracker rules as
** docs/design/linux-import.md states them.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/sequence.h"

#define CLONE_THREAD 0x10000u

void trak__fa_newtask(trak_importer *imp, const trak_fq_rec *r) {
  if (r->a == 0) return; /* boot-time tracing sees init create the swappers: not threads */
  trak_tables *t = imp->tables;
  if (!((uint64_t)r->x & CLONE_THREAD)) { /* fork(): a new process */
    uint32_t upid = trak__process_fork(imp, r->a, r->ts);
    t->process.start_ts[upid] = r->ts;
    trak__process_name_set(imp, upid, r->s1, TRAK_PROCESS_NAME_SYSTEM);
    uint32_t new_utid = trak__thread_for_tid(imp, r->a, r->a);
    t->thread.start_ts[new_utid] = r->ts;
    trak__ftrace_name_thread(imp, new_utid, r->s1);
    uint32_t source = trak__ftrace_utid(imp, r->pid);
    trak__process_parent_thread(imp, upid, source);
    trak__ts_newtask(imp, r->ts, new_utid, source);
    return;
  }
  /* pthread_create(): a new thread of the creator's process */
  uint32_t source = trak__ftrace_utid(imp, r->pid);
  uint32_t upid = t->thread.upid[source];
  int64_t pid = upid != TRAK_NULL_U32 ? t->process.pid[upid] : -1;
  uint32_t new_utid = trak__thread_clone(imp, r->a, pid, r->ts);
  t->thread.start_ts[new_utid] = r->ts;
  trak__ftrace_name_thread(imp, new_utid, r->s1);
  trak__threads_associate(imp, source, new_utid); /* both join the process once it is known */
  trak__ts_newtask(imp, r->ts, new_utid, source);
}

void trak__ftrace_thread_rename(trak_importer *imp, uint32_t utid, uint32_t comm) {
  trak_tables *t = imp->tables;
  trak__ftrace_name_thread(imp, utid, comm);
  uint32_t upid = t->thread.upid[utid];
  if (upid != TRAK_NULL_U32 && t->process.pid[upid] == t->thread.tid[utid])
    trak__process_name_set(imp, upid, comm, TRAK_PROCESS_NAME_SYSTEM);
}

void trak__fa_rename(trak_importer *imp, const trak_fq_rec *r) {
  trak__ftrace_thread_rename(imp, trak__ftrace_utid(imp, r->a), r->s1);
}

void trak__fa_free(trak_importer *imp, const trak_fq_rec *r) {
  trak__thread_end(imp, r->a, r->ts);
}

void trak__fa_thread_name(trak_importer *imp, const trak_fq_rec *r) {
  uint32_t utid = r->x >= 0 ? trak__thread_for_tid(imp, r->a, r->x) : trak__ftrace_utid(imp, r->a);
  trak__ftrace_name_thread(imp, utid, r->s1);
}

/* irq_context of common_flags: hardirq (0x08) or softirq (0x10) */
static uint8_t irq_context(const trak_fq_rec *r) {
  if (!r->has_flags) return 2;
  return (r->flags & (0x08 | 0x10)) ? 1 : 0;
}

void trak__fa_waking(trak_importer *imp, const trak_fq_rec *r) {
  uint32_t wakee = trak__ftrace_utid(imp, r->a);
  trak__ftrace_name_thread(imp, wakee, r->s1);
  uint32_t waker = trak__ftrace_utid(imp, r->pid);
  if (r->s2) trak__ftrace_waking_row(imp, r, waker);
  if (imp->ftrace->raw_only) return;
  /* As Perfetto, only compact wakings give irq_context: a sched_waking event's common_flags
  ** (in its ftrace_event row) leave it NULL. */
  trak__ts_waking(imp, r->ts, wakee, waker, 2);
}

void trak__fa_waking_compact(trak_importer *imp, const trak_fq_rec *r) {
  uint32_t waker = trak__ftrace_running_utid(imp, r->cpu);
  if (waker == TRAK_NULL_U32) {
    trak__report(imp, TRAK_STAT_COMPACT_SCHED_WAKING_SKIPPED,
                 "compact sched_waking of tid %u before any switch of cpu %u; dropped", r->a,
                 r->cpu);
    return;
  }
  trak__ftrace_waking_row(imp, r, waker);
  if (imp->ftrace->raw_only) return;
  uint32_t wakee = trak__ftrace_utid(imp, r->a);
  trak__ts_waking(imp, r->ts, wakee, waker, irq_context(r));
}

void trak__fa_waking_any(trak_importer *imp, const trak_fq_rec *r) {
  if (r->type == TRAK_FQ_WAKING_COMPACT)
    trak__fa_waking_compact(imp, r);
  else
    trak__fa_waking(imp, r);
}

void trak__fa_blocked_reason(trak_importer *imp, const trak_fq_rec *r) {
  uint32_t utid = trak__ftrace_utid(imp, r->a);
  trak__ts_blocked_reason(imp, utid, r->x < 0 ? 2 : (uint8_t)(r->x != 0), r->s1);
}

int trak__ftrace_defer_packet(trak_importer *imp, const trak_packet_ctx *ctx, uint32_t field,
                              const uint8_t *data, size_t len) {
  trak_ftrace *f = imp->ftrace;
  if (!f || f->applying || !f->n_queued || !ctx || !ctx->has_ts) return 0;
  uint8_t *copy = malloc(len ? len : 1);
  if (!copy) abort();
  if (len) memcpy(copy, data, len);
  trak_span span = {copy, len};
  trak_vec_push(f->trees, span);
  trak_fq_rec r = {
      .ts = ctx->ts, .a = field, .s1 = (uint32_t)(f->trees.n - 1), .type = TRAK_FQ_PROCESS_TREE};
  trak__fq_push_to(imp, TRAK_FQ_PACKETS, &r); /* Perfetto's packet stream, its first */
  imp->n_events--;                            /* a packet is not an event */
  return 1;
}

void trak__fa_process_tree(trak_importer *imp, const trak_fq_rec *r) {
  trak_span *s = &imp->ftrace->trees.v[r->s1];
  trak_packet_ctx ctx = {trak__ftrace_seq(imp), r->ts, 1}; /* counters go to the sink's records */
  if (r->a == TRAK_PB_TracePacket_process_stats)
    trak__process_stats(imp, &ctx, s->data, s->len);
  else if (r->a == TRAK_PB_TracePacket_generic_kernel_process_tree)
    trak__generic_process_tree(imp, s->data, s->len);
  else
    trak__process_tree(imp, &ctx, s->data, s->len);
  free((void *)s->data);
  s->data = NULL;
}
