/*
** Fields trak's schema lacks: a text trace skips them (with their whole value) and imports the
** rest, counting text_unknown_field and naming line:column through the diag callback; the text
** parser's lenient mode on its own; binary unknown fields counted in proto_unknown_field.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sqlcheck.h"
#include "trak/pb.h"
#include "trak/pbtxt.h"
#include "trak/processor.h"
#include "trak/protos.h"

/* ---- the parser's lenient mode ---- */

typedef struct skips {
  char text[1024]; /* "L:C what\n" per skipped name */
  int n;
} skips;

static void on_skip(void *user, int line, int column, const char *what) {
  skips *s = user;
  size_t used = strlen(s->text);
  snprintf(s->text + used, sizeof s->text - used, "%d:%d %s\n", line, column, what);
  s->n++;
}

/* Lenient parse of `text` must give the bytes of the strict parse of `same_without`. */
static void assert_skips_to(const char *text, const char *same_without, const char *want_skips) {
  trak_pb_buf got, want;
  trak_pb_buf_init_heap(&got);
  trak_pb_buf_init_heap(&want);
  trak_error err = {0};
  skips s = {{0}, 0};
  if (trak_pbtxt_parse_lenient("Trace", text, strlen(text), 1, 1, on_skip, &s, &got, &err))
    fail_msg("%s: %s", text, err.message);
  assert_int_equal(trak_pbtxt_parse("Trace", same_without, strlen(same_without), &want, &err), 0);
  assert_int_equal(trak_pb_buf_len(&got), trak_pb_buf_len(&want));
  assert_memory_equal(got.start, want.start, trak_pb_buf_len(&want));
  assert_string_equal(s.text, want_skips);
  trak_pb_buf_free(&got);
  trak_pb_buf_free(&want);
}

static void test_every_kind_of_value_is_skipped(void **state) {
  (void)state;
  assert_skips_to("packet { timestamp: 5 future_int: -12 track_event { name: \"a\" } }",
                  "packet { timestamp: 5 track_event { name: \"a\" } }",
                  "1:23 TracePacket has no field 'future_int'\n");
  assert_skips_to("packet {\n  s: \"x\" 'y'\n  e: SOME_ENUM\n  f: -inf\n  timestamp: 1\n}",
                  "packet { timestamp: 1 }",
                  "2:3 TracePacket has no field 's'\n3:3 TracePacket has no field 'e'\n"
                  "4:3 TracePacket has no field 'f'\n");
  /* Nested messages (both brackets, with lists and known-looking names inside) and lists. */
  assert_skips_to("packet { m { timestamp: 3 n < a: [1, 2] b { } > } l: [{x: 1}, {y: \"}\"}] "
                  "l2 [] timestamp: 9 }",
                  "packet { timestamp: 9 }",
                  "1:10 TracePacket has no field 'm'\n1:51 TracePacket has no field 'l'\n"
                  "1:73 TracePacket has no field 'l2'\n");
  /* Extensions and Any type names in brackets, at any depth. */
  assert_skips_to("packet { [perfetto.protos.Ext.a] { b: 1 [x.y/z] < c: 2 > } [ e.f ]: 5 "
                  "timestamp: 2 }",
                  "packet { timestamp: 2 }",
                  "1:10 TracePacket has no field '[perfetto.protos.Ext.a]'\n"
                  "1:60 TracePacket has no field '[ e.f ]'\n");
  /* An enum value name the enum lacks: the field goes, the message stays. */
  assert_skips_to("packet { track_event { type: TYPE_FROM_THE_FUTURE name: \"b\" } }",
                  "packet { track_event { name: \"b\" } }",
                  "1:30 perfetto.protos.TrackEvent.Type has no value 'TYPE_FROM_THE_FUTURE' "
                  "(field 'type')\n");
}

