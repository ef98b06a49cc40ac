/*
** Wrapping int64 arithmetic: timestamps and durations come from untrusted input, so sums,
** differences and products of them wrap (as unsigned arithmetic does) instead of overflowing.
*/
#ifndef TRAK_UTIL_WRAPPING_H
#define TRAK_UTIL_WRAPPING_H

#include <stdint.h>

static inline int64_t trak__wadd(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}
static inline int64_t trak__wsub(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}
static inline int64_t trak__wmul(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a * (uint64_t)b);
}

#endif /* TRAK_UTIL_WRAPPING_H */
