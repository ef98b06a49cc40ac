/*
** The writer's contract beyond the seeds: every refusal (which call, why, nothing written, the
** writer still usable), automatic lanes on overlapping workloads, typed arguments, the file
** and fd sinks, sink failures and the totals close reports.
*/
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include <cmocka.h>

#include "writer_testutil.h"

typedef struct fixture {
  trak_pb_buf out;
  trak_writer *w;
  trak_writer_track proc, thread, counter;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  trak_pb_buf_init_heap(&f->out);
  assert_int_equal(trak_writer_open_callback(&f->w, mem_sink, &f->out, NULL), 0);
  assert_int_equal(trak_writer_add_process(f->w, 7, "app", NULL, &f->proc), 0);
  trak_writer_track_info ti = {.parent = f->proc};
  assert_int_equal(trak_writer_add_thread(f->w, 7, 8, "main", &ti, &f->thread), 0);
  trak_writer_track_info ci = {.parent = f->proc, .name = "queue"};
  assert_int_equal(
      trak_writer_add_counter_track(f->w, &ci, TRAK_WRITER_UNIT_COUNT, NULL, &f->counter), 0);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  if (f->w) trak_writer_close(f->w, NULL, NULL);
  trak_pb_buf_free(&f->out);
  free(f);
  return 0;
}

/* Closes the fixture's writer and returns the model of what it wrote. */
static char *close_model(fixture *f, trak_writer_totals *totals) {
  assert_int_equal(trak_writer_close(f->w, totals, NULL), 0);
  f->w = NULL;
  return trace_model_text(f->out.start, trak_pb_buf_len(&f->out));
}

/* Asserts that `rc` is the refusal `code` with a message containing every given fragment,
** and that the refused call wrote nothing. */
static void expect_refusal(fixture *f, size_t bytes_before, int rc, int code, const char *frag1,
                           const char *frag2) {
  assert_int_equal(rc, code);
  const trak_error *e = trak_writer_last_error(f->w);
  assert_int_equal(e->code, code);
  if (!strstr(e->message, frag1) || (frag2 && !strstr(e->message, frag2)))
    fail_msg("message '%s' lacks '%s' / '%s'", e->message, frag1, frag2 ? frag2 : "");
  assert_int_equal(trak_writer_flush(f->w), 0);
  assert_int_equal(trak_pb_buf_len(&f->out), bytes_before);
}

static size_t flushed(fixture *f) {
  assert_int_equal(trak_writer_flush(f->w), 0);
  return trak_pb_buf_len(&f->out);
}

static void test_refuse_child_ending_after_parent(void **state) {
  fixture *f = *state;
  assert_int_equal(trak_writer_complete(f->w, f->thread, 0, 100, "parent"), 0);
  size_t n = flushed(f);
  expect_refusal(f, n, trak_writer_complete(f->w, f->thread, 50, 100, "child"), TRAK_ESTATE,
                 "slice_complete at 50 on track",
                 "'child' would end at 150, after its parent 'parent', which ends at 100");
  /* A BEGIN inside the COMPLETE slice cannot end after it either. */
  assert_int_equal(trak_writer_begin(f->w, f->thread, 60, "inner"), 0);
  n = flushed(f);
  expect_refusal(f, n, trak_writer_end(f->w, f->thread, 120), TRAK_ESTATE, "slice_end at 120",
                 "'inner' would end after its parent 'parent', which ends at 100");
  /* Nor can anything start inside it after the parent is over. */
  expect_refusal(f, n, trak_writer_instant(f->w, f->thread, 100, "late"), TRAK_ESTATE,
                 "instant at 100", "enclosing slice 'parent' while slice 'inner' is still open");
  /* Still usable: ending in time works and the model is well nested. */
  assert_int_equal(trak_writer_end(f->w, f->thread, 90), 0);
  trak_writer_totals totals;
  char *m = close_model(f, &totals);
  assert_non_null(strstr(
      m,
      "slice ts=0 dur=100 depth=0 name=\"parent\"\n  slice ts=60 dur=30 depth=1 name=\"inner\""));
  assert_int_equal(totals.refused, 3);
  free(m);
}

