/*
** This file holds the Scheduler group's counters, as Perfetto's Sched plugin draws them from
** sched.thread_level_parallelism: "Active CPU count" (non-idle scheduling slices open at once),
** "Runnable thread count" (thread states 'R') and "Uninterruptible Sleep thread count" ('D'),
** each a step function with a value per distinct time at which an interval starts or ends,
** computed from the rows of the cache's CPU and thread-state tracks (in one pass over their
** table's columns when those are in time order there) into counter tracks of the cache (each
** value's time and count in arrays of their own: 10 bytes a value); on a
** trace whose CPUs are of more than one type (big.LITTLE clusters), the active CPU count of each
** type ("Active CPU count: little", Perfetto's _active_cpu_count_for_cluster_type).
*/
#include <stdlib.h>
#include <string.h>

#include "processor/processor_internal.h"
#include "processor/tables/sched_cols.h"
#include "processor/tables/thread_state_cols.h"
#include "ui/cache.h"
#include "ui/ui.h"

const char *const trak__ui_sched_count_names[TRAK_UI_SCHED_COUNTS] = {
    "Active CPU count", "Runnable thread count", "Uninterruptible Sleep thread count"};
const char *const trak__ui_cpu_type_count_names[TRAK_UI_CPU_TYPES] = {
    "Active CPU count: little", "Active CPU count: medium", "Active CPU count: big"};

/* Which intervals a count is made of: the rows of the tracks of `kind` named `name` (UINT32_MAX:
** any name); for CPU tracks, of CPUs of type `type` only (-1: any). */
typedef struct count_of {
  trak_ui_kind kind;
  uint32_t name;
  int type;
  int clusters; /* the trace's CPU clusters (cluster_count) */
} count_of;

/* The number of distinct cluster ids among the trace's CPUs (the cpu table's rows with a CPU
** number), as Perfetto's android_cpu_cluster_mapping counts them. */
static int cluster_count(const trak_tables *tb) {
  int n = 0;
  for (size_t i = 0; i < tb->cpu.n; i++) {
    if (tb->cpu.cpu[i] == TRAK_NULL_U32) continue;
    size_t j = 0;
    while (j < i &&
           (tb->cpu.cpu[j] == TRAK_NULL_U32 || tb->cpu.cluster_id[j] != tb->cpu.cluster_id[i]))
      j++;
    n += j == i;
  }
  return n;
}

/* The type of CPU `ucpu` (0 little, 1 medium, 2 big) by its cluster id among `clusters`, as
** Perfetto's android_cpu_cluster_mapping has it (2 clusters: little, big; 3: little, medium,
** big; 4: little, medium, medium, big); -1 for another count or a cluster id past them. */
static int cpu_type(const trak_tables *tb, int clusters, int64_t ucpu) {
  static const signed char types[3][4] = {{0, 2, -1, -1}, {0, 1, 2, -1}, {0, 1, 1, 2}};
  if (clusters < 2 || clusters > 4 || ucpu < 0 || (uint64_t)ucpu >= tb->cpu.n) return -1;
  uint32_t k = tb->cpu.cluster_id[ucpu];
  return k < (uint32_t)clusters ? types[clusters - 2][k] : -1;
}

/* Whether track `t` holds intervals of count `q`. */
static int counts_in(const trak_ui_cache *c, const trak_ui_track *t, const count_of *q) {
  if (t->kind != q->kind || !t->n_lines) return 0;
  return q->type < 0 || cpu_type(c->tables, q->clusters, t->key) == q->type;
}

static int by_int64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Above this many sorted runs a sort is left to qsort. */
#define MAX_RUNS 4096

/* Sorts v[0..n), using tmp (n elements) as scratch. The times come as one sorted run per track
** (the sched and thread_state rows are mostly in time order), so the runs are merged pairwise,
** log2(runs) linear passes, rather than sorted from scratch; qsort takes input with more runs. */
static void sort_times(int64_t *v, size_t n, int64_t *tmp) {
  size_t bound[MAX_RUNS + 1], runs = 0;
  bound[0] = 0;
  for (size_t i = 1; i < n; i++)
    if (v[i - 1] > v[i]) {
      if (++runs == MAX_RUNS) {
        qsort(v, n, sizeof *v, by_int64);
        return;
      }
      bound[runs] = i;
    }
  bound[++runs] = n;
  int64_t *from = v, *to = tmp;
  while (runs > 1) { /* merge runs 2k and 2k + 1 of `from` into `to` */
    size_t kept = 0;
    for (size_t k = 0; k < runs; k += 2) {
      size_t a = bound[k], m = bound[k + 1], e = k + 2 <= runs ? bound[k + 2] : m;
      size_t i = a, j = m, o = a;
      while (i < m && j < e)
        to[o++] = from[j] < from[i] ? from[j++] : from[i++];
      while (i < m)
        to[o++] = from[i++];
      while (j < e)
        to[o++] = from[j++];
      bound[kept++] = a;
    }
    bound[kept] = n;
    runs = kept;
    int64_t *swap = from;
    from = to, to = swap;
  }
  if (from != v) memcpy(v, from, n * sizeof *v);
}

