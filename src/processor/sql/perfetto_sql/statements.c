/*
** This file holds the PerfettoSQL statements: it recognises INCLUDE PERFETTO MODULE,
** CREATE [OR REPLACE] PERFETTO FUNCTION / TABLE / VIEW / INDEX / MACRO and DROP PERFETTO INDEX,
** parses their signatures and runs them as SQLite statements, macro definitions or function
** registrations. Anything else is left to SQLite.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "processor/sql/perfetto_sql/psql.h"

typedef struct parser {
  trak_processor *p;
  const char *s;
  size_t end; /* end of the statement */
  psql_tok t; /* the current token */
  char *msg;
  size_t msg_len;
  size_t *err_off;
} parser;

static int fail(parser *ps, size_t off, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ps->msg, ps->msg_len, fmt, ap);
  va_end(ap);
  *ps->err_off = off;
  return -1;
}

static void advance(parser *ps) {
  ps->t = trak__psql_lex(ps->s, ps->end, ps->t.off + ps->t.len);
}

static int accept(parser *ps, const char *word) {
  if (!trak__psql_is(ps->s, ps->t, word)) return 0;
  advance(ps);
  return 1;
}

static int accept_char(parser *ps, char c) {
  if (!trak__psql_is_char(ps->s, ps->t, c)) return 0;
  advance(ps);
  return 1;
}

/* What the current token is, for messages. */
static const char *found(parser *ps, char *buf, size_t len) {
  if (ps->t.kind == PSQL_EOF) return "the end of the statement";
  snprintf(buf, len, "'%.*s'", (int)(ps->t.len > 40 ? 40 : ps->t.len), ps->s + ps->t.off);
  return buf;
}

static int expect(parser *ps, const char *what, int ok) {
  char buf[64];
  if (ok) return 0;
  return fail(ps, ps->t.off, "expected %s, found %s", what, found(ps, buf, sizeof buf));
}

/* An identifier (unquoted into a malloc'ed string) or NULL with an error. */
static char *identifier(parser *ps, const char *what) {
  if (expect(ps, what, ps->t.kind == PSQL_ID)) return NULL;
  const char *v = ps->s + ps->t.off;
  size_t n = ps->t.len;
  if (*v == '"' || *v == '`' || *v == '[') v++, n -= 2;
  char *out = strndup(v, n);
  advance(ps);
  return out;
}

/* A type: a word with an optional parenthesised part, JOINID(slice.id). */
static char *type_name(parser *ps) {
  if (expect(ps, "a type", ps->t.kind == PSQL_ID)) return NULL;
  size_t start = ps->t.off, stop = ps->t.off + ps->t.len;
  advance(ps);
  if (trak__psql_is_char(ps->s, ps->t, '(')) {
    int depth = 0;
    do {
      if (trak__psql_is_char(ps->s, ps->t, '(')) depth++;
      if (trak__psql_is_char(ps->s, ps->t, ')')) depth--;
      stop = ps->t.off + ps->t.len;
      advance(ps);
    } while (depth > 0 && ps->t.kind != PSQL_EOF);
  }
  /* A variadic argument: ANY... */
  while (trak__psql_is_char(ps->s, ps->t, '.') && ps->t.off == stop) {
    stop = ps->t.off + ps->t.len;
    advance(ps);
  }
  return strndup(ps->s + start, stop - start);
}

typedef struct arg_list {
  psql_arg *v;
  size_t n;
} arg_list;

static void arg_list_free(arg_list *l) {
  for (size_t i = 0; i < l->n; i++) {
    free(l->v[i].name);
    free(l->v[i].type);
  }
  free(l->v);
  l->v = NULL;
  l->n = 0;
}

