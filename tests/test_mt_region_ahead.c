/*
** The record blocks' page-ahead (src/processor/import/region_ahead.c), which the JSON import's
** decoding thread runs beside the importer's thread: regions written front to back are made
** present no further than `lead` past the position last told, every byte written reads back, a
** region replaced or dropped is left alone, and a generated JSON trace large enough for blocks of
** 64 KiB and more imports to the same tables with one thread and two (and with the page-ahead off,
** TRAK_BLOCKS_AHEAD=0), the page-ahead having run with two only; so does one whose aux words
** outgrow the reserve made for them (their page-ahead dropped first). A test_mt_* test: under
** ThreadSanitizer it also checks that the two threads share no unguarded state.
*/
#define _DEFAULT_SOURCE /* mincore, MAP_ANONYMOUS */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../bench/gen_json_events.h"
#include "processor/import/region_ahead.h"
#include "testutil.h"

#define BYTES (2u << 20)
#define LEAD (64u << 10)

static void *map(size_t n) {
  void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(m != MAP_FAILED);
  madvise(m, n, MADV_NOHUGEPAGE); /* pages of 4 KiB, as mincore counts them */
  return m;
}

/* The other thread: idles on the page-ahead until told to end. */
typedef struct beside {
  trak_region_ahead *r;
  atomic_int end;
} beside;

static void *beside_main(void *arg) {
  beside *b = arg;
  while (!atomic_load(&b->end)) {
    trak__region_ahead_idle(b->r);
    nanosleep(&(struct timespec){0, 50 * 1000}, NULL);
  }
  return NULL;
}

/* Two regions written a byte at a time while the other thread runs ahead, the first replaced
** half way by a third: the page-ahead made pages present, and every byte reads back. */
static void test_bytes_written_stay(void **state) {
  (void)state;
  uint8_t *a = map(BYTES), *b = map(BYTES), *c = map(BYTES);
  uint32_t ua = 0, ub = 0, uc = 0;
  trak_region_ahead *r = trak__region_ahead_new(LEAD);
  assert_non_null(r);
  uint64_t before = trak__region_ahead_total();
  trak__region_ahead_track(r, NULL, a, BYTES, 0, &ua);
  trak__region_ahead_track(r, NULL, b, BYTES, 16, &ub);
  beside bs = {r, 0};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, beside_main, &bs), 0);
  /* The writes start once the other thread has run ahead at least once: on a loaded machine it
  ** may otherwise not be scheduled before they end, and nothing would show it ran (at most 10 s).
  ** Telling only tries the mutex, and the other thread may hold it: tell again until it ran. */
  for (int w = 0; w < 200000 && trak__region_ahead_total() == before; w++) {
    trak__region_ahead_tell(r);
    nanosleep(&(struct timespec){0, 50 * 1000}, NULL);
  }
  int ran = trak__region_ahead_total() > before; /* asserted once the other thread is joined */
  for (uint32_t i = 0; i < BYTES - 16; i++) {
    if (i == BYTES / 2) trak__region_ahead_track(r, a, c, BYTES, 0, &uc); /* a is done with */
    if (i < BYTES / 2)
      a[ua++] = (uint8_t)i;
    else
      c[uc++] = (uint8_t)i;
    b[16 + ub++] = (uint8_t)(i * 7);
    if (i % 4096 == 0) trak__region_ahead_tell(r);
  }
  atomic_store(&bs.end, 1);
  pthread_join(th, NULL);
  trak__region_ahead_free(r);
  assert_true(ran);
  uint32_t bad = 0;
  for (uint32_t i = 0; i < BYTES - 16; i++)
    bad += (i < BYTES / 2 ? a[i] : c[i - BYTES / 2]) != (uint8_t)i || b[16 + i] != (uint8_t)(i * 7);
  assert_int_equal(bad, 0);
  munmap(a, BYTES), munmap(b, BYTES), munmap(c, BYTES);
}

