/*
** This file answers whole-table aggregates, `SELECT COUNT(*), SUM(dur), ... FROM <relation>`, from
** the columns of a columnar table. SQLite steps a virtual table one row at a time (xNext, then
** xColumn per value: about 430 instructions a row for COUNT(*), SUM(dur) over thread_state, 1 s
** of CPU for its 15 M rows at 10 M sched events) and offers a virtual table no way to answer an
** aggregate; the statement is replaced by one call per aggregate of `__intrinsic_row_count` or
** `__intrinsic_col_agg` (tables/vtab.c), each column named as SQLite names the original's, and
** `SELECT key, COUNT(*), AVG(value), ... FROM <relation> GROUP BY key [ORDER BY ... LIMIT ...]`
** (or two keys, `GROUP BY a, b`, the keys also by their items' positions) by
** `__intrinsic_col_group` (SQLite then orders the groups, not the rows). The relation is a columnar table or a
** view that only renames its columns (the prelude's thread_state, sched, ftrace_event, ...),
** followed to the table it reads.
*/
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"
#include "processor/tables/vtab.h"

#define AGG_MAX 8    /* the most aggregates a rewritten statement may have (and a key) */
#define VIEW_DEPTH 4 /* the most views followed to a table */

/* One item of the statement: COUNT(*) (no column), COUNT, SUM, MIN, MAX or AVG of a column, or
** the GROUP BY column itself (fn NULL). */
typedef struct agg_item {
  const char *fn; /* "count", "sum", "min", "max", "avg"; NULL: the key */
  psql_tok col;   /* the column (len 0: COUNT(*)) */
} agg_item;

typedef psql_row_filter row_filter;

#define WHERE_MAX 4 /* the most WHERE terms (__intrinsic_col_group's) */

/* One term of the statement's WHERE: `column op value` (a BETWEEN gives two), op as the scan's
** plan spells it (= > g < l k b), the value's text [off, end); or `extract_arg(column, 'key') op
** literal` (key: the string token; len 0 for a plain column term). */
typedef struct where_term {
  psql_tok col, key;
  char op;
  size_t off, end;
} where_term;

/* A token that is an unquoted identifier (quoted ones are left to SQLite). */
static int is_plain_id(const char *s, psql_tok t) {
  return t.kind == PSQL_ID && (isalpha((unsigned char)s[t.off]) || s[t.off] == '_');
}

/* Whether token `t` of `s` spells the `n` bytes `w`, compared without case. */
static int tok_eq(const char *s, psql_tok t, const char *w, size_t n) {
  return t.len == n && !sqlite3_strnicmp(s + t.off, w, (int)n);
}

/* The object `name` (n bytes) names in the main schema, when no temporary object of that name
** stands in front of it: 1 with *is_view (whether it is a view) and its sql (sqlite3_malloc'ed)
** in *sql, else 0. */
static int schema_object(sqlite3 *db, const char *name, size_t n, int *is_view, char **sql) {
  static const char q[] =
      "SELECT type = 'view', sql FROM main.sqlite_schema WHERE name = ?1 COLLATE NOCASE"
      " AND type IN ('table', 'view')"
      " AND NOT EXISTS (SELECT 1 FROM temp.sqlite_schema WHERE name = ?1 COLLATE NOCASE)";
  sqlite3_stmt *st = NULL;
  int found = sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK &&
              sqlite3_bind_text(st, 1, name, (int)n, SQLITE_STATIC) == SQLITE_OK &&
              sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 1);
  if (found) {
    *is_view = sqlite3_column_int(st, 0);
    *sql = sqlite3_mprintf("%s", sqlite3_column_text(st, 1));
    found = *sql != NULL;
  }
  sqlite3_finalize(st);
  return found;
}

/* The columnar table whose SQL name is the `n` bytes at `name`, or NULL. */
static const vt_table *columnar_table(const char *name, size_t n) {
  for (size_t i = 0; trak__vt_table(i); i++)
    if (strlen(trak__vt_table(i)->name) == n &&
        !sqlite3_strnicmp(trak__vt_table(i)->name, name, (int)n))
      return trak__vt_table(i);
  return NULL;
}

