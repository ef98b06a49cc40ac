/*
** Tests of the area selection's flame graph (src/ui/aggregate.c) on a selection with more name
** stacks than it answers (20,000): the nodes answered are exactly the stacks whose total is at
** least the 20,000th largest, as the recursive SQL of docs/ui.md finds them, so the pruning of
** subtrees under that bound (depth by depth) loses nothing it should answer; and the two ways
** of answering (summing into the cache's name-stack tree, merging slice by slice when a track's
** stacks are not exact or the tree is not built yet) give the same nodes.
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
#include "ui/cache.h"
#include "ui/ui.h"

#define ROOTS 12000

/* ROOTS root slices of 50 names on two threads, each with four children whose (root, child)
** name pairs make 40,000 stacks of varied totals, each child with a grandchild "g" a little
** shorter: more than 20,000 stacks after depth 1, so that depth 2 is merged under a bound, and
** grandchildren whose totals are among the largest under parents near that bound. */
static char *make_trace(void) {
  trak_ui_buf b = {0};
  trak__ui_puts(&b, "{\"traceEvents\":[\n");
  for (int i = 0; i < ROOTS; i++) {
    int tid = 1 + i % 2, ts = (i / 2) * 200;
    trak__ui_printf(&b,
                    "{\"ph\":\"X\",\"name\":\"r%d\",\"ts\":%d,\"dur\":190,\"pid\":1,\"tid\":%d},\n",
                    i % 50, ts, tid);
    for (int j = 0; j < 4; j++) {
      int k = i * 4 + j, dur = 5 + (i * 13 + j * 7) % 31;
      trak__ui_printf(&b,
                      "{\"ph\":\"X\",\"name\":\"c%d\",\"ts\":%d,\"dur\":%d,\"pid\":1,\"tid\":%d},\n"
                      "{\"ph\":\"X\",\"name\":\"g\",\"ts\":%d,\"dur\":%d,\"pid\":1,\"tid\":%d},\n",
                      k % 40000, ts + 1 + j * 45, dur, tid, ts + 2 + j * 45, dur - 2, tid);
    }
  }
  trak__ui_puts(&b, "{\"ph\":\"X\",\"name\":\"end\",\"ts\":2000000,\"dur\":1,\"pid\":1,\"tid\":1}"
                    "]}\n");
  assert_false(b.oom);
  return b.s;
}

/* The trace of make_trace, its cache and its two threads' tracks. */
static trak_processor *open_trace(trak_ui_cache **c, int64_t tracks[2]) {
  char *json = make_trace();
  trak_processor *p = sc_open(json);
  free(json);
  trak_error err = {0};
  assert_int_equal(trak__ui_cache_new(p, c, &err), 0);
  assert_true(trak__ui_stacks_wait(*c));
  tracks[0] = sc_int(p, "SELECT min(track_id) FROM slice");
  tracks[1] = sc_int(p, "SELECT max(track_id) FROM slice");
  return p;
}

static void answers_the_largest_stacks(void **state) {
  (void)state;
  trak_ui_cache *c;
  trak_error err = {0};
  int64_t tracks[2];
  trak_processor *p = open_trace(&c, tracks);
  trak_ui_range r = {c->start, c->end, 1};
  trak_ui_buf out = {0};
  assert_int_equal(trak__ui_flamegraph(c, tracks, 2, &r, &out, &err), 0);
  /* The answer's nodes: [parent,"name",total,count]. */
  int64_t nodes = 0, total = 0, count = 0;
  for (const char *e = strchr(out.s + 1, '['); e; e = strchr(e + 1, '[')) {
    int64_t parent, t, n;
    char name[32];
    assert_int_equal(
        sscanf(e, "[%" SCNd64 ",\"%31[^\"]\",%" SCNd64 ",%" SCNd64 "]", &parent, name, &t, &n), 4);
    nodes++, total += t, count += n;
  }
  static const char stacks[] =
      "WITH RECURSIVE st(id, stack, dur) AS (SELECT id, name, dur FROM slice WHERE parent_id IS "
      "NULL UNION ALL SELECT c.id, st.stack || ' > ' || c.name, c.dur FROM slice c JOIN st ON "
      "c.parent_id = st.id), t AS (SELECT stack, sum(dur) AS total, count(*) AS n FROM st "
      "GROUP BY stack) ";
  int64_t all = sc_int(p, "%s SELECT count(*) FROM t", stacks);
  assert_true(all > 40000); /* enough stacks for the bound to prune */
  const char *kept = "(SELECT total FROM t ORDER BY total DESC LIMIT 1 OFFSET 19999)";
  assert_int_equal(nodes, sc_int(p, "%s SELECT count(*) FROM t WHERE total >= %s", stacks, kept));
  assert_int_equal(total, sc_int(p, "%s SELECT sum(total) FROM t WHERE total >= %s", stacks, kept));
  assert_int_equal(count, sc_int(p, "%s SELECT sum(n) FROM t WHERE total >= %s", stacks, kept));
  trak__ui_buf_free(&out);
  trak__ui_cache_free(c);
  trak_processor_free(p);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The flame graph of `tracks` x `r` as sorted lines "stack|total|count", the stack its names
** from the root joined by '>' (the order of nodes differs between the two ways). Freed by the
** caller. */
static char *flame_lines(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                         const trak_ui_range *r) {
  trak_ui_buf out = {0}, all = {0};
  trak_error err = {0};
  assert_int_equal(trak__ui_flamegraph(c, tracks, n, r, &out, &err), 0);
  char **path = NULL, **line = NULL;
  size_t nodes = 0;
  for (const char *e = strchr(out.s + 1, '['); e; e = strchr(e + 1, '[')) {
    int64_t parent, t, k;
    char name[32];
    assert_int_equal(
        sscanf(e, "[%" SCNd64 ",\"%31[^\"]\",%" SCNd64 ",%" SCNd64 "]", &parent, name, &t, &k), 4);
    assert_true(parent < (int64_t)nodes); /* parents first */
    path = realloc(path, (nodes + 1) * sizeof *path);
    line = realloc(line, (nodes + 1) * sizeof *line);
    assert_non_null(path), assert_non_null(line);
    trak_ui_buf b = {0};
    trak__ui_printf(&b, "%s%s%s", parent < 0 ? "" : path[parent], parent < 0 ? "" : ">", name);
    path[nodes] = b.s;
    trak_ui_buf l = {0};
    trak__ui_printf(&l, "%s|%" PRId64 "|%" PRId64 "\n", b.s, t, k);
    line[nodes++] = l.s;
  }
  qsort(line, nodes, sizeof *line, cmp_str);
  for (size_t i = 0; i < nodes; i++) {
    trak__ui_puts(&all, line[i]);
    free(line[i]), free(path[i]);
  }
  free(line), free(path);
  trak__ui_buf_free(&out);
  return all.s ? all.s : strdup("");
}

static void both_ways_agree(void **state) {
  (void)state;
  trak_ui_cache *c;
  int64_t tracks[2];
  trak_processor *p = open_trace(&c, tracks);
  const trak_ui_range ranges[] = {
      {c->start, c->end, 1}, {300000000, 700000000, 1}, {1000, 30000000, 1}};
  for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++) {
    for (size_t k = 0; k < c->n_tracks; k++)
      c->tracks[k].stacks_exact = 1;
    char *fast = flame_lines(c, tracks, 2, &ranges[i]);
    for (size_t k = 0; k < c->n_tracks; k++)
      c->tracks[k].stacks_exact = 0;
    char *slow = flame_lines(c, tracks, 2, &ranges[i]);
    for (size_t k = 0; k < c->n_tracks; k++)
      c->tracks[k].stacks_exact = 1;
    atomic_store(&c->stacks_ready, 0); /* as before the tree's thread is done */
    char *early = flame_lines(c, tracks, 2, &ranges[i]);
    atomic_store(&c->stacks_ready, 1);
    assert_true(strlen(fast) > 1000);
    assert_string_equal(fast, slow);
    assert_string_equal(fast, early);
    free(fast), free(slow), free(early);
  }
  trak__ui_cache_free(c);
  trak_processor_free(p);
}

