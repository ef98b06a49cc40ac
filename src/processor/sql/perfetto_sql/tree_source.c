/*
** This file loads a tree given as rows with id and parent_id columns, as the flamegraph
** operator and std.trees read it: every cell kept, each column's type over its values, and the
** rows reordered so that a parent comes before its children (the source's order kept where it
** already is so), each with its parent's row. Ids must be unique integers and every parent_id
** an id; a cycle is an error.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/tree_source.h"

static int fail(char *msg, size_t len, const char *fmt, const char *who) {
  snprintf(msg, len, fmt, who);
  return -1;
}

static int oom(const char *who, char *msg, size_t len) {
  return fail(msg, len, "%s: out of memory", who);
}

void trak__tree_source_free(tree_source *src) {
  for (size_t c = 0; c < src->ncols; c++)
    free(src->names[c]);
  for (size_t i = 0; src->cells && i < src->rows * src->ncols; i++)
    sqlite3_value_free(src->cells[i]);
  free(src->names);
  free(src->types);
  free(src->cells);
  free(src->parent);
  memset(src, 0, sizeof *src);
}

typedef struct id_row {
  int64_t id;
  size_t row;
} id_row;

static int by_id(const void *a, const void *b) {
  int64_t x = ((const id_row *)a)->id, y = ((const id_row *)b)->id;
  return x < y ? -1 : x > y;
}

/* Sets each row's parent row and reorders the rows so that parents come first, keeping the
** source's order where it already is so. */
static int link_rows(tree_source *src, const char *who, char *msg, size_t len) {
  size_t n = src->rows;
  id_row *ids = malloc((n + 1) * sizeof *ids);
  int64_t *parent = malloc((n + 1) * sizeof *parent);
  size_t *order = malloc((n + 1) * sizeof *order), *stack = malloc((n + 1) * sizeof *stack);
  size_t *child_off = calloc(n + 2, sizeof *child_off),
         *children = malloc((n + 1) * sizeof *children);
  char *placed = calloc(n + 1, 1);
  sqlite3_value **cells = malloc((n * src->ncols + 1) * sizeof *cells);
  int rc = ids && parent && order && stack && child_off && children && placed && cells
               ? 0
               : oom(who, msg, len);
  for (size_t r = 0; !rc && r < n; r++) {
    if (sqlite3_value_type(TREE_CELL(src, r, 0)) != SQLITE_INTEGER)
      rc = fail(msg, len, "%s: id must be an integer", who);
    ids[r] = (id_row){sqlite3_value_int64(TREE_CELL(src, r, 0)), r};
  }
  if (!rc) qsort(ids, n, sizeof *ids, by_id);
  for (size_t r = 1; !rc && r < n; r++)
    if (ids[r].id == ids[r - 1].id) {
      snprintf(msg, len, "%s: duplicate id %lld", who, (long long)ids[r].id);
      rc = -1;
    }
  for (size_t r = 0; !rc && r < n; r++) {
    sqlite3_value *p = TREE_CELL(src, r, 1);
    parent[r] = -1;
    if (sqlite3_value_type(p) == SQLITE_NULL) continue;
    id_row key = {sqlite3_value_int64(p), 0};
    id_row *hit =
        sqlite3_value_type(p) == SQLITE_INTEGER ? bsearch(&key, ids, n, sizeof *ids, by_id) : NULL;
    if (!hit) {
      snprintf(msg, len, "%s: parent_id not found in id column (at id %lld)", who,
               (long long)sqlite3_value_int64(TREE_CELL(src, r, 0)));
      rc = -1;
      break;
    }
    parent[r] = (int64_t)hit->row;
    child_off[hit->row + 2]++;
  }
  if (!rc) {
    for (size_t i = 2; i < n + 2; i++)
      child_off[i] += child_off[i - 1];
    for (size_t r = 0; r < n; r++)
      if (parent[r] >= 0) children[child_off[parent[r] + 1]++] = r;
    /* In source order, a row goes when its parent has gone; then any of its children passed
    ** over earlier go with it. */
    size_t placed_n = 0;
    for (size_t i = 0; i < n; i++) {
      if (placed[i] || (parent[i] >= 0 && !placed[parent[i]])) continue;
      size_t top = 0;
      stack[top++] = i;
      while (top) {
        size_t x = stack[--top];
        placed[x] = 1;
        order[placed_n++] = x;
        for (size_t k = child_off[x + 1]; k-- > child_off[x];)
          if (children[k] < i && !placed[children[k]]) stack[top++] = children[k];
      }
    }
    if (placed_n != n) rc = fail(msg, len, "%s: the parent_id links form a cycle", who);
  }
  int64_t *new_parent = rc ? NULL : malloc((n + 1) * sizeof *new_parent);
  if (!rc && !new_parent) rc = oom(who, msg, len);
  if (!rc) {
    size_t *new_row = stack; /* reused: old row -> new row */
    for (size_t k = 0; k < n; k++)
      new_row[order[k]] = k;
    for (size_t k = 0; k < n; k++) {
      memcpy(&cells[k * src->ncols], &src->cells[order[k] * src->ncols],
             src->ncols * sizeof *cells);
      int64_t old = parent[order[k]];
      new_parent[k] = old < 0 ? -1 : (int64_t)new_row[old];
    }
    free(src->cells);
    src->cells = cells;
    src->parent = new_parent;
    cells = NULL;
  }
  free(ids), free(parent), free(order), free(stack), free(child_off), free(children), free(placed);
  free(cells);
  return rc;
}

