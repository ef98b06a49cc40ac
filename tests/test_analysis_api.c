/*
** Tests of the analysis API of include/trak/processor.h (docs/analysis.md): describing slices
** from built-in and added rules (name globs, ancestors, parent, thread), computing metrics
** from a directory (INCLUDE, PARAM, errors with file, line and statement), parameters that
** stay literals whatever their value (injection attempts), metrics that fail leaving the
** database and the trace model as they were, annotation slices appended to
** the trace's tables (nesting, instants, counters, args) and the alert table, and that
** timestamp constraints stay correct once rows are appended out of time order.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "trak/processor.h"

/* A thread with doFrame > measure > inflate, then a lone inflate, then a lone draw. */
static const char trace_text[] =
    "packet { track_descriptor { uuid: 1 thread { pid: 5 tid: 6 thread_name: \"main\" } } }\n"
    "packet { timestamp: 100 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_BEGIN "
    "  track_uuid: 1 name: \"Choreographer#doFrame 1\" } }\n"
    "packet { timestamp: 110 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_BEGIN "
    "  track_uuid: 1 name: \"measure\" } }\n"
    "packet { timestamp: 120 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_BEGIN "
    "  track_uuid: 1 name: \"inflate\" } }\n"
    "packet { timestamp: 130 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_END "
    "  track_uuid: 1 } }\n"
    "packet { timestamp: 140 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_END "
    "  track_uuid: 1 } }\n"
    "packet { timestamp: 200 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_END "
    "  track_uuid: 1 } }\n"
    "packet { timestamp: 300 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_BEGIN "
    "  track_uuid: 1 name: \"inflate\" } }\n"
    "packet { timestamp: 310 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_END "
    "  track_uuid: 1 } }\n"
    "packet { timestamp: 400 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_BEGIN "
    "  track_uuid: 1 name: \"draw\" } }\n"
    "packet { timestamp: 410 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_END "
    "  track_uuid: 1 } }\n";
/* slice ids: 0 doFrame, 1 measure, 2 inflate (nested), 3 inflate (alone), 4 draw */

static trak_processor *open_trace(void) {
  trak_processor *p;
  trak_error err = {0};
  assert_int_equal(trak_processor_new(NULL, &p, &err), 0);
  assert_int_equal(trak_processor_feed(p, trace_text, strlen(trace_text), &err), 0);
  assert_int_equal(trak_processor_finish(p, &err), 0);
  return p;
}

/* The single integer the query returns. */
static int64_t query_int(trak_processor *p, const char *sql) {
  trak_query *q;
  trak_error err = {0};
  assert_int_equal(trak_query_open(p, sql, &q, NULL, &err), 0);
  assert_int_equal(trak_query_next(q, &err), 1);
  int64_t v = trak_query_int(q, 0);
  trak_query_free(q);
  return v;
}

static void test_builtin_descriptions(void **state) {
  trak_processor *p = open_trace();
  const char *desc, *link;
  assert_int_equal(trak_processor_describe_slice(p, 2, &desc, &link), 1);
  assert_non_null(strstr(desc, "LayoutInflater"));
  assert_non_null(strstr(link, "layoutinflater#inflate"));
  assert_int_equal(trak_processor_describe_slice(p, 0, &desc, &link), 1); /* a glob */
  assert_non_null(strstr(desc, "one frame"));
  /* draw's built-in rule wants a doFrame ancestor: slice 4 has none */
  assert_int_equal(trak_processor_describe_slice(p, 4, &desc, &link), 0);
  assert_null(desc);
  assert_int_equal(trak_processor_describe_slice(p, 99, &desc, &link), 0);
  assert_int_equal(trak_processor_describe_slice(p, -1, &desc, &link), 0);
  /* both SQL shapes */
  assert_int_equal(query_int(p, "SELECT count(*) FROM describe_slice WHERE slice_id = 2"), 1);
  assert_int_equal(query_int(p, "SELECT count(*) FROM describe_slice WHERE slice_id = 4"), 0);
  assert_int_equal(query_int(p, "SELECT count(*) FROM slice s JOIN describe_slice d "
                                "ON s.id = d.slice_id"),
                   4);
  trak_processor_free(p);
}

