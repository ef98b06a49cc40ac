/*
** Tests of the standard modules and the prelude's table functions on tests/data/psql/modules.json
** (two processes, nested slices, an instant, a counter). Every expected answer below was
** compared with Perfetto's trace_processor_shell on the same trace (graphs: on the same tables),
** except where a comment says
** otherwise (ids the importer numbers differently).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sqlcheck.h"
#include "testutil.h"

static trak_processor *p;

static int setup(void **state) {
  p = sc_open_file("tests/data/psql/modules.json");
  return 0;
}
static int teardown(void **state) {
  trak_processor_free(p);
  return 0;
}

static void with_context(void **state) {
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE slices.with_context;"
       "SELECT id, ts, dur, name, thread_name, tid, is_main_thread, process_name, pid, depth, "
       "parent_id FROM thread_slice ORDER BY id",
       "0|10000|100000|frame|main|1|1|browser|1|0|NULL\n"
       "1|20000|30000|layout|main|1|1|browser|1|1|0\n"
       "2|25000|10000|measure|main|1|1|browser|1|2|1\n"
       "3|30000|60000|read|io|2|0|browser|1|0|NULL\n"
       "4|40000|0|tick|io|2|0|browser|1|1|3\n"
       "5|50000|100000|draw|NULL|3|0|gpu|2|0|NULL\n"
       "6|60000|20000|paint|main|1|1|browser|1|1|0\n"
       "7|200000|50000|frame|main|1|1|browser|1|0|NULL\n"
       "8|210000|30000|layout|main|1|1|browser|1|1|7"},
      {"SELECT id, name, process_name, pid FROM process_slice ORDER BY id", ""},
      {"SELECT count(*), count(utid) FROM thread_or_process_slice", "9|9"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
}

static void slices_modules(void **state) {
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE slices.flat_slices;"
       "SELECT slice_id, ts, dur, depth, name, root_id, tid, thread_name, pid, process_name "
       "FROM _slice_flattened ORDER BY slice_id, ts",
       "0|10000|10000|0|frame|0|1|main|1|browser\n"
       "0|50000|10000|0|frame|0|1|main|1|browser\n"
       "0|80000|30000|0|frame|0|1|main|1|browser\n"
       "1|20000|5000|1|layout|0|1|main|1|browser\n"
       "1|35000|15000|1|layout|0|1|main|1|browser\n"
       "2|25000|10000|2|measure|0|1|main|1|browser\n"
       "3|30000|60000|0|read|3|2|io|1|browser\n"
       "5|50000|100000|0|draw|5|3|NULL|2|gpu\n"
       "6|60000|20000|1|paint|0|1|main|1|browser\n"
       "7|200000|10000|0|frame|7|1|main|1|browser\n"
       "7|240000|10000|0|frame|7|1|main|1|browser\n"
       "8|210000|30000|1|layout|7|1|main|1|browser"},
      {"INCLUDE PERFETTO MODULE slices.self_dur; SELECT * FROM slice_self_dur ORDER BY id",
       "0|50000\n"
       "1|20000\n"
       "2|10000\n"
       "3|60000\n"
       "4|0\n"
       "5|100000\n"
       "6|20000\n"
       "7|20000\n"
       "8|30000"},
      {"INCLUDE PERFETTO MODULE slices.hierarchy;"
       "SELECT id, name FROM _slice_ancestor_and_self(2) ORDER BY depth",
       "0|frame\n"
       "1|layout\n"
       "2|measure"},
      {"SELECT id, name FROM _slice_descendant_and_self(1) ORDER BY id", "1|layout\n"
                                                                         "2|measure"},
      /* Equal stacks have equal stack ids (the numbers: test_perfetto_stdlib.c). */
      {"INCLUDE PERFETTO MODULE slices.stack;"
       "SELECT a.id, b.id FROM slice_with_stack_id a JOIN slice_with_stack_id b "
       "ON a.stack_id = b.stack_id AND a.id < b.id ORDER BY 1",
       "0|7\n"
       "1|8"},
      {"SELECT count(*) FROM slice_with_stack_id s JOIN slice_with_stack_id p ON s.parent_id = "
       "p.id WHERE s.parent_stack_id != p.stack_id",
       "0"},
      {"SELECT group_concat(id) FROM (SELECT id FROM ancestor_slice_by_stack((SELECT stack_id "
       "FROM slice_with_stack_id WHERE name = 'layout' LIMIT 1)) ORDER BY id)",
       "0,1,7,8"},
      {"SELECT group_concat(id) FROM (SELECT id FROM descendant_slice_by_stack((SELECT stack_id "
       "FROM slice_with_stack_id WHERE name = 'layout' LIMIT 1)) ORDER BY id)",
       "1,2,8"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
}

