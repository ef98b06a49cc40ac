/*
** This file holds the parse phase's merge: a tree of losers over one cursor per sequence gives
** the records in parse order, a batch at a time, freeing each block of records once read; with
** two import threads the batches are made on a thread of its own (util/batch_thread.c), and
** whichever of the two threads would otherwise wait on the ring (the merge's, its batches all
** unread; the importer's, the next batch not made yet) makes the slice columns' pages present a
** little ahead of the rows the importer's thread has written (tables/prefault.c), so that the
** kernel's zeroing of them goes to the thread that has time for it. Better still, the 2 MiB
** record blocks the merge has read (their pages present and written) are moved onto those
** columns' next pages (tables/prefault.h's trak__ahead_recycle) instead of being unmapped while
** the kernel zeroes as many fresh pages for the columns. Before the merge, the sequences that
** must be merged unpacked are unpacked and those out of order sorted, by both threads where the
** import has two (trak__ev_merge_prepare).
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "processor/import/event_merge.h"
#include "processor/tables/prefault.h"
#include "processor/util/batch_thread.h"
#include "processor/util/two_threads.h"

/* records per batch (160 KiB): the importer's thread sleeps on the ring and is woken about once
** a batch, each wake a futex call on the merge thread; at 1,024 records a batch the parse phase
** of 2 M events took ~10 ms more (docs/performance.md, branch pipe32) */
#define BATCH 4096u
#define AHEAD (1u << 17)        /* slice rows made present past the parse's (5 MB) */
#define AHEAD_PIECE (1u << 14)  /* slice rows made present by one idle call at most (640 KB) */
#define AHEAD_MARGIN (1u << 15) /* the page-ahead ends this many rows before the reserved end */
#define AHEAD_MIN (AHEAD_MARGIN + (1u << 15)) /* reserved rows for a page-ahead: 32 Ki past the margin */
/* rows past the importer's thread's last count that it cannot have written: it parses one batch
** (BATCH records, each adding at most one slice row) past that count before it says the next */
#define RECYCLE_MARGIN (1u << 15)
#define BIG_BLOCK (sizeof(trak_ev_block) + TRAK_EV_BLOCK_BYTES) /* bytes of a 2 MiB block's mapping */
/* slice rows past the parse's that blocks read are moved onto (20 MB of the columns: the 16
** sequences of a generated trace end their blocks at about the same time, and each column takes
** whole 2 MiB blocks); the blocks read while the parse is this close to the reserved end are
** unmapped, so that none is kept at the end, where the import's memory peaks */
#define RECYCLE_AHEAD (1u << 19)
#define SPARES_KEPT 16 /* blocks read kept at most, waiting to be moved */
#define MERGE_PREFETCH 256 /* bytes past a cursor's next record asked for (about 30 records) */

/* A record's sort key: timestamp, tie key (trak__ev_tie_key with json_tie_order, else 0),
** packet, then its index in file order, so the order is total and a sort of the keys is the
** stable sort of the records qsort gave. */
typedef struct sort_key {
  int64_t ts, tie;
  uint32_t pkt, i;
} sort_key;

static inline int key_before(const sort_key *a, const sort_key *b) {
  if (a->ts != b->ts) return a->ts < b->ts;
  if (a->tie != b->tie) return a->tie < b->tie;
  if (a->pkt != b->pkt) return a->pkt < b->pkt;
  return a->i < b->i;
}

