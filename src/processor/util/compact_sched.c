/*
** This file holds the CompactSched decoder of compact_sched.h: the message's arrays located once,
** then walked in step per event kind.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/util/compact_sched.h"
#include "trak/protos.h"

int trak__compact_sched_open(trak_compact_sched *cs, const uint8_t *data, size_t len) {
  memset(cs, 0, sizeof *cs);
  trak_pb_decoder dec;
  trak_pb_field f;
  size_t cap = 0;
  static const uint8_t none[1];
  trak_pb_decoder_init(&dec, data ? data : none, data ? len : 0);
  while (trak_pb_decoder_next(&dec, &f) == 1) {
    if (f.number == TRAK_PB_FtraceEventBundle_CompactSched_intern_table) {
      if (f.wire_type != TRAK_PB_WIRE_LEN) continue;
      if (cs->n_intern == cap) {
        size_t ncap = cap ? cap * 2 : 64;
        trak_strv *grown = realloc(cs->intern, ncap * sizeof *grown);
        if (!grown) {
          trak__compact_sched_close(cs);
          return -1;
        }
        cs->intern = grown;
        cap = ncap;
      }
      cs->intern[cs->n_intern].s = (const char *)f.data;
      cs->intern[cs->n_intern++].len = f.len;
    } else if (f.number < sizeof cs->arrays / sizeof *cs->arrays) {
      cs->arrays[f.number] = f; /* the last occurrence wins */
    }
  }
  return 0;
}

void trak__compact_sched_close(trak_compact_sched *cs) {
  free(cs->intern);
  memset(cs, 0, sizeof *cs);
}

/* Every column is of varints; those of one or two bytes (nearly all: deltas, pids, indexes)
** are read here as trak_pb_packed_next reads them, the rest by it. */
static void col_advance(trak_compact_iter *it, int c) {
  trak_pb_packed *pk = &it->it[c];
  if (TRAK_LIKELY(pk->p < pk->end && pk->p[0] < 0x80)) {
    it->cur[c] = *pk->p++;
    it->valid[c] = 1;
    return;
  }
  if (pk->end - pk->p >= 2 && pk->p[1] < 0x80) {
    it->cur[c] = (uint64_t)(pk->p[0] & 0x7f) | (uint64_t)pk->p[1] << 7;
    pk->p += 2;
    it->valid[c] = 1;
    return;
  }
  int rc = trak_pb_packed_next(pk, &it->cur[c]);
  it->valid[c] = rc == 1;
  if (rc < 0) it->error = 1;
}

/* Starts the walk over the arrays with the given field numbers (ncols of them). */
static void iter_begin(trak_compact_iter *it, const trak_compact_sched *cs, const uint32_t *fields,
                       int ncols) {
  memset(it, 0, sizeof *it);
  it->cs = cs;
  it->ncols = ncols;
  for (int c = 0; c < ncols; c++) {
    static const uint8_t none[1];
    trak_pb_field f = cs->arrays[fields[c]];
    if (f.wire_type != TRAK_PB_WIRE_LEN || !f.data) f.data = none, f.len = 0; /* no NULL + 0 */
    trak_pb_packed_init(&it->it[c], &f, TRAK_PB_WIRE_VARINT);
    col_advance(it, c);
  }
}

/* Takes the current row if the first five arrays all have one and its comm index (column 4)
** is in range: returns 1 with it->ts advanced; else ends the walk. */
static int iter_row(trak_compact_iter *it, trak_strv *comm) {
  if (it->stopped) return 0;
  for (int c = 0; c < 5; c++)
    if (!it->valid[c]) {
      it->stopped = 1;
      return 0;
    }
  /* A hostile delta may pass INT64_MAX: the sum wraps as the kernel's u64 clock would. */
  it->ts = (int64_t)((uint64_t)it->ts + it->cur[0]);
  uint32_t idx = (uint32_t)it->cur[4];
  if (idx >= it->cs->n_intern) {
    it->error = 1;
    it->stopped = 1;
    return 0;
  }
  *comm = it->cs->intern[idx];
  return 1;
}

static void iter_advance(trak_compact_iter *it) {
  for (int c = 0; c < 5; c++)
    col_advance(it, c);
}

/* The arrays of each kind, walked in step: timestamp first, the comm index fifth. */
static const uint32_t switch_fields[] = {
    TRAK_PB_FtraceEventBundle_CompactSched_switch_timestamp,
    TRAK_PB_FtraceEventBundle_CompactSched_switch_prev_state,
    TRAK_PB_FtraceEventBundle_CompactSched_switch_next_pid,
    TRAK_PB_FtraceEventBundle_CompactSched_switch_next_prio,
    TRAK_PB_FtraceEventBundle_CompactSched_switch_next_comm_index};
