/*
** Tests of the decoding thread's reader specialised for plain sched events
** (trak__ftrace_predecode_fast, src/processor/import/proto/ftrace_predecode.c) against the
** generic decoder (trak__ftrace_predecode_event): on plain sched_switch / sched_waking events the
** fast reader takes them and decodes exactly what the generic one does; on every edge (repeated
** fields, negative and truncated values, padded lengths, a head after the event, unknown fields,
** wrong wire types, two events, malformed bytes, too few bytes readable after the event) it
** either decodes the same or leaves the event to the generic one; and so on every one-byte
** change and every truncation of a plain event.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "processor/import/proto/proto.h"
#include "trak/pb.h"
#include "trak/protos.h"

#define PAD 16 /* bytes readable after an event for the fast reader */

/* An event's bytes in `buf` (with PAD bytes after them in the buffer). */
typedef struct ev_bytes {
  uint8_t buf[512];
  size_t len;
} ev_bytes;

static void take(trak_pb_buf *b, ev_bytes *out) {
  assert_false(b->error);
  out->len = trak_pb_buf_len(b);
  assert_true(out->len + PAD <= sizeof out->buf);
  memset(out->buf, 0, sizeof out->buf);
  memcpy(out->buf, b->start, out->len);
  trak_pb_buf_free(b);
}

/* Decodes `len` bytes at `data` with both readers (`limit`: where reading stops being safe);
** returns whether the fast one took them, after checking it decoded what the generic one did. */
static int both(const uint8_t *data, size_t len, const uint8_t *limit) {
  trak_fpre_ev g, f;
  memset(&g, 0x55, sizeof g);
  memset(&f, 0xaa, sizeof f);
  trak__ftrace_predecode_event(limit, data, len, &g);
  if (!trak__ftrace_predecode_fast(limit, data, len, &f)) return 0;
  assert_true(f.kind == TRAK_FPRE_SWITCH || f.kind == TRAK_FPRE_WAKING);
  assert_true(trak__fpre_ev_same(&g, &f));
  return 1;
}

static int both_ev(const ev_bytes *e) {
  return both(e->buf, e->len, e->buf + e->len + PAD);
}

/* A plain sched_switch: every field, with the head's fields in the order the kernel writes. */
static void plain_switch(ev_bytes *out, int64_t state, int flags) {
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  trak_pb_put_varint(&b, TRAK_PB_FtraceEvent_timestamp, 123456789012ull);
  trak_pb_put_varint(&b, TRAK_PB_FtraceEvent_pid, 4242);
  if (flags) trak_pb_put_varint(&b, TRAK_PB_FtraceEvent_common_flags, 0x1ffffffffull);
  trak_pb_nested s = trak_pb_begin_nested(&b, TRAK_PB_FtraceEvent_sched_switch);
  trak_pb_put_string(&b, TRAK_PB_SchedSwitchFtraceEvent_prev_comm, "prev");
  trak_pb_put_int32(&b, TRAK_PB_SchedSwitchFtraceEvent_prev_pid, 4242);
  trak_pb_put_int32(&b, TRAK_PB_SchedSwitchFtraceEvent_prev_prio, -3);
  trak_pb_put_int64(&b, TRAK_PB_SchedSwitchFtraceEvent_prev_state, state);
  trak_pb_put_string(&b, TRAK_PB_SchedSwitchFtraceEvent_next_comm, "next-thread-name");
  trak_pb_put_int32(&b, TRAK_PB_SchedSwitchFtraceEvent_next_pid, 7);
  trak_pb_put_int32(&b, TRAK_PB_SchedSwitchFtraceEvent_next_prio, 120);
  trak_pb_end_nested(&b, s);
  take(&b, out);
}

/* A plain sched_waking with its success field, the head after the event. */
static void plain_waking(ev_bytes *out) {
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  trak_pb_nested w = trak_pb_begin_nested(&b, TRAK_PB_FtraceEvent_sched_waking);
  trak_pb_put_string(&b, TRAK_PB_SchedWakingFtraceEvent_comm, "w");
  trak_pb_put_int32(&b, TRAK_PB_SchedWakingFtraceEvent_pid, 300000);
  trak_pb_put_int32(&b, TRAK_PB_SchedWakingFtraceEvent_prio, 100);
  trak_pb_put_int32(&b, TRAK_PB_SchedWakingFtraceEvent_success, 1);
  trak_pb_put_int32(&b, TRAK_PB_SchedWakingFtraceEvent_target_cpu, 3);
  trak_pb_end_nested(&b, w);
  trak_pb_put_varint(&b, TRAK_PB_FtraceEvent_common_flags, 0x8);
  trak_pb_put_varint(&b, TRAK_PB_FtraceEvent_timestamp, 5);
  trak_pb_put_varint(&b, TRAK_PB_FtraceEvent_pid, 0x1ffffffffull); /* truncated to 32 bits */
  take(&b, out);
}

