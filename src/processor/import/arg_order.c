/*
** This file numbers arg sets as Perfetto's importer does. Perfetto commits an arg set when it
** makes the thing the set belongs to, and its arg_set_id is the args table's row count at that
** moment: a track's sets when the track is made (before the event that first uses it), a
** slice's when the slice leaves its track's stack (its end, or the later event that closes it,
** so an inner slice's set comes before its parent's), a counter value's or a flow's when the row
** is made. trak builds events' sets while it tokenizes (in file order) and tracks' when the
** import ends, so the parse phase logs those moments (trak__arg_order_*) and the import's last
** step lays the args table out again in that order, renumbering every arg_set_id column. The
** ftrace merge's sets and what the parse makes of ftrace events are logged in two runs and
** interleaved by time (trak__arg_order_timed_begin).
** Sets nothing refers to (a slice begin's, replaced by its merge with the end's) are dropped,
** as Perfetto never makes them; identical sets stay one set, numbered where the first was made.
** With two import threads, the other core makes the new columns' pages present while the sets
** are placed, renumbers the tables' track_id columns for tracks.c, finds the value columns whose
** rows are all one value (those are kept as they are, not gathered) and gathers the first other
** column behind the placing; then it renumbers half of a large set-id column and gathers half of
** every other column's rows.
*/
#define _GNU_SOURCE /* MADV_POPULATE_WRITE */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "processor/import/importer.h"
#include "processor/util/phase_clock.h"
#include "processor/util/two_threads.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; an older kernel answers EINVAL and nothing is done */
#endif
/* Args rows from which the relayout takes the second core (a thread's start costs more below) */
#define TWO_THREADS_ROWS ((size_t)1 << 16)

static void *alloc(size_t n, size_t size) {
  void *p = malloc((n ? n : 1) * size);
  if (!p) abort();
  return p;
}

/* The arg-set share map's mapped arrays, given up to the relayout when sharing ends
** (trak__slot_map_release): an array of the relayout's own taken from them is written without a
** page fault, and the kernel zeroes nothing for it (at 50 M JSON events, 200 MB of them). */
typedef struct reuse {
  trak_region r[3];
  size_t n;
} reuse;

/* Room for `n` values of `size` bytes: the smallest region of `u` that holds them, taken out of
** `u` and cut to the pages they need (*got is what is left of it, for reuse_free), else
** malloc'd (got->p NULL). Aborts on out of memory. The bytes are garbage either way. */
static void *reuse_take(reuse *u, size_t n, size_t size, trak_region *got) {
  size_t bytes = (n ? n : 1) * size, best = u->n;
  for (size_t i = 0; i < u->n; i++)
    if (u->r[i].bytes >= bytes && (best == u->n || u->r[i].bytes < u->r[best].bytes)) best = i;
  if (best == u->n) {
    *got = (trak_region){NULL, 0};
    return alloc(n, size);
  }
  *got = u->r[best];
  u->r[best] = u->r[--u->n];
  /* its pages past the array's go now: they are resident, and the import's peak is near */
  size_t page = (size_t)sysconf(_SC_PAGESIZE), keep = (bytes + page - 1) & ~(page - 1);
  if (got->bytes > keep) {
    munmap((uint8_t *)got->p + keep, got->bytes - keep);
    got->bytes = keep;
  }
  return got->p;
}

/* Frees `p`, which reuse_take gave as `got` says. */
static void reuse_free(void *p, const trak_region *got) {
  if (got->p)
    munmap(got->p, got->bytes);
  else
    free(p);
}

/* Unmaps the regions of `u` not taken. */
static void reuse_end(reuse *u) {
  for (size_t i = 0; i < u->n; i++)
    munmap(u->r[i].p, u->r[i].bytes);
  u->n = 0;
}

void trak__arg_order_log(trak_importer *imp, uint32_t kind, uint32_t value) {
  trak_args *a = &imp->args;
  if (TRAK_UNLIKELY(a->timed && a->need_mark)) {
    trak_vec_push(a->order, (uint64_t)TRAK_ARG_ORDER_AT << 32 | (uint32_t)a->order_ts.n);
    trak_vec_push(a->order_ts, a->cur_ts);
    trak_vec_push(a->order_ord, a->cur_ord);
    a->need_mark = 0;
  }
  trak_vec_push(a->order, (uint64_t)kind << 32 | value);
}

