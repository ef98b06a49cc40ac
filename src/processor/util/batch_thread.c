/*
** This file holds the producer thread's ring: SLOTS batches of records, each FREE (the producer
** may fill it) or FILLED (the consumer may read it), filled and consumed in ring order. The
** producer fills slot i once the consumer has given it back; the consumer reads slot i once it
** is filled. Synchronisation is one mutex and two condition variables; a thread that sleeps on
** the ring is woken once half of it is ready for it, and signals are sent with the mutex free.
*/
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "processor/util/batch_thread.h"

#define SLOTS 4
/* a thread waiting on the ring (the producer for a free slot, the consumer for a filled one) is
** woken when this many are ready (or the last batch is filled): it then takes them in a row, one
** sleep and wake for several batches */
#define WAKE (SLOTS / 2)

enum { SLOT_FREE, SLOT_FILLED };

struct trak_batch_thread {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t filled; /* a slot became FILLED */
  pthread_cond_t freed;  /* a slot became FREE */
  int state[SLOTS];      /* under mu */
  int waits[2];          /* under mu: [1] the producer, [0] the consumer sleeps on the ring */
  size_t n[SLOTS];       /* records in a FILLED slot; fewer than batch: the last */
  uint8_t *rec;          /* SLOTS * batch records, slot i's from rec + i * batch * size */
  size_t size, batch;
  trak_batch_fill fill;
  void *ctx;
  size_t notes[TRAK_BATCH_NOTES]; /* the consumer's latest (under mu) */
  size_t n_notes;
  trak_batch_idle idle; /* under mu: work instead of a wait, or NULL */
  void *idle_ctx;
  size_t take;   /* the consumer's: the slot it reads next */
  int consuming; /* the consumer's: it holds slot take - 1 */
  int ended;     /* the consumer's: the last batch was taken */
};

/* The slots in `state`, mu held. */
static size_t count(const trak_batch_thread *bt, int state) {
  size_t n = 0;
  for (size_t k = 0; k < SLOTS; k++)
    n += bt->state[k] == state;
  return n;
}

/* Waits, mu held, until slot i is in `state`, doing the idle work (of the producer's thread
** or the consumer's) while there is some: it is tried once after each change of the ring. */
static void wait_for(trak_batch_thread *bt, size_t i, int state, int producer) {
  pthread_cond_t *cv = producer ? &bt->freed : &bt->filled;
  int tried = 0;
  while (bt->state[i] != state) {
    if (bt->idle && !tried) {
      trak_batch_idle idle = bt->idle;
      void *ctx = bt->idle_ctx;
      pthread_mutex_unlock(&bt->mu);
      tried = !idle(ctx, producer);
      pthread_mutex_lock(&bt->mu);
      continue;
    }
    bt->waits[producer] = 1;
    pthread_cond_wait(cv, &bt->mu);
    bt->waits[producer] = 0;
    tried = 0;
  }
}

static void *producer_main(void *arg) {
  trak_batch_thread *bt = arg;
  size_t n = bt->batch;
  for (size_t i = 0; n == bt->batch; i = (i + 1) % SLOTS) {
    size_t notes[TRAK_BATCH_NOTES];
    pthread_mutex_lock(&bt->mu);
    wait_for(bt, i, SLOT_FREE, 1);
    memcpy(notes, bt->notes, sizeof notes);
    pthread_mutex_unlock(&bt->mu);
    n = bt->fill(bt->ctx, bt->rec + i * bt->batch * bt->size, bt->batch, notes);
    pthread_mutex_lock(&bt->mu);
    bt->n[i] = n;
    bt->state[i] = SLOT_FILLED;
    int wake = bt->waits[0] && (n < bt->batch || count(bt, SLOT_FILLED) >= WAKE);
    pthread_mutex_unlock(&bt->mu);
    if (wake) pthread_cond_signal(&bt->filled); /* unlocked: the woken thread finds mu free */
  }
  return NULL;
}

trak_batch_thread *trak__batch_thread_start(size_t size, size_t batch, trak_batch_fill fill,
                                            void *ctx, const size_t *notes, size_t n_notes) {
  if (n_notes > TRAK_BATCH_NOTES || !batch || !size) return NULL;
  trak_batch_thread *bt = calloc(1, sizeof *bt);
  if (!bt) return NULL;
  bt->rec = malloc(SLOTS * batch * size);
  if (!bt->rec) {
    free(bt);
    return NULL;
  }
  bt->size = size, bt->batch = batch, bt->fill = fill, bt->ctx = ctx;
  bt->n_notes = n_notes;
  if (n_notes) memcpy(bt->notes, notes, n_notes * sizeof *notes);
  pthread_mutex_init(&bt->mu, NULL);
  pthread_cond_init(&bt->filled, NULL);
  pthread_cond_init(&bt->freed, NULL);
  if (pthread_create(&bt->thread, NULL, producer_main, bt)) {
    pthread_mutex_destroy(&bt->mu);
    pthread_cond_destroy(&bt->filled);
    pthread_cond_destroy(&bt->freed);
    free(bt->rec);
    free(bt);
    return NULL;
  }
  return bt;
}

size_t trak__batch_thread_take(trak_batch_thread *bt, const size_t *notes, const void **recs) {
  if (bt->ended) return 0;
  pthread_mutex_lock(&bt->mu);
  if (notes) memcpy(bt->notes, notes, bt->n_notes * sizeof *notes);
  if (bt->consuming) { /* the previous batch goes back */
    bt->state[(bt->take + SLOTS - 1) % SLOTS] = SLOT_FREE;
    if (bt->waits[1] && count(bt, SLOT_FREE) >= WAKE) {
      pthread_mutex_unlock(&bt->mu); /* the woken thread finds mu free */
      pthread_cond_signal(&bt->freed);
      pthread_mutex_lock(&bt->mu);
    }
  }
  size_t i = bt->take;
  wait_for(bt, i, SLOT_FILLED, 0);
  size_t n = bt->n[i];
  pthread_mutex_unlock(&bt->mu);
  bt->take = (i + 1) % SLOTS;
  bt->consuming = 1;
  bt->ended = n < bt->batch;
  *recs = bt->rec + i * bt->batch * bt->size;
  return n;
}

void trak__batch_thread_idle(trak_batch_thread *bt, trak_batch_idle idle, void *ctx) {
  pthread_mutex_lock(&bt->mu);
  bt->idle = idle, bt->idle_ctx = ctx;
  pthread_mutex_unlock(&bt->mu);
}

void trak__batch_thread_finish(trak_batch_thread *bt) {
  pthread_join(bt->thread, NULL);
  pthread_mutex_destroy(&bt->mu);
  pthread_cond_destroy(&bt->filled);
  pthread_cond_destroy(&bt->freed);
  free(bt->rec);
  free(bt);
}