/* In view text `v` (`CREATE VIEW name AS SELECT items FROM source [WHERE column >= integer]`,
** nothing else: no DISTINCT, other WHERE, join, function call or subquery, so it has one row per
** source row it keeps; the WHERE in *f, else f->set 0), the source's name
** in *src and, when `col` (cn bytes; cn 0: none asked) is an output column made by a source
** column (`*`, `column` or `column AS col`), that column's name in *scol, *sn bytes. Returns 1,
** or 0 for any other view or column. */
static int view_source(const char *v, const char *col, size_t cn, psql_tok *src, const char **scol,
                       size_t *sn, row_filter *f) {
  static const char *const head[] = {"CREATE", "VIEW", NULL, "AS", "SELECT"};
  size_t n = strlen(v), pos = 0;
  psql_tok t = {PSQL_EOF, 0, 0};
  for (size_t i = 0; i < sizeof head / sizeof *head; i++, pos = t.off + t.len) {
    t = trak__psql_lex(v, n, pos);
    if (t.kind != PSQL_ID || (head[i] && !trak__psql_is(v, t, head[i]))) return 0;
  }
  int found = cn == 0;
  *scol = col, *sn = cn;
  for (int item = 0;; item++) { /* one item: its tokens up to a `,` or FROM */
    psql_tok first = trak__psql_lex(v, n, pos), tok[3] = {{0}};
    if (trak__psql_is(v, first, "DISTINCT") || trak__psql_is(v, first, "ALL")) return 0;
    size_t k = 0;
    for (t = first; !trak__psql_is_char(v, t, ',') && !trak__psql_is(v, t, "FROM");
         t = trak__psql_lex(v, n, t.off + t.len), k++) {
      if (t.kind == PSQL_EOF || trak__psql_is_char(v, t, '(')) return 0;
      tok[0] = tok[1], tok[1] = tok[2], tok[2] = t; /* the item's last three tokens */
    }
    pos = t.off + t.len;
    if (k == 1 && trak__psql_is_char(v, tok[2], '*')) {
      if (item || !trak__psql_is(v, t, "FROM")) return 0; /* `*` alone: every source column */
      found = 1;
    } else if (k == 1 || (k >= 3 && trak__psql_is(v, tok[1], "AS"))) {
      if (!is_plain_id(v, tok[2])) return 0;
      if (!found && tok_eq(v, tok[2], col, cn)) {
        /* A bare column, or `column AS name`; an expression (`ts + dur AS ts_end`) is not one. */
        psql_tok c = k == 1 ? tok[2] : tok[0];
        if (k != 1 && (k != 3 || !is_plain_id(v, c))) return 0;
        *scol = v + c.off, *sn = c.len, found = 1;
      }
    } else {
      return 0;
    }
    if (trak__psql_is(v, t, "FROM")) break;
  }
  *src = trak__psql_lex(v, n, pos);
  t = trak__psql_lex(v, n, src->off + src->len);
  f->set = 0;
  if (trak__psql_is(v, t, "WHERE")) { /* `WHERE column >= integer` */
    psql_tok c = trak__psql_lex(v, n, t.off + t.len), op = trak__psql_lex(v, n, c.off + c.len);
    psql_tok lo = trak__psql_lex(v, n, op.off + op.len);
    if (!is_plain_id(v, c) || c.len >= sizeof f->col || op.len != 2 ||
        memcmp(v + op.off, ">=", 2) || lo.kind != PSQL_NUMBER ||
        strspn(v + lo.off, "0123456789") < lo.len || lo.len > 18)
      return 0;
    memcpy(f->col, v + c.off, c.len);
    f->col[c.len] = 0;
    f->lo = strtoll(v + lo.off, NULL, 10);
    f->set = 1;
    t = trak__psql_lex(v, n, lo.off + lo.len);
  }
  if (trak__psql_is_char(v, t, ';')) t = trak__psql_lex(v, n, t.off + t.len);
  return is_plain_id(v, *src) && t.kind == PSQL_EOF && found;
}

const vt_table *trak__psql_columnar_table(sqlite3 *db, const char *name, size_t n) {
  int is_view = 0;
  char *sql = NULL;
  const vt_table *tbl = NULL;
  if (!schema_object(db, name, n, &is_view, &sql)) return NULL;
  char *expect = sqlite3_mprintf("CREATE VIRTUAL TABLE %.*s USING trak_columnar", (int)n, name);
  if (!is_view && expect && !sqlite3_stricmp(expect, sql)) tbl = columnar_table(name, n);
  sqlite3_free(expect);
  sqlite3_free(sql);
  return tbl;
}