/* Told a position, the page-ahead makes present up to `lead` past it and no further; a region
** dropped, or once stopped, nothing more. */
static void test_no_further_than_lead(void **state) {
  (void)state;
  uint8_t *a = map(BYTES), *b = map(BYTES);
  uint32_t ua = 100000, ub = 0;
  trak_region_ahead *r = trak__region_ahead_new(LEAD);
  assert_non_null(r);
  trak__region_ahead_track(r, NULL, a, BYTES, 0, &ua);
  trak__region_ahead_track(r, NULL, b, BYTES, 0, &ub);
  trak__region_ahead_tell(r);
  size_t made = trak__region_ahead_idle(r);
  assert_true(made >= 100000 + LEAD);
  assert_true(tu_resident(a) && tu_resident(a + 100000 + LEAD - 1) && tu_resident(b + LEAD - 1));
  assert_false(tu_resident(a + 100000 + LEAD + 8192) || tu_resident(b + LEAD + 8192));
  trak__region_ahead_track(r, a, NULL, 0, 0, NULL); /* a is done with */
  ua = ub = 500000;
  trak__region_ahead_tell(r);
  trak__region_ahead_idle(r);
  assert_false(tu_resident(a + 500000)); /* dropped */
  assert_true(tu_resident(b + 500000 + LEAD - 1));
  ub = 1000000;
  trak__region_ahead_tell(r);
  trak__region_ahead_stop(r);
  assert_int_equal(trak__region_ahead_idle(r), 0);
  assert_false(tu_resident(b + 1000000));
  trak__region_ahead_free(r);
  setenv("TRAK_BLOCKS_AHEAD", "0", 1);
  assert_null(trak__region_ahead_new(LEAD));
  unsetenv("TRAK_BLOCKS_AHEAD");
  munmap(a, BYTES), munmap(b, BYTES);
}

/* Imports `path` with `threads` threads to `db`; returns the bytes the page-ahead made present. */
static uint64_t import_export(const char *path, const char *threads, const char *db) {
  setenv("TRAK_IMPORT_THREADS", threads, 1);
  uint64_t before = trak__region_ahead_total();
  assert_int_equal(tu_import_export(path, db), 0);
  unsetenv("TRAK_IMPORT_THREADS");
  return trak__region_ahead_total() - before;
}

static void assert_same_file(const char *x, const char *y) {
  size_t n1, n2;
  char *a = tu_read_file(x, &n1), *b = tu_read_file(y, &n2);
  assert_true(n1 == n2 && !memcmp(a, b, n1));
  free(a);
  free(b);
}

/* A JSON trace of 16 threads whose sequences reach record blocks of 64 KiB and more: the same
** tables with one import thread, with two, and with two and the page-ahead off. */
static void test_json_import_same_tables(void **state) {
  (void)state;
  char js[] = "/tmp/trak_mt_region_json_XXXXXX", d1[] = "/tmp/trak_mt_region_1_XXXXXX",
       d2[] = "/tmp/trak_mt_region_2_XXXXXX", d3[] = "/tmp/trak_mt_region_3_XXXXXX";
  tu_temp_file(js), tu_temp_file(d1), tu_temp_file(d2), tu_temp_file(d3);
  assert_true(gen_json_events(js, 24000000) > 200000);
  assert_int_equal(import_export(js, "1", d1), 0);
  assert_true(import_export(js, "2", d2) > 0);
  setenv("TRAK_BLOCKS_AHEAD", "0", 1);
  assert_int_equal(import_export(js, "2", d3), 0);
  unsetenv("TRAK_BLOCKS_AHEAD");
  assert_same_file(d1, d2);
  assert_same_file(d1, d3);
  unlink(js), unlink(d1), unlink(d2), unlink(d3);
}

/* A JSON trace of 17 MiB whose complete events, each with thread time, add an aux word per 13
** bytes of text or so, more than the one per 16 reserved for the file: the aux words' page-ahead
** is dropped before they outgrow the reserve and move, and the tables are the same on one thread
** and two. */
static void test_aux_past_its_reserve(void **state) {
  (void)state;
  char js[] = "/tmp/trak_mt_region_aux_XXXXXX", d1[] = "/tmp/trak_mt_region_a1_XXXXXX",
       d2[] = "/tmp/trak_mt_region_a2_XXXXXX";
  tu_temp_file(js), tu_temp_file(d1), tu_temp_file(d2);
  FILE *f = fopen(js, "w");
  assert_non_null(f);
  unsigned events = 0;
  fputc('[', f);
  for (long bytes = 1; bytes < (17L << 20); events++)
    bytes += fprintf(f, "%s{\"ph\":\"X\",\"ts\":%u,\"dur\":1,\"tts\":%u,\"tdur\":1,\"pid\":1}",
                     events ? ",\n" : "", 2 * events, events);
  fputs("]\n", f);
  assert_int_equal(fclose(f), 0);
  assert_int_equal(import_export(js, "1", d1), 0);
  assert_true(import_export(js, "2", d2) > 0);
  assert_same_file(d1, d2);
  char sql[96];
  snprintf(sql, sizeof sql, "select count(*) = %u and max(thread_dur) = 1000 from slice", events);
  assert_int_equal(tu_query_int(js, sql), 1);
  unlink(js), unlink(d1), unlink(d2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bytes_written_stay),
      cmocka_unit_test(test_no_further_than_lead),
      cmocka_unit_test(test_json_import_same_tables),
      cmocka_unit_test(test_aux_past_its_reserve),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
