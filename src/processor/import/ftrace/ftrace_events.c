/*
** This file holds the ftrace_event table (Perfetto's raw): a row per ftrace event with its
** thread, CPU, common_flags and its fields as args; the arg sets front-ends build for generic
** events, and the rows of the events the sink models (sched_switch, sched_waking).
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/hash.h"
#include "processor/tables/arg_value.h"
#include "processor/tables/sched_cols.h"

uint32_t trak__ftrace_str(trak_importer *imp, const char *s) {
  return trak__strpool_intern(&imp->tables->strings, s, strlen(s));
}

/* ---- arg sets --------------------------------------------------------------------------- */

uint32_t trak__ftrace_args_begin(trak_importer *imp) {
  return (uint32_t)imp->tables->args.n;
}

void trak__ftrace_arg_int(trak_importer *imp, uint32_t set, uint32_t key, int64_t v) {
  uint32_t row = trak__arg_add(imp->tables, set, key, key, TRAK_ARG_INT);
  trak__arg_set_int(imp->tables, row, v);
}

void trak__ftrace_arg_uint(trak_importer *imp, uint32_t set, uint32_t key, uint64_t v) {
  uint32_t row = trak__arg_add(imp->tables, set, key, key, TRAK_ARG_UINT);
  trak__arg_set_int(imp->tables, row, (int64_t)v);
}

void trak__ftrace_arg_str(trak_importer *imp, uint32_t set, uint32_t key, uint32_t str) {
  uint32_t row = trak__arg_add(imp->tables, set, key, key, TRAK_ARG_STRING);
  trak__arg_set_str(imp->tables, row, str);
}

void trak__ftrace_arg_real(trak_importer *imp, uint32_t set, uint32_t key, double v) {
  uint32_t row = trak__arg_add(imp->tables, set, key, key, TRAK_ARG_REAL);
  trak__arg_set_real(imp->tables, row, v);
}

/* ---- arg sets with one row per key ----------------------------------------------------- */

/* The row of key `key` in the set `a` is building, or TRAK_NULL_U32. Sets of up to INDEX_AT rows
** are scanned; a larger one (an event of many fields, from a hostile trace say) is indexed. */
#define INDEX_AT 32u
static uint32_t keyed_row(trak_importer *imp, trak_fargs *a, uint32_t key) {
  const trak_tables *t = imp->tables;
  uint32_t n = (uint32_t)t->args.n - a->begin;
  if (n < INDEX_AT) {
    for (uint32_t i = 0; i < n; i++)
      if (t->args.key[a->begin + i] == key) return a->begin + i;
    return TRAK_NULL_U32;
  }
  if (!a->index.n) /* index the rows scanned so far */
    for (uint32_t i = 0; i < n; i++) {
      int added;
      trak__map_put(&a->index, t->args.key[a->begin + i], a->begin + i, &added);
    }
  uint32_t *row = trak__map_get(&a->index, key);
  return row ? *row : TRAK_NULL_U32;
}

void trak__ftrace_fargs_begin(trak_importer *imp, trak_fargs *a) {
  memset(a, 0, sizeof *a);
  a->begin = trak__ftrace_args_begin(imp);
}

void trak__ftrace_fargs_add(trak_importer *imp, trak_fargs *a, uint32_t key, trak_arg_type type,
                            int64_t i, uint32_t str, double real) {
  trak_tables *t = imp->tables;
  uint32_t row = keyed_row(imp, a, key);
  if (row == TRAK_NULL_U32) {
    row = trak__arg_add(t, a->begin, key, key, type);
    if (a->index.n) {
      int added;
      trak__map_put(&a->index, key, row, &added);
    }
  }
  t->args.value_type[row] = (uint8_t)type;
  t->args.value[row] = trak__arg_word(type, i, real, str);
}

uint32_t trak__ftrace_fargs_close(trak_importer *imp, trak_fargs *a) {
  trak__map_free(&a->index);
  return trak__ftrace_args_close(imp, a->begin);
}

/* ---- rows ------------------------------------------------------------------------------- */

/* Whether set `set`'s first use is placed already (trak__ftrace_set_used). */
static inline int set_placed(const trak_ftrace *f, uint32_t set) {
  return set / 64 < f->set_logged.n && f->set_logged.v[set / 64] >> (set & 63) & 1;
}

