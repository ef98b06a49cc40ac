/*
** This file holds arg sets once built, whatever the format: sharing an identical earlier set
** (content hash), copying and merging sets (a slice end's args joining its begin's, as
** Perfetto merges them), and the report of a key over the length limit. Building sets from
** debug annotations is proto/debug_annotations.c's, from JSON values json/json_args.c's.
*/
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/importer.h"
#include "util/limits.h"

void trak__arg_key_too_long(trak_importer *imp, const trak_arg_key *k, const char *what) {
  trak__report(imp, TRAK_STAT_KEY_TOO_LONG,
               "%s key '%.40s...' is %zu bytes, over the %d-byte limit; its value was dropped",
               what, k->key, k->key_len + k->cut, TRAK_LIMIT_KEY_BYTES); /* a cut key holds 1023 */
}

static int rows_equal(const trak_tables *t, uint32_t a, uint32_t b) {
  return t->args.key[a] == t->args.key[b] && t->args.flat_key[a] == t->args.flat_key[b] &&
         t->args.value_type[a] == t->args.value_type[b] && t->args.value[a] == t->args.value[b];
}

static void move_row(trak_tables *t, uint32_t from, uint32_t to) {
  t->args.flat_key[to] = t->args.flat_key[from];
  t->args.key[to] = t->args.key[from];
  t->args.value_type[to] = t->args.value_type[from];
  t->args.value[to] = t->args.value[from];
}

/* The row of `set` (its first `n` rows) holding `key`, or TRAK_NULL_U32. Sets past 64 rows
** (long arrays) use `index`, an open-addressing table of `mask` + 1 slots. */
static uint32_t find_key(const trak_tables *t, uint32_t set, uint32_t n, uint32_t key,
                         uint32_t *index, uint32_t mask) {
  if (!index) {
    for (uint32_t r = set; r < set + n; r++)
      if (t->args.key[r] == key) return r;
    return TRAK_NULL_U32;
  }
  for (uint32_t h = (key * 0x9e3779b1u) & mask;; h = (h + 1) & mask) {
    if (index[h] == TRAK_NULL_U32) {
      index[h] = set + n; /* where the caller puts the new row */
      return TRAK_NULL_U32;
    }
    if (t->args.key[index[h]] == key) return index[h];
  }
}

/* One key, one row, as Perfetto's args tracker keeps them: a later value for a key already in
** the set replaces the earlier value in its place (its flat key too). Returns the row count. */
static uint32_t dedupe(trak_tables *t, uint32_t set, uint32_t n) {
  uint32_t *index = NULL, mask = 0;
  if (n > 64) {
    for (mask = 127; mask < 2 * n; mask = mask * 2 + 1) {
    }
    index = malloc(((size_t)mask + 1) * sizeof *index);
    if (!index) abort();
    memset(index, 0xff, ((size_t)mask + 1) * sizeof *index);
  }
  uint32_t out = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t old = find_key(t, set, out, t->args.key[set + i], index, mask);
    if (old == TRAK_NULL_U32) {
      if (out != i) move_row(t, set + i, set + out);
      out++;
    } else {
      uint32_t key = t->args.key[old];
      move_row(t, set + i, old);
      t->args.key[old] = key;
    }
  }
  if (index) free(index); /* (a call saved for the small sets, nearly all) */
  return out;
}

/* Identical arg sets share one arg_set_id, as in Perfetto: when the rows just added from `set`
** on equal an earlier set, they are dropped and the earlier id returned. */
uint32_t trak__args_share(trak_importer *imp, uint32_t set) {
  int stable;
  return trak__args_share_stable(imp, set, &stable);
}

uint32_t trak__args_share_stable(trak_importer *imp, uint32_t set, int *stable) {
  uint64_t h;
  uint32_t n = trak__args_share_prepare(imp, set, &h);
  return trak__args_share_finish(imp, set, n, h, stable);
}

uint32_t trak__args_share_prepare(trak_importer *imp, uint32_t set, uint64_t *hash) {
  trak_tables *t = imp->tables;
  uint32_t n = (uint32_t)t->args.n - set;
  if (!n) return 0;
  if (n > 1) {
    n = dedupe(t, set, n);
    t->args.n = set + n;
  }
  uint64_t h = n;
  for (uint32_t r = set; r < set + n; r++)
    h = trak__arg_hash_row(h, t->args.key[r], t->args.value_type[r], t->args.value[r]);
  *hash = h;
  trak__args_share_prefetch(&imp->args, h);
  return n;
}

