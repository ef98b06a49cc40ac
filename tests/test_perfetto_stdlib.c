/*
** Tests of standard modules on small traces: intervals.* (overlap, intersect, fill_gaps) and
** slices.hierarchy on tests/data/psql/modules.json (trace bounds 0 to 250000 ns; the intervals
** are given as VALUES); viz.summary.track_event on tests/data/psql/viz_orderings.pbtxt
** (track-event tracks numbered among their siblings as their parent's child_ordering says);
** slices.stack, slices.self_dur and hash() on tests/data/psql/stacks.json (nested slices,
** unfinished ones, NULL and empty categories); slices.flat_slices on
** tests/data/psql/flat_edges.json (children at their root's edges). The expected rows were
** compared with Perfetto's trace_processor_shell on the same traces (the protobuf one encoded
** with protoc).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sqlcheck.h"
#include "testutil.h"

/* Overlap counts (an unfinished interval, dur -1, opens and never closes), the has_overlaps
** check, and flattening a tree of intervals into self-time pieces. */
static void intervals_overlap(void **state) {
  trak_processor *p = sc_open_file("tests/data/psql/modules.json");
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE intervals.overlap; WITH d(ts, dur) AS (VALUES (10, 40), (20, 10), "
       "(25, 10), (60, 10), (70, 20), (80, -1)) SELECT * FROM intervals_overlap_count!(d, ts, dur)",
       "10|1\n"
       "20|2\n"
       "25|3\n"
       "30|2\n"
       "35|1\n"
       "50|0\n"
       "60|1\n"
       "70|1\n"
       "80|2\n"
       "90|1"},
      {"INCLUDE PERFETTO MODULE intervals.overlap; WITH d(ts, dur, g) AS (VALUES (10, 40, 'A'), "
       "(15, 30, 'B'), (20, 10, 'A'), (30, 10, 'B'), (60, -1, 'B'), (70, 20, 'A')) SELECT * FROM "
       "intervals_overlap_count_by_group!(d, ts, dur, g)",
       "10|1|A\n"
       "15|1|B\n"
       "20|2|A\n"
       "30|1|A\n"
       "30|2|B\n"
       "40|1|B\n"
       "45|0|B\n"
       "50|0|A\n"
       "60|1|B\n"
       "70|1|A\n"
       "90|0|A"},
      {"INCLUDE PERFETTO MODULE intervals.overlap; WITH a(ts, dur) AS (VALUES (10, 10), (20, 10)), "
       "b(ts, dur) AS (VALUES (10, 10), (19, 10)) SELECT * FROM _intervals_overlap_in_table!(a) "
       "UNION ALL SELECT * FROM _intervals_overlap_in_table!(b)",
       "0\n"
       "1"},
      {"INCLUDE PERFETTO MODULE intervals.overlap; WITH r(id, ts, dur) AS (VALUES (0, 0, 10), (1, "
       "10, 2), (2, 20, 0)), c(root_id, id, parent_id, ts, dur) AS (VALUES (0, 3, 0, 2, 4), (0, 4, "
       "3, 3, 1), (0, 5, 0, 6, 0), (0, 6, 0, 6, 2)) SELECT ts, dur, id, root_id FROM "
       "_intervals_flatten!(_intervals_merge_root_and_children!(r, c)) ORDER BY ts",
       "0|2|0|0\n"
       "2|1|3|0\n"
       "3|1|4|0\n"
       "4|2|3|0\n"
       "6|2|6|0\n"
       "8|2|0|0\n"
       "10|2|1|1"},
      {"INCLUDE PERFETTO MODULE intervals.overlap; CREATE PERFETTO TABLE m AS WITH r(id, ts, dur, "
       "k) AS (VALUES (0, 0, 10, 1), (1, 10, 5, 2)), c(id, parent_id, ts, dur, k) AS (VALUES (2, "
       "NULL, 1, 4, 1), (3, 2, 2, 1, 1), (4, NULL, 8, 4, 1), (5, NULL, 11, 2, 2)) SELECT * FROM "
       "_intervals_merge_root_and_children_by_intersection!(r, c, k); SELECT ts, dur, id, "
       "parent_id, root_id, root_ts, root_dur, k FROM m ORDER BY ts",
       "1|4|2|0|0|0|10|1\n"
       "2|1|3|2|0|0|10|1\n"
       "8|2|4|0|0|0|10|1\n"
       "11|2|5|1|1|10|5|2"},
      {"INCLUDE PERFETTO MODULE intervals.overlap; CREATE PERFETTO TABLE m2 AS WITH r(id, ts, dur, "
       "k) AS (VALUES (0, 0, 10, 1), (1, 10, 5, 2)), c(id, parent_id, ts, dur, k) AS (VALUES (2, "
       "NULL, 1, 4, 1), (3, 2, 2, 1, 1), (4, NULL, 8, 4, 1), (5, NULL, 11, 2, 2)) SELECT * FROM "
       "_intervals_merge_root_and_children_by_intersection!(r, c, k); SELECT ts, dur, id, root_id "
       "FROM _intervals_flatten!(m2) ORDER BY ts",
       "0|1|0|0\n"
       "1|1|2|0\n"
       "2|1|3|0\n"
       "3|2|2|0\n"
       "5|3|0|0\n"
       "8|2|4|0\n"
       "10|1|1|1\n"
       "10|0|0|0\n"
       "11|2|5|1\n"
       "13|2|1|1"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

/* Self-intersection, renamed columns, and instants (dur 0): an instant at t meets [s, e) when
** s <= t < e, two instants meet when equal, and touching intervals do not meet. */
static void intervals_intersect(void **state) {
  trak_processor *p = sc_open_file("tests/data/psql/modules.json");
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE intervals.intersect; WITH d(ts, dur, id) AS (VALUES (10, 100, 0), "
       "(20, 40, 1), (200, 10, 3), (200, 20, 4)) SELECT * FROM interval_self_intersect!(d) ORDER "
       "BY ts, id, interval_ends_at_ts",
       "10|10|1|0|0\n"
       "20|40|2|0|0\n"
       "20|40|2|1|0\n"
       "60|50|3|0|0\n"
       "60|50|3|1|1\n"
       "110|90|4|0|1\n"
       "200|10|5|3|0\n"
       "200|10|5|4|0\n"
       "210|10|6|3|1\n"
       "210|10|6|4|0\n"
       "220|0|7|4|1"},
      {"INCLUDE PERFETTO MODULE intervals.intersect; CREATE PERFETTO TABLE ta AS WITH d(rid, ts, "
       "st, len, cat) AS (VALUES (1, 9, 100, 50, 'a'), (2, 9, 120, 60, 'b')) SELECT * FROM d; "
       "CREATE PERFETTO TABLE tb AS WITH d(eid, b, l, cat) AS (VALUES (10, 110, 30, 'a'), (11, "
       "150, 20, 'b'), (12, 150, 20, 'a')) SELECT * FROM d; SELECT ts, dur, id_0, id_1, cat FROM "
       "_interval_intersect_with_col_names!(ta, rid, st, len, tb, eid, b, l, (cat)) ORDER BY ts",
       "110|30|1|10|a\n"
       "150|20|2|11|b"},
      {"INCLUDE PERFETTO MODULE intervals.intersect; CREATE PERFETTO TABLE ia AS WITH d(id, ts, "
       "dur) AS (VALUES (0, 3, 0), (1, 5, 0), (2, 7, 0), (3, 0, 2)) SELECT * FROM d; CREATE "
       "PERFETTO TABLE ib AS WITH d(id, ts, dur) AS (VALUES (10, 3, 2), (11, 7, 0), (12, 2, 0)) "
       "SELECT * FROM d; SELECT ts, dur, id_0, id_1 FROM _interval_intersect!((ia, ib), ()) ORDER "
       "BY ts, id_0",
       "3|0|0|10\n"
       "7|0|2|11"},
      /* Three tables: the instants of the first two, inside the third's interval. */
      {"CREATE PERFETTO TABLE jc AS WITH d(id, ts, dur) AS (VALUES (20, 0, 10), (21, 4, 0)) "
       "SELECT * FROM d; SELECT ts, dur, id_0, id_1, id_2 FROM _interval_intersect!((ia, ib, jc), "
       "()) ORDER BY ts, id_0",
       "3|0|0|10|20\n"
       "7|0|2|11|20"},
      /* NULL partition values meet each other; three tables by utid. */
      {"INCLUDE PERFETTO MODULE intervals.intersect; SELECT * FROM _interval_intersect!(((SELECT 1 "
       "AS id, 5 AS ts, 3 AS dur, NULL AS p UNION ALL SELECT 2, 5, 3, 1 UNION ALL SELECT 3, 6, 9, "
       "4), (SELECT 7 AS id, 5 AS ts, 2 AS dur, NULL AS p UNION ALL SELECT 8, 5, 2, 1 UNION ALL "
       "SELECT 9, 2, 5, 4)), (p)) ORDER BY id_0",
       "5|2|1|7|NULL\n"
       "5|2|2|8|1\n"
       "6|1|3|9|4"},
      {"INCLUDE PERFETTO MODULE intervals.intersect; SELECT ts, dur, id_0, id_1, id_2, utid FROM "
       "_interval_intersect!(((SELECT s.id, s.ts, s.dur, t.utid FROM slice s JOIN thread_track t "
       "ON t.id = s.track_id WHERE s.depth = 0), (SELECT s.id, s.ts, s.dur, t.utid FROM slice s "
       "JOIN thread_track t ON t.id = s.track_id WHERE s.depth = 1), (SELECT s.id, s.ts, s.dur, "
       "t.utid FROM slice s JOIN thread_track t ON t.id = s.track_id WHERE s.depth = 2)), (utid)) "
       "ORDER BY ts",
       "25000|10000|0|1|2|1"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  /* BLOBs not made by __trak_intervals: a key cut short reads as NULL, a row cut short is an
  ** error. */
  assert_string_equal(sc_rows(p, "SELECT ts, dur, id_0, p_0 FROM __trak_interval_intersect(x'"
                                 "010000000000000000000000000000000500000000000000"
                                 "03000000030100')"),
                      "0|5|1|NULL");
  assert_non_null(strstr(sc_error(p, "SELECT * FROM __trak_interval_intersect(x'0100')"),
                         "malformed intervals"));
  /* As Perfetto, a negative dur is an error. */
  assert_non_null(
      strstr(sc_error(p, "SELECT * FROM _interval_intersect!(((SELECT 1 AS id, 5 AS ts, "
                         "-1 AS dur)), ())"),
             "non negative duration"));
  trak_processor_free(p);
}

/* Gaps filled from the trace's start to its end per group, and a trace-long row with no data. */
static void intervals_fill_gaps(void **state) {
  trak_processor *p = sc_open_file("tests/data/psql/modules.json");
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE intervals.fill_gaps; CREATE PERFETTO TABLE fg AS WITH x(ts, dur, "
       "grp, val) AS (VALUES (20000, 10000, 'A', 1), (50000, 20000, 'A', 2), (100000, 50000, 'B', "
       "3), (NULL, NULL, 'C', NULL)) SELECT * FROM x; SELECT ts, dur, grp, val FROM "
       "_intervals_fill_gaps!((grp), (val), fg) ORDER BY ts, grp",
       "0|20000|A|NULL\n"
       "0|100000|B|NULL\n"
       "0|250000|C|NULL\n"
       "20000|10000|A|1\n"
       "30000|20000|A|NULL\n"
       "50000|20000|A|2\n"
       "70000|180000|A|NULL\n"
       "100000|50000|B|3\n"
       "150000|100000|B|NULL"},
      {"INCLUDE PERFETTO MODULE intervals.fill_gaps; CREATE PERFETTO TABLE fg2 AS WITH x(ts, dur, "
       "g1, g2, v1, v2) AS (VALUES (100000, 10000, 'A', 'x', 1, 'one'), (100000, 20000, 'A', 'y', "
       "2, 'two')) SELECT * FROM x; SELECT * FROM _intervals_fill_gaps!((g1, g2), (v1, v2), fg2) "
       "ORDER BY ts, g2",
       "0|100000|A|x|NULL|NULL\n"
       "0|100000|A|y|NULL|NULL\n"
       "100000|10000|A|x|1|one\n"
       "100000|20000|A|y|2|two\n"
       "110000|140000|A|x|NULL|NULL\n"
       "120000|130000|A|y|NULL|NULL"},
      {"INCLUDE PERFETTO MODULE intervals.fill_gaps; CREATE PERFETTO TABLE fg3 AS SELECT 1 AS ts, "
       "2 AS dur, 'x' AS val WHERE 0; SELECT * FROM _intervals_fill_gaps!((NULL), (val), fg3)",
       "0|250000|NULL|NULL"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

/* Ancestors come after the slice itself, as Perfetto's; slices whose column is NULL are taken
** out and their children hung under the deepest ancestor with a value (at that ancestor's
** depth, as Perfetto's). */
static void hierarchy(void **state) {
  trak_processor *p = sc_open_file("tests/data/psql/modules.json");
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE slices.hierarchy; SELECT id, parent_id, depth, name FROM "
       "_slice_remove_nulls_and_reparent!((SELECT id, parent_id, depth, IIF(name IN ('layout', "
       "'read'), NULL, name) AS name FROM slice), name) ORDER BY id",
       "0|NULL|0|frame\n"
       "2|0|0|measure\n"
       "4|3|0|tick\n"
       "5|NULL|0|draw\n"
       "6|0|0|paint\n"
       "7|NULL|0|frame"},
      {"INCLUDE PERFETTO MODULE slices.hierarchy; SELECT id, name FROM _slice_ancestor_and_self(2)",
       "2|measure\n"
       "0|frame\n"
       "1|layout"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

static void orderings(void **state) {
  trak_processor *p = sc_open_file("tests/data/psql/viz_orderings.pbtxt");
  /* Explicit: by sibling_order_rank, a missing rank counting as 0; chronological: by first
  ** event; lexicographic and unset: by name. */
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE viz.summary.track_event; SELECT g.name, p.name AS parent, "
       "g.order_id, g.description, g.has_data, g.has_children, g.is_counter FROM "
       "_track_event_tracks_ordered_groups g LEFT JOIN track p ON p.id = g.parent_id ORDER BY "
       "p.name, g.order_id",
       "ch|NULL|1|NULL|1|1|0\n"
       "ex|NULL|2|explicit parent|1|1|0\n"
       "lx|NULL|3|NULL|1|1|0\n"
       "plain|NULL|4|NULL|1|1|0\n"
       "c_early|ch|1|NULL|1|0|0\n"
       "c_late|ch|2|NULL|1|0|0\n"
       "e_minus|ex|1|ranked low|1|0|0\n"
       "e_none|ex|2|NULL|1|0|0\n"
       "e_plus|ex|3|NULL|1|0|0\n"
       "aa|lx|1|NULL|1|0|0\n"
       "zz|lx|2|NULL|1|0|0\n"
       "x|plain|1|NULL|1|0|0\n"
       "y|plain|2|NULL|1|0|0"},
      /* One group per track here: track_ids is the track's own id. */
      {"SELECT count(*) FROM _track_event_tracks_ordered_groups WHERE track_ids != "
       "CAST(min_track_id AS TEXT)",
       "0"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

/* Stack ids are Perfetto's numbers (hash of the frames' hashes, the slice first, then its
** ancestors from the root); self_dur takes an unfinished slice's dur -1 as it is, as Perfetto. */
static void stacks(void **state) {
  trak_processor *p = sc_open_file("tests/data/psql/stacks.json");
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE slices.self_dur; SELECT s.name, s.dur, d.self_dur FROM "
       "slice_self_dur d JOIN slice s USING (id) ORDER BY s.name",
       "done|30000|30000\n"
       "leaf|2000|2000\n"
       "mid|10000|8000\n"
       "open_child|-1|-10001\n"
       "outer|-1|-30000\n"
       "root|100000|90000\n"
       "solo|10000|10000"},
      {"INCLUDE PERFETTO MODULE slices.stack; SELECT name, depth, stack_id, parent_stack_id FROM "
       "slice_with_stack_id ORDER BY name",
       "done|1|6386861291607528362|-5873422754201961086\n"
       "leaf|2|472100465956138690|-5015071208145149131\n"
       "mid|1|-5015071208145149131|-7001954435590271420\n"
       "open_child|1|-995490222680255016|-5873422754201961086\n"
       "outer|0|-5873422754201961086|0\n"
       "root|0|-7001954435590271420|0\n"
       "solo|2|-8425361085603288278|-995490222680255016"},
      {"INCLUDE PERFETTO MODULE slices.stack; SELECT name, depth FROM "
       "ancestor_slice_by_stack(472100465956138690) ORDER BY depth",
       "root|0\n"
       "mid|1\n"
       "leaf|2"},
      {"INCLUDE PERFETTO MODULE slices.stack; SELECT name FROM "
       "descendant_slice_by_stack(-5873422754201961086) ORDER BY name",
       "done\n"
       "open_child\n"
       "outer\n"
       "solo"},
      {"SELECT hash('|A'), hash(CAST(hash('|A') AS TEXT)), hash(1, 'x'), hash('ab', 'c'), "
       "hash('a', 'bc'), hash()",
       "640495243103436622|1905114530773834795|5952180755994350292|-1792535898324117685|-"
       "1792535898324117685|-3750763034362895579"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  assert_non_null(strstr(sc_error(p, "SELECT hash(1.5)"), "HASH: argument 0 is a REAL"));
  trak_processor_free(p);
}

/* _slice_flattened as Perfetto's: a root's first and last pieces even when empty (a child starts
** at its start, another ends at its end), nothing under an unfinished root, no piece for an
** instant. */
static void flat_edges(void **state) {
  trak_processor *p = sc_open_file("tests/data/psql/flat_edges.json");
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE slices.flat_slices; SELECT slice_id, ts, dur, depth, name, "
       "root_id, tid FROM _slice_flattened ORDER BY ts, dur",
       "0|10000|0|0|root|0|1\n"
       "1|10000|20000|1|first|0|1\n"
       "0|30000|20000|0|root|0|1\n"
       "2|50000|5000|1|last|0|1\n"
       "3|55000|5000|2|inner|0|1\n"
       "2|60000|50000|1|last|0|1\n"
       "0|110000|0|0|root|0|1\n"
       "4|200000|10000|0|solo|4|1"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(intervals_overlap),   cmocka_unit_test(intervals_intersect),
      cmocka_unit_test(intervals_fill_gaps), cmocka_unit_test(hierarchy),
      cmocka_unit_test(orderings),           cmocka_unit_test(stacks),
      cmocka_unit_test(flat_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
