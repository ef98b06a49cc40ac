/*
** This file computes the whole of slices.time_in_state's (or slices.cpu_time's) table at once,
** for the virtual tables of slice_thread_time.c, on two threads where there are two cores:
** 1. the thread slices grouped by thread (one pass over the slices);
** 2. each half of the intervals' rows (thread_state or sched rows with dur > 0 of threads with
**    slices) counted per thread and keyed per (state, io_wait, blocked_function), one half on
**    each thread; the two halves' keys merged in first-seen order and ranked in SQLite's GROUP
**    BY order once;
** 3. each half's rows copied by thread into one array of 16-byte intervals (start, dur, rank),
**    the first half's before the second's in each thread's run: row order;
** 4. each half of the threads (halved by intervals) walked: each slice's overlaps summed per
**    key from its first interval (found by galloping from the previous slice's), its rows
**    ordered by rank, appended to that half's rows; the second half's rows go after the
**    first's. The rows, their order and their place (rowid) are the same whatever the threads.
** Per-slice lookups (describe_slice) use slice_thread_time.c's index instead.
*/
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "processor/sql/perfetto_sql/slice_thread_time.h"
#include "processor/util/two_threads.h"

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

/* ---- two threads ---------------------------------------------------------------------------- */

/* Below this many source rows one thread does it all (a thread's start costs more). */
#define TWO_THREADS_MIN ((size_t)1 << 16)

/* 2 when the build may use a second thread: TRAK_QUERY_THREADS=1 or 2 says (the tests run
** both), else two cores and enough rows. */
static int build_threads(size_t rows) {
  const char *env = getenv("TRAK_QUERY_THREADS");
  if (env && (env[0] == '1' || env[0] == '2') && !env[1]) return env[0] - '0';
  return rows >= TWO_THREADS_MIN && sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
}

/* ---- the build's shared state --------------------------------------------------------------- */

/* A thread's interval: start, dur and key rank; dur IV_WIDE: the end and rank are
** wide[key]'s (a dur of 2^32 - 1 ns or more). */
typedef struct iv {
  int64_t ts;
  uint32_t dur, key;
} iv;
#define IV_WIDE UINT32_MAX
typedef struct wide_iv {
  int64_t end;
  uint32_t key;
} wide_iv;

static inline int64_t iv_end(const iv *v, const wide_iv *wide) {
  return v->dur != IV_WIDE ? v->ts + v->dur : wide[v->key].end;
}
static inline uint32_t iv_key(const iv *v, const wide_iv *wide) {
  return v->dur != IV_WIDE ? v->key : wide[v->key].key;
}

typedef struct build build;

/* One half of the source rows [r0, r1): its counts per thread, wide rows and keys; pos[u] is
** where its next interval of thread u goes, rank its keys' ranks. */
typedef struct row_half {
  build *b;
  size_t r0, r1;
  uint32_t *counts, *pos, *rank;
  size_t nwide, wide_at;
  key_set ks;
  int failed;
} row_half;

/* Rows appended by one walk: key (rank) and dur per row. */
typedef struct rows_out {
  uint32_t *key;
  int64_t *dur;
  size_t n, cap;
} rows_out;

/* One half of the threads [u0, u1) walked, its rows in out. */
typedef struct thread_half {
  build *b;
  size_t u0, u1;
  rows_out out;
  int64_t *reach, *acc;
  size_t reach_cap;
  uint32_t *stamp, *touched;
  int failed;
} thread_half;

struct build {
  const trak_tables *t;
  int sched;
  time_all *all;
  size_t nthreads;
  uint32_t *sfirst;   /* thread u's slices are slist[sfirst[u]..sfirst[u + 1]) */
  uint32_t *slist;    /* the thread slices by thread, in id order */
  int64_t *sbound;    /* their start and end, in slist's order */
  uint32_t *first;    /* thread u's intervals are ivs[first[u]..first[u + 1]) */
  iv *ivs;
  size_t nivs;
  wide_iv *wide;
  size_t nwide;
  size_t nkeys;
  row_half rh[2];
  thread_half th[2];
};

/* ---- counting and keying the rows ----------------------------------------------------------- */

static void *count_half(void *arg) {
  row_half *h = arg;
  const build *b = h->b;
  time_source src = source_of(b->t, b->sched);
  size_t nthreads = b->nthreads;
  for (size_t i = h->r0; i < h->r1; i++) {
    uint32_t u = src.utid[i];
    if (!u || u >= nthreads || b->sfirst[u + 1] == b->sfirst[u]) continue;
    int64_t dur = src_dur(&src, i);
    if (dur <= 0) continue;
    h->counts[u]++;
    h->nwide += dur >= IV_WIDE;
    if (key_of(&h->ks, b->t, b->sched, (uint32_t)i) == UINT32_MAX) return h->failed = 1, NULL;
  }
  return NULL;
}

