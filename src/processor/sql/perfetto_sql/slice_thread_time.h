/*
** This header holds what the two halves of slices.time_in_state / slices.cpu_time share:
** which slices are thread slices, the intervals' source columns, and the whole table of either
** computed in one pass per thread (slice_thread_time_all.c) that the virtual tables
** (slice_thread_time.c) read.
*/
#ifndef TRAK_PROCESSOR_SQL_PERFETTO_SQL_SLICE_THREAD_TIME_H
#define TRAK_PROCESSOR_SQL_PERFETTO_SQL_SLICE_THREAD_TIME_H

#include "processor/sql/perfetto_sql/psql.h"
#include "processor/tables/thread_state_cols.h"

/* The thread of slice s when it is a thread slice with dur > 0, else 0. */
static inline uint32_t slice_utid(const trak_tables *t, uint32_t s) {
  if (t->slice.dur[s] <= 0) return 0;
  uint32_t track = t->slice.track_id[s];
  if (track >= t->track.n || t->track.kind[track] != TRAK_TRACK_THREAD) return 0;
  uint32_t utid = t->track.utid[track];
  return utid != TRAK_NULL_U32 && utid < t->thread.n ? utid : 0;
}

/* The intervals source: thread_state's or sched's ts, dur (sched's; thread_state's is packed:
** NULL) and utid columns, n rows. */
typedef struct time_source {
  const trak_tables *t;
  const int64_t *ts, *dur;
  const uint32_t *utid;
  size_t n;
} time_source;

static inline time_source source_of(const trak_tables *t, int sched) {
  if (!sched)
    return (time_source){t, t->thread_state.ts, NULL, t->thread_state.utid, t->thread_state.n};
  return (time_source){t, t->sched_slice.ts, t->sched_slice.dur, t->sched_slice.utid,
                       t->sched_slice.n};
}

/* The dur of row i of `src`. */
static inline int64_t src_dur(const time_source *src, size_t i) {
  return src->dur ? src->dur[i] : trak__ts_dur(src->t, (uint32_t)i);
}

/* Every thread slice's groups, the table's rows, computed in one pass per thread: slice s's are
** keys[key[off[s] + i]] with dur[off[s] + i] for i < cnt[s], keys in GROUP BY order. Shared by
** the cursors reading it (refs) and kept for the tables as they were when computed. */
typedef struct time_all {
  int refs;
  uint32_t generation;
  size_t slices, intervals; /* slice's and the source's row counts then */
  uint32_t *off, *cnt;      /* per slice */
  uint32_t *key;            /* per row: an index into keys */
  int64_t *dur;
  size_t n, cap;
  trak_thread_time_group *keys;
  size_t nkeys;
} time_all;

/* Every thread slice's groups over thread_state (sched: over sched, one group), for the tables
** as they are: refs 1, NULL out of memory. Reads `t` only while it runs. */
time_all *trak__thread_time_all_new(const trak_tables *t, int sched);
/* Drops a reference; the last frees it. NULL is ignored. */
void trak__thread_time_all_release(time_all *all);
/* SQLite's GROUP BY order of (state, io_wait, blocked_function, ucpu): NULL first, text by
** bytes. */
int trak__thread_time_group_cmp(const trak_strpool *sp, const trak_thread_time_group *x,
                                const trak_thread_time_group *y);

#endif /* TRAK_PROCESSOR_SQL_PERFETTO_SQL_SLICE_THREAD_TIME_H */