static void test_refuse_end_without_open_slice(void **state) {
  fixture *f = *state;
  size_t n = flushed(f);
  expect_refusal(f, n, trak_writer_end(f->w, f->thread, 10), TRAK_ESTATE,
                 "slice_end at 10 on track 2", "no open slice to end");
  /* A COMPLETE slice is not something an END can close. */
  assert_int_equal(trak_writer_complete(f->w, f->thread, 20, 10, "done"), 0);
  n = flushed(f);
  expect_refusal(f, n, trak_writer_end(f->w, f->thread, 25), TRAK_ESTATE, "no open slice to end",
                 NULL);
  /* Nor can an END cut a COMPLETE child short. */
  assert_int_equal(trak_writer_begin(f->w, f->thread, 40, "outer"), 0);
  assert_int_equal(trak_writer_complete(f->w, f->thread, 50, 50, "kid"), 0);
  n = flushed(f);
  expect_refusal(f, n, trak_writer_end(f->w, f->thread, 70), TRAK_ESTATE,
                 "slice 'outer' would end before its child 'kid', which ends at 100", NULL);
  assert_int_equal(trak_writer_end(f->w, f->thread, 100), 0);
  char *m = close_model(f, NULL);
  assert_non_null(strstr(
      m, "slice ts=40 dur=60 depth=0 name=\"outer\"\n  slice ts=50 dur=50 depth=1 name=\"kid\""));
  free(m);
}

static void test_refuse_time_going_backwards(void **state) {
  fixture *f = *state;
  assert_int_equal(trak_writer_begin(f->w, f->thread, 100, "a"), 0);
  size_t n = flushed(f);
  expect_refusal(f, n, trak_writer_instant(f->w, f->thread, 99, "b"), TRAK_ESTATE, "instant at 99",
                 "timestamp goes backwards (the previous event on this track is at 100)");
  expect_refusal(f, n, trak_writer_end(f->w, f->thread, 50), TRAK_ESTATE, "slice_end at 50",
                 "backwards");
  assert_int_equal(trak_writer_counter(f->w, f->counter, 500, 3), 0);
  n = flushed(f);
  expect_refusal(f, n, trak_writer_counter(f->w, f->counter, 400, 4), TRAK_ESTATE, "counter at 400",
                 "backwards");
  /* Other tracks keep their own clocks: an earlier event on another track is fine. */
  trak_writer_track other;
  assert_int_equal(trak_writer_add_thread(f->w, 7, 9, "worker", NULL, &other), 0);
  assert_int_equal(trak_writer_instant(f->w, other, 10, "early"), 0);
}

static void test_refuse_unknown_track(void **state) {
  fixture *f = *state;
  size_t n = flushed(f);
  expect_refusal(f, n, trak_writer_begin(f->w, 999, 1, "x"), TRAK_EINVAL, "slice_begin at 1",
                 "unknown track handle 999");
  expect_refusal(f, n, trak_writer_counter(f->w, 0, 1, 1), TRAK_EINVAL, "unknown track handle 0",
                 NULL);
  trak_writer_track t;
  expect_refusal(
      f, n, trak_writer_add_track(f->w, &(trak_writer_track_info){.parent = 77, .name = "x"}, &t),
      TRAK_EINVAL, "add_track: unknown parent track handle 77", NULL);
}

static void test_refuse_wrong_kind_and_bad_input(void **state) {
  fixture *f = *state;
  size_t n = flushed(f);
  expect_refusal(f, n, trak_writer_counter(f->w, f->thread, 1, 1), TRAK_EINVAL,
                 "counter values need a counter track", NULL);
  expect_refusal(f, n, trak_writer_begin(f->w, f->counter, 1, "x"), TRAK_EINVAL,
                 "a counter track takes only counter values", NULL);
  trak_writer_track t;
  expect_refusal(
      f, n,
      trak_writer_add_track(f->w, &(trak_writer_track_info){.parent = f->counter, .name = "x"}, &t),
      TRAK_EINVAL, "is a counter track", NULL);
  expect_refusal(f, n, trak_writer_add_counter_track(f->w, NULL, TRAK_WRITER_UNIT_COUNT, NULL, &t),
                 TRAK_EINVAL, "add_counter_track: info is required", NULL);
  expect_refusal(f, n,
                 trak_writer_add_counter_track(f->w, &(trak_writer_track_info){0},
                                               TRAK_WRITER_UNIT_COUNT, NULL, &t),
                 TRAK_EINVAL, "add_counter_track: a counter track needs a name", NULL);
  trak_writer_arg unnamed[] = {TRAK_WRITER_ARG_I(NULL, 1)};
  trak_writer_event ev = {
      .type = TRAK_WRITER_INSTANT, .track = f->thread, .ts = 1, .args = unnamed, .n_args = 1};
  expect_refusal(f, n, trak_writer_write(f->w, &ev), TRAK_EINVAL, "argument 0 has no name", NULL);
  trak_writer_arg deep[TRAK_WRITER_ARG_MAX_DEPTH + 2];
  for (int i = 0; i <= TRAK_WRITER_ARG_MAX_DEPTH; i++)
    deep[i] = (trak_writer_arg)TRAK_WRITER_ARG_DICT_OF("d", &deep[i + 1], 1);
  deep[TRAK_WRITER_ARG_MAX_DEPTH + 1] = (trak_writer_arg)TRAK_WRITER_ARG_I("leaf", 1);
  ev.args = deep;
  expect_refusal(f, n, trak_writer_write(f->w, &ev), TRAK_EINVAL, "nests deeper than", NULL);
  ev = (trak_writer_event){.type = TRAK_WRITER_INSTANT, .track = f->thread, .ts = 1, .name_id = 42};
  expect_refusal(f, n, trak_writer_write(f->w, &ev), TRAK_EINVAL, "unknown name_id 42", NULL);
}