/* The two halves' keys merged in first-seen order (the first half's rows come first), ranked in
** GROUP BY order into all->keys; each half's rank[] maps its keys to their ranks. */
static int keys_rank(build *b) {
  key_set ks = {0};
  int rc = -1;
  uint32_t *order = NULL, *rank = NULL;
  for (int h = 0; h < 2; h++) {
    row_half *rh = &b->rh[h];
    if (!(rh->rank = malloc((rh->ks.n + 1) * sizeof *rh->rank))) goto out;
    for (size_t k = 0; k < rh->ks.n; k++)
      if ((rh->rank[k] = key_put(&ks, rh->ks.v[k])) == UINT32_MAX) goto out;
  }
  order = malloc((ks.n + 1) * sizeof *order);
  rank = malloc((ks.n + 1) * sizeof *rank);
  b->all->keys = malloc((ks.n + 1) * sizeof *b->all->keys);
  if (!order || !rank || !b->all->keys) goto out;
  for (uint32_t k = 0; k < ks.n; k++)
    order[k] = k;
  const void *ctx[2] = {&ks, &b->t->strings};
  qsort_r(order, ks.n, sizeof *order, key_rank_cmp, ctx);
  for (uint32_t k = 0; k < ks.n; k++) {
    rank[order[k]] = k;
    b->all->keys[k] = ks.v[order[k]];
  }
  b->all->nkeys = b->nkeys = ks.n;
  for (int h = 0; h < 2; h++)
    for (size_t k = 0; k < b->rh[h].ks.n; k++)
      b->rh[h].rank[k] = rank[b->rh[h].rank[k]];
  rc = 0;
out:
  free(order), free(rank), free(ks.v), free(ks.slots);
  return rc;
}

/* ---- copying the rows by thread ------------------------------------------------------------- */

static void *copy_half(void *arg) {
  row_half *h = arg;
  const build *b = h->b;
  time_source src = source_of(b->t, b->sched);
  size_t nthreads = b->nthreads, wide_at = h->wide_at;
  iv *ivs = b->ivs;
  for (size_t i = h->r0; i < h->r1; i++) {
    uint32_t u = src.utid[i];
    if (!u || u >= nthreads || !h->counts[u]) continue;
    int64_t dur = src_dur(&src, i);
    if (dur <= 0) continue;
    uint32_t k = key_of(&h->ks, b->t, b->sched, (uint32_t)i);
    if (k == UINT32_MAX) return h->failed = 1, NULL;
    iv *v = &ivs[h->pos[u]++];
    v->ts = src.ts[i];
    if (dur < IV_WIDE) {
      v->dur = (uint32_t)dur;
      v->key = h->rank[k];
    } else {
      b->wide[wide_at] = (wide_iv){src.ts[i] + dur, h->rank[k]};
      v->dur = IV_WIDE;
      v->key = (uint32_t)wide_at++;
    }
  }
  return NULL;
}

/* ---- walking the slices --------------------------------------------------------------------- */

static int iv_by_ts(const void *a, const void *b) {
  int64_t x = ((const iv *)a)->ts, y = ((const iv *)b)->ts;
  return (x > y) - (x < y);
}

/* Appends row (key, dur) to o. Returns 0 or -1 out of memory. */
static int out_push(rows_out *o, uint32_t key, int64_t dur) {
  if (o->n == o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 4096;
    uint32_t *k = realloc(o->key, cap * sizeof *k);
    if (k) o->key = k;
    int64_t *d = k ? realloc(o->dur, cap * sizeof *d) : NULL;
    if (!d) return -1;
    o->dur = d;
    o->cap = cap;
  }
  o->key[o->n] = key;
  o->dur[o->n++] = dur;
  return 0;
}

/* The latest end of v[0..k]: reach[k], or v[k]'s end when reach is NULL (ends in order). */
static inline int64_t reach_at(const iv *v, const int64_t *reach, const wide_iv *wide, size_t k) {
  return reach ? reach[k] : iv_end(&v[k], wide);
}

