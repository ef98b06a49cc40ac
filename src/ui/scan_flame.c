/*
** This file holds the area selection's flame graph merged from the slice table's columns
** (trak__ui_scan_flame; the cache's lines answer only where it declines): a pass per depth, each slice's parent the
** last row of the depth above on its track, its (parent, name) summed into a cell keyed by
** integers (a dense table when the depth's parents times the names are not many more than its
** rows, else a flat hash), and the nodes made from the cells once the depth is whole, only those
** that can still be answered.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/processor_internal.h"
#include "ui/cache.h"
#include "ui/flame.h"
#include "ui/ui.h"

#define NONE UINT32_MAX

/* One (parent, name) of the depth being merged: what its slices add up to. */
typedef struct flame_cell {
  int64_t total;
  uint32_t count; /* 0: no slice met it (a dense table's unused cell) */
  uint32_t next;  /* once the depth is whole: its node's place among the depth's nodes made (the
                  ** key of its children's parent at the next depth), NONE: not made */
} flame_cell;

/* The cells of one depth, keyed by parent * names + name, where parent is the parent node's
** place among the nodes made at the depth above (0 for the roots) and name the cache's name id
** (names - 1: none). Dense: the key is the cell's index. Hashed: cells in the order met, found
** through open-addressing slots (at most half full). */
typedef struct flame_cells {
  flame_cell *v;
  uint64_t *key; /* hashed: each cell's key */
  size_t n, cap; /* dense: both the table's size */
  size_t names;
  int dense;
  uint64_t *slot_key; /* hashed: key + 1, 0: empty */
  uint32_t *slot_cell;
  size_t n_slots;
} flame_cells;

static void cells_free(flame_cells *cs) {
  free(cs->v), free(cs->key), free(cs->slot_key), free(cs->slot_cell);
  memset(cs, 0, sizeof *cs);
}

/* Makes the cells of a depth with `parents` parent keys and `names` names, expecting at most
** `rows` slices: dense when parents * names is at most about the rows. 0 or -1 (out of memory). */
static int cells_init(flame_cells *cs, size_t parents, size_t names, size_t rows) {
  memset(cs, 0, sizeof *cs);
  cs->names = names;
  size_t limit = rows > ((size_t)1 << 16) ? rows : (size_t)1 << 16;
  if (parents <= limit / names) { /* parents * names <= limit, a 32-bit index (rows are) */
    cs->dense = 1, cs->n = cs->cap = parents * names;
    cs->v = calloc(cs->n ? cs->n : 1, sizeof *cs->v); /* fresh zero pages: only those met cost */
    /* Huge pages: the cells are met at random, so 4 KiB pages missed the TLB at each (a table
    ** of some 60 MB at 50M events); still zeroed by the kernel as first met. */
    trak__ui_advise_huge(cs->v, cs->n * sizeof *cs->v);
    return cs->v ? 0 : -1;
  }
  cs->n_slots = 1024;
  cs->slot_key = calloc(cs->n_slots, sizeof *cs->slot_key);
  cs->slot_cell = malloc(cs->n_slots * sizeof *cs->slot_cell);
  return cs->slot_key && cs->slot_cell ? 0 : -1;
}

static size_t slot_of(const flame_cells *cs, uint64_t key) {
  uint64_t h = key * 0x9E3779B97F4A7C15u;
  size_t k = (size_t)(h ^ (h >> 31)) & (cs->n_slots - 1);
  while (cs->slot_key[k] && cs->slot_key[k] != key + 1)
    k = (k + 1) & (cs->n_slots - 1);
  return k;
}

/* Doubles the hashed cells' slots. 0 or -1 (out of memory, the slots unchanged). */
static int cells_rehash(flame_cells *cs) {
  flame_cells grown = *cs;
  grown.n_slots = cs->n_slots * 2;
  grown.slot_key = calloc(grown.n_slots, sizeof *grown.slot_key);
  grown.slot_cell = malloc(grown.n_slots * sizeof *grown.slot_cell);
  if (!grown.slot_key || !grown.slot_cell) {
    free(grown.slot_key), free(grown.slot_cell);
    return -1;
  }
  for (size_t i = 0; i < cs->n; i++) {
    size_t k = slot_of(&grown, cs->key[i]);
    grown.slot_key[k] = cs->key[i] + 1, grown.slot_cell[k] = (uint32_t)i;
  }
  free(cs->slot_key), free(cs->slot_cell);
  *cs = grown;
  return 0;
}

