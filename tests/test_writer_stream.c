/*
** Streamed tabular events (trak_events_convert_stream): input handed over in pieces of any
** size, down to one byte, converts to the same bytes and reports the same errors, with the same
** line numbers, as the whole text does; quoted CSV cells may span pieces; a failing read and a
** row past the size limit stop the conversion.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "writer_testutil.h"

/* Input in memory, handed out `piece` bytes at a time; fails with TRAK_EIO at `fail_at`. */
typedef struct pieces {
  const char *text;
  size_t len, at, piece, fail_at;
  size_t max_cap; /* the largest read asked for: the converter's buffer */
} pieces;

static int64_t read_pieces(void *user, void *buf, size_t cap, trak_error *err) {
  pieces *p = user;
  if (cap > p->max_cap) p->max_cap = cap;
  if (p->fail_at && p->at >= p->fail_at)
    return trak_error_set(err, TRAK_EIO, "disk on fire at byte %zu", p->at);
  size_t n = p->len - p->at;
  if (n > p->piece) n = p->piece;
  if (n > cap) n = cap;
  memcpy(buf, p->text + p->at, n);
  p->at += n;
  return (int64_t)n;
}

typedef struct diags {
  char text[8192];
} diags;

static void collect(void *user, const char *message) {
  diags *d = user;
  strncat(d->text, message, sizeof d->text - strlen(d->text) - 2);
  strcat(d->text, "\n");
}

/* One conversion's outcome: bytes, code, error, diagnostics, counts. */
typedef struct outcome {
  trak_pb_buf out;
  int rc;
  trak_error err;
  diags d;
  trak_events_result res;
} outcome;

/* Converts `text` whole (piece 0) or streamed in pieces of `piece` bytes, with a fixed seed. */
static void convert(const char *text, size_t len, size_t piece, int keep_going, outcome *o) {
  memset(o, 0, sizeof *o);
  trak_pb_buf_init_heap(&o->out);
  trak_writer *w;
  assert_int_equal(trak_writer_open_callback(&w, mem_sink, &o->out, NULL), 0);
  assert_int_equal(trak_writer_set_seed(w, 3), 0);
  trak_events_options opts = {
      .keep_going = keep_going, .diag = collect, .diag_user = &o->d, .source_name = "in"};
  if (piece) {
    pieces p = {.text = text, .len = len, .piece = piece};
    o->rc = trak_events_convert_stream(w, read_pieces, &p, &opts, &o->res, &o->err);
  } else {
    o->rc = trak_events_convert(w, text, len, &opts, &o->res, &o->err);
  }
  assert_int_equal(trak_writer_close(w, NULL, NULL), 0);
}

/* Whole and streamed conversions of `text` agree in every respect, for many piece sizes. */
static void check_same(const char *text, size_t len, int keep_going) {
  static const size_t PIECES[] = {1, 2, 3, 7, 64, 4096, 1u << 20};
  outcome whole, streamed;
  convert(text, len, 0, keep_going, &whole);
  for (size_t i = 0; i < sizeof PIECES / sizeof *PIECES; i++) {
    convert(text, len, PIECES[i], keep_going, &streamed);
    assert_int_equal(streamed.rc, whole.rc);
    assert_string_equal(streamed.err.message, whole.err.message);
    assert_string_equal(streamed.d.text, whole.d.text);
    assert_memory_equal(&streamed.res, &whole.res, sizeof whole.res);
    assert_int_equal(trak_pb_buf_len(&streamed.out), trak_pb_buf_len(&whole.out));
    assert_memory_equal(streamed.out.start, whole.out.start, trak_pb_buf_len(&whole.out));
    trak_pb_buf_free(&streamed.out);
  }
  trak_pb_buf_free(&whole.out);
}

static void check_file_same(const char *rel) {
  size_t len;
  char *text = tu_read_file(tu_source_path(rel), &len);
  check_same(text, len, 0);
  check_same(text, len, 1);
  free(text);
}

static void test_data_files(void **state) {
  (void)state;
  check_file_same("tests/data/writer/events.csv");
  check_file_same("tests/data/writer/events.jsonl");
  check_file_same("tests/data/writer/events_bad.csv");
  check_file_same("tests/data/writer/events_bad.jsonl");
}

