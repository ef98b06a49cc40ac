/*
** Tests of whole-table aggregates answered from the columns (sql/perfetto_sql/column_aggregates.c
** and __intrinsic_col_agg in tables/vtab.c): for every column of every table, and through the
** prelude's views (thread_state, sched_slice, raw, ...), the rewritten statement answers what
** SQLite's own row-by-row scan answers (the same statement with `WHERE 1`, which is not
** rewritten), with the same column names; the shapes that must stay SQLite's are not rewritten.
** Joins grouped first by the join's column (sql/perfetto_sql/join_aggregates.c) answer what
** SQLite's own evaluation of the statement answers.
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
#include "processor/tables/vtab.h"
#include "join_check.h"
#include "sqlcheck.h"

static const char TRACE[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":10,\"name\":\"A\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":2,\"dur\":5,\"name\":\"B\",\"args\":{\"x\":3.5}},"
    "{\"ph\":\"B\",\"pid\":1,\"tid\":3,\"ts\":20,\"name\":\"open\"}"
    "]}";

/* Two slices whose durations (5e18 ns each) sum past 64 bits. */
static const char HUGE[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":5e15,\"name\":\"A\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":1,\"dur\":5e15,\"name\":\"B\"}"
    "]}";

/* Counters whose sums and averages depend on the order of the additions (0.1 + 0.2 + 0.3 + 1e16
** + 1 - 1e16), -0.0 before 0.0 (SQLite's MIN and MAX keep the first of equal values), a sum past
** the largest double (inf) and a track of one value; one slice. */
static const char REALS[] =
    "{\"traceEvents\":["
    "{\"ph\":\"C\",\"pid\":1,\"ts\":1,\"name\":\"a\",\"args\":{\"v\":0.1}},"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":2,\"name\":\"a\",\"args\":{\"v\":0.2}},"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":3,\"name\":\"a\",\"args\":{\"v\":0.3}},"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":4,\"name\":\"a\",\"args\":{\"v\":1e16}},"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":5,\"name\":\"a\",\"args\":{\"v\":1}},"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":6,\"name\":\"a\",\"args\":{\"v\":-1e16}},"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":7,\"name\":\"a\",\"args\":{\"v\":0.7}},"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":1,\"name\":\"b\",\"args\":{\"v\":-0.0}},"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":2,\"name\":\"b\",\"args\":{\"v\":0.0}},"
    "{\"ph\":\"C\",\"pid\":2,\"ts\":1,\"name\":\"c\",\"args\":{\"v\":1e308}},"
    "{\"ph\":\"C\",\"pid\":2,\"ts\":2,\"name\":\"c\",\"args\":{\"v\":1e308}},"
    "{\"ph\":\"C\",\"pid\":2,\"ts\":3,\"name\":\"d\",\"args\":{\"v\":-7}},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":10,\"name\":\"A\"}"
    "]}";

typedef int (*rewriter)(trak_processor *p, const char *s, size_t n, sqlite3_stmt **out);

/* Whether `rw` rewrites `sql`: 0 not, 1 into a statement containing `needle`, -1 into another. */
static int rewritten_to(rewriter rw, trak_processor *p, const char *sql, const char *needle) {
  sqlite3_stmt *st = NULL;
  int r = rw(p, sql, strlen(sql), &st);
  if (r) r = strstr(sqlite3_sql(st), needle) ? 1 : -1;
  sqlite3_finalize(st);
  return r;
}

/* Whether `sql` is rewritten to be answered from the columns. */
static int rewritten(trak_processor *p, const char *sql) {
  int r = rewritten_to(trak__psql_column_aggregates, p, sql, "__intrinsic_");
  assert_true(r >= 0);
  return r;
}

/* `fast` is rewritten (or not: `expect`) and answers, with the same column names, what `slow`
** (the same statement kept SQLite's) answers. */
static void same_sql(trak_processor *p, const char *fast, const char *slow, int expect) {
  char names[512];
  if (rewritten(p, fast) != expect) fail_msg("%s: rewritten is not %d", fast, expect);
  assert_int_equal(rewritten(p, slow), 0);
  char *rows = strdup(sc_rows(p, slow));
  assert_non_null(rows);
  if (strcmp(sc_rows(p, fast), rows)) fail_msg("%s: %s, SQLite: %s", fast, sc_rows(p, fast), rows);
  free(rows);
  snprintf(names, sizeof names, "%s", sc_column_names(p, slow));
  assert_string_equal(sc_column_names(p, fast), names);
}

/* `SELECT items FROM rel tail` is rewritten (or not: `expect`) and answers, with the same
** column names, what SQLite's scan of every row answers (`WHERE 1` before the tail). */
static void same_tail(trak_processor *p, const char *items, const char *rel, const char *tail,
                      int expect) {
  char fast[512], slow[512];
  snprintf(fast, sizeof fast, "SELECT %s FROM %s%s", items, rel, tail);
  snprintf(slow, sizeof slow, "SELECT %s FROM %s WHERE 1%s", items, rel, tail);
  same_sql(p, fast, slow, expect);
}

static void same(trak_processor *p, const char *items, const char *rel, int expect) {
  same_tail(p, items, rel, "", expect);
}

/* Whether SQLite adds reals in row order (before 3.43), as the columns' sums and averages do. */
static int plain_sums(void) {
  return sqlite3_libversion_number() < 3043000;
}

/* same_tail, and every value the same to the bit (sc_rows' text shows reals to 15 digits). */
static void same_bits(trak_processor *p, const char *items, const char *rel, const char *tail,
                      int expect) {
  char fast[512], slow[512];
  same_tail(p, items, rel, tail, expect);
  snprintf(fast, sizeof fast, "SELECT %s FROM %s%s", items, rel, tail);
  snprintf(slow, sizeof slow, "SELECT %s FROM %s WHERE 1%s", items, rel, tail);
  trak_query *a = NULL, *b = NULL;
  trak_error err = {0};
  assert_int_equal(trak_query_open(p, fast, &a, NULL, &err), 0);
  assert_int_equal(trak_query_open(p, slow, &b, NULL, &err), 0);
  int ra, rb, rows = 0;
  while ((ra = trak_query_next(a, &err)) > 0 && (rb = trak_query_next(b, &err)) > 0) {
    for (int c = 0; c < trak_query_column_count(a); c++) {
      assert_int_equal(trak_query_type(a, c), trak_query_type(b, c));
      double x = trak_query_double(a, c), y = trak_query_double(b, c);
      if (memcmp(&x, &y, sizeof x)) fail_msg("%s: column %d: %.17g, SQLite %.17g", fast, c, x, y);
    }
    rows++;
  }
  assert_int_equal(ra, 0);
  assert_int_equal(trak_query_next(b, &err), 0);
  trak_query_free(a);
  trak_query_free(b);
  (void)rows;
}

/* Every column of every columnar table, each aggregate it answers; returns how many were
** rewritten. */
static int every_column(trak_processor *p) {
  static const char *const fns[] = {"COUNT", "SUM", "MIN", "MAX", "AVG"};
  int n = 0;
  for (size_t i = 0; trak__vt_table(i); i++) {
    const vt_table *t = trak__vt_table(i);
    for (int c = 0; c < t->ncols; c++)
      for (size_t f = 0; f < sizeof fns / sizeof *fns; f++) {
        char items[128], sql[256];
        snprintf(items, sizeof items, "%s(%s)", fns[f], t->cols[c].name);
        snprintf(sql, sizeof sql, "SELECT %s FROM %s", items, t->name);
        int r = rewritten(p, sql);
        /* Integer columns answer all five, reals too where SQLite adds them in order; text
        ** COUNT only; args' values none. */
        vt_kind k = t->cols[c].kind;
        int want = k <= VT_U32N || k == VT_BOOLN || k == VT_NUL || (f == 0 && k <= VT_F64) ||
                   (k == VT_F64 && !t->cols[c].calc && plain_sums());
        if (r != want) fail_msg("%s: rewritten %d", sql, r);
        same(p, items, t->name, r);
        n += r;
      }
    /* GROUP BY each integer or text column, with the four aggregates of the id. */
    for (int c = 0; c < t->ncols; c++) {
      vt_kind k = t->cols[c].kind;
      char items[160], tail[64];
      snprintf(items, sizeof items, "%s, COUNT(*), SUM(id), MIN(id) AS lo, MAX(id), COUNT(%s)",
               t->cols[c].name, t->cols[c].name);
      snprintf(tail, sizeof tail, " GROUP BY %s", t->cols[c].name);
      int want = (k <= VT_STR || k == VT_BOOLN) && !t->cols[c].sorted;
      if (t->cols[0].kind == VT_ID) same_tail(p, items, t->name, tail, want);
      n += want;
      /* AVG, and the real columns' aggregates, by an integer key: to the bit; a text key's
      ** folded groups would add in another order, so it is SQLite's. */
      for (int r = 0; t->cols[0].kind == VT_ID && r <= t->ncols; r++) {
        if (r < t->ncols && (t->cols[r].kind != VT_F64 || t->cols[r].calc)) continue;
        const char *x = r < t->ncols ? t->cols[r].name : "id";
        snprintf(items, sizeof items, "%s, AVG(%s), SUM(%s), MIN(%s), MAX(%s), COUNT(*)",
                 t->cols[c].name, x, x, x, x);
        same_bits(p, items, t->name, tail, want && k != VT_STR && plain_sums());
      }
    }
  }
  return n;
}

static void tables_json(void **state) {
  (void)state;
  trak_processor *p = sc_open(TRACE);
  assert_true(every_column(p) > 100);
  /* Views keeping rows by `WHERE column >= integer` (slices.with_context's thread_slice): one
  ** __intrinsic_col_group with the filter, also without a key and over no rows. */
  sc_rows(p, "INCLUDE PERFETTO MODULE slices.with_context;"
             "CREATE VIEW v_ts AS SELECT dur AS d, utid AS u FROM thread_slice;"
             "CREATE VIEW v_ge AS SELECT dur, name FROM slice WHERE dur >= 6;"
             "CREATE VIEW v_gt AS SELECT dur FROM slice WHERE dur > 6;"
             "CREATE VIEW v_txt AS SELECT dur FROM slice WHERE name >= 0;"
             "CREATE VIEW v_two AS SELECT dur FROM v_ge WHERE dur >= 7;"
             "CREATE VIEW v_none AS SELECT dur FROM __intrinsic_thread_state WHERE utid >= 0");
  const char *ts = "COUNT(*), SUM(dur), COUNT(thread_name), COUNT(process_name), MAX(tid), "
                   "MAX(depth)";
  same(p, ts, "thread_slice", 1);
  same_tail(p, "utid, COUNT(*), SUM(dur), MIN(tid)", "thread_slice", " GROUP BY utid", 1);
  same_tail(p, "utid, COUNT(*) AS n", "thread_slice", " GROUP BY utid ORDER BY n DESC LIMIT 1", 1);
  same(p, "COUNT(*), SUM(d), MAX(u)", "v_ts", 1);
  same(p, "COUNT(*), SUM(dur), COUNT(name)", "v_ge", 1);
  same_tail(p, "name, COUNT(*), SUM(dur)", "v_ge", " GROUP BY name", 1);
  same(p, "COUNT(*), SUM(dur)", "v_none", 1); /* no rows: 0 and NULL */
  same(p, "COUNT(*), SUM(dur)", "v_gt", 0);
  same(p, "COUNT(*), SUM(dur)", "v_txt", 0);
  same(p, "COUNT(*), SUM(dur)", "v_two", 0);
  same(p, "COUNT(*), SUM(dur)", "process_slice", 0); /* two conditions */
  same(p, "COUNT(*), sum(dur) AS total, MIN(ts) lo, max( dur ), COUNT(name)", "slice", 1);
  same(p, "SUM(dur), MIN(dur)", "__intrinsic_thread_state", 1); /* no rows: NULL */
  same(p, "COUNT(*), SUM(dur)", "thread_state", 1);
  trak_processor_free(p);
}

static void tables_sched(void **state) {
  (void)state;
  trak_processor *p = sc_open_file("tests/data/systrace/ui_sched.systrace");
  assert_true(sc_int(p, "SELECT COUNT(*) FROM thread_state WHERE dur = -1") > 0);
  assert_true(sc_int(p, "SELECT COUNT(blocked_function) FROM thread_state WHERE 1") > 0);
  assert_true(every_column(p) > 100);
  /* The prelude's views that rename a table's columns: followed to it, even two deep. */
  same(p,
       "COUNT(*), SUM(dur), MIN(dur), MAX(dur), COUNT(blocked_function), SUM(io_wait), "
       "MAX(cpu), MIN(waker_id)",
       "thread_state", 1);
  same(p, "SUM(irq_context), COUNT(waker_utid), MAX(ucpu), MIN(utid)", "thread_state", 1);
  assert_int_equal(rewritten(p, "select sum(dur) from THREAD_STATE ; "), 1);
  assert_int_equal(sc_int(p, "select sum(dur) from THREAD_STATE ; "),
                   sc_int(p, "SELECT SUM(dur) FROM thread_state WHERE 1"));
  same(p, "COUNT(*), SUM(dur), MAX(cpu), MIN(priority), COUNT(end_state)", "sched_slice", 1);
  same(p, "COUNT(*), MAX(ts), SUM(common_flags)", "raw", 1);
  /* Shapes left to SQLite. */
  same(p, "SUM(ts_end)", "sched", 0);                      /* an expression of the view */
  same(p, "COUNT(*)", "cpu", 0);                           /* a view with a WHERE */
  same(p, "SUM(dur) + 1", "thread_state", 0);              /* not a bare aggregate */
  same(p, "SUM(DISTINCT dur)", "thread_state", 0);         /* DISTINCT */
  same(p, "SUM(dur) FILTER (WHERE 1)", "thread_state", 0); /* FILTER */
  same(p, "SUM(\"dur\")", "thread_state", 0);              /* a quoted column */
  same(p, "TOTAL(dur)", "thread_state", 0);                /* not one of the four */
  same(p, "SUM(state)", "thread_state", 0);                /* text: SQLite's sum of strings */
  same(p, "COUNT(*), SUM(dur)", "thread_state AS t", 0);
  /* GROUP BY: the key anywhere in the list, the groups in SQLite's order (NULL first). */
  same_tail(p, "state, COUNT(*), SUM(dur)", "thread_state", " GROUP BY state", 1);
  same_tail(p, "COUNT(*) AS n, MAX(dur), state AS s, MIN(ts)", "thread_state", " GROUP BY state",
            1);
  same_tail(p, "blocked_function, COUNT(*)", "thread_state", " GROUP BY blocked_function", 1);
  same_tail(p, "cpu, SUM(dur), COUNT(*)", "thread_state", " GROUP BY cpu", 1);
  same_tail(p, "io_wait, SUM(dur)", "thread_state", " GROUP BY io_wait", 1);
  same_tail(p, "utid, SUM(dur), MAX(priority)", "sched", " GROUP BY utid", 1);
  same_tail(p, "end_state, COUNT(*)", "sched_slice", " GROUP BY end_state;", 1);
  same_tail(p, "utid, COUNT(*)", "thread_state", " GROUP BY state", 0); /* not the key */
  /* ORDER BY and LIMIT over the groups: terms naming result columns (an alias that is also a
  ** column of the relation is the alias in both); the rest stays SQLite's. */
  static const struct {
    const char *items, *tail;
    int rewritten;
  } orders[] = {
      {"state, COUNT(*)", "ORDER BY 2", 1},
      {"state, COUNT(*) AS n", "ORDER BY n DESC, state", 1},
      {"state, COUNT(*) AS n", "ORDER BY n DESC, state LIMIT 2 OFFSET 1", 1},
      {"state AS s, COUNT(*) AS n", "ORDER BY s NULLS LAST", 1},
      {"state, COUNT(*) AS n", "LIMIT 1", 1},
      {"state, COUNT(*) AS dur, SUM(dur) AS cpu", "ORDER BY cpu DESC, dur, state", 1},
      {"state, COUNT(*)", "ORDER BY \"COUNT(*)\"", 0},
      {"state, COUNT(*)", "ORDER BY 'x'", 0},
      {"state, COUNT(*)", "ORDER BY COUNT(*)", 0},
      {"state, COUNT(*) AS n", "ORDER BY n + 1", 0},
      {"state AS s, COUNT(*)", "ORDER BY state", 0},
      {"state, COUNT(*)", "ORDER BY utid", 0},
      {"state, COUNT(*) AS n", "HAVING n > 1", 0},
      {"state, COUNT(*) AS n, MAX(dur) AS n", "ORDER BY n", 0}, /* two columns of one name */
  };
  for (size_t i = 0; i < sizeof orders / sizeof *orders; i++) {
    char tail[128];
    snprintf(tail, sizeof tail, " GROUP BY state %s", orders[i].tail);
    same_tail(p, orders[i].items, "thread_state", tail, orders[i].rewritten);
  }
  same_tail(p, "state, COUNT(*)", "thread_state", " GROUP BY state, utid", 1); /* two keys */
  same_tail(p, "state, COUNT(*)", "thread_state", " GROUP BY state, utid, cpu", 0);
  same_tail(p, "ts_end, COUNT(*)", "sched", " GROUP BY ts_end", 0);
  assert_int_equal(rewritten(p, "SELECT state, SUM(dur) FROM thread_state"), 0);
  assert_int_equal(rewritten(p, "SELECT SUM(dur) FROM thread_state WHERE dur > 0"), 1);
  assert_int_equal(rewritten(p, "SELECT SUM(dur) FROM thread_state WHERE dur > 0 OR 1"), 0);
  assert_int_equal(rewritten(p, "SELECT SUM(dur) FROM \"thread_state\""), 0);
  assert_int_equal(rewritten(p, "SELECT SUM(nosuch) FROM thread_state"), 0);
  assert_non_null(strstr(sc_error(p, "SELECT SUM(nosuch) FROM thread_state"), "nosuch"));
  /* A user's views: a renaming one is followed; one aggregating, filtering, with `*` beside
  ** other items, or shadowed by a temporary object is not. */
  sc_rows(p, "CREATE VIEW v_ren AS SELECT dur AS d, utid FROM thread_state;"
             "CREATE VIEW v_agg AS SELECT count(*) AS d FROM thread_state;"
             "CREATE VIEW v_where AS SELECT dur AS d FROM thread_state WHERE dur > 0;"
             "CREATE VIEW v_star AS SELECT *, utid AS d FROM thread_state;"
             "CREATE VIEW v_distinct AS SELECT DISTINCT dur AS d FROM thread_state");
  same(p, "SUM(d), COUNT(*), MAX(utid)", "v_ren", 1);
  same(p, "SUM(d)", "v_agg", 0);
  same(p, "SUM(d)", "v_where", 0);
  same(p, "SUM(d), SUM(dur)", "v_star", 0);
  same(p, "SUM(d)", "v_distinct", 0);
  sc_rows(p, "CREATE TEMP VIEW thread_state AS SELECT 5 AS dur");
  same(p, "SUM(dur)", "thread_state", 0);
  assert_int_equal(sc_int(p, "SELECT SUM(dur) FROM thread_state"), 5);
  sc_rows(p, "DROP VIEW temp.thread_state");
  same(p, "SUM(dur)", "thread_state", 1);
  trak_processor_free(p);
}

/* A sum past 64 bits is SQLite's error, not a wrapped number. */
static void overflow(void **state) {
  (void)state;
  trak_processor *p = sc_open(HUGE);
  assert_int_equal(sc_int(p, "SELECT MAX(dur) FROM slice"), 5000000000000000000);
  assert_int_equal(rewritten(p, "SELECT SUM(dur) FROM slice"), 1);
  char slow[256];
  snprintf(slow, sizeof slow, "%s", sc_error(p, "SELECT SUM(dur) FROM slice WHERE 1"));
  assert_non_null(strstr(slow, "integer overflow"));
  assert_string_equal(sc_error(p, "SELECT SUM(dur) FROM slice"), slow);
  assert_int_equal(rewritten(p, "SELECT depth, SUM(dur) FROM slice GROUP BY depth"), 1);
  snprintf(slow, sizeof slow, "%s",
           sc_error(p, "SELECT depth, SUM(dur) FROM slice WHERE 1 GROUP BY depth"));
  assert_non_null(strstr(slow, "integer overflow"));
  assert_string_equal(sc_error(p, "SELECT depth, SUM(dur) FROM slice GROUP BY depth"), slow);
  assert_non_null(strstr(sc_error(p, "SELECT __intrinsic_col_agg('slice', 'total', 'dur')"),
                         "no such columnar table, column or aggregate"));
  trak_processor_free(p);
}

/* Real columns and AVG, whole-table and by a key, also with the key's own ORDER BY: the bits of
** SQLite's answers, on counters, on tables without rows and on no counters. */
static void reals(void **state) {
  (void)state;
  trak_processor *p = sc_open(REALS);
  assert_int_equal(sc_int(p, "SELECT COUNT(*) FROM counter_track"), 4);
  assert_true(every_column(p) > 100);
  int w = plain_sums();
  const char *all = "COUNT(*), MIN(value), MAX(value), AVG(value), SUM(value), COUNT(value)";
  same_bits(p, all, "counter", "", w);
  same_bits(p, "AVG(ts), AVG(track_id), AVG(id)", "counter", "", w);
  same_bits(p, "AVG(dur), SUM(dur)", "__intrinsic_thread_state", "", w); /* no rows: NULL */
  /* The query set's counter_agg, and the ORDER BY shapes that are the groups' order. */
  const char *q = "track_id, COUNT(*), MIN(value), MAX(value), AVG(value)";
  same_bits(p, q, "counter", " GROUP BY track_id ORDER BY track_id", w);
  same_bits(p, q, "counter", " GROUP BY track_id ORDER BY track_id ASC;", w);
  same_bits(p, q, "counter", " GROUP BY track_id", w);
  same_bits(p, "AVG(value) AS a, track_id AS t", "counter", " GROUP BY track_id ORDER BY t", w);
  /* The key by a name the groups lack: left to SQLite. */
  same_bits(p, "AVG(value) AS a, track_id AS t", "counter", " GROUP BY track_id ORDER BY track_id",
            0);
  same_bits(p, q, "counter", " GROUP BY track_id ORDER BY track_id DESC", w);
  /* Ties of the ORDER BY (two tracks of two values) in SQLite's order. */
  same_bits(p, "track_id, COUNT(*)", "counter", " GROUP BY track_id ORDER BY 2 DESC LIMIT 3", w);
  same_bits(p, "track_id, COUNT(*)", "counter", " GROUP BY track_id ORDER BY 2", w);
  same_bits(p, q, "counter", " GROUP BY track_id ORDER BY 5, 1 LIMIT 3", w);
  same_bits(p, q, "counter", " GROUP BY track_id ORDER BY ts", 0);
  same_bits(p, q, "counter", " GROUP BY track_id ORDER BY track_id, ts", 0);
  /* An alias spelling the key: ORDER BY orders by the alias, in both. */
  same_bits(p, "track_id, MAX(value) AS track_id", "counter",
            " GROUP BY track_id ORDER BY track_id", 0);
  same_bits(p, "COUNT(*), MAX(value) AS track_id", "counter",
            " GROUP BY track_id ORDER BY track_id DESC", w);
  /* A text key folds groups: its AVG and real sums stay SQLite's; integer ones are folded. */
  same_bits(p, "name, AVG(dur)", "slice", " GROUP BY name", 0);
  same_bits(p, "name, SUM(dur), MIN(ts)", "slice", " GROUP BY name ORDER BY name", 1);
  trak_processor_free(p);
  /* No counters at all. */
  p = sc_open(HUGE);
  same_bits(p, all, "counter", "", w);
  same_bits(p, q, "counter", " GROUP BY track_id ORDER BY track_id", w);
  trak_processor_free(p);
}

/* `SELECT items FROM rel WHERE where tail` is rewritten (or not: `expect`) and answers, with the
** same column names, what SQLite answers for it with ` AND 1` after the terms (a term that is no
** `column op value`, so the statement stays SQLite's). */
static void same_where(trak_processor *p, const char *items, const char *rel, const char *where,
                       const char *tail, int expect) {
  char fast[1024], slow[1024];
  snprintf(fast, sizeof fast, "SELECT %s FROM %s WHERE %s%s", items, rel, where, tail);
  snprintf(slow, sizeof slow, "SELECT %s FROM %s WHERE %s AND 1%s", items, rel, where, tail);
  same_sql(p, fast, slow, expect);
}

/* A nested trace: slices on three threads of two processes, top-level ones (parent_id NULL), an
** unfinished one (dur -1), a thread without a name; a trace without slices. */
static const char NESTED[] =
    "{\"traceEvents\":["
    "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"P1\"}},"
    "{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"T2\"}},"
    "{\"ph\":\"M\",\"pid\":4,\"tid\":5,\"name\":\"thread_name\",\"args\":{\"name\":\"T2\"}},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":10,\"name\":\"A\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":2,\"dur\":5,\"name\":\"B\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":1,\"name\":\"C\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":8,\"dur\":2,\"name\":\"B\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":1,\"dur\":7,\"name\":\"A\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":3,\"ts\":2,\"dur\":3,\"name\":\"A\"},"
    "{\"ph\":\"X\",\"pid\":4,\"tid\":5,\"ts\":1,\"dur\":4,\"name\":\"B\"},"
    "{\"ph\":\"B\",\"pid\":4,\"tid\":5,\"ts\":20,\"name\":\"open\"}"
    "]}";


/* Aggregates of a columnar table joined by one of its columns, grouped first by that column
** (join_aggregates.c): the query set's slice x thread x process and parent joins, NULL keys,
** unfinished slices, text counts, HAVING and ORDER BY over the aggregates, no slices at all, a
** sum past 64 bits; aggregates under WHERE terms `column op value` (the columnar scan's filters
** inside __intrinsic_col_group); and the shapes that must stay SQLite's. */
static void join_groups(void **state) {
  (void)state;
  static const char *const rewritten_ok[] = {
      "SELECT p.name, t.name, COUNT(*), SUM(s.dur) FROM slice s JOIN thread_track tt ON "
      "s.track_id = tt.id JOIN thread t USING (utid) JOIN process p USING (upid) GROUP BY 1, 2 "
      "ORDER BY 1, 2",
      "SELECT p.name, COUNT(*) AS n FROM slice c JOIN slice p ON c.parent_id = p.id GROUP BY "
      "p.name ORDER BY n DESC, p.name LIMIT 10",
      "SELECT t.name, MIN(s.dur), MAX(s.dur) m, COUNT(s.name), SUM(s.depth), COUNT(s.parent_id) "
      "FROM slice AS s INNER JOIN thread_track tt ON tt.id = s.track_id JOIN thread t ON "
      "t.utid = tt.utid GROUP BY t.name ORDER BY 1",
      "SELECT c.parent_id, COUNT(*), SUM(c.dur) FROM slice c JOIN process pr GROUP BY c.parent_id",
      "SELECT s.track_id, COUNT(*) FROM slice s, thread_track tt WHERE s.track_id = tt.id AND "
      "tt.utid > 0 GROUP BY s.track_id HAVING COUNT(*) > 1 ORDER BY COUNT(*) DESC, 1",
      "SELECT p.name, COUNT(*) + 1 FROM slice c JOIN slice p ON c.parent_id = p.id GROUP BY p.name",
      "SELECT slice.depth, COUNT(*) FROM slice JOIN thread GROUP BY slice.depth",
      "SELECT t.name AS tn, MAX(s.dur) FROM slice s JOIN thread_track tt ON s.track_id = tt.id "
      "JOIN thread t USING (utid) GROUP BY 1 HAVING MAX(s.dur) > 1 ORDER BY tn DESC",
  };
  static const char *const refused[] = {
      "SELECT p.name, AVG(c.dur) FROM slice c JOIN slice p ON c.parent_id = p.id GROUP BY 1",
      "SELECT p.name, SUM(p.dur) FROM slice c JOIN slice p ON c.parent_id = p.id GROUP BY 1",
      "SELECT p.name, SUM(dur) FROM slice c JOIN process p GROUP BY 1",
      "SELECT p.name, COUNT(DISTINCT c.name) FROM slice c JOIN slice p ON c.parent_id = p.id "
      "GROUP BY 1",
      "SELECT p.name, COUNT(*) FROM slice c JOIN slice p ON c.parent_id = p.id AND c.depth > 0 "
      "GROUP BY 1",
      "SELECT p.name, COUNT(*) FROM slice c JOIN slice p ON c.parent_id = p.id",
      "SELECT p.name, COUNT(*) FROM slice c JOIN slice p ON c.id = p.parent_id GROUP BY 1",
      "SELECT c.*, COUNT(*) FROM slice c JOIN process p GROUP BY 1",
      "SELECT p.name, COUNT(*) FROM slice c JOIN slice p ON c.parent_id = (SELECT 1) GROUP BY 1",
      "SELECT t.name, SUM(c.value) FROM counter c JOIN track t ON c.track_id = t.id GROUP BY 1",
      "SELECT p.name, COUNT(*) OVER () FROM slice c JOIN slice p ON c.parent_id = p.id GROUP BY 1",
      "SELECT p.name, COUNT(*) FROM thread_slice c JOIN slice p ON c.parent_id = p.id GROUP BY 1",
      "SELECT p.name, COUNT(*) FROM slice c GROUP BY 1",
      /* a bare column beside the one MAX: SQLite takes it from the row of the greatest dur */
      "SELECT t.name, tt.id, MAX(s.dur) FROM slice s JOIN thread_track tt ON s.track_id = tt.id "
      "JOIN thread t USING (utid) GROUP BY t.name",
      "SELECT t.name, MIN(s.dur) FROM slice s JOIN thread_track tt ON s.track_id = tt.id JOIN "
      "thread t USING (utid) GROUP BY t.name ORDER BY tt.id",
      "SELECT t.name, MIN(s.dur) FROM slice s JOIN thread_track tt ON s.track_id = tt.id JOIN "
      "thread t USING (utid) GROUP BY 1 ORDER BY utid",
  };
  /* WHERE terms `column op value` answered by the columnar scan's filters inside
  ** __intrinsic_col_group: ranges with SQLite's affinity and boundaries, NULL, text patterns. */
  static const char *const where_ok[] = {
      "ts BETWEEN 2 AND 8",
      "ts BETWEEN (SELECT MIN(ts) + 1 FROM slice) AND (SELECT MAX(ts) FROM slice) AND dur > -1",
      "dur > NULL",
      "dur < 9223372036854775807",
      "ts > -9223372036854775808",
      "ts >= -9223372036854775808 AND dur <= -9223372036854775808",
      "dur >= 2.5",
      "dur == '5'",
      "dur < 'abc'",
      "dur > 'abc'",
      "dur > 1e300",
      "name GLOB 'A*'",
      "name LIKE 'a%'",
      "name > 'A' AND name <= 'B'",
      "name LIKE NULL",
      "parent_id = 0",
      "parent_id > 0",
      "depth BETWEEN 1 AND 1",
      "depth = 1 + 0 * 5",
      "track_id = (SELECT MAX(track_id) FROM slice)",
  };
  static const char *const where_refused[] = {
      "dur > 1 OR dur < 0",
      "name = 'A'",
      "dur + 0 > 1",
      "NOT dur > 1",
      "dur > 1 = 1",
      "dur IN (1, 2)",
      "name LIKE 'a' ESCAPE 'x'",
      "dur > CASE WHEN 1 THEN 2 END",
      "5 < dur",
      "dur NOT BETWEEN 1 AND 2",
      "name < 'b' COLLATE NOCASE",
      "dur IS NULL",
  };
  const char *traces[] = {NESTED, JC_NO_SLICES, TRACE};
  for (size_t k = 0; k < sizeof traces / sizeof *traces; k++) {
    trak_processor *p = sc_open(traces[k]);
    sc_rows(p, "INCLUDE PERFETTO MODULE slices.with_context");
    for (size_t i = 0; i < sizeof where_ok / sizeof *where_ok; i++) {
      same_where(p, "COUNT(*), SUM(dur), MIN(ts), COUNT(name)", "slice", where_ok[i], "", 1);
      same_where(p, "name, COUNT(*) AS n", "slice", where_ok[i], " GROUP BY name ORDER BY n, name",
                 1);
    }
    for (size_t i = 0; i < sizeof where_refused / sizeof *where_refused; i++)
      same_where(p, "COUNT(*), SUM(dur)", "slice", where_refused[i], "", 0);
    same_where(p, "COUNT(*), SUM(dur), MAX(tid)", "thread_slice", "dur > 3", "", 1);
    same_where(p, "COUNT(*), SUM(value)", "counter", "value > 0", "", 0);
    /* names the table-valued function's own columns would take */
    sc_rows(p,
            "CREATE VIEW IF NOT EXISTS v_k AS SELECT dur AS k, depth AS key, ts AS w0 FROM slice");
    same_where(p, "COUNT(*), SUM(k)", "v_k", "k > 1", "", 1);
    same_where(p, "COUNT(*), SUM(k)", "v_k", "key >= k", "", 0);
    same_where(p, "COUNT(*), SUM(k)", "v_k", "w0 > (\"key\")", "", 0);
    same_where(p, "COUNT(*), SUM(k)", "v_k", "k > (SELECT key)", "", 0);
    for (size_t i = 0; i < sizeof rewritten_ok / sizeof *rewritten_ok; i++)
      jc_same_join(p, rewritten_ok[i], 1);
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
      jc_same_join(p, refused[i], 0);
    trak_processor_free(p);
  }
  /* A sum past 64 bits: "integer overflow" from both. */
  trak_processor *p = sc_open(HUGE);
  jc_same_join(p,
            "SELECT pr.pid, SUM(s.dur) FROM slice s JOIN thread_track tt ON s.track_id = tt.id "
            "JOIN thread t USING (utid) JOIN process pr USING (upid) GROUP BY 1",
            1);
  assert_non_null(strstr(sc_error(p, "SELECT pr.pid, SUM(s.dur) FROM slice s JOIN thread_track tt "
                                     "ON s.track_id = tt.id JOIN thread t USING (utid) JOIN "
                                     "process pr USING (upid) GROUP BY 1"),
                         "integer overflow"));
  trak_processor_free(p);
}



/* A self-join on parent_id = id grouped by the parent's column, answered by grouping the children
** by that column read in their parent's row: the same answers as SQLite's join, with the ON
** either way round, text, integer and nullable keys (NULL categories, top-level parents'
** NULL parent_id), every partial aggregate, HAVING and ORDER BY; shapes that keep the join (a
** WHERE, two GROUP BY terms, a join on another column, the child's key read elsewhere) still
** answer SQLite's answers. */
static void self_joins(void **state) {
  (void)state;
  static const char *const joined[] = {
      "SELECT p.name, COUNT(*) AS n FROM slice c JOIN slice p ON c.parent_id = p.id GROUP BY "
      "p.name ORDER BY n DESC, p.name LIMIT 10",
      "SELECT p.name, COUNT(*), SUM(c.dur), MIN(c.ts), MAX(c.depth), COUNT(c.category) FROM slice "
      "c JOIN slice p ON p.id = c.parent_id GROUP BY p.name ORDER BY 1",
      "SELECT p.depth, COUNT(*) FROM slice AS c INNER JOIN slice AS p ON c.parent_id = p.id GROUP "
      "BY p.depth ORDER BY 1",
      "SELECT p.category, COUNT(*), MAX(c.dur) FROM slice c JOIN slice p ON c.parent_id = p.id "
      "GROUP BY p.category ORDER BY 1",
      "SELECT p.parent_id, COUNT(*) FROM slice c JOIN slice p ON c.parent_id = p.id GROUP BY "
      "p.parent_id ORDER BY 1",
      "SELECT p.name AS pn, COUNT(*) FROM slice c JOIN slice p ON c.parent_id = p.id GROUP BY "
      "p.name HAVING COUNT(*) > 1 ORDER BY pn DESC",
      "SELECT p.dur, MIN(c.dur) FROM slice c JOIN slice p ON c.parent_id = p.id GROUP BY 1 "
      "ORDER BY 1",
      "SELECT p.name, COUNT(*), SUM(c.parent_id) FROM slice c JOIN slice p ON c.parent_id = p.id "
      "GROUP BY p.name ORDER BY 1",
      "SELECT p.name AS pn, COUNT(*) FROM slice c JOIN slice p ON c.parent_id = p.id GROUP BY 1 "
      "ORDER BY 2, 1",
  };
  static const char *const kept[] = {
      "SELECT p.name, COUNT(*) FROM slice c JOIN slice p ON c.parent_id = p.id WHERE p.depth >= 0 "
      "GROUP BY p.name ORDER BY 1",
      "SELECT p.name, p.depth, COUNT(*) FROM slice c JOIN slice p ON c.parent_id = p.id GROUP BY "
      "p.name, p.depth ORDER BY 1, 2",
      "SELECT p.name, COUNT(*) FROM slice c JOIN slice p ON c.parent_id = p.track_id GROUP BY "
      "p.name ORDER BY 1",
      "SELECT c.parent_id, COUNT(*) FROM slice c JOIN slice p ON c.parent_id = p.id GROUP BY "
      "c.parent_id ORDER BY 1",
      "SELECT p.name, COUNT(*) FROM slice c JOIN slice p ON c.depth = p.id GROUP BY p.name ORDER "
      "BY 1",
      "SELECT p.dur + 1, COUNT(*) FROM slice c JOIN slice p ON c.parent_id = p.id GROUP BY 1 ORDER "
      "BY 1",
      "SELECT p.name, COUNT(*) FROM slice c JOIN slice c ON c.parent_id = c.id GROUP BY 1",
  };
  const char *traces[] = {JC_DEEP, NESTED, JC_NO_SLICES, TRACE};
  for (size_t k = 0; k < sizeof traces / sizeof *traces; k++) {
    trak_processor *p = sc_open(traces[k]);
    for (size_t i = 0; i < sizeof joined / sizeof *joined; i++) {
      if (!jc_self_joined(p, joined[i])) fail_msg("%s: not one group call", joined[i]);
      jc_same_join(p, joined[i], 1);
    }
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
      if (jc_self_joined(p, kept[i])) fail_msg("%s: grouped through the parent", kept[i]);
      jc_same_join(p, kept[i], rewritten_to(trak__psql_join_aggregates, p, kept[i], "") != 0);
    }
    trak_processor_free(p);
  }
}

