/*
** Tests of the systrace text parsers in src/processor/util: event lines of tracefs' `trace` file
** and `trace-cmd report` (trak__systrace_line_parse), their key=value arguments
** (trak__systrace_args_find), atrace markers (trak__atrace_marker_parse) and the file's layout
** around the lines (trak__systrace_text_*). Lines come from
** Perfetto's diff-test traces (tests/data/systrace/README.md); the expected fields follow
** Perfetto's tokenizer, and the marker cases are those of Perfetto's parser unit test.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "processor/util/atrace_marker.h"
#include "processor/util/systrace_line.h"
#include "processor/util/systrace_text.h"

static void assert_strv(trak_strv v, const char *want) {
  if (v.len != strlen(want) || memcmp(v.s, want, v.len) != 0)
    fail_msg("got '%.*s', want '%s'", (int)v.len, v.s, want);
}

static trak_systrace_line parse_ok(const char *line) {
  trak_systrace_line l;
  int rc = trak__systrace_line_parse(line, strlen(line), &l);
  if (rc) fail_msg("line '%s': %s", line, trak__systrace_line_error(rc));
  return l;
}

/* Asserts the task, pid, tgid, cpu and timestamp (ns) of a parsed line. */
static void assert_head(trak_systrace_line l, const char *task, long long pid, const char *tgid,
                        long long cpu, long long ts) {
  assert_strv(l.task, task);
  assert_int_equal(l.pid, pid);
  assert_strv(l.tgid, tgid);
  assert_int_equal(l.cpu, cpu);
  assert_int_equal(l.ts, ts);
}

/* The three shapes of the line: with "(TGID)", with "(-----)", without a tgid, and without irq
** flags. */
static void line_shapes(void **state) {
  (void)state;
  trak_systrace_line l =
      parse_ok("  surfaceflinger-598   (  598) [004] .... 10852.771242: tracing_mark_write: "
               "B|598|some event");
  assert_head(l, "surfaceflinger", 598, "598", 4, 10852771242000);
  assert_strv(l.event, "tracing_mark_write");
  assert_strv(l.args, "B|598|some event");

  l = parse_ok("          <idle>-0     (-----) [006] d..3    20.258855: sched_blocked_reason: "
               "pid=269 iowait=0 caller=worker_thread+0x534/0x820");
  assert_head(l, "<idle>", 0, "-----", 6, 20258855000);
  assert_strv(l.event, "sched_blocked_reason");

  l = parse_ok("           <...>-19999 [001] d..3  1234.000002: sched_wake_idle_without_ipi: "
               "cpu=2");
  assert_head(l, "<...>", 19999, "", 1, 1234000002000);
  assert_strv(l.args, "cpu=2");

  l = parse_ok("<idle>-0     [000]  0.002188: task_newtask: pid=1 comm=swapper/0");
  assert_int_equal(l.ts, 2188000);
  assert_strv(l.event, "task_newtask");
  assert_strv(l.args, "pid=1 comm=swapper/0");

  /* Five-character flags (trace-cmd's "dNh2." style) and an atrace "0:" event. */
  l = parse_ok("kworker/u16:1-77    (   77) [004] dNh2.   316.196720: 0: B|77|__scm_call|0");
  assert_strv(l.task, "kworker/u16:1");
  assert_int_equal(l.pid, 77);
  assert_strv(l.event, "0");
  assert_strv(l.args, "B|77|__scm_call|0");
}

/* Task names with '-', ':' and spaces: the task is everything before the leftmost "-PID" that
** the rest of the pattern follows. */
static void line_task_names(void **state) {
  (void)state;
  trak_systrace_line l =
      parse_ok("Binder:1-2-3 x-1234  [002] ...1   5.000001: sched_waking: comm=a pid=3");
  assert_strv(l.task, "Binder:1-2-3 x");
  assert_int_equal(l.pid, 1234);
  l = parse_ok("a-1 b-22 [003] .... 1.5: print: x");
  /* "-1 b" is not followed by "[CPU]", so the match starts at "-22". */
  assert_strv(l.task, "a-1 b");
  assert_int_equal(l.pid, 22);
  assert_int_equal(l.cpu, 3);
  assert_int_equal(l.ts, 1500000000);
}

