/*
** Tests of the columnar tables' scan paths (tables/vtab_scan.c): every query shape the virtual
** tables answer themselves (id lookups, binary search on sorted columns, equality indexes, IN
** lists, IS NULL / IS NOT NULL, string ids, ORDER BY on the row order, GROUP BY grouping) gives
** the rows plain SQLite gives for the same query on the same data copied into ordinary tables.
** The data holds NULLs, ties, duplicates and boundary values; the constants cover every
** column type with integers, reals, numeric and other text, blobs and NULL; the tables are also
** checked empty and after rows were appended out of order (sorted columns no longer sorted), and
** with equalities on 32-bit columns answered by an equality index from the first query or never
** (the column read on each query, as the first few queries of a column are). The one-byte
** dictionary columns are test_vtab_dict_paths's; the data and the check are support/vtab_paths.h's.
*/
#include "vtab_paths.h"

/* One comparison on every column of every table with every constant and operator (> and >=
** also scanned backwards), then the NULL tests, then each with ORDER BY id DESC and a LIMIT. */
static void test_single_constraints(void **state) {
  fixture *f = *state;
  char sql[8192], cols[16][64];
  for (size_t t = 0; t < NTABLES; t++) {
    int n = columns(f->db, tables[t], cols);
    for (int c = 0; c < n; c++) {
      for (size_t o = 0; o < NOPS; o++)
        for (size_t v = o % f->stride; v < NVALUES; v += f->stride) {
          snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s %s %s", tables[t], cols[c], ops[o],
                   values[v]);
          check(f, sql);
          if (o == 1 || o == 4) { /* a range filter's scan backwards */
            snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s %s %s ORDER BY id DESC LIMIT 5",
                     tables[t], cols[c], ops[o], values[v]);
            check(f, sql);
          }
          if (o >= 2) continue; /* the value on the left: = and > (so also <) */
          snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s %s %s", tables[t], values[v],
                   ops[o], cols[c]);
          check(f, sql);
        }
      snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s IS NULL", tables[t], cols[c]);
      check(f, sql);
      snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s IS NOT NULL ORDER BY id DESC LIMIT 7",
               tables[t], cols[c]);
      check(f, sql);
      static const char *const top[] = {"%s DESC, id LIMIT 5 OFFSET 2", "%s, id DESC LIMIT 7",
                                        "%s DESC, id DESC LIMIT 1", "%s, id LIMIT -1 OFFSET 3",
                                        "%s, id LIMIT 0"};
      for (size_t k = 0; k < sizeof top / sizeof *top; k++) { /* ORDER BY ... LIMIT: top-N */
        char order[256];
        snprintf(order, sizeof order, top[k], cols[c]);
        snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE id >= %zu ORDER BY %s", tables[t], k,
                 order);
        check(f, sql);
      }
      snprintf(sql, sizeof sql,
               "SELECT * FROM $%s WHERE %s IN (NULL, 0, 2, 2, '3', 5.0, 5.5, 'a', 'Task', x'00', "
               "4294967296)",
               tables[t], cols[c]);
      check(f, sql);
      snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s NOT IN (1, 2) ORDER BY id LIMIT 5",
               tables[t], cols[c]);
      check(f, sql);
      snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s IN (SELECT %s FROM $%s WHERE id < 9)",
               tables[t], cols[c], cols[c], tables[t]);
      check(f, sql);
      snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s = 'a' COLLATE NOCASE", tables[t],
               cols[c]);
      check(f, sql);
    }
  }
}

