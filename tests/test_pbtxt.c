/*
** Tests of the protobuf text format (include/trak/pbtxt.h): every syntax form it accepts, the
** error positions it reports, unknown fields, byte-identical round trips of the seed examples,
** and a seeded random-message round trip over the whole schema.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb/schema.h"
#include "testutil.h"
#include "trak/pbtxt.h"
#include "trak/protos.h"

static const char *const SEEDS[] = {"01_thread_slices",
                                    "02_process_slices",
                                    "03_custom_tracks",
                                    "04_order_lexicographic",
                                    "05_order_chronological",
                                    "06_order_explicit",
                                    "07_flows",
                                    "08_counters",
                                    "09_interning"};

/* text -> binary -> text -> binary must give the same bytes both times. */
static void assert_round_trip(const char *message, const void *bin, size_t len) {
  char *text = tu_binary_to_pbtxt(message, bin, len);
  trak_pb_buf again;
  tu_pbtxt_to_binary(message, text, &again);
  assert_int_equal(trak_pb_buf_len(&again), len);
  assert_memory_equal(again.start, bin, len);
  trak_pb_buf_free(&again);
  free(text);
}

static void test_seed_examples_round_trip(void **state) {
  for (size_t i = 0; i < sizeof SEEDS / sizeof *SEEDS; i++) {
    char rel[128];
    snprintf(rel, sizeof rel, "tests/data/seed/%s.pbtxt", SEEDS[i]);
    char *text = tu_read_file(tu_source_path(rel), NULL);
    trak_pb_buf bin;
    tu_pbtxt_to_binary("Trace", text, &bin);
    assert_true(trak_pb_buf_len(&bin) > 0);
    assert_round_trip("Trace", bin.start, trak_pb_buf_len(&bin));
    trak_pb_buf_free(&bin);
    free(text);
  }
}

/* Finds the first field `number` in a message and returns it; fails if absent. */
static trak_pb_field find(const trak_pb_buf *buf, uint32_t number) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_pb_decoder_init(&dec, buf->start, trak_pb_buf_len(buf));
  while (trak_pb_decoder_next(&dec, &f) == 1)
    if (f.number == number) return f;
  fail_msg("field %u not found", number);
  return f;
}

static size_t count(const trak_pb_buf *buf, uint32_t number) {
  trak_pb_decoder dec;
  trak_pb_field f;
  size_t n = 0;
  trak_pb_decoder_init(&dec, buf->start, trak_pb_buf_len(buf));
  while (trak_pb_decoder_next(&dec, &f) == 1)
    n += f.number == number;
  return n;
}

static void test_scalar_syntax(void **state) {
  trak_pb_buf b;
  tu_pbtxt_to_binary("TrackEvent",
                     "# a comment\n"
                     "type: 2  # enum by number\n"
                     "track_uuid: 0x10;\n"
                     "counter_value: -42,\n"
                     "name: 'single \\'quoted\\''\n"
                     "categories: \"a\\tb\" \"-joined\"\n"
                     "categories: \"\\x41\\101\\u00e9\\n\"\n"
                     "extra_counter_values: [1, -2, 017]\n"
                     "extra_double_counter_values: [1.5e3, -inf, .25, 2f]\n"
                     "flow_ids: []\n",
                     &b);
  assert_int_equal(find(&b, TRAK_PB_TrackEvent_type).value, TRAK_PB_TrackEvent_TYPE_SLICE_END);
  assert_int_equal(find(&b, TRAK_PB_TrackEvent_track_uuid).value, 16);
  trak_pb_field cv = find(&b, TRAK_PB_TrackEvent_counter_value);
  assert_true(trak_pb_as_int64(&cv) == -42);
  trak_pb_field name = find(&b, TRAK_PB_TrackEvent_name);
  assert_int_equal(name.len, strlen("single 'quoted'"));
  assert_memory_equal(name.data, "single 'quoted'", name.len);
  trak_pb_field cat = find(&b, TRAK_PB_TrackEvent_categories);
  assert_memory_equal(cat.data, "a\tb-joined", cat.len);
  assert_int_equal(count(&b, TRAK_PB_TrackEvent_categories), 2);
  assert_int_equal(count(&b, TRAK_PB_TrackEvent_extra_counter_values), 3);
  assert_int_equal(count(&b, TRAK_PB_TrackEvent_extra_double_counter_values), 4);
  assert_int_equal(count(&b, TRAK_PB_TrackEvent_flow_ids), 0);

  char *text = tu_binary_to_pbtxt("TrackEvent", b.start, trak_pb_buf_len(&b));
  assert_non_null(strstr(text, "type: TYPE_SLICE_END\n"));
  assert_non_null(strstr(text, "categories: \"AA\xc3\xa9\\n\"\n"));
  assert_non_null(strstr(text, "extra_counter_values: -2\n"));
  assert_non_null(strstr(text, "extra_counter_values: 15\n"));
  assert_non_null(strstr(text, "extra_double_counter_values: 1500\n"));
  assert_non_null(strstr(text, "extra_double_counter_values: -inf\n"));
  assert_non_null(strstr(text, "extra_double_counter_values: 0.25\n"));
  free(text);
  assert_round_trip("TrackEvent", b.start, trak_pb_buf_len(&b));
  trak_pb_buf_free(&b);
}

