/*
** This file holds the graph algorithms behind the graphs.* modules, as one table function:
**   __trak_graph(algorithm, rows_a, rows_b) -> rows (c0, c1, c2, ...)
** where rows_a and rows_b are tables the modules' macros pack with the aggregate __trak_rows
** (row_blobs.c) in the caller's statement, so that a macro's table may be one of its CTEs:
**   'dfs' / 'bfs': rows_a are edges (source, dest), rows_b start nodes; rows (node, parent)
**     in visiting order, parent NULL for a start node.
**   'dominator': rows_a are edges, rows_b the root; rows (node, immediate dominator) for every
**     node reachable from the root (NULL for the root).
**   'partition': rows_a are a forest (id, parent_id, group_key); rows (id, parent, group_key)
**     where parent is the nearest ancestor in the same group.
**   'weight_floor' / 'weight_ceiling': rows_a are edges (source, dest, weight), rows_b roots
**     (node, target weight); rows (root, node, parent) of a depth-first search from each root
**     on its own, stopping once the weights of the nodes taken pass the target (the node that
**     passes it is kept with 'weight_floor', not with 'weight_ceiling').
**   'critical_path': two BLOBs of __trak_int_rows, a wakeup graph and its roots; see
**     critical_path.c.
** Values are read as integers (CAST semantics). Node ids are any integers; they are numbered
** densely on the way in. Rows have seven columns c0..c6; the algorithms above fill the first
** three.
*/
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"
#include "processor/tables/vtab_tvf.h"

typedef TRAK_VEC(uint32_t) u32_vec;
typedef TRAK_VEC(int64_t) i64_vec;

enum { NONE = 0xffffffffu };

/* A graph numbered densely: ids[i] is node i's id; adjacency in CSR form, edges in query order. */
typedef struct graph {
  trak_map index; /* id -> number */
  i64_vec ids;
  uint32_t *off, *adj;
} graph;

static uint32_t node(graph *g, int64_t id) {
  int added;
  uint32_t *slot = trak__map_put(&g->index, (uint64_t)id, (uint32_t)g->ids.n, &added);
  if (added) trak_vec_push(g->ids, id);
  return *slot;
}

static void graph_free(graph *g) {
  trak__map_free(&g->index);
  trak_vec_free(g->ids);
  free(g->off);
  free(g->adj);
}

/* Calls row() with the first `ncols` columns of each row of the __trak_rows BLOB `rows` (NULL as
** null[i]). Returns SQLITE_OK, or SQLITE_ERROR with *err set when the value is no such BLOB or
** has fewer columns. */
static int each_row(sqlite3_value *rows, int ncols,
                    void (*row)(void *ctx, const int64_t *v, const int *null), void *ctx,
                    char **err) {
  trak_rows_reader r;
  trak_cell cells[TRAK_ROWS_MAX_COLS];
  if (trak__rows_open(rows, &r)) {
    *err = sqlite3_mprintf("graph: a table argument is not a __trak_rows BLOB");
    return SQLITE_ERROR;
  }
  if (r.ncols && r.ncols < (uint32_t)ncols) {
    *err = sqlite3_mprintf("graph: the table gives %u columns, expected %d", r.ncols, ncols);
    return SQLITE_ERROR;
  }
  int more;
  while ((more = trak__rows_next(&r, cells)) > 0) {
    int64_t v[3];
    int null[3];
    for (int i = 0; i < ncols; i++) {
      null[i] = cells[i].type == SQLITE_NULL;
      v[i] = trak__cell_int(&cells[i]);
    }
    row(ctx, v, null);
  }
  if (more < 0) *err = sqlite3_mprintf("graph: a malformed __trak_rows BLOB");
  return more < 0 ? SQLITE_ERROR : SQLITE_OK;
}

typedef struct edges {
  graph *g;
  u32_vec from, to;
} edges;

