/*
** The central buffer's side of chunk scraping (session.c's import_reserve / import_commit and
** readout's continuation rule), without processes: the rest of a chunk joins its first part
** while that is unread; follows it as a continuation once it was read; and reads as a loss
** (previous_packet_dropped on the next packet that restarts incremental state, nothing before
** it) when a ring buffer overwrote the first part.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sdk/backend.h"

#define SEQ 5
#define OTHER 6

/* Serialized Trace.packet fields: timestamps from `ts`, `n` of them; the one at `restart`
** (or none when -1) clears incremental state. */
static size_t packets(uint8_t *out, uint64_t ts, int n, int restart) {
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  for (int i = 0; i < n; i++) {
    trak_pb_nested p = trak_pb_begin_nested(&b, TRAK_PB_Trace_packet);
    trak_pb_put_varint(&b, TRAK_PB_TracePacket_timestamp, ts + (uint64_t)i);
    if (i == restart)
      trak_pb_put_varint(&b, TRAK_PB_TracePacket_sequence_flags,
                         TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED);
    trak_pb_end_nested(&b, p);
  }
  size_t len = trak_pb_buf_len(&b);
  memcpy(out, b.start, len);
  trak_pb_buf_free(&b);
  return len;
}

/* Imports `n` packets of chunk (seq, cindex) as the daemon does; `continues` with *at from the
** part before. Returns 0, or -1 when the buffer had no room. */
static int import(trak_session *s, uint32_t seq, uint32_t cindex, uint64_t ts, int n, int restart,
                  int continues, uint32_t *at) {
  uint8_t data[512];
  size_t len = packets(data, ts, n, restart);
  pthread_mutex_lock(&s->lock);
  uint8_t *room = trak__session_import_reserve(s, seq, cindex, (uint32_t)len, continues, at);
  if (room) {
    memcpy(room, data, len);
    trak__session_import_commit(s, *at, (uint32_t)len, (uint32_t)n, 0, 1);
  }
  pthread_mutex_unlock(&s->lock);
  return room ? 0 : -1;
}

typedef struct seen {
  int n;
  uint64_t ts[32];
  int dropped[32];
} seen;

/* The packets of sequence SEQ that a read of `s` yields. */
static void read_seq(trak_session *s, seen *out) {
  memset(out, 0, sizeof *out);
  uint8_t *data;
  size_t len;
  assert_int_equal(trak_session_read(s, &data, &len, NULL), 0);
  trak_pb_decoder d, pd;
  trak_pb_field f, g;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    assert_int_equal(trak_pb_decoder_init_nested(&pd, &d, &f), 0);
    uint64_t ts = 0, seq = 0;
    int dropped = 0;
    while (trak_pb_decoder_next(&pd, &g) == 1) {
      if (g.number == TRAK_PB_TracePacket_timestamp) ts = g.value;
      if (g.number == TRAK_PB_TracePacket_trusted_packet_sequence_id) seq = g.value;
      if (g.number == TRAK_PB_TracePacket_previous_packet_dropped) dropped = g.value != 0;
    }
    if (seq != SEQ) continue;
    assert_true(out->n < 32);
    out->ts[out->n] = ts;
    out->dropped[out->n++] = dropped;
  }
  free(data);
}

static trak_session *central(uint32_t chunks, int ring) {
  trak_session_config cfg = {.buffer_size_kb = 1,
                             .chunk_size = 1024 / chunks,
                             .fill_policy = ring ? TRAK_FILL_RING : TRAK_FILL_DISCARD};
  trak_session *s;
  assert_int_equal(trak_session_new(&cfg, &s, NULL), 0);
  return s;
}

/* The rest joins its unread first part: one chunk, every packet once, in order. */
static void test_rest_joins_unread_part(void **state) {
  (void)state;
  trak_session *s = central(2, 0);
  uint32_t at = 0, first;
  assert_int_equal(import(s, SEQ, 0, 100, 3, 0, 0, &at), 0);
  first = at;
  assert_int_equal(import(s, SEQ, 0, 103, 2, -1, 1, &at), 0);
  assert_int_equal(at, first); /* the same central chunk */
  seen r;
  read_seq(s, &r);
  assert_int_equal(r.n, 5);
  for (int i = 0; i < 5; i++) {
    assert_int_equal(r.ts[i], 100 + i);
    assert_int_equal(r.dropped[i], 0);
  }
  trak_session_free(s);
}

/* The first part was read out (written to the file) before the rest came: the rest follows it
** as a continuation, with no packet repeated and no loss reported. */
static void test_rest_after_read_part(void **state) {
  (void)state;
  trak_session *s = central(2, 0);
  uint32_t at = 0;
  seen r;
  assert_int_equal(import(s, SEQ, 0, 100, 3, 0, 0, &at), 0);
  read_seq(s, &r);
  assert_int_equal(r.n, 3);
  assert_int_equal(import(s, SEQ, 0, 103, 2, -1, 1, &at), 0);
  assert_int_equal(import(s, SEQ, 1, 105, 1, -1, 0, &at), 0); /* the next chunk */
  read_seq(s, &r);
  assert_int_equal(r.n, 3);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(r.ts[i], 103 + i);
    assert_int_equal(r.dropped[i], 0);
  }
  trak_session_free(s);
}

/* A ring overwrote the unread first part: the rest's packets are withheld until one restarts
** incremental state, which carries previous_packet_dropped. */
static void test_rest_of_lost_part(void **state) {
  (void)state;
  trak_session *s = central(2, 1);
  uint32_t at = 0, other = 0;
  seen r;
  assert_int_equal(import(s, SEQ, 0, 100, 3, 0, 0, &at), 0);
  assert_int_equal(import(s, OTHER, 0, 900, 1, 0, 0, &other), 0);
  assert_int_equal(import(s, OTHER, 1, 901, 1, -1, 0, &other), 0); /* overwrites SEQ's */
  assert_int_equal(import(s, SEQ, 0, 103, 3, 1, 1, &at), 0);       /* restart at 104 */
  read_seq(s, &r);
  assert_int_equal(r.n, 2);
  assert_int_equal(r.ts[0], 104);
  assert_int_equal(r.dropped[0], 1);
  assert_int_equal(r.ts[1], 105);
  assert_int_equal(r.dropped[1], 0);
  trak_session_stats st;
  trak_session_get_stats(s, &st);
  /* Withheld: 103, and OTHER's 901 (its chunk 0 went to the rest, so chunk 1 follows a gap). */
  assert_int_equal(st.packets_skipped, 2);
  assert_int_equal(st.chunks_overwritten, 2);
  trak_session_free(s);
}

/* A discard buffer with no room refuses the import and counts the chunk. */
static void test_full_discard_refuses(void **state) {
  (void)state;
  trak_session *s = central(2, 0);
  uint32_t at = 0;
  assert_int_equal(import(s, SEQ, 0, 100, 1, 0, 0, &at), 0);
  assert_int_equal(import(s, SEQ, 1, 101, 1, -1, 0, &at), 0);
  assert_int_equal(import(s, SEQ, 2, 102, 1, -1, 0, &at), -1);
  trak_session_stats st;
  trak_session_get_stats(s, &st);
  assert_int_equal(st.chunks_discarded, 1);
  seen r;
  read_seq(s, &r);
  assert_int_equal(r.n, 2);
  assert_int_equal(import(s, SEQ, 3, 103, 1, 0, 0, &at), 0); /* room again once read */
  trak_session_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rest_joins_unread_part),
      cmocka_unit_test(test_rest_after_read_part),
      cmocka_unit_test(test_rest_of_lost_part),
      cmocka_unit_test(test_full_discard_refuses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