void trak__arg_order_timed_begin(trak_importer *imp) {
  trak_args *a = &imp->args;
  a->timed = 1, a->need_mark = 1;
  a->merge_from = a->order.n;
}

void trak__arg_order_timed_end(trak_importer *imp) {
  trak_args *a = &imp->args;
  a->merge_to = a->order.n;
  a->cur_ts = INT64_MIN, a->need_mark = 1; /* the parse's entries before its first event first */
  a->cur_ord = UINT32_MAX;                 /* (and after the merge's, at equal times) */
}

/* The time of the entries from `i` (an AT entry; INT64_MIN for any other). */
static int64_t chunk_ts(const trak_args *a, size_t i) {
  uint64_t e = a->order.v[i];
  return e >> 32 == TRAK_ARG_ORDER_AT ? a->order_ts.v[(uint32_t)e] : INT64_MIN;
}
/* Their place among the kernel sequence's records (0 for entries without an AT entry). */
static uint32_t chunk_ord(const trak_args *a, size_t i) {
  uint64_t e = a->order.v[i];
  return e >> 32 == TRAK_ARG_ORDER_AT ? a->order_ord.v[(uint32_t)e] : 0;
}

/* The end of the entries from `i` that share its time: the next AT entry, or `end`. */
static size_t chunk_end(const trak_args *a, size_t i, size_t end) {
  while (++i < end && a->order.v[i] >> 32 != TRAK_ARG_ORDER_AT)
    ;
  return i;
}

/* Interleaves the merge's entries with the parse's (those after it), a run of one time at a
** time, by time; at equal times the merge's first unless they belong to a later kernel event
** than the parse's record, as Perfetto makes an event's raw row (and its set), then what its
** parser makes of it, then the next event's. */
static void interleave(trak_args *a) {
  size_t from = a->merge_from, mid = a->merge_to, n = a->order.n;
  if (!a->timed || from >= mid || mid >= n) return;
  uint64_t *out = alloc(n - from, sizeof *out);
  size_t i = from, j = mid, o = 0;
  while (i < mid || j < n) {
    int take_merge = j >= n;
    if (!take_merge && i < mid) {
      int64_t ti = chunk_ts(a, i), tj = chunk_ts(a, j);
      take_merge = ti < tj || (ti == tj && chunk_ord(a, i) <= chunk_ord(a, j));
    }
    size_t *k = take_merge ? &i : &j, end = chunk_end(a, *k, take_merge ? mid : n);
    memcpy(out + o, a->order.v + *k, (end - *k) * sizeof *out);
    o += end - *k, *k = end;
  }
  memcpy(a->order.v + from, out, o * sizeof *out);
  free(out);
}

typedef struct relayout {
  trak_tables *t;
  uint32_t *remap;      /* old set id (its first row) -> new id, TRAK_NULL_U32 until placed */
  uint32_t *arg_set_id; /* the new arg_set_id column, filled as sets are placed */
  uint32_t *src;        /* new row -> the old row it is, for the value columns' gather */
  uint32_t n;           /* rows placed */
  int threads;          /* for the relayout (trak__split_threads): 2 splits its large steps */
  _Atomic uint32_t *placed; /* n, for the other core's gather behind the placing (populate) */
} relayout;

/* The new id of old set `old`, placing its rows after those placed so far the first time.
** Only the set's id column and the rows' sources are written here; the other columns are
** gathered through `src` once every set has its place (gather). */
static uint32_t place(relayout *r, uint32_t old) {
  if (old == TRAK_NULL_U32) return old;
  uint32_t id = r->remap[old];
  if (id != TRAK_NULL_U32) return id;
  /* locals: the stores through the columns could otherwise alias r->n, reloaded each row */
  const uint32_t *set_of = r->t->args.arg_set_id;
  uint32_t *ids = r->arg_set_id, *src = r->src;
  uint32_t o = r->n, n = (uint32_t)r->t->args.n, row = old;
  id = o;
  do {
    ids[o] = id;
    src[o++] = row++;
  } while (row < n && set_of[row] == old);
  r->n = o;
  r->remap[old] = id;
  atomic_store_explicit(r->placed, o, memory_order_release); /* rows [0, o) have their source */
  return id;
}

