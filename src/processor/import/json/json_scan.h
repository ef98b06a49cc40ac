/*
** This file holds the JSON tokenizer's inline scanners: strings (their end found 16 or 8 bytes
** at a time), numbers (up to 8 integer digits converted at once) and one object member, shared
** by json_tokenizer.c and the event reader's loop (json_import.c), which reads every member of
** every event without a call.
*/
#ifndef TRAK_PROCESSOR_JSON_SCAN_H
#define TRAK_PROCESSOR_JSON_SCAN_H

#include <string.h>

#include "processor/import/json/json.h"
#include "trak/pb.h" /* TRAK_LIKELY */

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the JSON scanners read words as little-endian"
#endif

/* Sets the cursor's error: where, why. */
__attribute__((cold, noinline)) void trak__json_set_error(trak_json_cur *c, const char *at,
                                                          const char *msg);
/* Sets the error and returns TRAK_JSON_ERROR (inline, so callers see a failure is nonzero). */
static inline int trak__json_fail(trak_json_cur *c, const char *at, const char *msg) {
  trak__json_set_error(c, at, msg);
  return TRAK_JSON_ERROR;
}
/* The end of the buffer was reached inside a value: more input may complete it
** (TRAK_JSON_MORE), unless the input is final (an error saying `what`). */
static inline int trak__json_more(trak_json_cur *c, const char *what) {
  return c->final ? trak__json_fail(c, c->end, what) : TRAK_JSON_MORE;
}
/* A value of any kind at c->p at nesting `depth` (trak__json_value is depth 0). */
int trak__json_value_at(trak_json_cur *c, trak_json_value *v, int depth);

/* The first byte of [p, end) that is '"' or '\\' (end if none), eight bytes at a time. */
static inline const char *trak__json_plain_words(const char *p, const char *end) {
  const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  while (end - p >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    /* The lowest flagged byte is exact (borrows only flag bytes above a true match). */
    uint64_t hit = ((q - ones) & ~q & highs) | ((b - ones) & ~b & highs);
    if (hit) return p + (__builtin_ctzll(hit) >> 3);
    p += 8;
  }
  while (p < end && *p != '"' && *p != '\\')
    p++;
  return p;
}

