/*
** This file holds perfetto_table_info(name): for a table made by CREATE PERFETTO TABLE (the
** statements note each one here; other tables are "not found", as in Perfetto), a row
** per column describing it as Perfetto's columnar storage would hold it, then the _auto_id
** column every such table has: id, table_name, name, col_type, nullable, sorted.
**
** col_type: 'id' for integers 0, 1, 2, ... in row order; 'uint32', 'int32' or 'int64' for the
** narrowest integer type holding them (all NULL counts as uint32); 'double' once a REAL
** appears; 'string' once a TEXT does. nullable: any NULL. sorted, Perfetto's numbers: 0 the
** id column, 1 a sorted "set id" column (each value is its first row's index), 2 sorted,
** 3 unsorted (so is any nullable or empty column).
*/
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "processor/sql/perfetto_sql/psql.h"
#include "processor/tables/vtab_tvf.h"

enum { SORT_ID, SORT_SET_ID, SORT_SORTED, SORT_UNSORTED };

typedef struct col_info {
  char *name;
  const char *type;
  int nullable, sorted;
} col_info;

/* What one column's values, read in row order, make of it. */
typedef struct col_scan {
  int has_text, has_real, has_null, has_int;
  int64_t min, max;
  int is_id, is_set_id, is_sorted;
  int64_t rows;
  sqlite3_value *prev;
} col_scan;

static void col_step(col_scan *c, sqlite3_value *v) {
  int t = sqlite3_value_type(v);
  int64_t row = c->rows++;
  if (t == SQLITE_NULL) {
    c->has_null = 1;
  } else if (t == SQLITE_TEXT || t == SQLITE_BLOB) {
    c->has_text = 1;
  } else if (t == SQLITE_FLOAT) {
    c->has_real = 1;
  } else {
    int64_t i = sqlite3_value_int64(v);
    if (!c->has_int || i < c->min) c->min = i;
    if (!c->has_int || i > c->max) c->max = i;
    c->has_int = 1;
    int same = c->prev && sqlite3_value_type(c->prev) == SQLITE_INTEGER &&
               sqlite3_value_int64(c->prev) == i;
    c->is_id &= i == row;
    c->is_set_id &= i == row || same;
  }
  if (t != SQLITE_INTEGER) c->is_id = c->is_set_id = 0;
  if (c->prev && t != SQLITE_NULL && sqlite3_value_type(c->prev) != SQLITE_NULL) {
    int pt = sqlite3_value_type(c->prev);
    int text = t == SQLITE_TEXT || pt == SQLITE_TEXT;
    if (text ? strcmp((const char *)sqlite3_value_text(c->prev),
                      (const char *)sqlite3_value_text(v)) > 0
             : sqlite3_value_double(c->prev) > sqlite3_value_double(v))
      c->is_sorted = 0;
  }
  sqlite3_value_free(c->prev);
  c->prev = sqlite3_value_dup(v);
}

static void col_finish(col_scan *c, col_info *out) {
  sqlite3_value_free(c->prev);
  c->prev = NULL;
  out->nullable = c->has_null;
  if (c->is_id && c->rows > 0) {
    out->type = "id";
    out->sorted = SORT_ID;
    return;
  }
  if (c->has_text)
    out->type = "string";
  else if (c->has_real)
    out->type = "double";
  else if (!c->has_int || (c->min >= 0 && c->max <= 0xFFFFFFFFLL))
    out->type = "uint32";
  else if (c->min >= -2147483648LL && c->max <= 2147483647LL)
    out->type = "int32";
  else
    out->type = "int64";
  if (c->has_null || !c->rows || !c->is_sorted)
    out->sorted = SORT_UNSORTED;
  else
    out->sorted = c->is_set_id && !c->has_text && !c->has_real ? SORT_SET_ID : SORT_SORTED;
}

typedef struct info_cursor {
  sqlite3_vtab_cursor base;
  char *table;
  col_info *cols;
  size_t n, row;
} info_cursor;

static void info_clear(info_cursor *c) {
  for (size_t i = 0; i < c->n; i++)
    free(c->cols[i].name);
  free(c->cols);
  free(c->table);
  c->cols = NULL;
  c->table = NULL;
  c->n = c->row = 0;
}

static int set_error(sqlite3_vtab *v, const char *fmt, const char *arg) {
  sqlite3_free(v->zErrMsg);
  v->zErrMsg = sqlite3_mprintf(fmt, arg);
  return SQLITE_ERROR;
}

int trak__psql_table_note(trak_processor *p, const char *name) {
  trak_psql *s = p->psql;
  for (size_t i = 0; i < s->ntables; i++)
    if (!strcasecmp(s->tables[i], name)) return 0;
  char **v = realloc(s->tables, (s->ntables + 1) * sizeof *v);
  if (!v) return -1;
  s->tables = v;
  if (!(s->tables[s->ntables] = strdup(name))) return -1;
  s->ntables++;
  return 0;
}

void trak__psql_tables_free(trak_processor *p) {
  for (size_t i = 0; i < p->psql->ntables; i++)
    free(p->psql->tables[i]);
  free(p->psql->tables);
  p->psql->tables = NULL;
  p->psql->ntables = 0;
}

