/*
** This file computes a flamegraph from a tree of rows, with Perfetto's semantics for
** __intrinsic_flamegraph (facts from its documentation and tests; the code is trak's):
**
** - A frame is a row's name plus its grouping columns. Children of the same merged parent with
**   equal frames merge into one node; the first row is the node's representative.
** - HIDE_FRAME removes matching rows: their values and children go to the nearest kept
**   ancestor. HIDE_STACK drops every sample whose path holds a matching frame. With SHOW_STACK
**   filters, only samples whose path matches every one of them count. A filter matches a frame
**   when its regular expression matches part of the name or of a grouping column's text.
** - TOP_DOWN starts the tree at the roots; FROM_FRAME at every frame matching the view pattern;
**   PIVOT does that and also hangs the callers of those frames below them (negative depths);
**   BOTTOM_UP has only the upward half: each sampled frame, then its callers.
** - Nodes whose cumulative values are all zero are dropped. The layout is breadth first,
**   siblings widest first (ties in the order the nodes were made), children packed from their
**   parent's x_start; the downward and upward halves are separate strips starting at x = 0.
*/
#define _GNU_SOURCE /* qsort_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/flamegraph.h"

/* Set on a path that went through a HIDE_STACK frame: above every SHOW_STACK bit, so such a path
** never has exactly the required bits. */
#define HIDE_STACK_BIT (UINT64_C(1) << 63)

/* ---- the merged trees ------------------------------------------------------------------------ */

/* Nodes keyed by (parent node, frame): a node per distinct path of frames. */
typedef struct tree {
  int64_t *parent;
  size_t *rep;  /* representative source row */
  uint64_t *fh; /* frame hash */
  size_t n, cap;
  uint32_t *slots; /* node + 1, 0 free */
  size_t nslots;
} tree;

static uint64_t mix(int64_t parent, uint64_t fh) {
  uint64_t h = fh ^ ((uint64_t)(parent + 1) * UINT64_C(0x9E3779B97F4A7C15));
  h ^= h >> 31;
  return h * UINT64_C(0xBF58476D1CE4E5B9);
}

static void tree_free(tree *t) {
  free(t->parent);
  free(t->rep);
  free(t->fh);
  free(t->slots);
}

/* The node for frame `fh` under `parent` (-1: a root), made from `row` if new; -1 on OOM. */
static int64_t intern(tree *t, int64_t parent, uint64_t fh, size_t row) {
  if ((t->n + 1) * 2 > t->nslots) {
    size_t nslots = t->nslots ? t->nslots * 2 : 64;
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < t->n; i++) {
      size_t j = mix(t->parent[i], t->fh[i]) & (nslots - 1);
      while (slots[j])
        j = (j + 1) & (nslots - 1);
      slots[j] = (uint32_t)i + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
  }
  size_t j = mix(parent, fh) & (t->nslots - 1);
  for (; t->slots[j]; j = (j + 1) & (t->nslots - 1)) {
    size_t node = t->slots[j] - 1;
    if (t->parent[node] == parent && t->fh[node] == fh) return (int64_t)node;
  }
  if (t->n == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 64;
    int64_t *p = realloc(t->parent, cap * sizeof *p);
    if (p) t->parent = p;
    size_t *r = p ? realloc(t->rep, cap * sizeof *r) : NULL;
    if (r) t->rep = r;
    uint64_t *f = r ? realloc(t->fh, cap * sizeof *f) : NULL;
    if (!f) return -1;
    t->fh = f;
    t->cap = cap;
  }
  t->parent[t->n] = parent;
  t->rep[t->n] = row;
  t->fh[t->n] = fh;
  t->slots[j] = (uint32_t)t->n + 1;
  return (int64_t)t->n++;
}

/* ---- frames and filters ---------------------------------------------------------------------- */

/* The text a filter sees for a value: strings as they are, integers in decimal, REALs with 15
** significant digits; NULL matches nothing. */
static const char *value_text(sqlite3_value *v, char *buf, size_t len) {
  switch (sqlite3_value_type(v)) {
  case SQLITE_NULL:
    return NULL;
  case SQLITE_INTEGER:
    snprintf(buf, len, "%lld", (long long)sqlite3_value_int64(v));
    return buf;
  case SQLITE_FLOAT:
    snprintf(buf, len, "%.15g", sqlite3_value_double(v));
    return buf;
  default:
    return (const char *)sqlite3_value_text(v);
  }
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ s[i]) * UINT64_C(1099511628211);
  return h;
}