/* Two or three random constraints at once, with random ORDER BY / LIMIT / OFFSET. */
static void test_combined_constraints(void **state) {
  fixture *f = *state;
  char sql[16384], where[8192], cols[16][64];
  static const char *const orders[] = {"",
                                       " ORDER BY id",
                                       " ORDER BY id DESC LIMIT 4",
                                       " ORDER BY ts, id LIMIT 6 OFFSET 2",
                                       " ORDER BY ts DESC, id DESC LIMIT 5",
                                       " ORDER BY ts DESC, id DESC LIMIT 3 OFFSET 1",
                                       " ORDER BY 2, 1 LIMIT 9"};
  rng_state = 12345;
  for (unsigned q = 0; q < 3000 / f->stride; q++) {
    size_t t = rnd(NTABLES);
    int n = columns(f->db, tables[t], cols);
    where[0] = 0;
    for (int k = 0, nk = 2 + (int)rnd(2); k < nk; k++) {
      size_t len = strlen(where);
      uint32_t kind = rnd(8);
      const char *col = cols[rnd((uint32_t)n)];
      if (kind == 0)
        snprintf(where + len, sizeof where - len, "%s%s IS NULL", k ? " AND " : "", col);
      else if (kind == 1)
        snprintf(where + len, sizeof where - len, "%s%s IN (%s, %s, %s)", k ? " AND " : "", col,
                 values[rnd(NVALUES)], values[rnd(NVALUES)], values[rnd(NVALUES)]);
      else
        snprintf(where + len, sizeof where - len, "%s%s %s %s", k ? " AND " : "", col, ops[rnd(5)],
                 values[rnd(NVALUES)]);
    }
    const char *order = orders[rnd(sizeof orders / sizeof *orders)];
    int has_ts =
        !strcmp(tables[t], "slice") || !strcmp(tables[t], "counter") || !strcmp(tables[t], "state");
    if (strstr(order, "ts") && !has_ts) order = " ORDER BY id DESC LIMIT 4";
    snprintf(sql, sizeof sql, "SELECT * FROM $%s WHERE %s%s", tables[t], where, order);
    check(f, sql);
  }
}

