/*
** This file answers "the first N rows of each group", written with a window function
**   SELECT a, b FROM (SELECT a, b, row_number() OVER (PARTITION BY p ORDER BY k DESC, id) AS rn
**                     FROM <relation>) WHERE rn <= N ORDER BY p, rn
** (rank() or dense_rank() for row_number(), which number alike when no two rows tie; `rn < N + 1`
** or, for N = 1, `rn = 1`; for N = 1 the outer order may be p alone)
** from the columns: SQLite's window functions copy every row of the relation into a temporary
** B-tree and number it (7,000 instructions a row); __intrinsic_top_per_group (tables/vtab_top.c)
** keeps each group's first N in one pass and the relation's rows are looked up by id. The order
** must end in the id, so that no two rows tie and the numbering is SQLite's; the outer ORDER BY
** must be (p, rn), a total order, so that the rows come out as SQLite's.
*/
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"
#include "processor/tables/vtab.h"

#define ITEMS_MAX 16 /* the most columns of either SELECT list */
#define KEYS_MAX 3   /* the most ORDER BY terms of the window (vtab_top.c's) */

/* A token that is an unquoted identifier (quoted ones are left to SQLite). */
static int plain_id(const char *s, psql_tok t) {
  return t.kind == PSQL_ID && (isalpha((unsigned char)s[t.off]) || s[t.off] == '_');
}

static int same_id(const char *s, psql_tok a, psql_tok b) {
  return a.len == b.len && !sqlite3_strnicmp(s + a.off, s + b.off, (int)a.len);
}

/* The statement's parts, as tokens of its text. */
typedef struct top_query {
  psql_tok outer[ITEMS_MAX], inner[ITEMS_MAX]; /* the SELECT lists' columns */
  size_t nouter, ninner;
  size_t rn_at; /* where the row_number() item is among the inner ones */
  psql_tok part, keys[KEYS_MAX], rn, rel;
  long long n; /* the N of rn <= N */
  int desc[KEYS_MAX], nkeys;
  size_t where_off; /* the outer WHERE: kept as it is, with what follows */
} top_query;

/* A lexer over one statement. */
typedef struct lex {
  const char *s;
  size_t n;
  psql_tok t; /* the current token */
} lex;

static void next(lex *l) {
  l->t = trak__psql_lex(l->s, l->n, l->t.off + l->t.len);
}
static int word(lex *l, const char *w) {
  if (!trak__psql_is(l->s, l->t, w)) return 0;
  next(l);
  return 1;
}
static int punct(lex *l, char c) {
  if (!trak__psql_is_char(l->s, l->t, c)) return 0;
  next(l);
  return 1;
}
static int ident(lex *l, psql_tok *out) {
  if (!plain_id(l->s, l->t)) return 0;
  *out = l->t;
  next(l);
  return 1;
}
/* The two-character operator `o`. */
static int op(lex *l, const char *o) {
  if (l->t.len != 2 || memcmp(l->s + l->t.off, o, 2)) return 0;
  next(l);
  return 1;
}
/* An optional ASC or DESC: 1 for DESC. */
static int direction(lex *l) {
  if (word(l, "DESC")) return 1;
  word(l, "ASC");
  return 0;
}
/* A positive integer literal up to `max` into *v. */
static int integer(lex *l, long long max, long long *v) {
  if (l->t.kind != PSQL_NUMBER || l->t.len > 9 || strspn(l->s + l->t.off, "0123456789") < l->t.len)
    return 0;
  *v = strtoll(l->s + l->t.off, NULL, 10);
  next(l);
  return *v <= max;
}

/* Whether token t names a numbering window function: row_number(), or rank() and dense_rank(),
** which number rows as row_number() does when the order ends in the id (no two rows tie). */
static int numbering(const char *s, psql_tok t) {
  return trak__psql_is(s, t, "row_number") || trak__psql_is(s, t, "rank") ||
         trak__psql_is(s, t, "dense_rank");
}

