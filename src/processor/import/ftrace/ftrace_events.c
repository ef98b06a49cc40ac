/*
** This file holds the ftrace_event table (Perfetto's raw): a row per ftrace event with its
** thread, CPU, common_flags and its fields as args; the arg sets front-ends build for generic
** events, and the rows of the events the sink models (sched_switch, sched_waking).
*/
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"

uint32_t trak__ftrace_str(trak_importer *imp, const char *s) {
  return trak__strpool_intern(&imp->tables->strings, s, strlen(s));
}

/* ---- arg sets --------------------------------------------------------------------------- */

uint32_t trak__ftrace_args_begin(trak_importer *imp) {
  return (uint32_t)imp->tables->args.n;
}

void trak__ftrace_arg_int(trak_importer *imp, uint32_t set, uint32_t key, int64_t v) {
  uint32_t row = trak__arg_add(imp->tables, set, key, key, TRAK_ARG_INT);
  imp->tables->args.int_value[row] = v;
}

void trak__ftrace_arg_uint(trak_importer *imp, uint32_t set, uint32_t key, uint64_t v) {
  uint32_t row = trak__arg_add(imp->tables, set, key, key, TRAK_ARG_UINT);
  imp->tables->args.int_value[row] = (int64_t)v;
}

void trak__ftrace_arg_str(trak_importer *imp, uint32_t set, uint32_t key, uint32_t str) {
  uint32_t row = trak__arg_add(imp->tables, set, key, key, TRAK_ARG_STRING);
  imp->tables->args.string_value[row] = str;
}

void trak__ftrace_arg_real(trak_importer *imp, uint32_t set, uint32_t key, double v) {
  uint32_t row = trak__arg_add(imp->tables, set, key, key, TRAK_ARG_REAL);
  imp->tables->args.real_value[row] = v;
}

/* ---- rows ------------------------------------------------------------------------------- */

uint32_t trak__ftrace_row(trak_importer *imp, int64_t ts, uint32_t ucpu, uint32_t utid,
                          uint32_t name, const trak_fq_rec *r, uint32_t set) {
  trak_tables *t = imp->tables;
  uint32_t row = trak__ftrace_event_push(t);
  t->ftrace_event.ts[row] = ts;
  t->ftrace_event.name[row] = name;
  t->ftrace_event.utid[row] = utid;
  t->ftrace_event.common_flags[row] = r->has_flags ? r->flags : 0;
  t->ftrace_event.ucpu[row] = ucpu;
  if (set != TRAK_NULL_U32) {
    t->ftrace_event.arg_set_id[row] = set;
    trak__arg_order_log(imp, TRAK_ARG_ORDER_SET, set);
  }
  return row;
}

void trak__fa_generic(trak_importer *imp, const trak_fq_rec *r) {
  uint32_t utid = trak__ftrace_utid(imp, r->pid);
  trak__ftrace_row(imp, r->ts, trak__ftrace_ucpu(imp, r->cpu), utid, r->s1, r, r->s2);
}

/* The key string ids the sink's own rows use, interned once. */
enum {
  K_PREV_COMM,
  K_PREV_PID,
  K_PREV_PRIO,
  K_PREV_STATE,
  K_NEXT_COMM,
  K_NEXT_PID,
  K_NEXT_PRIO,
  K_COMM,
  K_PID,
  K_PRIO,
  K_TARGET_CPU,
  K_SCHED_SWITCH,
  K_SCHED_WAKING,
  K_COUNT
};
static const char *const key_names[K_COUNT] = {
    "prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm",    "next_pid",    "next_prio",
    "comm",      "pid",      "prio",      "target_cpu", "sched_switch", "sched_waking"};

static uint32_t key(trak_importer *imp, int k) {
  trak_ftrace *f = imp->ftrace;
  if (TRAK_UNLIKELY(!f->keys[k])) f->keys[k] = trak__ftrace_str(imp, key_names[k]);
  return f->keys[k];
}

void trak__ftrace_switch_row(trak_importer *imp, const trak_fq_rec *r, uint32_t ucpu,
                             uint32_t prev_utid, uint32_t prev_pid, uint32_t prev_comm,
                             int32_t prev_prio) {
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_str(imp, set, key(imp, K_PREV_COMM), prev_comm);
  trak__ftrace_arg_int(imp, set, key(imp, K_PREV_PID), prev_pid);
  trak__ftrace_arg_int(imp, set, key(imp, K_PREV_PRIO), prev_prio);
  trak__ftrace_arg_int(imp, set, key(imp, K_PREV_STATE), r->x);
  trak__ftrace_arg_str(imp, set, key(imp, K_NEXT_COMM), r->s2);
  trak__ftrace_arg_int(imp, set, key(imp, K_NEXT_PID), r->a);
  trak__ftrace_arg_int(imp, set, key(imp, K_NEXT_PRIO), r->p2);
  set = trak__args_share(imp, set);
  trak_fq_rec flags = *r;
  flags.has_flags = 0; /* Perfetto's sched_switch rows have common_flags 0 */
  trak__ftrace_row(imp, r->ts, ucpu, prev_utid, key(imp, K_SCHED_SWITCH), &flags, set);
}

void trak__ftrace_waking_row(trak_importer *imp, const trak_fq_rec *r, uint32_t waker) {
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_str(imp, set, key(imp, K_COMM), r->s1);
  trak__ftrace_arg_int(imp, set, key(imp, K_PID), r->a);
  trak__ftrace_arg_int(imp, set, key(imp, K_PRIO), r->p1);
  trak__ftrace_arg_int(imp, set, key(imp, K_TARGET_CPU), r->p2);
  set = trak__args_share(imp, set);
  uint32_t name = r->type == TRAK_FQ_WAKING_COMPACT ? key(imp, K_SCHED_WAKING) : r->s2;
  trak__ftrace_row(imp, r->ts, trak__ftrace_ucpu(imp, r->cpu), waker, name, r, set);
}
