/*
** This file holds the Linux sink's apply on two cores: a merge thread runs the merge of the
** queues (ftrace_queue.c's trak__fmerge_*: reading the queued records, decoding compact_sched
** runs, giving the queues' memory back) and hands the records, in the order they are to be
** applied, in batches through a ring to the importer's thread, which applies them exactly as it
** applies the merge's records with one thread. Only the records cross: the merge reads no state
** that applying changes, so the tables are those of one thread.
** The merge thread also makes the pages of the sched tables' columns present a little ahead of
** the rows the importer's thread has written (tables/prefault.h): the kernel zeroes fresh
** pages on the thread that faults them, a fifth to a third of an import's time, now off the
** applying thread. Only the columns' addresses cross for that, never their contents.
** Synchronisation is one mutex and two condition variables, a batch at a time.
*/
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/tables/prefault.h"

#define SLOTS 4
#define BATCH 1024u       /* records per batch (48 KiB) */
#define LEAD 65536u       /* rows made present ahead of the applying thread's last count */
#define STEP (256u << 10) /* bytes made present by one call at least */

/* The tables the applying thread fills row by row. */
enum { T_SLICE, T_STATE, T_RAW, TABLES };

enum { SLOT_FREE, SLOT_FILLED };

typedef struct merge_pipe {
  trak_importer *imp;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t filled; /* a slot became FILLED */
  pthread_cond_t freed;  /* a slot became FREE */
  int state[SLOTS];
  size_t n[SLOTS];          /* records in a FILLED slot; fewer than BATCH: the merge's last */
  trak_fq_rec *rec;         /* SLOTS * BATCH records, slot i's from rec + i * BATCH */
  size_t rows[TABLES];      /* each table's rows when the applying thread last freed a slot */
  trak_ahead ahead[TABLES]; /* the merge thread's, but for what ahead_init sets */
  int ahead_off;            /* TRAK_FTRACE_AHEAD=0, or the kernel refused: no more */
} merge_pipe;

/* Table a's columns, as `list` gives them, and its capacity `cap` in rows. */
static void ahead_init(trak_ahead *a, const trak_tables *t, size_t cap,
                       size_t (*list)(const trak_tables *, trak_col_mem *, size_t)) {
  trak_col_mem col[TRAK_PREFAULT_MAX_COLUMNS];
  trak__ahead_init(a, col, list(t, col, TRAK_PREFAULT_MAX_COLUMNS), cap);
}

/* Makes the pages of every table's columns present up to LEAD rows past `rows` (the applying
** thread's counts, a batch or a few old), in steps of STEP bytes at least, the last page too. */
static void ahead(merge_pipe *mp, const size_t *rows) {
  for (int k = 0; k < TABLES && !mp->ahead_off; k++)
    if (trak__ahead_to(&mp->ahead[k], rows[k] + LEAD, STEP)) mp->ahead_off = 1;
}

/* The merge thread: fills the free slots in ring order until the merge ends, the last slot
** filled with fewer than BATCH records (none, when the merge ended with a full batch). */
static void *merge_main(void *arg) {
  merge_pipe *mp = arg;
  trak_fmerge *mg = trak__fmerge_open(mp->imp);
  int end = 0;
  for (size_t i = 0; !end; i = (i + 1) % SLOTS) {
    size_t rows[TABLES];
    pthread_mutex_lock(&mp->mu);
    while (mp->state[i] != SLOT_FREE)
      pthread_cond_wait(&mp->freed, &mp->mu);
    for (int k = 0; k < TABLES; k++)
      rows[k] = mp->rows[k];
    pthread_mutex_unlock(&mp->mu);
    ahead(mp, rows);
    trak_fq_rec *out = mp->rec + i * BATCH;
    size_t n = 0;
    while (n < BATCH) {
      const trak_fq_rec *r = trak__fmerge_next(mp->imp, mg);
      if (!r) {
        end = 1;
        break;
      }
      out[n++] = *r;
    }
    pthread_mutex_lock(&mp->mu);
    mp->n[i] = n;
    mp->state[i] = SLOT_FILLED;
    pthread_cond_signal(&mp->filled);
    pthread_mutex_unlock(&mp->mu);
  }
  trak__fmerge_close(mg);
  return NULL;
}

/* The applying thread's row counts, for the merge thread's ahead (mp->mu held, or before the
** thread starts). */
static void rows_note(merge_pipe *mp, const trak_tables *t) {
  mp->rows[T_SLICE] = t->sched_slice.n;
  mp->rows[T_STATE] = t->thread_state.n;
  mp->rows[T_RAW] = t->ftrace_event.n;
}

static void pipe_destroy(merge_pipe *mp) {
  pthread_mutex_destroy(&mp->mu);
  pthread_cond_destroy(&mp->filled);
  pthread_cond_destroy(&mp->freed);
  free(mp->rec);
}

int trak__ftrace_apply_threaded(trak_importer *imp) {
  trak_ftrace *f = imp->ftrace;
  if (!f->n_queued || trak__import_threads((uint64_t)f->n_queued * sizeof(trak_fq_rec)) < 2)
    return 0;
  trak_tables *t = imp->tables;
  merge_pipe mp;
  memset(&mp, 0, sizeof mp);
  mp.imp = imp;
  mp.rec = malloc(SLOTS * BATCH * sizeof *mp.rec);
  if (!mp.rec) abort();
  pthread_mutex_init(&mp.mu, NULL);
  pthread_cond_init(&mp.filled, NULL);
  pthread_cond_init(&mp.freed, NULL);
  const char *ahead_env = getenv("TRAK_FTRACE_AHEAD"); /* =0: no pages made present ahead */
  mp.ahead_off = ahead_env && !strcmp(ahead_env, "0");
  ahead_init(&mp.ahead[T_SLICE], t, t->sched_slice.cap, trak__sched_slice_col_mem);
  ahead_init(&mp.ahead[T_STATE], t, t->thread_state.cap, trak__thread_state_col_mem);
  ahead_init(&mp.ahead[T_RAW], t, t->ftrace_event.cap, trak__ftrace_event_col_mem);
  rows_note(&mp, t);
  if (pthread_create(&mp.thread, NULL, merge_main, &mp)) {
    pipe_destroy(&mp);
    return 0;
  }
  size_t n = BATCH;
  for (size_t i = 0; n == BATCH; i = (i + 1) % SLOTS) {
    pthread_mutex_lock(&mp.mu);
    while (mp.state[i] != SLOT_FILLED)
      pthread_cond_wait(&mp.filled, &mp.mu);
    n = mp.n[i];
    pthread_mutex_unlock(&mp.mu);
    const trak_fq_rec *r = mp.rec + i * BATCH;
    for (size_t k = 0; k < n; k++)
      trak__fq_apply(imp, &r[k]);
    pthread_mutex_lock(&mp.mu);
    rows_note(&mp, t);
    mp.state[i] = SLOT_FREE;
    pthread_cond_signal(&mp.freed);
    pthread_mutex_unlock(&mp.mu);
  }
  pthread_join(mp.thread, NULL);
  pipe_destroy(&mp);
  return 1;
}
