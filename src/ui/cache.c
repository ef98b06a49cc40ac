/*
** This file holds the viewer's copy of the timeline: counter values and flows read once into
** arrays per track, sorted by time, the slice rows counted per track and depth, and each slice
** track's lines (its slices per depth, sorted by time, found by binary search) filled only when
** an answer the columns decline asks for them (trak__ui_lines_need): the columns answer the
** rest (scan.c, scan_flame.c), and a copy of every slice was a third of the server's memory.
** The rows are read from the processor's columns directly, counted first so that each array is
** allocated once at its size: through SQL the read took most of the server's start (43 s at 50M
** events) and the arrays' doubling a third more memory than they hold.
*/
#define _GNU_SOURCE /* qsort_r, MADV_HUGEPAGE */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "processor/processor_internal.h"
#include "processor/tables/sched_cols.h"
#include "processor/tables/thread_state_cols.h"
#include "ui/cache.h"

#define NO_TRACK UINT32_MAX
#define MAX_DEPTH 10000 /* the depths drawn: a slice deeper than any screen is left out */

static int oom(trak_error *err) {
  return trak_error_set(err, TRAK_ENOMEM, "out of memory");
}

/* Grows `*v` (of `*cap` elements of `size` bytes) to hold n + 1. Returns 0 or -1. */
static int grow(void **v, size_t *cap, size_t n, size_t size) {
  if (n < *cap) return 0;
  size_t c = *cap ? *cap * 2 : 16;
  void *w = realloc(*v, c * size);
  if (!w) return -1;
  *v = w, *cap = c;
  return 0;
}

void trak__ui_advise_huge(void *p, size_t bytes) {
  const uintptr_t huge = (uintptr_t)2 << 20;
  uintptr_t start = ((uintptr_t)p + huge - 1) & ~(huge - 1),
            end = ((uintptr_t)p + bytes) & ~(huge - 1);
  if (p && end > start) madvise((void *)start, end - start, MADV_HUGEPAGE);
}

void *trak__ui_alloc_big(size_t bytes) {
  void *p = malloc(bytes);
  trak__ui_advise_huge(p, bytes);
  return p;
}

/* ---- names ------------------------------------------------------------------------------- */

static uint64_t hash(const char *s) {
  uint64_t h = 1469598103934665603u;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211u;
  return h;
}

uint32_t trak__ui_cache_intern(trak_ui_cache *c, const char *s) {
  if (!s) return UINT32_MAX;
  if (c->n_names * 2 >= c->slots) { /* keep the table at most half full */
    size_t slots = c->slots ? c->slots * 2 : 1024;
    uint32_t *t = malloc(slots * sizeof *t);
    if (!t) return UINT32_MAX;
    memset(t, 0xff, slots * sizeof *t);
    for (size_t i = 0; i < c->n_names; i++) {
      size_t k = hash(c->names[i]) & (slots - 1);
      while (t[k] != UINT32_MAX)
        k = (k + 1) & (slots - 1);
      t[k] = (uint32_t)i;
    }
    free(c->table);
    c->table = t, c->slots = slots;
  }
  size_t k = hash(s) & (c->slots - 1);
  for (; c->table[k] != UINT32_MAX; k = (k + 1) & (c->slots - 1))
    if (!strcmp(c->names[c->table[k]], s)) return c->table[k];
  char *copy = strdup(s);
  if (!copy || grow((void **)&c->names, &c->names_cap, c->n_names, sizeof *c->names)) {
    free(copy);
    return UINT32_MAX;
  }
  c->names[c->n_names] = copy;
  c->table[k] = (uint32_t)c->n_names;
  return (uint32_t)c->n_names++;
}

const char *trak__ui_cache_name(const trak_ui_cache *c, uint32_t id) {
  return id < c->n_names ? c->names[id] : NULL;
}

/* ---- tracks ------------------------------------------------------------------------------ */

trak_ui_track *trak__ui_cache_add_track(trak_ui_cache *c, int64_t id) {
  if (id < 0 || id > (int64_t)UINT32_MAX - 1) return NULL;
  if ((size_t)id >= c->index_len) {
    size_t len = (size_t)id + 1 > c->index_len * 2 ? (size_t)id + 1 : c->index_len * 2;
    uint32_t *index = realloc(c->index, len * sizeof *index);
    if (!index) return NULL;
    memset(index + c->index_len, 0xff, (len - c->index_len) * sizeof *index);
    c->index = index, c->index_len = len;
  }
  if (c->index[id] == NO_TRACK) {
    if (grow((void **)&c->tracks, &c->tracks_cap, c->n_tracks, sizeof *c->tracks)) return NULL;
    memset(&c->tracks[c->n_tracks], 0, sizeof *c->tracks);
    c->tracks[c->n_tracks].id = id;
    c->index[id] = (uint32_t)c->n_tracks++;
  }
  return &c->tracks[c->index[id]];
}

