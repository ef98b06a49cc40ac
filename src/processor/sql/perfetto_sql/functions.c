/*
** This file holds CREATE PERFETTO FUNCTION: a scalar function is a SQLite function that runs
** the prepared body with the arguments bound to its `$name` parameters and returns the first
** column of the first row (NULL without rows); a table function is an eponymous virtual table
** whose hidden columns are the arguments and whose rows are the body's rows, materialised when
** SQLite filters it.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "processor/sql/perfetto_sql/psql.h"

typedef struct psql_fn {
  char *name;
  psql_arg *args;
  size_t nargs;
  psql_arg *cols; /* table functions only */
  size_t ncols;
  char *body;
  sqlite3_stmt *stmt; /* cached, prepared on first use */
  trak_processor *p;
  int refs;          /* registry + SQLite's registration */
  int variadic;      /* DELEGATES TO with `args ANY...`: body is the target function's name */
  struct memo *memo; /* EXPERIMENTAL_MEMOIZE: results by integer argument, or NULL */
} psql_fn;

/* The memoised results of a one-argument function: open addressing on the integer argument.
** NULL results are not kept (Perfetto's rule: a NULL may be a "not yet known"). */
typedef struct memo {
  sqlite3_int64 *keys;
  sqlite3_value **vals; /* NULL: free slot */
  size_t cap, used;
} memo;

static void memo_free(memo *m) {
  if (!m) return;
  for (size_t i = 0; i < m->cap; i++)
    sqlite3_value_free(m->vals[i]);
  free(m->keys);
  free(m->vals);
  free(m);
}

static size_t memo_slot(const memo *m, sqlite3_int64 k) {
  size_t i = (size_t)((unsigned long long)k * 0x9E3779B97F4A7C15ull) & (m->cap - 1);
  while (m->vals[i] && m->keys[i] != k)
    i = (i + 1) & (m->cap - 1);
  return i;
}

static sqlite3_value *memo_get(const memo *m, sqlite3_int64 k) {
  return m->cap ? m->vals[memo_slot(m, k)] : NULL;
}

/* Keeps a copy of `v` for `k`; out of memory only loses the cache entry. */
static void memo_put(memo *m, sqlite3_int64 k, sqlite3_value *v) {
  if ((m->used + 1) * 2 > m->cap) {
    memo bigger = {0};
    bigger.cap = m->cap ? m->cap * 2 : 64;
    bigger.keys = calloc(bigger.cap, sizeof *bigger.keys);
    bigger.vals = calloc(bigger.cap, sizeof *bigger.vals);
    if (!bigger.keys || !bigger.vals) {
      free(bigger.keys);
      free(bigger.vals);
      return;
    }
    for (size_t i = 0; i < m->cap; i++)
      if (m->vals[i]) {
        size_t j = memo_slot(&bigger, m->keys[i]);
        bigger.keys[j] = m->keys[i];
        bigger.vals[j] = m->vals[i];
      }
    free(m->keys);
    free(m->vals);
    m->keys = bigger.keys;
    m->vals = bigger.vals;
    m->cap = bigger.cap;
  }
  size_t i = memo_slot(m, k);
  if (m->vals[i]) return;
  m->vals[i] = sqlite3_value_dup(v);
  if (!m->vals[i]) return;
  m->keys[i] = k;
  m->used++;
}

static void set_msg(char *msg, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, len, fmt, ap);
  va_end(ap);
}

