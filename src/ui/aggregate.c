/*
** This file holds the area selection's answers (tracks x a time range), computed on the viewer's
** cache: slices by name (count, wall total, average, self time), counters (count, min, max,
** average, delta) and the flame graph of the slices (merged by name stack). A slice is in the
** selection when it ended (dur >= 0) and its closed interval [ts, ts + dur] meets [start, end];
** its whole duration counts. Each answer equals a SQL query over `slice` and `counter`
** (docs/ui.md gives them; tests/ui/viewer_test.js compares the two).
*/
#define _GNU_SOURCE /* qsort_r */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ui/cache.h"
#include "ui/flame.h"
#include "ui/ui.h"

typedef trak_ui_name_sum by_name;

static int in_range(const trak_ui_slice *s, int64_t start, int64_t end) {
  return s->dur >= 0 && s->ts <= end && trak__ui_slice_end(s) >= start;
}

/* Whether `child` (one depth deeper on the same track, starting at or after `parent`) is a
** child of `parent`: it has a parent and starts inside the parent's half-open span (an instant
** parent holds what starts with it). On async tracks depth is also a lane: a slice one lane
** down with no parent is not a child. */
static int within(const trak_ui_slice *parent, const trak_ui_slice *child) {
  return child->ts < trak__ui_slice_end(parent) || child->ts == parent->ts;
}

/* Index of the first slice of `l` starting at or after `ts`. `*cur` is where the last call on
** `l` ended: parents are visited in time order, so the answer is usually a few slices on, and
** is then found by stepping instead of a binary search over the whole line (which misses the
** cache at every step). */
static size_t first_starting_at(const trak_ui_line *l, int64_t ts, size_t *cur) {
  size_t i = *cur;
  if (i > l->n || (i > 0 && l->v[i - 1].ts >= ts)) i = 0; /* went back: search it all */
  for (int steps = 0; i < l->n && l->v[i].ts < ts; i++)
    if (++steps == 16) {
      i += trak__ui_first_at(l->v + i, l->n - i, sizeof *l->v, ts);
      break;
    }
  return *cur = i;
}

/* The summed duration of the ended children of slice `s` at depth `d` of `t`; `cur` holds a
** cursor per depth for first_starting_at. */
static int64_t children_dur(const trak_ui_cache *c, const trak_ui_track *t, size_t d,
                            const trak_ui_slice *s, size_t *cur) {
  if (d + 1 >= t->n_lines) return 0;
  const trak_ui_line *l = &t->lines[d + 1];
  int64_t sum = 0;
  for (size_t i = first_starting_at(l, s->ts, &cur[d + 1]); i < l->n && within(s, &l->v[i]); i++)
    if (l->v[i].dur >= 0 && trak__ui_has_parent(c, t, d + 1, &l->v[i])) sum += l->v[i].dur;
  return sum;
}

/* Track `id` when it holds slices of the slice table (not a CPU's or a thread's states). */
static const trak_ui_track *slice_track(const trak_ui_cache *c, int64_t id) {
  const trak_ui_track *t = trak__ui_cache_track(c, id);
  return t && t->kind == TRAK_UI_SLICES ? t : NULL;
}

static int cmp_wall(const void *a, const void *b, void *ctx) {
  const by_name *acc = ctx;
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  if (acc[x].wall != acc[y].wall) return acc[x].wall < acc[y].wall ? 1 : -1;
  return (x > y) - (x < y);
}

