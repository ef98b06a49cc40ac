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

static inline void close_pending(trak_importer *imp, int64_t ts, uint32_t utid) {
  fstate *e = entry(imp->ftrace, utid);
  if (!e) return;
  trak_tables *t = imp->tables;
  trak__ts_dur_set(t, e->last - 1, trak__wsub(ts, t->thread_state.ts[e->last - 1]));
}

/* Grows f->states to hold `utid`'s entry (a thread's first state). */
__attribute__((noinline, cold)) static void states_grow(trak_ftrace *f, uint32_t utid) {
  while (f->states.n <= utid) {
    fstate none = {0, 0};
    trak_vec_push(f->states, none);
  }
}

/* What a state is to the tracker: Running, runnable, or blocked (any other). */
enum { RUNNING, RUNNABLE, BLOCKED };

/* Appends a thread_state row of `utid` (not the swapper's) in `state`, of code `code` in
** state8 (trak__dict8_code's) and of kind `kind` (RUNNING, ...), its aux `aux` holding `aux_kind`
** and its irq_context `irq`; the thread's entry points at it. */
static inline void row_open(trak_importer *imp, int64_t ts, uint32_t utid, uint32_t state,
                            uint8_t code, int kind, trak_ts_aux aux_kind, uint32_t aux,
                            uint8_t irq) {
  trak_ftrace *f = imp->ftrace;
  trak_tables *t = imp->tables;
  uint32_t row = trak__thread_state_push(t);
  t->thread_state.ts[row] = ts;
  t->thread_state.utid[row] = utid;
  t->thread_state.aux[row] = aux;
  t->thread_state.bits[row] = trak__ts_bits_new(irq, aux_kind);
  trak__dict8_put(&t->dict.ts_state, t->thread_state.state8, row, code, state);
  if (TRAK_UNLIKELY(f->states.n <= utid)) states_grow(f, utid);
  fstate *e = &f->states.v[utid];
  e->last = row + 1;
  if (kind == RUNNING)
    e->blocked = 0;
  else if (kind == BLOCKED)
    e->blocked = row + 1;
}

/* The kind of `state` (a string id). */
static inline int state_kind(const trak_ftrace *f, uint32_t state) {
  return is_running(f, state) ? RUNNING : is_blocked(f, state) ? BLOCKED : RUNNABLE;
}

/* The aux of a row made runnable by `waker` (TRAK_NULL_U32: unknown): the waker's Running row,
** which gives its utid, else the waker's utid; *aux its value. */
static inline trak_ts_aux waker_aux(trak_ftrace *f, const trak_tables *t, uint32_t waker,
                                    uint32_t *aux) {
  fstate *w = waker != TRAK_NULL_U32 ? entry(f, waker) : NULL;
  if (w && is_running(f, trak__ts_state(t, w->last - 1)))
    return *aux = w->last - 1, TRAK_TS_AUX_WAKER_ROW;
  return *aux = waker, TRAK_TS_AUX_WAKER_UTID;
}

/* A new open state of `utid` (not the swapper's): Running on `ucpu` (TRAK_NULL_U32: not
** running), or, when `wakeup`, made runnable by `waker` (TRAK_NULL_U32: unknown). */
static void open_state(trak_importer *imp, int64_t ts, uint32_t utid, uint32_t state, uint32_t ucpu,
                       int wakeup, uint32_t waker, uint8_t irq) {
  if (utid == 0) return;
  trak_ftrace *f = imp->ftrace;
  trak_tables *t = imp->tables;
  trak_ts_aux aux_kind = TRAK_TS_AUX_NONE;
  uint32_t aux = 0;
  if (ucpu != TRAK_NULL_U32) /* a Running row: no waker (trak__ts_switch) */
    aux_kind = TRAK_TS_AUX_UCPU, aux = ucpu;
  else if (wakeup)
    aux_kind = waker_aux(f, t, waker, &aux);
  row_open(imp, ts, utid, state, trak__dict8_code(&t->dict.ts_state, state), state_kind(f, state),
           aux_kind, aux, irq);
}

void trak__ts_switch(trak_importer *imp, int64_t ts, uint32_t ucpu, uint32_t prev_utid,
                     trak_fstate_id *prev_state, uint32_t next_utid) {
  trak_ftrace *f = imp->ftrace;
  trak_tables *t = imp->tables;
  fstate *prev = entry(f, prev_utid);
  /* prev was not running: events were lost, its open state keeps dur -1 */
  if (prev && is_running(f, trak__ts_state(t, prev->last - 1))) close_pending(imp, ts, prev_utid);
  uint32_t state = prev_state->id;
  if (prev_utid)
    row_open(imp, ts, prev_utid, state, trak__fcode(&t->dict.ts_state, &prev_state->ts, state),
             state_kind(f, state), TRAK_TS_AUX_NONE, 0, 2);
  /* next may still be running elsewhere (forced migration): its state ends here anyway */
  close_pending(imp, ts, next_utid);
  if (next_utid)
    row_open(imp, ts, next_utid, f->s_running,
             trak__fcode(&t->dict.ts_state, &f->c_running, f->s_running), RUNNING, TRAK_TS_AUX_UCPU,
             ucpu, 2);
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
  if (!utid) return;
  uint32_t aux;
  trak_ts_aux aux_kind = waker_aux(f, t, waker_utid, &aux);
  row_open(imp, ts, utid, f->s_runnable,
           trak__fcode(&t->dict.ts_state, &f->c_runnable, f->s_runnable), RUNNABLE, aux_kind, aux,
           irq_context);
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
