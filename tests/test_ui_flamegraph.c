/*
** Tests of the area selection's flame graph (src/ui/aggregate.c) on a selection with more name
** stacks than it answers (20,000): the nodes answered are exactly the stacks whose total is at
** least the 20,000th largest, as the recursive SQL of docs/ui.md finds them, so the pruning of
** subtrees under that bound (depth by depth) loses nothing it should answer; and the two ways
** of answering (merging from the slice table's columns, scan_flame.c; merging slice by slice
** from a track's lines where the columns decline) give the same nodes, on this trace and on
** every trace of tests/data.
*/
#include <dirent.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "processor/processor_internal.h"
#include "sqlcheck.h"
#include "ui/cache.h"
#include "ui/flame.h"
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
  assert_int_equal(trak__ui_lines_need(*c, NULL, 0), 0); /* for lines_way */
  tracks[0] = sc_int(p, "SELECT min(track_id) FROM slice");
  tracks[1] = sc_int(p, "SELECT max(track_id) FROM slice");
  return p;
}

/* Checks that the flame graph `json` holds exactly the stacks of `p` whose total is at least
** the 20,000th largest (the recursive SQL of docs/ui.md). */
static void check_largest(trak_processor *p, const char *json) {
  /* The answer's nodes: [parent,"name",total,count]. */
  int64_t nodes = 0, total = 0, count = 0;
  for (const char *e = strchr(json + 1, '['); e; e = strchr(e + 1, '[')) {
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
}

/* The flame graph from the slice table's columns (trak__ui_scan_flame, which must not decline)
** as trak__ui_flamegraph writes it. Freed by the caller. */
static char *scan_json(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                       const trak_ui_range *r) {
  trak_ui_flame f = {0};
  trak_ui_buf out = {0};
  assert_int_equal(trak__ui_scan_flame(c, tracks, n, r->start, r->end, &f), 0);
  assert_int_equal(trak__ui_flame_write(c, &f, &out), 0);
  trak__ui_flame_free(&f);
  return out.s;
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
  check_largest(p, out.s); /* from the columns */
  trak_ui_flame f = {0};
  trak_ui_buf lines = {0};
  trak__ui_flame_from_lines(c, tracks, 2, r.start, r.end, &f);
  assert_int_equal(trak__ui_flame_write(c, &f, &lines), 0);
  check_largest(p, lines.s); /* from the lines */
  trak__ui_flame_free(&f);
  trak__ui_buf_free(&lines);
  trak__ui_buf_free(&out);
  trak__ui_cache_free(c);
  trak_processor_free(p);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads the string literal or null at *p (as trak__ui_json_str writes it, escapes kept) into
** `b` (a NULL name as "(null)") and moves *p past it. */
static void read_name(const char **p, trak_ui_buf *b) {
  if (!strncmp(*p, "null", 4)) {
    trak__ui_puts(b, "(null)");
    *p += 4;
    return;
  }
  assert_int_equal(**p, '"');
  const char *e = *p + 1;
  while (*e != '"') {
    assert_int_not_equal(*e, 0);
    e += *e == '\\' ? 2 : 1;
  }
  trak__ui_put(b, *p + 1, (size_t)(e - *p - 1));
  *p = e + 1;
}

/* The flame graph `json` ([[parent,name,total,count]...]) as sorted lines "stack|total|count",
** the stack its names from the root joined by '>' (the order of nodes differs between the ways
** of answering). Asserts that parents come first. Freed by the caller. */
static char *sorted_lines(const char *json) {
  trak_ui_buf all = {0};
  char **path = NULL, **line = NULL;
  size_t nodes = 0;
  const char *e = json;
  assert_int_equal(*e++, '[');
  while (*e == '[' || *e == ',') {
    if (*e == ',') e++;
    int64_t parent, t, k;
    int used = 0;
    assert_int_equal(sscanf(e, "[%" SCNd64 ",%n", &parent, &used), 1);
    assert_true(used > 0);
    e += used;
    assert_true(parent < (int64_t)nodes); /* parents first */
    trak_ui_buf b = {0};
    if (parent >= 0) trak__ui_printf(&b, "%s>", path[parent]);
    read_name(&e, &b);
    used = 0;
    assert_int_equal(sscanf(e, ",%" SCNd64 ",%" SCNd64 "]%n", &t, &k, &used), 2);
    assert_true(used > 0);
    e += used;
    path = realloc(path, (nodes + 1) * sizeof *path);
    line = realloc(line, (nodes + 1) * sizeof *line);
    assert_non_null(path), assert_non_null(line);
    path[nodes] = b.s;
    trak_ui_buf l = {0};
    trak__ui_printf(&l, "%s|%" PRId64 "|%" PRId64 "\n", b.s, t, k);
    line[nodes++] = l.s;
  }
  assert_string_equal(e, "]");
  if (nodes) qsort(line, nodes, sizeof *line, cmp_str); /* line is NULL when empty */
  for (size_t i = 0; i < nodes; i++) {
    trak__ui_puts(&all, line[i]);
    free(line[i]), free(path[i]);
  }
  free(line), free(path);
  return all.s ? all.s : strdup("");
}

/* The flame graph of `tracks` x `r` merged slice by slice from the cache's lines
** (trak__ui_flame_from_lines), as sorted_lines. */
static char *lines_way(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                       const trak_ui_range *r) {
  trak_ui_flame f = {0};
  trak_ui_buf out = {0};
  trak__ui_flame_from_lines(c, tracks, n, r->start, r->end, &f);
  assert_false(f.oom);
  assert_int_equal(trak__ui_flame_write(c, &f, &out), 0);
  trak__ui_flame_free(&f);
  char *lines = sorted_lines(out.s);
  trak__ui_buf_free(&out);
  return lines;
}

/* The flame graph of `tracks` x `r` through trak__ui_flamegraph, as sorted_lines. */
static char *flame_lines(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                         const trak_ui_range *r) {
  trak_ui_buf out = {0};
  trak_error err = {0};
  assert_int_equal(trak__ui_flamegraph(c, tracks, n, r, &out, &err), 0);
  char *lines = sorted_lines(out.s);
  trak__ui_buf_free(&out);
  return lines;
}

static void both_ways_agree(void **state) {
  (void)state;
  trak_ui_cache *c;
  int64_t tracks[2];
  trak_processor *p = open_trace(&c, tracks);
  const trak_ui_range ranges[] = {
      {c->start, c->end, 1}, {300000000, 700000000, 1}, {1000, 30000000, 1}};
  for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++) {
    char *fast = flame_lines(c, tracks, 2, &ranges[i]); /* the columns' */
    char *lines = lines_way(c, tracks, 2, &ranges[i]);
    char *json = scan_json(c, tracks, 2, &ranges[i]);
    char *scanned = sorted_lines(json);
    /* A track asked for twice counts twice in every way. */
    const int64_t twice[3] = {tracks[0], tracks[1], tracks[0]};
    char *fast2 = flame_lines(c, twice, 3, &ranges[i]);
    char *json2 = scan_json(c, twice, 3, &ranges[i]);
    char *scanned2 = sorted_lines(json2);
    assert_true(strlen(fast) > 1000);
    assert_string_equal(fast, lines);
    assert_string_equal(fast, scanned);
    assert_string_equal(fast2, scanned2);
    assert_string_not_equal(fast, fast2);
    free(fast), free(lines), free(json), free(scanned);
    free(fast2), free(json2), free(scanned2);
  }
  trak__ui_cache_free(c);
  trak_processor_free(p);
}

/* Many names under many parents: depth 2's (parent, name) cells (600 parents times some 1,200
** names) are far more than its rows (600), so the columns' merge keys them through its hash
** (growing it) rather than a dense table; the answer equals the lines'. */
static void many_names_hashed(void **state) {
  (void)state;
  trak_ui_buf b = {0};
  trak__ui_puts(&b, "{\"traceEvents\":[\n");
  for (int i = 0; i < 600; i++)
    trak__ui_printf(&b,
                    "%s{\"ph\":\"X\",\"name\":\"r%d\",\"ts\":%d,\"dur\":10,\"pid\":1,\"tid\":1},"
                    "{\"ph\":\"X\",\"name\":\"c%d\",\"ts\":%d,\"dur\":%d,\"pid\":1,\"tid\":1},"
                    "{\"ph\":\"X\",\"name\":\"d%d\",\"ts\":%d,\"dur\":1,\"pid\":1,\"tid\":1}\n",
                    i ? "," : "", i % 7, i * 20, i, i * 20 + 1, 2 + i % 5, i, i * 20 + 2);
  trak__ui_puts(&b, "]}");
  trak_processor *p = sc_open(b.s);
  trak__ui_buf_free(&b);
  trak_ui_cache *c;
  trak_error err = {0};
  assert_int_equal(trak__ui_cache_new(p, &c, &err), 0);
  assert_true(c->n_names > 1000);
  int64_t track = sc_int(p, "SELECT track_id FROM slice WHERE name = 'r0' LIMIT 1");
  trak_ui_range r = {c->start, c->end, 1};
  assert_int_equal(trak__ui_lines_need(c, &track, 1), 0);
  char *slow = lines_way(c, &track, 1, &r);
  char *json = scan_json(c, &track, 1, &r);
  char *scanned = sorted_lines(json);
  assert_true(strstr(slow, "r3>c3>d3|1000|1\n") != NULL);
  assert_string_equal(scanned, slow);
  free(slow), free(json), free(scanned);
  trak__ui_cache_free(c);
  trak_processor_free(p);
}

/* A child that ends after its parent may meet a range its parent does not: the answer is as
** the recursive SQL (the child of a parent out of the range is out), from the columns and from
** the lines. */
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
  int64_t track = sc_int(p, "SELECT track_id FROM slice WHERE name = 'q'");
  const trak_ui_track *t = trak__ui_cache_track(c, track);
  assert_non_null(t);
  int64_t outlives = sc_int(p, "SELECT count(*) FROM slice c JOIN slice s ON c.parent_id = s.id "
                               "WHERE c.ts + c.dur > s.ts + s.dur");
  assert_int_equal(outlives, 1);
  /* From 15 us on: p (ended at 10 us) is out, so c is too whatever its end; q is in. */
  trak_ui_range r = {15000, 50000, 1};
  char *got = flame_lines(c, &track, 1, &r); /* the columns' */
  assert_string_equal(got, "q|10000|1\n");
  free(got);
  assert_int_equal(trak__ui_lines_need(c, &track, 1), 0);
  got = lines_way(c, &track, 1, &r);
  assert_string_equal(got, "q|10000|1\n");
  free(got);
  trak__ui_cache_free(c);
  trak_processor_free(p);
}

