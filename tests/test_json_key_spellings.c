/*
** The JSON reader matches the trace-event keys written plainly ("ph":) in word compares
** (json_import.c, key_fast) and reads every other spelling through the tokenizer: a generated
** trace using every key the reader knows (and decoy keys sharing their first letters: "pidx",
** "t", "flow_inx", ...) imports to the same tables whether its keys are plain, spelled with a
** space before the ':' (none of them then takes the word compares), with a space after it (the
** keys match, their values take the tokenizer: the phase's loop over its usual keys stops at
** each), or fed 1 to 23 bytes at a time (keys met with fewer than 16 bytes left take the
** tokenizer too) or 24 to 4096 (the phase's loop stops near each piece's end). A key sent to
** the wrong field, or a decoy taken for a key, changes the tables.
** The phase's loop keeps each phase's last pid and tid members and takes their values again when
** their bytes repeat (json_keys.h, trak_json_shape_key): a second trace repeats and varies their
** spellings (lengths with shared prefixes, fractions, exponents, signs, strings, escapes, the
** byte after the member: ',', '}', a space, and in the last event '-'), and must import as its
** spelling with a space before each ':' does (where nothing is kept), at once and in pieces.
** An event's "ph" and whether it had any member are set by the reader's first steps, not cleared
** with its other fields (json_import.c, event_read): a third trace puts events without "ph" (an
** unknown key "ph_" first) and empty events `{}` after events that had both, and each optional
** field in some events and not in the next; it must import as its oracle, where those events are
** `"ph":  ""` (no phase either, the same report) and spaces, on one thread and two.
*/
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "trak/processor.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next_rand(void) {
  return tu_xorshift(&rng);
}

/* The trace being written and how its keys are spelled: 0 plain, 1 with " :" after the key, 2
** with ": " after it. */
typedef struct out {
  char *s;
  size_t n, cap;
  int spaced;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (o->n + (size_t)n + 1 > o->cap) {
    o->cap = 2 * (o->n + (size_t)n + 1);
    o->s = realloc(o->s, o->cap);
    assert_non_null(o->s);
  }
  va_start(ap, fmt);
  vsnprintf(o->s + o->n, (size_t)n + 1, fmt, ap);
  va_end(ap);
  o->n += (size_t)n;
}

/* A member: `first` says whether it opens the object; the key spelled as o->spaced says. */
static void key(out *o, int first, const char *k) {
  put(o, "%s\"%s\"%s", first ? "{" : ",", k,
      o->spaced == 1   ? " :"
      : o->spaced == 2 ? ": "
                       : ":");
}