static void test_plain_events_fast(void **state) {
  ev_bytes e;
  plain_switch(&e, 1, 0);
  assert_true(both_ev(&e));
  plain_switch(&e, -1, 1); /* a ten-byte varint, flags past 32 bits */
  assert_true(both_ev(&e));
  plain_switch(&e, 1ll << 40, 1);
  assert_true(both_ev(&e));
  plain_waking(&e);
  assert_true(both_ev(&e));
  /* what the fast reader wrote, checked by hand too (not only against the generic one) */
  trak_fpre_ev f;
  assert_true(trak__ftrace_predecode_fast(e.buf + e.len + PAD, e.buf, e.len, &f));
  assert_int_equal(f.kind, TRAK_FPRE_WAKING);
  assert_int_equal(f.ts, 5);
  assert_int_equal(f.pid, 0xffffffffu);
  assert_int_equal(f.flags, 8);
  assert_int_equal(f.has, 0x3e);
  assert_int_equal(f.v[TRAK_PB_SchedWakingFtraceEvent_pid], 300000);
  assert_int_equal(f.s_len[0], 1);
  assert_memory_equal(f.s[0], "w", 1);
  (void)state;
}

/* Events built field by field: `fields` (number, wire type, value) of a sched_switch (or of
** `event` when not 0) after a head of timestamp and pid. */
typedef struct raw_field {
  uint32_t number, wire;
  uint64_t value; /* a varint's value, or a LEN field's length (bytes "xyz..." follow) */
} raw_field;

static void raw_event(ev_bytes *out, uint32_t event, const raw_field *fs, int n) {
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  trak_pb_put_varint(&b, TRAK_PB_FtraceEvent_timestamp, 99);
  trak_pb_put_varint(&b, TRAK_PB_FtraceEvent_pid, 9);
  trak_pb_nested s = trak_pb_begin_nested(&b, event ? event : TRAK_PB_FtraceEvent_sched_switch);
  for (int i = 0; i < n; i++) {
    if (fs[i].wire == TRAK_PB_WIRE_LEN) {
      static const char bytes[] = "xyzxyzxyzxyzxyzxyzxyz";
      trak_pb_put_bytes(&b, fs[i].number, bytes, (size_t)fs[i].value);
    } else if (fs[i].wire == TRAK_PB_WIRE_FIXED32) {
      trak_pb_put_fixed32(&b, fs[i].number, (uint32_t)fs[i].value);
    } else {
      trak_pb_put_varint(&b, fs[i].number, fs[i].value);
    }
  }
  trak_pb_end_nested(&b, s);
  take(&b, out);
}

static void test_edges(void **state) {
  ev_bytes e;
  const uint32_t V = TRAK_PB_WIRE_VARINT, L = TRAK_PB_WIRE_LEN;
  /* taken: no fields, some fields, a field repeated (the last value and string count) */
  raw_event(&e, 0, NULL, 0);
  assert_true(both_ev(&e));
  raw_field some[] = {{TRAK_PB_SchedSwitchFtraceEvent_next_pid, V, 5}};
  raw_event(&e, 0, some, 1);
  assert_true(both_ev(&e));
  raw_field again[] = {{2, V, 5}, {1, L, 3}, {2, V, 6}, {1, L, 0}, {5, L, 20}};
  raw_event(&e, 0, again, 5);
  assert_true(both_ev(&e));
  raw_field waking[] = {{1, L, 2}, {4, V, 0}, {4, V, 1}};
  raw_event(&e, TRAK_PB_FtraceEvent_sched_waking, waking, 3);
  assert_true(both_ev(&e));
  /* left to the generic one, which decides: an unknown field, a field of the other event, a
  ** wrong wire type, a string as a varint, another event kind */
  raw_field unknown[] = {{2, V, 5}, {8, V, 1}};
  raw_event(&e, 0, unknown, 2);
  assert_false(both_ev(&e));
  raw_field waking_only[] = {{TRAK_PB_SchedWakingFtraceEvent_target_cpu, V, 1}};
  raw_event(&e, 0, (raw_field[]){{6, V, 1}, {7, V, 2}}, 2);
  assert_true(both_ev(&e));
  raw_event(&e, TRAK_PB_FtraceEvent_sched_waking, (raw_field[]){{6, V, 1}}, 1);
  assert_false(both_ev(&e));
  raw_event(&e, TRAK_PB_FtraceEvent_sched_waking, waking_only, 1);
  assert_true(both_ev(&e));
  raw_event(&e, 0, (raw_field[]){{2, TRAK_PB_WIRE_FIXED32, 5}}, 1);
  assert_false(both_ev(&e));
  raw_event(&e, 0, (raw_field[]){{1, V, 5}}, 1);
  assert_false(both_ev(&e));
  raw_event(&e, 0, (raw_field[]){{2, L, 1}}, 1);
  assert_false(both_ev(&e));
  raw_event(&e, TRAK_PB_FtraceEvent_cpu_frequency, some, 1);
  assert_false(both_ev(&e));
  (void)state;
}

