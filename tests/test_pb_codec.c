/*
** Unit tests of the protobuf wire codec (include/trak/pb.h): every scalar wire type, nested
** messages both ways of reserving their length, packed fields, buffer limits, and every kind of
** malformed input the decoder must reject with an offset and a reason.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Decodes exactly one field from bytes and returns it (asserting success). */
static trak_pb_field one_field(const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_pb_decoder_init(&dec, data, len);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 0);
  trak_pb_decoder_init(&dec, data, len);
  trak_pb_decoder_next(&dec, &f);
  return f;
}

static void test_varint_boundaries(void **state) {
  static const uint64_t values[] = {
      0, 1, 127, 128, 16383, 16384, (1ull << 32) - 1, 1ull << 32, 1ull << 63, UINT64_MAX};
  for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
    uint8_t mem[32];
    trak_pb_buf buf;
    trak_pb_buf_init_fixed(&buf, mem, sizeof mem);
    trak_pb_put_varint(&buf, 1, values[i]);
    assert_int_equal(buf.error, 0);
    assert_int_equal(trak_pb_buf_len(&buf), 1 + trak_pb_varint_size(values[i]));
    trak_pb_field f = one_field(mem, trak_pb_buf_len(&buf));
    assert_int_equal(f.number, 1);
    assert_int_equal(f.wire_type, TRAK_PB_WIRE_VARINT);
    assert_true(f.value == values[i]);
  }
  assert_int_equal(trak_pb_varint_size(UINT64_MAX), 10);
  assert_int_equal(trak_pb_varint_size(127), 1);
  assert_int_equal(trak_pb_varint_size(128), 2);
}

static void test_signed_and_fixed_scalars(void **state) {
  uint8_t mem[256];
  trak_pb_buf buf;
  trak_pb_buf_init_fixed(&buf, mem, sizeof mem);
  trak_pb_put_int32(&buf, 1, -1);
  size_t int32_len = trak_pb_buf_len(&buf);
  assert_int_equal(int32_len, 11); /* negative int32 is a ten-byte varint */
  trak_pb_put_sint32(&buf, 2, -3);
  trak_pb_put_sint64(&buf, 3, INT64_MIN);
  trak_pb_put_fixed32(&buf, 4, 0xdeadbeef);
  trak_pb_put_fixed64(&buf, 5, 0x0102030405060708ull);
  trak_pb_put_double(&buf, 6, -2.5);
  trak_pb_put_float(&buf, 7, 0.25f);
  trak_pb_put_bool(&buf, 8, 42);
  trak_pb_put_string(&buf, 9, "hello");
  trak_pb_put_bytes(&buf, 10, "\0\1", 2);
  trak_pb_put_int64(&buf, 200000, -7);
  assert_int_equal(buf.error, 0);

  trak_pb_decoder dec;
  trak_pb_field f;
  trak_pb_decoder_init(&dec, mem, trak_pb_buf_len(&buf));
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_int_equal(trak_pb_as_int32(&f), -1);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_int_equal(trak_pb_as_sint32(&f), -3);
  assert_int_equal(f.value, 5); /* zigzag(-3) */
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_true(trak_pb_as_sint64(&f) == INT64_MIN);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_int_equal(f.wire_type, TRAK_PB_WIRE_FIXED32);
  assert_int_equal(trak_pb_as_uint32(&f), 0xdeadbeef);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_int_equal(f.wire_type, TRAK_PB_WIRE_FIXED64);
  assert_true(f.value == 0x0102030405060708ull);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_true(trak_pb_as_double(&f) == -2.5);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_true(trak_pb_as_float(&f) == 0.25f);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_int_equal(f.value, 1);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_int_equal(f.len, 5);
  assert_memory_equal(f.data, "hello", 5);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_int_equal(f.len, 2);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_int_equal(f.number, 200000);
  assert_true(trak_pb_as_int64(&f) == -7);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 0);
}