static void test_edge_cases(void **state) {
  (void)state;
  /* Quoted cells spanning lines (and pieces), comments, blank lines, CRLF, no final newline,
  ** an unterminated quote at the very end. */
  static const char csv[] = "# lead comment\n\nts,track,name,note\r\n"
                            "1,T,a,\"two\nlines\"\r\n"
                            "\n# mid comment\n"
                            "2,T,\"b\",\"\"\"quoted\"\" and\n\nblank\"\n"
                            "3,T,c,last";
  check_same(csv, sizeof csv - 1, 0);
  static const char open_quote[] = "ts,track,name\n1,T,a\n2,T,\"never closed\n3,T,c\n";
  check_same(open_quote, sizeof open_quote - 1, 1);
  static const char jsonl[] = "\n{\"ts\": 1, \"track\": \"T\", \"name\": \"a\"}\n\n"
                              "{\"ts\": 2, \"track\": \"T\", \"name\": \"b\"}";
  check_same(jsonl, sizeof jsonl - 1, 0);
  /* Detection by content across pieces, and an input that is no events at all. */
  static const char comments_first[] = "# a\n# b\n# c\nts,track\n1,T\n";
  check_same(comments_first, sizeof comments_first - 1, 0);
  static const char neither[] = "hello\nworld\n";
  check_same(neither, sizeof neither - 1, 0);
  outcome o;
  convert(neither, sizeof neither - 1, 1, 0, &o);
  assert_string_equal(o.err.message, "in: neither CSV with a ts column nor JSON Lines");
  trak_pb_buf_free(&o.out);
  static const char empty[] = "";
  check_same(empty, 0, 0);
}

/* A read error stops the conversion with the reader's message and the line it reached. */
static void test_read_error(void **state) {
  (void)state;
  char text[4096] = "ts,track\n";
  for (int i = 1; i <= 200; i++)
    snprintf(text + strlen(text), sizeof text - strlen(text), "%d,T\n", i);
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_writer *w;
  assert_int_equal(trak_writer_open_callback(&w, mem_sink, &out, NULL), 0);
  pieces p = {.text = text, .len = strlen(text), .piece = 100, .fail_at = 500};
  trak_events_options opts = {.keep_going = 1, .source_name = "in.csv"};
  trak_events_result res;
  trak_error err = {0};
  assert_int_equal(trak_events_convert_stream(w, read_pieces, &p, &opts, &res, &err), TRAK_EIO);
  assert_non_null(strstr(err.message, "in.csv: line "));
  assert_non_null(strstr(err.message, "disk on fire at byte 500"));
  assert_true(res.converted > 50 && res.converted < 200);
  assert_int_equal(res.bad_rows, 0);
  assert_int_equal(trak_writer_close(w, NULL, NULL), 0);
  trak_pb_buf_free(&out);
}

/* Input that never ends a row: refused at the limit instead of buffered without end. */
static int64_t endless_row(void *user, void *buf, size_t cap, trak_error *err) {
  (void)err;
  size_t *sent = user;
  static const char header[] = "ts,track,name\n1,T,";
  size_t n = 0;
  if (*sent == 0) {
    memcpy(buf, header, sizeof header - 1);
    n = sizeof header - 1;
  }
  memset((char *)buf + n, 'x', cap - n);
  *sent += cap;
  return (int64_t)cap;
}

static void test_row_too_long(void **state) {
  (void)state;
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_writer *w;
  assert_int_equal(trak_writer_open_callback(&w, mem_sink, &out, NULL), 0);
  size_t sent = 0;
  trak_error err = {0};
  assert_int_equal(trak_events_convert_stream(w, endless_row, &sent, NULL, NULL, &err),
                   TRAK_EFORMAT);
  assert_string_equal(err.message, "line 2: a row longer than 64 MiB");
  assert_true(sent < (65u << 20)); /* the buffer stopped growing at the limit */
  assert_int_equal(trak_writer_close(w, NULL, NULL), 0);
  trak_pb_buf_free(&out);
}

/* Memory stays bounded: 200,000 rows are read through a buffer of the first size asked for. */
static void test_bounded_buffer(void **state) {
  (void)state;
  enum { ROWS = 200000 };
  size_t cap = 32 + (size_t)ROWS * 40;
  char *text = malloc(cap);
  size_t len = (size_t)snprintf(text, cap, "ts,dur,track,name\n");
  for (int i = 0; i < ROWS; i++)
    len += (size_t)snprintf(text + len, cap - len, "%d,1,process 1/thread 2,op%d\n", i * 2, i % 7);
  trak_writer *w;
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  assert_int_equal(trak_writer_open_callback(&w, mem_sink, &out, NULL), 0);
  pieces p = {.text = text, .len = len, .piece = 1u << 20};
  trak_events_result res;
  trak_error err = {0};
  assert_int_equal(trak_events_convert_stream(w, read_pieces, &p, NULL, &res, &err), 0);
  assert_int_equal(res.converted, ROWS);
  assert_true(len > 4 * p.max_cap); /* the input is far larger than the converter's buffer */
  assert_true(p.max_cap <= (256u << 10));
  trak_writer_totals totals;
  assert_int_equal(trak_writer_close(w, &totals, NULL), 0);
  assert_int_equal(totals.slices, ROWS);
  trak_pb_buf_free(&out);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_data_files), cmocka_unit_test(test_edge_cases),
      cmocka_unit_test(test_read_error), cmocka_unit_test(test_row_too_long),
      cmocka_unit_test(test_bounded_buffer)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