/* A JSON trace of `n` slices on three threads, names A0..A9 and B0..B9 in turn, durations
** 0..96 (every 97th unfinished: dur -1), three slices "H" whose durations sum past 64 bits when
** `huge`, and args: an integer `n` (i % 11, or a real on every 5th, missing on every 4th), a
** text `s` on every 3rd. sqlite3_free it. */
static char *many_slices(int n, int huge) {
  sqlite3_str *s = sqlite3_str_new(NULL);
  sqlite3_str_appendall(s, "{\"traceEvents\":[");
  for (int i = 0; i < n; i++) {
    int tid = 2 + i % 3;
    if (huge && i >= 1500 && i < 1503) {
      sqlite3_str_appendf(s,
                          "{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":4e15,"
                          "\"name\":\"H\"},",
                          tid, i * 10);
      continue;
    }
    if (i % 97 == 0) {
      sqlite3_str_appendf(s, "{\"ph\":\"B\",\"pid\":1,\"tid\":9,\"ts\":%d,\"name\":\"U\"},",
                          i * 10);
      continue;
    }
    sqlite3_str_appendf(s,
                        "{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":%d,"
                        "\"name\":\"%c%d\",\"args\":{",
                        tid, i * 10, (i * 37) % 97, i % 2 ? 'B' : 'A', i % 10);
    if (i % 4 == 0)
      sqlite3_str_appendf(s, "\"m\":1");
    else if (i % 5 == 0)
      sqlite3_str_appendf(s, "\"n\":%d.5", i % 11);
    else
      sqlite3_str_appendf(s, "\"n\":%d", i % 11);
    if (i % 3 == 0) sqlite3_str_appendf(s, ",\"s\":\"t%d\"", i % 7);
    sqlite3_str_appendall(s, "}},");
  }
  sqlite3_str_appendall(s, "{\"ph\":\"C\",\"pid\":1,\"ts\":1,\"name\":\"c\",\"args\":{\"v\":1}}]}");
  return sqlite3_str_finish(s);
}

