/*
** This file holds async atrace markers as Perfetto's systrace parser and track compressor make
** them: S/F slices on "atrace_async_slice" tracks (per process and name), G/H slices and N
** instants on "atrace_async_slice_for_track" tracks (per process and track name), and N on
** "DeviceStateChanged" on the global "android_device_state" track. A process and name form a
** set of tracks (lanes): a cookie keeps its lane, else takes a lane no cookie holds open, else a
** new one; an N instant takes the first instant lane whose last instant ended. S/F slices do not
** nest ("legacy unnestable"): an S on a lane with an open slice only counts a begin. The
** markers come in timestamp order (ftrace_queue.c), so lanes are assigned here and the slices'
** records carry their final tracks to the parse phase.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/hash.h"
#include "processor/util/atrace_marker.h"

/* One lane of a set: a track of the set and what holds it. */
typedef struct trak_atrace_lane {
  int64_t key;        /* cookie lanes: the cookie; instant lanes: the end of their last instant */
  int64_t last_begin; /* S/F lanes: the time of the last begin (legacy_unnestable_last_begin_ts) */
  uint32_t track;     /* its track index */
  uint32_t set;       /* its set (index in sets) */
  uint32_t nest;      /* cookie lanes: begins not yet ended (S saturates at 1) */
  uint32_t begins;    /* S/F lanes: begins seen on the lane (legacy_unnestable_begin_count) */
  uint8_t open;       /* S/F lanes: a slice is open */
} trak_atrace_lane;

/* One set: the lanes of a (kind, process, name), numbered in the order they are made. */
typedef struct trak_atrace_set {
  uint32_t n;       /* its lanes */
  uint32_t instant; /* its instant lane (index in lanes), TRAK_NULL_U32: none yet */
  uint32_t group;   /* its track_group_id (sets are numbered as they are made) */
  uint32_t upid, name;
  uint8_t kind; /* TRAK_TK_ATRACE_ASYNC_SLICE or _FOR_TRACK */
  TRAK_VEC(uint32_t)
  idle; /* a min-heap of lane indexes (which grow with the index in the
                              ** set) holding every cookie lane with no begin open, and stale
                              ** entries of lanes busy since, dropped when they come on top */
} trak_atrace_set;

struct trak_atrace_async {
  trak_map by_key;    /* (kind, upid, name) -> index in sets */
  trak_map by_cookie; /* (set, cookie) -> index in lanes of the lane that last held the cookie */
  TRAK_VEC(trak_atrace_set) sets;
  TRAK_VEC(trak_atrace_lane) lanes;
  uint32_t k_cookie, k_utid, k_end_utid, k_count, k_last_ts; /* arg keys (string ids) */
};

static trak_atrace_async *state(trak_importer *imp) {
  trak_ftrace *f = trak__ftrace_get(imp);
  if (f->async) return f->async;
  f->async = calloc(1, sizeof *f->async);
  if (!f->async) abort();
  trak_atrace_async *a = f->async;
  a->k_cookie = trak__ftrace_str(imp, "cookie");
  a->k_utid = trak__ftrace_str(imp, "utid");
  a->k_end_utid = trak__ftrace_str(imp, "end_utid");
  a->k_count = trak__ftrace_str(imp, "legacy_unnestable_begin_count");
  a->k_last_ts = trak__ftrace_str(imp, "legacy_unnestable_last_begin_ts");
  return a;
}

static uint32_t set_get(trak_importer *imp, trak_track_kind_id kind, uint32_t upid, uint32_t name) {
  trak_atrace_async *a = state(imp);
  int added;
  uint32_t *slot = trak__map_put(&a->by_key, trak__track_key(kind, upid, name), 0, &added);
  if (added) {
    uint32_t s = (uint32_t)a->sets.n;
    *slot = s;
    trak_atrace_set set = {0, TRAK_NULL_U32, s, upid, name, (uint8_t)kind, {NULL, 0, 0}};
    trak_vec_push(a->sets, set);
  }
  return *slot;
}

