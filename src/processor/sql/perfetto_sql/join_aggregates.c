/*
** This file aggregates a columnar table before a join (eager aggregation): in `SELECT p.name,
** COUNT(*), SUM(s.dur) FROM slice s JOIN thread_track tt ON s.track_id = tt.id ... GROUP BY ...`
** every row of `s` with one track_id meets the same rows of the other tables, so `s` may be
** replaced by its groups by track_id (`__intrinsic_col_group`: one row per value, with counts and
** partial sums read from the columns) and the aggregates combined: COUNT as the SUM of counts,
** SUM of sums, MIN of minimums, MAX of maximums. SQLite then joins and sorts one row per group
** instead of one per slice (its sorter was most of the time: 5,700 instructions a slice).
** The relation may be followed by LEFT JOINs (its rows are never the NULL-supplied side), and
** WHERE terms `a.column op literal` on its own rows become __intrinsic_col_group's filters.
*/
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"
#include "processor/tables/vtab.h"

#define JA_TOKENS 512 /* the longest statement considered, in tokens */
#define JA_AGGS 8     /* the most distinct partial aggregates (__intrinsic_col_group's) */
#define JA_VALUES 4   /* the most WHERE values (__intrinsic_col_group's) */

/* One replaced aggregate: tokens [from, to] become `fn(alias.__trak_aN)`. */
typedef struct ja_repl {
  size_t from, to;
  const char *fn; /* "SUM", "MIN", "MAX": how the partial ones combine */
  int agg;        /* N: the partial aggregate */
} ja_repl;

/* A WHERE term on the relation's rows, `alias.column op value` (tokens [from, to]), answered by
** __intrinsic_col_group's filters (the columnar scan's): op as the scan's plan spells it
** (= < l > g b k; BETWEEN gives g and l), the value's tokens [v, ve), BETWEEN's second [w, we). */
typedef struct ja_term {
  size_t from, to;
  const vt_col *col;
  char op;
  size_t v, ve, w, we;
} ja_term;

/* The statement's parse: its tokens, the relation replaced, the key, the aggregates. */
typedef struct ja_stmt {
  const char *s;
  psql_tok tok[JA_TOKENS];
  size_t n;
  size_t from;             /* the FROM token */
  size_t group, group_end; /* GROUP BY's terms [group, group_end) */
  size_t where;            /* the WHERE token (0: none) */
  /* From here on, what one candidate relation's parse fills in (reset for each: candidate). */
  const vt_table *tbl;
  psql_tok alias;          /* the relation's alias (its name when it has none) */
  size_t rel, rel_end;     /* the relation's tokens [rel, rel_end): name [AS alias] */
  size_t rep, rep_end;     /* the tokens the groups replace: the relation's, or a self-join's */
  ja_term term[JA_VALUES]; /* the WHERE terms on the relation's rows, in order */
  size_t nterm, nvals;
  const vt_col *key; /* the one column of the alias read outside the aggregates */
  /* A self-join `a JOIN <table> b ON a.via = b.id GROUP BY b.key`: via (else NULL), b's alias,
  ** and b's key column, which then replaces key. */
  const vt_col *via;
  psql_tok other;
  int left; /* the self-join is a LEFT JOIN: rows without the joined row make the NULL group */
  char spec[JA_AGGS][80];
  int nspec;
  ja_repl repl[JA_TOKENS / 4];
  size_t nrepl;
} ja_stmt;

static int is_id(const ja_stmt *j, size_t i) {
  return i < j->n && j->tok[i].kind == PSQL_ID && j->s[j->tok[i].off] != '"' &&
         j->s[j->tok[i].off] != '`' && j->s[j->tok[i].off] != '[';
}

static int is_word(const ja_stmt *j, size_t i, const char *w) {
  return i < j->n && trak__psql_is(j->s, j->tok[i], w);
}

static int is_char(const ja_stmt *j, size_t i, char c) {
  return i < j->n && trak__psql_is_char(j->s, j->tok[i], c);
}

/* The column of the table token i names, or NULL. */
static const vt_col *column_at(const ja_stmt *j, size_t i) {
  for (int c = 0; is_id(j, i) && c < j->tbl->ncols; c++)
    if (strlen(j->tbl->cols[c].name) == j->tok[i].len &&
        !sqlite3_strnicmp(j->tbl->cols[c].name, j->s + j->tok[i].off, (int)j->tok[i].len))
      return &j->tbl->cols[c];
  return NULL;
}

