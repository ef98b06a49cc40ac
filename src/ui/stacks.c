/*
** This file holds the cache's name-stack tree: every distinct name stack (root to slice) of the
** slice tracks is a node, built once when the cache is read (depth by depth over every track),
** and each slice is given its node.
** The area selection's flame graph (aggregate.c) then sums the slices in range into their nodes
** instead of merging every slice by name under its parent at each request. The tree is built on
** a thread of its own after the cache is read, so that the server answers the first screens
** meanwhile (the flame graph merges slice by slice until the tree is ready); the same thread
** fills the slice lines first (cache.c).
*/
#include <stdlib.h>
#include <string.h>

#include "ui/cache.h"

#define NONE TRAK_UI_NO_STACK
#define MAX_NODES 0x7fffffffu /* nodes kept in a tree (indexes fit an int32 with room) */

typedef struct stack_tree {
  trak_ui_cache *c;
  uint32_t *roots; /* name id + 1 -> its root node, UINT32_MAX: none yet */
  /* The children made at the depth being built: a node's children are all made at the depth
  ** below it (the tree is built depth by depth over every track), so the hash holds one depth's
  ** nodes and starts afresh at the next: it was most of the tree's memory while built. */
  uint32_t *slots; /* node index, UINT32_MAX: empty; at most 3/4 full. 4 bytes a slot (the key
                   ** is read from the node) */
  size_t n_slots;
  size_t n_hashed;   /* nodes in slots */
  size_t depth_from; /* the first node made at the depth being built */
  size_t cap;        /* of c->stack_parent and c->stack_name */
} stack_tree;

static size_t slot_hash(uint32_t parent, uint32_t name, size_t n_slots) {
  uint64_t h = ((uint64_t)parent * 0x9E3779B97F4A7C15u) ^ ((uint64_t)name * 0xC2B2AE3D27D4EB4Fu);
  return (size_t)(h ^ (h >> 29)) & (n_slots - 1);
}

/* The slot of (parent, name): the node's, or the empty one where it goes. */
static size_t slot_find(const stack_tree *t, uint32_t parent, uint32_t name) {
  const trak_ui_cache *c = t->c;
  size_t k = slot_hash(parent, name, t->n_slots);
  for (uint32_t n; (n = t->slots[k]) != UINT32_MAX; k = (k + 1) & (t->n_slots - 1))
    if (c->stack_name[n] == name && c->stack_parent[n] == parent) break;
  return k;
}

/* Makes room for one more node in c's arrays. 0 or -1 (out of memory, or MAX_NODES). */
static int node_room(stack_tree *t) {
  trak_ui_cache *c = t->c;
  if (c->n_stacks >= MAX_NODES) return -1;
  if (c->n_stacks < t->cap) return 0;
  size_t cap = t->cap ? t->cap * 2 : 1024;
  uint32_t *p = realloc(c->stack_parent, cap * sizeof *p);
  if (p) c->stack_parent = p;
  uint32_t *n = p ? realloc(c->stack_name, cap * sizeof *n) : NULL;
  if (!n) return -1;
  c->stack_name = n, t->cap = cap;
  trak__ui_advise_huge(c->stack_parent, cap * sizeof *p);
  trak__ui_advise_huge(c->stack_name, cap * sizeof *n);
  return 0;
}

/* The node of `name` under `parent` (NONE: a root), made on first use; NONE when out of memory
** or past MAX_NODES nodes. A child's parent must be a node of the depth above the one being
** built (stacks_depth). */
static uint32_t node_of(stack_tree *t, uint32_t parent, uint32_t name) {
  trak_ui_cache *c = t->c;
  uint32_t *root = parent == NONE ? &t->roots[name == NONE ? 0 : (size_t)name + 1] : NULL;
  if (root && *root != NONE) return *root;
  if (!root && t->n_hashed * 4 >= t->n_slots * 3) { /* at most 3/4 full */
    size_t n_slots = t->n_slots ? t->n_slots * 2 : 1024;
    uint32_t *slots = trak__ui_alloc_big(n_slots * sizeof *slots);
    if (!slots) return NONE;
    memset(slots, 0xff, n_slots * sizeof *slots);
    free(t->slots);
    t->slots = slots, t->n_slots = n_slots;
    for (size_t i = t->depth_from; i < c->n_stacks; i++) {
      if (c->stack_parent[i] == NONE) continue; /* a root below depth 0: in roots */
      size_t k = slot_hash(c->stack_parent[i], c->stack_name[i], n_slots);
      while (t->slots[k] != UINT32_MAX) /* every node is distinct: no compare */
        k = (k + 1) & (n_slots - 1);
      t->slots[k] = (uint32_t)i;
    }
  }
  size_t k = root ? 0 : slot_find(t, parent, name);
  if (!root && t->slots[k] != UINT32_MAX) return t->slots[k];
  if (node_room(t)) return NONE;
  c->stack_parent[c->n_stacks] = parent;
  c->stack_name[c->n_stacks] = name;
  if (root)
    *root = (uint32_t)c->n_stacks;
  else
    t->slots[k] = (uint32_t)c->n_stacks, t->n_hashed++;
  return (uint32_t)c->n_stacks++;
}

