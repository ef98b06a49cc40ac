/*
** Tests of the viewer's system tracks (src/ui/sched.c) on tests/data/systrace/ui_sched.systrace:
** each CPU's track holds its non-idle sched rows and each thread's its thread_state rows (with
** the utid, CPU and io_wait the page needs), summaries at a coarse resolution count every row
** they stand for (also for one process's threads alone, its scheduling summary), the time per state over a range equals the SQL docs/ui.md gives, the area's
** slice aggregates and flame graph leave system tracks out, and a thread state's details name
** its waker as thread_state does; and on tests/data/linux/ui_irq.pbtxt (sys_stats) the counters
** answer (/api/counters, trak__ui_counters) gives each cpustat sample its change to the next, 0 at
** the last, equal to Perfetto's `lead(value, 1, value) over (order by ts) - value` through the
** processor, and other counters (meminfo) their values; the tracks answer lists the cpustat
** tracks as its delta tracks (the page draws those as deltas); the Scheduler group's counters
** equal sched.thread_level_parallelism's tables, and CPU by thread equals its SQL; on
** tests/data/linux/ui_big_little.pbtxt (two CPU clusters) the active CPU count per CPU type
** equals Perfetto's SQL for it; on tests/data/systrace/ui_sched_ties.systrace the counters hold
** Perfetto's values where starts and ends tie, and they are made alike from the columns, the
** tracks' lines or sorted copies.
*/
#include <inttypes.h>
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
#include "processor/processor_internal.h"
#include "processor/tables/thread_state_cols.h"
#include "trak/processor.h"
#include "ui/cache.h"
#include "ui/ui.h"

typedef struct fixture {
  trak_processor *p;
  trak_ui_cache *c;
} fixture;

/* A processor and the viewer's cache on the trace at `path` in *state. */
static int open_fixture(void **state, const char *path) {
  fixture *f = calloc(1, sizeof *f);
  f->p = sc_open_file(path);
  trak_error err = {0};
  assert_int_equal(trak__ui_cache_new(f->p, &f->c, &err), 0);
  *state = f;
  return 0;
}

static int setup(void **state) {
  return open_fixture(state, "tests/data/systrace/ui_sched.systrace");
}

/* tests/data/linux/ui_irq.pbtxt: sys_stats with /proc/stat times on two CPUs. */
static int setup_stats(void **state) {
  return open_fixture(state, "tests/data/linux/ui_irq.pbtxt");
}

/* tests/data/linux/ui_big_little.pbtxt: four CPUs in two clusters (little 0-1, big 2-3). */
static int setup_big_little(void **state) {
  return open_fixture(state, "tests/data/linux/ui_big_little.pbtxt");
}

/* tests/data/systrace/ui_sched_ties.systrace: the Scheduler counters' edge cases. */
static int setup_ties(void **state) {
  return open_fixture(state, "tests/data/systrace/ui_sched_ties.systrace");
}

static int teardown(void **state) {
  fixture *f = *state;
  trak__ui_cache_free(f->c);
  trak_processor_free(f->p);
  free(f);
  return 0;
}

/* The cache's track of `kind` whose key (CPU or utid) is `key`. */
static const trak_ui_track *system_track(const trak_ui_cache *c, trak_ui_kind kind, int64_t key) {
  for (size_t i = 0; i < c->n_tracks; i++)
    if (c->tracks[i].kind == kind && c->tracks[i].key == key) return &c->tracks[i];
  fail_msg("no track of kind %d for %" PRId64, (int)kind, key);
  return NULL;
}