/* `row_number() OVER (PARTITION BY p ORDER BY k [ASC|DESC], ...) AS rn` (or rank(),
** dense_rank()). */
static int window_item(lex *l, top_query *q) {
  if (!numbering(l->s, l->t)) return 0;
  next(l);
  if (!punct(l, '(') || !punct(l, ')') || !word(l, "OVER") ||
      !punct(l, '(') || !word(l, "PARTITION") || !word(l, "BY") || !ident(l, &q->part) ||
      !word(l, "ORDER") || !word(l, "BY"))
    return 0;
  do {
    if (q->nkeys == KEYS_MAX || !ident(l, &q->keys[q->nkeys])) return 0;
    q->desc[q->nkeys++] = direction(l);
  } while (punct(l, ','));
  return punct(l, ')') && word(l, "AS") && ident(l, &q->rn);
}

/* Parses the statement's shape (see the file's comment). Returns 1 when it has it. */
static int parse(const char *s, size_t n, top_query *q) {
  lex l = {s, n, trak__psql_lex(s, n, 0)};
  if (!word(&l, "SELECT")) return 0;
  do {
    if (q->nouter == ITEMS_MAX || !ident(&l, &q->outer[q->nouter++])) return 0;
  } while (punct(&l, ','));
  if (!word(&l, "FROM") || !punct(&l, '(') || !word(&l, "SELECT")) return 0;
  int have_rn = 0;
  do {
    if (!have_rn && numbering(s, l.t)) {
      if (!window_item(&l, q)) return 0;
      q->rn_at = q->ninner, have_rn = 1;
    } else if (q->ninner == ITEMS_MAX || !ident(&l, &q->inner[q->ninner++])) {
      return 0;
    }
  } while (punct(&l, ','));
  if (!have_rn || !word(&l, "FROM") || !ident(&l, &q->rel) || !punct(&l, ')')) return 0;
  q->where_off = l.t.off;
  psql_tok rn, part, rn2;
  long long skip;
  /* rn <= N, rn < N + 1 or rn = 1: the first N of each group (SQLite applies the term itself) */
  if (!word(&l, "WHERE") || !ident(&l, &rn) || !same_id(s, rn, q->rn)) return 0;
  int less = 0, equal = 0;
  if (!op(&l, "<=") && !(less = punct(&l, '<')) && !(equal = punct(&l, '='))) return 0;
  if (!integer(&l, 10000, &q->n) || (equal && q->n != 1)) return 0;
  q->n -= less;
  if (q->n < 1 || !word(&l, "ORDER") || !word(&l, "BY") || !ident(&l, &part) ||
      !same_id(s, part, q->part))
    return 0;
  direction(&l);
  /* then rn, unless the groups keep one row each (the order by p alone is total then) */
  if (punct(&l, ',')) {
    if (!ident(&l, &rn2) || !same_id(s, rn2, q->rn)) return 0;
    direction(&l);
  } else if (q->n != 1) {
    return 0;
  }
  if (word(&l, "LIMIT") &&
      (!integer(&l, 1000000000, &skip) || (word(&l, "OFFSET") && !integer(&l, 1000000000, &skip))))
    return 0;
  punct(&l, ';');
  /* The partition column is a column of the subquery (the outer ORDER BY names it), none of
  ** the inner items is the row number's name, and the window's order ends in the id. */
  int part_item = 0;
  for (size_t i = 0; i < q->ninner; i++) {
    part_item |= same_id(s, q->inner[i], q->part);
    if (same_id(s, q->inner[i], q->rn)) return 0;
  }
  psql_tok last = q->keys[q->nkeys - 1];
  return l.t.kind == PSQL_EOF && part_item && last.len == 2 &&
         !sqlite3_strnicmp(s + last.off, "id", 2);
}

/* The columnar column relation `rel` calls `col` (an integer column: kinds up to VT_BOOLN but
** text and reals), the table in *tbl, the relation's rows in *f. NULL when not so. */
static const vt_col *int_column(sqlite3 *db, const char *s, psql_tok rel, psql_tok col,
                                const vt_table **tbl, psql_row_filter *f) {
  char name[64];
  *tbl = trak__psql_columnar_column(db, s + rel.off, rel.len, s + col.off, col.len, name,
                                    sizeof name, f);
  const vt_col *c = trak__vt_col_named(*tbl, name);
  return c && c->kind <= VT_BOOLN && c->kind != VT_F64 && c->kind != VT_STR ? c : NULL;
}