/* An ftrace_event row: the event `name` of `utid` at ts on `ucpu`, with `flags` and arg set `set`
** (TRAK_NULL_U32: none); name_code and ucpu_code are the values' codes (trak__dict8_code's). */
static inline __attribute__((always_inline)) uint32_t
row_add(trak_importer *imp, int64_t ts, uint32_t ucpu, uint8_t ucpu_code, uint32_t utid,
        uint32_t name, uint8_t name_code, uint16_t flags, uint32_t set) {
  trak_tables *t = imp->tables;
  uint32_t row = trak__ftrace_event_push(t);
  t->ftrace_event.ts[row] = ts;
  trak__dict8_put(&t->dict.fe_name, t->ftrace_event.name8, row, name_code, name);
  t->ftrace_event.utid[row] = utid;
  trak__fe_common_flags_set(t, row, flags);
  trak__dict8_put(&t->dict.fe_ucpu, t->ftrace_event.ucpu8, row, ucpu_code, ucpu);
  if (set != TRAK_NULL_U32) {
    t->ftrace_event.arg_set_id[row] = set;
    if (!set_placed(imp->ftrace, set)) trak__ftrace_set_used(imp, ts, set);
  }
  return row;
}

uint32_t trak__ftrace_row(trak_importer *imp, int64_t ts, uint32_t ucpu, uint32_t utid,
                          uint32_t name, const trak_fq_rec *r, uint32_t set) {
  trak_tables *t = imp->tables;
  return row_add(imp, ts, ucpu, trak__dict8_code(&t->dict.fe_ucpu, ucpu), utid, name,
                 trak__dict8_code(&t->dict.fe_name, name), r->has_flags ? r->flags : 0, set);
}

void trak__ftrace_set_used(trak_importer *imp, int64_t ts, uint32_t set) {
  /* Only a set's first use places it (arg_order.c): a shared set is logged once, not once
  ** per row (10 M rows of a handful of sets were 80 MB of log). A bit per set: the array stays
  ** in the cache (a byte per args row missed it). */
  trak_ftrace *f = imp->ftrace;
  if (set_placed(f, set)) return;
  while (f->set_logged.n <= set / 64)
    trak_vec_push(f->set_logged, 0);
  f->set_logged.v[set / 64] |= (uint64_t)1 << (set & 63);
  trak__arg_order_at(&imp->args, ts);
  trak__arg_order_log(imp, TRAK_ARG_ORDER_SET, set);
}

