/*
** This file counts the newlines of the JSON input the reader steps past (json_import.c keeps the
** line of every byte for its error positions): 128 bytes at a time with AVX2 when the CPU has it
** (chosen once, at run time), 16 with SSE2 on other x86-64 machines, memchr elsewhere; all give
** the same answer, which test_json_scan checks.
*/
#include <stdint.h>
#include <string.h>

#include "processor/import/json/json.h"

/* The newlines of [p + from, p + n), byte positions from p. */
static size_t newlines_from(const char *p, size_t from, size_t n, size_t *last) {
  const char *s = p + from, *end = p + n;
  size_t lines = 0;
  while ((s = memchr(s, '\n', (size_t)(end - s)))) {
    lines++;
    *last = (size_t)(s++ - p);
  }
  return lines;
}

size_t trak__json_newlines_scalar(const char *p, size_t n, size_t *last) {
  return newlines_from(p, 0, n, last);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* A block's newline mask: counted and its last one kept only when it has any (about one line
** an event, so most blocks have none). */
#define TRAK_NEWLINE_MASK(m, at)                                                                   \
  do {                                                                                             \
    if (m) {                                                                                       \
      lines += (size_t)__builtin_popcount(m);                                                      \
      *last = (at) + 31 - (size_t)__builtin_clz(m);                                                \
    }                                                                                              \
  } while (0)

size_t trak__json_newlines_sse2(const char *p, size_t n, size_t *last) {
  const __m128i nl = _mm_set1_epi8('\n');
  size_t lines = 0, i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
    unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, nl));
    TRAK_NEWLINE_MASK(m, i);
  }
  return lines + newlines_from(p, i, n, last);
}

/* The position of the last newline of [p, p + n) (n a multiple of 32, at least one newline in
** it), found from the end back. */
__attribute__((target("avx2,popcnt"))) static size_t last_newline_avx2(const char *p, size_t n) {
  const __m256i nl = _mm256_set1_epi8('\n');
  for (;;) {
    n -= 32;
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(p + n));
    unsigned m = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, nl));
    if (m) return n + 31 - (size_t)__builtin_clz(m);
  }
}

__attribute__((target("avx2,popcnt"))) size_t trak__json_newlines_avx2(const char *p, size_t n,
                                                                      size_t *last) {
  const __m256i nl = _mm256_set1_epi8('\n'), zero = _mm256_setzero_si256();
  size_t lines = 0, rest = 0, i = 0;
  /* Four blocks a step, counted only (without a test: most steps hold a line's end) in byte
  ** counters: a compare's match is -1, subtracted; each of the two counters takes two blocks a
  ** step, so 127 steps at most before they are summed (vpsadbw) into the 64-bit total. The last
  ** newline is looked for afterwards, from the end back. */
  __m256i total = zero;
  while (n - i >= 128) {
    size_t steps = (n - i) / 128;
    if (steps > 127) steps = 127;
    __m256i a = zero, b = zero;
    for (const char *q = p + i, *stop = q + 128 * steps; q < stop; q += 128) {
      const __m256i *v = (const __m256i *)(const void *)q;
      a = _mm256_sub_epi8(a, _mm256_cmpeq_epi8(_mm256_loadu_si256(v), nl));
      b = _mm256_sub_epi8(b, _mm256_cmpeq_epi8(_mm256_loadu_si256(v + 1), nl));
      a = _mm256_sub_epi8(a, _mm256_cmpeq_epi8(_mm256_loadu_si256(v + 2), nl));
      b = _mm256_sub_epi8(b, _mm256_cmpeq_epi8(_mm256_loadu_si256(v + 3), nl));
    }
    total = _mm256_add_epi64(total,
                             _mm256_add_epi64(_mm256_sad_epu8(a, zero), _mm256_sad_epu8(b, zero)));
    i += 128 * steps;
  }
  lines = (size_t)_mm256_extract_epi64(total, 0) + (size_t)_mm256_extract_epi64(total, 1) +
          (size_t)_mm256_extract_epi64(total, 2) + (size_t)_mm256_extract_epi64(total, 3);
  size_t blocks = i;
  for (; i + 32 <= n; i += 32) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(p + i));
    unsigned m = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, nl));
    if (m) {
      rest += (size_t)__builtin_popcount(m);
      *last = i + 31 - (size_t)__builtin_clz(m);
    }
  }
  rest += newlines_from(p, i, n, last);
  if (lines && !rest) *last = last_newline_avx2(p, blocks);
  return lines + rest;
}

static size_t newlines_first(const char *p, size_t n, size_t *last);
/* The counter this CPU runs: chosen at the first call. */
static size_t (*newlines_impl)(const char *, size_t, size_t *) = newlines_first;

static size_t newlines_first(const char *p, size_t n, size_t *last) {
  __builtin_cpu_init();
  /* One pointer-sized store; threads that race here store the same value. */
  __atomic_store_n(&newlines_impl,
                   __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt")
                       ? trak__json_newlines_avx2
                                                  : trak__json_newlines_sse2,
                   __ATOMIC_RELAXED);
  return newlines_impl(p, n, last);
}

size_t trak__json_newlines(const char *p, size_t n, size_t *last) {
  return __atomic_load_n(&newlines_impl, __ATOMIC_RELAXED)(p, n, last);
}
#else
size_t trak__json_newlines(const char *p, size_t n, size_t *last) {
  return newlines_from(p, 0, n, last);
}
#endif