/* Answers of one trace of tests/data over `r`: the columns' (unless they decline, counted in
** *declined) equal the lines' slice by slice, and so does trak__ui_flamegraph's (the columns',
** else the lines'). Counts the non-empty answers from the columns
** in *answered. */
static void data_trace_agrees(trak_ui_cache *c, const trak_ui_range *r, int *answered,
                              int *declined) {
  int64_t *tracks = malloc((c->n_tracks + 1) * sizeof *tracks);
  assert_non_null(tracks);
  size_t n = 0;
  for (size_t k = 0; k < c->n_tracks; k++)
    if (c->tracks[k].kind == TRAK_UI_SLICES && c->tracks[k].n_lines) tracks[n++] = c->tracks[k].id;
  char *slow = lines_way(c, tracks, n, r); /* the lines', slice by slice */
  char *fast = flame_lines(c, tracks, n, r);
  assert_string_equal(fast, slow); /* the columns' (or the lines') */
  trak_ui_flame f = {0};
  int rc = trak__ui_scan_flame(c, tracks, n, r->start, r->end, &f);
  assert_true(rc == 0 || rc == 1);
  if (rc == 0) {
    trak_ui_buf out = {0};
    assert_int_equal(trak__ui_flame_write(c, &f, &out), 0);
    char *scanned = sorted_lines(out.s);
    assert_string_equal(scanned, slow);
    *answered += slow[0] != 0;
    free(scanned);
    trak__ui_buf_free(&out);
  }
  *declined += rc == 1;
  trak__ui_flame_free(&f);
  free(fast), free(slow), free(tracks);
}

