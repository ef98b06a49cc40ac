/*
** This file holds the flame graph's merge of slices by name stack: its nodes, the (parent, name)
** hash that finds them, the bound under which a node cannot be answered (kept depth by depth so
** that subtrees under it are not merged) and the answer's JSON. aggregate.c merges into it from
** the cache's lines and scan_flame.c from the slice table's columns; both answer the same nodes.
*/
#include <inttypes.h>
#include <stdlib.h>

#include "ui/flame.h"

static size_t slot_of(const trak_ui_flame *f, int32_t parent, uint32_t name) {
  uint64_t h = ((uint64_t)parent * 0x9E3779B97F4A7C15u) ^ ((uint64_t)name * 0xC2B2AE3D27D4EB4Fu);
  size_t k = (size_t)(h ^ (h >> 29)) & (f->n_slots - 1);
  while (f->slots[k].node >= 0 && (f->slots[k].parent != parent || f->slots[k].name != name))
    k = (k + 1) & (f->n_slots - 1);
  return k;
}

int trak__ui_flame_rehash(trak_ui_flame *f, size_t n_slots) {
  trak_ui_flame_slot *slots = malloc(n_slots * sizeof *slots);
  if (!slots) return f->oom = 1, -1;
  for (size_t i = 0; i < n_slots; i++)
    slots[i].node = -1;
  free(f->slots);
  f->slots = slots, f->n_slots = n_slots;
  for (size_t i = 0; i < f->n; i++)
    f->slots[slot_of(f, f->v[i].parent, f->v[i].name)] =
        (trak_ui_flame_slot){f->v[i].parent, f->v[i].name, (int32_t)i};
  return 0;
}

int32_t trak__ui_flame_node(trak_ui_flame *f, int32_t parent, uint32_t name) {
  if (f->n * 2 >= f->n_slots && trak__ui_flame_rehash(f, f->n_slots ? f->n_slots * 2 : 1024))
    return -1;
  size_t k = slot_of(f, parent, name);
  if (f->slots[k].node >= 0) return f->slots[k].node;
  if (f->n == f->cap || f->n >= INT32_MAX) {
    size_t cap = f->cap ? f->cap * 2 : 256;
    trak_ui_flame_node *v = f->n < INT32_MAX ? realloc(f->v, cap * sizeof *v) : NULL;
    if (!v) return f->oom = 1, -1;
    f->v = v, f->cap = cap;
  }
  f->v[f->n] = (trak_ui_flame_node){.parent = parent, .name = name};
  f->slots[k] = (trak_ui_flame_slot){parent, name, (int32_t)f->n};
  return (int32_t)f->n++;
}

/* Moves v[i] down the min-heap v[0..n) to its place. */
static void sift_down(int64_t *v, size_t n, size_t i) {
  for (;;) {
    size_t m = i, l = 2 * i + 1, r = l + 1;
    if (l < n && v[l] < v[m]) m = l;
    if (r < n && v[r] < v[m]) m = r;
    if (m == i) return;
    int64_t x = v[i];
    v[i] = v[m], v[m] = x, i = m;
  }
}

int64_t trak__ui_kth_largest(int64_t *v, size_t n, size_t k) {
  for (size_t i = k / 2; i-- > 0;)
    sift_down(v, k, i);
  for (size_t i = k; i < n; i++)
    if (v[i] > v[0]) {
      v[0] = v[i];
      sift_down(v, k, 0);
    }
  return v[0];
}

int64_t trak__ui_flame_smallest_kept(const trak_ui_flame *f) {
  if (f->n <= TRAK_UI_MAX_FLAME_NODES) return 0;
  int64_t *totals = malloc(f->n * sizeof *totals);
  if (!totals) return 0;
  for (size_t i = 0; i < f->n; i++)
    totals[i] = f->v[i].total;
  int64_t min = trak__ui_kth_largest(totals, f->n, TRAK_UI_MAX_FLAME_NODES);
  free(totals);
  return min > 0 ? min : 1;
}

int trak__ui_flame_depth_done(trak_ui_flame *f, size_t first, int prune) {
  size_t since = f->floor_nodes ? f->floor_nodes : TRAK_UI_MAX_FLAME_NODES;
  if (prune && f->n > since + since / 2) {
    f->floor = trak__ui_flame_smallest_kept(f);
    f->floor_nodes = f->n;
  }
  int live = !prune || f->floor == 0;
  for (size_t i = first; i < f->n && !live; i++)
    live = f->v[i].total >= f->floor;
  return live;
}

int trak__ui_flame_write(const trak_ui_cache *c, trak_ui_flame *f, trak_ui_buf *out) {
  int64_t min_total = f->oom ? 0 : trak__ui_flame_smallest_kept(f);
  int64_t *index = f->oom ? NULL : malloc((f->n ? f->n : 1) * sizeof *index);
  if (!index) f->oom = 1;
  trak__ui_puts(out, "[");
  for (size_t i = 0, kept = 0; index && i < f->n; i++) {
    index[i] = -1;
    if (f->v[i].total < min_total) continue;
    index[i] = (int64_t)kept;
    int64_t parent = f->v[i].parent < 0 ? -1 : index[f->v[i].parent];
    trak__ui_printf(out, "%s%" PRId64 ",", kept++ ? ",[" : "[", parent);
    trak__ui_json_str(out, trak__ui_cache_name(c, f->v[i].name));
    trak__ui_printf(out, ",%" PRId64 ",%" PRIu32 "]", f->v[i].total, f->v[i].count);
  }
  trak__ui_put(out, "]", 1);
  free(index);
  return f->oom || out->oom ? -1 : 0;
}

void trak__ui_flame_free(trak_ui_flame *f) {
  free(f->v);
  free(f->slots);
  f->v = NULL, f->slots = NULL, f->n = f->cap = f->n_slots = 0;
}