/* Each CPU and thread has its track, with exactly its rows, ids past the trace's tracks. */
static void tracks_hold_the_rows(void **state) {
  fixture *f = *state;
  int64_t max_track = sc_int(f->p, "SELECT max(id) FROM track");
  for (int64_t cpu = 0; cpu < 2; cpu++) {
    const trak_ui_track *t = system_track(f->c, TRAK_UI_CPU, cpu);
    assert_true(t->id > max_track);
    assert_int_equal(t->count, sc_int(f->p,
                                      "SELECT count(*) FROM sched WHERE cpu = %" PRId64
                                      " AND utid NOT IN (SELECT utid FROM thread WHERE is_idle)",
                                      cpu));
    for (size_t i = 0; i < t->lines[0].n; i++) { /* read from the columns by row */
      uint32_t utid;
      const trak_ui_slice s = trak__ui_line_row(f->c, t, &t->lines[0], i, &utid);
      assert_int_equal(utid, sc_int(f->p, "SELECT utid FROM sched WHERE id = %" PRIu32, s.id));
      assert_int_equal(s.ts, sc_int(f->p, "SELECT ts FROM sched WHERE id = %" PRIu32, s.id));
      assert_int_equal(s.dur, sc_int(f->p, "SELECT dur FROM sched WHERE id = %" PRIu32, s.id));
      assert_int_equal(s.name, UINT32_MAX);
      if (i) assert_true(trak__ui_line_row(f->c, t, &t->lines[0], i - 1, NULL).ts <= s.ts);
    }
  }
  int64_t threads = sc_int(f->p, "SELECT count(DISTINCT utid) FROM thread_state"), seen = 0;
  for (size_t i = 0; i < f->c->n_tracks; i++) {
    const trak_ui_track *t = &f->c->tracks[i];
    if (t->kind != TRAK_UI_STATE) continue;
    seen++;
    assert_int_equal(
        t->count, sc_int(f->p, "SELECT count(*) FROM thread_state WHERE utid = %" PRId64, t->key));
    for (size_t k = 0; k < t->lines[0].n; k++) {
      uint32_t aux;
      const trak_ui_slice s = trak__ui_line_row(f->c, t, &t->lines[0], k, &aux);
      assert_int_equal(
          TRAK_UI_STATE_CPU(aux),
          sc_int(f->p, "SELECT coalesce(cpu, -1) FROM thread_state WHERE id = %" PRIu32, s.id));
      assert_int_equal(
          TRAK_UI_STATE_IO(aux),
          sc_int(f->p, "SELECT coalesce(io_wait, -1) FROM thread_state WHERE id = %" PRIu32, s.id));
      assert_int_equal(s.ts, sc_int(f->p, "SELECT ts FROM thread_state WHERE id = %" PRIu32, s.id));
      assert_int_equal(s.dur,
                       sc_int(f->p, "SELECT dur FROM thread_state WHERE id = %" PRIu32, s.id));
      assert_int_equal(
          s.name == UINT32_MAX ? 0 : 1,
          sc_int(f->p, "SELECT state IS NOT NULL FROM thread_state WHERE id = %" PRIu32, s.id));
      if (s.name != UINT32_MAX)
        assert_int_equal(1,
                         sc_int(f->p, "SELECT state = '%s' FROM thread_state WHERE id = %" PRIu32,
                                trak__ui_cache_name(f->c, s.name), s.id));
    }
  }
  assert_int_equal(seen, threads);
  trak_ui_buf out = {0};
  trak_error err = {0};
  assert_int_equal(trak__ui_tracks(f->p, f->c, &out, &err), 0);
  char want[64];
  const trak_ui_track *cpu1 = system_track(f->c, TRAK_UI_CPU, 1);
  snprintf(want, sizeof want, "\"cpus\":[[%" PRId64 ",0,", system_track(f->c, TRAK_UI_CPU, 0)->id);
  assert_non_null(strstr(out.s, want));
  snprintf(want, sizeof want, "[%" PRId64 ",1,%" PRId64 "]", cpu1->id, cpu1->count);
  assert_non_null(strstr(out.s, want));
  assert_non_null(strstr(out.s, "\"cpu_counters\":[[0,0],"));
  trak__ui_buf_free(&out);
}

/* Asserts that every CPU and thread-state line of `c` is sorted by time and has a max_end exactly
** when its ends are not nondecreasing, the running latest end; returns the lines with one. */
static int lines_in_order(const trak_ui_cache *c) {
  int with_max_end = 0;
  for (size_t k = 0; k < c->n_tracks; k++) {
    const trak_ui_track *t = &c->tracks[k];
    if ((t->kind != TRAK_UI_CPU && t->kind != TRAK_UI_STATE) || !t->n_lines) continue;
    const trak_ui_line *l = &t->lines[0];
    int64_t ts = INT64_MIN, last = INT64_MIN, latest = INT64_MIN;
    int monotonic = 1;
    for (size_t i = 0; i < l->n; i++) {
      const trak_ui_slice s = trak__ui_line_row(c, t, l, i, NULL);
      int64_t end = trak__ui_slice_end(&s);
      assert_true(s.ts >= ts);
      monotonic &= end >= last;
      ts = s.ts, last = end, latest = end > latest ? end : latest;
      if (l->max_end) assert_int_equal(l->max_end[i], latest);
    }
    assert_int_equal(l->max_end == NULL, monotonic);
    with_max_end += l->max_end != NULL;
  }
  return with_max_end;
}

/* Row `k` (by id) of thread `utid`'s states. */
static uint32_t state_row(fixture *f, int64_t utid, int k) {
  return (uint32_t)sc_int(
      f->p, "SELECT id FROM thread_state WHERE utid = %" PRId64 " ORDER BY id LIMIT 1 OFFSET %d",
      utid, k);
}

/* Swaps the ts and dur of thread_state rows `a` and `b` (the same intervals in another order). */
static void swap_state_times(trak_tables *tb, uint32_t a, uint32_t b) {
  int64_t ts = tb->thread_state.ts[a], dur = trak__ts_dur(tb, a);
  tb->thread_state.ts[a] = tb->thread_state.ts[b];
  trak__ts_dur_set(tb, a, trak__ts_dur(tb, b));
  tb->thread_state.ts[b] = ts;
  trak__ts_dur_set(tb, b, dur);
}

