/*
** This file holds the text filters of the columnar tables' string columns: LIKE, GLOB and the
** comparisons < <= > >= (which SQLite adds for a GLOB prefix). The predicate is evaluated once
** per distinct string id, by SQLite's own operator on the column's text with TEXT affinity (so
** an overriding like() function or PRAGMA case_sensitive_like is honoured), and the answer is
** remembered: a scan compares string ids instead of text on every row.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/tables/vtab_scan.h"

struct vt_pattern {
  sqlite3_stmt *stmt; /* SELECT CAST(?1 AS TEXT) <op> ?2, the value bound to ?2 */
  uint8_t *memo;      /* per string id below nmemo: 0 not known yet, 1 matches, 2 does not
                      ** (every predicate of the chain) */
  size_t nmemo;
  vt_pattern *next; /* another predicate on the same column, owned: all must hold */
};

/* Evaluates the predicate on `len` bytes `s`: 1, 0 (also NULL), or a negative SQLite code. */
static int run(vt_pattern *p, const char *s, size_t len) {
  int rc = sqlite3_bind_text(p->stmt, 1, s, (int)len, SQLITE_STATIC);
  if (rc == SQLITE_OK) rc = sqlite3_step(p->stmt);
  int match = rc == SQLITE_ROW && sqlite3_column_type(p->stmt, 0) != SQLITE_NULL &&
              sqlite3_column_int(p->stmt, 0);
  int reset = sqlite3_reset(p->stmt);
  if (rc != SQLITE_ROW) return -(reset != SQLITE_OK ? reset : rc == SQLITE_OK ? SQLITE_ERROR : rc);
  return match;
}

int trak__vt_pattern_open(sqlite3 *db, const trak_strpool *sp, unsigned char op,
                          sqlite3_value *value, vt_pattern **out, char **err) {
  *out = NULL;
  const char *sql = op == 'k'   ? "SELECT CAST(?1 AS TEXT) LIKE ?2"
                    : op == 'b' ? "SELECT CAST(?1 AS TEXT) GLOB ?2"
                    : op == '>' ? "SELECT CAST(?1 AS TEXT) > ?2"
                    : op == 'g' ? "SELECT CAST(?1 AS TEXT) >= ?2"
                    : op == '<' ? "SELECT CAST(?1 AS TEXT) < ?2"
                    : op == 'l' ? "SELECT CAST(?1 AS TEXT) <= ?2"
                                : NULL;
  if (!sql) return SQLITE_INTERNAL;
  vt_pattern *p = calloc(1, sizeof *p);
  if (!p) return SQLITE_NOMEM;
  int rc = sqlite3_prepare_v2(db, sql, -1, &p->stmt, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_bind_value(p->stmt, 2, value);
  if (rc == SQLITE_OK) { /* a pattern SQLite refuses (too long) fails here, not mid-scan */
    int m = run(p, "", 0);
    rc = m < 0 ? -m : SQLITE_OK;
  }
  if (rc != SQLITE_OK) {
    *err = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    trak__vt_pattern_free(p);
    return rc;
  }
  p->nmemo = sp->str.n;
  *out = p;
  return SQLITE_OK;
}

void trak__vt_pattern_and(vt_pattern *p, vt_pattern *q) {
  if (p->memo) memset(p->memo, 0, p->nmemo); /* answers of the shorter chain */
  while (p->next)
    p = p->next;
  p->next = q;
}

int trak__vt_pattern_match(vt_pattern *p, const trak_strpool *sp, uint32_t id) {
  if (id < p->nmemo && !p->memo && !(p->memo = calloc(p->nmemo, 1))) return -SQLITE_NOMEM;
  if (id < p->nmemo && p->memo[id]) return p->memo[id] == 1;
  int m = 1;
  for (vt_pattern *q = p; q && m > 0; q = q->next)
    m = run(q, sp->str.v[id], sp->len.v[id]);
  if (m >= 0 && id < p->nmemo) p->memo[id] = m ? 1 : 2;
  return m;
}

size_t trak__vt_pattern_scan(vt_pattern *p, const trak_strpool *sp, const uint32_t *ids,
                             uint32_t lo, size_t pos, size_t n, int desc, int *rc) {
  if (p->nmemo && !p->memo && !(p->memo = calloc(p->nmemo, 1))) return *rc = SQLITE_NOMEM, n;
  for (; pos < n; pos++) {
    uint32_t id = ids[lo + (desc ? n - 1 - pos : pos)];
    if (!id) continue; /* NULL matches nothing */
    uint8_t m = id < p->nmemo ? p->memo[id] : 0;
    if (m == 1) return pos;
    if (m == 2) continue;
    int ok = trak__vt_pattern_match(p, sp, id);
    if (ok < 0) return *rc = -ok, n;
    if (ok) return pos;
  }
  return n;
}

size_t trak__vt_pattern_batch(vt_pattern *p, const trak_strpool *sp, const uint32_t *ids,
                              uint32_t lo, size_t *pos, size_t n, uint32_t *rows, size_t cap,
                              int *rc) {
  if (p->nmemo && !p->memo && !(p->memo = calloc(p->nmemo, 1))) return *rc = SQLITE_NOMEM, 0;
  const uint8_t *memo = p->memo;
  size_t k = 0, i = *pos, nmemo = p->nmemo;
  /* a batch ends full or at row n, as before; at most one row is kept a row read, so up to
  ** `end` the batch can't fill, one test a row */
  while (i < n && k < cap) {
    size_t end = n - i > cap - k ? i + (cap - k) : n;
    for (; i < end; i++) { /* ids answered before */
      uint32_t id = ids[lo + i];
      uint8_t m = id < nmemo ? memo[id] : 0;
      if (__builtin_expect(!m, 0)) break;
      rows[k] = lo + (uint32_t)i; /* kept when it matches (1; 2 does not): no branch on it */
      k += m & 1;
    }
    if (i == end) continue;
    uint32_t id = ids[lo + i++]; /* NULL, or an id not asked about yet */
    if (!id) continue;
    int ok = trak__vt_pattern_match(p, sp, id);
    if (ok < 0) {
      *rc = -ok, *pos = n;
      return k;
    }
    memo = p->memo;
    rows[k] = lo + (uint32_t)(i - 1);
    k += ok != 0;
  }
  *pos = i;
  return k;
}

void trak__vt_pattern_free(vt_pattern *p) {
  while (p) {
    vt_pattern *next = p->next;
    sqlite3_finalize(p->stmt);
    free(p->memo);
    free(p);
    p = next;
  }
}