/* The intervals of count `q`. Pass `starts` and `ends` NULL to count them into *n_starts,
** *n_ends; otherwise they are filled. An interval with dur -1 (did not end) starts and never
** ends, as intervals_overlap_count! has it. */
static void collect(const trak_ui_cache *c, const count_of *q, int64_t *starts, int64_t *ends,
                    size_t *n_starts, size_t *n_ends) {
  size_t ns = 0, ne = 0;
  for (size_t t = 0; t < c->n_tracks; t++) {
    const trak_ui_track *tr = &c->tracks[t];
    if (!counts_in(c, tr, q)) continue;
    const trak_ui_line *l = &tr->lines[0];
    for (size_t i = 0; i < l->n; i++) {
      const trak_ui_slice s = trak__ui_line_row(c, tr, l, i, NULL);
      if (q->name != UINT32_MAX && s.name != q->name) continue;
      if (starts) starts[ns] = s.ts;
      ns++;
      if (s.dur == -1) continue;
      if (ends) ends[ne] = (int64_t)((uint64_t)s.ts + (uint64_t)s.dur);
      ne++;
    }
  }
  *n_starts = ns, *n_ends = ne;
}

/* Merges the sorted starts and ends into `out` (NULL: only counts): at each distinct time, the
** running sum of starts minus ends. Returns the values. */
static size_t merge_counts(const int64_t *starts, size_t ns, const int64_t *ends, size_t ne,
                           trak_ui_value *out) {
  int64_t open = 0;
  size_t i = 0, j = 0, n = 0;
  while (i < ns || j < ne) {
    int64_t ts = i < ns && (j >= ne || starts[i] <= ends[j]) ? starts[i] : ends[j];
    for (; i < ns && starts[i] == ts; i++)
      open++;
    for (; j < ne && ends[j] == ts; j++)
      open--;
    if (out) out[n].ts = ts, out[n].value = (double)open;
    n++;
  }
  return n;
}

/* One track's place in merge_tracks: its next interval to start and its next to end (indexes
** into its line; n: none left) and their times. */
typedef struct cursor {
  const trak_ui_track *t;
  size_t i_start, i_end;
  int64_t start, end;
} cursor;

/* The time of cursor k's next event (a start or an end), INT64_MAX when it has none (then a
** caller checks i_start and i_end). */
static int64_t next_time(const cursor *k) {
  return k->start < k->end ? k->start : k->end;
}

/* Steps `i` (a start when `end` is 0, else an end) of track `k->t` past the rows that are not
** intervals named `name` (an end: one that did not end), setting *at to the next one's time.
** Returns 0, or 1 when the times go back (the line is not in order: merge_tracks declines). */
static int advance(const trak_ui_cache *c, cursor *k, uint32_t name, size_t *i, int64_t *at,
                   int end) {
  const trak_ui_line *l = &k->t->lines[0];
  int64_t before = *at;
  for (; *i < l->n; ++*i) {
    trak_ui_slice s = trak__ui_line_row(c, k->t, l, *i, NULL);
    if ((name != UINT32_MAX && s.name != name) || (end && s.dur == -1)) continue;
    *at = end ? (int64_t)((uint64_t)s.ts + (uint64_t)s.dur) : s.ts;
    return *at < before;
  }
  *at = INT64_MAX;
  return 0;
}

static void sift_down(cursor *h, size_t n, size_t i) {
  for (;;) {
    size_t m = i, a = 2 * i + 1, b = a + 1;
    if (a < n && next_time(&h[a]) < next_time(&h[m])) m = a;
    if (b < n && next_time(&h[b]) < next_time(&h[m])) m = b;
    if (m == i) return;
    cursor x = h[i];
    h[i] = h[m], h[m] = x;
    i = m;
  }
}

