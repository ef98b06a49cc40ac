/*
** The tabular event converter (CSV and JSON Lines): golden conversions compared by semantic
** model with tests/data/writer/events.model (TRAK_UPDATE_GOLDEN=1 rewrites it), bad rows
** reported with their line numbers, --keep-going semantics, format detection and typed
** nested arguments from JSON.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include <cmocka.h>

#include "writer_testutil.h"

/* Collected diagnostics of a keep-going conversion. */
typedef struct diags {
  char text[8192];
} diags;

static void collect(void *user, const char *message) {
  diags *d = user;
  strncat(d->text, message, sizeof d->text - strlen(d->text) - 2);
  strcat(d->text, "\n");
}

/* Converts a data file; returns the model text (caller frees) and the conversion's code. */
static char *convert_file(const char *rel, trak_events_options *opts, trak_events_result *res,
                          int *rc_out, trak_error *err) {
  const char *path = tu_source_path(rel);
  size_t len;
  char *text = tu_read_file(path, &len);
  assert_non_null(text);
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_writer *w;
  assert_int_equal(trak_writer_open_callback(&w, mem_sink, &out, NULL), 0);
  *rc_out = trak_events_convert(w, text, len, opts, res, err);
  assert_int_equal(trak_writer_close(w, NULL, NULL), 0);
  char *model = trace_model_text(out.start, trak_pb_buf_len(&out));
  trak_pb_buf_free(&out);
  free(text);
  return model;
}

static void check_golden(const char *input) {
  trak_events_result res;
  trak_error err = {0};
  int rc;
  char *model = convert_file(input, NULL, &res, &rc, &err);
  if (rc) fail_msg("%s: %s", input, err.message);
  assert_int_equal(res.rows, 12);
  assert_int_equal(res.converted, 12);
  const char *path = tu_source_path("tests/data/writer/events.model");
  if (getenv("TRAK_UPDATE_GOLDEN")) {
    FILE *f = fopen(path, "w");
    fputs(model, f);
    fclose(f);
  }
  size_t len;
  char *golden = tu_read_file(path, &len);
  assert_non_null(golden);
  assert_true(models_equal(input, golden, model));
  free(golden);
  free(model);
}

static void test_csv_golden(void **state) {
  check_golden("tests/data/writer/events.csv");
}
static void test_jsonl_golden(void **state) {
  check_golden("tests/data/writer/events.jsonl");
}

static void test_csv_bad_rows(void **state) {
  trak_events_result res;
  trak_error err = {0};
  int rc;
  /* Without keep_going the first bad row stops the conversion. */
  trak_events_options stop = {.source_name = "events_bad.csv"};
  char *model = convert_file("tests/data/writer/events_bad.csv", &stop, &res, &rc, &err);
  assert_int_equal(rc, TRAK_EFORMAT);
  assert_string_equal(err.message,
                      "events_bad.csv: line 3: column 'ts': 'abc' is not a non-negative time");
  assert_int_equal(res.converted, 1);
  free(model);

  diags d = {{0}};
  trak_events_options go = {.keep_going = 1, .diag = collect, .diag_user = &d};
  model = convert_file("tests/data/writer/events_bad.csv", &go, &res, &rc, &err);
  assert_int_equal(rc, 0);
  assert_int_equal(res.rows, 10);
  assert_int_equal(res.bad_rows, 7);
  assert_int_equal(res.converted, 3);
  assert_string_equal(d.text, "line 3: column 'ts': 'abc' is not a non-negative time\n"
                              "line 4: column 'ph': 'Q' is not B, E, X, I or C\n"
                              "line 5: instant at 5 on track 1 [T]: timestamp goes backwards (the "
                              "previous event on this track is at 10)\n"
                              "line 7: slice_end at 40 on track 1 [T]: no open slice to end\n"
                              "line 8: column 'dur': only complete slices (X) take a duration\n"
                              "line 9: empty segment 3 in track path 'process 1 \"p\"/\"q\"/'\n"
                              "line 10: unexpected 't' after a quoted cell\n");
  assert_non_null(strstr(model, "track \"T\"\n  slice ts=10 dur=20 depth=0 name=\"a\"\n  instant "
                                "ts=80 dur=0 depth=0 name=\"last\"\n"));
  free(model);
}

static void test_jsonl_bad_rows_and_nested_args(void **state) {
  diags d = {{0}};
  trak_events_result res;
  trak_error err = {0};
  int rc;
  trak_events_options go = {
      .keep_going = 1, .diag = collect, .diag_user = &d, .source_name = "b.jsonl"};
  char *model = convert_file("tests/data/writer/events_bad.jsonl", &go, &res, &rc, &err);
  assert_int_equal(rc, 0);
  assert_int_equal(res.bad_rows, 4);
  assert_string_equal(d.text, "b.jsonl: line 2, column 38: expected a member name\n"
                              "b.jsonl: line 3: column 'ts': '-5' is not a non-negative time\n"
                              "b.jsonl: line 4, column 1: a line must hold one JSON object\n"
                              "b.jsonl: line 5: no timestamp (ts, ts_ns, ts_us, ts_ms or ts_s)\n");
  assert_non_null(strstr(model, "name=\"nested\" args={args.k[0]=1;args.k[1]=2.5;args.k[2]=\"s\";"
                                "args.k[3].deep=true;args.n=\"null\";}"));
  free(model);
}

