/*
** Tests of grouped aggregates answered from the columns beyond the query set's shapes
** (tests/test_column_aggregates.c holds those). Joins grouped first (join_aggregates.c): LEFT
** JOINs after the grouped relation, WHERE terms on its rows answered by __intrinsic_col_group's
** filters, the relation anywhere among the inner joins, unqualified names of its columns, and the
** parent self-join as a LEFT JOIN, with a WHERE, or written parent first. One table grouped by
** two columns or by items' positions (column_aggregates.c: `GROUP BY process_name, thread_name`
** over thread_slice, `GROUP BY 1, 2`). Each statement a rewrite takes answers, with the same
** column names, rows, types and errors, what SQLite's own evaluation of the same statement
** answers; the shapes it must leave to SQLite (a NULL-padded relation, OR, CASE, values that read
** a row, text `=`, a third key, ...) are not rewritten.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "processor/sql/perfetto_sql/psql.h"
#include "join_check.h"
#include "sqlcheck.h"

/* Slices on three threads of two processes (one process and one thread without a name), nested
** ones, ties of counts, an unfinished one (dur -1), categories on some (NULL on the others), and
** process-scoped async slices, which are on no thread track. */
static const char MIXED[] =
    "{\"traceEvents\":["
    "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"P1\"}},"
    "{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"T2\"}},"
    "{\"ph\":\"M\",\"pid\":4,\"tid\":5,\"name\":\"thread_name\",\"args\":{\"name\":\"T2\"}},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":10,\"name\":\"A\",\"cat\":\"c1\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":2,\"dur\":5,\"name\":\"B\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":1,\"name\":\"C\",\"cat\":\"c2\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":8,\"dur\":2,\"name\":\"B\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":1,\"dur\":7,\"name\":\"A\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":2,\"dur\":3,\"name\":\"b\",\"cat\":\"c1\"},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":5,\"ts\":1,\"dur\":4,\"name\":\"B\"},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":5,\"ts\":2,\"dur\":1,\"name\":\"C\"},"
    "{\"ph\":\"B\",\"pid\":4,\"tid\":5,\"ts\":20,\"name\":\"open\"},"
    "{\"ph\":\"b\",\"pid\":1,\"tid\":2,\"ts\":4,\"id\":\"1\",\"cat\":\"c1\",\"name\":\"As\"},"
    "{\"ph\":\"e\",\"pid\":1,\"tid\":2,\"ts\":9,\"id\":\"1\",\"cat\":\"c1\",\"name\":\"As\"},"
    "{\"ph\":\"b\",\"pid\":4,\"tid\":5,\"ts\":1,\"id\":\"2\",\"cat\":\"c1\",\"name\":\"As\"},"
    "{\"ph\":\"e\",\"pid\":4,\"tid\":5,\"ts\":3,\"id\":\"2\",\"cat\":\"c1\",\"name\":\"As\"}"
    "]}";




static const char *const TRACES[] = {MIXED, JC_DEEP, JC_NO_SLICES};

