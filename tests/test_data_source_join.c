/*
** Data sources registered while sessions run: the registration sets up and starts an instance
** in every started session whose config names the data source (with the entry's config bytes
** and interceptor) and enables it there, once; sessions not naming it, and sessions already
** stopped, are left alone. In-process sessions fail to start on a data source nobody
** registered, so these sessions tolerate one the way a system producer's do
** (s->sources_optional, set through the internal header).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sdk/internal.h"
#include "trak/pbtxt.h"
#include "trak/trak.h"
#include "sdk_decode.h"

typedef struct counts {
  int setup, start, stop, flush, traced, intercepted;
  uint32_t instance;
  char legacy[64];
} counts;

static counts cnt;

static int ds_setup(void *user, uint32_t inst, const uint8_t *config, size_t len, void **state) {
  cnt.setup++;
  cnt.instance = inst;
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, config, len);
  while (trak_pb_decoder_next(&d, &f) == 1)
    if (f.number == TRAK_PB_DataSourceConfig_legacy_config)
      snprintf(cnt.legacy, sizeof cnt.legacy, "%.*s", (int)f.len, f.data);
  *state = calloc(1, sizeof(int));
  return 0;
}
static void ds_start(void *user, uint32_t inst, void *state) {
  cnt.start++;
}
static void ds_stop(void *user, uint32_t inst, void *state) {
  cnt.stop++;
  free(state);
}
static void ds_flush(void *user, uint32_t inst, void *state) {
  cnt.flush++;
}

/* One packet carrying `user` as its TracePacket.timestamp, counted in the instance state. */
static void trace_one(trak_ds_ctx *ctx, void *user) {
  cnt.traced++;
  int *st = trak_ds_lock_instance(ctx);
  assert_non_null(st); /* the joined instance's setup state */
  (*st)++;
  trak_ds_unlock_instance(ctx);
  trak_pb_buf *p = trak_ds_new_packet(ctx);
  trak_pb_put_varint(p, TRAK_PB_TracePacket_timestamp, (uint64_t)(uintptr_t)user);
}

/* Registers the data source `name` with the counting callbacks. */
static trak_data_source *register_ds(const char *name) {
  trak_data_source_desc d;
  memset(&d, 0, sizeof d);
  d.name = name;
  d.setup = ds_setup;
  d.start = ds_start;
  d.stop = ds_stop;
  d.flush = ds_flush;
  trak_data_source *ds;
  trak_error err;
  if (trak_data_source_register(&d, &ds, &err) != 0) fail_msg("%s", err.message);
  return ds;
}

/* A started session of config `text` that tolerates data sources not registered yet. */
static trak_session *start_text(const char *text) {
  trak_session *s;
  trak_error err;
  if (trak_session_new_from_text(text, &s, &err) != 0) fail_msg("%s", err.message);
  s->sources_optional = 1;
  assert_int_equal(trak_session_start(s, &err), 0);
  return s;
}

/* The timestamps of the packets of stopped session `s` (its trace_stats packet excluded). */
static int read_timestamps(trak_session *s, uint64_t *out, int max) {
  uint8_t *data;
  size_t len;
  assert_int_equal(trak_session_read(s, &data, &len, NULL), 0);
  assert_true(dec_cut_trace_stats(data, &len));
  trak_pb_decoder d, p;
  trak_pb_field f, g;
  int n = 0;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) == 1 && n < max) {
    out[n] = 0;
    trak_pb_decoder_init_nested(&p, &d, &f);
    while (trak_pb_decoder_next(&p, &g) == 1)
      if (g.number == TRAK_PB_TracePacket_timestamp) out[n] = g.value;
    n++;
  }
  free(data);
  return n;
}

/* ---- tests ----------------------------------------------------------------------------- */

