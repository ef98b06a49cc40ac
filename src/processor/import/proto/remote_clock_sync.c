/*
** This file relates a remote machine's clocks to the host's, as Perfetto does for multi-machine
** traces: the relay of a remote machine writes RemoteClockSync packets (with the machine's
** machine_id), each a series of exchanges in which the remote machine (the client) and the host
** read their clocks in turn. Two successive exchanges within 30 s make a round trip, which gives
** two estimates of the client's offset for each clock both sides read; a clock's offset is the
** mean of all its estimates. A timestamp of the remote machine in a synced clock is the host's
** reading less the offset; one in another clock goes through the client's readings of a sync
** first. The rules Perfetto's clock graph follows, checked against trace_processor_shell v58.2:
** a sync before the host's first ClockSnapshot relates nothing; a machine whose first
** timestamp came before its first usable sync keeps the zero-offset bridge Perfetto made then
** (later syncs change nothing); a machine writing ClockSnapshots of its own is not synced here.
** Each clock's edges and each pair of client clocks' readings are kept apart, and bisected while
** they come in order, so a timestamp's conversion does not scan every sync of the trace.
*/
#include "processor/import/proto/proto.h"

#define ROUND_TRIP_NS 30000000000ull /* exchanges further apart belong to different rounds */
#define ROUND_CLOCKS 16              /* clocks read in one exchange; more are ignored */

/* A clock's host and client readings in one exchange (0: not read on that side). */
typedef struct reading_pair {
  uint32_t clock_id;
  uint64_t host, client;
} reading_pair;

/* One exchange: the pairs of the clocks read in it. */
typedef struct exchange {
  uint32_t n;
  reading_pair c[ROUND_CLOCKS];
} exchange;

static trak_remote_machine *machine(trak_importer *imp, uint32_t m) {
  while (imp->remote.n <= m) {
    trak_remote_machine z = {0};
    trak_vec_push(imp->remote, z);
  }
  return &imp->remote.v[m];
}

/* Appends (key, value) to `s`, noting when the keys stop being in order. */
static void series_push(trak_remote_series *s, int64_t key, int64_t value) {
  if (s->p.n && key < s->p.v[s->p.n - 1].key) s->unsorted = 1;
  trak_vec_push(s->p, ((trak_remote_point){key, value}));
}

/* The latest point of `s` (in the order made) whose key is at or before `x`, else the first;
** NULL if `s` is empty. Keys in order: the points at or before `x` are a prefix, so its end is
** found by bisection; otherwise by a scan from the back. */
static const trak_remote_point *series_at(const trak_remote_series *s, int64_t x) {
  if (!s->p.n) return NULL;
  if (s->unsorted) {
    for (size_t i = s->p.n; i-- > 0;)
      if (s->p.v[i].key <= x) return &s->p.v[i];
    return &s->p.v[0];
  }
  size_t lo = 0, hi = s->p.n; /* the first point whose key is past x is in [lo, hi] */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->p.v[mid].key <= x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return &s->p.v[lo ? lo - 1 : 0];
}

/* The `set`s of the syncs' host and client readings related to each other (Perfetto's
** snapshot of the two); a client's own readings use a hash of its clock ids. */
#define SET_HOST_ANCHOR 1u
#define SET_CLIENT_ANCHOR 2u

/* Whether `ts` is below the last reading of `clock_id` in syncs of the same `set`; remembers it. */
static int went_back(trak_remote_machine *r, uint64_t set, uint32_t clock_id, int64_t ts) {
  for (size_t i = 0; i < r->lasts.n; i++) {
    trak_remote_last *l = &r->lasts.v[i];
    if (l->set != set || l->clock_id != clock_id) continue;
    int back = ts < l->ts;
    l->ts = ts;
    return back;
  }
  trak_vec_push(r->lasts, ((trak_remote_last){set, clock_id, ts}));
  return 0;
}

/* Whether the machine's `clock_id` went back in a sync: Perfetto then converts nothing from it. */
static int backwards(const trak_remote_machine *r, uint32_t clock_id) {
  for (size_t i = 0; i < r->backwards.n; i++)
    if (r->backwards.v[i] == clock_id) return 1;
  return 0;
}