/* Merges the sorted runs in[lo, mid) and in[mid, hi) into out[lo, hi). */
static void merge_runs(const sort_key *in, sort_key *out, size_t lo, size_t mid, size_t hi) {
  size_t i = lo, j = mid, o = lo;
  if (mid >= hi || !key_before(&in[mid], &in[mid - 1])) { /* already in order */
    memcpy(out + lo, in + lo, (hi - lo) * sizeof *in);
    return;
  }
  /* the first run's keys before the second run's first go first as they are (a binary search:
  ** runs of a process's counters overlap over a part of their length only) */
  for (size_t b = mid; i < b;) {
    size_t m = i + (b - i) / 2;
    if (key_before(&in[mid], &in[m]))
      b = m;
    else
      i = m + 1;
  }
  memcpy(out + lo, in + lo, (i - lo) * sizeof *in);
  o = i;
  while (i < mid && j < hi)
    out[o++] = key_before(&in[j], &in[i]) ? in[j++] : in[i++];
  memcpy(out + o, in + i, (mid - i) * sizeof *in);
  o += mid - i;
  memcpy(out + o, in + j, (hi - j) * sizeof *in);
}

/* Merges the runs of `a` that end at ends[0, runs) (the first from 0) pairwise, over and over
** (`b` the other buffer of as many keys), until one is left; `ends` is overwritten. Returns the
** buffer that holds it. */
static sort_key *merge_all(sort_key *a, sort_key *b, size_t *ends, size_t runs) {
  while (runs > 1) {
    size_t r = 0, lo = 0;
    for (size_t i = 0; i < runs; i += 2) {
      size_t mid = ends[i], hi = i + 1 < runs ? ends[i + 1] : mid;
      merge_runs(a, b, lo, mid, hi);
      ends[r++] = lo = hi;
    }
    runs = r;
    sort_key *swap = a;
    a = b, b = swap;
  }
  return a;
}

/* The most runs in order a sequence's keys are split into (split_runs) before they are sorted
** as any keys are: four merge passes at most. */
#define SPLIT_RUNS 16

/* Splits keys in[0, n) into the fewest runs that are each in order, as a few sequences written
** in turn are (a process's counters from its threads' bursts: one run a thread): each key goes
** to the first run whose last key is not after it, so the runs' last keys stay in decreasing
** order and a key that goes to no run is before every run's last, which makes a new one (the
** runs counted are the longest decreasing subsequence's length, the fewest possible). The runs
** are written one after the other to out[0, n), each in the keys' order, with their ends in
** ends[]. Returns their number, or 0 if the keys need more than SPLIT_RUNS (out is then
** clobbered). `run` is scratch of n bytes. */
static size_t split_runs(const sort_key *in, size_t n, sort_key *out, size_t *ends, uint8_t *run) {
  sort_key last[SPLIT_RUNS];
  size_t runs = 0, count[SPLIT_RUNS];
  for (size_t i = 0; i < n; i++) {
    size_t r = 0;
    while (r < runs && key_before(&in[i], &last[r]))
      r++;
    if (r == runs) {
      if (runs == SPLIT_RUNS) return 0;
      count[runs++] = 0;
    }
    last[r] = in[i];
    count[r]++;
    run[i] = (uint8_t)r;
  }
  size_t at[SPLIT_RUNS];
  for (size_t r = 0, sum = 0; r < runs; r++)
    at[r] = sum, sum += count[r], ends[r] = sum;
  for (size_t i = 0; i < n; i++)
    out[at[run[i]]++] = in[i];
  return runs;
}

