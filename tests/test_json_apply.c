/*
** The JSON importer's apply side (json_events.c, json_counters.c) reads what it can straight from
** the words and leaves the reader made: a short name's word loaded in one read equals the one
** made byte by byte and never reads outside its buffer (run under ASan).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "processor/import/json/json_args.h"
#include "testutil.h"

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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_load_word_is_load_words),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