static void test_nested_fixed_width_length(void **state) {
  trak_pb_buf buf;
  trak_pb_buf_init_heap(&buf);
  trak_pb_nested outer = trak_pb_begin_nested(&buf, 1);
  trak_pb_put_varint(&buf, 2, 300);
  trak_pb_nested inner = trak_pb_begin_nested(&buf, 3);
  trak_pb_put_string(&buf, 4, "x");
  trak_pb_end_nested(&buf, inner);
  trak_pb_end_nested(&buf, outer);
  assert_int_equal(buf.error, 0);
  /* tag, 4 length bytes (redundant varint), then the body */
  assert_int_equal(buf.start[0], 0x0a);
  assert_int_equal(buf.start[1] & 0x80, 0x80);
  assert_int_equal(buf.start[4] & 0x80, 0);

  trak_pb_decoder dec, child, grandchild;
  trak_pb_field f;
  trak_pb_decoder_init(&dec, buf.start, trak_pb_buf_len(&buf));
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_int_equal(f.len, trak_pb_buf_len(&buf) - 5);
  assert_int_equal(trak_pb_decoder_init_nested(&child, &dec, &f), 0);
  assert_int_equal(trak_pb_decoder_next(&child, &f), 1);
  assert_int_equal(f.value, 300);
  assert_int_equal(trak_pb_decoder_next(&child, &f), 1);
  assert_int_equal(trak_pb_decoder_init_nested(&grandchild, &child, &f), 0);
  assert_int_equal(trak_pb_decoder_next(&grandchild, &f), 1);
  assert_memory_equal(f.data, "x", 1);
  assert_int_equal(trak_pb_decoder_next(&grandchild, &f), 0);
  assert_int_equal(trak_pb_decoder_next(&child, &f), 0);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 0);
  trak_pb_buf_free(&buf);
}

static void check_short_nested(size_t body_len) {
  trak_pb_buf buf;
  trak_pb_buf_init_heap(&buf);
  char *body = malloc(body_len + 1);
  memset(body, 'a', body_len);
  body[body_len] = 0;
  trak_pb_put_varint(&buf, 1, 9);
  trak_pb_nested token = trak_pb_begin_nested_short(&buf, 2);
  trak_pb_put_bytes(&buf, 3, body, body_len);
  trak_pb_end_nested_short(&buf, token);
  trak_pb_put_varint(&buf, 4, 10);
  assert_int_equal(buf.error, 0);
  size_t inner = 1 + trak_pb_varint_size(body_len) + body_len;
  /* The length takes exactly as many bytes as its varint needs. */
  assert_int_equal(trak_pb_buf_len(&buf), 2 + 1 + trak_pb_varint_size(inner) + inner + 2);

  trak_pb_decoder dec, child;
  trak_pb_field f;
  trak_pb_decoder_init(&dec, buf.start, trak_pb_buf_len(&buf));
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_int_equal(f.len, inner);
  trak_pb_decoder_init_nested(&child, &dec, &f);
  assert_int_equal(trak_pb_decoder_next(&child, &f), 1);
  assert_int_equal(f.len, body_len);
  assert_memory_equal(f.data, body, body_len);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_int_equal(f.value, 10);
  free(body);
  trak_pb_buf_free(&buf);
}

static void test_nested_short_length(void **state) {
  check_short_nested(0);
  check_short_nested(100);   /* still one length byte */
  check_short_nested(126);   /* body 128: needs two bytes, shifted once */
  check_short_nested(20000); /* three bytes */
}

static void test_fixed_buffer_overflow_is_sticky(void **state) {
  uint8_t mem[16];
  memset(mem, 0xee, sizeof mem);
  trak_pb_buf buf;
  trak_pb_buf_init_fixed(&buf, mem, 8);
  trak_pb_put_varint(&buf, 1, 1); /* 2 bytes: fits, but ensure() wants 15 */
  assert_int_equal(buf.error, TRAK_ENOSPC);
  trak_pb_put_string(&buf, 2, "more");
  assert_int_equal(buf.error, TRAK_ENOSPC);
  assert_int_equal(mem[8], 0xee); /* nothing written past the end */
  assert_int_equal(trak_pb_buf_len(&buf), 0);
}

static void test_heap_buffer_grows(void **state) {
  trak_pb_buf buf;
  trak_pb_buf_init_heap(&buf);
  for (int i = 0; i < 100000; i++)
    trak_pb_put_varint(&buf, 1, (uint64_t)i);
  assert_int_equal(buf.error, 0);
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_pb_decoder_init(&dec, buf.start, trak_pb_buf_len(&buf));
  for (int i = 0; i < 100000; i++) {
    assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
    assert_int_equal(f.value, (uint64_t)i);
  }
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 0);
  size_t len;
  uint8_t *bytes = trak_pb_buf_detach(&buf, &len);
  assert_true(len > 100000);
  free(bytes);
  assert_int_equal(trak_pb_buf_len(&buf), 0);
}