/* Sorts an unpacked sequence's records in timestamp order (ties: see trak__ev_tie_key when
** imp->json_tie_order, else file order): their keys by a bottom-up merge sort with the
** comparison inline, then the records moved once. Keys that are a few runs in order
** interleaved (split_runs) are merged from those runs; any others from runs of 16 sorted by
** insertion. The records come mostly in order (a process's counters from its threads'
** bursts), which the in-order test of each merge makes cheap too. */
static void sequence_sort(trak_importer *imp, trak_sequence *seq) {
  size_t n = seq->n_events, n1 = n ? n : 1;
  sort_key *k = malloc(n1 * sizeof *k), *tmp = malloc(n1 * sizeof *tmp);
  size_t *ends = malloc((n1 / 16 + 1 > SPLIT_RUNS ? n1 / 16 + 1 : SPLIT_RUNS) * sizeof *ends);
  uint8_t *run = malloc(n1);
  trak_ev *out = malloc(n1 * sizeof *out);
  if (!k || !tmp || !ends || !run || !out) abort();
  int ties = imp->json_tie_order;
  for (size_t i = 0; i < n; i++) {
    const trak_ev *ev = &seq->all[i];
    tmp[i] = (sort_key){ev->ts, ties ? trak__ev_tie_key(imp, ev) : 0, ev->pkt, (uint32_t)i};
  }
  size_t runs = split_runs(tmp, n, k, ends, run);
  if (!runs) {
    for (size_t i = 0; i < n; i++) {
      size_t j = i & ~(size_t)15; /* the run of 16 this key joins, sorted by insertion */
      size_t at = i;
      while (at > j && key_before(&tmp[i], &k[at - 1])) {
        k[at] = k[at - 1];
        at--;
      }
      k[at] = tmp[i];
    }
    for (size_t lo = 0; lo < n; lo += 16)
      ends[runs++] = lo + 16 < n ? lo + 16 : n;
  }
  const sort_key *sorted = merge_all(k, tmp, ends, runs);
  for (size_t i = 0; i < n; i++)
    out[i] = seq->all[sorted[i].i];
  free(seq->all);
  seq->all = out;
  free(k);
  free(tmp);
  free(ends);
  free(run);
}

/* Sequences to unpack or to sort, on one or two threads: each takes the next in turn. */
typedef struct prep_job {
  trak_importer *imp;
  trak_sequence **seqs; /* largest first, so that the two threads end about together */
  size_t n;
  _Atomic size_t next;
  int sort; /* 0: unpack them (trak__sequence_unpack); 1: sort them (sequence_sort) */
} prep_job;

static void *prep_main(void *arg) {
  prep_job *j = arg;
  for (size_t i; (i = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed)) < j->n;) {
    if (j->sort)
      sequence_sort(j->imp, j->seqs[i]);
    else
      trak__sequence_unpack(j->seqs[i]);
  }
  return NULL;
}

static int by_size_desc(const void *pa, const void *pb) {
  const trak_sequence *a = *(trak_sequence *const *)pa, *b = *(trak_sequence *const *)pb;
  return a->n_events != b->n_events ? (a->n_events > b->n_events ? -1 : 1) : 0;
}

/* Unpacks (sort == 0) or sorts the sequences `want` picks, on both threads when imp->prefault
** (the import has two) and they hold PREP_TWO_THREADS records or more. */
#define PREP_TWO_THREADS (1u << 15)
static void prep_run(trak_importer *imp, int sort,
                     int (*want)(const trak_importer *, const trak_sequence *)) {
  size_t n_seq = imp->seqs.all.n, n = 0, records = 0;
  trak_sequence **v = malloc((n_seq ? n_seq : 1) * sizeof *v);
  if (!v) abort();
  for (size_t i = 0; i < n_seq; i++)
    if (want(imp, imp->seqs.all.v[i]))
      v[n++] = imp->seqs.all.v[i], records += imp->seqs.all.v[i]->n_events;
  if (n > 1) qsort(v, n, sizeof *v, by_size_desc); /* (a stable order: records are independent) */
  prep_job job = {imp, v, n, 0, sort};
  int threads = trak__split_threads(imp->prefault && n > 1 ? 2 : 1, records, PREP_TWO_THREADS);
  trak__run_both(prep_main, &job, &job, threads);
  free(v);
}

/* Sequences that are out of order, cropped or have records to change are merged unpacked. */
static int needs_unpack(const trak_importer *imp, const trak_sequence *seq) {
  return seq->unpack || seq->unsorted || (seq->tie_unsorted && imp->json_tie_order) ||
         imp->crop_before_ns != INT64_MIN;
}
static int needs_sort(const trak_importer *imp, const trak_sequence *seq) {
  return seq->all && (seq->unsorted || (seq->tie_unsorted && imp->json_tie_order));
}

