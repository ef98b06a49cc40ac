/*
** Tests that the viewer's answers do not depend on which slice lines are filled: a cache that
** fills a track's lines only when the columns decline (trak__ui_lines_need) gives, byte for byte,
** the screens, aggregates and flame graphs of a cache with every track's lines filled (what the
** viewer held before it stopped copying every slice), on a trace with a child that outlives its
** parent, a root below depth 0 (async lanes) and a child whose parent is not the last row of the
** depth above (rows out of order); and that only the lines of the tracks of an answer that
** declines are filled.
*/
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
#include "ui/ui.h"

/* Thread 1: a B/E slice whose X child ends after it, nested slices, an instant; thread 2: two
** levels of nesting (made a root below depth 0 or pointed at an earlier row by the variants);
** thread 3: siblings of equal durations and one that never ends. */
static const char TRACE[] =
    "{\"traceEvents\":["
    "{\"ph\":\"B\",\"name\":\"p\",\"ts\":0,\"pid\":1,\"tid\":1},"
    "{\"ph\":\"X\",\"name\":\"c\",\"ts\":5,\"dur\":20,\"pid\":1,\"tid\":1},"
    "{\"ph\":\"E\",\"ts\":10,\"pid\":1,\"tid\":1},"
    "{\"ph\":\"X\",\"name\":\"q\",\"ts\":30,\"dur\":10,\"pid\":1,\"tid\":1},"
    "{\"ph\":\"X\",\"name\":\"r\",\"ts\":31,\"dur\":4,\"pid\":1,\"tid\":1},"
    "{\"ph\":\"i\",\"name\":\"mark\",\"ts\":32,\"pid\":1,\"tid\":1,\"s\":\"t\"},"
    "{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":10,\"pid\":1,\"tid\":2},"
    "{\"ph\":\"X\",\"name\":\"b\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":2},"
    "{\"ph\":\"X\",\"name\":\"a\",\"ts\":20,\"dur\":10,\"pid\":1,\"tid\":2},"
    "{\"ph\":\"X\",\"name\":\"c\",\"ts\":21,\"dur\":2,\"pid\":1,\"tid\":2},"
    "{\"ph\":\"X\",\"name\":\"d\",\"ts\":24,\"dur\":1,\"pid\":1,\"tid\":2},"
    "{\"ph\":\"X\",\"name\":\"s\",\"ts\":3,\"dur\":5,\"pid\":1,\"tid\":3},"
    "{\"ph\":\"X\",\"name\":\"t\",\"ts\":9,\"dur\":5,\"pid\":1,\"tid\":3},"
    "{\"ph\":\"B\",\"name\":\"open\",\"ts\":40,\"pid\":1,\"tid\":3}"
    "]}";

typedef int (*answer_fn)(const trak_ui_cache *, const int64_t *, size_t, const trak_ui_range *,
                         trak_ui_buf *, trak_error *);

/* fn's answer of `c` for `tracks` over `r`, as a string (the caller frees it). */
static char *answer(answer_fn fn, const trak_ui_cache *c, const int64_t *tracks, size_t n,
                    const trak_ui_range *r) {
  trak_ui_buf out = {0};
  trak_error err = {0};
  assert_int_equal(fn(c, tracks, n, r, &out, &err), 0);
  assert_false(out.oom);
  return out.s ? out.s : strdup("");
}

/* How many slice tracks of `c` have their lines filled. */
static size_t filled(const trak_ui_cache *c) {
  size_t n = 0;
  for (size_t t = 0; t < c->n_tracks; t++)
    n += c->tracks[t].kind == TRAK_UI_SLICES && c->tracks[t].filled;
  return n;
}

