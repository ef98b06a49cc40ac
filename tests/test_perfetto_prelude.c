/*
** Tests of the PerfettoSQL prelude, there without an INCLUDE: trace_bounds and trace_start/
** end/dur, metadata, stats, the clock conversions (TO_REALTIME, TO_MONOTONIC, ABS_TIME_STR,
** TO_TIMECODE), regexp, regexp_replace_simple, str_split, slice_is_ancestor, args as JSON and
** display_value written as SQLite writes a REAL. The answers were compared with Perfetto's
** trace_processor_shell on the same trace (converted to binary by `trak convert`).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "processor/processor_internal.h"
#include "processor/tables/vtab.h"
#include "sqlcheck.h"

/* Boottime is the trace clock. Two snapshots relate it to REALTIME (1) and MONOTONIC (3);
** MONOTONIC runs 900 ns while BOOTTIME runs 1000. Slices: outer [1000, 1600] > inner, and a
** counter at 2500. */
static const char CLOCKS[] =
    "packet { trusted_packet_sequence_id: 1 clock_snapshot {\n"
    "  clocks { clock_id: 6 timestamp: 1000 }\n"
    "  clocks { clock_id: 1 timestamp: 1700000000000000000 }\n"
    "  clocks { clock_id: 3 timestamp: 500 } } }\n"
    "packet { trusted_packet_sequence_id: 1 clock_snapshot {\n"
    "  clocks { clock_id: 6 timestamp: 2000 }\n"
    "  clocks { clock_id: 1 timestamp: 1700000000000001000 }\n"
    "  clocks { clock_id: 3 timestamp: 1400 } } }\n"
    "packet { track_descriptor { uuid: 1 name: \"t\" } }\n"
    "packet { track_descriptor { uuid: 2 name: \"c\" counter {} } }\n"
    "packet { trusted_packet_sequence_id: 1 timestamp: 1000 track_event { type: TYPE_SLICE_BEGIN "
    "track_uuid: 1 name: \"outer\" debug_annotations { name: \"ratio\" double_value: 3.5 } "
    "debug_annotations { name: \"whole\" double_value: 2 } "
    "debug_annotations { name: \"label\" string_value: \"a\\\"b\" } } }\n"
    "packet { trusted_packet_sequence_id: 1 timestamp: 1100 track_event { type: TYPE_SLICE_BEGIN "
    "track_uuid: 1 name: \"inner\" } }\n"
    "packet { trusted_packet_sequence_id: 1 timestamp: 1200 track_event { type: TYPE_SLICE_END "
    "track_uuid: 1 } }\n"
    "packet { trusted_packet_sequence_id: 1 timestamp: 1600 track_event { type: TYPE_SLICE_END "
    "track_uuid: 1 } }\n"
    "packet { trusted_packet_sequence_id: 1 timestamp: 2500 track_event { type: TYPE_COUNTER "
    "track_uuid: 2 counter_value: 7 } }\n";

static trak_processor *p;

static int setup(void **state) {
  p = sc_open(CLOCKS);
  return 0;
}
static int teardown(void **state) {
  trak_processor_free(p);
  return 0;
}

static void bounds(void **state) {
  assert_string_equal(sc_rows(p, "SELECT start_ts, end_ts FROM trace_bounds"), "1000|2500");
  assert_string_equal(sc_rows(p, "SELECT trace_start(), trace_end(), trace_dur()"),
                      "1000|2500|1500");
  /* An empty trace has bounds 0, 0. */
  trak_processor *empty = sc_open("{\"traceEvents\":[]}");
  assert_string_equal(sc_rows(empty, "SELECT * FROM trace_bounds"), "0|0");
  assert_string_equal(sc_rows(empty, "SELECT str_value FROM metadata WHERE name = 'trace_type'"),
                      "json");
  trak_processor_free(empty);
  /* A slice that ends past INT64_MAX: its end wraps (no undefined overflow), as in Perfetto,
  ** whose trace_bounds on this trace is the same row. */
  trak_processor *past = sc_open("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":"
                                 "9000000000000000,\"dur\":500000000000000,\"pid\":1,\"tid\":1}]}");
  assert_string_equal(sc_rows(past, "SELECT * FROM trace_bounds"), "9000000000000000000|0");
  trak_processor_free(past);
}