static void edge_row(void *ctx, const int64_t *v, const int *null) {
  edges *e = ctx;
  if (null[0] || null[1]) return;
  trak_vec_push(e->from, node(e->g, v[0]));
  trak_vec_push(e->to, node(e->g, v[1]));
}

/* Reads the edges of `rows` into g (reversed when `reverse`). */
static int load_graph(sqlite3_value *rows, graph *g, int reverse, char **err) {
  edges e = {g, {0}, {0}};
  int rc = each_row(rows, 2, edge_row, &e, err);
  if (rc == SQLITE_OK) {
    size_t n = g->ids.n;
    g->off = calloc(n + 1, sizeof *g->off);
    g->adj = malloc((e.from.n ? e.from.n : 1) * sizeof *g->adj);
    if (!g->off || !g->adj) rc = SQLITE_NOMEM;
    const u32_vec *src = reverse ? &e.to : &e.from, *dst = reverse ? &e.from : &e.to;
    for (size_t i = 0; rc == SQLITE_OK && i < src->n; i++)
      g->off[src->v[i] + 1]++;
    for (size_t i = 0; rc == SQLITE_OK && i < n; i++)
      g->off[i + 1] += g->off[i];
    uint32_t *fill = rc == SQLITE_OK ? calloc(n + 1, sizeof *fill) : NULL;
    for (size_t i = 0; fill && i < src->n; i++)
      g->adj[g->off[src->v[i]] + fill[src->v[i]]++] = dst->v[i];
    free(fill);
  }
  trak_vec_free(e.from);
  trak_vec_free(e.to);
  return rc;
}

typedef struct ids {
  graph *g;
  u32_vec v;
} ids;

static void id_row(void *ctx, const int64_t *v, const int *null) {
  ids *s = ctx;
  if (!null[0]) trak_vec_push(s->v, node(s->g, v[0]));
}

typedef trak_graph_rows out_rows;

void trak__graph_row(trak_graph_rows *o, const int64_t *v, unsigned null_mask) {
  if (o->n == o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 64;
    int64_t *nv = realloc(o->v, cap * TRAK_GRAPH_COLS * sizeof *nv);
    if (nv) o->v = nv;
    uint8_t *nn = realloc(o->null, cap * TRAK_GRAPH_COLS);
    if (nn) o->null = nn;
    if (!nv || !nn) return;
    o->cap = cap;
  }
  for (size_t i = 0; i < TRAK_GRAPH_COLS; i++) {
    o->v[TRAK_GRAPH_COLS * o->n + i] = v[i];
    o->null[TRAK_GRAPH_COLS * o->n + i] = (uint8_t)((null_mask >> i) & 1);
  }
  o->n++;
}

/* A row of the first three columns (the rest NULL). */
static void emit(out_rows *o, int64_t a, int64_t b, int b_null, int64_t c, int c_null) {
  int64_t v[TRAK_GRAPH_COLS] = {a, b, c};
  unsigned rest = ~0u << 3;
  trak__graph_row(o, v, rest | (b_null ? 2u : 0u) | (c_null ? 4u : 0u));
}

