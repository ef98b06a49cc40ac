/*
** This file runs a job on two threads (two_threads.h): two halves at once, or one function beside
** the caller's own work. Without a second thread (asked for one, or pthread_create refused) the
** same functions run on the caller's thread, in the order a serial run would take.
*/
#include "processor/util/two_threads.h"

#include <stdlib.h>

int trak__split_threads(int threads, size_t work, size_t min) {
  if (threads < 2) return 1;
  const char *env = getenv("TRAK_SPLIT_ALWAYS");
  if (env && env[0] == '1' && !env[1]) return 2;
  return work >= min ? 2 : 1;
}

void trak__run_both(void *(*fn)(void *), void *a, void *b, int threads) {
  pthread_t th;
  int spawned = threads > 1 && !pthread_create(&th, NULL, fn, b);
  fn(a);
  if (spawned)
    pthread_join(th, NULL);
  else
    fn(b);
}

void trak__beside_start(trak_beside *b, void *(*fn)(void *), void *arg, int threads) {
  b->fn = fn, b->arg = arg;
  b->started = threads > 1 && !pthread_create(&b->thread, NULL, fn, arg);
}

void trak__beside_join(trak_beside *b) {
  if (b->started)
    pthread_join(b->thread, NULL);
  else
    b->fn(b->arg);
  b->started = 0;
}