/* The CPU and thread-state lines are read back only when their rows came out of order: on the
** trace (rows in time order, ends nondecreasing) none has a max_end; with a thread's early state
** made endless (its ends go back) and two of another's states' times swapped (its rows out of
** order), a cache made again gives the first a max_end and sorts the second's rows. */
static void lines_sorted_with_max_end_where_needed(void **state) {
  fixture *f = *state;
  assert_int_equal(lines_in_order(f->c), 0);
  trak_tables *tb = &f->p->tables;
  uint32_t open = state_row(f, 1, 1), a = state_row(f, 2, 1), b = state_row(f, 2, 2);
  int64_t dur = trak__ts_dur(tb, open);
  assert_true(dur >= 0 && tb->thread_state.ts[a] < tb->thread_state.ts[b]);
  trak__ts_dur_set(tb, open, -1);
  swap_state_times(tb, a, b);
  trak_ui_cache *c;
  trak_error err = {0};
  assert_int_equal(trak__ui_cache_new(f->p, &c, &err), 0);
  assert_int_equal(lines_in_order(c), 1);
  const trak_ui_line *l = &system_track(c, TRAK_UI_STATE, 2)->lines[0];
  assert_int_equal(l->rows[1], b);
  assert_int_equal(l->rows[2], a);
  assert_non_null(system_track(c, TRAK_UI_STATE, 1)->lines[0].max_end);
  trak__ui_cache_free(c);
  trak__ts_dur_set(tb, open, dur);
  swap_state_times(tb, a, b);
}

/* The entries of a system track at a coarse resolution stand for every row meeting the range. */
static void summaries_count_every_row(void **state) {
  fixture *f = *state;
  const trak_ui_track *t = system_track(f->c, TRAK_UI_STATE, 1);
  trak_ui_range r = {f->c->start + 20000000, f->c->start + 120000000, 1000000};
  trak_ui_buf out = {0};
  trak_error err = {0};
  assert_int_equal(trak__ui_slices(f->c, &t->id, 1, &r, &out, &err), 0);
  int64_t total = 0, n = 0;
  for (const char *e = strstr(out.s, "[0,"); e; e = strstr(e + 1, "[0,")) {
    int64_t ts, dur, id, count;
    char name[16];
    assert_int_equal(sscanf(e, "[0,%" SCNd64 ",%" SCNd64 ",%" SCNd64 ",\"%15[^\"]\",%" SCNd64, &ts,
                            &dur, &id, name, &count),
                     5);
    total += count, n++;
  }
  assert_true(n > 10);
  assert_int_equal(total, sc_int(f->p,
                                 "SELECT count(*) FROM thread_state WHERE utid = 1 AND ts <= "
                                 "%" PRId64 " AND (dur < 0 OR ts + dur >= %" PRId64 ")",
                                 r.end, r.start));
  trak__ui_buf_free(&out);
}

/* A process's scheduling (trak__ui_sched_slices): at a coarse resolution each CPU's entries are
** slices of the process's threads only and stand for every one of its rows meeting the range. */
static void process_sched_counts_its_rows(void **state) {
  fixture *f = *state;
  int64_t upid = sc_int(f->p, "SELECT upid FROM thread t JOIN sched s USING (utid) "
                              "GROUP BY upid ORDER BY count(DISTINCT utid) DESC, upid LIMIT 1");
  int64_t utids[8];
  size_t n_utids = 0;
  for (int64_t u = 0; u < 64 && n_utids < 8; u++)
    if (sc_int(f->p, "SELECT count(*) FROM thread WHERE utid = %" PRId64 " AND upid = %" PRId64, u,
               upid))
      utids[n_utids++] = u;
  assert_true(n_utids >= 2);
  const int64_t cpus[] = {system_track(f->c, TRAK_UI_CPU, 1)->id,
                          system_track(f->c, TRAK_UI_CPU, 0)->id};
  trak_ui_range r = {f->c->start + 20000000, f->c->start + 120000000, 1000000};
  trak_ui_buf out = {0};
  trak_error err = {0};
  assert_int_equal(trak__ui_sched_slices(f->c, cpus, 2, utids, n_utids, &r, &out, &err), 0);
  for (int k = 0; k < 2; k++) {
    char key[32];
    snprintf(key, sizeof key, "\"%" PRId64 "\":[", cpus[k]);
    const char *e = strstr(out.s, key), *stop = strstr(e, "]]");
    int64_t total = 0;
    for (e = strstr(e, "[0,"); e && e < stop; e = strstr(e + 1, "[0,")) {
      int64_t ts, dur, id, count, utid;
      assert_int_equal(sscanf(e, "[0,%" SCNd64 ",%" SCNd64 ",%" SCNd64 ",null,%" SCNd64 ",%" SCNd64,
                              &ts, &dur, &id, &count, &utid),
                       5);
      assert_int_equal(sc_int(f->p, "SELECT upid FROM thread WHERE utid = %" PRId64, utid), upid);
      total += count;
    }
    assert_true(total > 0);
    assert_int_equal(total, sc_int(f->p,
                                   "SELECT count(*) FROM sched s JOIN thread t USING (utid) "
                                   "WHERE t.upid = %" PRId64 " AND s.cpu = %d AND ts <= %" PRId64
                                   " AND (dur < 0 OR ts + dur >= %" PRId64 ")",
                                   upid, 1 - k, r.end, r.start));
  }
  trak__ui_buf_free(&out);
}