/* Depth- or breadth-first search from all the start nodes at once, as Perfetto does: they are
** all put in the stack (so the last is searched first) or queue (in order) before the search. */
static void search(graph *g, const u32_vec *starts, int depth_first, out_rows *o) {
  size_t n = g->ids.n;
  uint8_t *seen = calloc(n ? n : 1, 1);
  /* (node, parent) pairs: every edge can push once, plus the start nodes */
  uint32_t *work = malloc((g->off[n] + starts->n + 1) * 2 * sizeof *work);
  if (!seen || !work) goto done;
  size_t head = 0, tail = 0;
  for (size_t s = 0; s < starts->n; s++) {
    uint32_t start = starts->v[s];
    if (!depth_first && seen[start]) continue;
    if (!depth_first) seen[start] = 1;
    work[tail++] = start, work[tail++] = NONE;
  }
  while (head < tail) {
    uint32_t v, parent;
    if (depth_first) { /* a stack: take from the top */
      tail -= 2;
      v = work[tail], parent = work[tail + 1];
      if (seen[v]) continue;
      seen[v] = 1;
    } else { /* a queue */
      v = work[head++], parent = work[head++];
    }
    emit(o, g->ids.v[v], parent == NONE ? 0 : g->ids.v[parent], parent == NONE, 0, 1);
    if (depth_first) { /* pushed last to first, so the first edge is followed first */
      for (uint32_t k = g->off[v + 1]; k > g->off[v]; k--)
        if (!seen[g->adj[k - 1]]) work[tail++] = g->adj[k - 1], work[tail++] = v;
    } else {
      for (uint32_t k = g->off[v]; k < g->off[v + 1]; k++)
        if (!seen[g->adj[k]]) seen[g->adj[k]] = 1, work[tail++] = g->adj[k], work[tail++] = v;
    }
  }
done:
  free(seen);
  free(work);
}

/* Immediate dominators by the iterative algorithm of Cooper, Harvey and Kennedy: number the
** nodes reachable from the root in reverse postorder, then intersect predecessors' dominators
** until nothing changes. */
static void dominators(graph *g, graph *rev, uint32_t root, out_rows *o) {
  size_t n = g->ids.n;
  uint32_t *order = malloc((n ? n : 1) * sizeof *order);   /* postorder number -> node */
  uint32_t *number = malloc((n ? n : 1) * sizeof *number); /* node -> postorder number */
  uint32_t *idom = malloc((n ? n : 1) * sizeof *idom);
  uint32_t *stack = malloc((n + 1) * 2 * sizeof *stack); /* (node, next edge) */
  uint8_t *seen = calloc(n ? n : 1, 1);
  if (!order || !number || !idom || !stack || !seen) goto done;
  size_t count = 0, top = 0;
  for (size_t i = 0; i < n; i++)
    number[i] = NONE, idom[i] = NONE;
  seen[root] = 1;
  stack[top++] = root, stack[top++] = g->off[root];
  while (top) {
    uint32_t v = stack[top - 2], k = stack[top - 1];
    if (k < g->off[v + 1]) {
      stack[top - 1] = k + 1;
      uint32_t w = g->adj[k];
      if (!seen[w]) seen[w] = 1, stack[top++] = w, stack[top++] = g->off[w];
    } else {
      number[v] = (uint32_t)count;
      order[count++] = v;
      top -= 2;
    }
  }
  idom[root] = root;
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = count; i-- > 0;) { /* reverse postorder */
      uint32_t v = order[i];
      if (v == root) continue;
      uint32_t best = NONE;
      for (uint32_t k = rev->off[v]; k < rev->off[v + 1]; k++) {
        uint32_t p = rev->adj[k];
        if (number[p] == NONE || idom[p] == NONE) continue;
        if (best == NONE) {
          best = p;
          continue;
        }
        uint32_t a = p, b = best;
        while (a != b) {
          while (number[a] < number[b])
            a = idom[a];
          while (number[b] < number[a])
            b = idom[b];
        }
        best = a;
      }
      if (best != NONE && idom[v] != best) idom[v] = best, changed = 1;
    }
  }
  for (size_t i = count; i-- > 0;) {
    uint32_t v = order[i];
    emit(o, g->ids.v[v], v == root ? 0 : g->ids.v[idom[v]], v == root, 0, 1);
  }
done:
  free(order);
  free(number);
  free(idom);
  free(stack);
  free(seen);
}

typedef struct forest {
  graph *g;
  u32_vec parent; /* by node number; NONE for roots */
  i64_vec group;
  u32_vec rows; /* node numbers in query order */
} forest;