const char *trak__psql_sqlite_type(const char *type) {
  static const struct {
    const char *perfetto, *sqlite;
  } types[] = {{"INT", "INTEGER"},
               {"LONG", "INTEGER"},
               {"BOOL", "INTEGER"},
               {"UINT", "INTEGER"},
               {"TIMESTAMP", "INTEGER"},
               {"DURATION", "INTEGER"},
               {"ID", "INTEGER"},
               {"JOINID", "INTEGER"},
               {"ARGSETID", "INTEGER"},
               {"INTEGER", "INTEGER"},
               {"BIGINT", "INTEGER"},
               {"DOUBLE", "REAL"},
               {"FLOAT", "REAL"},
               {"REAL", "REAL"},
               {"STRING", "TEXT"},
               {"TEXT", "TEXT"},
               {"BYTES", "BLOB"},
               {"BLOB", "BLOB"},
               {"ANY", ""}};
  size_t n = strcspn(type, "( \t\n.");
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (strlen(types[i].perfetto) == n && !strncasecmp(type, types[i].perfetto, n))
      return types[i].sqlite;
  return NULL;
}

static void args_free(psql_arg *a, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(a[i].name);
    free(a[i].type);
  }
  free(a);
}

static psql_arg *args_dup(const psql_arg *a, size_t n) {
  psql_arg *out = calloc(n ? n : 1, sizeof *out);
  for (size_t i = 0; out && i < n; i++) {
    out[i].name = strdup(a[i].name);
    out[i].type = strdup(a[i].type);
  }
  return out;
}

static void fn_unref(void *v) {
  psql_fn *f = v;
  if (--f->refs > 0) return;
  sqlite3_finalize(f->stmt);
  memo_free(f->memo);
  free(f->name);
  free(f->body);
  args_free(f->args, f->nargs);
  args_free(f->cols, f->ncols);
  free(f);
}

/* Binds `argv` to the body's $name parameters. */
static void bind_args(psql_fn *f, sqlite3_stmt *st, sqlite3_value **argv) {
  for (size_t i = 0; i < f->nargs; i++) {
    char name[256];
    snprintf(name, sizeof name, "$%s", f->args[i].name);
    int idx = sqlite3_bind_parameter_index(st, name);
    if (idx > 0) {
      if (argv && argv[i])
        sqlite3_bind_value(st, idx, argv[i]);
      else
        sqlite3_bind_null(st, idx);
    }
  }
}

/* The function's statement, or a fresh one when the cached one is running (recursion).
** *fresh says whether the caller must finalize it. */
static sqlite3_stmt *acquire(psql_fn *f, int *fresh) {
  *fresh = 0;
  if (f->stmt && !sqlite3_stmt_busy(f->stmt)) return f->stmt;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(f->p->db, f->body, -1, &st, NULL) != SQLITE_OK) return NULL;
  if (!f->stmt)
    f->stmt = st;
  else
    *fresh = 1;
  return st;
}

static void release(sqlite3_stmt *st, int fresh) {
  if (fresh) {
    sqlite3_finalize(st);
  } else {
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
  }
}

/* Fails the call with the body's error, named by the function unless it already is (a nested
** call of the same function, or the depth limit, which names the function itself). */
static void call_error(sqlite3_context *ctx, psql_fn *f) {
  const char *e = sqlite3_errmsg(f->p->db);
  size_t n = strlen(f->name);
  if ((!strncmp(e, f->name, n) && e[n] == ':') || strstr(e, "nested deeper than")) {
    sqlite3_result_error(ctx, e, -1);
    return;
  }
  char *m = sqlite3_mprintf("%s: %s", f->name, e);
  sqlite3_result_error(ctx, m, -1);
  sqlite3_free(m);
}

/* Nested calls of PerfettoSQL functions (recursion, or functions calling functions) each run a
** statement on the C stack; past this depth the call fails instead of overflowing the stack. */
enum { MAX_CALL_DEPTH = 100 };

