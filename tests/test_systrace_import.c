/*
** Tests of the systrace text import (src/processor/import/systrace/) below the CLI: which
** bytes are recognised as systrace text and which are not; the same text fed in any split gives
** the same tables; the file layouts (adb's banner, trace-cmd's cpus=N, HTML sections with ps
** output, CRLF lines, a JSON trace's systemTraceEvents string); lines that do not parse are
** counted with their line number; the events reach sched, thread_state, slices and counters.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "processor/read/trace_file.h"
#include "trak/processor.h"

/* Two threads of process 100 on CPU 1: markers make a slice, an async slice and a counter; a
** switch and a waking make sched and thread_state rows; CPU 2 has counters. */
static const char TRACE[] =
    "# tracer: nop\n"
    "#\n"
    "#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
    "  app-100 (  100) [001] ...1  1.000000: tracing_mark_write: B|100|outer\n"
    "  app-100 (  100) [001] ...1  1.100000: tracing_mark_write: S|100|async|7\n"
    "  app-100 (  100) [001] d..3  1.200000: sched_waking: comm=worker pid=101 prio=120 "
    "target_cpu=001\n"
    "  app-100 (  100) [001] d..2  1.300000: sched_switch: prev_comm=app prev_pid=100 "
    "prev_prio=120 prev_state=S ==> next_comm=worker next_pid=101 next_prio=120\n"
    "  worker-101 (  100) [001] ...1  1.400000: tracing_mark_write: C|100|counter|42\n"
    "  worker-101 (  100) [001] ...1  1.450000: tracing_mark_write: F|100|async|7\n"
    "  <idle>-0 (-----) [002] d..2  1.500000: cpu_idle: state=4294967295 cpu_id=2\n"
    "  <idle>-0 (-----) [002] d..2  1.600000: cpu_frequency: state=1800000 cpu_id=2\n"
    "  <...>-101 (-----) [001] d..2  1.700000: sched_switch: prev_comm=worker prev_pid=101 "
    "prev_prio=120 prev_state=R+ ==> next_comm=app next_pid=100 next_prio=120\n"
    "  app-100 (  100) [001] ...1  1.800000: tracing_mark_write: E|100\n";

/* Problems reported while importing, one per line ("stat: message"). */
typedef struct diag_log {
  char text[8192];
  size_t n;
} diag_log;

static void diag(void *user, uint64_t packet, uint64_t offset, trak_severity severity,
                 const char *stat, const char *message) {
  (void)packet, (void)offset, (void)severity;
  diag_log *log = user;
  int n = snprintf(log->text + log->n, sizeof log->text - log->n, "%s: %s\n", stat, message);
  if (n > 0 && log->n + (size_t)n < sizeof log->text) log->n += (size_t)n;
}

static trak_processor *import_split(const char *data, size_t len, size_t chunk, diag_log *log) {
  trak_processor_options opts = {log ? diag : NULL, NULL, log, 0};
  trak_processor *p;
  assert_int_equal(trak_processor_new(&opts, &p, NULL), 0);
  for (size_t at = 0; at < len; at += chunk)
    assert_int_equal(trak_processor_feed(p, data + at, len - at < chunk ? len - at : chunk, NULL),
                     0);
  assert_int_equal(trak_processor_finish(p, NULL), 0);
  return p;
}

static trak_processor *import(const char *text, diag_log *log) {
  return import_split(text, strlen(text), strlen(text) + 1, log);
}

/* The first column of the first row of `sql` as a string ("" for NULL); the caller frees. */
static char *one(trak_processor *p, const char *sql) {
  trak_query *q;
  assert_int_equal(trak_query_open(p, sql, &q, NULL, NULL), 0);
  assert_int_equal(trak_query_next(q, NULL), 1);
  const char *s = trak_query_string(q, 0);
  char *out = strdup(s ? s : "");
  trak_query_free(q);
  return out;
}

static void check_one(trak_processor *p, const char *sql, const char *want) {
  char *got = one(p, sql);
  if (strcmp(got, want)) fail_msg("%s\n  gives: %s\n  wants: %s", sql, got, want);
  free(got);
}

