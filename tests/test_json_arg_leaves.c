/*
** A JSON trace event's args read into leaves on the decoding thread (json_leaves.c): the walk
** numbers each key once in its dictionary (found again whatever the order of the members, told
** apart by parent object), tries the key that followed the last one first (a different order, a
** new key, another parent must each miss it), types each value as an args row holds it, and
** leaves every other shape (arrays, escapes, whitespace before ':', a trailing comma, long or
** deep keys, invalid UTF-8 names, a cut object, a full dictionary) to the tokenizer untouched.
** Then whole traces of events that change their args from one event to the next (same name
** with keys in another order, a new key, other values and types, nested objects and arrays)
** import to the same tables and import log with the leaves, without them (the plain
** flattening, TRAK_JSON_KEY_MEMO=0), on two threads and fed 1 to 23 bytes at a time; and a
** trace whose arg sets mostly repeat, whose sharing the importer's thread holds back, the same
** on one thread and two; sets with a key twice and sets read from the text share one id with
** their equals from the leaves, and string values come back through the string cache. Args
** objects read as the kept shape of the last one (same text outside the values) give the leaves
** the member-by-member walk gives, whole or cut at any byte, and traces of many shapes import
** alike with the kept shapes and without (TRAK_JSON_SHAPES=0). String values plain and escaped,
** short and long, import alike and to one id per string.
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

#include "processor/import/json/json_leaves.h"
#include "processor/tables/storage.h"
#include "testutil.h"
#include "trak/processor.h"

/* A dictionary and the leaves the walks made. */
typedef struct walker {
  trak_json_dict d;
  trak_json_leaf *v;
  size_t n, cap;
  char *text; /* the text walked last */
} walker;

/* Walks `text`: cut there when not `final`, else followed by spaces (room for the word
** compares of the key tried first). Returns the walk's answer, with *used the bytes it stepped
** over; the leaves' string offsets count from w->text. */
static int walk_text(walker *w, const char *text, int final, size_t *used) {
  size_t n = strlen(text), pad = final ? 48 : 0;
  w->text = realloc(w->text, n + pad ? n + pad : 1); /* not a byte more: ASan sees reads past */
  assert_non_null(w->text);
  memcpy(w->text, text, n);
  memset(w->text + n, ' ', pad);
  trak_json_cur c = {w->text, w->text + n + pad, final, NULL, NULL};
  trak_json_leaves out = {&w->v, &w->n, &w->cap};
  trak_json_value v = {0};
  int ok = trak__json_leaves_read(&w->d, &out, &c, &v);
  *used = (size_t)(c.p - w->text);
  if (ok) {
    assert_int_equal(v.kind, TRAK_JSON_OBJECT);
    assert_ptr_equal(v.s, w->text);
    assert_int_equal(v.len, *used);
  }
  return ok;
}

/* Asserts leaf `i` is of `type` under `key`; returns it. */
static const trak_json_leaf *leaf_is(const walker *w, size_t i, int type, const char *key) {
  assert_true(i < w->n);
  const trak_json_leaf *l = &w->v[i];
  assert_int_equal(l->type, type);
  const trak_json_dict_entry *e = &w->d.entry[l->key];
  if (e->key_len != strlen(key) || memcmp(e->key, key, e->key_len))
    fail_msg("leaf %zu: key '%.*s', expected '%s'", i, (int)e->key_len, e->key, key);
  return l;
}

static void test_leaves_of_one_object(void **state) {
  (void)state;
  walker w = {0};
  trak__json_dict_init(&w.d);
  const char *text =
      "{\"a\":1,\"b\":\"x\\\"y\", \"c\" :7}"; /* whitespace before ':': the tokenizer's */
  size_t used;
  assert_int_equal(walk_text(&w, text, 1, &used), 0);
  assert_int_equal(used, 0);
  assert_int_equal(w.n, 0);
  text = "{\"a\":1,\"b\":\"x\\\"y\",\"c\":{\"d\":true,\"e\":null,\"f\":false},\"g\":-2.5,"
         "\"u\":18446744073709551615}";
  assert_int_equal(walk_text(&w, text, 1, &used), 1);
  assert_int_equal(used, strlen(text));
  assert_int_equal(w.n, 6); /* null makes no row */
  assert_int_equal(leaf_is(&w, 0, TRAK_ARG_INT, "args.a")->v.i, 1);
  const trak_json_leaf *b = leaf_is(&w, 1, TRAK_ARG_STRING, "args.b");
  assert_int_equal(b->escaped, 1);
  assert_int_equal(b->len, 4);
  assert_memory_equal(w.text + b->v.off, "x\\\"y", 4);
  assert_int_equal(leaf_is(&w, 2, TRAK_ARG_BOOL, "args.c.d")->v.i, 1);
  assert_int_equal(leaf_is(&w, 3, TRAK_ARG_BOOL, "args.c.f")->v.i, 0);
  assert_true(leaf_is(&w, 4, TRAK_ARG_REAL, "args.g")->v.r == -2.5);
  assert_true(leaf_is(&w, 5, TRAK_ARG_REAL, "args.u")->v.r == -1.0); /* Perfetto's bits */
  trak__json_dict_free(&w.d);
  free(w.v);
  free(w.text);
}