/* Whether token i is `alias` (the relation's or the joined table's) followed by a `.`. */
static int qualifier(const ja_stmt *j, size_t i, psql_tok alias) {
  return is_id(j, i) && is_char(j, i + 1, '.') && j->tok[i].len == alias.len &&
         !sqlite3_strnicmp(j->s + j->tok[i].off, j->s + alias.off, (int)alias.len);
}

/* Whether token i names an aggregate function (SQLite's and the stdlib's common ones). */
static int is_aggregate_name(const ja_stmt *j, size_t i) {
  static const char *const names[] = {"count",  "sum",        "total",        "avg",
                                      "min",    "max",        "group_concat", "string_agg",
                                      "median", "percentile", "stddev",       "variance"};
  for (size_t k = 0; k < sizeof names / sizeof *names; k++)
    if (is_word(j, i, names[k])) return 1;
  return 0;
}

/* The partial aggregate `fn` of column `c` (NULL: rows), added once; -1 past JA_AGGS. */
static int partial(ja_stmt *j, const char *fn, const vt_col *c) {
  char spec[80];
  snprintf(spec, sizeof spec, "%s:%s", fn, c ? c->name : "");
  for (int k = 0; k < j->nspec; k++)
    if (!strcmp(j->spec[k], spec)) return k;
  if (j->nspec == JA_AGGS) return -1;
  memcpy(j->spec[j->nspec], spec, sizeof spec);
  return j->nspec++;
}

/* Whether column `c` may be aggregated by `fn` from partial aggregates exactly: integers (a
** real sum would add in another order), COUNT of text too; no computed column. */
static int partial_ok(const vt_col *c, const char *fn) {
  if (c->calc) return 0;
  int integral = c->kind == VT_ID || c->kind == VT_I64 || c->kind == VT_I64N || c->kind == VT_U32 ||
                 c->kind == VT_U32N || c->kind == VT_BOOLN;
  return integral || (c->kind == VT_STR && !strcmp(fn, "count"));
}

/* Reads the references to the alias and the aggregates over the whole statement (the relation's
** own tokens aside). Returns 1 when every one can be answered from the groups. */
static int scan_refs(ja_stmt *j) {
  for (size_t i = 1, t = 0; i < j->n; i++) {
    if (i == j->rel) {
      i = j->rel_end - 1;
      continue;
    }
    if (t < j->nterm && i == j->term[t].from) { /* answered by the groups' filters */
      i = j->term[t++].to;
      continue;
    }
    /* COUNT(*) */
    if (is_word(j, i, "count") && is_char(j, i + 1, '(') && is_char(j, i + 2, '*') &&
        is_char(j, i + 3, ')')) {
      int a = partial(j, "count", NULL);
      if (a < 0) return 0;
      j->repl[j->nrepl++] = (ja_repl){i, i + 3, "SUM", a};
      i += 3;
      continue;
    }
    /* FN(alias.column), or FN(column) naming one of the table's columns: SQLite reads an
    ** unqualified name in the relation whose column it is (two such relations: an error, and
    ** the statement is not prepared) */
    size_t at = qualifier(j, i + 2, j->alias) ? i + 4 : i + 2;
    if (is_aggregate_name(j, i) && is_char(j, i + 1, '(') && is_char(j, at + 1, ')') &&
        (at == i + 4 || column_at(j, at))) {
      const char *fn = is_word(j, i, "count") ? "count"
                       : is_word(j, i, "sum") ? "sum"
                       : is_word(j, i, "min") ? "min"
                       : is_word(j, i, "max") ? "max"
                                              : NULL;
      const vt_col *c = column_at(j, at);
      if (!fn || !c || !partial_ok(c, fn)) return 0;
      int a = partial(j, fn, c);
      if (a < 0) return 0;
      j->repl[j->nrepl++] =
          (ja_repl){i, at + 1, fn[0] == 'm' ? (fn[1] == 'i' ? "MIN" : "MAX") : "SUM", a};
      i = at + 1;
      continue;
    }
    if (is_aggregate_name(j, i) && is_char(j, i + 1, '(')) return 0; /* over something else */
    if (!is_id(j, i)) {
      /* `SELECT *`, `x.*`: every column, the alias's too */
      if (is_char(j, i, '*') &&
          (is_word(j, i - 1, "SELECT") || is_char(j, i - 1, ',') || is_char(j, i - 1, '.')))
        return 0;
      continue;
    }
    if (is_char(j, i - 1, '.')) continue; /* the column of another qualifier, checked below */
    int alias = j->tok[i].len == j->alias.len &&
                !sqlite3_strnicmp(j->s + j->tok[i].off, j->s + j->alias.off, (int)j->alias.len);
    if (alias) { /* alias.column outside an aggregate: the key, and only it */
      const vt_col *c = is_char(j, i + 1, '.') ? column_at(j, i + 2) : NULL;
      /* A key as __intrinsic_col_group groups: integers or text, not an ascending column
      ** (about a group per row) */
      if (!c || c->calc || c->kind == VT_F64 || c->kind > VT_BOOLN || c->sorted ||
          (j->key && j->key != c))
        return 0;
      j->key = c;
      i += 2;
      continue;
    }
    /* An unqualified name of one of the table's columns might read the alias's rows. */
    if (!is_char(j, i + 1, '.') && !is_char(j, i + 1, '(') && column_at(j, i)) return 0;
  }
  return j->key && j->nrepl;
}