static void counters_and_intervals(void **state) {
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE counters.intervals;"
       "SELECT id, ts, dur, value, next_value, delta_value FROM counter_leading_intervals!("
       "(SELECT id, ts, track_id, value FROM counter)) ORDER BY ts",
       "0|0|50000|10.0|10.0|NULL\n"
       "1|50000|50000|10.0|10.0|0.0\n"
       "2|100000|50000|10.0|30.0|0.0\n"
       "3|150000|70000|30.0|5.0|20.0\n"
       "4|220000|30000|5.0|NULL|-25.0"},
      /* Runs of four: the first, the second (standing for the middle) and the last. */
      {"CREATE PERFETTO TABLE cc AS SELECT 0 AS id, 0 AS ts, 1 AS track_id, 10.0 AS value "
       "UNION ALL SELECT 1, 10, 1, 10 UNION ALL SELECT 2, 20, 1, 10 UNION ALL SELECT 3, 30, 1, 10 "
       "UNION ALL SELECT 4, 40, 1, 10 UNION ALL SELECT 5, 50, 1, 7 UNION ALL SELECT 6, 5, 2, 1 "
       "UNION ALL SELECT 7, 15, 2, 1;"
       "SELECT id, ts, dur, track_id, value, next_value, delta_value "
       "FROM counter_leading_intervals!(cc) ORDER BY track_id, ts",
       "0|0|10|1|10.0|10.0|NULL\n"
       "1|10|30|1|10.0|10.0|0.0\n"
       "4|40|10|1|10.0|7.0|0.0\n"
       "5|50|249950|1|7.0|NULL|-3.0\n"
       "6|5|10|2|1.0|1.0|NULL\n"
       "7|15|249985|2|1.0|NULL|0.0"},
      {"INCLUDE PERFETTO MODULE intervals.overlap;"
       "SELECT * FROM intervals_overlap_count!(slice, ts, dur)",
       "10000|1\n"
       "20000|2\n"
       "25000|3\n"
       "30000|4\n"
       "35000|3\n"
       "40000|3\n"
       "50000|3\n"
       "60000|4\n"
       "80000|3\n"
       "90000|2\n"
       "110000|1\n"
       "150000|0\n"
       "200000|1\n"
       "210000|2\n"
       "240000|1\n"
       "250000|0"},
      {"SELECT * FROM interval_merge_overlapping!((SELECT ts, dur FROM slice WHERE depth = 0), 0)",
       "10000|140000\n"
       "200000|50000"},
      {"SELECT ts, value, group_name FROM intervals_overlap_count_by_group!(slice, ts, dur, "
       "category) WHERE group_name = 'io'",
       "30000|1|io\n"
       "90000|0|io"},
      {"SELECT _intervals_overlap_in_table!((SELECT ts, dur FROM slice WHERE depth = 0)), "
       "_intervals_overlap_in_table!((SELECT ts, dur FROM slice WHERE name = 'frame'))",
       "1|0"},
      /* Tracks named by their thread's tid: the module is under test, not track numbering. */
      {"SELECT m.ts, m.dur, t.tid FROM interval_merge_overlapping_partitioned!((SELECT ts, dur, "
       "track_id FROM slice WHERE depth = 0), (track_id)) m JOIN thread_track tt "
       "ON tt.id = m.track_id JOIN thread t USING (utid) ORDER BY t.tid, m.ts",
       "10000|100000|1\n"
       "200000|50000|1\n"
       "30000|60000|2\n"
       "50000|100000|3"},
      {"INCLUDE PERFETTO MODULE intervals.intersect;"
       "SELECT ts, dur, id_0, id_1 FROM _interval_intersect!(((SELECT id, ts, dur FROM slice "
       "WHERE name = 'frame'), (SELECT id, ts, dur FROM slice WHERE name IN ('read', 'draw'))), "
       "()) ORDER BY ts, id_1",
       "30000|60000|0|3\n"
       "50000|60000|0|5"},
      {"SELECT * FROM _interval_intersect_single!(40000, 30000, (SELECT id, ts, dur FROM slice "
       "WHERE "
       "depth = 0)) ORDER BY id",
       "0|40000|30000\n"
       "3|40000|30000\n"
       "5|50000|20000"},
      {"INCLUDE PERFETTO MODULE intervals.create_intervals;"
       "SELECT * FROM _interval_create!((SELECT 10 AS ts UNION ALL SELECT 30 UNION ALL SELECT "
       "70), (SELECT 20 AS ts UNION ALL SELECT 30 UNION ALL SELECT 50))",
       "10|10\n"
       "30|20"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
}

