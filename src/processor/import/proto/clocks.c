/*
** This file holds clock conversion: ClockSnapshot packets relate other clocks (MONOTONIC, TSC,
** writer-defined sequence-scoped clocks 64..127, incremental clocks) to the trace clock
** (BOOTTIME unless a snapshot names another primary_trace_clock), and timestamps written in
** those clocks are converted with the latest snapshot taken at or before them. A snapshot
** without the trace clock relates its clocks to one of its other clocks, converted in turn
** (Perfetto's SDK on CLOCK_MONOTONIC snapshots its sequence clock with MONOTONIC only, and the
** service relates MONOTONIC to BOOTTIME).
*/
#include "processor/import/proto/proto.h"

#define SEQUENCE_CLOCK_MIN 64
#define SEQUENCE_CLOCK_MAX 127

uint64_t trak__clock_key(const trak_sequence *seq, uint32_t clock_id) {
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

/* For a snapshot without the trace clock: the clock its other clocks are related to, one an
** earlier snapshot relates to the trace clock if there is one, else the first one that is not
** incremental (a later snapshot may relate it); NULL when there is none. */
static const snapshot_clock *via_clock(trak_importer *imp, const trak_sequence *seq,
                                       const snapshot_clock *clocks, size_t n) {
  const snapshot_clock *first = NULL;
  for (size_t i = 0; i < n && n > 1; i++) {
    if (clocks[i].incremental) continue;
    const trak_clock *c = clock_get(imp, trak__clock_key(seq, clocks[i].id), 0);
    if (c && c->pairs.n && !c->has_via) return &clocks[i];
    if (!first) first = &clocks[i];
  }
  return first;
}

void trak__clock_snapshot_add(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                              size_t len) {
  snapshot_clock clocks[32];
  size_t n = 0;
  uint32_t primary = 0;
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_ClockSnapshot_primary_trace_clock && f.wire_type == TRAK_PB_WIRE_VARINT)
      imp->trace_clock = primary = (uint32_t)f.value;
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
  trak__remote_clock_snapshot_seen(imp);
  trak_clock_cache_clock cc[32];
  for (size_t i = 0; i < n; i++)
    cc[i] = (trak_clock_cache_clock){trak__clock_key(seq, clocks[i].id), (int64_t)clocks[i].ts,
                                     (int64_t)clocks[i].multiplier, (uint8_t)clocks[i].incremental};
  trak__clock_cache_snapshot(imp, cc, n, primary);
  const snapshot_clock *trace = NULL;
  for (size_t i = 0; i < n; i++)
    if (clocks[i].id == imp->trace_clock) trace = &clocks[i];
  int has_via = !trace;
  if (!trace) trace = via_clock(imp, seq, clocks, n);
  if (!trace || has_via) {
    /* Known now, even when nothing relates them to the trace clock yet: a timestamp in one
    ** that stays unconvertible fails as Perfetto's "no path", not as an unknown clock. */
    for (size_t i = 0; i < n; i++)
      clock_get(imp, trak__clock_key(seq, clocks[i].id), 1);
    if (!trace) return;
  }
  uint64_t via = trak__clock_key(seq, trace->id);
  int64_t trace_ns = (int64_t)(trace->ts * trace->multiplier);
  for (size_t i = 0; i < n; i++) {
    if (&clocks[i] == trace) continue;
    trak_clock *c = clock_get(imp, trak__clock_key(seq, clocks[i].id), 1);
    if (has_via && c->pairs.n && !c->has_via) continue; /* keeps its own way to the trace clock */
    if (c->has_via != has_via || (has_via && c->via != via)) /* pairs lead elsewhere now */
      c->pairs.n = 0, c->has_via = (uint8_t)has_via, c->via = via;
    c->multiplier = clocks[i].multiplier;
    c->incremental = (uint8_t)clocks[i].incremental;
    c->last = (int64_t)clocks[i].ts;
    trak_clock_pair pair = {(int64_t)(clocks[i].ts * clocks[i].multiplier), trace_ns};
    trak_vec_push(c->pairs, pair);
  }
}

