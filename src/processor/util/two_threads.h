/*
** Two threads for one job (two_threads.c): a function run on two halves of its work at once,
** one half on the caller's thread and one on a thread started for it, where the caller has a
** second core; and a function run beside the caller on a thread of its own until joined.
*/
#ifndef TRAK_PROCESSOR_UTIL_TWO_THREADS_H
#define TRAK_PROCESSOR_UTIL_TWO_THREADS_H

#include <pthread.h>
#include <stddef.h>

/* The threads for a job of `work` units that one of `threads` (1 or 2) does alone below `min`
** units (a thread's start costs more): 2 when threads > 1 and work >= min, or at any size with
** TRAK_SPLIT_ALWAYS=1 in the environment (the tests' way to run the split on small traces). */
int trak__split_threads(int threads, size_t work, size_t min);

/* Runs fn(a) here and fn(b) on another thread when `threads` > 1 (both here, a first, when it is
** 1 or the thread cannot start); returns once both ran. */
void trak__run_both(void *(*fn)(void *), void *a, void *b, int threads);

/* A function running beside the caller (trak__beside_start), or run at the join. */
typedef struct trak_beside {
  pthread_t thread;
  void *(*fn)(void *);
  void *arg;
  int started; /* on a thread of its own; 0: it runs in trak__beside_join */
} trak_beside;

/* Starts fn(arg) on a thread of its own when `threads` > 1; otherwise (or when the thread cannot
** start) it runs in trak__beside_join. Can't fail. */
void trak__beside_start(trak_beside *b, void *(*fn)(void *), void *arg, int threads);
/* Returns once fn(arg) has run. */
void trak__beside_join(trak_beside *b);

#endif /* TRAK_PROCESSOR_UTIL_TWO_THREADS_H */