/* A client reading of `clock_id` in a sync of `set`: a clock going back is marked for good. */
static void note_reading(trak_remote_machine *r, uint64_t set, uint32_t clock_id, int64_t ts) {
  if (went_back(r, set, clock_id, ts) && !backwards(r, clock_id))
    trak_vec_push(r->backwards, clock_id);
}

/* The edges of `clock_id` on `r`, made (empty) if `create`; NULL: none. */
static trak_remote_clock *clock_edges(trak_remote_machine *r, uint32_t clock_id, int create) {
  for (size_t i = 0; i < r->clocks.n; i++)
    if (r->clocks.v[i].clock_id == clock_id) return &r->clocks.v[i];
  if (!create) return NULL;
  trak_remote_clock c = {.clock_id = clock_id};
  trak_vec_push(r->clocks, c);
  return &r->clocks.v[r->clocks.n - 1];
}

/* The entry of `clock_id` in `x`, made if `create` (NULL: none, or no room). */
static reading_pair *entry(exchange *x, uint32_t clock_id, int create) {
  for (uint32_t i = 0; i < x->n; i++)
    if (x->c[i].clock_id == clock_id) return &x->c[i];
  if (!create || x->n == ROUND_CLOCKS) return NULL;
  x->c[x->n].clock_id = clock_id;
  x->c[x->n].host = x->c[x->n].client = 0;
  return &x->c[x->n++];
}

/* Reads a ClockSnapshot's clocks into `x` as the host's (`client_set` NULL) or the client's
** readings; for the client's, *client_set becomes a hash of the clock ids in the order read (the
** syncs reading the same clocks are compared with each other, as Perfetto compares snapshots). */
static void read_side(trak_importer *imp, exchange *x, const uint8_t *data, size_t len,
                      uint64_t *client_set) {
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_ClockSnapshot_clocks || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    uint32_t id = 0;
    uint64_t ts = 0;
    trak__dec_init(imp, &sub, f.data, f.len);
    while (trak_pb_decoder_next(&sub, &g) > 0) {
      if (g.wire_type != TRAK_PB_WIRE_VARINT) continue;
      if (g.number == TRAK_PB_ClockSnapshot_Clock_clock_id) id = (uint32_t)g.value;
      if (g.number == TRAK_PB_ClockSnapshot_Clock_timestamp) ts = g.value;
    }
    if (client_set) *client_set = (*client_set ^ id) * 0x100000001b3ull;
    reading_pair *e = entry(x, id, 1);
    if (!e) continue;
    if (client_set)
      e->client = ts;
    else
      e->host = ts;
  }
}

/* A clock's offset estimates: their sum and count. */
typedef struct clock_offset {
  uint32_t clock_id;
  int64_t sum, count;
} clock_offset;

/* The estimates of the client's offset (client - host) of each clock over the round trips of
** the `n` exchanges `xs` (successive ones within 30 s of the client's BOOTTIME), two a trip: the
** client's (t1c, t1h, t2c) and the host's (t1h, t2c, t2h). Writes them to `out` (room for
** ROUND_CLOCKS) by clock and returns how many clocks have some. */
static size_t offsets(const exchange *xs, size_t n, clock_offset *out) {
  size_t k = 0;
  for (size_t i = 1; i < n; i++) {
    exchange ping = xs[i - 1], upd = xs[i];
    const reading_pair *pb = entry(&ping, TRAK_PB_BUILTIN_CLOCK_BOOTTIME, 0),
                       *ub = entry(&upd, TRAK_PB_BUILTIN_CLOCK_BOOTTIME, 0);
    uint64_t pc = pb ? pb->client : 0, uc = ub ? ub->client : 0;
    if (uc - pc >= ROUND_TRIP_NS) continue; /* unsigned: a client clock going back too */
    for (uint32_t j = 0; j < ping.n; j++) {
      const reading_pair *a = &ping.c[j], *b = entry(&upd, a->clock_id, 0);
      if (!b || !a->host || !a->client || !b->host || !b->client) continue;
      int64_t o1 = trak__wsub((int64_t)(a->client + b->client) / 2, (int64_t)a->host);
      int64_t o2 = trak__wsub((int64_t)b->client, (int64_t)(a->host + b->host) / 2);
      size_t s = 0;
      while (s < k && out[s].clock_id != a->clock_id)
        s++;
      if (s == ROUND_CLOCKS) continue;
      if (s == k) out[k++] = (clock_offset){a->clock_id, 0, 0};
      out[s].sum = trak__wadd(trak__wadd(out[s].sum, o1), o2);
      out[s].count += 2;
    }
  }
  return k;
}

