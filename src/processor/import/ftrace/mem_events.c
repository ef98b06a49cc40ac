/*
** This file holds the kernel's memory allocator events as Perfetto's ftrace parser reads them:
** ion_stat's heap total on the global "mem.ion" counter, the allocating thread's change on its
** "mem.ion_change" counter, and each buffer as a slice "<len / 1024> kB" on the lanes of
** "mem.ion_buffer" (type android_ion_allocations, a lane per buffer while it lives).
*/
#include <inttypes.h>
#include <stdio.h>

#include "processor/import/ftrace/ftrace_internal.h"

/* The counter track of `kind` (TRAK_TK_ION, TRAK_TK_ION_CHANGE) of the unnamed heap, for thread
** `utid` (TRAK_NULL_U32: the global one), made on first use. */
static uint32_t ion_track(trak_importer *imp, trak_track_kind_id kind, uint32_t utid) {
  uint32_t heap = trak__ftrace_str(imp, "");
  if (utid == TRAK_NULL_U32)
    return trak__system_counter_track(imp, kind, TRAK_NULL_U32, 0, heap,
                                      trak__ftrace_str(imp, "mem.ion"));
  uint64_t key = trak__track_key(kind, utid, heap);
  uint32_t *known = trak__map_get(&imp->tracks.by_uuid, key | 1ULL << 63);
  if (known) return *known;
  uint32_t track =
      trak__keyed_track(imp, key, trak__ftrace_str(imp, "mem.ion_change"), TRAK_NULL_U32, 1, kind);
  trak_track_info *info = &imp->tracks.info.v[track];
  info->is_thread = 1, info->utid = utid, info->dim_key = heap;
  info->machine = imp->tables->thread.machine_id[utid];
  return track;
}

void trak__ion_stat(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, uint32_t buffer_id,
                    int64_t len, uint64_t total) {
  trak__ftrace_ev(imp, ts, TRAK_EV_COUNTER, ion_track(imp, TRAK_TK_ION, TRAK_NULL_U32), 0,
                  (double)total);
  trak_fq_rec r = {ts, len, cpu, tid, 0, buffer_id, 0, 0, 0, TRAK_FQ_ION, 0, 0};
  trak__ftrace_cpu_seen(imp, cpu);
  trak__fq_push(imp, &r);
}

void trak__fa_ion(trak_importer *imp, const trak_fq_rec *r) {
  uint32_t utid = trak__ftrace_utid(imp, r->pid);
  trak__ftrace_ev(imp, r->ts, TRAK_EV_COUNTER, ion_track(imp, TRAK_TK_ION_CHANGE, utid), 0,
                  (double)r->x);
  uint32_t s = trak__lane_set(imp, TRAK_TK_ANDROID_ION_ALLOCATIONS, TRAK_NULL_U32,
                              trak__ftrace_str(imp, "mem.ion_buffer"));
  trak_clane *ln = trak__lane_for_cookie(imp, s, r->s1);
  uint32_t track = ln->track;
  if (r->x > 0) {
    char name[32];
    snprintf(name, sizeof name, "%" PRId64 " kB", r->x / 1024);
    trak__lane_nest(imp, ln, 1, 0);
    trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_BEGIN, track, trak__ftrace_str(imp, name), 0,
                          TRAK_NULL_U32);
  } else {
    trak__lane_nest(imp, ln, -1, 0);
    trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_END, track, 0, 0, TRAK_NULL_U32);
  }
}