/* Whether `tbl` has an integer column `name` a view's WHERE may compare (not text, real, args). */
static int filter_column(const vt_table *tbl, const char *name) {
  for (int j = 0; j < tbl->ncols; j++)
    if (!sqlite3_stricmp(tbl->cols[j].name, name))
      return tbl->cols[j].kind <= VT_U32N || tbl->cols[j].kind == VT_BOOLN;
  return 0;
}

/* The columnar table relation `rel` (rn bytes) reads, following views of view_source's shape,
** and in *out (cap bytes, NUL-terminated) the name its column `col` (cn bytes; 0: none asked)
** has there; in *f the rows it keeps (one view's WHERE on an integer column of the table, which
** that view must read directly). Returns the table, or NULL when the relation is anything else. */
static const vt_table *resolve(sqlite3 *db, const char *rel, size_t rn, const char *col, size_t cn,
                               char *out, size_t cap, int depth, row_filter *f) {
  int is_view = 0;
  char *sql = NULL;
  const vt_table *tbl = NULL;
  if (depth > VIEW_DEPTH || cn >= cap || !schema_object(db, rel, rn, &is_view, &sql)) return NULL;
  if (!is_view) {
    tbl = trak__psql_columnar_table(db, rel, rn);
    if (tbl && f->set && !filter_column(tbl, f->col)) tbl = NULL;
    memmove(out, col, cn);
    out[cn] = 0;
  } else {
    psql_tok src;
    const char *scol;
    size_t sn;
    row_filter vf;
    /* A filtering view is the last one followed (its WHERE names the table's columns). */
    if (view_source(sql, col, cn, &src, &scol, &sn, &vf) && sn < cap && !f->set) {
      char name[64]; /* the source's column name outlives neither `sql` nor the caller's */
      memcpy(name, scol, sn < sizeof name ? sn : 0);
      if (vf.set) *f = vf;
      if (sn < sizeof name)
        tbl = resolve(db, sql + src.off, src.len, name, sn, out, cap, depth + 1, f);
    }
  }
  sqlite3_free(sql);
  return tbl;
}

const vt_table *trak__psql_columnar_column(sqlite3 *db, const char *rel, size_t rn, const char *col,
                                           size_t cn, char *out, size_t cap, psql_row_filter *f) {
  f->set = 0;
  return resolve(db, rel, rn, col, cn, out, cap, 0, f);
}

/* Whether SQLite's sum() and avg() add in row order, as the columns' sums do: before 3.43 they
** added doubles plainly; later versions compensate (Kahan-Babuska-Neumaier), not copied here. */
static int plain_sums(void) {
  return sqlite3_libversion_number() < 3043000;
}

/* Whether column `c` answers aggregate `fn`: COUNT any column of integers, text or reals; SUM,
** MIN, MAX integer ones, and reals where the sum is SQLite's (plain_sums; MIN and MAX of reals
** too, keeping the first of equal values as SQLite does); AVG those with plain sums (SQLite's
** text order is its own). */
static int col_answers(const vt_col *c, const char *fn) {
  int avg = !strcmp(fn, "avg");
  switch (c->kind) {
  case VT_ID:
  case VT_I64:
  case VT_I64N:
  case VT_U32:
  case VT_U32N:
  case VT_BOOLN:
  case VT_NUL:
    return !avg || plain_sums();
  case VT_F64:
    return !strcmp(fn, "count") || (!c->calc && plain_sums());
  case VT_STR:
    return !strcmp(fn, "count");
  default:
    return 0;
  }
}

/* One item of the SELECT list from `pos`: `FN(*)` (COUNT only), `FN(column)` with FN one of
** COUNT, SUM, MIN, MAX, AVG, or a bare column (fn NULL: the GROUP BY key), then an optional
** `[AS] alias`. Returns the offset after it, or 0. */
static size_t parse_item(const char *s, size_t n, size_t pos, agg_item *it) {
  static const char *const fns[] = {"count", "sum", "min", "max", "avg"};
  psql_tok f = trak__psql_lex(s, n, pos), t = trak__psql_lex(s, n, f.off + f.len);
  it->fn = NULL;
  for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
    if (trak__psql_is(s, f, fns[i])) it->fn = fns[i];
  if (!trak__psql_is_char(s, t, '(')) { /* a bare column */
    it->fn = NULL, it->col = f;
    pos = f.off + f.len;
  } else {
    it->col = trak__psql_lex(s, n, t.off + t.len);
    if (trak__psql_is_char(s, it->col, '*') && it->fn && it->fn[0] == 'c')
      it->col.len = 0;
    else if (!it->fn)
      return 0;
    t = trak__psql_lex(s, n, it->col.off + (it->col.len ? it->col.len : 1));
    if (!trak__psql_is_char(s, t, ')')) return 0;
    pos = t.off + t.len;
  }
  if (it->col.len && !is_plain_id(s, it->col)) return 0;
  t = trak__psql_lex(s, n, pos);
  int as = trak__psql_is(s, t, "AS");
  if (as) t = trak__psql_lex(s, n, t.off + t.len);
  if (!as && (trak__psql_is(s, t, "FROM") || trak__psql_is_char(s, t, ','))) return pos;
  return is_plain_id(s, t) ? t.off + t.len : 0;
}