/* Hand-made bytes: each a whole FtraceEvent. */
static void test_bytes(void **state) {
  static const struct {
    const char *what;
    uint8_t b[24];
    size_t len;
    int fast; /* the fast reader takes it */
  } cases[] = {
      {"switch {prev_pid 2}", {0x08, 0x01, 0x22, 0x02, 0x10, 0x02}, 6, 1},
      {"two-byte non-canonical length", {0x08, 0x01, 0x22, 0x82, 0x00, 0x10, 0x02}, 7, 1},
      {"two-byte tag of a head field", {0x88, 0x00, 0x01, 0x22, 0x02, 0x10, 0x02}, 7, 1},
      {"two-byte tag inside the event", {0x22, 0x03, 0x90, 0x00, 0x02}, 5, 0},
      {"field 0 inside the event", {0x22, 0x02, 0x00, 0x02}, 4, 0},
      {"two events: the last taken", {0x22, 0x02, 0x10, 0x02, 0x22, 0x02, 0x10, 0x03}, 8, 0},
      {"switch then waking", {0x22, 0x00, 0xa2, 0x01, 0x02, 0x10, 0x03}, 7, 0},
      {"timestamp as bytes", {0x0a, 0x01, 0x00, 0x22, 0x00}, 5, 0},
      {"no event", {0x08, 0x01, 0x10, 0x02}, 4, 0},
      {"the event as a varint", {0x20, 0x01}, 2, 0},
      {"truncated varint in the event", {0x22, 0x02, 0x10, 0x82}, 4, 0},
      {"length past the event", {0x22, 0x03, 0x0a, 0x05, 0x61}, 5, 0},
      {"string past the FtraceEvent", {0x22, 0x05, 0x0a, 0x09, 0x61}, 5, 0},
      {"event past the FtraceEvent", {0x08, 0x01, 0x22, 0x7f}, 4, 0},
      {"eleven-byte varint",
       {0x22, 0x0c, 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
       14,
       0},
      {"ten-byte varint, top byte 2",
       {0x22, 0x0b, 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02},
       13,
       0},
      {"group wire type in the head", {0x0b, 0x22, 0x00}, 3, 0},
      {"fixed64 flags", {0x29, 1, 2, 3, 4, 5, 6, 7, 8, 0x22, 0x00}, 11, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    uint8_t buf[64] = {0};
    memcpy(buf, cases[i].b, cases[i].len);
    print_message("%s\n", cases[i].what);
    assert_int_equal(both(buf, cases[i].len, buf + cases[i].len + PAD), cases[i].fast);
    /* too few bytes readable after it: always the generic one */
    assert_false(both(buf, cases[i].len, buf + cases[i].len + PAD - 1));
    assert_false(both(buf, cases[i].len, NULL));
  }
  (void)state;
}

/* Every one-byte change (to every value) and every truncation of plain events: whatever the
** fast reader takes, it decodes as the generic one does. */
static void test_every_change(void **state) {
  ev_bytes base[3];
  plain_switch(&base[0], -1, 1);
  plain_waking(&base[1]);
  raw_field again[] = {{2, TRAK_PB_WIRE_VARINT, 300}, {1, TRAK_PB_WIRE_LEN, 3}};
  raw_event(&base[2], 0, again, 2);
  size_t taken = 0, left = 0;
  for (int k = 0; k < 3; k++) {
    for (size_t i = 0; i < base[k].len; i++) {
      for (int v = 0; v < 256; v++) {
        ev_bytes e = base[k];
        e.buf[i] = (uint8_t)v;
        if (both_ev(&e))
          taken++;
        else
          left++;
      }
    }
    for (size_t n = 0; n < base[k].len; n++) {
      ev_bytes e = base[k];
      e.len = n;
      (void)both_ev(&e);
    }
  }
  assert_true(taken > 1000); /* the changes of values the fast reader takes */
  assert_true(left > 1000);
  (void)state;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plain_events_fast),
      cmocka_unit_test(test_edges),
      cmocka_unit_test(test_bytes),
      cmocka_unit_test(test_every_change),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