/* Writes the same events (same seed) in o's spelling. */
static void write_trace(out *o, unsigned events) {
  rng = 0x9e3779b97f4a7c15ULL;
  static const char *const decoys[] = {"pidx", "tsx",  "t",     "p",        "names", "args2",
                                       "ids",  "i",    "scope2", "flow_inx", "bind_idx",
                                       "flow_outs", "durx", "tidx", "cats", "bpx", "s2", "id22"};
  static const char *const phases[] = {"B", "E", "X", "i", "C", "s", "t", "f", "b", "e", "M"};
  put(o, "[\n");
  uint64_t ts = 1000;
  for (unsigned i = 0; i < events; i++) {
    uint64_t r = next_rand();
    const char *ph = phases[r % 11];
    unsigned pid = 10 + (unsigned)(r >> 8) % 3, tid = 100 + (unsigned)(r >> 12) % 5;
    ts += (r >> 16) % 7;
    if (i) put(o, ",%s", (r >> 20) & 1 ? "\n" : "");
    key(o, 1, "ph");
    put(o, "\"%s\"", ph);
    if (!strcmp(ph, "M")) {
      key(o, 0, "name");
      put(o, "\"%s\"", (r >> 24) & 1 ? "thread_name" : "process_name");
    } else {
      key(o, 0, "name");
      put(o, "\"n%u\"", (unsigned)(r >> 24) % 9);
      key(o, 0, "cat");
      put(o, "\"c%u\"", (unsigned)(r >> 28) % 4);
    }
    key(o, 0, "ts");
    put(o, "%llu.%03u", (unsigned long long)ts, (unsigned)(r >> 32) % 1000);
    key(o, 0, "pid");
    put(o, "%u", pid);
    key(o, 0, "tid");
    put(o, "%u", tid);
    if (!strcmp(ph, "X")) {
      key(o, 0, "dur");
      put(o, "%u", (unsigned)(r >> 36) % 5);
      key(o, 0, "tts");
      put(o, "%u", (unsigned)(r >> 40) % 100);
      key(o, 0, "tdur");
      put(o, "%u", (unsigned)(r >> 44) % 3);
    }
    if (!strcmp(ph, "i")) {
      key(o, 0, "s");
      put(o, "\"%c\"", "tpg"[(r >> 36) % 3]);
    }
    if (!strcmp(ph, "s") || !strcmp(ph, "t") || !strcmp(ph, "f") || !strcmp(ph, "b") ||
        !strcmp(ph, "e")) {
      if ((r >> 36) & 1) {
        key(o, 0, "id");
        put(o, "\"0x%x\"", (unsigned)(r >> 40) % 4);
      } else {
        key(o, 0, "id2");
        put(o, "{\"local\":\"0x%x\"}", (unsigned)(r >> 40) % 4);
      }
      key(o, 0, "scope");
      put(o, "\"sc%u\"", (unsigned)(r >> 44) % 2);
      key(o, 0, "bp");
      put(o, "\"e\"");
    }
    if ((r >> 48) % 4 == 0) {
      key(o, 0, "bind_id");
      put(o, "\"0x%x\"", (unsigned)(r >> 50) % 8);
      key(o, 0, (r >> 53) & 1 ? "flow_in" : "flow_out");
      put(o, "true");
    }
    key(o, 0, "args");
    if (!strcmp(ph, "M"))
      put(o, "{\"name\":\"m%u\"}", (unsigned)(r >> 54) % 5);
    else
      put(o, "{\"v\":%u}", (unsigned)(r >> 54) % 50);
    unsigned d = (unsigned)(r >> 58) % 4;
    for (unsigned k = 0; k < d; k++) { /* values that would change the event if taken */
      key(o, 0, decoys[(i + k) % (sizeof decoys / sizeof *decoys)]);
      put(o, "%s", k & 1 ? "\"0x7\"" : "9");
    }
    put(o, "}");
  }
  put(o, "\n]\n");
}

/* Imports the trace fed `chunk` bytes at a time (0: at once; -1: 1 to 23 at random; -2: 24 to
** 4096 at random) and exports its tables to `db`. */
static void import_export(const out *o, int chunk, const char *db) {
  trak_processor *p;
  assert_int_equal(trak_processor_new(NULL, &p, NULL), 0);
  for (size_t at = 0; at < o->n;) {
    size_t n = chunk > 0     ? (size_t)chunk
               : chunk == -1 ? 1 + next_rand() % 23
               : chunk == -2 ? 24 + next_rand() % 4073
                             : o->n;
    if (n > o->n - at) n = o->n - at;
    assert_int_equal(trak_processor_feed(p, o->s + at, n, NULL), 0);
    at += n;
  }
  assert_int_equal(trak_processor_finish(p, NULL), 0);
  assert_int_equal(trak_processor_export(p, db, NULL), 0);
  trak_processor_free(p);
}