/* Log entries ahead of the one placed whose set's remap entry and first row are prefetched: the
** sets are placed in another order than they were made (a slice's at its end, the events sorted
** by time), so each placing would wait for cache misses without it. */
#define PLACE_AHEAD 16

/* Prefetches what placing the set of log entry `e` reads first, when it names a slice's,
** a counter's or a set. */
static void place_prefetch(const relayout *r, uint64_t e) {
  const trak_tables *t = r->t;
  uint32_t v = (uint32_t)e, old;
  switch (e >> 32) {
  case TRAK_ARG_ORDER_SLICE:
    old = t->slice.arg_set_id[v];
    break;
  case TRAK_ARG_ORDER_COUNTER:
    old = t->counter.arg_set_id[v];
    break;
  case TRAK_ARG_ORDER_SET:
    old = v;
    break;
  default:
    return;
  }
  if (old == TRAK_NULL_U32) return;
  __builtin_prefetch(r->remap + old);
  __builtin_prefetch(t->args.arg_set_id + old);
}

/* Rows [lo, hi) of one column's gather: out[i] = in[src[i]], `size` bytes a row. */
typedef struct gather_part {
  const void *in;
  void *out;
  const uint32_t *src;
  size_t size;
  uint32_t lo, hi;
} gather_part;

/* Rows ahead of the one copied whose source is prefetched: the sources are scattered (sets move
** as a whole, in another order), so each copy would wait for a cache miss without it. */
#define GATHER_AHEAD 32

/* out[i] = in[src[i]] for rows [lo, hi) of `size`-byte values, the source GATHER_AHEAD rows on
** fetched ahead while there is one. Inlined with a constant `size`: each copy is one load and
** one store. */
static inline __attribute__((always_inline)) void gather_sized(const gather_part *g,
                                                               size_t size) {
  const uint8_t *in = g->in;
  const uint32_t *src = g->src;
  uint8_t *o = g->out;
  uint32_t i = g->lo, ahead = g->hi - g->lo > GATHER_AHEAD ? g->hi - GATHER_AHEAD : g->lo;
  for (; i < ahead; i++) {
    __builtin_prefetch(in + (size_t)src[i + GATHER_AHEAD] * size);
    memcpy(o + (size_t)i * size, in + (size_t)src[i] * size, size);
  }
  for (; i < g->hi; i++)
    memcpy(o + (size_t)i * size, in + (size_t)src[i] * size, size);
}

static void *gather_rows(void *arg) {
  const gather_part *g = arg;
  if (g->size == 8)
    gather_sized(g, 8);
  else if (g->size == 4)
    gather_sized(g, 4);
  else
    gather_sized(g, 1);
  return NULL;
}

/* One of the args table's value columns: the array and the bytes of one value. */
typedef struct args_col {
  void **col;
  size_t size;
} args_col;

/* 1 when the `n` (> 0) values of `size` bytes from `p` are all the same bytes (a value column
** that no row sets, e.g. real_value in most JSON traces, holding 0 in every row), 0 otherwise:
** it need not be gathered. Each value equals the next one exactly when the column equals itself
** shifted by one value; memcmp stops at the first byte that differs, mostly early in a column
** that is not uniform. */
static int uniform(const void *p, size_t size, size_t n) {
  return !memcmp(p, (const uint8_t *)p + size, (n - 1) * size);
}