/* Joins, aggregates, grouping and the shapes of bench/query_set.sql. */
static void test_query_shapes(void **state) {
  fixture *f = *state;
  static const char *const queries[] = {
      "SELECT COUNT(*) FROM $slice",
      "SELECT name, COUNT(*) AS n FROM $slice GROUP BY name ORDER BY n DESC, name",
      "SELECT name, COUNT(*) FROM $slice GROUP BY name",
      "SELECT track_id, COUNT(*), SUM(dur) FROM $slice GROUP BY track_id",
      "SELECT parent_id, COUNT(*) FROM $slice WHERE ts > 3 GROUP BY parent_id",
      "SELECT category, MAX(dur) FROM $slice WHERE track_id = 2 GROUP BY category",
      "SELECT arg_set_id, COUNT(*) FROM $counter GROUP BY arg_set_id",
      "SELECT id, dur FROM $slice ORDER BY dur DESC, id LIMIT 10",
      "SELECT id FROM $slice WHERE depth = 0 ORDER BY dur DESC, id LIMIT 1",
      "SELECT id, dur FROM $slice WHERE depth = 1 ORDER BY dur, id DESC LIMIT 4",
      "SELECT id, dur FROM $slice WHERE track_id = 2 AND depth = 0 ORDER BY dur LIMIT 3",
      "SELECT id FROM $slice WHERE dur > 5 ORDER BY parent_id DESC, id LIMIT 6",
      "SELECT id FROM $slice WHERE name GLOB 'T*' ORDER BY ts DESC, id LIMIT 2",
      "SELECT p.name, t.name, COUNT(*), SUM(s.dur) FROM $slice s JOIN $__intrinsic_track tt ON "
      "s.track_id = tt.id JOIN $thread t USING (utid) JOIN $process p USING (upid) GROUP BY 1, 2",
      "SELECT s.id, t.tid, p.pid FROM $slice s JOIN $__intrinsic_track tt ON tt.id = s.track_id "
      "JOIN $thread t ON t.utid = tt.utid LEFT JOIN $process p ON p.upid = t.upid",
      "SELECT p.name, COUNT(*) AS n FROM $slice c JOIN $slice p ON c.parent_id = p.id GROUP BY "
      "p.name ORDER BY n DESC, p.name",
      "SELECT c.id, p.id FROM $slice c LEFT JOIN $slice p ON p.id = c.parent_id WHERE c.depth > 1",
      "SELECT track_id, COUNT(*), MIN(value), MAX(value), AVG(value) FROM $counter GROUP BY "
      "track_id ORDER BY track_id",
      "SELECT COUNT(*), SUM(dur) FROM $slice WHERE ts BETWEEN 10 AND 60",
      "SELECT COUNT(*) FROM $slice WHERE track_id = 3 AND ts < 80 AND ts + dur > 40",
      "SELECT * FROM $slice WHERE track_id IN (SELECT id FROM $__intrinsic_track WHERE utid IS "
      "NOT NULL) AND ts >= 5 ORDER BY ts, id",
      "SELECT * FROM $slice WHERE id IN (SELECT parent_id FROM $slice) ORDER BY id DESC",
      "SELECT * FROM $slice WHERE name IN (SELECT name FROM $thread)",
      "SELECT * FROM $slice WHERE name = (SELECT name FROM $thread WHERE utid = 1)",
      "SELECT a.* FROM $slice s JOIN $args a ON a.arg_set_id = s.arg_set_id WHERE s.id < 40",
      "SELECT s.id, a.key FROM $slice s JOIN $args a USING (arg_set_id) WHERE a.int_value > 0",
      "SELECT * FROM $slice WHERE name LIKE 'T%' ORDER BY ts DESC, id DESC",
      "SELECT * FROM $slice WHERE name GLOB 'a*' AND dur >= 0",
      "SELECT s.name, t.name FROM $slice s JOIN $thread t ON s.name = t.name",
      "SELECT s.id FROM $slice s JOIN $thread t ON s.name = t.tid",
      "SELECT s.id FROM $slice s JOIN $thread t ON s.track_id = t.name",
      "SELECT t.utid, t.tid FROM $thread t WHERE t.tid IN (SELECT dur FROM $slice)",
      "SELECT id, ts FROM $slice ORDER BY ts DESC, id DESC LIMIT 12",
      "SELECT id, ts FROM $slice WHERE ts > 20 ORDER BY ts LIMIT 12",
      "SELECT DISTINCT name FROM $slice",
      "SELECT DISTINCT track_id FROM $slice ORDER BY track_id",
      "SELECT utid, name, dur FROM (SELECT t.utid, s.name, s.dur, row_number() OVER (PARTITION BY "
      "t.utid ORDER BY s.dur DESC, s.id) AS rn FROM $slice s JOIN $__intrinsic_track t ON t.id = "
      "s.track_id) WHERE rn <= 3 ORDER BY utid, rn",
      "SELECT f.id, o.name, i.name FROM $flow f JOIN $slice o ON o.id = f.slice_out JOIN $slice i "
      "ON i.id = f.slice_in",
      "SELECT * FROM $state WHERE value IS NULL OR track_id = 1",
      "SELECT * FROM $process WHERE uid IS NULL AND parent_upid IS NOT NULL",
      "SELECT * FROM $thread WHERE is_main_thread = 1 OR is_main_thread IS NULL",
      "SELECT track_id, COUNT(*) FROM $slice GROUP BY track_id ORDER BY track_id LIMIT 3",
      /* GROUP BY and ORDER BY DESC of one column: SQLite takes the grouping as the order. */
      "SELECT track_id, COUNT(*) FROM $slice GROUP BY track_id ORDER BY track_id DESC",
      "SELECT name, COUNT(*) FROM $slice GROUP BY name ORDER BY name DESC",
      "SELECT name, SUM(dur) FROM $slice WHERE dur > 3 GROUP BY name ORDER BY name DESC LIMIT 2",
      "SELECT name, COUNT(*) FROM $slice WHERE dur > 3 GROUP BY name ORDER BY name LIMIT 2",
      "SELECT DISTINCT depth FROM $slice ORDER BY depth DESC LIMIT 2",
      "SELECT depth, id FROM $slice WHERE depth IN (1, 2) ORDER BY depth DESC, id LIMIT 4",
      "SELECT id FROM $slice WHERE name = 'a' ORDER BY dur, id LIMIT 3 OFFSET 1",
  };
  for (size_t i = 0; i < sizeof queries / sizeof *queries; i++)
    check(f, queries[i]);
  /* Every table's row count, which answers `SELECT COUNT(*) FROM <table>` (column_aggregates.c). */
  for (size_t i = 0; i < NTABLES; i++) {
    char virt[128], plain[128];
    snprintf(virt, sizeof virt, "SELECT __intrinsic_row_count('%s')", tables[i]);
    snprintf(plain, sizeof plain, "SELECT COUNT(*) FROM \"p_%s\"", tables[i]);
    check_pair(f, virt, plain);
  }
  /* A prepared statement run twice with different bindings (the cursor is reset). */
  for (int plain = 0; plain < 2; plain++) {
    char *sql = expand("SELECT COUNT(*) FROM $slice WHERE track_id = ?1 AND ts >= ?2", plain);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(f->db, sql, -1, &st, NULL), SQLITE_OK);
    free(sql);
    int64_t counts[4];
    for (int k = 0; k < 4; k++) {
      sqlite3_bind_int(st, 1, k);
      sqlite3_bind_int(st, 2, k * 10);
      assert_int_equal(sqlite3_step(st), SQLITE_ROW);
      counts[k] = sqlite3_column_int64(st, 0);
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    static int64_t first[4];
    if (!plain) memcpy(first, counts, sizeof first);
    assert_memory_equal(first, counts, sizeof first);
  }
}