/* Writes events whose pid and tid members run in repeats of spellings picked from a list. */
static void write_ids_trace(out *o, unsigned events) {
  rng = 0x2545f4914f6cdd1dULL;
  static const char *const ids[] = {"102",    "1023",   "10",      "1",       "102.5",  "-102",
                                    "102e1",  "1.0",    "\"102\"", "\"10\\u0032\"", "12345678",
                                    "123456789", "0",   "007",     "102 ",    "\"\"", "99999999999999999999"};
  static const char *const ends[] = {"}", "}", " }", ",\"args\":{}}", ",\"s\":\"t\"}"};
  static const char *const phases[] = {"B", "E", "X", "i"};
  const size_t nids = sizeof ids / sizeof *ids;
  unsigned pid = 0, tid = 0;
  uint64_t ts = 1000;
  put(o, "[\n");
  for (unsigned i = 0; i < events; i++) {
    uint64_t r = next_rand();
    if (r % 8 == 0) pid = (unsigned)((r >> 8) % nids); /* runs of one spelling, then another */
    if ((r >> 3) % 6 == 0) tid = (unsigned)((r >> 16) % nids);
    const char *ph = phases[(r >> 24) % 4];
    ts += 1 + (r >> 28) % 5;
    if (i) put(o, ",\n");
    key(o, 1, "ph");
    put(o, "\"%s\"", ph);
    key(o, 0, "name");
    put(o, "\"n%u\"", (unsigned)(r >> 32) % 3);
    key(o, 0, "ts");
    put(o, "%llu", (unsigned long long)ts);
    if (!strcmp(ph, "X")) {
      key(o, 0, "dur");
      put(o, "1");
    }
    key(o, 0, "pid");
    put(o, "%s", ids[pid]);
    key(o, 0, "tid");
    put(o, "%s", ids[tid]);
    put(o, "%s", ends[(r >> 44) % 5]);
  }
  /* The last event repeats the one before's members but for a byte after its tid that ends the
  ** number as ',' would, and the trace there (a syntax error). */
  put(o, ",\n");
  key(o, 1, "ph");
  put(o, "\"i\"");
  key(o, 0, "name");
  put(o, "\"n0\"");
  key(o, 0, "ts");
  put(o, "%llu", (unsigned long long)ts);
  key(o, 0, "pid");
  put(o, "%s", ids[pid]);
  key(o, 0, "tid");
  put(o, "%s-}\n]\n", ids[tid]);
}

/* Writes events whose optional fields come and go, events without "ph" and empty ones, all plainly
** spelled; as the oracle (`oracle` 1) the same bytes but for `"ph":  ""` in place of `"ph_":"X"`
** and spaces in place of `,{}`. */
static void write_absent_trace(out *o, unsigned events, int oracle) {
  rng = 0x6a09e667f3bcc909ULL;
  static const char *const phases[] = {"B", "E", "X", "i", "C"};
  uint64_t ts = 1000;
  put(o, "[\n");
  for (unsigned i = 0; i < events; i++) {
    uint64_t r = next_rand(), f = next_rand();
    ts += 1 + (r >> 8) % 5;
    if (i && r % 7 == 0) put(o, "%s", oracle ? "   " : ",{}"); /* an empty event */
    if (i) put(o, ",\n");
    if ((r >> 4) % 6 == 0) /* no phase */
      put(o, "{%s", oracle ? "\"ph\":  \"\"" : "\"ph_\":\"X\"");
    else
      put(o, "{\"ph\":\"%s\"", phases[(r >> 12) % 5]);
    /* each optional field in about half of the events, in the usual order */
    if (f & 1) put(o, ",\"name\":\"n%u\"", (unsigned)(r >> 16) % 4);
    if (f & 2) put(o, ",\"cat\":\"c%u\"", (unsigned)(r >> 20) % 3);
    put(o, ",\"ts\":%llu", (unsigned long long)ts);
    if (f & 4) put(o, ",\"dur\":%u", (unsigned)(r >> 24) % 4);
    put(o, ",\"pid\":%u,\"tid\":%u", 10 + (unsigned)(r >> 28) % 2, 100 + (unsigned)(r >> 30) % 3);
    if (f & 8) put(o, ",\"tts\":%u", (unsigned)(r >> 32) % 50);
    if (f & 16) put(o, ",\"tdur\":%u", (unsigned)(r >> 36) % 3);
    if (f & 32) put(o, ",\"s\":\"%c\"", "tpg"[(r >> 40) % 3]);
    if (f & 64) put(o, ",\"id\":\"0x%x\"", (unsigned)(r >> 42) % 4);
    if (f & 128) put(o, ",\"id2\":{\"local\":\"0x%x\"}", (unsigned)(r >> 44) % 4);
    if (f & 256) put(o, ",\"scope\":\"sc%u\"", (unsigned)(r >> 46) % 2);
    if (f & 512) put(o, ",\"bp\":\"e\"");
    if (f & 1024) put(o, ",\"bind_id\":\"0x%x\"", (unsigned)(r >> 48) % 8);
    if (f & 2048) put(o, ",\"flow_in\":true");
    if (f & 4096) put(o, ",\"flow_out\":true");
    if (f & 8192) put(o, ",\"args\":{\"v\":%u}", (unsigned)(r >> 52) % 50);
    put(o, "}");
  }
  put(o, "\n]\n");
}

