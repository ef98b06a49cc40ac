/*
** This file holds the scans of graphs.scan (Perfetto's _graph_scan! and _graph_aggregating_scan!)
** as the table function
**   __trak_graph_scan(mode, edges, inits, step_sql, columns) -> rows (c0 = id, c1..c7 = values)
** where edges is a __trak_rows BLOB of (source, dest), inits one of (id, value...), step_sql the
** macro's step query as text, reading one step's rows as `$table` (columns id and the values,
** named by `columns`, the macro's "(a, b)" list), and mode is
**   'scan': the initial rows are the output's first; each row's values go down every edge out of
**     its node as a row of the next step's table; the step query turns that table into the next
**     rows, which join the output and go down their edges in turn, until a step has no rows;
**   'aggregating': nodes are ordered by depth (the longest path down from them; a node without
**     edges out has depth 0), found by a depth-first search from the initial nodes' successors;
**     the initial rows go down their edges into the table of their successor's depth, then the
**     step query aggregates each depth's table, deepest first, and its rows join the output and
**     go down their edges into shallower tables. A node thus gets its value once, when all of
**     its predecessors' values are known (on a DAG).
** A step's table is handed to the step query as __trak_graph_scan_step(?1), bound to it as a
** pointer (sqlite3_bind_pointer); the query is prepared once and run per step.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"
#include "processor/tables/storage.h"
#include "processor/tables/vtab_tvf.h"

enum { SCAN_COLS = 8 }; /* id and up to seven values, as Perfetto's c0..c7 */

#define STEP_PTR_TYPE "trak_graph_scan_step"

typedef TRAK_VEC(char) bytes_vec;
typedef TRAK_VEC(uint32_t) u32s;

/* A value; text and BLOBs are kept in the scan's byte arena (by offset: the arena grows). */
typedef struct sval {
  uint8_t type; /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL */
  union {
    int64_t i;
    double d;
    struct {
      uint32_t off, len;
    } s;
  } u;
} sval;

/* Rows of `ncols` values, cell after cell; `arena` holds their bytes. */
typedef struct stab {
  TRAK_VEC(sval) cells;
  uint32_t ncols;
  const bytes_vec *arena;
} stab;

/* The graph with dense node numbers: ids[k] is node k's id; edges out of k are
** adj[off[k] .. off[k + 1]). */
typedef struct sgraph {
  trak_map index;
  TRAK_VEC(int64_t) ids;
  uint32_t *off, *adj;
} sgraph;

typedef struct scan {
  sqlite3 *db;
  sgraph g;
  bytes_vec arena;
  uint32_t ncols; /* id and the values */
  stab out;
  char *err;
} scan;

static size_t stab_rows(const stab *t) { return t->ncols ? t->cells.n / t->ncols : 0; }

static uint32_t node_of(sgraph *g, int64_t id) {
  int added;
  uint32_t *slot = trak__map_put(&g->index, (uint64_t)id, (uint32_t)g->ids.n, &added);
  if (added) trak_vec_push(g->ids, id);
  return *slot;
}

/* The edges out of node `id` (none for a node the edges do not name). */
static const uint32_t *edges_of(const sgraph *g, int64_t id, size_t *n) {
  const uint32_t *k = trak__map_get(&g->index, (uint64_t)id);
  if (!k) return *n = 0, NULL;
  *n = g->off[*k + 1] - g->off[*k];
  return g->adj + g->off[*k];
}

static sval sval_of_cell(bytes_vec *arena, const trak_cell *c) {
  sval v = {.type = (uint8_t)c->type};
  if (c->type == SQLITE_INTEGER) v.u.i = c->i;
  else if (c->type == SQLITE_FLOAT) v.u.d = c->d;
  else if (c->type == SQLITE_TEXT || c->type == SQLITE_BLOB) {
    v.u.s.off = (uint32_t)arena->n, v.u.s.len = c->len;
    if (arena->n + c->len > arena->cap)
      trak__grow((void **)&arena->v, &arena->cap, arena->n + c->len, 1);
    if (c->len) memcpy(arena->v + arena->n, c->bytes, c->len);
    arena->n += c->len;
  }
  return v;
}