/* Appends a lane to set `s`, its track made now (as Perfetto makes it when first given out). */
static uint32_t lane_new(trak_importer *imp, uint32_t s, int64_t key) {
  trak_atrace_async *a = imp->ftrace->async;
  trak_atrace_set *set = &a->sets.v[s];
  uint32_t idx = set->n++;
  uint64_t tk =
      trak__track_key((trak_track_kind_id)set->kind, set->upid, (uint64_t)idx << 32 | set->name);
  uint32_t track = trak__keyed_track(imp, tk, set->name, set->upid, 0, set->kind);
  imp->tracks.info.v[track].lane = idx;
  imp->tracks.info.v[track].group = set->group + 1;
  uint32_t l = (uint32_t)a->lanes.n;
  trak_vec_push(a->lanes, ((trak_atrace_lane){key, 0, track, s, 0, 0, 0}));
  return l;
}

/* The idle heap of a set (lane indexes, least on top). */
static void idle_push(trak_atrace_set *set, uint32_t lane) {
  trak_vec_push(set->idle, lane);
  size_t i = set->idle.n - 1;
  while (i > 0 && set->idle.v[(i - 1) / 2] > set->idle.v[i]) {
    uint32_t t = set->idle.v[i];
    set->idle.v[i] = set->idle.v[(i - 1) / 2];
    set->idle.v[(i - 1) / 2] = t;
    i = (i - 1) / 2;
  }
}