/* Gathers the `n` rows of column `c` as `src` says into *spare (room for `cap` rows of 8 bytes),
** shrunk to `cap` rows of c.size; the old column becomes the spare. The columns are gathered
** widest first, so every one after the first lands in pages an earlier column used: the kernel
** zeroes one spare's pages instead of every new column's. With two threads, each gathers half of
** the rows. A column whose rows are all one value (`same`) is kept, shrunk to `cap` rows: its
** gather would make the same column. A column whose rows are in *spare already (`gathered`, by
** the other core behind the placing) only takes it. */
static void gather(args_col c, int same, int gathered, void **spare, const uint32_t *src,
                   uint32_t n, size_t cap, int threads) {
  if (same) {
    void *shrunk = realloc(*c.col, cap * c.size);
    if (shrunk) *c.col = shrunk; /* a failed shrink leaves the larger block, still valid */
    return;
  }
  void *out = *spare;
  gather_part half[2] = {{*c.col, out, src, c.size, 0, n / 2},
                         {*c.col, out, src, c.size, n / 2, n}};
  if (!gathered) trak__run_both(gather_rows, &half[0], &half[1], threads);
  void *shrunk = c.size < 8 ? realloc(out, cap * c.size) : out;
  *spare = *c.col;
  *c.col = shrunk ? shrunk : out;
}

/* The new args columns' pages made present (MADV_POPULATE_WRITE, which writes no byte) on the
** other core while the importer's thread places the sets: the set-id and source columns, which
** the placing writes in order, then the spare the first gather writes. Then the caller's job
** (`then`), then the value columns whose rows are all one value are found (`same`), which the
** placing does not write. Then the first other column is gathered into the spare behind the
** placing, the rows whose sources are set (relayout.placed) as they come, until `done`. */
#define VALUE_COLS 4
typedef struct populate {
  void *p[3];
  size_t bytes[3];
  args_col cols[VALUE_COLS];
  int pages;             /* on the other core: make the pages present, gather behind the placing */
  void *(*then)(void *); /* the caller's job for the other core (may be NULL), after the pages */
  void *then_arg;
  size_t rows;           /* of the value columns */
  const uint32_t *src;   /* the relayout's sources, set for rows [0, *placed) */
  _Atomic uint32_t *placed;
  atomic_int then_done; /* out: `then` has run */
  atomic_int done;      /* set by the placing thread: *placed is final */
  int same[VALUE_COLS]; /* out: cols[i] holds one value in all `rows` (none: 0) */
  int gathered;         /* out: the column gathered into p[2] (VALUE_COLS: none) */
} populate;

/* Rows the gather behind the placing waits for before it copies, and its wait meanwhile: the
** placing makes about 100 rows a microsecond at 2 M JSON events. */
#define TRAIL_ROWS 8192
#define TRAIL_WAIT_NS 100000

/* Gathers column `c`'s rows into pp->p[2] as the placing sets their sources, until it is done. */
static void gather_trailing(populate *pp, args_col c) {
  uint32_t at = 0;
  for (;;) {
    int done = atomic_load_explicit(&pp->done, memory_order_acquire);
    uint32_t n = atomic_load_explicit(pp->placed, memory_order_acquire);
    if (n - at >= TRAIL_ROWS || (done && n > at)) {
      gather_part g = {*c.col, pp->p[2], pp->src, c.size, at, n};
      gather_rows(&g);
      at = n;
    } else if (done) {
      return;
    } else {
      nanosleep(&(struct timespec){0, TRAIL_WAIT_NS}, NULL);
    }
  }
}

static void *populate_main(void *arg) {
  populate *pp = arg;
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  for (int i = 0; i < 3 && pp->pages; i++) {
    /* the pages of the array's bytes: its own, or its heap's, all mapped */
    uintptr_t from = (uintptr_t)pp->p[i] & ~(page - 1),
              to = ((uintptr_t)pp->p[i] + pp->bytes[i] + page - 1) & ~(page - 1);
    if (madvise((void *)from, to - from, MADV_POPULATE_WRITE))
      break; /* (before Linux 5.14) the writes fault as without this */
  }
  if (pp->then) pp->then(pp->then_arg);
  atomic_store_explicit(&pp->then_done, 1, memory_order_release);
  pp->gathered = VALUE_COLS;
  for (int i = 0; i < VALUE_COLS; i++) {
    pp->same[i] = pp->rows && uniform(*pp->cols[i].col, pp->cols[i].size, pp->rows);
    if (pp->pages && !pp->same[i] && pp->gathered == VALUE_COLS) pp->gathered = i;
  }
  if (pp->gathered < VALUE_COLS) gather_trailing(pp, pp->cols[pp->gathered]);
  return NULL;
}