static void other_modules(void **state) {
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE time.conversion;"
       "SELECT time_to_ms(2500000), time_from_s(2), time_to_us(1999), time_from_ms(3), "
       "time_to_s(2999999999), time_from_us(4), time_to_min(120000000000), time_from_min(1), "
       "time_to_hours(7200000000000), time_from_hours(1), time_to_days(86400000000000), "
       "time_from_days(1), time_to_ns(5), time_from_ns(5)",
       "2|2000000000|1|3000000|2|4000|2|60000000000|2|3600000000000|1|86400000000000|5|5"},
      {"INCLUDE PERFETTO MODULE std.metasql.unparenthesize;"
       "SELECT metasql_unparenthesize_exprlist!((1 + 1, 'a,b'))",
       "2|a,b"},
      /* trace_uuid is trak's own; the others are as Perfetto gives them. */
      {"INCLUDE PERFETTO MODULE std.traceinfo.trace;"
       "SELECT trace_id, trace_type, trace_size_bytes > 0 FROM _metadata_by_trace",
       "0|json|1"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
}

/* Edges 1->2, 1->3, 2->4, 3->4, 4->5, 2->6, 6->5, 5->2 and 7->8; a forest in three groups. */
static const char GRAPH[] =
    "CREATE OR REPLACE PERFETTO TABLE edges AS SELECT 1 AS source_node_id, 2 AS dest_node_id "
    "UNION ALL SELECT 1, 3 UNION ALL SELECT 2, 4 UNION ALL SELECT 3, 4 UNION ALL SELECT 4, 5 "
    "UNION ALL SELECT 2, 6 UNION ALL SELECT 6, 5 UNION ALL SELECT 5, 2 UNION ALL SELECT 7, 8;"
    "CREATE OR REPLACE PERFETTO TABLE tree AS SELECT 1 AS id, NULL AS parent_id, 1 AS group_key "
    "UNION ALL SELECT 2, 1, 1 UNION ALL SELECT 3, 2, 2 UNION ALL SELECT 4, 2, 2 "
    "UNION ALL SELECT 5, 3, 1 UNION ALL SELECT 6, 5, 3 UNION ALL SELECT 7, 5, 2 "
    "UNION ALL SELECT 8, 4, 1;";

