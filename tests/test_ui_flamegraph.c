/*
** Tests of the area selection's flame graph (src/ui/aggregate.c) on a selection with more name
** stacks than it answers (20,000): the nodes answered are exactly the stacks whose total is at
** least the 20,000th largest, as the recursive SQL of docs/ui.md finds them, so the pruning of
** subtrees under that bound (depth by depth) loses nothing it should answer.
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

static void answers_the_largest_stacks(void **state) {
  (void)state;
  char *json = make_trace();
  trak_processor *p = sc_open(json);
  free(json);
  trak_ui_cache *c;
  trak_error err = {0};
  assert_int_equal(trak__ui_cache_new(p, &c, &err), 0);
  int64_t tracks[2] = {sc_int(p, "SELECT min(track_id) FROM slice"),
                       sc_int(p, "SELECT max(track_id) FROM slice")};
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(answers_the_largest_stacks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
