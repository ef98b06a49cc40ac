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
**   - ahead of the args rows of a JSON file of 16 MiB or more, its args table reserved for the
**     file's size, by the decoding thread after each batch it reads (read/pipeline.c, a
**     trak_ahead_job the importer's thread tells its row count).
** None runs with one import thread (TRAK_IMPORT_THREADS=1). The tables are byte for byte
** what the writer alone makes; only when the kernel zeroes their pages changes.
*/
#ifndef TRAK_PROCESSOR_TABLES_PREFAULT_H
#define TRAK_PROCESSOR_TABLES_PREFAULT_H

#include <stddef.h>

#include "processor/tables/storage.h" /* trak_col_mem */

#include <sys/mman.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; an older kernel answers EINVAL and nothing is done */
#endif

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

/* Blocks of memory whose pages are present, given up by their user (the ftrace queues' blocks the
** merge has read), kept to be moved onto columns' pages by trak__ahead_recycle rather than
** unmapped while the kernel zeroes as many fresh pages for the columns; the calling thread's
** alone. */
#define TRAK_SPARES_MAX 32     /* blocks kept at most: past them, a block given up is unmapped */
#define TRAK_SPARES_MOVES 8192 /* blocks moved at most (each move may add two mappings) */
typedef struct trak_spares {
  void *v[TRAK_SPARES_MAX];
  size_t n;     /* blocks kept */
  size_t size;  /* bytes of each, a multiple of the page size */
  size_t moves; /* blocks moved so far; TRAK_SPARES_MOVES also once the kernel refused one */
} trak_spares;

/* Withdraws the huge-page hint (MADV_NOHUGEPAGE) from a's columns from their rows made present
** on: blocks moved onto them are of small pages, and a huge page made present beside a move would
** be zeroed whole, then split by the next move. A hint: can't fail. */
void trak__ahead_small_pages(trak_ahead *a);
/* Keeps block b (sp->size bytes, its pages present) in sp, or unmaps it when sp is full or NULL.
** Can't fail. */
void trak__spares_give(trak_spares *sp, void *b, size_t size);
/* Unmaps the blocks sp keeps. */
void trak__spares_free(trak_spares *sp);
/* Moves blocks of sp (mremap) onto the pages next to be made present of a's columns, rows
** [0, upto) included (upto past a->rows counts as a->rows), where they lie wholly within a
** column array and past its row `from`: the writer has written no row at or past `from`, so the
** pages moved onto held nothing of the rows (their old contents, and the old ones past the rows
** written, are any bytes: a column's memory past its rows is unset, as realloc's; a `filled`
** column is left alone). The pages moved count as made present. Returns how many blocks were
** moved; on the kernel's refusal, moves no more (the blocks stay in sp). */
size_t trak__ahead_recycle(trak_ahead *a, size_t from, size_t upto, trak_spares *sp);

/* A page-ahead run by a thread that idles beside the writer (the JSON import's decoding thread,
** ahead of the args rows its importer's thread adds): the writer tells its rows after each batch,
** the other thread makes the columns present up to `lead` rows past them, `piece` rows a call at
** most. The writer's table names the job (trak_tables' `ahead`) so that a resize past the rows
** reserved stops it before any column moves. */
typedef struct trak_ahead_job trak_ahead_job;
/* A job over the first `n` of `cols` (as trak__ahead_init), arrays of `rows` rows that stay
** where they are until trak__ahead_job_stop returns. Returns NULL when out of memory. */
trak_ahead_job *trak__ahead_job_new(const trak_col_mem *cols, size_t n, size_t rows, size_t lead,
                                    size_t piece);
/* The writer's thread: it has written `rows` rows. Can't fail. */
void trak__ahead_job_tell(trak_ahead_job *j, size_t rows);
/* The other thread, when it has time: makes up to `piece` more rows present, up to `lead` past
** the rows last told, unless a stop or another call is under way. Returns 1 when it did. */
int trak__ahead_job_idle(trak_ahead_job *j);
/* Any thread: once it returns, the job makes nothing present any more (a call under way has
** ended). NULL accepted. */
void trak__ahead_job_stop(trak_ahead_job *j);
/* Stops and frees j (NULL accepted). */
void trak__ahead_job_free(trak_ahead_job *j);

/* Reserves the args table for `rows` rows (trak__args_reserve) and names a job over its columns
** in t->args.ahead, for the writer's thread to tell (t->args.n) and another to run: a resize
** past the rows reserved stops it. Returns 0, or -1 when a job is there already or memory is
** short (none then). */
int trak__args_ahead_start(trak_tables *t, size_t rows);
/* Frees t->args.ahead (the thread running it has stopped) and clears it. */
void trak__args_ahead_end(trak_tables *t);

#endif /* TRAK_PROCESSOR_TABLES_PREFAULT_H */