/* Places track row `row`'s sets: its dimensions' first, as Perfetto makes them. */
static void place_track(relayout *r, uint32_t row) {
  place(r, r->t->track.dimension_arg_set_id[row]);
  place(r, r->t->track.source_arg_set_id[row]);
}

/* Renumbers rows [lo, hi) of a column of set ids, placing the sets not placed yet. A set already
** placed (most rows of a big table share a few sets) is looked up here without a call. */
static void place_rows(relayout *r, uint32_t *col, size_t lo, size_t hi) {
  const uint32_t *remap = r->remap;
  for (size_t i = lo; i < hi; i++) {
    uint32_t old = col[i];
    if (old == TRAK_NULL_U32) continue;
    uint32_t id = remap[old];
    col[i] = id != TRAK_NULL_U32 ? id : place(r, old);
  }
}

/* Rows [lo, hi) of a column renumbered with the sets placed so far, up to the first row whose set
** is not placed yet: rows [lo, stop) are renumbered, rows [stop, hi) are as they were. Places
** nothing, so that two of these run at once. */
typedef struct renumber_part {
  const uint32_t *remap;
  uint32_t *col;
  size_t lo, hi, stop; /* stop: out */
} renumber_part;

static void *renumber_placed(void *arg) {
  renumber_part *p = arg;
  const uint32_t *remap = p->remap;
  uint32_t *col = p->col;
  size_t i = p->lo;
  for (; i < p->hi; i++) {
    uint32_t old = col[i];
    if (old == TRAK_NULL_U32) continue;
    uint32_t id = remap[old];
    if (id == TRAK_NULL_U32) break;
    col[i] = id;
  }
  p->stop = i;
  return NULL;
}

/* Renumbers a column of n set ids, placing the sets not placed yet in row order. With two threads
** (a large column), each first renumbers half of the rows with the sets placed already; then
** this thread places the rest from the first row whose set was not placed, in order: a row of
** the second half renumbered before its half's stop had its set placed before any row of this
** pass, so the placing is the same as one pass's. */
static void place_column(relayout *r, uint32_t *col, size_t n) {
  if (trak__split_threads(r->threads, n, TWO_THREADS_ROWS) < 2) {
    place_rows(r, col, 0, n);
    return;
  }
  renumber_part half[2] = {{r->remap, col, 0, n / 2, 0}, {r->remap, col, n / 2, n, 0}};
  trak__run_both(renumber_placed, &half[0], &half[1], 2);
  place_rows(r, col, half[0].stop, half[0].hi);
  place_rows(r, col, half[1].stop, n);
}

/* ---- slices still on a stack when the import ends ------------------------------------- */

/* Perfetto commits their sets when its slice tracker's map of stacks (a FlatHashMap keyed by
** track id: Murmur-mixed, quadratic probing, 1,024 slots grown 8-fold at 75% load) is cleared,
** slot by slot, each stack bottom up. The slot of each track is found by replaying the map's
** inserts: a track enters it with its first slice, taken to be its first event when that starts
** a slice (a track whose slices begin later enters it at the end, with its stack). */
static uint64_t murmur_mix(uint64_t m) {
  m ^= m >> 33, m *= 0xff51afd7ed558ccdULL, m ^= m >> 33, m *= 0xc4ceb9fe1a85ec53ULL, m ^= m >> 33;
  return m;
}
/* A TrackId's hash (a MurmurHashCombiner of one value) and a plain integer key's. */
static uint64_t track_hash(uint32_t id) {
  uint64_t h = 0xe17a1465U;
  return h ^ (murmur_mix(id) + 0x9e3779b9U + (h << 6) + (h >> 2));
}

typedef struct stack_map {
  uint32_t *slot; /* key, UINT32_MAX: free */
  size_t cap, n;
  int plain; /* keys hashed as plain integers (a upid), not as TrackIds */
} stack_map;