/* Sets the room of `t`'s count_ts and count_n to `cap` values (more or fewer). 0 or -1 (out of
** memory: what `t` holds is kept). */
static int grow_counts(trak_ui_track *t, size_t cap) {
  int64_t *ts = realloc(t->count_ts, cap * sizeof *ts);
  if (!ts) return cap < t->values_cap ? 0 : -1; /* a smaller block that failed: keep the old */
  t->count_ts = ts;
  uint16_t *n = realloc(t->count_n, cap * sizeof *n);
  if (!n && cap > t->values_cap) return -1; /* count_n keeps the old room, values_cap says it */
  if (n) t->count_n = n;
  t->values_cap = cap;
  return 0;
}

/* Appends the count `open` from `ts` on to `t`'s count_ts and count_n. Returns 0, -1 (out of
** memory) or 1 (a count past 16 bits or below 0: not a count of these tracks; the caller sorts
** copies instead). */
static int put_count(trak_ui_track *t, int64_t ts, int64_t open) {
  if (open < 0 || open > UINT16_MAX) return 1;
  if (t->n_values == t->values_cap && grow_counts(t, t->values_cap ? t->values_cap * 2 : 4096))
    return -1;
  t->count_ts[t->n_values] = ts, t->count_n[t->n_values++] = (uint16_t)open;
  return 0;
}

/* Ends a fill of `t` by put_count that returned `rc`: on 0 gives back the doubling's slack, on
** another the values are dropped. Returns rc. */
static int end_counts(trak_ui_track *t, int rc) {
  if (rc) {
    free(t->count_ts), free(t->count_n);
    t->count_ts = NULL, t->count_n = NULL, t->n_values = t->values_cap = 0;
  } else if (t->n_values < t->values_cap) {
    grow_counts(t, t->n_values ? t->n_values : 1);
  }
  return rc;
}

/* Fills `t` with the counts as merge_counts makes them, straight from the tracks' lines (a
** heap of one cursor per track, each line's starts and ends in time order) instead of sorting
** copies of every start and end: the copies were most of the counters' memory at start (some
** 60 MB at 15M thread states). Returns 0, -1 (out of memory) or 1 (a line's starts or ends are
** not in order: the caller sorts copies). */
static int merge_tracks(const trak_ui_cache *c, const count_of *q, trak_ui_track *t) {
  size_t n = 0;
  uint32_t name = q->name;
  for (size_t i = 0; i < c->n_tracks; i++)
    n += (size_t)counts_in(c, &c->tracks[i], q);
  cursor *h = malloc((n ? n : 1) * sizeof *h);
  if (!h) return -1;
  n = 0;
  int rc = 0;
  for (size_t i = 0; i < c->n_tracks && !rc; i++) {
    if (!counts_in(c, &c->tracks[i], q)) continue;
    cursor *k = &h[n++];
    *k = (cursor){.t = &c->tracks[i], .start = INT64_MIN, .end = INT64_MIN};
    rc = advance(c, k, name, &k->i_start, &k->start, 0) ||
         advance(c, k, name, &k->i_end, &k->end, 1);
    const trak_ui_line *l = &k->t->lines[0];
    if (k->i_start == l->n && k->i_end == l->n) n--; /* nothing of it counts */
  }
  for (size_t i = n / 2; i-- > 0;)
    sift_down(h, n, i);
  int64_t open = 0;
  while (n && !rc) {
    int64_t ts = next_time(&h[0]);
    while (n && !rc && next_time(&h[0]) == ts) { /* every start and end at ts */
      cursor *k = &h[0];
      const size_t rows = k->t->lines[0].n;
      while (!rc && k->i_start < rows && k->start == ts) {
        open++, k->i_start++;
        rc = advance(c, k, name, &k->i_start, &k->start, 0);
      }
      while (!rc && k->i_end < rows && k->end == ts) {
        open--, k->i_end++;
        rc = advance(c, k, name, &k->i_end, &k->end, 1);
      }
      if (k->i_start == rows && k->i_end == rows) h[0] = h[--n];
      sift_down(h, n, 0);
    }
    if (!rc) rc = put_count(t, ts, open);
  }
  free(h);
  return end_counts(t, rc);
}

/* A min-heap of the ends of the intervals open in sweep_table. */
typedef struct end_heap {
  int64_t *v;
  size_t n, cap;
} end_heap;