static void forest_row(void *ctx, const int64_t *v, const int *null) {
  forest *f = ctx;
  uint32_t id = node(f->g, v[0]);
  uint32_t parent = null[1] ? NONE : node(f->g, v[1]);
  while (f->parent.n < f->g->ids.n) {
    trak_vec_push(f->parent, NONE);
    trak_vec_push(f->group, 0);
  }
  while (f->parent.n < f->g->ids.n) { /* the parent may be numbered after the id */
    trak_vec_push(f->parent, NONE);
    trak_vec_push(f->group, 0);
  }
  f->parent.v[id] = parent;
  f->group.v[id] = v[2];
  trak_vec_push(f->rows, id);
}

/* For each node, the nearest ancestor in its group, found by walking up the parents. */
static void partition(forest *f, out_rows *o) {
  size_t n = f->g->ids.n;
  for (size_t r = 0; r < f->rows.n; r++) {
    uint32_t v = f->rows.v[r], a = f->parent.v[v];
    for (size_t steps = 0; a != NONE && f->group.v[a] != f->group.v[v] && steps < n; steps++)
      a = a < f->parent.n ? f->parent.v[a] : NONE;
    if (a != NONE && f->group.v[a] != f->group.v[v]) a = NONE; /* a cycle */
    emit(o, f->g->ids.v[v], a == NONE ? 0 : f->g->ids.v[a], a == NONE, f->group.v[v], 0);
  }
}

/* ---- weight-bounded search ------------------------------------------------------------------- */

typedef struct weighted {
  graph *g;
  u32_vec from, to, weight;
} weighted;

static void weighted_row(void *ctx, const int64_t *v, const int *null) {
  weighted *w = ctx;
  if (null[0] || null[1]) return;
  trak_vec_push(w->from, node(w->g, v[0]));
  trak_vec_push(w->to, node(w->g, v[1]));
  trak_vec_push(w->weight, null[2] ? 0 : (uint32_t)v[2]);
}

typedef struct roots {
  graph *g;
  u32_vec node, target;
} roots;

static void root_row(void *ctx, const int64_t *v, const int *null) {
  roots *r = ctx;
  if (null[0]) return;
  trak_vec_push(r->node, node(r->g, v[0]));
  trak_vec_push(r->target, null[1] ? 0 : (uint32_t)v[1]);
}

/* The search of each root on its own: a stack of (node, edge weight, parent), children pushed
** last to first; a node's weight counts when it is taken. */
static int weight_bounded(sqlite3_value *qa, sqlite3_value *qb, int floor_kept, out_rows *o,
                          char **err) {
  graph g = {0};
  weighted w = {&g, {0}, {0}, {0}};
  roots r = {&g, {0}, {0}};
  int rc = each_row(qa, 3, weighted_row, &w, err);
  if (rc == SQLITE_OK && qb) rc = each_row(qb, 2, root_row, &r, err);
  size_t n = g.ids.n;
  uint32_t *off = calloc(n + 1, sizeof *off), *adj = malloc((w.from.n + 1) * sizeof *adj);
  uint32_t *wt = malloc((w.from.n + 1) * sizeof *wt), *fill = calloc(n + 1, sizeof *fill);
  uint8_t *seen = malloc(n + 1);
  uint32_t *stack = malloc((w.from.n + 1) * 3 * sizeof *stack);
  if (rc == SQLITE_OK && (!off || !adj || !wt || !fill || !seen || !stack)) rc = SQLITE_NOMEM;
  for (size_t i = 0; rc == SQLITE_OK && i < w.from.n; i++)
    off[w.from.v[i] + 1]++;
  for (size_t i = 0; rc == SQLITE_OK && i < n; i++)
    off[i + 1] += off[i];
  for (size_t i = 0; rc == SQLITE_OK && i < w.from.n; i++) {
    uint32_t at = off[w.from.v[i]] + fill[w.from.v[i]]++;
    adj[at] = w.to.v[i];
    wt[at] = w.weight.v[i];
  }
  for (size_t k = 0; rc == SQLITE_OK && k < r.node.n; k++) {
    memset(seen, 0, n + 1);
    size_t top = 0;
    uint64_t total = 0;
    stack[top++] = r.node.v[k], stack[top++] = 0, stack[top++] = NONE;
    while (top) {
      top -= 3;
      uint32_t v = stack[top], weight = stack[top + 1], parent = stack[top + 2];
      if (seen[v]) continue;
      seen[v] = 1;
      total += weight;
      if (!floor_kept && total > r.target.v[k]) break;
      emit(o, g.ids.v[r.node.v[k]], g.ids.v[v], 0, parent == NONE ? 0 : g.ids.v[parent],
           parent == NONE);
      if (total > r.target.v[k]) break;
      for (uint32_t e = off[v + 1]; e > off[v]; e--)
        if (!seen[adj[e - 1]])
          stack[top++] = adj[e - 1], stack[top++] = wt[e - 1], stack[top++] = v;
    }
  }
  free(off), free(adj), free(wt), free(fill), free(seen), free(stack);
  trak_vec_free(w.from), trak_vec_free(w.to), trak_vec_free(w.weight);
  trak_vec_free(r.node), trak_vec_free(r.target);
  graph_free(&g);
  return rc;
}