static const uint32_t waking_fields[] = {
    TRAK_PB_FtraceEventBundle_CompactSched_waking_timestamp,
    TRAK_PB_FtraceEventBundle_CompactSched_waking_pid,
    TRAK_PB_FtraceEventBundle_CompactSched_waking_target_cpu,
    TRAK_PB_FtraceEventBundle_CompactSched_waking_prio,
    TRAK_PB_FtraceEventBundle_CompactSched_waking_comm_index,
    TRAK_PB_FtraceEventBundle_CompactSched_waking_common_flags};

void trak__compact_switch_begin(trak_compact_iter *it, const trak_compact_sched *cs) {
  iter_begin(it, cs, switch_fields, 5);
}

void trak__compact_waking_begin(trak_compact_iter *it, const trak_compact_sched *cs) {
  iter_begin(it, cs, waking_fields, 6);
}

int trak__compact_switch_next(trak_compact_iter *it, trak_compact_switch *ev) {
  trak_strv comm;
  if (!iter_row(it, &comm)) return 0;
  const uint64_t *v = it->cur;
  trak__compact_switch_set(ev, (uint64_t)it->ts, v[1], v[2], v[3], v[4]);
  ev->next_comm = comm;
  iter_advance(it);
  return 1;
}

int trak__compact_waking_next(trak_compact_iter *it, trak_compact_waking *ev) {
  trak_strv comm;
  if (!iter_row(it, &comm)) return 0;
  const uint64_t *v = it->cur;
  trak__compact_waking_set(ev, (uint64_t)it->ts, v[1], v[2], v[3], v[4], it->valid[5], v[5]);
  ev->comm = comm;
  iter_advance(it);
  if (ev->has_common_flags) col_advance(it, 5);
  return 1;
}

void trak__compact_cols_of(const trak_compact_sched *cs, const uint8_t *data, int waking,
                           trak_compact_cols *out) {
  const uint32_t *fields = waking ? waking_fields : switch_fields;
  memset(out, 0, sizeof *out);
  for (int c = 0; c < (waking ? 6 : 5); c++) {
    trak_pb_field f = cs->arrays[fields[c]];
    if (f.wire_type != TRAK_PB_WIRE_LEN || !f.data || !f.len) continue; /* empty, as the walk */
    out->off[c] = (uint32_t)(f.data - data);
    out->len[c] = (uint32_t)f.len;
  }
  out->n_intern = (uint32_t)(cs->n_intern > UINT32_MAX ? UINT32_MAX : cs->n_intern);
}

void trak__compact_batch_begin(trak_compact_batch *b, const uint8_t *data,
                               const trak_compact_cols *cols, int waking) {
  memset(b, 0, sizeof *b);
  b->ncols = waking ? 6 : 5;
  b->flags_live = (uint8_t)waking;
  b->n_intern = cols->n_intern;
  for (int c = 0; c < b->ncols; c++) {
    b->col[c].p = data + cols->off[c];
    b->col[c].end = b->col[c].p + cols->len[c];
    b->col[c].element_wire_type = TRAK_PB_WIRE_VARINT;
  }
}

/* Up to n elements of array reader pk into vals, read as trak_pb_packed_next reads them (the
** short ones, and all those with ten bytes readable, inline): returns how many, fewer than n
** when the array ends or an element is malformed (pk is then at its end, as that function
** leaves it, and *bad set to 1). */
static size_t col_read(trak_pb_packed *pk, uint64_t *vals, size_t n, int *bad) {
  const uint8_t *p = pk->p, *end = pk->end;
  size_t i = 0;
  for (; i < n; i++) {
    if (TRAK_LIKELY(end - p >= 10)) { /* trak_pb_read_varint's loop without its bounds checks */
      uint64_t byte = *p++;
      if (TRAK_LIKELY(byte < 0x80)) {
        vals[i] = byte;
        continue;
      }
      uint64_t v = byte & 0x7f;
      for (unsigned shift = 7;; shift += 7) {
        if (shift == 70) { /* the tenth byte went on */
          pk->p = end;
          *bad = 1;
          return i;
        }
        byte = *p++;
        v |= (byte & 0x7f) << shift; /* shift <= 63 */
        if (byte < 0x80) break;
      }
      vals[i] = v;
      continue;
    }
    pk->p = p;
    int rc = trak_pb_packed_next(pk, &vals[i]);
    if (rc != 1) {
      *bad = rc < 0;
      return i;
    }
    p = pk->p;
  }
  pk->p = p;
  return i;
}