/* LIKE, GLOB and text comparisons (evaluated once per string id by SQLite's operators) on every
** column: patterns with and without wildcards, case, escapes, a GLOB prefix (SQLite adds a text
** range for it), values that are no text, NULL, a value from a subquery, the filter on the inner
** table of a join, NOT LIKE; again under PRAGMA case_sensitive_like (the built-in LIKE replaced).
** A pattern past SQLite's length limit fails both (the cursor fails before its first row, also
** when no row would have been matched: checked on tables with rows). */
static void test_text_filters(void **state) {
  fixture *f = *state;
  static const char *const patterns[] = {
      "'a%'", "'A%'",  "'T%'",     "'ta%'", "'%a%'",  "'_'",     "''",      "'%'",    "'Task*'",
      "'T*'", "'t*'",  "'[a-c]*'", "'*%*'", "'x%y'",  "'x\\%y'", "'3'",     "3",      "3.0",
      "NULL", "x'61'", "'abc'",    "'?'",   "'Task'", "'b'",     "'task%'", "'[^a]*'"};
  static const char *const shapes[] = {
      "SELECT * FROM $%s WHERE %s LIKE %s",
      "SELECT * FROM $%s WHERE %s GLOB %s",
      "SELECT * FROM $%s WHERE %s NOT LIKE %s",
      "SELECT * FROM $%s WHERE %s LIKE %s ESCAPE '\\'",
      "SELECT * FROM $%s WHERE %s LIKE (SELECT %s)",
      "SELECT * FROM $%s WHERE %s GLOB %s ORDER BY id DESC LIMIT 3",
      "SELECT * FROM $%s WHERE %s >= %s AND id < 1000",
      "SELECT * FROM $%s WHERE %s < (SELECT %s) ORDER BY id LIMIT 4 OFFSET 1",
  };
  char sql[4096], cols[16][64];
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1)
      assert_int_equal(sqlite3_exec(f->db, "PRAGMA case_sensitive_like = ON", NULL, NULL, NULL),
                       SQLITE_OK);
    for (size_t t = 0; t < NTABLES; t++) {
      int n = columns(f->db, tables[t], cols);
      for (int c = 0; c < n; c++)
        for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
          for (size_t v = (sh + c) % f->stride; v < sizeof patterns / sizeof *patterns;
               v += f->stride) {
            snprintf(sql, sizeof sql, shapes[sh], tables[t], cols[c], patterns[v]);
            check(f, sql);
          }
    }
    check(f, "SELECT t.id, p.id FROM $thread t JOIN $process p ON t.upid = p.id "
             "WHERE p.name LIKE 'a%' OR p.name GLOB 'T*'");
    check(f, "SELECT t.id, p.id FROM $thread t JOIN $process p ON t.upid = p.id "
             "AND p.name LIKE '%a%' ORDER BY t.id");
    check(f, "SELECT name, COUNT(*) FROM $slice WHERE name LIKE 't%' GROUP BY name");
  }
  sqlite3_exec(f->db, "PRAGMA case_sensitive_like = OFF", NULL, NULL, NULL);
  if (!f->t.slice.n) return;
  int limit = sqlite3_limit(f->db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 2);
  check(f, "SELECT * FROM $slice WHERE name LIKE 'abc%'");
  check(f, "SELECT * FROM $slice WHERE name GLOB 'abc*'");
  char *err = NULL;
  free(run(f->db, "SELECT * FROM slice WHERE name LIKE 'abc%'", 0, &err));
  assert_non_null(err);
  assert_non_null(strstr(err, "too complex"));
  free(err);
  sqlite3_limit(f->db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, limit);
}