static void test_message_syntax(void **state) {
  /* Messages with and without ':', angle brackets, lists of messages, bool spellings. */
  trak_pb_buf a, b;
  tu_pbtxt_to_binary("Trace",
                     "packet { track_descriptor: { uuid: 1 } }\n"
                     "packet < first_packet_on_sequence: t >\n"
                     "packet: [{ timestamp: 5 }, { previous_packet_dropped: True }]",
                     &a);
  tu_pbtxt_to_binary("Trace",
                     "packet { track_descriptor { uuid: 1 } }\n"
                     "packet { first_packet_on_sequence: true }\n"
                     "packet { timestamp: 5 } packet { previous_packet_dropped: true }",
                     &b);
  assert_int_equal(trak_pb_buf_len(&a), trak_pb_buf_len(&b));
  assert_memory_equal(a.start, b.start, trak_pb_buf_len(&a));
  assert_int_equal(count(&a, TRAK_PB_Trace_packet), 4);
  trak_pb_buf_free(&a);
  trak_pb_buf_free(&b);

  /* Full and short message names both resolve; an unknown one is ENOTFOUND. */
  trak_pb_buf out;
  trak_error err;
  trak_pb_buf_init_heap(&out);
  assert_int_equal(
      trak_pbtxt_parse("perfetto.protos.TraceConfig", "duration_ms: 5", 14, &out, &err), 0);
  assert_int_equal(trak_pbtxt_parse("NoSuchMessage", "", 0, &out, &err), TRAK_ENOTFOUND);
  assert_non_null(strstr(err.message, "NoSuchMessage"));
  trak_pb_buf_free(&out);
}

static void test_trace_config_text(void **state) {
  trak_pb_buf b;
  tu_pbtxt_to_binary("TraceConfig",
                     "buffers { size_kb: 1024 fill_policy: RING_BUFFER }\n"
                     "data_sources { config { name: \"track_event\"\n"
                     "  track_event_config { enabled_categories: [\"rendering\", \"net*\"]\n"
                     "                       disabled_categories: \"*\" }\n"
                     "  interceptor_config { name: \"console\" } } }\n"
                     "duration_ms: 1000\n",
                     &b);
  trak_pb_field buffers = find(&b, TRAK_PB_TraceConfig_buffers);
  assert_true(buffers.len > 0);
  assert_int_equal(find(&b, TRAK_PB_TraceConfig_duration_ms).value, 1000);
  assert_round_trip("TraceConfig", b.start, trak_pb_buf_len(&b));
  trak_pb_buf_free(&b);
}

/* Parsing `text` as `message` must fail with a message containing every one of `parts`. */
static void expect_parse_error(const char *message, const char *text, const char *part1,
                               const char *part2) {
  trak_pb_buf out;
  trak_error err = {0};
  trak_pb_buf_init_heap(&out);
  int rc = trak_pbtxt_parse(message, text, strlen(text), &out, &err);
  trak_pb_buf_free(&out);
  assert_int_equal(rc, TRAK_EFORMAT);
  if (!strstr(err.message, part1) || (part2 && !strstr(err.message, part2)))
    fail_msg("error '%s' lacks '%s' / '%s'", err.message, part1, part2 ? part2 : "");
}