static void idle_pop(trak_atrace_set *set) {
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
static trak_atrace_lane *cookie_lane(trak_importer *imp, uint32_t s, int64_t cookie) {
  trak_atrace_async *a = imp->ftrace->async;
  int added;
  uint32_t *slot = trak__map_put(&a->by_cookie, trak__mix(s, (uint64_t)cookie), 0, &added);
  if (!added) {
    trak_atrace_lane *ln = &a->lanes.v[*slot];
    if (ln->key == cookie && ln->set == s) return ln; /* else adopted by another cookie since */
  }
  trak_atrace_set *set = &a->sets.v[s];
  while (set->idle.n && a->lanes.v[set->idle.v[0]].nest)
    idle_pop(set); /* stale: busy since */
  uint32_t l;
  if (set->idle.n) { /* adopted; it stays in the heap while it has no begin open */
    l = set->idle.v[0];
    a->lanes.v[l].key = cookie;
  } else {
    l = lane_new(imp, s, cookie);
    a = imp->ftrace->async;
    idle_push(&a->sets.v[s], l); /* no begin open yet */
  }
  *trak__map_put(&a->by_cookie, trak__mix(s, (uint64_t)cookie), 0, &added) = l;
  return &a->lanes.v[l];
}

/* A begin (+1; `saturate`: the count becomes 1) or end (-1) on cookie lane `ln`; an end that
** leaves it with no begin open puts it back in its set's idle heap. */
static void lane_nest(trak_importer *imp, trak_atrace_lane *ln, int delta, int saturate) {
  if (delta > 0) {
    ln->nest = saturate ? 1 : ln->nest + 1;
    return;
  }
  if (!ln->nest) return;
  if (--ln->nest == 0) {
    trak_atrace_async *a = imp->ftrace->async;
    idle_push(&a->sets.v[ln->set], (uint32_t)(ln - a->lanes.v));
  }
}

/* The lane of an instant at `ts` in set `s`: the instant lane whose last instant ended by `ts`
** (Perfetto's first such; markers come in timestamp order, so its one instant lane always has),
** made on first use. */
static trak_atrace_lane *instant_lane(trak_importer *imp, uint32_t s, int64_t ts) {
  trak_atrace_async *a = imp->ftrace->async;
  if (a->sets.v[s].instant == TRAK_NULL_U32) {
    uint32_t l = lane_new(imp, s, ts);
    a = imp->ftrace->async;
    a->sets.v[s].instant = l;
  }
  trak_atrace_lane *ln = &a->lanes.v[a->sets.v[s].instant];
  ln->key = ts;
  return ln;
}

/* An arg set of one unsigned arg. */
static uint32_t one_uint(trak_importer *imp, uint32_t key, uint64_t v) {
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_uint(imp, set, key, v);
  return trak__args_share(imp, set);
}

/* S and F: a legacy unnestable slice of the process's set named by the marker. */
static void start_finish(trak_importer *imp, int64_t ts, const trak_atrace_marker *m,
                         uint32_t name) {
  trak_atrace_async *a = state(imp);
  uint32_t upid = trak__process_for_pid(imp, m->tgid);
  uint32_t s = set_get(imp, TRAK_TK_ATRACE_ASYNC_SLICE, upid, name);
  trak_atrace_lane *ln = cookie_lane(imp, s, m->value);
  uint32_t set;
  if (m->phase == 'S') {
    lane_nest(imp, ln, 1, 1);
    ln->begins++;
    ln->last_begin = ts;
    if (ln->open) return; /* the open slice stays; only the begin is counted */
    ln->open = 1;
    set = trak__ftrace_args_begin(imp);
    trak__ftrace_arg_int(imp, set, a->k_cookie, m->value);
    trak__ftrace_slice_ev(imp, ts, TRAK_EV_BEGIN, ln->track, name, 0, trak__args_share(imp, set));
    return;
  }
  lane_nest(imp, ln, -1, 0);
  set = TRAK_NULL_U32;
  if (ln->open) { /* the end gives the slice the lane's begin count and last begin */
    ln->open = 0;
    set = trak__ftrace_args_begin(imp);
    trak__ftrace_arg_int(imp, set, a->k_count, ln->begins);
    trak__ftrace_arg_int(imp, set, a->k_last_ts, ln->last_begin);
    set = trak__args_share(imp, set);
  }
  trak__ftrace_slice_ev(imp, ts, TRAK_EV_END, ln->track, 0, 0, set);
}

void trak__atrace_async(trak_importer *imp, int64_t ts, uint32_t tid, int64_t tgid,
                        const trak_atrace_marker *m) {
  trak_atrace_async *a = state(imp);
  uint32_t name =
      m->name.len ? trak__strpool_intern(&imp->tables->strings, m->name.s, m->name.len) : 0;
  if (m->phase == 'S' || m->phase == 'F') {
    start_finish(imp, ts, m, name);
    return;
  }
  uint32_t track_name = trak__strpool_intern(&imp->tables->strings, m->track.s, m->track.len);
  static const char device_state[] = "DeviceStateChanged";
  if (m->phase == 'N' && m->track.len == sizeof device_state - 1 &&
      memcmp(m->track.s, device_state, m->track.len) == 0) {
    /* promoted to a global track of its own, as Perfetto does */
    uint64_t key = trak__track_key(TRAK_TK_ANDROID_DEVICE_STATE, 0, 0);
    uint32_t track =
        trak__keyed_track(imp, key, track_name, TRAK_NULL_U32, 0, TRAK_TK_ANDROID_DEVICE_STATE);
    trak__ftrace_slice_ev(imp, ts, TRAK_EV_INSTANT, track, name, 0, TRAK_NULL_U32);
    return;
  }
  uint32_t upid = trak__process_for_pid(imp, m->tgid);
  uint32_t s = set_get(imp, TRAK_TK_ATRACE_ASYNC_SLICE_FOR_TRACK, upid, track_name);
  trak_atrace_lane *ln = m->phase == 'N' ? instant_lane(imp, s, ts) : cookie_lane(imp, s, m->value);
  /* the writer's thread, made after the process and the track, as Perfetto makes them */
  uint32_t writer_utid = trak__atrace_writer(imp, tid, tgid, 0);
  if (m->phase == 'N') {
    trak__ftrace_slice_ev(imp, ts, TRAK_EV_INSTANT, ln->track, name, 0,
                          one_uint(imp, a->k_utid, writer_utid));
  } else if (m->phase == 'G') {
    ln->nest++;
    trak__ftrace_slice_ev(imp, ts, TRAK_EV_BEGIN, ln->track, name, 0,
                          one_uint(imp, a->k_utid, writer_utid));
  } else { /* 'H' */
    lane_nest(imp, ln, -1, 0);
    trak__ftrace_slice_ev(imp, ts, TRAK_EV_END, ln->track, 0, 0,
                          one_uint(imp, a->k_end_utid, writer_utid));
  }
}

void trak__atrace_async_free(trak_ftrace *f) {
  if (!f->async) return;
  trak__map_free(&f->async->by_key);
  trak__map_free(&f->async->by_cookie);
  for (size_t i = 0; i < f->async->sets.n; i++)
    trak_vec_free(f->async->sets.v[i].idle);
  trak_vec_free(f->async->sets);
  trak_vec_free(f->async->lanes);
  free(f->async);
  f->async = NULL;
}