/* The rewritten statement, or NULL when a column is not a columnar integer column. */
static char *rewrite(sqlite3 *db, const char *s, const top_query *q) {
  const vt_table *tbl = NULL, *t2 = NULL;
  psql_row_filter f, f2;
  psql_tok id_tok = q->keys[q->nkeys - 1];
  const vt_col *part = int_column(db, s, q->rel, q->part, &tbl, &f);
  const vt_col *id = int_column(db, s, q->rel, id_tok, &t2, &f2);
  int ok = part && id && t2 == tbl && id->kind == VT_ID;
  sqlite3_str *ord = sqlite3_str_new(db);
  for (int i = 0; ok && i < q->nkeys; i++) {
    const vt_col *k = int_column(db, s, q->rel, q->keys[i], &t2, &f2);
    ok = k && t2 == tbl;
    if (ok) sqlite3_str_appendf(ord, "%s%s%s", i ? "," : "", k->name, q->desc[i] ? " DESC" : "");
  }
  char *order = sqlite3_str_finish(ord);
  if (!ok || !order) {
    sqlite3_free(order);
    return NULL;
  }
  sqlite3_str *b = sqlite3_str_new(db);
  sqlite3_str_appendall(b, "SELECT ");
  for (size_t i = 0; i < q->nouter; i++)
    sqlite3_str_appendf(b, "%s%.*s", i ? ", " : "", (int)q->outer[i].len, s + q->outer[i].off);
  sqlite3_str_appendall(b, " FROM (SELECT ");
  for (size_t i = 0, j = 0; i <= q->ninner; i++) {
    const char *sep = i ? ", " : "";
    if (i == q->rn_at) {
      sqlite3_str_appendf(b, "%s__top_rn AS %.*s", sep, (int)q->rn.len, s + q->rn.off);
    } else {
      psql_tok c = q->inner[j++];
      sqlite3_str_appendf(b, "%s%.*s.%.*s AS %.*s", sep, (int)q->rel.len, s + q->rel.off,
                          (int)c.len, s + c.off, (int)c.len, s + c.off);
    }
  }
  sqlite3_str_appendf(b, " FROM __intrinsic_top_per_group(%Q, %Q, %Q, %d", tbl->name, part->name,
                      order, (int)q->n);
  if (f.set) sqlite3_str_appendf(b, ", '%q>=%lld'", f.col, f.lo);
  sqlite3_str_appendf(b, ") JOIN %.*s ON %.*s.%.*s = __top_id) %s", (int)q->rel.len, s + q->rel.off,
                      (int)q->rel.len, s + q->rel.off, (int)id_tok.len, s + id_tok.off,
                      s + q->where_off);
  sqlite3_free(order);
  return sqlite3_str_finish(b);
}

int trak__psql_window_top(trak_processor *p, const char *s, size_t n, sqlite3_stmt **out) {
  top_query q = {0};
  char *text = strndup(s, n); /* the statement alone, NUL-terminated for the rewrite's tail */
  if (!text || !parse(text, n, &q)) {
    free(text);
    return 0;
  }
  sqlite3_stmt *orig = NULL, *st = NULL;
  char *sql = NULL;
  int ok = sqlite3_prepare_v2(p->db, text, (int)n, &orig, NULL) == SQLITE_OK && orig &&
           (sql = rewrite(p->db, text, &q)) &&
           sqlite3_prepare_v2(p->db, sql, -1, &st, NULL) == SQLITE_OK && st &&
           sqlite3_column_count(st) == sqlite3_column_count(orig);
  for (int i = 0; ok && i < sqlite3_column_count(st); i++)
    ok = !strcmp(sqlite3_column_name(st, i), sqlite3_column_name(orig, i));
  sqlite3_finalize(orig);
  sqlite3_free(sql);
  free(text);
  if (!ok) {
    sqlite3_finalize(st);
    return 0;
  }
  *out = st;
  return 1;
}