/* A frame's identity: a 64-bit hash of the name and grouping values with their types (NULL and
** '' differ, as do 1 and '1'). Two frames colliding would merge; at 64 bits that is remote. */
static uint64_t frame_hash(const tree_source *src, const fg_config *cfg, size_t row) {
  uint64_t h = UINT64_C(14695981039346656037);
  for (size_t k = 0; k <= cfg->ngrouping; k++) {
    sqlite3_value *v = TREE_CELL(src, row, k == 0 ? 2 : cfg->grouping[k - 1]);
    unsigned char type = (unsigned char)sqlite3_value_type(v);
    h = fnv(h, &type, 1);
    if (type == SQLITE_INTEGER) {
      int64_t i = sqlite3_value_int64(v);
      h = fnv(h, &i, sizeof i);
    } else if (type == SQLITE_FLOAT) {
      double d = sqlite3_value_double(v);
      if (d == 0) d = 0; /* -0.0 and 0.0 are one frame */
      h = fnv(h, &d, sizeof d);
    } else if (type != SQLITE_NULL) {
      const void *s = sqlite3_value_text(v);
      uint32_t n = (uint32_t)sqlite3_value_bytes(v);
      h = fnv(h, &n, sizeof n);
      h = fnv(h, s, n);
    }
  }
  return h;
}

typedef struct matches {
  uint64_t show;
  int view, hide_stack, hide_frame;
} matches;

static int any_match(const regex_t *res, size_t n, const char *text) {
  for (size_t i = 0; i < n; i++)
    if (!regexec(&res[i], text, 0, NULL, 0)) return 1;
  return 0;
}

static void match_text(const fg_config *cfg, const char *text, matches *m) {
  if (!text) return;
  if (cfg->has_view_pattern && !regexec(&cfg->view_pattern, text, 0, NULL, 0)) m->view = 1;
  for (size_t i = 0; i < cfg->nshow; i++)
    if (!regexec(&cfg->show[i], text, 0, NULL, 0)) m->show |= UINT64_C(1) << i;
  m->hide_stack |= any_match(cfg->hide_stack, cfg->nhide_stack, text);
  m->hide_frame |= any_match(cfg->hide_frame, cfg->nhide_frame, text);
}

static matches match_frame(const tree_source *src, const fg_config *cfg, size_t row) {
  matches m = {0};
  char buf[64];
  match_text(cfg, value_text(TREE_CELL(src, row, 2), buf, sizeof buf), &m);
  for (size_t k = 0; k < cfg->ngrouping; k++)
    match_text(cfg, value_text(TREE_CELL(src, row, cfg->grouping[k]), buf, sizeof buf), &m);
  return m;
}

/* ---- the build ------------------------------------------------------------------------------- */

typedef struct constituent {
  size_t frame, node; /* upward node */
} constituent;

typedef struct path {
  int64_t root, leaf; /* upward nodes: the frame itself, and its outermost caller */
} path;

typedef struct builder {
  const tree_source *src;
  const fg_config *cfg;
  size_t rows;
  uint64_t *fh;
  uint64_t *bits; /* the path's SHOW_STACK bits, or HIDE_STACK_BIT */
  int64_t *kept;  /* nearest row not removed by HIDE_FRAME, the row itself if kept; -1: none */
  char *view_hit; /* kept rows matching the view pattern */
  uint64_t required;
  tree down, up;
  int64_t *dnode;  /* row -> downward node receiving its values, -1 outside */
  path *bottom_up; /* kept frame -> its upward path (BOTTOM_UP) */
  struct {
    size_t frame;
    path p;
  } * anchors; /* PIVOT: matching frames and their upward paths */
  size_t nanchors;
  constituent *cons; /* upward nodes and the frames folded into them (for aggregates) */
  size_t ncons, cons_cap;
  char *msg;
  size_t msg_len;
} builder;

static int oom(builder *b) {
  snprintf(b->msg, b->msg_len, "flamegraph: out of memory");
  return -1;
}