/* Registered after the start: it records into the running session; setup (with the entry's
** config), start, flush and stop run once each. */
static void test_register_after_start(void **state) {
  memset(&cnt, 0, sizeof cnt);
  trak_session *s = start_text(
      "data_sources { config { name: \"join.late\" legacy_config: \"from the config\" } }");
  assert_int_equal(cnt.setup, 0);
  trak_data_source *ds = register_ds("join.late");
  assert_int_equal(cnt.setup, 1);
  assert_int_equal(cnt.start, 1);
  assert_int_equal(cnt.instance, (uint32_t)s->slot);
  assert_string_equal(cnt.legacy, "from the config");
  assert_true(TRAK_DATA_SOURCE_ENABLED(ds));
  TRAK_DATA_SOURCE_TRACE(ds, trace_one, (void *)(uintptr_t)111);
  TRAK_DATA_SOURCE_TRACE(ds, trace_one, (void *)(uintptr_t)222);
  assert_int_equal(trak_session_flush(s, NULL), 0);
  assert_int_equal(cnt.flush, 1);
  assert_int_equal(trak_session_stop(s, NULL), 0);
  assert_int_equal(cnt.setup, 1);
  assert_int_equal(cnt.start, 1);
  assert_int_equal(cnt.stop, 1);
  assert_false(TRAK_DATA_SOURCE_ENABLED(ds));
  TRAK_DATA_SOURCE_TRACE(ds, trace_one, (void *)(uintptr_t)333);
  assert_int_equal(cnt.traced, 2);
  uint64_t ts[8];
  assert_int_equal(read_timestamps(s, ts, 8), 2);
  assert_int_equal(ts[0], 111);
  assert_int_equal(ts[1], 222);
  trak_session_free(s);
  assert_int_equal(cnt.stop, 1); /* freeing a stopped session stops nothing again */
}

/* Two running sessions, one naming the data source: only that one gets an instance. */
static void test_two_sessions_one_names_it(void **state) {
  memset(&cnt, 0, sizeof cnt);
  trak_session *other = start_text("data_sources { config { name: \"join.unrelated\" } }");
  trak_session *named = start_text("data_sources { config { name: \"join.two\" } }");
  trak_data_source *ds = register_ds("join.two");
  assert_int_equal(cnt.setup, 1);
  assert_int_equal(cnt.start, 1);
  assert_int_equal(ds->mask, 1u << named->slot);
  TRAK_DATA_SOURCE_TRACE(ds, trace_one, (void *)(uintptr_t)7);
  assert_int_equal(cnt.traced, 1);
  trak_session_stop(other, NULL);
  assert_int_equal(cnt.stop, 0);
  trak_session_stop(named, NULL);
  assert_int_equal(cnt.stop, 1);
  uint64_t ts[4];
  assert_int_equal(read_timestamps(other, ts, 4), 0);
  assert_int_equal(read_timestamps(named, ts, 4), 1);
  assert_int_equal(ts[0], 7);
  trak_session_free(other);
  trak_session_free(named);
}

/* A session stopped before the registration, and one started after it: the first never sees
** the data source, the second sets it up itself at start, once. */
static void test_stopped_and_later_sessions(void **state) {
  memset(&cnt, 0, sizeof cnt);
  trak_session *old = start_text("data_sources { config { name: \"join.after_stop\" } }");
  trak_session_stop(old, NULL);
  trak_data_source *ds = register_ds("join.after_stop");
  assert_int_equal(cnt.setup, 0);
  assert_false(TRAK_DATA_SOURCE_ENABLED(ds));
  trak_session *s = start_text("data_sources { config { name: \"join.after_stop\" } }");
  assert_int_equal(cnt.setup, 1);
  assert_int_equal(cnt.start, 1);
  trak_session_stop(s, NULL);
  assert_int_equal(cnt.stop, 1);
  trak_session_free(old);
  trak_session_free(s);
}

/* An interceptor named by the config entry receives the joined instance's packets. */
static void on_packet(const trak_intercepted_packet *packet) {
  cnt.intercepted++;
}