static long stat_of(trak_processor *p, const char *name) {
  char sql[200];
  snprintf(sql, sizeof sql, "select coalesce(sum(value), 0) from stats where name = '%s'", name);
  char *s = one(p, sql);
  long v = atol(s);
  free(s);
  return v;
}

static trak_trace_format detect(const char *text) {
  return trak__detect_format((const uint8_t *)text, strlen(text));
}

static void recognised_as_systrace(void **state) {
  (void)state;
  assert_int_equal(detect(TRACE), TRAK_FORMAT_SYSTRACE);
  assert_int_equal(detect("cpus=8\n  a-1 [000] 1.0: e: x=1\n"), TRAK_FORMAT_SYSTRACE);
  assert_int_equal(detect("capturing trace... done\nTRACE:\n# tracer: nop\n"),
                   TRAK_FORMAT_SYSTRACE);
  assert_int_equal(detect("<!DOCTYPE html>\n<html>\n"), TRAK_FORMAT_SYSTRACE);
  assert_int_equal(detect("<HTML>\n"), TRAK_FORMAT_SYSTRACE);
  /* trace-cmd report without its cpus= line, and a headless `trace` file */
  assert_int_equal(detect("  <idle>-0     [001] d..2  1.000001: sched_switch: prev_pid=0\n"),
                   TRAK_FORMAT_SYSTRACE);
  /* Indented protobuf text stays protobuf text; JSON stays JSON even with systrace inside. */
  assert_int_equal(detect("  packet { timestamp: 1 }\n"), TRAK_FORMAT_PBTXT);
  assert_int_equal(detect("{\"systemTraceEvents\": \"# tracer: nop\\n\"}"), TRAK_FORMAT_JSON);
  assert_int_equal(detect(" [{\"ph\": \"B\"}]"), TRAK_FORMAT_JSON);
  assert_int_equal(detect("packet { timestamp: 1 }\n"), TRAK_FORMAT_PBTXT);
  assert_string_equal(trak__format_name(TRAK_FORMAT_SYSTRACE), "systrace");

  trak_processor *p = import(TRACE, NULL);
  check_one(p, "select str_value from metadata where name = 'trace_type'", "systrace");
  check_one(p, "select int_value from metadata where name = 'trace_time_clock_id'", "3");
  assert_int_equal(trak_processor_event_count(p), 10);
  assert_int_equal(stat_of(p, "systrace_parse_failure"), 0);
  assert_int_equal(stat_of(p, "trace_empty"), 0);
  trak_processor_free(p);
}

/* Lines that are not events are counted with their line number, and the rest is read; an event
** whose fields lack the numbers its parser needs counts trak's systrace_event_unparsed (Perfetto
** drops it without a count), a line that is not an event systrace_parse_failure. */
static void failures_counted_by_line(void **state) {
  (void)state;
  diag_log log = {0};
  trak_processor *p = import("# tracer: nop\n"
                             "  a-1 [000] .... 1.0: sched_switch: prev_pid=1\n"
                             "not an event line\n"
                             "\n"
                             "  a-1 [000] .... 99999999999999.0: e: x=1\n"
                             "  a-1 [000] .... 2.0: cpu_frequency: state=x cpu_id=0\n"
                             "  a-1 [000] .... 3.0: sched_waking: comm=b\n"
                             "  a-1 [000] .... 4.0: workqueue_execute_start: work struct 1:\n"
                             "  a-1 [000] .... 5.0: workqueue_execute_start: function f\n",
                             &log);
  assert_int_equal(stat_of(p, "systrace_parse_failure"), 2);
  assert_int_equal(stat_of(p, "systrace_event_unparsed"), 5);
  assert_non_null(strstr(log.text, "systrace line 2: sched_switch without"));
  assert_non_null(strstr(log.text, "systrace line 3: "));
  assert_non_null(strstr(log.text, "systrace line 5: "));
  assert_non_null(strstr(log.text, "systrace line 6: a cpu counter without"));
  assert_non_null(strstr(log.text, "systrace line 7: sched_waking without"));
  assert_non_null(strstr(log.text, "systrace line 8: workqueue_execute_start without"));
  assert_non_null(strstr(log.text, "systrace line 9: workqueue_execute_start without"));
  assert_null(strstr(log.text, "systrace line 4"));
  trak_processor_free(p);
}