/* The same keys in another order, a new key, the same name under another parent: each is the
** key it names, though the key tried first (the one that followed the last) is another. */
static void test_keys_in_another_order(void **state) {
  (void)state;
  walker w = {0};
  trak__json_dict_init(&w.d);
  size_t used;
  assert_int_equal(walk_text(&w, "{\"a\":1,\"b\":2,\"c\":3}", 1, &used), 1);
  uint16_t a = w.v[0].key, b = w.v[1].key, c = w.v[2].key;
  assert_int_equal(walk_text(&w, "{\"a\":1,\"b\":2,\"c\":3}", 1, &used), 1); /* as predicted */
  assert_int_equal(walk_text(&w, "{\"c\":4,\"a\":5,\"b\":6}", 1, &used), 1);
  assert_int_equal(walk_text(&w, "{\"a\":7,\"d\":8,\"b\":9}", 1, &used), 1);
  assert_int_equal(walk_text(&w, "{\"x\":{\"a\":10,\"b\":11},\"a\":12}", 1, &used), 1);
  assert_int_equal(walk_text(&w, "{\"ab\":13,\"a\":14,\"abcdefghi\":15}", 1, &used), 1);
  static const char *const keys[] = {"args.a",  "args.b", "args.c",        "args.a",   "args.b",
                                     "args.c",  "args.c", "args.a",        "args.b",   "args.a",
                                     "args.d",  "args.b", "args.x.a",      "args.x.b", "args.a",
                                     "args.ab", "args.a", "args.abcdefghi"};
  assert_int_equal(w.n, sizeof keys / sizeof *keys);
  for (size_t i = 0; i < w.n; i++) {
    assert_int_equal(leaf_is(&w, i, TRAK_ARG_INT, keys[i])->v.i, i < 6 ? i % 3 + 1 : i - 2);
    if (!strcmp(keys[i], "args.a")) assert_int_equal(w.v[i].key, a);
    if (!strcmp(keys[i], "args.b")) assert_int_equal(w.v[i].key, b);
    if (!strcmp(keys[i], "args.c")) assert_int_equal(w.v[i].key, c);
  }
  assert_int_equal(w.d.n, 9); /* a b c d x x.a x.b ab abcdefghi: x has no row of its own */
  trak__json_dict_free(&w.d);
  free(w.v);
  free(w.text);
}

/* The key tried first has the member's name but another parent: not that key. */
static void test_same_name_under_another_parent(void **state) {
  (void)state;
  walker w = {0};
  trak__json_dict_init(&w.d);
  size_t used;
  assert_int_equal(walk_text(&w, "{\"p\":{\"a\":1},\"a\":2}", 1, &used), 1);
  assert_int_equal(walk_text(&w, "{\"p\":{\"a\":3,\"a\":4},\"a\":5}", 1, &used), 1);
  static const char *const keys[] = {"args.p.a", "args.a", "args.p.a", "args.p.a", "args.a"};
  assert_int_equal(w.n, 5);
  for (size_t i = 0; i < w.n; i++)
    assert_int_equal(leaf_is(&w, i, TRAK_ARG_INT, keys[i])->v.i, i + 1);
  trak__json_dict_free(&w.d);
  free(w.v);
  free(w.text);
}

