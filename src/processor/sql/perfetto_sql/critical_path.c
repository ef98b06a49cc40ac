/*
** This file holds the walk behind sched.thread_executing_span's critical path (Perfetto's
** __intrinsic_critical_path_walk): __trak_graph('critical_path', nodes, roots), nodes and
** roots being BLOBs the aggregate __trak_int_rows packs a table's rows into (so that the tables
** may be a statement's CTEs or a function's arguments), as
**   nodes = (SELECT __trak_int_rows(id, utid, ts, dur, idle_dur, waker_id, prev_id) FROM ...)
**   roots = (SELECT __trak_int_rows(root_node_id) FROM ...).
**
** A node of the wakeup graph is a thread's wakeup: idle over [ts - idle_dur, ts) (no lower bound
** when idle_dur is NULL), then running over [ts, ts + dur); waker_id is the node of the thread
** that woke it, prev_id the thread's previous node. Each root is walked on its own, depth first,
** over frames (node, window, depth, parent) starting from the root over its idle and run:
**  - the part of the window before the node's idle goes to prev_id at the same depth;
**  - the idle part goes to waker_id one level deeper, or, without a waker but with a previous
**    node (an interrupt woke it), is blamed on the node itself;
**  - the run part is blamed on the node.
** Every frame but the first descends to earlier time, and a frame's window lies inside its
** caller's, so a root costs the nodes its window reaches, not the whole graph.
** Rows: (root_id, depth, ts, dur, blocker_id, blocker_utid, parent_id); parent_id is the root,
** as in Perfetto v58.2.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"

enum { HAS_NODE = 1, HAS_IDLE = 2, HAS_WAKER = 4, HAS_PREV = 8 };

typedef struct cp_node {
  int64_t ts, dur, idle_dur;
  uint32_t utid, waker_id, prev_id;
  uint8_t flags;
} cp_node;

/* Nodes by id (ids are thread_state ids, dense in practice). */
typedef struct cp_graph {
  cp_node *nodes;
  size_t n;
  int oom;
} cp_graph;

typedef TRAK_VEC(int64_t) cp_ids;

typedef struct cp_frame {
  uint32_t node, depth, parent;
  int64_t start, end;
} cp_frame;

typedef TRAK_VEC(cp_frame) cp_stack;

/* The largest id kept: ids past it (never thread_state ids) are dropped with their node. */
#define CP_MAX_ID 0x7fffffffu

/* ---- __trak_int_rows: a table's rows in a BLOB -----------------------------------------------
** A 4-byte column count, then each row: a 4-byte NULL mask (bit i: column i) and the columns as
** 8-byte integers (0 for NULL), native order. */

enum { MAX_INT_COLS = 16 };

typedef struct int_rows_agg {
  unsigned char *v;
  size_t n, cap;
} int_rows_agg;

static void int_rows_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int_rows_agg *a = sqlite3_aggregate_context(ctx, sizeof *a);
  if (!a) return sqlite3_result_error_nomem(ctx);
  if (argc < 1 || argc > MAX_INT_COLS)
    return sqlite3_result_error(ctx, "__trak_int_rows: 1 to 16 arguments", -1);
  uint32_t ncols = (uint32_t)argc, mask = 0;
  size_t need = a->n + (a->n ? 0 : 4) + 4 + 8 * ncols;
  if (need > a->cap) trak__grow((void **)&a->v, &a->cap, need, 1);
  if (!a->n) memcpy(a->v, &ncols, 4), a->n = 4;
  unsigned char *row = a->v + a->n;
  for (uint32_t i = 0; i < ncols; i++) {
    int null = sqlite3_value_type(argv[i]) == SQLITE_NULL;
    int64_t x = null ? 0 : sqlite3_value_int64(argv[i]);
    mask |= (uint32_t)null << i;
    memcpy(row + 4 + 8 * i, &x, 8);
  }
  memcpy(row, &mask, 4);
  a->n = need;
}

static void int_rows_final(sqlite3_context *ctx) {
  int_rows_agg *a = sqlite3_aggregate_context(ctx, 0);
  if (a && a->n) sqlite3_result_blob64(ctx, a->v, a->n, free);
  else sqlite3_result_null(ctx);
}

/* Calls row() on each row of a __trak_int_rows BLOB that has at least `ncols` columns (the
** first ncols given). Returns 0, or -1 when the value is not such a BLOB. */
static int each_int_row(sqlite3_value *blob, uint32_t ncols,
                        void (*row)(void *ctx, const int64_t *v, const int *null), void *ctx) {
  if (sqlite3_value_type(blob) != SQLITE_BLOB) return -1;
  const unsigned char *p = sqlite3_value_blob(blob);
  size_t n = (size_t)sqlite3_value_bytes(blob);
  uint32_t have;
  if (n < 4 || (memcpy(&have, p, 4), have < ncols) || have > MAX_INT_COLS) return -1;
  size_t width = 4 + 8 * (size_t)have;
  int64_t v[MAX_INT_COLS];
  int null[MAX_INT_COLS];
  for (size_t at = 4; at + width <= n; at += width) {
    uint32_t mask;
    memcpy(&mask, p + at, 4);
    for (uint32_t i = 0; i < ncols; i++) {
      memcpy(&v[i], p + at + 4 + 8 * i, 8);
      null[i] = (int)((mask >> i) & 1);
    }
    row(ctx, v, null);
  }
  return 0;
}

