/*
** This file holds the stack discipline of slices (of JSON and protobuf traces alike), as
** Perfetto's slice tracker applies it: which open slices a new slice or an end closes, how an
** end finds its begin (by name and category), and where a complete (X) event goes that partly
** overlaps a slice of its thread: onto one of the thread's overflow tracks
** ("thread_overlapping_slice"), lanes on which such slices nest or follow each other. Each
** spill is also a row of _trace_import_logs with the overlap's details as args.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/slice_stack.h"
#include "processor/tables/arg_value.h"

int trak__stack_walk(trak_importer *imp, uint32_t track, const trak_ev *ev, int64_t dur,
                     trak_overlap *overlap) {
  trak_tables *t = imp->tables;
  trak_track_info *info = &imp->tracks.info.v[track];
  int64_t ts = ev->ts;
  int under_open = 0; /* a slice still open (dur -1) lies above the one looked at */
  /* The slices under open_only are open: walking them would only set under_open, which
  ** matters to none of them. `kept`: the lowest slice with a duration the walk leaves. */
  size_t kept = SIZE_MAX, low = trak__open_prefix(info);
  for (size_t i = info->open_depth; i-- > low;) {
    uint32_t s = (uint32_t)info->open[i];
    int64_t sdur = t->slice.dur[s];
    if (sdur < 0) {
      under_open = 1;
      continue;
    }
    int64_t end = trak__slice_end_ts(t, s);
    if (under_open) {
      /* A complete slice ended under a slice still open above it: the open ones are cut at
      ** its end (Perfetto's misplaced_end_event) and leave the stack with it. */
      if (ts <= end) {
        kept = i;
        continue;
      }
      const char *open = trak__str(&t->strings, t->slice.name[(uint32_t)info->open[i + 1]]);
      trak__report_at(imp, TRAK_STAT_MISPLACED_END, ev->pkt,
                      "slice \"%s\" is still open at %lld, after the complete slice it began "
                      "in ended at %lld; it is cut there",
                      open ? open : "", (long long)ts, (long long)end);
      while (info->open_depth > i + 1) {
        uint32_t child = (uint32_t)info->open[info->open_depth - 1];
        t->slice.dur[child] = trak__wsub(end, t->slice.ts[child]);
        trak__stack_pop(imp, info);
      }
      trak__stack_pop(imp, info);
      under_open = 0;
      continue;
    }
    /* Closed on the left, open on the right: a slice ending at ts leaves the stack, except
    ** that instants at the same timestamp stack on each other. */
    if (end < ts || (end == ts && !(sdur == 0 && dur == 0))) {
      trak__stack_pop(imp, info); /* the top, which is this slice unless one kept lies above */
      if (i < info->open_depth) kept = i;
      continue;
    }
    kept = i;
    if (trak__stack_overlap(t, s, end, ts, dur, overlap)) return 0;
  }
  /* Those kept that a later cut popped are past the depth now; what is under the lowest one
  ** left is open. */
  if (kept > info->open_depth) kept = info->open_depth;
  trak__open_prefix_set(info, kept);
  info->closed_on_stack = kept < info->open_depth;
  return 1;
}

uint32_t trak__stack_end_below(trak_importer *imp, uint32_t track, const trak_ev *ev) {
  trak_tables *t = imp->tables;
  trak_track_info *info = &imp->tracks.info.v[track];
  uint32_t name = ev->u.s.name, cat = ev->u.s.cat;
  /* The innermost open slice under the top whose category and name match (absent ones match
  ** any). An end that matches none ends nothing and is not counted, as in Perfetto. */
  for (size_t i = info->open_depth - 1; i-- > 0;) {
    uint32_t s = (uint32_t)info->open[i];
    if (t->slice.dur[s] >= 0) continue;
    if (cat && t->slice.category[s] != cat) continue;
    if (name && t->slice.name[s] && t->slice.name[s] != name) continue;
    t->slice.dur[s] = trak__wsub(ev->ts, t->slice.ts[s]);
    if (ev->arg_set_id != TRAK_NULL_U32)
      t->slice.arg_set_id[s] = trak__args_merge(imp, t->slice.arg_set_id[s], ev->arg_set_id);
    /* ended below the top: it stays, with its duration */
    info->closed_on_stack = 1;
    size_t k = trak__open_prefix(info);
    trak__open_prefix_set(info, k < i ? k : i);
    return s;
  }
  return TRAK_NULL_U32;
}

