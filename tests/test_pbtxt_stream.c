/*
** Tests of importing text-format traces as a stream (src/processor/read/text_split.c, stream.c): a
** text trace fed in pieces of every small size gives the same tables as its binary encoding
** fed whole, across the golden and seed traces and a text that uses every tricky form (braces
** in strings and comments, `packet: {`, `packet <...>`, lists, separators); a syntax error
** reports the line:column of the whole file that trak_pbtxt_parse reports, and keeps the
** packets before it.
*/
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "processor/read/text_split.h"
#include "testutil.h"
#include "trak/pb.h"
#include "trak/pbtxt.h"
#include "trak/processor.h"

/* ---- importing and dumping tables ------------------------------------------------------ */

typedef struct diag_log {
  int text_errors;
  char message[1024]; /* the last text_parse_error message */
} diag_log;

static void on_diag(void *user, uint64_t packet, uint64_t offset, trak_severity severity,
                    const char *stat, const char *message) {
  (void)packet, (void)offset, (void)severity;
  diag_log *log = user;
  if (strcmp(stat, "text_parse_error")) return;
  log->text_errors++;
  snprintf(log->message, sizeof log->message, "%s", message);
}

/* Imports `len` bytes fed `chunk` bytes at a time (0: whole). */
static trak_processor *import_chunks(const void *data, size_t len, size_t chunk, diag_log *log) {
  trak_processor_options opts = {.diag = on_diag, .user = log};
  trak_processor *p;
  trak_error err = {0};
  assert_int_equal(trak_processor_new(&opts, &p, &err), 0);
  if (!chunk) chunk = len ? len : 1;
  for (size_t off = 0; off < len; off += chunk) {
    size_t n = len - off < chunk ? len - off : chunk;
    assert_int_equal(trak_processor_feed(p, (const uint8_t *)data + off, n, &err), 0);
  }
  assert_int_equal(trak_processor_finish(p, &err), 0);
  return p;
}

typedef struct text {
  char *v;
  size_t n, cap;
} text;

static void text_add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int need = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (t->n + (size_t)need + 1 > t->cap) {
    t->cap = (t->n + (size_t)need + 1) * 2;
    t->v = realloc(t->v, t->cap);
    assert_non_null(t->v);
  }
  va_start(ap, fmt);
  vsnprintf(t->v + t->n, t->cap - t->n, fmt, ap);
  va_end(ap);
  t->n += (size_t)need;
}

static const char *const DUMP_QUERIES[] = {
    "select * from slice order by id",
    "select * from track order by id",
    "select * from thread order by utid",
    "select * from process order by upid",
    "select * from counter order by id",
    "select * from flow order by id",
    "select * from args order by id",
    "select name, idx, value from stats where value != 0 order by name, idx",
};

/* Every row of the tables that matter, as text. */
static char *dump_tables(trak_processor *p) {
  text out = {0};
  trak_error err = {0};
  for (size_t i = 0; i < sizeof DUMP_QUERIES / sizeof *DUMP_QUERIES; i++) {
    trak_query *q;
    assert_int_equal(trak_query_open(p, DUMP_QUERIES[i], &q, NULL, &err), 0);
    text_add(&out, "-- %s\n", DUMP_QUERIES[i]);
    while (trak_query_next(q, &err) == 1) {
      for (int c = 0; c < trak_query_column_count(q); c++) {
        switch (trak_query_type(q, c)) {
        case TRAK_VALUE_INT:
          text_add(&out, "%lld|", (long long)trak_query_int(q, c));
          break;
        case TRAK_VALUE_DOUBLE:
          text_add(&out, "%.17g|", trak_query_double(q, c));
          break;
        case TRAK_VALUE_STRING:
          text_add(&out, "'%s'|", trak_query_string(q, c));
          break;
        default:
          text_add(&out, "NULL|");
        }
      }
      text_add(&out, "\n");
    }
    trak_query_free(q);
  }
  return out.v;
}

static int64_t query_int(trak_processor *p, const char *sql) {
  trak_query *q;
  trak_error err = {0};
  assert_int_equal(trak_query_open(p, sql, &q, NULL, &err), 0);
  assert_int_equal(trak_query_next(q, &err), 1);
  int64_t v = trak_query_int(q, 0);
  trak_query_free(q);
  return v;
}

/* The tables of `pbtxt` imported from its binary encoding (trak_pbtxt_parse of the whole). */
static char *reference_tables(const char *pbtxt, size_t len) {
  trak_pb_buf bin;
  trak_pb_buf_init_heap(&bin);
  trak_error err = {0};
  assert_int_equal(trak_pbtxt_parse("Trace", pbtxt, len, &bin, &err), 0);
  diag_log log = {0};
  trak_processor *p = import_chunks(bin.start, trak_pb_buf_len(&bin), 0, &log);
  char *dump = dump_tables(p);
  trak_processor_free(p);
  trak_pb_buf_free(&bin);
  return dump;
}

