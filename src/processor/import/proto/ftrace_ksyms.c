/*
** This file counts the kernel-symbol lookups Perfetto's ftrace parser makes for a typed event:
** one per kernel function field of its raw row's args, one per function its parser names
** (sched_blocked_reason's caller, a workqueue, hrtimer or slab shrinker slice's name). trak reads no kernel
** symbols (InternedData.kernel_symbols), so each is a lookup that fails for want of them, which
** Perfetto counts in interned_data_tokenizer_errors.
*/
#include "processor/import/proto/proto.h"

uint32_t trak__ftrace_ksym_field(uint32_t event, uint32_t *parsed) {
  *parsed = 0;
  switch (event) {
  case TRAK_PB_FtraceEvent_sched_blocked_reason:
    *parsed = 1;
    return TRAK_PB_SchedBlockedReasonFtraceEvent_caller;
  case TRAK_PB_FtraceEvent_workqueue_execute_start:
    *parsed = 1;
    return TRAK_PB_WorkqueueExecuteStartFtraceEvent_function;
  case TRAK_PB_FtraceEvent_workqueue_queue_work:
  case TRAK_PB_FtraceEvent_workqueue_activate_work:
  case TRAK_PB_FtraceEvent_workqueue_execute_end:
    /* Perfetto's table names WorkqueueExecuteStart's function field for these: the same 2 */
    return TRAK_PB_WorkqueueExecuteStartFtraceEvent_function;
  case TRAK_PB_FtraceEvent_hrtimer_expire_entry:
    *parsed = 1;
    return TRAK_PB_HrtimerExpireEntryFtraceEvent_function;
  case TRAK_PB_FtraceEvent_mm_shrink_slab_start:
    *parsed = 1;
    return TRAK_PB_MmShrinkSlabStartFtraceEvent_shrink;
  default:
    return 0;
  }
}

uint32_t trak__ftrace_ksym_count(trak_importer *imp, const trak_pb_field *ev, uint32_t field) {
  uint32_t raw = 0;
  if (field && ev->wire_type == TRAK_PB_WIRE_LEN) {
    trak_pb_decoder dec;
    trak_pb_field f;
    trak__dec_init(imp, &dec, ev->data, ev->len);
    while (trak_pb_decoder_next(&dec, &f) > 0)
      if (f.number == field && raw < 255) raw++;
  }
  return raw;
}
