/*
** This file holds the trak_columnar cursor's choice of driver: the lazily built equality index of
** a 32-bit column (the rows of each value in row order), the first equalities answered by
** reading the column instead, and the pick among the row range, an index's rows and an IN
** list's rows of whichever gives the fewest candidates.
*/
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "processor/tables/vtab_scan.h"

/* The index key of a value of an indexed column (NULL: `null` set); -1 for a value no row of
** the column can hold. */
static inline int64_t index_key(vt_kind kind, int null, int64_t v) {
  if (null) return 0;
  if (v < 0 || v > UINT32_MAX) return -1;
  return kind == VT_STR ? v : v + 1;
}

/* The equality index of column `col` of the table, built on first use; NULL on OOM (*rc
** SQLITE_NOMEM) or when the values are too sparse for one (*rc SQLITE_OK): the scan filters
** then. */
static const vt_index *index_get(vt_vtab *v, int col, int *rc) {
  vt_index *ix = &v->index[col];
  const trak_tables *t = v->t;
  *rc = SQLITE_OK;
  if (ix->off && ix->generation == t->generation) return ix;
  free(ix->off), free(ix->rows);
  ix->off = ix->rows = NULL;
  ix->generation = t->generation;
  const vt_col *cd = &v->tbl->cols[col];
  const uint32_t *values = trak__vt_array(t, cd);
  size_t n = trak__vt_rows(t, v->tbl);
#define INDEX_KEY(x)                                                                               \
  ((size_t)index_key(cd->kind, cd->kind == VT_U32N && (x) == TRAK_NULL_U32, (int64_t)(x)))
  size_t max = 0;
  for (size_t r = 0; r < n; r++)
    if (INDEX_KEY(values[r]) > max) max = INDEX_KEY(values[r]);
  if (max > 4 * n + 1024) return NULL; /* keys far sparser than rows (large ids) */
  ix->nkeys = (uint32_t)max + 1;
  *rc = SQLITE_NOMEM;
  ix->off = calloc((size_t)max + 2, sizeof *ix->off);
  ix->rows = malloc((n ? n : 1) * sizeof *ix->rows);
  uint32_t *fill = malloc(((size_t)max + 2) * sizeof *fill);
  if (!ix->off || !ix->rows || !fill) {
    free(ix->off), free(ix->rows), free(fill);
    ix->off = ix->rows = NULL;
    return NULL;
  }
  for (size_t r = 0; r < n; r++)
    ix->off[INDEX_KEY(values[r]) + 1]++;
  for (size_t k = 0; k <= max; k++)
    ix->off[k + 1] += ix->off[k];
  memcpy(fill, ix->off, ((size_t)max + 2) * sizeof *fill);
  for (size_t r = 0; r < n; r++)
    ix->rows[fill[INDEX_KEY(values[r])]++] = (uint32_t)r;
#undef INDEX_KEY
  free(fill);
  *rc = SQLITE_OK;
  return ix;
}

uint32_t trak__vt_scans_before_index = 3;

/* Whether an equality on column `col` (an indexed one whose index is not built) is answered by
** reading the column rather than by building its index: the first trak__vt_scans_before_index
** times in a generation of the tables. A one-off query then pays one pass over the column, not
** the index's three passes and new arrays (page faults on a big table); a join's inner lookups
** build the index after a few. Counts the scan. */
static int index_deferred(vt_vtab *v, int col) {
  vt_index *ix = &v->index[col];
  if (ix->off && ix->generation == v->t->generation) return 0;
  if (ix->scan_generation != v->t->generation)
    ix->scan_generation = v->t->generation, ix->scans = 0;
  if (ix->scans >= trak__vt_scans_before_index) return 0;
  ix->scans++;
  return 1;
}

/* The stored value an equality filter (`=` one value, or IS NULL) on 32-bit column kind `kind`
** matches in *raw; 0 when no stored value can. */
static int filter_raw(vt_kind kind, const vt_filter *f, uint32_t *raw) {
  if (f->want == 'n') {
    *raw = kind == VT_STR ? 0 : TRAK_NULL_U32;
    return kind != VT_U32;
  }
  if (f->lo < 0 || f->lo > UINT32_MAX) return 0;
  *raw = (uint32_t)f->lo;
  return !(kind == VT_U32N && *raw == TRAK_NULL_U32) && !(kind == VT_STR && !*raw);
}

