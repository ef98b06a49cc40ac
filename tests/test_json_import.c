/*
** Tests of the JSON trace-event importer below the CLI: the same trace fed in any split
** (down to one byte at a time) gives the same tables; timestamps convert from their decimal
** text; the tokenizer resumes values cut by a buffer end and rejects malformed ones; the
** exporter's output re-imports without syntax errors.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "processor/export/json_export.h"
#include "processor/import/json/json.h"
#include "processor/processor_internal.h"
#include "trak/processor.h"

static const char TRACE[] =
    "{\"displayTimeUnit\": \"ns\", \"metadata\": {\"a\": [1, {\"b\": null}]},\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"B\", \"name\": \"out\\u00e9r\", \"ts\": 1.5, \"pid\": 1, \"tid\": 2,\n"
    "   \"args\": {\"s\": \"q\\\"uote\", \"n\": -3, \"big\": 18446744073709551615, \"f\": 1e3}},\n"
    "  {\"ph\": \"X\", \"name\": \"in\", \"ts\": 2, \"dur\": 0.5, \"pid\": 1, \"tid\": 2},\n"
    "  {\"ph\": \"C\", \"name\": \"c\", \"ts\": 3, \"pid\": 1, \"args\": {\"v\": 4}},\n"
    "  {\"ph\": \"s\", \"name\": \"f\", \"id\": 1, \"ts\": 2.1, \"pid\": 1, \"tid\": 2},\n"
    "  {\"ph\": \"X\", \"name\": \"t\", \"ts\": 5, \"dur\": 1, \"pid\": 1, \"tid\": 3},\n"
    "  {\"ph\": \"f\", \"bp\": \"e\", \"name\": \"f\", \"id\": 1, \"ts\": 5.5, \"pid\": 1, "
    "\"tid\": 3},\n"
    "  {\"ph\": \"E\", \"ts\": 9, \"pid\": 1, \"tid\": 2}\n"
    "]}\n";

/* A digest of every table a query can see, as one string. */
static char *digest(trak_processor *p) {
  static const char *const sql[] = {
      "select group_concat(ts || ':' || dur || ':' || name || ':' || depth, ',') from slice",
      "select group_concat(key || '=' || display_value, ',') from args",
      "select group_concat(ts || '=' || value, ',') from counter",
      "select group_concat(slice_out || '>' || slice_in, ',') from flow",
      "select group_concat(name || '=' || value, ',') from stats where value > 0"};
  size_t cap = 1 << 16, n = 0;
  char *out = calloc(cap, 1);
  for (size_t i = 0; i < sizeof sql / sizeof *sql; i++) {
    trak_query *q;
    assert_int_equal(trak_query_open(p, sql[i], &q, NULL, NULL), 0);
    assert_int_equal(trak_query_next(q, NULL), 1);
    const char *s = trak_query_string(q, 0);
    n += (size_t)snprintf(out + n, cap - n, "%s|", s ? s : "");
    trak_query_free(q);
  }
  return out;
}

static trak_processor *import_split(const char *data, size_t len, size_t chunk) {
  trak_processor *p;
  assert_int_equal(trak_processor_new(NULL, &p, NULL), 0);
  for (size_t at = 0; at < len; at += chunk)
    assert_int_equal(trak_processor_feed(p, data + at, len - at < chunk ? len - at : chunk, NULL),
                     0);
  assert_int_equal(trak_processor_finish(p, NULL), 0);
  return p;
}