/* Whether the statement's shape allows the rewrite: one SELECT, inner and LEFT joins only, no
** DISTINCT, window, compound or CTE, a GROUP BY (j->from, j->where, j->group, j->group_end). */
static int shape(ja_stmt *j) {
  static const char *const refused[] = {"DISTINCT", "RIGHT",  "FULL",   "CROSS",     "NATURAL",
                                        "OVER",     "FILTER", "WINDOW", "UNION",     "INTERSECT",
                                        "EXCEPT",   "VALUES", "WITH",   "RETURNING", "INDEXED"};
  if (!is_word(j, 0, "SELECT")) return 0;
  size_t from = 0;
  int group = 0, depth = 0;
  for (size_t i = 1; i < j->n; i++) {
    if (is_word(j, i, "SELECT") || j->tok[i].kind == PSQL_VAR) return 0;
    for (size_t k = 0; k < sizeof refused / sizeof *refused; k++)
      if (is_word(j, i, refused[k])) return 0;
    if (is_word(j, i, "LEFT") && !is_word(j, i + 1, "JOIN") &&
        !(is_word(j, i + 1, "OUTER") && is_word(j, i + 2, "JOIN")))
      return 0;
    if (is_word(j, i, "OUTER") && !is_word(j, i - 1, "LEFT")) return 0;
    depth += is_char(j, i, '(') - is_char(j, i, ')');
    if (!depth && !from && is_word(j, i, "FROM")) from = i;
    if (!depth && from && !group && !j->where && is_word(j, i, "WHERE")) j->where = i;
    if (!depth && is_word(j, i, "GROUP") && is_word(j, i + 1, "BY")) group = 1, j->group = i + 2;
    if (!depth && group && !j->group_end &&
        (is_word(j, i, "HAVING") || is_word(j, i, "ORDER") || is_word(j, i, "LIMIT")))
      j->group_end = i;
  }
  if (!j->group_end) j->group_end = j->n;
  j->from = from;
  return from && group;
}

/* The relation at token i, `name [[AS] alias]`: its alias (its name when it has none) in *alias;
** returns the token after it, or 0 when it is no plain name or `AS` has no alias. */
static size_t relation_end(const ja_stmt *j, size_t i, psql_tok *alias) {
  static const char *const after[] = {"JOIN", "INNER", "LEFT", "ON", "WHERE", "GROUP", "USING"};
  if (!is_id(j, i)) return 0;
  size_t a = i + 1 + is_word(j, i + 1, "AS");
  int keyword = !is_id(j, a);
  for (size_t k = 0; !keyword && k < sizeof after / sizeof *after; k++)
    keyword = is_word(j, a, after[k]);
  if (keyword && a != i + 1) return 0; /* `AS` then no alias */
  *alias = keyword ? j->tok[i] : j->tok[a];
  return keyword ? i + 1 : a + 1;
}