/* Shapes left to the tokenizer: nothing is consumed and no leaf is left behind. */
static void test_other_shapes_left_to_the_tokenizer(void **state) {
  (void)state;
  walker w = {0};
  trak__json_dict_init(&w.d);
  char deep[400], long_key[200];
  int n = 0;
  for (int i = 0; i <= TRAK_JSON_DICT_DEPTH; i++) /* the args object and 8 more */
    n += snprintf(deep + n, sizeof deep - (size_t)n, "{\"d\":");
  n += snprintf(deep + n, sizeof deep - (size_t)n, "1");
  for (int i = 0; i <= TRAK_JSON_DICT_DEPTH; i++)
    deep[n++] = '}';
  deep[n] = 0;
  snprintf(long_key, sizeof long_key, "{\"k\":1,\"o\":{\"%s\":{\"%s\":1}}}",
           "abcdefghijklmnopqrstuvwxyz01234", "abcdefghijklmnopqrstuvwxyz01234");
  const char *const shapes[] = {
      "{\"k\":1,\"a\":[1,2]}",                             /* an array */
      "{\"k\":1,\"e\\u0041\":2}",                          /* an escaped name */
      "{\"k\":1,\"\":2}",                                  /* an empty name */
      "{\"k\":1,\"abcdefghijklmnopqrstuvwxyz0123456\":2}", /* a name of 33 bytes */
      "{\"k\":1 , \"m\":2}",                               /* whitespace is fine, */
      "{\"k\":1,\"m\":2,}",                                /* but not a trailing comma */
      "{\"k\":1,\"bad\xff\":2}",                           /* a name of invalid UTF-8 */
      "{\"k\":1,\"m\":tru}",                               /* not valid */
      "{\"k\":1,\"m\":2 3}",
      "{\"k\":1,\"m\":\"open", /* cut */
      "{\"k\":1,\"m\":12",
      long_key,
      deep,
  };
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    size_t used, before = w.n;
    int ok = walk_text(&w, shapes[i], 0, &used);
    if (i == 4) {
      assert_int_equal(ok, 1);
      continue;
    }
    if (ok || used || w.n != before) fail_msg("shape %zu (%s) was walked", i, shapes[i]);
  }
  /* a key of 63 bytes is numbered; of 64, not ("args." and 26 letters, "." and 31 or 32) */
  size_t used;
  const char *k63 = "{\"abcdefghijklmnopqrstuvwxyz\":{\"abcdefghijklmnopqrstuvwxyz01234\":1}}",
             *k64 = "{\"abcdefghijklmnopqrstuvwxyz\":{\"abcdefghijklmnopqrstuvwxyz012345\":1}}";
  assert_int_equal(walk_text(&w, k63, 1, &used), 1);
  assert_int_equal(walk_text(&w, k64, 1, &used), 0);
  /* one level less walks (the text's last brace is then one too many: the walk stops before) */
  assert_int_equal(walk_text(&w, deep + 5, 1, &used), 1);
  assert_int_equal(used, strlen(deep + 5) - 1);
  trak__json_dict_free(&w.d);
  free(w.v);
  free(w.text);
}

/* Past TRAK_JSON_DICT_MAX keys a new key is left to the tokenizer; numbered ones still walk. */
static void test_full_dictionary(void **state) {
  (void)state;
  walker w = {0};
  trak__json_dict_init(&w.d);
  char text[64];
  size_t used;
  for (unsigned i = 0; i < TRAK_JSON_DICT_MAX; i++) {
    snprintf(text, sizeof text, "{\"k%u\":%u}", i, i);
    assert_int_equal(walk_text(&w, text, 1, &used), 1);
  }
  assert_int_equal(w.d.n, TRAK_JSON_DICT_MAX);
  assert_int_equal(walk_text(&w, "{\"k1\":1,\"new\":2}", 1, &used), 0);
  assert_int_equal(walk_text(&w, "{\"k8191\":1,\"k0\":2}", 1, &used), 1);
  leaf_is(&w, w.n - 2, TRAK_ARG_INT, "args.k8191");
  leaf_is(&w, w.n - 1, TRAK_ARG_INT, "args.k0");
  trak__json_dict_free(&w.d);
  free(w.v);
  free(w.text);
}

/* ---- whole traces ------------------------------------------------------------------------ */

