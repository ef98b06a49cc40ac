/*
** This file holds clock conversion: ClockSnapshot packets relate other clocks (MONOTONIC, TSC,
** writer-defined sequence-scoped clocks 64..127, incremental clocks) to the trace clock
** (BOOTTIME unless a snapshot names another primary_trace_clock), and timestamps written in
** those clocks are converted with the latest snapshot taken at or before them.
*/
#include "processor/import/import.h"

#define SEQUENCE_CLOCK_MIN 64
#define SEQUENCE_CLOCK_MAX 127

static uint64_t clock_key(const trak_sequence *seq, uint32_t clock_id) {
  if (clock_id >= SEQUENCE_CLOCK_MIN && clock_id <= SEQUENCE_CLOCK_MAX)
    return (uint64_t)seq->id << 32 | clock_id;
  return clock_id;
}

static trak_clock *clock_get(trak_importer *imp, uint64_t key, int create) {
  uint32_t *slot = trak__map_get(&imp->clock_index, key);
  if (slot) return &imp->clocks.v[*slot];
  if (!create) return NULL;
  int added;
  *trak__map_put(&imp->clock_index, key, (uint32_t)imp->clocks.n, &added) = (uint32_t)imp->clocks.n;
  trak_clock c = {.key = key, .multiplier = 1};
  trak_vec_push(imp->clocks, c);
  return &imp->clocks.v[imp->clocks.n - 1];
}

typedef struct snapshot_clock {
  uint32_t id;
  uint64_t ts, multiplier;
  int incremental;
} snapshot_clock;

void trak__clock_snapshot_add(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                              size_t len) {
  snapshot_clock clocks[32];
  size_t n = 0;
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_ClockSnapshot_primary_trace_clock && f.wire_type == TRAK_PB_WIRE_VARINT)
      imp->trace_clock = (uint32_t)f.value;
    if (f.number != TRAK_PB_ClockSnapshot_clocks || f.wire_type != TRAK_PB_WIRE_LEN || n == 32)
      continue;
    snapshot_clock c = {.multiplier = 1};
    trak__dec_init(imp, &sub, f.data, f.len);
    while (trak_pb_decoder_next(&sub, &g) > 0) {
      if (g.wire_type != TRAK_PB_WIRE_VARINT) continue;
      if (g.number == TRAK_PB_ClockSnapshot_Clock_clock_id)
        c.id = (uint32_t)g.value;
      else if (g.number == TRAK_PB_ClockSnapshot_Clock_timestamp)
        c.ts = g.value;
      else if (g.number == TRAK_PB_ClockSnapshot_Clock_is_incremental)
        c.incremental = g.value != 0;
      else if (g.number == TRAK_PB_ClockSnapshot_Clock_unit_multiplier_ns && g.value)
        c.multiplier = g.value;
    }
    clocks[n++] = c;
  }
  trak__meta_clock_seen(imp);
  const snapshot_clock *trace = NULL;
  for (size_t i = 0; i < n; i++)
    if (clocks[i].id == imp->trace_clock) trace = &clocks[i];
  if (!trace) {
    /* Nothing relates these clocks to the trace clock, but they are known now: a timestamp in
    ** one fails as Perfetto's "no path", not as an unknown clock. */
    for (size_t i = 0; i < n; i++)
      clock_get(imp, clock_key(seq, clocks[i].id), 1);
    return;
  }
  int64_t trace_ns = (int64_t)(trace->ts * trace->multiplier);
  for (size_t i = 0; i < n; i++) {
    if (&clocks[i] == trace) continue;
    trak_clock *c = clock_get(imp, clock_key(seq, clocks[i].id), 1);
    c->multiplier = clocks[i].multiplier;
    c->incremental = (uint8_t)clocks[i].incremental;
    c->last = (int64_t)clocks[i].ts;
    trak_clock_pair pair = {(int64_t)(clocks[i].ts * clocks[i].multiplier), trace_ns};
    trak_vec_push(c->pairs, pair);
  }
}

int trak__clock_convert(trak_importer *imp, trak_sequence *seq, uint32_t clock_id, int64_t ts,
                        int64_t *out) {
  if (clock_id == imp->trace_clock) {
    *out = ts;
    return 0;
  }
  trak_clock *c = clock_get(imp, clock_key(seq, clock_id), 0);
  if (!c || !c->pairs.n) {
    if (!out) return -1;        /* trak__clock_try_convert: no report */
    if (!imp->at_eof) return 1; /* a later snapshot may relate it: retried at the end */
    /* Perfetto's names: the reason, and the packet lost for it (each packet counts both). */
    imp->stats[c ? TRAK_STAT_CLOCK_NO_PATH : TRAK_STAT_CLOCK_UNKNOWN_SOURCE]++;
    trak__report(imp, TRAK_STAT_CLOCK_UNDEFERRABLE,
                 c ? "timestamp in clock %u, which no clock snapshot relates to the trace "
                     "clock %u; packet dropped"
                   : "timestamp in clock %u, which no clock snapshot has (the trace clock is "
                     "%u); packet dropped",
                 clock_id, imp->trace_clock);
    return -1;
  }
  if (c->incremental) {
    c->last = trak__wadd(c->last, ts);
    ts = c->last;
  }
  int64_t ns = trak__wmul(ts, (int64_t)c->multiplier);
  /* The latest pair at or before ns (pairs are appended in snapshot order); else the first. */
  size_t lo = 0, hi = c->pairs.n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (c->pairs.v[mid].src <= ns)
      lo = mid + 1;
    else
      hi = mid;
  }
  const trak_clock_pair *p = &c->pairs.v[lo ? lo - 1 : 0];
  *out = trak__wadd(p->dst, trak__wsub(ns, p->src));
  return 0;
}

int64_t trak__clock_try_convert(trak_importer *imp, trak_sequence *seq, uint32_t clock_id,
                                int64_t ts) {
  int64_t out = ts;
  trak_clock *c = clock_id == imp->trace_clock ? NULL : clock_get(imp, clock_key(seq, clock_id), 0);
  if (c && c->pairs.n && !c->incremental) trak__clock_convert(imp, seq, clock_id, ts, &out);
  return out;
}