#if defined(__SSE2__)
#include <emmintrin.h>
/* As trak__json_plain_words, sixteen bytes at a time (SSE2, baseline on x86-64). */
static inline const char *trak__json_plain_run(const char *p, const char *end) {
  const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    unsigned m =
        (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, b)));
    if (m) return p + __builtin_ctz(m);
    p += 16;
  }
  return trak__json_plain_words(p, end);
}
/* The bitmask of the 16 bytes at p (all readable) that are '"' or '\\': bit i for p[i]. */
static inline unsigned trak__json_special16(const char *p) {
  __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
  return (unsigned)_mm_movemask_epi8(
      _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
}
#else
static inline const char *trak__json_plain_run(const char *p, const char *end) {
  return trak__json_plain_words(p, end);
}
/* As the SSE2 one, a byte at a time. */
static inline unsigned trak__json_special16(const char *p) {
  unsigned m = 0;
  for (unsigned i = 0; i < 16; i++)
    m |= (unsigned)(p[i] == '"' || p[i] == '\\') << i;
  return m;
}
#endif

/* As trak__json_plain_run, with 16 bytes or more known to be readable at p (end - p >= 16): the
** first 16 are tested without a test of the bytes left, so a string ending in them (the common
** one) returns a position below end. */
static inline const char *trak__json_plain_run16(const char *p, const char *end) {
  unsigned m = trak__json_special16(p);
  if (TRAK_LIKELY(m)) return p + __builtin_ctz(m);
  return trak__json_plain_run(p + 16, end);
}

/* A string from its opening quote at c->p: v spans the bytes between the quotes. */
static inline __attribute__((always_inline)) int trak__json_string_at(trak_json_cur *c,
                                                                      trak_json_value *v) {
  const char *p = c->p + 1, *end = c->end;
  v->kind = TRAK_JSON_STRING;
  v->escaped = 0;
  v->s = p;
  for (;;) {
    p = trak__json_plain_run(p, end);
    if (p >= end) return trak__json_more(c, "unterminated string");
    if (*p == '"') break;
    v->escaped = 1;
    if (end - p < 2) return trak__json_more(c, "unterminated string");
    p += 2;
  }
  v->len = (uint32_t)(p - v->s);
  c->p = p + 1;
  return TRAK_JSON_OK;
}

/* How many of the bytes of word w (8 bytes, little-endian) lead with decimal digits (0-8). */
static inline unsigned trak__json_digit_count8(uint64_t w) {
  /* A byte is a digit when its high nibble is 3 and adding 6 keeps it 3; a carry out of a
  ** byte of 0xfa or more only changes bytes above that non-digit. */
  uint64_t x =
      ((w & 0xf0f0f0f0f0f0f0f0ULL) | (((w + 0x0606060606060606ULL) & 0xf0f0f0f0f0f0f0f0ULL) >> 4)) ^
      0x3333333333333333ULL;
  uint64_t bad =
      (((x & 0x7f7f7f7f7f7f7f7fULL) + 0x7f7f7f7f7f7f7f7fULL) | x) & 0x8080808080808080ULL;
  return bad ? (unsigned)__builtin_ctzll(bad) >> 3 : 8;
}

/* The value of the 8 decimal digits that are the bytes of v (each 0 to 9), the first (the most
** significant) in the low byte: pairs, fours and the two halves joined, each step one multiply
** (a lane times 1 + 10^k shifted by the lane's half: its high part plus 10^k times its low part,
** which stays within the lane: 99, 9999, 99999999). */
static inline uint64_t trak__json_digits_value8(uint64_t v) {
  v = ((v * (1 + (10 << 8))) >> 8) & 0x00ff00ff00ff00ffULL;
  v = ((v * (1 + (100 << 16))) >> 16) & 0x0000ffff0000ffffULL;
  return (v * (1 + (10000ULL << 32))) >> 32;
}
/* As trak__json_digits_value8 for 4 digits in a 32-bit word. */
static inline uint32_t trak__json_digits_value4(uint32_t x) {
  x = ((x * (1 + (10 << 8))) >> 8) & 0x00ff00ffu;
  return (x * (1 + (100 << 16))) >> 16;
}

/* How many of the 8 bytes at p lead with decimal digits (0-8); their value goes to *value
** when there is one or more. */
static inline unsigned trak__json_digits8(const char *p, uint64_t *value) {
  uint64_t w;
  memcpy(&w, p, 8);
  unsigned n = trak__json_digit_count8(w);
  if (!n) return 0;
  /* The digits moved to the top bytes (leading zeros below) */
  *value = trak__json_digits_value8((w & 0x0f0f0f0f0f0f0f0fULL) << (64 - 8 * n));
  return n;
}

/* Steps over decimal digits (8 at a time while 8 bytes are left); returns 0 if there was
** none. */
static inline int trak__json_digits(const char **pp, const char *end) {
  const char *p = *pp;
  unsigned k = 8;
  while (k == 8 && end - p >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    p += k = trak__json_digit_count8(w);
  }
  if (k == 8)
    while (p < end && *p >= '0' && *p <= '9')
      p++;
  int n = p != *pp;
  *pp = p;
  return n;
}

#if defined(__SSE2__) && defined(__x86_64__)
#define TRAK_JSON_NUMBER_BLOCK 1
/* The common number at p (with at least 17 bytes from p on) read in one 16-byte block: an
** optional '-', 1 to 8 integer digits and an optional fraction, ended inside the block by a
** byte that is no digit, '.', 'e' or 'E'. Sets v as trak__json_number_at does and returns the
** end of the number; NULL (v untouched) for any other number (more digits, an exponent, a cut
** or bad one), which the byte-wise path then reads. */
static inline __attribute__((always_inline)) const char *trak__json_number_span(const char *p,
                                                                              trak_json_value *v) {
  const char *q = p;
  if (TRAK_UNLIKELY(*q == '-')) q++;
  __m128i d = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)q), _mm_set1_epi8('0'));
  /* bit i: q[i] is a digit (its byte less '0' is at most 9, unsigned) */
  unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d));
  unsigned n = (unsigned)__builtin_ctz(~m); /* integer digits: at most 16 */
  if (n - 1 >= 8) return NULL;              /* none, or more than 8 */
  /* The digits' values moved to the top bytes (as trak__json_digits8); up to 4 digits in one
  ** 32-bit word, one step less. */
  uint64_t u = n <= 4 ? trak__json_digits_value4((uint32_t)_mm_cvtsi128_si32(d) << (32 - 8 * n))
                      : trak__json_digits_value8((uint64_t)_mm_cvtsi128_si64(d) << (64 - 8 * n));
  const char *r = q + n;
  uint8_t is_float = 0;
  if (*r == '.') {
    unsigned f = (unsigned)__builtin_ctz(~(m >> (n + 1))); /* fraction digits */
    if (!f || n + 1 + f >= 16) return NULL; /* none (bad), or they may go on past the block */
    r += 1 + f, is_float = 1;
  }
  if ((*r | 0x20) == 'e') return NULL; /* an exponent */
  v->kind = TRAK_JSON_NUMBER;
  v->s = p;
  v->is_float = is_float;
  v->ival = u;
  v->int_digits = (uint8_t)n;
  v->len = (uint32_t)(r - p);
  return r;
}
#else
#define TRAK_JSON_NUMBER_BLOCK 0
static inline const char *trak__json_number_span(const char *p, trak_json_value *v) {
  (void)p, (void)v;
  return NULL;
}
#endif