/* A header without one event (tracing was off) is an empty trace. */
static void header_only_is_empty(void **state) {
  (void)state;
  trak_processor *p = import("# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0\n", NULL);
  assert_int_equal(stat_of(p, "trace_empty"), 1);
  assert_int_equal(trak_processor_event_count(p), 0);
  trak_processor_free(p);
}

/* HTML: only trace-data sections are read; PROCESS DUMP rows give processes (long form: name
** and parent) and threads (short form: named by their command line); the events end at their
** section's </script>. */
static void html_sections_and_ps_rows(void **state) {
  (void)state;
  static const char html[] = "<!DOCTYPE html>\n<html><head>\n"
                             "  a-1 [000] .... 0.5: not read: outside a section\n"
                             "<script class=\"trace-data\" type=\"application/text\">\n"
                             "PROCESS DUMP\n"
                             "USER PID PPID VSZ RSS WCHAN PC S NAME COMM\n"
                             "root 1 0 1 2 0 0 S init /init\n"
                             "u0_a1 300 1 1 2 0 0 S com.app com.app --flag\n"
                             "root x 1 1 2 0 0 S bad /bad\n"
                             "USER PID TID CMD\n"
                             "u0_a1 300 301 RenderThread\n"
                             "</script>\n"
                             "<script class=\"trace-data\" type=\"application/text\">\n"
                             "# tracer: nop\n"
                             "#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
                             "  app-300 (  300) [000] .... 1.0: tracing_mark_write: B|300|in_html\n"
                             "  app-300 (  300) [000] .... 2.0: tracing_mark_write: E|300\n"
                             "</script>\n"
                             "  a-1 [000] .... 3.0: not read: after the events\n"
                             "</html>\n";
  diag_log log = {0};
  trak_processor *p = import(html, &log);
  check_one(p,
            "select group_concat(p.pid || ':' || p.name || ':' || coalesce(pp.pid, ''), ' ') from "
            "(select * from process where pid in (1, 300) order by pid) p left join process pp on "
            "p.parent_upid = pp.upid",
            "1:init:0 300:com.app:1");
  check_one(p, "select name from thread where tid = 301", "RenderThread");
  check_one(p,
            "select upid = (select upid from process where pid = 300) from thread where tid = "
            "301",
            "1");
  assert_int_equal(stat_of(p, "systrace_parse_failure"), 1); /* the "x" pid */
  assert_non_null(strstr(log.text, "PROCESS DUMP row whose pid or ppid is not a number"));
  assert_int_equal(trak_processor_event_count(p), 2);
  trak_processor_free(p);
}

/* adb's banner and trace-cmd's cpus=N line are dropped; CRLF line ends are read (but
** "cpus=4\r" is not a cpus line for Perfetto: a failure). */
static void banner_cpus_and_crlf(void **state) {
  (void)state;
  static const char lines[] = "  a-1 [000] .... 1.0: tracing_mark_write: B|1|x\r\n"
                              "  a-1 [000] .... 2.0: tracing_mark_write: E|1\r\n";
  char text[512];
  for (int crlf = 0; crlf < 2; crlf++) {
    snprintf(text, sizeof text, "capturing trace... done\nTRACE:\ncpus=4%s\n%s", crlf ? "\r" : "",
             lines);
    trak_processor *p = import(text, NULL);
    assert_int_equal(trak_processor_event_count(p), 2);
    assert_int_equal(stat_of(p, "systrace_parse_failure"), crlf);
    trak_processor_free(p);
  }
}

