/*
** This file computes the whole of slices.time_in_state's (or slices.cpu_time's) table at once,
** for the virtual tables of slice_thread_time.c: the thread slices grouped by thread, each
** thread's intervals (thread_state or sched rows with dur > 0) copied by thread in sequential
** passes over the columns, and each slice's overlaps summed per (state, io_wait,
** blocked_function) by a walk from its first interval; the rows come out per slice in SQLite's
** GROUP BY order. Per-slice lookups (describe_slice) use slice_thread_time.c's index instead.
*/
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/slice_thread_time.h"

/* ---- the whole table, one thread at a time ------------------------------------------------- */

/* The distinct (state, io_wait, blocked_function) of the intervals, in first-seen order: an
** open-addressed set (slots hold key + 1), with a memo by (state code, io_wait) in front of it
** for rows without a blocked function (most rows). */
typedef struct key_set {
  trak_thread_time_group *v;
  size_t n, cap;
  uint32_t *slots;
  size_t nslots; /* a power of two, at least twice n */
  uint32_t memo[TRAK_DICT8_WIDE * 3];
} key_set;

static size_t key_hash(const trak_thread_time_group *g) {
  uint64_t h = ((uint64_t)g->state << 32 | g->blocked) * 0x9e3779b97f4a7c15ull;
  return (size_t)((h ^ h >> 29) + g->io_wait);
}

/* The key of g, added if new. Returns it, or UINT32_MAX out of memory. */
static uint32_t key_put(key_set *ks, trak_thread_time_group g) {
  if (2 * (ks->n + 1) > ks->nslots) {
    size_t n = ks->nslots ? ks->nslots * 2 : 64;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots) return UINT32_MAX;
    for (size_t k = 0; k < ks->n; k++) {
      size_t i = key_hash(&ks->v[k]) & (n - 1);
      while (slots[i]) i = (i + 1) & (n - 1);
      slots[i] = (uint32_t)k + 1;
    }
    free(ks->slots);
    ks->slots = slots;
    ks->nslots = n;
  }
  size_t i = key_hash(&g) & (ks->nslots - 1);
  for (; ks->slots[i]; i = (i + 1) & (ks->nslots - 1)) {
    const trak_thread_time_group *o = &ks->v[ks->slots[i] - 1];
    if (o->state == g.state && o->io_wait == g.io_wait && o->blocked == g.blocked)
      return ks->slots[i] - 1;
  }
  if (ks->n == ks->cap) {
    size_t cap = ks->cap ? ks->cap * 2 : 16;
    trak_thread_time_group *v = realloc(ks->v, cap * sizeof *v);
    if (!v) return UINT32_MAX;
    ks->v = v;
    ks->cap = cap;
  }
  g.dur = 0;
  ks->v[ks->n] = g;
  ks->slots[i] = (uint32_t)ks->n + 1;
  return (uint32_t)ks->n++;
}

/* The key of thread_state row r (sched rows all have key 0). UINT32_MAX out of memory. */
static uint32_t key_of(key_set *ks, const trak_tables *t, int sched, uint32_t r) {
  if (sched) return key_put(ks, (trak_thread_time_group){0, 0, TRAK_NULL_U32, 2, 0});
  uint8_t code = t->thread_state.state8[r], io = trak__ts_io_wait(t, r);
  uint32_t blocked = trak__ts_blocked_function(t, r);
  uint32_t *memo = !blocked && code != TRAK_DICT8_WIDE && io < 3 ? &ks->memo[code * 3 + io] : NULL;
  if (memo && *memo) return *memo - 1;
  uint32_t k = key_put(ks, (trak_thread_time_group){trak__ts_state(t, r), blocked,
                                                       TRAK_NULL_U32, io, 0});
  if (memo && k != UINT32_MAX) *memo = k + 1;
  return k;
}

static int key_rank_cmp(const void *a, const void *b, void *ctx) {
  const key_set *ks = ((const void *const *)ctx)[0];
  const trak_strpool *sp = ((const void *const *)ctx)[1];
  return trak__thread_time_group_cmp(sp, &ks->v[*(const uint32_t *)a], &ks->v[*(const uint32_t *)b]);
}

