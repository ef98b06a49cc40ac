/*
** Columns faulted in ahead of their writer (prefault.c): the pages of a table's column arrays
** made present (madvise MADV_POPULATE_WRITE, which writes no byte) a bounded number of rows
** past what the writer has written, so that the kernel zeroes the fresh pages when, and on the
** core where, there is time for it. trak__ahead_to is called:
**   - by the ftrace queues' merge thread (import/ftrace/merge_thread.c) between its batches,
**     from the row counts the importer's thread noted when it gave a batch back, ahead of the
**     sched_slice, thread_state and ftrace_event rows (TRAK_FTRACE_AHEAD=0 turns it off);
**   - ahead of the parse phase's slice rows (import/event_merge.c), when the slice table is
**     reserved for 512 Ki rows or more, by whichever of the parse's merge thread and the
**     importer's thread (the writer itself) would wait on their ring, one at a time.
** Neither runs with one import thread (TRAK_IMPORT_THREADS=1). The tables are byte for byte
** what the writer alone makes; only when the kernel zeroes their pages changes.
*/
#ifndef TRAK_PROCESSOR_TABLES_PREFAULT_H
#define TRAK_PROCESSOR_TABLES_PREFAULT_H

#include <stddef.h>

#include "processor/tables/storage.h" /* trak_col_mem */

#define TRAK_PREFAULT_MAX_COLUMNS 16

/* The columns of one table and how much of each is present; the calling thread's alone. */
typedef struct trak_ahead {
  trak_col_mem col[TRAK_PREFAULT_MAX_COLUMNS];
  size_t n_col;
  size_t rows;                            /* rows the arrays hold: nothing past them is touched */
  size_t done[TRAK_PREFAULT_MAX_COLUMNS]; /* bytes of each column made present, from its start */
  size_t page;                            /* bytes of a page */
  int off;                                /* the kernel refused once: nothing more is done */
} trak_ahead;

/* Sets `a` to the first `n` of `cols` (at most TRAK_PREFAULT_MAX_COLUMNS: the others fault as
** they are written), arrays of `rows` rows that must stay where they are while `a` is used,
** nothing present yet. Can't fail. */
void trak__ahead_init(trak_ahead *a, const trak_col_mem *cols, size_t n, size_t rows);
/* Makes present the pages of rows [0, upto) of every column (upto past a->rows counts as
** a->rows), the pages the rows' first and last bytes are in included. A column whose missing
** part is under `step` bytes is left for a later call unless `upto` reaches a->rows (fewer,
** larger calls into the kernel). Returns 0, or -1 when the kernel does not do it (before Linux
** 5.14, or out of memory): a->off is then set and every later call returns -1 at once. */
int trak__ahead_to(trak_ahead *a, size_t upto, size_t step);

#endif /* TRAK_PROCESSOR_TABLES_PREFAULT_H */