typedef uint32_t u32x4 __attribute__((vector_size(16)));

/* The bit mask of the lanes of the 8 values at `v` equal to `want` (bit i: v[i]). */
static inline unsigned match8(const uint32_t *v, u32x4 want) {
  u32x4 a, b;
  memcpy(&a, v, sizeof a);
  memcpy(&b, v + 4, sizeof b);
#if defined(__SSE2__)
  return (unsigned)_mm_movemask_ps(_mm_castsi128_ps((__m128i)(a == want))) |
         (unsigned)_mm_movemask_ps(_mm_castsi128_ps((__m128i)(b == want))) << 4;
#else
  u32x4 ha = (u32x4)(a == want) & 1, hb = (u32x4)(b == want) & 1;
  return ha[0] | ha[1] << 1 | ha[2] << 2 | ha[3] << 3 | hb[0] << 4 | hb[1] << 5 | hb[2] << 6 |
         hb[3] << 7;
#endif
}

/* Writes the rows of [lo, end) whose value is `raw` to `rows` in order and returns how many.
** Eight values are compared at once into a bit mask, and the matches are taken from it lowest
** bit first: an equality that keeps few rows costs about one instruction a row, and one that
** keeps a quarter of them (`depth = 0`) about two, where a row-by-row walk of every block
** holding a match cost five to ten. */
static size_t match_u32(const uint32_t *values, uint32_t lo, uint32_t end, uint32_t raw,
                        uint32_t *rows) {
  size_t n = 0;
  uint32_t r = lo;
  const u32x4 want = {raw, raw, raw, raw};
  for (; end - r >= 8; r += 8)
    for (unsigned m = match8(values + r, want); m; m &= m - 1)
      rows[n++] = r + (uint32_t)__builtin_ctz(m);
  for (; r < end; r++)
    rows[n] = r, n += values[r] == raw;
  return n;
}

/* Makes the rows of [c->lo, c->end) that pass the filters in `mask` (equalities on 32-bit
** columns, any filter on a dictionary column) the candidates, by reading the columns (a
** dictionary column's codes), and drops those filters (but a dictionary column's whose rows
** past the 254 codes are checked by value later). Returns an SQLite code. */
static int scan_equal(vt_cursor *c, uint32_t mask) {
  vt_vtab *v = (vt_vtab *)c->base.pVtab;
  uint32_t *rows = malloc(((size_t)(c->end - c->lo) + 1) * sizeof *rows);
  if (!rows) return SQLITE_NOMEM;
  size_t n = 0;
  int first = 1;
  for (int i = c->nfilters - 1; i >= 0; i--) {
    if (!(mask >> i & 1)) continue;
    vt_filter *f = &c->filters[i];
    if (f->dict.codes) {
      const uint8_t *codes = f->dict.codes, *ok = f->code_ok;
      if (first) {
        for (uint32_t r = c->lo; r < c->end; r++)
          rows[n] = r, n += ok[codes[r]];
      } else {
        size_t m = 0;
        for (size_t k = 0; k < n; k++)
          rows[m] = rows[k], m += ok[codes[rows[k]]];
        n = m;
      }
      first = 0;
      if (f->dict.dict->wide.n) continue; /* rows coded TRAK_DICT8_WIDE: still to check */
      trak__vt_filter_free(f);
      c->filters[i] = c->filters[--c->nfilters];
      continue;
    }
    const vt_col *cd = &v->tbl->cols[f->col];
    const uint32_t *values = trak__vt_array(v->t, cd);
    uint32_t raw = 0;
    int any = filter_raw(cd->kind, f, &raw);
    if (first && any) {
      n = match_u32(values, c->lo, c->end, raw, rows);
    } else if (first) {
      n = 0;
    } else {
      size_t m = 0;
      for (size_t k = 0; any && k < n; k++)
        rows[m] = rows[k], m += values[rows[k]] == raw;
      n = m;
    }
    first = 0;
    c->filters[i] = c->filters[--c->nfilters]; /* no set or pattern: an equality */
  }
  c->owned = rows;
  c->list = rows, c->n = n;
  return SQLITE_OK;
}