/* ---- the table function --------------------------------------------------------------------- */

typedef struct gv_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
} gv_vtab;

typedef struct gv_cursor {
  sqlite3_vtab_cursor base;
  out_rows rows;
  size_t i;
} gv_cursor;

static int gv_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                      char **err) {
  (void)aux, (void)argc, (void)argv, (void)err;
  return trak__tvf_connect(db,
                           "CREATE TABLE x(c0 INTEGER, c1 INTEGER, c2 INTEGER, c3 INTEGER, "
                           "c4 INTEGER, c5 INTEGER, c6 INTEGER, "
                           "algorithm HIDDEN, rows_a HIDDEN, rows_b HIDDEN)",
                           sizeof(gv_vtab), offsetof(gv_vtab, db), db, out);
}

/* The algorithm and rows_a are required, rows_b optional (partition has none). */
static int gv_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  (void)vt;
  static const trak_tvf_args args = {.first = TRAK_GRAPH_COLS, .n = 3, .required = 3, .cost = 1000,
                                       .rows = 1000000};
  return trak__tvf_best_index(info, &args);
}

static int gv_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  gv_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *out = &c->base;
  return SQLITE_OK;
}

static void gv_reset(gv_cursor *c) {
  free(c->rows.v);
  free(c->rows.null);
  memset(&c->rows, 0, sizeof c->rows);
  c->i = 0;
}

static int gv_close(sqlite3_vtab_cursor *cur) {
  gv_reset((gv_cursor *)cur);
  free(cur);
  return SQLITE_OK;
}