static void metadata_and_stats(void **state) {
  char want[128];
  /* In Perfetto's order: uuid, type, size. */
  snprintf(want, sizeof want, "trace_type|single|NULL|proto\ntrace_size_bytes|single|%zu|NULL",
           strlen(CLOCKS));
  assert_string_equal(sc_rows(p, "SELECT name, key_type, int_value, str_value FROM metadata "
                                 "WHERE name IN ('trace_type', 'trace_size_bytes') ORDER BY id"),
                      want);
  /* The uuid is stable for the same trace. */
  trak_processor *again = sc_open(CLOCKS);
  char uuid[64];
  strcpy(uuid, sc_rows(p, "SELECT str_value FROM metadata WHERE name = 'trace_uuid'"));
  assert_int_equal(strlen(uuid), 36);
  assert_string_equal(sc_rows(again, "SELECT str_value FROM metadata WHERE name = 'trace_uuid'"),
                      uuid);
  trak_processor_free(again);
  /* trace_corrupt is trak's own stat (Perfetto has no such row). */
  assert_string_equal(sc_rows(p, "SELECT id, key, source FROM stats WHERE name = 'trace_corrupt'"),
                      "1|1|trace");
  assert_string_equal(sc_rows(p, "SELECT count(*) FROM _trace_import_logs"), "0");
}

static void clocks(void **state) {
  /* Before the first snapshot: its value; between: the offset from the previous one, never
  ** past the next; after the last: the offset from it. */
  assert_string_equal(sc_rows(p, "SELECT to_monotonic(500), to_monotonic(1000), "
                                 "to_monotonic(1500), to_monotonic(1950), to_monotonic(3000)"),
                      "500|500|1000|1400|2400");
  assert_string_equal(sc_rows(p, "SELECT to_realtime(1500) - 1700000000000000000, "
                                 "to_realtime(NULL) IS NULL"),
                      "500|1");
  assert_string_equal(sc_rows(p, "SELECT abs_time_str(1000), abs_time_str(1001)"),
                      "2023-11-14T22:13:20.000000000|2023-11-14T22:13:20.000000001");
  assert_string_equal(sc_rows(p, "SELECT to_timecode(3723004005006), to_timecode(0)"),
                      "01:02:03 004 005 006|00:00:00 000 000 000");
  assert_non_null(strstr(sc_error(p, "SELECT to_realtime('x')"),
                         "TO_REALTIME: first argument should be timestamp"));
  /* Without snapshots of the clock: NULL. */
  trak_processor *none = sc_open("{\"traceEvents\":[]}");
  assert_string_equal(sc_rows(none, "SELECT abs_time_str(5) IS NULL, to_monotonic(5) IS NULL"),
                      "1|1");
  trak_processor_free(none);
}

static void strings(void **state) {
  assert_string_equal(sc_rows(p, "SELECT regexp('a.c', 'xabcx'), 'abc' REGEXP '^b', "
                                 "regexp('B', 'abc', 'i'), regexp('B', 'abc', 'ic')"),
                      "1|0|1|0");
  assert_non_null(strstr(sc_error(p, "SELECT regexp('(', 'x')"), "bad pattern '('"));
  assert_string_equal(sc_rows(p, "SELECT regexp_replace_simple('a1b22c', '[0-9]+', '#')"), "a#b#c");
  assert_string_equal(sc_rows(p, "SELECT str_split('a,b,c', ',', 0), str_split('a,b,c', ',', 2),"
                                 " str_split('a,b', ',', 5) IS NULL, str_split('a::b', '::', 1)"),
                      "a|c|1|b");
}

static void slices_and_args(void **state) {
  assert_string_equal(sc_rows(p, "SELECT slice_is_ancestor(o.id, i.id), slice_is_ancestor(i.id, "
                                 "o.id), slice_is_ancestor(o.id, o.id) FROM slice o, slice i "
                                 "WHERE o.name = 'outer' AND i.name = 'inner'"),
                      "1|0|0");
  assert_string_equal(sc_rows(p, "SELECT key, display_value FROM args JOIN slice USING "
                                 "(arg_set_id) WHERE name = 'outer' ORDER BY key"),
                      "debug.label|a\"b\ndebug.ratio|3.5\ndebug.whole|2.0");
  assert_string_equal(sc_rows(p, "SELECT __intrinsic_arg_set_to_json(arg_set_id) FROM slice "
                                 "WHERE name = 'outer'"),
                      "{\"debug\":{\"ratio\":3.5,\"whole\":2,\"label\":\"a\\\"b\"}}");
  assert_string_equal(sc_rows(p, "SELECT __intrinsic_arg_set_to_json(NULL)"), "NULL");
}

