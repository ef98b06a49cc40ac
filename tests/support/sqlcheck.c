/* The helpers of sqlcheck.h: tests that state a query's rows as one string. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"
#include "sqlcheck.h"
#include "testutil.h"
#include "trak/pb.h"
#include "trak/trak.h"

trak_processor *sc_open(const char *text) {
  trak_processor *p;
  trak_error err = {0};
  if (trak_processor_new(NULL, &p, &err)) fail_msg("%s", err.message);
  int rc = trak_processor_feed(p, text, strlen(text), &err);
  if (!rc) rc = trak_processor_finish(p, &err);
  /* set up now: the tests reach the SQL layer's internals, not only through trak_query_open */
  if (!rc) rc = trak__sql_ready(p, &err);
  if (rc) fail_msg("import: %s", err.message);
  return p;
}

trak_processor *sc_open_file(const char *path) {
  size_t len;
  char *text = tu_read_file(tu_source_path(path), &len);
  trak_processor *p = sc_open(text);
  free(text);
  return p;
}

int sc_setup_empty(void **state) {
  *state = sc_open("{\"traceEvents\":[]}");
  return 0;
}

int sc_teardown(void **state) {
  trak_processor_free(*state);
  return 0;
}

static char result[1 << 16];

/* Runs sql; returns 0 and fills `result`, or an error code with err filled. */
static int run(trak_processor *p, const char *sql, trak_error *err) {
  const char *rest = sql;
  result[0] = 0;
  while (rest && *rest) {
    trak_query *q;
    int rc = trak_query_open(p, rest, &q, &rest, err);
    if (rc) return rc;
    if (!q) break;
    int cols = trak_query_column_count(q);
    size_t w = 0;
    char buf[sizeof result];
    buf[0] = 0;
    while ((rc = trak_query_next(q, err)) > 0) {
      for (int c = 0; c < cols; c++) {
        const char *v = trak_query_type(q, c) == TRAK_VALUE_NULL ? "NULL" : trak_query_string(q, c);
        int k = snprintf(buf + w, sizeof buf - w, "%s%s", c ? "|" : (w ? "\n" : ""), v ? v : "");
        if (k > 0 && (size_t)k < sizeof buf - w) w += (size_t)k;
      }
    }
    trak_query_free(q);
    if (rc < 0) return rc;
    if (cols) memcpy(result, buf, w + 1);
  }
  return 0;
}

const char *sc_rows(trak_processor *p, const char *sql) {
  trak_error err = {0};
  if (run(p, sql, &err)) fail_msg("%s\nin: %s", err.message, sql);
  return result;
}

const char *sc_error(trak_processor *p, const char *sql) {
  trak_error err = {0};
  static char msg[sizeof err.message];
  if (!run(p, sql, &err)) fail_msg("expected an error from: %s", sql);
  memcpy(msg, err.message, sizeof msg);
  return msg;
}

const char *sc_column_names(trak_processor *p, const char *sql) {
  static char out[512];
  trak_query *q = NULL;
  trak_error err = {0};
  assert_int_equal(trak_query_open(p, sql, &q, NULL, &err), 0);
  out[0] = 0;
  for (int i = 0; i < trak_query_column_count(q); i++)
    snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? "|" : "",
             trak_query_column_name(q, i));
  trak_query_free(q);
  return out;
}

void sc_run_checks(trak_processor *p, const sc_check *c, size_t n) {
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    const char *got = sc_rows(p, c[i].sql);
    if (strcmp(got, c[i].want)) {
      print_error("query: %s\nwant: %s\ngot:  %s\n\n", c[i].sql, c[i].want, got);
      bad++;
    }
  }
  assert_int_equal(bad, 0);
}

int64_t sc_int(trak_processor *p, const char *fmt, ...) {
  char sql[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sql, sizeof sql, fmt, ap);
  va_end(ap);
  const char *rows = sc_rows(p, sql);
  char *end;
  long long v = strtoll(rows, &end, 10);
  if (end == rows || *end) fail_msg("%s: not one integer but '%s'", sql, rows);
  return v;
}