static int contributes(const builder *b, size_t row) {
  return b->kept[row] >= 0 && b->bits[row] == b->required;
}

static int has_downward(const fg_config *cfg) {
  return cfg->view != FG_BOTTOM_UP;
}

static int analyse(builder *b) {
  const fg_config *cfg = b->cfg;
  size_t n = b->rows;
  b->fh = malloc((n ? n : 1) * sizeof *b->fh);
  b->bits = malloc((n ? n : 1) * sizeof *b->bits);
  b->kept = malloc((n ? n : 1) * sizeof *b->kept);
  b->view_hit = calloc(n ? n : 1, 1);
  if (!b->fh || !b->bits || !b->kept || !b->view_hit) return oom(b);
  int filtering = cfg->has_view_pattern || cfg->nshow || cfg->nhide_stack || cfg->nhide_frame;
  for (size_t r = 0; r < n; r++) {
    b->fh[r] = frame_hash(b->src, cfg, r);
    int64_t p = b->src->parent[r];
    uint64_t inherited_bits = p < 0 ? 0 : b->bits[p];
    int64_t inherited_kept = p < 0 ? -1 : b->kept[p];
    matches m = filtering ? match_frame(b->src, cfg, r) : (matches){0};
    if (m.hide_frame) {
      b->bits[r] = inherited_bits;
      b->kept[r] = inherited_kept;
      continue;
    }
    b->kept[r] = (int64_t)r;
    b->view_hit[r] = (char)m.view;
    b->bits[r] = m.hide_stack ? HIDE_STACK_BIT : (m.show | inherited_bits);
  }
  return 0;
}

static int build_downward(builder *b) {
  size_t n = b->rows;
  b->dnode = malloc((n ? n : 1) * sizeof *b->dnode);
  if (!b->dnode) return oom(b);
  for (size_t r = 0; r < n; r++) {
    int64_t p = b->src->parent[r];
    int64_t pn = p < 0 ? -1 : b->dnode[p];
    if (!has_downward(b->cfg)) {
      b->dnode[r] = -1;
      continue;
    }
    if (b->kept[r] != (int64_t)r) { /* removed: its values go to the parent's node */
      b->dnode[r] = pn;
      continue;
    }
    int kept_parent = p >= 0 && b->kept[p] >= 0;
    int starts = b->view_hit[r] || (b->cfg->view == FG_TOP_DOWN && !kept_parent);
    if (!starts && pn < 0) {
      b->dnode[r] = -1;
      continue;
    }
    b->dnode[r] = intern(&b->down, starts ? -1 : pn, b->fh[r], r);
    if (b->dnode[r] < 0) return oom(b);
  }
  return 0;
}

/* Interns the upward path of `frame`: itself, then its kept callers outwards. */
static int upward_path(builder *b, size_t frame, int with_constituents, path *out) {
  int64_t node = -1, f = (int64_t)frame;
  out->root = -1;
  while (f >= 0) {
    node = intern(&b->up, node, b->fh[f], (size_t)f);
    if (node < 0) return oom(b);
    if (out->root < 0) out->root = node;
    if (with_constituents) {
      if (b->ncons == b->cons_cap) {
        size_t cap = b->cons_cap ? b->cons_cap * 2 : 64;
        constituent *c = realloc(b->cons, cap * sizeof *c);
        if (!c) return oom(b);
        b->cons = c;
        b->cons_cap = cap;
      }
      b->cons[b->ncons++] = (constituent){(size_t)f, (size_t)node};
    }
    int64_t p = b->src->parent[f];
    f = p < 0 ? -1 : b->kept[p];
  }
  out->leaf = node;
  return 0;
}

static int nonzero(sqlite3_value *v) {
  int t = sqlite3_value_type(v);
  return t == SQLITE_INTEGER ? sqlite3_value_int64(v) != 0
                             : t == SQLITE_FLOAT && sqlite3_value_double(v) != 0;
}