static void stack_map_put(stack_map *m, uint32_t track) {
  if (m->n >= m->cap * 75 / 100) {
    /* 44 bytes a slot: TrackId and Perfetto's TrackInfo, or a upid and its ArgsInserter */
    size_t old_cap = m->cap, bytes = old_cap * 44;
    size_t cap = old_cap * (bytes < (1u << 20) ? 8 : 2);
    if (cap < 1024) cap = 1024;
    uint32_t *old = m->slot;
    m->slot = alloc(cap, sizeof *m->slot);
    memset(m->slot, 0xff, cap * sizeof *m->slot);
    m->cap = cap, m->n = 0;
    for (size_t i = 0; i < old_cap; i++)
      if (old[i] != UINT32_MAX) stack_map_put(m, old[i]);
    free(old);
  }
  uint64_t h = m->plain ? murmur_mix(track) : track_hash(track);
  for (size_t step = 0;; step++) {
    size_t i = (size_t)(h + 2 * step * step + step) & (m->cap - 1);
    if (m->slot[i] == UINT32_MAX) {
      m->slot[i] = track, m->n++;
      return;
    }
  }
}

void trak__arg_order_owner_slots(const uint32_t *keys, size_t n, uint32_t *out) {
  stack_map m = {NULL, 0, 0, 1};
  for (size_t i = 0; i < n; i++)
    stack_map_put(&m, keys[i]);
  size_t o = 0;
  for (size_t i = 0; i < m.cap; i++)
    if (m.slot[i] != UINT32_MAX) out[o++] = m.slot[i];
  free(m.slot);
}

/* Places the process then the thread args (Perfetto commits them when its events are all
** extracted, before it flushes the counters it kept): the processes in the order Perfetto's map
** of their args holds them (threads.c), then any other in table order. Their columns are
** renumbered at the end. */
static void place_owner_args(relayout *r, const trak_importer *imp) {
  const trak_tables *t = r->t;
  const uint32_t *first = imp->threads.process_commit.v;
  for (size_t i = 0; i < imp->threads.process_commit.n; i++)
    if (first[i] < t->process.n) place(r, t->process.arg_set_id[first[i]]);
  for (size_t i = 0; i < t->process.n; i++)
    place(r, t->process.arg_set_id[i]);
  for (size_t i = 0; i < t->thread.n; i++)
    place(r, t->thread.arg_set_id[i]);
}

typedef struct flush_entry {
  uint32_t slot, pos, slice;
} flush_entry;

