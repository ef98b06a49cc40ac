/*
** This file holds the columns' faulting ahead of their writer: trak__ahead_to makes a table's
** column pages present (madvise MADV_POPULATE_WRITE, which touches no byte) up to a row, on a
** thread beside the one writing them, so that the kernel's zeroing of fresh pages, a sixth of a
** 50 M-event import's time, runs on the other core. The columns' bytes are only ever written by
** the writer's thread. Better still, trak__ahead_recycle moves memory another user gave up onto
** the columns' next pages (mremap): the kernel zeroes nothing for them. A trak_ahead_job wraps
** trak__ahead_to for a thread that only idles beside the writer (the JSON import's decoding
** thread ahead of the args rows, reserved for the file by trak__args_ahead_start).
*/
#define _GNU_SOURCE /* MADV_POPULATE_WRITE, mremap */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "processor/tables/prefault.h"


void trak__ahead_init(trak_ahead *a, const trak_col_mem *cols, size_t n, size_t rows) {
  if (n > TRAK_PREFAULT_MAX_COLUMNS) n = TRAK_PREFAULT_MAX_COLUMNS;
  for (size_t c = 0; c < n; c++)
    a->col[c] = cols[c], a->done[c] = 0;
  a->n_col = n;
  a->rows = rows;
  a->page = (size_t)sysconf(_SC_PAGESIZE);
  a->off = 0;
}

int trak__ahead_to(trak_ahead *a, size_t upto, size_t step) {
  const uintptr_t page = a->page;
  if (a->off) return -1;
  if (upto > a->rows) upto = a->rows;
  for (size_t c = 0; c < a->n_col; c++) {
    size_t want = upto * a->col[c].size;
    if (want <= a->done[c] || (want - a->done[c] < step && upto < a->rows)) continue;
    /* every page holding a byte of the rows is the array's, mapped: no page outside is faulted */
    uintptr_t from = ((uintptr_t)a->col[c].p + a->done[c]) & ~(page - 1),
              to = ((uintptr_t)a->col[c].p + want + page - 1) & ~(page - 1);
    if (madvise((void *)from, to - from, MADV_POPULATE_WRITE)) {
      a->off = 1; /* the writes fault as without this */
      return -1;
    }
    a->done[c] = want;
  }
  return 0;
}

void trak__ahead_small_pages(trak_ahead *a) {
  const uintptr_t page = a->page;
  for (size_t c = 0; c < a->n_col; c++) {
    const uintptr_t base = (uintptr_t)a->col[c].p;
    uintptr_t from = (base + a->done[c] + page - 1) & ~(page - 1),
              to = (base + a->rows * a->col[c].size) & ~(page - 1);
    if (!a->col[c].filled && to > from) madvise((void *)from, to - from, MADV_NOHUGEPAGE);
  }
}

void trak__spares_give(trak_spares *sp, void *b, size_t size) {
  if (sp && sp->n < TRAK_SPARES_MAX && size == sp->size && sp->moves < TRAK_SPARES_MOVES)
    sp->v[sp->n++] = b;
  else
    munmap(b, size);
}

void trak__spares_free(trak_spares *sp) {
  while (sp->n)
    munmap(sp->v[--sp->n], sp->size);
}

size_t trak__ahead_recycle(trak_ahead *a, size_t from, size_t upto, trak_spares *sp) {
  const uintptr_t page = a->page;
  size_t moved = 0;
  if (a->off) return 0;
  if (upto > a->rows) upto = a->rows;
  for (size_t c = 0; c < a->n_col && sp->n && sp->moves < TRAK_SPARES_MOVES; c++) {
    const uintptr_t base = (uintptr_t)a->col[c].p, size = a->col[c].size;
    /* the pages made present end where the writer may be: none is certain to be unwritten */
    if (a->col[c].filled || a->done[c] < from * size) continue;
    /* the first page not made present; the array's last page, maybe part of something else's,
    ** is never moved onto */
    uintptr_t at = (base + a->done[c] + page - 1) & ~(page - 1);
    const uintptr_t end = (base + a->rows * size) & ~(page - 1), want = base + upto * size;
    while (sp->n && at < want && at + sp->size <= end && sp->moves < TRAK_SPARES_MOVES) {
      if (mremap(sp->v[sp->n - 1], sp->size, sp->size, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)at) ==
          MAP_FAILED) {
        sp->moves = TRAK_SPARES_MOVES; /* out of mappings, or no mremap: populate as before */
        break;
      }
      sp->n--, sp->moves++, moved++;
      at += sp->size;
      a->done[c] = at - base;
    }
  }
  return moved;
}

/* ---- a page-ahead beside the writer ---------------------------------------------------- */

struct trak_ahead_job {
  pthread_mutex_t mu; /* held by the thread making pages present, or stopping the job */
  trak_ahead ahead;   /* under mu */
  size_t made;        /* rows made present (under mu) */
  int on;             /* under mu */
  size_t lead, piece, step;
  _Atomic size_t rows; /* the writer's rows, as last told */
};

trak_ahead_job *trak__ahead_job_new(const trak_col_mem *cols, size_t n, size_t rows, size_t lead,
                                    size_t piece) {
  trak_ahead_job *j = calloc(1, sizeof *j);
  if (!j) return NULL;
  pthread_mutex_init(&j->mu, NULL);
  trak__ahead_init(&j->ahead, cols, n, rows);
  j->on = 1;
  j->lead = lead, j->piece = piece;
  j->step = 4 * j->ahead.page; /* madvise calls of 16 KiB or more */
  return j;
}

void trak__ahead_job_tell(trak_ahead_job *j, size_t rows) {
  atomic_store_explicit(&j->rows, rows, memory_order_relaxed);
}

int trak__ahead_job_idle(trak_ahead_job *j) {
  if (pthread_mutex_trylock(&j->mu)) return 0;
  size_t want = atomic_load_explicit(&j->rows, memory_order_relaxed) + j->lead;
  int did = 0;
  if (j->on && j->made < want && j->made < j->ahead.rows) {
    size_t upto = j->made + j->piece < want ? j->made + j->piece : want;
    if (trak__ahead_to(&j->ahead, upto, j->step))
      j->on = 0;
    else
      j->made = upto, did = 1;
  }
  pthread_mutex_unlock(&j->mu);
  return did;
}

void trak__ahead_job_stop(trak_ahead_job *j) {
  if (!j) return;
  pthread_mutex_lock(&j->mu);
  j->on = 0;
  pthread_mutex_unlock(&j->mu);
}

void trak__ahead_job_free(trak_ahead_job *j) {
  if (!j) return;
  pthread_mutex_destroy(&j->mu);
  free(j);
}

/* ---- the args columns' page-ahead ---------------------------------------------------- */

#define ARGS_LEAD (1u << 15)  /* args rows made present past the writer's (1 MiB of the columns) */
#define ARGS_PIECE (1u << 13) /* args rows made present by one idle call at most */

int trak__args_ahead_start(trak_tables *t, size_t rows) {
  if (t->args.ahead || trak__args_reserve(t, rows)) return -1;
  trak_col_mem cols[TRAK_PREFAULT_MAX_COLUMNS];
  size_t n = trak__args_col_mem(t, cols, TRAK_PREFAULT_MAX_COLUMNS);
  t->args.ahead = trak__ahead_job_new(cols, n, t->args.cap, ARGS_LEAD, ARGS_PIECE);
  return t->args.ahead ? 0 : -1;
}

void trak__args_ahead_end(trak_tables *t) {
  trak__ahead_job_free(t->args.ahead);
  t->args.ahead = NULL;
}