static int build_upward(builder *b) {
  const fg_config *cfg = b->cfg;
  size_t n = b->rows;
  if (cfg->view == FG_PIVOT) {
    b->anchors = malloc((n ? n : 1) * sizeof *b->anchors);
    if (!b->anchors) return oom(b);
    for (size_t r = 0; r < n; r++) {
      if (!b->view_hit[r]) continue;
      b->anchors[b->nanchors].frame = r;
      if (upward_path(b, r, cfg->naggs && contributes(b, r), &b->anchors[b->nanchors].p)) return -1;
      b->nanchors++;
    }
    return 0;
  }
  if (cfg->view != FG_BOTTOM_UP) return 0;
  char *active = calloc(n ? n : 1, 1);
  b->bottom_up = malloc((n ? n : 1) * sizeof *b->bottom_up);
  if (!active || !b->bottom_up) return free(active), oom(b);
  for (size_t r = 0; r < n; r++)
    for (size_t k = 0; k < cfg->nvalues; k++)
      if (nonzero(TREE_CELL(b->src, r, cfg->values[k])) && contributes(b, r))
        active[b->kept[r]] = 1;
  int rc = 0;
  for (size_t r = 0; r < n && !rc; r++)
    if (active[r]) rc = upward_path(b, r, 1, &b->bottom_up[r]);
  free(active);
  return rc;
}

/* ---- values ---------------------------------------------------------------------------------- */

static int add(builder *b, int is_int, fg_num *to, const fg_num *v) {
  if (!is_int) {
    to->d += v->d;
    return 0;
  }
  if (__builtin_add_overflow(to->i, v->i, &to->i)) {
    snprintf(b->msg, b->msg_len, "flamegraph: integer value overflow");
    return -1;
  }
  return 0;
}

static fg_num num_of(sqlite3_value *v) {
  return (fg_num){sqlite3_value_int64(v), sqlite3_value_double(v)};
}

/* Adds each node's cumulative value into its parent's (children come after their parents). */
static int propagate(builder *b, const tree *t, size_t offset, int is_int, fg_num *cum) {
  for (size_t node = t->n; node-- > 0;)
    if (t->parent[node] >= 0 &&
        add(b, is_int, &cum[offset + (size_t)t->parent[node]], &cum[offset + node]))
      return -1;
  return 0;
}

static int metric(builder *b, size_t col, fg_num *self, fg_num *cum) {
  const fg_config *cfg = b->cfg;
  int is_int = b->src->types[col] == TREE_INT;
  size_t n = b->rows, d = b->down.n;
  for (size_t r = 0; r < n; r++) {
    sqlite3_value *v = TREE_CELL(b->src, r, col);
    if (sqlite3_value_type(v) == SQLITE_NULL) continue;
    fg_num x = num_of(v);
    if (b->dnode[r] >= 0 && contributes(b, r) &&
        (add(b, is_int, &self[b->dnode[r]], &x) || add(b, is_int, &cum[b->dnode[r]], &x)))
      return -1;
  }
  if (propagate(b, &b->down, 0, is_int, cum)) return -1;
  if (cfg->view == FG_BOTTOM_UP) {
    for (size_t r = 0; r < n; r++) {
      sqlite3_value *v = TREE_CELL(b->src, r, col);
      if (!nonzero(v) || !contributes(b, r)) continue;
      fg_num x = num_of(v);
      const path *p = &b->bottom_up[b->kept[r]];
      if (add(b, is_int, &self[d + (size_t)p->root], &x) ||
          add(b, is_int, &cum[d + (size_t)p->leaf], &x))
        return -1;
    }
  } else if (cfg->view == FG_PIVOT) {
    /* Each anchor weighs what its downward subtree holds (down to nested anchors). */
    fg_num *weight = calloc(n ? n : 1, sizeof *weight);
    if (!weight) return oom(b);
    int rc = 0;
    for (size_t r = 0; r < n && !rc; r++) {
      sqlite3_value *v = TREE_CELL(b->src, r, col);
      if (sqlite3_value_type(v) == SQLITE_NULL || b->dnode[r] < 0 || !contributes(b, r)) continue;
      fg_num x = num_of(v);
      rc = add(b, is_int, &weight[b->kept[r]], &x);
    }
    for (size_t r = n; r-- > 0 && !rc;) {
      if (b->kept[r] != (int64_t)r || b->dnode[r] < 0 || b->down.parent[b->dnode[r]] < 0) continue;
      rc = add(b, is_int, &weight[b->kept[b->src->parent[r]]], &weight[r]);
    }
    for (size_t a = 0; a < b->nanchors && !rc; a++) {
      const fg_num *w = &weight[b->anchors[a].frame];
      rc = add(b, is_int, &self[d + (size_t)b->anchors[a].p.root], w) ||
           add(b, is_int, &cum[d + (size_t)b->anchors[a].p.leaf], w);
    }
    free(weight);
    if (rc) return -1;
  }
  return propagate(b, &b->up, d, is_int, cum);
}