const trak_ui_track *trak__ui_cache_track(const trak_ui_cache *c, int64_t id) {
  if (id < 0 || (uint64_t)id >= c->index_len || c->index[id] == NO_TRACK) return NULL;
  return &c->tracks[c->index[id]];
}

static int by_ts(const void *a, const void *b) {
  const trak_ui_slice *x = a, *y = b;
  return (x->ts > y->ts) - (x->ts < y->ts);
}

static int by_counter_ts(const void *a, const void *b) {
  const trak_ui_value *x = a, *y = b;
  return (x->ts > y->ts) - (x->ts < y->ts);
}

/* ---- CPU and thread-state rows, read from the processor's columns ------------------------ */

trak_ui_slice trak__ui_rows_read(const trak_ui_cache *c, const trak_ui_track *t,
                                 const trak_ui_line *l, size_t i, uint32_t *aux) {
  const trak_tables *tb = c->tables;
  uint32_t row = l->rows[i];
  trak_ui_slice s = {.id = row, .name = UINT32_MAX};
  if (t->kind == TRAK_UI_CPU) {
    s.ts = tb->sched_slice.ts[row], s.dur = tb->sched_slice.dur[row];
    if (aux) *aux = tb->sched_slice.utid[row];
    return s;
  }
  s.ts = tb->thread_state.ts[row], s.dur = trak__ts_dur(tb, row);
  s.name = c->state_name[tb->thread_state.state8[row]];
  if (aux) {
    uint32_t ucpu = trak__ts_ucpu(tb, row);
    int io = trak__ts_io_wait(tb, row);
    *aux = TRAK_UI_STATE_AUX(ucpu == TRAK_NULL_U32 ? -1 : (int64_t)ucpu, io == 2 ? -1 : io);
  }
  return s;
}

static int64_t line_end(const trak_ui_cache *c, const trak_ui_track *t, const trak_ui_line *l,
                        size_t i) {
  if (!l->rows) return trak__ui_slice_end(&l->v[i]);
  trak_ui_slice s = trak__ui_line_row(c, t, l, i, NULL);
  return trak__ui_slice_end(&s);
}