void trak__ev_merge_prepare(trak_importer *imp) {
  prep_run(imp, 0, needs_unpack);
  trak__passthrough_resolve(imp); /* (by the records' file order: before the sort) */
  prep_run(imp, 1, needs_sort);
}

/* A sequence being merged: its current record, unpacked (the merge compares its timestamp and
** packet), and where the next one is: packed in a block, or in the unpacked seq->all. */
typedef struct cursor {
  trak_ev ev;             /* the current record; exhausted: ts INT64_MAX, pkt UINT32_MAX */
  const uint8_t *p, *end; /* packed: the next record's bytes, the end of the block's records */
  trak_ev_block *block;   /* packed: the block being read (NULL: the records are seq->all) */
  size_t i;               /* unpacked: the current record's index in seq->all */
  trak_sequence *seq;
} cursor;

/* Where cursor `i`'s record falls in the merge's order: by timestamp, then packet, then cursor
** index (the sequence made first), so that the order is total and ties go as before. One
** unsigned 128-bit number: the timestamp with its sign bit flipped in the high word, packet <<
** 32 | cursor index in the low word. */
__extension__ typedef unsigned __int128 merge_key;

static inline merge_key key_of(const cursor *c, uint32_t i) {
  return (merge_key)((uint64_t)c->ev.ts ^ (1ull << 63)) << 64 | ((uint64_t)c->ev.pkt << 32 | i);
}

/* A tree of losers over the cursors: internal node n (1 <= n < size) holds the key of the
** cursor that lost the match at n (the later of its two subtrees' earliest records; the key
** names its cursor); `winner` is the cursor with the earliest record of all. Leaves are
** cursors (exhausted ones compare last), leaf i at size + i: with a number of leaves that is no
** power of two the tree is complete but not full, its first leaves a level nearer the root (20
** sequences: 12 replay 4 levels and 8 replay 5, where a tree padded to 32 had all replay 5).
** Advancing the winner replays its leaf-to-root path: one comparison of keys per level, the
** loser's key kept in the node, so the replay reads no cursor but the winner's. */
typedef struct tournament {
  cursor *c;
  merge_key *node;
  uint32_t size; /* number of leaves, at least 1 */
  uint32_t winner;
} tournament;

/* Builds the tree from the cursors (node[] of `size` entries). Can't fail. */
static void tournament_build(tournament *t) {
  merge_key *w = calloc(t->size, sizeof *w); /* each node's winner, bottom-up */
  if (!w) abort();
  for (uint32_t n = t->size - 1; n >= 1; n--) {
    uint32_t l = 2 * n, r = 2 * n + 1;
    merge_key a = l >= t->size ? key_of(&t->c[l - t->size], l - t->size) : w[l];
    merge_key b = r >= t->size ? key_of(&t->c[r - t->size], r - t->size) : w[r];
    int b_first = b < a;
    w[n] = b_first ? b : a;
    t->node[n] = b_first ? a : b;
  }
  t->winner = t->size > 1 ? (uint32_t)w[1] : 0;
  free(w);
}

/* The winner's cursor moved on: replays its path to the root. Without a branch on the keys
** (a compare and conditional moves): which of the two goes on up is as likely one as the other
** (sequences of interleaved events), so a branch would be mispredicted about every other level. */
static inline void tournament_replay(tournament *t) {
  uint32_t w = t->winner;
  merge_key cand = key_of(&t->c[w], w);
  for (uint32_t n = (w + t->size) / 2; n >= 1; n /= 2) {
    merge_key l = t->node[n];
    int node_first = l < cand;
    merge_key up = node_first ? l : cand, stays = node_first ? cand : l;
    t->node[n] = stays;
    cand = up;
  }
  t->winner = (uint32_t)cand;
}

/* Marks a cursor exhausted: it compares after every other. Returns 0. */
static int cursor_done(cursor *c) {
  c->ev.ts = INT64_MAX, c->ev.pkt = UINT32_MAX;
  c->block = NULL;
  return 0;
}

