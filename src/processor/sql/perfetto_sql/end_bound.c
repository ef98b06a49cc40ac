/*
** This file gives a slice scan a lower bound on ts for `ts + dur > x`: SQLite offers a virtual
** table only `column op value` terms, so `WHERE track_id = .. AND ts < y AND ts + dur > x` (the
** slices overlapping a window) read every slice of the track before y. A statement `SELECT ...
** FROM slice WHERE ... AND ts + dur > x ...` (or >=) is prepared with `AND ts >=
** __intrinsic_ts_floor('slice', (x))` after the term: x - MAX(dur) of the slices before x (all of
** them when ts is not sorted), which every row the term keeps passes (tables/vtab_ts_floor.c),
** so the answer is the same and the scan starts at the bound.
*/
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"

/* Whether token t of s is one that may stand in x at the top level of `ts + dur > x`: nothing
** binding no tighter than a comparison (another comparison, NOT, IS, IN, LIKE, BETWEEN, CASE,
** COLLATE, OR, ...), no parameter (x is written twice) and no function whose value changes
** between two calls. */
static int value_token(const char *s, psql_tok t, int depth) {
  static const char *const words[] = {"NOT",    "IS",        "IN",      "LIKE",    "GLOB",
                                      "MATCH",  "REGEXP",    "BETWEEN", "CASE",    "OR",
                                      "ESCAPE", "COLLATE",   "ISNULL",  "NOTNULL", "UNION",
                                      "EXCEPT", "INTERSECT", "WINDOW",  "OVER",    "HAVING"};
  static const char *const volatile_fns[] = {"random", "randomblob", "changes", "total_changes",
                                             "last_insert_rowid"};
  if (s[t.off] && strchr("?:@$", s[t.off])) return 0;
  if (trak__psql_is_one_of(s, t, volatile_fns, sizeof volatile_fns / sizeof *volatile_fns))
    return 0;
  if (depth) return 1;
  if (t.kind == PSQL_PUNCT && strchr("=<>!", s[t.off])) return 0;
  return !trak__psql_is_one_of(s, t, words, sizeof words / sizeof *words);
}

int trak__psql_end_bound(trak_processor *p, const char *s, size_t n, sqlite3_stmt **out) {
  psql_tok t = trak__psql_lex(s, n, 0);
  if (!trak__psql_is(s, t, "SELECT")) return 0;
  /* The first FROM at the top level, then `slice WHERE`. */
  int depth = 0;
  for (t = trak__psql_lex(s, n, t.off + t.len); t.kind != PSQL_EOF;
       t = trak__psql_lex(s, n, t.off + t.len)) {
    depth += trak__psql_is_char(s, t, '(') - trak__psql_is_char(s, t, ')');
    if (!depth && trak__psql_is(s, t, "FROM")) break;
  }
  psql_tok rel = trak__psql_lex(s, n, t.off + t.len);
  t = trak__psql_lex(s, n, rel.off + rel.len);
  if (rel.kind != PSQL_ID || rel.len != 5 || strncmp(s + rel.off, "slice", 5) ||
      !trak__psql_is(s, t, "WHERE") || !trak__psql_columnar_table(p->db, "slice", 5))
    return 0; /* (a temporary table named slice would hide the one the bound is taken from) */
  /* The WHERE's top level: terms joined by AND, one of them `ts + dur > x`. */
  size_t ins = 0, xs = 0;
  psql_tok prev = t;
  for (t = trak__psql_lex(s, n, t.off + t.len);
       t.kind != PSQL_EOF && !trak__psql_is_char(s, t, ';');
       prev = t, t = trak__psql_lex(s, n, t.off + t.len)) {
    if (!depth && (trak__psql_is(s, t, "GROUP") || trak__psql_is(s, t, "ORDER") ||
                   trak__psql_is(s, t, "LIMIT") || trak__psql_is(s, t, "WINDOW")))
      break;
    if (!depth && (trak__psql_is(s, t, "OR") || trak__psql_is(s, t, "BETWEEN") ||
                   trak__psql_is(s, t, "CASE") || trak__psql_is(s, t, "UNION") ||
                   trak__psql_is(s, t, "EXCEPT") || trak__psql_is(s, t, "INTERSECT")))
      return 0;
    depth += trak__psql_is_char(s, t, '(') - trak__psql_is_char(s, t, ')');
    if (depth < 0) return 0;
    if (ins || depth || !(trak__psql_is(s, prev, "WHERE") || trak__psql_is(s, prev, "AND")) ||
        t.kind != PSQL_ID || t.len != 2 || strncmp(s + t.off, "ts", 2))
      continue;
    psql_tok plus = trak__psql_lex(s, n, t.off + t.len),
             dur = trak__psql_lex(s, n, plus.off + plus.len);
    psql_tok op = trak__psql_lex(s, n, dur.off + dur.len);
    if (!trak__psql_is_char(s, plus, '+') || dur.kind != PSQL_ID || dur.len != 3 ||
        strncmp(s + dur.off, "dur", 3) || op.kind != PSQL_PUNCT ||
        !((op.len == 1 && s[op.off] == '>') || (op.len == 2 && !memcmp(s + op.off, ">=", 2))))
      continue;
    /* x: up to the next AND, clause or end at the top level. */
    size_t x = op.off + op.len, xe = x;
    int d = 0;
    psql_tok v = trak__psql_lex(s, n, x);
    for (; v.kind != PSQL_EOF && !trak__psql_is_char(s, v, ';');
         v = trak__psql_lex(s, n, v.off + v.len)) {
      if (!d && (trak__psql_is(s, v, "AND") || trak__psql_is(s, v, "GROUP") ||
                 trak__psql_is(s, v, "ORDER") || trak__psql_is(s, v, "LIMIT")))
        break;
      d += trak__psql_is_char(s, v, '(') - trak__psql_is_char(s, v, ')');
      if (d < 0 || !value_token(s, v, d)) return 0;
      xe = v.off + v.len;
    }
    if (xe == x || d) return 0;
    ins = xe, xs = x;
    t = prev = op; /* go on after the operator: x's tokens are checked as the WHERE's too */
  }
  if (!ins || depth) return 0;
  char *sql = sqlite3_mprintf("%.*s AND ts >= __intrinsic_ts_floor('slice', (%.*s))%.*s", (int)ins,
                              s, (int)(ins - xs), s + xs, (int)(n - ins), s + ins);
  int rc = sql ? sqlite3_prepare_v2(p->db, sql, -1, out, NULL) : SQLITE_NOMEM;
  sqlite3_free(sql);
  if (rc == SQLITE_OK && *out) return 1;
  sqlite3_finalize(*out);
  *out = NULL;
  return 0;
}