/* {"slices":[[name,count,wall,avg,self]...]} part: by wall total, longest first. */
static int slices_by_name(const trak_ui_cache *c, const int64_t *tracks, size_t n, int64_t start,
                          int64_t end, trak_ui_buf *out) {
  by_name *acc = calloc(c->n_names + 1, sizeof *acc);
  uint32_t *order = malloc((c->n_names + 1) * sizeof *order);
  if (!acc || !order) {
    free(acc), free(order);
    return -1;
  }
  /* The tracks with async lanes (roots below depth 0) or loose ones (whose children the lines
  ** find otherwise than parent_id) from their lines, the others from one pass over the columns (all from the lines when every one's are filled): integer sums, the
  ** same in any order. */
  int all_lined = trak__ui_lines_filled(c, tracks, n);
  int64_t *lined = malloc((n ? n : 1) * sizeof *lined),
          *scanned = malloc((n ? n : 1) * sizeof *scanned);
  size_t n_lined = 0, n_scanned = 0;
  for (size_t k = 0; lined && scanned && k < n; k++) {
    const trak_ui_track *t = slice_track(c, tracks[k]);
    if (t && (t->deep_roots || t->loose || all_lined))
      lined[n_lined++] = tracks[k];
    else
      scanned[n_scanned++] = tracks[k];
  }
  int rc = lined && scanned ? trak__ui_scan_by_name(c, scanned, n_scanned, start, end, acc) : -1;
  if (rc == 0 && n_lined) rc = trak__ui_lines_need(c, lined, n_lined) ? -1 : 0;
  free(scanned);
  if (rc) { /* (1 cannot be: no async lanes among them) */
    free(lined), free(acc), free(order);
    return -1;
  }
  for (size_t k = 0; k < n_lined; k++) {
    const trak_ui_track *t = slice_track(c, lined[k]);
    size_t *cur = t ? calloc(t->n_lines + 1, sizeof *cur) : NULL;
    for (size_t d = 0; cur && d < t->n_lines; d++) {
      const trak_ui_line *l = &t->lines[d];
      for (size_t i = trak__ui_line_first_ending_after(l, start); i < l->n && l->v[i].ts <= end;
           i++) {
        const trak_ui_slice *s = &l->v[i];
        if (!in_range(s, start, end)) continue;
        by_name *a = &acc[s->name == UINT32_MAX ? 0 : s->name + 1];
        a->count++;
        a->wall += s->dur;
        a->self += s->dur - children_dur(c, t, d, s, cur);
      }
    }
    if (t && !cur) {
      free(lined), free(acc), free(order);
      return -1;
    }
    free(cur);
  }
  free(lined);
  size_t used = 0;
  for (uint32_t i = 0; i <= c->n_names; i++)
    if (acc[i].count) order[used++] = i;
  qsort_r(order, used, sizeof *order, cmp_wall, acc);
  trak__ui_puts(out, "\"slices\":[");
  for (size_t i = 0; i < used; i++) {
    const by_name *a = &acc[order[i]];
    trak__ui_puts(out, i ? ",[" : "[");
    trak__ui_json_str(out, order[i] ? trak__ui_cache_name(c, order[i] - 1) : NULL);
    trak__ui_printf(out, ",%" PRId64 ",%" PRId64 ",", a->count, a->wall);
    trak__ui_json_double(out, (double)a->wall / (double)a->count);
    trak__ui_printf(out, ",%" PRId64 "]", a->self);
  }
  trak__ui_put(out, "]", 1);
  free(acc);
  free(order);
  return 0;
}

/* "counters":[[track,count,min,max,avg,delta]...]: values with ts in [start, end]; delta is
** the last value minus the first. Tracks with no value in the range are left out. */
static void counters_in_range(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                              int64_t start, int64_t end, trak_ui_buf *out) {
  int first = 1;
  trak__ui_puts(out, "\"counters\":[");
  for (size_t k = 0; k < n; k++) {
    const trak_ui_track *t = trak__ui_cache_track(c, tracks[k]);
    if (!t || !t->n_values) continue;
    size_t i = trak__ui_track_first_value_at(t, start), j = i;
    double mn = 0, mx = 0, sum = 0;
    for (; j < t->n_values && trak__ui_value_ts(t, j) <= end; j++) {
      double v = trak__ui_value(t, j);
      if (j == i || v < mn) mn = v;
      if (j == i || v > mx) mx = v;
      sum += v;
    }
    if (j == i) continue;
    trak__ui_printf(out, "%s[%" PRId64 ",%zu,", first ? "" : ",", tracks[k], j - i);
    trak__ui_json_double(out, mn);
    trak__ui_put(out, ",", 1);
    trak__ui_json_double(out, mx);
    trak__ui_put(out, ",", 1);
    trak__ui_json_double(out, sum / (double)(j - i));
    trak__ui_put(out, ",", 1);
    trak__ui_json_double(out, trak__ui_value(t, j - 1) - trak__ui_value(t, i));
    trak__ui_put(out, "]", 1);
    first = 0;
  }
  trak__ui_put(out, "]", 1);
}

