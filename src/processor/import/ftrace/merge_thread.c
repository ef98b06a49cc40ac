/*
** This file holds the Linux sink's apply on two cores: a merge thread (util/batch_thread.h)
** runs the merge of the queues (ftrace_queue.c's trak__fmerge_*: reading the queued records,
** decoding compact_sched runs, giving the queues' memory back) and hands the records, in the
** order they are to be applied, in batches to the importer's thread, which applies them exactly
** as it applies the merge's records with one thread. Only the records cross: the merge reads no
** state that applying changes, so the tables are those of one thread.
** The merge thread also makes the pages of the sched tables' columns present a little ahead of
** the rows the importer's thread has written (tables/prefault.h): the kernel zeroes fresh
** pages on the thread that faults them, a fifth to a third of an import's time, now off the
** applying thread. Only the columns' addresses cross for that, never their contents. Better, the
** queue blocks the merge has read are moved onto those columns' next pages (prefault.h's
** trak__ahead_recycle) instead of being unmapped while fresh pages are zeroed for the columns:
** only pages well past the rows the applying thread may have written (MARGIN) are moved onto.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/tables/prefault.h"
#include "processor/util/batch_thread.h"

#define BATCH 1024u       /* records per batch (48 KiB) */
#define LEAD 65536u       /* rows made present ahead of the applying thread's last count */
#define STEP (256u << 10) /* bytes made present by one call at least */
/* rows past the applying thread's last count that it cannot have written yet: it applies at most
** the batches of the ring (4) past that count, each record adding at most two rows to a table */
#define MARGIN (LEAD / 2)

/* Records between a switch's prefetch hint (trak__fa_switch_prefetch) and its apply: time for
** the miss, few enough that its CPU rarely switches again in between. */
#define AHEAD 4u

/* The tables the applying thread fills row by row. */
enum { T_SLICE, T_STATE, T_RAW, TABLES };

/* The merge thread's state. */
typedef struct merge_ctx {
  trak_importer *imp;
  trak_fmerge *mg;          /* opened by the first batch, closed after the last */
  trak_ahead ahead[TABLES]; /* each table's columns */
  int ahead_off;            /* TRAK_FTRACE_AHEAD=0, or the kernel refused: no more */
  trak_spares spares;       /* queue blocks read, to move onto the columns */
} merge_ctx;

/* Table a's columns, as `list` gives them, and its capacity `cap` in rows. */
static void ahead_init(trak_ahead *a, const trak_tables *t, size_t cap,
                       size_t (*list)(const trak_tables *, trak_col_mem *, size_t)) {
  trak_col_mem col[TRAK_PREFAULT_MAX_COLUMNS];
  trak__ahead_init(a, col, list(t, col, TRAK_PREFAULT_MAX_COLUMNS), cap);
}

/* The merge's batch (a trak_batch_fill): the pages of every table's columns made present up to
** LEAD rows past `rows` (the applying thread's counts, a batch or a few old), in steps of STEP
** bytes at least, the last page too; then up to `max` records into `out`. */
static size_t merge_fill(void *ctx, void *out, size_t max, const size_t *rows) {
  merge_ctx *mc = ctx;
  for (int k = 0; k < TABLES && !mc->ahead_off; k++) {
    trak__ahead_recycle(&mc->ahead[k], rows[k] + MARGIN, rows[k] + LEAD, &mc->spares);
    if (trak__ahead_to(&mc->ahead[k], rows[k] + LEAD, STEP)) mc->ahead_off = 1;
  }
  if (!mc->mg) mc->mg = trak__fmerge_open(mc->imp);
  trak_fq_rec *o = out;
  size_t n = 0;
  while (n < max) {
    const trak_fq_rec *r = trak__fmerge_next(mc->imp, mc->mg);
    if (!r) {
      trak__fmerge_close(mc->mg);
      break;
    }
    o[n++] = *r;
  }
  return n;
}

/* The applying thread's row counts, for the merge thread's page-ahead. */
static void rows_note(size_t *rows, const trak_tables *t) {
  rows[T_SLICE] = t->sched_slice.n;
  rows[T_STATE] = t->thread_state.n;
  rows[T_RAW] = t->ftrace_event.n;
}

int trak__ftrace_apply_threaded(trak_importer *imp) {
  trak_ftrace *f = imp->ftrace;
  if (!f->n_queued || trak__import_threads((uint64_t)f->n_queued * sizeof(trak_fq_rec)) < 2)
    return 0;
  trak_tables *t = imp->tables;
  merge_ctx mc;
  memset(&mc, 0, sizeof mc);
  mc.imp = imp;
  const char *ahead_env = getenv("TRAK_FTRACE_AHEAD"); /* =0: no pages made present ahead */
  mc.ahead_off = ahead_env && !strcmp(ahead_env, "0");
  ahead_init(&mc.ahead[T_SLICE], t, t->sched_slice.cap, trak__sched_slice_col_mem);
  ahead_init(&mc.ahead[T_STATE], t, t->thread_state.cap, trak__thread_state_col_mem);
  ahead_init(&mc.ahead[T_RAW], t, t->ftrace_event.cap, trak__ftrace_event_col_mem);
  const char *recycle_env = getenv("TRAK_FTRACE_RECYCLE"); /* =0: queue blocks unmapped */
  mc.spares.size = TRAK_FQ_BLOCK_BYTES;
  if (!mc.ahead_off && !(recycle_env && !strcmp(recycle_env, "0"))) {
    f->spares = &mc.spares;
    for (int k = 0; k < TABLES; k++)
      trak__ahead_small_pages(&mc.ahead[k]);
  }
  size_t rows[TABLES];
  rows_note(rows, t);
  trak_batch_thread *bt =
      trak__batch_thread_start(sizeof(trak_fq_rec), BATCH, merge_fill, &mc, rows, TABLES);
  if (!bt) {
    f->spares = NULL;
    return 0;
  }
  const void *batch;
  size_t n;
  while ((n = trak__batch_thread_take(bt, rows, &batch))) {
    const trak_fq_rec *r = batch;
    for (size_t k = 0; k < n; k++) {
      if (k + AHEAD < n) trak__fa_switch_prefetch(imp, &r[k + AHEAD]);
      trak__fq_apply(imp, &r[k]);
    }
    rows_note(rows, t);
  }
  trak__batch_thread_finish(bt);
  f->spares = NULL;
  trak__spares_free(&mc.spares);
  return 1;
}
