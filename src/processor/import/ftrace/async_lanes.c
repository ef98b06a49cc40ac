/*
** This file holds Perfetto's track compressor for the Linux event sink's async slices (atrace
** markers, suspend_resume): tracks of one kind, process and name form a set of lanes, numbered
** (track_compressor_idx) as they are made, the set's tracks sharing a track_group_id. A cookie
** keeps its lane, else adopts the first lane with no begin open, else takes a new one; instants
** have lanes of their own. Events come in timestamp order (ftrace_queue.c), so lanes are given
** here and the slice records carry their final tracks to the parse phase.
*/
#include <stdlib.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/hash.h"

/* One set: the lanes of a (kind, process, name), numbered in the order they are made. */
typedef struct trak_clane_set {
  uint32_t n;       /* its lanes */
  uint32_t instant; /* its instant lane (index in lanes), TRAK_NULL_U32: none yet */
  uint32_t group;   /* its track_group_id (sets are numbered as they are made) */
  uint32_t upid, name;
  uint8_t kind; /* its tracks' kind */
  /* a min-heap of lane indexes (which grow with the index in the set) holding every cookie lane
  ** with no begin open, and stale entries of lanes busy since, dropped when they come on top */
  TRAK_VEC(uint32_t) idle;
} trak_clane_set;

struct trak_clanes {
  trak_map by_key;    /* (kind, upid, name) -> index in sets */
  trak_map by_cookie; /* (set, cookie) -> index in lanes of the lane that last held the cookie */
  TRAK_VEC(trak_clane_set) sets;
  TRAK_VEC(trak_clane) lanes;
};

uint32_t trak__lane_set(trak_importer *imp, trak_track_kind_id kind, uint32_t upid, uint32_t name) {
  trak_ftrace *f = trak__ftrace_get(imp);
  if (!f->lanes) {
    f->lanes = calloc(1, sizeof *f->lanes);
    if (!f->lanes) abort();
  }
  trak_clanes *a = f->lanes;
  int added;
  uint32_t *slot = trak__map_put(&a->by_key, trak__track_key(kind, upid, name), 0, &added);
  if (added) {
    uint32_t s = (uint32_t)a->sets.n;
    *slot = s;
    trak_clane_set set = {0, TRAK_NULL_U32, s, upid, name, (uint8_t)kind, {NULL, 0, 0}};
    trak_vec_push(a->sets, set);
  }
  return *slot;
}

/* Appends a lane to set `s`, its track made now (as Perfetto makes it when first given out). */
static uint32_t lane_new(trak_importer *imp, uint32_t s, int64_t key) {
  trak_clanes *a = imp->ftrace->lanes;
  trak_clane_set *set = &a->sets.v[s];
  uint32_t idx = set->n++;
  uint64_t tk =
      trak__track_key((trak_track_kind_id)set->kind, set->upid, (uint64_t)idx << 32 | set->name);
  uint32_t track = trak__keyed_track(imp, tk, set->name, set->upid, 0, set->kind);
  imp->tracks.info.v[track].lane = idx;
  imp->tracks.info.v[track].group = set->group + 1;
  uint32_t l = (uint32_t)a->lanes.n;
  trak_vec_push(a->lanes, ((trak_clane){key, 0, track, s, 0, 0, 0}));
  return l;
}

/* The idle heap of a set (lane indexes, least on top). */
static void idle_push(trak_clane_set *set, uint32_t lane) {
  trak_vec_push(set->idle, lane);
  size_t i = set->idle.n - 1;
  while (i > 0 && set->idle.v[(i - 1) / 2] > set->idle.v[i]) {
    uint32_t t = set->idle.v[i];
    set->idle.v[i] = set->idle.v[(i - 1) / 2];
    set->idle.v[(i - 1) / 2] = t;
    i = (i - 1) / 2;
  }
}

static void idle_pop(trak_clane_set *set) {
  set->idle.v[0] = set->idle.v[--set->idle.n];
  size_t i = 0, n = set->idle.n;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && set->idle.v[c + 1] < set->idle.v[c]) c++;
    if (set->idle.v[i] <= set->idle.v[c]) break;
    uint32_t t = set->idle.v[i];
    set->idle.v[i] = set->idle.v[c];
    set->idle.v[c] = t;
    i = c;
  }
}

/* The lane of `cookie` in set `s`, as Perfetto's compressor picks it: the cookie's, else the
** first cookie lane with no begin open (which the cookie adopts), else a new one. */
trak_clane *trak__lane_for_cookie(trak_importer *imp, uint32_t s, int64_t cookie) {
  trak_clanes *a = imp->ftrace->lanes;
  int added;
  uint32_t *slot = trak__map_put(&a->by_cookie, trak__mix(s, (uint64_t)cookie), 0, &added);
  if (!added) {
    trak_clane *ln = &a->lanes.v[*slot];
    if (ln->key == cookie && ln->set == s) return ln; /* else adopted by another cookie since */
  }
  trak_clane_set *set = &a->sets.v[s];
  while (set->idle.n && a->lanes.v[set->idle.v[0]].nest)
    idle_pop(set); /* stale: busy since */
  uint32_t l;
  if (set->idle.n) { /* adopted; it stays in the heap while it has no begin open */
    l = set->idle.v[0];
    a->lanes.v[l].key = cookie;
  } else {
    l = lane_new(imp, s, cookie);
    a = imp->ftrace->lanes;
    idle_push(&a->sets.v[s], l); /* no begin open yet */
  }
  *trak__map_put(&a->by_cookie, trak__mix(s, (uint64_t)cookie), 0, &added) = l;
  return &a->lanes.v[l];
}

/* A begin (+1; `saturate`: the count becomes 1) or end (-1) on cookie lane `ln`; an end that
** leaves it with no begin open puts it back in its set's idle heap. */
void trak__lane_nest(trak_importer *imp, trak_clane *ln, int delta, int saturate) {
  if (delta > 0) {
    ln->nest = saturate ? 1 : ln->nest + 1;
    return;
  }
  if (!ln->nest) return;
  if (--ln->nest == 0) {
    trak_clanes *a = imp->ftrace->lanes;
    idle_push(&a->sets.v[ln->set], (uint32_t)(ln - a->lanes.v));
  }
}

/* The lane of an instant at `ts` in set `s`: the instant lane whose last instant ended by `ts`
** (Perfetto's first such; markers come in timestamp order, so its one instant lane always has),
** made on first use. */
trak_clane *trak__lane_for_instant(trak_importer *imp, uint32_t s, int64_t ts) {
  trak_clanes *a = imp->ftrace->lanes;
  if (a->sets.v[s].instant == TRAK_NULL_U32) {
    uint32_t l = lane_new(imp, s, ts);
    a = imp->ftrace->lanes;
    a->sets.v[s].instant = l;
  }
  trak_clane *ln = &a->lanes.v[a->sets.v[s].instant];
  ln->key = ts;
  return ln;
}

void trak__lanes_free(trak_ftrace *f) {
  if (!f->lanes) return;
  trak__map_free(&f->lanes->by_key);
  trak__map_free(&f->lanes->by_cookie);
  for (size_t i = 0; i < f->lanes->sets.n; i++)
    trak_vec_free(f->lanes->sets.v[i].idle);
  trak_vec_free(f->lanes->sets);
  trak_vec_free(f->lanes->lanes);
  free(f->lanes);
  f->lanes = NULL;
}