uint32_t trak__args_share_finish(trak_importer *imp, uint32_t set, uint32_t n, uint64_t h,
                                 int *stable) {
  trak_tables *t = imp->tables;
  *stable = 1;
  if (!n) return TRAK_NULL_U32;
  assert(t->args.n >= set + n);
  int added;
  uint32_t *slot = trak__slot_map_put(&imp->args.shared, h, set, &added);
  if (added) return set;
  uint32_t old = *slot;
  uint32_t i = 0;
  while (i < n && old + i < set && t->args.arg_set_id[old + i] == old &&
         rows_equal(t, old + i, set + i))
    i++;
  int same = i == n && (old + n >= set || t->args.arg_set_id[old + n] != old);
  if (!same) { /* a hash collision: keep both sets */
    *stable = 0;
    return set;
  }
  /* the set's rows dropped; the rows after them (sets not shared yet) move down over them */
  uint32_t rest = (uint32_t)t->args.n - (set + n);
  for (uint32_t r = set; r < set + rest; r++) {
    move_row(t, r + n, r);
    t->args.arg_set_id[r] = t->args.arg_set_id[r + n] - n;
  }
  t->args.n = set + rest;
  return old;
}

/* Copies row `from`'s value and its type to row `to`. */
static void copy_value(trak_tables *t, uint32_t from, uint32_t to) {
  t->args.value_type[to] = t->args.value_type[from];
  t->args.value[to] = t->args.value[from];
}

/* Appends to the set being built at `set` a row with keys `flat_key` and `key` and row
** `from`'s value: trak__args_push's row without its defaults, every column written here. */
static inline void append_row(trak_tables *t, uint32_t set, uint32_t flat_key, uint32_t key,
                              uint32_t from) {
  _Static_assert(0 TRAK_COLUMNS_args(TRAK_COUNT_S, args) == 5, "an args column is not written");
  uint32_t to = trak__args_push_unset(t);
  t->args.arg_set_id[to] = set;
  t->args.flat_key[to] = flat_key;
  t->args.key[to] = key;
  copy_value(t, from, to);
}

void trak__args_copy(trak_tables *t, uint32_t from, uint32_t set) {
  /* (the rows appended are past `from`'s: the loop ends at them) */
  for (uint32_t row = from; row < t->args.n && t->args.arg_set_id[row] == from; row++)
    append_row(t, set, t->args.flat_key[row], t->args.key[row], row);
}

/* The index of a key's first array element ("debug.arr[3].x" -> 3, the prefix length 9 up to
** '['), or -1 when it has none. */
static long first_index(const char *key, size_t *prefix) {
  const char *open = strchr(key, '[');
  if (!open) return -1;
  *prefix = (size_t)(open - key);
  return strtol(open + 1, NULL, 10);
}

/* Adds row `row` (of the end's set) to the merged set `set` of `n_begin` rows: the value of a
** key the begin has replaces it; an array the begin has continues after its last element. */
static void merge_row(trak_importer *imp, uint32_t set, uint32_t n_begin, uint32_t row) {
  trak_tables *t = imp->tables;
  uint32_t key = t->args.key[row];
  const char *k = trak__str(&t->strings, key);
  size_t prefix;
  long index = k ? first_index(k, &prefix) : -1;
  if (index >= 0) {
    long next = -1;
    for (uint32_t r = set; r < set + n_begin; r++) {
      const char *rk = trak__str(&t->strings, t->args.key[r]);
      size_t rp;
      long ri = rk ? first_index(rk, &rp) : -1;
      if (ri >= 0 && rp == prefix && !strncmp(rk, k, prefix) && ri + 1 > next) next = ri + 1;
    }
    if (next > 0) {
      char buf[TRAK_LIMIT_KEY_BYTES];
      const char *close = strchr(k + prefix, ']');
      int n = snprintf(buf, sizeof buf, "%.*s[%ld]%s", (int)prefix, k, index + next,
                       close ? close + 1 : "");
      if (n > 0 && (size_t)n < sizeof buf) key = trak__strpool_intern(&t->strings, buf, (size_t)n);
    }
  }
  for (uint32_t r = set; r < set + n_begin; r++)
    if (t->args.key[r] == key) {
      /* Perfetto adds the end's passthrough utid only if the begin has none */
      if (key != imp->args.keys[TRAK_KEY_LEGACY_PASSTHROUGH_UTID]) copy_value(t, row, r);
      return;
    }
  append_row(t, set, t->args.flat_key[row], key, row);
}

uint32_t trak__args_merge(trak_importer *imp, uint32_t a, uint32_t b) {
  if (a == TRAK_NULL_U32) return b;
  if (b == TRAK_NULL_U32) return a;
  trak_tables *t = imp->tables;
  uint32_t set = (uint32_t)t->args.n;
  trak__args_copy(t, a, set);
  uint32_t n_begin = (uint32_t)t->args.n - set;
  for (uint32_t row = b; row < t->args.n && t->args.arg_set_id[row] == b; row++)
    merge_row(imp, set, n_begin, row);
  return trak__args_share(imp, set);
}
