/*
** This file holds the table-valued function __intrinsic_col_group(table, key, spec[, filter[,
** wspec, w0, ...]]): the aggregates of vtab_aggregate.c per value of a key column (or of two,
** or read through a join column), over the rows passing the scan's filters, in SQLite's GROUP BY
** order, for the statements sql/perfetto_sql/column_aggregates.c and join_aggregates.c rewrite.
*/
#define _GNU_SOURCE /* qsort_r */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "processor/tables/vtab_aggregate.h"
#include "processor/tables/vtab_scan.h"
#include "processor/tables/vtab_tvf.h"

#define GROUP_AGGS 8  /* the most aggregates of one __intrinsic_col_group */
#define GROUP_WHERE 4 /* the most WHERE terms of one __intrinsic_col_group */

/* Adds rows `rows` (k of them, in row order) to `acc` as aggregate `s` adds each (acc_add): a
** loop over the column's array for COUNT(*) and 64-bit integer columns, acc_add per row else. */
static void acc_add_rows(const trak_tables *t, const agg_spec *s, const uint32_t *rows, size_t k,
                         agg_acc *acc) {
  const vt_col *col = s->col;
  if (!col) { /* COUNT(*) */
    acc->n += (int64_t)k;
    return;
  }
  if (col->calc || !s->a || (col->kind != VT_I64 && col->kind != VT_I64N) || s->fn == AGG_AVG) {
    for (size_t i = 0; i < k; i++)
      acc_add(t, s, rows[i], acc);
    return;
  }
  const int64_t *x = s->a;
  int64_t lo = col->kind == VT_I64N ? INT64_MIN + 1 : INT64_MIN; /* INT64_MIN is NULL there */
  int64_t v = acc->v, n = acc->n;
  int overflow = acc->overflow;
  for (size_t i = 0; i < k; i++) {
    int64_t y = x[rows[i]];
    if (y < lo) continue;
    if (s->fn == AGG_SUM)
      overflow |= __builtin_add_overflow(v, y, &v);
    else if (s->fn != AGG_COUNT && (!n || (s->fn == AGG_MIN ? y < v : y > v)))
      v = y;
    n++;
  }
  acc->v = v, acc->n = n, acc->overflow = overflow;
}

/* Folds `b` into `a` (both states of aggregate `s`). A real sum or average folded so adds in
** another order than SQLite's, which may differ in the last bits: column_aggregates.c asks for
** those only by keys that are never folded (not text). */
static void acc_merge(const agg_spec *s, agg_acc *a, const agg_acc *b) {
  agg_fn fn = s->fn;
  if (fn == AGG_SUM && !s->real)
    a->overflow |= b->overflow | __builtin_add_overflow(a->v, b->v, &a->v);
  if (fn == AGG_AVG || (fn == AGG_SUM && s->real)) a->r += b->r;
  if ((fn == AGG_MIN || fn == AGG_MAX) && b->n && s->real &&
      (!a->n || (fn == AGG_MIN ? b->r < a->r : b->r > a->r)))
    a->r = b->r;
  if ((fn == AGG_MIN || fn == AGG_MAX) && b->n && !s->real &&
      (!a->n || (fn == AGG_MIN ? b->v < a->v : b->v > a->v)))
    a->v = b->v;
  a->n += b->n;
}

typedef struct grp_vtab {
  sqlite3_vtab base;
  const trak_tables *t;
  sqlite3 *db; /* the connection (LIKE and GLOB terms run SQLite's operators on it) */
} grp_vtab;

/* The distinct values of one column of a two-column key, each given an index (NULL's too). */
typedef struct grp_dict {
  int64_t *v;
  uint8_t *null;
  uint32_t n, cap, null_idx; /* null_idx: NULL's index + 1 (0: none yet) */
  uint32_t *map;             /* open addressing: value -> index + 1 */
  size_t slots;
} grp_dict;