static void test_join_with_interceptor(void **state) {
  memset(&cnt, 0, sizeof cnt);
  trak_interceptor_desc ic;
  memset(&ic, 0, sizeof ic);
  ic.name = "join.counter";
  ic.on_packet = on_packet;
  assert_int_equal(trak_interceptor_register(&ic, NULL), 0);
  trak_session *s = start_text("data_sources { config { name: \"join.icpt\" "
                               "interceptor_config { name: \"join.counter\" } } }");
  trak_data_source *ds = register_ds("join.icpt");
  assert_int_equal(cnt.start, 1);
  TRAK_DATA_SOURCE_TRACE(ds, trace_one, (void *)(uintptr_t)5);
  TRAK_DATA_SOURCE_TRACE(ds, trace_one, (void *)(uintptr_t)6);
  assert_int_equal(cnt.intercepted, 2);
  trak_session_stop(s, NULL);
  assert_int_equal(cnt.stop, 1);
  uint64_t ts[4];
  assert_int_equal(read_timestamps(s, ts, 4), 0); /* intercepted: not in the buffer */
  trak_session_free(s);
}

/* Without sources_optional a session still refuses a data source nobody registered. */
static void test_unregistered_still_fails(void **state) {
  trak_session *s;
  trak_error err = {0};
  assert_int_equal(
      trak_session_new_from_text("data_sources { config { name: \"join.nobody\" } }", &s, NULL), 0);
  assert_int_equal(trak_session_start(s, &err), TRAK_EINVAL);
  assert_non_null(strstr(err.message, "\"join.nobody\" is not registered"));
  trak_session_free(s);
}

/* The child's checks of test_fork_child_sets_up_its_own: exit codes say which one failed. */
static int fork_child_checks(trak_data_source *ds) {
  if (TRAK_DATA_SOURCE_ENABLED(ds)) return 10; /* the parent's instance is not the child's */
  counts before = cnt;
  trak_session *s;
  if (trak_session_new_from_text("data_sources { config { name: \"join.fork\" } } "
                                 "data_sources { config { name: \"join.fork.late\" } }",
                                 &s, NULL) != 0)
    return 11;
  s->sources_optional = 1;
  if (trak_session_start(s, NULL) != 0) return 12;
  if (cnt.setup != before.setup + 1 || cnt.start != before.start + 1) return 13;
  trak_data_source *late = register_ds("join.fork.late"); /* joins the child's session */
  if (cnt.setup != before.setup + 2 || cnt.start != before.start + 2) return 14;
  TRAK_DATA_SOURCE_TRACE(ds, trace_one, (void *)(uintptr_t)1);
  TRAK_DATA_SOURCE_TRACE(late, trace_one, (void *)(uintptr_t)2);
  if (cnt.traced != before.traced + 2) return 15;
  trak_session_stop(s, NULL);
  if (cnt.stop != before.stop + 2) return 16;
  trak_session_free(s);
  return 0;
}

/* A child forked while a session runs starts with no instance: its own session sets the data
** source up, a registration joins it, and the parent's instance is stopped once, by the
** parent. */
static void test_fork_child_sets_up_its_own(void **state) {
  memset(&cnt, 0, sizeof cnt);
  trak_data_source *ds = register_ds("join.fork");
  trak_session *s = start_text("data_sources { config { name: \"join.fork\" } }");
  assert_int_equal(cnt.setup, 1);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) _exit(fork_child_checks(ds));
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  assert_true(TRAK_DATA_SOURCE_ENABLED(ds));
  trak_session_stop(s, NULL);
  assert_int_equal(cnt.setup, 1);
  assert_int_equal(cnt.stop, 1);
  trak_session_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_register_after_start),
      cmocka_unit_test(test_two_sessions_one_names_it),
      cmocka_unit_test(test_stopped_and_later_sessions),
      cmocka_unit_test(test_join_with_interceptor),
      cmocka_unit_test(test_unregistered_still_fails),
      cmocka_unit_test(test_fork_child_sets_up_its_own),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