/* The columnar table `rel` (rn bytes) reads and its column that `col` (cn bytes) names there, in
** *c; answering aggregate `fn` (NULL: a GROUP BY key: integers or text, not an ascending
** column); the rows `rel` keeps in *f. NULL when not so. */
static const vt_table *item_column(sqlite3 *db, const char *rel, size_t rn, const char *col,
                                   size_t cn, const char *fn, const vt_col **c, row_filter *f) {
  char name[64];
  f->set = 0;
  const vt_table *tbl = resolve(db, rel, rn, col, cn, name, sizeof name, 0, f);
  *c = NULL;
  for (int j = 0; tbl && cn && j < tbl->ncols; j++)
    if (!sqlite3_stricmp(tbl->cols[j].name, name)) *c = &tbl->cols[j];
  if (!tbl || (cn && !*c)) return NULL;
  vt_kind k = *c ? (*c)->kind : VT_ID; /* a key: integers (not always NULL) or text */
  int key_ok = *c && ((col_answers(*c, "min") && k != VT_NUL && k != VT_F64) || k == VT_STR);
  if (*c && !(fn ? col_answers(*c, fn) : key_ok)) return NULL;
  /* An ascending key (id, ts) has about a group per row: SQLite's own GROUP BY streams them. */
  if (*c && !fn && (*c)->sorted) return NULL;
  return tbl;
}

/* The end of the value that starts at `pos` in the WHERE clause ending at `end`: the next `AND`
** outside parentheses, or `end`. 0 when the value is empty or holds, outside parentheses, what
** binds no tighter than a comparison (another comparison, NOT, IS, IN, LIKE, CASE, COLLATE,
** ESCAPE, OR, ...): then `column op value` would not be the statement's parse. */
static size_t value_end(const char *s, size_t pos, size_t end, size_t *next) {
  static const char *const words[] = {"NOT",    "IS",      "IN",      "LIKE",    "GLOB",
                                      "MATCH",  "REGEXP",  "BETWEEN", "CASE",    "OR",
                                      "ESCAPE", "COLLATE", "ISNULL",  "NOTNULL", "SELECT"};
  int depth = 0;
  size_t last = pos;
  psql_tok t = trak__psql_lex(s, end, pos);
  for (; t.kind != PSQL_EOF; t = trak__psql_lex(s, end, t.off + t.len)) {
    if (!depth && trak__psql_is(s, t, "AND")) break;
    depth += trak__psql_is_char(s, t, '(') - trak__psql_is_char(s, t, ')');
    if (depth < 0) return 0;
    if (!depth && t.kind == PSQL_PUNCT && strchr("=<>!", s[t.off])) return 0;
    /* A name that __intrinsic_col_group's own columns might take (a view's column `k`; any
    ** short or quoted name). */
    if (t.kind == PSQL_ID && ((t.len <= 2 && strchr("kKaAwW", s[t.off])) || !is_plain_id(s, t)))
      return 0;
    static const char *const own[] = {"tbl", "key", "spec", "filter", "wspec"};
    for (size_t w = 0; w < sizeof own / sizeof *own; w++)
      if (trak__psql_is(s, t, own[w])) return 0;
    for (size_t w = 0; !depth && w < sizeof words / sizeof *words; w++)
      if (trak__psql_is(s, t, words[w])) return 0;
    last = t.off + t.len;
  }
  *next = t.kind == PSQL_EOF ? end : t.off + t.len;
  return last > pos && !depth ? last : 0;
}

