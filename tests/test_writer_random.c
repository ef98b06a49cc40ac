/*
** "The writer cannot produce a broken trace", checked on random call sequences: thousands of
** begin / end / complete / instant calls with random timestamps (some going backwards) and
** durations (some outlasting their parents) on plain and AUTO_SIBLINGS tracks. Whatever the
** writer accepts must import, under the processor's rules (tests/support/trace_model.h), into
** exactly the slices it accepted (same ts and dur, by unique name), every one nested in its
** parent; whatever it refuses must leave no trace. Each track's events are in time order in
** the file, so even a reader that does not sort sees them right.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "writer_testutil.h"

enum { N_CALLS = 20000, MAX_SLICES = N_CALLS };

/* What the test expects of each slice it got accepted. */
typedef struct shadow {
  uint64_t ts;
  int64_t dur; /* -1 while open */
} shadow;

static unsigned rnd(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return *s >> 8;
}

/* Finds "name=\"s<i>\"" lines in the model and checks them against the shadow. */
static void check_model(const char *model, const shadow *sh, int n, int *closed_by_writer) {
  int seen = 0;
  *closed_by_writer = 0;
  const char *cursor = NULL;
  model_s_slice sl;
  while (model_next_s_slice(model, &cursor, &sl)) {
    int i = sl.index, depth = sl.depth;
    unsigned long long ts = sl.ts;
    long long dur = sl.dur;
    assert_true(i >= 0 && i < n);
    assert_int_equal(ts, sh[i].ts);
    if (sh[i].dur < 0) {
      if (dur != -1) (*closed_by_writer)++; /* left open inside a COMPLETE: ended with it */
    } else if (dur != sh[i].dur) {
      fail_msg("s%d: the trace says ts=%llu dur=%lld depth=%d, the writer accepted dur=%lld", i, ts,
               dur, depth, (long long)sh[i].dur);
    }
    seen++;
  }
  assert_int_equal(seen, n);
}

static void run(unsigned seed) {
  unsigned seed0 = seed;
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_writer *w;
  assert_int_equal(trak_writer_open_callback(&w, mem_sink, &out, NULL), 0);
  trak_writer_track tracks[3];
  assert_int_equal(trak_writer_add_track(w, &(trak_writer_track_info){.name = "plain"}, &tracks[0]),
                   0);
  assert_int_equal(trak_writer_add_thread(w, 1, 2, "thread", NULL, &tracks[1]), 0);
  assert_int_equal(
      trak_writer_add_track(
          w, &(trak_writer_track_info){.name = "async", .flags = TRAK_WRITER_AUTO_SIBLINGS},
          &tracks[2]),
      0);

  static shadow sh[MAX_SLICES];
  static int open_stack[64][256]; /* per lane: indices of open BEGIN slices, innermost last */
  static int n_open[64];
  memset(n_open, 0, sizeof n_open);
  int n = 0, refused = 0;
  uint64_t now[3] = {0, 0, 0};
  for (int call = 0; call < N_CALLS; call++) {
    unsigned r = rnd(&seed);
    int k = r % 3;
    /* Mostly forward in time, sometimes equal, sometimes backwards. */
    int64_t step = (int64_t)(rnd(&seed) % 10) - 2;
    uint64_t ts = (int64_t)now[k] + step < 0 ? 0 : (uint64_t)((int64_t)now[k] + step);
    char name[16];
    snprintf(name, sizeof name, "s%d", n);
    trak_writer_event ev = {.track = tracks[k], .ts = ts, .name = name};
    switch ((r >> 4) % 8) {
    case 0:
    case 1:
      ev.type = TRAK_WRITER_BEGIN;
      break;
    case 2:
    case 3:
    case 4:
      /* Ends come soon, or slices opened inside a COMPLETE one could rarely be ended in time. */
      ev.type = TRAK_WRITER_END;
      ev.name = NULL;
      ev.ts = now[k] + rnd(&seed) % 2;
      break;
    case 5:
    case 6:
      ev.type = TRAK_WRITER_COMPLETE;
      ev.dur = rnd(&seed) % 200;
      break;
    default:
      ev.type = TRAK_WRITER_INSTANT;
      break;
    }
    ts = ev.ts;
    /* Writes on a lane handle sometimes, as a caller nesting inside an async slice would. */
    if (k == 2 && (r & 0x1000) && ev.type != TRAK_WRITER_END) ev.track = tracks[2] + 1;
    assert_int_equal(trak_writer_flush(w), 0);
    size_t before = trak_pb_buf_len(&out);
    int rc = trak_writer_write(w, &ev);
    if (rc) {
      assert_true(rc == TRAK_ESTATE || rc == TRAK_EINVAL);
      assert_int_equal(trak_writer_flush(w), 0);
      assert_int_equal(trak_pb_buf_len(&out), before); /* refused: nothing written */
      refused++;
      continue;
    }
    if (ts > now[k]) now[k] = ts;
    assert_true(ev.lane > 0 && ev.lane < 64);
    if (ev.type == TRAK_WRITER_END) {
      /* The writer closed the innermost open BEGIN of the lane it reports. */
      assert_true(n_open[ev.lane] > 0);
      int i = open_stack[ev.lane][--n_open[ev.lane]];
      sh[i].dur = (int64_t)(ts - sh[i].ts);
      continue;
    }
    sh[n] = (shadow){.ts = ts,
                     .dur = ev.type == TRAK_WRITER_BEGIN     ? -1
                            : ev.type == TRAK_WRITER_INSTANT ? 0
                                                             : (int64_t)ev.dur};
    if (ev.type == TRAK_WRITER_BEGIN) {
      assert_true(n_open[ev.lane] < 256);
      open_stack[ev.lane][n_open[ev.lane]++] = n;
    }
    n++;
  }
  trak_writer_totals totals;
  assert_int_equal(trak_writer_close(w, &totals, NULL), 0);
  assert_int_equal(totals.refused, refused);
  if (refused < N_CALLS / 20 || refused > N_CALLS * 9 / 10)
    fail_msg("seed %u: %d of %d calls refused", seed0, refused, N_CALLS);

  assert_true(trace_in_track_order(out.start, trak_pb_buf_len(&out)));
  char *model = trace_model_text(out.start, trak_pb_buf_len(&out));
  int closed_by_writer;
  check_model(model, sh, n, &closed_by_writer);
  int still_open = 0;
  for (int i = 0; i < n; i++)
    still_open += sh[i].dur < 0;
  assert_int_equal((uint64_t)(still_open - closed_by_writer), totals.open_slices);
  /* Every slice lies within the slice one level up on its track. */
  unsigned long long start[256], end[256];
  for (const char *line = model; line && *line;
       line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    unsigned long long ts;
    long long dur;
    int depth;
    char kind[16];
    if (sscanf(line, "  %15s ts=%llu dur=%lld depth=%d", kind, &ts, &dur, &depth) != 4) continue;
    if (strcmp(kind, "slice") && strcmp(kind, "instant")) continue;
    assert_true(depth < 256);
    unsigned long long e = dur < 0 ? ~0ull : ts + (unsigned long long)dur;
    if (depth > 0) {
      assert_true(ts >= start[depth - 1]);
      assert_true(e <= end[depth - 1]);
    }
    start[depth] = ts;
    end[depth] = e;
  }
  free(model);
  trak_pb_buf_free(&out);
}

static void test_random_sequences(void **state) {
  for (unsigned seed = 1; seed <= 5; seed++)
    run(seed);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_random_sequences)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