/* The index of the cell of `key`, made on first use; NONE when out of memory. */
static uint32_t cell_at(flame_cells *cs, uint64_t key) {
  if (cs->dense) return (uint32_t)key;
  if (cs->n * 2 >= cs->n_slots && cells_rehash(cs)) return NONE;
  size_t k = slot_of(cs, key);
  if (cs->slot_key[k]) return cs->slot_cell[k];
  if (cs->n == cs->cap) {
    size_t cap = cs->cap ? cs->cap * 2 : 1024;
    flame_cell *v = realloc(cs->v, cap * sizeof *v);
    if (v) cs->v = v;
    uint64_t *keys = v ? realloc(cs->key, cap * sizeof *keys) : NULL;
    if (!keys) return NONE;
    cs->key = keys, cs->cap = cap;
  }
  cs->v[cs->n] = (flame_cell){0};
  cs->key[cs->n] = key;
  cs->slot_key[k] = key + 1, cs->slot_cell[k] = (uint32_t)cs->n;
  return (uint32_t)cs->n++;
}

/* The sums of a pass waiting for their cell's cache line: each cell is prefetched when met
** and added to PENDING cells later, so that the misses of a large depth's cells (met at random,
** most of the merge's time at 50M events) overlap instead of stalling the pass one by one. */
#define PENDING 16
typedef struct pending_sums {
  struct {
    flame_cells *cs;
    uint32_t cell, count;
    int64_t total;
  } v[PENDING];
  unsigned n, head;
} pending_sums;

static void pending_apply(pending_sums *p, unsigned k) {
  flame_cell *x = &p->v[k].cs->v[p->v[k].cell]; /* by index: a hashed v may have moved */
  x->total += p->v[k].total;
  x->count += p->v[k].count;
}

/* Adds `total` and `count` to cell `cell` of `cs`, soon (pending_flush: all of them now). */
static void pending_add(pending_sums *p, flame_cells *cs, uint32_t cell, int64_t total,
                        uint32_t count) {
  __builtin_prefetch(&cs->v[cell], 1);
  if (p->n == PENDING)
    pending_apply(p, p->head);
  else
    p->n++;
  p->v[p->head].cs = cs, p->v[p->head].cell = cell;
  p->v[p->head].total = total, p->v[p->head].count = count;
  p->head = (p->head + 1) % PENDING;
}

static void pending_flush(pending_sums *p) {
  for (unsigned k = 0; k < p->n; k++)
    pending_apply(p, k);
  p->n = p->head = 0;
}

/* One slice track's last row of the depth above the one being merged. */
typedef struct flame_up {
  uint32_t row;    /* NONE: none yet */
  uint32_t parent; /* its node's key as a parent (its place among its depth's nodes), NONE */
  int64_t ts, end;
} flame_up;

/* A growable array of one depth's rows' cells (then their nodes' keys), in row order. */
typedef struct row_cells {
  uint32_t *v;
  size_t n, cap;
} row_cells;

static int row_cells_push(row_cells *r, uint32_t cell) {
  if (r->n == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 4096;
    uint32_t *v = realloc(r->v, cap * sizeof *v);
    if (!v) return -1;
    r->v = v, r->cap = cap;
  }
  r->v[r->n++] = cell;
  return 0;
}