/* Writes one event's args: the same event names come back with their args changed. */
static void write_args(FILE *f, unsigned i, uint64_t r) {
  switch (r % 14) {
  case 0:
    fprintf(f, "{\"a\":%u,\"b\":\"s%u\",\"c\":{\"d\":true}}", i, i % 7);
    break;
  case 1: /* the same keys in another order */
    fprintf(f, "{\"c\":{\"d\":false},\"a\":%u,\"b\":\"s%u\"}", i, i % 5);
    break;
  case 2: /* a new key among them */
    fprintf(f, "{\"a\":%u,\"n%u\":1,\"b\":\"t\"}", i, (unsigned)(r >> 8) % 300);
    break;
  case 3: /* other types under the same keys */
    fprintf(f, "{\"a\":\"str\",\"b\":%u.5,\"c\":null}", i);
    break;
  case 4: /* a scalar turned object, an object turned scalar */
    fprintf(f, "{\"a\":{\"x\":1},\"c\":2}");
    break;
  case 5: /* arrays, of objects too */
    fprintf(f, "{\"a\":[1,{\"b\":2},null,[3]],\"b\":{\"c\":[]},\"d\":4}");
    break;
  case 6: /* nesting past the walk's depth */
    fprintf(f, "{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":{\"g\":{\"h\":{\"i\":1}}}}}}}},\"z\":1}");
    break;
  case 7: /* escapes, duplicates, numbers of every kind */
    fprintf(f, "{\"s\":\"a\\nb\\u00e9\",\"a\":1,\"a\":\"two\",\"n\":-0.0,\"e\":1e400,"
               "\"u\":18446744073709551615,\"i\":-9223372036854775808,\"f\":2E-3}");
    break;
  case 8: /* whitespace, a trailing comma, an empty object */
    fprintf(f, " { \"a\" : 1 , \"b\" : { } , } ");
    break;
  case 9: /* an escaped or invalid UTF-8 name */
    fprintf(f, "{\"a\":1,\"\\u0062\":2,\"c\xff\":3}");
    break;
  case 10: /* the same name under other parents */
    fprintf(f, "{\"p\":{\"a\":1,\"b\":{\"a\":2}},\"a\":3}");
    break;
  case 11:
    fprintf(f, "{}");
    break;
  default: /* many distinct keys: past the dictionary's TRAK_JSON_DICT_MAX */
    fprintf(f, "{\"k%u\":%u,\"k%u\":1,\"a\":1,\"k%u\":2,\"k%u\":3}", (unsigned)(r >> 8) % 20000, i,
            (unsigned)(r >> 20) % 20000, (unsigned)(r >> 32) % 20000, (unsigned)(r >> 44) % 20000);
    break;
  }
}

static void write_trace(const char *path, unsigned events) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  uint64_t r = 0x9e3779b97f4a7c15ULL;
  fputs("{\"traceEvents\":[\n", f);
  for (unsigned i = 0; i < events; i++) {
    tu_xorshift(&r);
    static const char *const kinds[] = {"\"ph\":\"B\"",
                                        "\"ph\":\"E\"",
                                        "\"ph\":\"X\",\"dur\":3",
                                        "\"ph\":\"i\",\"s\":\"t\"",
                                        "\"ph\":\"C\"",
                                        "\"ph\":\"b\",\"id\":\"0x7\"",
                                        "\"ph\":\"e\",\"id\":\"0x7\""};
    /* args before the phase on some events: read into leaves before the phase is known */
    int args_first = (r >> 40) % 3 == 0;
    fprintf(f, "%s{", i ? ",\n" : "");
    if (args_first) {
      fputs("\"args\":", f);
      write_args(f, i, r);
      fputc(',', f);
    }
    fprintf(f, "%s,\"name\":\"ev%u\",\"cat\":\"c\",\"ts\":%u,\"pid\":1,\"tid\":%u", kinds[i % 7],
            i % 6, 10 * i, 1 + i % 3);
    if (!args_first) {
      fputs(",\"args\":", f);
      write_args(f, i, r);
    }
    if ((r >> 50) % 9 == 0) { /* a second args member: the later one counts */
      fputs(",\"args\":", f);
      write_args(f, i + 1, r >> 3);
    }
    fputc('}', f);
  }
  fputs("\n]}\n", f);
  assert_int_equal(fclose(f), 0);
}

/* Imports `path` (TRAK_JSON_KEY_MEMO and TRAK_IMPORT_THREADS set to memo and threads, NULL:
** unset) by file, or fed 1 to 23 bytes at a time with `pieces`, and exports its tables and
** import log to `db`. */
static void export_with(const char *path, const char *memo, const char *threads, int pieces,
                        const char *db) {
  if (memo) setenv("TRAK_JSON_KEY_MEMO", memo, 1);
  if (threads) setenv("TRAK_IMPORT_THREADS", threads, 1);
  trak_processor *p;
  if (!pieces) {
    assert_int_equal(trak_processor_open_file(path, NULL, &p, NULL), 0);
  } else {
    size_t n;
    char *data = tu_read_file(path, &n);
    uint64_t r = 12345;
    assert_int_equal(trak_processor_new(NULL, &p, NULL), 0);
    for (size_t at = 0; at < n;) {
      size_t k = 1 + tu_xorshift(&r) % 23;
      if (k > n - at) k = n - at;
      assert_int_equal(trak_processor_feed(p, data + at, k, NULL), 0);
      at += k;
    }
    assert_int_equal(trak_processor_finish(p, NULL), 0);
    free(data);
  }
  unsetenv("TRAK_JSON_KEY_MEMO");
  unsetenv("TRAK_IMPORT_THREADS");
  assert_int_equal(tu_export(p, db), 0);
  trak_processor_free(p);
}

static void assert_imports_alike_kept(void (*write)(const char *, unsigned), unsigned events,
                                      size_t min_bytes, char *trace);

/* Writes a trace of `events` events with `write` and asserts that it imports to the same tables
** and import log with the leaves and without them, on one thread and two, by file and fed 1 to
** 23 bytes at a time; its export is over `min_bytes` (the events and their args were imported). */
static void assert_imports_alike(void (*write)(const char *, unsigned), unsigned events,
                                 size_t min_bytes) {
  char trace[] = "/tmp/trak_leaves_trace_XXXXXX";
  assert_imports_alike_kept(write, events, min_bytes, trace);
  unlink(trace);
}