static sval sval_of_column(bytes_vec *arena, sqlite3_stmt *st, int col) {
  trak_cell c = {.type = sqlite3_column_type(st, col)};
  if (c.type == SQLITE_INTEGER) c.i = sqlite3_column_int64(st, col);
  else if (c.type == SQLITE_FLOAT) c.d = sqlite3_column_double(st, col);
  else if (c.type == SQLITE_TEXT || c.type == SQLITE_BLOB) {
    c.bytes = c.type == SQLITE_TEXT ? sqlite3_column_text(st, col) : sqlite3_column_blob(st, col);
    c.len = (uint32_t)sqlite3_column_bytes(st, col);
  }
  return sval_of_cell(arena, &c);
}

static void sval_result(sqlite3_context *ctx, const bytes_vec *arena, const sval *v) {
  switch (v->type) {
  case SQLITE_INTEGER: sqlite3_result_int64(ctx, v->u.i); break;
  case SQLITE_FLOAT: sqlite3_result_double(ctx, v->u.d); break;
  case SQLITE_TEXT:
    sqlite3_result_text(ctx, arena->v ? arena->v + v->u.s.off : "", (int)v->u.s.len,
                        SQLITE_TRANSIENT);
    break;
  case SQLITE_BLOB:
    sqlite3_result_blob(ctx, arena->v ? arena->v + v->u.s.off : "", (int)v->u.s.len,
                        SQLITE_TRANSIENT);
    break;
  default: sqlite3_result_null(ctx); break;
  }
}

/* Appends the row `row` (ncols values) to `t`, its id replaced by `id`. */
static void stab_push(stab *t, const sval *row, int64_t id) {
  trak_vec_push(t->cells, ((sval){.type = SQLITE_INTEGER, .u.i = id}));
  for (uint32_t c = 1; c < t->ncols; c++)
    trak_vec_push(t->cells, row[c]);
}

/* ---- loading ----------------------------------------------------------------------------- */