static int heap_push(end_heap *h, int64_t end) {
  if (h->n == h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 64;
    int64_t *v = realloc(h->v, cap * sizeof *v);
    if (!v) return -1;
    h->v = v, h->cap = cap;
  }
  size_t i = h->n++;
  for (; i && h->v[(i - 1) / 2] > end; i = (i - 1) / 2)
    h->v[i] = h->v[(i - 1) / 2];
  h->v[i] = end;
  return 0;
}

static void heap_pop(end_heap *h) {
  int64_t x = h->v[--h->n];
  size_t i = 0;
  for (;;) {
    size_t m = 2 * i + 1;
    if (m >= h->n) break;
    if (m + 1 < h->n && h->v[m + 1] < h->v[m]) m++;
    if (h->v[m] >= x) break;
    h->v[i] = h->v[m], i = m;
  }
  if (h->n) h->v[i] = x;
}

/* Whether row `i` of the table of `q` (sched_slice for CPU counts, thread_state for the others)
** may be in a track of `q`; sets *ts and *dur to its times and *named to whether it is an
** interval of `q` (its state is q's, on a CPU any). Admits every row of the tracks (and perhaps
** more: sweep_table checks the totals). */
static int row_of(const trak_ui_cache *c, const count_of *q, uint32_t i, int64_t *ts, int64_t *dur,
                  int *named) {
  const trak_tables *tb = c->tables;
  if (q->kind == TRAK_UI_STATE) {
    *named = c->state_name[tb->thread_state.state8[i]] == q->name;
    if (*named) *ts = tb->thread_state.ts[i], *dur = trak__ts_dur(tb, i);
    return 1;
  }
  uint32_t utid = tb->sched_slice.utid[i];
  if (utid < tb->thread.n && tb->thread.is_idle[utid] == 1) return 0;
  if (q->type >= 0 && cpu_type(tb, q->clusters, trak__ss_ucpu(tb, i)) != q->type) return 0;
  *named = 1, *ts = tb->sched_slice.ts[i], *dur = tb->sched_slice.dur[i];
  return 1;
}

/* Reads on from row *i of the table of `q` (`rows` rows) to the next interval of `q`, counting
** into *admitted the rows row_of admits; its times into *ts and *dur. Returns whether there is
** one. */
static int next_start(const trak_ui_cache *c, const count_of *q, size_t rows, size_t *i,
                      size_t *admitted, int64_t *ts, int64_t *dur) {
  while (*i < rows) {
    int named;
    if (!row_of(c, q, (uint32_t)(*i)++, ts, dur, &named)) continue;
    ++*admitted;
    if (named) return 1;
  }
  return 0;
}

/* Fills `t` with the counts as merge_counts makes them, in one pass over the table's columns in
** row order, when the rows of `q` are in time order there (the sched_slice and thread_state
** rows are, as the importer appends them): each start in turn, the ends of the intervals still
** open in a heap (as many as the count). No row is read through the tracks' row numbers (a
** cache miss a row) and no heap holds a cursor per track. Returns 0, -1 (out of memory) or 1
** (the rows are out of order, or the tracks do not hold exactly the rows row_of admits: the
** caller merges the tracks instead). */
static int sweep_table(const trak_ui_cache *c, const count_of *q, trak_ui_track *t) {
  const trak_tables *tb = c->tables;
  size_t rows = q->kind == TRAK_UI_CPU ? tb->sched_slice.n : tb->thread_state.n, want = 0;
  if (rows > UINT32_MAX) return 1;
  for (size_t k = 0; k < c->n_tracks; k++)
    if (counts_in(c, &c->tracks[k], q)) want += c->tracks[k].lines[0].n;
  end_heap h = {0};
  int64_t open = 0, ts = 0, dur = 0, last = INT64_MIN;
  size_t admitted = 0, i = 0;
  int rc = 0, have = next_start(c, q, rows, &i, &admitted, &ts, &dur); /* ts, dur: next start */
  while (!rc && (have || h.n)) {
    int64_t at = have && (!h.n || ts <= h.v[0]) ? ts : h.v[0];
    if (at < last) rc = 1; /* a start before the time before: the rows are out of order */
    while (!rc && have && ts == at) { /* every start at `at` */
      open++;
      int64_t end = (int64_t)((uint64_t)ts + (uint64_t)dur);
      if (dur != -1) rc = end < at ? 1 : heap_push(&h, end);
      have = next_start(c, q, rows, &i, &admitted, &ts, &dur);
    }
    for (; !rc && h.n && h.v[0] == at; heap_pop(&h)) /* every end at `at` */
      open--;
    if (!rc) rc = put_count(t, at, open);
    last = at;
  }
  free(h.v);
  if (!rc && admitted != want) rc = 1;
  return end_counts(t, rc);
}