typedef struct grp_cursor {
  sqlite3_vtab_cursor base;
  const vt_col *key;  /* the key column; NULL: one group of every row, also of none */
  const vt_col *key2; /* key "a,b": the second column (NULL: none); a group's key is then the
                      ** pair_code of its two values' indices in dict[0] and dict[1] */
  grp_dict dict[2];
  const vt_col *via;  /* key "via>key": the key is read in the row whose id is via's value */
  int left;           /* key "via>>key": a row without that row is in the NULL key's group */
  const vt_col *fcol; /* the rows' filter: column fcol >= flo (NULL: every row) */
  const void *fa;
  int64_t flo;
  int naggs; /* aggregates per group */
  agg_spec specs[GROUP_AGGS];
  size_t n, pos;   /* groups; the one the cursor is at (an index into order) */
  int64_t *keys;   /* group -> key value */
  uint8_t *nulls;  /* group -> whether the key is NULL */
  agg_acc *accs;   /* group * naggs + i -> state of aggregate i */
  uint32_t *order; /* the groups in output order */
  const trak_tables *t;
} grp_cursor;

static int grp_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                       sqlite3_vtab **out, char **err) {
  (void)argc, (void)argv, (void)err;
  int rc = trak__tvf_connect(db,
                             "CREATE TABLE x(k, a0, a1, a2, a3, a4, a5, a6, a7, "
                             "tbl HIDDEN, key HIDDEN, spec HIDDEN, filter HIDDEN, "
                             "wspec HIDDEN, w0 HIDDEN, w1 HIDDEN, w2 HIDDEN, w3 HIDDEN, k1)",
                             sizeof(grp_vtab), offsetof(grp_vtab, t), aux, out);
  if (rc == SQLITE_OK) ((grp_vtab *)*out)->db = db;
  return rc;
}

/* The arguments (columns 9 to 17) are given as equalities, the first three required. */
static int grp_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  (void)vt;
  static const trak_tvf_args args = {.first = 9, .n = 9, .required = 7, .cost = 1};
  return trak__tvf_best_index(info, &args);
}

static void grp_reset(grp_cursor *c) {
  for (int i = 0; i < 2; i++) {
    free(c->dict[i].v), free(c->dict[i].null), free(c->dict[i].map);
    memset(&c->dict[i], 0, sizeof c->dict[i]);
  }
  free(c->keys), free(c->nulls), free(c->accs), free(c->order);
  c->keys = NULL, c->nulls = NULL, c->accs = NULL, c->order = NULL;
  c->n = c->pos = 0;
}

static int grp_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  grp_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  c->t = ((grp_vtab *)vt)->t;
  *out = &c->base;
  return SQLITE_OK;
}

static int grp_close(sqlite3_vtab_cursor *cur) {
  grp_reset((grp_cursor *)cur);
  free(cur);
  return SQLITE_OK;
}

/* Makes room for group `n` (the arrays grow by doubling; `cap` is their size). */
static int grp_grow(grp_cursor *c, size_t *cap) {
  if (c->n < *cap) return 0;
  size_t m = *cap ? *cap * 2 : 16;
  int64_t *k = realloc(c->keys, m * sizeof *k);
  if (k) c->keys = k;
  uint8_t *nl = realloc(c->nulls, m);
  if (nl) c->nulls = nl;
  agg_acc *a = realloc(c->accs, m * (size_t)c->naggs * sizeof *a + 1);
  if (a) c->accs = a;
  if (!k || !nl || !a) return -1;
  *cap = m;
  return 0;
}

#define PAIR_MIX 0x9E3779B1u

/* A two-column key's code: the indices i and j of its values as (i << 32) | (j + i * PAIR_MIX)
** mod 2^32, one code per pair, whose low bits (those trak__vt_key_slot's hash reads) depend on
** both. */
static int64_t pair_code(uint32_t i, uint32_t j) {
  return (int64_t)((uint64_t)i << 32 | (uint32_t)(j + i * PAIR_MIX));
}