/* Walks thread u's slices over its m intervals v (by ts). */
static int walk_thread(thread_half *h, size_t u, iv *v, size_t m) {
  const build *b = h->b;
  const wide_iv *wide = b->wide;
  time_all *all = b->all;
  if (!m) return 0;
  for (size_t k = 1; k < m; k++)
    if (v[k].ts < v[k - 1].ts) {
      qsort(v, m, sizeof *v, iv_by_ts); /* ties in any order: sums do not mind */
      break;
    }
  const int64_t *reach = NULL;
  for (size_t k = 1; k < m; k++)
    if (iv_end(&v[k], wide) < iv_end(&v[k - 1], wide)) {
      if (m > h->reach_cap) {
        free(h->reach);
        h->reach = malloc(m * sizeof *h->reach);
        h->reach_cap = h->reach ? m : 0;
        if (!h->reach) return -1;
      }
      int64_t r = INT64_MIN;
      for (size_t j = 0; j < m; j++) {
        int64_t e = iv_end(&v[j], wide);
        h->reach[j] = r = e > r ? e : r;
      }
      reach = h->reach;
      break;
    }
  size_t lo = 0;
  int64_t prev = INT64_MIN;
  for (uint32_t i = b->sfirst[u]; i < b->sfirst[u + 1]; i++) {
    uint32_t s = b->slist[i];
    int64_t start = b->sbound[2 * i], end = b->sbound[2 * i + 1];
    /* the first interval reaching past start: from the previous slice's when it began earlier */
    if (start < prev) lo = 0;
    prev = start;
    size_t hi = lo, step = 1;
    while (hi < m && reach_at(v, reach, wide, hi) <= start) {
      lo = hi + 1;
      hi += step;
      step *= 2;
    }
    if (hi > m) hi = m;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (reach_at(v, reach, wide, mid) > start)
        hi = mid;
      else
        lo = mid + 1;
    }
    size_t nt = 0;
    for (size_t k = lo; k < m && v[k].ts < end; k++) {
      int64_t a = v[k].ts, e = iv_end(&v[k], wide);
      if (e <= start) continue;
      uint32_t kk = iv_key(&v[k], wide);
      if (h->stamp[kk] != s + 1) {
        h->stamp[kk] = s + 1;
        h->acc[kk] = 0;
        /* touched stays in rank order: an insertion (a slice has few keys) */
        size_t j = nt++;
        for (; j > 0 && h->touched[j - 1] > kk; j--) h->touched[j] = h->touched[j - 1];
        h->touched[j] = kk;
      }
      h->acc[kk] += (e < end ? e : end) - (a > start ? a : start);
    }
    all->off[s] = (uint32_t)h->out.n;
    all->cnt[s] = (uint32_t)nt;
    for (size_t j = 0; j < nt; j++)
      if (out_push(&h->out, h->touched[j], h->acc[h->touched[j]])) return -1;
  }
  return 0;
}

static void *walk_half(void *arg) {
  thread_half *h = arg;
  const build *b = h->b;
  h->acc = malloc((b->nkeys + 1) * sizeof *h->acc);
  h->stamp = calloc(b->nkeys + 1, sizeof *h->stamp);
  h->touched = malloc((b->nkeys + 1) * sizeof *h->touched);
  if (!h->acc || !h->stamp || !h->touched) return h->failed = 1, NULL;
  for (size_t u = h->u0; u < h->u1; u++)
    if (walk_thread(h, u, b->ivs + b->first[u], b->first[u + 1] - b->first[u]))
      return h->failed = 1, NULL;
  return NULL;
}

/* ---- the whole ------------------------------------------------------------------------------ */

/* Groups the thread slices by thread (sfirst, slist, sbound). Returns 0 or -1 out of memory. */
static int slices_by_thread(build *b) {
  const trak_tables *t = b->t;
  size_t nthreads = b->nthreads, nslices = t->slice.n;
  b->sfirst = calloc(nthreads + 2, sizeof *b->sfirst);
  b->slist = malloc((nslices ? nslices : 1) * sizeof *b->slist);
  /* the thread slices' start and end in slist's order, read in one pass (not one miss each) */
  b->sbound = malloc((nslices ? nslices : 1) * 2 * sizeof *b->sbound);
  if (!b->sfirst || !b->slist || !b->sbound) return -1;
  uint32_t *sfirst = b->sfirst;
  for (uint32_t s = 0; s < nslices; s++)
    sfirst[slice_utid(t, s) + 2]++;
  sfirst[2] = 0; /* utid 0: no thread slice */
  for (size_t u = 0; u < nthreads; u++)
    sfirst[u + 2] += sfirst[u + 1];
  for (uint32_t s = 0; s < nslices; s++) {
    uint32_t u = slice_utid(t, s);
    if (!u) continue;
    uint32_t i = sfirst[u + 1]++;
    b->slist[i] = s;
    b->sbound[2 * i] = t->slice.ts[s];
    b->sbound[2 * i + 1] = t->slice.ts[s] + t->slice.dur[s];
  }
  return 0;
}