void trak__remote_clock_sync_add(trak_importer *imp, const uint8_t *data, size_t len) {
  uint32_t m = imp->threads.machine;
  if (!m) return; /* the host's own: nothing to relate */
  trak_remote_machine *r = machine(imp, m);
  if (r->disabled) return;
  TRAK_VEC(exchange) xs = {0};
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_RemoteClockSync_synced_clocks || f.wire_type != TRAK_PB_WIRE_LEN)
      continue;
    exchange x = {0};
    uint64_t set = 0xcbf29ce484222325ull;
    trak__dec_init(imp, &sub, f.data, f.len);
    while (trak_pb_decoder_next(&sub, &g) > 0) {
      if (g.wire_type != TRAK_PB_WIRE_LEN) continue;
      if (g.number == TRAK_PB_RemoteClockSync_SyncedClocks_host_clocks)
        read_side(imp, &x, g.data, g.len, NULL);
      else if (g.number == TRAK_PB_RemoteClockSync_SyncedClocks_client_clocks)
        read_side(imp, &x, g.data, g.len, &set);
    }
    for (uint32_t i = 0; i < x.n; i++)
      if (x.c[i].client) note_reading(r, set, x.c[i].clock_id, (int64_t)x.c[i].client);
    /* The client's readings relate its clocks to each other, as a snapshot of its own would. */
    for (uint32_t i = 0; i < x.n; i++)
      if (x.c[i].client)
        trak_vec_push(r->readings, ((trak_remote_reading){r->snapshots, x.c[i].clock_id,
                                                          (int64_t)x.c[i].client}));
    r->snapshots++;
    trak_vec_push(xs, x);
  }
  if (imp->host_snapshot_seen && !r->bridged) {
    clock_offset offs[ROUND_CLOCKS];
    size_t k = offsets(xs.v, xs.n, offs);
    for (size_t i = 0; i < k; i++) {
      int64_t offset = offs[i].sum / offs[i].count, anchor = 0;
      for (size_t j = 0; j < xs.n; j++) {
        const reading_pair *e = entry(&xs.v[j], offs[i].clock_id, 0);
        if (e && e->host) anchor = (int64_t)e->host;
      }
      uint32_t id = offs[i].clock_id;
      int64_t client_ns = trak__wadd(anchor, offset);
      /* Perfetto relates the host's reading and the client's as a snapshot of their own; one
      ** whose host trace clock went back is set aside whole */
      if (went_back(r, SET_HOST_ANCHOR, id, anchor) && id == imp->trace_clock) {
        trak__report(imp, TRAK_STAT_INVALID_CLOCK_SNAPSHOTS,
                     "machine %u: remote clock sync whose host clock %u reads %lld, before the "
                     "sync before; set aside",
                     imp->threads.machine, id, (long long)anchor);
        continue;
      }
      note_reading(r, SET_CLIENT_ANCHOR, id, client_ns);
      series_push(&clock_edges(r, id, 1)->edges, client_ns, offset);
    }
  }
  trak_vec_free(xs);
}

void trak__remote_clock_snapshot_seen(trak_importer *imp) {
  if (!imp->threads.machine)
    imp->host_snapshot_seen = 1;
  else
    machine(imp, imp->threads.machine)->disabled = 1;
}

/* The edge of `clock_id` for client time `ns`: the latest whose reading is at or before it,
** else the first. NULL: the clock has none, or the host's clock does not lead to the trace
** clock (Perfetto's path then goes through the client's readings). */
static const trak_remote_point *edge_for(trak_importer *imp, trak_sequence *seq,
                                         trak_remote_machine *r, uint32_t clock_id, int64_t ns) {
  if (!trak__clock_related(imp, seq, clock_id)) return NULL;
  const trak_remote_clock *c = clock_edges(r, clock_id, 0);
  return c ? series_at(&c->edges, ns) : NULL;
}