/* The event name runs to the last ':' of its word; the arguments are the rest, trimmed. */
static void line_event_names(void **state) {
  (void)state;
  trak_systrace_line l = parse_ok("t-1 [0] .... 1.0: a:b: c:d \r");
  assert_strv(l.event, "a:b");
  assert_strv(l.args, "c:d");
  l = parse_ok("t-1 [0] .... 1.0: event: event: abc xyz =0x34");
  assert_strv(l.event, "event");
  assert_strv(l.args, "event: abc xyz =0x34");
  l = parse_ok("t-1 [0] 1.0: ev:");
  assert_strv(l.event, "ev");
  assert_strv(l.args, "");
}

/* Seconds become nanoseconds as Perfetto computes them: strtod, times 1e9, truncated. So
** 1.000333 is 1000333000 ns, not 1000333000. */
static void line_timestamps(void **state) {
  (void)state;
  assert_int_equal(parse_ok("t-1 [0] .... 1.000333: e:").ts, 1000332999);
  assert_int_equal(parse_ok("t-1 [0] .... 2.000555: e:").ts, 2000554999);
  assert_int_equal(parse_ok("t-1 [0] .... 316.196720: e:").ts, 316196720000);
  /* Flags backtrack: "...12.5" is the flags "...1" then the seconds "2.5". */
  assert_int_equal(parse_ok("t-1 [0] ...12.5: e:").ts, 2500000000);
  /* More fraction digits than the parser copies still round as strtod would. */
  char line[1400] = "t-1 [0] 0.";
  size_t n = strlen(line);
  memset(line + n, '9', 1200);
  strcpy(line + n + 1200, ": e:");
  assert_int_equal(parse_ok(line).ts, 1000000000);
}

/* Numbers read as strtoul then a 32-bit cast: they wrap rather than fail. */
static void line_number_wrap(void **state) {
  (void)state;
  trak_systrace_line l = parse_ok("t-4294967297 [4294967296] .... 1.0: e:");
  assert_int_equal(l.pid, 1);
  assert_int_equal(l.cpu, 0);
  l = parse_ok("t-99999999999999999999999 [0] .... 1.0: e:");
  assert_int_equal(l.pid, UINT32_MAX);
}

static void line_rejects(void **state) {
  (void)state;
  static const char *bad[] = {
      "",
      "# tracer: nop",
      "some = 000, other = 0x4",
      "xyz = 0x0 abc = 0x0",
      "t-1 [0] .... 1: e:",        /* seconds without a fraction */
      "t-1 [0] .... 1.0 e:",       /* no ':' after the seconds */
      "t-1 [0] .... 1.0:e:",       /* no space before the event */
      "t-1 [0] .... 1.0: e",       /* no ':' after the event */
      "t-1 [0] .... 1.0: :",       /* empty event name */
      "t-1 (1)  [0] .... 1.0: e:", /* two spaces between ")" and "[" */
      "t-1[0] .... 1.0: e:",       /* no space after the pid */
      "t-x [0] .... 1.0: e:",      /* no pid */
      "t-1 [] .... 1.0: e:",       /* no cpu */
      "t-1 [0] .... .5: e:",       /* no integer seconds */
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    trak_systrace_line l;
    if (trak__systrace_line_parse(bad[i], strlen(bad[i]), &l) != TRAK_SYSTRACE_LINE_NO_MATCH)
      fail_msg("accepted '%s'", bad[i]);
  }
  char huge[128] = "t-1 [0] .... ";
  memset(huge + strlen(huge), '9', 40);
  strcat(huge, ".0: e:");
  trak_systrace_line l;
  assert_int_equal(trak__systrace_line_parse(huge, strlen(huge), &l), TRAK_SYSTRACE_LINE_BAD_TS);
  assert_non_null(strstr(trak__systrace_line_error(TRAK_SYSTRACE_LINE_BAD_TS), "range"));
}

static void assert_arg(const char *args, const char *key, const char *want) {
  trak_strv a = {args, strlen(args)}, v;
  if (!want) {
    if (trak__systrace_args_find(a, key, &v)) fail_msg("found %s in '%s'", key, args);
    return;
  }
  if (!trak__systrace_args_find(a, key, &v)) fail_msg("no %s in '%s'", key, args);
  assert_strv(v, want);
}

