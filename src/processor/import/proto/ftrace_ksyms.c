/*
** This file resolves the kernel functions ftrace events name: with FtraceConfig.symbolize_ksyms
** a recorder writes each kernel-function field (sched_blocked_reason's caller, a workqueue's,
** hrtimer's or slab shrinker's function, the function graph tracer's func) as an iid of the sequence's InternedData.kernel_symbols;
** without it the field holds an address, and the lookup fails. It also counts the lookups
** Perfetto makes for a typed event, and which of them fail: one per kernel-function field of its
** raw row's args, one per function its parser names. Each failure is counted in
** interned_data_tokenizer_errors, as Perfetto counts it.
*/
#include <inttypes.h>
#include <stdio.h>

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
  case TRAK_PB_FtraceEvent_funcgraph_entry:
    /* Perfetto's parser names its slice by the symbol (trak makes raw rows only, but counts the
    ** lookup as Perfetto does) */
    *parsed = 1;
    return TRAK_PB_FuncgraphEntryFtraceEvent_func;
  case TRAK_PB_FtraceEvent_funcgraph_exit:
    return TRAK_PB_FuncgraphExitFtraceEvent_func;
  default:
    return 0;
  }
}

int trak__ftrace_ksyms_known(const trak_sequence *seq) {
  return seq && seq->interned[TRAK_INTERN_KERNEL_SYMBOL].n > 0;
}

uint32_t trak__ftrace_ksym(const trak_sequence *seq, uint64_t iid) {
  const uint32_t *id = seq ? trak__map_get(&seq->interned[TRAK_INTERN_KERNEL_SYMBOL], iid) : NULL;
  return id ? *id : 0;
}

uint32_t trak__ftrace_ksym_name(trak_importer *imp, const trak_sequence *seq, uint64_t key) {
  uint32_t id = trak__ftrace_ksym(seq, key);
  if (id) return id;
  char name[24];
  int n = snprintf(name, sizeof name, "%#" PRIx64, key); /* Perfetto's fallback name */
  return trak__strpool_intern(&imp->tables->strings, name, (size_t)n);
}

uint64_t trak__ftrace_ksym_parsed_key(uint32_t event, uint64_t value) {
  /* Perfetto's sched_blocked_reason parser reads the caller's iid as 32 bits */
  return event == TRAK_PB_FtraceEvent_sched_blocked_reason ? (uint32_t)value : value;
}

uint32_t trak__ftrace_ksym_count(trak_importer *imp, const trak_sequence *seq,
                                 const trak_pb_field *ev, uint32_t field, uint64_t *last) {
  uint32_t failed = 0;
  *last = 0;
  if (field && ev->wire_type == TRAK_PB_WIRE_LEN) {
    trak_pb_decoder dec;
    trak_pb_field f;
    trak__dec_init(imp, &dec, ev->data, ev->len);
    while (trak_pb_decoder_next(&dec, &f) > 0)
      if (f.number == field) {
        *last = f.value;
        if (!trak__ftrace_ksym(seq, f.value) && failed < 255) failed++;
      }
  }
  return failed;
}