/* ---- aggregates ------------------------------------------------------------------------------ */

/* The text of a value as an aggregate writes it: REALs with 15 digits and, when whole, ".0" as
** SQLite writes them. */
static void append_value(sqlite3_str *s, sqlite3_value *v) {
  int t = sqlite3_value_type(v);
  if (t == SQLITE_INTEGER) {
    sqlite3_str_appendf(s, "%lld", (long long)sqlite3_value_int64(v));
  } else if (t == SQLITE_FLOAT) {
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", sqlite3_value_double(v));
    sqlite3_str_appendall(s, buf);
    if (strcspn(buf, ".eEnN") == strlen(buf)) sqlite3_str_appendall(s, ".0");
  } else {
    sqlite3_str_appendall(s, (const char *)sqlite3_value_text(v));
  }
}

static int value_equal(sqlite3_value *a, sqlite3_value *b) {
  int t = sqlite3_value_type(a);
  if (t != sqlite3_value_type(b)) return 0;
  if (t == SQLITE_INTEGER) return sqlite3_value_int64(a) == sqlite3_value_int64(b);
  if (t == SQLITE_FLOAT)
    return !(sqlite3_value_double(a) < sqlite3_value_double(b)) &&
           !(sqlite3_value_double(a) > sqlite3_value_double(b));
  return sqlite3_value_bytes(a) == sqlite3_value_bytes(b) &&
         !memcmp(sqlite3_value_text(a), sqlite3_value_text(b), (size_t)sqlite3_value_bytes(a));
}

/* The frames folded into each node, in node order: downward ones by frame, then the upward
** constituents in the order they were made. */
typedef struct routing {
  size_t *node_off, *frames; /* frames of node i: frames[node_off[i] .. node_off[i + 1]) */
  size_t *frame_off, *rows;  /* rows of frame f: rows[frame_off[f] .. frame_off[f + 1]) */
} routing;

static void routing_free(routing *rt) {
  free(rt->node_off);
  free(rt->frames);
  free(rt->frame_off);
  free(rt->rows);
}

static int down_frame(const builder *b, size_t f) {
  return has_downward(b->cfg) && b->kept[f] == (int64_t)f && b->dnode[f] >= 0 && contributes(b, f);
}

static int route(builder *b, routing *rt) {
  size_t n = b->rows, d = b->down.n, nodes = d + b->up.n;
  rt->node_off = calloc(nodes + 2, sizeof *rt->node_off);
  rt->frame_off = calloc(n + 2, sizeof *rt->frame_off);
  rt->frames = malloc((n + b->ncons + 1) * sizeof *rt->frames);
  rt->rows = malloc((n + 1) * sizeof *rt->rows);
  if (!rt->node_off || !rt->frame_off || !rt->frames || !rt->rows) return oom(b);
  for (size_t f = 0; f < n; f++)
    if (down_frame(b, f)) rt->node_off[b->dnode[f] + 2]++;
  for (size_t c = 0; c < b->ncons; c++)
    rt->node_off[d + b->cons[c].node + 2]++;
  for (size_t i = 2; i < nodes + 2; i++)
    rt->node_off[i] += rt->node_off[i - 1];
  for (size_t f = 0; f < n; f++)
    if (down_frame(b, f)) rt->frames[rt->node_off[b->dnode[f] + 1]++] = f;
  for (size_t c = 0; c < b->ncons; c++)
    rt->frames[rt->node_off[d + b->cons[c].node + 1]++] = b->cons[c].frame;
  for (size_t r = 0; r < n; r++)
    if (b->kept[r] >= 0 && !(b->bits[r] & HIDE_STACK_BIT)) rt->frame_off[b->kept[r] + 2]++;
  for (size_t i = 2; i < n + 2; i++)
    rt->frame_off[i] += rt->frame_off[i - 1];
  for (size_t r = 0; r < n; r++)
    if (b->kept[r] >= 0 && !(b->bits[r] & HIDE_STACK_BIT))
      rt->rows[rt->frame_off[b->kept[r] + 1]++] = r;
  return 0;
}