static void test_errors_have_positions(void **state) {
  expect_parse_error("Trace", "packet {\n  bogus: 1\n}", "line 2, column 3", "'bogus'");
  expect_parse_error("Trace", "packet { track_event { type: TYPE_NOPE } }", "column 30",
                     "no value with this name");
  expect_parse_error("Trace", "packet {\n track_event { name: \"abc\n} }", "line 2, column 22",
                     "unterminated string");
  expect_parse_error("Trace", "packet {", "expected '}'", "end of input");
  expect_parse_error("Trace", "packet { timestamp: -5 }", "out of range", NULL);
  expect_parse_error("TrackDescriptor", "sibling_order_rank: 2147483648", "out of range", NULL);
  /* ...while the extremes themselves are accepted. */
  trak_pb_buf b;
  tu_pbtxt_to_binary("TrackDescriptor",
                     "sibling_order_rank: -2147483648 uuid: 18446744073709551615", &b);
  trak_pb_field rank = find(&b, TRAK_PB_TrackDescriptor_sibling_order_rank);
  assert_int_equal(trak_pb_as_int32(&rank), INT32_MIN);
  assert_true(find(&b, TRAK_PB_TrackDescriptor_uuid).value == UINT64_MAX);
  trak_pb_buf_free(&b);
}

static void test_more_errors(void **state) {
  expect_parse_error("TrackDescriptor", "uuid: 1 uuid: 2", "given twice", "'uuid'");
  expect_parse_error("TrackDescriptor", "uuid: [1, 2]", "not repeated", NULL);
  expect_parse_error("TrackDescriptor", "name: \"a\\qb\"", "invalid escape", NULL);
  expect_parse_error("TrackDescriptor", "uuid 5", "expected ':'", NULL);
  expect_parse_error("TrackDescriptor", "uuid: 1.5", "expected an integer", NULL);
  expect_parse_error("TrackDescriptor", "name: 5", "expected a string", NULL);
  expect_parse_error("TrackDescriptor", "process 5", "expected '{'", NULL);
  expect_parse_error("TrackDescriptor", "[ext.field]: 1", "not supported", NULL);
  expect_parse_error("TrackDescriptor", "uuid: 1 }", "expected a field name", NULL);
  expect_parse_error("TrackDescriptor", "uuid: @", "unexpected character", "'@'");
  expect_parse_error("TrackDescriptor", "0: 1", "invalid field number", NULL);
  expect_parse_error("TracePacket", "first_packet_on_sequence: maybe", "true or false", NULL);
  expect_parse_error("TrackEvent", "double_counter_value: abc", "expected a number", NULL);
  expect_parse_error("TrackEvent", "extra_counter_values: [1 2]", "','", NULL);

  /* Deep nesting is refused with an error, not a stack overflow. */
  size_t depth = 5000;
  char *deep = malloc(depth * 4 + 1);
  for (size_t i = 0; i < depth; i++)
    memcpy(deep + i * 4, "1 { ", 4);
  deep[depth * 4] = 0;
  expect_parse_error("Trace", deep, "nested too deeply", NULL);
  free(deep);
}

static void test_unknown_fields_by_number(void **state) {
  trak_pb_buf b;
  tu_pbtxt_to_binary("TracePacket",
                     "timestamp: 7\n"
                     "9999: 12\n"
                     "9998: -1\n"
                     "9997: 0x0000000000000010\n"
                     "9996: 0x00000020\n"
                     "9995: \"raw\\001bytes\"\n"
                     "9994 { 1: 2 }\n",
                     &b);
  trak_pb_field f = find(&b, 9997);
  assert_int_equal(f.wire_type, TRAK_PB_WIRE_FIXED64);
  assert_int_equal(f.value, 16);
  f = find(&b, 9996);
  assert_int_equal(f.wire_type, TRAK_PB_WIRE_FIXED32);
  f = find(&b, 9998);
  assert_true(f.value == UINT64_MAX);
  char *text = tu_binary_to_pbtxt("TracePacket", b.start, trak_pb_buf_len(&b));
  assert_non_null(strstr(text, "9999: 12\n"));
  assert_non_null(strstr(text, "9997: 0x0000000000000010\n"));
  assert_non_null(strstr(text, "9996: 0x00000020\n"));
  assert_non_null(strstr(text, "9995: \"raw\\001bytes\"\n"));
  free(text);
  assert_round_trip("TracePacket", b.start, trak_pb_buf_len(&b));
  trak_pb_buf_free(&b);

  /* A known field with the wrong wire type prints by number instead of misreading it. */
  const uint8_t wrong[] = {0x40 | TRAK_PB_WIRE_LEN, 0x01, 'x'}; /* timestamp(8) as LEN */
  text = tu_binary_to_pbtxt("TracePacket", wrong, sizeof wrong);
  assert_string_equal(text, "8: \"x\"\n");
  free(text);
}