/* Time per state over two threads equals docs/ui.md's SQL; slices and the flame graph leave the
** system tracks out. */
static void state_sums_equal_sql(void **state) {
  fixture *f = *state;
  int64_t ids[3] = {system_track(f->c, TRAK_UI_STATE, 1)->id,
                    system_track(f->c, TRAK_UI_STATE, 2)->id,
                    system_track(f->c, TRAK_UI_CPU, 0)->id};
  trak_ui_range r = {f->c->start + 30000000, f->c->start + 90000000, 1};
  trak_ui_buf out = {0};
  trak_error err = {0};
  assert_int_equal(trak__ui_aggregate(f->c, ids, 3, &r, &out, &err), 0);
  assert_non_null(strstr(out.s, "\"slices\":[],\"counters\":[],\"thread_states\":[["));
  /* Each (state, io_wait) of the SQL is one row of the answer, D split into IO and not. */
  char sql[640];
  snprintf(sql, sizeof sql,
           "SELECT state, count(*), sum(min(CASE WHEN dur < 0 THEN %" PRId64
           " ELSE ts + dur END, %" PRId64 ") - max(ts, %" PRId64 ")), coalesce(io_wait, 'null') "
           "FROM thread_state WHERE utid IN (1, 2) AND ts < %" PRId64
           " AND (dur < 0 OR ts + dur > %" PRId64 ") GROUP BY state, io_wait",
           r.end, r.end, r.start, r.end, r.start);
  char *rows = strdup(sc_rows(f->p, sql));
  int n = 0, io_split = 0;
  for (char *line = strtok(rows, "\n"); line; line = strtok(NULL, "\n"), n++) {
    char st[16], io[8], want[96];
    int64_t count, total;
    assert_int_equal(sscanf(line, "%15[^|]|%" SCNd64 "|%" SCNd64 "|%7s", st, &count, &total, io),
                     4);
    snprintf(want, sizeof want, "[\"%s\",%" PRId64 ",%" PRId64 ",%s]", st, count, total, io);
    if (!strstr(out.s, want)) fail_msg("%s not in %s", want, out.s);
    io_split += !strcmp(st, "D") && strcmp(io, "null");
  }
  free(rows);
  assert_true(n >= 5);
  assert_int_equal(io_split, 2); /* D blocked on IO, and not */
  /* CPU 0's busy time in the range, clipped as the states are. */
  char want[96];
  snprintf(sql, sizeof sql,
           "SELECT count(*), sum(min(CASE WHEN dur < 0 THEN %" PRId64 " ELSE ts + dur END, %" PRId64
           ") - max(ts, %" PRId64 ")) FROM sched WHERE cpu = 0 AND utid NOT IN (SELECT utid "
           "FROM thread WHERE is_idle) AND ts < %" PRId64 " AND (dur < 0 OR ts + dur > %" PRId64
           ")",
           r.end, r.end, r.start, r.end, r.start);
  int64_t count, busy;
  assert_int_equal(sscanf(sc_rows(f->p, sql), "%" SCNd64 "|%" SCNd64, &count, &busy), 2);
  assert_true(count > 0);
  snprintf(want, sizeof want, "\"cpus\":[[0,%" PRId64 ",%" PRId64 "]]", count, busy);
  if (!strstr(out.s, want)) fail_msg("%s not in %s", want, out.s);
  trak__ui_buf_free(&out);
  assert_int_equal(trak__ui_flamegraph(f->c, ids, 3, &r, &out, &err), 0);
  assert_string_equal(out.s, "[]");
  trak__ui_buf_free(&out);
}

