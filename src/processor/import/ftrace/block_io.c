/*
** This file holds block device requests as slices: block_io_start begins a "block_io" slice on
** its device's track and block_io_done ends it, as Perfetto's ftrace parser pairs them (a stack
** per device, arg sector). block_rq_* events stay ftrace_event rows only, as there.
*/
#include "processor/import/ftrace/ftrace_internal.h"

/* The track of block device `dev` on the current machine, made on first use: type block_io,
** no name, dimension block_device, a counter track (Perfetto declares it with a counter
** blueprint, so counter_track lists it though it holds slices). Can't fail. */
static uint32_t device_track(trak_importer *imp, uint64_t dev) {
  uint64_t key = trak__track_key(TRAK_TK_BLOCK_IO, imp->threads.machine, dev);
  uint32_t *known = trak__map_get(&imp->tracks.by_uuid, key | 1ULL << 63);
  if (known) return *known;
  uint32_t track = trak__keyed_track(imp, key, 0, TRAK_NULL_U32, 1, TRAK_TK_BLOCK_IO);
  imp->tracks.info.v[track].dim_int = (int64_t)dev;
  imp->tracks.info.v[track].machine = imp->threads.machine;
  return track;
}

/* A begin or end (`type`) on `dev`'s track with arg sector. */
static void block_io_ev(trak_importer *imp, int64_t ts, uint32_t type, uint64_t dev,
                        uint64_t sector) {
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "sector"), sector);
  trak__ftrace_slice_ev(imp, ts, type, device_track(imp, dev), trak__ftrace_str(imp, "block_io"),
                        0, trak__args_share(imp, set));
}

void trak__block_io_start(trak_importer *imp, int64_t ts, uint64_t dev, uint64_t sector) {
  block_io_ev(imp, ts, TRAK_EV_BEGIN, dev, sector);
}

void trak__block_io_done(trak_importer *imp, int64_t ts, uint64_t dev, uint64_t sector) {
  block_io_ev(imp, ts, TRAK_EV_END, dev, sector);
}