/* Sums depth `d` of the asked-for tracks (`times[i]`: how often track i was asked for) into
** cs[0]: the rows of depth d - 1 taken (those of an asked-for track, under its lines' depths,
** starting by `end`) are met in the same order as when their depth was merged and take their
** parent keys from `above` in turn; the rows of depth d put their cells (NONE: none) into
** `here`. `fused` (d = 0 only) sums depths 0 and 1 in the one pass: a root's key as a parent is
** its cell's key in cs[0] (its name), its children go into cs[1] and `here`. Returns 0, -1 (out
** of memory) or 1 (declined, as trak__ui_scan_flame). */
static int sum_depth(const trak_ui_cache *c, const uint32_t *times, uint32_t d, int fused,
                     int64_t start, int64_t end, const row_cells *above, row_cells *here,
                     flame_up *up, flame_cells cs[2]) {
  const trak_tables *tb = c->tables;
  const uint32_t *depths = tb->slice.depth, *parents = tb->slice.parent_id, below = d - 1;
  const uint32_t span = fused ? 2u : 1u; /* the depths taken: below .. below + span */
  size_t taken = 0, rows = tb->slice.n;
  if (c->slices_by_ts) /* no row past the first starting after `end` is taken */
    rows = trak__ui_first_at(tb->slice.ts, rows, sizeof *tb->slice.ts,
                             end == INT64_MAX ? end : end + 1);
  pending_sums sums = {.n = 0};
  for (size_t i = 0; i < c->n_tracks; i++)
    up[i].row = NONE;
  for (size_t i = 0; i < rows; i++) {
    /* Depth d - 1 to d (below wraps for d = 0: depth 0 alone, with 1 when fused); in the first
    ** pass also a root below those (async lanes), to decline. */
    if (depths[i] - below > span && (d || parents[i] != TRAK_NULL_U32)) continue;
    uint32_t depth = depths[i];
    int64_t ts = tb->slice.ts[i];
    uint32_t id = tb->slice.track_id[i];
    if (ts > end || id >= c->index_len || c->index[id] == UINT32_MAX) continue;
    uint32_t t = c->index[id];
    int64_t m = times[t];
    if (!m || depth >= c->tracks[t].n_lines) continue; /* not asked for; MAX_DEPTH and over */
    uint32_t parent = parents[i];
    if (depth > 0 && parent == TRAK_NULL_U32) return 1;
    trak_ui_slice s = {.ts = ts, .dur = tb->slice.dur[i]};
    if (depth + 1 == d) { /* a parent of the rows to come */
      if (taken == above->n) return 1;
      up[t] = (flame_up){(uint32_t)i, above->v[taken++], ts, trak__ui_slice_end(&s)};
      continue;
    }
    uint32_t level = depth - d; /* 0: depth d; 1: depth d + 1 (fused) */
    if (level >= span) continue;
    uint32_t key = NONE; /* the parent's key, for the slices that join the graph */
    if (s.dur >= 0 && trak__ui_slice_end(&s) >= start) {
      if (parent == TRAK_NULL_U32) {
        key = 0;
      } else {
        if (up[t].row != parent) return 1; /* not the last row above: not in begin order */
        const flame_up *p = &up[t];
        if (p->ts <= ts && (ts < p->end || ts == p->ts)) key = p->parent; /* it holds s */
      }
    }
    uint32_t cell = NONE, nm = tb->slice.name[i];
    size_t slot = nm < c->name_map_len ? c->name_map[nm] : 0; /* name id + 1, 0: none */
    uint32_t name = slot ? (uint32_t)slot - 1 : (uint32_t)cs[level].names - 1;
    if (key != NONE) {
      cell = cell_at(&cs[level], (uint64_t)key * cs[level].names + name);
      if (cell == NONE) return -1;
      pending_add(&sums, &cs[level], cell, m * s.dur, (uint32_t)m);
    }
    if (fused && level == 0) { /* a root, parent of the depth-1 rows to come */
      up[t] = (flame_up){(uint32_t)i, cell == NONE ? NONE : name, ts, trak__ui_slice_end(&s)};
      continue;
    }
    if (row_cells_push(here, cell)) return -1;
  }
  pending_flush(&sums);
  return 0;
}

/* The `next` of the cell of `key` in `cs`, NONE when there is no such cell. */
static uint32_t next_of(const flame_cells *cs, uint64_t key) {
  if (cs->dense) return key < cs->n ? cs->v[key].next : NONE;
  size_t k = slot_of(cs, key);
  return cs->slot_key[k] ? cs->v[cs->slot_cell[k]].next : NONE;
}

/* After depth d was summed into `cs` (every node above is whole): raises f->floor to the
** TRAK_UI_MAX_FLAME_NODES-th largest total of the nodes and cells at or over it (a lower bound of
** the smallest total answered: totals only grow as depths are merged, and no node under it, nor
** any descendant, is answered), then makes a node of each cell at or over it, under the node
** of its parent key (`first_above` + key: the nodes made at the depth above; with `above`,
** the depth above's cells, + the next of the key's cell there, the cells under a cell not made
** dropped first), and sets each cell's next (NONE: not made). Returns the nodes made, or -1 when
** out of memory. */
static int64_t make_nodes(flame_cells *cs, const flame_cells *above, size_t first_above, int root,
                          trak_ui_flame *f) {
  int64_t floor = f->floor;
  size_t over = 0, m = 0;
  for (size_t i = 0; above && i < cs->n; i++) /* under a root not made: as never merged */
    if (cs->v[i].count && next_of(above, (cs->dense ? i : cs->key[i]) / cs->names) == NONE)
      cs->v[i].count = 0;
  for (size_t i = 0; i < cs->n; i++)
    over += cs->v[i].count && cs->v[i].total >= floor;
  if (f->n + over > TRAK_UI_MAX_FLAME_NODES) {
    int64_t *totals = malloc((f->n + over) * sizeof *totals);
    if (!totals) return -1;
    for (size_t i = 0; i < f->n; i++)
      if (f->v[i].total >= floor) totals[m++] = f->v[i].total;
    for (size_t i = 0; i < cs->n; i++)
      if (cs->v[i].count && cs->v[i].total >= floor) totals[m++] = cs->v[i].total;
    if (m > TRAK_UI_MAX_FLAME_NODES) {
      int64_t kth = trak__ui_kth_largest(totals, m, TRAK_UI_MAX_FLAME_NODES);
      floor = kth > 0 ? kth : 1; /* as trak__ui_flame_smallest_kept */
    }
    free(totals);
  }
  f->floor = floor;
  size_t made = 0;
  for (size_t i = 0; i < cs->n; i++)
    made += cs->v[i].count && cs->v[i].total >= floor;
  if (f->n + made > f->cap) {
    size_t cap = f->n + made + (f->n + made) / 4;
    trak_ui_flame_node *v = cap < INT32_MAX ? realloc(f->v, cap * sizeof *v) : NULL;
    if (!v) return -1;
    f->v = v, f->cap = cap;
  }
  made = 0;
  for (size_t i = 0; i < cs->n; i++) {
    flame_cell *x = &cs->v[i];
    x->next = NONE;
    if (!x->count || x->total < floor) continue;
    uint64_t key = cs->dense ? i : cs->key[i];
    uint64_t parent = key / cs->names, name = key % cs->names;
    f->v[f->n] = (trak_ui_flame_node){
        .total = x->total,
        .parent = root ? -1 : (int32_t)(first_above + (above ? next_of(above, parent) : parent)),
        .name = name == cs->names - 1 ? UINT32_MAX : (uint32_t)name,
        .count = x->count,
    };
    x->next = (uint32_t)made++;
    f->n++;
  }
  return (int64_t)made;
}