/* Makes the relation at token i of the FROM clause the candidate (j->tbl, alias, rel, rel_end;
** the rest of its parse reset) when it is a columnar table whose every row is in the join's rows
** (never the NULL-padded side): the first of FROM, or one after `,`, `JOIN` or `INNER JOIN`, not
** after `LEFT [OUTER] JOIN`; and there is a join. Returns whether it is. */
static int candidate(trak_processor *p, ja_stmt *j, size_t i) {
  memset(&j->tbl, 0, sizeof *j - offsetof(ja_stmt, tbl));
  int first = i == j->from + 1;
  if (!first && !is_char(j, i - 1, ',') &&
      !(is_word(j, i - 1, "JOIN") && !is_word(j, i - 2, "LEFT") && !is_word(j, i - 2, "OUTER")))
    return 0;
  j->rel = i;
  j->rel_end = relation_end(j, i, &j->alias);
  if (!j->rel_end) return 0;
  j->rep = j->rel, j->rep_end = j->rel_end;
  if (first && !is_word(j, j->rel_end, "JOIN") && !is_char(j, j->rel_end, ',') &&
      !is_word(j, j->rel_end, "INNER") && !is_word(j, j->rel_end, "LEFT"))
    return 0; /* no join */
  j->tbl = trak__psql_columnar_table(p->db, j->s + j->tok[i].off, j->tok[i].len);
  return j->tbl != NULL;
}

/* Whether tokens [a, a + len) of the statement spell tokens [b, b + len), without case. */
static int same_tokens(const ja_stmt *j, size_t a, size_t b, size_t len) {
  for (size_t k = 0; k < len; k++)
    if (j->tok[a + k].len != j->tok[b + k].len ||
        sqlite3_strnicmp(j->s + j->tok[a + k].off, j->s + j->tok[b + k].off,
                         (int)j->tok[a + k].len))
      return 0;
  return 1;
}

/* The span [*begin, *end) of SELECT item `item` (from 1); 0 when there is none. */
static int item_span(const ja_stmt *j, long item, size_t *begin, size_t *end) {
  int depth = 0;
  long at = 1;
  *begin = 1;
  for (size_t t = 1; t <= j->from; t++) {
    depth += is_char(j, t, '(') - is_char(j, t, ')');
    if (t < j->from && (depth || !is_char(j, t, ','))) continue;
    if (at++ == item) return *end = t, 1;
    *begin = t + 1;
  }
  return 0;
}

/* Whether `x.column` at token i is a GROUP BY term, or is a SELECT item (`x.column [[AS] name]`)
** that a GROUP BY term names by its position. */
static int grouped_ref(const ja_stmt *j, size_t i) {
  size_t start = j->group, b, e;
  int depth = 0;
  for (size_t k = j->group; k <= j->group_end; k++) {
    depth += k < j->group_end && is_char(j, k, '(');
    depth -= k < j->group_end && is_char(j, k, ')');
    if (k < j->group_end && (depth || !is_char(j, k, ','))) continue;
    if (k - start == 3 && same_tokens(j, start, i, 3)) return 1;
    if (k - start == 1 && j->tok[start].kind == PSQL_NUMBER &&
        item_span(j, strtol(j->s + j->tok[start].off, NULL, 10), &b, &e) && e - b >= 3 &&
        e - b <= 5 && same_tokens(j, b, i, 3))
      return 1;
    start = k + 1;
  }
  return 0;
}

/* Whether tokens [a, b) are a value SQLite evaluates before comparing and that reads no row: a
** number or string literal, with signs, arithmetic and parentheses (all binding tighter than a
** comparison). */
static int literal_value(const ja_stmt *j, size_t a, size_t b) {
  int depth = 0;
  for (size_t i = a; i < b; i++) {
    const psql_tok *t = &j->tok[i];
    int ok = t->kind == PSQL_NUMBER || (t->kind == PSQL_STRING && j->s[t->off] == '\'') ||
             (t->kind == PSQL_PUNCT && t->len == 1 && strchr("+-*/%()", j->s[t->off]));
    depth += is_char(j, i, '(') - is_char(j, i, ')');
    if (!ok || depth < 0) return 0;
  }
  return a < b && !depth;
}