/* A function DELEGATES TO another with any number of arguments: runs SELECT target(?1, ...). */
static void variadic_call(sqlite3_context *ctx, psql_fn *f, int argc, sqlite3_value **argv) {
  sqlite3_str *q = sqlite3_str_new(f->p->db);
  sqlite3_str_appendf(q, "SELECT \"%w\"(", f->body);
  for (int i = 0; i < argc; i++)
    sqlite3_str_appendf(q, "%s?%d", i ? ", " : "", i + 1);
  sqlite3_str_appendall(q, ")");
  char *sql = sqlite3_str_finish(q);
  sqlite3_stmt *st = NULL;
  if (!sql || sqlite3_prepare_v2(f->p->db, sql, -1, &st, NULL) != SQLITE_OK) {
    sqlite3_free(sql);
    call_error(ctx, f);
    return;
  }
  sqlite3_free(sql);
  for (int i = 0; i < argc; i++)
    sqlite3_bind_value(st, i + 1, argv[i]);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW)
    sqlite3_result_value(ctx, sqlite3_column_value(st, 0));
  else if (rc != SQLITE_DONE)
    call_error(ctx, f);
  sqlite3_finalize(st);
}

static void scalar_call(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  psql_fn *f = sqlite3_user_data(ctx);
  if (f->p->psql->call_depth >= MAX_CALL_DEPTH) {
    char *m = sqlite3_mprintf("%s: functions nested deeper than %d calls", f->name, MAX_CALL_DEPTH);
    sqlite3_result_error(ctx, m, -1);
    sqlite3_free(m);
    return;
  }
  if (f->variadic) {
    variadic_call(ctx, f, argc, argv);
    return;
  }
  int memoised = f->memo && argc == 1 && sqlite3_value_type(argv[0]) == SQLITE_INTEGER;
  sqlite3_int64 key = memoised ? sqlite3_value_int64(argv[0]) : 0;
  sqlite3_value *known = memoised ? memo_get(f->memo, key) : NULL;
  if (known) {
    sqlite3_result_value(ctx, known);
    return;
  }
  int fresh;
  sqlite3_stmt *st = acquire(f, &fresh);
  if (!st) {
    char *m = sqlite3_mprintf("%s: %s", f->name, sqlite3_errmsg(f->p->db));
    sqlite3_result_error(ctx, m, -1);
    sqlite3_free(m);
    return;
  }
  bind_args(f, st, argv);
  f->p->psql->call_depth++;
  int rc = sqlite3_step(st);
  f->p->psql->call_depth--;
  if (rc == SQLITE_ROW) {
    sqlite3_value *v = sqlite3_column_value(st, 0);
    if (memoised && sqlite3_value_type(v) != SQLITE_NULL) memo_put(f->memo, key, v);
    sqlite3_result_value(ctx, v);
  } else if (rc != SQLITE_DONE) {
    call_error(ctx, f);
  }
  release(st, fresh);
}

/* ---- table functions --------------------------------------------------------------------- */

typedef struct tf_vtab {
  sqlite3_vtab base;
  psql_fn *f;
} tf_vtab;

typedef struct tf_cursor {
  sqlite3_vtab_cursor base;
  sqlite3_value **vals; /* rows * ncols */
  size_t rows, cap, i;
  sqlite3_value **argv; /* the arguments of this scan, for the hidden columns */
} tf_cursor;

static int tf_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                      char **err) {
  psql_fn *f = aux;
  sqlite3_str *s = sqlite3_str_new(db);
  sqlite3_str_appendall(s, "CREATE TABLE x(");
  for (size_t i = 0; i < f->ncols; i++)
    sqlite3_str_appendf(
        s, "%s\"%w\" %s", i ? ", " : "", f->cols[i].name,
        trak__psql_sqlite_type(f->cols[i].type) ? trak__psql_sqlite_type(f->cols[i].type) : "");
  for (size_t i = 0; i < f->nargs; i++)
    sqlite3_str_appendf(s, ", \"$%w\" HIDDEN", f->args[i].name);
  sqlite3_str_appendall(s, ")");
  char *sql = sqlite3_str_finish(s);
  int rc = sql ? sqlite3_declare_vtab(db, sql) : SQLITE_NOMEM;
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return rc;
  tf_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->f = f;
  f->refs++;
  *out = &v->base;
  return SQLITE_OK;
}