size_t trak__ui_line_first_ending(const trak_ui_cache *c, const trak_ui_track *t,
                                  const trak_ui_line *l, int64_t ts) {
  if (!l->rows) return trak__ui_line_first_ending_after(l, ts);
  size_t lo = 0, hi = l->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if ((l->max_end ? l->max_end[mid] : line_end(c, t, l, mid)) < ts)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The rows of the sched_slice (kind TRAK_UI_CPU) or thread_state table whose CPU or utid is
** `key`, counted (for every key at once) on first use; 0 when out of memory. */
static size_t reserve_of(trak_ui_cache *c, trak_ui_kind kind, int64_t key) {
  const trak_tables *tb = c->tables;
  int k = kind == TRAK_UI_STATE;
  size_t n = k ? tb->thread_state.n : tb->sched_slice.n;
  if (!c->reserve[k]) {
    uint32_t max = 0;
    for (size_t i = 0; i < n; i++) {
      uint32_t v = k ? tb->thread_state.utid[i] : trak__ss_ucpu(tb, (uint32_t)i);
      if (v != TRAK_NULL_U32 && v > max) max = v;
    }
    /* Past 2^24: not a CPU or utid a trace has; no count, each track grown as it comes. */
    size_t len = max < (1u << 24) ? (size_t)max + 1 : 0;
    if (!(c->reserve[k] = calloc(len ? len : 1, sizeof *c->reserve[k]))) return 0;
    c->reserve_len[k] = len;
    for (size_t i = 0; len && i < n; i++) {
      uint32_t v = k ? tb->thread_state.utid[i] : trak__ss_ucpu(tb, (uint32_t)i);
      if (v != TRAK_NULL_U32) c->reserve[k][v]++;
    }
  }
  return key >= 0 && (uint64_t)key < c->reserve_len[k] ? c->reserve[k][key] : 0;
}

int trak__ui_cache_add_row(trak_ui_cache *c, int64_t id, trak_ui_kind kind, int64_t key,
                           uint32_t row, const char *state) {
  const trak_tables *tb = c->tables;
  if (row >= (kind == TRAK_UI_CPU ? tb->sched_slice.n : tb->thread_state.n)) return 0;
  trak_ui_track *tr = trak__ui_cache_add_track(c, id);
  if (!tr) return -1;
  if (!tr->n_lines) {
    if (!(tr->lines = calloc(1, sizeof *tr->lines))) return -1;
    tr->n_lines = 1, tr->kind = kind, tr->key = key;
    size_t want = reserve_of(c, kind, key); /* 0: grown as it comes */
    if (want && (tr->lines[0].rows = malloc(want * sizeof *tr->lines[0].rows)))
      tr->lines[0].cap = want;
  }
  trak_ui_line *l = &tr->lines[0];
  if (grow((void **)&l->rows, &l->cap, l->n, sizeof *l->rows)) return -1;
  l->rows[l->n++] = row;
  if (kind == TRAK_UI_STATE) {
    uint8_t code = tb->thread_state.state8[row];
    if (c->state_name[code] == UINT32_MAX && state) {
      c->state_name[code] = trak__ui_cache_intern(c, state);
      if (c->state_name[code] == UINT32_MAX) return -1;
    }
  }
  return 0;
}

/* Sorts line `d` of `tr` by time (rows appended by metrics may come late) and computes its
** max_end where needed. Returns 0 or -1 (out of memory). */
static int finish_line(const trak_ui_cache *c, trak_ui_track *tr, size_t d) {
  trak_ui_line *l = &tr->lines[d];
  int sorted = 1;
  for (size_t i = 1; i < l->n && sorted; i++)
    sorted = l->v[i - 1].ts <= l->v[i].ts;
  if (!sorted) qsort(l->v, l->n, sizeof *l->v, by_ts);
  /* max_end only where ends are not already nondecreasing (a slice that did not end, or
  ** overlapping ones): most lines need none, 8 bytes a slice saved. */
  int monotonic = 1;
  int64_t last = INT64_MIN;
  for (size_t i = 0; i < l->n; i++) {
    int64_t end = line_end(c, tr, l, i);
    if (end < last) monotonic = 0;
    last = end;
  }
  if (!monotonic) {
    l->max_end = trak__ui_alloc_big(l->n * sizeof *l->max_end);
    if (!l->max_end) return -1;
    int64_t m = INT64_MIN;
    for (size_t i = 0; i < l->n; i++) {
      int64_t end = line_end(c, tr, l, i);
      l->max_end[i] = m = end > m ? end : m;
    }
  }
  return 0;
}

/* Finishes what is read at start: every track's counter values (sorted, counted, first time)
** and the count and first time of the CPU and thread-state tracks (their lines are finished by
** trak__ui_sched_load); the slice table's lines are counted by size_lines and filled by
** trak__ui_lines_need. */
static void finish_lines(trak_ui_cache *c) {
  for (size_t t = 0; t < c->n_tracks; t++) {
    trak_ui_track *tr = &c->tracks[t];
    for (size_t d = 0; tr->kind != TRAK_UI_SLICES && d < tr->n_lines; d++) {
      trak_ui_line *l = &tr->lines[d];
      int64_t first = l->n ? trak__ui_line_row(c, tr, l, 0, NULL).ts : 0;
      if (l->n && (tr->count == 0 || first < tr->first_ts)) tr->first_ts = first;
      tr->count += (int64_t)l->n;
    }
    int sorted = 1; /* (the Scheduler counters' values, count_ts, are made in order) */
    for (size_t i = 1; tr->values && i < tr->n_values && sorted; i++)
      sorted = tr->values[i - 1].ts <= tr->values[i].ts;
    if (!sorted) qsort(tr->values, tr->n_values, sizeof *tr->values, by_counter_ts);
    if (tr->n_values && (tr->count == 0 || trak__ui_value_ts(tr, 0) < tr->first_ts))
      tr->first_ts = trak__ui_value_ts(tr, 0);
    tr->count += (int64_t)tr->n_values;
  }
}

void trak__ui_cache_widen(trak_ui_cache *c, int64_t start, int64_t end) {
  if (!c->n_events || start < c->start) c->start = start;
  if (!c->n_events || end > c->end) c->end = end;
  c->n_events++;
}

/* Sets tr->loose if row `i` (`s`: its times) of the slice table, of track tr, is not where the
** lines would find it: it overlaps, begins with or before the row before it at its depth, or its
** parent_id is not a row of the depth above on the track that holds it (begins at or before
** it, and ends after its start or begins with it). */
static void note_loose(const trak_tables *tb, trak_ui_track *tr, uint32_t i,
                       const trak_ui_slice *s) {
  uint32_t depth = tb->slice.depth[i], up = tb->slice.parent_id[i];
  trak_ui_line *l = &tr->lines[depth];
  if (l->cap > 1 && (s->ts < l->last_end || s->ts == l->last_ts)) tr->loose = 1;
  l->last_ts = s->ts, l->last_end = trak__ui_slice_end(s);
  if (depth == 0 || up == TRAK_NULL_U32) return; /* a root (below depth 0: deep_roots) */
  if (up >= tb->slice.n || tb->slice.track_id[up] != tb->slice.track_id[i] ||
      tb->slice.depth[up] + 1 != depth) {
    tr->loose = 1;
    return;
  }
  trak_ui_slice p = {.ts = tb->slice.ts[up], .dur = tb->slice.dur[up]};
  if (!(p.ts <= s->ts && (s->ts < trak__ui_slice_end(&p) || s->ts == p.ts))) tr->loose = 1;
}

/* Counts the rows of the slice table into each track's lines (each line's cap), events and
** first time, notes the tracks with roots below depth 0 (deep_roots), widens the trace's bounds
** and interns the slice names (name_map): all that the track list and the answers from the
** columns need, without copying a row. Returns 0 or -1 (out of memory). */
static int size_lines(trak_ui_cache *c, const trak_tables *tb) {
  c->name_map_len = tb->strings.str.n + 1;
  c->name_map = calloc(c->name_map_len, sizeof *c->name_map);
  if (!c->name_map) return -1;
  int64_t lo = INT64_MAX, hi = INT64_MIN; /* the slices' bounds, widened into c's at the end */
  size_t n = 0;
  c->slices_by_ts = 1;
  for (size_t i = 0; i < tb->slice.n; i++) {
    uint32_t depth = tb->slice.depth[i], id = tb->slice.track_id[i];
    if (i && tb->slice.ts[i] < tb->slice.ts[i - 1]) c->slices_by_ts = 0;
    if (depth >= MAX_DEPTH) continue;
    trak_ui_track *tr = id < c->index_len && c->index[id] != NO_TRACK
                            ? &c->tracks[c->index[id]] /* the common case, inline */
                            : trak__ui_cache_add_track(c, id);
    if (!tr) return -1;
    if (depth >= tr->n_lines) {
      trak_ui_line *lines = realloc(tr->lines, ((size_t)depth + 1) * sizeof *lines);
      if (!lines) return -1;
      memset(lines + tr->n_lines, 0, ((size_t)depth + 1 - tr->n_lines) * sizeof *lines);
      tr->lines = lines, tr->n_lines = (size_t)depth + 1;
    }
    tr->lines[depth].cap++;
    if (depth > 0 && tb->slice.parent_id[i] == TRAK_NULL_U32) tr->deep_roots = 1;
    trak_ui_slice s = {.ts = tb->slice.ts[i], .dur = tb->slice.dur[i]};
    if (!tr->loose) note_loose(tb, tr, (uint32_t)i, &s);
    if (tr->count == 0 || s.ts < tr->first_ts) tr->first_ts = s.ts;
    tr->count++;
    int64_t end = s.dur < 0 ? s.ts : trak__ui_slice_end(&s);
    lo = s.ts < lo ? s.ts : lo, hi = end > hi ? end : hi, n++;
    uint32_t name = tb->slice.name[i];
    if (name && name < tb->strings.str.n && !c->name_map[name]) {
      uint32_t interned = trak__ui_cache_intern(c, trak__str(&tb->strings, name));
      if (interned == UINT32_MAX) return -1;
      c->name_map[name] = interned + 1;
    }
  }
  if (n) {
    trak__ui_cache_widen(c, lo, hi);
    c->n_events += n - 1;
  }
  return 0;
}

/* The cache's name of the tables' string `id` (interned by size_lines), UINT32_MAX for none. */
static uint32_t name_of(const trak_ui_cache *c, uint32_t id) {
  return id < c->name_map_len && c->name_map[id] ? c->name_map[id] - 1 : UINT32_MAX;
}

/* Frees the lines of the tracks marked in `want` (by position) and leaves their counts. */
static void unfill(trak_ui_cache *c, const uint8_t *want) {
  for (size_t t = 0; t < c->n_tracks; t++)
    for (size_t d = 0; want[t] && d < c->tracks[t].n_lines; d++) {
      trak_ui_line *l = &c->tracks[t].lines[d];
      free(l->v), free(l->max_end);
      l->v = NULL, l->max_end = NULL, l->n = 0;
    }
}

/* Fills the lines of the slice tracks marked in `want` (by position) from the columns, rows in
** table order, then sorts them. Returns 0 or -1 (out of memory: none of them filled). */
static int fill_slices(trak_ui_cache *c, const uint8_t *want) {
  const trak_tables *tb = c->tables;
  for (size_t t = 0; t < c->n_tracks; t++)
    for (size_t d = 0; want[t] && d < c->tracks[t].n_lines; d++) {
      trak_ui_line *l = &c->tracks[t].lines[d];
      if (l->cap && !(l->v = trak__ui_alloc_big(l->cap * sizeof *l->v))) return unfill(c, want), -1;
    }
  for (size_t i = 0; i < tb->slice.n; i++) {
    uint32_t depth = tb->slice.depth[i];
    if (depth >= MAX_DEPTH || !want[c->index[tb->slice.track_id[i]]]) continue;
    trak_ui_line *l = &c->tracks[c->index[tb->slice.track_id[i]]].lines[depth];
    trak_ui_slice *s = &l->v[l->n++]; /* sized by size_lines */
    s->ts = tb->slice.ts[i];
    s->dur = tb->slice.dur[i];
    s->id = (uint32_t)i;
    s->name = name_of(c, tb->slice.name[i]);
  }
  for (size_t t = 0; t < c->n_tracks; t++)
    for (size_t d = 0; want[t] && d < c->tracks[t].n_lines; d++)
      if (finish_line(c, &c->tracks[t], d)) return unfill(c, want), -1;
  return 0;
}

/* Track `id` if it is a slice track whose lines are not filled. */
static trak_ui_track *unfilled(trak_ui_cache *c, int64_t id) {
  trak_ui_track *t = (trak_ui_track *)trak__ui_cache_track(c, id);
  return t && t->kind == TRAK_UI_SLICES && t->n_lines && !t->filled ? t : NULL;
}

int trak__ui_lines_filled(const trak_ui_cache *cc, const int64_t *tracks, size_t n) {
  trak_ui_cache *c = (trak_ui_cache *)cc; /* the lock only */
  int all = 1;
  pthread_mutex_lock(&c->lock);
  for (size_t k = 0; k < n && all; k++)
    all = !unfilled(c, tracks[k]);
  pthread_mutex_unlock(&c->lock);
  return all;
}

int trak__ui_lines_need(const trak_ui_cache *cc, const int64_t *tracks, size_t n) {
  trak_ui_cache *c = (trak_ui_cache *)cc; /* its lines and lock: written under the lock */
  uint8_t *want = calloc(c->n_tracks ? c->n_tracks : 1, 1);
  if (!want) return TRAK_ENOMEM;
  int any = 0, rc = 0;
  pthread_mutex_lock(&c->lock);
  for (size_t k = 0; k < (tracks ? n : c->n_tracks); k++) {
    trak_ui_track *t = unfilled(c, tracks ? tracks[k] : c->tracks[k].id);
    if (t) want[t - c->tracks] = 1, any = 1;
  }
  if (any && fill_slices(c, want)) rc = TRAK_ENOMEM;
  for (size_t t = 0; any && !rc && t < c->n_tracks; t++)
    if (want[t]) c->tracks[t].filled = 1;
  pthread_mutex_unlock(&c->lock);
  free(want);
  return rc;
}

static int load_slices(trak_processor *p, trak_ui_cache *c, trak_error *err) {
  c->tables = &p->tables;
  c->slice_parent = p->tables.slice.parent_id;
  return size_lines(c, &p->tables) ? oom(err) : 0;
}

static int load_counters(trak_processor *p, trak_ui_cache *c, trak_error *err) {
  const trak_tables *tb = &p->tables;
  for (size_t i = 0; i < tb->counter.n; i++) { /* count, then allocate each track's once */
    trak_ui_track *tr = trak__ui_cache_add_track(c, tb->counter.track_id[i]);
    if (!tr) return oom(err);
    tr->values_cap++;
  }
  for (size_t t = 0; t < c->n_tracks; t++) {
    trak_ui_track *tr = &c->tracks[t];
    if (tr->values_cap && !(tr->values = trak__ui_alloc_big(tr->values_cap * sizeof *tr->values)))
      return oom(err);
  }
  for (size_t i = 0; i < tb->counter.n; i++) {
    trak_ui_track *tr = &c->tracks[c->index[tb->counter.track_id[i]]];
    trak_ui_value *v = &tr->values[tr->n_values++];
    v->ts = tb->counter.ts[i];
    v->value = tb->counter.value[i];
    trak__ui_cache_widen(c, v->ts, v->ts);
  }
  return 0;
}

/* Flow rows (`order` holds their indexes) by the out slice's start, then by the flow's id. */
static int by_out_ts(const void *a, const void *b, void *flows) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  int64_t tx = ((const trak_ui_flow *)flows)[x].v[2], ty = ((const trak_ui_flow *)flows)[y].v[2];
  if (tx != ty) return (tx > ty) - (tx < ty);
  return (x > y) - (x < y);
}

