/*
** The viewer's copy of the timeline (cache.c): slices per track and depth and counter values
** per track, each sorted by time, and the flows with both ends' positions; the scheduling data
** (sched.c) as more tracks of the same shape: one per CPU and one thread-state track per thread.
** Read once from the SQL tables; read-only afterwards.
*/
#ifndef TRAK_UI_CACHE_H
#define TRAK_UI_CACHE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "trak/error.h"
#include "trak/processor.h"

typedef struct trak_ui_slice {
  int64_t ts, dur; /* dur -1: did not end */
  uint32_t id;     /* the row's id (slice, sched or thread_state): row ids are 32-bit */
  uint32_t name;   /* in the cache's name table; UINT32_MAX: no name */
} trak_ui_slice;
/* 24 bytes: whether a slice has a parent is read from the slice table's parent_id
** (trak__ui_has_parent); CPU and thread-state tracks hold row numbers instead. */
_Static_assert(sizeof(trak_ui_slice) == 24, "a slice of the cache's lines is 24 bytes");

/* A thread state's CPU (-1: none) and io_wait (-1: unknown, 0, 1) packed in an aux
** (trak__ui_line_row). */
#define TRAK_UI_STATE_AUX(cpu, io)                                                                 \
  ((uint32_t)((cpu) < 0 || (cpu) >= 0xffffff ? 0 : (cpu) + 1) | (uint32_t)((io) + 1) << 30)
#define TRAK_UI_STATE_CPU(aux) ((int64_t)((aux)&0xffffff) - 1)
#define TRAK_UI_STATE_IO(aux) ((int)((aux) >> 30) - 1)

/* The end of a slice: INT64_MAX when it did not end, or when ts + dur would overflow. */
static inline int64_t trak__ui_slice_end(const trak_ui_slice *s) {
  if (s->dur < 0 || (s->ts > 0 && s->dur > INT64_MAX - s->ts)) return INT64_MAX;
  return s->ts + s->dur;
}

/* The per-pixel choice of a screen's summary, shared by the lines' (data.c) and the scan's
** (scan.c): whether a slice starting at tx that lasts dx (-1: did not end) stands for its pixel
** column rather than the one (tb, db) chosen so far. The first (earliest) slice that did not end
** wins, else the longest, the earliest of equals: in line order (tx >= tb) only a longer one, or
** the first that did not end, takes the column. */
static inline int trak__ui_stands_before(int64_t tx, int64_t dx, int64_t tb, int64_t db) {
  if (dx < 0 || db < 0) return dx < 0 && (db >= 0 || tx < tb);
  return dx > db || (dx == db && tx < tb);
}

/* A range's pixel columns, found without a 64-bit division per time (the screens' summaries
** place every slice they meet): the column of a time is estimated by a multiplication and
** corrected, exact as ((ts - start) / px). */
typedef struct trak_ui_cols {
  uint64_t start, px;
  double inv; /* 1 / px */
} trak_ui_cols;

static inline trak_ui_cols trak__ui_cols_of(int64_t start, int64_t px) {
  trak_ui_cols k = {(uint64_t)start, (uint64_t)px, 1.0 / (double)px};
  return k;
}

/* The column of `ts` (at or after the range's start), as (ts - start) / px on unsigned
** differences. */
static inline uint64_t trak__ui_col(const trak_ui_cols *k, int64_t ts) {
  uint64_t d = (uint64_t)ts - k->start;
  if (d >= (uint64_t)1 << 53) return d / k->px; /* past a double's exact integers */
  uint64_t c = (uint64_t)((double)d * k->inv);  /* off by at most one either way */
  if (c * k->px > d) c--;
  if ((c + 1) * k->px <= d) c++;
  return c;
}

/* One depth of one track: slices that do not overlap each other, by start time. */
typedef struct trak_ui_line {
  trak_ui_slice *v;
  int64_t *max_end; /* max_end[i]: the latest end among v[0..i] (nondecreasing: binary search);
                    ** NULL when the ends of v are nondecreasing already (then it is each end) */
  /* CPU and thread-state tracks: each entry's row of the processor's sched_slice or
  ** thread_state table (v is then NULL; trak__ui_line_row reads it from the columns: 4 bytes an
  ** entry instead of a copy). NULL on slice tracks. */
  uint32_t *rows;
  size_t n, cap; /* a slice track's cap: its rows in the slice table, counted at start */
  int64_t last_ts, last_end; /* while counting a slice track's rows: the last one's, in table
                             ** order (to note a loose track) */
} trak_ui_line;

