/*
** This file holds the arg sets of the sink's sched_switch and sched_waking rows by their values,
** in tables small enough to stay in the cache: a switch's prev fields and next fields each get a
** small id (a few per thread), and the set is found by the pair of ids in a table of 12-byte
** slots; a waking's set by its four values. The byte-keyed cache of ftrace_events.c took two to
** six cache misses a row (16,384 distinct switch sets in 1.7 MB of parallel arrays).
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/hash.h"

/* An open-addressing table from four values to a 32-bit value. */
typedef struct vals_slot {
  int64_t v[4];
  uint32_t val; /* TRAK_NULL_U32: an empty slot */
} vals_slot;

typedef struct vals_table {
  vals_slot *s;
  uint32_t mask, n; /* slots - 1 (0: none yet), values held */
} vals_table;

/* An open-addressing table from a pair of ids to an arg set. */
typedef struct pair_slot {
  uint32_t a, b, set; /* set TRAK_NULL_U32: an empty slot */
} pair_slot;

typedef struct pair_table {
  pair_slot *s;
  uint32_t mask, n;
} pair_table;

/* Slots of a memo of a vals_table: the slots last found for each pid % MEMO. A thread's events
** repeat its comm, pid and prio (and mostly its prev_state), so one compare finds the value
** without hashing; a memo keeps only slots the table holds, whose values never change. */
#define MEMO 512u

struct trak_fsched {
  vals_table prev;   /* a switch's (prev_comm, prev_pid, prev_prio, prev_state) -> its id */
  vals_table next;   /* a switch's (next_comm, next_pid, next_prio, 0) -> its id */
  pair_table pairs;  /* (prev id, next id) -> the switch's set */
  vals_table waking; /* a waking's (comm, pid, prio, target_cpu) -> its set */
  vals_slot *memo;   /* 3 * MEMO slots: the memos of prev, next and waking */
};

/* Slots a table starts with (small, so the tests grow them through collisions). */
#define FIRST_SLOTS 64u

static void *slots_alloc(size_t n, size_t size) {
  void *p = malloc(n * size);
  if (!p) abort();
  memset(p, 0xff, n * size); /* every slot empty: val / set TRAK_NULL_U32 */
  return p;
}

static uint32_t vals_hash(const int64_t *v) {
  uint64_t h = trak__mix(trak__mix(trak__mix((uint64_t)v[0], (uint64_t)v[1]), (uint64_t)v[2]),
                         (uint64_t)v[3]);
  return (uint32_t)(h >> 32); /* the multiply mixes the high bits best */
}

/* The slot of `v` in t (its value, or the empty slot where it goes); t has slots. */
static vals_slot *vals_find(const vals_table *t, const int64_t *v) {
  for (uint32_t i = vals_hash(v) & t->mask;; i = (i + 1) & t->mask) {
    vals_slot *s = &t->s[i];
    if (s->val == TRAK_NULL_U32 || !memcmp(s->v, v, sizeof s->v)) return s;
  }
}

/* Makes room for one more value (at most half the slots used). */
static void vals_reserve(vals_table *t) {
  if (t->mask && 2 * (t->n + 1) <= t->mask) return;
  vals_table old = *t;
  t->mask = old.mask ? old.mask * 2 + 1 : FIRST_SLOTS - 1;
  t->s = slots_alloc((size_t)t->mask + 1, sizeof *t->s);
  for (uint32_t i = 0; old.s && i <= old.mask; i++)
    if (old.s[i].val != TRAK_NULL_U32) *vals_find(t, old.s[i].v) = old.s[i];
  free(old.s);
}

/* The value of `v` in t, or TRAK_NULL_U32. */
static uint32_t vals_get(const vals_table *t, const int64_t *v) {
  return t->mask ? vals_find(t, v)->val : TRAK_NULL_U32;
}

/* vals_get(t, v) through memo (MEMO slots) at `pid`'s slot. */
static inline uint32_t vals_get_memo(const vals_table *t, vals_slot *memo, const int64_t *v,
                                     int64_t pid) {
  vals_slot *m = &memo[(uint64_t)pid % MEMO];
  if (TRAK_LIKELY(m->val != TRAK_NULL_U32 && !memcmp(m->v, v, sizeof m->v))) return m->val;
  if (!t->mask) return TRAK_NULL_U32;
  const vals_slot *s = vals_find(t, v);
  if (s->val != TRAK_NULL_U32) *m = *s;
  return s->val;
}

/* Puts `v` -> `val` in t unless `v` is there; returns the value `v` has. */
static uint32_t vals_put(vals_table *t, const int64_t *v, uint32_t val) {
  vals_reserve(t);
  vals_slot *s = vals_find(t, v);
  if (s->val != TRAK_NULL_U32) return s->val;
  memcpy(s->v, v, sizeof s->v);
  s->val = val;
  t->n++;
  return val;
}