/* Whether [pos, end) of `s` is one literal that has no affinity and is no NULL or blob: a string
** ('...') or a number with an optional sign. */
static int plain_literal(const char *s, size_t pos, size_t end) {
  psql_tok t = trak__psql_lex(s, end, pos);
  if (t.kind == PSQL_PUNCT && t.len == 1 && (s[t.off] == '-' || s[t.off] == '+'))
    t = trak__psql_lex(s, end, t.off + t.len);
  else if (t.kind == PSQL_STRING && s[t.off] == '\'')
    return trak__psql_lex(s, end, t.off + t.len).kind == PSQL_EOF;
  return t.kind == PSQL_NUMBER && trak__psql_lex(s, end, t.off + t.len).kind == PSQL_EOF;
}

/* `extract_arg ( column , 'key' )` at `c`: the column in *col, the key in *key; returns the
** token after the `)`, or a PSQL_EOF token when it is not so. */
static psql_tok arg_call(const char *s, size_t end, psql_tok c, psql_tok *col, psql_tok *key) {
  psql_tok eof = {PSQL_EOF, end, 0}, t = trak__psql_lex(s, end, c.off + c.len);
  if (!trak__psql_is(s, c, "extract_arg") || !trak__psql_is_char(s, t, '(')) return eof;
  *col = trak__psql_lex(s, end, t.off + t.len);
  t = trak__psql_lex(s, end, col->off + col->len);
  *key = trak__psql_lex(s, end, t.off + t.len);
  psql_tok close = trak__psql_lex(s, end, key->off + key->len);
  if (!is_plain_id(s, *col) || !trak__psql_is_char(s, t, ',') || key->kind != PSQL_STRING ||
      s[key->off] != '\'' || !trak__psql_is_char(s, close, ')'))
    return eof;
  return trak__psql_lex(s, end, close.off + close.len);
}

/* Parses WHERE's text [pos, end) into terms `column op value` joined by AND (op one of = == < <=
** > >= GLOB LIKE, or BETWEEN v AND w), or `extract_arg(column, 'key') op literal` (op one of = ==
** < <= > >=, plain_literal). Returns how many, 0 for anything else. */
static size_t parse_where(const char *s, size_t pos, size_t end, where_term *w) {
  size_t k = 0;
  while (pos < end) {
    psql_tok c = trak__psql_lex(s, end, pos), op = trak__psql_lex(s, end, c.off + c.len);
    psql_tok key = {PSQL_EOF, 0, 0};
    if (c.kind == PSQL_EOF || !is_plain_id(s, c) || k == WHERE_MAX) return 0;
    if (trak__psql_is_char(s, op, '(')) { /* extract_arg(column, 'key') */
      op = arg_call(s, end, c, &c, &key);
      if (op.kind != PSQL_PUNCT) return 0;
    }
    char o = 0;
    if (op.kind == PSQL_PUNCT) {
      size_t l = op.len;
      const char *x = s + op.off;
      o = l == 1 && *x == '='             ? '='
          : l == 2 && !memcmp(x, "==", 2) ? '='
          : l == 1 && *x == '<'           ? '<'
          : l == 2 && !memcmp(x, "<=", 2) ? 'l'
          : l == 1 && *x == '>'           ? '>'
          : l == 2 && !memcmp(x, ">=", 2) ? 'g'
                                          : 0;
    } else if (trak__psql_is(s, op, "GLOB")) {
      o = 'b';
    } else if (trak__psql_is(s, op, "LIKE")) {
      o = 'k';
    } else if (trak__psql_is(s, op, "BETWEEN")) {
      o = 'B';
    }
    if (!o) return 0;
    size_t next = 0, v = op.off + op.len, ve = value_end(s, v, end, &next);
    if (!ve || (key.len && (!plain_literal(s, v, ve) || strchr("Bkb", o)))) return 0;
    w[k++] = (where_term){c, key, o == 'B' ? 'g' : o, v, ve};
    if (o == 'B') { /* BETWEEN v AND w: the AND was the value's end */
      if (k == WHERE_MAX || next >= end) return 0;
      size_t v2 = next;
      ve = value_end(s, v2, end, &next);
      if (!ve) return 0;
      w[k++] = (where_term){c, key, 'l', v2, ve};
    }
    pos = next;
  }
  return k;
}