/* First index of `l` (a slice track's: v set) whose slice may end at or after `t` (max_end is
** nondecreasing); trak__ui_line_first_ending takes any track's. */
static inline size_t trak__ui_line_first_ending_after(const trak_ui_line *l, int64_t t) {
  size_t lo = 0, hi = l->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if ((l->max_end ? l->max_end[mid] : trak__ui_slice_end(&l->v[mid])) < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

typedef struct trak_ui_value {
  int64_t ts;
  double value;
} trak_ui_value;

/* What a track's lines hold. */
typedef enum trak_ui_kind {
  TRAK_UI_SLICES, /* slices of the slice table (and counter values) */
  TRAK_UI_CPU,    /* one CPU's scheduling slices (sched): name none, aux the utid */
  TRAK_UI_STATE,  /* one thread's states (thread_state): name the state, aux TRAK_UI_STATE_AUX */
} trak_ui_kind;

typedef struct trak_ui_track {
  int64_t id; /* the track table's id; for CPU and thread-state tracks one past its ids */
  trak_ui_kind kind;
  int64_t key;         /* TRAK_UI_CPU: the CPU; TRAK_UI_STATE: the utid */
  trak_ui_line *lines; /* by depth */
  size_t n_lines;
  trak_ui_value *values; /* counter values by time */
  size_t n_values, values_cap;
  /* The Scheduler group's counters hold their values apart instead (values NULL): the times in
  ** count_ts, the counts in count_n (10 bytes a value instead of 16: 3.75M values at 10M
  ** sched events). Read any track's values through trak__ui_value_ts and trak__ui_value. */
  int64_t *count_ts;
  uint16_t *count_n;
  int64_t first_ts, count; /* earliest event and events (slices and values) */
  int deep_roots; /* a slice with no parent below depth 0 (async lanes): not a tree by depth;
                  ** known at start */
  /* Slices: a child the lines would find under other slices than its parent_id's (its
  ** parent_id not the slice a depth above on the track that holds it; slices of one depth that
  ** overlap, begin together or come out of time order): the aggregates' self times are then
  ** summed from the lines (the columns follow parent_id). Known at start. */
  int loose;
  int delta; /* counters drawn as each value's change to the next (cpustat, Perfetto's 'delta') */
  /* A slice track's lines (v, n, max_end) are filled (trak__ui_lines_need): written and read
  ** under the cache's lock; until then its lines hold their counts (cap) only. */
  int filled;
} trak_ui_track;

/* out and in ends: id, track_id, ts, dur, depth each. */
typedef struct trak_ui_flow {
  int64_t v[10];
} trak_ui_flow;

/* The Scheduler group's counters (sched_counts.c), in trak_ui_cache.sched_count's order. */
#define TRAK_UI_SCHED_COUNTS 3
extern const char *const trak__ui_sched_count_names[TRAK_UI_SCHED_COUNTS];
/* The active CPU count per CPU type (little, medium, big: Perfetto's cluster types), in
** trak_ui_cache.cpu_type_count's order. */
#define TRAK_UI_CPU_TYPES 3
extern const char *const trak__ui_cpu_type_count_names[TRAK_UI_CPU_TYPES];

typedef struct trak_ui_cache {
  int64_t start, end; /* the trace's bounds: earliest start, latest end */
  size_t n_events;
  trak_ui_track *tracks;
  size_t n_tracks, tracks_cap;
  uint32_t *index; /* track id -> position in tracks, UINT32_MAX if none */
  size_t index_len;
  trak_ui_flow *flows; /* by the out slice's start, then the flow's id */
  size_t n_flows, flows_cap;
  /* The counter tracks of "Active CPU count", "Runnable thread count" and "Uninterruptible
  ** Sleep thread count" (sched_counts.c): ids past the thread-state tracks'; -1 without sched. */
  int64_t sched_count[TRAK_UI_SCHED_COUNTS];
  /* The counter tracks of "Active CPU count: little", ": medium", ": big" (the active CPU count
  ** of the CPUs of each type, Perfetto's cluster types by cpu.cluster_id): ids after
  ** sched_count's; -1 for a type no CPU track has, and for all when the CPUs are of one type. */
  int64_t cpu_type_count[TRAK_UI_CPU_TYPES];
  uint32_t state_name[256]; /* thread_state's one-byte state code -> its name id, UINT32_MAX */
  /* While loading (freed after): the sched_slice rows per CPU and the thread_state rows per
  ** utid, counted from the columns, so that each CPU or thread-state track's row array is
  ** allocated once at (at most) its size: grown by doubling, the arrays left ~25 MB of freed
  ** heap at 15M thread states. */
  uint32_t *reserve[2];
  size_t reserve_len[2];
  char **names; /* interned slice names */
  size_t n_names, names_cap;
  uint32_t *table; /* open addressing over names */
  size_t slots;
  /* The slice tracks' lines are not copied at start: the screens, aggregates and flame graphs
  ** are answered from the processor's columns (scan.c, scan_flame.c), and a track's lines are
  ** filled only when an answer that needs them asks for it (trak__ui_lines_need: async lanes,
  ** rows out of order, more columns than a scan keeps), under `lock`. The rest (tracks, their
  ** n_lines, first_ts, count, deep_roots, values, the names, flows, the CPU and thread-state
  ** tracks) is read at start and read-only afterwards. */
  const struct trak_tables *tables; /* the processor's (read-only since its import) */
  uint32_t *name_map; /* the tables' string id -> name id + 1 (0: none), for slice names */
  size_t name_map_len;
  const uint32_t *slice_parent; /* the slice table's parent_id column (trak__ui_parent_in) */
  int slices_by_ts; /* the slice table's rows are in time order (scan.c then bounds its passes) */
  pthread_mutex_t lock; /* the slice tracks' lines and their `filled` */
} trak_ui_cache;

/* Whether slice `s` of line `d` of the slice track `tr` has a parent (parent_id set: it nests
** in one a depth above). A root is at depth 0 unless the track has deep_roots (async lanes):
** only then is the slice table's parent_id read. */
static inline int trak__ui_has_parent(const trak_ui_cache *c, const trak_ui_track *tr, size_t d,
                                      const trak_ui_slice *s) {
  return d > 0 && (!tr->deep_roots || c->slice_parent[s->id] != UINT32_MAX);
}

/* First index of `n` elements of `stride` bytes from `base`, sorted by an int64 time that is
** their first member (trak_ui_slice, trak_ui_value), whose time is at or after `ts`. */
static inline size_t trak__ui_first_at(const void *base, size_t n, size_t stride, int64_t ts) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (*(const int64_t *)((const char *)base + mid * stride) < ts)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* First index of the values of `t` at or after `ts`. */
static inline size_t trak__ui_track_first_value_at(const trak_ui_track *t, int64_t ts) {
  if (t->count_ts) return trak__ui_first_at(t->count_ts, t->n_values, sizeof *t->count_ts, ts);
  return trak__ui_first_at(t->values, t->n_values, sizeof *t->values, ts);
}

/* The time and the value of value `i` of track `t` (i < t->n_values), however it holds them. */
static inline int64_t trak__ui_value_ts(const trak_ui_track *t, size_t i) {
  return t->count_ts ? t->count_ts[i] : t->values[i].ts;
}
static inline double trak__ui_value(const trak_ui_track *t, size_t i) {
  return t->count_ts ? (double)t->count_n[i] : t->values[i].value;
}

/* malloc(bytes), with huge pages asked for (madvise, a hint) on its 2 MiB-aligned interior: a
** large array of the cache is then filled with a page fault per 2 MiB instead of per 4 KiB (the
** faults were most of the cache's read at 50M events). Freed with free(); NULL when out of
** memory. trak__ui_advise_huge gives the same hint for `bytes` at `p` (an array grown by
** realloc). */
void *trak__ui_alloc_big(size_t bytes);
void trak__ui_advise_huge(void *p, size_t bytes);

/* Reads the tables of `p` (finished): the slice, counter and flow columns directly (see
** src/ui/README.md), sched and thread_state too (sched.c); the slice rows are counted per track
** and depth, not copied (trak__ui_lines_need). `p` must not change while this runs (no query
** running on another thread), and must outlive the cache (its columns are read by every
** answer). Returns 0, TRAK_ENOMEM, or a query's error. */
int trak__ui_cache_new(trak_processor *p, trak_ui_cache **out, trak_error *err);
void trak__ui_cache_free(trak_ui_cache *c);
/* The track with data called `id`, or NULL (no slices or values). */
const trak_ui_track *trak__ui_cache_track(const trak_ui_cache *c, int64_t id);
/* Slice name `id`, or NULL. */
const char *trak__ui_cache_name(const trak_ui_cache *c, uint32_t id);

/* While loading: the id of name `s` (added if new), UINT32_MAX for NULL or out of memory. */
uint32_t trak__ui_cache_intern(trak_ui_cache *c, const char *s);
/* While loading: row `row` of the sched_slice (a TRAK_UI_CPU track's) or thread_state table
** (TRAK_UI_STATE) appended to track `id`, created with `kind` and `key` on first use (a row
** past the table's is left out). 0 or -1 (out of memory, or id out of range). The caller calls trak__ui_cache_widen with its span.
** A thread-state row's state name (`state`, as SQL reads it) is interned and kept for its
** one-byte code. */
int trak__ui_cache_add_row(trak_ui_cache *c, int64_t id, trak_ui_kind kind, int64_t key,
                           uint32_t row, const char *state);
/* Entry `i` of line `l` of track `t`: the slice, or a CPU or thread-state track's row read from
** the processor's columns (id, ts, dur; name: the state, none on a CPU); *aux (may be NULL)
** gets a CPU row's utid, a thread state's TRAK_UI_STATE_AUX, 0 for a slice. */
static inline trak_ui_slice trak__ui_line_row(const trak_ui_cache *c, const trak_ui_track *t,
                                              const trak_ui_line *l, size_t i, uint32_t *aux);
/* trak__ui_line_first_ending_after for the line of any track. */
size_t trak__ui_line_first_ending(const trak_ui_cache *c, const trak_ui_track *t,
                                  const trak_ui_line *l, int64_t ts);
/* While loading: the track `id`, created empty on first use; NULL as trak__ui_cache_add_slice. */
trak_ui_track *trak__ui_cache_add_track(trak_ui_cache *c, int64_t id);
/* While loading: counts one more event from `start` to `end` in the trace's bounds. */
void trak__ui_cache_widen(trak_ui_cache *c, int64_t start, int64_t end);

/* Reads sched and thread_state into CPU and thread-state tracks (sched.c) from the processor's
** columns, with ids from (SELECT max(id) FROM track) + 1 on, their lines finished (sorted by
** time, a max_end where their ends go back). Called by trak__ui_cache_new.
** Returns 0, TRAK_ENOMEM, or a query's error. */
int trak__ui_sched_load(trak_processor *p, trak_ui_cache *c, trak_error *err);

/* Adds the Scheduler group's counter tracks, ids first_id on, to a cache whose CPU and
** thread-state tracks are read (trak__ui_sched_load calls it): each value the number of non-idle
** scheduling slices (thread states 'R', 'D') open from its time to the next value's, one value
** per distinct time at which one starts or ends, as Perfetto's sched_active_cpu_count,
** sched_runnable_thread_count and sched_uninterruptible_sleep_thread_count tables have them. No
** track without CPU tracks (sched_count[] is then -1); on CPUs of more than one type, the
** active CPU count of each type (cpu_type_count, ids first_id + TRAK_UI_SCHED_COUNTS on).
** Returns 0 or -1 (out of memory). */
int trak__ui_sched_counts_load(trak_ui_cache *c, int64_t first_id);

/* trak__ui_line_row of a CPU or thread-state track's line (l->rows set). */
trak_ui_slice trak__ui_rows_read(const trak_ui_cache *c, const trak_ui_track *t,
                                 const trak_ui_line *l, size_t i, uint32_t *aux);

static inline trak_ui_slice trak__ui_line_row(const trak_ui_cache *c, const trak_ui_track *t,
                                              const trak_ui_line *l, size_t i, uint32_t *aux) {
  if (l->rows) return trak__ui_rows_read(c, t, l, i, aux);
  if (aux) *aux = 0;
  return l->v[i];
}

/* Fills the lines of the TRAK_UI_SLICES tracks among `tracks` (n of them; NULL: every track)
** that are not filled yet, from the slice table's columns in one pass over them (rows in table
** order, then each line sorted by time as the whole cache's were), under the cache's lock; any
** thread may call it, and may then read those tracks' lines. Returns 0 or TRAK_ENOMEM (the
** tracks it could not fill stay unfilled). */
int trak__ui_lines_need(const trak_ui_cache *c, const int64_t *tracks, size_t n);
/* Whether every TRAK_UI_SLICES track among `tracks` has its lines filled (read under the lock:
** once it returns 1, their lines may be read). */
int trak__ui_lines_filled(const trak_ui_cache *c, const int64_t *tracks, size_t n);

/* A screen's slice summary from the slice table's columns (scan.c), for the TRAK_UI_SLICES
** tracks asked for: entry offset[k] + depth * cols + j of the
** k-th track asked for is its depth's pixel column j - 1 (j = 0: the slices begun before the
** range), best[] the row standing for it (UINT32_MAX: none), count[] how many meet the range. */
typedef struct trak_ui_range trak_ui_range;
typedef struct trak_ui_scan {
  size_t cols;
  size_t *offset; /* per track asked for; SIZE_MAX: not scanned (not a slice track, or a repeat) */
  uint32_t *best, *count;
} trak_ui_scan;
/* Scans the slice table for `tracks` over `r` (valid: end >= start, px >= 1), but not the loose
** ones (offset SIZE_MAX: their rows may tie or come out of time order, and the first its lines
** meet stands for a column). Returns 0, -1 (out
** of memory) or 1 (more columns or depths than a scan keeps: the lines answer); on every
** return trak__ui_scan_free(out) frees what it holds. */
int trak__ui_scan_new(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                      const trak_ui_range *r, trak_ui_scan *out);
/* Row `row` of the slice table as the cache's lines hold it. */
trak_ui_slice trak__ui_scan_row(const trak_ui_cache *c, uint32_t row);
void trak__ui_scan_free(trak_ui_scan *s);

/* The area selection's slices by name (aggregate.c), indexed by the cache's name id + 1 (0: no
** name): occurrences, wall total, self time. */
typedef struct trak_ui_name_sum {
  int64_t count, wall, self;
} trak_ui_name_sum;
/* The same sums as aggregate.c makes from the lines, from one pass over the slice table's
** columns (scan.c), for the TRAK_UI_SLICES tracks among `tracks` (a track asked for twice counts
** twice) over [start, end]: a slice that ended and meets the range counts whole, less its ended
** children's durations for its self time (its children: the rows whose parent it is, one depth
** down, starting inside it). Adds into acc (c->n_names + 1 entries). Returns 0, -1 (out of
** memory) or 1 (a track asked for has roots below depth 0, async lanes, whose children the
** lines find by position: the lines answer; acc is then partly summed). */
int trak__ui_scan_by_name(const trak_ui_cache *c, const int64_t *tracks, size_t n, int64_t start,
                          int64_t end, trak_ui_name_sum *acc);

/* The parent of slice `s` (of a TRAK_UI_SLICES track, with a parent) in `up`, its line one depth
** above, given j, the last index of `up` in [lo, j] starting at or before s: j, unless slices
** before j start at the same time as s and one of them is s's parent by the slice table's
** parent_id (an instant and a slice begun with it: the time alone does not tell which holds s,
** and the SQL follows parent_id). */
static inline size_t trak__ui_parent_in(const trak_ui_cache *c, const trak_ui_line *up, size_t lo,
                                        size_t j, const trak_ui_slice *s) {
  if (j <= lo || up->v[j - 1].ts != s->ts || !c->slice_parent)
    return j; /* no tie: the common case */
  uint32_t want = c->slice_parent[s->id];
  size_t k = j;
  while (up->v[k].id != want && k > lo && up->v[k - 1].ts == up->v[j].ts)
    k--;
  return up->v[k].id == want ? k : j;
}

#endif /* TRAK_UI_CACHE_H */