static void test_packed_input_on_unpacked_field_prints_by_number(void **state) {
  /* Perfetto's repeated scalars are unpacked; packed bytes print raw so nothing changes. */
  trak_pb_buf b;
  const uint64_t v[] = {3, 4};
  trak_pb_buf_init_heap(&b);
  trak_pb_put_packed_varint(&b, TRAK_PB_TrackEvent_extra_counter_values, v, 2);
  char *text = tu_binary_to_pbtxt("TrackEvent", b.start, trak_pb_buf_len(&b));
  char expect[64];
  snprintf(expect, sizeof expect, "%d: \"\\003\\004\"\n", TRAK_PB_TrackEvent_extra_counter_values);
  assert_string_equal(text, expect);
  free(text);
  assert_round_trip("TrackEvent", b.start, trak_pb_buf_len(&b));
  trak_pb_buf_free(&b);
}

static void test_values_that_names_would_lose_print_by_number(void **state) {
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  trak_pb_put_varint(&b, TRAK_PB_TracePacket_sequence_flags, 1ull << 40);  /* > uint32 */
  trak_pb_put_varint(&b, TRAK_PB_TracePacket_first_packet_on_sequence, 2); /* bool 2 */
  trak_pb_put_fixed64(&b, TRAK_PB_TracePacket_timestamp, 5);               /* wire type */
  char *text = tu_binary_to_pbtxt("TracePacket", b.start, trak_pb_buf_len(&b));
  assert_null(strstr(text, "sequence_flags"));
  assert_null(strstr(text, "first_packet_on_sequence"));
  assert_null(strstr(text, "timestamp"));
  free(text);
  assert_round_trip("TracePacket", b.start, trak_pb_buf_len(&b));
  trak_pb_buf_free(&b);

  /* A NaN with a payload keeps its bits; the plain one prints as nan. */
  trak_pb_buf_init_heap(&b);
  trak_pb_put_fixed64(&b, TRAK_PB_TrackEvent_double_counter_value, 0x7ff8000000000001ull);
  trak_pb_put_double(&b, TRAK_PB_TrackEvent_extra_double_counter_values, NAN);
  text = tu_binary_to_pbtxt("TrackEvent", b.start, trak_pb_buf_len(&b));
  assert_null(strstr(text, "double_counter_value: nan"));
  assert_non_null(strstr(text, "extra_double_counter_values: nan"));
  free(text);
  assert_round_trip("TrackEvent", b.start, trak_pb_buf_len(&b));
  trak_pb_buf_free(&b);
}

static void test_malformed_binary_prints_prefix_then_fails(void **state) {
  trak_pb_buf b;
  tu_pbtxt_to_binary("Trace", "packet { timestamp: 1 } packet { timestamp: 2 }", &b);
  size_t good = trak_pb_buf_len(&b);
  trak_pb_put_raw(&b, "\x0a\x7f", 2); /* a third packet whose length runs past the end */
  trak_pb_buf text;
  trak_error err = {0};
  trak_pb_buf_init_heap(&text);
  assert_int_equal(trak_pbtxt_print("Trace", b.start, trak_pb_buf_len(&b), &text, &err),
                   TRAK_EFORMAT);
  char expect[64];
  snprintf(expect, sizeof expect, "at byte %zu", good + 1);
  assert_non_null(strstr(err.message, expect));
  trak_pb_put_raw(&text, "", 1);
  assert_non_null(strstr((char *)text.start, "timestamp: 2"));
  trak_pb_buf_free(&text);
  trak_pb_buf_free(&b);
}

/* ---- seeded random messages over the whole schema ---- */