/* Index `which` (0: the first column's, 1: the second's) of a pair_code. */
static uint32_t pair_index(int64_t code, int which) {
  uint32_t i = (uint32_t)((uint64_t)code >> 32);
  return which ? (uint32_t)code - i * PAIR_MIX : i;
}

/* Orders two values of key column `k` (na, nb: whether NULL) as SQLite's GROUP BY: NULL first,
** then numbers, or strings by their bytes. */
static int key_cmp(const grp_cursor *c, const vt_col *k, int na, int64_t p, int nb, int64_t q) {
  if (na || nb) return nb - na;
  if (k->kind != VT_STR) return (p > q) - (p < q);
  const trak_strpool *sp = &c->t->strings;
  uint32_t lp = sp->len.v[p], lq = sp->len.v[q];
  int r = memcmp(sp->str.v[p], sp->str.v[q], lp < lq ? lp : lq);
  return r ? r : (lp > lq) - (lp < lq);
}

/* Orders groups as SQLite's GROUP BY: by the key, or by a two-column key's first, then second. */
static int grp_cmp(const void *x, const void *y, void *arg) {
  const grp_cursor *c = arg;
  uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  if (!c->key2) return key_cmp(c, c->key, c->nulls[a], c->keys[a], c->nulls[b], c->keys[b]);
  for (int i = 0; i < 2; i++) {
    const grp_dict *d = &c->dict[i];
    uint32_t p = pair_index(c->keys[a], i), q = pair_index(c->keys[b], i);
    int r = key_cmp(c, i ? c->key2 : c->key, d->null[p], d->v[p], d->null[q], d->v[q]);
    if (r) return r;
  }
  return 0;
}

/* The index of value v (nonnull 0: NULL) in `d`, added when new, in *out; -1 when out of memory. */
static int dict_index(grp_dict *d, int nonnull, int64_t v, uint32_t *out) {
  if (!nonnull && d->null_idx) return *out = d->null_idx - 1, 0;
  if ((d->n + 1) * 2 > d->slots) { /* rehash into twice the slots */
    size_t slots = d->slots ? d->slots * 2 : 64;
    uint32_t *m = calloc(slots, sizeof *m);
    if (!m) return -1;
    free(d->map);
    d->map = m, d->slots = slots;
    for (uint32_t i = 0; i < d->n; i++)
      if (!d->null[i]) *trak__vt_key_slot(m, slots, d->v[i], d->v, sizeof *d->v) = i + 1;
  }
  uint32_t *slot = nonnull ? trak__vt_key_slot(d->map, d->slots, v, d->v, sizeof *d->v) : NULL;
  if (slot && *slot) return *out = *slot - 1, 0;
  if (d->n == d->cap) {
    uint32_t cap = d->cap ? d->cap * 2 : 16;
    int64_t *nv = realloc(d->v, cap * sizeof *nv);
    if (nv) d->v = nv;
    uint8_t *nn = realloc(d->null, cap);
    if (nn) d->null = nn;
    if (!nv || !nn) return -1;
    d->cap = cap;
  }
  d->v[d->n] = nonnull ? v : 0, d->null[d->n] = !nonnull;
  if (slot)
    *slot = d->n + 1;
  else
    d->null_idx = d->n + 1;
  *out = d->n++;
  return 0;
}

#define GRP_BATCH 1024 /* rows read at once for one group */