static int tf_disconnect(sqlite3_vtab *vt) {
  fn_unref(((tf_vtab *)vt)->f);
  sqlite3_free(vt);
  return SQLITE_OK;
}

/* Every argument must be given by equality; idxNum has a bit per argument given. */
static int tf_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  psql_fn *f = ((tf_vtab *)vt)->f;
  int given[64] = {0}, mask = 0;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    int a = c->iColumn - (int)f->ncols;
    if (a < 0 || a >= 64 || c->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!c->usable) return SQLITE_CONSTRAINT;
    given[a] = i + 1;
  }
  int next = 1;
  for (size_t a = 0; a < f->nargs && a < 64; a++) {
    if (!given[a]) continue;
    info->aConstraintUsage[given[a] - 1].argvIndex = next++;
    info->aConstraintUsage[given[a] - 1].omit = 1;
    mask |= 1 << a;
  }
  info->idxNum = mask;
  info->estimatedCost = 1000;
  info->estimatedRows = 1000;
  return SQLITE_OK;
}

static void cursor_clear(tf_cursor *c, size_t ncols, size_t nargs) {
  for (size_t i = 0; i < c->rows * ncols; i++)
    sqlite3_value_free(c->vals[i]);
  c->rows = 0;
  c->i = 0;
  for (size_t i = 0; c->argv && i < nargs; i++)
    sqlite3_value_free(c->argv[i]);
  sqlite3_free(c->argv);
  c->argv = NULL;
}

static int tf_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  tf_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *out = &c->base;
  return SQLITE_OK;
}

static int tf_close(sqlite3_vtab_cursor *cur) {
  tf_cursor *c = (tf_cursor *)cur;
  psql_fn *f = ((tf_vtab *)cur->pVtab)->f;
  cursor_clear(c, f->ncols, f->nargs);
  sqlite3_free(c->vals);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int tf_error(sqlite3_vtab_cursor *cur, psql_fn *f) {
  sqlite3_free(cur->pVtab->zErrMsg);
  cur->pVtab->zErrMsg = sqlite3_mprintf("%s: %s", f->name, sqlite3_errmsg(f->p->db));
  return SQLITE_ERROR;
}

static int tf_filter(sqlite3_vtab_cursor *cur, int mask, const char *plan, int argc,
                     sqlite3_value **argv) {
  tf_cursor *c = (tf_cursor *)cur;
  psql_fn *f = ((tf_vtab *)cur->pVtab)->f;
  cursor_clear(c, f->ncols, f->nargs);
  c->argv = sqlite3_malloc64((f->nargs ? f->nargs : 1) * sizeof *c->argv);
  if (!c->argv) return SQLITE_NOMEM;
  int k = 0;
  for (size_t a = 0; a < f->nargs; a++)
    c->argv[a] = (mask >> a) & 1 ? sqlite3_value_dup(argv[k++]) : NULL;
  int fresh;
  sqlite3_stmt *st = acquire(f, &fresh);
  if (!st) return tf_error(cur, f);
  if ((size_t)sqlite3_column_count(st) != f->ncols) {
    release(st, fresh);
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg =
        sqlite3_mprintf("%s: the body returns %d columns, RETURNS TABLE declares %d", f->name,
                        sqlite3_column_count(st), (int)f->ncols);
    return SQLITE_ERROR;
  }
  if (f->p->psql->call_depth >= MAX_CALL_DEPTH) {
    release(st, fresh);
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg =
        sqlite3_mprintf("%s: functions nested deeper than %d calls", f->name, MAX_CALL_DEPTH);
    return SQLITE_ERROR;
  }
  bind_args(f, st, c->argv);
  int rc;
  f->p->psql->call_depth++;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if ((c->rows + 1) * f->ncols > c->cap) {
      size_t cap = c->cap ? c->cap * 2 : 64 * (f->ncols ? f->ncols : 1);
      sqlite3_value **v = sqlite3_realloc64(c->vals, cap * sizeof *v);
      if (!v) {
        f->p->psql->call_depth--;
        release(st, fresh);
        return SQLITE_NOMEM;
      }
      c->vals = v;
      c->cap = cap;
    }
    for (size_t i = 0; i < f->ncols; i++)
      c->vals[c->rows * f->ncols + i] = sqlite3_value_dup(sqlite3_column_value(st, (int)i));
    c->rows++;
  }
  f->p->psql->call_depth--;
  if (rc != SQLITE_DONE) {
    rc = tf_error(cur, f);
    release(st, fresh);
    return rc;
  }
  release(st, fresh);
  return SQLITE_OK;
}

