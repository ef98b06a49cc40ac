/*
** libFuzzer target for the CompactSched decoder (src/processor/util/compact_sched.c): the input
** is one FtraceEventBundle.CompactSched message; both event walks run to their end, every comm
** returned must lie inside the input, every field must be the element of its array that
** trak_pb_packed_next reads (the walk reads short varints itself), and nothing may crash, leak or
** read out of bounds.
*/
#include <stdint.h>
#include <stdlib.h>

#include "processor/util/compact_sched.h"
#include "trak/protos.h"

static void check_inside(trak_strv v, const uint8_t *data, size_t size) {
  if (v.len && ((const uint8_t *)v.s < data || (const uint8_t *)v.s + v.len > data + size)) abort();
}

/* Element i of array `field` as trak_pb_packed_next reads it (the walk gave it: it exists). */
static uint64_t element(const trak_compact_sched *cs, uint32_t field, size_t i) {
  trak_pb_field f = cs->arrays[field];
  trak_pb_packed pk;
  uint64_t v = 0;
  if (f.wire_type != TRAK_PB_WIRE_LEN || !f.data) abort();
  trak_pb_packed_init(&pk, &f, TRAK_PB_WIRE_VARINT);
  for (size_t k = 0; k <= i; k++)
    if (trak_pb_packed_next(&pk, &v) != 1) abort();
  return v;
}

/* What a walk gave, as trak__compact_count tells it. */
static void seen_add(trak_compact_count *c, int64_t ts) {
  if (c->n && ts < c->last) c->sorted = 0;
  if (!c->n) c->first = ts;
  c->last = ts;
  c->n++;
}

/* A count (when `counted`) must be what the walk gave, and the walk not bad. */
static void count_check(int counted, const trak_compact_count *c, const trak_compact_count *seen,
                        const trak_compact_iter *it) {
  if (!counted) return;
  if (trak__compact_iter_bad(it) || c->n != seen->n || c->sorted != seen->sorted) abort();
  if (c->n && (c->first != seen->first || c->last != seen->last)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  trak_compact_sched cs;
  if (trak__compact_sched_open(&cs, data, size)) return 0;
  trak_compact_iter it;
  trak_compact_switch sw;
  trak_compact_waking wk;
  trak_compact_count count[2];
  int counted[2] = {trak__compact_count(&cs, 0, &count[0]), trak__compact_count(&cs, 1, &count[1])};
  trak_compact_count seen[2] = {{0, 0, 0, 1}, {0, 0, 0, 1}};
  trak__compact_switch_begin(&it, &cs);
  int64_t ts = 0;
  for (size_t i = 0; trak__compact_switch_next(&it, &sw); i++) {
    check_inside(sw.next_comm, data, size);
    seen_add(&seen[0], sw.ts);
    ts = (int64_t)((uint64_t)ts +
                   element(&cs, TRAK_PB_FtraceEventBundle_CompactSched_switch_timestamp, i));
    if (sw.ts != ts ||
        sw.next_pid !=
            (int32_t)element(&cs, TRAK_PB_FtraceEventBundle_CompactSched_switch_next_pid, i) ||
        sw.next_comm_index !=
            (uint32_t)element(&cs, TRAK_PB_FtraceEventBundle_CompactSched_switch_next_comm_index,
                              i))
      abort();
  }
  if (trak__compact_iter_bad(&it) > 1) abort();
  count_check(counted[0], &count[0], &seen[0], &it);
  trak__compact_waking_begin(&it, &cs);
  for (size_t i = 0; trak__compact_waking_next(&it, &wk); i++) {
    check_inside(wk.comm, data, size);
    seen_add(&seen[1], wk.ts);
    if (wk.pid != (int32_t)element(&cs, TRAK_PB_FtraceEventBundle_CompactSched_waking_pid, i) ||
        wk.prio !=
            (uint16_t)(int32_t)element(&cs, TRAK_PB_FtraceEventBundle_CompactSched_waking_prio, i))
      abort();
    if (!wk.has_common_flags && wk.common_flags) abort();
  }
  count_check(counted[1], &count[1], &seen[1], &it);
  trak__compact_sched_close(&cs);
  return 0;
}