static void block_done(trak_ev_merge *m, trak_ev_block *b);

/* Moves a cursor of merge m to its sequence's next record (the first, on a cursor just made),
** giving up the blocks (block_done) and records left behind. Returns 0 when exhausted. */
static inline __attribute__((always_inline)) int cursor_advance(trak_ev_merge *m, cursor *c) {
  trak_sequence *seq = c->seq;
  if (TRAK_UNLIKELY(seq->all)) {
    if (++c->i < seq->n_events) {
      c->ev = seq->all[c->i];
      return 1;
    }
    free(seq->all);
    seq->all = NULL;
    return cursor_done(c);
  }
  while (TRAK_UNLIKELY(c->p == c->end)) {
    trak_ev_block *next = c->block ? c->block->next : seq->head;
    if (c->block) block_done(m, c->block);
    seq->head = next;
    if (!next) {
      seq->tail = NULL;
      return cursor_done(c);
    }
    c->block = next;
    c->p = next->data, c->end = next->data + next->used;
  }
  c->p = trak__ev_unpack(c->p, &c->ev);
  /* The blocks were written long before, on the other thread, and the 16 or so cursors read
  ** them in turns too spread for the hardware's prefetch: the next lines asked for now (a
  ** prefetch past the block's end is harmless). */
  __builtin_prefetch(c->p + MERGE_PREFETCH);
  return 1;
}

/* With the crop option: removes an unpacked, sorted sequence's track events before the range
** of interest (Perfetto drops them as it parses them; other records, such as triggers, stay), so
** the merge never sees them. */
__attribute__((cold, noinline)) static void crop_sequence(trak_importer *imp, trak_sequence *seq) {
  size_t kept = 0;
  for (size_t i = 0; i < seq->n_events; i++) {
    trak_ev ev = seq->all[i];
    uint8_t kind = imp->tracks.info.v[ev.track & TRAK_EV_TRACK_MASK].kind;
    int track_event = trak__track_kinds[kind].track_event;
    if (ev.ts < imp->crop_before_ns && track_event) {
      imp->stats[TRAK_STAT_OUTSIDE_RANGE_OF_INTEREST]++;
      continue;
    }
    seq->all[kept++] = ev;
  }
  seq->n_events = kept;
}

struct trak_ev_merge {
  trak_importer *imp;
  tournament t;
  size_t live;           /* cursors not exhausted (the merge's thread's once started) */
  trak_batch_thread *bt; /* the merge's thread, or NULL: batches made by the caller's */
  trak_ev_rec *buf;      /* without a thread: the batch given last */
  pthread_mutex_t ahead_mu; /* held by the thread making pages present (or ending that) */
  trak_ahead ahead;         /* the slice columns (under ahead_mu) */
  int ahead_on;             /* whether pages are made present (under ahead_mu) */
  int recycle;              /* 2 MiB blocks read go to `spares` while ahead_on (set once) */
  trak_spares spares;       /* blocks read, to move onto the slice columns (under ahead_mu) */
  size_t ahead_rows;        /* rows made present (under ahead_mu) */
  size_t ahead_end;         /* the parse's rows past which the page-ahead stops */
  _Atomic size_t rows;      /* the parse's slice rows, as the importer's thread last said */
};

/* Whether blocks read are kept at the parse's `rows` (m->ahead_mu held). */
static int recycling(const trak_ev_merge *m, size_t rows) {
  return m->recycle && m->ahead_on && rows + RECYCLE_AHEAD < m->ahead.rows;
}