/* grp_build for one group of no key (`SELECT COUNT(*), SUM(dur) FROM t WHERE ...`): the rows in
** batches (trak__vt_skip_batch), each aggregate over a batch in turn, in row order as
** grp_build's per-row loop adds them. c has its one group. Returns an SQLite code. */
static int grp_build_one(grp_cursor *c, const vt_table *tbl, vt_cursor *sc) {
  const trak_tables *t = c->t;
  uint32_t rows[GRP_BATCH], next = 0, end = (uint32_t)trak__vt_rows(t, tbl);
  for (;;) {
    size_t k = 0;
    if (sc) {
      k = trak__vt_skip_batch(sc, rows, GRP_BATCH);
    } else {
      for (; next < end && k < GRP_BATCH; next++)
        rows[k++] = next;
    }
    if (!k) break;
    if (c->fcol) { /* the view's rows: column fcol >= flo */
      size_t m = 0;
      for (size_t i = 0; i < k; i++) {
        int64_t x = 0;
        rows[m] = rows[i];
        m += trak__vt_int(t, c->fcol, c->fa, rows[i], &x) && x >= c->flo;
      }
      k = m;
    }
    for (int i = 0; i < c->naggs; i++)
      acc_add_rows(t, &c->specs[i], rows, k, &c->accs[i]);
  }
  return sc ? sc->rc : SQLITE_OK;
}

/* A two-column key's pair_code in *k for `row`, whose first value is *k (nonnull 0: NULL); -1 when
** out of memory. Out of grp_build's loop, which most keys take without it. */
static __attribute__((noinline)) int pair_key(grp_cursor *c, const void *ka2, uint32_t row,
                                              int nonnull, int64_t *k) {
  int64_t k2 = 0;
  int nonnull2 = trak__vt_int(c->t, c->key2, ka2, row, &k2);
  uint32_t i1, i2;
  if (dict_index(&c->dict[0], nonnull, *k, &i1) || dict_index(&c->dict[1], nonnull2, k2, &i2))
    return -1;
  *k = pair_code(i1, i2);
  return 0;
}

/* Groups every row of `tbl` (or those cursor `sc` gives: NULL, every row) by the key: an
** open-addressing map from key to group, NULL its own group. Returns an SQLite code. */
static int grp_build(grp_cursor *c, const vt_table *tbl, vt_cursor *sc) {
  const trak_tables *t = c->t;
  const void *ka = c->key && c->key->off ? trak__vt_array(t, c->key) : NULL;
  const void *va = c->via && c->via->off ? trak__vt_array(t, c->via) : NULL;
  const void *ka2 = c->key2 && c->key2->off ? trak__vt_array(t, c->key2) : NULL;
  const int left = c->left, pair = c->key2 != NULL; /* (read once, not per row) */
  size_t cap = 0, slots = 64;
  uint32_t *map = calloc(slots, sizeof *map), null_group = 0; /* group + 1, 0: none yet */
  int rc = map ? SQLITE_OK : SQLITE_NOMEM;
  if (!rc && !c->key) { /* the one group, there without rows */
    rc = grp_grow(c, &cap) ? SQLITE_NOMEM : SQLITE_OK;
    if (!rc) {
      c->keys[0] = 0, c->nulls[0] = 1, null_group = 1, c->n = 1;
      memset(c->accs, 0, (size_t)c->naggs * sizeof *c->accs);
    }
  }
  if (!rc && !c->key && !c->via) {
    free(map);
    return grp_build_one(c, tbl, sc);
  }
  uint32_t row = 0, rows = (uint32_t)trak__vt_rows(t, tbl);
  if (sc) trak__vt_skip(sc);
  for (; !rc && (sc ? sc->pos < sc->n : row < rows);
       sc ? (void)(sc->pos++, trak__vt_skip(sc)) : (void)row++) {
    int64_t k = 0;
    if (sc) row = sc->row;
    if (c->fcol && (!trak__vt_int(t, c->fcol, c->fa, row, &k) || k < c->flo)) continue;
    int nonnull = 0; /* the key: read in the row, or in the row whose id is via's value */
    if (!c->via) {
      nonnull = c->key && trak__vt_int(t, c->key, ka, row, &k);
      if (pair) { /* a pair's code is never NULL */
        if (pair_key(c, ka2, row, nonnull, &k)) {
          rc = SQLITE_NOMEM;
          break;
        }
        nonnull = 1;
      }
    } else if (trak__vt_int(t, c->via, va, row, &k) && k >= 0 && k < rows) {
      /* an inner join on via = id: rows without that row are not joined */
      nonnull = c->key && trak__vt_int(t, c->key, ka, (uint32_t)k, &k);
    } else if (!left) {
      continue;
    } /* else a LEFT JOIN's row without that row: the NULL key */
    if (nonnull && (c->n + 1) * 2 > slots) { /* rehash into twice the slots */
      uint32_t *m = calloc(slots * 2, sizeof *m);
      if (!m) {
        rc = SQLITE_NOMEM;
        break;
      }
      free(map);
      map = m, slots *= 2;
      for (uint32_t i = 0; i < c->n; i++)
        if (!c->nulls[i])
          *trak__vt_key_slot(map, slots, c->keys[i], c->keys, sizeof *c->keys) = i + 1;
    }
    uint32_t *g =
        nonnull ? trak__vt_key_slot(map, slots, k, c->keys, sizeof *c->keys) : &null_group;
    if (!*g) {
      if (grp_grow(c, &cap)) {
        rc = SQLITE_NOMEM;
        break;
      }
      c->keys[c->n] = k, c->nulls[c->n] = !nonnull;
      memset(&c->accs[c->n * (size_t)c->naggs], 0, (size_t)c->naggs * sizeof *c->accs);
      *g = (uint32_t)++c->n;
    }
    agg_acc *acc = &c->accs[(*g - 1) * (size_t)c->naggs];
    for (int i = 0; i < c->naggs; i++)
      acc_add(t, &c->specs[i], row, &acc[i]);
  }
  free(map);
  return rc ? rc : sc ? sc->rc : SQLITE_OK;
}