/* The SELECT answering `s`'s items (k; `key` the GROUP BY column, len 0: none; `key2` a second
** one, len 0: none) over `rel` from the columns, named as `orig` (the statement as SQLite
** prepared it) names them; NULL when an item can't be answered so. sqlite3_free it. */
static char *rewrite(trak_processor *p, const char *s, const agg_item *items, size_t k,
                     psql_tok rel, psql_tok key, psql_tok key2, const where_term *w, size_t nw,
                     sqlite3_stmt *orig) {
  sqlite3 *db = p->db;
  size_t nvals = 0; /* __intrinsic_col_group's WHERE values */
  const vt_table *tbl = NULL, *ti[AGG_MAX + 1] = {NULL};
  const vt_col *kc = NULL, *kc2 = NULL, *c[AGG_MAX + 2] = {NULL};
  row_filter f = {0}, fi; /* the relation's rows (each item's are the same) */
  int ok = (size_t)sqlite3_column_count(orig) == k && k <= AGG_MAX + 2;
  if (ok && key.len) {
    tbl = item_column(db, s + rel.off, rel.len, s + key.off, key.len, NULL, &kc, &f);
    ok = tbl != NULL;
  }
  if (ok && key2.len) { /* the second key: the same table, the same rows */
    ok = item_column(db, s + rel.off, rel.len, s + key2.off, key2.len, NULL, &kc2, &fi) == tbl &&
         fi.set == f.set && (!f.set || (!strcmp(fi.col, f.col) && fi.lo == f.lo));
  }
  int text_key = (kc && kc->kind == VT_STR) || (kc2 && kc2->kind == VT_STR);
  /* Each aggregate's table and column first: a filtering view, found on the way, groups. */
  for (size_t i = 0; ok && i < k; i++) {
    const agg_item *it = &items[i];
    if (!it->fn) { /* a key itself */
      ok = (key.len && tok_eq(s, it->col, s + key.off, key.len)) ||
           (key2.len && tok_eq(s, it->col, s + key2.off, key2.len));
      continue;
    }
    ti[i] = item_column(db, s + rel.off, rel.len, s + it->col.off, it->col.len, it->fn, &c[i], &fi);
    if (!tbl) tbl = ti[i], f = fi;
    ok = ti[i] && ti[i] == tbl;
    /* A text key's groups of one text under two string ids are folded, adding a real sum in
    ** another order than SQLite's: only integer sums by such a key. */
    if (ok && text_key)
      ok = strcmp(it->fn, "avg") && (!c[i] || c[i]->kind != VT_F64 || !strcmp(it->fn, "count"));
  }
  /* Each WHERE term's column, of the same table; text only with patterns and ranges. */
  const vt_col *wc[WHERE_MAX] = {NULL};
  for (size_t i = 0; ok && i < nw; i++) {
    row_filter wf;
    const vt_table *wt =
        item_column(db, s + rel.off, rel.len, s + w[i].col.off, w[i].col.len, "count", &wc[i], &wf);
    if (!tbl) tbl = wt, f = wf;
    ok = wt && wt == tbl && wf.set == f.set && (!f.set || !strcmp(wf.col, f.col)) &&
         wc[i]->kind != VT_F64 && wc[i]->kind <= VT_BOOLN && wc[i]->kind != VT_NUL &&
         (wc[i]->kind == VT_STR ? w[i].op != '=' : w[i].op != 'k' && w[i].op != 'b');
    /* extract_arg of a 32-bit id column (arg_set_id), the built-in function: two values */
    if (ok && w[i].key.len)
      ok = (wc[i]->kind == VT_U32 || wc[i]->kind == VT_U32N) && !wc[i]->calc &&
           !trak__psql_function_defined(p, "extract_arg");
    nvals += 1 + (w[i].key.len > 0);
  }
  ok = ok && nvals <= WHERE_MAX;
  /* With a key, a filtering view or WHERE terms, one __intrinsic_col_group; else a call per
  ** item. */
  int grouped = key.len || f.set || nw;
  sqlite3_str *q = sqlite3_str_new(db), *spec = sqlite3_str_new(db);
  sqlite3_str_appendf(q, "SELECT ");
  for (size_t i = 0, j = 0; ok && i < k; i++) {
    const char *name = sqlite3_column_name(orig, (int)i);
    const char *fn = items[i].fn, *sep = i ? ", " : "";
    ok = name && j < 8;
    if (!ok) break;
    if (!fn) {
      int second = !(key.len && tok_eq(s, items[i].col, s + key.off, key.len));
      sqlite3_str_appendf(q, "%sk%s AS \"%w\"", sep, second ? "1" : "", name);
    } else if (grouped) {
      sqlite3_str_appendf(spec, "%s%s:%s", j ? "," : "", fn, c[i] ? c[i]->name : "");
      sqlite3_str_appendf(q, "%sa%d AS \"%w\"", sep, (int)j++, name);
    } else if (c[i]) {
      sqlite3_str_appendf(q, "%s__intrinsic_col_agg(%Q, '%s', %Q) AS \"%w\"", sep, tbl->name, fn,
                          c[i]->name, name);
    } else {
      sqlite3_str_appendf(q, "%s__intrinsic_row_count(%Q) AS \"%w\"", sep, tbl->name, name);
    }
  }
  char *sp = sqlite3_str_finish(spec);
  if (ok && grouped) {
    sqlite3_str_appendf(q, " FROM __intrinsic_col_group(%Q, '%q%s%q', %Q", tbl->name,
                        kc ? kc->name : "", kc2 ? "," : "", kc2 ? kc2->name : "", sp);
    if (f.set)
      sqlite3_str_appendf(q, ", '%q>=%lld'", f.col, f.lo);
    else if (nw)
      sqlite3_str_appendf(q, ", NULL");
    for (size_t i = 0; i < nw; i++)
      sqlite3_str_appendf(q, "%s%q:%s%c", i ? "," : ", '", wc[i]->name, w[i].key.len ? "@" : "",
                          w[i].op);
    if (nw) sqlite3_str_appendf(q, "'");
    for (size_t i = 0; i < nw; i++) {
      if (w[i].key.len) sqlite3_str_appendf(q, ", %.*s", (int)w[i].key.len, s + w[i].key.off);
      sqlite3_str_appendf(q, ", (%.*s)", (int)(w[i].end - w[i].off), s + w[i].off);
    }
    sqlite3_str_appendf(q, ")");
  }
  sqlite3_free(sp);
  char *sql = sqlite3_str_finish(q);
  if (!ok) sqlite3_free(sql);
  return ok ? sql : NULL;
}

