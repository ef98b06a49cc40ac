/*
** Tests of the JSON tokenizer's word-at-a-time scanners (json_scan.h) against plain byte loops
** and the C library: numbers of random shape at random places in a buffer (the 8-digit step and
** the byte loop, cut by the buffer's end or not) give the digits' value, their count and
** strtod's double to the bit; strings find their closing quote past quotes and backslashes at
** any of the 16 positions of a block; the plain-run scanners stop where a byte loop stops; the
** newline counters' variants count as a byte loop.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "processor/import/json/json_scan.h"
#include "testutil.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static uint64_t next_rand(void) {
  return tu_xorshift(&rng);
}

/* Writes a random JSON number (or, now and then, a malformed one) at `out`; returns its length. */
static size_t random_number(char *out) {
  size_t n = 0;
  uint64_t r = next_rand();
  if (r & 1) out[n++] = '-';
  unsigned ints = 1 + (unsigned)(r >> 8) % (r & 0x10000 ? 22 : 10);
  for (unsigned i = 0; i < ints; i++)
    out[n++] = (char)('0' + next_rand() % 10);
  if ((r >> 20) % 3 == 0) {
    out[n++] = '.';
    unsigned frac = (unsigned)(r >> 24) % 12;
    for (unsigned i = 0; i < frac; i++) /* none: a malformed fraction */
      out[n++] = (char)('0' + next_rand() % 10);
  }
  if ((r >> 30) % 9 == 0) {
    out[n++] = r & 0x100000000ULL ? 'e' : 'E';
    if ((r >> 33) % 3) out[n++] = (r >> 35) & 1 ? '-' : '+';
    unsigned exp = 1 + (unsigned)(r >> 36) % 3;
    for (unsigned i = 0; i < exp; i++)
      out[n++] = (char)('0' + next_rand() % 10);
  }
  return n;
}

/* A byte that ends a number (or a stray one that makes the next number step fail). */
static char random_after(void) {
  static const char after[] = ",}] \n:x\"/9\xff\xfa";
  return after[next_rand() % (sizeof after - 1)];
}

/* The reference's fraction or exponent digits from `d` (past the '.', 'e' and sign): *pp set
** past them; none is cut at the buffer's end (*cut), bad elsewhere (*bad). */
static void ref_digits(const char **pp, const char *d, const char *end, int *cut, int *bad) {
  const char *p = d;
  while (p < end && *p >= '0' && *p <= '9')
    p++;
  if (p == d) *(p == end ? cut : bad) = 1;
  *pp = p;
}

/* Numbers read by trak__json_number_at, placed so that 0-31 bytes follow them in the buffer
** (with 17 or more from the number's start on, the common number is read in one 16-byte block,
** trak__json_number_span; with fewer, or another number, byte-wise): the integer digits' count
** and value as a byte loop reads them, the span, the fraction and exponent flags, the kind of
** ending, and trak__json_real_of and trak__json_int_of against strtod and strtoll. */
static void numbers_as_byte_loops(void **state) {
  (void)state;
  char buf[96];
  for (unsigned it = 0; it < 2000000; it++) {
    size_t len = random_number(buf);
    size_t tail = next_rand() % 32;
    for (size_t i = 0; i < tail; i++)
      buf[len + i] = i ? (char)next_rand() : random_after();
    int final = (int)(next_rand() & 1);
    trak_json_cur c = {buf, buf + len + tail, final, NULL, NULL};
    trak_json_value v = {0};
    int rc = trak__json_number_at(&c, &v);

    /* The reference: a byte loop over the same bytes. */
    const char *p = buf + (buf[0] == '-'), *first = p, *end = buf + len + tail;
    uint64_t u = 0;
    while (p < end && *p >= '0' && *p <= '9')
      u = u * 10 + (uint64_t)(*p++ - '0');
    size_t ints = (size_t)(p - first);
    int cut = 0, bad = 0, is_float = 0;
    if (p < end && *p == '.') ref_digits(&p, p + 1, end, &cut, &bad), is_float = 1;
    if (!cut && !bad && p < end && (*p == 'e' || *p == 'E')) {
      ref_digits(&p, p + 1 + (p + 1 < end && (p[1] == '+' || p[1] == '-')), end, &cut, &bad);
      is_float |= 2;
    }
    if (!cut && !bad && p == end && !final) cut = 1;
    if (bad)
      assert_int_equal(rc, TRAK_JSON_ERROR);
    else if (cut)
      assert_int_equal(rc, final ? TRAK_JSON_ERROR : TRAK_JSON_MORE);
    if (bad || cut) continue;
    assert_int_equal(rc, TRAK_JSON_OK);
    assert_ptr_equal(c.p, p);
    assert_int_equal(v.len, (size_t)(p - buf));
    assert_int_equal(v.int_digits, ints > 19 ? 255 : ints);
    assert_int_equal(v.is_float, is_float);
    assert_int_equal(v.kind, TRAK_JSON_NUMBER);
    assert_ptr_equal(v.s, buf);
    if (ints <= 19) assert_true(v.ival == u);

    char text[64];
    memcpy(text, buf, v.len);
    text[v.len] = 0;
    double want = strtod(text, NULL), got = trak__json_real_of(&v);
    if (memcmp(&want, &got, sizeof got))
      fail_msg("%s read as %.17g, strtod %.17g", text, got, want);
    if (!v.is_float && ints <= 18) {
      int64_t i;
      assert_int_equal(trak__json_int_of(&v, &i), 1);
      assert_true(i == strtoll(text, NULL, 10));
    }
  }
}