/* The value in the target clock of `c`'s pairs of ns (in c), from the latest pair at or before
** it (pairs are appended in snapshot order), else the first. */
static int64_t pairs_convert(const trak_clock *c, int64_t ns) {
  size_t lo = 0, hi = c->pairs.n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (c->pairs.v[mid].src <= ns)
      lo = mid + 1;
    else
      hi = mid;
  }
  const trak_clock_pair *p = &c->pairs.v[lo ? lo - 1 : 0];
  return trak__wadd(p->dst, trak__wsub(ns, p->src));
}

/* Whether the clocks `via` of `c` lead to the trace clock (at most a few hops: no cycles). */
static int via_ready(trak_importer *imp, const trak_clock *c) {
  for (int hops = 0; hops < 4 && c->has_via; hops++) {
    c = clock_get(imp, c->via, 0);
    if (!c || !c->pairs.n || c->incremental) return 0;
  }
  return !c->has_via;
}

/* Follows the clocks `via` of `c` from *ns (in c's target clock) to the trace clock, as
** Perfetto's clock tracker follows a path of snapshots (via_ready said the path is whole). */
__attribute__((cold, noinline)) static void via_convert(trak_importer *imp, const trak_clock *c,
                                                        int64_t *ns) {
  while (c->has_via) {
    c = clock_get(imp, c->via, 0);
    *ns = pairs_convert(c, *ns);
  }
}

__attribute__((cold, noinline)) int trak__clock_unconvertible(trak_importer *imp, int known,
                                                               int may_defer, uint32_t clock_id,
                                                               int64_t *out) {
  if (!out) return -1; /* trak__clock_try_convert: no report */
  if (may_defer && !imp->at_eof) return 1; /* a later snapshot may relate it: retried at the end */
  /* Perfetto's names: the reason, and the packet lost for it (each packet counts both). */
  imp->stats[known ? TRAK_STAT_CLOCK_NO_PATH : TRAK_STAT_CLOCK_UNKNOWN_SOURCE]++;
  trak__report(imp, TRAK_STAT_CLOCK_UNDEFERRABLE,
               known ? "timestamp in clock %u, which no clock snapshot relates to the trace "
                       "clock %u; packet dropped"
                     : "timestamp in clock %u, which no clock snapshot has (the trace clock is "
                       "%u); packet dropped",
               clock_id, imp->trace_clock);
  return -1;
}

int trak__clock_convert_other(trak_importer *imp, trak_sequence *seq, uint32_t clock_id, int64_t ts,
                              int64_t *out) {
  trak_clock *c = clock_get(imp, trak__clock_key(seq, clock_id), 0);
  if (!c || !c->pairs.n || (TRAK_UNLIKELY(c->has_via) && !via_ready(imp, c)))
    return trak__clock_unconvertible(imp, c != NULL, 1, clock_id, out);
  if (c->incremental) {
    c->last = trak__wadd(c->last, ts);
    ts = c->last;
  }
  *out = pairs_convert(c, trak__wmul(ts, (int64_t)c->multiplier));
  if (TRAK_UNLIKELY(c->has_via)) via_convert(imp, c, out);
  return 0;
}

int trak__clock_related(trak_importer *imp, trak_sequence *seq, uint32_t clock_id) {
  if (clock_id == imp->trace_clock) return 1;
  const trak_clock *c = clock_get(imp, trak__clock_key(seq, clock_id), 0);
  return c && c->pairs.n && (!c->has_via || via_ready(imp, c));
}

int64_t trak__clock_try_convert(trak_importer *imp, trak_sequence *seq, uint32_t clock_id,
                                int64_t ts) {
  int64_t out = ts;
  trak__clock_cache_note(imp, trak__clock_key(seq, clock_id), ts);
  trak_clock *c =
      clock_id == imp->trace_clock ? NULL : clock_get(imp, trak__clock_key(seq, clock_id), 0);
  if (c && c->pairs.n && !c->incremental) trak__clock_convert(imp, seq, clock_id, ts, &out);
  return out;
}