static int tf_next(sqlite3_vtab_cursor *cur) {
  ((tf_cursor *)cur)->i++;
  return SQLITE_OK;
}

static int tf_eof(sqlite3_vtab_cursor *cur) {
  tf_cursor *c = (tf_cursor *)cur;
  return c->i >= c->rows;
}

static int tf_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  tf_cursor *c = (tf_cursor *)cur;
  psql_fn *f = ((tf_vtab *)cur->pVtab)->f;
  if ((size_t)col < f->ncols) {
    sqlite3_value *v = c->vals[c->i * f->ncols + (size_t)col];
    if (v) sqlite3_result_value(ctx, v);
  } else if (c->argv && c->argv[col - (int)f->ncols]) {
    sqlite3_result_value(ctx, c->argv[col - (int)f->ncols]);
  }
  return SQLITE_OK;
}

static int tf_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((tf_cursor *)cur)->i;
  return SQLITE_OK;
}

static const sqlite3_module tf_module = {
    .iVersion = 1,
    .xConnect = tf_connect,
    .xBestIndex = tf_best_index,
    .xDisconnect = tf_disconnect,
    .xDestroy = tf_disconnect,
    .xOpen = tf_open,
    .xClose = tf_close,
    .xFilter = tf_filter,
    .xNext = tf_next,
    .xEof = tf_eof,
    .xColumn = tf_column,
    .xRowid = tf_rowid,
};

/* ---- the registry ------------------------------------------------------------------------ */

static psql_fn **find(trak_psql *s, const char *name) {
  for (size_t i = 0; i < s->nfns; i++)
    if (!strcasecmp(s->fns[i]->name, name)) return &s->fns[i];
  return NULL;
}

/* Defines `name`; `variadic` makes it a scalar function of any arity whose `body` is the name of
** the function it delegates to. */
static int define(trak_processor *p, const char *name, const psql_arg *args, size_t nargs,
                  const psql_arg *cols, size_t ncols, const char *body, int variadic, int replace,
                  char *msg, size_t msg_len) {
  trak_psql *s = p->psql;
  psql_fn **slot = find(s, name);
  if (slot && !replace) {
    set_msg(msg, msg_len, "function '%s' already exists (use CREATE OR REPLACE)", name);
    return -1;
  }
  if (slot && (!(*slot)->ncols) != (!ncols)) {
    set_msg(msg, msg_len, "function '%s' cannot change between scalar and table", name);
    return -1;
  }
  if (nargs > 64)
    return set_msg(msg, msg_len, "function '%s' has more than 64 arguments", name), -1;
  for (size_t i = 0; i < nargs + ncols; i++) {
    const psql_arg *a = i < nargs ? &args[i] : &cols[i - nargs];
    if (!trak__psql_sqlite_type(a->type)) {
      set_msg(msg, msg_len, "function '%s': unknown type '%s' of '%s'", name, a->type, a->name);
      return -1;
    }
  }
  psql_fn *f = calloc(1, sizeof *f);
  if (f) {
    f->name = strdup(name);
    f->body = strdup(body);
    f->args = args_dup(args, nargs);
    f->cols = args_dup(cols, ncols);
  }
  if (!f || !f->name || !f->body || !f->args || !f->cols) {
    if (f) f->refs = 1, fn_unref(f);
    return set_msg(msg, msg_len, "out of memory"), -1;
  }
  f->nargs = nargs;
  f->ncols = ncols;
  f->variadic = variadic;
  f->p = p;    /* the statement is prepared at the first call: the body may call f itself */
  f->refs = 2; /* the registry and SQLite */
  int rc;
  if (ncols)
    rc = sqlite3_create_module_v2(p->db, name, &tf_module, f, fn_unref);
  else
    rc = sqlite3_create_function_v2(p->db, name, variadic ? -1 : (int)nargs, SQLITE_UTF8, f,
                                    scalar_call, NULL, NULL, fn_unref);
  if (rc != SQLITE_OK) {
    set_msg(msg, msg_len, "function '%s': %s", name, sqlite3_errmsg(p->db));
    f->refs = 1;
    fn_unref(f);
    return -1;
  }
  if (slot) {
    fn_unref(*slot);
    *slot = f;
    return 0;
  }
  psql_fn **v = realloc(s->fns, (s->nfns + 1) * sizeof *v);
  if (!v) {
    fn_unref(f);
    return set_msg(msg, msg_len, "out of memory"), -1;
  }
  s->fns = v;
  s->fns[s->nfns++] = f;
  return 0;
}

