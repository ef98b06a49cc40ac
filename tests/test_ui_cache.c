/*
** Tests of the viewer's cache (src/ui/cache.c), read from the processor's columns directly: each
** track's lines hold exactly the slice table's rows of that track and depth (id, ts, dur, name,
** whether parent_id is set), in time order; each counter track the counter rows; the flows the
** rows of the SQL join they stand for, in the same order. (That the flame graph is the same
** from the columns and from the lines is in test_ui_flamegraph.c.) A screen answered from the
** columns (scan.c) is the same as from the lines. The minimap's density (density.c)
** equals the SQL's counts.
*/
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sqlcheck.h"
#include "ui/cache.h"
#include "ui/ui.h"

/* Two threads with nested slices (one that never ends, one instant, one child sharing its
** parent's start), a third with slices of equal durations side by side, overlapping async
** slices, counters and a flow. */
static const char TRACE[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":100,\"pid\":1,\"tid\":1,\"id\":1,"
    "\"bind_id\":\"0x1\",\"flow_out\":true},"
    "{\"ph\":\"X\",\"name\":\"b\",\"ts\":0,\"dur\":40,\"pid\":1,\"tid\":1},"
    "{\"ph\":\"X\",\"name\":\"c\",\"ts\":10,\"dur\":20,\"pid\":1,\"tid\":1},"
    "{\"ph\":\"i\",\"name\":\"mark\",\"ts\":15,\"pid\":1,\"tid\":1,\"s\":\"t\"},"
    "{\"ph\":\"X\",\"name\":\"b\",\"ts\":50,\"dur\":30,\"pid\":1,\"tid\":1},"
    "{\"ph\":\"X\",\"name\":\"w\",\"ts\":120,\"dur\":30,\"pid\":1,\"tid\":2,"
    "\"bind_id\":\"0x1\",\"flow_in\":true},"
    "{\"ph\":\"X\",\"name\":\"x\",\"ts\":125,\"dur\":5,\"pid\":1,\"tid\":2},"
    "{\"ph\":\"B\",\"name\":\"open\",\"ts\":200,\"pid\":1,\"tid\":2},"
    "{\"ph\":\"X\",\"name\":\"p\",\"ts\":300,\"dur\":5,\"pid\":1,\"tid\":3},"
    "{\"ph\":\"X\",\"name\":\"q\",\"ts\":306,\"dur\":5,\"pid\":1,\"tid\":3},"
    "{\"ph\":\"X\",\"name\":\"r\",\"ts\":312,\"dur\":2,\"pid\":1,\"tid\":3},"
    "{\"ph\":\"b\",\"cat\":\"r\",\"name\":\"req\",\"id\":\"7\",\"ts\":5,\"pid\":1},"
    "{\"ph\":\"b\",\"cat\":\"r\",\"name\":\"req\",\"id\":\"8\",\"ts\":8,\"pid\":1},"
    "{\"ph\":\"e\",\"cat\":\"r\",\"name\":\"req\",\"id\":\"7\",\"ts\":60,\"pid\":1},"
    "{\"ph\":\"e\",\"cat\":\"r\",\"name\":\"req\",\"id\":\"8\",\"ts\":90,\"pid\":1},"
    "{\"ph\":\"C\",\"name\":\"mem\",\"ts\":0,\"pid\":1,\"args\":{\"v\":3}},"
    "{\"ph\":\"C\",\"name\":\"mem\",\"ts\":70,\"pid\":1,\"args\":{\"v\":2.5}},"
    "{\"ph\":\"C\",\"name\":\"mem\",\"ts\":140,\"pid\":1,\"args\":{\"v\":9}}"
    "]}";

/* The cache's rows of line `l` as sc_rows prints "id|ts|dur|name|has_parent" rows. */
static char *line_rows(const trak_ui_cache *c, const trak_ui_track *tr, size_t d) {
  const trak_ui_line *l = &tr->lines[d];
  trak_ui_buf b = {0};
  for (size_t i = 0; i < l->n; i++) {
    const trak_ui_slice *s = &l->v[i];
    const char *name = trak__ui_cache_name(c, s->name);
    trak__ui_printf(&b, "%s%" PRIu32 "|%" PRId64 "|%" PRId64 "|%s|%d", i ? "\n" : "", s->id, s->ts,
                    s->dur, name ? name : "NULL", trak__ui_has_parent(c, tr, d, s));
  }
  assert_false(b.oom);
  return b.s ? b.s : strdup("");
}

/* A cache of `p` whose slice lines are filled (every slice track's). */
static trak_ui_cache *cache_with_lines(trak_processor *p) {
  trak_ui_cache *c;
  trak_error err = {0};
  assert_int_equal(trak__ui_cache_new(p, &c, &err), 0);
  assert_int_equal(trak__ui_lines_need(c, NULL, 0), 0);
  for (size_t t = 0; t < c->n_tracks; t++)
    assert_true(c->tracks[t].kind != TRAK_UI_SLICES || !c->tracks[t].n_lines ||
                c->tracks[t].filled);
  return c;
}

static void slices_equal_the_table(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  trak_ui_cache *c = cache_with_lines(p);
  size_t lines = 0, rows = 0;
  for (size_t t = 0; t < c->n_tracks; t++) {
    const trak_ui_track *tr = &c->tracks[t];
    for (size_t d = 0; d < tr->n_lines; d++) {
      char sql[200];
      snprintf(sql, sizeof sql,
               "SELECT id, ts, dur, name, parent_id IS NOT NULL FROM slice WHERE track_id = "
               "%" PRId64 " AND depth = %zu ORDER BY ts, id",
               tr->id, d);
      char *got = line_rows(c, tr, d);
      assert_string_equal(got, sc_rows(p, sql));
      free(got);
      lines += tr->lines[d].n > 0;
      rows += tr->lines[d].n;
    }
  }
  assert_int_equal(rows, sc_int(p, "SELECT count(*) FROM slice"));
  assert_int_equal(lines, sc_int(p, "SELECT count(*) FROM (SELECT DISTINCT track_id, depth "
                                    "FROM slice)"));
  assert_int_equal(sc_int(p, "SELECT dur FROM slice WHERE name = 'open'"), -1);
  assert_int_equal(c->start, 0);
  assert_int_equal(c->end, sc_int(p, "SELECT max(max(ts + dur), max(ts)) FROM slice"));
  trak__ui_cache_free(c);
  trak_processor_free(p);
}

static void counters_and_flows_equal_the_sql(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  trak_ui_cache *c = cache_with_lines(p);
  int64_t track = sc_int(p, "SELECT DISTINCT track_id FROM counter");
  const trak_ui_track *t = trak__ui_cache_track(c, track);
  assert_non_null(t);
  trak_ui_buf b = {0};
  for (size_t i = 0; i < t->n_values; i++)
    trak__ui_printf(&b, "%s%" PRId64 "|%g", i ? "\n" : "", t->values[i].ts, t->values[i].value);
  assert_string_equal(b.s, sc_rows(p, "SELECT ts, printf('%g', value) FROM counter ORDER BY ts"));
  assert_int_equal(t->count, 3);
  trak__ui_buf_free(&b);
  for (size_t i = 0; i < c->n_flows; i++)
    for (int k = 0; k < 10; k++)
      trak__ui_printf(&b, "%s%" PRId64, k ? "|" : i ? "\n" : "", c->flows[i].v[k]);
  assert_true(c->n_flows > 0);
  assert_string_equal(b.s, sc_rows(p, "SELECT o.id, o.track_id, o.ts, o.dur, o.depth, i.id, "
                                      "i.track_id, i.ts, i.dur, i.depth FROM flow f JOIN slice o "
                                      "ON o.id = f.slice_out JOIN slice i ON i.id = f.slice_in "
                                      "ORDER BY o.ts, f.id"));
  trak__ui_buf_free(&b);
  trak__ui_cache_free(c);
  trak_processor_free(p);
}

/* A cache's lines asked for from two threads at once (two answers the columns decline) are
** filled once, under the lock: each track's lines hold its rows (the sanitizers' runs check
** that it races and leaks nothing); a cache freed unfilled frees what it counted. */
static void *need_all(void *c) {
  return (void *)(intptr_t)trak__ui_lines_need(c, NULL, 0);
}

static void lines_filled_once(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  trak_ui_cache *c;
  trak_error err = {0};
  assert_int_equal(trak__ui_cache_new(p, &c, &err), 0);
  assert_true(c->n_tracks > 0);
  trak__ui_cache_free(c); /* unfilled */
  assert_int_equal(trak__ui_cache_new(p, &c, &err), 0);
  pthread_t other;
  assert_int_equal(pthread_create(&other, NULL, need_all, c), 0);
  assert_int_equal(trak__ui_lines_need(c, NULL, 0), 0);
  void *rc;
  pthread_join(other, &rc);
  assert_int_equal((intptr_t)rc, 0);
  size_t slices = 0;
  for (size_t t = 0; t < c->n_tracks; t++)
    for (size_t d = 0; c->tracks[t].kind == TRAK_UI_SLICES && d < c->tracks[t].n_lines; d++) {
      assert_int_equal(c->tracks[t].lines[d].n, c->tracks[t].lines[d].cap);
      slices += c->tracks[t].lines[d].n;
    }
  assert_int_equal(slices, sc_int(p, "SELECT count(*) FROM slice"));
  trak__ui_cache_free(c);
  trak_processor_free(p);
}

/* An answer of the cache's (trak__ui_slices, trak__ui_aggregate) for tracks over a range. */
typedef int (*answer_fn)(const trak_ui_cache *, const int64_t *, size_t, const trak_ui_range *,
                         trak_ui_buf *, trak_error *);

/* Asks `fn` over each of `ranges` for every track of `c` (one of them twice, and one that does
** not exist) with the lines filled, then of a fresh cache of `p` (none filled: from the
** columns), and asserts that both answers are the same. Returns how many of the answers hold `needle` and not
** `unless` (NULL: anything). */
static int same_before_the_lines(trak_processor *p, trak_ui_cache *c, answer_fn fn,
                                 const trak_ui_range *ranges, size_t n_ranges, const char *needle,
                                 const char *unless) {
  trak_error err = {0};
  int64_t tracks[64];
  size_t n = 0;
  for (size_t t = 0; t < c->n_tracks && n < 60; t++)
    tracks[n++] = c->tracks[t].id;
  tracks[n++] = tracks[0]; /* asked for twice */
  tracks[n++] = 99999;     /* no such track */
  int found = 0;
  trak_ui_cache *fresh; /* no lines filled: the columns answer */
  assert_int_equal(trak__ui_cache_new(p, &fresh, &err), 0);
  for (size_t k = 0; k < n_ranges; k++) {
    trak_ui_buf lines = {0}, scan = {0};
    assert_int_equal(fn(c, tracks, n, &ranges[k], &lines, &err), 0);
    assert_int_equal(fn(fresh, tracks, n, &ranges[k], &scan, &err), 0);
    assert_string_equal(scan.s, lines.s);
    found += strstr(lines.s, needle) && !(unless && strstr(lines.s, unless));
    trak__ui_buf_free(&lines);
    trak__ui_buf_free(&scan);
  }
  trak__ui_cache_free(fresh);
  return found;
}

/* A screen's slices asked for of a cache with no lines filled (scan.c, from the columns) are
** the same answer as from the lines, over ranges that begin inside slices, cut
** them, hold several per pixel column (equal durations, one that never ended) or none. */
static void screens_before_the_lines_equal_the_lines(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  trak_ui_cache *c = cache_with_lines(p);
  const trak_ui_range ranges[] = {/* in ns: the trace's times are in us */
                                  {c->start, c->end, 1},     {c->start, c->end, 7000},
                                  {12000, 130000, 3000},     {55000, 56000, 1},
                                  {300000, 320000, 10000},   {301000, 400000, 50000},
                                  {c->start, c->end, 10000}, {500000, 600000, 1}};
  /* p and q in one column: the first of equal durations stands */
  assert_true(same_before_the_lines(p, c, trak__ui_slices, ranges, sizeof ranges / sizeof *ranges,
                                    "\"p\"", "\"q\"") >= 2);
  trak__ui_cache_free(c);
  trak_processor_free(p);
}

/* The area selection's aggregates asked for with no lines filled (slices by name from
** the columns, scan.c) are the same answer as from the lines, over ranges that cut slices and
** their children. */
static void aggregates_before_the_lines_equal_the_lines(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  trak_ui_cache *c = cache_with_lines(p);
  const trak_ui_range ranges[] = {
      {c->start, c->end, 1}, {12000, 130000, 1},  {55000, 56000, 1}, {0, 0, 1},
      {15000, 15000, 1},     {300000, 320000, 1}, {-5, 9000, 1},     {500000, 600000, 1}};
  /* a, on the track asked for twice, counted twice as from the lines */
  assert_true(same_before_the_lines(p, c, trak__ui_aggregate, ranges,
                                    sizeof ranges / sizeof *ranges, "[\"a\",2,", NULL) >= 1);
  trak__ui_cache_free(c);
  trak_processor_free(p);
}

/* trak__ui_col, the column of a time without a division, is the division's answer: times near
** column boundaries, large spans and widths, the limits of int64. */
static void columns_equal_the_division(void **state) {
  (void)state;
  const int64_t starts[] = {0, -5, 1000, INT64_MIN, INT64_MIN / 3, (int64_t)1 << 52};
  const int64_t pxs[] = {1, 3, 7, 1000, 1234567, (int64_t)1 << 40, INT64_MAX / 1200, INT64_MAX};
  uint64_t seed = 12345;
  for (size_t a = 0; a < sizeof starts / sizeof *starts; a++)
    for (size_t b = 0; b < sizeof pxs / sizeof *pxs; b++) {
      trak_ui_cols k = trak__ui_cols_of(starts[a], pxs[b]);
      for (int i = 0; i < 20000; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        uint64_t d = seed >> (seed & 63); /* every magnitude */
        if (i % 3 == 0) d = (d % 5000) * (uint64_t)pxs[b] + (uint64_t)(i % 3) - 1; /* a boundary */
        if (i % 3 == 1) d = (d % 5000) * (uint64_t)pxs[b];
        if (d > (uint64_t)INT64_MAX - (uint64_t)starts[a] && starts[a] >= 0) continue;
        int64_t ts = (int64_t)((uint64_t)starts[a] + d);
        if (ts < starts[a]) continue;
        assert_int_equal(trak__ui_col(&k, ts),
                         ((uint64_t)ts - (uint64_t)starts[a]) / (uint64_t)pxs[b]);
      }
    }
}

/* The minimap's density (density.c) of range `r` as the SQL counts it, bucket by bucket:
** "[n0,n1,...]". */
static char *density_by_sql(trak_processor *p, const trak_ui_range *r) {
  uint64_t n = ((uint64_t)r->end - (uint64_t)r->start) / (uint64_t)r->px + 1;
  trak_ui_buf b = {0};
  trak__ui_put(&b, "[", 1);
  for (uint64_t j = 0; j < n; j++) {
    int64_t lo = (int64_t)((uint64_t)r->start + j * (uint64_t)r->px);
    int64_t hi = j + 1 < n ? (int64_t)((uint64_t)lo + (uint64_t)r->px - 1) : r->end;
    char sql[300];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM (SELECT ts FROM slice UNION ALL SELECT ts FROM sched WHERE "
             "utid NOT IN (SELECT utid FROM thread WHERE is_idle)) WHERE ts BETWEEN %" PRId64
             " AND %" PRId64,
             lo, hi);
    trak__ui_printf(&b, "%s%" PRId64, j ? "," : "", sc_int(p, sql));
  }
  trak__ui_put(&b, "]", 1);
  assert_false(b.oom);
  return b.s;
}

/* The minimap's density equals the SQL's counts per bucket, by binary search (the slice table
** in time order) and by a pass (the cache told it is not), over ranges that cut the trace
** anywhere, the widest there is among them; a range of too many buckets is refused. */
static void density_equals_the_sql(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  trak_ui_cache *c = cache_with_lines(p);
  assert_true(c->slices_by_ts);
  const trak_ui_range ranges[] = {{0, 350000, 1000},
                                  {0, 350000, 7001},
                                  {10000, 125000, 10000},
                                  {-5000, 400000, 99},
                                  {8000, 8000, 1},
                                  {15000, 15001, 2},
                                  {c->start, c->end, (c->end - c->start) / 1000 + 1},
                                  {INT64_MIN, INT64_MAX, INT64_MAX}};
  for (int pass = 0; pass < 2; pass++) {
    c->slices_by_ts = !pass;
    for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++) {
      trak_ui_buf out = {0};
      trak_error err = {0};
      assert_int_equal(trak__ui_density(c, &ranges[i], &out, &err), 0);
      char *want = density_by_sql(p, &ranges[i]);
      assert_string_equal(out.s, want);
      free(want);
      trak__ui_buf_free(&out);
    }
  }
  trak_ui_buf out = {0};
  trak_error err = {0};
  const trak_ui_range wide = {0, 1000000, 1};
  assert_int_equal(trak__ui_density(c, &wide, &out, &err), TRAK_EINVAL);
  trak__ui_buf_free(&out);
  trak__ui_cache_free(c);
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(slices_equal_the_table),
      cmocka_unit_test(counters_and_flows_equal_the_sql),
      cmocka_unit_test(lines_filled_once),
      cmocka_unit_test(screens_before_the_lines_equal_the_lines),
      cmocka_unit_test(aggregates_before_the_lines_equal_the_lines),
      cmocka_unit_test(columns_equal_the_division),
      cmocka_unit_test(density_equals_the_sql),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
