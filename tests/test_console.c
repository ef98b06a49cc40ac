/*
** The console interceptor's exact output for a fixed sequence of events under a fake clock:
** nesting, durations, arguments, counters, instants; the ConsoleConfig options; and its lines
** replacing the session's buffer (the trace holds no track events while it is active).
*/
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trak/trak.h"
#include "sdk_decode.h"

TRAK_CATEGORY_DEFINE(cat_r, "rendering", "console tests");
TRAK_CATEGORY_DEFINE(cat_m, "mem", "console tests");

static uint64_t fake_ns;
static uint64_t fake_clock(void) {
  return fake_ns;
}

/* Reads everything written into the pipe so far. */
static char *drain(int fd) {
  static char buf[8192];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  buf[n > 0 ? n : 0] = 0;
  return buf;
}

static int pipe_fds[2];

static int setup_pipe(void **state) {
  assert_int_equal(pipe(pipe_fds), 0);
  fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
  trak_clock_set_fake(fake_clock);
  trak_process_set_name("demo");
  trak_thread_set_name("main");
  return 0;
}

static int teardown_pipe(void **state) {
  trak_clock_set_fake(NULL);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  trak_console_set_options(NULL);
  return 0;
}

static trak_session *start_console(int ids) {
  trak_console_options o;
  trak_console_options_init(&o);
  o.fd = pipe_fds[1];
  o.colors = 0;
  o.ids = ids;
  trak_console_set_options(&o);
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.buffer_size_kb = 64;
  cfg.track_event_interceptor = "console";
  trak_session *s;
  trak_error err;
  assert_int_equal(trak_session_new(&cfg, &s, &err), 0);
  assert_int_equal(trak_session_start(s, &err), 0);
  return s;
}

static void fixed_events(trak_track heap) {
  fake_ns = 1250000;
  TRAK_EVENT_BEGIN(cat_r, "DrawFrame", TRAK_ARG("frame", 1));
  fake_ns = 1500000;
  TRAK_EVENT_BEGIN(cat_r, "Upload", TRAK_ARG("bytes", 42), TRAK_ARG("label", "tex"));
  fake_ns = 1750000;
  TRAK_EVENT_END(cat_r);
  fake_ns = 1800000;
  TRAK_EVENT_INSTANT(cat_r, "Click", TRAK_ARG("x", 3.5), TRAK_ARG("ok", (_Bool)1));
  fake_ns = 1900000;
  TRAK_COUNTER(cat_m, heap, 1024);
  fake_ns = 2250000;
  TRAK_EVENT_END(cat_r);
}

static void test_exact_text(void **state) {
  trak_track heap = trak_track_counter("heap", TRAK_UNIT_SIZE_BYTES, 0);
  fake_ns = 1000000;
  trak_session *s = start_console(1);
  fixed_events(heap);
  trak_session_stop(s, NULL);
  char id[64];
  snprintf(id, sizeof id, "demo %d/main %ld", (int)getpid(), (long)syscall(SYS_gettid));
  char want[2048];
  snprintf(want, sizeof want,
           "    0.250 ms  %s  rendering  DrawFrame  frame=1\n"
           "    0.500 ms  %s    rendering  Upload  bytes=42 label=\"tex\"\n"
           "    0.750 ms  %s    rendering  Upload end (250.000 us)\n"
           "    0.800 ms  %s    rendering  Click (instant)  x=3.5 ok=true\n"
           "    0.900 ms  %s  mem  heap = 1024\n"
           "    1.250 ms  %s  rendering  DrawFrame end (1.000 ms)\n",
           id, id, id, id, id, id);
  assert_string_equal(drain(pipe_fds[0]), want);
  /* The interceptor took the packets: the trace holds no track event, only the trace_stats
  ** packet that ends every stopped session's trace. */
  uint8_t *data;
  size_t len;
  assert_int_equal(trak_session_read(s, &data, &len, NULL), 0);
  assert_true(dec_cut_trace_stats(data, &len));
  assert_int_equal(len, 0);
  free(data);
  trak_session_free(s);
}

