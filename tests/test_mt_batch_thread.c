/*
** The producer thread's ring (src/processor/util/batch_thread.c), on which the ftrace queues'
** merge and the track events' merge run beside the importer's thread: every record arrives once
** and in order, the last batch may be short or empty, and what the consumer notes reaches the
** producer's later fills, never from the future; the idle work runs on either thread while it
** would wait, without the ring's lock, and changes nothing of what crosses. A test_mt_* test: under ThreadSanitizer it
** also checks that the records cross only through the ring's lock.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "processor/util/batch_thread.h"

/* The producer's state: the numbers 0 .. total - 1, and the notes it was given. */
typedef struct counter {
  uint64_t next, total;
  size_t last_note;   /* notes[0] of the last fill */
  int notes_backward; /* a fill saw notes[0] smaller than an earlier fill's */
  int calls_after_end;
  int ended;
} counter;

static size_t count_fill(void *ctx, void *out, size_t max, const size_t *notes) {
  counter *c = ctx;
  if (c->ended) c->calls_after_end++;
  if (notes[0] < c->last_note) c->notes_backward = 1;
  c->last_note = notes[0];
  uint64_t *o = out;
  size_t n = 0;
  while (n < max && c->next < c->total)
    o[n++] = c->next++;
  c->ended = n < max;
  return n;
}

/* Consumes `total` numbers in batches of `batch`; notes[0] is what the consumer has read. */
static void run(uint64_t total, size_t batch) {
  counter c = {0, total, 0, 0, 0, 0};
  size_t notes[2] = {0, 7};
  trak_batch_thread *bt =
      trak__batch_thread_start(sizeof(uint64_t), batch, count_fill, &c, notes, 2);
  assert_non_null(bt);
  uint64_t want = 0;
  size_t n;
  const void *p;
  int bad = 0;
  while ((n = trak__batch_thread_take(bt, notes, &p))) {
    assert_true(n <= batch);
    const uint64_t *v = p;
    for (size_t i = 0; i < n; i++)
      bad += v[i] != want++;
    notes[0] = (size_t)want;
  }
  assert_int_equal(trak__batch_thread_take(bt, notes, &p), 0); /* stays at the end */
  trak__batch_thread_finish(bt);
  assert_int_equal(bad, 0);
  assert_int_equal(want, total);
  assert_false(c.notes_backward);
  assert_int_equal(c.calls_after_end, 0);
  assert_true(c.last_note <= total);
}

static void test_short_last_batch(void **state) {
  (void)state;
  run(100003, 64);
}

static void test_full_last_batch(void **state) {
  (void)state;
  run(64 * 1000, 64); /* the producer's last batch is empty */
}

static void test_nothing(void **state) {
  (void)state;
  run(0, 16);
}

/* The idle work's state: calls on each side (the producer's thread writes only [1], the
** consumer's only [0]) and the pieces of work left to do (each call does one, atomically). */
typedef struct idle_state {
  trak_batch_thread *bt;
  long calls[2];
  _Atomic long work;
} idle_state;

static int count_idle(void *ctx, int producer) {
  idle_state *s = ctx;
  s->calls[producer != 0]++;
  trak__batch_thread_idle(s->bt, count_idle, s); /* would deadlock were the ring's lock held */
  return --s->work >= 0;
}

/* A producer slower than the consumer at first, then faster (the consumer sleeps): each side
** waits, and does the idle work while it does. */
static size_t slow_fill(void *ctx, void *out, size_t max, const size_t *notes) {
  counter *c = ctx;
  if (c->next < 64) usleep(2000);
  return count_fill(ctx, out, max, notes);
}

static void test_idle_work_while_waiting(void **state) {
  (void)state;
  counter c = {0, 4096, 0, 0, 0, 0};
  size_t notes[1] = {0};
  idle_state s = {.work = 100000};
  trak_batch_thread *bt = trak__batch_thread_start(sizeof(uint64_t), 16, slow_fill, &c, notes, 1);
  assert_non_null(bt);
  s.bt = bt;
  trak__batch_thread_idle(bt, count_idle, &s);
  uint64_t want = 0;
  size_t n;
  const void *p;
  int bad = 0;
  while ((n = trak__batch_thread_take(bt, notes, &p))) {
    const uint64_t *v = p;
    for (size_t i = 0; i < n; i++)
      bad += v[i] != want++;
    notes[0] = (size_t)want;
    if (want == 256) usleep(20000); /* the producer fills the ring and waits */
  }
  trak__batch_thread_finish(bt);
  assert_int_equal(bad, 0);
  assert_int_equal(want, 4096);
  assert_true(s.calls[0] > 0); /* the consumer waited for the slow fills */
  assert_true(s.calls[1] > 0); /* the producer waited for the sleeping consumer */
}

static void test_refuses_what_it_cannot_do(void **state) {
  (void)state;
  counter c = {0};
  size_t notes[TRAK_BATCH_NOTES + 1] = {0};
  assert_null(trak__batch_thread_start(8, 16, count_fill, &c, notes, TRAK_BATCH_NOTES + 1));
  assert_null(trak__batch_thread_start(8, 0, count_fill, &c, notes, 1));
  assert_null(trak__batch_thread_start(0, 16, count_fill, &c, notes, 1));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_short_last_batch),
      cmocka_unit_test(test_full_last_batch),
      cmocka_unit_test(test_nothing),
      cmocka_unit_test(test_idle_work_while_waiting),
      cmocka_unit_test(test_refuses_what_it_cannot_do),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
