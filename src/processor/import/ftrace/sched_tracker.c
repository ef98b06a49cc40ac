/*
** This file holds the sched tracker: each CPU's running slice in sched_slice, opened by the
** sched_switch that brings a thread in and closed by the one that takes it out, with the
** thread's end state (Perfetto's FtraceSchedEventTracker rules, docs/design/linux-import.md).
*/
#include <stdio.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/tables/sched_cols.h"
#include "processor/util/task_state.h"

void trak__ftrace_cpus_grow(trak_ftrace *f, uint32_t cpu) {
  while (f->cpus.n <= cpu) {
    trak_fcpu c = {0, 0, TRAK_NULL_U32, 0, {0}, {0}, {0}};
    trak_vec_push(f->cpus, c);
  }
}

/* The end state of raw prev_state `raw`: its entry (id the string id of its letters, 0 for an
** invalid state, counted). */
static inline trak_fstate_id *end_state(trak_importer *imp, int64_t raw) {
  trak_ftrace *f = imp->ftrace;
  uint16_t bits = (uint16_t)raw; /* all the letters depend on (with the kernel version) */
  trak_fstate_id *hit = &f->state_ids[bits % TRAK_FSTATE_IDS];
  if (TRAK_LIKELY(hit->id && hit->bits == bits)) return hit;
  char letters[4];
  if (trak__task_state_letters(bits, f->kernel_major, f->kernel_minor, letters) < 0) {
    trak__report(imp, TRAK_STAT_TASK_STATE_INVALID, "sched_switch prev_state %lld is not a state",
                 (long long)raw);
    return &f->state_none;
  }
  hit->bits = bits;
  hit->id = trak__ftrace_str(imp, letters);
  return hit;
}

/* Closes the CPU's running slice at ts with `state`. */
static inline void slice_close(trak_importer *imp, trak_fcpu *c, int64_t ts,
                               trak_fstate_id *state) {
  trak_tables *t = imp->tables;
  uint32_t row = c->slice - 1;
  t->sched_slice.dur[row] = trak__wsub(ts, t->sched_slice.ts[row]);
  trak_dict8 *d = &t->dict.ss_end_state;
  trak__dict8_put(d, t->sched_slice.end_state8, row, trak__fcode(d, &state->ss, state->id),
                  state->id);
  c->slice = 0;
}

static inline __attribute__((always_inline)) void slice_open(trak_importer *imp, trak_fcpu *c,
                                                             int64_t ts, uint32_t ucpu,
                                                             uint32_t utid, int32_t prio) {
  trak_tables *t = imp->tables;
  uint32_t row = trak__sched_slice_push(t);
  t->sched_slice.ts[row] = ts;
  t->sched_slice.utid[row] = utid;
  trak_dict8 *d = &t->dict.ss_priority;
  trak__dict8_put(d, t->sched_slice.priority8, row, trak__fcode(d, &c->ss_prio, (uint32_t)prio),
                  (uint32_t)prio);
  d = &t->dict.ss_ucpu;
  trak__dict8_put(d, t->sched_slice.ucpu8, row, trak__fcode(d, &c->ss_ucpu, ucpu), ucpu);
  c->slice = row + 1;
}

void trak__fa_switch(trak_importer *imp, const trak_fq_rec *r) {
  trak_ftrace *f = imp->ftrace;
  uint32_t ucpu = trak__ftrace_ucpu(imp, r->cpu);
  uint32_t next_utid = trak__ftrace_utid(imp, r->a);
  trak__ftrace_name_thread(imp, next_utid, r->s2);
  trak_fcpu *c = trak__ftrace_cpu(f, r->cpu);
  trak_fstate_id *state = end_state(imp, r->x);
  if (c->slice) {
    if (TRAK_LIKELY(c->pid == r->pid))
      slice_close(imp, c, r->ts, state);
    else
      trak__report(imp, TRAK_STAT_MISMATCHED_SCHED_SWITCH_TIDS,
                   "sched_switch on cpu %u at %lld switches out tid %u, but tid %u was running",
                   r->cpu, (long long)r->ts, r->pid, c->pid);
  }
  uint32_t prev_utid = trak__ftrace_utid(imp, r->pid);
  trak__ftrace_name_thread(imp, prev_utid, r->s1);
  trak__ftrace_switch_row(imp, r, c, ucpu, prev_utid, r->pid, r->s1, r->p1);
  slice_open(imp, c, r->ts, ucpu, next_utid, r->p2);
  c->pid = r->a, c->utid = next_utid, c->prio = r->p2;
  trak__ts_switch(imp, r->ts, ucpu, prev_utid, state, next_utid);
}

void trak__fa_switch_compact(trak_importer *imp, const trak_fq_rec *r) {
  trak_ftrace *f = imp->ftrace;
  trak_tables *t = imp->tables;
  uint32_t ucpu = trak__ftrace_ucpu(imp, r->cpu);
  uint32_t next_utid = trak__ftrace_utid(imp, r->a);
  trak__ftrace_name_thread(imp, next_utid, r->s2);
  trak_fcpu *c = trak__ftrace_cpu(f, r->cpu);
  if (c->utid == TRAK_NULL_U32) {
    trak__report(imp, TRAK_STAT_COMPACT_SCHED_SWITCH_SKIPPED,
                 "the first compact sched_switch of cpu %u only says which thread runs", r->cpu);
    c->pid = r->a, c->utid = next_utid, c->prio = r->p2;
    return;
  }
  trak_fstate_id *state = end_state(imp, r->x);
  if (c->slice) slice_close(imp, c, r->ts, state);
  uint32_t prev_utid = c->utid;
  trak__ftrace_switch_row(imp, r, c, ucpu, prev_utid, c->pid, t->thread.name[prev_utid], c->prio);
  c->pid = r->a, c->utid = next_utid, c->prio = r->p2;
  if (f->raw_only) return; /* before every CPU's data is complete (crop.c) */
  slice_open(imp, c, r->ts, ucpu, next_utid, r->p2);
  trak__ts_switch(imp, r->ts, ucpu, prev_utid, state, next_utid);
}

uint32_t trak__ftrace_running_utid(trak_importer *imp, uint32_t cpu) {
  trak_ftrace *f = imp->ftrace;
  return cpu < f->cpus.n ? f->cpus.v[cpu < 4096 ? cpu : 4095].utid : TRAK_NULL_U32;
}