/* `( name TYPE, ... )`, possibly empty; names may be written `$name`. */
static int arg_list_parse(parser *ps, arg_list *out) {
  if (expect(ps, "'('", accept_char(ps, '('))) return -1;
  if (accept_char(ps, ')')) return 0;
  for (;;) {
    psql_arg a = {0};
    if (ps->t.kind == PSQL_VAR && ps->s[ps->t.off] == '$') {
      a.name = strndup(ps->s + ps->t.off + 1, ps->t.len - 1);
      advance(ps);
    } else {
      a.name = identifier(ps, "an argument name");
    }
    if (a.name) a.type = type_name(ps);
    psql_arg *v = a.type ? realloc(out->v, (out->n + 1) * sizeof *v) : NULL;
    if (!v) {
      free(a.name);
      free(a.type);
      return -1;
    }
    out->v = v;
    out->v[out->n++] = a;
    if (accept_char(ps, ')')) return 0;
    if (expect(ps, "',' or ')'", accept_char(ps, ','))) return -1;
  }
}

/* Runs one SQLite statement (no rows expected). On error, the offset is the statement's. */
static int exec_sql(parser *ps, size_t off, const char *sql) {
  char *err = NULL;
  if (sqlite3_exec(ps->p->db, sql, NULL, NULL, &err) == SQLITE_OK) return 0;
  int rc = fail(ps, off, "%s", err ? err : sqlite3_errmsg(ps->p->db));
  sqlite3_free(err);
  return rc;
}

/* The body after AS, up to the statement's end (its ';' excluded), with macros expanded. */
static int body(parser *ps, psql_expansion *e, size_t *body_off) {
  if (expect(ps, "AS", accept(ps, "AS"))) return -1;
  size_t start = ps->t.off, stop = ps->end;
  while (stop > start &&
         (ps->s[stop - 1] == ';' || ps->s[stop - 1] == ' ' || ps->s[stop - 1] == '\n' ||
          ps->s[stop - 1] == '\t' || ps->s[stop - 1] == '\r'))
    stop--;
  if (stop == start) return fail(ps, start, "the body after AS is empty");
  *body_off = start;
  size_t off;
  if (trak__psql_expand(ps->p->psql->macros, ps->s + start, stop - start, e, ps->msg, ps->msg_len,
                        &off)) {
    *ps->err_off = start + off;
    return -1;
  }
  return 0;
}

/* Prepares the body to check it compiles; errors point into the user's body text. */
/* Writes `sql`, a CREATE VIEW, into the set-up's schema batch; 0 or -1 with the error. */
static int create_batched(parser *ps, size_t off, const char *sql) {
  if (trak__sql_create(ps->p, sql, strlen(sql)) == SQLITE_OK) return 0;
  return fail(ps, off, "%s", sqlite3_errmsg(ps->p->db));
}

static int check_body(parser *ps, const psql_expansion *e, size_t body_off, sqlite3_stmt **out) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(ps->p->db, e->text, (int)e->len, &st, NULL) == SQLITE_OK && st) {
    if (out)
      *out = st;
    else
      sqlite3_finalize(st);
    return 0;
  }
  int at = sqlite3_error_offset(ps->p->db);
  if (!st) {
    if (!sqlite3_errcode(ps->p->db) || sqlite3_errcode(ps->p->db) == SQLITE_OK)
      return fail(ps, body_off, "the body is not a statement");
  }
  sqlite3_finalize(st);
  return fail(ps, at >= 0 ? body_off + trak__psql_expansion_source(e, (size_t)at) : body_off, "%s",
              sqlite3_errmsg(ps->p->db));
}

/* Compares a declared schema with the statement's columns (as sets, without case). */
static int check_schema(parser *ps, size_t off, const char *name, const arg_list *schema,
                        sqlite3_stmt *st) {
  int n = sqlite3_column_count(st);
  for (size_t i = 0; i < schema->n; i++) {
    int hit = 0;
    for (int c = 0; c < n && !hit; c++)
      hit = !strcasecmp(schema->v[i].name, sqlite3_column_name(st, c));
    if (!hit)
      return fail(ps, off, "%s: column '%s' is in the schema but not in the SELECT", name,
                  schema->v[i].name);
    if (!trak__psql_sqlite_type(schema->v[i].type))
      return fail(ps, off, "%s: unknown type '%s' of column '%s'", name, schema->v[i].type,
                  schema->v[i].name);
  }
  for (int c = 0; c < n; c++) {
    int hit = 0;
    for (size_t i = 0; i < schema->n && !hit; i++)
      hit = !strcasecmp(schema->v[i].name, sqlite3_column_name(st, c));
    if (!hit)
      return fail(ps, off, "%s: column '%s' of the SELECT is not in the schema", name,
                  sqlite3_column_name(st, c));
  }
  return 0;
}