/* A JSON trace's systemTraceEvents string is read line by line, escapes undone; a last line
** without '\n' is read too; a value that is not a string is counted. */
static void json_system_trace_events(void **state) {
  (void)state;
  trak_processor *p = import("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"json\", \"ts\": 2000, "
                             "\"dur\": 500, \"pid\": 10, \"tid\": 10}],\n"
                             " \"systemTraceEvents\": \"# tracer: nop\\n"
                             "  app-100 (  100) [001] ...1  1.000000: tracing_mark_write: "
                             "B|100|sys_\\u00e9\\n"
                             "  app-100 (  100) [001] ...1  1.500000: tracing_mark_write: E|100\"}",
                             NULL);
  assert_int_equal(stat_of(p, "systrace_parse_failure"), 0);
  assert_int_equal(stat_of(p, "json_parser_failure"), 0);
  trak_processor_free(p);
  p = import("{\"traceEvents\": [], \"systemTraceEvents\": {\"a\": 1}}", NULL);
  assert_int_equal(stat_of(p, "json_parser_failure"), 1);
  trak_processor_free(p);
}

/* Every table the text fills, as one string. */
static char *digest(trak_processor *p) {
  static const char *const sql[] = {
      "select group_concat(ts || ':' || dur || ':' || cpu || ':' || utid || ':' || "
      "coalesce(end_state, '') || ':' || priority, ',') from sched",
      "select group_concat(ts || ':' || dur || ':' || utid || ':' || state || ':' || "
      "coalesce(waker_utid, ''), ',') from thread_state",
      "select group_concat(tid || ':' || coalesce(name, '') || ':' || coalesce(upid, ''), ',') "
      "from thread",
      "select group_concat(ts || ':' || dur || ':' || name, ',') from slice",
      "select group_concat(ts || ':' || value, ',') from counter",
      "select group_concat(name || '=' || value, ',') from stats where value > 0"};
  size_t cap = 1 << 16, n = 0;
  char *out = calloc(cap, 1);
  for (size_t i = 0; i < sizeof sql / sizeof *sql; i++) {
    char *s = one(p, sql[i]);
    n += (size_t)snprintf(out + n, cap - n, "%s|", s);
    free(s);
  }
  return out;
}

/* The same text fed in any split, or with its event lines in reverse order (the events are
** applied in timestamp order, as Perfetto's sorter does), gives the same tables. */
static void any_split_and_order_same_tables(void **state) {
  (void)state;
  trak_processor *p = import(TRACE, NULL);
  char *want = digest(p);
  trak_processor_free(p);
  assert_non_null(strstr(want, "1300000000:400000000:1:")); /* the first switch's slice */
  assert_non_null(strstr(want, "1000000000:800000000:outer"));
  assert_non_null(strstr(want, "1400000000:42"));
  static const size_t chunks[] = {1, 3, 7, 64};
  for (size_t i = 0; i < sizeof chunks / sizeof *chunks; i++) {
    p = import_split(TRACE, sizeof TRACE - 1, chunks[i], NULL);
    char *got = digest(p);
    assert_string_equal(got, want);
    free(got);
    trak_processor_free(p);
  }
  /* The header's three lines, then the event lines last to first. */
  char rev[sizeof TRACE];
  const char *events = TRACE;
  for (int k = 0; k < 3; k++)
    events = strchr(events, '\n') + 1;
  size_t head = (size_t)(events - TRACE), n = head;
  memcpy(rev, TRACE, head);
  for (const char *end = TRACE + sizeof TRACE - 1; end > events;) {
    const char *start = end - 1;
    while (start > events && start[-1] != '\n')
      start--;
    memcpy(rev + n, start, (size_t)(end - start));
    n += (size_t)(end - start);
    end = start;
  }
  p = import_split(rev, n, n, NULL);
  char *got = digest(p);
  assert_string_equal(got, want);
  free(got);
  trak_processor_free(p);
  free(want);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(recognised_as_systrace),
      cmocka_unit_test(failures_counted_by_line),
      cmocka_unit_test(header_only_is_empty),
      cmocka_unit_test(html_sections_and_ps_rows),
      cmocka_unit_test(banner_cpus_and_crlf),
      cmocka_unit_test(json_system_trace_events),
      cmocka_unit_test(any_split_and_order_same_tables),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
