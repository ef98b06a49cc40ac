/*
** This file models Perfetto's clock synchronizer, for two things trak's own conversions
** (clocks.c) do not give: the count of `clock_sync_cache_miss` and the clock_snapshot table.
** The model has Perfetto's conversion cache (8 paths, each valid over a range of the source
** clock, a slot replaced at random by std::minstd_rand, emptied by every snapshot), fed the
** same conversions in the same (file) order: each snapshot's clocks converted to trace time
** (which gives each clock's clock_snapshot row), the zero-offset bridge of BOOTTIME to a trace
** that has no snapshot yet (trace time is then Perfetto's private trace-file clock), and every
** timestamp Perfetto converts (ftrace events, packets whose clock is named by the packet, its
** sequence's defaults or a snapshot).
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/proto/proto.h"

#define CACHE_SLOTS 8
#define MAX_HOPS 8
/* Perfetto's trace clock before any snapshot names one: its private trace-file clock. */
#define TRACE_FILE_KEY (UINT64_C(1) << 63)
#define NO_KEY UINT64_MAX

typedef struct cc_series { /* one clock's values in the snapshots of one set of clocks */
  uint32_t clock, hash;
  TRAK_VEC(int64_t) ns;
  TRAK_VEC(uint32_t) snap;
} cc_series;

typedef struct cc_clock {
  uint64_t key;
  int64_t multiplier, last_ns; /* last_ns: incremental clocks' running value */
  uint8_t incremental, non_monotonic;
  uint8_t registered; /* a snapshot took it: its unit and encoding are fixed */
} cc_clock;

typedef struct cc_edge {
  uint32_t from, to, hash;
} cc_edge;

typedef struct cc_slot {
  uint64_t src;
  int64_t lo, hi; /* the source ns it holds for: [lo, hi) */
  int64_t shift;  /* what it adds to them: trace time minus source ns */
} cc_slot;

struct trak_clock_cache {
  uint64_t trace_time; /* key of Perfetto's trace clock */
  uint8_t converted;   /* a conversion to trace time happened: the trace clock is fixed */
  uint8_t deferred;    /* the BOOTTIME bridge waits for the first conversion */
  uint32_t next_snap;  /* snapshot ids */
  uint32_t rnd;        /* std::minstd_rand's state (default seed 1) */
  cc_slot slot[CACHE_SLOTS];
  TRAK_VEC(cc_clock) clocks;
  TRAK_VEC(cc_series) series;
  TRAK_VEC(cc_edge) edges;
};

static trak_clock_cache *cc_get(trak_importer *imp) {
  if (TRAK_LIKELY(imp->clock_cache != NULL)) return imp->clock_cache;
  trak_clock_cache *c = calloc(1, sizeof *c);
  if (!c) abort();
  c->trace_time = TRACE_FILE_KEY;
  c->deferred = 1;
  c->rnd = 1;
  for (int i = 0; i < CACHE_SLOTS; i++)
    c->slot[i].src = NO_KEY;
  imp->clock_cache = c;
  return c;
}

void trak__clock_cache_free(trak_importer *imp) {
  trak_clock_cache *c = imp->clock_cache;
  if (!c) return;
  for (size_t i = 0; i < c->series.n; i++) {
    trak_vec_free(c->series.v[i].ns);
    trak_vec_free(c->series.v[i].snap);
  }
  trak_vec_free(c->clocks);
  trak_vec_free(c->series);
  trak_vec_free(c->edges);
  free(c);
  imp->clock_cache = NULL;
}

static uint32_t clock_find(const trak_clock_cache *c, uint64_t key) {
  for (uint32_t i = 0; i < c->clocks.n; i++)
    if (c->clocks.v[i].key == key) return i;
  return UINT32_MAX;
}

static cc_series *series_find(trak_clock_cache *c, uint32_t clock, uint32_t hash) {
  for (size_t i = 0; i < c->series.n; i++)
    if (c->series.v[i].clock == clock && c->series.v[i].hash == hash) return &c->series.v[i];
  return NULL;
}

/* The fast path's entry is one of the slots: any change of the slots forgets it. */
static void slots_changed(trak_importer *imp) {
  imp->clock_cache_fast.key = NO_KEY;
}

