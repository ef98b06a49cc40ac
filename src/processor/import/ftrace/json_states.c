/*
** This file holds the thread states a JSON trace gives (Perfetto's "T" phase events, each a
** state of one thread with its own start and duration): queued with the kernel's records,
** then each applied in timestamp order as a thread_state row, and a Running state with a cpu
** also as a sched_slice row on that CPU (with no end state or priority), as Perfetto's JSON
** parser makes them. Unlike the kernel's events they do not open and close states: each row is
** whole as given.
*/
#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/tables/sched_cols.h"
#include "processor/tables/thread_state_cols.h"

void trak__ftrace_json_state(trak_importer *imp, int64_t ts, int64_t dur, uint32_t utid,
                             uint32_t state, int io_wait, uint32_t blocked, int64_t cpu) {
  trak_fq_rec r = {.ts = ts,
                   .x = dur,
                   .a = utid,
                   .s1 = state,
                   .s2 = blocked,
                   .p1 = io_wait,
                   .p2 = cpu >= 0 && cpu < 4096 ? (int32_t)cpu : -1,
                   .type = TRAK_FQ_JSON_STATE};
  trak__ftrace_get(imp);
  trak__fq_push_to(imp, TRAK_FQ_PACKETS, &r);
}

void trak__fa_json_state(trak_importer *imp, const trak_fq_rec *r) {
  trak_tables *t = imp->tables;
  uint32_t row = trak__thread_state_push(t);
  t->thread_state.ts[row] = r->ts;
  t->thread_state.utid[row] = r->a;
  trak__ts_dur_set(t, row, r->x);
  trak__ts_state_set(t, row, r->s1);
  if (r->p1 >= 0) trak__ts_io_wait_set(t, row, (uint8_t)(r->p1 != 0));
  if (r->s2) trak__ts_aux_set(t, row, TRAK_TS_AUX_BLOCKED, r->s2);
  if (r->p2 < 0 || r->s1 != imp->ftrace->s_running) return;
  uint32_t cpu = (uint32_t)r->p2;
  trak__ftrace_cpu_seen(imp, cpu);
  uint32_t ss = trak__sched_slice_push(t);
  t->sched_slice.ts[ss] = r->ts;
  t->sched_slice.dur[ss] = r->x;
  t->sched_slice.utid[ss] = r->a;
  trak__ss_ucpu_set(t, ss, trak__ftrace_ucpu(imp, cpu));
}