/* Moves the blocks m->spares keeps onto the slice columns' next pages, up to RECYCLE_AHEAD rows
** past the parse's `rows` and only RECYCLE_MARGIN rows past them, or unmaps them once the parse
** is too near the reserved end (m->ahead_mu held, m->ahead_on). */
static void recycle(trak_ev_merge *m, size_t rows) {
  if (!m->spares.n) return;
  if (!recycling(m, rows)) {
    trak__spares_free(&m->spares);
    return;
  }
  trak__ahead_recycle(&m->ahead, rows + RECYCLE_MARGIN, rows + RECYCLE_AHEAD, &m->spares);
  /* a column's rows made present are its own now; the page-ahead's count is the least of them */
  size_t least = m->ahead.rows;
  for (size_t c = 0; c < m->ahead.n_col; c++)
    if (m->ahead.done[c] / m->ahead.col[c].size < least)
      least = m->ahead.done[c] / m->ahead.col[c].size;
  if (least > m->ahead_rows) m->ahead_rows = least;
}

/* A block of records the merge has read: a 2 MiB one is kept to be moved onto the slice columns
** while their page-ahead runs (and moved at once when it can be), unless SPARES_KEPT are kept
** already or the parse nears the reserved end; any other is freed. */
static void block_done(trak_ev_merge *m, trak_ev_block *b) {
  if (!m->recycle || b->cap != TRAK_EV_BLOCK_BYTES) {
    trak__block_free(b);
    return;
  }
  pthread_mutex_lock(&m->ahead_mu);
  size_t rows = atomic_load_explicit(&m->rows, memory_order_relaxed);
  if (recycling(m, rows) && m->spares.n < SPARES_KEPT) {
    trak__spares_give(&m->spares, b, BIG_BLOCK);
    recycle(m, rows);
  } else {
    munmap(b, BIG_BLOCK);
  }
  pthread_mutex_unlock(&m->ahead_mu);
}

/* The idle work of both threads (a trak_batch_idle): moves the blocks kept onto the slice
** columns, then makes up to AHEAD_PIECE more rows of them present, up to AHEAD rows past the
** parse's, unless the other thread is at it. Returns 1 when it did. */
static int ahead_idle(void *ctx, int producer) {
  trak_ev_merge *m = ctx;
  (void)producer;
  if (pthread_mutex_trylock(&m->ahead_mu)) return 0;
  size_t rows = atomic_load_explicit(&m->rows, memory_order_relaxed), want = rows + AHEAD;
  int did = 0;
  if (m->ahead_on) recycle(m, rows);
  if (m->ahead_on && m->ahead_rows < want && m->ahead_rows < m->ahead.rows) {
    size_t upto = m->ahead_rows + AHEAD_PIECE < want ? m->ahead_rows + AHEAD_PIECE : want;
    if (trak__ahead_to(&m->ahead, upto, 0))
      m->ahead_on = 0, trak__spares_free(&m->spares);
    else
      m->ahead_rows = upto, did = 1;
  }
  pthread_mutex_unlock(&m->ahead_mu);
  return did;
}

/* The merge's batch (a trak_batch_fill): up to `max` records into `out`. */
static size_t merge_fill(void *ctx, void *out, size_t max, const size_t *notes) {
  trak_ev_merge *m = ctx;
  (void)notes;
  trak_ev_rec *o = out;
  tournament *t = &m->t;
  size_t n = 0;
  while (n < max && m->live) {
    cursor *w = &t->c[t->winner];
    o[n].ev = w->ev;
    o[n].seq = w->seq;
    n++;
    if (!cursor_advance(m, w)) m->live--;
    tournament_replay(t);
  }
  return n;
}

/* The slice columns the parse writes row by row, for the page-ahead. */
static void ahead_init(trak_ev_merge *m) {
  trak_tables *t = m->imp->tables;
  if (!m->imp->prefault || t->slice.cap < AHEAD_MIN) return;
#define COL(f)                                                                                     \
  { t->slice.f, sizeof *t->slice.f, 0 }
  const trak_col_mem cols[] = {COL(ts),   COL(dur),   COL(track_id),  COL(category),
                               COL(name), COL(depth), COL(parent_id), COL(arg_set_id)};
#undef COL
  trak__ahead_init(&m->ahead, cols, sizeof cols / sizeof *cols, t->slice.cap);
  m->ahead_on = 1;
  const char *env = getenv("TRAK_EV_RECYCLE"); /* =0: blocks read are unmapped */
  m->recycle = !(env && !strcmp(env, "0"));
  m->spares.size = BIG_BLOCK;
  m->ahead_end = t->slice.cap - AHEAD_MARGIN;
}