/* Frees what the WHERE terms' cursor `sc` holds (not `sc`). Can't fail. */
static void where_close(vt_cursor *sc) {
  for (int i = 0; i < sc->nfilters; i++)
    trak__vt_filter_free(&sc->filters[i]);
  free(sc->owned);
}

/* Makes `sc`, over scratch table `sv` (no indexes), the scan of the rows of `tbl` that pass the
** WHERE terms `wspec` ("column:op,..." with op one of the scan plan's = > g < l k b, or
** "column:@op", `extract_arg(column, key) op literal` with op one of = > g < l, which takes two
** values: the key and the literal) with values `vals` (nvals), filtered exactly as the columnar
** scan filters (vtab_filter.c, vtab_args.c). Returns
** an SQLite code; an error's message is in sv's zErrMsg. where_close frees sc's filters
** either way. */
static int where_open(grp_vtab *gv, const vt_table *tbl, const char *wspec, sqlite3_value **vals,
                      int nvals, vt_vtab *sv, vt_cursor *sc) {
  sv->db = gv->db, sv->t = gv->t, sv->tbl = tbl;
  sc->base.pVtab = &sv->base;
  uint32_t lo = 0, hi = (uint32_t)trak__vt_rows(gv->t, tbl);
  int ok = 1, i = 0;
  for (const char *w = wspec; ok > 0 && *w; i++) {
    const char *colon = strchr(w, ':');
    int arg = colon && colon[1] == '@'; /* `extract_arg(column, key) op literal`: two values */
    if (arg) colon++;
    if (!colon || !colon[1] || (colon[2] && colon[2] != ',') || i + arg >= nvals)
      return SQLITE_ERROR;
    char name[64];
    size_t len = (size_t)(colon - arg - w);
    if (len >= sizeof name) return SQLITE_ERROR;
    memcpy(name, w, len);
    name[len] = 0;
    const vt_col *col = trak__vt_col_named(tbl, name);
    if (arg) { /* an arg set id column: integers */
      if (!col || col->kind > VT_U32N || !strchr("=>g<l", colon[1])) return SQLITE_ERROR;
      ok = trak__vt_add_arg_constraint(sc, (int)(col - tbl->cols), (unsigned char)colon[1], vals[i],
                                       vals[i + 1]);
      i++;
      w = colon[2] ? colon + 3 : colon + 2;
      continue;
    }
    /* LIKE and GLOB on text only; `=` not on text (SQLite compares a value that is no text) */
    int text = col && col->kind == VT_STR, op = colon[1];
    if (!col || !vt_kind_filterable(col->kind) || !strchr("=>g<lkb", op) ||
        ((op == 'k' || op == 'b') && !text) || (op == '=' && text))
      return SQLITE_ERROR;
    ok = trak__vt_add_constraint(sc, (int)(col - tbl->cols), (unsigned char)colon[1], vals[i], &lo,
                                 &hi);
    w = colon[2] ? colon + 3 : colon + 2;
  }
  if (ok < 0) return -ok;
  if (ok > 0 && i != nvals) return SQLITE_ERROR; /* a value without a term */
  sc->lo = lo, sc->end = ok ? hi : lo;
  sc->n = sc->end - sc->lo, sc->pos = 0;
  return SQLITE_OK;
}