static void test_added_rules(void **state) {
  trak_processor *p = open_trace();
  static const char rules[] =
      "rule { name: \"inflate\" ancestor: \"Choreographer*\" parent: \"measure\" "
      "  thread_name: \"main\" description: \"nested inflate\" }\n"
      "rule { name: \"dr?w\" description: \"any draw\" doc_link: \"x\" }\n"
      "rule { name: \"measure\" thread_name: \"other\" description: \"never\" }\n";
  trak_error err = {0};
  assert_int_equal(trak_processor_add_descriptions(p, rules, strlen(rules), "r.txt", &err), 0);
  const char *desc, *link;
  assert_int_equal(trak_processor_describe_slice(p, 2, &desc, &link), 1);
  assert_string_equal(desc, "nested inflate");
  assert_null(link);
  assert_int_equal(trak_processor_describe_slice(p, 3, &desc, &link), 1);
  assert_non_null(strstr(desc, "LayoutInflater")); /* the built-in rule still applies */
  assert_int_equal(trak_processor_describe_slice(p, 4, &desc, &link), 1);
  assert_string_equal(desc, "any draw");
  assert_string_equal(link, "x");
  assert_int_equal(trak_processor_describe_slice(p, 1, &desc, &link), 1);
  assert_non_null(strstr(desc, "Measuring"));
  /* a bad file adds nothing and names its line */
  static const char bad[] = "rule { name: \"measure\" description: \"new\" }\nrule { name: 5 }";
  assert_int_equal(trak_processor_add_descriptions(p, bad, strlen(bad), "bad.txt", &err),
                   TRAK_EFORMAT);
  assert_non_null(strstr(err.message, "bad.txt"));
  assert_int_equal(trak_processor_describe_slice(p, 1, &desc, &link), 1);
  assert_non_null(strstr(desc, "Measuring"));
  static const char no_desc[] = "rule { name: \"measure\" }";
  assert_int_equal(trak_processor_add_descriptions(p, no_desc, strlen(no_desc), NULL, &err),
                   TRAK_EFORMAT);
  trak_processor_free(p);
}

static char dir[64];

static void write_metric(const char *name, const char *sql) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s.sql", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(sql, f);
  fclose(f);
}

static int setup_dir(void **state) {
  strcpy(dir, "/tmp/trak_analysis_XXXXXX");
  if (!mkdtemp(dir)) return -1;
  write_metric("base", "PARAM min DEFAULT 0;\n"
                       "CREATE TABLE base AS SELECT * FROM slice WHERE dur > {{min}};\n");
  write_metric(
      "ann", "INCLUDE base;\n"
             "CREATE VIEW ann_output AS SELECT count(*) AS n FROM base;\n"
             "CREATE VIEW ann_annotations AS\n"
             "SELECT 'slice' AS track_type, 'A' AS track_name, ts - 50 AS ts, dur + 100 AS dur,\n"
             "  'outer ' || name AS slice_name, NULL AS value, id AS source_slice_id,\n"
             "  CASE WHEN dur > 50 THEN 'error' END AS alert_type, 'long' AS alert_message\n"
             "FROM base\n"
             "UNION ALL SELECT 'slice', 'A', ts, dur, name, NULL, NULL, NULL, NULL FROM base\n"
             "UNION ALL SELECT 'slice', 'A', ts, 0, 'start', NULL, NULL, 'warning', 'i' FROM base\n"
             "UNION ALL SELECT 'counter', 'C', ts, NULL, NULL, dur, NULL, NULL, NULL FROM base;\n");
  write_metric("lit", "PARAM who DEFAULT nobody;\n"
                      "-- {{who}} in a comment stays as written\n"
                      "CREATE TABLE lit_output AS SELECT {{who}} AS who, 10 -{{n}} AS n;\n");
  write_metric("quoted", "PARAM who DEFAULT x;\nSELECT 'hello {{who}}';\n");
  write_metric("half", "CREATE TABLE half_tmp AS SELECT 1 AS x;\n"
                       "INSERT INTO half_tmp SELECT nope FROM slice;\n");
  write_metric("badann", "INCLUDE base;\n"
                         "CREATE VIEW badann_annotations AS\n"
                         "SELECT 'slice' AS track_type, 'B' AS track_name, ts, dur,\n"
                         "  name AS slice_name FROM base\n"
                         "UNION ALL SELECT 'nonsense', 'B', 0, 0, 'x';\n");
  write_metric("bad", "CREATE TABLE bad_output AS SELECT 1;\n\n\nSELECT nope FROM slice;\n");
  /* PerfettoSQL in metrics: modules, PERFETTO tables, macros. */
  write_metric("modfail", "INCLUDE PERFETTO MODULE slices.with_context;\n"
                          "SELECT nope FROM thread_slice;\n");
  write_metric("mod", "INCLUDE PERFETTO MODULE slices.with_context;\n"
                      "INCLUDE PERFETTO MODULE intervals.intersect;\n"
                      "CREATE PERFETTO TABLE mod_t AS SELECT count(*) AS n FROM thread_slice;\n"
                      "CREATE TABLE mod_output AS SELECT n, (SELECT count(*) FROM\n"
                      "  _interval_intersect_single!(105, 100, (SELECT id, ts, dur FROM slice\n"
                      "  WHERE dur > 0))) AS pieces FROM mod_t;\n");
  write_metric("badmod", "-- no such module\nINCLUDE PERFETTO MODULE no.such;\n");
  /* a slice whose ts + dur passes int64 and one that starts inside it */
  write_metric("edge", "CREATE VIEW edge_annotations AS\n"
                       "SELECT 'slice' AS track_type, 'E' AS track_name,\n"
                       "  9223372036854775800 AS ts, 100 AS dur, 'far' AS slice_name\n"
                       "UNION ALL SELECT 'slice', 'E', 9223372036854775805, 1, 'inside';\n");
  return 0;
}