/* Sums the rows of each kept frame, then the frames of each node; NULL when none had a value. */
static int aggregate_sum(builder *b, size_t col, fg_val *out) {
  size_t n = b->rows, d = b->down.n;
  int is_int = b->src->types[col] == TREE_INT;
  fg_num *total = calloc(n ? n : 1, sizeof *total);
  char *has = calloc(n ? n : 1, 1);
  if (!total || !has) return free(total), free(has), oom(b);
  int rc = 0;
  for (size_t r = 0; r < n && !rc; r++) {
    sqlite3_value *v = TREE_CELL(b->src, r, col);
    if (sqlite3_value_type(v) == SQLITE_NULL || b->kept[r] < 0 || (b->bits[r] & HIDE_STACK_BIT))
      continue;
    fg_num x = num_of(v);
    has[b->kept[r]] = 1;
    rc = add(b, is_int, &total[b->kept[r]], &x);
  }
  for (size_t f = 0; f < n + b->ncons && !rc; f++) {
    if (f < n && !down_frame(b, f)) continue;
    size_t frame = f < n ? f : b->cons[f - n].frame;
    size_t node = f < n ? (size_t)b->dnode[f] : d + b->cons[f - n].node;
    if (!has[frame]) continue;
    fg_val *o = &out[node];
    if (!o->type) o->type = is_int ? SQLITE_INTEGER : SQLITE_FLOAT;
    fg_num acc = {o->i, o->d};
    rc = add(b, is_int, &acc, &total[frame]);
    o->i = acc.i, o->d = acc.d;
  }
  free(total);
  free(has);
  return rc;
}

/* ONE_OR_SUMMARY: the one value, or "first and N others" (N distinct values, the first among
** them) as Perfetto writes it; CONCAT_WITH_COMMA: every value, comma-separated. */
static int aggregate_text(builder *b, const routing *rt, size_t col, fg_agg kind, fg_val *out) {
  size_t nodes = b->down.n + b->up.n;
  sqlite3_value **distinct = NULL;
  size_t ndistinct = 0, cap = 0;
  for (size_t node = 0; node < nodes; node++) {
    sqlite3_str *s = sqlite3_str_new(NULL);
    sqlite3_value *first = NULL;
    ndistinct = 0;
    for (size_t fi = rt->node_off[node]; fi < rt->node_off[node + 1]; fi++) {
      size_t f = rt->frames[fi];
      for (size_t ri = rt->frame_off[f]; ri < rt->frame_off[f + 1]; ri++) {
        sqlite3_value *v = TREE_CELL(b->src, rt->rows[ri], col);
        if (sqlite3_value_type(v) == SQLITE_NULL) continue;
        if (kind == FG_CONCAT) {
          if (sqlite3_str_length(s)) sqlite3_str_appendchar(s, 1, ',');
          append_value(s, v);
          continue;
        }
        if (!first) first = v;
        size_t k = 0;
        while (k < ndistinct && !value_equal(distinct[k], v))
          k++;
        if (k < ndistinct) continue;
        if (ndistinct == cap) {
          cap = cap ? cap * 2 : 16;
          sqlite3_value **grown = realloc(distinct, cap * sizeof *grown);
          if (!grown) return free(distinct), sqlite3_free(sqlite3_str_finish(s)), oom(b);
          distinct = grown;
        }
        distinct[ndistinct++] = v;
      }
    }
    if (kind == FG_ONE_OR_SUMMARY && first) {
      append_value(s, first);
      if (ndistinct > 1) sqlite3_str_appendf(s, " and %lld others", (long long)ndistinct);
    }
    int len = sqlite3_str_length(s);
    char *text = sqlite3_str_finish(s);
    if (len > 0 || (kind == FG_ONE_OR_SUMMARY && first)) {
      out[node].type = SQLITE_TEXT;
      out[node].s = strdup(text ? text : "");
      if (!out[node].s) return sqlite3_free(text), free(distinct), oom(b);
    }
    sqlite3_free(text);
  }
  free(distinct);
  return 0;
}

/* ---- packing and layout ---------------------------------------------------------------------- */

typedef struct packed {
  size_t node; /* combined node id */
  int64_t depth, parent;
  double width;
} packed;