/* Walks `dir` for traces (.json, .pb, .pbtxt, .systrace, .gz) and checks each as
** data_trace_agrees over the whole trace and its middle third. */
static void walk_traces(const char *dir, int *answered, int *declined) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    DIR *sub = opendir(path);
    if (sub) {
      closedir(sub);
      walk_traces(path, answered, declined);
      continue;
    }
    const char *dot = strrchr(e->d_name, '.');
    if (!dot || (strcmp(dot, ".json") && strcmp(dot, ".pb") && strcmp(dot, ".pbtxt") &&
                 strcmp(dot, ".systrace") && strcmp(dot, ".gz")))
      continue;
    trak_processor *p = NULL;
    trak_error err = {0};
    if (trak_processor_open_file(path, NULL, &p, &err)) continue; /* not a trace */
    trak_ui_cache *c;
    if (trak__ui_cache_new(p, &c, &err) == 0) {
      assert_int_equal(trak__ui_lines_need(c, NULL, 0), 0); /* for lines_way */
      int64_t third = (c->end - c->start) / 3;
      const trak_ui_range whole = {c->start, c->end, 1},
                          middle = {c->start + third, c->end - third, 1};
      data_trace_agrees(c, &whole, answered, declined);
      data_trace_agrees(c, &middle, answered, declined);
      trak__ui_cache_free(c);
    }
    trak_processor_free(p);
  }
  closedir(d);
}

