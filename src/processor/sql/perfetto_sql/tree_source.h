/*
** A tree given as rows (id, parent_id, other columns), loaded from a query by tree_source.c for
** the flamegraph operator (flamegraph.c) and std.trees (trees.c).
*/
#ifndef TRAK_PSQL_TREE_SOURCE_H
#define TRAK_PSQL_TREE_SOURCE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* A column's type over all its values: NULL when every value is NULL; INT when the others are
** integers; REAL when they are numbers, one at least a REAL; TEXT otherwise. */
typedef enum tree_type { TREE_NULL, TREE_INT, TREE_REAL, TREE_TEXT } tree_type;

/* The rows, ordered so that a parent comes before its children; columns 0 and 1 are id and
** parent_id. */
typedef struct tree_source {
  size_t rows, ncols;
  char **names;
  tree_type *types;
  sqlite3_value **cells; /* rows * ncols */
  int64_t *parent;       /* row of the parent, -1 for a root */
} tree_source;

#define TREE_CELL(src, r, c) ((src)->cells[(size_t)(r) * (src)->ncols + (size_t)(c)])

/* Runs `sql` and keeps its rows. Its first columns must be named as `fixed` says (NULL-ended;
** id and parent_id first). Errors start with `who` ("tree: duplicate id 1"). Returns 0, or -1
** with a message. */
int trak__tree_source_load(sqlite3 *db, const char *sql, const char *who, const char *const *fixed,
                           tree_source *src, char *msg, size_t len);
void trak__tree_source_free(tree_source *src);

#endif /* TRAK_PSQL_TREE_SOURCE_H */
