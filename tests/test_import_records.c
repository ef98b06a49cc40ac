/*
** Unit tests of the importer's event records (src/processor/import/sequence.c): records packed
** against the sequence's previous one read back exactly (every field at every width, the common
** 8-byte form's limits, out-of-order and wrapping deltas, the ftrace crop's drop; records
** written in place by sequence_put.h, held arg set ids among them; an out-of-order sequence's
** sort, event_merge.c), and the memo
** of debug annotations' arg sets (proto/debug_annotations.c), which must not outlive what an
** interned name meant.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "import_fixture.h"
#include "processor/import/event_merge.h"
#include "processor/import/sequence_put.h"
#include "sqlcheck.h"

/* A bare importer of a large trace: its memory bound never drops a record. */
static int setup(void **state) {
  import_fixture_setup(state);
  ((fixture *)*state)->imp.bytes_plain = 1u << 30;
  return 0;
}
#define teardown import_fixture_teardown

static uint64_t rnd(uint64_t *s) { /* xorshift64* */
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

/* A value of one of the widths a packed field takes: 0, 1, 2, 3 or 4 bytes, or any. */
static uint32_t any32(uint64_t *s) {
  static const uint32_t masks[] = {0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF};
  uint64_t r = rnd(s);
  return (uint32_t)(r >> 32) & masks[r % 5];
}

static void assert_ev_equal(const trak_ev *a, const trak_ev *b) {
  assert_int_equal(a->ts, b->ts);
  assert_int_equal(a->track, b->track);
  assert_int_equal(a->pkt, b->pkt);
  assert_memory_equal(&a->u, &b->u, sizeof a->u);
  assert_int_equal(a->arg_set_id, b->arg_set_id);
  assert_int_equal(a->aux, b->aux);
}

/* Pushes `n` records into sequence 1, unpacks it and compares each record with what was
** pushed. */
static void round_trip(fixture *f, const trak_ev *evs, size_t n) {
  trak_sequence *seq = trak__sequence_get(&f->imp, 1);
  for (size_t i = 0; i < n; i++)
    trak__sequence_push(&f->imp, seq, &evs[i]);
  assert_int_equal(seq->n_events, n);
  trak__sequence_unpack(seq);
  assert_null(seq->head);
  assert_int_equal(seq->n_events, n);
  for (size_t i = 0; i < n; i++)
    assert_ev_equal(&seq->all[i], &evs[i]);
}

/* Random records, each field at a random width (timestamps jumping back and forth, tracks
** changing or not, counter values of any bits) come back as they were. */
static void test_random_records(void **state) {
  fixture *f = *state;
  enum { N = 200000 };
  trak_ev *evs = test_malloc(N * sizeof *evs);
  uint64_t s = 88172645463325252ull;
  uint64_t ts = 0; /* wraps, as the records' deltas do */
  uint32_t pkt = 0, track = 0;
  for (size_t i = 0; i < N; i++) {
    uint64_t r = rnd(&s);
    ts += r % 3 == 0 ? r >> 40 : r % 3 == 1 ? (uint64_t)any32(&s) - any32(&s) : rnd(&s);
    pkt += r % 7 == 0 ? any32(&s) : (uint32_t)(r >> 60);
    if (r % 4 == 0) track = any32(&s) & TRAK_EV_TRACK_MASK;
    evs[i].ts = (int64_t)ts;
    evs[i].pkt = pkt;
    evs[i].track = (uint32_t)(1 + (r >> 8) % 7) << TRAK_EV_TYPE_SHIFT | track;
    evs[i].u.s.name = any32(&s);
    evs[i].u.s.cat = any32(&s);
    if (r % 11 == 0) {
      double v = (double)(int64_t)rnd(&s) / 7.0;
      evs[i].u.value = v;
    }
    evs[i].arg_set_id = r % 5 == 0 ? TRAK_NULL_U32 : any32(&s);
    evs[i].aux = r % 3 == 0 ? 0 : any32(&s);
  }
  round_trip(f, evs, N);
  assert_true(trak__sequence_get(&f->imp, 1)->unsorted);
  test_free(evs);
}

/* The common 8-byte form's limits: a timestamp delta of 2^20 - 1, a packet delta of 255, names
** and categories of 65535 are common; one more of any is not, and both read back. Begins and
** ends of that form take 8 bytes each (32 before records were packed). */
static void test_common_form_limits(void **state) {
  fixture *f = *state;
  const uint32_t B = (uint32_t)TRAK_EV_BEGIN << TRAK_EV_TYPE_SHIFT | 5,
                 E = (uint32_t)TRAK_EV_END << TRAK_EV_TYPE_SHIFT | 5;
  trak_ev evs[] = {
      {1000, B, 1, {{3, 4}}, TRAK_NULL_U32, 0},                            /* first */
      {1000 + 0xFFFFF, B, 256, {{65535, 65535}}, TRAK_NULL_U32, 0},        /* limits */
      {1000 + 0xFFFFF + 0x100000, E, 512, {{0, 0}}, TRAK_NULL_U32, 0},     /* ts + 1 */
      {1000 + 0xFFFFF + 0x100001, E, 768, {{0, 0}}, TRAK_NULL_U32, 0},     /* pkt + 1 */
      {1000 + 0xFFFFF + 0x100002, B, 769, {{65536, 1}}, TRAK_NULL_U32, 0}, /* name + 1 */
      {1000 + 0xFFFFF + 0x100003, B, 770, {{1, 65536}}, TRAK_NULL_U32, 0}, /* cat + 1 */
      {1000 + 0xFFFFF + 0x100004, B, 771, {{1, 1}}, 0, 0},                 /* args 0 */
      {1000 + 0xFFFFF + 0x100005, B, 772, {{1, 1}}, TRAK_NULL_U32, 1},     /* aux */
      {1000 + 0xFFFFF + 0x100006, B | 1, 773, {{1, 1}}, TRAK_NULL_U32, 0}, /* track */
      {1000 + 0xFFFFF + 0x100006, E | 1, 773, {{0, 0}}, TRAK_NULL_U32, 0}, /* same ts */
  };
  trak_sequence *seq = trak__sequence_get(&f->imp, 1);
  size_t n = sizeof evs / sizeof *evs;
  for (size_t i = 0; i < n; i++)
    trak__sequence_push(&f->imp, seq, &evs[i]);
  assert_false(seq->unsorted);
  trak__sequence_unpack(seq);
  for (size_t i = 0; i < n; i++)
    assert_ev_equal(&seq->all[i], &evs[i]);

  trak_sequence *common = trak__sequence_get(&f->imp, 2);
  for (uint32_t i = 0; i < 10000; i++) {
    trak_ev ev = {100 + 700 * (int64_t)i, (i % 2 ? E : B), 3 + 16 * i, {{0, 0}}, TRAK_NULL_U32, 0};
    if (!(i % 2)) ev.u.s.name = 1 + i % 200, ev.u.s.cat = 1 + i % 8;
    trak__sequence_push(&f->imp, common, &ev);
  }
  size_t bytes = 0;
  for (const trak_ev_block *b = common->head; b; b = b->next)
    bytes += b->used;
  assert_true(bytes <= 8 * 10000 + 32); /* the first record is not common: its ts delta */
}

/* Records written in place (sequence_put.h) are the bytes trak__sequence_push (or
** trak__sequence_push_held) writes: in either form, through the generic packing's fallbacks
** (timestamp deltas of 2^32 or more, packet deltas of 256 or more, a full block), with held arg
** set ids written afterwards; they read back as pushed, and the counts and the order flag are
** the same. */
static void test_put_records(void **state) {
  fixture *f = *state;
  enum { N = 100000 };
  trak_ev *evs = test_malloc(N * sizeof *evs);
  uint8_t **held = test_malloc(N * sizeof *held), **held2 = test_malloc(N * sizeof *held2);
  uint64_t s = 0x9E3779B97F4A7C15ull, ts = 5;
  uint32_t pkt = 0, track = 3;
  trak_sequence *put = trak__sequence_get(&f->imp, 1);
  for (size_t i = 0; i < N; i++) {
    uint64_t r = rnd(&s);
    ts += r % 16 == 0 ? rnd(&s) : r % 4 == 0 ? (uint64_t)any32(&s) - any32(&s) : r >> 44;
    pkt += r % 32 == 0 ? any32(&s) : (uint32_t)(r >> 56);
    if (r % 8 == 0) track = any32(&s) & TRAK_EV_TRACK_MASK;
    evs[i].ts = (int64_t)ts;
    evs[i].pkt = pkt;
    evs[i].track = (uint32_t)(1 + (r >> 8) % 7) << TRAK_EV_TYPE_SHIFT | track;
    evs[i].u.s.name = r % 9 == 0 ? any32(&s) : any32(&s) & 0xFFFF;
    evs[i].u.s.cat = r % 9 == 1 ? any32(&s) : any32(&s) & 0xFFFF;
    if (r % 13 == 0) evs[i].u.value = (double)(int64_t)rnd(&s) / 3.0;
    evs[i].arg_set_id = r % 3 == 0 ? TRAK_NULL_U32 : any32(&s);
    if (evs[i].arg_set_id == TRAK_NULL_U32 - 1) evs[i].arg_set_id = 0;
    evs[i].aux = r % 2 ? 0 : any32(&s);
    int hold = (r >> 20) % 5 == 0 && evs[i].arg_set_id != TRAK_NULL_U32;
    uint32_t type = evs[i].track >> TRAK_EV_TYPE_SHIFT;
    uint64_t u;
    memcpy(&u, &evs[i].u, 8);
    held[i] = trak__sequence_put(&f->imp, put, evs[i].ts, type, track, pkt, u,
                                 hold ? TRAK_NULL_U32 - 1 : evs[i].arg_set_id, evs[i].aux, hold);
    if (hold)
      assert_non_null(held[i]);
    else
      held[i] = NULL;
  }
  uint64_t counts[8];
  memcpy(counts, f->imp.n_of_type, sizeof counts);
  trak_sequence *push = trak__sequence_get(&f->imp, 2);
  for (size_t i = 0; i < N; i++)
    if (held[i])
      held2[i] = trak__sequence_push_held(&f->imp, push, &evs[i]);
    else
      trak__sequence_push(&f->imp, push, &evs[i]);
  for (int t = 0; t < 8; t++)
    assert_int_equal(f->imp.n_of_type[t], 2 * counts[t]);
  assert_int_equal(put->unsorted, push->unsorted);
  for (size_t i = 0; i < N; i++)
    if (held[i]) {
      trak__sequence_held_args(held[i], evs[i].arg_set_id);
      trak__sequence_held_args(held2[i], evs[i].arg_set_id);
    }
  const trak_ev_block *a = put->head, *b = push->head;
  for (; a && b; a = a->next, b = b->next) {
    assert_int_equal(a->used, b->used);
    assert_memory_equal(a->data, b->data, a->used);
  }
  assert_true(!a && !b);
  trak__sequence_unpack(put);
  assert_int_equal(put->n_events, N);
  for (size_t i = 0; i < N; i++)
    assert_ev_equal(&put->all[i], &evs[i]);
  test_free(held2);
  test_free(held);
  test_free(evs);
}

/* The ftrace crop drops the records it saw before the soft limit, not those pushed after it. */
static void test_crop_drop(void **state) {
  fixture *f = *state;
  trak_sequence *seq = trak__sequence_get(&f->imp, 1);
  const uint32_t C = (uint32_t)TRAK_EV_COUNTER << TRAK_EV_TYPE_SHIFT | 2;
  for (int64_t ts = 0; ts < 10; ts++) {
    trak_ev ev = {ts, C, (uint32_t)ts, {{0, 0}}, TRAK_NULL_U32, 0};
    ev.u.value = (double)ts;
    trak__sequence_push(&f->imp, seq, &ev);
  }
  seq->drop_n = seq->n_events, seq->drop_before = 6;
  trak_ev late = {1, C, 10, {{0, 0}}, TRAK_NULL_U32, 0};
  late.u.value = 1.5;
  trak__sequence_push(&f->imp, seq, &late);
  trak__sequence_unpack(seq);
  assert_int_equal(seq->n_events, 5);
  for (int i = 0; i < 4; i++)
    assert_int_equal(seq->all[i].ts, 6 + i);
  assert_ev_equal(&seq->all[4], &late);
}

static int ts_pkt_cmp(const void *pa, const void *pb) {
  const trak_ev *a = pa, *b = pb;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return a->pkt < b->pkt ? -1 : a->pkt > b->pkt;
}

/* An out-of-order sequence is sorted by timestamp, ties in packet order (trak__ev_merge_prepare's
** merge sort): bursts in order, each starting back inside the one before it (runs that overlap
** over part of their length, or not at all, or wholly), many timestamps shared. */
static void test_sort_runs(void **state) {
  fixture *f = *state;
  enum { N = 20000 };
  trak_ev *evs = test_malloc(N * sizeof *evs);
  trak_sequence *seq = trak__sequence_get(&f->imp, 1);
  const uint32_t C = (uint32_t)TRAK_EV_COUNTER << TRAK_EV_TYPE_SHIFT | 2;
  uint64_t s = 0x9E3779B97F4A7C15ull;
  int64_t ts = 1000000;
  for (size_t i = 0; i < N; i++) {
    uint64_t r = rnd(&s);
    if (r % 97 == 0) /* a new burst: back by up to 2 bursts' length, or forward */
      ts += (int64_t)(rnd(&s) % 4000) - 3000;
    else
      ts += (int64_t)(r % 4); /* 0: a tie */
    evs[i] = (trak_ev){ts, C, (uint32_t)i, {{0, 0}}, TRAK_NULL_U32, 0};
    evs[i].u.value = (double)i;
    trak__sequence_push(&f->imp, seq, &evs[i]);
  }
  assert_true(seq->unsorted);
  trak__ev_merge_prepare(&f->imp);
  qsort(evs, N, sizeof *evs, ts_pkt_cmp);
  assert_int_equal(seq->n_events, N);
  for (size_t i = 0; i < N; i++)
    assert_ev_equal(&seq->all[i], &evs[i]);
  test_free(evs);
}

/* ---- the memo of debug annotations' arg sets ---- */

#define PKT(seq, flags, ts, body)                                                                  \
  "packet { trusted_packet_sequence_id: " #seq " sequence_flags: " #flags " timestamp: " #ts       \
  " " body " }\n"
#define ANNO "debug_annotations { name_iid: 1 int_value: 7 }"
#define EVENT(ts)                                                                                  \
  PKT(1, 2, ts, "track_event { type: TYPE_INSTANT track_uuid: 0 name: \"e\" " ANNO " }")
#define NAMES(iid, name)                                                                           \
  "interned_data { debug_annotation_names { iid: " #iid " name: \"" name "\" } }"
#define ARGS                                                                                       \
  "SELECT s.ts, a.key, a.int_value FROM slice s JOIN args a USING (arg_set_id) ORDER BY s.ts"

/* The same annotation bytes name another key once the iid means another name: interned again
** on the sequence without a clear, after a clear, or on another sequence. */
static void test_memo_follows_interning(void **state) {
  (void)state;
  trak_processor *p =
      sc_open(PKT(1, 1, 1, NAMES(1, "a")) EVENT(2) EVENT(3) PKT(1, 2, 4, NAMES(1, "b")) EVENT(5)
                  PKT(1, 1, 6, NAMES(1, "c")) EVENT(7) PKT(2, 1, 8, NAMES(1, "d"))
                      PKT(2, 2, 9,
                          "track_event { type: TYPE_INSTANT track_uuid: 0 "
                          "name: \"e\" " ANNO " }") EVENT(10));
  assert_string_equal(sc_rows(p, ARGS), "2|debug.a|7\n3|debug.a|7\n5|debug.b|7\n7|debug.c|7\n"
                                        "9|debug.d|7\n10|debug.c|7");
  /* the same set is shared, as before the memo */
  assert_int_equal(sc_int(p, "SELECT count(DISTINCT arg_set_id) FROM slice"), 4);
  trak_processor_free(p);
}

/* An annotation whose name iid is not interned is reported each time, not once. */
static void test_memo_reports_again(void **state) {
  (void)state;
  trak_processor *p = sc_open(PKT(1, 1, 1, NAMES(5, "x")) EVENT(2) EVENT(3) EVENT(4));
  assert_int_equal(
      sc_int(p, "SELECT value FROM stats WHERE name = 'interned_data_tokenizer_errors'"), 3);
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_random_records, setup, teardown),
      cmocka_unit_test_setup_teardown(test_common_form_limits, setup, teardown),
      cmocka_unit_test_setup_teardown(test_put_records, setup, teardown),
      cmocka_unit_test_setup_teardown(test_crop_drop, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sort_runs, setup, teardown),
      cmocka_unit_test(test_memo_follows_interning),
      cmocka_unit_test(test_memo_reports_again),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