void trak__thread_time_all_release(time_all *all) {
  if (!all || --all->refs > 0) return;
  free(all->off);
  free(all->cnt);
  free(all->key);
  free(all->dur);
  free(all->keys);
  free(all);
}

/* Appends slice row (key, dur) to all. Returns 0 or -1 out of memory. */
static int all_push(time_all *all, uint32_t key, int64_t dur) {
  if (all->n == all->cap) {
    size_t cap = all->cap ? all->cap * 2 : 4096;
    uint32_t *k = realloc(all->key, cap * sizeof *k);
    if (k) all->key = k;
    int64_t *d = k ? realloc(all->dur, cap * sizeof *d) : NULL;
    if (!d) return -1;
    all->dur = d;
    all->cap = cap;
  }
  all->key[all->n] = key;
  all->dur[all->n++] = dur;
  return 0;
}

/* Scratch of the build: a chunk of threads' intervals by thread, each thread's by ts (start, end,
** key), the latest end so far of a thread whose intervals overlap, the sums of the current slice
** per key (stamp: slice + 1 once the slice touched the key) and the keys it touched. */
typedef struct walk {
  int64_t *ts, *end, *reach;
  uint32_t *key;
  size_t cap, reach_cap;
  int64_t *acc;
  uint32_t *stamp, *touched;
} walk;

/* At most this many intervals are copied at once: the threads are taken in chunks. */
#define WALK_CHUNK ((size_t)1 << 23)

/* The groups of thread slice s over [start, end), whose thread's intervals are ts/end/key[0..m)
** with reach[k] the latest end of [0..k], appended to all (keys in first-seen order: all_rank
** orders them). */
static int walk_slice(time_all *all, walk *w, const int64_t *ts, const int64_t *end_of,
                      const int64_t *reach, const uint32_t *key, size_t m, uint32_t s,
                      int64_t start, int64_t end) {
  size_t lo = 0, hi = m, nt = 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (reach[mid] > start)
      hi = mid;
    else
      lo = mid + 1;
  }
  for (size_t k = lo; k < m && ts[k] < end; k++) {
    int64_t a = ts[k], b = end_of[k];
    if (b <= start) continue;
    uint32_t kk = key[k];
    if (w->stamp[kk] != s + 1) {
      w->stamp[kk] = s + 1;
      w->acc[kk] = 0;
      w->touched[nt++] = kk;
    }
    w->acc[kk] += (b < end ? b : end) - (a > start ? a : start);
  }
  all->off[s] = (uint32_t)all->n;
  all->cnt[s] = (uint32_t)nt;
  for (size_t i = 0; i < nt; i++)
    if (all_push(all, w->touched[i], w->acc[w->touched[i]])) return -1;
  return 0;
}