/* A woken state's details: the waker thread and its state, as thread_state has them; a CPU
** slice's: the wakeup before it. */
static void details_name_the_waker(void **state) {
  fixture *f = *state;
  int64_t id = sc_int(f->p, "SELECT id FROM thread_state WHERE waker_id IS NOT NULL LIMIT 1");
  int64_t waker_tid = sc_int(f->p,
                             "SELECT t.tid FROM thread_state s JOIN thread t ON t.utid = "
                             "s.waker_utid WHERE s.id = %" PRId64,
                             id);
  int64_t waker_id = sc_int(f->p, "SELECT waker_id FROM thread_state WHERE id = %" PRId64, id);
  trak_ui_buf out = {0};
  trak_error err = {0};
  assert_int_equal(trak__ui_row(f->p, "thread_state", id, &out, &err), 0);
  assert_non_null(strstr(out.s, "\"waker_tid\",\"waker_thread\""));
  char want[64];
  snprintf(want, sizeof want, ",%" PRId64 ",\"", waker_tid);
  assert_non_null(strstr(out.s, want));
  trak__ui_buf_free(&out);
  /* The Running state that follows carries the same wakeup. */
  int64_t running = sc_int(f->p,
                           "SELECT r.id FROM thread_state s JOIN thread_state r ON r.utid = "
                           "s.utid AND r.ts = s.ts + s.dur WHERE s.id = %" PRId64,
                           id);
  assert_int_equal(trak__ui_row(f->p, "thread_state", running, &out, &err), 0);
  snprintf(want, sizeof want, ",%" PRId64 ",", waker_id);
  assert_non_null(strstr(out.s, want));
  trak__ui_buf_free(&out);
  assert_int_equal(trak__ui_row(f->p, "sched", 0, &out, &err), 0);
  assert_non_null(strstr(out.s, "\"end_state\""));
  trak__ui_buf_free(&out);
  /* A CPU slice's wakeup (Perfetto's getSchedWakeupInfo): the runnable state ending as it starts,
  ** its waker's tid and the CPU of the waker's state; the latency is the slice's ts minus it. */
  int64_t sched = sc_int(f->p, "SELECT s.id FROM sched s JOIN thread_state w ON w.utid = s.utid "
                               "AND w.ts + w.dur = s.ts AND w.state = 'R' AND w.waker_id IS NOT "
                               "NULL ORDER BY s.id LIMIT 1");
  int64_t wakeup_ts = sc_int(f->p,
                             "SELECT w.ts FROM sched s JOIN thread_state w ON w.utid = s.utid AND "
                             "w.ts + w.dur = s.ts AND w.state = 'R' WHERE s.id = %" PRId64,
                             sched);
  int64_t waker_cpu = sc_int(f->p,
                             "SELECT ws.cpu FROM sched s JOIN thread_state w ON w.utid = s.utid "
                             "AND w.ts + w.dur = s.ts AND w.state = 'R' JOIN thread_state ws ON "
                             "ws.id = w.waker_id WHERE s.id = %" PRId64,
                             sched);
  assert_int_equal(trak__ui_row(f->p, "sched", sched, &out, &err), 0);
  assert_non_null(strstr(out.s, "\"wakeup_ts\",\"waker_utid\",\"waker_tid\""));
  snprintf(want, sizeof want, ",%" PRId64 ",", wakeup_ts);
  assert_non_null(strstr(out.s, want));
  snprintf(want, sizeof want, ",%" PRId64 "]]", waker_cpu);
  assert_non_null(strstr(out.s, want));
  trak__ui_buf_free(&out);
  assert_int_equal(trak__ui_row(f->p, "nope", 0, &out, &err), TRAK_EINVAL);
  trak__ui_buf_free(&out);
}

/* Checks the answer for `track` over the whole trace, one nanosecond a column (every sample its
** own entry [ts,min,max,last], min = max = last), against `expr` (a SQL value of `value`, `ts`)
** per counter row of the track. Returns the entries seen. */
static int check_track(fixture *f, int64_t track, const char *expr) {
  trak_ui_range r = {f->c->start, f->c->end, 1};
  trak_ui_buf out = {0};
  trak_error err = {0};
  assert_int_equal(trak__ui_counters(f->c, &track, 1, &r, &out, &err), 0);
  char head[64];
  snprintf(head, sizeof head, "{\"%" PRId64 "\":[", track);
  assert_int_equal(strncmp(out.s, head, strlen(head)), 0);
  const char *s = out.s + strlen(head);
  int n = 0;
  for (; *s == '[' || *s == ','; n++) {
    if (*s == ',') s++;
    char *e;
    int64_t ts = strtoll(s + 1, &e, 10);
    double mn = strtod(e + 1, &e), mx = strtod(e + 1, &e), last = strtod(e + 1, &e);
    assert_true(*e == ']');
    s = e + 1;
    assert_true(mn == mx && mx == last);
    double want = (double)sc_int(f->p,
                                 "SELECT CAST(v AS INT) FROM (SELECT ts, %s AS v FROM counter "
                                 "WHERE track_id = %" PRId64 ") WHERE ts = %" PRId64,
                                 expr, track, ts);
    if (last != want)
      fail_msg("track %" PRId64 " at %" PRId64 ": %g, the SQL %g", track, ts, last, want);
  }
  assert_int_equal(n,
                   sc_int(f->p, "SELECT count(*) FROM counter WHERE track_id = %" PRId64, track));
  trak__ui_buf_free(&out);
  return n;
}

/* Every cpustat track: the deltas of Perfetto's rule; the differences are not all zero, so the
** values themselves would not pass. */
static void cpustat_counters_are_deltas(void **state) {
  fixture *f = *state;
  int64_t tracks = sc_int(f->p, "SELECT count(*) FROM counter_track WHERE type = 'cpustat'");
  assert_true(tracks >= 4);
  for (int64_t i = 0; i < tracks; i++) {
    int64_t id = sc_int(f->p,
                        "SELECT id FROM counter_track WHERE type = 'cpustat' ORDER BY id "
                        "LIMIT 1 OFFSET %" PRId64,
                        i);
    assert_true(check_track(f, id, "LEAD(value, 1, value) OVER (ORDER BY ts) - value") > 1);
  }
  assert_true(sc_int(f->p, "SELECT count(*) FROM counter c JOIN counter_track t ON c.track_id = "
                           "t.id WHERE t.type = 'cpustat' AND c.value > 1000000") > 0);
}

