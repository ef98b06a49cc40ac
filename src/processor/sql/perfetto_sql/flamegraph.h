/*
** The flamegraph operator (Perfetto's __intrinsic_flamegraph): the interface between
** flamegraph.c, which loads the source rows and answers SQL, and flamegraph_build.c, which merges
** equal frames, applies the filters and views, sums the values and lays the result out.
*/
#ifndef TRAK_PSQL_FLAMEGRAPH_H
#define TRAK_PSQL_FLAMEGRAPH_H

#include <regex.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "processor/sql/perfetto_sql/tree_source.h"

typedef enum fg_view { FG_TOP_DOWN, FG_BOTTOM_UP, FG_PIVOT, FG_FROM_FRAME } fg_view;
typedef enum fg_agg { FG_SUM, FG_ONE_OR_SUMMARY, FG_CONCAT } fg_agg;

enum { FG_MAX_SHOW_STACK = 61, FG_MAX_COLS = 64, FG_MAX_FILTERS = 64 };

/* A query, its column names resolved to source columns. */
typedef struct fg_config {
  fg_view view;
  int has_view_pattern;
  regex_t view_pattern;
  size_t ngrouping, nvalues, naggs, nshow, nhide_stack, nhide_frame;
  size_t grouping[FG_MAX_COLS], values[FG_MAX_COLS];
  struct {
    fg_agg kind;
    size_t col;
  } aggs[FG_MAX_COLS];
  regex_t show[FG_MAX_FILTERS], hide_stack[FG_MAX_FILTERS], hide_frame[FG_MAX_FILTERS];
} fg_config;

/* A number of a value or SUM column: integer or REAL as the column is. */
typedef struct fg_num {
  int64_t i;
  double d;
} fg_num;

/* An aggregate's value for a node: type 0 (NULL, as calloc leaves it), SQLITE_INTEGER (i),
** SQLITE_FLOAT (d) or SQLITE_TEXT (s, malloc'ed). */
typedef struct fg_val {
  int type;
  int64_t i;
  double d;
  char *s;
} fg_val;

/* One output row, in render order. */
typedef struct fg_out {
  int64_t depth;     /* 1, 2, ... downwards; -1, -2, ... upwards */
  int64_t parent;    /* output row of the parent, -1 for a root */
  size_t source_row; /* the representative row: name and grouping columns come from it */
  size_t node;       /* index into the per-node arrays below */
  double x_start;
} fg_out;

typedef struct fg_result {
  fg_out *rows;
  size_t nrows;
  size_t nnodes;
  /* Per value column: self and cumulative of each node. */
  fg_num *self[FG_MAX_COLS], *cumulative[FG_MAX_COLS];
  /* Per aggregate: its value for each node; a SUM as a number, the others as text. */
  fg_val *agg[FG_MAX_COLS];
} fg_result;

/* Builds the flamegraph of `src` for `cfg`. Returns 0, or -1 with a message (a negative value,
** an integer overflow, out of memory). */
int trak__fg_build(const tree_source *src, const fg_config *cfg, fg_result *out, char *msg,
                   size_t msg_len);
void trak__fg_result_free(fg_result *r, const fg_config *cfg);

#endif /* TRAK_PSQL_FLAMEGRAPH_H */