static void test_detection(void **state) {
  static const char csv[] = "# comment\n\nts_ms,track\n1,T\n";
  static const char jsonl[] = "\n{\"ts\": 1, \"track\": \"T\"}\n";
  static const char json_trace[] = "{\"traceEvents\": [{\"ts\": 1}]}";
  static const char pbtxt[] = "packet { timestamp: 1 }";
  assert_int_equal(trak_events_detect(csv, sizeof csv - 1), TRAK_EVENTS_CSV);
  assert_int_equal(trak_events_detect(jsonl, sizeof jsonl - 1), TRAK_EVENTS_JSONL);
  assert_int_equal(trak_events_detect(json_trace, sizeof json_trace - 1), TRAK_EVENTS_AUTO);
  assert_int_equal(trak_events_detect(pbtxt, sizeof pbtxt - 1), TRAK_EVENTS_AUTO);
  assert_int_equal(trak_events_format_from_name("a/b.csv"), TRAK_EVENTS_CSV);
  assert_int_equal(trak_events_format_from_name("x.NDJSON"), TRAK_EVENTS_JSONL);
  assert_int_equal(trak_events_format_from_name("x.pb"), TRAK_EVENTS_AUTO);

  trak_writer *w;
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  assert_int_equal(trak_writer_open_callback(&w, mem_sink, &out, NULL), 0);
  trak_error err = {0};
  assert_int_equal(trak_events_convert(w, pbtxt, sizeof pbtxt - 1, NULL, NULL, &err), TRAK_EFORMAT);
  assert_non_null(strstr(err.message, "neither CSV"));
  static const char no_ts[] = "time,track\n1,T\n";
  trak_events_options csv_opts = {.format = TRAK_EVENTS_CSV};
  assert_int_equal(trak_events_convert(w, no_ts, sizeof no_ts - 1, &csv_opts, NULL, &err),
                   TRAK_EFORMAT);
  assert_string_equal(
      err.message,
      "line 1: the header names no timestamp column (ts, ts_ns, ts_us, ts_ms or ts_s)");
  assert_int_equal(trak_writer_close(w, NULL, NULL), 0);
  trak_pb_buf_free(&out);
}

/* Time parsing keeps nanosecond precision for decimal input in every unit. */
static void test_time_units(void **state) {
  static const char csv[] = "ts_s,dur_ms,track,name\n"
                            "1.000000001,0.0000015,T,a\n"
                            "2,1e3,T,b\n"
                            "18446744073.709551615,,T,max\n";
  trak_writer *w;
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  assert_int_equal(trak_writer_open_callback(&w, mem_sink, &out, NULL), 0);
  trak_error err = {0};
  trak_events_result res;
  int rc = trak_events_convert(w, csv, sizeof csv - 1, NULL, &res, &err);
  if (rc) fail_msg("%s", err.message);
  assert_int_equal(trak_writer_close(w, NULL, NULL), 0);
  char *m = trace_model_text(out.start, trak_pb_buf_len(&out));
  assert_non_null(strstr(m, "slice ts=1000000001 dur=2 depth=0 name=\"a\""));
  assert_non_null(strstr(m, "slice ts=2000000000 dur=1000000000 depth=0 name=\"b\""));
  assert_non_null(strstr(m, "instant ts=18446744073709551615 dur=0"));
  free(m);
  trak_pb_buf_free(&out);
}

/* Track paths: what each segment declares, and the errors for bad paths. */
static void test_track_paths(void **state) {
  char long_name[400];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = 0;
  char csv[1024];
  snprintf(csv, sizeof csv,
           "ts,ph,value,track\n"
           "1,I,,process 5/thread 6/  spaced name  /\"q\\\"uote\"\n"
           "2,C,1,process 5\n"
           "3,I,,a/\"unterminated\n"
           "4,I,,a/%s\n"
           "5,I,,a//b\n"
           "6,C,1.5,process 5/\"mem\"\n"
           "7,I,,process 5/\"mem\"\n",
           long_name);
  diags d = {{0}};
  trak_events_options go = {.keep_going = 1, .diag = collect, .diag_user = &d};
  trak_writer *w;
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  assert_int_equal(trak_writer_open_callback(&w, mem_sink, &out, NULL), 0);
  trak_events_result res;
  assert_int_equal(trak_events_convert(w, csv, strlen(csv), &go, &res, NULL), 0);
  assert_int_equal(trak_writer_close(w, NULL, NULL), 0);
  assert_string_equal(
      d.text,
      "line 3: a counter needs a named track at the end of its path, as in 'process 5/\"memory\"'\n"
      "line 4: unterminated quoted name in track path\n"
      "line 5: track name longer than 255 bytes\n"
      "line 6: empty segment 2 in track path 'a//b'\n"
      "line 8: instant at 7 on track 5 [mem]: a counter track takes only counter values\n");
  char *m = trace_model_text(out.start, trak_pb_buf_len(&out));
  assert_non_null(strstr(
      m, "track process 5 \"\" / thread 5/6 \"\" / \"spaced name\" / \"q\"uote\"\n  instant ts=1"));
  assert_non_null(
      strstr(m, "track process 5 \"\" / \"mem\" counter(unit=0)\n  counter ts=6 value=1.5\n"));
  free(m);
  trak_pb_buf_free(&out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_csv_golden),   cmocka_unit_test(test_jsonl_golden),
      cmocka_unit_test(test_csv_bad_rows), cmocka_unit_test(test_jsonl_bad_rows_and_nested_args),
      cmocka_unit_test(test_detection),    cmocka_unit_test(test_time_units),
      cmocka_unit_test(test_track_paths),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
