/*
** The JSON importer's apply side (json_events.c, json_counters.c) reads what it can straight from
** the words and leaves the reader made: a short name's word loaded in one read equals the one
** made byte by byte and never reads outside its buffer (run under ASan); counter events read
** from their leaves import as those read from their args text (TRAK_JSON_KEY_MEMO=0: no leaves).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "processor/import/json/json_args.h"
#include "testutil.h"
#include "trak/processor.h"

/* The word of `len` bytes made one byte at a time: byte i in bits 8i..8i+7. */
static uint64_t bytewise(const unsigned char *s, size_t len) {
  uint64_t w = 0;
  for (size_t i = 0; i < len; i++)
    w |= (uint64_t)s[i] << (8 * i);
  return w;
}

/* trak__json_load_word against the bytewise word and trak__json_load_words, for every length
** 0..8 and every place of the string in a buffer allocated to its exact size (the string at its
** start, where the word must be read piece by piece, at its end, and between), `lo` the buffer's
** start: ASan sees any read outside it. */
static void test_load_word_is_load_words(void **state) {
  (void)state;
  unsigned seed = 20261202;
  for (size_t len = 0; len <= 8; len++)
    for (size_t before = 0; before <= 9; before++)
      for (size_t after = 0; after <= 2; after++)
        for (int round = 0; round < 8; round++) {
          size_t size = before + len + after;
          unsigned char *buf = malloc(size ? size : 1);
          assert_non_null(buf);
          for (size_t i = 0; i < size; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[i] = (unsigned char)(round == 0 ? 0xff : round == 1 ? 0 : seed >> 16);
          }
          const char *s = (const char *)buf + before;
          uint64_t w = trak__json_load_word(s, len, (const char *)buf);
          assert_int_equal(w, bytewise(buf + before, len));
          if (len) {
            uint64_t words[TRAK_JSON_CACHED_MAX / 8] = {0};
            trak__json_load_words(words, s, len);
            assert_int_equal(w, words[0]);
          }
          free(buf);
        }
}

/* Counter values in many spellings: numbers the leaves hold as INT or REAL, those they can't
** tell apart from the text (-0, integers past int64 read as their bits), strings, literals,
** nulls, objects and arrays. */
static const char *const values[] = {
    "1",     "-1",    "0",      "-0",        "0.0",   "-0.0",  "1.5",    "-1.5",    "1e3",
    "1E-3",  "-2e2",  "123456789012345678",  "-123456789012345678",     "9007199254740993",
    "12345678901234567890", "9223372036854775808", "99999999999999999999",
    "-9223372036854775809", "0.1234567890123456789", "-3.0",  "\"12\"", "\"1.5\"", "\"-0\"",
    "\"abc\"", "\"\"", "\"1\\u0030\"", "\"12 \"", "\" 5\"", "\"1e5\"", "true", "false", "null",
    "{}", "{\"a\":1}", "{\"a\":null}", "[1,2]", "\"{\"", "\"null\"", "1.25e-2", "-0e0"};
static const char *const keys[] = {"rss", "a", "value", "n", "null", "key-0", "x_y",
                                   "a_key_of_forty_bytes_that_is_too_long_ok",
                                   "k\\u0065y", "minus", "{"};
static const char *const names[] = {"\"name\":\"memory\",", "\"name\":\"\",", "",
                                    "\"name\":\"a counter of a longer name\",",
                                    "\"name\":\"n\",\"id\":5,", "\"name\":\"m\",\"id\":\"x1\","};

/* Writes a trace of `n` C events whose args hold 0-4 members of keys[] and values[] spelled
** with and without spaces, some duplicated, some events without args or with args that are
** no object; returns its path in `path`. */
static void counter_trace(char *path, int n, uint64_t seed) {
  tu_temp_file(path);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("[\n", f);
  for (int i = 0; i < n; i++) {
    uint64_t r = tu_xorshift(&seed);
    fprintf(f, "%s{\"ph\":\"C\",%s\"ts\":%d,\"pid\":%d,\"tid\":%d", i ? ",\n" : "",
            names[r % 6], 1000 + i, (int)(r >> 8) % 3, (int)(r >> 12) % 2);
    int members = (int)(r >> 16) % 5, spaced = (r >> 20) % 4 == 0;
    if ((r >> 24) % 29 == 0)
      fputs(",\"args\":5", f);
    else if ((r >> 24) % 31 != 0) {
      fputs(spaced ? ",\"args\": { " : ",\"args\":{", f);
      for (int m = 0; m < members; m++) {
        uint64_t q = tu_xorshift(&seed);
        const char *k = keys[q % (sizeof keys / sizeof *keys)];
        const char *v = values[(q >> 8) % (sizeof values / sizeof *values)];
        if ((q >> 16) % 3) v = values[(q >> 8) % 12]; /* mostly the plain numbers */
        if ((q >> 20) % 2) k = keys[q % 3];
        fprintf(f, spaced ? "%s\"%s\" : %s" : "%s\"%s\":%s", m ? (spaced ? " , " : ",") : "", k,
                v);
      }
      fputs(spaced ? " }" : "}", f);
    }
    fputs("}", f);
  }
  fputs("\n]\n", f);
  fclose(f);
}

/* Imports `path` with `threads` import threads, leaves on (memo NULL) or off ("0"), to `db`. */
static int export_as(const char *path, const char *threads, const char *memo, const char *db) {
  setenv("TRAK_IMPORT_THREADS", threads, 1);
  if (memo)
    setenv("TRAK_JSON_KEY_MEMO", memo, 1);
  else
    unsetenv("TRAK_JSON_KEY_MEMO");
  int rc = tu_import_export(path, db);
  unsetenv("TRAK_JSON_KEY_MEMO");
  unsetenv("TRAK_IMPORT_THREADS");
  return rc;
}

/* Counter traces of every spelling above import to the same tables and log with their leaves as
** from their text, with one import thread and with two. */
static void test_counters_from_leaves_alike(void **state) {
  (void)state;
  static const char *const threads[] = {"1", "2"};
  for (int t = 0; t < 2; t++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      char trace[] = "/tmp/trak_counters_XXXXXX", a[] = "/tmp/trak_counters_a_XXXXXX",
           b[] = "/tmp/trak_counters_b_XXXXXX";
      counter_trace(trace, 4000, seed * 0x9e3779b97f4a7c15ULL);
      tu_temp_file(a);
      tu_temp_file(b);
      int ra = export_as(trace, threads[t], NULL, a), rb = export_as(trace, threads[t], "0", b);
      assert_int_equal(ra, rb);
      tu_assert_same_file(a, b, "counters from leaves and from text");
      unlink(trace);
      unlink(a);
      unlink(b);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_load_word_is_load_words),
      cmocka_unit_test(test_counters_from_leaves_alike),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
