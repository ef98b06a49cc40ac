/*
** This file holds the minimap's answer: how many events begin in each bucket of a range (the
** slices of the slice table and the scheduling slices of threads that are not idle), counted
** from the processor's columns, so that the page can draw the trace's activity over its whole
** length above the tracks. The slice table's rows, when in time order, are counted by a binary
** search per bucket boundary; otherwise, and for the sched rows, by one pass.
*/
#include <stdlib.h>

#include "processor/processor_internal.h"
#include "ui/cache.h"
#include "ui/ui.h"

/* The most buckets an answer holds (a screen is a few thousand pixels wide). */
#define MAX_BUCKETS 65536

/* First index of the `n` sorted times `ts` at or after `t`. */
static size_t first_at(const int64_t *ts, size_t n, int64_t t) {
  return trak__ui_first_at(ts, n, sizeof *ts, t);
}

/* Adds the rows of the slice table with ts in [r->start, r->end] to their buckets. */
static void count_slices(const trak_ui_cache *c, const trak_ui_range *r, const trak_ui_cols *k,
                         int64_t *counts, size_t n) {
  const trak_tables *tb = c->tables;
  const int64_t *ts = tb->slice.ts;
  if (c->slices_by_ts) { /* each bucket's rows between two binary searches */
    size_t lo = first_at(ts, tb->slice.n, r->start);
    for (size_t j = 0; j < n; j++) {
      /* The next bucket's start, at most end (unsigned: the sum fits, its terms may not). */
      int64_t next = (int64_t)((uint64_t)r->start + (uint64_t)(j + 1) * (uint64_t)r->px);
      size_t hi = j + 1 < n             ? first_at(ts, tb->slice.n, next)
                  : r->end == INT64_MAX ? tb->slice.n
                                        : first_at(ts, tb->slice.n, r->end + 1);
      counts[j] += (int64_t)(hi - lo);
      lo = hi;
    }
    return;
  }
  for (size_t i = 0; i < tb->slice.n; i++)
    if (ts[i] >= r->start && ts[i] <= r->end) counts[trak__ui_col(k, ts[i])]++;
}

/* Adds the sched rows of threads that are not idle with ts in [r->start, r->end]. */
static void count_sched(const trak_tables *tb, const trak_ui_range *r, const trak_ui_cols *k,
                        int64_t *counts) {
  for (size_t i = 0; i < tb->sched_slice.n; i++) {
    int64_t ts = tb->sched_slice.ts[i];
    uint32_t utid = tb->sched_slice.utid[i];
    if (ts < r->start || ts > r->end || (utid < tb->thread.n && tb->thread.is_idle[utid] == 1))
      continue;
    counts[trak__ui_col(k, ts)]++;
  }
}

int trak__ui_density(const trak_ui_cache *c, const trak_ui_range *r, trak_ui_buf *out,
                     trak_error *err) {
  if (r->px < 1 || r->end < r->start)
    return trak_error_set(err, TRAK_EINVAL, "bad range: end before start, or px under 1");
  uint64_t buckets = ((uint64_t)r->end - (uint64_t)r->start) / (uint64_t)r->px + 1;
  if (buckets > MAX_BUCKETS)
    return trak_error_set(err, TRAK_EINVAL, "more than %d buckets: make px larger", MAX_BUCKETS);
  size_t n = (size_t)buckets;
  int64_t *counts = calloc(n, sizeof *counts);
  if (!counts) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  trak_ui_cols k = trak__ui_cols_of(r->start, r->px);
  count_slices(c, r, &k, counts, n);
  count_sched(c->tables, r, &k, counts);
  trak__ui_put(out, "[", 1);
  for (size_t j = 0; j < n; j++) {
    if (j) trak__ui_put(out, ",", 1);
    trak__ui_int(out, counts[j]);
  }
  trak__ui_put(out, "]", 1);
  free(counts);
  return out->oom ? trak_error_set(err, TRAK_ENOMEM, "out of memory") : 0;
}