/* Creates a module's table empty, with the columns of the schema or else of the SELECT `st`,
** and registers the INSERT that fills it on first use (lazy.c). */
static int create_deferred(parser *ps, size_t stmt_off, const char *name, const arg_list *schema,
                           sqlite3_stmt *st, const char *select) {
  sqlite3_str *def = sqlite3_str_new(ps->p->db), *cols = sqlite3_str_new(ps->p->db);
  sqlite3_str_appendf(def, "CREATE TABLE \"%w\"(", name);
  int n = schema->n ? (int)schema->n : sqlite3_column_count(st);
  for (int i = 0; i < n; i++) {
    const char *col = schema->n ? schema->v[i].name : sqlite3_column_name(st, i);
    const char *type =
        schema->n ? trak__psql_sqlite_type(schema->v[i].type) : sqlite3_column_decltype(st, i);
    sqlite3_str_appendf(def, "%s\"%w\" %s", i ? ", " : "", col, type ? type : "");
    sqlite3_str_appendf(cols, "%s\"%w\"", i ? ", " : "", col);
  }
  sqlite3_str_appendall(def, ")");
  char *col_list = sqlite3_str_finish(cols);
  char *fill = sqlite3_mprintf("INSERT INTO \"%w\"(%s) SELECT %s FROM (%s)", name, col_list,
                               col_list, select);
  sqlite3_free(col_list);
  char *sql = sqlite3_str_finish(def);
  int rc = sql && fill ? exec_sql(ps, stmt_off, sql) : fail(ps, stmt_off, "out of memory");
  if (!rc && trak__psql_lazy_table(ps->p, name, fill, select))
    rc = fail(ps, stmt_off, "out of memory");
  sqlite3_free(sql);
  sqlite3_free(fill);
  return rc;
}

/* CREATE PERFETTO TABLE / VIEW name [(schema)] AS select. */
static int create_relation(parser *ps, size_t stmt_off, int replace, int is_table) {
  arg_list schema = {0};
  psql_expansion e = {0};
  sqlite3_stmt *st = NULL;
  size_t body_off = 0;
  char *sql = NULL;
  char *name = identifier(ps, is_table ? "a table name" : "a view name");
  int rc = name ? 0 : -1;
  if (!rc && trak__psql_is_char(ps->s, ps->t, '(')) rc = arg_list_parse(ps, &schema);
  if (!rc) rc = body(ps, &e, &body_off);
  if (!rc && replace) {
    sql = sqlite3_mprintf(is_table ? "DROP TABLE IF EXISTS \"%w\"" : "DROP VIEW IF EXISTS \"%w\"",
                          name);
    rc = exec_sql(ps, stmt_off, sql);
    sqlite3_free(sql);
  }
  int deferred = is_table && ps->p->psql->include_depth > 0;
  /* A table of a module is filled when first used; the user's tables read what they need now
  ** (a view reads nothing until queried). */
  if (!rc && is_table && !deferred &&
      trak__psql_lazy_ensure(ps->p, e.text, e.len, ps->msg, ps->msg_len))
    rc = -1, *ps->err_off = stmt_off;
  /* A view of the set-up's prelude goes into its schema batch (sql/schema_batch.c), where the
  ** relations it reads are not visible yet: it is not checked (tests/cli/perfetto_sql.sh
  ** checks what the set-up builds). */
  int batched = !is_table && ps->p->schema_batch;
  if (!rc && !batched) rc = check_body(ps, &e, body_off, &st);
  if (!rc && schema.n && !batched) rc = check_schema(ps, stmt_off, name, &schema, st);
  if (!rc && deferred) {
    rc = create_deferred(ps, stmt_off, name, &schema, st, e.text);
  } else if (!rc && is_table && !schema.n && trak__psql_ptable_create(ps->p, name, st, e.text)) {
    /* stored columnar */
  } else if (!rc && (!is_table || !schema.n)) {
    sql = sqlite3_mprintf("CREATE %s \"%w\" AS %s", is_table ? "TABLE" : "VIEW", name, e.text);
    rc = batched ? (sql ? create_batched(ps, stmt_off, sql) : fail(ps, stmt_off, "out of memory"))
                 : exec_sql(ps, stmt_off, sql);
    sqlite3_free(sql);
  } else if (!rc) {
    /* A typed table: declared types from the schema, rows from the SELECT. */
    sqlite3_str *s = sqlite3_str_new(ps->p->db), *cols = sqlite3_str_new(ps->p->db);
    sqlite3_str_appendf(s, "CREATE TABLE \"%w\"(", name);
    for (size_t i = 0; i < schema.n; i++) {
      sqlite3_str_appendf(s, "%s\"%w\" %s", i ? ", " : "", schema.v[i].name,
                          trak__psql_sqlite_type(schema.v[i].type));
      sqlite3_str_appendf(cols, "%s\"%w\"", i ? ", " : "", schema.v[i].name);
    }
    char *col_list = sqlite3_str_finish(cols);
    sqlite3_str_appendf(s, "); INSERT INTO \"%w\"(%s) SELECT %s FROM (%s)", name, col_list,
                        col_list, e.text);
    sqlite3_free(col_list);
    sql = sqlite3_str_finish(s);
    rc = exec_sql(ps, stmt_off, sql);
    sqlite3_free(sql);
  }
  sqlite3_finalize(st);
  if (!rc && !is_table && trak__psql_lazy_note(ps->p, name, e.text))
    rc = fail(ps, stmt_off, "out of memory");
  if (!rc && is_table && trak__psql_table_note(ps->p, name))
    rc = fail(ps, stmt_off, "out of memory");
  free(name);
  arg_list_free(&schema);
  trak__psql_expansion_free(&e);
  return rc;
}