/* Widest first; ties in packing order. */
static int by_width(const void *x, const void *y, void *base) {
  const packed *pk = base;
  size_t a = *(const size_t *)x, b = *(const size_t *)y;
  double wa = pk[a].width, wb = pk[b].width;
  if (wa != wb) return wa > wb ? -1 : 1;
  return a < b ? -1 : a > b;
}

static int layout(builder *b, fg_result *res, const packed *pk, size_t np) {
  size_t *order = malloc((np + 1) * sizeof *order), *child_off = calloc(np + 2, sizeof *child_off);
  size_t *children = malloc((np + 1) * sizeof *children), *roots = malloc((np + 1) * sizeof *roots);
  double *x = malloc((np + 1) * sizeof *x);
  res->rows = malloc((np + 1) * sizeof *res->rows);
  if (!order || !child_off || !children || !roots || !x || !res->rows) {
    free(order), free(child_off), free(children), free(roots), free(x);
    return oom(b);
  }
  for (size_t i = 0; i < np; i++)
    order[i] = i;
  qsort_r(order, np, sizeof *order, by_width, (void *)pk);
  for (size_t i = 0; i < np; i++)
    if (pk[i].parent >= 0) child_off[pk[i].parent + 2]++;
  for (size_t i = 2; i < np + 2; i++)
    child_off[i] += child_off[i - 1];
  size_t ndown = 0, nup = 0;
  for (size_t i = 0; i < np; i++)
    if (pk[order[i]].parent < 0) pk[order[i]].depth >= 0 ? ndown++ : nup++;
  size_t di = 0, ui = ndown; /* roots: the downward strip, then the upward one, widest first */
  double down_x = 0, up_x = 0;
  for (size_t i = 0; i < np; i++) {
    size_t k = order[i];
    if (pk[k].parent >= 0) {
      children[child_off[pk[k].parent + 1]++] = k;
    } else if (pk[k].depth >= 0) {
      roots[di++] = k, x[k] = down_x, down_x += pk[k].width;
    } else {
      roots[ui++] = k, x[k] = up_x, up_x += pk[k].width;
    }
  }
  /* Roots in x order, the downward strip first on ties; then breadth first. */
  size_t tail = 0;
  for (size_t a = 0, u = ndown; a < ndown || u < ndown + nup;) {
    size_t k =
        (u >= ndown + nup || (a < ndown && x[roots[a]] <= x[roots[u]])) ? roots[a++] : roots[u++];
    res->rows[tail++] = (fg_out){pk[k].depth, -1, 0, k, x[k]};
  }
  for (size_t row = 0; row < tail; row++) {
    size_t k = res->rows[row].node;
    double offset = res->rows[row].x_start;
    for (size_t i = child_off[k]; i < child_off[k + 1]; i++) {
      size_t c = children[i];
      x[c] = offset;
      offset += pk[c].width;
      res->rows[tail++] = (fg_out){pk[c].depth, (int64_t)row, 0, c, x[c]};
    }
  }
  res->nrows = tail;
  free(order), free(child_off), free(children), free(roots), free(x);
  return 0;
}

static int pack(builder *b, fg_result *res) {
  size_t d = b->down.n, nodes = d + b->up.n;
  packed *pk = malloc((nodes + 1) * sizeof *pk);
  int64_t *packed_of = malloc((nodes + 1) * sizeof *packed_of);
  if (!pk || !packed_of) return free(pk), free(packed_of), oom(b);
  size_t np = 0;
  int primary_int = b->src->types[b->cfg->values[0]] == TREE_INT;
  for (size_t node = 0; node < nodes; node++) {
    packed_of[node] = -1;
    int keep = 0;
    for (size_t k = 0; k < b->cfg->nvalues && !keep; k++) {
      const fg_num *c = &res->cumulative[k][node];
      keep = b->src->types[b->cfg->values[k]] == TREE_INT ? c->i != 0 : c->d != 0;
    }
    if (!keep) continue;
    int upward = node >= d;
    const tree *t = upward ? &b->up : &b->down;
    int64_t tp = t->parent[upward ? node - d : node];
    int64_t parent = tp < 0 ? -1 : packed_of[(upward ? d : 0) + (size_t)tp];
    int64_t step = upward ? -1 : 1;
    const fg_num *c = &res->cumulative[0][node];
    double w = primary_int ? (double)c->i : c->d;
    pk[np] = (packed){node, parent < 0 ? step : pk[parent].depth + step, parent, w > 0 ? w : 0};
    packed_of[node] = (int64_t)np++;
  }
  int rc = layout(b, res, pk, np);
  for (size_t i = 0; !rc && i < res->nrows; i++) {
    size_t node = pk[res->rows[i].node].node;
    res->rows[i].node = node;
    res->rows[i].source_row = node < d ? b->down.rep[node] : b->up.rep[node - d];
  }
  free(pk);
  free(packed_of);
  return rc;
}