/* The slice's computed columns as plain SQL joins them (the joins of Perfetto's thread_slice and
** process_slice, which read them), on the plain copies. */
static const char *const computed_ref =
    "SELECT s.*, th.utid AS __utid,"
    "  CAST(CASE WHEN th.utid IS NOT NULL THEN th.upid ELSE pp.upid END AS BIGINT) AS __upid,"
    "  tr.name AS __track_name, th.name AS __thread_name, th.tid AS __tid,"
    "  th.is_main_thread AS __is_main_thread, pr.name AS __process_name, pr.pid AS __pid "
    "FROM p_slice s LEFT JOIN p___intrinsic_track tr ON tr.id = s.track_id "
    "LEFT JOIN p_thread th ON tr.classification = 'thread_track' AND th.utid = tr.utid "
    "LEFT JOIN p_process pp ON tr.classification = 'process_track' AND pp.upid = tr.upid "
    "LEFT JOIN p_process pr ON pr.upid = (CASE WHEN th.utid IS NOT NULL THEN th.upid "
    "  ELSE pp.upid END)";

/* The slice's computed (hidden) columns, read and filtered (every constant and operator, NULL
** tests, IN, ORDER BY ... LIMIT) and the views with_context.sql builds on them, against
** computed_ref; they stay out of SELECT *. */
static void test_computed_columns(void **state) {
  fixture *f = *state;
  static const char *const cols[] = {"__utid",         "__upid", "__track_name",
                                     "__thread_name",  "__tid",  "__is_main_thread",
                                     "__process_name", "__pid"};
  char virt[4096], plain[8192], cond[512];
  for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
    for (size_t k = 0; k < NOPS * NVALUES + 5; k += f->stride) {
      if (k < NOPS * NVALUES)
        snprintf(cond, sizeof cond, "%s %s %s", cols[c], ops[k % NOPS], values[k / NOPS]);
      else
        snprintf(
            cond, sizeof cond,
            (const char *const[]){"%s IS NULL", "%s IS NOT NULL", "%s IN (0, 1, 3, 'a', 99)",
                                  "%s > 0 ORDER BY %s DESC, id LIMIT 4",
                                  "%s IS NOT NULL ORDER BY %s, dur DESC, id"}[k - NOPS * NVALUES],
            cols[c], cols[c]);
      snprintf(virt, sizeof virt, "SELECT id, %s FROM slice WHERE %s", cols[c], cond);
      snprintf(plain, sizeof plain, "SELECT id, %s FROM (%s) WHERE %s", cols[c], computed_ref,
               cond);
      check_pair(f, virt, plain);
    }
  }
  snprintf(plain, sizeof plain,
           "SELECT id, __utid, __upid, __track_name, __thread_name, __tid, "
           "__is_main_thread, __process_name, __pid FROM (%s) ORDER BY id",
           computed_ref);
  check_pair(f,
             "SELECT id, __utid, __upid, __track_name, __thread_name, __tid, __is_main_thread, "
             "__process_name, __pid FROM slice ORDER BY id",
             plain);
  /* with_context.sql's thread_slice and process_slice against Perfetto's joins. */
  check_pair(f,
             "SELECT id, __track_name, __thread_name, __utid, __tid, __is_main_thread, "
             "__process_name, __upid, __pid FROM slice WHERE __utid >= 0",
             "SELECT s.id, tt.name, th.name, th.utid, th.tid, th.is_main_thread, pr.name, "
             "th.upid, pr.pid FROM p___intrinsic_track tt JOIN p_thread th ON th.utid = tt.utid "
             "LEFT JOIN p_process pr ON pr.upid = th.upid JOIN p_slice s ON s.track_id = tt.id "
             "WHERE tt.classification = 'thread_track'");
  check_pair(f,
             "SELECT id, __track_name, __process_name, __upid, __pid FROM slice "
             "WHERE __upid >= 0 AND __utid IS NULL",
             "SELECT s.id, pt.name, pr.name, pr.upid, pr.pid FROM p_slice s JOIN "
             "p___intrinsic_track pt ON pt.id = s.track_id JOIN p_process pr ON pr.upid = pt.upid "
             "WHERE pt.classification = 'process_track'");
  sqlite3_stmt *st; /* SELECT * shows Perfetto's 15 columns, not the computed ones */
  assert_int_equal(sqlite3_prepare_v2(f->db, "SELECT * FROM slice", -1, &st, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_column_count(st), 15);
  sqlite3_finalize(st);
}

