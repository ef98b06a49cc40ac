/*
** This file holds the SQL guard: a SQLite authorizer that, once a processor is restricted, lets
** its SQL read everything and create (and then change) objects of its own, but not touch a file
** (ATTACH, DETACH, VACUUM, PRAGMA beyond a read-only few, file functions) nor change or drop
** any table, view, index, trigger or function that existed when the restriction began.
*/
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "processor/processor_internal.h"

struct trak_sql_guard {
  char **names; /* objects of the schema at restriction time, sorted without case */
  size_t n;
  int trusted; /* > 0 while trak runs its own statements (a module table filled on first use) */
};

/* PRAGMAs that only read: the rest can change the connection or name files. */
static const char *const read_pragmas[] = {
    "table_info",     "table_xinfo",      "table_list",    "index_list",  "index_info",
    "index_xinfo",    "foreign_key_list", "function_list", "module_list", "pragma_list",
    "collation_list", "compile_options",  "database_list"};

/* SQL functions that reach files or the extension loader (most exist only in sqlite3's shell,
** listed in case a build has them). */
static const char *const file_functions[] = {"load_extension", "readfile", "writefile", "edit",
                                             "fts3_tokenizer", "lsdir",    "fsdir"};

static int name_cmp(const void *a, const void *b) {
  return strcasecmp(*(char *const *)a, *(char *const *)b);
}

static int in_list(const char *name, const char *const *list, size_t n) {
  for (size_t i = 0; name && i < n; i++)
    if (!strcasecmp(name, list[i])) return 1;
  return 0;
}

/* Whether `name` is one of the objects trak (or its user before the restriction) made. */
static int is_original(const trak_sql_guard *g, const char *name) {
  if (!name) return 0;
  /* sqlite_schema itself is written by CREATE and DROP; SQLite refuses any other write to it
  ** while writable_schema is off, and that PRAGMA is refused here. */
  return bsearch(&name, g->names, g->n, sizeof *g->names, name_cmp) != NULL;
}

static int authorize(void *user, int action, const char *a, const char *b, const char *db,
                     const char *inner) {
  (void)inner;
  const trak_sql_guard *g = user;
  if (g->trusted) return SQLITE_OK;
  switch (action) {
  case SQLITE_ATTACH:
  case SQLITE_DETACH:
    return SQLITE_DENY;
  case SQLITE_PRAGMA:
    /* A read-only PRAGMA with no value: `PRAGMA table_info(x)` gives the argument x in b. */
    return in_list(a, read_pragmas, sizeof read_pragmas / sizeof *read_pragmas) ? SQLITE_OK
                                                                                : SQLITE_DENY;
  case SQLITE_FUNCTION:
    return in_list(b, file_functions, sizeof file_functions / sizeof *file_functions) ? SQLITE_DENY
                                                                                      : SQLITE_OK;
  case SQLITE_INSERT:
  case SQLITE_UPDATE:
  case SQLITE_DELETE:
  case SQLITE_DROP_TABLE:
  case SQLITE_DROP_TEMP_TABLE:
  case SQLITE_DROP_VIEW:
  case SQLITE_DROP_TEMP_VIEW:
  case SQLITE_DROP_VTABLE:
  case SQLITE_ALTER_TABLE:
  case SQLITE_CREATE_TRIGGER:
  case SQLITE_CREATE_TEMP_TRIGGER:
  case SQLITE_CREATE_INDEX:
  case SQLITE_CREATE_TEMP_INDEX:
  case SQLITE_REINDEX:
  case SQLITE_ANALYZE:
    /* a is the table (for ALTER, b is); the temp schema's own tables are the user's. */
    return is_original(g, action == SQLITE_ALTER_TABLE ? b : a) ? SQLITE_DENY : SQLITE_OK;
  case SQLITE_DROP_INDEX:
  case SQLITE_DROP_TEMP_INDEX:
  case SQLITE_DROP_TRIGGER:
  case SQLITE_DROP_TEMP_TRIGGER:
    return is_original(g, a) || is_original(g, b) ? SQLITE_DENY : SQLITE_OK;
  default:
    (void)db;
    return SQLITE_OK;
  }
}

/* Appends the name in column 0 of every row of `sql` to the guard's list. SQLITE_OK or error. */
static int collect(sqlite3 *db, const char *sql, trak_sql_guard *g) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    char **v = realloc(g->names, (g->n + 1) * sizeof *v);
    char *copy = name ? strdup(name) : NULL;
    if (!v || !copy) {
      free(copy);
      if (v) g->names = v;
      rc = SQLITE_NOMEM;
      break;
    }
    g->names = v;
    g->names[g->n++] = copy;
  }
  sqlite3_finalize(st);
  return rc;
}

int trak_processor_restrict_sql(trak_processor *p, trak_error *err) {
  int ready = trak__sql_ready(p, err); /* the names it protects are those of the set-up */
  if (ready) return ready;
  if (p->guard) return 0;
  trak_sql_guard *g = calloc(1, sizeof *g);
  if (!g) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  /* Every named object: tables, views, indexes, triggers, and the virtual tables' modules'
  ** eponymous tables and the functions (their names protect them from DROP PERFETTO ...). */
  int rc =
      collect(p->db, "SELECT name FROM sqlite_schema UNION SELECT name FROM sqlite_temp_schema", g);
  if (rc == SQLITE_OK) rc = collect(p->db, "SELECT name FROM pragma_module_list", g);
  if (rc != SQLITE_OK) {
    trak__sql_guard_free(g);
    return trak_error_set(err, TRAK_ENOMEM, "cannot restrict SQL: %s", sqlite3_errmsg(p->db));
  }
  qsort(g->names, g->n, sizeof *g->names, name_cmp);
  /* ATTACH is also what VACUUM INTO does inside: with no database allowed, neither runs even
  ** where SQLite does not ask the authorizer. */
  sqlite3_limit(p->db, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_set_authorizer(p->db, authorize, g);
  p->guard = g;
  return 0;
}

void trak__sql_guard_trust(trak_processor *p, int delta) {
  if (p->guard) p->guard->trusted += delta;
}

void trak__sql_guard_free(trak_sql_guard *g) {
  if (!g) return;
  for (size_t i = 0; i < g->n; i++)
    free(g->names[i]);
  free(g->names);
  free(g);
}