/* A number from its first byte at c->p ('-' or a digit), with its integer digits' value
** read on the way: timestamps, pids and tids need no second pass over their text. The common
** number is read in one block (trak__json_number_span), the others byte-wise. */
static inline __attribute__((always_inline)) int trak__json_number_at(trak_json_cur *c,
                                                                      trak_json_value *v) {
  const char *r;
  if (TRAK_LIKELY(c->end - c->p >= 17) && (r = trak__json_number_span(c->p, v))) {
    c->p = r;
    return TRAK_JSON_OK;
  }
  const char *p = c->p, *end = c->end;
  v->kind = TRAK_JSON_NUMBER;
  v->s = p;
  v->is_float = 0;
  if (*p == '-') p++;
  const char *first = p;
  uint64_t u = 0;
  unsigned n = 8;
  if (end - p >= 8) p += n = trak__json_digits8(p, &u);
  if (n == 8) /* more digits, or too few bytes left for a word; wraps as the value is unused */
    while (p < end && (unsigned)(*p - '0') < 10)
      u = u * 10 + (uint64_t)(*p++ - '0');
  if (p == first)
    return p >= end ? trak__json_more(c, "number cut short") : trak__json_fail(c, p, "bad number");
  v->ival = u;
  v->int_digits = p - first > 19 ? 255 : (uint8_t)(p - first);
  if (p < end && *p == '.') {
    p++, v->is_float = 1;
    if (!trak__json_digits(&p, end))
      return p >= end ? trak__json_more(c, "number cut short")
                      : trak__json_fail(c, p, "bad number");
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    p++, v->is_float |= 2;
    if (p < end && (*p == '+' || *p == '-')) p++;
    if (!trak__json_digits(&p, end))
      return p >= end ? trak__json_more(c, "number cut short")
                      : trak__json_fail(c, p, "bad number");
  }
  if (p >= end && !c->final) return TRAK_JSON_MORE; /* more digits may follow */
  v->len = (uint32_t)(p - v->s);
  c->p = p;
  return TRAK_JSON_OK;
}

/* A value at c->p (after whitespace) at nesting `depth`: strings and numbers inline, other
** values through trak__json_value_at. */
static inline __attribute__((always_inline)) int
trak__json_value_fast(trak_json_cur *c, trak_json_value *v, int depth) {
  int ch = trak__json_peek(c);
  if (ch == '"') return trak__json_string_at(c, v);
  if (ch == '-' || (ch >= '0' && ch <= '9')) return trak__json_number_at(c, v);
  return trak__json_value_at(c, v, depth);
}

/* An object member's key at c->p (after whitespace; `ch` is trak__json_peek's byte there): a
** string and ':'. */
static inline __attribute__((always_inline)) int trak__json_key_ch(trak_json_cur *c, int ch,
                                                                   trak_json_value *key) {
  int rc;
  if (ch < 0) return trak__json_more(c, "unexpected end");
  if (ch != '"') return trak__json_fail(c, c->p, "expected a string key");
  if ((rc = trak__json_string_at(c, key))) return rc;
  ch = trak__json_peek(c);
  if (ch < 0) return trak__json_more(c, "unexpected end");
  if (ch != ':') return trak__json_fail(c, c->p, "expected ':' after a key");
  c->p++;
  return TRAK_JSON_OK;
}

/* One object member at c->p (after whitespace): a string key, ':' and its value
** (trak__json_value_fast). */
static inline __attribute__((always_inline)) int
trak__json_member_at(trak_json_cur *c, trak_json_value *key, trak_json_value *val) {
  int rc = trak__json_key_ch(c, trak__json_peek(c), key);
  return rc ? rc : trak__json_value_fast(c, val, 1);
}

#endif /* TRAK_PROCESSOR_JSON_SCAN_H */