/* Two partitioned tables (and one unpartitioned): inner, left and outer joins cut time at every
** boundary of either side; zero-length and unfinished spans in SPAN_JOIN. */
static void span_join(void **state) {
  sc_rows(p, "CREATE TABLE a(ts INT, dur INT, cpu INT, x TEXT);"
             "INSERT INTO a VALUES (0, 10, 1, 'a1'), (20, 10, 1, 'a2'), (0, 100, 2, 'a3');"
             "CREATE TABLE b(ts INT, dur INT, cpu INT, y TEXT);"
             "INSERT INTO b VALUES (5, 20, 1, 'b1'), (40, 5, 1, 'b2'), (50, 10, 3, 'b3');"
             "CREATE TABLE g(ts INT, dur INT, z TEXT); INSERT INTO g VALUES (8, 20, 'g');"
             "CREATE VIRTUAL TABLE j USING SPAN_JOIN(a PARTITIONED cpu, b PARTITIONED cpu);"
             "CREATE VIRTUAL TABLE l USING SPAN_LEFT_JOIN(a PARTITIONED cpu, b PARTITIONED cpu);"
             "CREATE VIRTUAL TABLE o USING SPAN_OUTER_JOIN(a PARTITIONED cpu, b PARTITIONED cpu);"
             "CREATE VIRTUAL TABLE m USING SPAN_JOIN(a PARTITIONED cpu, g);");
  assert_string_equal(sc_rows(p, "SELECT * FROM j"), "5|5|1|a1|b1\n20|5|1|a2|b1");
  assert_string_equal(sc_rows(p, "SELECT * FROM l"),
                      "0|5|1|a1|NULL\n5|5|1|a1|b1\n20|5|1|a2|b1\n25|5|1|a2|NULL\n"
                      "0|100|2|a3|NULL");
  assert_string_equal(sc_rows(p, "SELECT * FROM o"),
                      "0|5|1|a1|NULL\n5|5|1|a1|b1\n10|10|1|NULL|b1\n20|5|1|a2|b1\n"
                      "25|5|1|a2|NULL\n40|5|1|NULL|b2\n0|100|2|a3|NULL\n50|10|3|NULL|b3");
  assert_string_equal(sc_rows(p, "SELECT * FROM m"), "8|2|1|a1|g\n20|8|1|a2|g\n8|20|2|a3|g");
  /* Zero-length and unfinished (dur = -1) spans: SPAN_JOIN joins them as Perfetto v58.2 does
  ** (the answer of its shell on its own test, span_join_zero_negative_dur_test.sql: a point
  ** inside the other side's span or at its start gives dur 0, a dur = -1 span dur -1), and so
  ** do the outer joins. */
  sc_rows(p, "CREATE TABLE z1(ts INT, dur INT, part INT);"
             "INSERT INTO z1 VALUES (1, 0, 0), (5, -1, 0), (2, 0, 1);"
             "CREATE TABLE z2(ts INT, dur INT, part INT);"
             "INSERT INTO z2 VALUES (1, 2, 0), (5, 0, 0), (1, 1, 1);"
             "CREATE VIRTUAL TABLE zj USING SPAN_JOIN(z1 PARTITIONED part, z2 PARTITIONED part);"
             "CREATE VIRTUAL TABLE zo USING SPAN_OUTER_JOIN(z1 PARTITIONED part, "
             "z2 PARTITIONED part);"
             "CREATE TABLE z3(ts INT, dur INT); INSERT INTO z3 VALUES (1, 2), (5, 0);"
             "CREATE VIRTUAL TABLE zu USING SPAN_JOIN(z3, z1 PARTITIONED part);");
  assert_string_equal(sc_rows(p, "SELECT ts, dur, part FROM zj"), "1|0|0\n5|-1|0");
  assert_string_equal(sc_rows(p, "SELECT ts, dur, part FROM zo"),
                      "1|0|0\n1|2|0\n5|-1|0\n5|-1|0\n1|1|1\n2|0|1");
  /* Unpartitioned z3 against each partition of z1 (Perfetto's answer too): (1, 0) in [1, 3),
  ** (5, -1) with (5, 0), and partition 1's point at 2 in [1, 3). */
  assert_string_equal(sc_rows(p, "SELECT ts, dur, part FROM zu"), "1|0|0\n5|-1|0\n2|0|1");
  assert_non_null(strstr(sc_error(p, "CREATE VIRTUAL TABLE bad USING SPAN_JOIN(a PARTITIONED "
                                     "cpu, nosuch)"),
                         "no such table: nosuch"));
  assert_non_null(strstr(sc_error(p, "CREATE VIRTUAL TABLE bad USING SPAN_JOIN(a, a)"),
                         "column cpu is in both tables"));
}

