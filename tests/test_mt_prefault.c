/*
** The prefaulter (src/processor/tables/prefault.c), which the parse phase runs beside the merge
** on a 50 M-event import: while a writer fills columns row by row, the thread faults their pages
** in no further than it is allowed ahead, and every value the writer wrote is what it reads back.
** A test_mt_* test: under ThreadSanitizer it also checks that the thread touches no byte.
*/
#define _DEFAULT_SOURCE /* mincore */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "processor/tables/prefault.h"

#define ROWS (1u << 20)
#define AHEAD (1u << 15)

/* Whether the page holding `p` is in memory. */
static int resident(const void *p) {
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  unsigned char v = 0;
  assert_int_equal(mincore((void *)((uintptr_t)p & ~(page - 1)), page, &v), 0);
  return v & 1;
}

/* Columns of three widths filled row by row while the prefaulter runs ahead: every value reads
** back as written. */
static void test_values_written_stay(void **state) {
  (void)state;
  int64_t *a = malloc(ROWS * sizeof *a);
  uint32_t *b = malloc(ROWS * sizeof *b);
  uint8_t *c = malloc(ROWS);
  assert_true(a && b && c);
  void *cols[] = {a, b, c};
  const size_t width[] = {sizeof *a, sizeof *b, 1};
  trak_prefault *pf = trak__prefault_start(cols, width, 3, ROWS, AHEAD);
  assert_non_null(pf);
  for (size_t r = 0; r < ROWS; r++) {
    a[r] = (int64_t)(r * 7919), b[r] = (uint32_t)(r ^ 0x5a5a5a5a), c[r] = (uint8_t)(r * 31);
    if (r % 4096 == 4095) trak__prefault_written(pf, r + 1);
  }
  trak__prefault_stop(pf);
  size_t bad = 0;
  for (size_t r = 0; r < ROWS; r++)
    bad += a[r] != (int64_t)(r * 7919) || b[r] != (uint32_t)(r ^ 0x5a5a5a5a) ||
           c[r] != (uint8_t)(r * 31);
  assert_int_equal(bad, 0);
  free(a), free(b), free(c);
}

/* With nothing written, the thread faults in the first AHEAD rows and no page past them. */
static void test_no_further_than_ahead(void **state) {
  (void)state;
  int64_t *a = malloc(ROWS * sizeof *a);
  assert_non_null(a);
  void *cols[] = {a};
  const size_t width[] = {sizeof *a};
  trak_prefault *pf = trak__prefault_start(cols, width, 1, ROWS, AHEAD);
  assert_non_null(pf);
  /* waits (up to 10 s) for the last allowed page: a kernel without MADV_POPULATE_WRITE never
  ** gets there, and then only the bound is checked */
  const int64_t *last = &a[AHEAD - 4096 / sizeof *a - 1];
  for (int i = 0; i < 1000 && !resident(last); i++)
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  trak__prefault_stop(pf);
  size_t past = 0;
  for (size_t r = AHEAD + 4096; r < ROWS; r += 512)
    past += (size_t)resident(&a[r]);
  assert_int_equal(past, 0);
  free(a);
}

static void test_refuses_what_it_cannot_do(void **state) {
  (void)state;
  int64_t x[4];
  void *cols[TRAK_PREFAULT_MAX_COLUMNS + 1];
  size_t width[TRAK_PREFAULT_MAX_COLUMNS + 1];
  for (size_t i = 0; i <= TRAK_PREFAULT_MAX_COLUMNS; i++)
    cols[i] = x, width[i] = sizeof x[0];
  assert_null(trak__prefault_start(cols, width, TRAK_PREFAULT_MAX_COLUMNS + 1, 4, 1));
  assert_null(trak__prefault_start(cols, width, 1, 0, 1));
  assert_null(trak__prefault_start(cols, width, 1, 4, 0));
  trak__prefault_stop(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_values_written_stay),
      cmocka_unit_test(test_no_further_than_ahead),
      cmocka_unit_test(test_refuses_what_it_cannot_do),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