static int load(scan *s, sqlite3_value *edges, sqlite3_value *inits, stab *init_rows) {
  trak_rows_reader r;
  trak_cell cells[TRAK_ROWS_MAX_COLS];
  u32s from = {0}, to = {0};
  int more = 0;
  if (trak__rows_open(edges, &r) || (r.ncols && r.ncols < 2)) {
    s->err = sqlite3_mprintf("graph_scan: the edges are not rows of (source_node_id, "
                             "dest_node_id)");
    return SQLITE_ERROR;
  }
  while ((more = trak__rows_next(&r, cells)) > 0) {
    if (cells[0].type == SQLITE_NULL || cells[1].type == SQLITE_NULL) continue;
    trak_vec_push(from, node_of(&s->g, trak__cell_int(&cells[0])));
    trak_vec_push(to, node_of(&s->g, trak__cell_int(&cells[1])));
  }
  size_t n = s->g.ids.n;
  s->g.off = calloc(n + 2, sizeof *s->g.off);
  s->g.adj = malloc((from.n + 1) * sizeof *s->g.adj);
  uint32_t *fill = calloc(n + 1, sizeof *fill);
  int rc = more < 0 ? SQLITE_ERROR : (!s->g.off || !s->g.adj || !fill) ? SQLITE_NOMEM : SQLITE_OK;
  if (more < 0) s->err = sqlite3_mprintf("graph_scan: a malformed __trak_rows BLOB of edges");
  for (size_t i = 0; rc == SQLITE_OK && i < from.n; i++)
    s->g.off[from.v[i] + 1]++;
  for (size_t i = 0; rc == SQLITE_OK && i < n; i++)
    s->g.off[i + 1] += s->g.off[i];
  for (size_t i = 0; rc == SQLITE_OK && i < from.n; i++)
    s->g.adj[s->g.off[from.v[i]] + fill[from.v[i]]++] = to.v[i];
  free(fill);
  trak_vec_free(from);
  trak_vec_free(to);
  if (rc != SQLITE_OK) return rc;

  if (trak__rows_open(inits, &r)) {
    s->err = sqlite3_mprintf("graph_scan: the initial nodes are not rows of (id, values...)");
    return SQLITE_ERROR;
  }
  if (r.ncols > SCAN_COLS) {
    s->err = sqlite3_mprintf("graph_scan: at most %d columns besides id", SCAN_COLS - 1);
    return SQLITE_ERROR;
  }
  if (r.ncols) s->ncols = r.ncols;
  init_rows->ncols = s->ncols;
  while ((more = trak__rows_next(&r, cells)) > 0) {
    if (cells[0].type == SQLITE_NULL) {
      s->err = sqlite3_mprintf("graph_scan: an initial node's id is NULL");
      return SQLITE_ERROR;
    }
    int64_t id = trak__cell_int(&cells[0]);
    trak_vec_push(init_rows->cells, ((sval){.type = SQLITE_INTEGER, .u.i = id}));
    for (uint32_t c = 1; c < s->ncols; c++)
      trak_vec_push(init_rows->cells, sval_of_cell(&s->arena, &cells[c]));
  }
  if (more < 0) {
    s->err = sqlite3_mprintf("graph_scan: a malformed __trak_rows BLOB of initial nodes");
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

/* Prepares `SELECT * FROM step_sql` with `$table` read from __trak_graph_scan_step(?1), its
** columns named id and `columns`' names; checks them when `check_names`. */
static int prepare_step(scan *s, const char *step_sql, const char *columns, int check_names,
                        sqlite3_stmt **st) {
  size_t off[SCAN_COLS], len[SCAN_COLS];
  int ncols = trak__psql_split_list(columns, strlen(columns), off, len, SCAN_COLS - 1);
  if (ncols < 0 || (uint32_t)ncols + 1 != s->ncols) {
    s->err = sqlite3_mprintf("graph_scan: the column list '%s' does not match the initial "
                             "table's %u columns besides id",
                             columns, s->ncols - 1);
    return SQLITE_ERROR;
  }
  sqlite3_str *t = sqlite3_str_new(s->db);
  sqlite3_str_appendall(t, "(SELECT c0 AS id");
  for (int c = 0; c < ncols; c++)
    sqlite3_str_appendf(t, ", c%d AS %.*s", c + 1, (int)len[c], columns + off[c]);
  sqlite3_str_appendall(t, " FROM __trak_graph_scan_step(?1))");
  char *table = sqlite3_str_finish(t);
  sqlite3_str *q = sqlite3_str_new(s->db);
  sqlite3_str_appendall(q, "SELECT * FROM ");
  for (const char *p = step_sql; *p;) {
    const char *hit = strstr(p, "$table");
    if (!hit) {
      sqlite3_str_appendall(q, p);
      break;
    }
    sqlite3_str_append(q, p, (int)(hit - p));
    sqlite3_str_appendall(q, table ? table : "");
    p = hit + 6;
  }
  char *sql = sqlite3_str_finish(q);
  sqlite3_free(table);
  if (!sql) return SQLITE_NOMEM;
  int rc = sqlite3_prepare_v2(s->db, sql, -1, st, NULL);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) {
    s->err = sqlite3_mprintf("graph_scan: %s", sqlite3_errmsg(s->db));
    return rc;
  }
  int ok = sqlite3_column_count(*st) == (int)s->ncols;
  for (int c = 0; ok && check_names && c < (int)s->ncols; c++) {
    const char *name = sqlite3_column_name(*st, c);
    ok = c ? strlen(name) == len[c - 1] && !strncmp(name, columns + off[c - 1], len[c - 1])
           : !strcmp(name, "id");
  }
  if (!ok) {
    s->err = sqlite3_mprintf("graph_scan: the step query's columns must be id and %s", columns);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

/* Runs the step query over `in`, adding each of its rows to the output and passing it down
** the node's edges: into `next` (scan) or into tables[depth[dest]] when that depth is below
** `below` (aggregating). */
static int run_step(scan *s, sqlite3_stmt *st, stab *in, stab *next, stab *tables,
                    const uint32_t *depth, uint32_t below) {
  sqlite3_reset(st);
  int rc = sqlite3_bind_pointer(st, 1, in, STEP_PTR_TYPE, NULL);
  sval row[SCAN_COLS];
  while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    rc = SQLITE_OK;
    for (uint32_t c = 0; c < s->ncols; c++)
      row[c] = sval_of_column(&s->arena, st, (int)c);
    int64_t id = sqlite3_column_int64(st, 0);
    stab_push(&s->out, row, id);
    size_t ne;
    const uint32_t *e = edges_of(&s->g, id, &ne);
    for (size_t k = 0; k < ne; k++) {
      stab *dst = next;
      if (tables) dst = depth[e[k]] < below ? &tables[depth[e[k]]] : NULL;
      if (dst) stab_push(dst, row, s->g.ids.v[e[k]]);
    }
  }
  if (rc != SQLITE_DONE) {
    if (!s->err) s->err = sqlite3_mprintf("graph_scan: %s", sqlite3_errmsg(s->db));
    return rc == SQLITE_OK ? SQLITE_ERROR : rc;
  }
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return SQLITE_OK;
}

/* Passes the initial rows down their edges (into `next` or into the depth tables). */
static void push_inits(scan *s, const stab *inits, stab *next, stab *tables,
                       const uint32_t *depth) {
  for (size_t r = 0; r < stab_rows(inits); r++) {
    const sval *row = &inits->cells.v[r * s->ncols];
    stab_push(&s->out, row, row[0].u.i);
    size_t ne;
    const uint32_t *e = edges_of(&s->g, row[0].u.i, &ne);
    for (size_t k = 0; k < ne; k++)
      stab_push(tables ? &tables[depth[e[k]]] : next, row, s->g.ids.v[e[k]]);
  }
}

static void stab_init(stab *t, const scan *s) {
  memset(t, 0, sizeof *t);
  t->ncols = s->ncols;
  t->arena = &s->arena;
}

static int plain_scan(scan *s, const stab *inits, const char *step_sql, const char *columns) {
  stab cur, next;
  stab_init(&cur, s);
  stab_init(&next, s);
  push_inits(s, inits, &cur, NULL, NULL);
  sqlite3_stmt *st = NULL;
  int rc = SQLITE_OK;
  /* On a DAG a step is at most one edge further than the last: more steps than nodes means a
  ** cycle the step query keeps feeding. */
  for (size_t steps = 0; rc == SQLITE_OK && stab_rows(&cur); steps++) {
    if (steps > s->g.ids.n) {
      s->err = sqlite3_mprintf("graph_scan: more steps than the graph has nodes: a cycle is "
                               "reachable from the initial nodes");
      rc = SQLITE_ERROR;
      break;
    }
    if (!st) rc = prepare_step(s, step_sql, columns, 0, &st);
    if (rc == SQLITE_OK) rc = run_step(s, st, &cur, &next, NULL, NULL, 0);
    stab t = cur;
    cur = next;
    next = t;
    next.cells.n = 0;
  }
  sqlite3_finalize(st);
  trak_vec_free(cur.cells);
  trak_vec_free(next.cells);
  return rc;
}

/* Each node's depth (the longest path down from it) by a depth-first search from the initial
** nodes' successors, with Perfetto's three visit states. Returns the deepest. */
static uint32_t depths(const scan *s, const stab *inits, uint32_t *depth, uint8_t *state) {
  enum { UNVISITED, WAITING, DONE };
  u32s stack = {0};
  uint32_t max_depth = 0;
  for (size_t r = 0; r < stab_rows(inits); r++) {
    size_t ne;
    const uint32_t *e = edges_of(&s->g, inits->cells.v[r * s->ncols].u.i, &ne);
    for (size_t k = 0; k < ne; k++)
      trak_vec_push(stack, e[k]);
  }
  while (stack.n) {
    uint32_t v = stack.v[stack.n - 1];
    const uint32_t *e = s->g.adj + s->g.off[v];
    size_t ne = s->g.off[v + 1] - s->g.off[v];
    if (state[v] == UNVISITED) {
      state[v] = WAITING;
      for (size_t k = 0; k < ne; k++)
        trak_vec_push(stack, e[k]);
    } else {
      stack.n--;
      if (state[v] == DONE) continue;
      state[v] = DONE;
      for (size_t k = 0; k < ne; k++)
        if (depth[e[k]] + 1 > depth[v]) depth[v] = depth[e[k]] + 1;
      if (depth[v] > max_depth) max_depth = depth[v];
    }
  }
  trak_vec_free(stack);
  return max_depth;
}

static int aggregating_scan(scan *s, const stab *inits, const char *step_sql,
                            const char *columns) {
  size_t n = s->g.ids.n;
  uint32_t *depth = calloc(n + 1, sizeof *depth);
  uint8_t *state = calloc(n + 1, 1);
  if (!depth || !state) {
    free(depth);
    free(state);
    return SQLITE_NOMEM;
  }
  uint32_t max_depth = depths(s, inits, depth, state);
  free(state);
  stab *tables = calloc((size_t)max_depth + 1, sizeof *tables);
  int rc = tables ? SQLITE_OK : SQLITE_NOMEM;
  for (uint32_t d = 0; tables && d <= max_depth; d++)
    stab_init(&tables[d], s);
  if (rc == SQLITE_OK) push_inits(s, inits, NULL, tables, depth);
  sqlite3_stmt *st = NULL;
  if (rc == SQLITE_OK) rc = prepare_step(s, step_sql, columns, 1, &st);
  for (int64_t d = max_depth; rc == SQLITE_OK && d >= 0; d--)
    rc = run_step(s, st, &tables[d], NULL, tables, depth, (uint32_t)d);
  sqlite3_finalize(st);
  for (uint32_t d = 0; tables && d <= max_depth; d++)
    trak_vec_free(tables[d].cells);
  free(tables);
  free(depth);
  return rc;
}

static void scan_free(scan *s) {
  trak__map_free(&s->g.index);
  trak_vec_free(s->g.ids);
  free(s->g.off);
  free(s->g.adj);
  trak_vec_free(s->arena);
  trak_vec_free(s->out.cells);
  sqlite3_free(s->err);
  memset(s, 0, sizeof *s);
}

/* ---- __trak_graph_scan ---------------------------------------------------------------------- */

typedef struct gs_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
} gs_vtab;

typedef struct gs_cursor {
  sqlite3_vtab_cursor base;
  scan s;
  size_t row;
} gs_cursor;

static int gs_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                      sqlite3_vtab **out, char **err) {
  (void)aux, (void)argc, (void)argv, (void)err;
  return trak__tvf_connect(db,
                           "CREATE TABLE x(c0, c1, c2, c3, c4, c5, c6, c7, mode HIDDEN, "
                           "edges HIDDEN, inits HIDDEN, step_sql HIDDEN, columns HIDDEN)",
                           sizeof(gs_vtab), offsetof(gs_vtab, db), db, out);
}