/* The slice x thread x process join grouped by names, written with LEFT JOINs (the async slices
** then make a group of NULL names), with the slices second or third among inner joins, and
** with WHERE terms on the slices' rows beside terms on the other tables; and the shapes left to
** SQLite. */
static void joins(void **state) {
  (void)state;
#define STP "SELECT p.name, t.name, COUNT(*), SUM(s.dur), MAX(s.depth) FROM slice s "
#define ST                                                                                         \
  "SELECT t.name, COUNT(*), SUM(s.dur), MIN(s.ts) FROM slice s JOIN thread_track tt ON "           \
  "s.track_id = tt.id JOIN thread t USING (utid) "
  static const char *const rewritten[] = {
      STP "LEFT JOIN thread_track tt ON s.track_id = tt.id LEFT JOIN thread t USING (utid) LEFT "
          "OUTER JOIN process p USING (upid) GROUP BY 1, 2 ORDER BY 1, 2",
      STP "LEFT JOIN thread_track tt ON s.track_id = tt.id JOIN thread t USING (utid) LEFT JOIN "
          "process p USING (upid) GROUP BY p.name, t.name ORDER BY 3 DESC, 1, 2",
      "SELECT p.name, t.name, COUNT(*), SUM(s.dur) FROM thread_track tt JOIN slice s ON "
      "s.track_id = tt.id JOIN thread t USING (utid) JOIN process p USING (upid) GROUP BY p.name, "
      "t.name ORDER BY p.name, t.name",
      "SELECT t.name, COUNT(*) FROM thread t JOIN thread_track tt USING (utid) JOIN slice s ON "
      "s.track_id = tt.id GROUP BY t.name ORDER BY 2 DESC, 1",
      "SELECT t.name, COUNT(*) FROM thread t LEFT JOIN thread_track tt USING (utid) INNER JOIN "
      "slice AS s ON s.track_id = tt.id GROUP BY 1 ORDER BY 1",
      "SELECT tt.utid, COUNT(*), SUM(s.dur) FROM thread_track tt, slice s WHERE s.track_id = tt.id "
      "AND s.depth >= 1 GROUP BY tt.utid ORDER BY 1",
      ST "WHERE s.depth = 0 GROUP BY 1 ORDER BY 1",
      ST "WHERE s.dur BETWEEN 1 AND 5 AND t.name IS NOT NULL AND s.name GLOB 'B*' GROUP BY 1 "
         "ORDER BY 2 DESC, 1",
      ST "WHERE s.name LIKE 'b%' AND s.ts >= 1 + 1 AND s.dur > -(1) GROUP BY 1 ORDER BY 1",
      ST "WHERE s.dur == '5' GROUP BY 1",
      ST "WHERE s.dur >= 2.5 AND s.dur < 1e300 GROUP BY 1 ORDER BY 1",
      ST "WHERE s.parent_id > 0 GROUP BY 1 ORDER BY 1",
      ST "WHERE s.track_id > 0 AND (t.tid > 2 OR t.tid IS NULL) GROUP BY 1 ORDER BY 1",
      ST "WHERE s.name > 'A' AND s.name <= 'B' GROUP BY 1 ORDER BY 1",
      ST "WHERE s.category GLOB 'c*' AND s.ts BETWEEN 2 AND 3 GROUP BY 1 ORDER BY 1",
      ST "WHERE s.ts BETWEEN (1) AND 2 * 4 GROUP BY 1 ORDER BY 1",
      STP "LEFT JOIN thread_track tt ON s.track_id = tt.id LEFT JOIN thread t USING (utid) LEFT "
          "JOIN process p USING (upid) WHERE t.name = t.name AND s.dur > 0 GROUP BY 1, 2",
      /* unqualified names of the slices' columns in the aggregates and the WHERE terms */
      "SELECT thread.name, COUNT(*), SUM(dur) FROM slice JOIN thread_track ON slice.track_id = "
      "thread_track.id JOIN thread USING (utid) WHERE depth = 0 GROUP BY thread.name ORDER BY 1",
      ST "WHERE dur > 1 AND ts BETWEEN 1 AND 9 GROUP BY 1 ORDER BY 1",
      "SELECT t.name, MAX(dur), COUNT(category), MIN(s.ts) FROM slice s JOIN thread_track tt ON "
      "s.track_id = tt.id JOIN thread t USING (utid) WHERE category GLOB 'c*' GROUP BY 1 ORDER BY "
      "1",
      "SELECT p.name, COUNT(*), SUM(dur) FROM slice s LEFT JOIN thread_track tt ON s.track_id = "
      "tt.id LEFT JOIN thread t USING (utid) LEFT JOIN process p USING (upid) WHERE depth >= 0 "
      "GROUP BY 1 ORDER BY 1",
  };
  static const char *const kept[] = {
      /* an unqualified name outside the aggregates and terms (SQLite reads a row of the group);
      ** one that several relations have (an error); one of another relation's */
      ST "GROUP BY 1 HAVING dur > 1",
      ST "GROUP BY 1 ORDER BY dur",
      ST "WHERE name GLOB 'A*' GROUP BY 1",
      "SELECT t.name, SUM(tid) FROM slice s JOIN thread_track tt ON s.track_id = tt.id JOIN thread "
      "t USING (utid) GROUP BY 1",
      "SELECT t.name, SUM(dur) FROM slice s JOIN thread_track tt USING (id) JOIN thread t ON "
      "t.utid = tt.utid GROUP BY 1",
      /* the slices NULL-padded by the LEFT JOIN: a thread without slices counts one row */
      "SELECT t.name, COUNT(s.id) FROM thread t LEFT JOIN thread_track tt USING (utid) LEFT JOIN "
      "slice s ON s.track_id = tt.id GROUP BY 1 ORDER BY 1",
      "SELECT t.name, COUNT(*) FROM slice s RIGHT JOIN thread_track tt ON s.track_id = tt.id JOIN "
      "thread t USING (utid) GROUP BY 1",
      ST "WHERE s.depth = 0 OR t.name = 'T2' GROUP BY 1",
      ST "WHERE s.name = 'A' GROUP BY 1",
      ST "WHERE s.dur > t.tid GROUP BY 1",
      ST "WHERE s.dur IN (1, 2) GROUP BY 1",
      ST "WHERE NOT s.dur > 1 GROUP BY 1",
      ST "WHERE s.dur NOT BETWEEN 1 AND 2 GROUP BY 1",
      ST "WHERE (s.dur > 1) GROUP BY 1",
      ST "WHERE s.dur > 1 = 1 GROUP BY 1",
      ST "WHERE s.dur > 1 COLLATE BINARY GROUP BY 1",
      ST "WHERE s.dur IS NULL GROUP BY 1",
      ST "WHERE s.dur > NULL GROUP BY 1",
      ST "WHERE s.dur > 1 || 2 GROUP BY 1",
      ST "WHERE s.name LIKE 'a' ESCAPE 'x' GROUP BY 1",
      ST "WHERE s.dur GLOB '1*' GROUP BY 1",
      ST "WHERE CASE WHEN 1 THEN 1 AND s.dur > 1 END AND s.dur > 0 GROUP BY 1",
      ST "WHERE s.dur > 1 AND s.dur < 9 AND s.ts > 0 AND s.ts < 99 AND s.depth >= 0 GROUP BY 1",
      ST "WHERE s.dur > (SELECT 1) GROUP BY 1",
      ST "WHERE t.name GLOB 'T*' AND s.dur > 0 GROUP BY s.name",
  };
  for (size_t k = 0; k < sizeof TRACES / sizeof *TRACES; k++) {
    trak_processor *p = sc_open(TRACES[k]);
    for (size_t i = 0; i < sizeof rewritten / sizeof *rewritten; i++)
      jc_same_join(p, rewritten[i], 1);
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
      jc_same_join(p, kept[i], 0);
    trak_processor_free(p);
  }
#undef STP
#undef ST
}

