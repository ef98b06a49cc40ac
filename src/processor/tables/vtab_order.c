/*
** This file holds the row orders the trak_columnar cursor produces itself instead of SQLite's
** sorter: GROUP BY one 32-bit column (a counting sort of the matching rows), ORDER BY one
** integral column with a LIMIT (the first rows kept in a bounded heap in one pass) and ORDER BY
** up to three integral columns (a sort of the matching rows on keys read once each).
*/
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "processor/tables/vtab_scan.h"

/* Orders group keys (string id + 1, 0 for NULL) as SQLite's sorter would: NULL first, then
** by the strings' bytes (BINARY collation). */
static int key_cmp(const void *a, const void *b, void *pool) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  if (!x || !y) return (x != 0) - (y != 0);
  const trak_strpool *sp = pool;
  uint32_t lx = sp->len.v[x - 1], ly = sp->len.v[y - 1];
  int c = memcmp(sp->str.v[x - 1], sp->str.v[y - 1], lx < ly ? lx : ly);
  return c ? c : (lx > ly) - (lx < ly);
}

typedef struct group_sort_ctx {
  const uint32_t *values;
  vt_kind kind;
  const trak_strpool *strings;
} group_sort_ctx;

/* Orders rows by their group key as key_cmp orders keys. */
static int group_row_cmp(const void *a, const void *b, void *arg) {
  const group_sort_ctx *g = arg;
  uint32_t x = g->values[*(const uint32_t *)a], y = g->values[*(const uint32_t *)b];
  if (g->kind == VT_STR) {
    x += x != 0, y += y != 0; /* key_cmp's keys */
    return key_cmp(&x, &y, (void *)g->strings);
  }
  x++, y++; /* TRAK_NULL_U32 first */
  return (x > y) - (x < y);
}

/* Makes the cursor walk `sorted` (n rows, which passed every filter; the cursor owns it) in that
** order. */
static int group_done(vt_cursor *c, uint32_t *sorted, size_t n) {
  free(c->owned);
  c->owned = sorted;
  c->list = sorted, c->n = n, c->pos = 0, c->desc = 0;
  for (int i = 0; i < c->nfilters; i++)
    trak__vt_filter_free(&c->filters[i]);
  c->nfilters = 0;
  c->lo = 0, c->end = UINT32_MAX;
  trak__vt_skip(c);
  return SQLITE_OK;
}

/* A counting sort whose groups come in SQLite's sort order, so the output is what SQLite's own
** sorter would have produced. */
int trak__vt_group(vt_cursor *c, const vt_col *col) {
  vt_vtab *v = (vt_vtab *)c->base.pVtab;
  const trak_tables *t = v->t;
  const uint32_t *values = trak__vt_array(t, col);
  size_t n = 0, cap = c->n ? c->n : 1;
  uint32_t *rows = malloc(cap * sizeof *rows);
  if (!rows) return SQLITE_NOMEM;
  uint32_t max = 0;
#define GROUP_KEY(r) (col->kind == VT_STR ? (values[r] ? values[r] + 1 : 0) : values[r] + 1)
  for (trak__vt_skip(c); c->pos < c->n; c->pos++, trak__vt_skip(c)) {
    uint32_t key = GROUP_KEY(c->row); /* TRAK_NULL_U32 wraps to 0: NULLs group first */
    if (key > max) max = key;
    rows[n++] = c->row;
  }
  if (max > 4 * n + 1024) { /* sparse keys (large ids): a comparison sort instead */
    group_sort_ctx ctx = {values, col->kind, &t->strings};
    qsort_r(rows, n, sizeof *rows, group_row_cmp, &ctx);
    return group_done(c, rows, n);
  }
  size_t nkeys = (size_t)max + 1;
  uint32_t *start = calloc(nkeys, sizeof *start), *keys = malloc(nkeys * sizeof *keys);
  uint32_t *sorted = malloc((n ? n : 1) * sizeof *sorted);
  if (!start || !keys || !sorted) {
    free(rows), free(start), free(keys), free(sorted);
    return SQLITE_NOMEM;
  }
  for (size_t i = 0; i < n; i++)
    start[GROUP_KEY(rows[i])]++;
  size_t used = 0;
  for (size_t k = 0; k < nkeys; k++)
    if (start[k]) keys[used++] = (uint32_t)k;
  if (col->kind == VT_STR) qsort_r(keys, used, sizeof *keys, key_cmp, (void *)&t->strings);
  uint32_t at = 0;
  for (size_t i = 0; i < used; i++) {
    uint32_t size = start[keys[i]];
    start[keys[i]] = at;
    at += size;
  }
  for (size_t i = 0; i < n; i++)
    sorted[start[GROUP_KEY(rows[i])]++] = rows[i];
#undef GROUP_KEY
  free(rows), free(start), free(keys);
  return group_done(c, sorted, n);
}

/* The order of ORDER BY col [, id] in top-N mode: key ascending (NULL, read as INT64_MIN,
** first) or descending, ties by row ascending or descending. */
typedef struct top_order {
  const trak_tables *t;
  const vt_col *col;
  const int64_t *i64; /* the column's values when it is a stored 64-bit one without NULLs */
  int desc, row_desc;
} top_order;