static int gs_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  (void)vt;
  static const trak_tvf_args args = {
      .first = SCAN_COLS, .n = 5, .required = 0x1f, .cost = 1000, .rows = 100000};
  return trak__tvf_best_index(info, &args);
}

static int gs_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  (void)vt;
  gs_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *out = &c->base;
  return SQLITE_OK;
}

static int gs_close(sqlite3_vtab_cursor *cur) {
  scan_free(&((gs_cursor *)cur)->s);
  free(cur);
  return SQLITE_OK;
}

static int gs_filter(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                     sqlite3_value **argv) {
  (void)idx, (void)plan;
  gs_cursor *c = (gs_cursor *)cur;
  gs_vtab *v = (gs_vtab *)cur->pVtab;
  scan_free(&c->s);
  c->row = 0;
  if (argc < 5) return SQLITE_OK;
  scan *s = &c->s;
  s->db = v->db;
  s->ncols = 1;
  stab_init(&s->out, s);
  const char *mode = (const char *)sqlite3_value_text(argv[0]);
  const char *step_sql = (const char *)sqlite3_value_text(argv[3]);
  const char *columns = (const char *)sqlite3_value_text(argv[4]);
  stab inits;
  stab_init(&inits, s);
  int rc = SQLITE_OK;
  if (!mode || !step_sql || !columns || (strcmp(mode, "scan") && strcmp(mode, "aggregating"))) {
    s->err = sqlite3_mprintf("graph_scan: the mode must be 'scan' or 'aggregating' and the "
                             "step query and column list given");
    rc = SQLITE_ERROR;
  }
  if (rc == SQLITE_OK) rc = load(s, argv[1], argv[2], &inits);
  s->out.ncols = s->ncols;
  /* No initial rows: an empty result, as Perfetto's (the step query is not even prepared). */
  if (rc == SQLITE_OK && stab_rows(&inits))
    rc = !strcmp(mode, "scan") ? plain_scan(s, &inits, step_sql, columns)
                               : aggregating_scan(s, &inits, step_sql, columns);
  trak_vec_free(inits.cells);
  if (rc != SQLITE_OK) {
    sqlite3_free(v->base.zErrMsg);
    v->base.zErrMsg = s->err ? s->err : sqlite3_mprintf("graph_scan: %s", sqlite3_errstr(rc));
    s->err = NULL;
  }
  return rc;
}

