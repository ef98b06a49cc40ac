/*
** This file holds the viewer's copy of the timeline: every slice, counter value and flow read
** once through the public query API into arrays per track and depth, sorted by time, so that a
** screen's worth is found by binary search and summarised in one pass (a pan or zoom costs what
** is on screen, not a scan of the trace through SQL).
*/
#include <stdlib.h>
#include <string.h>

#include "ui/cache.h"

#define NO_TRACK UINT32_MAX

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

/* Sorts each line by time (rows appended by metrics may come late) and computes max_end where
** needed. */
static int finish_lines(trak_ui_cache *c, trak_error *err) {
  for (size_t t = 0; t < c->n_tracks; t++) {
    trak_ui_track *tr = &c->tracks[t];
    for (size_t d = 0; d < tr->n_lines; d++) {
      trak_ui_line *l = &tr->lines[d];
      int sorted = 1;
      for (size_t i = 1; i < l->n && sorted; i++)
        sorted = l->v[i - 1].ts <= l->v[i].ts;
      if (!sorted) qsort(l->v, l->n, sizeof *l->v, by_ts);
      /* max_end only where ends are not already nondecreasing (a slice that did not end, or
      ** overlapping ones): most lines need none, 8 bytes a slice saved. */
      int monotonic = 1;
      for (size_t i = 0; i < l->n; i++) {
        if (i && trak__ui_slice_end(&l->v[i]) < trak__ui_slice_end(&l->v[i - 1])) monotonic = 0;
        if (d > 0 && !l->v[i].has_parent && tr->kind == TRAK_UI_SLICES) tr->deep_roots = 1;
      }
      if (!monotonic) {
        l->max_end = malloc(l->n * sizeof *l->max_end);
        if (!l->max_end) return oom(err);
        int64_t m = INT64_MIN;
        for (size_t i = 0; i < l->n; i++) {
          int64_t end = trak__ui_slice_end(&l->v[i]);
          l->max_end[i] = m = end > m ? end : m;
        }
      }
      if (l->n && (tr->count == 0 || l->v[0].ts < tr->first_ts)) tr->first_ts = l->v[0].ts;
      tr->count += (int64_t)l->n;
    }
    int sorted = 1;
    for (size_t i = 1; i < tr->n_values && sorted; i++)
      sorted = tr->values[i - 1].ts <= tr->values[i].ts;
    if (!sorted) qsort(tr->values, tr->n_values, sizeof *tr->values, by_counter_ts);
    if (tr->n_values && (tr->count == 0 || tr->values[0].ts < tr->first_ts))
      tr->first_ts = tr->values[0].ts;
    tr->count += (int64_t)tr->n_values;
  }
  return 0;
}

void trak__ui_cache_widen(trak_ui_cache *c, int64_t start, int64_t end) {
  if (!c->n_events || start < c->start) c->start = start;
  if (!c->n_events || end > c->end) c->end = end;
  c->n_events++;
}

trak_ui_slice *trak__ui_cache_add_slice(trak_ui_cache *c, int64_t id, int64_t depth) {
  trak_ui_track *tr = trak__ui_cache_add_track(c, id);
  if (!tr || depth < 0 || depth >= 10000) return NULL;
  if ((size_t)depth >= tr->n_lines) {
    trak_ui_line *lines = realloc(tr->lines, ((size_t)depth + 1) * sizeof *lines);
    if (!lines) return NULL;
    memset(lines + tr->n_lines, 0, ((size_t)depth + 1 - tr->n_lines) * sizeof *lines);
    tr->lines = lines, tr->n_lines = (size_t)depth + 1;
  }
  trak_ui_line *l = &tr->lines[depth];
  if (grow((void **)&l->v, &l->cap, l->n, sizeof *l->v)) return NULL;
  return &l->v[l->n++];
}

static int load_slices(trak_processor *p, trak_ui_cache *c, trak_error *err) {
  trak_query *q;
  int rc = trak_query_open(
      p, "SELECT track_id, depth, ts, dur, id, name, parent_id IS NOT NULL FROM slice", &q, NULL,
      err);
  if (rc) return rc;
  while ((rc = trak_query_next(q, err)) == 1) {
    int64_t depth = trak_query_int(q, 1);
    if (depth < 0 || depth >= 10000) continue; /* deeper than any screen: not drawn */
    trak_ui_slice *s = trak__ui_cache_add_slice(c, trak_query_int(q, 0), depth);
    if (!s) break;
    s->ts = trak_query_int(q, 2);
    s->dur = trak_query_int(q, 3);
    s->id = trak_query_int(q, 4);
    s->name = trak__ui_cache_intern(c, trak_query_string(q, 5));
    s->has_parent = trak_query_int(q, 6) != 0;
    trak__ui_cache_widen(c, s->ts, s->dur < 0 ? s->ts : trak__ui_slice_end(s));
  }
  trak_query_free(q);
  if (rc == 1) return oom(err);
  return rc;
}

static int load_counters(trak_processor *p, trak_ui_cache *c, trak_error *err) {
  trak_query *q;
  int rc = trak_query_open(p, "SELECT track_id, ts, value FROM counter", &q, NULL, err);
  if (rc) return rc;
  while ((rc = trak_query_next(q, err)) == 1) {
    trak_ui_track *tr = trak__ui_cache_add_track(c, trak_query_int(q, 0));
    if (!tr || grow((void **)&tr->values, &tr->values_cap, tr->n_values, sizeof *tr->values)) break;
    trak_ui_value *v = &tr->values[tr->n_values++];
    v->ts = trak_query_int(q, 1);
    v->value = trak_query_double(q, 2);
    trak__ui_cache_widen(c, v->ts, v->ts);
  }
  trak_query_free(q);
  if (rc == 1) return oom(err);
  return rc;
}

static int load_flows(trak_processor *p, trak_ui_cache *c, trak_error *err) {
  trak_query *q;
  int rc = trak_query_open(p,
                           "SELECT o.id, o.track_id, o.ts, o.dur, o.depth, i.id, i.track_id, "
                           "i.ts, i.dur, i.depth FROM flow f JOIN slice o ON o.id = f.slice_out "
                           "JOIN slice i ON i.id = f.slice_in ORDER BY o.ts",
                           &q, NULL, err);
  if (rc) return rc;
  while ((rc = trak_query_next(q, err)) == 1) {
    if (grow((void **)&c->flows, &c->flows_cap, c->n_flows, sizeof *c->flows)) break;
    trak_ui_flow *f = &c->flows[c->n_flows++];
    for (int i = 0; i < 10; i++)
      f->v[i] = trak_query_int(q, i);
  }
  trak_query_free(q);
  if (rc == 1) return oom(err);
  return rc;
}

int trak__ui_cache_new(trak_processor *p, trak_ui_cache **out, trak_error *err) {
  trak_ui_cache *c = calloc(1, sizeof *c);
  *out = NULL;
  if (!c) return oom(err);
  int rc = load_slices(p, c, err);
  if (!rc) rc = load_counters(p, c, err);
  if (!rc) rc = load_flows(p, c, err);
  if (!rc) rc = trak__ui_sched_load(p, c, err);
  if (!rc) rc = finish_lines(c, err);
  if (!rc && trak__ui_stacks_build(c)) rc = oom(err);
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
    }
    free(c->tracks[t].lines);
    free(c->tracks[t].values);
  }
  for (size_t i = 0; i < c->n_names; i++)
    free(c->names[i]);
  free(c->names);
  free(c->table);
  free(c->stack_parent);
  free(c->stack_name);
  free(c->tracks);
  free(c->index);
  free(c->flows);
  free(c);
}
