/*
** This file declares the flame graph's merge of slices by name stack (flame.c): the nodes made
** as slices are met, a (parent, name) hash to find them, the bound under which a node cannot be
** answered, and the answer's JSON. The area selection merges with it from the slice table's
** columns (scan_flame.c) and, where they decline, from the cache's lines (aggregate.c).
*/
#ifndef TRAK_UI_FLAME_H
#define TRAK_UI_FLAME_H

#include <stddef.h>
#include <stdint.h>

#include "ui/cache.h"
#include "ui/ui.h"

/* The most nodes a flame graph answers (a screen shows no more): the largest totals. */
#define TRAK_UI_MAX_FLAME_NODES 20000

typedef struct trak_ui_flame_node { /* 24 bytes: a large selection has a node per slice */
  int64_t total;
  int32_t parent; /* node index, -1 for a root */
  uint32_t name;  /* the cache's name id, UINT32_MAX: none */
  uint32_t count;
} trak_ui_flame_node;

/* A slot of the (parent, name) -> node hash: the key is kept in the slot, so that a probe
** reads one cache line rather than the node too. */
typedef struct trak_ui_flame_slot {
  int32_t parent;
  uint32_t name;
  int32_t node; /* -1: empty */
} trak_ui_flame_slot;

/* A flame graph being merged; zeroed to start, trak__ui_flame_free'd after. */
typedef struct trak_ui_flame {
  trak_ui_flame_node *v; /* in the order made */
  size_t n, cap;
  trak_ui_flame_slot *slots; /* open addressing, at most half full */
  size_t n_slots;
  int oom;
  /* The depth-by-depth bound (trak__ui_flame_depth_done): no node totalling under `floor` can
  ** be answered; floor_nodes is n when it was last raised (0: not yet). */
  int64_t floor;
  size_t floor_nodes;
} trak_ui_flame;

/* Makes the hash `n_slots` (a power of two) slots, re-inserting the nodes. 0, or -1 (out of
** memory: f->oom set, the hash unchanged). */
int trak__ui_flame_rehash(trak_ui_flame *f, size_t n_slots);
/* The node for `name` under `parent` (-1: a root), made on first use; -1 when out of memory
** (f->oom set). */
int32_t trak__ui_flame_node(trak_ui_flame *f, int32_t parent, uint32_t name);
/* The k-th largest of v[0..n) (0 < k <= n), reordering v: a min-heap of the k largest, so
** O(n log k) rather than sorting. Can't fail. */
int64_t trak__ui_kth_largest(int64_t *v, size_t n, size_t k);
/* The smallest total a node may have to be answered: 0 (all) up to TRAK_UI_MAX_FLAME_NODES
** nodes, else the TRAK_UI_MAX_FLAME_NODES-th largest total (at least 1; ties may keep a few
** more). 0 when out of memory. */
int64_t trak__ui_flame_smallest_kept(const trak_ui_flame *f);
/* After a depth whose nodes are f->v[first..n) was merged (every track, parents' totals whole):
** raises f->floor to trak__ui_flame_smallest_kept once the nodes grew by half since it was last
** raised, when `prune` (no track has roots below depth 0). Returns whether a deeper slice may
** still join the graph: not pruning, no floor yet, or a node of this depth at or over it. */
int trak__ui_flame_depth_done(trak_ui_flame *f, size_t first, int prune);
/* Appends the answer: the nodes totalling at least trak__ui_flame_smallest_kept, in the order
** made (a parent's total is at least its child's, so the nodes kept are closed under parents),
** as [[parent,name,total,count]...] with parents as indexes into the answer. 0, or -1 when out
** of memory (f->oom, or the index; `out` is then partial). */
int trak__ui_flame_write(const trak_ui_cache *c, trak_ui_flame *f, trak_ui_buf *out);
void trak__ui_flame_free(trak_ui_flame *f);

/* The flame graph of the TRAK_UI_SLICES tracks among `tracks` (a track asked for twice counts
** twice) over [start, end] from the slice table's columns (scan_flame.c), the same nodes as the
** lines' merge in aggregate.c answers: a slice that ended and meets the range joins its name's
** root node when it has no parent, else its name's node under its parent's when the parent's
** node is made and holds it (the child starts inside it). A pass per depth over the depth column
** finds each slice's parent as the last row of the depth above on its track (the rows of a
** track are in the order its slices begin) and sums it into its (parent, name) cell; once the
** depth is whole, f->floor is raised to the TRAK_UI_MAX_FLAME_NODES-th largest total so far and
** only the cells at or over it become nodes (the others, and their subtrees, cannot be
** answered), so `f` holds fewer nodes than the lines' merge, with the same answer from
** trak__ui_flame_write. `f` (zeroed) gets no hash. Returns 0, -1 (out of memory: f->oom set) or
** 1 (declined: a track has roots below depth 0, async lanes, or a slice's parent is not the last
** row above it; `f` is then partly merged: free it and merge from the lines). */
int trak__ui_scan_flame(const trak_ui_cache *c, const int64_t *tracks, size_t n, int64_t start,
                        int64_t end, trak_ui_flame *f);

/* The same nodes as trak__ui_scan_flame (without declining) from the cache's lines, those of
** `tracks` filled (trak__ui_lines_need): merged slice by slice, depth by depth over the tracks, each child under its
** parent's node (the slice a depth above holding it), with the same bound (none with async
** lanes). trak__ui_flamegraph's way when the columns decline; f->oom set when out of memory. */
void trak__ui_flame_from_lines(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                               int64_t start, int64_t end, trak_ui_flame *f);
#endif /* TRAK_UI_FLAME_H */