/* The tracks answer lists the counter tracks answered as deltas, and no other: the cpustat
** tracks, in id order ("delta_tracks", what the page draws as deltas). */
static void tracks_answer_lists_the_delta_tracks(void **state) {
  fixture *f = *state;
  trak_ui_buf out = {0}, want = {0};
  trak_error err = {0};
  assert_int_equal(trak__ui_tracks(f->p, f->c, &out, &err), 0);
  int64_t n = sc_int(f->p, "SELECT count(*) FROM counter_track WHERE type = 'cpustat'");
  assert_true(n >= 4);
  trak__ui_puts(&want, "\"delta_tracks\":[");
  for (int64_t i = 0; i < n; i++)
    trak__ui_printf(&want, "%s%" PRId64, i ? "," : "",
                    sc_int(f->p,
                           "SELECT id FROM counter_track WHERE type = 'cpustat' ORDER BY id "
                           "LIMIT 1 OFFSET %" PRId64,
                           i));
  trak__ui_puts(&want, "]");
  if (!strstr(out.s, want.s)) fail_msg("%s not in %s", want.s, out.s);
  trak__ui_buf_free(&want);
  trak__ui_buf_free(&out);
}

/* A meminfo counter keeps its values. */
static void other_counters_keep_values(void **state) {
  fixture *f = *state;
  int64_t id = sc_int(f->p, "SELECT id FROM counter_track WHERE type = 'meminfo' AND name = "
                            "'MemFree'");
  assert_true(check_track(f, id, "value") > 1);
}

/* Asserts that counter track `id` holds more than `more_than` values, "ts|count" rows equal to
** `sql`'s; returns the track. */
static const trak_ui_track *values_equal_sql(fixture *f, int64_t id, size_t more_than,
                                             const char *sql) {
  const trak_ui_track *t = trak__ui_cache_track(f->c, id);
  assert_non_null(t);
  assert_true(t->n_values > more_than);
  trak_ui_buf got = {0};
  for (size_t i = 0; i < t->n_values; i++)
    trak__ui_printf(&got, "%s%" PRId64 "|%" PRId64, i ? "\n" : "", trak__ui_value_ts(t, i),
                    (int64_t)trak__ui_value(t, i));
  assert_string_equal(got.s, sc_rows(f->p, sql));
  trak__ui_buf_free(&got);
  return t;
}

/* The "ts|count" rows of each Scheduler counter's table of sched.thread_level_parallelism. */
static const char *const counts_sql[TRAK_UI_SCHED_COUNTS] = {
    "SELECT ts, active_cpu_count FROM sched_active_cpu_count",
    "SELECT ts, runnable_thread_count FROM sched_runnable_thread_count",
    "SELECT ts, uninterruptible_sleep_thread_count FROM "
    "sched_uninterruptible_sleep_thread_count"};

/* The Scheduler group's counters hold exactly the rows of sched.thread_level_parallelism's
** tables, one per distinct time, and are listed in the tracks answer by name. */
static void sched_counts_equal_sql(void **state) {
  fixture *f = *state;
  sc_rows(f->p, "INCLUDE PERFETTO MODULE sched.thread_level_parallelism");
  trak_ui_buf out = {0};
  trak_error err = {0};
  assert_int_equal(trak__ui_tracks(f->p, f->c, &out, &err), 0);
  for (int k = 0; k < TRAK_UI_SCHED_COUNTS; k++) {
    const trak_ui_track *t = values_equal_sql(f, f->c->sched_count[k], 10, counts_sql[k]);
    char want[96];
    snprintf(want, sizeof want, "[%" PRId64 ",\"%s\",%zu]", t->id, trak__ui_sched_count_names[k],
             t->n_values);
    if (!strstr(out.s, want)) fail_msg("%s not in the tracks answer", want);
  }
  trak__ui_buf_free(&out);
}

/* Swaps the ts and dur of sched rows `a` and `b` in the processor's columns (the same intervals,
** in another row order). */
static void swap_sched_times(fixture *f, uint32_t a, uint32_t b) {
  trak_tables *tb = &f->p->tables;
  int64_t ts = tb->sched_slice.ts[a], dur = tb->sched_slice.dur[a];
  tb->sched_slice.ts[a] = tb->sched_slice.ts[b], tb->sched_slice.dur[a] = tb->sched_slice.dur[b];
  tb->sched_slice.ts[b] = ts, tb->sched_slice.dur[b] = dur;
}