static void test_packed_fields(void **state) {
  const uint64_t v[] = {1, 300, UINT64_MAX};
  const uint32_t v32[] = {7, 0xffffffff};
  const double d[] = {1.5, -0.0};
  trak_pb_buf buf;
  trak_pb_buf_init_heap(&buf);
  trak_pb_put_packed_varint(&buf, 1, v, 3);
  trak_pb_put_packed_fixed64(&buf, 2, v, 3);
  trak_pb_put_packed_fixed32(&buf, 3, v32, 2);
  trak_pb_put_packed_double(&buf, 4, d, 2);
  assert_int_equal(buf.error, 0);

  trak_pb_decoder dec;
  trak_pb_field f;
  trak_pb_packed it;
  uint64_t x;
  trak_pb_decoder_init(&dec, buf.start, trak_pb_buf_len(&buf));
  static const uint32_t wire[] = {TRAK_PB_WIRE_VARINT, TRAK_PB_WIRE_FIXED64};
  for (int k = 0; k < 2; k++) {
    assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
    trak_pb_packed_init(&it, &f, wire[k]);
    for (int i = 0; i < 3; i++) {
      assert_int_equal(trak_pb_packed_next(&it, &x), 1);
      assert_true(x == v[i]);
    }
    assert_int_equal(trak_pb_packed_next(&it, &x), 0);
  }
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_int_equal(f.len, 8);
  trak_pb_packed_init(&it, &f, TRAK_PB_WIRE_FIXED32);
  assert_int_equal(trak_pb_packed_next(&it, &x), 1);
  assert_int_equal(x, 7);
  assert_int_equal(trak_pb_packed_next(&it, &x), 1);
  assert_int_equal(x, 0xffffffff);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  trak_pb_packed_init(&it, &f, TRAK_PB_WIRE_FIXED64);
  assert_int_equal(trak_pb_packed_next(&it, &x), 1);
  double got;
  memcpy(&got, &x, 8);
  assert_true(got == 1.5);
  trak_pb_buf_free(&buf);

  /* A packed payload cut inside an element is an error, not a silent end. */
  const uint8_t bad[] = {0x0a, 0x02, 0x96, 0x82};
  trak_pb_decoder_init(&dec, bad, sizeof bad);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  trak_pb_packed_init(&it, &f, TRAK_PB_WIRE_VARINT);
  assert_int_equal(trak_pb_packed_next(&it, &x), TRAK_EFORMAT);
}

/* Asserts that decoding `bytes` fails at `offset` with a reason containing `reason`. */
static void expect_malformed(const uint8_t *bytes, size_t len, size_t offset, const char *reason) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int rc;
  trak_pb_decoder_init(&dec, bytes, len);
  while ((rc = trak_pb_decoder_next(&dec, &f)) == 1) {
  }
  assert_int_equal(rc, TRAK_EFORMAT);
  assert_int_equal(dec.error_offset, offset);
  assert_non_null(strstr(dec.error_reason, reason));
  /* The error is sticky. */
  assert_int_equal(trak_pb_decoder_next(&dec, &f), TRAK_EFORMAT);
  trak_error err;
  assert_int_equal(trak_pb_decoder_error(&dec, &err), TRAK_EFORMAT);
  char expect[64];
  snprintf(expect, sizeof expect, "at byte %zu", offset);
  assert_non_null(strstr(err.message, expect));
}

