/*
** Tests of src/processor/util/compact_sched.c, the decoder of FtraceEventBundle.CompactSched:
** timestamps summed from deltas, comms looked up in the intern table, the optional
** waking_common_flags, and the cases Perfetto counts as compact_sched_has_parse_errors (arrays of
** different lengths, a truncated element, a comm index past the table); and the batch walk
** (trak__compact_batch_next), which must give exactly the events of the per-event walk. Messages
** are built here with trak's protobuf writer.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "processor/util/compact_sched.h"
#include "trak/pb.h"
#include "trak/protos.h"

#define F(name) TRAK_PB_FtraceEventBundle_CompactSched_##name

static void put_packed(trak_pb_buf *b, uint32_t field, const int64_t *v, size_t n) {
  uint64_t u[16];
  for (size_t i = 0; i < n; i++)
    u[i] = (uint64_t)v[i];
  trak_pb_put_packed_varint(b, field, u, n);
}

static void assert_strv(trak_strv v, const char *want) {
  if (v.len != strlen(want) || memcmp(v.s, want, v.len) != 0)
    fail_msg("got '%.*s', want '%s'", (int)v.len, v.s, want);
}

/* Builds a message with the intern table {"swapper/0", "foo"}, then `extra` appended. */
static trak_pb_buf message(void (*extra)(trak_pb_buf *)) {
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  trak_pb_put_string(&b, F(intern_table), "swapper/0");
  trak_pb_put_string(&b, F(intern_table), "foo");
  extra(&b);
  return b;
}

/* Opens the compact_sched message in `b`, which must succeed. */
static void open_ok(trak_compact_sched *cs, trak_pb_buf *b) {
  assert_int_equal(trak__compact_sched_open(cs, b->start, trak_pb_buf_len(b)), 0);
}

/* Closes `cs` and frees the message under it. */
static void close_all(trak_compact_sched *cs, trak_pb_buf *b) {
  trak__compact_sched_close(cs);
  trak_pb_buf_free(b);
}

/* Walks the switches of `cs`; returns their number and sets *bad and *last_ts (when any). */
static int count_switches(trak_compact_sched *cs, int *bad, int64_t *last_ts) {
  trak_compact_iter it;
  trak_compact_switch ev;
  int n = 0;
  trak__compact_switch_begin(&it, cs);
  while (trak__compact_switch_next(&it, &ev)) {
    n++;
    *last_ts = ev.ts;
  }
  *bad = trak__compact_iter_bad(&it);
  return n;
}

static void switches_two(trak_pb_buf *b) {
  put_packed(b, F(switch_timestamp), (int64_t[]){100, 50}, 2);
  put_packed(b, F(switch_prev_state), (int64_t[]){1, 0}, 2);
  put_packed(b, F(switch_next_pid), (int64_t[]){10, -1}, 2);
  put_packed(b, F(switch_next_prio), (int64_t[]){120, 100}, 2);
  put_packed(b, F(switch_next_comm_index), (int64_t[]){1, 0}, 2);
}

static void switches(void **state) {
  (void)state;
  trak_pb_buf b = message(switches_two);
  trak_compact_sched cs;
  open_ok(&cs, &b);
  assert_int_equal(cs.n_intern, 2);
  trak_compact_iter it;
  trak_compact_switch ev;
  trak__compact_switch_begin(&it, &cs);
  assert_int_equal(trak__compact_switch_next(&it, &ev), 1);
  assert_int_equal(ev.ts, 100);
  assert_int_equal(ev.prev_state, 1);
  assert_int_equal(ev.next_pid, 10);
  assert_int_equal(ev.next_prio, 120);
  assert_strv(ev.next_comm, "foo");
  assert_int_equal(ev.next_comm_index, 1); /* the front-end's interned id of the entry */
  assert_int_equal(trak__compact_switch_next(&it, &ev), 1);
  assert_int_equal(ev.ts, 150);
  assert_int_equal(ev.next_pid, -1);
  assert_strv(ev.next_comm, "swapper/0");
  assert_int_equal(ev.next_comm_index, 0);
  assert_int_equal(trak__compact_switch_next(&it, &ev), 0);
  assert_int_equal(trak__compact_iter_bad(&it), 0);
  /* No wakings in this message: an empty walk, not an error. */
  trak_compact_waking w;
  trak__compact_waking_begin(&it, &cs);
  assert_int_equal(trak__compact_waking_next(&it, &w), 0);
  assert_int_equal(trak__compact_iter_bad(&it), 0);
  close_all(&cs, &b);
}