/* ORDER BY several columns (the cursor sorts the rows): directions, NULLs, ties decided by the
** row order or by the id, with filters and a LIMIT, on every table. */
static void test_sorts(void **state) {
  fixture *f = *state;
  char sql[4096], cols[16][64];
  static const char *const shapes[] = {
      "SELECT * FROM $%s ORDER BY %s, %s", "SELECT * FROM $%s ORDER BY %s DESC, %s, id",
      "SELECT * FROM $%s ORDER BY %s, %s DESC, id DESC",
      "SELECT * FROM $%s WHERE id > 3 ORDER BY %s DESC, %s DESC LIMIT 9 OFFSET 2",
      "SELECT id FROM $%s ORDER BY %s, %s, id DESC, 1"};
  for (size_t t = 0; t < NTABLES; t++) {
    int n = columns(f->db, tables[t], cols);
    for (int a = 0; a < n; a++)
      for (int b = (a + 1) % n, k = 0; k < 3; k++, b = (b + 5) % n)
        for (size_t sh = (a + k) % f->stride; sh < sizeof shapes / sizeof *shapes;
             sh += f->stride) {
          snprintf(sql, sizeof sql, shapes[sh], tables[t], cols[a], cols[b]);
          check(f, sql);
        }
  }
}

/* The plans use the paths: an id lookup, a binary search, an index, ORDER BY consumed. */
static void test_plans(void **state) {
  fixture *f = *state;
  static const char *const want[][2] = {
      {"SELECT * FROM slice WHERE id = 5", "INDEX 0:A="},
      {"SELECT * FROM slice WHERE ts > 5", "INDEX 0:B>"},
      {"SELECT * FROM slice WHERE track_id IN (1, 2)", "INDEX 0:Di"},
      {"SELECT * FROM slice WHERE parent_id IS NULL", "INDEX 0:Hn"},
      {"SELECT * FROM slice ORDER BY id DESC", "INDEX 2:"},
      {"SELECT * FROM slice ORDER BY dur DESC, id LIMIT 3", ":@L"},
      {"SELECT * FROM slice WHERE name LIKE 'a%'", "INDEX 0:Fk"},
      {"SELECT * FROM slice WHERE name GLOB 'T*'", "Fb"},
      {"SELECT * FROM slice ORDER BY depth, dur DESC, id", "INDEX 85008:"},
      {"SELECT * FROM slice WHERE __utid IS NOT NULL", "INDEX 0:PN"},
  };
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    char *sql = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", want[i][0]);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(f->db, sql, -1, &st, NULL), SQLITE_OK);
    sqlite3_free(sql);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    const char *detail = (const char *)sqlite3_column_text(st, 3);
    if (!strstr(detail, want[i][1])) {
      fprintf(stderr, "%s: plan %s, want %s\n", want[i][0], detail, want[i][1]);
      fail();
    }
    sqlite3_finalize(st);
  }
}