/* ---- the walk -------------------------------------------------------------------------------- */


static void node_row(void *ctx, const int64_t *v, const int *null) {
  cp_graph *g = ctx;
  if (null[0] || v[0] < 0 || (uint64_t)v[0] > CP_MAX_ID || g->oom) return;
  size_t id = (size_t)v[0];
  if (id >= g->n) {
    size_t n = g->n ? g->n : 1024;
    while (n <= id)
      n *= 2;
    cp_node *nodes = realloc(g->nodes, n * sizeof *nodes);
    if (!nodes) {
      g->oom = 1;
      return;
    }
    for (size_t i = g->n; i < n; i++)
      nodes[i].flags = 0;
    g->nodes = nodes, g->n = n;
  }
  cp_node *nd = &g->nodes[id];
  nd->utid = (uint32_t)v[1];
  nd->ts = v[2];
  nd->dur = v[3];
  nd->idle_dur = v[4];
  nd->waker_id = (uint32_t)v[5];
  nd->prev_id = (uint32_t)v[6];
  nd->flags = (uint8_t)(HAS_NODE | (null[4] ? 0 : HAS_IDLE) |
                        (null[5] || v[5] < 0 || (uint64_t)v[5] > CP_MAX_ID ? 0 : HAS_WAKER) |
                        (null[6] || v[6] < 0 || (uint64_t)v[6] > CP_MAX_ID ? 0 : HAS_PREV));
}

static void root_row(void *ctx, const int64_t *v, const int *null) {
  if (!null[0]) trak_vec_push(*(cp_ids *)ctx, v[0]);
}

static const cp_node *node_at(const cp_graph *g, uint64_t id) {
  return id < g->n && (g->nodes[id].flags & HAS_NODE) ? &g->nodes[id] : NULL;
}

static void blame(trak_graph_rows *o, uint32_t root, const cp_frame *f, const cp_node *n,
                  int64_t start, int64_t end) {
  int64_t v[TRAK_GRAPH_COLS] = {root, f->depth, start, end - start, f->node, n->utid, f->parent};
  trak__graph_row(o, v, 0);
}

/* Walks one root, appending its rows to o; `stack` is scratch space. */
static void walk_root(const cp_graph *g, uint32_t root_id, cp_stack *stack, trak_graph_rows *o) {
  const cp_node *root = node_at(g, root_id);
  if (!root) return;
  stack->n = 0;
  int64_t idle = (root->flags & HAS_IDLE) ? root->idle_dur : 0;
  trak_vec_push(*stack, ((cp_frame){root_id, 0, root_id, root->ts - idle, root->ts + root->dur}));
  while (stack->n) {
    cp_frame f = stack->v[--stack->n];
    const cp_node *n = node_at(g, f.node);
    if (f.start >= f.end || !n) continue;
    int has_idle = n->flags & HAS_IDLE;
    int64_t idle_start = has_idle ? n->ts - n->idle_dur : f.start;
    /* Before the node's idle: the thread's previous node, same depth. */
    if (has_idle && f.start < idle_start && (n->flags & HAS_PREV)) {
      int64_t end = f.end < idle_start ? f.end : idle_start;
      trak_vec_push(*stack, ((cp_frame){n->prev_id, f.depth, f.parent, f.start, end}));
    }
    int64_t start = f.start > idle_start ? f.start : idle_start;
    int64_t run_end = n->ts + n->dur;
    int64_t end = f.end < run_end ? f.end : run_end;
    if (start >= end) continue;
    int64_t idle_end = end < n->ts ? end : n->ts;
    if (start < idle_end) {
      if (n->flags & HAS_WAKER)
        trak_vec_push(*stack, ((cp_frame){n->waker_id, f.depth + 1, f.parent, start, idle_end}));
      else if (n->flags & HAS_PREV)
        blame(o, root_id, &f, n, start, idle_end);
    }
    int64_t run_start = start > n->ts ? start : n->ts;
    if (run_start < end) blame(o, root_id, &f, n, run_start, end);
  }
}

int trak__critical_path_walk(sqlite3_value *nodes, sqlite3_value *roots, trak_graph_rows *o) {
  cp_graph g = {0};
  cp_ids ids = {0};
  cp_stack stack = {0};
  each_int_row(nodes, 7, node_row, &g);
  if (!g.oom) each_int_row(roots, 1, root_row, &ids);
  for (size_t i = 0; !g.oom && i < ids.n; i++)
    if (ids.v[i] >= 0 && (uint64_t)ids.v[i] <= CP_MAX_ID)
      walk_root(&g, (uint32_t)ids.v[i], &stack, o);
  int oom = g.oom;
  free(g.nodes);
  trak_vec_free(ids);
  trak_vec_free(stack);
  return oom ? -1 : 0;
}

int trak__psql_critical_path_register(trak_processor *p) {
  return sqlite3_create_function(p->db, "__trak_int_rows", -1, SQLITE_UTF8, NULL, NULL,
                                 int_rows_step, int_rows_final);
}