/* The id of `v` in t, given the next id when it has none yet. */
static uint32_t vals_id(vals_table *t, const int64_t *v) {
  uint32_t id = vals_get(t, v);
  return id != TRAK_NULL_U32 ? id : vals_put(t, v, t->n);
}

static inline pair_slot *pair_find(const pair_table *t, uint32_t a, uint32_t b) {
  uint32_t h = (uint32_t)(trak__mix(a, b) >> 32);
  for (uint32_t i = h & t->mask;; i = (i + 1) & t->mask) {
    pair_slot *s = &t->s[i];
    if (s->set == TRAK_NULL_U32 || (s->a == a && s->b == b)) return s;
  }
}

static void pair_reserve(pair_table *t) {
  if (t->mask && 4 * (t->n + 1) <= 3 * t->mask) return;
  pair_table old = *t;
  t->mask = old.mask ? old.mask * 2 + 1 : FIRST_SLOTS - 1;
  t->s = slots_alloc((size_t)t->mask + 1, sizeof *t->s);
  for (uint32_t i = 0; old.s && i <= old.mask; i++)
    if (old.s[i].set != TRAK_NULL_U32) *pair_find(t, old.s[i].a, old.s[i].b) = old.s[i];
  free(old.s);
}

/* The tables, or NULL when they are turned off (TRAK_FTRACE_SCHED_SETS=0). */
static trak_fsched *tables_get(trak_importer *imp) {
  trak_ftrace *f = imp->ftrace;
  if (TRAK_LIKELY(f->sched_sets != NULL) || f->sched_sets_off) return f->sched_sets;
  f->sched_sets = calloc(1, sizeof *f->sched_sets);
  if (!f->sched_sets) abort();
  f->sched_sets->memo = slots_alloc(3 * MEMO, sizeof *f->sched_sets->memo);
  return f->sched_sets;
}

uint32_t trak__fsched_switch_get(trak_importer *imp, const int64_t *vals) {
  trak_fsched *c = tables_get(imp);
  if (!c || !c->pairs.mask) return TRAK_NULL_U32;
  uint32_t a = vals_get_memo(&c->prev, c->memo, vals, vals[1]);
  if (a == TRAK_NULL_U32) return TRAK_NULL_U32;
  /* the next key in place: a copy read back as 16 bytes waited for the caller's 8-byte stores
  ** to reach the cache (no store forwarding), behind the column stores before them */
  uint32_t b = vals_get_memo(&c->next, c->memo + MEMO, vals + 4, vals[5]);
  if (b == TRAK_NULL_U32) return TRAK_NULL_U32;
  return pair_find(&c->pairs, a, b)->set;
}

void trak__fsched_switch_prefetch(trak_importer *imp, int64_t prev_pid, int64_t next_pid) {
  const trak_fsched *c = imp->ftrace->sched_sets;
  if (!c || !c->pairs.mask) return;
  /* the ids the pids' memo slots last gave: a thread's switches mostly repeat its values */
  uint32_t a = c->memo[(uint64_t)prev_pid % MEMO].val;
  uint32_t b = c->memo[MEMO + (uint64_t)next_pid % MEMO].val;
  if (a == TRAK_NULL_U32 || b == TRAK_NULL_U32) return;
  __builtin_prefetch(&c->pairs.s[(uint32_t)(trak__mix(a, b) >> 32) & c->pairs.mask]);
}

void trak__fsched_switch_put(trak_importer *imp, const int64_t *vals, uint32_t set) {
  trak_fsched *c = tables_get(imp);
  if (!c || set == TRAK_NULL_U32) return;
  /* the ids are given here, so the tables hold only values of sets seen twice */
  uint32_t a = vals_id(&c->prev, vals), b = vals_id(&c->next, vals + 4);
  pair_reserve(&c->pairs);
  pair_slot *s = pair_find(&c->pairs, a, b);
  if (s->set != TRAK_NULL_U32) return;
  *s = (pair_slot){a, b, set};
  c->pairs.n++;
}

uint32_t trak__fsched_waking_get(trak_importer *imp, const int64_t *vals) {
  trak_fsched *c = tables_get(imp);
  return c ? vals_get_memo(&c->waking, c->memo + 2 * MEMO, vals, vals[1]) : TRAK_NULL_U32;
}

void trak__fsched_waking_put(trak_importer *imp, const int64_t *vals, uint32_t set) {
  trak_fsched *c = tables_get(imp);
  if (c && set != TRAK_NULL_U32) vals_put(&c->waking, vals, set);
}

void trak__fsched_free(trak_ftrace *f) {
  trak_fsched *c = f->sched_sets;
  if (!c) return;
  free(c->prev.s), free(c->next.s), free(c->pairs.s), free(c->waking.s), free(c->memo);
  free(c);
  f->sched_sets = NULL;
}