/* Filtered scans read ahead in batches (vtab_scan.c): rows that pass far apart, none in whole
** batches, more than a batch holds, LIMIT and OFFSET stopping mid-batch, NULLs and text in the
** columns read, an index's candidates with and without a further filter, joins that filter the
** inner cursor again per row. */
static void test_read_ahead(void **state) {
  fixture *f = *state;
  static const char *const queries[] = {
      "SELECT id, ts, dur, name, parent_id, thread_ts FROM $slice WHERE dur = 12345",
      "SELECT id, ts FROM $slice WHERE dur = 12345 LIMIT 3",
      "SELECT id, ts FROM $slice WHERE dur = 12345 LIMIT 5 OFFSET 18",
      "SELECT id, ts FROM $slice WHERE dur = 12345 LIMIT 590 OFFSET 25",
      "SELECT id, depth, category, parent_id, thread_ts FROM $slice WHERE depth = 2",
      "SELECT id, ts, dur FROM $slice WHERE depth = 2 LIMIT 700",
      "SELECT id, ts, dur FROM $slice WHERE depth = 1 AND ts > 100 AND ts < 9000",
      "SELECT id, dur FROM $slice WHERE depth = 1 AND id > 3000 AND id < 9000",
      "SELECT id, name FROM $slice WHERE depth = 0 AND name LIKE 't%'",
      "SELECT id, name, ts FROM $slice WHERE depth = 3 ORDER BY name, ts, id",
      "SELECT id, ts, dur, thread_ts FROM $slice WHERE track_id = 2",
      "SELECT id, ts, dur FROM $slice WHERE track_id = 2 AND depth = 0",
      "SELECT id, ts FROM $slice WHERE track_id IN (1, 3) AND ts > 1000 AND ts < 5000",
      "SELECT id FROM $slice WHERE parent_id IS NULL AND dur = 12345",
      "SELECT COUNT(*), SUM(ts), MIN(thread_ts), MAX(parent_id) FROM $slice WHERE depth = 3",
      "SELECT a.id, b.id FROM $slice a JOIN $slice b ON b.depth = a.depth AND b.dur = a.dur "
      "WHERE a.dur = 12345 AND a.id < 5",
      "SELECT a.id, COUNT(b.id) FROM $slice a JOIN $slice b ON b.track_id = a.track_id "
      "AND b.depth = 0 WHERE a.id < 3 GROUP BY a.id",
  };
  for (size_t i = 0; i < sizeof queries / sizeof *queries; i++)
    check(f, queries[i]);
}

#define ALL_TESTS(setup)                                                                           \
  cmocka_unit_test_setup_teardown(test_single_constraints, setup, teardown),                       \
      cmocka_unit_test_setup_teardown(test_combined_constraints, setup, teardown),                 \
      cmocka_unit_test_setup_teardown(test_query_shapes, setup, teardown),                         \
      cmocka_unit_test_setup_teardown(test_text_filters, setup, teardown),                         \
      cmocka_unit_test_setup_teardown(test_computed_columns, setup, teardown),                     \
      cmocka_unit_test_setup_teardown(test_sorts, setup, teardown)

#define INDEX_TESTS(setup)                                                                         \
  cmocka_unit_test_setup_teardown(test_single_constraints, setup, teardown),                       \
      cmocka_unit_test_setup_teardown(test_combined_constraints, setup, teardown),                 \
      cmocka_unit_test_setup_teardown(test_query_shapes, setup, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      ALL_TESTS(setup_rows),
      ALL_TESTS(setup_empty),
      ALL_TESTS(setup_unsorted),
      INDEX_TESTS(setup_index_at_once),
      INDEX_TESTS(setup_index_never),
      cmocka_unit_test_setup_teardown(test_plans, setup_rows, teardown),
      cmocka_unit_test_setup_teardown(test_query_shapes, setup_large, teardown),
      cmocka_unit_test_setup_teardown(test_read_ahead, setup_ahead, teardown),
      cmocka_unit_test_setup_teardown(test_read_ahead, setup_rows, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