static int load_flows(trak_processor *p, trak_ui_cache *c, trak_error *err) {
  const trak_tables *tb = &p->tables;
  if (!tb->flow.n) return 0;
  trak_ui_flow *rows = malloc(tb->flow.n * sizeof *rows);
  uint32_t *order = malloc(tb->flow.n * sizeof *order);
  c->flows = malloc(tb->flow.n * sizeof *c->flows);
  if (!rows || !order || !c->flows) {
    free(rows), free(order);
    return oom(err);
  }
  c->flows_cap = tb->flow.n;
  size_t n = 0;
  for (size_t i = 0; i < tb->flow.n; i++) {
    uint32_t ends[2] = {tb->flow.slice_out[i], tb->flow.slice_in[i]};
    if (ends[0] >= tb->slice.n || ends[1] >= tb->slice.n) continue; /* as the SQL join */
    for (int k = 0; k < 2; k++) {
      uint32_t s = ends[k];
      int64_t *v = &rows[n].v[5 * k];
      v[0] = s, v[1] = tb->slice.track_id[s], v[2] = tb->slice.ts[s];
      v[3] = tb->slice.dur[s], v[4] = tb->slice.depth[s];
    }
    order[n] = (uint32_t)n;
    n++;
  }
  qsort_r(order, n, sizeof *order, by_out_ts, rows);
  for (size_t i = 0; i < n; i++)
    c->flows[i] = rows[order[i]];
  c->n_flows = n;
  free(rows), free(order);
  return 0;
}