static int gs_next(sqlite3_vtab_cursor *cur) {
  ((gs_cursor *)cur)->row++;
  return SQLITE_OK;
}

static int gs_eof(sqlite3_vtab_cursor *cur) {
  gs_cursor *c = (gs_cursor *)cur;
  return c->row >= stab_rows(&c->s.out);
}

static int gs_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  gs_cursor *c = (gs_cursor *)cur;
  if (col < (int)c->s.out.ncols)
    sval_result(ctx, &c->s.arena, &c->s.out.cells.v[c->row * c->s.out.ncols + (size_t)col]);
  return SQLITE_OK;
}

static int gs_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((gs_cursor *)cur)->row;
  return SQLITE_OK;
}

static const sqlite3_module gs_module = {
    .xConnect = gs_connect,
    .xBestIndex = gs_best_index,
    .xDisconnect = trak__tvf_disconnect,
    .xDestroy = trak__tvf_disconnect,
    .xOpen = gs_open,
    .xClose = gs_close,
    .xFilter = gs_filter,
    .xNext = gs_next,
    .xEof = gs_eof,
    .xColumn = gs_column,
    .xRowid = gs_rowid,
};

/* ---- __trak_graph_scan_step(pointer): one step's table -------------------------------------- */

typedef struct step_cursor {
  sqlite3_vtab_cursor base;
  const stab *t;
  size_t row;
} step_cursor;