int trak__ui_scan_flame(const trak_ui_cache *c, const int64_t *tracks, size_t n, int64_t start,
                        int64_t end, trak_ui_flame *f) {
  uint32_t *times = calloc(c->n_tracks ? c->n_tracks : 1, sizeof *times); /* track -> asked */
  flame_up *up = malloc((c->n_tracks ? c->n_tracks : 1) * sizeof *up);
  row_cells rows[2] = {{0}, {0}}; /* the depth above's parent keys, then this depth's cells */
  size_t depths = 0, names = c->n_names + 1; /* the last: no name */
  int rc = times && up ? 0 : -1;
  for (size_t k = 0; !rc && k < n; k++) {
    const trak_ui_track *t = trak__ui_cache_track(c, tracks[k]);
    if (!t || t->kind != TRAK_UI_SLICES || !t->n_lines) continue;
    times[t - c->tracks]++;
    if (t->n_lines > depths) depths = t->n_lines;
  }
  /* Each depth's parents: the nodes made at the depth above (the roots' one parent at depth 0).
  ** Depths 0 and 1 are summed in one pass (the roots' keys are their names, known in the pass). */
  size_t parents = 1, first_above = 0;
  for (size_t d = 0; d < depths && parents && !rc;) {
    int fused = d == 0 && depths > 1;
    size_t expect[2] = {0, 0}; /* rows at depth d (and d + 1) of the tracks asked for, counted
                               ** at the cache's start */
    for (size_t i = 0; i < c->n_tracks; i++)
      for (size_t k = 0; k < 2; k++)
        if (times[i] && d + k < c->tracks[i].n_lines) expect[k] += c->tracks[i].lines[d + k].cap;
    flame_cells cs[2] = {{0}, {0}};
    rows[1].n = 0;
    rc = cells_init(&cs[0], parents, names, expect[0]);
    if (!rc && fused) rc = cells_init(&cs[1], names, names, expect[1]);
    if (!rc) rc = sum_depth(c, times, (uint32_t)d, fused, start, end, &rows[0], &rows[1], up, cs);
    size_t first = f->n;
    int64_t made = rc ? 0 : make_nodes(&cs[0], NULL, first_above, d == 0, f);
    if (fused && made > 0) {
      first_above = first, first = f->n;
      made = make_nodes(&cs[1], &cs[0], first_above, 0, f);
    }
    if (made < 0) rc = -1;
    /* This depth's rows give the next their nodes' keys as parents. */
    const flame_cells *last = &cs[fused];
    for (size_t i = 0; !rc && made && i < rows[1].n; i++)
      rows[1].v[i] = rows[1].v[i] == NONE ? NONE : last->v[rows[1].v[i]].next;
    cells_free(&cs[0]), cells_free(&cs[1]);
    row_cells swap = rows[0];
    rows[0] = rows[1], rows[1] = swap;
    parents = rc ? 0 : (size_t)made, first_above = first;
    d += 1 + (size_t)fused;
  }
  if (rc < 0) f->oom = 1;
  free(rows[0].v), free(rows[1].v);
  free(up);
  free(times);
  return rc;
}