static void any_split_same_tables(void **state) {
  (void)state;
  trak_processor *whole = import_split(TRACE, sizeof TRACE - 1, sizeof TRACE);
  char *want = digest(whole);
  assert_non_null(strstr(want, "1500:7500:out\xc3\xa9r:0"));
  assert_non_null(strstr(want, "args.s=q\"uote"));
  assert_non_null(strstr(want, "args.big=-1")); /* uint64 bits as an int64, as Perfetto */
  assert_non_null(strstr(want, "1>2"));         /* s binds to "in", open at 2.1; f to "t" */
  assert_null(strstr(want, "json_tokenizer_failure"));
  static const size_t chunks[] = {1, 2, 3, 7, 64};
  for (size_t i = 0; i < sizeof chunks / sizeof *chunks; i++) {
    trak_processor *p = import_split(TRACE, sizeof TRACE - 1, chunks[i]);
    char *got = digest(p);
    assert_string_equal(got, want);
    free(got);
    trak_processor_free(p);
  }
  free(want);
  trak_processor_free(whole);
}

/* Chunks are read in place, with an event cut by a chunk's end completed from the next
** chunk's first bytes or, when longer than those, from the whole next chunk: a trace with
** events longer than a few KiB gives the same tables in chunks around those sizes. */
static void long_events_any_split(void **state) {
  (void)state;
  size_t cap = 1 << 20, n = 0;
  char *trace = malloc(cap);
  n += (size_t)snprintf(trace + n, cap - n, "{\"traceEvents\": [\n");
  for (int i = 0; i < 400; i++) {
    n += (size_t)snprintf(trace + n, cap - n,
                          "%s{\"ph\": \"X\", \"name\": \"e%d\", \"ts\": %d.25, \"dur\": 1, "
                          "\"pid\": 1, \"tid\": %d, \"args\": {\"i\": %d}, \"pad\": \"",
                          i ? ",\n" : "", i, i * 2, 1 + i % 3, i);
    size_t pad = i % 97 == 5 ? 9000 : i % 53 == 7 ? 5000 : (size_t)(i % 11);
    memset(trace + n, 'x', pad);
    n += pad;
    n += (size_t)snprintf(trace + n, cap - n, "\"}");
  }
  n += (size_t)snprintf(trace + n, cap - n, "\n]}\n");
  trak_processor *whole = import_split(trace, n, n);
  char *want = digest(whole);
  assert_non_null(strstr(want, "798250:1000:e399:0"));
  assert_null(strstr(want, "json_tokenizer_failure"));
  static const size_t chunks[] = {4096, 4099, 5000, 9001, 10007, 65536};
  for (size_t i = 0; i < sizeof chunks / sizeof *chunks; i++) {
    trak_processor *p = import_split(trace, n, chunks[i]);
    char *got = digest(p);
    assert_string_equal(got, want);
    free(got);
    trak_processor_free(p);
  }
  free(want);
  trak_processor_free(whole);
  free(trace);
}

/* Nested args flatten with Perfetto's key naming: objects "a.b", arrays "a[0]" (flat key
** "a"), entries that add no row (null, empty containers) not counted in array indexes. */
static void nested_args_flatten(void **state) {
  (void)state;
  static const char trace[] =
      "[{\"ph\": \"X\", \"name\": \"n\", \"ts\": 1, \"dur\": 1, \"pid\": 1, \"tid\": 1, "
      "\"args\": {\"a\": {\"b\": 1, \"c\": [null, 2, [3, {\"d\": \"x\"}], {}], \"e\\u0041\": "
      "true}, "
      "\"f\": [], \"g\": null, \"h\": -1.5, \"i\": 18446744073709551615, "
      "\"j\": {\"k\": {\"l\": false}}}}]";
  trak_processor *p = import_split(trace, sizeof trace - 1, sizeof trace);
  trak_query *q;
  assert_int_equal(trak_query_open(p,
                                   "select group_concat(flat_key || '|' || key || '=' || "
                                   "display_value || ':' || value_type, ' ') from args "
                                   "where key like 'args.%'",
                                   &q, NULL, NULL),
                   0);
  assert_int_equal(trak_query_next(q, NULL), 1);
  assert_string_equal(trak_query_string(q, 0),
                      "args.a.b|args.a.b=1:int args.a.c|args.a.c[0]=2:int "
                      "args.a.c|args.a.c[1][0]=3:int args.a.c.d|args.a.c[1][1].d=x:string "
                      "args.a.eA|args.a.eA=true:bool args.h|args.h=-1.5:real "
                      "args.i|args.i=-1.0:real args.j.k.l|args.j.k.l=false:bool");
  trak_query_free(q);
  trak_processor_free(p);
}

