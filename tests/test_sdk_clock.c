/*
** The SDK's clock as the trace processor sees it: each sequence's ClockSnapshot pairs the event
** clock with the BOOTTIME of the same instant, so an event's imported timestamp is the time it
** read, whichever thread wrote it and however late its sequence's first packet was written.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>

#include "sqlcheck.h"
#include "trak/processor.h"
#include "trak/trak.h"

TRAK_CATEGORY_DEFINE(cat_clock, "clock", "events of the test");

/* A clock that moves 1 µs at every reading, as a busy machine's would between two reads. */
static uint64_t fake_ns;
static uint64_t fake_clock(void) {
  uint64_t now = fake_ns;
  fake_ns += 1000;
  return now;
}

static uint64_t begin_ts, end_ts;
static trak_track request_track;

static void *end_on_other_thread(void *arg) {
  (void)arg;
  end_ts = fake_ns;
  TRAK_EVENT_END(cat_clock, TRAK_TRACK(request_track));
  return NULL;
}

/* Begins an async slice on this thread and ends it on a new one: the first event of each
** sequence makes the sequence's restart packets, which read the clock again. */
static void across_threads(void) {
  request_track = trak_track_named("requests", 0);
  begin_ts = fake_ns;
  TRAK_EVENT_BEGIN(cat_clock, "request", TRAK_TRACK(request_track));
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, end_on_other_thread, NULL), 0);
  assert_int_equal(pthread_join(th, NULL), 0);
}

/* Each sequence's events land at the times they read: pairing the first event's time with a
** BOOTTIME read later used to move the whole sequence by the gap (here 1-2 µs per reading; on
** a loaded machine a preemption, which put an end before its begin). */
static void test_snapshot_pairs_the_event_time(void **state) {
  (void)state;
  fake_ns = 7000000000ull;
  trak_clock_set_fake(fake_clock);
  trak_processor *p = sc_record(across_threads);
  trak_clock_set_fake(NULL);
  assert_int_equal(sc_int(p, "SELECT ts FROM slice WHERE name = 'request'"), (int64_t)begin_ts);
  assert_int_equal(sc_int(p, "SELECT dur FROM slice WHERE name = 'request'"),
                   (int64_t)(end_ts - begin_ts));
  trak_processor_free(p);
}

static uint64_t real_before, real_after;

static void bracketed(void) {
  real_before = trak_clock_now();
  TRAK_EVENT_INSTANT(cat_clock, "now");
  real_after = trak_clock_now();
}

/* On the real clock (the TSC where the machine has an invariant one), the imported time lies
** between BOOTTIME readings taken just before and after the event. */
static void test_real_clock_lands_between_readings(void **state) {
  (void)state;
  trak_processor *p = sc_record(bracketed);
  int64_t ts = sc_int(p, "SELECT ts FROM slice WHERE name = 'now'");
  /* The TSC's scale is calibrated over 20 ms, so allow it a few µs of rounding. */
  assert_true(ts + 5000 >= (int64_t)real_before);
  assert_true(ts <= (int64_t)real_after + 5000);
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_snapshot_pairs_the_event_time),
      cmocka_unit_test(test_real_clock_lands_between_readings),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
