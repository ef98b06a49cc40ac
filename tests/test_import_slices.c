/*
** Unit tests of src/processor/import/slice_stack.c, the stack discipline of slices, one rule per
** test on a few JSON events: nesting, an end matched by name below the top (the slices above
** are cut: misplaced_end_event), instants at one timestamp stacking, a partly overlapping
** complete event moved to an overflow lane, an end with nothing to end, and the walk's skip of
** a stack's open bottom slices once the stack moved under them; and each case slice_stack.h
** decides inline, beside those it leaves to slice_stack.c.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "sqlcheck.h"

#define EV(ph, name, tid, ts)                                                                      \
  "{\"ph\":\"" ph "\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts "}"
#define INSTANT(name, tid, ts)                                                                     \
  "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts "}"
#define XEV(name, tid, ts, dur)                                                                    \
  "{\"ph\":\"X\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts                     \
  ",\"dur\":" #dur "}"
#define SLICES                                                                                     \
  "SELECT s.name, s.ts, s.dur, s.depth, ifnull(p.name, 'NULL'), t.type FROM slice s "              \
  "LEFT JOIN slice p ON p.id = s.parent_id JOIN track t ON t.id = s.track_id ORDER BY s.id"
#define STATS "SELECT name, value FROM stats WHERE value > 0 ORDER BY name"

/* Imports the events as a JSON trace and runs checks c[0..n) on it. */
static void check_all(const char *events, const sc_check *c, size_t n) {
  char json[4096];
  assert_true(snprintf(json, sizeof json, "{\"traceEvents\":[%s]}", events) < (int)sizeof json);
  trak_processor *p = sc_open(json);
  sc_run_checks(p, c, n);
  trak_processor_free(p);
}

static void check(const char *events, const char *slices, const char *stats) {
  const sc_check c[] = {{SLICES, slices}, {STATS, stats}};
  check_all(events, c, sizeof c / sizeof *c);
}

static void test_nesting(void **state) {
  (void)state;
  check(
      EV("B", "outer", 1, 0) "," EV("B", "inner", 1, 1) "," EV("E", "", 1, 2) "," EV("E", "", 1, 3),
      "outer|0|3000|0|NULL|thread_execution\ninner|1000|1000|1|outer|thread_execution", "");
}

/* "E outer" ends outer below the still open inner, which is cut at outer's end by the next
** event on the thread. */
static void test_end_below_top(void **state) {
  (void)state;
  check(EV("B", "outer", 1, 0) "," EV("B", "inner", 1, 1) "," EV("E", "outer", 1,
                                                                 5) "," INSTANT("after", 1, 7),
        "outer|0|5000|0|NULL|thread_execution\ninner|1000|4000|1|outer|thread_execution\n"
        "after|7000|0|0|NULL|thread_execution",
        "misplaced_end_event|1");
}

/* Instants at the same timestamp stack; an instant later than a slice's end is not under it. */
static void test_instants_stack(void **state) {
  (void)state;
  check(INSTANT("a", 1, 0) "," INSTANT("b", 1, 0) "," INSTANT("c", 1, 1),
        "a|0|0|0|NULL|thread_execution\nb|0|0|1|a|thread_execution\nc|1000|0|0|NULL|"
        "thread_execution",
        "");
}

/* A complete event that partly overlaps one of its thread goes to an overflow lane, counted. */
static void test_overlap_spills(void **state) {
  (void)state;
  check("{\"ph\":\"X\",\"name\":\"x1\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":10},"
        "{\"ph\":\"X\",\"name\":\"x2\",\"pid\":1,\"tid\":2,\"ts\":15,\"dur\":10},"
        "{\"ph\":\"X\",\"name\":\"x3\",\"pid\":1,\"tid\":2,\"ts\":16,\"dur\":2}",
        "x1|10000|10000|0|NULL|thread_execution\n"
        "x2|15000|10000|0|NULL|thread_overlapping_slice\n"
        "x3|16000|2000|1|x1|thread_execution",
        "slice_spill_overlapping_complete_event|1");
}

/* An end with no open slice, or whose name matches no open slice, ends nothing and, as in
** Perfetto, is not counted; the slice left open is (slice_unterminated). */
static void test_unmatched_end(void **state) {
  (void)state;
  check(EV("E", "", 3, 40) "," EV("B", "a", 3, 50) "," EV("E", "b", 3, 60),
        "a|50000|-1|0|NULL|thread_execution", "slice_unterminated|1");
}