int trak__psql_function_define(trak_processor *p, const char *name, const psql_arg *args,
                               size_t nargs, const psql_arg *cols, size_t ncols, const char *body,
                               int replace, char *msg, size_t msg_len) {
  return define(p, name, args, nargs, cols, ncols, body, 0, replace, msg, msg_len);
}

int trak__psql_function_define_variadic(trak_processor *p, const char *name, const char *target,
                                        int replace, char *msg, size_t msg_len) {
  return define(p, name, NULL, 0, NULL, 0, target, 1, replace, msg, msg_len);
}

int trak__psql_function_defined(trak_processor *p, const char *name) {
  return p->psql && find(p->psql, name) != NULL;
}

int trak__psql_function_memoize(trak_processor *p, const char *name, char *msg, size_t msg_len) {
  psql_fn **slot = find(p->psql, name);
  if (!slot) return set_msg(msg, msg_len, "EXPERIMENTAL_MEMOIZE: no function '%s'", name), -1;
  psql_fn *f = *slot;
  if (f->ncols || f->variadic || f->nargs != 1)
    return set_msg(msg, msg_len,
                   "EXPERIMENTAL_MEMOIZE: '%s' must be a scalar function of one argument", name),
           -1;
  if (!f->memo && !(f->memo = calloc(1, sizeof *f->memo)))
    return set_msg(msg, msg_len, "out of memory"), -1;
  return 0;
}

void trak__psql_function_drop(trak_processor *p, const char *name) {
  trak_psql *s = p->psql;
  psql_fn **slot = find(s, name);
  if (!slot) return;
  psql_fn *f = *slot;
  if (f->ncols)
    sqlite3_create_module_v2(p->db, name, NULL, NULL, NULL);
  else
    sqlite3_create_function_v2(p->db, name, f->variadic ? -1 : (int)f->nargs, SQLITE_UTF8, NULL,
                               NULL, NULL, NULL, NULL);
  *slot = s->fns[--s->nfns];
  fn_unref(f);
}

void trak__psql_functions_free(trak_processor *p) {
  trak_psql *s = p->psql;
  /* Statements first: SQLite drops its references while closing, when finalizing is too late. */
  for (size_t i = 0; i < s->nfns; i++) {
    sqlite3_finalize(s->fns[i]->stmt);
    s->fns[i]->stmt = NULL;
  }
  for (size_t i = 0; i < s->nfns; i++)
    fn_unref(s->fns[i]);
  free(s->fns);
  s->fns = NULL;
  s->nfns = 0;
}
