/*
** This file reads one key of an arg set as extract_arg(arg_set_id, key) answers it, and holds the
** columnar scan's filter `extract_arg(column, key) op literal` (vt_filter want 'a'), which
** sql/perfetto_sql/column_aggregates.c gives __intrinsic_col_group for such WHERE terms: the
** comparison is SQLite's for two operands without affinity (numbers before text, integers and
** reals compared exactly, text by its bytes, NULL matching nothing), decided once per arg set
** and remembered, so a scan of millions of slices reads one byte per row with a set.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "processor/tables/arg_value.h"
#include "processor/tables/vtab_scan.h"

void trak__arg_value(const trak_tables *t, int64_t set, uint32_t key, trak_arg_val *out) {
  out->type = SQLITE_NULL;
  if (!key || set < 0 || (uint64_t)set >= t->args.n) return;
  for (size_t row = (size_t)set; row < t->args.n && t->args.arg_set_id[row] == set; row++) {
    if (t->args.key[row] != key) continue;
    switch (t->args.value_type[row]) {
    case TRAK_ARG_STRING:
    case TRAK_ARG_JSON:
      out->s = trak__str(&t->strings, trak__arg_str(t, row));
      if (out->s) out->type = SQLITE_TEXT;
      return;
    case TRAK_ARG_REAL:
      out->d = trak__arg_real(t, row), out->type = SQLITE_FLOAT;
      return;
    case TRAK_ARG_NULL:
      return;
    default:
      out->i = trak__arg_int(t, row), out->type = SQLITE_INTEGER;
      return;
    }
  }
}

struct vt_argterm {
  uint32_t key;     /* the key's string id (0: never interned, nothing matches) */
  unsigned char op; /* = > g(>=) < l(<=) */
  int type;         /* the literal's: SQLITE_INTEGER, SQLITE_FLOAT or SQLITE_TEXT */
  int64_t i;        /* SQLITE_INTEGER */
  double d;         /* SQLITE_FLOAT */
  char *s;          /* SQLITE_TEXT, ns bytes */
  size_t ns;
  uint8_t *memo; /* per arg set id below nmemo: 0 not known yet, 1 passes, 2 does not */
  size_t nmemo;
};

/* The sign of integer i against real r, exactly (as SQLite compares them). */
static int int_real_cmp(int64_t i, double r) {
  if (r < -0x1p63) return 1;
  if (r >= 0x1p63) return -1;
  int64_t y = (int64_t)r; /* r truncated; |r - y| < 1 */
  if (i != y) return i < y ? -1 : 1;
  double s = (double)i;
  return s < r ? -1 : s > r;
}

/* Whether value `v` (not NULL) stands to the literal of `a` as a's operator asks, compared as
** SQLite compares two values without affinity: numbers before text. */
static int passes(const vt_argterm *a, const trak_arg_val *v) {
  int c;
  if ((v->type == SQLITE_TEXT) != (a->type == SQLITE_TEXT)) {
    c = v->type == SQLITE_TEXT ? 1 : -1;
  } else if (v->type == SQLITE_TEXT) {
    size_t n = strlen(v->s), m = n < a->ns ? n : a->ns;
    c = memcmp(v->s, a->s, m);
    if (!c) c = (n > a->ns) - (n < a->ns);
  } else if (v->type == SQLITE_INTEGER && a->type == SQLITE_INTEGER) {
    c = (v->i > a->i) - (v->i < a->i);
  } else if (v->type == SQLITE_INTEGER) {
    c = int_real_cmp(v->i, a->d);
  } else if (a->type == SQLITE_INTEGER) {
    c = -int_real_cmp(a->i, v->d);
  } else {
    c = (v->d > a->d) - (v->d < a->d);
  }
  switch (a->op) {
  case '=':
    return c == 0;
  case '>':
    return c > 0;
  case 'g':
    return c >= 0;
  case '<':
    return c < 0;
  default:
    return c <= 0;
  }
}

int trak__vt_argterm_open(const trak_tables *t, unsigned char op, sqlite3_value *key,
                          sqlite3_value *literal, vt_argterm **out) {
  *out = NULL;
  int type = sqlite3_value_type(literal);
  if (!strchr("=>g<l", op) || !op ||
      (type != SQLITE_INTEGER && type != SQLITE_FLOAT && type != SQLITE_TEXT &&
       type != SQLITE_NULL))
    return SQLITE_ERROR;
  vt_argterm *a = calloc(1, sizeof *a);
  if (!a) return SQLITE_NOMEM;
  a->op = op, a->type = type, a->nmemo = t->args.n;
  if (sqlite3_value_type(key) == SQLITE_TEXT) /* else extract_arg is NULL: nothing matches */
    a->key = trak__strpool_find(&t->strings, (const char *)sqlite3_value_text(key),
                                (size_t)sqlite3_value_bytes(key));
  if (type == SQLITE_NULL) a->key = 0; /* a comparison with NULL is NULL */
  if (type == SQLITE_INTEGER) a->i = sqlite3_value_int64(literal);
  if (type == SQLITE_FLOAT) a->d = sqlite3_value_double(literal);
  if (type == SQLITE_TEXT) {
    const unsigned char *s = sqlite3_value_text(literal);
    a->ns = (size_t)sqlite3_value_bytes(literal);
    a->s = malloc(a->ns + 1);
    if (!s || !a->s) {
      trak__vt_argterm_free(a);
      return SQLITE_NOMEM;
    }
    memcpy(a->s, s, a->ns + 1);
  }
  *out = a;
  return SQLITE_OK;
}

int trak__vt_argterm_match(vt_argterm *a, const trak_tables *t, int present, int64_t set) {
  if (!present || !a->key || set < 0 || (uint64_t)set >= a->nmemo) return 0;
  if (!a->memo && !(a->memo = calloc(a->nmemo, 1))) return -SQLITE_NOMEM;
  if (a->memo[set]) return a->memo[set] == 1;
  trak_arg_val v;
  trak__arg_value(t, set, a->key, &v);
  int ok = v.type != SQLITE_NULL && !(v.type == SQLITE_FLOAT && isnan(v.d)) && passes(a, &v);
  a->memo[set] = ok ? 1 : 2;
  return ok;
}

size_t trak__vt_argterm_batch(vt_argterm *a, const trak_tables *t, const uint32_t *sets,
                              uint32_t lo, size_t *pos, size_t n, uint32_t *rows, size_t cap,
                              int *rc) {
  size_t k = 0, i = *pos;
  if (!a->key) { /* nothing matches */
    *pos = n;
    return 0;
  }
  if (a->nmemo && !a->memo && !(a->memo = calloc(a->nmemo, 1))) return *rc = SQLITE_NOMEM, 0;
  for (; i < n && k < cap; i++) {
    uint32_t s = sets[lo + i];
    uint8_t m = s < a->nmemo ? a->memo[s] : 2; /* NULL (TRAK_NULL_U32) is past every set */
    if (__builtin_expect(!m, 0)) {
      int ok = trak__vt_argterm_match(a, t, 1, s);
      if (ok < 0) {
        *rc = -ok, *pos = n;
        return k;
      }
      m = ok ? 1 : 2;
    }
    rows[k] = lo + (uint32_t)i; /* kept when it passes: no branch on the answer */
    k += m == 1;
  }
  *pos = i;
  return k;
}

void trak__vt_argterm_free(vt_argterm *a) {
  if (!a) return;
  free(a->s);
  free(a->memo);
  free(a);
}
