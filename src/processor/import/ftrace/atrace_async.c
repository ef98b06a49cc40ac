/*
** This file holds async atrace markers as Perfetto's systrace parser makes them: S/F slices on
** "atrace_async_slice" tracks (per process and name), G/H slices and N instants on
** "atrace_async_slice_for_track" tracks (per process and track name), each in the lanes of
** async_lanes.c, and N on "DeviceStateChanged" on the global "android_device_state" track. S/F
** slices do not nest ("legacy unnestable"): an S on a lane with an open slice only counts a
** begin, and the slice's end writes the lane's begin count and last begin as args.
*/
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/util/atrace_marker.h"

/* An arg set of one unsigned arg. */
static uint32_t one_uint(trak_importer *imp, uint32_t key, uint64_t v) {
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_uint(imp, set, key, v);
  return trak__args_share(imp, set);
}

/* S and F: a legacy unnestable slice of the process's set named by the marker. */
static void start_finish(trak_importer *imp, int64_t ts, const trak_atrace_marker *m,
                         uint32_t name) {
  uint32_t upid = trak__process_for_pid(imp, m->tgid);
  uint32_t s = trak__lane_set(imp, TRAK_TK_ATRACE_ASYNC_SLICE, upid, name);
  trak_clane *ln = trak__lane_for_cookie(imp, s, m->value);
  uint32_t set;
  if (m->phase == 'S') {
    trak__lane_nest(imp, ln, 1, 1);
    ln->begins++;
    ln->last_begin = ts;
    if (ln->open) return; /* the open slice stays; only the begin is counted */
    ln->open = 1;
    set = trak__ftrace_args_begin(imp);
    trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "cookie"), m->value);
    trak__ftrace_slice_ev(imp, ts, TRAK_EV_BEGIN, ln->track, name, 0, trak__args_share(imp, set));
    return;
  }
  trak__lane_nest(imp, ln, -1, 0);
  set = TRAK_NULL_U32;
  if (ln->open) { /* the end gives the slice the lane's begin count and last begin */
    ln->open = 0;
    set = trak__ftrace_args_begin(imp);
    trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "legacy_unnestable_begin_count"),
                         ln->begins);
    trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "legacy_unnestable_last_begin_ts"),
                         ln->last_begin);
    set = trak__args_share(imp, set);
  }
  trak__ftrace_slice_ev(imp, ts, TRAK_EV_END, ln->track, 0, 0, set);
}

void trak__atrace_async(trak_importer *imp, int64_t ts, uint32_t tid, int64_t tgid,
                        const trak_atrace_marker *m) {
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
  uint32_t s = trak__lane_set(imp, TRAK_TK_ATRACE_ASYNC_SLICE_FOR_TRACK, upid, track_name);
  trak_clane *ln = m->phase == 'N' ? trak__lane_for_instant(imp, s, ts)
                                   : trak__lane_for_cookie(imp, s, m->value);
  /* the writer's thread, made after the process and the track, as Perfetto makes them */
  uint32_t writer_utid = trak__atrace_writer(imp, tid, tgid, 0);
  if (m->phase == 'N') {
    trak__ftrace_slice_ev(imp, ts, TRAK_EV_INSTANT, ln->track, name, 0,
                          one_uint(imp, trak__ftrace_str(imp, "utid"), writer_utid));
  } else if (m->phase == 'G') {
    ln->nest++;
    trak__ftrace_slice_ev(imp, ts, TRAK_EV_BEGIN, ln->track, name, 0,
                          one_uint(imp, trak__ftrace_str(imp, "utid"), writer_utid));
  } else { /* 'H' */
    trak__lane_nest(imp, ln, -1, 0);
    trak__ftrace_slice_ev(imp, ts, TRAK_EV_END, ln->track, 0, 0,
                          one_uint(imp, trak__ftrace_str(imp, "end_utid"), writer_utid));
  }
}