static void slot_put(trak_importer *imp, trak_clock_cache *c, uint64_t src, int64_t lo, int64_t hi,
                     int64_t shift) {
  c->rnd = (uint32_t)((uint64_t)c->rnd * 48271u % 2147483647u);
  c->slot[c->rnd % CACHE_SLOTS] = (cc_slot){src, lo, hi, shift};
  slots_changed(imp);
}

static int64_t sat_sub(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_sub_overflow(a, b, &r) ? (b > 0 ? INT64_MIN : INT64_MAX) : r;
}

/* Perfetto's FindPath: a breadth-first search from `from` to `to` over the edges (in
** Perfetto's order: edge_add), at most MAX_HOPS long. Returns the hops found (0: none), edges in path. */
static size_t find_path(const trak_clock_cache *c, uint32_t from, uint32_t to,
                        uint32_t path[MAX_HOPS]) {
  typedef struct node {
    uint32_t clock, len, prev, edge;
  } node;
  size_t cap = 64, n = 0;
  node *q = malloc(cap * sizeof *q);
  if (!q) abort();
  q[n++] = (node){from, 0, UINT32_MAX, 0};
  size_t found = 0;
  for (size_t head = 0; head < n && !found; head++) {
    node cur = q[head];
    if (cur.len >= MAX_HOPS) continue;
    for (uint32_t e = 0; e < c->edges.n; e++) {
      if (c->edges.v[e].from != cur.clock) continue;
      if (n == cap) {
        if (cap >= 65536) break; /* (Perfetto's queue has no bound; a cycle ends at kMaxLen) */
        cap *= 2;
        node *g = realloc(q, cap * sizeof *q);
        if (!g) abort();
        q = g;
      }
      q[n++] = (node){c->edges.v[e].to, cur.len + 1, (uint32_t)head, e};
      if (c->edges.v[e].to == to) {
        found = cur.len + 1;
        for (size_t i = n - 1, k = found; k > 0; i = q[i].prev)
          path[--k] = q[i].edge;
        break;
      }
    }
  }
  free(q);
  return found;
}

/* Perfetto's ConvertSlowpath (after its count): the path's validity range over source ns `ns`
** is cached and *out is `ns` in trace time; returns 0 (*out unchanged) when no path relates
** the clocks. */
static int slow_path(trak_importer *imp, trak_clock_cache *c, uint32_t src, uint32_t dst,
                     int64_t ns, int64_t *out) {
  uint32_t path[MAX_HOPS];
  size_t hops = find_path(c, src, dst, path);
  if (!hops) return 0;
  int64_t total = 0, lo = INT64_MIN, hi = INT64_MAX;
  for (size_t i = 0; i < hops; i++) {
    const cc_edge *e = &c->edges.v[path[i]];
    cc_series *cur = series_find(c, e->from, e->hash), *next = series_find(c, e->to, e->hash);
    if (!cur || !next || !cur->ns.n) return 0;
    size_t lo_i = 0, hi_i = cur->ns.n; /* upper_bound, then one back */
    while (lo_i < hi_i) {
      size_t mid = (lo_i + hi_i) / 2;
      if (cur->ns.v[mid] <= ns)
        lo_i = mid + 1;
      else
        hi_i = mid;
    }
    size_t at = lo_i ? lo_i - 1 : 0;
    size_t k = 0;
    while (k < next->snap.n && next->snap.v[k] != cur->snap.v[at])
      k++;
    if (k == next->snap.n) continue; /* (Perfetto: DFATAL, hop skipped) */
    int64_t hop = sat_sub(next->ns.v[k], cur->ns.v[at]);
    ns = trak__wadd(ns, hop);
    int64_t hop_lo = at == 0 ? INT64_MIN : sat_sub(cur->ns.v[at], total);
    int64_t hop_hi = at + 1 == cur->ns.n ? INT64_MAX : sat_sub(cur->ns.v[at + 1], total);
    if (hop_lo > lo) lo = hop_lo;
    if (hop_hi < hi) hi = hop_hi;
    total = trak__wadd(total, hop);
  }
  slot_put(imp, c, c->clocks.v[src].key, lo, hi, total);
  *out = ns;
  return 1;
}