static void test_syntax_errors_stay_errors(void **state) {
  (void)state;
  const char *bad[] = {"packet { unknown { a: 1 }",  /* unclosed */
                       "packet { unknown: }",        /* no value */
                       "packet { unknown 5 }",       /* no colon before a scalar */
                       "packet { unknown: [1 2] }",  /* no comma */
                       "packet { unknown { : 1 } }", /* no name inside */
                       "packet { [a.b\n] { } }"};    /* bracket not closed on its line */
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    trak_pb_buf out;
    trak_pb_buf_init_heap(&out);
    trak_error err = {0};
    skips s = {{0}, 0};
    assert_int_equal(
        trak_pbtxt_parse_lenient("Trace", bad[i], strlen(bad[i]), 1, 1, on_skip, &s, &out, &err),
        TRAK_EFORMAT);
    assert_non_null(strstr(err.message, "line 1, column"));
    trak_pb_buf_free(&out);
  }
  /* Deep nesting in a skipped value is bounded like known messages' (no stack overflow). */
  static char deep[4 * 5000 + 64];
  size_t n = (size_t)snprintf(deep, sizeof deep, "packet { unknown: ");
  for (int i = 0; i < 5000; i++)
    deep[n++] = '[', deep[n++] = ' ';
  deep[n] = 0;
  {
    trak_pb_buf out;
    trak_pb_buf_init_heap(&out);
    trak_error err = {0};
    skips s = {{0}, 0};
    assert_int_equal(trak_pbtxt_parse_lenient("Trace", deep, n, 1, 1, on_skip, &s, &out, &err),
                     TRAK_EFORMAT);
    assert_non_null(strstr(err.message, "nested too deeply"));
    trak_pb_buf_free(&out);
  }
  /* The strict parser still refuses the unknown name. */
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_error err = {0};
  const char *text = "packet { unknown: 1 }";
  assert_int_equal(trak_pbtxt_parse("Trace", text, strlen(text), &out, &err), TRAK_EFORMAT);
  trak_pb_buf_free(&out);
}

/* ---- the importer ---- */

typedef struct diags {
  char text[2048];
} diags;

static void on_diag(void *user, uint64_t packet, uint64_t offset, trak_severity severity,
                    const char *stat, const char *message) {
  (void)packet, (void)offset;
  diags *d = user;
  size_t used = strlen(d->text);
  snprintf(d->text + used, sizeof d->text - used, "%s %d %s\n", stat, (int)severity, message);
}

static trak_processor *import(const void *data, size_t len, diags *d) {
  trak_processor *p;
  trak_error err = {0};
  trak_processor_options opts = {on_diag, NULL, d, 0};
  assert_int_equal(trak_processor_new(&opts, &p, &err), 0);
  assert_int_equal(trak_processor_feed(p, data, len, &err), 0);
  assert_int_equal(trak_processor_finish(p, &err), 0);
  return p;
}

/* A text trace written for a newer schema: every packet after the unknown field imports
** (before, the parse stopped there and the rest was lost as text_parse_error). */
static const char newer_trace[] =
    "packet {\n"
    "  trusted_packet_sequence_id: 1\n"
    "  timestamp: 1000\n"
    "  track_event {\n"
    "    type: TYPE_SLICE_BEGIN\n"
    "    name: \"outer\"\n"
    "    track_uuid: 0\n"
    "    brand_new_payload { level: 3 tags: [\"a\", \"b\"] }\n"
    "  }\n"
    "}\n"
    "packet { trusted_packet_sequence_id: 1 timestamp: 1500 new_packet_flag: true\n"
    "  track_event { type: TYPE_INSTANT name: \"mark\" track_uuid: 0 } }\n"
    "packet { trusted_packet_sequence_id: 1 timestamp: 2000\n"
    "  track_event { type: TYPE_SLICE_END track_uuid: 0 } }\n";

static void test_text_trace_imports_around_unknown_fields(void **state) {
  (void)state;
  diags d = {{0}};
  trak_processor *p = import(newer_trace, sizeof newer_trace - 1, &d);
  assert_string_equal(sc_rows(p, "select ts, dur, name from slice order by ts"),
                      "1000|1000|outer\n1500|0|mark");
  assert_string_equal(sc_rows(p, "select name, severity, value from stats where value > 0"),
                      "text_unknown_field|data_loss|2");
  assert_string_equal(d.text, "text_unknown_field 1 line 8, column 5: TrackEvent has no field "
                              "'brand_new_payload'; skipped the field\n"
                              "text_unknown_field 1 line 11, column 56: TracePacket has no field "
                              "'new_packet_flag'; skipped the field\n");
  trak_processor_free(p);
}