/* Perfetto's reading of "k=v" pieces: the first of a repeated key wins, bare words are "name",
** extra '=' parts keep the last. */
static void args_lookup(void **state) {
  (void)state;
  const char *sw = "prev_comm=swapper/6 prev_pid=0 prev_prio=120 prev_state=D ==> "
                   "next_comm=foo next_pid=269 next_prio=130";
  assert_arg(sw, "prev_comm", "swapper/6");
  assert_arg(sw, "prev_state", "D");
  assert_arg(sw, "next_pid", "269");
  assert_arg(sw, "next_prio", "130");
  assert_arg(sw, "prio", NULL);
  /* "==>" has '=' parts "" "" ">": its key is ">" and its value empty. */
  assert_arg(sw, ">", "");
  assert_arg("a=1  a=2", "a", "1");
  assert_arg("function foo", "name", "function");
  assert_arg("k=a=b", "k", "b");
  assert_arg("k=", "k", "");
  assert_arg("", "name", NULL);
}

static trak_atrace_marker marker(const char *s, int want_rc) {
  trak_atrace_marker m;
  int rc = trak__atrace_marker_parse(s, strlen(s), &m);
  if (rc != want_rc) fail_msg("'%s': got %d, want %d", s, rc, want_rc);
  return m;
}

/* Perfetto's parser unit test: every input it rejects. */
static void marker_failures(void **state) {
  (void)state;
  static const char *bad[] = {"",
                              "abcdef",
                              "  ",
                              "|",
                              "||",
                              "|||",
                              "\n",
                              "|\n",
                              "||\n",
                              "B",
                              "B\n",
                              "C\n",
                              "S\n",
                              "F\n",
                              "C",
                              "S",
                              "F",
                              "I",
                              "N",
                              "S|",
                              "I||test",
                              "I|123|",
                              "N||test|test",
                              "N|123|test|",
                              "N|123||test",
                              "G",
                              "H",
                              "G||test|test|",
                              "G|123|test||",
                              "G|123||test|",
                              "G|123|track|event|",
                              "H||test|test|",
                              "H|123|test||",
                              "H|123||test|",
                              "H|123|track|event|",
                              "C|1|x|",
                              "C|1|x|12a",
                              "B|x|name"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    marker(bad[i], TRAK_ATRACE_FAILURE);
  marker("trace_event_clock_sync: parent_ts=0.123\n", TRAK_ATRACE_UNSUPPORTED);
  marker("trace_event_clock_sync: realtime_ts=123\n", TRAK_ATRACE_UNSUPPORTED);
}

static void marker_phases(void **state) {
  (void)state;
  trak_atrace_marker m = marker("B|42|\n", TRAK_ATRACE_OK);
  assert_int_equal(m.phase, 'B');
  assert_int_equal(m.tgid, 42);
  assert_strv(m.name, "[empty slice name]");
  m = marker("B|1|foo|bar\n\0", TRAK_ATRACE_OK);
  assert_strv(m.name, "foo|bar");
  m = marker("E", TRAK_ATRACE_OK);
  assert_int_equal(m.phase, 'E');
  assert_int_equal(m.tgid, 0);
  m = marker("E|42\n", TRAK_ATRACE_OK);
  assert_int_equal(m.tgid, 42);
  m = marker("C|543|foo|8|chromium_group_ignored", TRAK_ATRACE_OK);
  assert_int_equal(m.phase, 'C');
  assert_strv(m.name, "foo");
  assert_int_equal(m.value, 8);
  m = marker("C|1|neg|-5", TRAK_ATRACE_OK);
  assert_int_equal(m.value, -5);
  m = marker("S|123|foo|456", TRAK_ATRACE_OK);
  assert_int_equal(m.phase, 'S');
  assert_int_equal(m.value, 456);
  m = marker("F|123|foo|456", TRAK_ATRACE_OK);
  assert_int_equal(m.phase, 'F');
  assert_strv(m.name, "foo");
  m = marker("I|123|event\n", TRAK_ATRACE_OK);
  assert_strv(m.name, "event");
  m = marker("N|123|track|event\n", TRAK_ATRACE_OK);
  assert_strv(m.track, "track");
  assert_strv(m.name, "event");
  m = marker("G|123|track|event|456", TRAK_ATRACE_OK);
  assert_strv(m.track, "track");
  assert_strv(m.name, "event");
  assert_int_equal(m.value, 456);
  m = marker("H|123|track|456", TRAK_ATRACE_OK);
  assert_strv(m.track, "track");
  assert_int_equal(m.value, 456);
  m = marker("H|123|track|event|456", TRAK_ATRACE_OK);
  assert_int_equal(m.value, 456);
  /* The phase is the first byte of the first field. */
  m = marker("Begin|7|x", TRAK_ATRACE_OK);
  assert_int_equal(m.phase, 'B');
  assert_strv(m.name, "x");
}

/* strtoul / strtoll readings: leading blanks and signs are accepted, out-of-range values wrap
** (tgid) or saturate (values). */
static void marker_numbers(void **state) {
  (void)state;
  assert_int_equal(marker("B| 7|x", TRAK_ATRACE_OK).tgid, 7);
  assert_int_equal(marker("B|-1|x", TRAK_ATRACE_OK).tgid, UINT32_MAX);
  assert_int_equal(marker("B|4294967303|x", TRAK_ATRACE_OK).tgid, 7);
  assert_int_equal(marker("C|1|c|99999999999999999999", TRAK_ATRACE_OK).value, INT64_MAX);
  assert_int_equal(marker("C|1|c|-99999999999999999999", TRAK_ATRACE_OK).value, INT64_MIN);
  assert_int_equal(marker("C|1|c|-9223372036854775808", TRAK_ATRACE_OK).value, INT64_MIN);
  assert_int_equal(marker("C|1|c|+3", TRAK_ATRACE_OK).value, 3);
  /* A tgid that is not a number leaves 0, which E accepts. */
  assert_int_equal(marker("E|abc", TRAK_ATRACE_OK).tgid, 0);
  /* '\0' inside the text separates fields too. */
  trak_atrace_marker m;
  assert_int_equal(trak__atrace_marker_parse("C|5|n\0"
                                             "9",
                                             7, &m),
                   TRAK_ATRACE_OK);
  assert_int_equal(m.value, 9);
}

static void text_sniff(void **state) {
  (void)state;
  static const char *yes[] = {"# tracer: nop\n", "<!DOCTYPE html>\n<html>",
                              "<HTML>",          "junk\nTRACE:\n# tracer",
                              "cpus=8\n",        "          <idle>-0 "};
  static const char *no[] = {"", "{\"traceEvents\":[]}", "packet {", "TRACE:", "\n# trace"};
  for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
    if (!trak__systrace_text_sniff(yes[i], strlen(yes[i]))) fail_msg("not systrace: '%s'", yes[i]);
  for (size_t i = 0; i < sizeof no / sizeof *no; i++)
    if (trak__systrace_text_sniff(no[i], strlen(no[i]))) fail_msg("systrace: '%s'", no[i]);
  /* Only the first 128 bytes count. */
  char late[200];
  memset(late, 'x', sizeof late);
  memcpy(late + 150, "# tracer", 8);
  assert_false(trak__systrace_text_sniff(late, sizeof late));
}

static void text_start(void **state) {
  (void)state;
  trak_systrace_section sec;
  const char *adb = "capturing trace... done\nTRACE:\n# tracer: nop\n";
  assert_int_equal(trak__systrace_text_start(adb, strlen(adb), &sec), 31);
  assert_int_equal(sec, TRAK_SYSTRACE_EVENTS);
  const char *cmd = "cpus=4\n          <idle>-0 ";
  assert_int_equal(trak__systrace_text_start(cmd, strlen(cmd), &sec), 7);
  const char *not_cpus = "cpus=4x\n";
  assert_int_equal(trak__systrace_text_start(not_cpus, strlen(not_cpus), &sec), 0);
  const char *html = "<!DOCTYPE html>\n";
  assert_int_equal(trak__systrace_text_start(html, strlen(html), &sec), 0);
  assert_int_equal(sec, TRAK_SYSTRACE_HTML);
}

/* An HTML trace: a JSON section is skipped, ps rows are recognised, the events' </script> ends
** the file. */
static void text_html_sections(void **state) {
  (void)state;
  static const struct {
    const char *line;
    trak_systrace_line_kind kind;
    trak_systrace_section after;
  } steps[] = {
      {"<script class=\"trace-data\" type=\"application/json\">", TRAK_SYSTRACE_SKIP,
       TRAK_SYSTRACE_HTML},
      {"{\"a\": 1}</script>", TRAK_SYSTRACE_SKIP, TRAK_SYSTRACE_HTML},
      {"  <script class=\"trace-data\" type=\"application/text\">", TRAK_SYSTRACE_SKIP,
       TRAK_SYSTRACE_DATA},
      {"PROCESS DUMP", TRAK_SYSTRACE_SKIP, TRAK_SYSTRACE_PS_LONG},
      {"USER PID PPID VSZ RSS WCHAN PC S NAME COMM", TRAK_SYSTRACE_SKIP, TRAK_SYSTRACE_PS_LONG},
      {"root 1 0 1 2 0 0 S init /init --second", TRAK_SYSTRACE_PS_ROW_LONG, TRAK_SYSTRACE_PS_LONG},
      {"root 2 0 1", TRAK_SYSTRACE_SKIP, TRAK_SYSTRACE_PS_LONG},
      {"USER PID TID CMD", TRAK_SYSTRACE_SKIP, TRAK_SYSTRACE_PS_SHORT},
      {"root 1 1 init", TRAK_SYSTRACE_PS_ROW_SHORT, TRAK_SYSTRACE_PS_SHORT},
      {"</script>", TRAK_SYSTRACE_SKIP, TRAK_SYSTRACE_HTML},
      {"<script class=\"trace-data\" type=\"application/text\">", TRAK_SYSTRACE_SKIP,
       TRAK_SYSTRACE_DATA},
      {"# tracer: nop", TRAK_SYSTRACE_SKIP, TRAK_SYSTRACE_DATA},
      {"#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION", TRAK_SYSTRACE_SKIP,
       TRAK_SYSTRACE_EVENTS},
      {"#              | |        |      |   ||||       |         |", TRAK_SYSTRACE_SKIP,
       TRAK_SYSTRACE_EVENTS},
      {"", TRAK_SYSTRACE_SKIP, TRAK_SYSTRACE_EVENTS},
      {"  <idle>-0 [000] .... 1.0: e:", TRAK_SYSTRACE_EVENT, TRAK_SYSTRACE_EVENTS},
      {"  </script>", TRAK_SYSTRACE_SKIP, TRAK_SYSTRACE_DONE},
      {"  <idle>-0 [000] .... 2.0: e:", TRAK_SYSTRACE_SKIP, TRAK_SYSTRACE_DONE},
  };
  trak_systrace_section sec = TRAK_SYSTRACE_HTML;
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
    trak_systrace_line_kind k =
        trak__systrace_text_line(&sec, steps[i].line, strlen(steps[i].line));
    if (k != steps[i].kind || sec != steps[i].after)
      fail_msg("line %zu '%s': kind %d section %d, want %d %d", i, steps[i].line, k, sec,
               steps[i].kind, steps[i].after);
  }
  /* A CGROUP DUMP section is skipped to its end. */
  sec = TRAK_SYSTRACE_DATA;
  trak__systrace_text_line(&sec, "CGROUP DUMP", 11);
  assert_int_equal(sec, TRAK_SYSTRACE_CGROUP);
  assert_int_equal(trak__systrace_text_line(&sec, "a-1 [0] 1.0: e:", 15), TRAK_SYSTRACE_SKIP);
  trak__systrace_text_line(&sec, "</script>", 9);
  assert_int_equal(sec, TRAK_SYSTRACE_HTML);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(line_shapes),        cmocka_unit_test(line_task_names),
      cmocka_unit_test(line_event_names),   cmocka_unit_test(line_timestamps),
      cmocka_unit_test(line_number_wrap),   cmocka_unit_test(line_rejects),
      cmocka_unit_test(args_lookup),        cmocka_unit_test(marker_failures),
      cmocka_unit_test(marker_phases),      cmocka_unit_test(marker_numbers),
      cmocka_unit_test(text_sniff),         cmocka_unit_test(text_start),
      cmocka_unit_test(text_html_sections),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