void trak__fa_generic(trak_importer *imp, const trak_fq_rec *r) {
  /* kernel-symbol lookups (trak__ftrace_generic): the parser's only past the crop */
  if (TRAK_UNLIKELY(r->a))
    imp->stats[TRAK_STAT_INTERNED_ERRORS] +=
        (r->a & 0xff) + (imp->ftrace->raw_only ? 0 : r->a >> 8);
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

/* ---- arg sets by value ----------------------------------------------------------------- */

/* Arg sets cached by the values they were made from (a kind and bytes): the sink's sched rows
** by their fields, the protobuf front-end's generic rows by the event's bytes. Only sets that
** trak__args_share shared are cached, so the cache returns what it would (a hash collision it
** keeps apart stays apart) and holds only values seen twice. */
struct trak_fsets {
  TRAK_VEC(uint8_t) bytes; /* the keys' bytes */
  uint64_t *hash;
  uint32_t *off, *len, *kind, *sets; /* sets: TRAK_NULL_U32 in an empty slot */
  uint32_t mask, n;
  TRAK_VEC(uint32_t) names; /* generic event names by field number, + 1 (0: none yet) */
};

uint64_t trak__ftrace_args_hash(uint32_t kind, const void *key, size_t len) {
  const uint8_t *p = key;
  uint64_t h = trak__mix(kind, len), w;
  for (; len >= 8; p += 8, len -= 8)
    memcpy(&w, p, 8), h = trak__mix(h, w);
  w = 0;
  memcpy(&w, p, len);
  return trak__mix(h, w);
}

/* The slot of the key in c (its set, or an empty slot). */
static uint32_t slot_find(const trak_fsets *c, uint64_t h, uint32_t kind, const uint8_t *p,
                          size_t len) {
  uint32_t i = (uint32_t)h & c->mask;
  while (c->sets[i] != TRAK_NULL_U32 &&
         (c->hash[i] != h || c->kind[i] != kind || c->len[i] != len ||
          memcmp(c->bytes.v + c->off[i], p, len)))
    i = (i + 1) & c->mask;
  return i;
}

static void *table_alloc(size_t n, size_t size) {
  void *p = malloc(n * size);
  if (!p) abort();
  return p;
}

static void sets_grow(trak_fsets *c) {
  trak_fsets old = *c;
  c->mask = old.mask ? old.mask * 2 + 1 : 255;
  size_t n = (size_t)c->mask + 1;
  c->hash = table_alloc(n, sizeof *c->hash), c->off = table_alloc(n, sizeof *c->off);
  c->len = table_alloc(n, sizeof *c->len), c->kind = table_alloc(n, sizeof *c->kind);
  c->sets = table_alloc(n, sizeof *c->sets);
  memset(c->sets, 0xff, n * sizeof *c->sets);
  for (uint32_t i = 0; old.sets && i <= old.mask; i++) {
    if (old.sets[i] == TRAK_NULL_U32) continue;
    uint32_t j = (uint32_t)old.hash[i] & c->mask;
    while (c->sets[j] != TRAK_NULL_U32)
      j = (j + 1) & c->mask;
    c->hash[j] = old.hash[i], c->off[j] = old.off[i], c->len[j] = old.len[i];
    c->kind[j] = old.kind[i], c->sets[j] = old.sets[i];
  }
  free(old.hash), free(old.off), free(old.len), free(old.kind), free(old.sets);
}

static trak_fsets *sets_get(trak_importer *imp) {
  trak_ftrace *f = trak__ftrace_get(imp);
  if (!f->sets) {
    f->sets = calloc(1, sizeof *f->sets);
    if (!f->sets) abort();
    sets_grow(f->sets);
  }
  return f->sets;
}

uint32_t trak__ftrace_args_cached(trak_importer *imp, uint32_t kind, const void *key, size_t len) {
  return trak__ftrace_args_cached_h(imp, trak__ftrace_args_hash(kind, key, len), kind, key, len);
}

uint32_t trak__ftrace_args_cached_h(trak_importer *imp, uint64_t hash, uint32_t kind,
                                    const void *key, size_t len) {
  trak_fsets *c = sets_get(imp);
  return c->sets[slot_find(c, hash, kind, key, len)];
}

void trak__ftrace_args_cache(trak_importer *imp, uint32_t kind, const void *key, size_t len,
                             uint32_t set, uint32_t begin) {
  if (set == TRAK_NULL_U32 || set >= begin || !len || len > 256) return; /* not known shared */
  trak_fsets *c = sets_get(imp);
  if (2 * (c->n + 1) > c->mask) sets_grow(c);
  uint64_t h = trak__ftrace_args_hash(kind, key, len);
  uint32_t i = slot_find(c, h, kind, key, len);
  if (c->sets[i] != TRAK_NULL_U32) return;
  c->hash[i] = h, c->off[i] = (uint32_t)c->bytes.n, c->len[i] = (uint32_t)len;
  c->kind[i] = kind, c->sets[i] = set, c->n++;
  for (size_t k = 0; k < len; k++)
    trak_vec_push(c->bytes, ((const uint8_t *)key)[k]);
}

uint32_t trak__ftrace_args_close(trak_importer *imp, uint32_t set) {
  return trak__args_share(imp, set);
}

uint32_t trak__ftrace_event_name(trak_importer *imp, uint32_t number, const char *name) {
  trak_fsets *c = sets_get(imp);
  if (number >= 65536) return trak__ftrace_str(imp, name);
  while (c->names.n <= number)
    trak_vec_push(c->names, 0);
  if (!c->names.v[number]) c->names.v[number] = trak__ftrace_str(imp, name) + 1;
  return c->names.v[number] - 1;
}

void trak__ftrace_sets_free(trak_ftrace *f) {
  trak__fsched_free(f);
  trak_fsets *c = f->sets;
  if (!c) return;
  trak_vec_free(c->bytes);
  trak_vec_free(c->names);
  free(c->hash), free(c->off), free(c->len), free(c->kind), free(c->sets);
  free(c);
  f->sets = NULL;
}

/* Kinds of the sink's own rows in that cache (the front-end's are field numbers, < 2^29). */
enum { SET_SWITCH = 0xfffffff1u, SET_WAKING = 0xfffffff2u };

/* The arg set of one of the sink's rows of `kind`: args keys[i] (K_*) = vals[i] (a string id
** where `str` has bit i), cached by those values. *known is 1 when building the set again
** would give the same id (trak__args_share_stable: so sched_sets.c may keep it), else 0. */
static uint32_t row_set(trak_importer *imp, uint32_t kind, const uint8_t *keys, const int64_t *vals,
                        int n, uint32_t str, int *known) {
  size_t len = (size_t)n * sizeof *vals;
  /* with sched_sets.c's tables, this cache would only hold what they hold */
  int cached = imp->ftrace->sched_sets_off;
  uint32_t set = cached ? trak__ftrace_args_cached(imp, kind, vals, len) : TRAK_NULL_U32;
  *known = set != TRAK_NULL_U32;
  if (set != TRAK_NULL_U32) return set;
  uint32_t begin = trak__ftrace_args_begin(imp);
  for (int i = 0; i < n; i++)
    if (str >> i & 1)
      trak__ftrace_arg_str(imp, begin, key(imp, keys[i]), (uint32_t)vals[i]);
    else
      trak__ftrace_arg_int(imp, begin, key(imp, keys[i]), vals[i]);
  int stable;
  set = trak__args_share_stable(imp, begin, &stable);
  *known = set != TRAK_NULL_U32 && stable;
  if (cached) trak__ftrace_args_cache(imp, kind, vals, len, set, begin);
  return set;
}

void trak__ftrace_switch_row(trak_importer *imp, const trak_fq_rec *r, trak_fcpu *c, uint32_t ucpu,
                             uint32_t prev_utid, uint32_t prev_pid, uint32_t prev_comm,
                             int32_t prev_prio) {
  static const uint8_t keys[] = {K_PREV_COMM, K_PREV_PID, K_PREV_PRIO, K_PREV_STATE,
                                 K_NEXT_COMM, K_NEXT_PID, K_NEXT_PRIO};
  int64_t vals[] = {prev_comm, prev_pid, prev_prio, r->x, r->s2, r->a, r->p2, 0};
  uint32_t set = trak__fsched_switch_get(imp, vals);
  if (set == TRAK_NULL_U32) {
    int known;
    set = row_set(imp, SET_SWITCH, keys, vals, 7, 1u << 0 | 1u << 4, &known);
    if (known) trak__fsched_switch_put(imp, vals, set);
  }
  trak_tables *t = imp->tables;
  uint32_t name = key(imp, K_SCHED_SWITCH);
  /* Perfetto's sched_switch rows have common_flags 0 */
  row_add(imp, r->ts, ucpu, trak__fcode(&t->dict.fe_ucpu, &c->fe_ucpu, ucpu), prev_utid, name,
          trak__fcode(&t->dict.fe_name, &imp->ftrace->c_switch, name), 0, set);
}

void trak__ftrace_waking_row(trak_importer *imp, const trak_fq_rec *r, uint32_t waker) {
  static const uint8_t keys[] = {K_COMM, K_PID, K_PRIO, K_TARGET_CPU};
  int64_t vals[] = {r->s1, r->a, r->p1, r->p2};
  uint32_t set = trak__fsched_waking_get(imp, vals);
  if (set == TRAK_NULL_U32) {
    int known;
    set = row_set(imp, SET_WAKING, keys, vals, 4, 1u << 0, &known);
    if (known) trak__fsched_waking_put(imp, vals, set);
  }
  trak_ftrace *f = imp->ftrace;
  trak_tables *t = imp->tables;
  uint32_t name = r->type == TRAK_FQ_WAKING_COMPACT ? key(imp, K_SCHED_WAKING) : r->s2;
  uint32_t ucpu = trak__ftrace_ucpu(imp, r->cpu);
  trak_fcpu *c = trak__ftrace_cpu(f, r->cpu);
  row_add(imp, r->ts, ucpu, trak__fcode(&t->dict.fe_ucpu, &c->fe_ucpu, ucpu), waker, name,
          trak__fcode(&t->dict.fe_name, &f->c_waking, name), r->has_flags ? r->flags : 0, set);
}