/* The active CPU count made again (ids past every track's: a new track) equals `sql`, held as counts (16 bits a
** value) or, `copies`, as the sorted copies' values. */
static void active_cpus_again(fixture *f, const char *sql, int copies) {
  int64_t first = (int64_t)f->c->index_len, saved[TRAK_UI_SCHED_COUNTS];
  memcpy(saved, f->c->sched_count, sizeof saved);
  assert_int_equal(trak__ui_sched_counts_load(f->c, first), 0);
  const trak_ui_track *t = values_equal_sql(f, first, 10, sql);
  if (copies)
    assert_non_null(t->values);
  else
    assert_null(t->values);
  memcpy(f->c->sched_count, saved, sizeof saved);
}

/* The counters are made in one pass over the sched_slice and thread_state columns when the rows
** are in time order there, whatever the tracks' lines (CPU 0's reversed here: the lines' merge
** would decline it); with the columns out of order (two of CPU 0's rows' times swapped, its line
** then out of order too) they are sorted from copies; and when the tracks do not hold the rows
** the pass reads (the last of CPU 0's left out of its line), merged from the lines, without that
** row. Each time the values equal the SQL's. */
static void sched_counts_from_columns_lines_or_copies(void **state) {
  fixture *f = *state;
  sc_rows(f->p, "INCLUDE PERFETTO MODULE sched.thread_level_parallelism");
  sc_rows(f->p, "INCLUDE PERFETTO MODULE intervals.overlap");
  const char *all = counts_sql[0];
  trak_ui_line *l = &system_track(f->c, TRAK_UI_CPU, 0)->lines[0];
  size_t n = l->n;
  assert_true(n > 10);
  for (size_t i = 0, j = n - 1; i < j; i++, j--) {
    uint32_t x = l->rows[i];
    l->rows[i] = l->rows[j], l->rows[j] = x;
  }
  active_cpus_again(f, all, 0); /* one pass over the columns */
  /* the line back in row order (the tracks may have moved) */
  l = &system_track(f->c, TRAK_UI_CPU, 0)->lines[0];
  for (size_t i = 0, j = n - 1; i < j; i++, j--) {
    uint32_t x = l->rows[i];
    l->rows[i] = l->rows[j], l->rows[j] = x;
  }
  uint32_t a = l->rows[1], b = l->rows[2], last = l->rows[n - 1];
  assert_true(f->p->tables.sched_slice.ts[a] < f->p->tables.sched_slice.ts[b]);
  swap_sched_times(f, a, b);
  active_cpus_again(f, all, 1); /* the columns and CPU 0's line out of order: copies */
  swap_sched_times(f, a, b);
  l = &system_track(f->c, TRAK_UI_CPU, 0)->lines[0];
  l->n--; /* the pass reads a row the tracks do not hold: merged from the lines */
  char sql[320];
  snprintf(sql, sizeof sql,
           "SELECT ts, value FROM intervals_overlap_count!((SELECT ts, dur FROM sched WHERE id != "
           "%" PRIu32 " AND utid NOT IN (SELECT utid FROM thread WHERE is_idle)), ts, dur) "
           "ORDER BY ts",
           last);
  active_cpus_again(f, sql, 0);
  l = &system_track(f->c, TRAK_UI_CPU, 0)->lines[0];
  l->n++;
}

/* On ui_sched_ties.systrace (starts and ends tied across CPUs and threads, a slice and an R of
** no length, CPU 3 only idle, a thread woken that never runs, one left in D, slices running at
** the end) the counters, made in one pass over the columns, hold Perfetto's values (those of
** trace_processor_shell v58.2, written down) and the SQL's. */
static void sched_counts_ties_equal_perfetto(void **state) {
  fixture *f = *state;
  static const char *const want[TRAK_UI_SCHED_COUNTS] = {
      "1000010000|2\n1000030000|3\n1000040000|2\n1000050000|2\n1000070000|2\n1000080000|1",
      "1000000000|2\n1000010000|0\n1000019999|2\n1000030000|2\n1000040000|1\n1000050000|1\n"
      "1000060000|2\n1000070000|1",
      "1000040000|1\n1000050000|2\n1000060000|1"};
  sc_rows(f->p, "INCLUDE PERFETTO MODULE sched.thread_level_parallelism");
  for (int k = 0; k < TRAK_UI_SCHED_COUNTS; k++) {
    assert_string_equal(sc_rows(f->p, counts_sql[k]), want[k]);
    assert_null(values_equal_sql(f, f->c->sched_count[k], 2, counts_sql[k])->values);
  }
}

