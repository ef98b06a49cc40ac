/*
** libFuzzer target for the CompactSched decoder (src/processor/util/compact_sched.c): the input
** is one FtraceEventBundle.CompactSched message; both event walks run to their end, every comm
** returned must lie inside the input, and nothing may crash, leak or read out of bounds.
*/
#include <stdint.h>
#include <stdlib.h>

#include "processor/util/compact_sched.h"

static void check_inside(trak_strv v, const uint8_t *data, size_t size) {
  if (v.len && ((const uint8_t *)v.s < data || (const uint8_t *)v.s + v.len > data + size))
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  trak_compact_sched cs;
  if (trak__compact_sched_open(&cs, data, size)) return 0;
  trak_compact_iter it;
  trak_compact_switch sw;
  trak_compact_waking wk;
  trak__compact_switch_begin(&it, &cs);
  while (trak__compact_switch_next(&it, &sw)) check_inside(sw.next_comm, data, size);
  if (trak__compact_iter_bad(&it) > 1) abort();
  trak__compact_waking_begin(&it, &cs);
  while (trak__compact_waking_next(&it, &wk)) {
    check_inside(wk.comm, data, size);
    if (!wk.has_common_flags && wk.common_flags) abort();
  }
  trak__compact_sched_close(&cs);
  return 0;
}