/* Takes conjunct [a, b) of the WHERE as a term of the relation's rows when it is `alias.column op
** value` or `column op value` (a column of the table: SQLite reads it in the relation) (op one of = == < <= > >= GLOB LIKE, or BETWEEN v AND w; literal_value) over an integer
** column (not GLOB or LIKE) or a text one (not =: SQLite compares a value that is no text), as
** the column aggregates take theirs, and the values fit. */
static void where_term(ja_stmt *j, size_t a, size_t b) {
  static const struct {
    const char *op;
    char code;
  } ops[] = {{"=", '='},  {"==", '='},   {"<", '<'},    {"<=", 'l'},     {">", '>'},
             {">=", 'g'}, {"GLOB", 'b'}, {"LIKE", 'k'}, {"BETWEEN", 'B'}};
  size_t o = qualifier(j, a, j->alias) ? a + 3 : a + 1; /* the operator */
  const vt_col *c = column_at(j, o - 1);
  if (!c || c->calc || c->kind == VT_F64 || c->kind == VT_NUL || c->kind > VT_BOOLN ||
      j->nterm == JA_VALUES || o + 1 >= b)
    return;
  char op = 0;
  for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
    if (j->tok[o].len == strlen(ops[k].op) &&
        !sqlite3_strnicmp(j->s + j->tok[o].off, ops[k].op, (int)j->tok[o].len))
      op = ops[k].code;
  if (!op || (c->kind == VT_STR ? op == '=' : op == 'b' || op == 'k')) return;
  ja_term t = {a, b - 1, c, op == 'B' ? 'g' : op, o + 1, b, 0, 0};
  if (op == 'B') { /* the value's AND */
    size_t k = o + 1;
    while (k < b && !is_word(j, k, "AND"))
      k++;
    t.ve = k, t.w = k + 1, t.we = b;
    if (!literal_value(j, t.w, t.we)) return;
  }
  if (!literal_value(j, t.v, t.ve) || j->nvals + 1 + (op == 'B') > JA_VALUES) return;
  j->term[j->nterm++] = t;
  j->nvals += 1 + (op == 'B');
}

/* Splits the WHERE (when it has no OR or CASE: then its ANDs outside parentheses and BETWEEN
** join its conjuncts) into conjuncts and takes those on the relation's rows (where_term). */
static void where_terms(ja_stmt *j) {
  if (!j->where) return;
  size_t end = j->group - 2; /* GROUP BY follows the WHERE */
  for (size_t i = j->where + 1; i < end; i++)
    if (is_word(j, i, "OR") || is_word(j, i, "CASE")) return;
  for (size_t a = j->where + 1, k; a < end; a = k + 1) {
    int depth = 0, between = 0;
    for (k = a; k < end; k++) {
      depth += is_char(j, k, '(') - is_char(j, k, ')');
      if (!depth && is_word(j, k, "BETWEEN")) between = 1;
      if (!depth && is_word(j, k, "AND")) {
        if (!between) break;
        between = 0;
      }
    }
    where_term(j, a, k);
  }
}