int trak__ui_aggregate(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                       const trak_ui_range *r, trak_ui_buf *out, trak_error *err) {
  int64_t start = r->start, end = r->end;
  if (end < start) return trak_error_set(err, TRAK_EINVAL, "bad range: start after end");
  trak__ui_puts(out, "{");
  if (slices_by_name(c, tracks, n, start, end, out))
    return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  trak__ui_put(out, ",", 1);
  counters_in_range(c, tracks, n, start, end, out);
  trak__ui_put(out, ",", 1);
  if (trak__ui_state_sums(c, tracks, n, start, end, out))
    return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  trak__ui_put(out, ",", 1);
  if (trak__ui_cpu_sums(c, tracks, n, start, end, out))
    return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  trak__ui_put(out, "}", 1);
  return out->oom ? trak_error_set(err, TRAK_ENOMEM, "out of memory") : 0;
}

/* ---- flame graph ------------------------------------------------------------------------ */

/* Sizes the hash for the slices of `tracks` that may be in [start, end] (each at most one node),
** up to 2^18 slots (3 MB), so that it does not grow step by step through a selection of a
** size that is common; a larger one grows it (the pruning of trak__ui_flamegraph keeps it far
** under a node per slice: sized for every slice, its first write alone cost more than all
** its probes). */
static void flame_reserve(trak_ui_flame *f, const trak_ui_cache *c, const int64_t *tracks, size_t n,
                          int64_t start, int64_t end) {
  size_t bound = 0;
  for (size_t k = 0; k < n; k++) {
    const trak_ui_track *t = slice_track(c, tracks[k]);
    for (size_t d = 0; t && d < t->n_lines; d++) {
      const trak_ui_line *l = &t->lines[d];
      size_t a = trak__ui_line_first_ending_after(l, start);
      size_t b = trak__ui_first_at(l->v, l->n, sizeof *l->v, end == INT64_MAX ? end : end + 1);
      bound += b > a ? b - a : 0;
    }
  }
  size_t n_slots = 1024;
  while (n_slots < 2 * bound + 2 && n_slots < ((size_t)1 << 18))
    n_slots *= 2;
  trak__ui_flame_rehash(f, n_slots);
}

/* One track's slices at the depth being merged: line indices [a, b) (those that may meet the
** range) and the node each went to (-1: none). */
typedef struct flame_span {
  size_t a, b;
  int32_t *node;
  size_t cap; /* of node: kept from depth to depth, so that it is allocated a few times only */
} flame_span;

/* Merges depth `d` of track `t` into the graph: a root (no parent) becomes a node under -1, a
** child one under its parent's node (the slice of depth d - 1 in `prev` that holds it, found by
** walking both lines in time order; of slices begun with it, its parent_id's), unless that node's total is under `floor`. Fills `cur`. */
static void flame_depth(trak_ui_flame *f, const trak_ui_cache *c, const trak_ui_track *t, size_t d,
                        const flame_span *prev, flame_span *cur, int64_t start, int64_t end,
                        int64_t floor) {
  const trak_ui_line *l = &t->lines[d], *up = d ? &t->lines[d - 1] : NULL;
  cur->a = trak__ui_line_first_ending_after(l, start);
  cur->b = trak__ui_first_at(l->v, l->n, sizeof *l->v, end == INT64_MAX ? end : end + 1);
  if (cur->b < cur->a) cur->b = cur->a;
  if (cur->b - cur->a + 1 > cur->cap) {
    int32_t *node = realloc(cur->node, (cur->b - cur->a + 1) * sizeof *node);
    if (!node) {
      f->oom = 1;
      return;
    }
    cur->node = node, cur->cap = cur->b - cur->a + 1;
  }
  size_t j = prev->a;
  for (size_t i = cur->a; i < cur->b; i++) {
    const trak_ui_slice *s = &l->v[i];
    int32_t node = -1;
    if (in_range(s, start, end) && !trak__ui_has_parent(c, t, d, s)) {
      node = trak__ui_flame_node(f, -1, s->name);
    } else if (in_range(s, start, end) && up && prev->node && j < prev->b) {
      while (j + 1 < prev->b && up->v[j + 1].ts <= s->ts)
        j++;
      size_t q = trak__ui_parent_in(c, up, prev->a, j, s);
      int32_t parent = up->v[q].ts <= s->ts && within(&up->v[q], s) ? prev->node[q - prev->a] : -1;
      if (parent >= 0 && f->v[parent].total >= floor)
        node = trak__ui_flame_node(f, parent, s->name);
    }
    if (node >= 0) {
      f->v[node].total += s->dur;
      f->v[node].count++;
    }
    cur->node[i - cur->a] = node;
  }
}