/* The importer sniffs the format from the first 4096 bytes before it cuts anything: this
** header of comments (50 lines, 4000 bytes) brings the trace after it into the cut pieces. */
static char *padded(const char *pbtxt, size_t len, size_t *out_len) {
  text t = {0};
  for (int i = 0; i < 50; i++)
    text_add(&t, "# %-77d\n", i);
  assert_int_equal(t.n, 4000);
  text_add(&t, "%.*s", (int)len, pbtxt);
  *out_len = t.n;
  return t.v;
}

/* Feeds the text in pieces of 1..max_chunk bytes (and a few larger sizes around the format
** sniffing window) and checks every import against the binary one. */
static void check_every_split(const char *name, const char *unpadded, size_t unpadded_len,
                              size_t max_chunk) {
  size_t len;
  char *pbtxt = padded(unpadded, unpadded_len, &len);
  char *want = reference_tables(pbtxt, len);
  static const size_t larger[] = {0, 100, 1000, 4095, 4096, 4097, 65536};
  size_t n_sizes = max_chunk + sizeof larger / sizeof *larger;
  for (size_t k = 0; k < n_sizes; k++) {
    size_t chunk = k < max_chunk ? k + 1 : larger[k - max_chunk];
    diag_log log = {0};
    trak_processor *p = import_chunks(pbtxt, len, chunk, &log);
    char *got = dump_tables(p);
    if (strcmp(got, want))
      fail_msg("%s fed in pieces of %zu differs:\n%s\nwant:\n%s", name, chunk, got, want);
    assert_int_equal(log.text_errors, 0);
    free(got);
    trak_processor_free(p);
  }
  free(want);
  free(pbtxt);
}

/* ---- valid traces ------------------------------------------------------------------------ */

static void test_golden_and_seed_traces_in_pieces(void **state) {
  (void)state;
  /* goldens sit in subfolders by area; new ones may still land at the top */
  const char *patterns[] = {"tests/data/golden/*.pbtxt", "tests/data/golden/*/*.pbtxt",
                            "tests/data/seed/*.pbtxt"};
  int files = 0;
  for (size_t i = 0; i < 3; i++) {
    char pattern[4096];
    snprintf(pattern, sizeof pattern, "%s", tu_source_path(patterns[i]));
    glob_t g;
    int rc = glob(pattern, 0, NULL, &g);
    assert_true(rc == 0 || rc == GLOB_NOMATCH);
    for (size_t f = 0; f < g.gl_pathc; f++) {
      size_t len;
      char *pbtxt = tu_read_file(g.gl_pathv[f], &len);
      check_every_split(g.gl_pathv[f], pbtxt, len, 24);
      free(pbtxt);
      files++;
    }
    globfree(&g);
  }
  assert_true(files >= 70); /* the goldens in subfolders were found */
}

/* Every form a top-level field can take, and brackets where they do not count. */
static const char TRICKY[] =
    "# a comment with a brace } and a quote \" that count for nothing\n"
    "packet { track_descriptor { uuid: 1 name: \"t } { # \\\" \xc3\xa4\xc2\x8a\" } }\n"
    "packet: { timestamp: 10 trusted_packet_sequence_id: 1\n"
    "  track_event { type: TYPE_SLICE_BEGIN track_uuid: 1 name: 'a }\\' > {' } },\n"
    "packet < timestamp: 20 trusted_packet_sequence_id: 1\n"
    "  track_event < type: TYPE_SLICE_END track_uuid: 1 > > ;\r\n"
    "packet: [ { timestamp: 30 trusted_packet_sequence_id: 1 track_event { type: TYPE_INSTANT\n"
    "  track_uuid: 1 name: \"i\" \"j\" } }, < timestamp: 40 trusted_packet_sequence_id: 1\n"
    "  track_event { type: TYPE_INSTANT track_uuid: 1 name: \"k]\" } > ]\n"
    "packet{timestamp:50 trusted_packet_sequence_id:1 track_event{type:TYPE_INSTANT "
    "track_uuid:1 name:\"l\" debug_annotations { name: \"v\" int_value: -3 } }}"
    "packet{timestamp:60 trusted_packet_sequence_id:1 track_event{type:TYPE_INSTANT "
    "track_uuid:1 categories: [\"c1\", \"c2\"] name:\"m\"}}   # trailing comment";