/* A new overflow lane of the thread: a thread track of its own kind (written to the track
** table with the others when the parse phase ends). */
static uint32_t lane_new(trak_importer *imp, uint32_t utid, uint32_t index) {
  uint32_t upid = imp->tracks.info.v[trak__legacy_thread_track(imp, utid)].upid;
  uint32_t lane = trak__track_new(imp, 0);
  trak_track_info *info = &imp->tracks.info.v[lane];
  info->utid = utid;
  info->upid = upid;
  info->described = info->is_thread = 1;
  info->kind = TRAK_TK_THREAD_OVERLAPPING_SLICE;
  info->lane = index;
  return lane;
}

/* Appends one string (string id) or integer row to the arg set that starts at `set`. */
static void log_arg(trak_tables *t, uint32_t set, const char *key, uint32_t str, int64_t i) {
  uint32_t k = trak__strpool_intern(&t->strings, key, strlen(key));
  uint32_t row = trak__arg_add(t, set, k, k, str ? TRAK_ARG_STRING : TRAK_ARG_INT);
  if (str)
    trak__arg_set_str(t, row, str);
  else
    trak__arg_set_int(t, row, i);
}

/* The _trace_import_logs row of a spilled complete slice, with Perfetto's args: the event's
** name and phase, the overlap and the slice it conflicts with. */
static void overlap_log(trak_importer *imp, const trak_ev *ev, const trak_overlap *overlap) {
  trak_tables *t = imp->tables;
  uint32_t set = (uint32_t)t->args.n;
  if (ev->u.s.name) log_arg(t, set, "event_name", ev->u.s.name, 0);
  log_arg(t, set, "event_phase", trak__strpool_intern(&t->strings, "X", 1), 0);
  log_arg(t, set, "overlap_start", 0, overlap->start);
  log_arg(t, set, "overlap_end", 0, overlap->end);
  if (overlap->name) log_arg(t, set, "conflicting_slice_name", overlap->name, 0);
  log_arg(t, set, "conflicting_slice_ts", 0, overlap->ts);
  log_arg(t, set, "conflicting_slice_dur", 0, overlap->dur);
  trak_vec_push(imp->import_logs,
                ((trak_import_log){ev->ts, TRAK_STAT_SPILL_OVERLAPPING_COMPLETE, set, -1}));
  trak__arg_order_log(imp, TRAK_ARG_ORDER_SET, set);
}

/* Key of a lane for the lane tree: the end of its innermost slice, INT64_MIN when empty. */
static int64_t lane_key(const trak_importer *imp, uint32_t lane) {
  const trak_track_info *info = &imp->tracks.info.v[lane];
  if (!info->open_depth) return INT64_MIN;
  return trak__slice_end_ts(imp->tables, (uint32_t)info->open[info->open_depth - 1]);
}

static void lanes_set_key(trak_lane_set *set, uint32_t lane, int64_t key) {
  uint32_t n = set->size + lane;
  set->min[n] = set->max[n] = key;
  for (n /= 2; n; n /= 2) {
    set->min[n] = set->min[2 * n] < set->min[2 * n + 1] ? set->min[2 * n] : set->min[2 * n + 1];
    set->max[n] = set->max[2 * n] > set->max[2 * n + 1] ? set->max[2 * n] : set->max[2 * n + 1];
  }
}

