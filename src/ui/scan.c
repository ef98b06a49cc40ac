/*
** This file holds the screens answered from the slice table's columns (the cache's lines are
** filled only where these decline, trak__ui_lines_need): one
** pass over the slice table's columns (the processor's, read directly as cache.c does) keeps,
** for each requested track, depth and pixel column, the slice that stands for it and how many
** there are, with the lines' choice (trak__ui_stands_before, as data.c). A pass at 50M events costs a
** fraction of filling the lines, and keeps no copy of the slices. The area selection's slices by
** name are summed in the same way (its flame graph: scan_flame.c).
*/
#include <stdlib.h>
#include <string.h>

#include "processor/processor_internal.h"
#include "ui/cache.h"
#include "ui/ui.h"

#define MAX_ENTRIES ((size_t)1 << 24) /* beyond this a scan waits for the lines instead */

int trak__ui_scan_new(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                      const trak_ui_range *r, trak_ui_scan *out) {
  const trak_tables *tb = c->tables;
  memset(out, 0, sizeof *out);
  uint64_t span = (uint64_t)r->end - (uint64_t)r->start;
  out->cols = (size_t)(span / (uint64_t)r->px) + 2; /* before the range, then each column */
  if (span / (uint64_t)r->px >= MAX_ENTRIES) return 1;
  out->offset = malloc((n ? n : 1) * sizeof *out->offset);
  int32_t *slot = malloc((c->n_tracks ? c->n_tracks : 1) * sizeof *slot); /* track -> request */
  if (!out->offset || !slot) {
    free(slot);
    return -1;
  }
  memset(slot, 0xff, (c->n_tracks ? c->n_tracks : 1) * sizeof *slot);
  size_t entries = 0;
  for (size_t k = 0; k < n; k++) {
    const trak_ui_track *t = trak__ui_cache_track(c, tracks[k]);
    out->offset[k] = SIZE_MAX;
    if (!t || t->kind != TRAK_UI_SLICES || !t->n_lines || t->loose) continue; /* loose: lines */
    if (slot[t - c->tracks] >= 0) { /* asked for twice: the same entries */
      out->offset[k] = out->offset[slot[t - c->tracks]];
      continue;
    }
    if (t->n_lines > (MAX_ENTRIES - entries) / out->cols) {
      free(slot);
      return 1;
    }
    slot[t - c->tracks] = (int32_t)k;
    out->offset[k] = entries;
    entries += t->n_lines * out->cols;
  }
  out->best = malloc((entries ? entries : 1) * sizeof *out->best);
  out->count = calloc(entries ? entries : 1, sizeof *out->count);
  if (!out->best || !out->count) {
    free(slot);
    return -1;
  }
  memset(out->best, 0xff, (entries ? entries : 1) * sizeof *out->best);
  struct span {
    int64_t ts, dur;
  } *best = malloc((entries ? entries : 1) * sizeof *best); /* each entry's row's */
  if (!best) {
    free(slot);
    return -1;
  }
  const trak_ui_cols cols = trak__ui_cols_of(r->start, r->px);
  size_t rows = tb->slice.n;
  if (c->slices_by_ts) /* no row past the first starting after the range meets it */
    rows = trak__ui_first_at(tb->slice.ts, rows, sizeof *tb->slice.ts,
                             r->end == INT64_MAX ? r->end : r->end + 1);
  for (size_t i = 0; i < rows; i++) {
    uint32_t depth = tb->slice.depth[i];
    int64_t ts = tb->slice.ts[i];
    uint32_t id = tb->slice.track_id[i];
    if (ts > r->end || id >= c->index_len || c->index[id] == UINT32_MAX) continue;
    int32_t k = slot[c->index[id]];
    if (k < 0 || depth >= c->tracks[c->index[id]].n_lines) continue; /* MAX_DEPTH and over */
    trak_ui_slice s = {.ts = ts, .dur = tb->slice.dur[i]};
    if (trak__ui_slice_end(&s) < r->start) continue;
    uint64_t col = ts < r->start ? 0 : trak__ui_col(&cols, ts) + 1;
    size_t e = out->offset[k] + depth * out->cols + col;
    out->count[e]++;
    if (out->best[e] == UINT32_MAX || trak__ui_stands_before(ts, s.dur, best[e].ts, best[e].dur)) {
      out->best[e] = (uint32_t)i;
      best[e] = (struct span){ts, s.dur}; /* beside the entry: no read of the row again */
    }
  }
  free(best);
  free(slot);
  return 0;
}