trak_ev_merge *trak__ev_merge_open(trak_importer *imp) {
  trak_ev_merge *m = calloc(1, sizeof *m);
  if (!m) abort();
  m->imp = imp;
  pthread_mutex_init(&m->ahead_mu, NULL);
  int crop = imp->crop_before_ns != INT64_MIN;
  tournament *t = &m->t;
  uint64_t records = 0; /* the sequences' records, all of them: the merge's work */
  /* Only the sequences with a record are leaves, in the order they were made (the ties' order):
  ** a tree of 16 sequences is one level shallower without a 17th that holds none. */
  size_t n_seq = imp->seqs.all.n;
  cursor *c = calloc(n_seq ? n_seq : 1, sizeof *c);
  if (!c) abort();
  for (size_t i = 0; i < n_seq; i++) {
    cursor *k = &c[m->live];
    *k = (cursor){.seq = imp->seqs.all.v[i]};
    if (k->seq->all) {
      if (TRAK_UNLIKELY(crop)) crop_sequence(imp, k->seq);
      k->i = (size_t)-1; /* cursor_advance moves to the first record */
    }
    records += k->seq->n_events;
    m->live += (size_t)cursor_advance(m, k); /* (zeroed: a packed sequence's deltas start at 0) */
  }
  uint32_t size = m->live ? (uint32_t)m->live : 1; /* (1: one exhausted cursor) */
  *t = (tournament){realloc(c, size * sizeof(cursor)), calloc(size, sizeof(merge_key)), size, 0};
  if (!t->c || !t->node) abort();
  for (size_t i = m->live; i < size; i++)
    t->c[i] = (cursor){0}, cursor_done(&t->c[i]);
  tournament_build(t);
  if (records && trak__import_threads(records * sizeof(trak_ev)) > 1) {
    ahead_init(m);
    m->bt = trak__batch_thread_start(sizeof(trak_ev_rec), BATCH, merge_fill, m, NULL, 0);
    if (m->bt && m->ahead_on) trak__batch_thread_idle(m->bt, ahead_idle, m);
  }
  if (!m->bt) {
    m->ahead_on = m->recycle = 0; /* one thread: no page-ahead */
    m->buf = malloc(BATCH * sizeof *m->buf);
    if (!m->buf) abort();
  }
  return m;
}

size_t trak__ev_merge_next(trak_ev_merge *m, size_t slices, const trak_ev_rec **recs) {
  if (!m->bt) {
    *recs = m->buf;
    return merge_fill(m, m->buf, BATCH, NULL);
  }
  /* past ahead_end, a row past the reserved ones could move the columns: no more page-ahead,
  ** and none running on the merge's thread from then on */
  if (slices < m->ahead_end) {
    atomic_store_explicit(&m->rows, slices, memory_order_relaxed);
  } else if (m->ahead_end) {
    pthread_mutex_lock(&m->ahead_mu);
    m->ahead_on = 0;
    trak__spares_free(&m->spares); /* and blocks read from now on are unmapped */
    pthread_mutex_unlock(&m->ahead_mu);
    m->ahead_end = 0;
  }
  const void *p;
  size_t n = trak__batch_thread_take(m->bt, NULL, &p);
  *recs = p;
  return n;
}

void trak__ev_merge_close(trak_ev_merge *m) {
  if (m->bt) trak__batch_thread_finish(m->bt);
  trak__spares_free(&m->spares);
  pthread_mutex_destroy(&m->ahead_mu);
  free(m->t.c);
  free(m->t.node);
  free(m->buf);
  free(m);
}