static tree_type type_of(const tree_source *src, size_t c) {
  tree_type t = TREE_NULL;
  for (size_t r = 0; r < src->rows; r++) {
    int v = sqlite3_value_type(TREE_CELL(src, r, c));
    if (v == SQLITE_TEXT || v == SQLITE_BLOB) return TREE_TEXT;
    if (v == SQLITE_FLOAT) t = TREE_REAL;
    if (v == SQLITE_INTEGER && t == TREE_NULL) t = TREE_INT;
  }
  return t;
}

int trak__tree_source_load(sqlite3 *db, const char *sql, const char *who, const char *const *fixed,
                           tree_source *src, char *msg, size_t len) {
  memset(src, 0, sizeof *src);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    snprintf(msg, len, "%s: source: %s", who, sqlite3_errmsg(db));
    return -1;
  }
  int rc = 0;
  src->ncols = (size_t)sqlite3_column_count(st);
  size_t nfixed = 0;
  sqlite3_str *want = sqlite3_str_new(NULL);
  for (; fixed[nfixed]; nfixed++)
    sqlite3_str_appendf(want, "%s%s", nfixed ? ", " : "", fixed[nfixed]);
  char *names = sqlite3_str_finish(want);
  for (size_t c = 0; !rc && c < nfixed; c++)
    if (c >= src->ncols || strcmp(sqlite3_column_name(st, (int)c), fixed[c])) {
      snprintf(msg, len, "%s: the source's first columns must be %s", who, names ? names : "");
      rc = -1;
    }
  sqlite3_free(names);
  src->names = calloc(src->ncols + 1, sizeof *src->names);
  src->types = calloc(src->ncols + 1, sizeof *src->types);
  if (!rc && (!src->names || !src->types)) rc = oom(who, msg, len);
  for (size_t c = 0; !rc && c < src->ncols; c++)
    if (!(src->names[c] = strdup(sqlite3_column_name(st, (int)c)))) rc = oom(who, msg, len);
  size_t cap = 0;
  int step = SQLITE_DONE;
  while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
    if ((src->rows + 1) * src->ncols > cap) {
      size_t ncap = cap ? cap * 2 : 64 * src->ncols;
      sqlite3_value **cells = realloc(src->cells, ncap * sizeof *cells);
      if (!cells) {
        rc = oom(who, msg, len);
        break;
      }
      src->cells = cells;
      cap = ncap;
    }
    for (size_t c = 0; c < src->ncols; c++) { /* every cell set, NULL if out of memory */
      sqlite3_value *v = sqlite3_value_dup(sqlite3_column_value(st, (int)c));
      TREE_CELL(src, src->rows, c) = v;
      if (!v) rc = oom(who, msg, len);
    }
    src->rows++;
  }
  if (!rc && step != SQLITE_DONE) {
    snprintf(msg, len, "%s: source: %s", who, sqlite3_errmsg(db));
    rc = -1;
  }
  sqlite3_finalize(st);
  for (size_t c = 0; !rc && c < src->ncols; c++)
    src->types[c] = type_of(src, c);
  if (!rc) rc = link_rows(src, who, msg, len);
  if (rc) trak__tree_source_free(src);
  return rc;
}
