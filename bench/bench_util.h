/*
** Helpers shared by the benchmark programs: monotonic wall-clock and process CPU-time readings and a comparison for
** sorting samples to take their median.
*/
#ifndef TRAK_BENCH_UTIL_H
#define TRAK_BENCH_UTIL_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in seconds / nanoseconds. */
static inline double bench_now_sec(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static inline uint64_t bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time of the process (user + system, every thread) in seconds: what a query costs on a
** loaded machine, where wall time also counts the waits for a core. */
static inline double bench_process_cpu_sec(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* qsort comparison of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#endif /* TRAK_BENCH_UTIL_H */