/* ---- entry ----------------------------------------------------------------------------------- */

static int check_values(builder *b) {
  for (size_t k = 0; k < b->cfg->nvalues; k++)
    for (size_t r = 0; r < b->rows; r++) {
      sqlite3_value *v = TREE_CELL(b->src, r, b->cfg->values[k]);
      int t = sqlite3_value_type(v);
      if ((t == SQLITE_INTEGER && sqlite3_value_int64(v) < 0) ||
          (t == SQLITE_FLOAT && sqlite3_value_double(v) < 0)) {
        snprintf(b->msg, b->msg_len, "flamegraph: value columns must be non-negative");
        return -1;
      }
    }
  return 0;
}

int trak__fg_build(const tree_source *src, const fg_config *cfg, fg_result *out, char *msg,
                   size_t msg_len) {
  builder b = {.src = src, .cfg = cfg, .rows = src->rows, .msg = msg, .msg_len = msg_len};
  b.required = (UINT64_C(1) << cfg->nshow) - 1;
  memset(out, 0, sizeof *out);
  routing rt = {0};
  int rc = check_values(&b);
  if (!rc) rc = analyse(&b);
  if (!rc) rc = build_downward(&b);
  if (!rc) rc = build_upward(&b);
  size_t nodes = b.down.n + b.up.n;
  out->nnodes = nodes;
  for (size_t k = 0; !rc && k < cfg->nvalues; k++) {
    out->self[k] = calloc(nodes + 1, sizeof *out->self[k]);
    out->cumulative[k] = calloc(nodes + 1, sizeof *out->cumulative[k]);
    rc = !out->self[k] || !out->cumulative[k]
             ? oom(&b)
             : metric(&b, cfg->values[k], out->self[k], out->cumulative[k]);
  }
  int need_routing = 0;
  for (size_t a = 0; a < cfg->naggs; a++)
    need_routing |= cfg->aggs[a].kind != FG_SUM;
  if (!rc && need_routing) rc = route(&b, &rt);
  for (size_t a = 0; !rc && a < cfg->naggs; a++) {
    out->agg[a] = calloc(nodes + 1, sizeof *out->agg[a]);
    if (!out->agg[a]) {
      rc = oom(&b);
    } else if (src->types[cfg->aggs[a].col] == TREE_NULL) {
      /* no values: NULL everywhere */
    } else if (cfg->aggs[a].kind == FG_SUM) {
      rc = aggregate_sum(&b, cfg->aggs[a].col, out->agg[a]);
    } else {
      rc = aggregate_text(&b, &rt, cfg->aggs[a].col, cfg->aggs[a].kind, out->agg[a]);
    }
  }
  if (!rc) rc = pack(&b, out);
  routing_free(&rt);
  free(b.fh);
  free(b.bits);
  free(b.kept);
  free(b.view_hit);
  free(b.dnode);
  free(b.bottom_up);
  free(b.anchors);
  free(b.cons);
  tree_free(&b.down);
  tree_free(&b.up);
  if (rc) trak__fg_result_free(out, cfg);
  return rc;
}

void trak__fg_result_free(fg_result *r, const fg_config *cfg) {
  for (size_t k = 0; k < cfg->nvalues; k++) {
    free(r->self[k]);
    free(r->cumulative[k]);
  }
  for (size_t a = 0; a < cfg->naggs; a++) {
    for (size_t i = 0; r->agg[a] && i < r->nnodes; i++)
      free(r->agg[a][i].s);
    free(r->agg[a]);
  }
  free(r->rows);
  memset(r, 0, sizeof *r);
}