/* Each side is read as its table gives it and sorted in C, or read again with SQLite's ORDER BY
** when two rows tie on (partition, ts) or a ts is not an integer: tables holding the same rows
** out of order and in order give the same rows in the same order, other columns keep their
** types (real, NULL, blob, the largest integer, -0.0), and the answers are those of the reading
** through SQLite's ORDER BY (trak before the C sort) written down. */
static void span_join_read_order(void **state) {
  sc_rows(p, "CREATE TABLE q1(ts INT, dur INT, part INT, x);"
             "INSERT INTO q1 VALUES (40, 5, 1, 'a4'), (0, 10, 1, 2.5), (20, 10, 1, NULL),"
             " (0, 100, 2, x'ff00'), (7, 3, NULL, 'anull'), (-5, 3, 2, 9223372036854775807),"
             " (60, -1, 1, 'open');"
             "CREATE TABLE q1s AS SELECT * FROM q1 ORDER BY part, ts;"
             "CREATE TABLE q2(ts INT, dur INT, part INT, y);"
             "INSERT INTO q2 VALUES (50, 10, 3, 'b3'), (5, 20, 1, 'b1'), (45, 0, 1, -0.0),"
             " (40, 5, 1, 'b2'), (60, -1, 1, 'b5'), (-10, 8, 2, 'b6');"
             "CREATE TABLE q2s AS SELECT * FROM q2 ORDER BY part, ts;"
             "CREATE TABLE qg(ts INT, dur INT, g);"
             "INSERT INTO qg VALUES (30, 0, 'g2'), (8, 20, 'g1'), (150, -1, 'g3');"
             "CREATE TABLE qgs AS SELECT * FROM qg ORDER BY ts;"
             "CREATE TABLE qt(ts INT, dur INT, part INT, z);"
             "INSERT INTO qt VALUES (5, 10, 1, 't1'), (5, 0, 1, 't2'), (30, 5, 1, 't3'),"
             " (30, 5, 1, 't4');"
             "CREATE TABLE qr(ts, dur INT, part INT, w);"
             "INSERT INTO qr VALUES (5.5, 10, 1, 'r1'), (30, 5, 1, 'r2'), ('40', 5, 1, 'r3');"
             "CREATE TABLE qe(ts INT, dur INT, part INT, e);"
             "CREATE VIRTUAL TABLE j1 USING SPAN_JOIN(q1 PARTITIONED part, q2 PARTITIONED part);"
             "CREATE VIRTUAL TABLE j1s USING SPAN_JOIN(q1s PARTITIONED part, q2s PARTITIONED part);"
             "CREATE VIRTUAL TABLE o1 USING SPAN_OUTER_JOIN(q1 PARTITIONED part, q2 PARTITIONED "
             "part);"
             "CREATE VIRTUAL TABLE o1s USING SPAN_OUTER_JOIN(q1s PARTITIONED part, q2s PARTITIONED "
             "part);"
             "CREATE VIRTUAL TABLE l1 USING SPAN_LEFT_JOIN(q2 PARTITIONED part, qg);"
             "CREATE VIRTUAL TABLE l1s USING SPAN_LEFT_JOIN(q2s PARTITIONED part, qgs);"
             "CREATE VIRTUAL TABLE jt USING SPAN_JOIN(qt PARTITIONED part, q2 PARTITIONED part);"
             "CREATE VIRTUAL TABLE jr USING SPAN_OUTER_JOIN(qr PARTITIONED part, q2 PARTITIONED "
             "part);"
             "CREATE VIRTUAL TABLE je USING SPAN_OUTER_JOIN(qe PARTITIONED part, q2 PARTITIONED "
             "part);");
  static const char *const cases[][3] = {
      {"quote(x), quote(y) FROM j1", "quote(x), quote(y) FROM j1s",
       "5|5|1|2.5|'b1'\n20|5|1|NULL|'b1'\n40|5|1|'a4'|'b2'\n60|-1|1|'open'|'b5'\n"
       "-5|3|2|9223372036854775807|'b6'"},
      {"quote(x), quote(y) FROM o1", "quote(x), quote(y) FROM o1s",
       "0|5|1|2.5|NULL\n5|5|1|2.5|'b1'\n10|10|1|NULL|'b1'\n20|5|1|NULL|'b1'\n25|5|1|NULL|NULL\n"
       "40|5|1|'a4'|'b2'\n60|-1|1|'open'|'b5'\n60|-1|1|'open'|NULL\n"
       "-5|3|2|9223372036854775807|'b6'\n0|100|2|X'FF00'|NULL\n50|10|3|NULL|'b3'"},
      {"quote(g), quote(y) FROM l1", "quote(g), quote(y) FROM l1s",
       "5|3|1|NULL|'b1'\n8|17|1|'g1'|'b1'\n40|5|1|NULL|'b2'\n45|0|1|NULL|0.0\n"
       "60|-1|1|NULL|'b5'\n50|10|3|NULL|'b3'"},
      /* Ties on (partition, ts), and a real and a text ts: SQLite's ORDER BY. An empty side
      ** (the other's span before 0 is in no shadow). */
      {"quote(z), quote(y) FROM jt", NULL, "5|10|1|'t1'|'b1'\n5|0|1|'t2'|'b1'"},
      {"quote(w), quote(y) FROM jr", NULL,
       "5|10|1|'r1'|'b1'\n15|10|1|NULL|'b1'\n30|5|1|'r2'|NULL\n40|5|1|'r3'|'b2'\n"
       "60|-1|1|NULL|'b5'\n50|10|3|NULL|'b3'"},
      {"e, y FROM je", NULL,
       "5|20|1|NULL|b1\n40|5|1|NULL|b2\n45|0|1|NULL|0.0\n60|-1|1|NULL|b5\n50|10|3|NULL|b3"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT ts, dur, part, %s", cases[i][0]);
    if (strcmp(sc_rows(p, sql), cases[i][2])) fail_msg("%s: %s", sql, sc_rows(p, sql));
    if (!cases[i][1]) continue;
    snprintf(sql, sizeof sql, "SELECT ts, dur, part, %s", cases[i][1]);
    if (strcmp(sc_rows(p, sql), cases[i][2])) fail_msg("%s: %s", sql, sc_rows(p, sql));
  }
}

/* The outer joins' shadows, zero-length and unfinished spans, NULL partitions, empty and mixed
** (partitioned against unpartitioned) sides: every answer is Perfetto v58.2's shell's on the same
** tables (`trace_processor_shell query -f`, `SELECT * FROM <the join>`), byte for byte. */
static void span_join_shadows(void **state) {
  sc_rows(p, "CREATE TABLE sa(ts INT, dur INT, cpu INT, x TEXT);"
             "INSERT INTO sa VALUES (0, 10, 1, 'a1'), (20, 10, 1, 'a2'), (0, 100, 2, 'a3'),"
             " (40, 0, 2, 'a4'), (200, -1, 2, 'a5'), (7, 3, NULL, 'anull');"
             "CREATE TABLE sb(ts INT, dur INT, cpu INT, y TEXT);"
             "INSERT INTO sb VALUES (5, 20, 1, 'b1'), (40, 5, 1, 'b2'), (50, 10, 3, 'b3'),"
             " (45, 0, 1, 'b4'), (60, -1, 1, 'b5'), (100, 0, 2, 'b6');"
             "CREATE TABLE sg(ts INT, dur INT, z TEXT);"
             "INSERT INTO sg VALUES (8, 20, 'g1'), (30, 0, 'g2'), (150, -1, 'g3');"
             "CREATE TABLE sh(ts INT, dur INT, w TEXT);"
             "INSERT INTO sh VALUES (0, 5, 'h1'), (30, 10, 'h2'), (150, 0, 'h3');"
             "CREATE TABLE se(ts INT, dur INT, cpu INT, v TEXT);"
             "CREATE TABLE seu(ts INT, dur INT, u TEXT);"
             "CREATE TABLE s1(ts INT, dur INT, part INT);"
             "INSERT INTO s1 VALUES (1, 0, 0), (5, -1, 0), (2, 0, 1);"
             "CREATE TABLE s2(ts INT, dur INT, part INT);"
             "INSERT INTO s2 VALUES (1, 2, 0), (5, 0, 0), (1, 1, 1);");
  static const char *const cases[][2] = {
      {"SPAN_LEFT_JOIN(s1 PARTITIONED part, s2 PARTITIONED part)", "1|0|0\n5|-1|0\n5|-1|0\n2|0|1"},
      {"SPAN_OUTER_JOIN(s1 PARTITIONED part, s2 PARTITIONED part)",
       "1|0|0\n1|2|0\n5|-1|0\n5|-1|0\n1|1|1\n2|0|1"},
      {"SPAN_LEFT_JOIN(s2 PARTITIONED part, s1 PARTITIONED part)",
       "1|0|0\n1|2|0\n5|-1|0\n5|0|0\n1|1|1"},
      {"SPAN_LEFT_JOIN(sa PARTITIONED cpu, sb PARTITIONED cpu)",
       "0|5|1|a1|NULL\n5|5|1|a1|b1\n20|5|1|a2|b1\n25|5|1|a2|NULL\n"
       "0|100|2|a3|NULL\n200|-1|2|a5|NULL"},
      {"SPAN_OUTER_JOIN(sa PARTITIONED cpu, sb PARTITIONED cpu)",
       "0|5|1|a1|NULL\n5|5|1|a1|b1\n10|10|1|NULL|b1\n20|5|1|a2|b1\n"
       "25|5|1|a2|NULL\n40|5|1|NULL|b2\n45|0|1|NULL|b4\n60|-1|1|NULL|b5\n"
       "0|100|2|a3|NULL\n200|-1|2|a5|NULL\n50|10|3|NULL|b3"},
      {"SPAN_JOIN(sa PARTITIONED cpu, sg)",
       "8|2|1|a1|g1\n20|8|1|a2|g1\n8|20|2|a3|g1\n30|0|2|a3|g2"},
      {"SPAN_LEFT_JOIN(sa PARTITIONED cpu, sg)",
       "0|8|1|a1|NULL\n8|2|1|a1|g1\n20|8|1|a2|g1\n28|2|1|a2|NULL\n"
       "0|8|2|a3|NULL\n8|20|2|a3|g1\n28|2|2|a3|NULL\n30|0|2|a3|g2\n"
       "30|70|2|a3|NULL\n40|0|2|a4|NULL\n200|-1|2|a5|NULL"},
      {"SPAN_LEFT_JOIN(sg, sa PARTITIONED cpu)",
       "8|2|1|g1|a1\n10|10|1|g1|NULL\n20|8|1|g1|a2\n30|0|1|g2|NULL\n"
       "150|-1|1|g3|NULL\n8|20|2|g1|a3\n30|0|2|g2|a3\n150|-1|2|g3|NULL"},
      {"SPAN_OUTER_JOIN(sa PARTITIONED cpu, sg)",
       "0|8|1|a1|NULL\n8|2|1|a1|g1\n10|10|1|NULL|g1\n20|8|1|a2|g1\n"
       "28|2|1|a2|NULL\n150|-1|1|NULL|g3\n0|8|2|a3|NULL\n8|20|2|a3|g1\n"
       "28|2|2|a3|NULL\n30|0|2|a3|g2\n30|70|2|a3|NULL\n40|0|2|a4|NULL\n"
       "150|-1|2|NULL|g3\n200|-1|2|a5|NULL"},
      {"SPAN_OUTER_JOIN(sg, sb PARTITIONED cpu)",
       "5|3|1|NULL|b1\n8|17|1|g1|b1\n25|3|1|g1|NULL\n30|0|1|g2|NULL\n"
       "40|5|1|NULL|b2\n45|0|1|NULL|b4\n60|-1|1|NULL|b5\n150|-1|1|g3|NULL\n"
       "8|20|2|g1|NULL\n30|0|2|g2|NULL\n100|0|2|NULL|b6\n150|-1|2|g3|NULL\n"
       "8|20|3|g1|NULL\n30|0|3|g2|NULL\n50|10|3|NULL|b3\n150|-1|3|g3|NULL"},
      {"SPAN_LEFT_JOIN(sg, sh)", "8|20|g1|NULL\n30|0|g2|h2\n150|-1|g3|h3\n150|-1|g3|NULL"},
      {"SPAN_LEFT_JOIN(sh, sg)",
       "0|5|h1|NULL\n30|0|h2|g2\n30|10|h2|NULL\n150|-1|h3|g3\n150|0|h3|NULL"},
      {"SPAN_OUTER_JOIN(sg, sh)",
       "0|5|NULL|h1\n8|20|g1|NULL\n30|0|g2|h2\n30|10|NULL|h2\n150|-1|g3|h3\n"
       "150|-1|g3|NULL"},
      {"SPAN_OUTER_JOIN(sa PARTITIONED cpu, se PARTITIONED cpu)",
       "0|10|1|a1|NULL\n20|10|1|a2|NULL\n0|100|2|a3|NULL\n40|0|2|a4|NULL\n"
       "200|-1|2|a5|NULL"},
      {"SPAN_OUTER_JOIN(se PARTITIONED cpu, sa PARTITIONED cpu)",
       "0|10|1|NULL|a1\n20|10|1|NULL|a2\n0|100|2|NULL|a3\n40|0|2|NULL|a4\n"
       "200|-1|2|NULL|a5"},
      {"SPAN_OUTER_JOIN(seu, sh)", "0|5|NULL|h1\n30|10|NULL|h2\n150|0|NULL|h3"},
      {"SPAN_OUTER_JOIN(sa PARTITIONED cpu, seu)",
       "0|10|1|a1|NULL\n20|10|1|a2|NULL\n0|100|2|a3|NULL\n40|0|2|a4|NULL\n"
       "200|-1|2|a5|NULL"},
      {"SPAN_OUTER_JOIN(seu, sa PARTITIONED cpu)",
       "0|10|1|NULL|a1\n20|10|1|NULL|a2\n0|100|2|NULL|a3\n40|0|2|NULL|a4\n"
       "200|-1|2|NULL|a5"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char sql[160];
    snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS sj; CREATE VIRTUAL TABLE sj USING %s",
             cases[i][0]);
    sc_rows(p, sql);
    assert_string_equal(sc_rows(p, "SELECT * FROM sj"), cases[i][1]);
  }
}

/* Two threads' nested slices, interleaved in id order: zero-length, unfinished (never ended) and
** overlapping parents on the other track. */
static const char NESTED[] = "packet { track_descriptor { uuid: 1 name: \"t1\" } }\n"
                             "packet { track_descriptor { uuid: 2 name: \"t2\" } }\n"
#define EV(ts, type, track, name)                                                                  \
  "packet { trusted_packet_sequence_id: 1 timestamp: " #ts " track_event { type: TYPE_SLICE_" type \
  " track_uuid: " #track name " } }\n"
    EV(0, "BEGIN", 1, " name: \"a\"") EV(1, "BEGIN", 2, " name: \"p\"")
        EV(10, "BEGIN", 1, " name: \"b\"") EV(11, "BEGIN", 2, " name: \"q\"")
            EV(20, "BEGIN", 1, " name: \"c\"") EV(21, "END", 2, "")
                EV(25, "BEGIN", 2, " name: \"r\"") EV(30, "END", 1, "")
                    EV(30, "BEGIN", 1, " name: \"d\"") EV(30, "END", 1, "") EV(50, "END", 1, "")
                        EV(60, "BEGIN", 1, " name: \"e\"") EV(70, "BEGIN", 1, " name: \"f\"")
                            EV(80, "END", 1, "") EV(90, "END", 1, "") EV(95, "END", 2, "")
                                EV(100, "END", 1, "") EV(200, "BEGIN", 1, " name: \"g\"")
                                    EV(210, "BEGIN", 1, " name: \"h\"") EV(300, "END", 2, "");
#undef EV

/* descendant_slice of every slice of q (and ids out of range) against a recursive query over
** parent_id: first by passes over the column (no children index), then through the index. */
static void same_descendants(trak_processor *q) {
  int n = (int)sc_int(q, "SELECT COUNT(*) FROM slice");
  for (int pass = 0; pass < 2; pass++) {
    trak__vt_scans_before_index = pass ? 0 : UINT32_MAX;
    for (int id = -1; id <= n; id++) {
      static char got[1 << 16];
      char sql[1024];
      snprintf(sql, sizeof sql,
               "SELECT group_concat(id || ':' || depth || ':' || name, ' ') FROM "
               "(SELECT * FROM descendant_slice(%d))",
               id);
      snprintf(got, sizeof got, "%s", sc_rows(q, sql));
      snprintf(sql, sizeof sql,
               "WITH RECURSIVE d(id) AS (SELECT id FROM slice WHERE parent_id = %d UNION ALL "
               "SELECT s.id FROM slice s JOIN d ON s.parent_id = d.id) "
               "SELECT group_concat(id || ':' || depth || ':' || name, ' ') FROM "
               "(SELECT * FROM slice WHERE id IN d ORDER BY id)",
               id);
      assert_string_equal(got, sc_rows(q, sql));
    }
  }
  trak__vt_scans_before_index = 3;
}

static void descendants(void **state) {
  trak_processor *q = sc_open(NESTED);
  assert_int_equal(sc_int(q, "SELECT COUNT(*) FROM slice"), 11);
  assert_string_equal(sc_rows(q, "SELECT MAX(depth) FROM slice"), "2");
  same_descendants(q);
  assert_string_equal(sc_rows(q, "SELECT group_concat(name, '') FROM descendant_slice(0)"),
                      "bcdef");
  trak_processor_free(q);
}

static uint32_t rng = 12345;
static uint32_t rnd(uint32_t n) {
  rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
  return rng % n;
}

/* Appends to b complete JSON events nested in [start, end] on thread tid, depth levels deep:
** zero-length ones, children touching their parent's ends and gaps between them. */
static void nested_events(char *b, size_t cap, int tid, int64_t start, int64_t end, int depth) {
  int64_t at = start;
  while (depth && at < end) {
    int64_t len = rnd(4) ? (int64_t)rnd((uint32_t)(end - at) + 1) : 0;
    size_t used = strlen(b);
    snprintf(b + used, cap - used,
             "{\"ph\":\"X\",\"name\":\"n%lld\",\"pid\":1,\"tid\":%d,\"ts\":%lld,\"dur\":%lld},",
             (long long)(at % 7), tid, (long long)at, (long long)len);
    nested_events(b, cap, tid, at, at + len, depth - 1);
    at += len + rnd(3);
  }
}

/* descendant_slice on a few hundred slices of three threads interleaved in id order (the four
** rows at a time of the pass over parent_id, subtrees spread over many blocks), unfinished
** slices among them; then with a parent moved after its child (the pass gives up, the index
** answers). */
static void descendants_many(void **state) {
  static char b[1 << 17];
  strcpy(b, "[");
  for (int tid = 1; tid <= 3; tid++)
    nested_events(b, sizeof b, tid, 0, 400, 4);
  size_t used = strlen(b);
  snprintf(b + used, sizeof b - used,
           "{\"ph\":\"B\",\"name\":\"open\",\"pid\":1,\"tid\":1,\"ts\":500},"
           "{\"ph\":\"B\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":510},"
           "{\"ph\":\"X\",\"name\":\"leaf\",\"pid\":1,\"tid\":1,\"ts\":520,\"dur\":5}]");
  trak_processor *q = sc_open(b);
  int64_t n = sc_int(q, "SELECT COUNT(*) FROM slice");
  assert_true(n > 200);
  assert_int_equal(sc_int(q, "SELECT COUNT(*) FROM slice WHERE dur = -1"), 2);
  assert_true(sc_int(q, "SELECT MAX(depth) FROM slice") >= 3);
  same_descendants(q);
  trak_processor_free(q);

  q = sc_open(b); /* a parent after its child: slice 1's parent becomes the last slice */
  trak_tables *t = &((struct trak_processor *)q)->tables;
  t->slice.parent_id[1] = (uint32_t)(t->slice.n - 1);
  same_descendants(q);
  trak_processor_free(q);
}