/* The flame graph merged slice by slice from the cache's lines (the columns declined: async
** lanes, rows out of order; the lines of `tracks` filled): depth by depth over every
** track, so that a node's total is whole before its children are merged: a node under the
** smallest total that can still be answered (a lower bound of it, the
** TRAK_UI_MAX_FLAME_NODES-th largest so far) cannot have a child that is, and its children are
** not merged. Not when a track has roots below depth 0: their stacks start deeper and a node's
** total may grow later. Merges into `f` (zeroed); sets f->oom when out of memory. */
void trak__ui_flame_from_lines(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                               int64_t start, int64_t end, trak_ui_flame *f) {
  flame_reserve(f, c, tracks, n, start, end);
  flame_span *spans = calloc(2 * (n ? n : 1), sizeof *spans); /* depth d - 1's, then d's */
  size_t depths = 0;
  int prune = 1;
  for (size_t k = 0; k < n; k++) {
    const trak_ui_track *t = slice_track(c, tracks[k]);
    if (t && t->n_lines > depths) depths = t->n_lines;
    if (t && t->deep_roots) prune = 0;
  }
  if (!spans) f->oom = 1;
  for (size_t d = 0, live = 1; d < depths && live && !f->oom; d++) {
    size_t first = f->n; /* with no deeper roots, the nodes made now are this depth's */
    for (size_t k = 0; k < n && !f->oom; k++) {
      const trak_ui_track *t = slice_track(c, tracks[k]);
      flame_span *prev = &spans[2 * k], *cur = &spans[2 * k + 1];
      cur->a = cur->b = 0;
      if (t && d < t->n_lines) flame_depth(f, c, t, d, prev, cur, start, end, f->floor);
      flame_span swap = *prev;
      *prev = *cur, *cur = swap;
    }
    live = (size_t)trak__ui_flame_depth_done(f, first, prune);
  }
  for (size_t k = 0; spans && k < 2 * n; k++)
    free(spans[k].node);
  free(spans);
}

int trak__ui_flamegraph(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                        const trak_ui_range *r, trak_ui_buf *out, trak_error *err) {
  int64_t start = r->start, end = r->end;
  if (end < start) return trak_error_set(err, TRAK_EINVAL, "bad range: start after end");
  /* From the slice table's columns, unless they decline (async lanes, rows out of order): then
  ** from the lines of the tracks asked for, filled for it (the columns' merge with its cells
  ** prefetched took 0.65-0.8 s of CPU for the whole of a 50M-event trace, the lines' slice by
  ** slice 2.3 s, docs/performance.md). */
  trak_ui_flame f = {0};
  int rc = trak__ui_scan_flame(c, tracks, n, start, end, &f);
  if (rc == 1) {
    trak__ui_flame_free(&f);
    memset(&f, 0, sizeof f);
    if (trak__ui_lines_need(c, tracks, n)) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
    trak__ui_flame_from_lines(c, tracks, n, start, end, &f);
  }
  if (rc < 0) f.oom = 1;
  rc = trak__ui_flame_write(c, &f, out);
  trak__ui_flame_free(&f);
  return rc ? trak_error_set(err, TRAK_ENOMEM, "out of memory") : 0;
}