void sc_check_trace(const char *text, const char *setup, const sc_check *c, size_t n) {
  trak_processor *p = sc_open(text);
  if (setup) sc_rows(p, setup);
  sc_run_checks(p, c, n);
  trak_processor_free(p);
}

trak_processor *sc_record(void (*fn)(void)) {
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  trak_session *s = NULL;
  trak_error err;
  assert_int_equal(trak_session_new(&cfg, &s, &err), 0);
  assert_int_equal(trak_session_start(s, &err), 0);
  fn();
  uint8_t *data;
  size_t len;
  assert_int_equal(trak_session_stop(s, &err), 0);
  assert_int_equal(trak_session_read(s, &data, &len, &err), 0);
  trak_session_free(s);
  trak_processor *p;
  assert_int_equal(trak_processor_new(NULL, &p, &err), 0);
  assert_int_equal(trak_processor_feed(p, data, len, &err), 0);
  assert_int_equal(trak_processor_finish(p, &err), 0);
  assert_int_equal(trak__sql_ready(p, &err), 0);
  free(data);
  return p;
}

/* Every row of prepared `st` stepped to the end as text (type letter and value), or its error:
** a static buffer. */
static const char *stmt_rows(sqlite3_stmt *st) {
  static char out[8192];
  size_t at = 0;
  int rc;
  out[0] = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    for (int c = 0; c < sqlite3_column_count(st) && at < sizeof out; c++)
      at += (size_t)snprintf(
          out + at, sizeof out - at, "%c%s%s", "?IFTBN"[sqlite3_column_type(st, c)],
          sqlite3_column_type(st, c) == SQLITE_NULL ? "" : (const char *)sqlite3_column_text(st, c),
          c + 1 < sqlite3_column_count(st) ? "|" : "\n");
  if (rc != SQLITE_DONE && at < sizeof out)
    snprintf(out + at, sizeof out - at, "error: %s", sqlite3_errmsg(sqlite3_db_handle(st)));
  return out;
}

void sc_same_as_sqlite(trak_processor *p, const char *sql, sqlite3_stmt *fast, const char *what) {
  sqlite3_stmt *slow = NULL;
  if (sqlite3_prepare_v2(p->db, sql, -1, &slow, NULL) != SQLITE_OK)
    fail_msg("%s: %s", sql, sqlite3_errmsg(p->db));
  if (sqlite3_column_count(fast) != sqlite3_column_count(slow)) fail_msg("%s: columns", sql);
  for (int c = 0; c < sqlite3_column_count(slow); c++)
    if (strcmp(sqlite3_column_name(fast, c), sqlite3_column_name(slow, c)))
      fail_msg("%s: column %d is %s, SQLite's %s", sql, c, sqlite3_column_name(fast, c),
               sqlite3_column_name(slow, c));
  char *want = strdup(stmt_rows(slow));
  if (!want) fail_msg("out of memory");
  if (strcmp(stmt_rows(fast), want))
    fail_msg("%s\n%s: %s\ngot:  %sSQLite: %s", sql, what, sqlite3_sql(fast), stmt_rows(fast), want);
  free(want);
  sqlite3_finalize(fast);
  sqlite3_finalize(slow);
}

void sc_rewrite_same(trak_processor *p, const char *sql, int expect,
                     int (*rewrite)(trak_processor *, const char *, size_t, sqlite3_stmt **),
                     const char *marker) {
  sqlite3_stmt *fast = NULL;
  int r = rewrite(p, sql, strlen(sql), &fast);
  if (r != expect) fail_msg("%s: rewritten is %d, not %d", sql, r, expect);
  if (!r) return;
  if (!strstr(sqlite3_sql(fast), marker))
    fail_msg("%s: no %s in %s", sql, marker, sqlite3_sql(fast));
  sc_same_as_sqlite(p, sql, fast, marker);
}

void sc_same_query(trak_processor *p, const char *sql, const char *fast_sql, const char *what) {
  sqlite3_stmt *fast = NULL;
  if (sqlite3_prepare_v2(p->db, fast_sql, -1, &fast, NULL) != SQLITE_OK)
    fail_msg("%s: %s", fast_sql, sqlite3_errmsg(p->db));
  sc_same_as_sqlite(p, sql, fast, what);
}