static int teardown_dir(void **state) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd);
}

static void test_metrics_and_annotations(void **state) {
  trak_processor *p = open_trace();
  const char *params[] = {"min=15"}; /* base: doFrame (100) and measure (30) */
  trak_metrics_options opts = {dir, params, 1};
  trak_error err = {0};
  const char *names[] = {"ann"};
  assert_int_equal(trak_processor_compute_metrics(p, names, 1, &opts, &err), 0);
  trak_query *q;
  assert_int_equal(trak_processor_metric_output(p, "ann", &q, &err), 0);
  assert_int_equal(trak_query_next(q, &err), 1);
  assert_int_equal(trak_query_int(q, 0), 2);
  trak_query_free(q);
  /* The trace's bounds are its own rows' (first asked for here, after the annotations made
  ** [50, 250)): doFrame at 100 to draw's end at 410. */
  assert_int_equal(query_int(p, "SELECT start_ts FROM trace_bounds"), 100);
  assert_int_equal(query_int(p, "SELECT trace_end()"), 410);
  /* One annotation track of slices, one of counters. */
  assert_int_equal(query_int(p, "SELECT count(*) FROM annotation_track"), 2);
  assert_int_equal(query_int(p, "SELECT count(*) FROM track WHERE type = 'annotation_track'"), 1);
  assert_int_equal(query_int(p, "SELECT count(*) FROM counter c JOIN annotation_track a "
                                "ON c.track_id = a.id"),
                   2);
  /* outer doFrame [50, 250) holds outer measure [60, 190) and doFrame [100, 200), which does
  ** not fit in outer measure and goes beside it; doFrame > measure [110, 140) > instant. */
  assert_int_equal(query_int(p, "SELECT max(depth) FROM slice s JOIN annotation_track a "
                                "ON s.track_id = a.id"),
                   3);
  assert_int_equal(query_int(p, "SELECT depth FROM slice WHERE name = 'outer measure'"), 1);
  assert_int_equal(query_int(p, "SELECT p.name = 'outer Choreographer#doFrame 1' FROM slice s "
                                "JOIN slice p ON s.parent_id = p.id "
                                "WHERE s.name = 'Choreographer#doFrame 1' AND s.id > 4"),
                   1);
  /* instants: dur 0, children of the slice they start in */
  assert_int_equal(query_int(p, "SELECT count(*) FROM slice WHERE name = 'start' AND dur = 0 "
                                "AND parent_id IS NOT NULL"),
                   2);
  assert_int_equal(query_int(p, "SELECT extract_arg(arg_set_id, 'annotation.source_slice_id') "
                                "FROM slice WHERE name = 'outer measure'"),
                   1);
  /* alerts: 1 error (doFrame, dur 100 > 50), 2 warnings (the instants) */
  assert_int_equal(query_int(p, "SELECT count(*) FROM alert WHERE alert_type = 'error'"), 1);
  assert_int_equal(query_int(p, "SELECT count(*) FROM alert WHERE alert_type = 'warning'"), 2);
  /* ts constraints see appended rows although they are out of time order */
  assert_int_equal(query_int(p, "SELECT count(*) FROM slice WHERE ts >= 50 AND ts < 110"),
                   query_int(p, "SELECT count(*) FROM slice WHERE +ts >= 50 AND +ts < 110"));
  assert_int_equal(query_int(p, "SELECT count(*) FROM slice WHERE ts = 100"), 3);
  /* running a metric again is a no-op */
  assert_int_equal(trak_processor_compute_metrics(p, names, 1, &opts, &err), 0);
  assert_int_equal(query_int(p, "SELECT count(*) FROM annotation_track"), 2);
  trak_processor_free(p);
}

