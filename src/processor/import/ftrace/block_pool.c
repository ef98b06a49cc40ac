/*
** This file holds the queue's block pool: a thread that maps the queue's blocks with every page
** present (MAP_POPULATE) before the importer's thread needs them, so that the kernel zeroes
** their fresh pages on that thread, not on the one pushing records (a block's 48 pages were a
** trip into the kernel on the importer's thread every 4,096 records). Only the blocks' addresses
** cross between the threads; the pool writes nothing in them.
*/
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "processor/import/ftrace/ftrace_internal.h"

#define READY 8 /* blocks kept mapped ahead (1.5 MiB) */

struct trak_fpool {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t want; /* a block was taken, or stop */
  void *ready[READY];  /* mapped blocks not taken yet, n of them */
  size_t n, size;      /* size: bytes of a block */
  int stop;
};

/* A block of `size` bytes, its pages present. */
static void *block_map(size_t size) {
  void *b =
      mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (b == MAP_FAILED) abort();
  return b;
}

static void *pool_main(void *arg) {
  trak_fpool *p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->n == READY && !p->stop)
      pthread_cond_wait(&p->want, &p->mu);
    if (p->stop) break;
    pthread_mutex_unlock(&p->mu);
    void *b = block_map(p->size);
    pthread_mutex_lock(&p->mu);
    p->ready[p->n++] = b;
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

trak_fpool *trak__fpool_start(size_t size) {
  trak_fpool *p = calloc(1, sizeof *p);
  if (!p) abort();
  p->size = size;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->want, NULL);
  if (pthread_create(&p->thread, NULL, pool_main, p)) {
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->want);
    free(p);
    return NULL;
  }
  return p;
}

void *trak__fpool_take(trak_fpool *p) {
  pthread_mutex_lock(&p->mu);
  void *b = p->n ? p->ready[--p->n] : NULL;
  pthread_cond_signal(&p->want);
  pthread_mutex_unlock(&p->mu);
  return b ? b : block_map(p->size); /* none ready: mapped here, as without the pool */
}

void trak__fpool_stop(trak_fpool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_signal(&p->want);
  pthread_mutex_unlock(&p->mu);
  pthread_join(p->thread, NULL);
  for (size_t i = 0; i < p->n; i++)
    munmap(p->ready[i], p->size);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->want);
  free(p);
}
