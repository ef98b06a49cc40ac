/*
** This file holds page reclaim as slices on the reclaiming thread's track, as Perfetto's ftrace
** parser makes them: direct reclaim (mm_vmscan_direct_reclaim_begin/end) and slab shrinking
** (mm_shrink_slab_start/end), each with its event's args.
*/
#include "processor/import/ftrace/ftrace_internal.h"

void trak__direct_reclaim_begin(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                                int64_t order, int64_t may_writepage, uint64_t gfp_flags) {
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "direct_reclaim_order"), order);
  trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "direct_reclaim_may_writepage"),
                       may_writepage);
  trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "direct_reclaim_gfp_flags"), gfp_flags);
  trak__thread_slice(imp, cpu, ts, tid, TRAK_EV_BEGIN,
                     trak__ftrace_str(imp, "mm_vmscan_direct_reclaim"), trak__args_share(imp, set));
}

void trak__direct_reclaim_end(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                              uint64_t nr_reclaimed) {
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "direct_reclaim_nr_reclaimed"),
                        nr_reclaimed);
  trak__thread_slice(imp, cpu, ts, tid, TRAK_EV_END, 0, trak__args_share(imp, set));
}

void trak__shrink_slab_start(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                             uint32_t shrink_name, uint64_t total_scan, int64_t priority) {
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_str(imp, set, trak__ftrace_str(imp, "shrink_name"), shrink_name);
  trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "total_scan"), total_scan);
  trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "priority"), priority);
  trak__thread_slice(imp, cpu, ts, tid, TRAK_EV_BEGIN,
                     trak__ftrace_str(imp, "mm_vmscan_shrink_slab"), trak__args_share(imp, set));
}

void trak__shrink_slab_end(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                           int64_t retval) {
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "freed"), retval);
  trak__thread_slice(imp, cpu, ts, tid, TRAK_EV_END, 0, trak__args_share(imp, set));
}