static void wakings_flags(trak_pb_buf *b) {
  put_packed(b, F(waking_timestamp), (int64_t[]){5, 5}, 2);
  put_packed(b, F(waking_pid), (int64_t[]){10, 11}, 2);
  put_packed(b, F(waking_target_cpu), (int64_t[]){1, 2}, 2);
  put_packed(b, F(waking_prio), (int64_t[]){120, 100}, 2);
  put_packed(b, F(waking_comm_index), (int64_t[]){1, 1}, 2);
  put_packed(b, F(waking_common_flags), (int64_t[]){0x8}, 1);
}

/* common_flags may be shorter than the other arrays: the events past it have none. */
static void wakings(void **state) {
  (void)state;
  trak_pb_buf b = message(wakings_flags);
  trak_compact_sched cs;
  open_ok(&cs, &b);
  trak_compact_iter it;
  trak_compact_waking w;
  trak__compact_waking_begin(&it, &cs);
  assert_int_equal(trak__compact_waking_next(&it, &w), 1);
  assert_int_equal(w.ts, 5);
  assert_int_equal(w.pid, 10);
  assert_int_equal(w.target_cpu, 1);
  assert_int_equal(w.prio, 120);
  assert_strv(w.comm, "foo");
  assert_int_equal(w.comm_index, 1);
  assert_int_equal(w.has_common_flags, 1);
  assert_int_equal(w.common_flags, 8);
  assert_int_equal(trak__compact_waking_next(&it, &w), 1);
  assert_int_equal(w.ts, 10);
  assert_int_equal(w.pid, 11);
  assert_int_equal(w.has_common_flags, 0);
  assert_int_equal(trak__compact_waking_next(&it, &w), 0);
  assert_int_equal(trak__compact_iter_bad(&it), 0);
  close_all(&cs, &b);
}

static void short_pid(trak_pb_buf *b) {
  put_packed(b, F(switch_timestamp), (int64_t[]){1, 1}, 2);
  put_packed(b, F(switch_prev_state), (int64_t[]){0, 0}, 2);
  put_packed(b, F(switch_next_pid), (int64_t[]){7}, 1);
  put_packed(b, F(switch_next_prio), (int64_t[]){1, 1}, 2);
  put_packed(b, F(switch_next_comm_index), (int64_t[]){0, 0}, 2);
}
static void bad_index(trak_pb_buf *b) {
  put_packed(b, F(switch_timestamp), (int64_t[]){1, 1}, 2);
  put_packed(b, F(switch_prev_state), (int64_t[]){0, 0}, 2);
  put_packed(b, F(switch_next_pid), (int64_t[]){7, 8}, 2);
  put_packed(b, F(switch_next_prio), (int64_t[]){1, 1}, 2);
  put_packed(b, F(switch_next_comm_index), (int64_t[]){1, 2}, 2);
}
static void truncated(trak_pb_buf *b) {
  static const uint8_t cut[] = {0x80}; /* a varint whose continuation never comes */
  trak_pb_put_bytes(b, F(switch_timestamp), cut, sizeof cut);
  put_packed(b, F(switch_prev_state), (int64_t[]){0}, 1);
  put_packed(b, F(switch_next_pid), (int64_t[]){7}, 1);
  put_packed(b, F(switch_next_prio), (int64_t[]){1}, 1);
  put_packed(b, F(switch_next_comm_index), (int64_t[]){0}, 1);
}
/* switch_timestamp twice: the last one counts; written unpacked it reads as empty. */
static void repeated_ts(trak_pb_buf *b) {
  switches_two(b);
  put_packed(b, F(switch_timestamp), (int64_t[]){7, 8}, 2);
}
static void unpacked_ts(trak_pb_buf *b) {
  switches_two(b);
  trak_pb_put_varint(b, F(switch_timestamp), 7);
}

/* Runs the switch walk of a message; returns the number of events and sets *bad, *last_ts. */
static int walk(void (*extra)(trak_pb_buf *), int *bad, int64_t *last_ts) {
  trak_pb_buf b = message(extra);
  trak_compact_sched cs;
  open_ok(&cs, &b);
  int n = count_switches(&cs, bad, last_ts);
  close_all(&cs, &b);
  return n;
}