static int step_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err) {
  (void)aux, (void)argc, (void)argv, (void)err;
  return trak__tvf_connect(db, "CREATE TABLE x(c0, c1, c2, c3, c4, c5, c6, c7, tab HIDDEN)",
                           sizeof(sqlite3_vtab), 0, NULL, out);
}

static int step_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  (void)vt;
  static const trak_tvf_args args = {.first = SCAN_COLS, .n = 1, .required = 1, .cost = 10};
  return trak__tvf_best_index(info, &args);
}

static int step_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  (void)vt;
  step_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *out = &c->base;
  return SQLITE_OK;
}

static int step_close(sqlite3_vtab_cursor *cur) {
  free(cur);
  return SQLITE_OK;
}

static int step_filter(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                       sqlite3_value **argv) {
  (void)idx, (void)plan;
  step_cursor *c = (step_cursor *)cur;
  c->t = argc > 0 ? sqlite3_value_pointer(argv[0], STEP_PTR_TYPE) : NULL;
  c->row = 0;
  return SQLITE_OK;
}

static int step_next(sqlite3_vtab_cursor *cur) {
  ((step_cursor *)cur)->row++;
  return SQLITE_OK;
}

static int step_eof(sqlite3_vtab_cursor *cur) {
  step_cursor *c = (step_cursor *)cur;
  return !c->t || c->row >= stab_rows(c->t);
}

static int step_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  step_cursor *c = (step_cursor *)cur;
  if (col < (int)c->t->ncols)
    sval_result(ctx, c->t->arena, &c->t->cells.v[c->row * c->t->ncols + (size_t)col]);
  return SQLITE_OK;
}

static int step_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((step_cursor *)cur)->row;
  return SQLITE_OK;
}

static const sqlite3_module step_module = {
    .xConnect = step_connect,
    .xBestIndex = step_best_index,
    .xDisconnect = trak__tvf_disconnect,
    .xDestroy = trak__tvf_disconnect,
    .xOpen = step_open,
    .xClose = step_close,
    .xFilter = step_filter,
    .xNext = step_next,
    .xEof = step_eof,
    .xColumn = step_column,
    .xRowid = step_rowid,
};

int trak__psql_graph_scan_register(trak_processor *p) {
  int rc = sqlite3_create_module(p->db, "__trak_graph_scan", &gs_module, NULL);
  return rc == SQLITE_OK ? sqlite3_create_module(p->db, "__trak_graph_scan_step", &step_module,
                                                 NULL)
                         : rc;
}