/* An annotation slice whose end is past int64 ends at INT64_MAX for nesting: a slice that
** starts inside it is its child (a wrapped end would have closed it before). */
static void test_annotation_end_past_int64(void **state) {
  trak_processor *p = open_trace();
  trak_metrics_options opts = {dir, NULL, 0};
  trak_error err = {0};
  const char *names[] = {"edge"};
  assert_int_equal(trak_processor_compute_metrics(p, names, 1, &opts, &err), 0);
  assert_int_equal(query_int(p, "SELECT dur FROM slice WHERE name = 'far'"), 100);
  assert_int_equal(query_int(p, "SELECT depth FROM slice WHERE name = 'inside'"), 1);
  assert_int_equal(query_int(p, "SELECT p.name = 'far' FROM slice s JOIN slice p "
                                "ON s.parent_id = p.id WHERE s.name = 'inside'"),
                   1);
  trak_processor_free(p);
}

static void test_metric_errors(void **state) {
  trak_processor *p;
  trak_error err = {0};
  const char *bad[] = {"bad"}, *missing[] = {"missing"}, *evil[] = {"x; DROP"};
  trak_metrics_options opts = {dir, NULL, 0};
  assert_int_equal(trak_processor_new(NULL, &p, &err), 0);
  assert_int_equal(trak_processor_compute_metrics(p, bad, 1, &opts, &err), TRAK_ESTATE);
  trak_processor_free(p);
  p = open_trace();
  assert_int_equal(trak_processor_compute_metrics(p, bad, 1, &opts, &err), TRAK_EINVAL);
  assert_non_null(strstr(err.message, "bad.sql:4:"));
  assert_non_null(strstr(err.message, "nope"));
  assert_int_equal(trak_processor_compute_metrics(p, missing, 1, &opts, &err), TRAK_ENOTFOUND);
  assert_int_equal(trak_processor_compute_metrics(p, evil, 1, &opts, &err), TRAK_EINVAL);
  /* built-ins need no directory */
  const char *stats[] = {"slice_stats"};
  assert_int_equal(trak_processor_compute_metrics(p, stats, 1, NULL, &err), 0);
  assert_int_equal(query_int(p, "SELECT count FROM slice_stats_output WHERE name = 'inflate'"), 2);
  assert_non_null(trak_metric_builtin_name(0));
  trak_processor_free(p);
}

/* The string the query returns (static buffer). */
static const char *query_text(trak_processor *p, const char *sql) {
  static char out[256];
  trak_query *q;
  trak_error err = {0};
  assert_int_equal(trak_query_open(p, sql, &q, NULL, &err), 0);
  assert_int_equal(trak_query_next(q, &err), 1);
  snprintf(out, sizeof out, "%s", trak_query_string(q, 0));
  trak_query_free(q);
  return out;
}

static void test_metric_params_are_literals(void **state) {
  trak_processor *p = open_trace();
  trak_error err = {0};
  const char *names[] = {"lit"};
  /* Each attempt would end the literal and run a statement of its own. */
  const char *evil = "x'; DROP TABLE alert; SELECT '";
  char who[128];
  snprintf(who, sizeof who, "who=%s", evil);
  const char *params[] = {who, "n=-5"};
  trak_metrics_options opts = {dir, params, 2};
  assert_int_equal(trak_processor_compute_metrics(p, names, 1, &opts, &err), 0);
  assert_string_equal(query_text(p, "SELECT who FROM lit_output"), evil);
  assert_int_equal(query_int(p, "SELECT n FROM lit_output"), 15); /* 10 - (-5), no comment */
  assert_int_equal(query_int(p, "SELECT count(*) FROM sqlite_schema WHERE name = 'alert'"), 1);
  trak_processor_free(p);

  /* A newline in a value can't end a comment: it is spelt char(10). */
  p = open_trace();
  const char *multi[] = {"who=a\nDROP TABLE alert;", "n=1e2"};
  opts.params = multi;
  assert_int_equal(trak_processor_compute_metrics(p, names, 1, &opts, &err), 0);
  assert_string_equal(query_text(p, "SELECT who FROM lit_output"), "a\nDROP TABLE alert;");
  assert_int_equal(query_int(p, "SELECT n FROM lit_output"), -90);
  assert_int_equal(query_int(p, "SELECT count(*) FROM sqlite_schema WHERE name = 'alert'"), 1);
  /* Inside a quoted string a placeholder can't become a literal: an error names it. */
  const char *quoted[] = {"quoted"};
  assert_int_equal(trak_processor_compute_metrics(p, quoted, 1, &opts, &err), TRAK_EINVAL);
  assert_non_null(strstr(err.message, "quoted.sql:2: parameter {{who}} inside a quoted"));
  trak_processor_free(p);
}

