/*
** This file holds __intrinsic_ts_floor(table, x), the lower bound on ts that
** sql/perfetto_sql/end_bound.c adds to statements filtering on `ts + dur > x`: x minus the
** greatest dur of the rows before x, remembered and extended between calls.
*/
#include <stdlib.h>

#include "processor/tables/vtab_aggregate.h"
#include "processor/tables/vtab_scan.h"

/* The greatest dur of the first rows of one table, remembered for __intrinsic_ts_floor: a
** statement bounded by end_bound.c calls it once per execution, and a pass over 2 M durations
** costs millions of instructions. The value holds while the table is the same one, of the same
** generation of the tables (bumped when rows are appended or rolled back after the import) and
** row count; a call that needs more rows extends it. */
typedef struct floor_cache {
  const trak_tables *t;
  const vt_table *tbl; /* the table of `max` (NULL: nothing remembered) */
  uint32_t generation;
  size_t rows;
  size_t upto; /* `max` is MAX(dur) of rows [0, upto) (upto 0: none read) */
  int64_t max;
} floor_cache;

/* The greatest of the n (> 0) values at `d`: four running maxima (independent chains the CPU
** overlaps; one chain waits on each comparison), then the rest. */
static int64_t max_i64(const int64_t *d, size_t n) {
  int64_t m0 = d[0], m1 = d[0], m2 = d[0], m3 = d[0];
  size_t r = 0;
  for (; r + 4 <= n; r += 4) {
    m0 = d[r] > m0 ? d[r] : m0;
    m1 = d[r + 1] > m1 ? d[r + 1] : m1;
    m2 = d[r + 2] > m2 ? d[r + 2] : m2;
    m3 = d[r + 3] > m3 ? d[r + 3] : m3;
  }
  for (; r < n; r++)
    m0 = d[r] > m0 ? d[r] : m0;
  m0 = m1 > m0 ? m1 : m0;
  m2 = m3 > m2 ? m3 : m2;
  return m2 > m0 ? m2 : m0;
}

/* The first of rows [0, n) whose sorted values `ts` are >= x (n when none is). */
static size_t first_at_or_after(const int64_t *ts, size_t n, int64_t x) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ts[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* __intrinsic_ts_floor(table, x): x - M, a lower bound on the ts of every row with `ts + dur >
** x`, where M is MAX(dur) over the rows with ts < x (over every row when ts is not sorted; 0 when
** no row or only negative durations come before x): such a row has ts > x - dur >= x - M, and
** every row with ts >= x is at or above x - M. end_bound.c adds `ts >= __intrinsic_ts_floor(...)`
** to such statements, a range on the sorted ts the scan is given. With sorted ts only the rows
** before x are read (half the durations for a window at the middle of the trace). INT64_MIN (no
** bound) when x is not an integer, the table has no rows or the difference overflows; NULL for a
** NULL x (the term is NULL for every row). */
static void ts_floor_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  floor_cache *fc = sqlite3_user_data(ctx);
  const trak_tables *t = fc->t;
  const vt_table *tbl = trak__vt_table_named((const char *)sqlite3_value_text(argv[0]));
  const vt_col *dur = tbl ? trak__vt_col_named(tbl, "dur") : NULL;
  const vt_col *ts = tbl ? trak__vt_col_named(tbl, "ts") : NULL;
  if (!dur || dur->kind != VT_I64 || dur->calc || !dur->off) {
    sqlite3_result_error(ctx, "__intrinsic_ts_floor: no columnar table with a dur column", -1);
    return;
  }
  if (sqlite3_value_type(argv[1]) == SQLITE_NULL) return;
  int64_t floor = INT64_MIN, x = sqlite3_value_int64(argv[1]);
  size_t rows = trak__vt_rows(t, tbl);
  if (sqlite3_value_type(argv[1]) == SQLITE_INTEGER && rows) {
    if (fc->tbl != tbl || fc->generation != t->generation || fc->rows != rows)
      *fc = (floor_cache){t, tbl, t->generation, rows, 0, 0};
    size_t need = rows; /* the rows whose durations bound it */
    if (ts && ts->kind == VT_I64 && !ts->calc && ts->off && vt_col_sorted(t, ts))
      need = first_at_or_after(trak__vt_array(t, ts), rows, x);
    if (fc->upto < need) {
      const int64_t *d = trak__vt_array(t, dur);
      int64_t m = max_i64(d + fc->upto, need - fc->upto);
      fc->max = fc->upto && fc->max > m ? fc->max : m;
      fc->upto = need;
    }
    int64_t m = fc->upto && fc->max > 0 ? fc->max : 0;
    if (__builtin_sub_overflow(x, m, &floor)) floor = INT64_MIN;
  }
  sqlite3_result_int64(ctx, floor);
}

int trak__vt_ts_floor_register(sqlite3 *db, const trak_tables *t) {
  floor_cache *fc = calloc(1, sizeof *fc);
  if (!fc) return SQLITE_NOMEM;
  fc->t = t;
  /* (on failure SQLite frees fc: the destructor is called) */
  return sqlite3_create_function_v2(db, "__intrinsic_ts_floor", 2,
                                    SQLITE_UTF8 | SQLITE_DETERMINISTIC, fc, ts_floor_fn, NULL, NULL,
                                    free);
}