/* Asserts that query `sql` gives one row whose first column reads `want`. */
static void assert_query(trak_processor *p, const char *sql, const char *want) {
  trak_query *q;
  assert_int_equal(trak_query_open(p, sql, &q, NULL, NULL), 0);
  assert_int_equal(trak_query_next(q, NULL), 1);
  assert_string_equal(trak_query_string(q, 0), want);
  trak_query_free(q);
}

/* Counter values and real args read from their digits (trak__json_real_of) are strtod's
** doubles to the bit: fractions, leading zeros, 15 and 16 significant digits, exponents, -0. */
static void reals_as_strtod(void **state) {
  (void)state;
  static const char *const num[] = {"0",
                                    "-0",
                                    "0.1",
                                    "0.3",
                                    "0.7",
                                    "1.1",
                                    "2.675",
                                    "-2.5",
                                    "0.000001",
                                    "123456789012345",
                                    "1234567890123456",
                                    "3.14159265358979",
                                    "314159265358979.3",
                                    "0.30000000000000004",
                                    "9007199254740993",
                                    "1e3",
                                    "-1.5E-7",
                                    "12.0",
                                    "999999999999999",
                                    "0.999999999999999",
                                    "100.25",
                                    "7.000000000000001"};
  enum { K = sizeof num / sizeof *num };
  char trace[4096];
  size_t n = (size_t)snprintf(trace, sizeof trace, "[");
  for (unsigned i = 0; i < K; i++)
    n += (size_t)snprintf(trace + n, sizeof trace - n,
                          "%s{\"ph\":\"C\",\"name\":\"c\",\"ts\":%u,\"pid\":1,\"args\":{\"v\":%s}},"
                          "{\"ph\":\"i\",\"name\":\"i\",\"ts\":%u,\"pid\":1,\"tid\":1,\"s\":\"t\","
                          "\"args\":{\"r\":%s}}",
                          i ? "," : "", i + 1, num[i], i + 1, num[i]);
  n += (size_t)snprintf(trace + n, sizeof trace - n, "]");
  assert_true(n < sizeof trace);
  trak_processor *p = import_split(trace, n, n);
  static const char *const sql[] = {
      "select value from counter order by ts",
      "select coalesce(a.real_value, a.int_value) from slice s join args a using (arg_set_id) "
      "where a.key = 'args.r' order by s.ts"};
  for (unsigned w = 0; w < 2; w++) {
    trak_query *q;
    assert_int_equal(trak_query_open(p, sql[w], &q, NULL, NULL), 0);
    for (unsigned i = 0; i < K; i++) {
      assert_int_equal(trak_query_next(q, NULL), 1);
      double want = strtod(num[i], NULL), got = trak_query_double(q, 0);
      if (w && !strchr(num[i], '.') && !strchr(num[i], 'e') && !strchr(num[i], 'E'))
        continue; /* an integer arg is an int row */
      if (memcmp(&got, &want, sizeof got))
        fail_msg("%s read as %.17g, strtod %.17g", num[i], got, want);
    }
    assert_int_equal(trak_query_next(q, NULL), 0);
    trak_query_free(q);
  }
  trak_processor_free(p);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names and string values of 1-32 bytes (the importer's cache of short strings), more of them
** than the cache has slots and each met twice, differing in any byte (the last word of a
** string of 8 bytes or more is read as the 8 bytes ending it): every one comes back as its
** own text, in the slice's name and in its arg. */
static void short_strings_interned_apart(void **state) {
  (void)state;
  enum { N = 6000 };
  static char str[N][33];
  char *sorted[N];
  for (unsigned k = 0; k < N; k++) {
    unsigned len = 1 + k % 32;
    for (unsigned i = 0; i < len; i++)
      str[k][i] =
          (char)('a' + (k * 7 + i * 13 + (k >> 5) * (i + 1) + (k >> 9) * (i == len - 1)) % 26);
    str[k][len] = 0;
    sorted[k] = str[k];
  }
  size_t cap = (size_t)N * 2 * 140 + 16, n = 0;
  char *trace = malloc(cap);
  n += (size_t)snprintf(trace + n, cap - n, "[");
  for (unsigned r = 0; r < 2 * N; r++)
    n += (size_t)snprintf(trace + n, cap - n,
                          "%s{\"ph\":\"X\",\"name\":\"%s\",\"ts\":%u,\"dur\":1,\"pid\":1,\"tid\":1,"
                          "\"args\":{\"v\":\"%s\"}}",
                          r ? "," : "", str[r % N], 2 * r, str[r % N]);
  n += (size_t)snprintf(trace + n, cap - n, "]");
  assert_true(n < cap);
  qsort(sorted, N, sizeof *sorted, cmp_str);
  size_t wcap = (size_t)N * 34, wn = 0;
  char *want = malloc(wcap);
  want[0] = 0;
  for (unsigned k = 0; k < N; k++)
    if (!k || strcmp(sorted[k], sorted[k - 1]))
      wn += (size_t)snprintf(want + wn, wcap - wn, "%s%s", wn ? "," : "", sorted[k]);
  trak_processor *p = import_split(trace, n, n);
  assert_query(p, "select count(*) from slice", "12000");
  assert_query(p,
               "select count(*) from slice s join args a using (arg_set_id) "
               "where a.key = 'args.v' and a.string_value = s.name",
               "12000");
  trak_query *q;
  assert_int_equal(trak_query_open(p,
                                   "select group_concat(name, ',') from "
                                   "(select distinct name from slice order by name)",
                                   &q, NULL, NULL),
                   0);
  assert_int_equal(trak_query_next(q, NULL), 1);
  assert_string_equal(trak_query_string(q, 0), want);
  trak_query_free(q);
  trak_processor_free(p);
  free(want);
  free(trace);
}

/* An arg key past TRAK_LIMIT_KEY_BYTES (1024) loses its value, counted in arg_key_too_long, as
** a debug annotation's does (json_args.c: one rule for both); the args around it are kept. A key
** of 1023 bytes is kept whole. */
static void long_arg_key_dropped_and_counted(void **state) {
  (void)state;
  char trace[4096];
  char kept[1024], cut[1101];
  memset(kept, 'k', sizeof kept - 1 - 5), kept[sizeof kept - 1 - 5] = 0; /* "args." + 1018 */
  memset(cut, 'c', sizeof cut - 1), cut[sizeof cut - 1] = 0;
  int n = snprintf(trace, sizeof trace,
                   "[{\"ph\": \"i\", \"name\": \"n\", \"ts\": 1, \"pid\": 1, \"tid\": 1, "
                   "\"args\": {\"%s\": 1, \"%s\": 2, \"ok\": 3}}]",
                   cut, kept);
  assert_true(n > 0 && (size_t)n < sizeof trace);
  trak_processor *p = import_split(trace, (size_t)n, (size_t)n);
  assert_int_equal(trak_processor_stat_value(p, "arg_key_too_long"), 1);
  assert_query(p,
               "select group_concat(length(key) || '=' || int_value, ' ') "
               "from args where key like 'args.%'",
               "1023=2 7=3");
  trak_processor_free(p);
}

/* A protobuf legacy_json_value flattens with the JSON rules (json_args.c): nesting as deep as
** the JSON tokenizer accepts (64) is kept, as Perfetto keeps it, past the 32 levels of nested
** debug annotations; it was cut at 32 before. */
static void legacy_json_value_nests_as_json(void **state) {
  (void)state;
  char deep[256], trace[1024];
  size_t d = 0;
  for (int i = 0; i < 40; i++)
    deep[d++] = '[';
  deep[d++] = '1';
  for (int i = 0; i < 40; i++)
    deep[d++] = ']';
  deep[d] = 0;
  int n =
      snprintf(trace, sizeof trace,
               "packet { trusted_packet_sequence_id: 1 timestamp: 10 track_descriptor { uuid: 1 "
               "} }\npacket { trusted_packet_sequence_id: 1 timestamp: 10 track_event { type: "
               "TYPE_INSTANT track_uuid: 1 name: \"e\" debug_annotations { name: \"deep\" "
               "legacy_json_value: \"%s\" } } }\n",
               deep);
  assert_true(n > 0 && (size_t)n < sizeof trace);
  trak_processor *p = import_split(trace, (size_t)n, (size_t)n);
  assert_int_equal(trak_processor_stat_value(p, "debug_annotation_too_deep"), 0);
  assert_query(p,
               "select length(key) || ':' || int_value from args "
               "where flat_key = 'debug.deep'",
               "130:1"); /* "debug.deep" and 40 "[0]" */
  trak_processor_free(p);
}

/* An empty array, read in place, leaves the tokenizer no buffer: finishing still works. */
static void empty_array_trace(void **state) {
  (void)state;
  trak_processor *p = import_split("[]", 2, 2);
  char *got = digest(p);
  assert_string_equal(got, "|||||"); /* no rows, no stats */
  free(got);
  trak_processor_free(p);
}

static void timestamps_from_text(void **state) {
  (void)state;
  static const struct {
    const char *text;
    int ok;
    int64_t ns;
  } cases[] = {{"0", 1, 0},
               {"1", 1, 1000},
               {"1.5", 1, 1500},
               {"0.009", 1, 9},
               {"0.0019", 1, 2}, /* sub-nanosecond digits round, as Perfetto rounds */
               {"1.2345678", 1, 1235},
               {"2.0", 1, 2000},
               {"-2.5", 1, -2500},
               {"9007199254740993", 1, 9007199254740993000},
               {"1234567890123.456", 1, 1234567890123456},
               {"1.5e3", 1, 1500000},
               {"15e-1", 1, 1500},
               {"9223372036854775.807", 0, 0},             /* past int64 once rounded to a double */
               {"9223372036854.775", 1, 9223372036854776}, /* double rounding */
               {"9223372036854775.808", 0, 0},
               {"99999999999999999999", 0, 0},
               {"abc", 0, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    int64_t ns = 0;
    int ok = trak__json_ts_ns(cases[i].text, strlen(cases[i].text), &ns);
    assert_int_equal(ok, cases[i].ok);
    if (ok) assert_int_equal(ns, cases[i].ns);
  }
}

/* Slices and counters of 90 threads in 9 processes taking turns (round robin, then at random:
** more threads than the thread memo's 64 slots, json_events.c) land on their own thread and
** process. */
static void threads_taking_turns(void **state) {
  (void)state;
  size_t cap = 1 << 20, n = 0;
  char *text = malloc(cap);
  assert_non_null(text);
  n += (size_t)snprintf(text + n, cap - n, "[");
  uint64_t r = 88172645463325252ULL;
  for (unsigned i = 0; i < 6000; i++) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    unsigned t = i < 3000 ? i % 90 : (unsigned)(r % 90), pid = 500 + t % 9, tid = 7000 + t;
    if (i % 3 == 2) /* a counter of the thread's process: its pid */
      n += (size_t)snprintf(text + n, cap - n,
                            ",{\"ph\":\"C\",\"name\":\"c\",\"ts\":%u,\"pid\":%u,\"tid\":%u,"
                            "\"args\":{\"v\":%u}}",
                            i, pid, tid, pid);
    else
      n += (size_t)snprintf(text + n, cap - n,
                            "%s{\"ph\":\"X\",\"name\":\"p%ut%u\",\"ts\":%u,\"dur\":1,"
                            "\"pid\":%u,\"tid\":%u}",
                            i ? "," : "", pid, tid, i, pid, tid);
  }
  n += (size_t)snprintf(text + n, cap - n, "]");
  trak_processor *p = import_split(text, n, n);
  assert_query(p, "select count(*) from slice", "4000");
  assert_query(p, "select count(*) from counter", "2000");
  assert_query(p,
               "select count(*) from counter c join process_counter_track t on c.track_id = t.id "
               "join process using(upid) where c.value != process.pid",
               "0");
  assert_query(p,
               "select count(*) from slice s join thread_track tt on s.track_id = tt.id "
               "join thread using(utid) join process using(upid) "
               "where s.name != 'p' || process.pid || 't' || thread.tid",
               "0");
  trak_processor_free(p);
  free(text);
}

/* Closes the JSON array in `text` (n bytes; `cap` allocated, freed here) and imports it; its
** counter rows number `count` and come in timestamp order, equal timestamps in file order (each
** value is its event's index in the file), and their values add up to `sum`. */
static void assert_counters_in_order(char *text, size_t n, size_t cap, const char *count,
                                     const char *sum) {
  n += (size_t)snprintf(text + n, cap - n, "]");
  trak_processor *p = import_split(text, n, n);
  assert_query(p, "select count(*) from counter", count);
  assert_query(p,
               "select count(*) from (select ts, value, lag(ts) over (order by id) as pts, "
               "lag(value) over (order by id) as pv from counter) "
               "where pts > ts or (pts = ts and pv > value)",
               "0");
  assert_query(p, "select sum(value) from counter", sum);
  trak_processor_free(p);
  free(text);
}

/* A process's counters written out of timestamp order, with many equal timestamps, and X
** events (ties then sort by Perfetto's kinds): the sequence is sorted, and the counter rows come
** in timestamp order, equal timestamps in file order (the value is the file index). A sort that
** is unstable or merges its runs wrongly fails it. */
static void out_of_order_counters_sorted(void **state) {
  (void)state;
  size_t cap = 1 << 20, n = 0;
  char *text = malloc(cap);
  assert_non_null(text);
  n += (size_t)snprintf(text + n, cap - n,
                        "[{\"ph\":\"X\",\"name\":\"x\",\"ts\":5,\"dur\":1,"
                        "\"pid\":1,\"tid\":2}");
  uint64_t r = 0x9e3779b97f4a7c15ULL;
  for (unsigned i = 0; i < 5003; i++) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    unsigned ts = i % 700 < 350 ? (unsigned)(r % 300) : 300 + i / 4; /* random, then runs */
    n += (size_t)snprintf(text + n, cap - n,
                          ",{\"ph\":\"C\",\"name\":\"c\",\"ts\":%u,\"pid\":1,\"args\":{\"v\":%u}}",
                          ts, i);
  }
  assert_counters_in_order(text, n, cap, "5003", "12512503.0");
}

/* A process's counters (no tid: the process's sequence) written by `threads` threads in turn,
** in bursts of 1-8 values, each thread's clock its own (a thread far ahead of another): the
** sequence is a few runs in order interleaved, sorted from those runs up to 16 threads
** (event_merge.c split_runs) and as any keys past that. Equal timestamps across threads (every clock steps by 0-3) come in file
** order (the value is the file index), as with either sort. */
static void interleaved_counters_sorted(void **state) {
  (void)state;
  static const unsigned counts[] = {1, 2, 3, 4, 16, 17, 40};
  for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
    unsigned threads = counts[c];
    size_t cap = 1 << 20, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    unsigned clock[40];
    for (unsigned t = 0; t < threads; t++)
      clock[t] = 100 + 37 * t;
    n += (size_t)snprintf(text + n, cap - n, "[");
    uint64_t r = 0x2545f4914f6cdd1dULL + c;
    unsigned i = 0;
    while (i < 6000) {
      r ^= r << 13, r ^= r >> 7, r ^= r << 17;
      unsigned t = (unsigned)(r % threads), burst = 1 + (unsigned)(r >> 20) % 8;
      for (unsigned b = 0; b < burst && i < 6000; b++, i++) {
        clock[t] += (unsigned)(r >> (24 + 2 * b)) % 4;
        n += (size_t)snprintf(text + n, cap - n,
                              "%s{\"ph\":\"C\",\"name\":\"c\",\"ts\":%u,\"pid\":1,"
                              "\"args\":{\"v\":%u}}",
                              i ? "," : "", clock[t], i);
      }
    }
    assert_counters_in_order(text, n, cap, "6000", "17997000.0");
  }
}