/* Fed a byte at a time, the batch that fails to parse is cut again field by field: each
** unknown field is still told once. */
static void test_unknown_field_told_once_in_any_split(void **state) {
  (void)state;
  char text[600];
  snprintf(text, sizeof text, "%s%s", newer_trace, "packet { timestamp: }\n");
  diags d = {{0}};
  trak_processor *p;
  trak_error err = {0};
  trak_processor_options opts = {on_diag, NULL, &d, 0};
  assert_int_equal(trak_processor_new(&opts, &p, &err), 0);
  for (size_t i = 0; i < strlen(text); i++)
    assert_int_equal(trak_processor_feed(p, text + i, 1, &err), 0);
  trak_processor_finish(p, &err);
  assert_int_equal(trak_processor_stat_value(p, "text_unknown_field"), 2);
  assert_int_equal(trak_processor_stat_value(p, "text_parse_error"), 1);
  assert_string_equal(sc_rows(p, "select count(*) from slice"), "2");
  trak_processor_free(p);

  /* In one feed the whole text is one batch, which fails at the last packet and is parsed
  ** again field by field. */
  memset(&d, 0, sizeof d);
  p = NULL;
  assert_int_equal(trak_processor_new(&opts, &p, &err), 0);
  assert_int_equal(trak_processor_feed(p, text, strlen(text), &err), 0);
  trak_processor_finish(p, &err);
  assert_int_equal(trak_processor_stat_value(p, "text_unknown_field"), 2);
  const char *second = strstr(d.text, "new_packet_flag");
  assert_non_null(second);
  assert_null(strstr(second + 1, "new_packet_flag"));
  trak_processor_free(p);
}

/* Binary: unknown TracePacket and TrackEvent fields are skipped and counted, fields the schema
** has but the importer does not read are not counted. */
static void test_binary_unknown_fields_counted(void **state) {
  (void)state;
  trak_pb_buf pkt, ev, trace;
  trak_pb_buf_init_heap(&pkt);
  trak_pb_buf_init_heap(&ev);
  trak_pb_buf_init_heap(&trace);
  trak_pb_put_varint(&ev, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_INSTANT);
  trak_pb_put_bytes(&ev, TRAK_PB_TrackEvent_name, "e", 1);
  trak_pb_put_varint(&ev, 9000, 7); /* an extension number trak does not know */
  trak_pb_put_bytes(&ev, TRAK_PB_TrackEvent_screenshot, "", 0); /* known, not imported */
  trak_pb_put_varint(&pkt, TRAK_PB_TracePacket_trusted_packet_sequence_id, 1);
  trak_pb_put_varint(&pkt, TRAK_PB_TracePacket_timestamp, 5);
  trak_pb_put_bytes(&pkt, TRAK_PB_TracePacket_track_event, ev.start, trak_pb_buf_len(&ev));
  trak_pb_put_bytes(&pkt, 4, "inode", 5); /* inode_file_map: not in trak's schema */
  trak_pb_put_fixed64(&pkt, 1999, 3);
  trak_pb_put_bytes(&trace, TRAK_PB_Trace_packet, pkt.start, trak_pb_buf_len(&pkt));
  diags d = {{0}};
  trak_processor *p = import(trace.start, trak_pb_buf_len(&trace), &d);
  assert_string_equal(sc_rows(p, "select name from slice"), "e");
  assert_string_equal(sc_rows(p, "select severity, value from stats "
                                 "where name = 'proto_unknown_field'"),
                      "info|3");
  assert_string_equal(d.text, ""); /* counted, not told: unknown fields are normal in binary */
  trak_processor_free(p);
  trak_pb_buf_free(&pkt);
  trak_pb_buf_free(&ev);
  trak_pb_buf_free(&trace);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_kind_of_value_is_skipped),
      cmocka_unit_test(test_syntax_errors_stay_errors),
      cmocka_unit_test(test_text_trace_imports_around_unknown_fields),
      cmocka_unit_test(test_unknown_field_told_once_in_any_split),
      cmocka_unit_test(test_binary_unknown_fields_counted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