/* Whether `tail` (n bytes: what follows `GROUP BY key`) orders and limits the groups the same when
** it follows the rewritten statement and `GROUP BY k`: made only of ORDER BY, LIMIT, OFFSET,
** ASC, DESC, NULLS FIRST/LAST, commas, integers and plain identifiers naming a result column of
** `orig` (whose names are all distinct), so that each term names in both statements the same
** column: an alias of the original's is its column; a bare key column is the key; a quoted
** name or anything else that could read the relation's rows is refused. */
static int order_tail(const char *tail, size_t n, sqlite3_stmt *orig) {
  static const char *const words[] = {"ORDER", "BY",    "LIMIT", "OFFSET", "ASC",
                                      "DESC",  "NULLS", "FIRST", "LAST"};
  int cols = sqlite3_column_count(orig);
  for (int i = 0; i < cols; i++)
    for (int j = 0; j < i; j++)
      if (!sqlite3_stricmp(sqlite3_column_name(orig, i), sqlite3_column_name(orig, j))) return 0;
  psql_tok t = trak__psql_lex(tail, n, 0);
  if (!trak__psql_is(tail, t, "ORDER") && !trak__psql_is(tail, t, "LIMIT")) return 0;
  for (; t.kind != PSQL_EOF; t = trak__psql_lex(tail, n, t.off + t.len)) {
    int ok = trak__psql_is_char(tail, t, ',') ||
             (t.kind == PSQL_NUMBER && strspn(tail + t.off, "0123456789") >= t.len);
    for (size_t w = 0; !ok && w < sizeof words / sizeof *words; w++)
      ok = trak__psql_is(tail, t, words[w]);
    for (int i = 0; !ok && is_plain_id(tail, t) && i < cols; i++)
      ok = tok_eq(tail, t, sqlite3_column_name(orig, i), strlen(sqlite3_column_name(orig, i)));
    if (!ok) return 0;
  }
  return 1;
}