static int perm_by_ts_cmp(const void *a, const void *b, void *ctx) {
  const int64_t *ts = ctx;
  int64_t x = ts[*(const uint32_t *)a], y = ts[*(const uint32_t *)b];
  if (x != y) return x < y ? -1 : 1;
  return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Puts the m intervals at w->ts/end/key + at in ts order (ties in row order), when they are not.
** Returns 0 or -1 out of memory. */
static int walk_sort(walk *w, size_t at, size_t m) {
  int64_t *ts = w->ts + at, *end = w->end + at;
  uint32_t *key = w->key + at;
  size_t k = 0;
  while (k + 1 < m && ts[k] <= ts[k + 1]) k++;
  if (k + 1 >= m) return 0;
  uint32_t *perm = malloc(m * sizeof *perm);
  int64_t *tmp = malloc(m * sizeof *tmp);
  uint32_t *ktmp = malloc(m * sizeof *ktmp);
  if (!perm || !tmp || !ktmp) return free(perm), free(tmp), free(ktmp), -1;
  for (uint32_t i = 0; i < m; i++) perm[i] = i;
  qsort_r(perm, m, sizeof *perm, perm_by_ts_cmp, ts);
  for (size_t i = 0; i < m; i++) tmp[i] = ts[perm[i]];
  memcpy(ts, tmp, m * sizeof *tmp);
  for (size_t i = 0; i < m; i++) tmp[i] = end[perm[i]];
  memcpy(end, tmp, m * sizeof *tmp);
  for (size_t i = 0; i < m; i++) ktmp[i] = key[perm[i]];
  memcpy(key, ktmp, m * sizeof *ktmp);
  free(perm), free(tmp), free(ktmp);
  return 0;
}

/* Walks the thread slices of threads [u0, u1) (slist[sfirst[u]..sfirst[u + 1]) with their start
** and end in sbound), whose counts[u] intervals (in all `count` of them) are copied from the
** source in one sequential pass, thread by thread. */
static int walk_chunk(time_all *all, walk *w, const trak_tables *t, int sched, key_set *ks,
                      const uint32_t *sfirst, const uint32_t *slist, const int64_t *sbound,
                      const uint32_t *counts,
                      uint32_t *pos, size_t u0, size_t u1, size_t count) {
  time_source src = source_of(t, sched);
  if (count > w->cap) {
    free(w->ts), free(w->end), free(w->key);
    w->ts = malloc(count * sizeof *w->ts);
    w->end = malloc(count * sizeof *w->end);
    w->key = malloc(count * sizeof *w->key);
    w->cap = count;
    if (!w->ts || !w->end || !w->key) return w->cap = 0, -1;
  }
  size_t at = 0;
  for (size_t u = u0; u < u1; u++) {
    pos[u] = (uint32_t)at;
    at += counts[u];
  }
  for (size_t i = 0; i < src.n; i++) {
    uint32_t u = src.utid[i];
    if (u < u0 || u >= u1 || !counts[u]) continue;
    int64_t dur = src_dur(&src, i);
    if (dur <= 0) continue;
    uint32_t k = pos[u]++;
    w->ts[k] = src.ts[i];
    w->end[k] = src.ts[i] + dur;
    w->key[k] = key_of(ks, t, sched, (uint32_t)i);
  }
  at = 0;
  for (size_t u = u0; u < u1; u++) {
    size_t m = counts[u];
    const int64_t *reach = w->end + at;
    if (m && walk_sort(w, at, m)) return -1;
    for (size_t k = 1; k < m && reach == w->end + at; k++)
      if (w->end[at + k] < w->end[at + k - 1]) {
        if (m > w->reach_cap) {
          free(w->reach);
          w->reach = malloc(m * sizeof *w->reach);
          w->reach_cap = w->reach ? m : 0;
          if (!w->reach) return -1;
        }
        int64_t r = INT64_MIN;
        for (size_t j = 0; j < m; j++) {
          r = w->end[at + j] > r ? w->end[at + j] : r;
          w->reach[j] = r;
        }
        reach = w->reach;
      }
    for (uint32_t i = sfirst[u]; m && i < sfirst[u + 1]; i++)
      if (walk_slice(all, w, w->ts + at, w->end + at, reach, w->key + at, m, slist[i],
                     sbound[2 * i], sbound[2 * i + 1]))
        return -1;
    at += m;
  }
  return 0;
}

/* Replaces all's first-seen keys by their place in GROUP BY order and orders each slice's rows
** by it; all->keys gets the keys in that order. Returns 0 or -1 out of memory. */
static int all_rank(time_all *all, const trak_tables *t, const key_set *ks) {
  uint32_t *order = malloc((ks->n + 1) * sizeof *order);
  uint32_t *rank = malloc((ks->n + 1) * sizeof *rank);
  all->keys = malloc((ks->n + 1) * sizeof *all->keys);
  if (!order || !rank || !all->keys) return free(order), free(rank), -1;
  for (uint32_t k = 0; k < ks->n; k++)
    order[k] = k;
  const void *ctx[2] = {ks, &t->strings};
  qsort_r(order, ks->n, sizeof *order, key_rank_cmp, ctx);
  for (uint32_t k = 0; k < ks->n; k++) {
    rank[order[k]] = k;
    all->keys[k] = ks->v[order[k]];
  }
  all->nkeys = ks->n;
  for (size_t s = 0; s < all->slices; s++) {
    uint32_t *key = all->key + all->off[s];
    int64_t *dur = all->dur + all->off[s];
    for (uint32_t i = 0; i < all->cnt[s]; i++) {
      uint32_t k = rank[key[i]], j = i;
      int64_t d = dur[i];
      for (; j > 0 && key[j - 1] > k; j--) key[j] = key[j - 1], dur[j] = dur[j - 1];
      key[j] = k, dur[j] = d;
    }
  }
  free(order);
  free(rank);
  return 0;
}

/* Fills all: the thread slices by thread; the intervals (dur > 0) of their threads counted and
** their keys found in one pass; then per chunk of threads the intervals copied by thread in
** one more pass, each thread's slices walked over them; last the keys ranked. Returns 0 or -1
** out of memory. */
static int all_build(time_all *all, const trak_tables *t, int sched, key_set *ks, walk *w,
                     void **scratch) {
  time_source src = source_of(t, sched);
  size_t nthreads = t->thread.n, nslices = t->slice.n;
  uint32_t *sfirst = scratch[0] = calloc(nthreads + 2, sizeof *sfirst);
  uint32_t *counts = scratch[1] = calloc(nthreads + 1, sizeof *counts);
  uint32_t *pos = scratch[2] = calloc(nthreads + 1, sizeof *pos);
  uint32_t *slist = scratch[3] = malloc((nslices ? nslices : 1) * sizeof *slist);
  /* the thread slices' start and end in slist's order, read in one pass (not one miss each) */
  int64_t *sbound = scratch[4] = malloc((nslices ? nslices : 1) * 2 * sizeof *sbound);
  all->slices = nslices;
  all->off = calloc(nslices ? nslices : 1, sizeof *all->off);
  all->cnt = calloc(nslices ? nslices : 1, sizeof *all->cnt);
  if (!sfirst || !counts || !pos || !slist || !sbound || !all->off || !all->cnt) return -1;
  for (uint32_t s = 0; s < nslices; s++)
    sfirst[slice_utid(t, s) + 2]++;
  sfirst[2] = 0; /* utid 0: no thread slice */
  for (size_t u = 0; u < nthreads; u++)
    sfirst[u + 2] += sfirst[u + 1];
  for (uint32_t s = 0; s < nslices; s++) {
    uint32_t u = slice_utid(t, s);
    if (!u) continue;
    uint32_t i = sfirst[u + 1]++;
    slist[i] = s;
    sbound[2 * i] = t->slice.ts[s];
    sbound[2 * i + 1] = t->slice.ts[s] + t->slice.dur[s];
  }
  for (size_t i = 0; i < src.n; i++) {
    uint32_t u = src.utid[i];
    if (u && u < nthreads && sfirst[u + 1] > sfirst[u] && src_dur(&src, i) > 0) {
      counts[u]++;
      if (key_of(ks, t, sched, (uint32_t)i) == UINT32_MAX) return -1;
    }
  }
  w->acc = malloc((ks->n + 1) * sizeof *w->acc);
  w->stamp = calloc(ks->n + 1, sizeof *w->stamp);
  w->touched = malloc((ks->n + 1) * sizeof *w->touched);
  if (!w->acc || !w->stamp || !w->touched) return -1;
  for (size_t u0 = 1, u1; u0 < nthreads; u0 = u1) {
    size_t count = 0;
    for (u1 = u0; u1 < nthreads && (u1 == u0 || count + counts[u1] <= WALK_CHUNK); u1++)
      count += counts[u1];
    if (count &&
        walk_chunk(all, w, t, sched, ks, sfirst, slist, sbound, counts, pos, u0, u1, count))
      return -1;
  }
  return all_rank(all, t, ks);
}

time_all *trak__thread_time_all_new(const trak_tables *t, int sched) {
  time_all *all = calloc(1, sizeof *all);
  if (!all) return NULL;
  all->refs = 1;
  key_set ks = {0};
  walk w = {0};
  void *scratch[5] = {0};
  int rc = all_build(all, t, sched, &ks, &w, scratch);
  for (int i = 0; i < 5; i++) free(scratch[i]);
  free(ks.v), free(ks.slots);
  free(w.ts), free(w.end), free(w.reach), free(w.key), free(w.acc), free(w.stamp);
  free(w.touched);
  if (rc) {
    trak__thread_time_all_release(all);
    return NULL;
  }
  all->generation = t->generation;
  all->slices = t->slice.n;
  all->intervals = source_of(t, sched).n;
  return all;
}