static void test_typed_args_and_categories(void **state) {
  fixture *f = *state;
  trak_writer_arg list[] = {TRAK_WRITER_ARG_I(NULL, 1), TRAK_WRITER_ARG_S(NULL, "two")};
  trak_writer_arg dict[] = {TRAK_WRITER_ARG_B("ok", 1), TRAK_WRITER_ARG_ARRAY_OF("list", list, 2)};
  trak_writer_arg args[] = {
      TRAK_WRITER_ARG_I("i", -5),     TRAK_WRITER_ARG_U("u", 18446744073709551615ull),
      TRAK_WRITER_ARG_D("d", 0.5),    TRAK_WRITER_ARG_S("s", "hi"),
      TRAK_WRITER_ARG_P("p", 0xbeef), TRAK_WRITER_ARG_DICT_OF("dict", dict, 2)};
  trak_writer_event ev = {.type = TRAK_WRITER_COMPLETE,
                          .track = f->thread,
                          .ts = 10,
                          .dur = 5,
                          .name = "work",
                          .category = "cat",
                          .args = args,
                          .n_args = 6};
  assert_int_equal(trak_writer_write(f->w, &ev), 0);
  ev.ts = 20; /* the same strings again: interned once */
  assert_int_equal(trak_writer_write(f->w, &ev), 0);
  assert_int_equal(trak_writer_counter_double(f->w, f->counter, 30, 2.5), 0);
  trak_writer_totals totals;
  char *m = close_model(f, &totals);
  assert_non_null(strstr(m, "slice ts=20 dur=5 depth=0 name=\"work\" cat=\"cat\" args={i=-5;"
                            "u=18446744073709551615;d=0.5;s=\"hi\";p=0xbeef;dict.ok=true;"
                            "dict.list[0]=1;dict.list[1]=\"two\";}"));
  assert_non_null(strstr(m, "counter ts=30 value=2.5"));
  assert_int_equal(totals.interned, 1 + 1 + 6); /* name, category, six argument names */
  assert_int_equal(totals.slices, 2);
  assert_int_equal(totals.counter_values, 1);
  free(m);
}

/* Checks that every track section of a model is well nested and complete; returns the number
** of slices and of tracks holding slices. */
static void check_nesting(const char *model, int *n_slices, int *n_tracks) {
  *n_slices = *n_tracks = 0;
  unsigned long long start[64], end[64];
  for (const char *line = model; line && *line;
       line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    if (!strncmp(line, "track ", 6)) {
      (*n_tracks)++;
      continue;
    }
    unsigned long long ts;
    long long dur;
    int depth;
    if (sscanf(line, "  slice ts=%llu dur=%lld depth=%d", &ts, &dur, &depth) != 3) continue;
    assert_true(dur >= 0);
    assert_true(depth < 64);
    if (depth > 0) {
      assert_true(ts >= start[depth - 1]);
      assert_true(ts + (unsigned long long)dur <= end[depth - 1]);
    }
    start[depth] = ts;
    end[depth] = ts + (unsigned long long)dur;
    (*n_slices)++;
  }
}