/* Puts the groups in SQLite's order in c->order, folding groups of equal text (two string ids
** of one text) into the first. Returns an SQLite code. */
static int grp_sort(grp_cursor *c) {
  c->order = malloc((c->n ? c->n : 1) * sizeof *c->order);
  if (!c->order) return SQLITE_NOMEM;
  for (uint32_t i = 0; i < c->n; i++)
    c->order[i] = i;
  qsort_r(c->order, c->n, sizeof *c->order, grp_cmp, c);
  size_t out = 0;
  for (size_t i = 0; i < c->n; i++) {
    int text = c->key && (c->key->kind == VT_STR || (c->key2 && c->key2->kind == VT_STR));
    if (out && text && !grp_cmp(&c->order[out - 1], &c->order[i], c)) {
      agg_acc *a = &c->accs[c->order[out - 1] * (size_t)c->naggs];
      const agg_acc *b = &c->accs[c->order[i] * (size_t)c->naggs];
      for (int j = 0; j < c->naggs; j++)
        acc_merge(&c->specs[j], &a[j], &b[j]);
      continue;
    }
    c->order[out++] = c->order[i];
  }
  c->n = out;
  return SQLITE_OK;
}

int trak__vt_filter_parse(const vt_table *tbl, const char *where, const vt_col **col, int64_t *lo) {
  *col = NULL;
  if (!where) return 0;
  const char *op = strstr(where, ">=");
  char name[64], *end = NULL;
  if (!op || (size_t)(op - where) >= sizeof name) return -1;
  memcpy(name, where, (size_t)(op - where));
  name[op - where] = 0;
  *col = trak__vt_col_named(tbl, name);
  *lo = strtoll(op + 2, &end, 10);
  return !*col || end == op + 2 || *end || (*col)->kind > VT_BOOLN || (*col)->kind == VT_F64 ? -1
                                                                                             : 0;
}

/* Parses `where` ("column>=integer", NULL: none) into c's filter. Returns 0, or -1 for anything
** else (an unknown column, a real or args column, another operator). */
static int filter_parse(grp_cursor *c, const vt_table *tbl, const char *where) {
  if (trak__vt_filter_parse(tbl, where, &c->fcol, &c->flo)) return -1;
  c->fa = c->fcol && c->fcol->off ? trak__vt_array(c->t, c->fcol) : NULL;
  return 0;
}

/* Whether `tbl` has an id column (a row's id is its index). */
static int has_id(const vt_table *tbl) {
  for (int i = 0; i < tbl->ncols; i++)
    if (tbl->cols[i].kind == VT_ID) return 1;
  return 0;
}