/* The one group's rows read in batches (trak__vt_skip_batch, 1,024 rows at a time) answer
** what SQLite's row-by-row scan answers on a trace of 3,000 slices: ranges, patterns, two filters
** (the per-row step), no filter, a filtering view, COUNT of a nullable column, MIN and MAX, and
** a sum that passes 64 bits only after the first batches. */
static void batches(void **state) {
  (void)state;
  static const char *const where[] = {
      "ts BETWEEN 100 AND 25000",
      "dur > 40",
      "dur >= -1 AND dur < 3",
      "name GLOB 'A*'",
      "name LIKE 'b%'",
      "name GLOB 'A*' AND dur > 10",
      "name > 'B3'",
      "ts > 29000",
      "dur = -1",
      "depth = 0",
      "arg_set_id > 5",
      "name GLOB 'Z*'",
  };
  for (int huge = 0; huge < 2; huge++) {
    char *json = many_slices(3000, huge);
    trak_processor *p = sc_open(json);
    sqlite3_free(json);
    assert_int_equal(sc_int(p, "SELECT COUNT(*) FROM slice"), 3000);
    sc_rows(p, "INCLUDE PERFETTO MODULE slices.with_context");
    for (size_t i = 0; i < sizeof where / sizeof *where; i++) {
      same_where(p,
                 huge ? "COUNT(*), MIN(ts), MAX(dur), COUNT(arg_set_id)"
                      : "COUNT(*), SUM(dur), MIN(ts), MAX(dur), COUNT(arg_set_id)",
                 "slice", where[i], "", 1);
      same_where(p, "COUNT(*), MAX(ts), SUM(depth)", "thread_slice", where[i], "", 1);
    }
    if (!huge) same(p, "COUNT(*), SUM(dur), MIN(dur), COUNT(arg_set_id)", "thread_slice", 1);
    for (int kept = 0; huge && kept < 2; kept++) { /* the third "H" passes 64 bits */
      const char *q = kept ? "SELECT SUM(dur) FROM slice WHERE name GLOB 'H*' AND 1"
                           : "SELECT SUM(dur) FROM slice WHERE name GLOB 'H*'";
      assert_int_equal(rewritten(p, q), !kept);
      assert_non_null(strstr(sc_error(p, q), "integer overflow"));
    }
    if (huge)
      assert_int_equal(sc_int(p, "SELECT SUM(dur) FROM slice WHERE name GLOB 'H*' AND "
                                 "ts < 15020000"),
                       8000000000000000000);
    trak_processor_free(p);
  }
}