/* Imports `plain` at once, each of the n traces `others` at once and `plain` fed 1 to 23 and 24 to
** 4096 bytes at a time: each export must be the first's (`what`: what the others are); the first
** must hold more than `min` bytes. */
static void assert_import_alike(const out *plain, const out *const *others,
                                const char *const *what, size_t n, size_t min) {
  char a[] = "/tmp/trak_keyspell_a_XXXXXX", b[] = "/tmp/trak_keyspell_b_XXXXXX";
  tu_temp_file(a);
  tu_temp_file(b);
  import_export(plain, 0, a);
  for (size_t i = 0; i < n; i++) {
    import_export(others[i], 0, b);
    tu_assert_same_file(a, b, what[i]);
  }
  import_export(plain, -1, b);
  tu_assert_same_file(a, b, "the plain trace at once against fed 1 to 23 bytes at a time");
  import_export(plain, -2, b);
  tu_assert_same_file(a, b, "the plain trace at once against fed 24 to 4096 bytes at a time");
  size_t len;
  free(tu_read_file(a, &len));
  assert_true(len > min); /* the events were imported */
  unlink(a);
  unlink(b);
}

static void test_kept_members_import_alike(void **state) {
  (void)state;
  out plain = {0}, spaced = {0};
  spaced.spaced = 1;
  write_ids_trace(&plain, 20000);
  write_ids_trace(&spaced, 20000);
  const out *others[] = {&spaced};
  const char *what[] = {"kept pid and tid members against keys spelled with a space before ':'"};
  assert_import_alike(&plain, others, what, 1, 50000);
  free(plain.s);
  free(spaced.s);
}

static void test_key_spellings_import_alike(void **state) {
  (void)state;
  out plain = {0}, spaced = {0}, valued = {0};
  spaced.spaced = 1;
  valued.spaced = 2;
  write_trace(&plain, 20000);
  write_trace(&spaced, 20000);
  write_trace(&valued, 20000);
  assert_true(plain.n != spaced.n && valued.n == spaced.n);
  const out *others[] = {&spaced, &valued};
  const char *what[] = {"plain keys against keys spelled with a space before ':'",
                        "plain keys against keys spelled with a space after ':'"};
  assert_import_alike(&plain, others, what, 2, 100000);
  free(plain.s);
  free(spaced.s);
  free(valued.s);
}

static void test_absent_fields_import_alike(void **state) {
  (void)state;
  out plain = {0}, oracle = {0};
  write_absent_trace(&plain, 20000, 0);
  write_absent_trace(&oracle, 20000, 1);
  assert_int_equal(plain.n, oracle.n);
  const out *others[] = {&oracle};
  const char *what[] = {"events without ph and empty ones against their oracle"};
  for (int threads = 1; threads <= 2; threads++) {
    assert_int_equal(setenv("TRAK_IMPORT_THREADS", threads == 1 ? "1" : "2", 1), 0);
    assert_import_alike(&plain, others, what, 1, 50000);
  }
  unsetenv("TRAK_IMPORT_THREADS");
  free(plain.s);
  free(oracle.s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_key_spellings_import_alike),
      cmocka_unit_test(test_kept_members_import_alike),
      cmocka_unit_test(test_absent_fields_import_alike),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