/* The readings of the syncs that read both `from` and `to` on `r`, brought up to date with the
** syncs read since the last call (a sync's readings are pushed together, one a clock). */
static const trak_remote_series *pair_readings(trak_remote_machine *r, uint32_t from,
                                               uint32_t to) {
  trak_remote_pair *p = NULL;
  for (size_t i = 0; i < r->pairs.n && !p; i++)
    if (r->pairs.v[i].from == from && r->pairs.v[i].to == to) p = &r->pairs.v[i];
  if (!p) {
    trak_remote_pair z = {.from = from, .to = to};
    trak_vec_push(r->pairs, z);
    p = &r->pairs.v[r->pairs.n - 1];
  }
  while (p->upto < r->readings.n) {
    const trak_remote_reading *a = NULL, *b = NULL;
    uint32_t snapshot = r->readings.v[p->upto].snapshot;
    for (; p->upto < r->readings.n && r->readings.v[p->upto].snapshot == snapshot; p->upto++) {
      const trak_remote_reading *x = &r->readings.v[p->upto];
      if (x->clock_id == from && !a) a = x;
      if (x->clock_id == to && !b) b = x;
    }
    if (a && b) series_push(&p->readings, a->ts, b->ts);
  }
  return &p->readings;
}

/* Converts *ns in client clock `from` to client clock `to` with the client readings of a sync
** that read both: the latest whose `from` reading is at or before it, else the first. Returns
** 0 if no sync read both. */
static int via_readings(trak_remote_machine *r, uint32_t from, uint32_t to, int64_t *ns) {
  const trak_remote_point *p = series_at(pair_readings(r, from, to), *ns);
  if (p) *ns = trak__wadd(p->value, trak__wsub(*ns, p->key));
  return p != NULL;
}

int trak__remote_clock_convert(trak_importer *imp, trak_sequence *seq, uint32_t clock_id,
                               int64_t ts, int64_t *out) {
  trak_remote_machine *r = machine(imp, imp->threads.machine);
  if (!r->clocks.n) r->bridged = 1;
  uint32_t c = clock_id;
  if (!r->disabled && backwards(r, clock_id)) /* for good: no later sync helps */
    return trak__clock_unconvertible(imp, 1, 0, clock_id, out);
  if (!r->disabled && !edge_for(imp, seq, r, c, ts)) {
    /* a clock the syncs did not offset: to one they did through the client's readings (in the
    ** order of their first edges), else to the trace clock (bridged to the host's at zero
    ** offset); never through a clock that went back */
    for (size_t i = 0; i < r->clocks.n && c == clock_id; i++) {
      uint32_t to = r->clocks.v[i].clock_id;
      if (!backwards(r, to) && edge_for(imp, seq, r, to, 0) && via_readings(r, clock_id, to, &ts))
        c = to;
    }
    if (c == clock_id && c != imp->trace_clock && !backwards(r, imp->trace_clock) &&
        via_readings(r, c, imp->trace_clock, &ts))
      c = imp->trace_clock;
  }
  const trak_remote_point *e = r->disabled ? NULL : edge_for(imp, seq, r, c, ts);
  if (e) ts = trak__wsub(ts, e->value);
  int rc = 0;
  if (c == imp->trace_clock)
    *out = ts;
  else
    rc = trak__clock_convert_other(imp, seq, c, ts, out);
  if (rc == 0 && *out < 0) {
    /* Perfetto's sorter drops what the offset put before zero */
    trak__report(imp, TRAK_STAT_NEGATIVE_TS_DROPPED,
                 "timestamp of machine %u is %lld in trace time, before zero; packet dropped",
                 imp->threads.machine, (long long)*out);
    return -1;
  }
  return rc;
}

void trak__remote_clock_free(trak_importer *imp) {
  for (size_t i = 0; i < imp->remote.n; i++) {
    trak_remote_machine *r = &imp->remote.v[i];
    for (size_t j = 0; j < r->clocks.n; j++)
      trak_vec_free(r->clocks.v[j].edges.p);
    for (size_t j = 0; j < r->pairs.n; j++)
      trak_vec_free(r->pairs.v[j].readings.p);
    trak_vec_free(r->clocks);
    trak_vec_free(r->readings);
    trak_vec_free(r->pairs);
    trak_vec_free(r->lasts);
    trak_vec_free(r->backwards);
  }
  trak_vec_free(imp->remote);
}