static int flush_cmp(const void *pa, const void *pb) {
  const flush_entry *a = pa, *b = pb;
  if (a->slot != b->slot) return a->slot < b->slot ? -1 : 1;
  return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Places the sets of the slices log entries [from, to) name (all TRAK_ARG_ORDER_FLUSH); `m`
** holds the tracks entered so far. */
static void place_flushed(relayout *r, stack_map *mp, const uint64_t *log, size_t from, size_t to) {
  const trak_tables *t = r->t;
  stack_map m = *mp;
  uint32_t *slot_of = alloc(t->track.n, sizeof *slot_of);
  memset(slot_of, 0xff, (t->track.n ? t->track.n : 1) * sizeof *slot_of);
  for (size_t i = 0; i < m.cap; i++)
    if (m.slot[i] != UINT32_MAX) slot_of[m.slot[i]] = 0;
  for (size_t i = from; i < to; i++) {
    uint32_t track = t->slice.track_id[(uint32_t)log[i]];
    if (track < t->track.n && slot_of[track] == UINT32_MAX)
      slot_of[track] = 0, stack_map_put(&m, track);
  }
  for (size_t i = 0; i < m.cap; i++)
    if (m.slot[i] != UINT32_MAX) slot_of[m.slot[i]] = (uint32_t)i;
  flush_entry *e = alloc(to - from, sizeof *e);
  for (size_t i = from; i < to; i++) {
    uint32_t slice = (uint32_t)log[i], track = t->slice.track_id[slice];
    e[i - from] =
        (flush_entry){track < t->track.n ? slot_of[track] : UINT32_MAX, (uint32_t)i, slice};
  }
  qsort(e, to - from, sizeof *e, flush_cmp);
  for (size_t i = 0; i < to - from; i++)
    place(r, t->slice.arg_set_id[e[i].slice]);
  free(e);
  free(slot_of);
  *mp = m;
}

/* Returns once the caller's job given to `other` (populate.then) has run: on its own thread, or
** run here with the rest of populate_main, which then runs no more at the join. */
static void wait_then(trak_beside *other, populate *pp) {
  if (!other->started) {
    if (!atomic_load_explicit(&pp->then_done, memory_order_relaxed) && pp->then)
      pp->then(pp->then_arg), pp->then = NULL;
    return;
  }
  while (!atomic_load_explicit(&pp->then_done, memory_order_acquire))
    nanosleep(&(struct timespec){0, TRAIL_WAIT_NS / 10}, NULL);
}

void trak__arg_order_apply(trak_importer *imp, const uint32_t *track_row, uint32_t n_early,
                           void *(*beside)(void *), void *beside_arg) {
  trak_tables *t = imp->tables;
  /* the share map's ids are the old ones, and nothing shares sets from here on: its arrays are
  ** the relayout's remap and sources, the rest of its memory goes before the relayout's new
  ** columns (the import's peak is here) */
  reuse u = {.n = 0};
  u.n = trak__slot_map_release(&imp->args.shared, u.r);
  trak_phase_clock clock; /* with TRAK_IMPORT_PROFILE=1, the steps' times (within "tracks end") */
  trak__phase_clock_start(&clock);
  /* the new columns hold the rows, not the rows reserved (tables/prefault.h's page-ahead reserves
  ** the args of a large JSON file for far more rows than it makes): no more memory is touched; 64
  ** at least, the first capacity of a table, so that a row added later grows them */
  size_t cap = t->args.n > 64 ? t->args.n : 64;
  trak_region src_at, remap_at; /* the larger first: each takes the smallest region it fits */
  uint32_t *src = reuse_take(&u, cap, sizeof(uint32_t), &src_at);
  uint32_t *remap = reuse_take(&u, t->args.n, sizeof(uint32_t), &remap_at);
  reuse_end(&u);
  /* the second core is idle after the parse phase (imp->prefault: two import threads) */
  int threads = trak__split_threads(imp->prefault ? 2 : 1, t->args.n, TWO_THREADS_ROWS);
  _Atomic uint32_t placed = 0;
  relayout r = {t, remap, alloc(cap, sizeof(uint32_t)), src, 0, threads, &placed};
  void *spare = alloc(cap, 8);
  /* widest first (gather) */
  populate pop = {{r.arg_set_id, r.src, spare},
                  {t->args.n * sizeof(uint32_t), t->args.n * sizeof(uint32_t), t->args.n * 8},
                  {{(void **)&t->args.value, sizeof *t->args.value},
                   {(void **)&t->args.flat_key, sizeof *t->args.flat_key},
                   {(void **)&t->args.key, sizeof *t->args.key},
                   {(void **)&t->args.value_type, sizeof *t->args.value_type}},
                  threads > 1,
                  beside,
                  beside_arg,
                  t->args.cap >= cap ? t->args.n : 0, /* a kept column must hold `cap` rows */
                  r.src,
                  &placed,
                  0,
                  0,
                  {0},
                  VALUE_COLS};
  trak_beside other = {0};
  trak__beside_start(&other, populate_main, &pop, threads);
  if (!other.started) pop.pages = 0; /* it runs at the join, after the placing */
  memset(r.remap, 0xff, (t->args.n ? t->args.n : 1) * sizeof *r.remap);
  interleave(&imp->args);
  uint32_t next_track = 0; /* track rows [0, next_track) have their sets placed */
  stack_map stacks = {NULL, 0, 0, 0};
  for (size_t i = 0; i < imp->args.order.n; i++) {
    uint64_t e = imp->args.order.v[i];
    uint32_t v = (uint32_t)e;
    if (i + PLACE_AHEAD < imp->args.order.n) place_prefetch(&r, imp->args.order.v[i + PLACE_AHEAD]);
    switch (e >> 32) {
    case TRAK_ARG_ORDER_FLUSH: { /* the log's last entries */
      wait_then(&other, &pop);
      /* Perfetto commits process and thread args, then makes the tracks of the counters it
      ** kept (JSON and kernel process counters), before it clears the stacks. */
      place_owner_args(&r, imp);
      for (uint32_t row = n_early; row < t->track.n; row++)
        place_track(&r, row);
      size_t to = i;
      while (to < imp->args.order.n && imp->args.order.v[to] >> 32 == TRAK_ARG_ORDER_FLUSH)
        to++;
      place_flushed(&r, &stacks, imp->args.order.v, i, to);
      i = to - 1;
      break;
    }
    case TRAK_ARG_ORDER_COUNTER:
      t->counter.arg_set_id[v] = place(&r, t->counter.arg_set_id[v]);
      break;
    case TRAK_ARG_ORDER_AT:
      break;
    case TRAK_ARG_ORDER_SLICE:
      place(&r, t->slice.arg_set_id[v]);
      break;
    case TRAK_ARG_ORDER_TRACK:
    case TRAK_ARG_ORDER_TRACK_SLICE: {
      /* Rows are made in order of first use, each after its parents; JSON counter tracks
      ** (rows from n_early on) are made when the import ends. */
      uint32_t row = track_row[v];
      if (e >> 32 == TRAK_ARG_ORDER_TRACK_SLICE && row != TRAK_NULL_U32)
        stack_map_put(&stacks, row);
      if (row == TRAK_NULL_U32 || row >= n_early) break;
      for (; next_track <= row; next_track++)
        place_track(&r, next_track);
      break;
    }
    default:
      place(&r, v);
      break;
    }
  }
  /* Then the sets made when the import ends (the log's early tracks, process and thread args,
  ** the tracks of kept counters), and any the log did not reach, in table order; every column
  ** is renumbered once, here. */
  for (uint32_t row = 0; row < n_early && row < t->track.n; row++)
    place_track(&r, row);
  place_owner_args(&r, imp);
  for (uint32_t row = 0; row < t->track.n; row++) {
    t->track.dimension_arg_set_id[row] = place(&r, t->track.dimension_arg_set_id[row]);
    t->track.source_arg_set_id[row] = place(&r, t->track.source_arg_set_id[row]);
  }
  trak__phase_clock_mark(&clock, " args place");
  place_column(&r, t->slice.arg_set_id, t->slice.n);
  place_column(&r, t->flow.arg_set_id, t->flow.n);
  place_column(&r, t->state.arg_set_id, t->state.n);
  place_column(&r, t->ftrace_event.arg_set_id, t->ftrace_event.n);
  place_column(&r, t->cpu.arg_set_id, t->cpu.n);
  for (size_t i = 0; i < imp->import_logs.n; i++)
    imp->import_logs.v[i].arg_set_id = place(&r, imp->import_logs.v[i].arg_set_id);
  for (size_t i = 0; i < imp->logs.n; i++)
    imp->logs.v[i].arg_set_id = place(&r, imp->logs.v[i].arg_set_id);
  place_column(&r, t->process.arg_set_id, t->process.n);
  place_column(&r, t->thread.arg_set_id, t->thread.n);
  reuse_free(r.remap, &remap_at);
  trak__phase_clock_mark(&clock, " args renumber");
  atomic_store_explicit(&pop.done, 1, memory_order_release);
  trak__beside_join(&other);
  for (int i = 0; i < VALUE_COLS; i++)
    gather(pop.cols[i], pop.same[i], i == pop.gathered, &spare, r.src, r.n, cap, threads);
  free(spare);
  trak__phase_clock_mark(&clock, " args gather");
  free(t->args.arg_set_id), t->args.arg_set_id = r.arg_set_id;
  t->args.n = r.n;
  t->args.cap = cap;
  reuse_free(r.src, &src_at);
  free(stacks.slot);
  trak_vec_free(imp->args.order);
  trak_vec_free(imp->args.order_ts);
  trak_vec_free(imp->args.order_ord);
}

void trak__args_free(trak_args *a) {
  trak__slot_map_free(&a->shared);
  trak__map_free(&a->debug_keys);
  trak__map_free(&a->memo_by_hash);
  trak_vec_free(a->memos);
  trak_vec_free(a->memo_bytes);
  trak_vec_free(a->order);
  trak_vec_free(a->order_ts);
  trak_vec_free(a->order_ord);
}