/* Perfetto's ClockSynchronizer::Convert of `ts` (in clock `src`'s units) to trace time, into
** *out: a cache hit, or a miss counted and the path found cached. Returns whether the clocks
** are related (0: *out unchanged). */
static int convert(trak_importer *imp, trak_clock_cache *c, uint64_t src, int64_t ts,
                   int64_t *out) {
  if (src == c->trace_time) {
    *out = ts;
    return 1;
  }
  uint32_t s = clock_find(c, src);
  int have_ns = 0;
  int64_t ns = 0;
  for (int i = 0; i < CACHE_SLOTS; i++) {
    if (c->slot[i].src != src) continue;
    if (!have_ns) {
      cc_clock *k = &c->clocks.v[s];
      ns = trak__wmul(ts, k->multiplier);
      if (k->incremental) ns = k->last_ns = trak__wadd(k->last_ns, ns);
      have_ns = 1;
    }
    if (ns >= c->slot[i].lo && ns < c->slot[i].hi) {
      const cc_clock *k = &c->clocks.v[s];
      if (k->multiplier == 1 && !k->incremental) /* the fast path compares raw values */
        imp->clock_cache_fast = (trak_clock_cache_fast){src, c->slot[i].lo, c->slot[i].hi};
      *out = trak__wadd(ns, c->slot[i].shift);
      return 1;
    }
  }
  imp->stats[TRAK_STAT_CLOCK_CACHE_MISS]++;
  uint32_t d = clock_find(c, c->trace_time);
  if (s == UINT32_MAX || d == UINT32_MAX) return 0;
  if (!have_ns) {
    /* (Perfetto reads an incremental clock only once a path exists) */
    uint32_t unused[MAX_HOPS];
    if (!find_path(c, s, d, unused)) return 0;
    cc_clock *k = &c->clocks.v[s];
    ns = trak__wmul(ts, k->multiplier);
    if (k->incremental) ns = k->last_ns = trak__wadd(k->last_ns, ns);
  }
  return slow_path(imp, c, s, d, ns, out);
}

static uint32_t clock_add(trak_clock_cache *c, uint64_t key, int64_t multiplier, int incremental) {
  uint32_t i = clock_find(c, key);
  if (i != UINT32_MAX) return i;
  cc_clock k = {key, multiplier, 0, (uint8_t)incremental, 0, 0};
  trak_vec_push(c->clocks, k);
  return (uint32_t)c->clocks.n - 1;
}

/* Perfetto's ClockId of clock `key`: (clock id, sequence, trace file, machine); the one trace
** file and the host are 0. */
static void clock_tuple(uint64_t key, uint32_t out[4]) {
  out[0] = key == TRACE_FILE_KEY ? TRAK_PB_BUILTIN_CLOCK_TRACE_FILE : (uint32_t)key;
  out[1] = key == TRACE_FILE_KEY ? 0 : (uint32_t)(key >> 32);
  out[2] = out[3] = 0;
}

static uint64_t murmur_mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

/* The hash of a snapshot's clocks, as Perfetto's MurmurHashCombiner makes it of their ClockIds
** in their order (truncated to 32 bits): it orders the edges of the clock graph, and so which
** snapshots a conversion goes through when several relate two clocks. */
static uint32_t set_hash(const uint64_t *keys, size_t n) {
  uint64_t h = 0xe17a1465u;
  for (size_t i = 0; i < n; i++) {
    uint32_t id[4];
    clock_tuple(keys[i], id);
    for (int f = 0; f < 4; f++)
      h ^= murmur_mix(id[f]) + 0x9e3779b9u + (h << 6) + (h >> 2);
  }
  return (uint32_t)h;
}

/* Perfetto's order of the graph's edges (a std::set of (from, to, hash), clocks ordered by their
** ClockId): <0, 0 or >0. */
static int edge_cmp(const trak_clock_cache *c, const cc_edge *a, const cc_edge *b) {
  uint32_t x[4], y[4];
  for (int side = 0; side < 2; side++) {
    clock_tuple(c->clocks.v[side ? a->to : a->from].key, x);
    clock_tuple(c->clocks.v[side ? b->to : b->from].key, y);
    for (int f = 0; f < 4; f++)
      if (x[f] != y[f]) return x[f] < y[f] ? -1 : 1;
  }
  return a->hash == b->hash ? 0 : a->hash < b->hash ? -1 : 1;
}