/* WHERE terms `extract_arg(arg_set_id, 'key') op literal` (vtab_args.c, decided once per arg set)
** answer what SQLite's extract_arg answers row by row: integer, real and text args against
** integer, real and text literals (numbers before text, integers against reals exactly, the int64
** limits, 1e300), a key no slice has, slices without args, beside other terms (the per-row step)
** and grouped; the shapes left to SQLite; a CREATE PERFETTO FUNCTION extract_arg in front of the
** built-in one. */
static void arg_terms(void **state) {
  (void)state;
  static const char *const ok[] = {
      "extract_arg(arg_set_id, 'args.n') > 5",
      "extract_arg(arg_set_id, 'args.n') >= 5",
      "extract_arg(arg_set_id, 'args.n') = 5",
      "extract_arg(arg_set_id, 'args.n') == 5.5",
      "extract_arg(arg_set_id, 'args.n') < 5.5",
      "extract_arg(arg_set_id, 'args.n') <= -1",
      "extract_arg(arg_set_id, 'args.n') > 5.0",
      "extract_arg(arg_set_id, 'args.n') > -9223372036854775808",
      "extract_arg(arg_set_id, 'args.n') < 9223372036854775807",
      "extract_arg(arg_set_id, 'args.n') < 9223372036854775808",
      "extract_arg(arg_set_id, 'args.n') > -1e300",
      "extract_arg(arg_set_id, 'args.n') < +3",
      "extract_arg(arg_set_id, 'args.n') = '5'",
      "extract_arg(arg_set_id, 'args.n') < 'a'",
      "extract_arg(arg_set_id, 'args.s') = 't3'",
      "extract_arg(arg_set_id, 'args.s') > 't3'",
      "extract_arg(arg_set_id, 'args.s') <= 't'",
      "extract_arg(arg_set_id, 'args.s') > 5",
      "extract_arg(arg_set_id, 'args.s') < ''",
      "extract_arg(arg_set_id, 'args.x') > 3",
      "extract_arg(arg_set_id, 'args.x') = 3.5",
      "extract_arg(arg_set_id, 'args.zz') > 0",
      "extract_arg(arg_set_id, '') < 1",
      "extract_arg( arg_set_id , 'args.m' ) = 1",
      "extract_arg(depth, 'args.n') >= 0",
      "extract_arg(parent_id, 'utid') > 0",
      "name GLOB 'A*' AND extract_arg(arg_set_id, 'args.n') > 3",
      "extract_arg(arg_set_id, 'args.n') > 3 AND dur > 10",
      "extract_arg(arg_set_id, 'args.n') >= 2 AND extract_arg(arg_set_id, 'args.s') < 't4'",
  };
  static const char *const refused[] = {
      "extract_arg(arg_set_id, 'args.n') > dur",
      "extract_arg(arg_set_id, 'args.n') > NULL",
      "extract_arg(arg_set_id, 'args.n') BETWEEN 1 AND 3",
      "extract_arg(arg_set_id, 'args.n') LIKE '5'",
      "extract_arg(arg_set_id, 'args.n') > x'00'",
      "extract_arg(arg_set_id, 'args.n') > CAST(1 AS INT)",
      "extract_arg(arg_set_id, 'args.n') > 1 + 1",
      "extract_arg(name, 'args.n') > 1",
      "extract_arg(arg_set_id, name) > 1",
      "extract_arg(ts, 'args.n') > 1",
      "extract_arg(arg_set_id, 'args.n') IS 5",
      "extract_arg(arg_set_id, 'args.n') != 5",
      "5 < extract_arg(arg_set_id, 'args.n')",
  };
  char *json = many_slices(3000, 0);
  const char *traces[] = {json, NESTED, JC_NO_SLICES, TRACE};
  for (size_t k = 0; k < sizeof traces / sizeof *traces; k++) {
    trak_processor *p = sc_open(traces[k]);
    sc_rows(p, "INCLUDE PERFETTO MODULE slices.with_context");
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
      same_where(p, "COUNT(*), SUM(dur), MIN(ts)", "slice", ok[i], "", 1);
      same_where(p, "name, COUNT(*) AS n", "slice", ok[i], " GROUP BY name ORDER BY n, name", 1);
    }
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
      same_where(p, "COUNT(*), SUM(dur)", "slice", refused[i], "", 0);
    if (k == 0) { /* the terms pass rows: not only empty answers */
      assert_int_equal(sc_int(p, "SELECT COUNT(*) FROM slice WHERE "
                                 "extract_arg(arg_set_id, 'args.n') = 5.5"),
                       sc_int(p, "SELECT COUNT(*) FROM slice WHERE "
                                 "extract_arg(arg_set_id, 'args.n') = 5.5 AND 1"));
      assert_true(sc_int(p, "SELECT COUNT(*) FROM slice WHERE "
                            "extract_arg(arg_set_id, 'args.s') > 't3'") > 100);
    }
    /* a function of the same name defined by the user: SQLite's to call */
    sc_rows(p, "CREATE PERFETTO FUNCTION extract_arg(a INT, k STRING) RETURNS INT AS SELECT 7");
    same_where(p, "COUNT(*), SUM(dur)", "slice", "extract_arg(arg_set_id, 'args.n') > 5", "", 0);
    assert_int_equal(sc_int(p, "SELECT COUNT(*) FROM slice WHERE "
                               "extract_arg(arg_set_id, 'args.n') > 5"),
                     sc_int(p, "SELECT COUNT(*) FROM slice"));
    trak_processor_free(p);
  }
  sqlite3_free(json);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(tables_json), cmocka_unit_test(tables_sched), cmocka_unit_test(overflow),
      cmocka_unit_test(reals),       cmocka_unit_test(join_groups),  cmocka_unit_test(self_joins),
      cmocka_unit_test(batches),     cmocka_unit_test(arg_terms),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