/* Fills `t` with the count of open intervals of `q` at each time one starts or ends. Returns 0
** or -1 (out of memory; `t` then has no values). */
static int fill_count(const trak_ui_cache *c, const count_of *q, trak_ui_track *t) {
  int merged = sweep_table(c, q, t);
  if (merged == 1) merged = merge_tracks(c, q, t);
  if (merged <= 0) return merged;
  size_t ns, ne;
  collect(c, q, NULL, NULL, &ns, &ne);
  if (!ns) return 0;
  int64_t *starts = malloc(ns * sizeof *starts), *ends = malloc((ne ? ne : 1) * sizeof *ends);
  int64_t *tmp = malloc(ns * sizeof *tmp); /* ns >= ne */
  int rc = -1;
  if (starts && ends && tmp) {
    collect(c, q, starts, ends, &ns, &ne);
    sort_times(starts, ns, tmp);
    sort_times(ends, ne, tmp);
    free(tmp), tmp = NULL;
    size_t n = merge_counts(starts, ns, ends, ne, NULL);
    if ((t->values = malloc(n * sizeof *t->values))) {
      t->n_values = t->values_cap = merge_counts(starts, ns, ends, ne, t->values);
      rc = 0;
    }
  }
  free(starts), free(ends), free(tmp);
  return rc;
}

/* The id of state name `s` among the cache's names, UINT32_MAX when no state has it. */
static uint32_t name_id(const trak_ui_cache *c, const char *s) {
  for (size_t i = 0; i < c->n_names; i++)
    if (c->names[i] && !strcmp(c->names[i], s)) return (uint32_t)i;
  return UINT32_MAX;
}

int trak__ui_sched_counts_load(trak_ui_cache *c, int64_t first_id) {
  int any_cpu = 0;
  for (size_t t = 0; t < c->n_tracks && !any_cpu; t++)
    any_cpu = c->tracks[t].kind == TRAK_UI_CPU;
  for (int k = 0; k < TRAK_UI_SCHED_COUNTS; k++)
    c->sched_count[k] = any_cpu ? first_id + k : -1;
  for (int k = 0; k < TRAK_UI_CPU_TYPES; k++)
    c->cpu_type_count[k] = -1;
  if (!any_cpu) return 0; /* Perfetto adds the group only for a trace with sched rows */
  static const char *const states[TRAK_UI_SCHED_COUNTS] = {NULL, "R", "D"};
  for (int k = 0; k < TRAK_UI_SCHED_COUNTS; k++) {
    count_of q = {states[k] ? TRAK_UI_STATE : TRAK_UI_CPU,
                  states[k] ? name_id(c, states[k]) : UINT32_MAX, -1, 0};
    trak_ui_track *t = trak__ui_cache_add_track(c, c->sched_count[k]);
    if (!t) return -1;
    if (states[k] && q.name == UINT32_MAX) continue; /* no such state: an empty counter */
    if (fill_count(c, &q, t)) return -1;
  }
  /* The active CPUs of each type, when the CPU tracks are of more than one (one type: the
  ** count above is its count). */
  int clusters = cluster_count(c->tables), seen[TRAK_UI_CPU_TYPES] = {0}, types = 0;
  for (size_t t = 0; t < c->n_tracks; t++)
    if (c->tracks[t].kind == TRAK_UI_CPU) {
      int type = cpu_type(c->tables, clusters, c->tracks[t].key);
      if (type >= 0 && !seen[type]++) types++;
    }
  for (int k = 0; types > 1 && k < TRAK_UI_CPU_TYPES; k++) {
    if (!seen[k]) continue;
    count_of q = {TRAK_UI_CPU, UINT32_MAX, k, clusters};
    c->cpu_type_count[k] = first_id + TRAK_UI_SCHED_COUNTS + k;
    trak_ui_track *t = trak__ui_cache_add_track(c, c->cpu_type_count[k]);
    if (!t || fill_count(c, &q, t)) return -1;
  }
  return 0;
}