/* Scans PerfettoSQL table `name` into c->cols. */
static int describe(trak_processor *p, sqlite3_vtab *v, info_cursor *c, const char *name) {
  sqlite3 *db = p->db;
  sqlite3_stmt *st = NULL;
  int found = 0;
  for (size_t i = 0; i < p->psql->ntables && !found; i++)
    found = !strcasecmp(p->psql->tables[i], name);
  if (!found) return set_error(v, "Perfetto table '%s' not found.", name);
  char *sql = sqlite3_mprintf("SELECT * FROM \"%w\"", name);
  int rc = sql ? sqlite3_prepare_v2(db, sql, -1, &st, NULL) : SQLITE_NOMEM;
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return set_error(v, "%s", sqlite3_errmsg(db));
  size_t n = (size_t)sqlite3_column_count(st);
  col_scan *scans = calloc(n + 1, sizeof *scans);
  c->cols = calloc(n + 2, sizeof *c->cols);
  c->table = strdup(name);
  if (!scans || !c->cols || !c->table) {
    free(scans);
    sqlite3_finalize(st);
    return SQLITE_NOMEM;
  }
  for (size_t k = 0; k < n; k++)
    scans[k].is_id = scans[k].is_set_id = scans[k].is_sorted = 1;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    for (size_t k = 0; k < n; k++)
      col_step(&scans[k], sqlite3_column_value(st, (int)k));
  for (size_t k = 0; k < n; k++) {
    c->cols[k].name = strdup(sqlite3_column_name(st, (int)k));
    col_finish(&scans[k], &c->cols[k]);
  }
  c->cols[n] = (col_info){strdup("_auto_id"), "id", 0, SORT_ID};
  c->n = n + 1;
  free(scans);
  sqlite3_finalize(st);
  for (size_t k = 0; k < c->n; k++)
    if (!c->cols[k].name) return SQLITE_NOMEM;
  return rc == SQLITE_DONE ? SQLITE_OK : set_error(v, "%s", sqlite3_errmsg(db));
}

/* ---- the table function ------------------------------------------------------------------- */

typedef struct info_vtab {
  sqlite3_vtab base;
  trak_processor *p;
} info_vtab;

enum { COL_ID, COL_TABLE_NAME, COL_NAME, COL_TYPE, COL_NULLABLE, COL_SORTED, COL_ARG };

static int info_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err) {
  (void)argc, (void)argv, (void)err;
  return trak__tvf_connect(db,
                           "CREATE TABLE x(id INTEGER, table_name TEXT, name TEXT, "
                           "col_type TEXT, nullable INTEGER, sorted INTEGER, "
                           "arg_table_name HIDDEN)",
                           sizeof(info_vtab), offsetof(info_vtab, p), aux, out);
}

/* The table name must be given. */
static int info_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  (void)v;
  static const trak_tvf_args args = {.first = COL_ARG, .n = 1, .required = 1, .cost = 100};
  return trak__tvf_best_index(info, &args);
}

static int info_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
  (void)v;
  info_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *out = &c->base;
  return SQLITE_OK;
}

static int info_close(sqlite3_vtab_cursor *cur) {
  info_clear((info_cursor *)cur);
  free(cur);
  return SQLITE_OK;
}

static int info_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc,
                       sqlite3_value **argv) {
  (void)idx, (void)idx_str;
  info_cursor *c = (info_cursor *)cur;
  info_vtab *v = (info_vtab *)cur->pVtab;
  info_clear(c);
  const char *name = argc > 0 ? (const char *)sqlite3_value_text(argv[0]) : NULL;
  if (!name) return set_error(&v->base, "perfetto_table_info: the table name must be given%s", "");
  return describe(v->p, &v->base, c, name);
}

static int info_next(sqlite3_vtab_cursor *cur) {
  ((info_cursor *)cur)->row++;
  return SQLITE_OK;
}

static int info_eof(sqlite3_vtab_cursor *cur) {
  info_cursor *c = (info_cursor *)cur;
  return c->row >= c->n;
}

static int info_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  info_cursor *c = (info_cursor *)cur;
  const col_info *i = &c->cols[c->row];
  switch (col) {
  case COL_ID:
    sqlite3_result_int64(ctx, (sqlite3_int64)c->row);
    break;
  case COL_TABLE_NAME:
  case COL_ARG:
    sqlite3_result_text(ctx, c->table, -1, SQLITE_TRANSIENT);
    break;
  case COL_NAME:
    sqlite3_result_text(ctx, i->name, -1, SQLITE_TRANSIENT);
    break;
  case COL_TYPE:
    sqlite3_result_text(ctx, i->type, -1, SQLITE_STATIC);
    break;
  case COL_NULLABLE:
    sqlite3_result_int(ctx, i->nullable);
    break;
  default:
    sqlite3_result_int(ctx, i->sorted);
  }
  return SQLITE_OK;
}

static int info_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out) {
  *out = (sqlite3_int64)((info_cursor *)cur)->row;
  return SQLITE_OK;
}

static const sqlite3_module info_module = {
    .iVersion = 1,
    .xConnect = info_connect, /* eponymous only */
    .xBestIndex = info_best_index,
    .xDisconnect = trak__tvf_disconnect,
    .xOpen = info_open,
    .xClose = info_close,
    .xFilter = info_filter,
    .xNext = info_next,
    .xEof = info_eof,
    .xColumn = info_column,
    .xRowid = info_rowid,
};

int trak__psql_table_info_register(trak_processor *p) {
  return sqlite3_create_module(p->db, "perfetto_table_info", &info_module, p);
}