/* Whether the argument's type ends in "...": it takes the rest of the arguments. */
static int is_variadic(const psql_arg *a) {
  size_t n = strlen(a->type);
  return n > 3 && !strcmp(a->type + n - 3, "...");
}

/* The DELEGATES TO target part of CREATE PERFETTO FUNCTION: a function of the same arguments
** whose result is target's, for the same arguments in order. */
static int delegate(parser *ps, const char *name, const arg_list *args, int replace,
                    size_t name_off) {
  char *target = identifier(ps, "the name of the function delegated to");
  if (!target) return -1;
  int rc = 0;
  if (args->n == 1 && is_variadic(&args->v[0])) {
    if (trak__psql_function_define_variadic(ps->p, name, target, replace, ps->msg, ps->msg_len))
      rc = -1, *ps->err_off = name_off;
    free(target);
    return rc;
  }
  sqlite3_str *b = sqlite3_str_new(ps->p->db);
  sqlite3_str_appendf(b, "SELECT \"%w\"(", target);
  for (size_t i = 0; i < args->n; i++) {
    if (is_variadic(&args->v[i]))
      rc = fail(ps, name_off, "function '%s': only a sole argument may be variadic", name);
    sqlite3_str_appendf(b, "%s$%s", i ? ", " : "", args->v[i].name);
  }
  sqlite3_str_appendall(b, ")");
  char *body = sqlite3_str_finish(b);
  if (!rc && !body) rc = fail(ps, name_off, "out of memory");
  if (!rc && trak__psql_function_define(ps->p, name, args->v, args->n, NULL, 0, body, replace,
                                        ps->msg, ps->msg_len))
    rc = -1, *ps->err_off = name_off;
  sqlite3_free(body);
  free(target);
  return rc;
}

