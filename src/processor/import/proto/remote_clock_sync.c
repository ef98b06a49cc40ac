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

/* The entry of `clock_id` in `x`, made if `create` (NULL: none, or no room). */
static reading_pair *entry(exchange *x, uint32_t clock_id, int create) {
  for (uint32_t i = 0; i < x->n; i++)
    if (x->c[i].clock_id == clock_id) return &x->c[i];
  if (!create || x->n == ROUND_CLOCKS) return NULL;
  x->c[x->n].clock_id = clock_id;
  x->c[x->n].host = x->c[x->n].client = 0;
  return &x->c[x->n++];
}

/* Reads a ClockSnapshot's clocks into `x` as the host's (`host`) or the client's readings. */
static void read_side(trak_importer *imp, exchange *x, const uint8_t *data, size_t len, int host) {
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
    reading_pair *e = entry(x, id, 1);
    if (!e) continue;
    if (host)
      e->host = ts;
    else
      e->client = ts;
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
    trak__dec_init(imp, &sub, f.data, f.len);
    while (trak_pb_decoder_next(&sub, &g) > 0) {
      if (g.wire_type != TRAK_PB_WIRE_LEN) continue;
      if (g.number == TRAK_PB_RemoteClockSync_SyncedClocks_host_clocks)
        read_side(imp, &x, g.data, g.len, 1);
      else if (g.number == TRAK_PB_RemoteClockSync_SyncedClocks_client_clocks)
        read_side(imp, &x, g.data, g.len, 0);
    }
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
      trak_vec_push(r->edges,
                    ((trak_remote_edge){offs[i].clock_id, trak__wadd(anchor, offset), offset}));
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
static const trak_remote_edge *edge_for(trak_importer *imp, trak_sequence *seq,
                                        const trak_remote_machine *r, uint32_t clock_id,
                                        int64_t ns) {
  if (!trak__clock_related(imp, seq, clock_id)) return NULL;
  const trak_remote_edge *first = NULL, *best = NULL;
  for (size_t i = 0; i < r->edges.n; i++) {
    const trak_remote_edge *e = &r->edges.v[i];
    if (e->clock_id != clock_id) continue;
    if (!first) first = e;
    if (e->client_ns <= ns) best = e;
  }
  return best ? best : first;
}

/* Converts *ns in client clock `from` to client clock `to` with the client readings of a sync
** that read both: the latest whose `from` reading is at or before it, else the first. Returns
** 0 if no sync read both. */
static int via_readings(const trak_remote_machine *r, uint32_t from, uint32_t to, int64_t *ns) {
  int found = 0;
  int64_t best_from = 0, best_to = 0;
  for (size_t i = 0; i < r->readings.n; i++) {
    const trak_remote_reading *a = &r->readings.v[i];
    if (a->clock_id != from || (found && a->ts > *ns)) continue;
    /* a sync's readings are pushed together: `to`'s is beside `from`'s, if it read both */
    size_t lo = i, hi = i;
    while (lo > 0 && r->readings.v[lo - 1].snapshot == a->snapshot)
      lo--;
    while (hi + 1 < r->readings.n && r->readings.v[hi + 1].snapshot == a->snapshot)
      hi++;
    for (size_t j = lo; j <= hi; j++)
      if (r->readings.v[j].clock_id == to) {
        best_from = a->ts, best_to = r->readings.v[j].ts, found = 1;
        break;
      }
  }
  if (found) *ns = trak__wadd(best_to, trak__wsub(*ns, best_from));
  return found;
}

int trak__remote_clock_convert(trak_importer *imp, trak_sequence *seq, uint32_t clock_id,
                               int64_t ts, int64_t *out) {
  trak_remote_machine *r = machine(imp, imp->threads.machine);
  if (!r->edges.n) r->bridged = 1;
  uint32_t c = clock_id;
  if (!r->disabled && !edge_for(imp, seq, r, c, ts)) {
    /* a clock the syncs did not offset: to one they did through the client's readings, else
    ** to the trace clock (bridged to the host's at zero offset) */
    for (size_t i = 0; i < r->edges.n && c == clock_id; i++) {
      uint32_t to = r->edges.v[i].clock_id;
      size_t k = 0;
      while (k < i && r->edges.v[k].clock_id != to) /* each clock tried once */
        k++;
      if (k == i && edge_for(imp, seq, r, to, 0) && via_readings(r, clock_id, to, &ts)) c = to;
    }
    if (c == clock_id && c != imp->trace_clock && via_readings(r, c, imp->trace_clock, &ts))
      c = imp->trace_clock;
  }
  const trak_remote_edge *e = r->disabled ? NULL : edge_for(imp, seq, r, c, ts);
  if (e) ts = trak__wsub(ts, e->offset);
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
    trak_vec_free(imp->remote.v[i].edges);
    trak_vec_free(imp->remote.v[i].readings);
  }
  trak_vec_free(imp->remote);
}
