/*
** This file holds the ftrace_event table (Perfetto's raw): a row per ftrace event with its
** thread, CPU, common_flags and its fields as args; the arg sets front-ends build for generic
** events, and the rows of the events the sink models (sched_switch, sched_waking).
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/hash.h"

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

/* ---- the arg sets of the sink's own rows, by their values ------------------------------- */

/* The values of a sched_switch or sched_waking row's args: kind (1 switch, 2 waking) and up to
** eight 32-bit words. A set seen twice is cached by these values, so that the next rows with
** them take the set without building its args rows and hashing them (trak__args_share would
** return that same set: only sets it shared are cached, so a hash collision it keeps apart
** stays apart). */
typedef struct set_key {
  uint32_t w[9];
} set_key;

struct trak_fsets {
  set_key *keys;
  uint32_t *sets; /* TRAK_NULL_U32: an empty slot */
  uint32_t mask, n;
};

static uint64_t key_hash(const set_key *k) {
  uint64_t h = 0;
  for (int i = 0; i < 9; i++)
    h = trak__mix(h, k->w[i]);
  return h;
}

/* The slot of `k` in c (its set, or an empty slot). */
static uint32_t slot_find(const trak_fsets *c, const set_key *k) {
  uint32_t i = (uint32_t)key_hash(k) & c->mask;
  while (c->sets[i] != TRAK_NULL_U32 && memcmp(&c->keys[i], k, sizeof *k))
    i = (i + 1) & c->mask;
  return i;
}

static void sets_grow(trak_fsets *c) {
  trak_fsets old = *c;
  c->mask = old.mask ? old.mask * 2 + 1 : 255;
  c->keys = malloc(((size_t)c->mask + 1) * sizeof *c->keys);
  c->sets = malloc(((size_t)c->mask + 1) * sizeof *c->sets);
  if (!c->keys || !c->sets) abort();
  memset(c->sets, 0xff, ((size_t)c->mask + 1) * sizeof *c->sets);
  for (uint32_t i = 0; old.sets && i <= old.mask; i++)
    if (old.sets[i] != TRAK_NULL_U32) {
      uint32_t j = slot_find(c, &old.keys[i]);
      c->keys[j] = old.keys[i], c->sets[j] = old.sets[i];
    }
  free(old.keys);
  free(old.sets);
}

/* The cached set of `k`, TRAK_NULL_U32 when none. */
static uint32_t set_cached(trak_importer *imp, const set_key *k) {
  trak_fsets *c = imp->ftrace->sets;
  return c ? c->sets[slot_find(c, k)] : TRAK_NULL_U32;
}

/* Caches `set`, made from the args rows begun at `begin`, for `k` when it was shared. */
static void set_cache(trak_importer *imp, const set_key *k, uint32_t set, uint32_t begin) {
  if (set == TRAK_NULL_U32 || set >= begin) return; /* new, or kept apart: not known canonical */
  trak_ftrace *f = imp->ftrace;
  if (!f->sets) {
    f->sets = calloc(1, sizeof *f->sets);
    if (!f->sets) abort();
  }
  if (2 * (f->sets->n + 1) > f->sets->mask) sets_grow(f->sets);
  uint32_t i = slot_find(f->sets, k);
  f->sets->keys[i] = *k, f->sets->sets[i] = set, f->sets->n++;
}

void trak__ftrace_sets_free(trak_ftrace *f) {
  if (!f->sets) return;
  free(f->sets->keys);
  free(f->sets->sets);
  free(f->sets);
  f->sets = NULL;
}

void trak__ftrace_switch_row(trak_importer *imp, const trak_fq_rec *r, uint32_t ucpu,
                             uint32_t prev_utid, uint32_t prev_pid, uint32_t prev_comm,
                             int32_t prev_prio) {
  set_key k = {{1, prev_comm, prev_pid, (uint32_t)prev_prio, (uint32_t)r->x,
                (uint32_t)((uint64_t)r->x >> 32), r->s2, r->a, (uint32_t)r->p2}};
  uint32_t set = set_cached(imp, &k);
  if (set == TRAK_NULL_U32) {
    uint32_t begin = set = trak__ftrace_args_begin(imp);
    trak__ftrace_arg_str(imp, set, key(imp, K_PREV_COMM), prev_comm);
    trak__ftrace_arg_int(imp, set, key(imp, K_PREV_PID), prev_pid);
    trak__ftrace_arg_int(imp, set, key(imp, K_PREV_PRIO), prev_prio);
    trak__ftrace_arg_int(imp, set, key(imp, K_PREV_STATE), r->x);
    trak__ftrace_arg_str(imp, set, key(imp, K_NEXT_COMM), r->s2);
    trak__ftrace_arg_int(imp, set, key(imp, K_NEXT_PID), r->a);
    trak__ftrace_arg_int(imp, set, key(imp, K_NEXT_PRIO), r->p2);
    set = trak__args_share(imp, set);
    set_cache(imp, &k, set, begin);
  }
  trak_fq_rec flags = *r;
  flags.has_flags = 0; /* Perfetto's sched_switch rows have common_flags 0 */
  trak__ftrace_row(imp, r->ts, ucpu, prev_utid, key(imp, K_SCHED_SWITCH), &flags, set);
}

void trak__ftrace_waking_row(trak_importer *imp, const trak_fq_rec *r, uint32_t waker) {
  set_key k = {{2, r->s1, r->a, (uint32_t)r->p1, (uint32_t)r->p2, 0, 0, 0, 0}};
  uint32_t set = set_cached(imp, &k);
  if (set == TRAK_NULL_U32) {
    uint32_t begin = set = trak__ftrace_args_begin(imp);
    trak__ftrace_arg_str(imp, set, key(imp, K_COMM), r->s1);
    trak__ftrace_arg_int(imp, set, key(imp, K_PID), r->a);
    trak__ftrace_arg_int(imp, set, key(imp, K_PRIO), r->p1);
    trak__ftrace_arg_int(imp, set, key(imp, K_TARGET_CPU), r->p2);
    set = trak__args_share(imp, set);
    set_cache(imp, &k, set, begin);
  }
  uint32_t name = r->type == TRAK_FQ_WAKING_COMPACT ? key(imp, K_SCHED_WAKING) : r->s2;
  trak__ftrace_row(imp, r->ts, trak__ftrace_ucpu(imp, r->cpu), waker, name, r, set);
}
