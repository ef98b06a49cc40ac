/*
** The storage design's baseline: how fast plain SQLite tables can take slice rows. Inserts N
** rows shaped like trak's slice table (8 columns, names and categories as text) into an
** in-memory database with one prepared INSERT in one transaction, with and without an index
** on ts, and prints rows/s and SQLite's peak heap per row. Compare with import_bench, which
** builds columnar arrays behind virtual tables instead (docs/performance.md).
**
**   sqlite_insert_bench [ROWS]     default 2000000
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"

static void run(long rows, int with_index) {
  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db,
               "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
               "CREATE TABLE slice(id INTEGER PRIMARY KEY, ts INT, dur INT, track_id INT, "
               "category TEXT, name TEXT, depth INT, parent_id INT, arg_set_id INT)",
               NULL, NULL, NULL);
  if (with_index) sqlite3_exec(db, "CREATE INDEX slice_ts ON slice(ts)", NULL, NULL, NULL);
  sqlite3_int64 base = sqlite3_memory_used();
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db, "INSERT INTO slice VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL);
  char name[32], cat[16];
  double t0 = bench_now_sec();
  sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
  for (long i = 0; i < rows; i++) {
    snprintf(name, sizeof name, "Task::Run_%ld", i % 200);
    snprintf(cat, sizeof cat, "cat%ld", i % 8);
    sqlite3_bind_int64(st, 1, i);
    sqlite3_bind_int64(st, 2, 1000000000 + i * 500);
    sqlite3_bind_int64(st, 3, 250);
    sqlite3_bind_int64(st, 4, i % 16);
    sqlite3_bind_text(st, 5, cat, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 7, i % 4);
    if (i % 4)
      sqlite3_bind_int64(st, 8, i - 1);
    else
      sqlite3_bind_null(st, 8);
    if (i % 5)
      sqlite3_bind_null(st, 9);
    else
      sqlite3_bind_int64(st, 9, i);
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  double secs = bench_now_sec() - t0;
  printf("%s: %ld rows in %.2f s = %.2f M rows/s, %.1f bytes/row of SQLite heap\n",
         with_index ? "with ts index" : "no index     ", rows, secs, (double)rows / secs / 1e6,
         (double)(sqlite3_memory_highwater(1) - base) / (double)rows);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

int main(int argc, char **argv) {
  long rows = argc > 1 ? atol(argv[1]) : 2000000;
  run(rows, 0);
  run(rows, 1);
  return 0;
}