static void graphs(void **state) {
  sc_rows(p, GRAPH);
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE graphs.search;"
       "SELECT * FROM graph_reachable_dfs!(edges, (SELECT 1 AS node_id))",
       "1|NULL\n"
       "2|1\n"
       "4|2\n"
       "5|4\n"
       "6|2\n"
       "3|1"},
      {"SELECT * FROM graph_reachable_bfs!(edges, (SELECT 1 AS node_id))", "1|NULL\n"
                                                                           "2|1\n"
                                                                           "3|1\n"
                                                                           "4|2\n"
                                                                           "6|2\n"
                                                                           "5|4"},
      /* Several start nodes: all stacked (the last searched first) or queued in order. */
      {"SELECT * FROM graph_reachable_dfs!(edges, (SELECT 3 AS node_id UNION ALL SELECT 7 "
       "UNION ALL SELECT 2))",
       "2|NULL\n"
       "4|2\n"
       "5|4\n"
       "6|2\n"
       "7|NULL\n"
       "8|7\n"
       "3|NULL"},
      {"SELECT * FROM graph_reachable_bfs!(edges, (SELECT 3 AS node_id UNION ALL SELECT 7 "
       "UNION ALL SELECT 2))",
       "3|NULL\n"
       "7|NULL\n"
       "2|NULL\n"
       "4|3\n"
       "8|7\n"
       "6|2\n"
       "5|4"},
      {"SELECT * FROM graph_next_sibling!((SELECT id AS node_id, parent_id AS node_parent_id, "
       "id AS sort_key FROM tree)) ORDER BY node_id",
       "1|NULL\n"
       "2|NULL\n"
       "3|4\n"
       "4|NULL\n"
       "5|NULL\n"
       "6|7\n"
       "7|NULL\n"
       "8|NULL"},
      {"INCLUDE PERFETTO MODULE graphs.dominator_tree;"
       "SELECT * FROM graph_dominator_tree!(edges, 1) ORDER BY node_id",
       "1|NULL\n"
       "2|1\n"
       "3|1\n"
       "4|1\n"
       "5|1\n"
       "6|2"},
      {"SELECT * FROM graph_dominator_tree!(edges, 2) ORDER BY node_id", "2|NULL\n"
                                                                         "4|2\n"
                                                                         "5|2\n"
                                                                         "6|2"},
      {"INCLUDE PERFETTO MODULE graphs.partition;"
       "SELECT * FROM tree_structural_partition_by_group!(tree) ORDER BY id",
       "1|NULL|1\n"
       "2|1|1\n"
       "3|NULL|2\n"
       "4|NULL|2\n"
       "5|2|1\n"
       "6|NULL|3\n"
       "7|3|2\n"
       "8|2|1"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  /* Weight-bounded: each root on its own; the node passing the target is kept with a floor. */
  static const sc_check w[] = {
      {"CREATE PERFETTO TABLE wedges AS SELECT 1 AS source_node_id, 2 AS dest_node_id, "
       "1 AS edge_weight UNION ALL SELECT 1, 3, 5 UNION ALL SELECT 2, 4, 1 UNION ALL "
       "SELECT 4, 5, 1 UNION ALL SELECT 3, 6, 1 UNION ALL SELECT 5, 1, 1;"
       "SELECT * FROM graph_reachable_weight_bounded_dfs!(wedges, (SELECT 1 AS root_node_id, "
       "3 AS root_target_weight UNION ALL SELECT 3, 10), 1)",
       "1|1|NULL\n1|2|1\n1|4|2\n1|5|4\n1|3|1\n3|3|NULL\n3|6|3"},
      {"SELECT * FROM graph_reachable_weight_bounded_dfs!(wedges, (SELECT 1 AS root_node_id, "
       "3 AS root_target_weight), 0)",
       "1|1|NULL\n1|2|1\n1|4|2\n1|5|4"},
      {"SELECT * FROM graph_reachable_weight_bounded_dfs!(wedges, (SELECT 1 AS root_node_id, "
       "2 AS root_target_weight), 1)",
       "1|1|NULL\n1|2|1\n1|4|2\n1|5|4"},
  };
  sc_run_checks(p, w, sizeof w / sizeof *w);
  /* slices.flow on the seed trace with flows 0 -> 1 -> 2. */
  size_t len;
  char *text = tu_read_file(tu_source_path("tests/data/seed/07_flows.pbtxt"), &len);
  trak_processor *flows = sc_open(text);
  free(text);
  assert_string_equal(sc_rows(flows, "INCLUDE PERFETTO MODULE slices.flow;"
                                     "SELECT * FROM _slice_following_flow!(slice)"),
                      "0|0|NULL\n0|1|0\n0|2|1\n1|1|NULL\n1|2|1");
  trak_processor_free(flows);
  assert_non_null(strstr(sc_error(p, "SELECT * FROM __trak_graph('nope', 'SELECT 1, 2')"),
                         "unknown algorithm 'nope'"));
  assert_non_null(strstr(sc_error(p, "SELECT * FROM graph_reachable_dfs!(nosuch, (SELECT 1 AS "
                                     "node_id))"),
                         "no such table: nosuch"));
}

