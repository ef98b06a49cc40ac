/*
** libFuzzer target for the CompactSched decoder (src/processor/util/compact_sched.c): the input
** is one FtraceEventBundle.CompactSched message; both event walks run to their end, every comm
** returned must lie inside the input, every field must be the element of its array that
** trak_pb_packed_next reads (the walk reads short varints itself), the batch walk
** (trak__compact_batch_next, in batches of a size taken from the input) must give the very events
** of the per-event walk, and nothing may crash, leak or read out of bounds.
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

/* The batch walk of one kind of cs's events, `max` at a time, must give the per-event walk's. */
static void batch_check(const trak_compact_sched *cs, const uint8_t *data, int waking, size_t max) {
  trak_compact_cols cols;
  trak__compact_cols_of(cs, data, waking, &cols);
  trak_compact_batch bw;
  trak__compact_batch_begin(&bw, data, &cols, waking);
  trak_compact_iter it;
  if (waking)
    trak__compact_waking_begin(&it, cs);
  else
    trak__compact_switch_begin(&it, cs);
  static trak_compact_rows rows;
  trak_compact_switch s, sb;
  trak_compact_waking w, wb;
  for (size_t n; (n = trak__compact_batch_next(&bw, &rows, max));) {
    if (n > max) abort();
    for (size_t i = 0; i < n; i++) {
      const uint64_t *v[6] = {&rows.v[0][i], &rows.v[1][i], &rows.v[2][i],
                              &rows.v[3][i], &rows.v[4][i], &rows.v[5][i]};
      if (!waking) {
        trak__compact_switch_set(&sb, *v[0], *v[1], *v[2], *v[3], *v[4]);
        if (!trak__compact_switch_next(&it, &s) || s.ts != sb.ts ||
            s.prev_state != sb.prev_state || s.next_pid != sb.next_pid ||
            s.next_prio != sb.next_prio || s.next_comm_index != sb.next_comm_index)
          abort();
      } else {
        trak__compact_waking_set(&wb, *v[0], *v[1], *v[2], *v[3], *v[4], i < rows.n_flags, *v[5]);
        if (!trak__compact_waking_next(&it, &w) || w.ts != wb.ts || w.pid != wb.pid ||
            w.target_cpu != wb.target_cpu || w.prio != wb.prio || w.comm_index != wb.comm_index ||
            w.has_common_flags != wb.has_common_flags || w.common_flags != wb.common_flags)
          abort();
      }
    }
  }
  if (waking ? trak__compact_waking_next(&it, &w) : trak__compact_switch_next(&it, &s)) abort();
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
  size_t max = size % TRAK_COMPACT_BATCH + 1;
  batch_check(&cs, data, 0, max);
  batch_check(&cs, data, 1, max);
  trak__compact_sched_close(&cs);
  return 0;
}
