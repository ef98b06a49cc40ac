/*
** The ftrace queues' narrow record (src/processor/import/ftrace/fq_slot.h): a record whose small
** fields fit (cpu under 256, prios -1 to 254, x 0 to 65535, has_flags 0 or 1) comes back from its
** 32-byte slot field for field; one a unit past any bound does not fit (the queue keeps it
** whole), whatever its 32-bit fields (pids, comm and name ids) hold.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "processor/import/ftrace/fq_slot.h"

/* A sched_switch record at the bounds that fit, its 32-bit fields at their largest. */
static trak_fq_rec edge(void) {
  trak_fq_rec r;
  memset(&r, 0, sizeof r);
  r.ts = INT64_MIN + 1;
  r.x = 65535;
  r.cpu = 255;
  r.pid = UINT32_MAX, r.a = UINT32_MAX - 1, r.s1 = UINT32_MAX, r.s2 = 0x80000000u;
  r.p1 = 254, r.p2 = -1;
  r.type = TRAK_FQ_SWITCH;
  r.has_flags = 1;
  r.flags = 0xffff;
  return r;
}

/* r fits, and its slot gives it back field for field. */
static void round_trips(const trak_fq_rec *r) {
  assert_true(trak__fq_slot_fits(r));
  trak_fq_slot s;
  trak__fq_slot_pack(&s, r);
  assert_int_not_equal(s.type, TRAK_FQ_SLOT_SPILL);
  trak_fq_rec back;
  memset(&back, 0xa5, sizeof back);
  trak__fq_slot_unpack(&back, &s);
  assert_true(back.ts == r->ts && back.x == r->x && back.cpu == r->cpu && back.pid == r->pid);
  assert_true(back.a == r->a && back.s1 == r->s1 && back.s2 == r->s2);
  assert_int_equal(back.p1, r->p1);
  assert_int_equal(back.p2, r->p2);
  assert_int_equal(back.type, r->type);
  assert_int_equal(back.has_flags, r->has_flags);
  assert_int_equal(back.flags, r->flags);
}

static void test_records_at_the_bounds_round_trip(void **state) {
  (void)state;
  trak_fq_rec r = edge();
  round_trips(&r);
  r.p1 = -1, r.p2 = 254, r.x = 0, r.cpu = 0, r.has_flags = 0, r.flags = 0;
  round_trips(&r);
  r.type = TRAK_FQ_WAKESOURCE; /* the last type */
  round_trips(&r);
  r.type = TRAK_FQ_WAKING, r.ts = INT64_MAX, r.p1 = 120, r.p2 = 7; /* a usual waking */
  round_trips(&r);
}

static void test_a_unit_past_any_bound_does_not_fit(void **state) {
  (void)state;
  trak_fq_rec r;
  r = edge(), r.x = 65536;
  assert_false(trak__fq_slot_fits(&r));
  r = edge(), r.x = -1; /* a negative prev_state */
  assert_false(trak__fq_slot_fits(&r));
  r = edge(), r.x = (int64_t)1 << 40;
  assert_false(trak__fq_slot_fits(&r));
  r = edge(), r.cpu = 256;
  assert_false(trak__fq_slot_fits(&r));
  r = edge(), r.cpu = UINT32_MAX;
  assert_false(trak__fq_slot_fits(&r));
  r = edge(), r.p1 = 255;
  assert_false(trak__fq_slot_fits(&r));
  r = edge(), r.p1 = -2;
  assert_false(trak__fq_slot_fits(&r));
  r = edge(), r.p2 = 255;
  assert_false(trak__fq_slot_fits(&r));
  r = edge(), r.p2 = INT32_MIN;
  assert_false(trak__fq_slot_fits(&r));
  r = edge(), r.p2 = INT32_MAX;
  assert_false(trak__fq_slot_fits(&r));
  r = edge(), r.has_flags = 2;
  assert_false(trak__fq_slot_fits(&r));
  r = edge(), r.type = TRAK_FQ_SLOT_SPILL;
  assert_false(trak__fq_slot_fits(&r));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_records_at_the_bounds_round_trip),
      cmocka_unit_test(test_a_unit_past_any_bound_does_not_fit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