/* Recognises a self-join grouped by the joined row's column (j->via, j->other, j->rep..): `FROM
** t a [INNER | LEFT [OUTER]] JOIN t b ON a.K = b.id [WHERE terms] GROUP BY b.X` (or `b.id =
** a.K`; or `FROM t b [INNER] JOIN t a ON ...`), id the table's row id, a.K the key scan_refs
** found and read nowhere else, every other reference to b `b.X`, no other join, a WHERE only of
** terms on a's rows (where_terms). Every row of `a` with a non-NULL K meets exactly the row of
** id K (none when there is none: a LEFT JOIN then pads it with NULLs), so grouping `a`'s rows by
** that row's X gives the join's groups. */
static int self_join(trak_processor *p, ja_stmt *j) {
  size_t i, a; /* b's name; the ON token */
  if (j->rel == j->from + 1) {
    i = j->rel_end;
    j->left = is_word(j, i, "LEFT");
    i += is_word(j, i, "INNER") + j->left;
    i += j->left && is_word(j, i, "OUTER");
    if (!is_word(j, i++, "JOIN") || !(a = relation_end(j, i, &j->other))) return 0;
  } else { /* b first, then [INNER] JOIN a (candidate refused LEFT) */
    i = j->from + 1;
    size_t e = relation_end(j, i, &j->other);
    if (!e || j->rel != e + 1 + is_word(j, e, "INNER") || !is_word(j, j->rel - 1, "JOIN")) return 0;
    a = j->rel_end;
  }
  if (!is_word(j, a, "ON") ||
      trak__psql_columnar_table(p->db, j->s + j->tok[i].off, j->tok[i].len) != j->tbl)
    return 0;
  if (j->other.len == j->alias.len &&
      !sqlite3_strnicmp(j->s + j->other.off, j->s + j->alias.off, (int)j->alias.len))
    return 0;
  size_t l = a + 1, r = a + 5, end = a + 8; /* `x.y = x.y`, then WHERE or GROUP */
  if (!is_char(j, l + 3, '=') || j->group != (j->where == end ? j->group : end + 2) ||
      !is_word(j, j->group - 2, "GROUP"))
    return 0;
  for (size_t k = end + 1, t = 0; j->where == end && k < j->group - 2; k++) {
    if (t < j->nterm && j->term[t].from == k)
      k = j->term[t++].to;
    else if (!is_word(j, k, "AND"))
      return 0; /* a conjunct the groups' filters do not answer */
  }
  if (qualifier(j, r, j->alias)) l = r, r = a + 1;
  const vt_col *id = qualifier(j, r, j->other) ? column_at(j, r + 2) : NULL;
  if (!qualifier(j, l, j->alias) || column_at(j, l + 2) != j->key || !id || id->kind != VT_ID)
    return 0;
  /* GROUP BY b.X, one term, or its position naming the item `b.X [[AS] name]` */
  size_t g = j->group, b = 0, e = 0;
  if (j->group_end == g + 1 && j->tok[g].kind == PSQL_NUMBER &&
      item_span(j, strtol(j->s + j->tok[g].off, NULL, 10), &b, &e) &&
      (e == b + 3 || (e == b + 4 && is_id(j, b + 3)) || (e == b + 5 && is_word(j, b + 3, "AS"))))
    g = b;
  else if (j->group_end != g + 3)
    g = j->n;
  const vt_col *x = qualifier(j, g, j->other) ? column_at(j, g + 2) : NULL;
  if (!x || x->calc || x->kind == VT_F64 || x->kind > VT_BOOLN) return 0;
  size_t rr = 0;
  for (size_t k = 1; k < j->n; k++) {
    if (k == j->from + 1) k = j->group - 2; /* the relations, the ON clause, the WHERE's terms */
    if (rr < j->nrepl && j->repl[rr].from == k) {
      k = j->repl[rr++].to;
      continue;
    }
    if (qualifier(j, k, j->alias)) return 0; /* `a.K` elsewhere would read b's row */
    if (is_id(j, k) && j->tok[k].len == j->other.len &&
        !sqlite3_strnicmp(j->s + j->tok[k].off, j->s + j->other.off, (int)j->other.len) &&
        (!qualifier(j, k, j->other) || column_at(j, k + 2) != x))
      return 0;
  }
  j->via = j->key, j->key = x, j->rep = j->from + 1, j->rep_end = end;
  return 1;
}

/* Whether SQLite could answer a bare column (neither grouped nor aggregated) from the row holding
** a MIN or MAX: with exactly one of them it takes such columns from that row, which after the
** rewrite is a group's row, not the table's. Only aliases, grouped `x.column` references, function
** names, numbers and operators may then stand outside the aggregates in the SELECT list,
** HAVING and ORDER BY. */
static int bare_columns(const ja_stmt *j) {
  int extremes = 0; /* (every other aggregate is refused by scan_refs) */
  for (size_t r = 0; r < j->nrepl; r++)
    extremes += j->repl[r].fn[0] == 'M';
  if (!extremes) return 0;
  static const char *const words[] = {"AS",     "ASC",   "DESC",  "ORDER", "BY",  "HAVING", "LIMIT",
                                      "OFFSET", "NULLS", "FIRST", "LAST",  "AND", "OR",     "NOT"};
  size_t r = 0;
  for (size_t i = 1; i < j->n; i++) {
    if (i == j->from) i = j->group_end; /* FROM, WHERE and GROUP BY may read any column */
    if (i >= j->n) break;
    if (r < j->nrepl && j->repl[r].from == i) {
      i = j->repl[r++].to;
      continue;
    }
    if (j->tok[i].kind != PSQL_ID || is_char(j, i + 1, '(')) continue;
    if (is_char(j, i + 1, '.')) {
      if (!grouped_ref(j, i)) return 1;
      i += 2;
      continue;
    }
    int ok = is_word(j, i - 1, "AS") || (is_char(j, i - 1, ')') && i < j->from);
    for (size_t w = 0; !ok && w < sizeof words / sizeof *words; w++)
      ok = is_word(j, i, words[w]);
    for (size_t k = 1; !ok && k + 1 < j->from; k++) /* an alias of the SELECT list */
      ok = (is_word(j, k, "AS") || is_char(j, k, ')')) && j->tok[k + 1].kind == PSQL_ID &&
           (is_char(j, k + 2, ',') || k + 2 == j->from) && same_tokens(j, k + 1, i, 1);
    if (!ok) return 1;
  }
  return 0;
}