/* Adds a lane (key INT64_MIN) holding `track`, doubling the tree when it is full. */
static void lanes_add(trak_lane_set *set, uint32_t track) {
  if (set->n == set->size) {
    uint32_t size = set->size ? set->size * 2 : 4;
    uint32_t *tracks = malloc(size * sizeof *tracks);
    int64_t *min = malloc(2 * size * sizeof *min), *max = malloc(2 * size * sizeof *max);
    if (!tracks || !min || !max) abort(); /* as every container does */
    for (uint32_t i = 0; i < size; i++) {
      if (i < set->n) tracks[i] = set->track[i];
      min[size + i] = i < set->n ? set->min[set->size + i] : INT64_MAX;
      max[size + i] = i < set->n ? set->max[set->size + i] : INT64_MIN;
    }
    for (uint32_t n = size - 1; n; n--) {
      min[n] = min[2 * n] < min[2 * n + 1] ? min[2 * n] : min[2 * n + 1];
      max[n] = max[2 * n] > max[2 * n + 1] ? max[2 * n] : max[2 * n + 1];
    }
    free(set->track), free(set->min), free(set->max);
    set->track = tracks, set->min = min, set->max = max, set->size = size;
  }
  set->track[set->n] = track;
  lanes_set_key(set, set->n++, INT64_MIN);
}

/* The first lane whose key is <= ts or >= hi (any other partly overlaps [ts, hi)), or
** set->n if none. */
static uint32_t lanes_first_fit(const trak_lane_set *set, int64_t ts, int64_t hi) {
  if (!set->size || !(set->min[1] <= ts || set->max[1] >= hi)) return set->n;
  uint32_t n = 1;
  while (n < set->size)
    n = set->min[2 * n] <= ts || set->max[2 * n] >= hi ? 2 * n : 2 * n + 1;
  uint32_t lane = n - set->size;
  return lane < set->n ? lane : set->n;
}

uint32_t trak__spill_track(trak_importer *imp, uint32_t track, const trak_ev *ev, int64_t dur,
                           const trak_overlap *overlap) {
  const trak_tables *t = imp->tables;
  uint32_t utid = imp->tracks.info.v[track].utid;
  const char *name = trak__str(&t->strings, ev->u.s.name);
  const char *other = trak__str(&t->strings, overlap->name);
  trak__report_at(imp, TRAK_STAT_SPILL_OVERLAPPING_COMPLETE, ev->pkt,
                  "complete event \"%s\" at %lld (dur %lld) partly overlaps \"%s\" at %lld "
                  "(dur %lld) on its thread; the overlap is [%lld, %lld); it goes to an overflow "
                  "track of the thread",
                  name ? name : "", (long long)ev->ts, (long long)dur, other ? other : "",
                  (long long)overlap->ts, (long long)overlap->dur, (long long)overlap->start,
                  (long long)overlap->end);
  overlap_log(imp, ev, overlap);
  int added;
  uint32_t *slot =
      trak__map_put(&imp->slices.lane_sets, utid, (uint32_t)imp->slices.sets.n, &added);
  if (added) trak_vec_push(imp->slices.sets, ((trak_lane_set){0}));
  trak_lane_set *set = &imp->slices.sets.v[*slot];
  /* The first lane where the slice nests in the innermost open slice or follows them all:
  ** lanes whose innermost slice partly overlaps it are skipped without being visited, and
  ** each lane visited in vain has popped at least one slice, so a trace of n spills costs
  ** O(n log n), not a walk of every lane per spill. */
  int64_t hi = trak__wadd(ev->ts, dur);
  for (;;) {
    uint32_t lane = lanes_first_fit(set, ev->ts, hi);
    if (lane == set->n) lanes_add(set, lane_new(imp, utid, lane));
    uint32_t lane_track = set->track[lane];
    trak_overlap unused;
    int fits =
        trak__stack_prepare(imp, &imp->tracks.info.v[lane_track], lane_track, ev, dur, &unused);
    /* the caller pushes the slice, which becomes the lane's innermost */
    lanes_set_key(set, lane, fits ? hi : lane_key(imp, lane_track));
    if (fits) return lane_track;
  }
}

void trak__slices_free(trak_slices *s) {
  for (size_t i = 0; i < s->sets.n; i++)
    free(s->sets.v[i].track), free(s->sets.v[i].min), free(s->sets.v[i].max);
  trak_vec_free(s->sets);
  trak__map_free(&s->lane_sets);
}