/* The rows of index key `key` in *n; an empty list for keys the column never holds. */
static const uint32_t *index_rows(const vt_index *ix, int64_t key, size_t *n) {
  *n = 0;
  if (key < 0 || key >= ix->nkeys) return ix->rows;
  *n = ix->off[key + 1] - ix->off[key];
  return ix->rows + ix->off[key];
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Picks how the scan visits rows: the range [lo, end) or, when smaller, the rows of one
** filter's values (an equality or IN on the id, a sorted column or an indexed one). The chosen
** filter is then exact for every candidate and dropped. Returns an SQLite code. */
int trak__vt_choose_driver(vt_cursor *c) {
  vt_vtab *v = (vt_vtab *)c->base.pVtab;
  const trak_tables *t = v->t;
  size_t best = c->end - c->lo;
  int pick = -1;
  uint32_t scan = 0; /* equalities answered by reading their columns (index_deferred) */
  for (int i = 0; i < c->nfilters && best > 1; i++) {
    const vt_filter *f = &c->filters[i];
    const vt_col *cd = &v->tbl->cols[f->col];
    size_t size = 0, m;
    if (f->dict.codes) { /* a dictionary column: its codes read at once if nothing is better */
      if (best >= 64) scan |= 1u << i;
      continue;
    }
    if (f->want == 'i' && (cd->kind == VT_ID || vt_col_sorted(t, cd))) {
      size = f->nset; /* rows per value of a sorted column: a guess */
    } else if (vt_col_indexed(cd) &&
               (f->want == 'i' || f->want == 'n' || (f->want == 'r' && f->lo == f->hi))) {
      if (best < 64) continue; /* a short range: not worth an index */
      if (f->want != 'i' && !vt_col_sorted(t, cd) && index_deferred(v, f->col)) {
        scan |= 1u << i;
        continue;
      }
      int rc;
      const vt_index *ix = index_get(v, f->col, &rc);
      if (!ix) {
        if (rc) return rc;
        continue;
      }
      if (f->want != 'i') index_rows(ix, index_key(cd->kind, f->want == 'n', f->lo), &size);
      for (size_t k = 0; f->want == 'i' && k < f->nset; k++)
        index_rows(ix, index_key(cd->kind, 0, f->set[k]), &m), size += m;
    } else
      continue;
    if (size < best) best = size, pick = i;
  }
  if (pick < 0) return scan ? scan_equal(c, scan) : SQLITE_OK;
  vt_filter *f = &c->filters[pick];
  const vt_col *cd = &v->tbl->cols[f->col];
  if (!vt_col_indexed(cd) || vt_col_sorted(t, cd)) { /* IN on the id or a sorted column */
    uint32_t *rows = NULL;
    size_t n = 0, cap = 0;
    for (size_t k = 0; k < f->nset; k++) {
      uint32_t a = c->lo, b = c->end;
      trak__vt_sorted_range(t, cd, &a, &b, f->set[k], f->set[k]);
      if (n + (b - a) > cap) {
        cap = (n + (b - a)) * 2;
        uint32_t *grown = realloc(rows, cap * sizeof *rows);
        if (!grown) return free(rows), SQLITE_NOMEM;
        rows = grown;
      }
      for (uint32_t r = a; r < b; r++)
        rows[n++] = r; /* ascending: the set is */
    }
    c->owned = rows;
    c->list = rows, c->n = n;
  } else { /* the rows of the value(s) in the column's index */
    int rc;
    const vt_index *ix = index_get(v, f->col, &rc); /* built above */
    if (!ix) return rc ? rc : SQLITE_INTERNAL;
    if (f->want != 'i') {
      int64_t key = index_key(cd->kind, f->want == 'n', f->lo);
      c->list = index_rows(ix, key, &c->n);
    } else {
      size_t n = 0, m;
      for (size_t k = 0; k < f->nset; k++)
        index_rows(ix, index_key(cd->kind, 0, f->set[k]), &m), n += m;
      uint32_t *rows = malloc((n ? n : 1) * sizeof *rows);
      if (!rows) return SQLITE_NOMEM;
      n = 0;
      for (size_t k = 0; k < f->nset; k++) {
        const uint32_t *r = index_rows(ix, index_key(cd->kind, 0, f->set[k]), &m);
        memcpy(rows + n, r, m * sizeof *rows), n += m;
      }
      qsort(rows, n, sizeof *rows, cmp_u32); /* distinct values: no row twice */
      c->owned = rows;
      c->list = rows, c->n = n;
    }
  }
  trak__vt_filter_free(f);
  c->filters[pick] = c->filters[--c->nfilters];
  return SQLITE_OK;
}
