/*
** This file holds the thread-state tracker: each thread's states in thread_state (Running on a
** CPU, runnable R after a wakeup, or the blocked state its sched_switch gave), opened and closed
** by switches, wakeups and new tasks, and the spurious wakeups of threads already runnable or
** running. Perfetto's ThreadStateTracker rules (docs/design/linux-import.md).
*/
#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/tables/thread_state_cols.h"

typedef trak_fstate fstate;

/* The thread's tracking entry, or NULL when it has no state yet. */
static fstate *entry(trak_ftrace *f, uint32_t utid) {
  if (utid >= f->states.n || !f->states.v[utid].last) return NULL;
  return &f->states.v[utid];
}

static int is_running(const trak_ftrace *f, uint32_t state) {
  return state == f->s_running;
}
static int is_blocked(const trak_ftrace *f, uint32_t state) {
  return state != f->s_running && state != f->s_runnable;
}

static void close_pending(trak_importer *imp, int64_t ts, uint32_t utid) {
  fstate *e = entry(imp->ftrace, utid);
  if (!e) return;
  trak_tables *t = imp->tables;
  trak__ts_dur_set(t, e->last - 1, trak__wsub(ts, t->thread_state.ts[e->last - 1]));
}

/* A new open state of `utid` (not the swapper's): Running on `ucpu` (TRAK_NULL_U32: not
** running), or, when `wakeup`, made runnable by `waker` (TRAK_NULL_U32: unknown). */
static void open_state(trak_importer *imp, int64_t ts, uint32_t utid, uint32_t state, uint32_t ucpu,
                       int wakeup, uint32_t waker, uint8_t irq) {
  if (utid == 0) return;
  trak_ftrace *f = imp->ftrace;
  trak_tables *t = imp->tables;
  uint32_t row = trak__thread_state_push(t);
  t->thread_state.ts[row] = ts;
  t->thread_state.utid[row] = utid;
  trak__ts_state_set(t, row, state);
  trak__ts_irq_context_set(t, row, irq);
  if (ucpu != TRAK_NULL_U32) { /* a Running row: no waker (trak__ts_switch) */
    trak__ts_aux_set(t, row, TRAK_TS_AUX_UCPU, ucpu);
  } else if (wakeup) { /* the waker's Running row gives its utid */
    fstate *w = waker != TRAK_NULL_U32 ? entry(f, waker) : NULL;
    if (w && is_running(f, trak__ts_state(t, w->last - 1)))
      trak__ts_aux_set(t, row, TRAK_TS_AUX_WAKER_ROW, w->last - 1);
    else
      trak__ts_aux_set(t, row, TRAK_TS_AUX_WAKER_UTID, waker);
  }
  while (f->states.n <= utid) {
    fstate none = {0, 0};
    trak_vec_push(f->states, none);
  }
  fstate *e = &f->states.v[utid];
  if (is_running(f, state))
    e->last = row + 1, e->blocked = 0;
  else if (is_blocked(f, state))
    e->last = e->blocked = row + 1;
  else
    e->last = row + 1;
}

void trak__ts_switch(trak_importer *imp, int64_t ts, uint32_t ucpu, uint32_t prev_utid,
                     uint32_t prev_state, uint32_t next_utid) {
  trak_ftrace *f = imp->ftrace;
  fstate *prev = entry(f, prev_utid);
  /* prev was not running: events were lost, its open state keeps dur -1 */
  if (!prev || is_running(f, trak__ts_state(imp->tables, prev->last - 1)))
    close_pending(imp, ts, prev_utid);
  open_state(imp, ts, prev_utid, prev_state, TRAK_NULL_U32, 0, TRAK_NULL_U32, 2);
  /* next may still be running elsewhere (forced migration): its state ends here anyway */
  close_pending(imp, ts, next_utid);
  open_state(imp, ts, next_utid, f->s_running, ucpu, 0, TRAK_NULL_U32, 2);
}

void trak__ts_waking(trak_importer *imp, int64_t ts, uint32_t utid, uint32_t waker_utid,
                     uint8_t irq_context) {
  trak_ftrace *f = imp->ftrace;
  trak_tables *t = imp->tables;
  fstate *e = entry(f, utid);
  if (e && !is_blocked(f, trak__ts_state(t, e->last - 1))) {
    uint32_t row = trak__spurious_wakeup_push(t);
    t->spurious_wakeup.ts[row] = ts;
    t->spurious_wakeup.thread_state_id[row] = e->last - 1;
    t->spurious_wakeup.irq_context[row] = irq_context;
    t->spurious_wakeup.utid[row] = utid;
    t->spurious_wakeup.waker_utid[row] = waker_utid;
    return;
  }
  if (e) close_pending(imp, ts, utid);
  open_state(imp, ts, utid, f->s_runnable, TRAK_NULL_U32, 1, waker_utid, irq_context);
}

void trak__ts_newtask(trak_importer *imp, int64_t ts, uint32_t utid, uint32_t waker_utid) {
  open_state(imp, ts, utid, imp->ftrace->s_runnable, TRAK_NULL_U32, 1, waker_utid, 0);
}

void trak__ts_blocked_reason(trak_importer *imp, uint32_t utid, uint8_t io_wait,
                             uint32_t blocked_function) {
  fstate *e = entry(imp->ftrace, utid);
  if (!e || !e->blocked) return;
  trak_tables *t = imp->tables;
  if (io_wait != 2) trak__ts_io_wait_set(t, e->blocked - 1, io_wait);
  /* a blocked row is neither Running nor woken: aux is free */
  if (blocked_function) trak__ts_aux_set(t, e->blocked - 1, TRAK_TS_AUX_BLOCKED, blocked_function);
}

void trak__ts_push(trak_importer *imp, int64_t ts, uint32_t utid, uint32_t state, uint32_t ucpu) {
  close_pending(imp, ts, utid);
  fstate *e = entry(imp->ftrace, utid);
  if (e && imp->tables->thread_state.ts[e->last - 1] == ts)
    trak__report(imp, TRAK_STAT_GENERIC_TASK_STATE_INVALID_ORDER,
                 "generic kernel task state of utid %u: two state changes at %lld", utid,
                 (long long)ts);
  open_state(imp, ts, utid, state, ucpu, 0, TRAK_NULL_U32, 2);
}

void trak__ts_update_pending(trak_importer *imp, uint32_t utid, uint32_t state) {
  fstate *e = entry(imp->ftrace, utid);
  if (e) trak__ts_state_set(imp->tables, e->last - 1, state);
}

uint32_t trak__ts_prev_state(trak_importer *imp, uint32_t utid) {
  fstate *e = entry(imp->ftrace, utid);
  return e ? trak__ts_state(imp->tables, e->last - 1) : 0;
}
