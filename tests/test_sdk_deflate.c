/*
** The SDK's zlib compressor (src/sdk/deflate.c) checked against zlib's inflate: edge cases,
** random and repetitive data, long inputs; and a compressed session whose compressed_packets
** inflate back into a trace with every event.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "processor/read/trace_file.h"
#include "sdk/internal.h"
#include "sdk_decode.h"

static void round_trip(const uint8_t *in, size_t n) {
  trak_pb_buf z;
  trak_pb_buf_init_heap(&z);
  assert_int_equal(trak__zlib_compress(in, n, &z), 0);
  uint8_t *back = NULL;
  size_t back_len = 0;
  trak_error err;
  if (trak__gunzip(z.start, trak_pb_buf_len(&z), 1, SIZE_MAX, &back, &back_len, &err) != 0)
    fail_msg("inflate: %s (input %zu bytes)", err.message, n);
  assert_int_equal(back_len, n);
  if (n) assert_memory_equal(back, in, n);
  free(back);
  trak_pb_buf_free(&z);
}

static void test_round_trips(void **state) {
  static uint8_t buf[300000];
  round_trip(buf, 0);
  buf[0] = 'x';
  round_trip(buf, 1);
  round_trip((const uint8_t *)"abcabcabcabcabcabcabc", 21);
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < sizeof buf; i++) { /* random bytes: literals of every value */
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    buf[i] = (uint8_t)x;
  }
  round_trip(buf, sizeof buf);
  for (size_t i = 0; i < sizeof buf; i++)
    buf[i] = (uint8_t)(i % 7 == 0 ? x >> (i % 50) : 'a');
  round_trip(buf, sizeof buf); /* long matches, all distances up to the window */
  memset(buf, 0, sizeof buf);
  round_trip(buf, sizeof buf); /* maximal matches */
  for (size_t i = 0; i < sizeof buf; i++)
    buf[i] = (uint8_t)((i * 2654435761u) >> 13);
  round_trip(buf, 70000);
}

TRAK_CATEGORY_DEFINE(cat_z, "z", "compressed");

static void test_compressed_session(void **state) {
  trak_session_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.compress = 1;
  cfg.buffer_size_kb = 8192;
  trak_session *s;
  assert_int_equal(trak_session_new(&cfg, &s, NULL), 0);
  assert_int_equal(trak_session_start(s, NULL), 0);
  enum { N = 50000 };
  for (int i = 0; i < N; i++) {
    TRAK_EVENT(cat_z, "repeated");
  }
  assert_int_equal(trak_session_stop(s, NULL), 0);
  uint8_t *data;
  size_t len;
  assert_int_equal(trak_session_read(s, &data, &len, NULL), 0);
  trak_session_free(s);
  /* The trace_stats packet that ends the trace is written after the compressed batches. */
  assert_true(dec_cut_trace_stats(data, &len));
  /* Inflate every compressed_packets field and decode the result. */
  trak_pb_buf plain;
  trak_pb_buf_init_heap(&plain);
  trak_pb_decoder d, p;
  trak_pb_field f, g;
  int batches = 0;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    assert_int_equal(trak_pb_decoder_init_nested(&p, &d, &f), 0);
    while (trak_pb_decoder_next(&p, &g) == 1) {
      assert_int_equal(g.number, TRAK_PB_TracePacket_compressed_packets);
      uint8_t *out;
      size_t out_len;
      assert_int_equal(trak__gunzip(g.data, g.len, 1, SIZE_MAX, &out, &out_len, NULL), 0);
      trak_pb_put_raw(&plain, out, out_len);
      free(out);
      batches++;
    }
  }
  assert_true(batches >= 2); /* split at packet boundaries */
  dec_trace t;
  memset(&t, 0, sizeof t);
  assert_int_equal(dec_trace_decode(&t, plain.start, trak_pb_buf_len(&plain)), 0);
  if (t.errors) fail_msg("%s", t.error_text);
  assert_int_equal(dec_count(&t, 1, "repeated"), N);
  assert_int_equal(dec_count(&t, 2, NULL), N);
  assert_true(len * 3 < trak_pb_buf_len(&plain)); /* it does compress */
  printf("compressed %zu -> %zu bytes: %.2f bytes per event\n", trak_pb_buf_len(&plain), len,
         (double)len / (2.0 * N));
  dec_trace_free(&t);
  trak_pb_buf_free(&plain);
  free(data);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trips),
      cmocka_unit_test(test_compressed_session),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
