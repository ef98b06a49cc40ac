/*
** This file holds what std.trees.table_conversion stands on: a tree made from any table with
** id and parent_id columns (_tree_from_table!) read back as a table (_tree_to_table!) with
** _tree_id (the row's place, parents before children), _tree_parent_id, id, parent_id and the
** chosen columns, as Perfetto's module gives. In trak the "tree" is the query text:
**
**   __trak_tree_query!(source, (a, b))  -> 'SELECT t.id, t.parent_id, t.a, t.b FROM source AS t'
**   __trak_tree_table!(tree, (a, b))    -> (SELECT c0 AS _tree_id, ..., c4 AS a, c5 AS b
**                                           FROM __trak_tree(tree, 'a,b'))
**
** and __trak_tree(query, names) is the table function that runs the query, orders the rows
** (tree_source.c) and gives the named columns, by name, as c4, c5, ...; errors read
** "tree: duplicate id 1", "tree: parent_id not found in id column".
*/
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"
#include "processor/sql/perfetto_sql/tree_source.h"
#include "processor/tables/vtab_tvf.h"

enum { MAX_TREE_COLS = 12, COL_QUERY = 4 + MAX_TREE_COLS, COL_NAMES };

/* ---- the macros ----------------------------------------------------------------------------- */

static int columns(const char *name, const char *arg, size_t len, size_t *off, size_t *lens,
                   char *msg, size_t msg_len) {
  int n = trak__psql_split_list(arg, len, off, lens, MAX_TREE_COLS);
  if (n < 0)
    snprintf(msg, msg_len, "%s: the columns must be a list in parentheses, at most %d", name,
             MAX_TREE_COLS);
  return n;
}

static int tree_query(const char *const *args, const size_t *lens, size_t nargs, sqlite3_str *out,
                      char *msg, size_t msg_len) {
  (void)nargs;
  size_t off[MAX_TREE_COLS], len[MAX_TREE_COLS];
  int n = columns("_tree_from_table", args[1], lens[1], off, len, msg, msg_len);
  if (n < 0) return -1;
  sqlite3_str *q = sqlite3_str_new(NULL);
  sqlite3_str_appendall(q, "SELECT t.id AS id, t.parent_id AS parent_id");
  for (int i = 0; i < n; i++)
    sqlite3_str_appendf(q, ", t.%.*s", (int)len[i], args[1] + off[i]);
  sqlite3_str_appendf(q, " FROM %.*s AS t", (int)lens[0], args[0]);
  char *text = sqlite3_str_finish(q);
  sqlite3_str_appendf(out, "%Q", text ? text : "");
  sqlite3_free(text);
  return 0;
}

static int tree_table(const char *const *args, const size_t *lens, size_t nargs, sqlite3_str *out,
                      char *msg, size_t msg_len) {
  (void)nargs;
  size_t off[MAX_TREE_COLS], len[MAX_TREE_COLS];
  int n = columns("_tree_to_table", args[1], lens[1], off, len, msg, msg_len);
  if (n < 0) return -1;
  sqlite3_str_appendall(out, "(SELECT c0 AS _tree_id, c1 AS _tree_parent_id, c2 AS id, "
                             "c3 AS parent_id");
  sqlite3_str *names = sqlite3_str_new(NULL);
  for (int i = 0; i < n; i++) {
    sqlite3_str_appendf(out, ", c%d AS %.*s", 4 + i, (int)len[i], args[1] + off[i]);
    sqlite3_str_appendf(names, "%s%.*s", i ? "," : "", (int)len[i], args[1] + off[i]);
  }
  char *list = sqlite3_str_finish(names);
  sqlite3_str_appendf(out, " FROM __trak_tree(%.*s, %Q))", (int)lens[0], args[0], list ? list : "");
  sqlite3_free(list);
  return 0;
}

/* ---- the table function --------------------------------------------------------------------- */

typedef struct tree_cursor {
  sqlite3_vtab_cursor base;
  tree_source src;
  size_t row;
  size_t cols[MAX_TREE_COLS]; /* source column of c4, c5, ... */
  size_t ncols;
} tree_cursor;

typedef struct tree_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
} tree_vtab;

static int tree_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err) {
  (void)aux, (void)argc, (void)argv, (void)err;
  sqlite3_str *s = sqlite3_str_new(db);
  sqlite3_str_appendall(s, "CREATE TABLE x(");
  for (int c = 0; c < 4 + MAX_TREE_COLS; c++)
    sqlite3_str_appendf(s, "c%d, ", c);
  sqlite3_str_appendall(s, "query HIDDEN, names HIDDEN)");
  char *schema = sqlite3_str_finish(s);
  int rc = trak__tvf_connect(db, schema, sizeof(tree_vtab), offsetof(tree_vtab, db), db, out);
  sqlite3_free(schema);
  return rc;
}

