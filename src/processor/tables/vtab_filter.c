/*
** This file holds the trak_columnar cursor's filters: each constraint SQLite passes becomes a
** closed range of the column's integer values (string ids for strings), NULL or not NULL, a set
** (IN) or a text pattern, or narrows the row range by binary search on a sorted column;
** comparisons follow SQLite's (numeric affinity for the value, integers compared exactly with
** reals, NULL never matching). Then the scan's step: the next candidate passing every filter.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "processor/tables/vtab_scan.h"

/* Turns the comparison `column op val` on an integral column into the closed range [*lo, *hi]
** of the column values that satisfy it, as SQLite compares: the value gets numeric affinity
** (text that reads as a number becomes that number, other text and blobs sort after every
** number), integers compare exactly with reals, NULL matches nothing. Returns 0 when no value
** does, -1 on OOM. */
static int value_range(sqlite3_value *val, unsigned char op, int64_t *lo, int64_t *hi) {
  *lo = INT64_MIN, *hi = INT64_MAX;
  sqlite3_value *dup = NULL;
  int type = sqlite3_value_type(val), ok = 1;
  if (type == SQLITE_TEXT) { /* a copy: the register may be read elsewhere as text */
    if (!(dup = sqlite3_value_dup(val))) return -1;
    type = sqlite3_value_numeric_type(dup);
    val = dup;
  }
  if (type == SQLITE_INTEGER) {
    int64_t v = sqlite3_value_int64(val);
    if (op == '=')
      *lo = *hi = v;
    else if (op == '>')
      ok = v != INT64_MAX, *lo = v + (v != INT64_MAX);
    else if (op == 'g')
      *lo = v;
    else if (op == '<')
      ok = v != INT64_MIN, *hi = v - (v != INT64_MIN);
    else
      *hi = v;
  } else if (type == SQLITE_FLOAT) {
    double d = sqlite3_value_double(val);
    if (isnan(d))
      ok = 0;
    else if (d >= 0x1p63) /* above every int64 */
      ok = op == '<' || op == 'l';
    else if (d < -0x1p63) /* below every int64 */
      ok = op == '>' || op == 'g';
    else {
      double f = floor(d);
      int64_t fi = (int64_t)f; /* exact: |f| < 2^63 */
      int whole = f == d;
      if (op == '=')
        ok = whole, *lo = *hi = fi;
      else if (op == '>')
        *lo = fi + 1; /* fi < 2^63 - 1: d < 2^63 is at most 2^63 - 1024 */
      else if (op == 'g')
        *lo = whole ? fi : fi + 1;
      else if (op == '<')
        ok = !(whole && fi == INT64_MIN), *hi = whole ? fi - (fi != INT64_MIN) : fi;
      else
        *hi = fi;
    }
  } else if (type == SQLITE_NULL)
    ok = 0;
  else /* text that is no number, or a blob: after every number */
    ok = op == '<' || op == 'l';
  sqlite3_value_free(dup);
  return ok && *lo <= *hi;
}