static void test_metric_failure_rolls_back(void **state) {
  trak_processor *p = open_trace();
  trak_error err = {0};
  trak_metrics_options opts = {dir, NULL, 0};
  const char *half[] = {"half"};
  /* The second statement fails: the table the first made is gone again. */
  assert_int_equal(trak_processor_compute_metrics(p, half, 1, &opts, &err), TRAK_EINVAL);
  assert_non_null(strstr(err.message, "half.sql:2:"));
  assert_non_null(strstr(err.message, "no such column: nope"));
  assert_non_null(strstr(err.message, "INSERT INTO half_tmp SELECT nope FROM slice"));
  assert_int_equal(query_int(p, "SELECT count(*) FROM sqlite_schema WHERE name = 'half_tmp'"), 0);
  /* Fixed, it runs on the same processor (no "table half_tmp already exists"). */
  write_metric("half", "CREATE TABLE half_tmp AS SELECT 1 AS x;\n"
                       "INSERT INTO half_tmp SELECT id FROM slice;\n"
                       "CREATE VIEW half_output AS SELECT count(*) AS n FROM half_tmp;\n");
  assert_int_equal(trak_processor_compute_metrics(p, half, 1, &opts, &err), 0);
  assert_int_equal(query_int(p, "SELECT n FROM half_output"), 6);

  /* Annotations that fail at their second row: no annotation track, slice or alert stays,
  ** nor the table of the metric it included, which runs again later. */
  int64_t tracks = query_int(p, "SELECT count(*) FROM track");
  const char *badann[] = {"badann"}, *ann[] = {"ann"};
  assert_int_equal(trak_processor_compute_metrics(p, badann, 1, &opts, &err), TRAK_EINVAL);
  assert_non_null(strstr(err.message, "badann_annotations row"));
  assert_int_equal(query_int(p, "SELECT count(*) FROM track"), tracks);
  assert_int_equal(query_int(p, "SELECT count(*) FROM slice"), 5);
  assert_int_equal(query_int(p, "SELECT count(*) FROM sqlite_schema WHERE name = 'base'"), 0);
  assert_int_equal(query_int(p, "SELECT count(*) FROM slice WHERE ts >= 100 AND ts < 110"), 1);
  assert_int_equal(trak_processor_compute_metrics(p, ann, 1, &opts, &err), 0);
  assert_int_equal(query_int(p, "SELECT count(*) FROM annotation_track"), 2);
  trak_processor_free(p);
}

/* A metric's SQL is PerfettoSQL: it includes modules, makes PERFETTO tables and expands
** macros. A module included by a metric that fails stays included (its tables were made
** before the metric's SAVEPOINT), so the next metric that needs it finds it. */
static void test_metric_perfetto_sql(void **state) {
  trak_processor *p = open_trace();
  trak_error err = {0};
  trak_metrics_options opts = {dir, NULL, 0};
  const char *modfail[] = {"modfail"}, *mod[] = {"mod"}, *badmod[] = {"badmod"};
  assert_int_equal(trak_processor_compute_metrics(p, modfail, 1, &opts, &err), TRAK_EINVAL);
  assert_non_null(strstr(err.message, "modfail.sql:2: no such column: nope"));
  assert_int_equal(query_int(p, "SELECT count(*) FROM thread_slice"), 5);
  assert_int_equal(trak_processor_compute_metrics(p, mod, 1, &opts, &err), 0);
  /* every slice is on main's track; doFrame, measure and the nested inflate meet
  ** [105, 205), the lone inflate and draw do not */
  assert_int_equal(query_int(p, "SELECT n FROM mod_output"), 5);
  assert_int_equal(query_int(p, "SELECT pieces FROM mod_output"), 3);
  assert_int_equal(trak_processor_compute_metrics(p, badmod, 1, &opts, &err), TRAK_EINVAL);
  assert_non_null(strstr(err.message, "badmod.sql:2: unknown module 'no.such'"));
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_builtin_descriptions),
      cmocka_unit_test(test_added_rules),
      cmocka_unit_test(test_metrics_and_annotations),
      cmocka_unit_test(test_annotation_end_past_int64),
      cmocka_unit_test(test_metric_errors),
      cmocka_unit_test(test_metric_params_are_literals),
      cmocka_unit_test(test_metric_failure_rolls_back),
      cmocka_unit_test(test_metric_perfetto_sql),
  };
  return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