/* Both the query and the names must be given. */
static int tree_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  (void)v;
  _Static_assert(COL_NAMES == COL_QUERY + 1, "the arguments are adjacent columns");
  static const trak_tvf_args args = {.first = COL_QUERY, .n = 2, .required = 3, .cost = 1000};
  return trak__tvf_best_index(info, &args);
}

/* Finds each of the comma-separated `names` among the source's columns. */
static int pick_columns(tree_cursor *c, const char *names, char *msg, size_t len) {
  c->ncols = 0;
  for (const char *p = names; *p;) {
    size_t n = strcspn(p, ",");
    size_t k = 2;
    while (k < c->src.ncols && (strlen(c->src.names[k]) != n || strncmp(c->src.names[k], p, n)))
      k++;
    if (k == c->src.ncols || c->ncols == MAX_TREE_COLS) {
      snprintf(msg, len, "tree: column '%.*s' is not in the tree", (int)n, p);
      return -1;
    }
    c->cols[c->ncols++] = k;
    p += n + (p[n] == ',');
  }
  return 0;
}

static int tree_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
  (void)v;
  tree_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *out = &c->base;
  return SQLITE_OK;
}

static int tree_close(sqlite3_vtab_cursor *cur) {
  trak__tree_source_free(&((tree_cursor *)cur)->src);
  free(cur);
  return SQLITE_OK;
}

static int tree_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc,
                       sqlite3_value **argv) {
  (void)idx, (void)idx_str;
  static const char *const fixed[] = {"id", "parent_id", NULL};
  tree_cursor *c = (tree_cursor *)cur;
  tree_vtab *v = (tree_vtab *)cur->pVtab;
  trak__tree_source_free(&c->src);
  c->row = 0;
  const char *query = argc > 1 ? (const char *)sqlite3_value_text(argv[0]) : NULL;
  const char *names = argc > 1 ? (const char *)sqlite3_value_text(argv[1]) : NULL;
  char msg[512];
  if (!query || !names) snprintf(msg, sizeof msg, "tree: expected a tree from _tree_from_table!");
  if (!query || !names ||
      trak__tree_source_load(v->db, query, "tree", fixed, &c->src, msg, sizeof msg) ||
      pick_columns(c, names, msg, sizeof msg)) {
    sqlite3_free(v->base.zErrMsg);
    v->base.zErrMsg = sqlite3_mprintf("%s", msg);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

static int tree_next(sqlite3_vtab_cursor *cur) {
  ((tree_cursor *)cur)->row++;
  return SQLITE_OK;
}

static int tree_eof(sqlite3_vtab_cursor *cur) {
  tree_cursor *c = (tree_cursor *)cur;
  return c->row >= c->src.rows;
}

static int tree_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  tree_cursor *c = (tree_cursor *)cur;
  if (col == 0) {
    sqlite3_result_int64(ctx, (sqlite3_int64)c->row);
  } else if (col == 1) {
    if (c->src.parent[c->row] >= 0) sqlite3_result_int64(ctx, c->src.parent[c->row]);
  } else if (col < 4 || (col < COL_QUERY && (size_t)col - 4 < c->ncols)) {
    size_t k = col < 4 ? (size_t)col - 2 : c->cols[col - 4];
    sqlite3_value *v = TREE_CELL(&c->src, c->row, k);
    /* A column holding a REAL holds REALs only, as in Perfetto's column storage. */
    if (c->src.types[k] == TREE_REAL && sqlite3_value_type(v) == SQLITE_INTEGER)
      sqlite3_result_double(ctx, sqlite3_value_double(v));
    else
      sqlite3_result_value(ctx, v);
  }
  return SQLITE_OK;
}

static int tree_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out) {
  *out = (sqlite3_int64)((tree_cursor *)cur)->row;
  return SQLITE_OK;
}

static sqlite3_module tree_module = {
    .iVersion = 1,
    .xConnect = tree_connect, /* eponymous only */
    .xBestIndex = tree_best_index,
    .xDisconnect = trak__tvf_disconnect,
    .xOpen = tree_open,
    .xClose = tree_close,
    .xFilter = tree_filter,
    .xNext = tree_next,
    .xEof = tree_eof,
    .xColumn = tree_column,
    .xRowid = tree_rowid,
};

int trak__psql_trees_register(trak_processor *p) {
  int rc = sqlite3_create_module(p->db, "__trak_tree", &tree_module, NULL);
  if (rc == SQLITE_OK &&
      (trak__psql_macro_define_builtin(p->psql->macros, "__trak_tree_query", 2, tree_query) ||
       trak__psql_macro_define_builtin(p->psql->macros, "__trak_tree_table", 2, tree_table)))
    rc = SQLITE_NOMEM;
  return rc;
}