/* Gives the slices of depth `d` of `tr` their nodes: a root that ended its name's root node, a
** child that ended the node of its name under its parent's (the slice a depth above holding
** it, found by walking both lines in time order, as the flame graph does; of slices begun with it, its parent_id's), NONE otherwise (not
** ended, or an ancestor did not end: the recursive SQL of docs/ui.md leaves it out). Clears
** stacks_exact when a child ends after its parent (it may then meet a range its parent does
** not). Returns 0 or -1 (out of memory, or asked to stop). */
static int line_stacks(stack_tree *t, trak_ui_track *tr, size_t d) {
  trak_ui_line *l = &tr->lines[d], *up = d ? &tr->lines[d - 1] : NULL;
  size_t j = 0;
  if (!l->n) return 0;
  if (!(l->stack = trak__ui_alloc_big(l->n * sizeof *l->stack))) return -1;
  for (size_t i = 0; i < l->n; i++) {
    trak_ui_slice *s = &l->v[i];
    uint32_t node = NONE;
    if (!(i & 0xffff) && atomic_load_explicit(&t->c->stacks_stop, memory_order_relaxed))
      return -1; /* the cache is being freed: a large track takes seconds */
    if (s->dur >= 0 && !trak__ui_has_parent(t->c, tr, d, s)) {
      node = node_of(t, NONE, s->name);
      if (node == NONE) return -1;
    } else if (s->dur >= 0 && up && up->n) {
      while (j + 1 < up->n && up->v[j + 1].ts <= s->ts)
        j++;
      size_t q = trak__ui_parent_in(t->c, up, 0, j, s);
      const trak_ui_slice *p = &up->v[q];
      int holds = p->ts <= s->ts && (s->ts < trak__ui_slice_end(p) || s->ts == p->ts);
      if (holds && up->stack[q] != NONE) {
        node = node_of(t, up->stack[q], s->name);
        if (node == NONE) return -1;
        if (trak__ui_slice_end(s) > trak__ui_slice_end(p)) tr->stacks_exact = 0;
      }
    }
    l->stack[i] = node;
  }
  return 0;
}

/* Builds the tree depth by depth over every slice track (a track is exact unless it has roots
** below depth 0 or line_stacks finds a child outliving its parent); 0, or -1 when out of
** memory or asked to stop (the tree is then partial and never used). */
static int stacks_build(trak_ui_cache *c) {
  stack_tree t = {.c = c};
  size_t depths = 0;
  for (size_t i = 0; i < c->n_tracks; i++) {
    trak_ui_track *tr = &c->tracks[i];
    if (tr->kind != TRAK_UI_SLICES) continue;
    tr->stacks_exact = !tr->deep_roots;
    if (tr->n_lines > depths) depths = tr->n_lines;
  }
  t.roots = malloc((c->n_names + 1) * sizeof *t.roots);
  int rc = t.roots ? 0 : -1;
  if (t.roots) memset(t.roots, 0xff, (c->n_names + 1) * sizeof *t.roots);
  for (size_t d = 0; d < depths && !rc; d++) {
    if (t.n_hashed) { /* the depth above's nodes are no longer looked up */
      free(t.slots);
      t.slots = NULL, t.n_slots = 0, t.n_hashed = 0;
    }
    t.depth_from = c->n_stacks;
    for (size_t i = 0; i < c->n_tracks && !rc; i++) {
      trak_ui_track *tr = &c->tracks[i];
      if (atomic_load_explicit(&c->stacks_stop, memory_order_relaxed)) rc = -1;
      if (!rc && tr->kind == TRAK_UI_SLICES && d < tr->n_lines) rc = line_stacks(&t, tr, d);
    }
  }
  free(t.slots);
  free(t.roots);
  if (!rc && c->n_stacks < t.cap) { /* give back the doubling's slack */
    size_t n = c->n_stacks ? c->n_stacks : 1;
    uint32_t *p = realloc(c->stack_parent, n * sizeof *p), *q = NULL;
    if (p) c->stack_parent = p;
    if (p) q = realloc(c->stack_name, n * sizeof *q);
    if (q) c->stack_name = q;
  }
  return rc;
}

static void *stacks_main(void *arg) {
  trak_ui_cache *c = arg;
  int rc = trak__ui_cache_fill_lines(c);
  atomic_store_explicit(&c->stacks_ready, rc || stacks_build(c) ? -1 : 1, memory_order_release);
  return NULL;
}

int trak__ui_stacks_start(trak_ui_cache *c) {
  if (!pthread_create(&c->stacks_thread, NULL, stacks_main, c))
    c->stacks_started = 1;
  else
    stacks_main(c);
  return 0;
}

int trak__ui_stacks_wait(trak_ui_cache *c) {
  if (c->stacks_started) pthread_join(c->stacks_thread, NULL);
  c->stacks_started = 0;
  return trak__ui_stacks_ready(c);
}

void trak__ui_stacks_stop(trak_ui_cache *c) {
  atomic_store_explicit(&c->stacks_stop, 1, memory_order_relaxed);
  trak__ui_stacks_wait(c);
}