/* assert_imports_alike, the trace left at `trace` (a tu_temp_file template, filled in) for the
** caller's queries; the caller unlinks it. */
static void assert_imports_alike_kept(void (*write)(const char *, unsigned), unsigned events,
                                      size_t min_bytes, char *trace) {
  tu_temp_file(trace);
  write(trace, events);
  char a[] = "/tmp/trak_leaves_a_XXXXXX", b[] = "/tmp/trak_leaves_b_XXXXXX";
  tu_temp_file(a);
  tu_temp_file(b);
  export_with(trace, NULL, "1", 0, a);
  export_with(trace, "0", "1", 0, b);
  tu_assert_same_file(a, b, "leaves against the plain flattening");
  export_with(trace, NULL, "2", 0, b);
  tu_assert_same_file(a, b, "one thread against two");
  export_with(trace, NULL, NULL, 1, b);
  tu_assert_same_file(a, b, "at once against fed 1 to 23 bytes at a time");
  size_t n;
  free(tu_read_file(a, &n));
  assert_true(n > min_bytes);
  unlink(a);
  unlink(b);
}

static void test_traces_import_alike(void **state) {
  (void)state;
  assert_imports_alike(write_trace, 30000, 1000000);
}

/* A trace whose events' arg sets mostly repeat an earlier one (shared), in runs that fill the
** importer's held sets (json_events.c: JSON_HOLD of them wait to be shared, and a shared one's
** rows give way to the later ones), between unique sets, args the leaves do not take (arrays:
** shared at once) and counters (their sets shared at once too), over three threads. */
static void write_shared_trace(const char *path, unsigned events) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  uint64_t r = 0x2545f4914f6cdd1dULL;
  fputs("{\"traceEvents\":[\n", f);
  for (unsigned i = 0; i < events; i++) {
    tu_xorshift(&r);
    fprintf(f, "%s{\"ph\":\"%c\",\"name\":\"n%u\",\"ts\":%u,\"pid\":1,\"tid\":%u", i ? ",\n" : "",
            i % 17 == 0 ? 'C' : "BEXi"[r % 4], i % 5, 10 * i, 1 + (unsigned)(r >> 8) % 3);
    if (i % 17 != 0 && "BEXi"[r % 4] == 'X') fputs(",\"dur\":2", f);
    unsigned kind = (unsigned)(r >> 16) % 10;
    if (i % 17 == 0)
      fprintf(f, ",\"args\":{\"v\":%u}", i % 3);
    else if (kind < 6) /* one of three sets met again and again */
      fprintf(f, ",\"args\":{\"a\":%u,\"s\":\"x\",\"o\":{\"ok\":true}}", kind % 3);
    else if (kind < 8) /* a set of its own */
      fprintf(f, ",\"args\":{\"a\":%u,\"s\":\"y\"}", i);
    else if (kind == 8) /* an array: read from the text */
      fprintf(f, ",\"args\":{\"l\":[%u]}", i % 2);
    fputc('}', f);
  }
  fputs("\n]}\n", f);
  assert_int_equal(fclose(f), 0);
}

static void test_shared_sets_alike(void **state) {
  (void)state;
  assert_imports_alike(write_shared_trace, 20000, 500000);
}

/* Sets the leaves make (keys known to repeat by their string ids: one name twice, a dotted name
** and a nested one that spell one key) and the same sets read from the text (a space before ':'
** sends the object to the tokenizer), with string values cycling through 3,000 distinct ones
** (the string cache's slot pairs): event i is a slice named "k<i % 7>" at 10 i us. */
static void write_keyed_trace(const char *path, unsigned events) {
  static const char *const args[] = {
      "{\"a\":1,\"b\":\"s\"}",       /* leaves */
      "{\"a\" :1,\"b\":\"s\"}",      /* the same set from the text */
      "{\"x.y\":1,\"x\":{\"y\":2}}", /* one key twice: the later value, in the first place */
      "{\"x\":{\"y\":2}}",           /* the same set */
      "{\"a\":1,\"a\":\"s\"}",       /* one name twice */
      "{\"a\" :\"s\"}",              /* the same set from the text */
  };
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("{\"traceEvents\":[\n", f);
  for (unsigned i = 0; i < events; i++) {
    fprintf(f,
            "%s{\"ph\":\"X\",\"dur\":1,\"name\":\"k%u\",\"ts\":%u,\"pid\":1,\"tid\":%u,\"args\":",
            i ? ",\n" : "", i % 7, 10 * i, 1 + i % 2);
    if (i % 7 < 6)
      fputs(args[i % 7], f);
    else
      fprintf(f, "{\"v\":\"w%u\",\"n\":%u}", (i / 7) % 3000, i % 3);
    fputc('}', f);
  }
  fputs("\n]}\n", f);
  assert_int_equal(fclose(f), 0);
}