/* The prelude's experimental_slice_layout packs the listed tracks' slice stacks into rows. */
/* graphs.scan and graphs.hierarchy, and the graph macros over a query's own CTEs (their tables
** are packed in the caller's statement). Answers: trace_processor_shell v58.2 on the same SQL. */
static void graph_scans(void **state) {
  (void)state;
  static const sc_check c[] = {
      /* A diamond: node 4 gets its value once, from both of its predecessors'. */
      {"INCLUDE PERFETTO MODULE graphs.scan;"
       "WITH edges(source_node_id, dest_node_id) AS (VALUES (1, 2), (1, 3), (2, 4), (3, 4), "
       "(4, 5)), init(id, total, label) AS (VALUES (1, 10, 'a')) "
       "SELECT id, total, label FROM _graph_aggregating_scan!(edges, init, (total, label), "
       "(SELECT id, SUM(total) + 1 AS total, MAX(label) || MIN(label) AS label FROM $table "
       "GROUP BY id)) ORDER BY id",
       "1|10|a\n2|11|aa\n3|11|aa\n4|23|aaaa\n5|24|aaaaaaaa"},
      /* The plain scan: node 4 is reached twice, once down each path. */
      {"WITH edges(source_node_id, dest_node_id) AS (VALUES (1, 2), (1, 3), (2, 4), (3, 4)), "
       "init(id, d) AS (VALUES (1, 0.5)) "
       "SELECT id, d FROM _graph_scan!(edges, init, (d), (SELECT id, d * 2 AS d FROM $table)) "
       "ORDER BY id, d",
       "1|0.5\n2|1.0\n3|1.0\n4|2.0\n4|2.0"},
      /* No initial nodes: no rows, the step query not run. */
      {"WITH edges(source_node_id, dest_node_id) AS (VALUES (1, 2)), "
       "init(id, d) AS (SELECT 1, 1 WHERE 0) "
       "SELECT COUNT(*) FROM _graph_scan!(edges, init, (d), (SELECT id, d FROM $table))",
       "0"},
      {"INCLUDE PERFETTO MODULE graphs.hierarchy;"
       "WITH tree(id, parent_id) AS (VALUES (1, NULL), (2, 1), (3, 2), (4, 1)), "
       "starts(id) AS (VALUES (3)) "
       "SELECT id FROM _tree_reachable_ancestors_or_self!(tree, starts) ORDER BY id",
       "1\n2\n3"},
      {"INCLUDE PERFETTO MODULE graphs.search;"
       "WITH e(source_node_id, dest_node_id) AS (VALUES (7, 8), (8, 9)) "
       "SELECT node_id, parent_node_id FROM graph_reachable_bfs!(e, (SELECT 7 AS node_id))",
       "7|NULL\n8|7\n9|8"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  /* A cycle that keeps the plain scan going stops with an error; a step query whose columns
  ** are not id and the named ones is refused by the aggregating scan. */
  assert_non_null(strstr(sc_error(p, "WITH e(source_node_id, dest_node_id) AS (VALUES (1, 2), "
                                     "(2, 1)), i(id, d) AS (VALUES (1, 0)) SELECT * FROM "
                                     "_graph_scan!(e, i, (d), (SELECT id, d FROM $table))"),
                         "a cycle is reachable"));
  assert_non_null(strstr(sc_error(p, "WITH e(source_node_id, dest_node_id) AS (VALUES (1, 2)), "
                                     "i(id, d) AS (VALUES (1, 0)) SELECT * FROM "
                                     "_graph_aggregating_scan!(e, i, (d), (SELECT id, d AS x "
                                     "FROM $table))"),
                         "columns must be id and (d)"));
  /* A hand-made BLOB that is not __trak_rows' is refused, whole or cut short. */
  assert_non_null(strstr(sc_error(p, "SELECT * FROM __trak_graph('dfs', x'0200000001', NULL)"),
                         "malformed __trak_rows BLOB"));
  assert_non_null(strstr(sc_error(p, "SELECT * FROM __trak_graph_scan('scan', x'ffffffff', NULL, "
                                     "'(SELECT id FROM $table)', '()')"),
                         "edges are not rows"));
}

/* demangle(): Itanium names (and Mach-O's with an extra underscore) as C++ prints them; plain
** words stay NULL, as with the LLVM demangler of Perfetto's official builds (the C++ runtime
** alone would read "i" as the type int). */
static void demangling(void **state) {
  (void)state;
  static const sc_check c[] = {
      {"SELECT demangle('_ZN3app4workEv'), demangle('__ZN1a1bEi'), demangle('_ZN3app6helperEi')",
       "app::work()|a::b(int)|app::helper(int)"},
      {"SELECT demangle('main') IS NULL, demangle('i') IS NULL, demangle('_Zbroken') IS NULL, "
       "demangle(NULL) IS NULL",
       "1|1|1|1"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  assert_non_null(strstr(sc_error(p, "SELECT demangle(12)"), "Unsupported type"));
}

static void slice_layout(void **state) {
  static const sc_check c[] = {
      {"SELECT id, layout_depth FROM experimental_slice_layout((SELECT group_concat(id) FROM "
       "thread_track)) ORDER BY id",
       "0|0\n1|1\n2|2\n3|3\n4|4\n5|5\n6|1\n7|0\n8|1"},
      /* The tracks of tids 1 and 2, listed by id. */
      {"SELECT id, layout_depth FROM experimental_slice_layout((SELECT group_concat(id) FROM "
       "thread_track WHERE utid IN (SELECT utid FROM thread WHERE tid IN (1, 2)))) ORDER BY id",
       "0|0\n1|1\n2|2\n3|3\n4|4\n6|1\n7|0\n8|1"},
      /* Ids that do not parse are skipped. */
      {"SELECT id, layout_depth FROM experimental_slice_layout((SELECT group_concat(id, ',x,') "
       "FROM thread_track WHERE utid IN (SELECT utid FROM thread WHERE tid IN (2, 3)))) "
       "ORDER BY id",
       "3|0\n4|1\n5|2"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  assert_non_null(strstr(sc_error(p, "SELECT * FROM experimental_slice_layout(7)"),
                         "invalid input track id list"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(with_context),
      cmocka_unit_test(slices_modules),
      cmocka_unit_test(counters_and_intervals),
      cmocka_unit_test(other_modules),
      cmocka_unit_test(graphs),
      cmocka_unit_test(graph_scans),
      cmocka_unit_test(demangling),
      cmocka_unit_test(slice_layout),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