static int scan(const char *text, int final, trak_json_value *v, trak_json_cur *c) {
  c->p = text;
  c->end = text + strlen(text);
  c->final = final;
  return trak__json_value(c, v);
}

static void tokenizer_resumes_and_rejects(void **state) {
  (void)state;
  trak_json_cur c;
  trak_json_value v;
  static const char *const cut[] = {"{\"a\": [1, 2", "\"abc\\", "tru", "-", "{\"a\""};
  for (size_t i = 0; i < sizeof cut / sizeof *cut; i++) {
    assert_int_equal(scan(cut[i], 0, &v, &c), TRAK_JSON_MORE);
    assert_int_equal(scan(cut[i], 1, &v, &c), TRAK_JSON_ERROR);
  }
  assert_int_equal(scan("12", 0, &v, &c), TRAK_JSON_MORE); /* more digits may come */
  assert_int_equal(scan("12", 1, &v, &c), TRAK_JSON_OK);
  static const char *const bad[] = {"{1: 2}", "[1 2]", "trux", "{\"a\" 1}", "-x", "1.e5", "}"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    assert_int_equal(scan(bad[i], 0, &v, &c), TRAK_JSON_ERROR);
  assert_int_equal(scan("{\"k\": [true, null, {\"x\": -1.5e-3}]} ", 0, &v, &c), TRAK_JSON_OK);
  /* A comma before a closing bracket is forgiven, as Perfetto's reader forgives it. */
  assert_int_equal(scan("{\"k\": [1, 2,], \"o\": {\"x\": 1,},} ", 0, &v, &c), TRAK_JSON_OK);
  assert_int_equal(v.kind, TRAK_JSON_OBJECT);
  assert_int_equal(v.len, 31);
  assert_int_equal(scan("[,]", 0, &v, &c), TRAK_JSON_ERROR);
  char deep[300];
  memset(deep, '[', 100);
  deep[100] = 0;
  assert_int_equal(scan(deep, 0, &v, &c), TRAK_JSON_TOO_DEEP);
  assert_ptr_equal(c.err_at, deep + 64); /* the bracket past the limit */
  trak_json_value s = {
      .kind = TRAK_JSON_STRING, .escaped = 1, .s = "a\\n\\u00e9\\ud83d\\ude00\\\"", .len = 23};
  char buf[32];
  size_t n = trak__json_unescape(&s, buf, sizeof buf);
  assert_int_equal(n, 9);
  assert_memory_equal(buf, "a\n\xc3\xa9\xf0\x9f\x98\x80\"", 9);
}

/* An event nested deeper than the nesting limit is skipped alone: the events after it are read
** (they used to be lost with the rest of the trace), in any split, also when the skipped event
** spans many reads and holds brackets in its strings; a top-level member as deep is skipped
** the same way. */
static void deep_event_skipped_alone(void **state) {
  (void)state;
  enum { DEEP = 10000, PAD = 20000 };
  size_t cap = 8 * DEEP + PAD + 4096, n = 0;
  char *t = malloc(cap);
  n += (size_t)sprintf(t + n,
                       "{\"other\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                       "[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
                       "]]]]]]]]]]]]]]]]]]],\n\"traceEvents\": [\n"
                       "{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 1, "
                       "\"pid\": 1, \"tid\": 1},\n"
                       "{\"ph\": \"X\", \"name\": \"deep\", \"ts\": 2, \"dur\": 1, "
                       "\"pid\": 1, \"tid\": 1, \"args\": {\"d\": ");
  for (int i = 0; i < DEEP; i++) /* {"k": [{"k": [ ... */
    n += (size_t)sprintf(t + n, i % 2 ? "[" : "{\"k\": ");
  n += (size_t)sprintf(t + n, "\"}]\\\" ");
  memset(t + n, 'x', PAD), n += PAD;
  t[n++] = '"';
  for (int i = DEEP - 1; i >= 0; i--)
    t[n++] = i % 2 ? ']' : '}';
  n += (size_t)sprintf(t + n, "}},\n{\"ph\": \"X\", \"name\": \"b\", \"ts\": 5, \"dur\": 1, "
                              "\"pid\": 1, \"tid\": 1}\n]}\n");
  assert_true(n < cap);
  static const size_t chunks[] = {1, 7, 64, 4096, 65536, 1 << 20};
  for (size_t i = 0; i < sizeof chunks / sizeof *chunks; i++) {
    trak_processor *p = import_split(t, n, chunks[i]);
    trak_query *q;
    assert_int_equal(trak_query_open(p, "select group_concat(name) from slice", &q, NULL, NULL), 0);
    assert_int_equal(trak_query_next(q, NULL), 1);
    assert_string_equal(trak_query_string(q, 0), "a,b");
    trak_query_free(q);
    assert_int_equal(trak_processor_stat_value(p, "json_nesting_too_deep"), 2);
    assert_int_equal(trak_processor_stat_value(p, "json_tokenizer_failure"), 0);
    assert_int_equal(trak_processor_stat_value(p, "trace_truncated"), 0);
    trak_processor_free(p);
  }
  free(t);
}

static void export_reimports(void **state) {
  (void)state;
  trak_processor *p = import_split(TRACE, sizeof TRACE - 1, sizeof TRACE);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_int_equal(trak__json_export(p, f, NULL, NULL, NULL), 0);
  fclose(f);
  trak_processor *q = import_split(buf, len, len);
  assert_int_equal(trak_processor_stat_value(q, "json_tokenizer_failure"), 0);
  assert_int_equal(trak_processor_stat_value(q, "json_parser_failure"), 0);
  char *a = digest(p), *b = digest(q);
  /* Slices, counter values and flows agree (args keys lose their "args." prefix level only
  ** to regain it, and counter tracks are renamed "<name> value"). */
  assert_memory_equal(a, b, (size_t)(strchr(a, '|') - a));
  free(a);
  free(b);
  free(buf);
  trak_processor_free(q);
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(any_split_same_tables),
      cmocka_unit_test(long_events_any_split),
      cmocka_unit_test(nested_args_flatten),
      cmocka_unit_test(short_strings_interned_apart),
      cmocka_unit_test(reals_as_strtod),
      cmocka_unit_test(long_arg_key_dropped_and_counted),
      cmocka_unit_test(legacy_json_value_nests_as_json),
      cmocka_unit_test(empty_array_trace),
      cmocka_unit_test(timestamps_from_text),
      cmocka_unit_test(tokenizer_resumes_and_rejects),
      cmocka_unit_test(deep_event_skipped_alone),
      cmocka_unit_test(export_reimports),
      cmocka_unit_test(threads_taking_turns),
      cmocka_unit_test(out_of_order_counters_sorted),
      cmocka_unit_test(interleaved_counters_sorted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
