/*
** Tests of standard modules on their own small traces: viz.summary.track_event on
** tests/data/psql/viz_orderings.pbtxt (track-event tracks numbered among their siblings as their
** parent's child_ordering says), slices.stack, slices.self_dur and hash() on
** tests/data/psql/stacks.json (nested slices, unfinished ones, NULL and empty categories),
** slices.flat_slices on tests/data/psql/flat_edges.json (children at their root's edges). The
** expected rows were compared with Perfetto's trace_processor_shell on the same traces (the
** protobuf one encoded with protoc).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sqlcheck.h"
#include "testutil.h"

static trak_processor *open_file(const char *path) {
  size_t len;
  char *text = tu_read_file(tu_source_path(path), &len);
  trak_processor *p = sc_open(text);
  free(text);
  return p;
}

static void orderings(void **state) {
  trak_processor *p = open_file("tests/data/psql/viz_orderings.pbtxt");
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

/* Stack ids are Perfetto's numbers (hash of the frames' hashes, the slice first, then its
** ancestors from the root); self_dur takes an unfinished slice's dur -1 as it is, as Perfetto. */
static void stacks(void **state) {
  trak_processor *p = open_file("tests/data/psql/stacks.json");
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE slices.self_dur; SELECT s.name, s.dur, d.self_dur FROM "
       "slice_self_dur d JOIN slice s USING (id) ORDER BY s.name",
       "done|30000|30000\n"
       "leaf|2000|2000\n"
       "mid|10000|8000\n"
       "open_child|-1|-10001\n"
       "outer|-1|-30000\n"
       "root|100000|90000\n"
       "solo|10000|10000"},
      {"INCLUDE PERFETTO MODULE slices.stack; SELECT name, depth, stack_id, parent_stack_id FROM "
       "slice_with_stack_id ORDER BY name",
       "done|1|6386861291607528362|-5873422754201961086\n"
       "leaf|2|472100465956138690|-5015071208145149131\n"
       "mid|1|-5015071208145149131|-7001954435590271420\n"
       "open_child|1|-995490222680255016|-5873422754201961086\n"
       "outer|0|-5873422754201961086|0\n"
       "root|0|-7001954435590271420|0\n"
       "solo|2|-8425361085603288278|-995490222680255016"},
      {"INCLUDE PERFETTO MODULE slices.stack; SELECT name, depth FROM "
       "ancestor_slice_by_stack(472100465956138690) ORDER BY depth",
       "root|0\n"
       "mid|1\n"
       "leaf|2"},
      {"INCLUDE PERFETTO MODULE slices.stack; SELECT name FROM "
       "descendant_slice_by_stack(-5873422754201961086) ORDER BY name",
       "done\n"
       "open_child\n"
       "outer\n"
       "solo"},
      {"SELECT hash('|A'), hash(CAST(hash('|A') AS TEXT)), hash(1, 'x'), hash('ab', 'c'), "
       "hash('a', 'bc'), hash()",
       "640495243103436622|1905114530773834795|5952180755994350292|-1792535898324117685|-"
       "1792535898324117685|-3750763034362895579"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  assert_non_null(strstr(sc_error(p, "SELECT hash(1.5)"), "HASH: arg 0 has unknown type"));
  assert_non_null(strstr(sc_error(p, "SELECT hash(1, NULL)"), "HASH: arg 1 has unknown type"));
  trak_processor_free(p);
}

/* _slice_flattened as Perfetto's: a root's first and last pieces even when empty (a child starts
** at its start, another ends at its end), nothing under an unfinished root, no piece for an
** instant. */
static void flat_edges(void **state) {
  trak_processor *p = open_file("tests/data/psql/flat_edges.json");
  static const sc_check c[] = {
      {"INCLUDE PERFETTO MODULE slices.flat_slices; SELECT slice_id, ts, dur, depth, name, "
       "root_id, tid FROM _slice_flattened ORDER BY ts, dur",
       "0|10000|0|0|root|0|1\n"
       "1|10000|20000|1|first|0|1\n"
       "0|30000|20000|0|root|0|1\n"
       "2|50000|5000|1|last|0|1\n"
       "3|55000|5000|2|inner|0|1\n"
       "2|60000|50000|1|last|0|1\n"
       "0|110000|0|0|root|0|1\n"
       "4|200000|10000|0|solo|4|1"},
  };
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(orderings),
      cmocka_unit_test(stacks),
      cmocka_unit_test(flat_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