/* Strings whose quotes and backslashes fall anywhere in a 16-byte block and its tail: the end
** and the escape flag are a byte loop's. */
static void strings_as_byte_loops(void **state) {
  (void)state;
  char buf[96];
  for (unsigned it = 0; it < 1000000; it++) {
    size_t len = 1 + next_rand() % 80;
    buf[0] = '"';
    for (size_t i = 1; i < len; i++) {
      uint64_t r = next_rand();
      buf[i] = r % 23 == 0 ? '\\' : r % 31 == 0 ? '"' : (char)(r >> 8 | 1);
    }
    int final = (int)(next_rand() & 1);
    trak_json_cur c = {buf, buf + len, final, NULL, NULL};
    trak_json_value v = {0};
    int rc = trak__json_string_at(&c, &v);

    const char *p = buf + 1, *end = buf + len;
    int escaped = 0, done = 0;
    while (p < end) {
      if (*p == '"') {
        done = 1;
        break;
      }
      if (*p == '\\') {
        escaped = 1;
        if (end - p < 2) break;
        p += 2;
        continue;
      }
      p++;
    }
    if (!done) {
      assert_int_equal(rc, final ? TRAK_JSON_ERROR : TRAK_JSON_MORE);
      continue;
    }
    assert_int_equal(rc, TRAK_JSON_OK);
    assert_int_equal(v.escaped, escaped);
    assert_int_equal(v.len, (size_t)(p - buf - 1));
    assert_ptr_equal(c.p, p + 1);
  }
}

/* The digit-lane converters: every 4-digit word, and 8-digit words of random values and of
** the extremes (all nines, all zeros, one digit set in each place). */
static void digit_values(void **state) {
  (void)state;
  for (uint32_t v = 0; v < 10000; v++) {
    uint32_t x = 0;
    for (unsigned i = 0, t = v; i < 4; i++, t /= 10)
      x |= (t % 10) << (8 * (3 - i)); /* the most significant digit in the low byte */
    assert_int_equal(trak__json_digits_value4(x), v);
  }
  for (unsigned it = 0; it < 1000000 + 80; it++) {
    uint64_t v = it < 80 ? (it < 8 ? 99999999ULL : 0) : next_rand() % 100000000ULL;
    if (it >= 8 && it < 80) { /* digit it % 8 set to (it / 8) % 10 */
      uint64_t place = 1;
      for (unsigned k = 0; k < it % 8; k++)
        place *= 10;
      v = place * ((it / 8) % 10);
    }
    uint64_t w = 0, t = v;
    for (unsigned i = 0; i < 8; i++, t /= 10)
      w |= (t % 10) << (8 * (7 - i));
    assert_int_equal(trak__json_digits_value8(w), v);
  }
}

/* The first '"' or '\\' of [p, end) found by a byte loop (end if none). */
static const char *special_loop(const char *p, const char *end) {
  while (p < end && *p != '"' && *p != '\\')
    p++;
  return p;
}

/* The plain-run scanners (words, SSE2 blocks, and the block read unchecked when 16 bytes are
** known to be there) against a byte loop: buffers of exactly their length on the heap (so a read
** past the end is ASan's), with no special byte, one at random places, or one at the last byte
** of a 16-byte block, its first, the one after it and the buffer's last; every start. */
static void plain_runs_as_byte_loop(void **state) {
  (void)state;
  for (unsigned it = 0; it < 20000; it++) {
    size_t len = 1 + next_rand() % 100;
    char *buf = malloc(len);
    assert_non_null(buf);
    for (size_t i = 0; i < len; i++)
      buf[i] = (char)(next_rand() >> 8 | 1);
    for (size_t i = 0; i < len; i++)
      if (buf[i] == '"' || buf[i] == '\\') buf[i] = 'x';
    unsigned kind = it % 6;
    char special = next_rand() & 1 ? '"' : '\\';
    if (kind == 1) /* a few at random */
      for (unsigned k = 0; k < 3; k++)
        buf[next_rand() % len] = special;
    else if (kind >= 2) {
      size_t at = kind == 2 ? 15 : kind == 3 ? 16 : kind == 4 ? 17 : len - 1;
      if (at < len) buf[at] = special;
    }
    const char *end = buf + len;
    for (const char *p = buf; p <= end; p++) {
      const char *want = special_loop(p, end);
      assert_ptr_equal(trak__json_plain_words(p, end), want);
      assert_ptr_equal(trak__json_plain_run(p, end), want);
      if (end - p >= 16) {
        assert_ptr_equal(trak__json_plain_run16(p, end), want);
        unsigned m = 0;
        for (unsigned i = 0; i < 16; i++)
          m |= (unsigned)(p[i] == '"' || p[i] == '\\') << i;
        assert_int_equal(trak__json_special16(p), m);
      }
    }
    free(buf);
  }
}