/* The rows of both walks in all: the second's after the first's, its slices' offsets moved. */
static int rows_join(build *b) {
  time_all *all = b->all;
  rows_out *o0 = &b->th[0].out, *o1 = &b->th[1].out;
  size_t n = o0->n + o1->n;
  all->key = realloc(o0->key, (n ? n : 1) * sizeof *all->key);
  if (!all->key) return -1;
  o0->key = NULL;
  all->dur = realloc(o0->dur, (n ? n : 1) * sizeof *all->dur);
  if (!all->dur) return -1;
  o0->dur = NULL;
  if (o1->n) {
    memcpy(all->key + o0->n, o1->key, o1->n * sizeof *all->key);
    memcpy(all->dur + o0->n, o1->dur, o1->n * sizeof *all->dur);
  }
  for (uint32_t i = b->sfirst[b->th[1].u0]; i < b->sfirst[b->th[1].u1]; i++)
    all->off[b->slist[i]] += (uint32_t)o0->n;
  all->n = all->cap = n;
  return 0;
}

static int all_build(build *b) {
  const trak_tables *t = b->t;
  time_all *all = b->all;
  size_t nthreads = b->nthreads = t->thread.n, nslices = t->slice.n;
  size_t nrows = source_of(t, b->sched).n;
  int threads = build_threads(nrows);
  all->slices = nslices;
  all->off = calloc(nslices ? nslices : 1, sizeof *all->off);
  all->cnt = calloc(nslices ? nslices : 1, sizeof *all->cnt);
  if (!all->off || !all->cnt || slices_by_thread(b)) return -1;
  for (int h = 0; h < 2; h++) {
    row_half *rh = &b->rh[h];
    rh->b = b;
    rh->r0 = h ? nrows / 2 : 0;
    rh->r1 = h ? nrows : nrows / 2;
    rh->counts = calloc(nthreads + 1, sizeof *rh->counts);
    rh->pos = malloc((nthreads + 1) * sizeof *rh->pos);
    if (!rh->counts || !rh->pos) return -1;
  }
  trak__run_both(count_half, &b->rh[0], &b->rh[1], threads);
  if (b->rh[0].failed || b->rh[1].failed || keys_rank(b)) return -1;
  /* thread u's intervals: the first half's, then the second's */
  b->first = malloc((nthreads + 1) * sizeof *b->first);
  if (!b->first) return -1;
  size_t at = 0;
  for (size_t u = 0; u < nthreads; u++) {
    b->first[u] = (uint32_t)at;
    b->rh[0].pos[u] = (uint32_t)at;
    b->rh[1].pos[u] = (uint32_t)(at + b->rh[0].counts[u]);
    at += b->rh[0].counts[u] + b->rh[1].counts[u];
  }
  b->first[nthreads] = (uint32_t)at;
  b->nivs = at;
  b->nwide = b->rh[0].nwide + b->rh[1].nwide;
  b->rh[1].wide_at = b->rh[0].nwide;
  b->ivs = malloc((at ? at : 1) * sizeof *b->ivs);
  b->wide = malloc((b->nwide ? b->nwide : 1) * sizeof *b->wide);
  if (!b->ivs || !b->wide) return -1;
  trak__run_both(copy_half, &b->rh[0], &b->rh[1], threads);
  if (b->rh[0].failed || b->rh[1].failed) return -1;
  /* the threads halved by intervals and slices (the walk's work) */
  size_t total = at + nslices, acc = 0, mid = nthreads;
  for (size_t u = 0; u < nthreads; u++) {
    acc += b->first[u + 1] - b->first[u] + (b->sfirst[u + 1] - b->sfirst[u]);
    if (2 * acc >= total) {
      mid = u + 1;
      break;
    }
  }
  b->th[0] = (thread_half){.b = b, .u0 = 0, .u1 = mid};
  b->th[1] = (thread_half){.b = b, .u0 = mid, .u1 = nthreads};
  trak__run_both(walk_half, &b->th[0], &b->th[1], threads);
  if (b->th[0].failed || b->th[1].failed) return -1;
  return rows_join(b);
}

time_all *trak__thread_time_all_new(const trak_tables *t, int sched) {
  time_all *all = calloc(1, sizeof *all);
  if (!all) return NULL;
  all->refs = 1;
  build b = {.t = t, .sched = sched, .all = all};
  int rc = all_build(&b);
  free(b.sfirst), free(b.slist), free(b.sbound), free(b.first), free(b.wide), free(b.ivs);
  for (int h = 0; h < 2; h++) {
    row_half *rh = &b.rh[h];
    free(rh->counts), free(rh->pos), free(rh->rank), free(rh->ks.v), free(rh->ks.slots);
    thread_half *th = &b.th[h];
    free(th->out.key), free(th->out.dur), free(th->reach), free(th->acc), free(th->stamp);
    free(th->touched);
  }
  if (rc) {
    trak__thread_time_all_release(all);
    return NULL;
  }
  all->generation = t->generation;
  all->slices = t->slice.n;
  all->intervals = source_of(t, sched).n;
  return all;
}