/* Where each SELECT item of the statement ends (the token before its `,` or FROM), in *ends. */
static size_t item_ends(const ja_stmt *j, size_t *ends, size_t cap) {
  size_t k = 0;
  int depth = 0;
  for (size_t i = 1; i < j->n && k < cap; i++) {
    depth += is_char(j, i, '(') - is_char(j, i, ')');
    if (!depth && (is_char(j, i, ',') || is_word(j, i, "FROM"))) ends[k++] = i - 1;
    if (!depth && is_word(j, i, "FROM")) break;
  }
  return k;
}

/* The rewritten statement (sqlite3_free it), its result columns named as in `orig`; NULL on
** OOM. */
static char *rewrite(const ja_stmt *j, sqlite3_stmt *orig) {
  size_t ends[64];
  size_t nitems = item_ends(j, ends, 64);
  if (nitems != (size_t)sqlite3_column_count(orig)) return NULL;
  sqlite3_str *q = sqlite3_str_new(NULL);
  /* The groups by the key as a materialized CTE: a subquery in FROM would be flattened into
  ** the join and the table-valued function grouped anew for every outer row. */
  sqlite3_str_appendf(q, "WITH __trak_groups AS MATERIALIZED (SELECT k AS \"%w\"", j->key->name);
  for (int a = 0; a < j->nspec; a++)
    sqlite3_str_appendf(q, ", a%d AS __trak_a%d", a, a);
  sqlite3_str_appendf(q, " FROM __intrinsic_col_group(%Q, '%q%s%q', '", j->tbl->name,
                      j->via ? j->via->name : "", j->via ? (j->left ? ">>" : ">") : "",
                      j->key->name);
  for (int a = 0; a < j->nspec; a++)
    sqlite3_str_appendf(q, "%s%q", a ? "," : "", j->spec[a]);
  sqlite3_str_appendall(q, "'");
  if (j->nterm) { /* the WHERE terms on the relation's rows, then their values */
    sqlite3_str_appendall(q, ", NULL, '");
    for (size_t t = 0; t < j->nterm; t++) {
      const char *c = j->term[t].col->name;
      sqlite3_str_appendf(q, "%s%q:%c", t ? "," : "", c, j->term[t].op);
      if (j->term[t].w) sqlite3_str_appendf(q, ",%q:l", c); /* BETWEEN's upper bound */
    }
    sqlite3_str_appendall(q, "'");
    for (size_t t = 0; t < j->nterm; t++) {
      const ja_term *w = &j->term[t];
      size_t v = j->tok[w->v].off, ve = j->tok[w->ve - 1].off + j->tok[w->ve - 1].len;
      sqlite3_str_appendf(q, ", (%.*s)", (int)(ve - v), j->s + v);
      if (!w->w) continue;
      v = j->tok[w->w].off, ve = j->tok[w->we - 1].off + j->tok[w->we - 1].len;
      sqlite3_str_appendf(q, ", (%.*s)", (int)(ve - v), j->s + v);
    }
  }
  sqlite3_str_appendall(q, ")) ");
  size_t at = j->tok[0].off, r = 0, item = 0, t = 0;
  for (size_t i = 0; i < j->n; i++) {
    if (t < j->nterm && j->term[t].from == i) { /* a term the groups' filters answered: 1 */
      sqlite3_str_append(q, j->s + at, (int)(j->tok[i].off - at));
      sqlite3_str_appendall(q, "1");
      i = j->term[t++].to;
      at = j->tok[i].off + j->tok[i].len;
      continue;
    }
    if (i == j->rep) { /* the relation: its groups, made once (not again per outer row) */
      sqlite3_str_append(q, j->s + at, (int)(j->tok[i].off - at));
      sqlite3_str_appendf(q, "__trak_groups AS %.*s", (int)j->alias.len, j->s + j->alias.off);
      i = j->rep_end - 1; /* a self-join: both relations, the ON */
      at = j->tok[i].off + j->tok[i].len;
      continue;
    }
    if (j->via && qualifier(j, i, j->other)) { /* b.X: the groups' X */
      sqlite3_str_append(q, j->s + at, (int)(j->tok[i].off - at));
      sqlite3_str_appendf(q, "%.*s", (int)j->alias.len, j->s + j->alias.off);
      at = j->tok[i].off + j->tok[i].len;
    }
    if (r < j->nrepl && j->repl[r].from == i) {
      sqlite3_str_append(q, j->s + at, (int)(j->tok[i].off - at));
      sqlite3_str_appendf(q, "%s(%.*s.__trak_a%d)", j->repl[r].fn, (int)j->alias.len,
                          j->s + j->alias.off, j->repl[r].agg);
      i = j->repl[r++].to;
      at = j->tok[i].off + j->tok[i].len;
    }
    if (item < nitems && ends[item] == i) { /* an item without an alias keeps its name */
      sqlite3_str_append(q, j->s + at, (int)(j->tok[i].off + j->tok[i].len - at));
      at = j->tok[i].off + j->tok[i].len;
      int named = i >= 2 && j->tok[i].kind == PSQL_ID &&
                  (is_word(j, i - 1, "AS") || is_char(j, i - 1, ')'));
      if (!named) sqlite3_str_appendf(q, " AS \"%w\"", sqlite3_column_name(orig, (int)item));
      item++;
    }
  }
  size_t end = j->tok[j->n - 1].off + j->tok[j->n - 1].len;
  sqlite3_str_append(q, j->s + at, (int)(end - at));
  if (sqlite3_str_errcode(q)) {
    sqlite3_free(sqlite3_str_finish(q));
    return NULL;
  }
  return sqlite3_str_finish(q);
}

