/*
** Wrapping and saturating int64 arithmetic: timestamps and durations come from untrusted
** input, so sums, differences and products of them wrap (as unsigned arithmetic does) or, where
** Perfetto saturates (the legacy microsecond timestamps), stop at INT64_MIN / INT64_MAX, instead
** of overflowing.
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

/* a + b, or INT64_MAX / INT64_MIN where it would overflow. */
static inline int64_t trak__sat_add(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? INT64_MAX : INT64_MIN;
}
/* a * b, or INT64_MAX / INT64_MIN where it would overflow. */
static inline int64_t trak__sat_mul(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

#endif /* TRAK_UTIL_WRAPPING_H */