/* CREATE PERFETTO FUNCTION name(args) RETURNS type | TABLE(cols) AS select, or
** RETURNS type DELEGATES TO function. */
static int create_function(parser *ps, int replace) {
  arg_list args = {0}, cols = {0};
  psql_expansion e = {0};
  size_t body_off = 0, name_off = ps->t.off;
  char *ret = NULL;
  char *name = identifier(ps, "a function name");
  int rc = name ? arg_list_parse(ps, &args) : -1;
  if (!rc) rc = expect(ps, "RETURNS", accept(ps, "RETURNS"));
  if (!rc && accept(ps, "TABLE"))
    rc = arg_list_parse(ps, &cols);
  else if (!rc)
    rc = (ret = type_name(ps)) ? 0 : -1;
  if (!rc && ret && !trak__psql_sqlite_type(ret))
    rc = fail(ps, name_off, "function '%s': unknown return type '%s'", name, ret);
  if (!rc && ret && accept(ps, "DELEGATES")) {
    rc = expect(ps, "TO after DELEGATES", accept(ps, "TO"));
    if (!rc) rc = delegate(ps, name, &args, replace, name_off);
    free(name);
    free(ret);
    arg_list_free(&args);
    return rc;
  }
  if (!rc) rc = body(ps, &e, &body_off);
  if (!rc && trak__psql_function_define(ps->p, name, args.v, args.n, cols.v, cols.n, e.text,
                                        replace, ps->msg, ps->msg_len))
    rc = -1, *ps->err_off = name_off;
  /* Checked once defined, so that a body may call its own function; not in the set-up's schema
  ** batch, whose relations are not visible yet (tests/cli/perfetto_sql.sh runs the prelude's
  ** functions). */
  sqlite3_stmt *st = NULL;
  if (!rc && !ps->p->schema_batch) {
    rc = check_body(ps, &e, body_off, &st);
    if (!rc && cols.n && (size_t)sqlite3_column_count(st) != cols.n)
      rc = fail(ps, body_off,
                "function '%s': the body returns %d columns, RETURNS TABLE declares %zu", name,
                sqlite3_column_count(st), cols.n);
    sqlite3_finalize(st);
    if (rc) trak__psql_function_drop(ps->p, name);
  }
  if (!rc && trak__psql_lazy_note(ps->p, name, e.text)) rc = fail(ps, name_off, "out of memory");
  free(name);
  free(ret);
  arg_list_free(&args);
  arg_list_free(&cols);
  trak__psql_expansion_free(&e);
  return rc;
}

/* CREATE PERFETTO MACRO name(args) RETURNS type AS text. */
static int create_macro(parser *ps, int replace) {
  arg_list args = {0};
  size_t name_off = ps->t.off;
  char *name = identifier(ps, "a macro name");
  char *ret = NULL;
  int rc = name ? arg_list_parse(ps, &args) : -1;
  if (!rc) rc = expect(ps, "RETURNS", accept(ps, "RETURNS"));
  if (!rc) rc = (ret = type_name(ps)) ? 0 : -1;
  if (!rc) rc = expect(ps, "AS", accept(ps, "AS"));
  if (!rc) {
    size_t start = ps->t.off, stop = ps->end;
    while (stop > start && (ps->s[stop - 1] == ';' || ps->s[stop - 1] == ' ' ||
                            ps->s[stop - 1] == '\n' || ps->s[stop - 1] == '\t'))
      stop--;
    char **params = calloc(args.n ? args.n : 1, sizeof *params);
    for (size_t i = 0; params && i < args.n; i++)
      params[i] = args.v[i].name;
    if (!params ||
        trak__psql_macro_define(ps->p->psql->macros, name, strlen(name), params, args.n,
                                ps->s + start, stop - start, replace, ps->msg, ps->msg_len))
      rc = -1, *ps->err_off = name_off;
    free(params);
  }
  free(name);
  free(ret);
  arg_list_free(&args);
  return rc;
}