/* argv: the table's name, the key column's ('': one group; "via>key": the key column's value in
** the row whose id is column via's, rows whose via is NULL or no id left out; "via>>key": those
** rows in the NULL key's group, as a LEFT JOIN pads them; "a,b": two columns, b's value in column
** k1), the spec "fn:column,..." ("count:" is COUNT(*)), maybe the rows' filter
** "column>=integer" (NULL: none), maybe WHERE terms "column:op,..." and their values
** (where_open). */
static int grp_filter(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                      sqlite3_value **argv) {
  (void)plan;
  grp_cursor *c = (grp_cursor *)cur;
  grp_reset(c);
  sqlite3_value *arg[9] = {NULL}; /* the arguments by position; NULL: not given */
  for (int b = 0, k = 0; b < 9 && k < argc; b++)
    if (idx >> b & 1) arg[b] = argv[k++];
  argv = arg, argc = arg[3] ? 4 : 3;
  const vt_table *tbl =
      argc >= 3 ? trak__vt_table_named((const char *)sqlite3_value_text(argv[0])) : NULL;
  const char *kname = argc >= 3 ? (const char *)sqlite3_value_text(argv[1]) : NULL;
  const char *gt = kname ? strchr(kname, '>') : NULL;
  char via[64] = "";
  if (gt && (size_t)(gt - kname) < sizeof via) memcpy(via, kname, (size_t)(gt - kname));
  c->via = gt ? trak__vt_col_named(tbl, via) : NULL;
  c->left = gt && gt[1] == '>';
  const char *comma = kname && !gt ? strchr(kname, ',') : NULL; /* "a,b": two columns */
  char first[64] = "";
  if (comma && (size_t)(comma - kname) < sizeof first)
    memcpy(first, kname, (size_t)(comma - kname));
  c->key2 = comma ? trak__vt_col_named(tbl, comma + 1) : NULL;
  c->key = kname && *kname ? trak__vt_col_named(tbl, comma ? first
                                                     : gt  ? gt + 1 + c->left
                                                           : kname)
                           : NULL;
  const char *spec = argc >= 3 ? (const char *)sqlite3_value_text(argv[2]) : NULL;
  int bad = !tbl || !kname || (*kname && !c->key) || !spec || (gt && !c->via) ||
            (c->via && (c->via->kind > VT_BOOLN || c->via->kind == VT_F64 || !has_id(tbl))) ||
            (c->key && (c->key->kind > VT_BOOLN || c->key->kind == VT_F64)) ||
            (comma && (!c->key2 || c->key2->kind > VT_BOOLN || c->key2->kind == VT_F64)) ||
            filter_parse(c, tbl, argc == 4 ? (const char *)sqlite3_value_text(argv[3]) : NULL);
  for (c->naggs = 0; !bad && *spec; c->naggs++) {
    const char *colon = strchr(spec, ':'), *end = colon ? strchr(colon, ',') : NULL;
    char name[64];
    size_t len = colon ? (end ? (size_t)(end - colon - 1) : strlen(colon + 1)) : sizeof name;
    bad = c->naggs == GROUP_AGGS || len >= sizeof name;
    if (bad) break;
    memcpy(name, colon + 1, len);
    name[len] = 0;
    bad = trak__agg_spec_parse(c->t, tbl, spec, (size_t)(colon - spec), name,
                               &c->specs[c->naggs]) != 0;
    spec = end ? end + 1 : colon + 1 + len;
  }
  if (bad || !c->naggs) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg =
        sqlite3_mprintf("__intrinsic_col_group: no such columnar table, key column or aggregates");
    return SQLITE_ERROR;
  }
  vt_vtab *sv = NULL;
  vt_cursor *sc = NULL;
  int rc = SQLITE_OK, nvals = 0;
  if (arg[4] && sqlite3_value_type(arg[4]) != SQLITE_NULL) { /* WHERE terms: the scan's filters */
    while (nvals < GROUP_WHERE && arg[5 + nvals])
      nvals++;
    sv = calloc(1, sizeof *sv), sc = calloc(1, sizeof *sc);
    rc = sv && sc ? where_open((grp_vtab *)cur->pVtab, tbl,
                               (const char *)sqlite3_value_text(arg[4]), arg + 5, nvals, sv, sc)
                  : SQLITE_NOMEM;
    if (rc) {
      sqlite3_free(cur->pVtab->zErrMsg);
      cur->pVtab->zErrMsg =
          sv && sv->base.zErrMsg
              ? sv->base.zErrMsg
              : sqlite3_mprintf("__intrinsic_col_group: bad WHERE terms or values");
      if (sv) sv->base.zErrMsg = NULL;
    }
  }
  if (!rc) rc = grp_build(c, tbl, sc);
  if (sc) where_close(sc);
  if (rc && sv && sv->base.zErrMsg) { /* a pattern's failure mid-scan */
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sv->base.zErrMsg, sv->base.zErrMsg = NULL;
  }
  free(sv), free(sc);
  if (!rc) rc = grp_sort(c);
  for (size_t i = 0; !rc && i < c->n * (size_t)c->naggs; i++)
    if (c->accs[i].overflow) {
      sqlite3_free(cur->pVtab->zErrMsg);
      cur->pVtab->zErrMsg = sqlite3_mprintf("integer overflow");
      rc = SQLITE_ERROR;
    }
  return rc;
}