static void test_malformed_inputs(void **state) {
  const uint8_t truncated_value[] = {0x08, 0x01, 0x10, 0x80};
  expect_malformed(truncated_value, sizeof truncated_value, 3, "truncated varint");
  const uint8_t truncated_tag[] = {0x08, 0x01, 0x80};
  expect_malformed(truncated_tag, sizeof truncated_tag, 2, "truncated varint");
  const uint8_t too_long[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
                              0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  expect_malformed(too_long, sizeof too_long, 1, "longer than 10 bytes");
  const uint8_t past_end[] = {0x0a, 0x05, 'a', 'b'};
  expect_malformed(past_end, sizeof past_end, 1, "past the end");
  const uint8_t wire6[] = {0x08, 0x00, 0x0e, 0x00};
  expect_malformed(wire6, sizeof wire6, 2, "invalid wire type");
  const uint8_t wire7[] = {0x0f};
  expect_malformed(wire7, sizeof wire7, 0, "invalid wire type");
  const uint8_t field0[] = {0x00, 0x01};
  expect_malformed(field0, sizeof field0, 0, "field number 0");
  const uint8_t field0_len[] = {0x02, 0x00};
  expect_malformed(field0_len, sizeof field0_len, 0, "field number 0");
  const uint8_t group_start[] = {0x0b, 0x0c};
  expect_malformed(group_start, sizeof group_start, 0, "group");
  const uint8_t group_end[] = {0x0c};
  expect_malformed(group_end, sizeof group_end, 0, "group");
  const uint8_t short_fixed64[] = {0x09, 1, 2, 3};
  expect_malformed(short_fixed64, sizeof short_fixed64, 1, "truncated fixed");
  const uint8_t short_fixed32[] = {0x0d, 1, 2};
  expect_malformed(short_fixed32, sizeof short_fixed32, 1, "truncated fixed");
  const uint8_t huge_field[] = {0xf8, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00};
  expect_malformed(huge_field, sizeof huge_field, 0, "field number");
}

static void test_nested_error_offsets_are_absolute(void **state) {
  /* field 1 { field 2 { <truncated varint> } } : the bad byte is at offset 5 */
  const uint8_t bytes[] = {0x0a, 0x04, 0x12, 0x02, 0x08, 0x80};
  trak_pb_decoder dec, child, grandchild;
  trak_pb_field f;
  trak_pb_decoder_init(&dec, bytes, sizeof bytes);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  trak_pb_decoder_init_nested(&child, &dec, &f);
  assert_int_equal(trak_pb_decoder_next(&child, &f), 1);
  trak_pb_decoder_init_nested(&grandchild, &child, &f);
  assert_int_equal(trak_pb_decoder_next(&grandchild, &f), TRAK_EFORMAT);
  assert_int_equal(grandchild.error_offset, 5);
}

static void test_nesting_depth_limit(void **state) {
  /* Build TRAK_PB_MAX_DEPTH + 2 levels of field 1 nesting. */
  trak_pb_buf buf;
  trak_pb_buf_init_heap(&buf);
  trak_pb_nested tokens[TRAK_PB_MAX_DEPTH + 2];
  for (int i = 0; i < TRAK_PB_MAX_DEPTH + 2; i++)
    tokens[i] = trak_pb_begin_nested(&buf, 1);
  trak_pb_put_varint(&buf, 2, 1);
  for (int i = TRAK_PB_MAX_DEPTH + 1; i >= 0; i--)
    trak_pb_end_nested(&buf, tokens[i]);

  trak_pb_decoder levels[TRAK_PB_MAX_DEPTH + 3];
  trak_pb_field f;
  trak_pb_decoder_init(&levels[0], buf.start, trak_pb_buf_len(&buf));
  int depth_error_at = -1;
  for (int i = 0; i < TRAK_PB_MAX_DEPTH + 2; i++) {
    assert_int_equal(trak_pb_decoder_next(&levels[i], &f), 1);
    if (trak_pb_decoder_init_nested(&levels[i + 1], &levels[i], &f)) {
      depth_error_at = i + 1;
      break;
    }
  }
  assert_int_equal(depth_error_at, TRAK_PB_MAX_DEPTH + 1);
  assert_non_null(strstr(levels[depth_error_at].error_reason, "nesting too deep"));
  assert_int_equal(trak_pb_decoder_next(&levels[depth_error_at], &f), TRAK_EFORMAT);
  trak_pb_buf_free(&buf);
}

static void test_nested_on_scalar_field_is_an_error(void **state) {
  const uint8_t bytes[] = {0x08, 0x01};
  trak_pb_decoder dec, child;
  trak_pb_field f;
  trak_pb_decoder_init(&dec, bytes, sizeof bytes);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 1);
  assert_int_equal(trak_pb_decoder_init_nested(&child, &dec, &f), TRAK_EFORMAT);
  assert_int_equal(trak_pb_decoder_next(&child, &f), TRAK_EFORMAT);
}

static void test_empty_input(void **state) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_pb_decoder_init(&dec, NULL, 0);
  assert_int_equal(trak_pb_decoder_next(&dec, &f), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_varint_boundaries),
      cmocka_unit_test(test_signed_and_fixed_scalars),
      cmocka_unit_test(test_nested_fixed_width_length),
      cmocka_unit_test(test_nested_short_length),
      cmocka_unit_test(test_fixed_buffer_overflow_is_sticky),
      cmocka_unit_test(test_heap_buffer_grows),
      cmocka_unit_test(test_packed_fields),
      cmocka_unit_test(test_malformed_inputs),
      cmocka_unit_test(test_nested_error_offsets_are_absolute),
      cmocka_unit_test(test_nesting_depth_limit),
      cmocka_unit_test(test_nested_on_scalar_field_is_an_error),
      cmocka_unit_test(test_empty_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
