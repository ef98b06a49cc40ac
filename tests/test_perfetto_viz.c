/*
** Tests of viz.summary.track_event on tests/data/psql/viz_orderings.pbtxt: track-event tracks
** numbered among their siblings as their parent's child_ordering says. The expected rows were
** compared with Perfetto's trace_processor_shell on the same trace (encoded with protoc).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "sqlcheck.h"
#include "testutil.h"

static void orderings(void **state) {
  size_t len;
  char *text = tu_read_file(tu_source_path("tests/data/psql/viz_orderings.pbtxt"), &len);
  trak_processor *p = sc_open(text);
  free(text);
  /* Explicit: by sibling_order_rank, a missing rank counting as 0; chronological: by first
  ** event; lexicographic and unset: by name. */
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE viz.summary.track_event; SELECT g.name, p.name AS parent, "
       "g.order_id, g.description, g.has_data, g.has_children, g.is_counter FROM "
       "_track_event_tracks_ordered_groups g LEFT JOIN track p ON p.id = g.parent_id ORDER BY "
       "p.name, g.order_id",
       "ch|NULL|1|NULL|1|1|0\n"
       "ex|NULL|2|explicit parent|1|1|0\n"
       "lx|NULL|3|NULL|1|1|0\n"
       "plain|NULL|4|NULL|1|1|0\n"
       "c_early|ch|1|NULL|1|0|0\n"
       "c_late|ch|2|NULL|1|0|0\n"
       "e_minus|ex|1|ranked low|1|0|0\n"
       "e_none|ex|2|NULL|1|0|0\n"
       "e_plus|ex|3|NULL|1|0|0\n"
       "aa|lx|1|NULL|1|0|0\n"
       "zz|lx|2|NULL|1|0|0\n"
       "x|plain|1|NULL|1|0|0\n"
       "y|plain|2|NULL|1|0|0"},
      /* One group per track here: track_ids is the track's own id. */
      {"SELECT count(*) FROM _track_event_tracks_ordered_groups WHERE track_ids != "
       "CAST(min_track_id AS TEXT)",
       "0"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(orderings),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