/* tu_query_int over the trace at `path` read on two threads. */
static int64_t query_int(const char *path, const char *sql) {
  setenv("TRAK_IMPORT_THREADS", "2", 1);
  int64_t v = tu_query_int(path, sql);
  unsetenv("TRAK_IMPORT_THREADS");
  return v;
}

static void test_repeated_keys_and_paths_share(void **state) {
  (void)state;
  char trace[] = "/tmp/trak_leaves_keyed_XXXXXX";
  assert_imports_alike_kept(write_keyed_trace, 21000, 500000, trace);
  /* a set from leaves and its equal from the text (or with a key dropped) share one id */
  static const char *const pairs[] = {"'k0','k1'", "'k2','k3'", "'k4','k5'"};
  char sql[256];
  for (int k = 0; k < 3; k++) {
    snprintf(
        sql, sizeof sql,
        "select count(distinct arg_set_id) * 10 + count(*) / 1000 from slice where name in (%s)",
        pairs[k]);
    assert_int_equal(query_int(trace, sql), 10 + 6);
  }
  /* one row, the later value */
  assert_int_equal(query_int(trace, "select count(*) * 10 + sum(int_value) from args where "
                                    "arg_set_id = (select arg_set_id from slice where name = 'k2' "
                                    "limit 1)"),
                   1 * 10 + 2);
  assert_int_equal(query_int(trace, "select count(*) * 10 + sum(string_value = 's') from args "
                                    "where arg_set_id = (select arg_set_id from slice where name "
                                    "= 'k4' limit 1)"),
                   1 * 10 + 1);
  /* each string value read back as written, through the cache's slot pairs */
  assert_int_equal(query_int(trace, "select count(*) from slice join args using (arg_set_id) "
                                    "where slice.name = 'k6' and key = 'args.v' and string_value "
                                    "= 'w' || ((ts / 70000) % 3000)"),
                   3000);
  unlink(trace);
}

/* Args objects of many shapes, each after the last (each twice, the list twice over): ones that
** match the kept object outside their values (other values, types, spellings), and ones that
** differ from it at a key, by a key more or less, in whitespace, nesting, escapes in keys, long
** names, or that are not valid (the last SHAPES_INVALID). */
static const char *const shape_texts[] = {
    "{\"size\":1,\"url\":\"a\",\"info\":{\"ok\":true}}",
    "{\"size\":22,\"url\":\"bb\\\"c\",\"info\":{\"ok\":false}}",
    "{\"size\":\"s\",\"url\":3.25,\"info\":{\"ok\":null}}",
    "{\"size\":-7e2,\"url\":12345678901234567890,\"info\":{\"ok\":\"\\u00e9\"}}",
    "{\"size\":1,\"url\":\"a\",\"info\":{\"ok\":{\"no\":1}}}",
    "{\"size\":1,\"url\":\"a\",\"info\":{\"ok\":[1]}}",
    "{\"size\":1,\"uri\":\"a\",\"info\":{\"ok\":true}}",
    "{\"size\":1,\"uri\":\"a\",\"info\":{\"ok\":true},\"x\":2}",
    "{\"size\":1,\"uri\":\"a\"}",
    "{\"size\":1, \"uri\":\"a\"}",
    "{\"size\":1,\"uri\":\"a\" }",
    "{ \"size\":1,\"uri\":\"a\"}",
    "{\"size\" :1,\"uri\":\"a\"}",
    "{\"s\\u0069ze\":1,\"uri\":\"a\"}",
    "{\"size\":1,\"size\":2}",
    "{\"size\":1,\"size\":{\"size\":-0.0e5}}",
    "{\"size\":1,\"size\":{\"size\":1E400}}",
    "{}",
    "{ }",
    "{\"a\":{}}",
    "{\"a\":{},\"b\":1}",
    "{\"a\":{\"b\":{}},\"c\":1}",
    "{\"a\":\"\\ud800\"}",
    "{\"abcdefghijklmnopqrstuvwxyz0123\":1,\"abcdefghijklmnopqrstuvwxyz0124\":\"x\"}",
    "{\"abcdefghijklmnopqrstuvwxyz0123\":22,\"abcdefghijklmnopqrstuvwxyz0124\":\"yy\"}",
    "{\"abcdefghijklmnopqrstuvwxyz0123\":22,\"abcdefghijklmnopqrstuvwxyz0125\":\"yy\"}",
    "{\"p\":{\"q\":{\"r\":{\"s\":1}}},\"t\":\"u\"}",
    "{\"p\":{\"q\":{\"r\":{\"s\":\"1\"}}},\"t\":2}",
    "{\"p\":{\"q\":{\"r\":{\"z\":\"1\"}}},\"t\":2}",
    /* not valid (the last SHAPES_INVALID): left out of traces */
    "{\"a\":tru}",
    "{\"a\":true,}",
    "{\"a\":truex}",
    "{\"a\":1.}",
    "{\"a\":1}x",
};
#define SHAPES_INVALID 5