/* The trace of TRACE with `how` applied to its slice table before any cache reads it: 0 as is,
** 1 the row of "b" made a root at depth 1 (async lanes), 2 the row of "d" pointed at the first
** "a" (not the last row of the depth above on its track: rows out of begin order), 3 "t" made
** to begin with "s" (equal times and durations) and "open" before both (rows out of time
** order). *bent: the track changed. */
static trak_processor *variant(int how, int64_t *bent) {
  trak_processor *p = sc_open(TRACE);
  int64_t b = sc_int(p, "SELECT id FROM slice WHERE name = 'b'");
  int64_t d = sc_int(p, "SELECT id FROM slice WHERE name = 'd'");
  int64_t a = sc_int(p, "SELECT min(id) FROM slice WHERE name = 'a'");
  assert_int_equal(sc_int(p, "SELECT depth FROM slice WHERE name = 'd'"), 1);
  uint32_t *parent = p->tables.slice.parent_id;
  if (how == 1) parent[b] = TRAK_NULL_U32;
  if (how == 2) parent[d] = (uint32_t)a;
  if (how == 3) {
    int64_t *ts = p->tables.slice.ts;
    ts[sc_int(p, "SELECT id FROM slice WHERE name = 't'")] = 3000;
    ts[sc_int(p, "SELECT id FROM slice WHERE name = 'open'")] = 1000;
  }
  *bent = sc_int(p, how == 3 ? "SELECT track_id FROM slice WHERE name = 's'"
                             : "SELECT track_id FROM slice WHERE name = 'b'");
  return p;
}

static void answers_equal_with_every_line_filled(void **state) {
  (void)state;
  static const answer_fn fns[] = {trak__ui_slices, trak__ui_aggregate, trak__ui_flamegraph};
  for (int how = 0; how < 4; how++) {
    int64_t bent;
    trak_processor *p = variant(how, &bent);
    trak_ui_cache *lazy, *full;
    trak_error err = {0};
    assert_int_equal(trak__ui_cache_new(p, &lazy, &err), 0);
    assert_int_equal(trak__ui_cache_new(p, &full, &err), 0);
    assert_int_equal(trak__ui_lines_need(full, NULL, 0), 0);
    assert_int_equal(filled(full), 3);
    assert_int_equal(filled(lazy), 0);
    int64_t all[8], one[1] = {bent}, others[8];
    size_t n_all = 0, n_others = 0;
    for (size_t t = 0; t < lazy->n_tracks; t++) {
      all[n_all++] = lazy->tracks[t].id;
      if (lazy->tracks[t].id != bent) others[n_others++] = lazy->tracks[t].id;
    }
    all[n_all++] = all[0]; /* a track asked for twice */
    const struct {
      const int64_t *v;
      size_t n;
    } lists[] = {{others, n_others}, {one, 1}, {all, n_all}}; /* the declining track last */
    const trak_ui_range ranges[] = {{lazy->start, lazy->end, 1}, {lazy->start, lazy->end, 3000},
                                    {2000, 25000, 7000},         {12000, 50000, 1},
                                    {21000, 21000, 1},           {-5, 9000, 1}};
    int nonempty = 0;
    /* Filled after each list: none for the others (the child outliving its parent is answered
    ** from the columns); the declining track alone; then every track of a flame graph that
    ** holds it (merged from the lines together; the rows out of time order at depth 0 alone do
    ** not make the flame graph decline). */
    const size_t after[3] = {0, how ? 1 : 0, how == 1 || how == 2 ? 3 : how ? 1 : 0};
    for (size_t l = 0; l < sizeof lists / sizeof *lists; l++) {
      for (size_t f = 0; f < sizeof fns / sizeof *fns; f++)
        for (size_t k = 0; k < sizeof ranges / sizeof *ranges; k++) {
          char *got = answer(fns[f], lazy, lists[l].v, lists[l].n, &ranges[k]);
          char *want = answer(fns[f], full, lists[l].v, lists[l].n, &ranges[k]);
          nonempty += strlen(want) > 16;
          assert_string_equal(got, want);
          free(got), free(want);
        }
      assert_int_equal(filled(lazy), after[l]);
    }
    assert_true(nonempty >= 30); /* of 54 */
    assert_int_equal(trak__ui_lines_filled(lazy, one, 1), how != 0);
    trak__ui_cache_free(lazy);
    trak__ui_cache_free(full);
    trak_processor_free(p);
  }
}

/* The outliving child is there: p ends at 10 us, its child c at 25 us. */
static void trace_has_the_cases(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  assert_int_equal(sc_int(p, "SELECT count(*) FROM slice c JOIN slice s ON c.parent_id = s.id "
                             "WHERE c.ts + c.dur > s.ts + s.dur"),
                   1);
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(trace_has_the_cases),
      cmocka_unit_test(answers_equal_with_every_line_filled),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