/* A walk that pops a complete slice finds the open slices under it (r, d2 begin there) and
** later walks skip them; once they are ended and a complete slice is pushed where they were (z
** where p was, y2 below where c2 was), the next walk must see it end (s and e2 nest in a, a2). */
static void test_open_prefix_moves(void **state) {
  (void)state;
  const char *ev = EV("B", "a", 1, 0) "," EV("B", "p", 1, 10) "," XEV("q", 1, 20, 1) ","
      EV("B", "r", 1, 30) "," EV("E", "", 1, 40) "," EV("E", "", 1, 50) ","
      XEV("z", 1, 60, 1) "," EV("B", "s", 1, 70) "," EV("E", "", 1, 80) "," EV("E", "", 1, 90)
      "," EV("B", "a2", 2, 0) "," EV("B", "b2", 2, 1) "," EV("B", "c2", 2, 2) ","
      XEV("x2", 2, 3, 1) "," EV("B", "d2", 2, 5) "," EV("E", "", 2, 6) "," EV("E", "", 2, 7)
      "," EV("E", "", 2, 8) "," XEV("y2", 2, 9, 1) "," EV("B", "e2", 2, 11) ","
      EV("E", "", 2, 12) "," EV("E", "", 2, 13);
  check(ev,
        "a|0|90000|0|NULL|thread_execution\na2|0|13000|0|NULL|thread_execution\n"
        "b2|1000|7000|1|a2|thread_execution\nc2|2000|5000|2|b2|thread_execution\n"
        "x2|3000|1000|3|c2|thread_execution\nd2|5000|1000|3|c2|thread_execution\n"
        "y2|9000|1000|1|a2|thread_execution\np|10000|40000|1|a|thread_execution\n"
        "e2|11000|1000|1|a2|thread_execution\nq|20000|1000|2|p|thread_execution\n"
        "r|30000|10000|2|p|thread_execution\nz|60000|1000|1|a|thread_execution\n"
        "s|70000|10000|1|a|thread_execution",
        "");
}

#define EVA(ph, name, tid, ts, args)                                                               \
  "{\"ph\":\"" ph "\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts            \
  ",\"args\":" args "}"

/* Each case of the stack that slice_stack.h decides inline, and the cases next to them that it
** leaves to slice_stack.c, one thread each: (1) ends of the top, with args merged, and ends of
** nothing (an empty stack, a name that matches no open slice); (2) an end under a complete top
** (found below it), the top then popped by a later walk; (3) a complete slice on open B slices
** popped by the next begin, complete slices pushed on open B slices, nested in a complete top
** (by a complete slice and by a begin), an end that cuts a slice above an ended complete one
** (misplaced_end_event), an end below the top; (4) a complete slice partly overlapping the
** complete top over an open B slice (spilled), then popped by an end; (5) instants at one
** timestamp stacking on the top instant, popped by a later one; (6) a complete top ending at the
** next begin's timestamp (popped); (7) begins on a complete slice (the top open, the complete
** slice under it), popped by a later instant. */
static void test_top_cases(void **state) {
  (void)state;
  const char *ev =
      EV("E", "", 1, 0) "," EVA("B", "a", 1, 1, "{\"k\":1}") "," EVA("E", "a", 1, 2, "{\"e\":2}")
      "," EV("B", "b", 1, 3) "," EV("E", "zz", 1, 4) "," EV("E", "", 1, 5) ","
      EV("B", "a", 2, 0) "," XEV("x", 2, 1, 10) "," EV("E", "a", 2, 2) "," INSTANT("i", 2, 20)
      "," EV("B", "a", 3, 0) "," XEV("x1", 3, 1, 2) "," EV("B", "b", 3, 5) "," EV("B", "c", 3, 6)
      "," XEV("x2", 3, 7, 10) "," XEV("x3", 3, 8, 2) "," EV("B", "d", 3, 9) "," EV("E", "", 3, 12)
      "," INSTANT("i", 3, 13) "," EV("E", "", 3, 30) "," EV("E", "", 3, 31) ","
      EV("E", "", 3, 32) "," EV("B", "a", 4, 0) "," XEV("x1", 4, 1, 10) "," XEV("x2", 4, 5, 10)
      "," EV("E", "a", 4, 20) "," EV("B", "a", 5, 0) "," INSTANT("i1", 5, 1) ","
      INSTANT("i2", 5, 1) "," INSTANT("i3", 5, 2) "," EV("E", "", 5, 3) "," EV("B", "a", 6, 0)
      "," XEV("x", 6, 1, 1) "," EV("B", "b", 6, 2) "," EV("E", "", 6, 3) "," EV("E", "", 6, 4)
      "," XEV("x", 7, 0, 100) "," EV("B", "b", 7, 10) "," EV("B", "c", 7, 20) ","
      EV("E", "", 7, 30) "," EV("E", "", 7, 40) "," INSTANT("i", 7, 200);
  const sc_check c[] = {
      {"SELECT s.name, s.ts, s.dur, s.depth, ifnull(p.name, 'NULL'), t.type, s.track_id "
       "FROM slice s LEFT JOIN slice p ON p.id = s.parent_id JOIN track t ON t.id = s.track_id "
       "ORDER BY s.id",
       "a|0|2000|0|NULL|thread_execution|1\na|0|31000|0|NULL|thread_execution|2\n"
       "a|0|20000|0|NULL|thread_execution|3\na|0|3000|0|NULL|thread_execution|4\n"
       "a|0|4000|0|NULL|thread_execution|5\nx|0|100000|0|NULL|thread_execution|6\n"
       "a|1000|1000|0|NULL|thread_execution|0\nx|1000|10000|1|a|thread_execution|1\n"
       "x1|1000|2000|1|a|thread_execution|2\nx1|1000|10000|1|a|thread_execution|3\n"
       "i1|1000|0|1|a|thread_execution|4\ni2|1000|0|2|i1|thread_execution|4\n"
       "x|1000|1000|1|a|thread_execution|5\ni3|2000|0|1|a|thread_execution|4\n"
       "b|2000|1000|1|a|thread_execution|5\nb|3000|2000|0|NULL|thread_execution|0\n"
       "b|5000|25000|1|a|thread_execution|2\nx2|5000|10000|0|NULL|thread_overlapping_slice|7\n"
       "c|6000|6000|2|b|thread_execution|2\nx2|7000|10000|3|c|thread_execution|2\n"
       "x3|8000|2000|4|x2|thread_execution|2\nd|9000|1000|5|x3|thread_execution|2\n"
       "b|10000|30000|1|x|thread_execution|6\ni|13000|0|3|c|thread_execution|2\n"
       "i|20000|0|0|NULL|thread_execution|1\nc|20000|10000|2|b|thread_execution|6\n"
       "i|200000|0|0|NULL|thread_execution|6"},
      {STATS, "misplaced_end_event|1\nslice_spill_overlapping_complete_event|1"},
      {"SELECT s.name, a.key, a.int_value FROM slice s JOIN args a ON a.arg_set_id = s.arg_set_id "
       "ORDER BY s.id, a.key",
       "a|args.e|2\na|args.k|1"},
  };
  check_all(ev, c, sizeof c / sizeof *c);
}