static void data_traces_agree(void **state) {
  (void)state;
  const char *src = getenv("TRAK_SOURCE_DIR");
  assert_non_null(src);
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/tests/data", src);
  int answered = 0, declined = 0;
  walk_traces(dir, &answered, &declined);
  print_message("flame graphs of tests/data: %d from the columns, %d declined\n", answered,
                declined);
  assert_true(answered >= 20);
  assert_int_equal(declined, 0); /* no trace there has roots below depth 0 */
}

/* The columns decline what their passes cannot follow, and the answer then comes from the
** lines: a root below depth 0 (async lanes; made here by clearing a child's parent_id, as no
** importer makes one today) and a child whose parent is not the last row of the depth above on
** its track (rows not in the order slices begin; made by pointing a child at an earlier row). */
static void columns_decline(void **state) {
  (void)state;
  static const char json[] =
      "{\"traceEvents\":["
      "{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":10,\"pid\":1,\"tid\":1},"
      "{\"ph\":\"X\",\"name\":\"b\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1},"
      "{\"ph\":\"X\",\"name\":\"a\",\"ts\":20,\"dur\":10,\"pid\":1,\"tid\":1},"
      "{\"ph\":\"X\",\"name\":\"c\",\"ts\":21,\"dur\":2,\"pid\":1,\"tid\":1}]}";
  for (int how = 0; how < 2; how++) {
    trak_processor *p = sc_open(json);
    assert_int_equal(sc_int(p, "SELECT count(*) FROM slice WHERE parent_id = id - 1"), 2);
    uint32_t *parent = p->tables.slice.parent_id;
    assert_int_equal(parent[3], 2);
    parent[3] = how ? 0 : TRAK_NULL_U32; /* before the cache: its lines follow */
    trak_ui_cache *c;
    trak_error err = {0};
    assert_int_equal(trak__ui_cache_new(p, &c, &err), 0);
    int64_t track = sc_int(p, "SELECT track_id FROM slice WHERE id = 0");
    trak_ui_range r = {c->start, c->end, 1};
    trak_ui_flame f = {0};
    assert_int_equal(trak__ui_scan_flame(c, &track, 1, r.start, r.end, &f), 1);
    trak__ui_flame_free(&f);
    assert_false(trak__ui_lines_filled(c, &track, 1)); /* filled for the answer alone */
    char *got = flame_lines(c, &track, 1, &r);
    assert_true(trak__ui_lines_filled(c, &track, 1));
    /* c under the second a by time (the lines), or a root of its own at depth 1 (how 0) */
    assert_string_equal(got, how ? "a>b|2000|1\na>c|2000|1\na|20000|2\n"
                                 : "a>b|2000|1\na|20000|2\nc|2000|1\n");
    free(got);
    trak__ui_cache_free(c);
    trak_processor_free(p);
  }
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
      cmocka_unit_test(answers_the_largest_stacks), cmocka_unit_test(both_ways_agree),
      cmocka_unit_test(child_outliving_parent),     cmocka_unit_test(many_names_hashed),
      cmocka_unit_test(data_traces_agree),          cmocka_unit_test(columns_decline),
      cmocka_unit_test(first_ending_after),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