static uint64_t rng_state;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static uint64_t random_scalar_bits(const trak_pb_field_desc *fd) {
  uint64_t r = rnd();
  switch (fd->type) {
  case TRAK_PB_TYPE_BOOL:
    return r & 1;
  case TRAK_PB_TYPE_ENUM: {
    const trak_pb_enum_desc *e = trak__schema_field_enum(fd);
    return (uint64_t)(int64_t)e->values[r % e->n_values].number;
  }
  case TRAK_PB_TYPE_INT32:
    return (uint64_t)(int64_t)(int32_t)r;
  case TRAK_PB_TYPE_UINT32:
  case TRAK_PB_TYPE_FIXED32:
  case TRAK_PB_TYPE_SFIXED32:
    return r & 0xffffffffu;
  case TRAK_PB_TYPE_SINT32:
    return trak_pb_zigzag32((int32_t)r);
  case TRAK_PB_TYPE_SINT64:
    return trak_pb_zigzag64((int64_t)r);
  case TRAK_PB_TYPE_DOUBLE: {
    double d = (double)(int64_t)r / (double)((r >> 50) + 1);
    memcpy(&r, &d, 8);
    return r;
  }
  case TRAK_PB_TYPE_FLOAT: {
    float f = (float)(int32_t)r / 1024.0f;
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
  }
  default:
    return r >> (r % 64);
  }
}

/* Canonical encodings (minimal lengths), as the parser writes them. */
static void random_message(trak_pb_buf *out, const trak_pb_message_desc *msg, int depth) {
  for (uint32_t i = 0; i < msg->n_fields; i++) {
    const trak_pb_field_desc *fd = &msg->fields[i];
    if (rnd() % 4) continue;
    if (fd->type == TRAK_PB_TYPE_MESSAGE && depth >= 3) continue;
    int n = fd->repeated ? 1 + (int)(rnd() % 3) : 1;
    for (int k = 0; k < n; k++) {
      if (fd->type == TRAK_PB_TYPE_MESSAGE) {
        trak_pb_nested t = trak_pb_begin_nested_short(out, fd->number);
        random_message(out, trak__schema_field_message(fd), depth + 1);
        trak_pb_end_nested_short(out, t);
      } else if (fd->type == TRAK_PB_TYPE_STRING || fd->type == TRAK_PB_TYPE_BYTES) {
        char s[24];
        size_t len = rnd() % sizeof s;
        for (size_t j = 0; j < len; j++)
          s[j] = (char)rnd();
        trak_pb_put_bytes(out, fd->number, s, len);
      } else {
        uint64_t bits = random_scalar_bits(fd);
        uint32_t wt = trak__schema_wire_type(fd->type);
        if (wt == TRAK_PB_WIRE_FIXED64)
          trak_pb_put_fixed64(out, fd->number, bits);
        else if (wt == TRAK_PB_WIRE_FIXED32)
          trak_pb_put_fixed32(out, fd->number, (uint32_t)bits);
        else
          trak_pb_put_varint(out, fd->number, bits);
      }
    }
  }
  if (rnd() % 8 == 0) trak_pb_put_varint(out, 100000 + (uint32_t)(rnd() % 1000), rnd());
}

static void test_random_messages_round_trip(void **state) {
  static const char *const roots[] = {"Trace",      "TracePacket",     "TraceConfig",
                                      "TrackEvent", "DebugAnnotation", "InternedData"};
  rng_state = 0x9e3779b97f4a7c15ull;
  for (int iter = 0; iter < 600; iter++) {
    const char *root = roots[iter % (sizeof roots / sizeof *roots)];
    trak_pb_buf b;
    trak_pb_buf_init_heap(&b);
    random_message(&b, trak__schema_message(root), 0);
    assert_int_equal(b.error, 0);
    assert_round_trip(root, b.start, trak_pb_buf_len(&b));
    trak_pb_buf_free(&b);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_seed_examples_round_trip),
      cmocka_unit_test(test_scalar_syntax),
      cmocka_unit_test(test_message_syntax),
      cmocka_unit_test(test_trace_config_text),
      cmocka_unit_test(test_errors_have_positions),
      cmocka_unit_test(test_more_errors),
      cmocka_unit_test(test_unknown_fields_by_number),
      cmocka_unit_test(test_packed_input_on_unpacked_field_prints_by_number),
      cmocka_unit_test(test_values_that_names_would_lose_print_by_number),
      cmocka_unit_test(test_malformed_binary_prints_prefix_then_fails),
      cmocka_unit_test(test_random_messages_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