/* Without ids and timestamps, from a TraceConfig whose ConsoleConfig names stdout: the C
** options' fd is overridden, so nothing reaches the pipe. */
static void test_options(void **state) {
  trak_console_options o;
  trak_console_options_init(&o);
  o.fd = pipe_fds[1];
  o.colors = 0;
  o.ids = 0;
  o.timestamps = 0;
  trak_console_set_options(&o);
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.track_event_interceptor = "console";
  trak_session *s;
  assert_int_equal(trak_session_new(&cfg, &s, NULL), 0);
  assert_int_equal(trak_session_start(s, NULL), 0);
  TRAK_EVENT_INSTANT(cat_r, "Plain");
  trak_session_free(s);
  assert_string_equal(drain(pipe_fds[0]), "demo/main  rendering  Plain (instant)\n");

  o.colors = 1;
  trak_console_set_options(&o);
  assert_int_equal(trak_session_new(&cfg, &s, NULL), 0);
  assert_int_equal(trak_session_start(s, NULL), 0);
  TRAK_EVENT_INSTANT(cat_r, "Colored");
  trak_session_free(s);
  char want[128];
  snprintf(want, sizeof want, "\x1b[3%dmdemo/main\x1b[0m  rendering  Colored (instant)\n",
           1 + (int)(syscall(SYS_gettid) % 6));
  assert_string_equal(drain(pipe_fds[0]), want);

  /* ConsoleConfig.output = STDOUT sends lines to fd 1, not to the C options' pipe. */
  int saved = dup(1);
  int out[2];
  assert_int_equal(pipe(out), 0);
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  dup2(out[1], 1);
  o.colors = 0;
  trak_console_set_options(&o);
  assert_int_equal(trak_session_new_from_text(
                       "data_sources { config { name: \"track_event\" interceptor_config {"
                       " name: \"console\" console_config { output: OUTPUT_STDOUT } } } }",
                       &s, NULL),
                   0);
  assert_int_equal(trak_session_start(s, NULL), 0);
  TRAK_EVENT_INSTANT(cat_r, "ToStdout");
  trak_session_free(s);
  dup2(saved, 1);
  close(saved);
  assert_string_equal(drain(pipe_fds[0]), "");
  assert_string_equal(drain(out[0]), "demo/main  rendering  ToStdout (instant)\n");
  close(out[0]);
  close(out[1]);
}

/* An end whose begin came before the session, a double counter, an event before the
** session's start time (negative), and nesting deeper than the console remembers. */
static void test_edges(void **state) {
  trak_console_options o;
  trak_console_options_init(&o);
  o.fd = pipe_fds[1];
  o.colors = 0;
  o.ids = 0;
  trak_console_set_options(&o);
  trak_track load = trak_track_counter("load", TRAK_UNIT_UNSPECIFIED, 0);
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.track_event_interceptor = "console";
  trak_session *s;
  fake_ns = 10000000;
  assert_int_equal(trak_session_new(&cfg, &s, NULL), 0);
  assert_int_equal(trak_session_start(s, NULL), 0);
  TRAK_EVENT_END(cat_r);
  TRAK_COUNTER(cat_m, load, 0.25);
  TRAK_EVENT_INSTANT(cat_r, "Early", TRAK_TIMESTAMP(7500000));
  for (int i = 0; i < 20; i++)
    TRAK_EVENT_BEGIN(cat_r, "Deep");
  for (int i = 0; i < 20; i++)
    TRAK_EVENT_END(cat_r);
  trak_session_free(s);
  const char *out = drain(pipe_fds[0]);
  assert_non_null(strstr(out, "    0.000 ms  demo/main  (end of a slice begun before the session)\n"
                              "    0.000 ms  demo/main  mem  load = 0.25\n"
                              "   -2.500 ms  demo/main  rendering  Early (instant)\n"));
  assert_non_null(strstr(out, "(end of a slice nested too deep to show)"));
  assert_non_null(strstr(out, "\n    0.000 ms  demo/main  rendering  Deep end (0 ns)\n"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exact_text),
      cmocka_unit_test(test_options),
      cmocka_unit_test(test_edges),
  };
  return cmocka_run_group_tests(tests, setup_pipe, teardown_pipe);
}