/* The parent self-join grouped by the parent's column through parent_id, as a LEFT JOIN (rows
** without a parent: the NULL group), with WHERE terms on the children, or parent first; and the
** shapes that keep the join: the children NULL-padded, a term on the parent, an OR. */
static void self_joins(void **state) {
  (void)state;
  static const char *const joined[] = {
      "SELECT p.name, COUNT(*) FROM slice c LEFT JOIN slice p ON c.parent_id = p.id GROUP BY 1 "
      "ORDER BY 1",
      "SELECT p.name, COUNT(*), SUM(c.dur) FROM slice c LEFT OUTER JOIN slice p ON p.id = "
      "c.parent_id WHERE c.dur > 0 GROUP BY p.name ORDER BY 2 DESC, 1",
      "SELECT p.depth, COUNT(*), MIN(c.ts) FROM slice c LEFT JOIN slice p ON c.parent_id = p.id "
      "GROUP BY p.depth ORDER BY 1",
      "SELECT p.name, COUNT(*) AS n FROM slice p JOIN slice c ON c.parent_id = p.id GROUP BY "
      "p.name ORDER BY n DESC, p.name LIMIT 10",
      "SELECT p.category, COUNT(*), MIN(c.ts) FROM slice AS p INNER JOIN slice AS c ON p.id = "
      "c.parent_id WHERE c.depth BETWEEN 1 AND 2 AND c.name GLOB 'C*' GROUP BY 1 ORDER BY 1",
      "SELECT p.name, COUNT(*) FROM slice c JOIN slice p ON c.parent_id = p.id WHERE c.name LIKE "
      "'c' AND c.ts > 1 GROUP BY p.name ORDER BY 1",
  };
  static const char *const kept[] = {
      "SELECT p.name, COUNT(*) FROM slice p LEFT JOIN slice c ON c.parent_id = p.id GROUP BY 1 "
      "ORDER BY 1",
      "SELECT p.name, COUNT(*) FROM slice c JOIN slice p ON c.parent_id = p.id WHERE c.dur > 0 AND "
      "p.depth >= 0 GROUP BY p.name ORDER BY 1",
      "SELECT p.name, COUNT(*) FROM slice c LEFT JOIN slice p ON c.parent_id = p.id WHERE p.dur > "
      "0 GROUP BY p.name ORDER BY 1",
      "SELECT p.name, COUNT(*) FROM slice c JOIN slice p ON c.parent_id = p.id WHERE c.dur > 0 OR "
      "c.dur < 0 GROUP BY p.name ORDER BY 1",
  };
  for (size_t k = 0; k < sizeof TRACES / sizeof *TRACES; k++) {
    trak_processor *p = sc_open(TRACES[k]);
    for (size_t i = 0; i < sizeof joined / sizeof *joined; i++) {
      if (!jc_self_joined(p, joined[i])) fail_msg("%s: not one group call", joined[i]);
      jc_same_join(p, joined[i], 1);
    }
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
      if (jc_self_joined(p, kept[i])) fail_msg("%s: grouped through the parent", kept[i]);
      sqlite3_stmt *st = NULL;
      int r = trak__psql_join_aggregates(p, kept[i], strlen(kept[i]), &st);
      sqlite3_finalize(st);
      jc_same_join(p, kept[i], r);
    }
    trak_processor_free(p);
  }
}