int trak__psql_join_aggregates(trak_processor *p, const char *s, size_t n, sqlite3_stmt **out) {
  ja_stmt *j = sqlite3_malloc(sizeof *j);
  if (!j) return 0;
  memset(j, 0, sizeof *j);
  j->s = s;
  for (size_t pos = 0;; j->n++) {
    psql_tok t = trak__psql_lex(s, n, pos);
    if (t.kind == PSQL_EOF || trak__psql_is_char(s, t, ';')) break;
    if (j->n == JA_TOKENS) {
      sqlite3_free(j);
      return 0;
    }
    j->tok[j->n] = t;
    pos = t.off + t.len;
  }
  int done = 0, found = 0;
  sqlite3_stmt *orig = NULL, *st = NULL;
  /* The first relation of the FROM clause whose rows can be grouped first. */
  size_t from_end = shape(j) ? (j->where ? j->where : j->group - 2) : 0;
  int depth = 0;
  for (size_t i = j->from + 1; !found && i < from_end; i++) {
    depth += is_char(j, i, '(') - is_char(j, i, ')');
    found = !depth && candidate(p, j, i) && (where_terms(j), scan_refs(j)) && !bare_columns(j);
  }
  if (found && sqlite3_prepare_v2(p->db, s, (int)n, &orig, NULL) == SQLITE_OK && orig) {
    self_join(p, j);
    char *sql = rewrite(j, orig);
    if (sql && sqlite3_prepare_v2(p->db, sql, -1, &st, NULL) == SQLITE_OK && st &&
        sqlite3_column_count(st) == sqlite3_column_count(orig)) {
      done = 1;
      for (int c = 0; done && c < sqlite3_column_count(st); c++)
        done = !strcmp(sqlite3_column_name(st, c), sqlite3_column_name(orig, c));
    }
    sqlite3_free(sql);
  }
  sqlite3_finalize(orig);
  if (done)
    *out = st;
  else
    sqlite3_finalize(st);
  sqlite3_free(j);
  return done;
}