trak_ui_slice trak__ui_scan_row(const trak_ui_cache *c, uint32_t row) {
  const trak_tables *tb = c->tables;
  uint32_t name = tb->slice.name[row];
  trak_ui_slice s = {.ts = tb->slice.ts[row],
                     .dur = tb->slice.dur[row],
                     .id = row,
                     .name = name < c->name_map_len && c->name_map[name] ? c->name_map[name] - 1
                                                                         : UINT32_MAX};
  return s;
}

/* The cache's name of the tables' string `name` + 1 (0: none), as trak__ui_scan_row's. */
static size_t name_slot(const trak_ui_cache *c, uint32_t name) {
  return name < c->name_map_len ? c->name_map[name] : 0;
}

int trak__ui_scan_by_name(const trak_ui_cache *c, const int64_t *tracks, size_t n, int64_t start,
                          int64_t end, trak_ui_name_sum *acc) {
  const trak_tables *tb = c->tables;
  uint32_t *times = calloc(c->n_tracks ? c->n_tracks : 1, sizeof *times); /* track -> asked */
  if (!times) return -1;
  int any = 0;
  for (size_t k = 0; k < n; k++) {
    const trak_ui_track *t = trak__ui_cache_track(c, tracks[k]);
    if (t && t->kind == TRAK_UI_SLICES && t->n_lines) times[t - c->tracks]++, any = 1;
  }
  for (size_t i = 0; any && i < tb->slice.n; i++) {
    uint32_t id = tb->slice.track_id[i], depth = tb->slice.depth[i];
    if (id >= c->index_len || c->index[id] == UINT32_MAX) continue;
    const trak_ui_track *t = &c->tracks[c->index[id]];
    int64_t m = times[t - c->tracks];
    if (!m || depth >= t->n_lines) continue; /* not asked for; MAX_DEPTH and over */
    uint32_t up = tb->slice.parent_id[i];
    if (depth > 0 && up == TRAK_NULL_U32) {
      free(times);
      return 1;
    }
    trak_ui_slice s = {.ts = tb->slice.ts[i], .dur = tb->slice.dur[i]};
    if (s.dur < 0) continue;
    if (s.ts <= end && trak__ui_slice_end(&s) >= start) {
      trak_ui_name_sum *a = &acc[name_slot(c, tb->slice.name[i])];
      a->count += m, a->wall += m * s.dur, a->self += m * s.dur;
    }
    if (up == TRAK_NULL_U32 || up >= tb->slice.n || tb->slice.track_id[up] != id ||
        tb->slice.depth[up] + 1 != depth)
      continue;
    trak_ui_slice p = {.ts = tb->slice.ts[up], .dur = tb->slice.dur[up]};
    int64_t p_end = trak__ui_slice_end(&p);
    if (p.dur >= 0 && p.ts <= end && p_end >= start && s.ts >= p.ts &&
        (s.ts < p_end || s.ts == p.ts)) /* the parent counts, and the lines find s under it */
      acc[name_slot(c, tb->slice.name[up])].self -= m * s.dur;
  }
  free(times);
  return 0;
}

void trak__ui_scan_free(trak_ui_scan *s) {
  free(s->offset);
  free(s->best);
  free(s->count);
  memset(s, 0, sizeof *s);
}