/* One table grouped by two columns (text, integer, nullable, computed through thread_slice's
** view and its filter) or by items' positions, with WHERE terms, HAVING-free ORDER BY and LIMIT
** over the groups and ties among them; and the shapes left to SQLite. */
static void two_keys(void **state) {
  (void)state;
  static const char *const rewritten[] = {
      "SELECT name, depth, COUNT(*) FROM slice GROUP BY name, depth",
      "SELECT depth, name, COUNT(*), SUM(dur), MIN(ts), MAX(dur) FROM slice GROUP BY 1, 2 ORDER BY "
      "3 DESC, 1, 2 LIMIT 5",
      "SELECT process_name, thread_name, COUNT(*), SUM(dur) FROM thread_slice GROUP BY 1, 2 ORDER "
      "BY 1, 2",
      "SELECT thread_name, COUNT(*) FROM thread_slice GROUP BY thread_name, tid ORDER BY 2 DESC, 1",
      "SELECT thread_name, name, COUNT(*) AS n FROM thread_slice GROUP BY 1, 2 ORDER BY n DESC",
      "SELECT upid, utid, COUNT(*), MAX(depth) FROM thread_slice GROUP BY upid, utid",
      "SELECT category, name, COUNT(*) FROM slice GROUP BY category, name ORDER BY 1 DESC, 2",
      "SELECT track_id, depth, COUNT(*) AS n, SUM(dur) FROM slice WHERE dur > 0 GROUP BY track_id, "
      "depth ORDER BY n, 1, 2",
      "SELECT name, parent_id, COUNT(*) FROM slice GROUP BY 1, 2",
      "SELECT name AS nm, COUNT(*) FROM slice GROUP BY 1 ORDER BY 2 DESC, nm",
  };
  static const char *const kept[] = {
      "SELECT name, depth, COUNT(*) FROM slice GROUP BY name, depth, track_id",
      "SELECT name, dur, COUNT(*) FROM slice GROUP BY name",
      "SELECT name, depth, AVG(dur) FROM slice GROUP BY name, depth",
      "SELECT name, ts, COUNT(*) FROM slice GROUP BY name, ts",
      "SELECT name, depth + 1, COUNT(*) FROM slice GROUP BY 1, 2",
      "SELECT name, COUNT(*) FROM slice GROUP BY 0",
      "SELECT name, COUNT(*) FROM slice GROUP BY 3",
      "SELECT track_id, value, COUNT(*) FROM counter GROUP BY track_id, value",
      "SELECT name, depth, COUNT(*) FROM slice GROUP BY name, depth ORDER BY dur",
  };
  for (size_t k = 0; k < sizeof TRACES / sizeof *TRACES; k++) {
    trak_processor *p = sc_open(TRACES[k]);
    sc_rows(p, "INCLUDE PERFETTO MODULE slices.with_context");
    for (size_t i = 0; i < sizeof rewritten / sizeof *rewritten; i++)
      sc_rewrite_same(p, rewritten[i], 1, trak__psql_column_aggregates, "__intrinsic_col_group");
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
      sc_rewrite_same(p, kept[i], 0, trak__psql_column_aggregates, "__intrinsic_col_group");
    trak_processor_free(p);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(joins), cmocka_unit_test(self_joins),
                                     cmocka_unit_test(two_keys)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