static void parse_errors(void **state) {
  (void)state;
  int bad;
  int64_t ts = -1;
  assert_int_equal(walk(short_pid, &bad, &ts), 1);
  assert_int_equal(bad, 1);
  assert_int_equal(walk(bad_index, &bad, &ts), 1); /* index 2 of a two-entry table */
  assert_int_equal(bad, 1);
  assert_int_equal(walk(truncated, &bad, &ts), 0);
  assert_int_equal(bad, 1);
  assert_int_equal(walk(repeated_ts, &bad, &ts), 2);
  assert_int_equal(bad, 0);
  assert_int_equal(ts, 15);
  assert_int_equal(walk(unpacked_ts, &bad, &ts), 0);
  assert_int_equal(bad, 1);
}

/* Bytes that stop being a message: the fields before the damage are kept. */
static void damaged_message(void **state) {
  (void)state;
  trak_pb_buf b = message(switches_two);
  static const uint8_t junk[] = {0x0a, 0x7f}; /* field 1, LEN 127: runs past the end */
  trak_pb_put_raw(&b, junk, sizeof junk);
  trak_compact_sched cs;
  open_ok(&cs, &b);
  int bad;
  int64_t ts;
  assert_int_equal(count_switches(&cs, &bad, &ts), 2);
  close_all(&cs, &b);
  assert_int_equal(trak__compact_sched_open(&cs, NULL, 0), 0);
  assert_int_equal(cs.n_intern, 0);
  trak__compact_sched_close(&cs);
}

/* The batch walk of one kind of cs's events, `max` at a time, against the per-event walk: the
** same number of events, each with the same values. */
static void batch_same(const trak_compact_sched *cs, const uint8_t *data, int waking, size_t max) {
  trak_compact_iter it;
  (waking ? trak__compact_waking_begin : trak__compact_switch_begin)(&it, cs);
  trak_compact_cols cols;
  trak__compact_cols_of(cs, data, waking, &cols);
  trak_compact_batch bw;
  trak__compact_batch_begin(&bw, data, &cols, waking);
  static trak_compact_rows rows;
  size_t n, total = 0;
  while ((n = trak__compact_batch_next(&bw, &rows, max))) {
    assert_true(n <= max);
    for (size_t i = 0; i < n; i++, total++) {
      trak_compact_switch s, sb;
      trak_compact_waking w, wb;
      if (!waking) {
        assert_int_equal(trak__compact_switch_next(&it, &s), 1);
        trak__compact_switch_set(&sb, rows.v[0][i], rows.v[1][i], rows.v[2][i], rows.v[3][i],
                                 rows.v[4][i]);
        assert_int_equal(s.ts, sb.ts);
        assert_int_equal(s.prev_state, sb.prev_state);
        assert_int_equal(s.next_pid, sb.next_pid);
        assert_int_equal(s.next_prio, sb.next_prio);
        assert_int_equal(s.next_comm_index, sb.next_comm_index);
      } else {
        assert_int_equal(trak__compact_waking_next(&it, &w), 1);
        trak__compact_waking_set(&wb, rows.v[0][i], rows.v[1][i], rows.v[2][i], rows.v[3][i],
                                 rows.v[4][i], i < rows.n_flags, rows.v[5][i]);
        assert_int_equal(w.ts, wb.ts);
        assert_int_equal(w.pid, wb.pid);
        assert_int_equal(w.target_cpu, wb.target_cpu);
        assert_int_equal(w.prio, wb.prio);
        assert_int_equal(w.comm_index, wb.comm_index);
        assert_int_equal(w.has_common_flags, wb.has_common_flags);
        assert_int_equal(w.common_flags, wb.common_flags);
      }
    }
    if (n < max) break;
  }
  assert_int_equal(trak__compact_batch_next(&bw, &rows, max), 0);
  trak_compact_switch s;
  trak_compact_waking w;
  assert_int_equal(waking ? trak__compact_waking_next(&it, &w) : trak__compact_switch_next(&it, &s),
                   0);
  (void)total;
}