/* Asserts that walker a's leaves from `from_a` on are walker b's from `from_b` on (keys by
** name: the dictionaries number them apart). */
static void assert_same_leaves(const walker *a, size_t from_a, const walker *b, size_t from_b) {
  assert_int_equal(a->n - from_a, b->n - from_b);
  for (size_t i = 0; i < a->n - from_a; i++) {
    const trak_json_leaf *x = &a->v[from_a + i], *y = &b->v[from_b + i];
    const trak_json_dict_entry *ex = &a->d.entry[x->key], *ey = &b->d.entry[y->key];
    assert_int_equal(ex->key_len, ey->key_len);
    assert_memory_equal(ex->key, ey->key, ex->key_len);
    assert_int_equal(x->type, y->type);
    if (x->type == TRAK_ARG_STRING) {
      assert_int_equal(x->escaped, y->escaped);
      assert_int_equal(x->len, y->len);
      assert_int_equal(x->v.off, y->v.off);
    } else {
      assert_memory_equal(&x->v, &y->v, sizeof x->v);
    }
  }
}

/* Each text walked whole and cut at each of its bytes, with the kept shapes (a) and member by
** member only (b): the same answers, bytes stepped over and leaves. */
static void test_args_shapes_walk_alike(void **state) {
  (void)state;
  walker a = {0}, b = {0};
  trak__json_dict_init(&a.d);
  trak__json_dict_init(&b.d);
  b.d.shapes_off = 1;
  size_t texts = sizeof shape_texts / sizeof *shape_texts;
  for (size_t i = 0; i < 4 * texts; i++) {
    char text[256];
    snprintf(text, sizeof text, "%s", shape_texts[(i / 2) % texts]);
    size_t n = strlen(text);
    for (size_t cut = (i % 2 ? 1 : n); cut <= n; cut++) {
      char t = text[cut];
      text[cut] = 0;
      for (int final = 0; final < 2; final++) {
        size_t na = a.n, nb = b.n, used_a, used_b;
        a.d.last = b.d.last = TRAK_JSON_DICT_MAX + 1 + 3;
        int ok_a = walk_text(&a, text, final, &used_a);
        int ok_b = walk_text(&b, text, final, &used_b);
        assert_int_equal(ok_a, ok_b);
        assert_int_equal(used_a, used_b);
        assert_same_leaves(&a, na, &b, nb);
      }
      text[cut] = t;
    }
  }
  trak__json_dict_free(&a.d);
  trak__json_dict_free(&b.d);
  free(a.v), free(b.v), free(a.text), free(b.text);
}

/* Writes `text` with each '#' replaced by v, v + 1, ... */
static void put_shape(FILE *f, const char *text, unsigned v) {
  for (; *text; text++)
    if (*text == '#')
      fprintf(f, "%u", v++);
    else
      fputc(*text, f);
}

/* Event i of write_shapes_trace (r: its random bits): its args of shape *shape, which changes
** now and then (one of shape_texts' valid ones, or of these with numbers). */
static void write_shape_event(FILE *f, unsigned i, uint64_t r, unsigned *shape) {
  static const char *const numbered[] = {
      "{\"size\":#,\"url\":\"https://example.com/#\",\"info\":{\"ok\":true}}",
      "{\"size\":#,\"url\":\"https://example.com/#\",\"info\":{\"ok\":false}}",
      "{\"size\":#.#,\"url\":\"\\\"#\\\"\",\"info\":{\"ok\":#}}",
      "{\"size\":\"#\",\"url\":#,\"info\":{\"ok\":null},\"more\":#}",
      "{\"size\":-#e#,\"url\":\"#\"}",
      "{\"rss\":#}",
      "{\"rss\":#,\"rss\":\"#\"}",
      "{\n  \"rss\": #,\n  \"vm\": {\"a\": #}\n}",
  };
  static const char *const kinds[] = {"\"ph\":\"X\",\"dur\":3", "\"ph\":\"i\",\"s\":\"t\"",
                                      "\"ph\":\"B\"", "\"ph\":\"E\""};
  size_t valid = sizeof shape_texts / sizeof *shape_texts - SHAPES_INVALID;
  if (r % 16 == 0) *shape = (unsigned)((r >> 8) % (valid + 8));
  fprintf(f, "%s{%s,\"name\":\"s%u\",\"ts\":%u,\"pid\":1,\"tid\":%u,\"args\":", i ? ",\n" : "",
          kinds[i % 4], *shape, 10 * i, 1 + (i / 4) % 2);
  unsigned v = (unsigned)(r >> 20) % (i % 3 ? 100 : 1000000);
  put_shape(f, *shape < 8 ? numbered[*shape] : shape_texts[*shape - 8], v); /* these: no '#' */
  fputc('}', f);
}