/* CREATE PERFETTO INDEX name ON table(cols) and DROP PERFETTO INDEX name ON table. */
static int index_statement(parser *ps, size_t stmt_off, int create, int replace) {
  char *name = identifier(ps, "an index name"), *table = NULL;
  int rc = name ? expect(ps, "ON", accept(ps, "ON")) : -1;
  if (!rc) rc = (table = identifier(ps, "a table name")) ? 0 : -1;
  char *sql = NULL;
  if (!rc && create) {
    size_t start = ps->t.off;
    rc = expect(ps, "'(' and the indexed columns", trak__psql_is_char(ps->s, ps->t, '('));
    size_t stop = trak__psql_statement_end(ps->s, ps->end, start);
    while (!rc && stop > start &&
           (ps->s[stop - 1] == ';' || ps->s[stop - 1] == ' ' || ps->s[stop - 1] == '\n'))
      stop--;
    if (!rc && replace) {
      sql = sqlite3_mprintf("DROP INDEX IF EXISTS \"%w\"", name);
      rc = exec_sql(ps, stmt_off, sql);
      sqlite3_free(sql);
    }
    if (!rc && trak__psql_ptable_named(ps->p, table)) {
      /* A table stored columnar (ptable.c) answers equalities on any column from sorted rows it
      ** builds on first use; SQLite cannot index it. */
    } else if (!rc) {
      sql = sqlite3_mprintf("CREATE INDEX \"%w\" ON \"%w\" %.*s", name, table, (int)(stop - start),
                            ps->s + start);
      int later = sql ? trak__psql_lazy_after_fill(ps->p, table, sql) : -1;
      if (later < 0)
        rc = fail(ps, stmt_off, "out of memory");
      else if (!later)
        rc = exec_sql(ps, stmt_off, sql);
      sqlite3_free(sql);
    }
  } else if (!rc && !trak__psql_ptable_named(ps->p, table)) {
    sql = sqlite3_mprintf("DROP INDEX \"%w\"", name);
    rc = exec_sql(ps, stmt_off, sql);
    sqlite3_free(sql);
  }
  free(name);
  free(table);
  return rc;
}

static int include(parser *ps) {
  size_t start = ps->t.off, stop = start;
  while (ps->t.kind == PSQL_ID || trak__psql_is_char(ps->s, ps->t, '.') ||
         trak__psql_is_char(ps->s, ps->t, '*')) {
    if (ps->t.off != stop && stop != start)
      return fail(ps, ps->t.off, "a module name cannot contain spaces");
    stop = ps->t.off + ps->t.len;
    advance(ps);
  }
  if (stop == start) return expect(ps, "a module name", 0);
  if (ps->t.kind != PSQL_EOF && !trak__psql_is_char(ps->s, ps->t, ';'))
    return expect(ps, "';' after the module name", 0);
  char *name = strndup(ps->s + start, stop - start);
  int rc = name ? trak__psql_include(ps->p, name, ps->msg, ps->msg_len) : -1;
  if (rc) *ps->err_off = start;
  free(name);
  return rc;
}

int trak__psql_run_statement(trak_processor *p, const char *s, size_t start, size_t end, char *msg,
                             size_t msg_len, size_t *err_off) {
  parser ps = {p, s, end, trak__psql_lex(s, end, start), msg, msg_len, err_off};
  if (trak__psql_is(s, ps.t, "SELECT"))
    return trak__psql_run_legacy(p, s, start, end, msg, msg_len, err_off);
  if (accept(&ps, "INCLUDE")) {
    if (!accept(&ps, "PERFETTO")) return 0;
    if (expect(&ps, "MODULE after INCLUDE PERFETTO", accept(&ps, "MODULE"))) return -1;
    return include(&ps) ? -1 : 1;
  }
  if (accept(&ps, "DROP")) {
    if (!accept(&ps, "PERFETTO")) return 0;
    if (expect(&ps, "INDEX after DROP PERFETTO", accept(&ps, "INDEX"))) return -1;
    return index_statement(&ps, start, 0, 0) ? -1 : 1;
  }
  if (!accept(&ps, "CREATE")) return 0;
  int replace = 0;
  if (accept(&ps, "OR")) {
    if (!accept(&ps, "REPLACE")) return 0;
    replace = 1;
  }
  if (!accept(&ps, "PERFETTO")) return 0;
  int rc;
  if (accept(&ps, "FUNCTION"))
    rc = create_function(&ps, replace);
  else if (accept(&ps, "TABLE"))
    rc = create_relation(&ps, start, replace, 1);
  else if (accept(&ps, "VIEW"))
    rc = create_relation(&ps, start, replace, 0);
  else if (accept(&ps, "MACRO"))
    rc = create_macro(&ps, replace);
  else if (accept(&ps, "INDEX"))
    rc = index_statement(&ps, start, 1, replace);
  else
    rc = expect(&ps, "FUNCTION, TABLE, VIEW, MACRO or INDEX after CREATE PERFETTO", 0);
  return rc ? -1 : 1;
}
