/*
** This file holds the columns' faulting ahead of their writer: trak__ahead_to, which makes a
** table's column pages present (madvise MADV_POPULATE_WRITE, which touches no byte) up to a row,
** and the prefaulter, a thread of its own that calls it a bounded number of rows ahead of what
** its writer says it has written, so that the kernel's zeroing of fresh pages, a sixth of a 50
** M-event import's time, runs on the core the parse phase leaves idle. The columns' bytes are
** only ever written by the writer's thread.
*/
#define _GNU_SOURCE /* MADV_POPULATE_WRITE */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "processor/tables/prefault.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; an older kernel answers EINVAL and nothing is done */
#endif

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

struct trak_prefault {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t moved; /* `written` moved on, or stop */
  trak_ahead a;         /* the thread's */
  size_t ahead;         /* rows made present past `written` at most */
  size_t written;       /* the writer's: rows written so far (under mu) */
  int stop;             /* under mu */
};

static void *prefault_main(void *arg) {
  trak_prefault *pf = arg;
  size_t done = 0; /* rows made present */
  const size_t step = pf->ahead / 4 ? pf->ahead / 4 : 1;
  for (;;) {
    pthread_mutex_lock(&pf->mu);
    while (!pf->stop && done >= pf->written + pf->ahead)
      pthread_cond_wait(&pf->moved, &pf->mu);
    int stop = pf->stop;
    size_t limit = pf->written + pf->ahead;
    pthread_mutex_unlock(&pf->mu);
    if (stop) return NULL;
    if (limit > pf->a.rows) limit = pf->a.rows;
    size_t to = done + step < limit ? done + step : limit;
    if (trak__ahead_to(&pf->a, to, 0)) return NULL;
    done = to;
    if (done == pf->a.rows) return NULL;
  }
}

trak_prefault *trak__prefault_start(const trak_col_mem *cols, size_t n_cols, size_t rows,
                                    size_t ahead) {
  if (n_cols > TRAK_PREFAULT_MAX_COLUMNS || !rows || !ahead) return NULL;
  trak_prefault *pf = calloc(1, sizeof *pf);
  if (!pf) return NULL;
  trak__ahead_init(&pf->a, cols, n_cols, rows);
  pf->ahead = ahead;
  pthread_mutex_init(&pf->mu, NULL);
  pthread_cond_init(&pf->moved, NULL);
  if (pthread_create(&pf->thread, NULL, prefault_main, pf)) {
    pthread_mutex_destroy(&pf->mu);
    pthread_cond_destroy(&pf->moved);
    free(pf);
    return NULL;
  }
  return pf;
}

void trak__prefault_written(trak_prefault *pf, size_t rows) {
  pthread_mutex_lock(&pf->mu);
  pf->written = rows;
  pthread_cond_signal(&pf->moved);
  pthread_mutex_unlock(&pf->mu);
}

void trak__prefault_stop(trak_prefault *pf) {
  if (!pf) return;
  pthread_mutex_lock(&pf->mu);
  pf->stop = 1;
  pthread_cond_signal(&pf->moved);
  pthread_mutex_unlock(&pf->mu);
  pthread_join(pf->thread, NULL);
  pthread_mutex_destroy(&pf->mu);
  pthread_cond_destroy(&pf->moved);
  free(pf);
}
