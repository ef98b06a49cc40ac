/*
** This file holds the prefaulter: a thread that faults in the pages of a table's columns a little
** ahead of the rows being written (madvise MADV_POPULATE_WRITE, which touches no byte), so that
** the kernel's zeroing of fresh pages, a sixth of a 50 M-event import's time, runs on the core
** the parse phase leaves idle. The columns' bytes are only ever written by the caller's thread.
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

struct trak_prefault {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t moved; /* `written` moved on, or stop */
  uint8_t *col[TRAK_PREFAULT_MAX_COLUMNS];
  size_t width[TRAK_PREFAULT_MAX_COLUMNS];
  size_t n_cols, rows, ahead;
  size_t written; /* the caller's: rows written so far (under mu) */
  int stop;       /* under mu */
};

/* Faults in the whole pages of rows [from, to) of every column; returns 0, or -1 when the kernel
** does not do it (the thread then stops). */
static int populate(trak_prefault *pf, size_t from, size_t to) {
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  for (size_t c = 0; c < pf->n_cols; c++) {
    uintptr_t a = (uintptr_t)(pf->col[c] + from * pf->width[c]);
    uintptr_t b = (uintptr_t)(pf->col[c] + to * pf->width[c]);
    a = (a + page - 1) & ~(page - 1); /* whole pages inside the column only */
    b &= ~(page - 1);
    if (b > a && madvise((void *)a, b - a, MADV_POPULATE_WRITE)) return -1;
  }
  return 0;
}

static void *prefault_main(void *arg) {
  trak_prefault *pf = arg;
  size_t done = 0; /* rows faulted in */
  const size_t step = pf->ahead / 4 ? pf->ahead / 4 : 1;
  for (;;) {
    pthread_mutex_lock(&pf->mu);
    while (!pf->stop && done >= pf->written + pf->ahead)
      pthread_cond_wait(&pf->moved, &pf->mu);
    int stop = pf->stop;
    size_t limit = pf->written + pf->ahead;
    pthread_mutex_unlock(&pf->mu);
    if (stop) return NULL;
    if (limit > pf->rows) limit = pf->rows;
    size_t to = done + step < limit ? done + step : limit;
    if (to > done && populate(pf, done, to)) return NULL;
    done = to;
    if (done == pf->rows) return NULL;
  }
}

trak_prefault *trak__prefault_start(void *const *cols, const size_t *width, size_t n_cols,
                                    size_t rows, size_t ahead) {
  if (n_cols > TRAK_PREFAULT_MAX_COLUMNS || !rows || !ahead) return NULL;
  trak_prefault *pf = calloc(1, sizeof *pf);
  if (!pf) return NULL;
  for (size_t c = 0; c < n_cols; c++)
    pf->col[c] = cols[c], pf->width[c] = width[c];
  pf->n_cols = n_cols, pf->rows = rows, pf->ahead = ahead;
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