/* CPU by thread over both CPUs: per thread, the slices meeting the range and their time in it,
** most first, equal to docs/ui.md's SQL. */
static void cpu_threads_equal_sql(void **state) {
  fixture *f = *state;
  int64_t ids[2] = {system_track(f->c, TRAK_UI_CPU, 0)->id, system_track(f->c, TRAK_UI_CPU, 1)->id};
  trak_ui_range r = {f->c->start + 30000000, f->c->start + 90000000, 1};
  trak_ui_buf out = {0};
  trak_error err = {0};
  assert_int_equal(trak__ui_aggregate(f->c, ids, 2, &r, &out, &err), 0);
  char sql[640];
  snprintf(sql, sizeof sql,
           "SELECT '[' || utid || ',' || count(*) || ',' || sum(min(CASE WHEN dur < 0 THEN "
           "%" PRId64 " ELSE ts + dur END, %" PRId64 ") - max(ts, %" PRId64 ")) || ']' AS e "
           "FROM sched WHERE cpu IN (0, 1) AND utid NOT IN (SELECT utid FROM thread WHERE "
           "is_idle) AND ts < %" PRId64 " AND (dur < 0 OR ts + dur > %" PRId64 ") GROUP BY utid "
           "ORDER BY sum(min(CASE WHEN dur < 0 THEN %" PRId64 " ELSE ts + dur END, %" PRId64
           ") - max(ts, %" PRId64 ")) DESC, utid",
           r.end, r.end, r.start, r.end, r.start, r.end, r.end, r.start);
  trak_ui_buf want = {0};
  trak__ui_puts(&want, "\"cpu_threads\":[");
  char *rows = strdup(sc_rows(f->p, sql));
  int n = 0;
  for (char *line = strtok(rows, "\n"); line; line = strtok(NULL, "\n"), n++)
    trak__ui_printf(&want, "%s%s", n ? "," : "", line);
  free(rows);
  trak__ui_puts(&want, "]}");
  assert_true(n >= 3);
  if (!strstr(out.s, want.s)) fail_msg("%s not in %s", want.s, out.s);
  trak__ui_buf_free(&want);
  trak__ui_buf_free(&out);
}

/* The active CPU count of each CPU type: on ui_big_little's two clusters (little, big: Perfetto's
** android_cpu_cluster_mapping for two) each holds exactly the rows of intervals_overlap_count!
** over the non-idle sched rows of its cluster's CPUs (Perfetto's
** _active_cpu_count_for_cluster_type), none is medium, and the tracks answer lists both with
** the active CPU count as their parent. */
static void active_cpus_per_type_equal_sql(void **state) {
  fixture *f = *state;
  sc_rows(f->p, "INCLUDE PERFETTO MODULE intervals.overlap");
  assert_int_equal(sc_int(f->p, "SELECT count(DISTINCT cluster_id) FROM cpu"), 2);
  trak_ui_buf out = {0};
  trak_error err = {0};
  assert_int_equal(trak__ui_tracks(f->p, f->c, &out, &err), 0);
  assert_int_equal(f->c->cpu_type_count[1], -1);
  for (int k = 0; k < TRAK_UI_CPU_TYPES; k += 2) {
    char sql[400];
    snprintf(sql, sizeof sql,
             "SELECT ts, value FROM intervals_overlap_count!((SELECT ts, dur FROM sched WHERE "
             "ucpu IN (SELECT id FROM cpu WHERE cluster_id = %d) AND utid NOT IN (SELECT utid "
             "FROM thread WHERE is_idle)), ts, dur) ORDER BY ts",
             k / 2);
    const trak_ui_track *t = values_equal_sql(f, f->c->cpu_type_count[k], 20, sql);
    char want[128];
    snprintf(want, sizeof want, "[%" PRId64 ",\"%s\",%zu,%" PRId64 "]", t->id,
             trak__ui_cpu_type_count_names[k], t->n_values, f->c->sched_count[0]);
    if (!strstr(out.s, want)) fail_msg("%s not in the tracks answer", want);
  }
  trak__ui_buf_free(&out);
}

/* On CPUs of one type (ui_sched.systrace) there is no track per type: the active CPU count is
** that type's. */
static void one_cpu_type_no_track_per_type(void **state) {
  fixture *f = *state;
  for (int k = 0; k < TRAK_UI_CPU_TYPES; k++)
    assert_int_equal(f->c->cpu_type_count[k], -1);
  assert_non_null(trak__ui_cache_track(f->c, f->c->sched_count[0]));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(tracks_hold_the_rows),
      cmocka_unit_test(lines_sorted_with_max_end_where_needed),
      cmocka_unit_test(summaries_count_every_row),
      cmocka_unit_test(process_sched_counts_its_rows),
      cmocka_unit_test(state_sums_equal_sql),
      cmocka_unit_test(details_name_the_waker),
      cmocka_unit_test(sched_counts_equal_sql),
      cmocka_unit_test(sched_counts_from_columns_lines_or_copies),
      cmocka_unit_test(cpu_threads_equal_sql),
      cmocka_unit_test(one_cpu_type_no_track_per_type),
      cmocka_unit_test_setup_teardown(sched_counts_ties_equal_perfetto, setup_ties, teardown),
      cmocka_unit_test_setup_teardown(active_cpus_per_type_equal_sql, setup_big_little, teardown),
      cmocka_unit_test_setup_teardown(cpustat_counters_are_deltas, setup_stats, teardown),
      cmocka_unit_test_setup_teardown(other_counters_keep_values, setup_stats, teardown),
      cmocka_unit_test_setup_teardown(tracks_answer_lists_the_delta_tracks, setup_stats, teardown),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