/* 300 switches and wakings (more than a batch) of long varints: ten-byte negative pids, deltas
** of three to nine bytes, common_flags ending at event 200 (inside the second batch). */
static void long_arrays(trak_pb_buf *b) {
  enum { N = 300 };
  uint64_t ts[N], st[N], pid[N], prio[N], idx[N], fl[N];
  for (size_t i = 0; i < N; i++) {
    ts[i] = (uint64_t)1 << (i % 60);
    st[i] = i % 7 ? i : UINT64_MAX;
    pid[i] = (uint64_t)(int64_t)(i % 5 ? (int64_t)i * 1000 : -(int64_t)i);
    prio[i] = i % 140;
    idx[i] = i & 1;
    fl[i] = i * 3;
  }
  trak_pb_put_packed_varint(b, F(switch_timestamp), ts, N);
  trak_pb_put_packed_varint(b, F(switch_prev_state), st, N);
  trak_pb_put_packed_varint(b, F(switch_next_pid), pid, N);
  trak_pb_put_packed_varint(b, F(switch_next_prio), prio, N);
  trak_pb_put_packed_varint(b, F(switch_next_comm_index), idx, N);
  trak_pb_put_packed_varint(b, F(waking_timestamp), ts, N);
  trak_pb_put_packed_varint(b, F(waking_pid), pid, N);
  trak_pb_put_packed_varint(b, F(waking_target_cpu), st, N);
  trak_pb_put_packed_varint(b, F(waking_prio), prio, N);
  trak_pb_put_packed_varint(b, F(waking_comm_index), idx, N - 1); /* one short: 299 wakings */
  trak_pb_put_packed_varint(b, F(waking_common_flags), fl, 200);
}
/* An eleven-byte element in the middle of a long array: the walk ends there. */
static void eleven_bytes(trak_pb_buf *b) {
  uint8_t bytes[200 + 11 + 20];
  size_t n = 0;
  for (int i = 0; i < 200; i++)
    bytes[n++] = 1;
  for (int i = 0; i < 10; i++)
    bytes[n++] = 0xff;
  bytes[n++] = 0x01;
  for (int i = 0; i < 20; i++)
    bytes[n++] = 1;
  uint64_t zero[230] = {0};
  trak_pb_put_bytes(b, F(switch_timestamp), bytes, n);
  trak_pb_put_packed_varint(b, F(switch_prev_state), zero, 230);
  trak_pb_put_packed_varint(b, F(switch_next_pid), zero, 230);
  trak_pb_put_packed_varint(b, F(switch_next_prio), zero, 230);
  trak_pb_put_packed_varint(b, F(switch_next_comm_index), zero, 230);
  trak_pb_put_bytes(b, F(waking_common_flags), bytes, n);
  trak_pb_put_packed_varint(b, F(waking_timestamp), zero, 230);
  trak_pb_put_packed_varint(b, F(waking_pid), zero, 230);
  trak_pb_put_packed_varint(b, F(waking_target_cpu), zero, 230);
  trak_pb_put_packed_varint(b, F(waking_prio), zero, 230);
  trak_pb_put_packed_varint(b, F(waking_comm_index), zero, 230);
}

/* The batch walk gives the per-event walk's events on every message above, in batches of any
** size: where the walk ends early (a short array, a bad index, a truncated or eleven-byte
** element, common_flags ending), it ends at the same event. */
static void batch_walks(void **state) {
  (void)state;
  void (*const msgs[])(trak_pb_buf *) = {switches_two, wakings_flags, short_pid,   bad_index,
                                         truncated,    repeated_ts,   unpacked_ts, long_arrays,
                                         eleven_bytes};
  static const size_t maxes[] = {1, 2, 3, 127, TRAK_COMPACT_BATCH};
  for (size_t m = 0; m < sizeof msgs / sizeof *msgs; m++) {
    trak_pb_buf b = message(msgs[m]);
    trak_compact_sched cs;
    open_ok(&cs, &b);
    for (size_t k = 0; k < sizeof maxes / sizeof *maxes; k++) {
      batch_same(&cs, b.start, 0, maxes[k]);
      batch_same(&cs, b.start, 1, maxes[k]);
    }
    close_all(&cs, &b);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(switches),
      cmocka_unit_test(wakings),
      cmocka_unit_test(parse_errors),
      cmocka_unit_test(damaged_message),
      cmocka_unit_test(batch_walks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