/* Every 8-byte word of digits and one other byte at each position: the digits' count and value. */
static void digit_words(void **state) {
  (void)state;
  for (unsigned stop = 0; stop <= 8; stop++)
    for (unsigned other = 0; other < 256; other++) {
      if (other >= '0' && other <= '9') continue;
      char w[8];
      uint64_t want = 0;
      for (unsigned i = 0; i < 8; i++) {
        w[i] = i == stop ? (char)other : (char)('0' + (i * 7 + other) % 10);
        if (i < stop) want = want * 10 + (uint64_t)(w[i] - '0');
      }
      uint64_t got = 0;
      unsigned n = trak__json_digits8(w, &got);
      assert_int_equal(n, stop);
      if (n) assert_true(got == want);
    }
}

/* The count and last position of the newlines of [p, p + n) from every variant this CPU runs,
** against a byte loop's. */
static void newlines_check(const char *p, size_t n) {
  size_t want_last = 999, want = 0;
  for (size_t i = 0; i < n; i++)
    if (p[i] == '\n') want++, want_last = i;
  size_t last = 999;
  assert_int_equal(trak__json_newlines(p, n, &last), want);
  assert_int_equal(last, want_last);
  last = 999;
  assert_int_equal(trak__json_newlines_scalar(p, n, &last), want);
  assert_int_equal(last, want_last);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  last = 999;
  assert_int_equal(trak__json_newlines_sse2(p, n, &last), want);
  assert_int_equal(last, want_last);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt")) {
    last = 999;
    assert_int_equal(trak__json_newlines_avx2(p, n, &last), want);
    assert_int_equal(last, want_last);
  }
#endif
}

/* The newline counters (json_lines.c): a byte loop's count and last position from every variant
** this CPU runs, on buffers of 0 to 300 bytes at every alignment with newlines at random places,
** at the ends of 16-, 32- and 64-byte blocks, none, every byte, or just one anywhere (the AVX2
** variant looks for the last one from the end back when the tail has none). A variant that
** skips a block or its tail, or keeps a block's first newline for its last, fails. */
static void newlines_as_byte_loop(void **state) {
  (void)state;
  char buf[372];
  for (unsigned it = 0; it < 240000; it++) {
    size_t off = it % 64, n = next_rand() % 301, at = next_rand() % 64;
    unsigned shape = (unsigned)(it / 64 % 6);
    if (shape == 5) at = n ? next_rand() % n : 0;
    char *p = buf + off;
    for (size_t i = 0; i < n; i++) {
      uint64_t r = next_rand();
      p[i] = shape == 0   ? (r % 7 == 0 ? '\n' : (char)(r >> 8 | 1))
             : shape == 1 ? 'x'
             : shape == 2 ? '\n'
             : shape == 3 ? ((i + 1) % 16 == 0 || i % 32 == 0 || (i + 1) % 64 == 0 ? '\n' : 'y')
             : shape == 4 ? (i == at || i + 1 == n ? '\n' : '"')
                          : (i == at ? '\n' : 'z');
    }
    newlines_check(p, n);
  }
}

/* The newline counters on long buffers (up to 70,000 bytes: several rounds of the AVX2 variant's
** byte counters, 127 steps of 128 bytes each): newlines at every byte (each counter byte then
** reaches 254), at random, none, only in the first bytes (the last one found from the end back
** over the whole buffer) or only in the tail; every variant against a byte loop. */
static void newlines_long_buffers(void **state) {
  (void)state;
  size_t cap = 70000 + 64;
  char *buf = malloc(cap);
  assert_non_null(buf);
  for (unsigned it = 0; it < 300; it++) {
    size_t off = it % 64, n = it < 10 ? 16256 * (it + 1) / 2 + it : next_rand() % 70001;
    if (n + off > cap) n = cap - off;
    unsigned shape = it % 5;
    char *p = buf + off;
    for (size_t i = 0; i < n; i++) {
      uint64_t r = next_rand();
      p[i] = shape == 0   ? '\n'
             : shape == 1 ? (r % 5 == 0 ? '\n' : 'a')
             : shape == 2 ? 'b'
             : shape == 3 ? (i < 3 ? '\n' : 'c')
                          : (i + 40 >= n && r % 3 == 0 ? '\n' : 'd');
    }
    newlines_check(p, n);
  }
  free(buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(numbers_as_byte_loops),
      cmocka_unit_test(strings_as_byte_loops),
      cmocka_unit_test(plain_runs_as_byte_loop),
      cmocka_unit_test(digit_values),
      cmocka_unit_test(digit_words),
      cmocka_unit_test(newlines_as_byte_loop),
      cmocka_unit_test(newlines_long_buffers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