static void test_tricky_forms_in_pieces(void **state) {
  (void)state;
  check_every_split("TRICKY", TRICKY, sizeof TRICKY - 1, 64);
  diag_log log = {0};
  trak_processor *p = import_chunks(TRICKY, sizeof TRICKY - 1, 3, &log);
  assert_int_equal(query_int(p, "select count(*) from slice"), 5);
  assert_int_equal(query_int(p, "select count(*) from slice where name = 'a }'' > {'"), 1);
  assert_int_equal(query_int(p, "select count(*) from slice where name = 'ij'"), 1);
  trak_processor_free(p);
}

/* ---- the cutter itself ------------------------------------------------------------------- */

typedef struct pieces {
  text all; /* every piece as "line:column:offset[text]" */
} pieces;

static int on_piece(void *ctx, const char *t, size_t len, trak_text_pos at) {
  pieces *p = ctx;
  text_add(&p->all, "%llu:%llu:%llu[%.*s]", (unsigned long long)at.line,
           (unsigned long long)at.column, (unsigned long long)at.offset, (int)len, t);
  return 0;
}

/* The pieces `want` (consecutive substrings of `full`, less skipped separators) as on_piece
** writes them, positions computed from where they are in `full`. */
static char *expected_pieces(const char *full, const char *const *want, size_t n) {
  text out = {0};
  const char *from = full;
  for (size_t i = 0; i < n; i++) {
    const char *at = strstr(from, want[i]);
    assert_non_null(at);
    unsigned long long line = 1, line_start = 0;
    for (const char *c = full; c < at; c++)
      if (*c == '\n') line++, line_start = (unsigned long long)(c - full) + 1;
    unsigned long long offset = (unsigned long long)(at - full);
    text_add(&out, "%llu:%llu:%llu[%s]", line, offset - line_start + 1, offset, want[i]);
    from = at + strlen(want[i]);
  }
  return out.v;
}

/* One field per piece (batch 0): cut exactly after each top-level field whatever the feed
** sizes, not at brackets inside strings (escaped quotes included) or comments, separators
** dropped. */
static void test_cutter_cuts_at_top_level_fields(void **state) {
  (void)state;
  static const char full[] = "# c } \" {\n"
                             "packet { name: \"a}\\\"{\" }, packet <x: '>\\''> ;\n"
                             "packet: [ {}, {} ] 7: 1\n"
                             "  packet {}   # end }";
  static const char *const want[] = {"# c } \" {\npacket { name: \"a}\\\"{\" }",
                                     " packet <x: '>\\''>", "\npacket: [ {}, {} ]",
                                     " 7: 1\n  packet {}", "   # end }"};
  char *expect = expected_pieces(full, want, sizeof want / sizeof *want);
  for (size_t chunk = 1; chunk <= sizeof full - 1; chunk++) {
    trak_text_split s;
    trak__text_split_init(&s, (trak_text_pos){0, 1, 1}, 0);
    pieces got = {0};
    for (size_t off = 0; off < sizeof full - 1; off += chunk) {
      size_t n = sizeof full - 1 - off < chunk ? sizeof full - 1 - off : chunk;
      trak__text_split_feed(&s, full + off, n, on_piece, &got);
    }
    trak__text_split_finish(&s, on_piece, &got);
    trak__text_split_free(&s);
    if (strcmp(got.all.v, expect))
      fail_msg("pieces of %zu:\n%s\nwant:\n%s", chunk, got.all.v, expect);
    free(got.all.v);
  }
  free(expect);
}

/* ---- syntax errors ------------------------------------------------------------------------ */

/* Imports `pbtxt` (after the header of padded()) in pieces of every size up to 32 and whole; each
 *import must report one
 ** text_parse_error holding the message trak_pbtxt_parse gives for the whole text, and keep
 ** `packets` slices and instants. */
static void check_error(const char *unpadded, int64_t packets) {
  size_t len;
  char *pbtxt = padded(unpadded, strlen(unpadded), &len);
  trak_pb_buf bin;
  trak_pb_buf_init_heap(&bin);
  trak_error want = {0};
  assert_int_equal(trak_pbtxt_parse("Trace", pbtxt, len, &bin, &want), TRAK_EFORMAT);
  trak_pb_buf_free(&bin);
  for (size_t chunk = 0; chunk <= 32; chunk++) {
    diag_log log = {0};
    trak_processor *p = import_chunks(pbtxt, len, chunk, &log);
    assert_int_equal(log.text_errors, 1);
    if (!strstr(log.message, want.message))
      fail_msg("pieces of %zu: '%s' does not hold '%s'", chunk, log.message, want.message);
    assert_int_equal(query_int(p, "select count(*) from slice"), packets);
    assert_int_equal(query_int(p, "select value from stats where name = 'text_parse_error'"), 1);
    trak_processor_free(p);
  }
  free(pbtxt);
}