/* First row in [lo, hi) whose sorted column value is >= v (or > v when `strict`). NULLs (a
** sorted column never holds one) would count as smallest. */
static uint32_t lower_bound(const trak_tables *t, const vt_col *c, uint32_t lo, uint32_t hi,
                            int64_t v, int strict) {
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    int64_t x = INT64_MIN;
    trak__vt_value(t, c, mid, &x);
    if (strict ? x <= v : x < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Narrows the rows [*lo, *hi) to those whose value of sorted column `c` lies in [vlo, vhi]. */
void trak__vt_sorted_range(const trak_tables *t, const vt_col *c, uint32_t *lo, uint32_t *hi,
                           int64_t vlo, int64_t vhi) {
  int64_t a = *lo, b = *hi;
  if (c->kind == VT_ID) { /* the value is the row */
    if (vlo > a) a = vlo;
    if (vhi < b - 1) b = vhi + 1;
    if (a > b) a = b;
  } else {
    a = lower_bound(t, c, (uint32_t)a, (uint32_t)b, vlo, 0);
    b = lower_bound(t, c, (uint32_t)a, (uint32_t)b, vhi, 1);
  }
  *lo = (uint32_t)a, *hi = (uint32_t)b;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Whether a value (x, or NULL when not `present`) passes filter `f`: 1 or 0, or a negative
** SQLite code (a pattern's failure). */
static int value_match(const trak_tables *t, const vt_filter *f, int present, int64_t x) {
  switch (f->want) {
  case 'p':
    return present && trak__vt_pattern_match(f->pat, &t->strings, (uint32_t)x);
  case 'a':
    return trak__vt_argterm_match(f->arg, t, present, x);
  case 'n':
    return !present;
  case 'N':
    return present;
  case 'r':
    return present && x >= f->lo && x <= f->hi;
  default: {
    if (!present) return 0;
    size_t a = 0, b = f->nset;
    while (a < b) {
      size_t m = a + (b - a) / 2;
      if (f->set[m] < x)
        a = m + 1;
      else
        b = m;
    }
    return a < f->nset && f->set[a] == x;
  }
  }
}

/* Whether `row` passes filter `f`: 1 or 0, or a negative SQLite code (a pattern's failure). */
static int filter_match(const trak_tables *t, const vt_table *tbl, const vt_filter *f,
                        uint32_t row) {
  if (f->dict.codes) {
    uint8_t k = f->dict.codes[row];
    if (__builtin_expect(k != TRAK_DICT8_WIDE, 1)) return f->code_ok[k];
  }
  int64_t x = 0;
  int present = trak__vt_value(t, &tbl->cols[f->col], row, &x);
  return value_match(t, f, present, x);
}

/* Makes filter `f` on dictionary column `d` read rows by code: whether each code's value passes
** is decided once here. Leaves `f` reading values when a pattern fails on one. */
static void dict_prepare(const trak_tables *t, const vt_dict *d, vt_filter *f) {
  for (uint32_t k = 0; k <= d->dict->n && k < TRAK_DICT8_WIDE; k++) {
    int64_t x = 0;
    int present = trak__vt_dict_value(d, d->dict->vals[k], &x);
    int ok = value_match(t, f, present, x);
    if (ok < 0) return;
    f->code_ok[k] = (uint8_t)ok;
  }
  f->code_ok[TRAK_DICT8_WIDE] = 1;
  f->dict = *d;
}

/* trak__vt_skip's loop for a plain row range with one filter on a stored column, a text
** pattern or a range on a 64-bit integer (the filter loop costs ~80 instructions a row, these
** under 10). Returns 0 when it does not apply. */
static int skip_one_filter(vt_cursor *c, const vt_vtab *v) {
  const vt_filter *f = &c->filters[0];
  const vt_col *cd = &v->tbl->cols[f->col];
  if (c->list || c->nfilters != 1 || (!f->dict.codes && (cd->calc || !cd->off))) return 0;
  const void *a = f->dict.codes ? NULL : trak__vt_array(v->t, cd);
  size_t pos = c->pos, n = c->n;
  if (f->dict.codes) { /* a byte a row: its code's answer, or the value of a wide one */
    const uint8_t *codes = f->dict.codes;
    for (; pos < n; pos++) {
      uint32_t row = c->lo + (uint32_t)(c->desc ? n - 1 - pos : pos);
      uint8_t k = codes[row];
      int ok = k != TRAK_DICT8_WIDE ? f->code_ok[k] : filter_match(v->t, v->tbl, f, row);
      if (ok < 0) c->rc = -ok, pos = n;
      if (ok) break;
    }
  } else if (f->want == 'p' && cd->kind == VT_STR) {
    pos = trak__vt_pattern_scan(f->pat, &v->t->strings, a, c->lo, pos, n, c->desc, &c->rc);
  } else if (f->want == 'r' && (cd->kind == VT_I64 || (cd->kind == VT_I64N && a))) {
    const int64_t *x = a;
    int64_t flo = f->lo, fhi = f->hi;
    if (cd->kind == VT_I64N && flo == INT64_MIN) flo++; /* INT64_MIN is NULL there */
    for (; pos < n; pos++) {
      int64_t y = x[c->lo + (c->desc ? n - 1 - pos : pos)];
      if (y >= flo && y <= fhi) break;
    }
  } else {
    return 0;
  }
  c->pos = pos;
  if (pos < n) c->row = c->lo + (uint32_t)(c->desc ? n - 1 - pos : pos);
  return 1;
}

void trak__vt_skip(vt_cursor *c) {
  vt_vtab *v = (vt_vtab *)c->base.pVtab;
  if (skip_one_filter(c, v)) return;
  for (; c->pos < c->n; c->pos++) {
    size_t i = c->desc ? c->n - 1 - c->pos : c->pos;
    if (!c->list)
      c->row = c->lo + (uint32_t)i;
    else if ((c->row = c->list[i]) < c->lo || c->row >= c->end)
      continue;
    int ok = 1;
    for (int f = 0; f < c->nfilters && ok > 0; f++)
      ok = filter_match(v->t, v->tbl, &c->filters[f], c->row);
    if (ok < 0) {
      c->rc = -ok, c->pos = c->n;
      return;
    }
    if (ok) return;
  }
}

size_t trak__vt_skip_batch(vt_cursor *c, uint32_t *rows, size_t cap) {
  vt_vtab *v = (vt_vtab *)c->base.pVtab;
  const vt_filter *f = &c->filters[0];
  const vt_col *cd = c->nfilters == 1 ? &v->tbl->cols[f->col] : NULL;
  const void *a = cd && !f->dict.codes && !cd->calc && cd->off ? trak__vt_array(v->t, cd) : NULL;
  size_t k = 0, pos = c->pos, n = c->n;
  /* plain: the rows lo + pos in ascending order, which the loops below read */
  int plain = !c->desc && !c->list;
  if (!c->desc && c->list && !c->nfilters) { /* an index's or a scan's candidates */
    for (; pos < n && k < cap; pos++) {
      uint32_t row = c->list[pos];
      rows[k] = row;
      k += row >= c->lo && row < c->end;
    }
    return c->pos = pos, k;
  } else if (plain && !c->nfilters) {
    for (; pos < n && k < cap; pos++)
      rows[k++] = c->lo + (uint32_t)pos;
    return c->pos = pos, k;
  } else if (plain && a && f->want == 'p' && cd->kind == VT_STR) {
    k = trak__vt_pattern_batch(f->pat, &v->t->strings, a, c->lo, &pos, n, rows, cap, &c->rc);
    return c->pos = pos, k;
  } else if (plain && a && f->want == 'a' && (cd->kind == VT_U32 || cd->kind == VT_U32N)) {
    k = trak__vt_argterm_batch(f->arg, v->t, a, c->lo, &pos, n, rows, cap, &c->rc);
    return c->pos = pos, k;
  } else if (plain && a && f->want == 'r' && (cd->kind == VT_I64 || cd->kind == VT_I64N)) {
    const int64_t *x = a;
    int64_t flo = f->lo, fhi = f->hi;
    if (cd->kind == VT_I64N && flo == INT64_MIN) flo++; /* INT64_MIN is NULL there */
    for (; pos < n && k < cap; pos++) {
      int64_t y = x[c->lo + pos];
      rows[k] = c->lo + (uint32_t)pos;
      k += y >= flo && y <= fhi;
    }
    return c->pos = pos, k;
  }
  for (; k < cap; c->pos++) {
    trak__vt_skip(c);
    if (c->pos >= c->n) break;
    rows[k++] = c->row;
  }
  return k;
}

/* Reads the values of an IN constraint into a sorted set of distinct column values (string
** ids for strings: a text never interned matches nothing). Returns 0, or an SQLite code. */
static int in_set(const trak_tables *t, const vt_col *cd, sqlite3_value *list, vt_filter *f) {
  size_t cap = 16;
  f->set = malloc(cap * sizeof *f->set);
  if (!f->set) return SQLITE_NOMEM;
  sqlite3_value *val;
  for (int rc = sqlite3_vtab_in_first(list, &val); rc == SQLITE_OK;
       rc = sqlite3_vtab_in_next(list, &val)) {
    int64_t lo, hi;
    if (cd->kind == VT_STR) {
      if (sqlite3_value_type(val) != SQLITE_TEXT) continue;
      lo = trak__strpool_find(&t->strings, (const char *)sqlite3_value_text(val),
                              (size_t)sqlite3_value_bytes(val));
      if (!lo) continue;
    } else {
      int ok = value_range(val, '=', &lo, &hi);
      if (ok < 0) return SQLITE_NOMEM;
      if (!ok) continue;
    }
    if (f->nset == cap) {
      int64_t *grown = realloc(f->set, 2 * cap * sizeof *grown);
      if (!grown) return SQLITE_NOMEM;
      f->set = grown, cap *= 2;
    }
    f->set[f->nset++] = lo;
  }
  qsort(f->set, f->nset, sizeof *f->set, cmp_i64);
  size_t m = 0;
  for (size_t i = 0; i < f->nset; i++)
    if (!m || f->set[m - 1] != f->set[i]) f->set[m++] = f->set[i];
  f->nset = m;
  return SQLITE_OK;
}

void trak__vt_filter_free(vt_filter *f) {
  free(f->set);
  trak__vt_pattern_free(f->pat);
  trak__vt_argterm_free(f->arg);
}

int trak__vt_add_arg_constraint(vt_cursor *c, int col, unsigned char op, sqlite3_value *key,
                                sqlite3_value *literal) {
  vt_vtab *v = (vt_vtab *)c->base.pVtab;
  vt_filter f = {.col = col, .want = 'a'};
  if (c->nfilters == VT_MAX_FILTERS) return -SQLITE_INTERNAL;
  int rc = trak__vt_argterm_open(v->t, op, key, literal, &f.arg);
  if (rc) return -rc;
  c->filters[c->nfilters++] = f;
  return 1;
}

/* Turns constraint (col, op, val) into a filter, or narrows [*lo, *hi) when the column is
** sorted. Returns 1, 0 when no row can match, or a negative SQLite code. */
int trak__vt_add_constraint(vt_cursor *c, int col, unsigned char op, sqlite3_value *val,
                            uint32_t *lo, uint32_t *hi) {
  vt_vtab *v = (vt_vtab *)c->base.pVtab;
  const trak_tables *t = v->t;
  const vt_col *cd = &v->tbl->cols[col];
  vt_filter f = {.col = col, .want = 'r'};
  if (op == 's') op = sqlite3_value_type(val) == SQLITE_NULL ? 'n' : '=';
  if (op == 'n' || op == 'N') {
    f.want = op;
  } else if (cd->kind == VT_STR && op != '=' && op != 'i') { /* LIKE, GLOB, < <= > >= */
    if (sqlite3_value_type(val) == SQLITE_NULL) return 0;    /* x LIKE NULL is NULL */
    char *err = NULL;
    int rc = trak__vt_pattern_open(v->db, &t->strings, op, val, &f.pat, &err);
    if (rc) {
      sqlite3_free(v->base.zErrMsg);
      v->base.zErrMsg = err;
      return -rc;
    }
    f.want = 'p';
    for (int i = 0; i < c->nfilters; i++) /* one id lookup per row for a column's predicates */
      if (c->filters[i].want == 'p' && c->filters[i].col == col) {
        trak__vt_pattern_and(c->filters[i].pat, f.pat);
        vt_dict d = c->filters[i].dict;
        c->filters[i].dict.codes = NULL; /* the codes' answers again, for both predicates */
        if (d.codes) dict_prepare(t, &d, &c->filters[i]);
        return 1;
      }
  } else if (op == 'i') {
    int rc = in_set(t, cd, val, &f);
    if (rc) {
      free(f.set);
      return -rc;
    }
    f.want = 'i';
    if (!f.nset) {
      free(f.set);
      return 0;
    }
  } else if (cd->kind == VT_STR) {
    if (sqlite3_value_type(val) != SQLITE_TEXT) return 1; /* not omitted: SQLite compares */
    f.lo = f.hi = trak__strpool_find(&t->strings, (const char *)sqlite3_value_text(val),
                                     (size_t)sqlite3_value_bytes(val));
    if (!f.lo) return 0;
  } else {
    int ok = value_range(val, op, &f.lo, &f.hi);
    if (ok <= 0) return ok < 0 ? -SQLITE_NOMEM : 0;
    if (vt_col_sorted(t, cd)) { /* a binary search instead of a filter */
      trak__vt_sorted_range(t, cd, lo, hi, f.lo, f.hi);
      return *lo < *hi;
    }
  }
  vt_dict d;
  if (cd->calc && trak__vt_dict(t, cd->calc, &d)) dict_prepare(t, &d, &f);
  if (c->nfilters == VT_MAX_FILTERS) { /* the plan has at most as many constraints */
    trak__vt_filter_free(&f);
    return -SQLITE_INTERNAL;
  }
  c->filters[c->nfilters++] = f;
  return 1;
}