static int grp_next(sqlite3_vtab_cursor *cur) {
  ((grp_cursor *)cur)->pos++;
  return SQLITE_OK;
}

static int grp_eof(sqlite3_vtab_cursor *cur) {
  const grp_cursor *c = (const grp_cursor *)cur;
  return c->pos >= c->n;
}

/* Key value v of column k (nonnull 0: NULL) as SQLite's value. */
static void key_result(const grp_cursor *c, sqlite3_context *ctx, const vt_col *k, int nonnull,
                       int64_t v) {
  if (!nonnull)
    sqlite3_result_null(ctx);
  else if (k->kind == VT_STR)
    sqlite3_result_text(ctx, c->t->strings.str.v[v], (int)c->t->strings.len.v[v], SQLITE_STATIC);
  else
    sqlite3_result_int64(ctx, v);
}

static int grp_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  const grp_cursor *c = (const grp_cursor *)cur;
  uint32_t g = c->order[c->pos];
  if ((col == 0 || col == 18) && c->key2) { /* k, k1: a two-column key's values */
    const grp_dict *d = &c->dict[col != 0];
    uint32_t i = pair_index(c->keys[g], col != 0);
    key_result(c, ctx, col ? c->key2 : c->key, !d->null[i], d->v[i]);
  } else if (col == 0) {
    key_result(c, ctx, c->key, !c->nulls[g], c->keys[g]);
  } else if (col <= c->naggs) {
    trak__agg_result(ctx, &c->specs[col - 1], &c->accs[g * (size_t)c->naggs + (size_t)col - 1]);
  } else {
    sqlite3_result_null(ctx);
  }
  return SQLITE_OK;
}

static int grp_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((grp_cursor *)cur)->pos;
  return SQLITE_OK;
}

static const sqlite3_module grp_module = {
    .iVersion = 1,
    .xCreate = NULL, /* eponymous-only */
    .xConnect = grp_connect,
    .xBestIndex = grp_best_index,
    .xDisconnect = trak__tvf_disconnect,
    .xDestroy = trak__tvf_disconnect,
    .xOpen = grp_open,
    .xClose = grp_close,
    .xFilter = grp_filter,
    .xNext = grp_next,
    .xEof = grp_eof,
    .xColumn = grp_column,
    .xRowid = grp_rowid,
};

int trak__vt_group_register(sqlite3 *db, const trak_tables *t) {
  return sqlite3_create_module(db, "__intrinsic_col_group", &grp_module, (void *)t);
}
