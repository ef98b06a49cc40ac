/*
** This file holds the block pool: blocks of memory mapped and made present (the kernel zeroes
** each fresh page on the thread that faults it: a 2 MiB block costs milliseconds) by one thread
** and taken by another, its own thread or one that has time between its batches. Only the
** blocks' addresses cross between the threads; the pool writes nothing in them.
*/
#define _GNU_SOURCE /* MADV_POPULATE_WRITE, MADV_NOHUGEPAGE */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "processor/util/block_pool.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

struct trak_block_pool {
  pthread_mutex_t mu;
  pthread_cond_t want;              /* a block was taken, or stop (the pool's thread waits) */
  void *ready[TRAK_BLOCK_POOL_MAX]; /* mapped blocks not taken yet, n of them (under mu) */
  unsigned n, keep;                 /* keep: blocks to have ready */
  size_t size;                      /* bytes of a block */
  int small;                        /* madvise(MADV_NOHUGEPAGE) on each block */
  int wanted;                       /* a block has been taken (under mu) */
  int stop;                         /* the pool's thread is to end (under mu) */
  int has_thread;
  pthread_t thread;
};

/* A block of bp->size bytes with every page present, or NULL when it cannot be mapped. A kernel
** without MADV_POPULATE_WRITE (before 5.14) gets MAP_POPULATE instead (no hint). */
static void *block_map(const trak_block_pool *bp) {
  void *b = mmap(NULL, bp->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (b == MAP_FAILED) return NULL;
  if (bp->small) madvise(b, bp->size, MADV_NOHUGEPAGE); /* cheaper to zero here; a hint */
  if (!madvise(b, bp->size, MADV_POPULATE_WRITE)) return b;
  munmap(b, bp->size);
  b = mmap(NULL, bp->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1,
           0);
  return b == MAP_FAILED ? NULL : b;
}

/* Whether the pool lacks a block it should have (bp->mu held). */
static int lacks(const trak_block_pool *bp) {
  return bp->wanted && bp->n < bp->keep && !bp->stop;
}

void trak__block_pool_fill(trak_block_pool *bp) {
  pthread_mutex_lock(&bp->mu);
  while (lacks(bp)) {
    pthread_mutex_unlock(&bp->mu);
    void *b = block_map(bp);
    pthread_mutex_lock(&bp->mu);
    if (!b) break;
    bp->ready[bp->n++] = b; /* only the filling thread adds: n < keep still */
  }
  pthread_mutex_unlock(&bp->mu);
}

static void *pool_main(void *arg) {
  trak_block_pool *bp = arg;
  for (;;) {
    pthread_mutex_lock(&bp->mu);
    while (!lacks(bp) && !bp->stop)
      pthread_cond_wait(&bp->want, &bp->mu);
    int stop = bp->stop;
    pthread_mutex_unlock(&bp->mu);
    if (stop) return NULL;
    trak__block_pool_fill(bp);
  }
}

trak_block_pool *trak__block_pool_new(size_t size, unsigned keep, int small) {
  trak_block_pool *bp = calloc(1, sizeof *bp);
  if (!bp) return NULL;
  bp->size = size;
  bp->keep = keep < TRAK_BLOCK_POOL_MAX ? keep : TRAK_BLOCK_POOL_MAX;
  bp->small = small;
  pthread_mutex_init(&bp->mu, NULL);
  pthread_cond_init(&bp->want, NULL);
  return bp;
}

int trak__block_pool_run(trak_block_pool *bp) {
  if (pthread_create(&bp->thread, NULL, pool_main, bp)) return -1;
  bp->has_thread = 1;
  return 0;
}

void *trak__block_pool_take(trak_block_pool *bp) {
  if (!bp) return NULL;
  pthread_mutex_lock(&bp->mu);
  void *b = bp->n ? bp->ready[--bp->n] : NULL;
  bp->wanted = 1;
  pthread_cond_signal(&bp->want);
  pthread_mutex_unlock(&bp->mu);
  return b;
}

void trak__block_pool_free(trak_block_pool *bp) {
  if (!bp) return;
  if (bp->has_thread) {
    pthread_mutex_lock(&bp->mu);
    bp->stop = 1;
    pthread_cond_signal(&bp->want);
    pthread_mutex_unlock(&bp->mu);
    pthread_join(bp->thread, NULL);
  }
  for (unsigned i = 0; i < bp->n; i++)
    munmap(bp->ready[i], bp->size);
  pthread_mutex_destroy(&bp->mu);
  pthread_cond_destroy(&bp->want);
  free(bp);
}