/* Adds an edge in Perfetto's order (find_path meets the edges of a clock in that order). */
static void edge_add(trak_clock_cache *c, uint32_t from, uint32_t to, uint32_t hash) {
  cc_edge e = {from, to, hash};
  size_t at = 0;
  while (at < c->edges.n && edge_cmp(c, &c->edges.v[at], &e) < 0)
    at++;
  if (at < c->edges.n && edge_cmp(c, &c->edges.v[at], &e) == 0) return;
  trak_vec_push(c->edges, e);
  memmove(&c->edges.v[at + 1], &c->edges.v[at], (c->edges.n - 1 - at) * sizeof e);
  c->edges.v[at] = e;
}

/* The name Perfetto's clock_snapshot gives clock `key` (a builtin one's), 0: NULL. */
static uint32_t clock_name(trak_importer *imp, uint64_t key) {
  static const char *const names[] = {NULL,        "REALTIME",         "REALTIME_COARSE",
                                      "MONOTONIC", "MONOTONIC_COARSE", "MONOTONIC_RAW",
                                      "BOOTTIME"};
  if (key >= sizeof names / sizeof *names || !names[key]) return 0;
  return trak__strpool_intern(&imp->tables->strings, names[key], strlen(names[key]));
}

/* The clock_snapshot rows of snapshot `snap`: each clock's value converted to trace time (an
** incremental clock's current value), or, when that fails (a clock that went backwards, or
** one nothing relates to trace time yet), the trace clock's value in the snapshot if it has
** it, else no row for the clock: Perfetto's AddSnapshotToTable. */
static void snapshot_rows(trak_importer *imp, trak_clock_cache *c, const trak_clock_cache_clock *in,
                          size_t n, uint32_t snap) {
  int64_t trace_ts = 0;
  int has_trace = 0;
  for (size_t i = 0; i < n && !has_trace; i++)
    if (in[i].key == c->trace_time) trace_ts = in[i].ts, has_trace = 1;
  trak_tables *t = imp->tables;
  for (size_t i = 0; i < n; i++) {
    int64_t ts = trace_ts;
    if (!convert(imp, c, in[i].key, in[i].incremental ? 0 : in[i].ts, &ts) && !has_trace) continue;
    uint64_t key = in[i].key;
    uint32_t row = trak__clock_snapshot_push(t);
    t->clock_snapshot.ts[row] = ts;
    t->clock_snapshot.clock_id[row] =
        key == TRACE_FILE_KEY ? TRAK_PB_BUILTIN_CLOCK_TRACE_FILE : (int64_t)(uint32_t)key;
    t->clock_snapshot.clock_name[row] = clock_name(imp, key);
    t->clock_snapshot.clock_value[row] = trak__wmul(in[i].ts, in[i].multiplier);
    t->clock_snapshot.snapshot_id[row] = snap;
    t->clock_snapshot.machine_id[row] = imp->threads.machine;
  }
}

/* Whether Perfetto's clock synchronizer refuses clock `in` of a snapshot, `ck` its model, as
** it checks each clock before taking it: a clock's first snapshot may not make a global clock
** incremental (only sequence-scoped ones, ids 64..127, may be); a later one must give its unit
** and encoding again; the trace clock must count nanoseconds. */
static int clock_refused(const trak_clock_cache *c, const cc_clock *ck,
                         const trak_clock_cache_clock *in) {
  if (!ck->registered) {
    if (in->incremental && !(in->key >> 32 && in->key != TRACE_FILE_KEY)) return 1;
  } else if (ck->multiplier != in->multiplier || ck->incremental != in->incremental) {
    return 1;
  }
  return in->key == c->trace_time && in->multiplier != 1;
}