/* A trace of slices, instants and complete events whose args come in runs of one shape (same
** keys, other values), the shape changing now and then (write_shape_event). */
static void write_shapes_trace(const char *path, unsigned events) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  uint64_t r = 0x51afd7ed558ccdULL;
  unsigned shape = 0;
  fputs("{\"traceEvents\":[\n", f);
  for (unsigned i = 0; i < events; i++)
    write_shape_event(f, i, tu_xorshift(&r), &shape);
  fputs("\n]}\n", f);
  assert_int_equal(fclose(f), 0);
}

/* Traces of args in many shapes import alike with the kept shapes, without them
** (TRAK_JSON_SHAPES=0), without leaves, on one thread and two, at once and in pieces. */
static void test_args_shapes_import_alike(void **state) {
  (void)state;
  assert_imports_alike(write_shapes_trace, 24000, 500000);
  char trace[] = "/tmp/trak_shapes_trace_XXXXXX", a[] = "/tmp/trak_shapes_a_XXXXXX",
       b[] = "/tmp/trak_shapes_b_XXXXXX";
  tu_temp_file(trace);
  tu_temp_file(a);
  tu_temp_file(b);
  write_shapes_trace(trace, 24000);
  export_with(trace, NULL, "2", 1, a);
  setenv("TRAK_JSON_SHAPES", "0", 1);
  export_with(trace, NULL, "2", 1, b);
  unsetenv("TRAK_JSON_SHAPES");
  tu_assert_same_file(a, b, "kept shapes against member by member");
  unlink(a);
  unlink(b);
  unlink(trace);
}

/* String values in every form the leaves hand over: plain and escaped spellings of one string
** ("abc" and "a\u0062c", "x/y" and "x\/y"), the empty string, strings past the string cache's
** longest (plain and escaped), invalid UTF-8 (repaired) and values met again and again, so the
** plain values interned inline and the escaped ones unescaped first land on the same ids. */
static void write_strings_trace(const char *path, unsigned events) {
  static const char *const values[] = {"abc",
                                       "a\\u0062c",
                                       "",
                                       "x/y",
                                       "x\\/y",
                                       "0123456789abcdef0123456789abcdef0123456789",
                                       "0123456789abcdef0123456789abcdef012345678\\u0039",
                                       "\xff\xfe",
                                       "w",
                                       "abcdefgh"};
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("{\"traceEvents\":[\n", f);
  for (unsigned i = 0; i < events; i++)
    fprintf(f,
            "%s{\"ph\":\"i\",\"name\":\"s\",\"ts\":%u,\"pid\":1,\"tid\":1,\"args\":{\"s\":\"%s\"}}",
            i ? ",\n" : "", 10 * i, values[i % 10]);
  fputs("\n]}\n", f);
  assert_int_equal(fclose(f), 0);
}

/* The slices of the strings trace whose arg "s" is as `cond` says of string_value. */
static int64_t slices_where(const char *trace, const char *cond) {
  char sql[256];
  snprintf(sql, sizeof sql,
           "select count(*) from slice join args using (arg_set_id) where key = 'args.s' and %s",
           cond);
  return query_int(trace, sql);
}

static void test_string_values_import_alike(void **state) {
  (void)state;
  char trace[] = "/tmp/trak_strings_trace_XXXXXX";
  assert_imports_alike_kept(write_strings_trace, 20000, 100000, trace);
  /* each spelling pair is one string, so one set: 2,000 events of each value */
  static const char *const conds[] = {"string_value = 'abc'", "string_value = 'x/y'",
                                      "string_value like '0123456789abcdef%9'"};
  for (size_t i = 0; i < sizeof conds / sizeof *conds; i++)
    assert_int_equal(slices_where(trace, conds[i]), 4000);
  /* abc, the empty string, x/y, the long one, the repaired one, w, abcdefgh */
  assert_int_equal(query_int(trace, "select count(distinct string_value) from args"), 7);
  unlink(trace);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_leaves_of_one_object),
      cmocka_unit_test(test_keys_in_another_order),
      cmocka_unit_test(test_same_name_under_another_parent),
      cmocka_unit_test(test_other_shapes_left_to_the_tokenizer),
      cmocka_unit_test(test_full_dictionary),
      cmocka_unit_test(test_traces_import_alike),
      cmocka_unit_test(test_shared_sets_alike),
      cmocka_unit_test(test_repeated_keys_and_paths_share),
      cmocka_unit_test(test_args_shapes_walk_alike),
      cmocka_unit_test(test_args_shapes_import_alike),
      cmocka_unit_test(test_string_values_import_alike),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