static int run(const char *algo, sqlite3_value *qa, sqlite3_value *qb, out_rows *o, char **err) {
  graph g = {0}, rev = {0};
  int rc = SQLITE_OK;
  int dfs = !strcmp(algo, "dfs"), bfs = !strcmp(algo, "bfs"), dom = !strcmp(algo, "dominator");
  if (dfs || bfs || dom) {
    rc = load_graph(qa, &g, 0, err);
    size_t built = g.ids.n; /* nodes the CSR covers */
    ids starts = {&g, {0}};
    if (rc == SQLITE_OK && qb) rc = each_row(qb, 1, id_row, &starts, err);
    if (rc == SQLITE_OK && !g.off) rc = SQLITE_NOMEM;
    /* Start nodes without edges were numbered after the CSR was built: give them none. */
    if (rc == SQLITE_OK && g.ids.n) {
      uint32_t *off = realloc(g.off, (g.ids.n + 1) * sizeof *off);
      if (!off) rc = SQLITE_NOMEM;
      for (size_t i = built + 1; off && i <= g.ids.n; i++)
        off[i] = off[built];
      if (off) g.off = off;
    }
    if (rc == SQLITE_OK && !dom) {
      search(&g, &starts.v, dfs, o);
    } else if (rc == SQLITE_OK && starts.v.n) {
      /* The reverse graph for predecessors, numbered the same way. */
      rev.index = (trak_map){0};
      for (size_t i = 0; i < g.ids.n; i++)
        node(&rev, g.ids.v[i]);
      rc = load_graph(qa, &rev, 1, err);
      if (rc == SQLITE_OK) dominators(&g, &rev, starts.v.v[0], o);
    }
    trak_vec_free(starts.v);
  } else if (!strcmp(algo, "weight_floor") || !strcmp(algo, "weight_ceiling")) {
    rc = weight_bounded(qa, qb, !strcmp(algo, "weight_floor"), o, err);
  } else if (!strcmp(algo, "partition")) {
    forest f = {&g, {0}, {0}, {0}};
    rc = each_row(qa, 3, forest_row, &f, err);
    if (rc == SQLITE_OK) partition(&f, o);
    trak_vec_free(f.parent);
    trak_vec_free(f.group);
    trak_vec_free(f.rows);
  } else {
    *err = sqlite3_mprintf("graph: unknown algorithm '%s'", algo);
    rc = SQLITE_ERROR;
  }
  graph_free(&g);
  graph_free(&rev);
  return rc;
}

static int gv_filter(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                     sqlite3_value **argv) {
  gv_cursor *c = (gv_cursor *)cur;
  gv_vtab *v = (gv_vtab *)cur->pVtab;
  gv_reset(c);
  const char *algo = argc > 0 ? (const char *)sqlite3_value_text(argv[0]) : NULL;
  if (algo && !strcmp(algo, "critical_path") && argc > 2) /* BLOBs, not queries */
    return trak__critical_path_walk(argv[1], argv[2], &c->rows) ? SQLITE_NOMEM : SQLITE_OK;
  if (!algo || argc < 2) return SQLITE_OK;
  char *err = NULL;
  int rc = run(algo, argv[1], argc > 2 ? argv[2] : NULL, &c->rows, &err);
  if (rc != SQLITE_OK) {
    sqlite3_free(v->base.zErrMsg);
    v->base.zErrMsg = err ? err : sqlite3_mprintf("graph: %s", sqlite3_errstr(rc));
  }
  return rc;
}

static int gv_next(sqlite3_vtab_cursor *cur) {
  ((gv_cursor *)cur)->i++;
  return SQLITE_OK;
}

static int gv_eof(sqlite3_vtab_cursor *cur) {
  gv_cursor *c = (gv_cursor *)cur;
  return c->i >= c->rows.n;
}

static int gv_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  gv_cursor *c = (gv_cursor *)cur;
  size_t at = TRAK_GRAPH_COLS * c->i + (size_t)col;
  if (col < TRAK_GRAPH_COLS && !c->rows.null[at]) sqlite3_result_int64(ctx, c->rows.v[at]);
  return SQLITE_OK;
}

static int gv_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((gv_cursor *)cur)->i;
  return SQLITE_OK;
}

static const sqlite3_module gv_module = {
    .iVersion = 1,
    .xConnect = gv_connect,
    .xBestIndex = gv_best_index,
    .xDisconnect = trak__tvf_disconnect,
    .xDestroy = trak__tvf_disconnect,
    .xOpen = gv_open,
    .xClose = gv_close,
    .xFilter = gv_filter,
    .xNext = gv_next,
    .xEof = gv_eof,
    .xColumn = gv_column,
    .xRowid = gv_rowid,
};

int trak__psql_graphs_register(trak_processor *p) {
  int rc = sqlite3_create_module(p->db, "__trak_graph", &gv_module, NULL);
  if (rc == SQLITE_OK) rc = trak__psql_row_blobs_register(p);
  if (rc == SQLITE_OK) rc = trak__psql_graph_scan_register(p);
  return rc == SQLITE_OK ? trak__psql_critical_path_register(p) : rc;
}