int trak__ui_cache_new(trak_processor *p, trak_ui_cache **out, trak_error *err) {
  trak_ui_cache *c = calloc(1, sizeof *c);
  *out = NULL;
  if (!c) return oom(err);
  memset(c->state_name, 0xff, sizeof c->state_name);
  pthread_mutex_init(&c->lock, NULL);
  int rc = load_slices(p, c, err);
  if (!rc) rc = load_counters(p, c, err);
  if (!rc) rc = load_flows(p, c, err);
  if (!rc) rc = trak__ui_sched_load(p, c, err);
  if (!rc) finish_lines(c);
  for (int k = 0; k < 2; k++)
    free(c->reserve[k]), c->reserve[k] = NULL, c->reserve_len[k] = 0;
  if (rc) {
    trak__ui_cache_free(c);
    return rc;
  }
  if (c->end <= c->start) c->end = c->start + 1;
  *out = c;
  return 0;
}

void trak__ui_cache_free(trak_ui_cache *c) {
  if (!c) return;
  for (size_t t = 0; t < c->n_tracks; t++) {
    for (size_t d = 0; d < c->tracks[t].n_lines; d++) {
      free(c->tracks[t].lines[d].v);
      free(c->tracks[t].lines[d].max_end);
      free(c->tracks[t].lines[d].rows);
    }
    free(c->tracks[t].lines);
    free(c->tracks[t].values);
    free(c->tracks[t].count_ts);
    free(c->tracks[t].count_n);
  }
  for (size_t i = 0; i < c->n_names; i++)
    free(c->names[i]);
  free(c->names);
  free(c->table);
  free(c->tracks);
  free(c->index);
  free(c->flows);
  free(c->name_map);
  free(c->reserve[0]), free(c->reserve[1]);
  pthread_mutex_destroy(&c->lock);
  free(c);
}