/* trace_bounds over many slices (the slice pass takes four rows at a time): the greatest end
** and the least start anywhere among 2..70 slices, zero-length and unfinished ones (their start
** counts), and one whose end passes INT64_MAX (it wraps and is left out, as in Perfetto). */
static void bounds_many(void **state) {
  for (int n = 2; n <= 70; n += 3) {
    static char b[1 << 14];
    int64_t lo = INT64_MAX, hi = 0;
    strcpy(b, "[");
    for (int i = 0; i < n; i++) {
      int64_t ts = 1000 + (int64_t)rnd(5000), dur = rnd(3) ? (int64_t)rnd(3000) : 0;
      const char *ph = i == n / 2 ? "B" : "X"; /* never ended: dur -1 */
      if (i == n / 3 && n > 10) ts = 9000000000000000, dur = 500000000000000; /* wraps */
      size_t used = strlen(b);
      snprintf(b + used, sizeof b - used,
               "{\"ph\":\"%s\",\"name\":\"s\",\"pid\":1,\"tid\":%d,\"ts\":%lld,\"dur\":%lld},",
               ph, i + 1, (long long)ts, (long long)dur);
      ts *= 1000, dur *= 1000; /* microseconds */
      lo = ts < lo ? ts : lo;
      int64_t end = *ph == 'B' || !dur ? ts : (int64_t)((uint64_t)ts + (uint64_t)dur);
      hi = end > hi ? end : hi;
    }
    b[strlen(b) - 1] = ']';
    trak_processor *q = sc_open(b);
    assert_int_equal(sc_int(q, "SELECT COUNT(*) FROM slice"), n);
    assert_int_equal(sc_int(q, "SELECT start_ts FROM trace_bounds"), lo);
    assert_int_equal(sc_int(q, "SELECT end_ts FROM trace_bounds"), hi == lo ? hi + 1 : hi);
    trak_processor_free(q);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bounds),
      cmocka_unit_test(metadata_and_stats),
      cmocka_unit_test(clocks),
      cmocka_unit_test(strings),
      cmocka_unit_test(slices_and_args),
      cmocka_unit_test(span_join),
      cmocka_unit_test(span_join_shadows),
      cmocka_unit_test(span_join_read_order),
      cmocka_unit_test(descendants),
      cmocka_unit_test(descendants_many),
      cmocka_unit_test(bounds_many),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