/* An end's args merged into its begin's (arg_sets.c trak__args_merge): the begin's rows copied
** (every column), a key both have takes the end's value in the begin's place, an array the
** begin has continues after its last element, the end's other keys follow; a begin without
** args takes the end's set, and an end below the top (e, under g) merges too. Merged sets are shared like
** any: two equal merges give one id, and a merge equal to another slice's set takes its id. */
static void test_end_args_merged(void **state) {
  (void)state;
  const char *ev =
      EVA("B", "a", 1, 1, "{\"k\":1,\"s\":\"x\",\"r\":1.5,\"arr\":[1,2]}") ","
      EVA("E", "a", 1, 2, "{\"k\":7,\"arr\":[3],\"n\":{\"q\":true}}") ","
      EVA("B", "b", 1, 3, "{\"k\":1,\"s\":\"x\",\"r\":1.5,\"arr\":[1,2]}") ","
      EVA("E", "b", 1, 4, "{\"k\":7,\"arr\":[3],\"n\":{\"q\":true}}") ","
      EVA("B", "c", 1, 5, "{\"k\":7}") "," EVA("E", "c", 1, 6, "{\"k\":7}") ","
      "{\"ph\":\"X\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":7,\"dur\":1,\"args\":{\"k\":7}},"
      EVA("B", "e", 2, 1, "{\"u\":\"v\"}") "," EV("B", "f", 2, 2) ","
      EVA("E", "f", 2, 3, "{\"w\":2}") "," EV("B", "g", 2, 4) ","
      EVA("E", "e", 2, 5, "{\"u\":\"z\",\"w\":2}") "," INSTANT("h", 2, 6);
  const sc_check c[] = {
      {"SELECT s.name, group_concat(a.key || '=' || a.display_value, ' ') FROM slice s "
       "JOIN (SELECT * FROM args ORDER BY key) a USING(arg_set_id) GROUP BY s.id ORDER BY s.id",
       "a|args.arr[0]=1 args.arr[1]=2 args.arr[2]=3 args.k=7 args.n.q=true args.r=1.5 args.s=x\n"
       "e|args.u=z args.w=2\nf|args.w=2\n"
       "b|args.arr[0]=1 args.arr[1]=2 args.arr[2]=3 args.k=7 args.n.q=true args.r=1.5 args.s=x\n"
       "c|args.k=7\nd|args.k=7"},
      {"SELECT count(DISTINCT arg_set_id) FROM slice WHERE name IN ('a', 'b')", "1"},
      {"SELECT count(DISTINCT arg_set_id) FROM slice WHERE name IN ('c', 'd')", "1"},
      {STATS, "misplaced_end_event|1"},
  };
  check_all(ev, c, sizeof c / sizeof *c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nesting),        cmocka_unit_test(test_end_below_top),
      cmocka_unit_test(test_instants_stack), cmocka_unit_test(test_overlap_spills),
      cmocka_unit_test(test_unmatched_end),  cmocka_unit_test(test_open_prefix_moves),
      cmocka_unit_test(test_top_cases),      cmocka_unit_test(test_end_args_merged),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