/* A child that ends after its parent may meet a range its parent does not: the track's stacks
** are not exact and the answer is merged slice by slice, as the recursive SQL (the child of a
** parent out of the range is out). */
static void child_outliving_parent(void **state) {
  (void)state;
  trak_processor *p =
      sc_open("{\"traceEvents\":["
              "{\"ph\":\"B\",\"name\":\"p\",\"ts\":0,\"pid\":1,\"tid\":1},"
              "{\"ph\":\"X\",\"name\":\"c\",\"ts\":5,\"dur\":20,\"pid\":1,\"tid\":1},"
              "{\"ph\":\"E\",\"ts\":10,\"pid\":1,\"tid\":1},"
              "{\"ph\":\"X\",\"name\":\"q\",\"ts\":30,\"dur\":10,\"pid\":1,\"tid\":1}]}");
  trak_ui_cache *c;
  trak_error err = {0};
  assert_int_equal(trak__ui_cache_new(p, &c, &err), 0);
  assert_true(trak__ui_stacks_wait(c));
  int64_t track = sc_int(p, "SELECT track_id FROM slice WHERE name = 'q'");
  const trak_ui_track *t = trak__ui_cache_track(c, track);
  assert_non_null(t);
  int64_t outlives = sc_int(p, "SELECT count(*) FROM slice c JOIN slice s ON c.parent_id = s.id "
                               "WHERE c.ts + c.dur > s.ts + s.dur");
  assert_int_equal(outlives, 1);
  assert_false(t->stacks_exact);
  /* From 15 us on: p (ended at 10 us) is out, so c is too whatever its end; q is in. */
  trak_ui_range r = {15000, 50000, 1};
  char *got = flame_lines(c, &track, 1, &r);
  assert_string_equal(got, "q|10000|1\n");
  free(got);
  trak__ui_cache_free(c);
  trak_processor_free(p);
}

/* A line's first slice ending at or after t: with max_end (ends not in order: a slice that did
** not end among ended ones) and without (ends in order), as a scan finds it. */
static void first_ending_after(void **state) {
  (void)state;
  trak_ui_slice v[6] = {{.ts = 0, .dur = 10}, {.ts = 20, .dur = -1}, {.ts = 30, .dur = 5},
                        {.ts = 40, .dur = 5}, {.ts = 50, .dur = 0},  {.ts = 60, .dur = 30}};
  int64_t max_end[6] = {10, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  trak_ui_line with = {.v = v, .max_end = max_end, .n = 6};
  trak_ui_slice w[4] = {
      {.ts = 0, .dur = 10}, {.ts = 10, .dur = 5}, {.ts = 40, .dur = 0}, {.ts = 50, .dur = 30}};
  trak_ui_line without = {.v = w, .n = 4};
  for (int64_t t = -5; t < 100; t++) {
    size_t want = 0;
    while (want < 6 && max_end[want] < t)
      want++;
    assert_int_equal(trak__ui_line_first_ending_after(&with, t), want);
    for (want = 0; want < 4 && trak__ui_slice_end(&w[want]) < t;)
      want++;
    assert_int_equal(trak__ui_line_first_ending_after(&without, t), want);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(answers_the_largest_stacks),
      cmocka_unit_test(both_ways_agree),
      cmocka_unit_test(child_outliving_parent),
      cmocka_unit_test(first_ending_after),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
