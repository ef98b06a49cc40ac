/*
** A producer thread handing records in batches (batch_thread.c): a thread of its own fills
** batches of fixed-size records in order, through a ring of a few, for the caller's thread to
** consume in the same order, so that producing the records (a merge) and consuming them
** (applying them to the tables) run on two cores. Only the records cross, and a few numbers the
** consumer notes for the producer (its tables' row counts, for tables/prefault.h's page-ahead).
** The ftrace queues' merge (import/ftrace/merge_thread.c) and the track events' merge
** (import/event_merge.c) run on one.
*/
#ifndef TRAK_PROCESSOR_UTIL_BATCH_THREAD_H
#define TRAK_PROCESSOR_UTIL_BATCH_THREAD_H

#include <stddef.h>

#define TRAK_BATCH_NOTES 4 /* numbers the consumer notes for the producer at most */

/* Fills `out` with up to `max` records, the next ones in order, on the producer's thread, and
** returns how many: fewer than `max` says that there are no more (it is not called again).
** `notes` holds what the consumer last noted (the numbers given to trak__batch_thread_start,
** then to each trak__batch_thread_take), read at the start of the call. */
typedef size_t (*trak_batch_fill)(void *ctx, void *out, size_t max, const size_t *notes);

typedef struct trak_batch_thread trak_batch_thread;

/* Starts a thread calling `fill` (with `ctx`) for batches of `batch` records of `size` bytes,
** `notes` (n_notes <= TRAK_BATCH_NOTES numbers) its first notes. Returns NULL when no thread
** starts or memory runs out: nothing was called, the caller produces the records itself. */
trak_batch_thread *trak__batch_thread_start(size_t size, size_t batch, trak_batch_fill fill,
                                            void *ctx, const size_t *notes, size_t n_notes);
/* Gives the previous batch back (noting `notes`, n_notes numbers as at the start, for the
** fills that follow; NULL: unchanged) and waits for the next one: sets *recs to its records,
** valid until the next call, and returns how many there are, 0 at the end (no call after). */
size_t trak__batch_thread_take(trak_batch_thread *bt, const size_t *notes, const void **recs);
/* Work either thread may do instead of sleeping on the ring (`producer`: 1 on the producer's
** thread, its next slot not yet given back; 0 on the consumer's, its next batch not yet filled),
** called with no lock held. Returns 1 when it did some (the ring is looked at again before the
** next call), 0 when there is none now (the thread then sleeps until the ring changes). It must
** be short: the other thread may be waiting for this one. */
typedef int (*trak_batch_idle)(void *ctx, int producer);
/* Sets the idle work of both threads (NULL: none, as at the start). Can't fail. */
void trak__batch_thread_idle(trak_batch_thread *bt, trak_batch_idle idle, void *ctx);
/* Joins the thread, after trak__batch_thread_take returned 0 (the producer has finished), and
** frees bt. */
void trak__batch_thread_finish(trak_batch_thread *bt);

#endif /* TRAK_PROCESSOR_UTIL_BATCH_THREAD_H */