size_t trak__compact_batch_next(trak_compact_batch *b, trak_compact_rows *rows, size_t max) {
  if (b->stopped) return 0;
  if (max > TRAK_COMPACT_BATCH) max = TRAK_COMPACT_BATCH;
  size_t n = max;
  for (int c = 0; c < 5; c++) { /* the walk gives an event while all five arrays have one */
    int bad = 0;
    size_t got = col_read(&b->col[c], rows->v[c], n, &bad);
    if (got < n) n = got;
  }
  uint64_t ts = b->ts;
  uint64_t *tv = rows->v[0];
  const uint64_t *idx = rows->v[4];
  for (size_t i = 0; i < n; i++) {
    if ((uint32_t)idx[i] >= b->n_intern) { /* a comm index past the table ends the walk */
      n = i;
      break;
    }
    ts += tv[i]; /* A hostile delta may pass INT64_MAX: the sum wraps as the walk's. */
    tv[i] = ts;
  }
  b->ts = ts;
  if (n < max) b->stopped = 1;
  rows->n_flags = 0;
  if (b->flags_live) { /* common_flags: its elements while it has them, then none */
    int bad = 0;
    rows->n_flags = col_read(&b->col[5], rows->v[5], n, &bad);
    if (rows->n_flags < n) b->flags_live = 0;
  }
  return n;
}

int trak__compact_iter_bad(const trak_compact_iter *it) {
  if (it->error) return 1;
  for (int c = 0; c < 5; c++)
    if (it->valid[c]) return 1;
  return 0;
}

/* What trak__compact_count reads off the timestamp and comm index arrays. */
typedef struct count_ctx {
  int64_t ts, first;
  long n;
  int sorted;
  uint32_t n_intern;
} count_ctx;

static int take_ts(count_ctx *c, uint64_t delta) {
  int64_t ts = (int64_t)((uint64_t)c->ts + delta); /* the walk's running sum */
  if (c->n && ts < c->ts) c->sorted = 0;
  if (!c->n) c->first = ts;
  c->ts = ts;
  c->n++;
  return 0;
}

static int take_index(count_ctx *c, uint64_t idx) {
  return (uint32_t)idx < c->n_intern ? 0 : -1;
}

/* The elements of varint array `f` (0 when it is absent or not length-delimited, as the walk
** reads it), or -1 when one is malformed as trak_pb_packed_next reads it (truncated, or longer
** than 10 bytes), or when `take` (NULL: none) refuses one. */
static long col_scan(trak_pb_field f, int (*take)(count_ctx *, uint64_t), count_ctx *c) {
  if (f.wire_type != TRAK_PB_WIRE_LEN || !f.data) return 0;
  if (!take) { /* count the bytes that end an element; an element is at most 10 bytes */
    long n = 0;
    unsigned run = 0;
    for (size_t i = 0; i < f.len; i++) {
      if (f.data[i] < 0x80)
        n++, run = 0;
      else if (++run == 10)
        return -1;
    }
    return run ? -1 : n;
  }
  trak_pb_packed pk;
  uint64_t v[TRAK_COMPACT_BATCH];
  long n = 0;
  trak_pb_packed_init(&pk, &f, TRAK_PB_WIRE_VARINT);
  for (;;) {
    int bad = 0;
    size_t got = col_read(&pk, v, TRAK_COMPACT_BATCH, &bad);
    for (size_t i = 0; i < got; i++)
      if (take(c, v[i]) < 0) return -1;
    n += (long)got;
    if (bad) return -1;
    if (got < TRAK_COMPACT_BATCH) return n;
  }
}

int trak__compact_count(const trak_compact_sched *cs, int waking, trak_compact_count *out) {
  const uint32_t *fields = waking ? waking_fields : switch_fields;
  count_ctx c = {0, 0, 0, 1, (uint32_t)(cs->n_intern > UINT32_MAX ? UINT32_MAX : cs->n_intern)};
  long n = col_scan(cs->arrays[fields[0]], take_ts, &c);
  if (n < 0 || col_scan(cs->arrays[fields[4]], take_index, &c) != n) return 0;
  for (int k = 1; k < 4; k++)
    if (col_scan(cs->arrays[fields[k]], NULL, NULL) != n) return 0;
  if (waking && col_scan(cs->arrays[fields[5]], NULL, NULL) < 0) return 0;
  out->n = (size_t)n;
  out->first = c.first;
  out->last = c.ts;
  out->sorted = c.sorted;
  return 1;
}