int trak__psql_column_aggregates(trak_processor *p, const char *s, size_t n, sqlite3_stmt **out) {
  agg_item items[AGG_MAX + 2];
  size_t k = 0, pos = 0;
  psql_tok t = trak__psql_lex(s, n, pos), key = {PSQL_EOF, 0, 0}, key2 = key;
  if (!trak__psql_is(s, t, "SELECT")) return 0;
  for (pos = t.off + t.len;; k++) {
    if (k == AGG_MAX + 2 || !(pos = parse_item(s, n, pos, &items[k]))) return 0;
    t = trak__psql_lex(s, n, pos);
    pos = t.off + t.len;
    if (trak__psql_is(s, t, "FROM")) break;
    if (!trak__psql_is_char(s, t, ',')) return 0;
  }
  k++;
  psql_tok rel = trak__psql_lex(s, n, pos);
  if (!is_plain_id(s, rel)) return 0; /* a quoted name: left to SQLite */
  t = trak__psql_lex(s, n, rel.off + rel.len);
  where_term where[WHERE_MAX];
  size_t nw = 0;
  if (trak__psql_is(s, t, "WHERE")) { /* up to GROUP BY, ORDER BY, LIMIT or the end */
    size_t at = t.off + t.len, wend = at;
    int depth = 0;
    for (t = trak__psql_lex(s, n, at); t.kind != PSQL_EOF && !trak__psql_is_char(s, t, ';');
         t = trak__psql_lex(s, n, t.off + t.len)) {
      depth += trak__psql_is_char(s, t, '(') - trak__psql_is_char(s, t, ')');
      if (!depth && (trak__psql_is(s, t, "GROUP") || trak__psql_is(s, t, "ORDER") ||
                     trak__psql_is(s, t, "LIMIT")))
        break;
      wend = t.off + t.len;
    }
    if (!(nw = parse_where(s, at, wend, where))) return 0;
  }
  if (trak__psql_is(s, t, "GROUP")) { /* one or two keys: columns, or items' positions */
    t = trak__psql_lex(s, n, t.off + t.len);
    if (!trak__psql_is(s, t, "BY")) return 0;
    for (int i = 0; i < 2; i++) {
      psql_tok g = trak__psql_lex(s, n, t.off + t.len);
      t = trak__psql_lex(s, n, g.off + g.len);
      if (g.kind == PSQL_NUMBER && strspn(s + g.off, "0123456789") >= g.len && g.len < 4) {
        long at = strtol(s + g.off, NULL, 10); /* GROUP BY N: item N, a bare column */
        if (at < 1 || (size_t)at > k || items[at - 1].fn) return 0;
        g = items[at - 1].col;
      }
      if (!is_plain_id(s, g)) return 0;
      *(i ? &key2 : &key) = g;
      if (!trak__psql_is_char(s, t, ',')) break;
      if (i) return 0; /* a third key */
    }
  }
  /* `ORDER BY ... LIMIT ...` after the GROUP BY: applied to the groups (checked by order_tail). */
  size_t tail = t.off, tail_end = t.off;
  for (; key.len && t.kind != PSQL_EOF && !trak__psql_is_char(s, t, ';');
       t = trak__psql_lex(s, n, t.off + t.len))
    tail_end = t.off + t.len;
  if (trak__psql_is_char(s, t, ';')) t = trak__psql_lex(s, n, t.off + t.len);
  if (t.kind != PSQL_EOF) return 0;
  for (size_t i = 0; i < k; i++)
    if (!items[i].fn && !key.len) return 0; /* a bare column without GROUP BY */
  /* The statement as SQLite prepares it: it must be valid, and it names the columns. */
  sqlite3_stmt *orig = NULL;
  if (sqlite3_prepare_v2(p->db, s, (int)n, &orig, NULL) != SQLITE_OK || !orig) {
    sqlite3_finalize(orig);
    return 0;
  }
  char *sql = rewrite(p, s, items, k, rel, key, key2, where, nw, orig);
  if (sql && tail_end > tail) {
    /* Grouped again by the key, one row a group: SQLite then feeds its ORDER BY the groups in
    ** the GROUP BY's order as it does for the original, so ties come out the same. */
    char *outer = order_tail(s + tail, tail_end - tail, orig)
                      ? sqlite3_mprintf("%s GROUP BY k%s %.*s", sql, key2.len ? ", k1" : "",
                                        (int)(tail_end - tail), s + tail)
                      : NULL;
    sqlite3_free(sql);
    sql = outer;
  }
  sqlite3_finalize(orig);
  int rc = sql ? sqlite3_prepare_v2(p->db, sql, -1, out, NULL) : SQLITE_NOMEM;
  sqlite3_free(sql);
  if (rc == SQLITE_OK) return 1;
  sqlite3_finalize(*out);
  *out = NULL;
  return 0;
}