/* Perfetto's ClockTracker::AddSnapshot: the snapshot joins the graph (the cache emptied), then
** each clock of it is converted to trace time for the clock_snapshot table. A snapshot Perfetto
** refuses part way (a clock refused, given twice, or the trace clock going back) keeps the
** clocks taken before it, and gives no rows. */
static void snapshot(trak_importer *imp, trak_clock_cache *c, const trak_clock_cache_clock *in,
                     size_t n) {
  for (int i = 0; i < CACHE_SLOTS; i++)
    c->slot[i].src = NO_KEY;
  slots_changed(imp);
  uint64_t keys[64];
  if (n > 64) n = 64;
  for (size_t i = 0; i < n; i++)
    keys[i] = in[i].key;
  uint32_t hash = set_hash(keys, n), snap = c->next_snap++;
  uint32_t idx[64];
  for (size_t i = 0; i < n; i++) {
    uint32_t k = clock_add(c, in[i].key, in[i].multiplier, in[i].incremental);
    cc_clock *ck = &c->clocks.v[k];
    if (clock_refused(c, ck, &in[i])) return;
    if (!ck->registered) {
      ck->multiplier = in[i].multiplier;
      ck->incremental = in[i].incremental;
      ck->registered = 1;
    }
    int64_t ns = trak__wmul(in[i].ts, ck->multiplier);
    ck->last_ns = ns;
    cc_series *s = series_find(c, k, hash);
    if (!s) {
      cc_series z = {.clock = k, .hash = hash};
      trak_vec_push(c->series, z);
      s = &c->series.v[c->series.n - 1];
    }
    if (s->snap.n && s->snap.v[s->snap.n - 1] == snap) return; /* a clock twice: invalid */
    if (s->ns.n && ns < s->ns.v[s->ns.n - 1]) {
      if (in[i].key == c->trace_time) return; /* the trace clock going back: invalid */
      ck->non_monotonic = 1;                  /* no conversions from it any more */
      size_t w = 0;
      for (size_t e = 0; e < c->edges.n; e++)
        if (c->edges.v[e].from != k) c->edges.v[w++] = c->edges.v[e];
      c->edges.n = w;
    }
    trak_vec_push(s->ns, ns);
    trak_vec_push(s->snap, snap);
    idx[i] = k;
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      if (!c->clocks.v[idx[i]].non_monotonic) edge_add(c, idx[i], idx[j], hash);
      if (!c->clocks.v[idx[j]].non_monotonic) edge_add(c, idx[j], idx[i], hash);
    }
  snapshot_rows(imp, c, in, n, snap);
}

void trak__clock_cache_snapshot(trak_importer *imp, const trak_clock_cache_clock *clocks, size_t n,
                                uint32_t primary) {
  trak_clock_cache *c = cc_get(imp);
  uint32_t trace = primary;
  for (size_t i = 0; i < n && !primary; i++)
    if (clocks[i].key == TRAK_PB_BUILTIN_CLOCK_BOOTTIME) trace = TRAK_PB_BUILTIN_CLOCK_BOOTTIME;
  if (trace) {
    imp->clock_cache_default = trace;
    if (!c->converted) c->trace_time = trace;
  }
  snapshot(imp, c, clocks, n);
}

void trak__clock_cache_convert(trak_importer *imp, uint64_t key, int64_t ts) {
  trak_clock_cache *c = cc_get(imp);
  if (c->deferred) { /* Perfetto's FlushDeferredClockSync of BOOTTIME, at the first conversion */
    c->deferred = 0;
    const uint64_t boot = TRAK_PB_BUILTIN_CLOCK_BOOTTIME;
    /* unrelated to the private trace-file clock: assumed equal to it (an edge of its own) */
    int64_t unused;
    if (!convert(imp, c, boot, 0, &unused) && c->trace_time == TRACE_FILE_KEY) {
      trak_clock_cache_clock pair[2] = {{boot, 0, 1, 0}, {TRACE_FILE_KEY, 0, 1, 0}};
      snapshot(imp, c, pair, 2);
    }
  }
  c->converted = 1;
  if (key == c->trace_time)
    imp->clock_cache_fast = (trak_clock_cache_fast){key, INT64_MIN, INT64_MAX};
  else
    convert(imp, c, key, ts, &ts);
}
