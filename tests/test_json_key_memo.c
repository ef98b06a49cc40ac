/*
** The JSON importer's key memo (json_args.c: event args' keys looked up by parent object and
** member name) gives the tables of the plain flattening (TRAK_JSON_KEY_MEMO=0): every JSON trace
** under tests/data, and generated ones whose args have thousands of distinct names (more than
** the memo's slots), the same names under different objects, nested objects and arrays, escaped,
** empty, long and invalid UTF-8 names, keys past the memo's length and past the key limit,
** repeated keys and values of every kind, are exported both ways to SQLite files, which must be
** equal byte for byte, the import log included.
*/
#define _GNU_SOURCE /* nftw */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "trak/processor.h"

static int compared;

/* Imports `path` with TRAK_JSON_KEY_MEMO set to `value` (unset when NULL) and exports its tables
** and import log to `db`; returns the import's code. */
static int export_with(const char *path, const char *value, const char *db) {
  if (value)
    setenv("TRAK_JSON_KEY_MEMO", value, 1);
  else
    unsetenv("TRAK_JSON_KEY_MEMO");
  int rc = tu_import_export(path, db);
  unsetenv("TRAK_JSON_KEY_MEMO");
  return rc;
}

/* Asserts that `path` imports to the same bytes with the memo and without it; returns the size
** of the export. */
static size_t same_tables(const char *path) {
  char a[] = "/tmp/trak_keymemo_a_XXXXXX", b[] = "/tmp/trak_keymemo_b_XXXXXX";
  tu_temp_file(a);
  tu_temp_file(b);
  int ra = export_with(path, NULL, a), rb = export_with(path, "0", b);
  if (ra != rb) fail_msg("%s: import returns %d, without the key memo %d", path, ra, rb);
  size_t na, nb;
  char *da = tu_read_file(a, &na), *db = tu_read_file(b, &nb);
  if (!ra && (na != nb || memcmp(da, db, na)))
    fail_msg("%s: the tables differ without the key memo", path);
  free(da);
  free(db);
  unlink(a);
  unlink(b);
  compared++;
  return na;
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st, (void)ftw;
  size_t n = strlen(path);
  if (type == FTW_F &&
      ((n > 5 && !strcmp(path + n - 5, ".json")) || (n > 8 && !strcmp(path + n - 8, ".json.gz"))))
    same_tables(path);
  return 0;
}

static void test_json_traces_of_the_tests(void **state) {
  (void)state;
  compared = 0;
  assert_int_equal(nftw(tu_source_path("tests/data"), visit, 16, FTW_PHYS), 0);
  printf("compared %d traces\n", compared);
  assert_true(compared >= 25);
}

/* Writes one event's args object: member names drawn from `names` distinct ones (some shared by
** several parents), nested objects and arrays, and the odd names and values of the file's
** comment, chosen by `r`. */
static void write_args(FILE *f, unsigned i, unsigned names, uint64_t r) {
  fprintf(f, "{\"n%u\":%u,\"s%u\":\"v%u\"", (unsigned)(r % names), i, (unsigned)(r >> 16) % names,
          (unsigned)(r >> 8) % 50);
  switch ((r >> 24) % 12) {
  case 0: /* the same names under two parents, and at the top */
    fprintf(f, ",\"a\":{\"x\":1,\"y\":{\"x\":true}},\"b\":{\"x\":2.5},\"x\":null");
    break;
  case 1: /* arrays, of objects too, and an object inside an array's object */
    fprintf(f, ",\"arr\":[1,\"two\",{\"k\":3,\"o\":{\"k\":[4]}},null,[5]],\"k\":6");
    break;
  case 2: /* escaped names, one equal to a plain one once unescaped */
    fprintf(f, ",\"e\\\"q\":1,\"\\u00e9t\\u00e9\":\"\\u00e9\",\"n\\u0031\":7");
    break;
  case 3: /* an empty name, and a name of invalid UTF-8 (repaired, reported at each row) */
    fprintf(f, ",\"\":1,\"bad\xff\xfe\":2,\"deep\":{\"\xc3\":{\"z\":3}}");
    break;
  case 4: /* names of 32 and 33 bytes, and a key past the memo's 64 bytes */
    fprintf(f, ",\"abcdefghijklmnopqrstuvwxyz012345\":1,\"abcdefghijklmnopqrstuvwxyz0123456\":2,"
               "\"long_object_name_one\":{\"long_object_name_two\":{\"long_leaf_name_three\":3}}");
    break;
  case 5: /* a key past the 1024-byte key limit (dropped, reported) */
    fputs(",\"cut\":{", f);
    for (int d = 0; d < 40; d++)
      fprintf(f, "\"level_%02d_abcdefghijklmnopqrst\":{", d);
    fputs("\"leaf\":1", f);
    for (int d = 0; d < 41; d++)
      fputc('}', f);
    break;
  case 6: /* a key repeated in one object: the later value replaces the earlier */
    fprintf(f, ",\"dup\":1,\"dup\":\"two\",\"o\":{\"d\":1,\"d\":{\"e\":2}}");
    break;
  case 7: /* numbers past int64 and uint64, exponents, negative zero */
    fprintf(f, ",\"u\":18446744073709551615,\"big\":1e400,\"neg\":-0.0,\"exp\":2E-3");
    break;
  case 8: /* whitespace and a trailing comma */
    fprintf(f, " , \"w\" : { \"x\" : 1 , } ");
    break;
  default:
    break;
  }
  fputc('}', f);
}

/* Writes a trace of `events` events with args on each (B, E, X, instants, async begins and
** ends) under `names` distinct member names (fails the test on an I/O error). */
static void write_trace(const char *path, unsigned events, unsigned names) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  uint64_t r = 0x9e3779b97f4a7c15ULL;
  fputs("{\"traceEvents\":[\n", f);
  for (unsigned i = 0; i < events; i++) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    static const char *const kinds[] = {"\"ph\":\"B\"",
                                        "\"ph\":\"E\"",
                                        "\"ph\":\"X\",\"dur\":3",
                                        "\"ph\":\"i\",\"s\":\"t\"",
                                        "\"ph\":\"b\",\"id\":\"0x7\"",
                                        "\"ph\":\"e\",\"id\":\"0x7\""};
    fprintf(f, "%s{%s,\"name\":\"ev%u\",\"cat\":\"c\",\"ts\":%u,\"pid\":1,\"tid\":%u,\"args\":",
            i ? ",\n" : "", kinds[i % 6], i % 40, 10 * i, 1 + i % 3);
    write_args(f, i, names, r);
    fputc('}', f);
  }
  fputs("\n]}\n", f);
  assert_int_equal(fclose(f), 0);
}

static void test_generated_args(void **state) {
  (void)state;
  static const unsigned shapes[][2] = {{3000, 8}, {20000, 5000}, {500, 1}};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    char path[] = "/tmp/trak_keymemo_trace_XXXXXX";
    tu_temp_file(path);
    write_trace(path, shapes[i][0], shapes[i][1]);
    assert_true(same_tables(path) > 10000);
    unlink(path);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_json_traces_of_the_tests),
      cmocka_unit_test(test_generated_args),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