static inline int64_t top_key(const top_order *o, uint32_t row) {
  if (o->i64) return o->i64[row]; /* most keys (ts, dur): no reading through the type switch */
  int64_t v;
  return trak__vt_value(o->t, o->col, row, &v) ? v : INT64_MIN;
}

/* <0 when row a comes before row b. */
static int top_cmp(const void *a, const void *b, void *arg) {
  const top_order *o = arg;
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  int64_t kx = top_key(o, x), ky = top_key(o, y);
  if (kx != ky) return (kx < ky) == !o->desc ? -1 : 1;
  if (x == y) return 0;
  return (x < y) == !o->row_desc ? -1 : 1;
}

/* Restores the heap order below `i` (the root holds the row that comes last). */
static void top_sift(uint32_t *heap, size_t n, size_t i, top_order *o) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && top_cmp(&heap[l], &heap[m], o) > 0) m = l;
    if (r < n && top_cmp(&heap[r], &heap[m], o) > 0) m = r;
    if (m == i) return;
    uint32_t tmp = heap[i];
    heap[i] = heap[m], heap[m] = tmp, i = m;
  }
}

/* Whether a row of key `kx` comes before the row `root` of key `kr` (top_cmp < 0, the key
** given). */
static inline int top_before(const top_order *o, int64_t kx, uint32_t x, int64_t kr,
                             uint32_t root) {
  if (kx != kr) return (kx < kr) == !o->desc;
  return x != root && (x < root) == !o->row_desc;
}

#define TOP_BATCH 1024 /* candidate rows read at once */

int trak__vt_top(vt_cursor *c, const vt_col *col, int desc, int row_desc, size_t k) {
  vt_vtab *v = (vt_vtab *)c->base.pVtab;
  top_order o = {v->t, col, NULL, desc, row_desc};
  if (col->kind == VT_I64 && !col->calc && col->off) o.i64 = trak__vt_array(v->t, col);
  if (k > c->n) k = c->n;
  uint32_t *heap = malloc((k ? k : 1) * sizeof *heap), rows[TOP_BATCH];
  if (!heap) return SQLITE_NOMEM;
  size_t n = 0, got;
  int64_t kr = 0; /* the key of heap[0], the last row kept, once the heap is full */
  c->desc = 0;
  while (k && (got = trak__vt_skip_batch(c, rows, TOP_BATCH)) > 0) {
    for (size_t j = 0; j < got; j++) {
      uint32_t row = rows[j];
      if (n < k) { /* grow: sift the new row up */
        size_t i = n++;
        heap[i] = row;
        while (i && top_cmp(&heap[(i - 1) / 2], &heap[i], &o) < 0) {
          uint32_t tmp = heap[i];
          heap[i] = heap[(i - 1) / 2], heap[(i - 1) / 2] = tmp, i = (i - 1) / 2;
        }
        if (n == k) kr = top_key(&o, heap[0]);
        continue;
      }
      int64_t kx = top_key(&o, row); /* most rows: one key read, one comparison */
      if (!top_before(&o, kx, row, kr, heap[0])) continue;
      heap[0] = row; /* better than the last kept */
      top_sift(heap, n, 0, &o);
      kr = top_key(&o, heap[0]);
    }
  }
  qsort_r(heap, n, sizeof *heap, top_cmp, &o);
  return group_done(c, heap, n);
}

/* One row to sort: its keys in ascending order (a descending term's value inverted bit by bit,
** which reverses the order of int64 values exactly), the last the row (inverted for ties by
** descending row). */
typedef struct sort_rec {
  int64_t k[VT_SORT_TERMS + 1];
} sort_rec;

static int sort_rec_cmp(const void *a, const void *b) {
  const sort_rec *x = a, *y = b;
  for (int i = 0; i <= VT_SORT_TERMS; i++)
    if (x->k[i] != y->k[i]) return x->k[i] < y->k[i] ? -1 : 1;
  return 0;
}

int trak__vt_sort(vt_cursor *c, const vt_sort_term *terms, int nterms, int row_desc) {
  vt_vtab *v = (vt_vtab *)c->base.pVtab;
  size_t n = 0, cap = c->n ? c->n : 1;
  sort_rec *recs = malloc(cap * sizeof *recs);
  if (!recs) return SQLITE_NOMEM;
  c->desc = 0;
  for (trak__vt_skip(c); c->pos < c->n; c->pos++, trak__vt_skip(c)) {
    sort_rec *r = &recs[n++];
    memset(r, 0, sizeof *r);
    for (int i = 0; i < nterms; i++) {
      int64_t x;
      if (!trak__vt_value(v->t, terms[i].col, c->row, &x)) x = INT64_MIN; /* NULL first */
      r->k[i] = terms[i].desc ? ~x : x;
    }
    r->k[VT_SORT_TERMS] = row_desc ? ~(int64_t)c->row : (int64_t)c->row;
  }
  if (c->rc) return free(recs), c->rc;
  qsort(recs, n, sizeof *recs, sort_rec_cmp);
  uint32_t *rows = malloc((n ? n : 1) * sizeof *rows);
  if (!rows) return free(recs), SQLITE_NOMEM;
  for (size_t i = 0; i < n; i++) {
    int64_t r = recs[i].k[VT_SORT_TERMS];
    rows[i] = (uint32_t)(row_desc ? ~r : r);
  }
  free(recs);
  return group_done(c, rows, n);
}