/* An escape cut by the end of the text: the message quotes no byte past the end (the piece
** of a streamed trace is followed by unrelated bytes). */
static void test_escape_at_end_reads_nothing_past_it(void **state) {
  (void)state;
  static const char cut[] = "packet { track_event { name: \"a\\Z";
  trak_pb_buf bin;
  trak_pb_buf_init_heap(&bin);
  trak_error err = {0};
  assert_int_equal(trak_pbtxt_parse("Trace", cut, sizeof cut - 2, &bin, &err), TRAK_EFORMAT);
  assert_non_null(strstr(err.message, "column 32: invalid escape"));
  assert_null(strchr(err.message, 'Z'));
  trak_pb_buf_free(&bin);
}

#define EV(ts)                                                                                     \
  "packet { timestamp: " #ts " trusted_packet_sequence_id: 1 track_event { type: TYPE_INSTANT "    \
  "track_uuid: 1 } }"

static void test_errors_report_whole_file_position(void **state) {
  (void)state;
  check_error(EV(1) "\n" EV(2) "\npacket { 'bogus': 1 }\n" EV(3), 2);
  check_error(EV(1) " " EV(2) " packet { timestamp: 3 'bogus': 1 }", 2); /* mid-line */
  check_error(EV(1) ", , " EV(2), 1);                                    /* two separators */
  check_error(EV(1) "\n  # }\n  ; ;" EV(2), 1);                          /* on a later line */
  check_error(EV(1) "\n" EV(2) " }\n" EV(3), 2);                         /* stray closer */
  check_error(EV(1) "\npacket { track_event { name: \"a}\n } }\n" EV(2), 1);
  check_error(EV(1) "\n  # comment }\n" EV(2) "\n" EV(3) "\npacket { timestamp: 4", 3);
  check_error(EV(1) "\n" EV(2) " 7", 2);
  check_error(
      EV(1) "\n# \xc3\xa4\xc2\x8a\xc2\x8a\xc2\x8a high bytes\n" EV(2) " packet { 'bogus': 1 }", 2);
  check_error("packet { timestamp: 1 ]", 0);
}

/* A large trace with an error far in: the whole file's line and column, and every packet
** before the error imported whatever the feed size. */
static void test_error_deep_in_large_trace(void **state) {
  (void)state;
  enum { SLICES = 5000, BAD = 3777 };
  text t = {0};
  text_add(&t, "packet {\n  track_descriptor {\n    uuid: 1\n  }\n}\n");
  int bad_line = 0;
  int lines = 5;
  for (int i = 0; i < SLICES; i++) {
    for (int end = 0; end < 2; end++) {
      text_add(&t, "packet {\n  timestamp: %d\n  trusted_packet_sequence_id: 1\n", 10 * i + end);
      if (i == BAD && end) {
        bad_line = lines + 5;
        text_add(&t, "  track_event { type: TYPE_SLICE_END track_uuid: 1 }\n    'bogus': 1\n}\n");
      } else {
        text_add(&t, "  track_event { type: %s track_uuid: 1 name: \"s%d\" }\n}\n",
                 end ? "TYPE_SLICE_END" : "TYPE_SLICE_BEGIN", i);
      }
      lines += 5;
    }
  }
  char where[64];
  snprintf(where, sizeof where, "line %d, column 5:", bad_line);
  static const size_t chunks[] = {0, 1, 7, 4096, 65536};
  for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
    diag_log log = {0};
    trak_processor *p = import_chunks(t.v, t.n, chunks[k], &log);
    assert_int_equal(log.text_errors, 1);
    if (!strstr(log.message, where)) fail_msg("'%s' does not name %s", log.message, where);
    assert_non_null(strstr(log.message, "'bogus'"));
    assert_int_equal(query_int(p, "select count(*) from slice"), BAD + 1);
    /* The slice whose end packet failed stays open; all before it are closed. */
    assert_int_equal(query_int(p, "select count(*) from slice where dur = -1"), 1);
    assert_int_equal(query_int(p, "select max(ts) from slice"), 10 * BAD);
    trak_processor_free(p);
  }
  free(t.v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_golden_and_seed_traces_in_pieces),
      cmocka_unit_test(test_tricky_forms_in_pieces),
      cmocka_unit_test(test_cutter_cuts_at_top_level_fields),
      cmocka_unit_test(test_escape_at_end_reads_nothing_past_it),
      cmocka_unit_test(test_errors_report_whole_file_position),
      cmocka_unit_test(test_error_deep_in_large_trace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