static void test_auto_siblings_overlapping_workload(void **state) {
  fixture *f = *state;
  trak_writer_track q;
  trak_writer_track_info qi = {
      .parent = f->proc, .name = "requests", .flags = TRAK_WRITER_AUTO_SIBLINGS};
  assert_int_equal(trak_writer_add_track(f->w, &qi, &q), 0);
  /* 500 requests with random overlaps, in start order; some nest, most do not. */
  unsigned seed = 12345;
  uint64_t ts = 0;
  enum { N = 500 };
  for (int i = 0; i < N; i++) {
    seed = seed * 1103515245u + 12345u;
    ts += (seed >> 16) % 50;
    uint64_t dur = 1 + (seed >> 8) % 400;
    trak_writer_event ev = {.type = TRAK_WRITER_COMPLETE,
                            .track = q,
                            .ts = ts,
                            .dur = dur,
                            .name = (i & 1) ? "get" : "put"};
    assert_int_equal(trak_writer_write(f->w, &ev), 0);
    assert_int_not_equal(ev.lane, 0);
  }
  /* Async BEGIN/END pairs on the same track, ended by name in another order. */
  ts += 1000;
  trak_writer_event a = {.type = TRAK_WRITER_BEGIN, .track = q, .ts = ts, .name = "op-a"};
  trak_writer_event b = {.type = TRAK_WRITER_BEGIN, .track = q, .ts = ts + 1, .name = "op-b"};
  assert_int_equal(trak_writer_write(f->w, &a), 0);
  assert_int_equal(trak_writer_write(f->w, &b), 0);
  assert_int_not_equal(a.lane, b.lane);
  trak_writer_event end_a = {.type = TRAK_WRITER_END, .track = q, .ts = ts + 5, .name = "op-a"};
  assert_int_equal(trak_writer_write(f->w, &end_a), 0);
  assert_int_equal(end_a.lane, a.lane);
  trak_writer_event end_b = {.type = TRAK_WRITER_END, .track = q, .ts = ts + 6, .name = "op-b"};
  assert_int_equal(trak_writer_write(f->w, &end_b), 0);
  end_b.ts = ts + 7;
  assert_int_equal(trak_writer_write(f->w, &end_b), TRAK_ESTATE);
  assert_non_null(strstr(trak_writer_last_error(f->w)->message, "no open slice named 'op-b'"));

  trak_writer_totals totals;
  char *m = close_model(f, &totals);
  int n_slices, n_tracks;
  check_nesting(m, &n_slices, &n_tracks);
  assert_int_equal(n_slices, N + 2);
  assert_true(totals.tracks > 4); /* lanes were needed */
  assert_int_equal(totals.open_slices, 0);
  assert_non_null(strstr(m, "\"requests\" / \"requests\" #2\n"));
  free(m);
}

static void test_file_and_fd_sinks(void **state) {
  char path[] = "/tmp/trak_writer_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  for (int use_fd = 0; use_fd < 2; use_fd++) {
    trak_writer *w;
    trak_error err = {0};
    if (use_fd)
      assert_int_equal(trak_writer_open_fd(&w, fd, &err), 0);
    else
      assert_int_equal(trak_writer_open_file(&w, path, &err), 0);
    trak_writer_track t;
    assert_int_equal(
        trak_writer_add_track(w, &(trak_writer_track_info){.name = use_fd ? "fd" : "file"}, &t), 0);
    for (uint64_t i = 0; i < 100000; i++)
      assert_int_equal(trak_writer_complete(w, t, i * 10, 5, "x"), 0);
    trak_writer_totals totals;
    assert_int_equal(trak_writer_close(w, &totals, &err), 0);
    size_t len = 0;
    char *data = tu_read_file(path, &len);
    assert_int_equal(len, totals.bytes);
    assert_int_equal(totals.packets, 1 + 2 * 100000 + 0);
    char *m = trace_model_text(data, len);
    assert_non_null(strstr(m, use_fd ? "track \"fd\"\n" : "track \"file\"\n"));
    assert_non_null(strstr(m, "slice ts=999990 dur=5 depth=0 name=\"x\""));
    free(m);
    free(data);
    assert_int_equal(ftruncate(fd, 0), 0);
    lseek(fd, 0, SEEK_SET);
  }
  close(fd);
  unlink(path);
  trak_writer *w;
  trak_error err = {0};
  assert_int_equal(trak_writer_open_file(&w, "/nonexistent-dir/x.pb", &err), TRAK_EIO);
  assert_non_null(strstr(err.message, "/nonexistent-dir/x.pb"));
}

static int failing_sink(void *user, const void *data, size_t len) {
  return TRAK_EIO;
}

static void test_sink_failure_reported_by_close(void **state) {
  trak_writer *w;
  assert_int_equal(trak_writer_open_callback(&w, failing_sink, NULL, NULL), 0);
  trak_writer_track t;
  assert_int_equal(trak_writer_add_track(w, &(trak_writer_track_info){.name = "t"}, &t), 0);
  trak_error err = {0};
  assert_int_equal(trak_writer_close(w, NULL, &err), TRAK_EIO);
  assert_non_null(strstr(err.message, "trak_writer_close"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_refuse_child_ending_after_parent, setup, teardown),
      cmocka_unit_test_setup_teardown(test_refuse_end_without_open_slice, setup, teardown),
      cmocka_unit_test_setup_teardown(test_refuse_time_going_backwards, setup, teardown),
      cmocka_unit_test_setup_teardown(test_refuse_unknown_track, setup, teardown),
      cmocka_unit_test_setup_teardown(test_refuse_wrong_kind_and_bad_input, setup, teardown),
      cmocka_unit_test_setup_teardown(test_typed_args_and_categories, setup, teardown),
      cmocka_unit_test_setup_teardown(test_auto_siblings_overlapping_workload, setup, teardown),
      cmocka_unit_test(test_file_and_fd_sinks),
      cmocka_unit_test(test_sink_failure_reported_by_close),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
