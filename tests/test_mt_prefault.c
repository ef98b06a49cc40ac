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
  const trak_col_mem cols[] = {{a, sizeof *a}, {b, sizeof *b}, {c, 1}};
  trak_prefault *pf = trak__prefault_start(cols, 3, ROWS, AHEAD);
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
  const trak_col_mem cols[] = {{a, sizeof *a}};
  trak_prefault *pf = trak__prefault_start(cols, 1, ROWS, AHEAD);
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

/* trak__ahead_to, as the ftrace merge thread calls it: a column's missing part under `step`
** bytes waits (unless the last row is reached), and no page past the rows asked for is faulted. */
static void test_ahead_to_steps(void **state) {
  (void)state;
  const size_t page = (size_t)sysconf(_SC_PAGESIZE), rows = 64 * page / 8;
  int64_t *a = mmap(NULL, rows * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  uint8_t *b = mmap(NULL, rows, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(a != MAP_FAILED && b != MAP_FAILED);
  const trak_col_mem cols[] = {{a, 8}, {b, 1}};
  trak_ahead ah;
  trak__ahead_init(&ah, cols, 2, rows);
  if (trak__ahead_to(&ah, 4 * page / 8, 2 * page)) { /* a kernel before 5.14 */
    assert_int_equal(trak__ahead_to(&ah, rows, 0), -1);
    munmap(a, rows * 8), munmap(b, rows);
    return;
  }
  /* a's 4 pages are present (4 pages >= step); b's half page is under the step: not yet */
  assert_true(resident(&a[4 * page / 8 - 1]));
  assert_false(resident(&a[4 * page / 8 + page / 8]));
  assert_false(resident(b));
  trak__ahead_to(&ah, 5 * page / 8, 2 * page); /* a: one page more, under the step: waits */
  assert_false(resident(&a[4 * page / 8 + page / 8]));
  trak__ahead_to(&ah, rows, 2 * page); /* the last row: everything, whatever the step */
  assert_true(resident(&a[rows - 1]) && resident(b) && resident(&b[rows - 1]));
  assert_int_equal(ah.done[0], rows * 8);
  munmap(a, rows * 8), munmap(b, rows);
}

static void test_refuses_what_it_cannot_do(void **state) {
  (void)state;
  int64_t x[4];
  trak_col_mem cols[TRAK_PREFAULT_MAX_COLUMNS + 1];
  for (size_t i = 0; i <= TRAK_PREFAULT_MAX_COLUMNS; i++)
    cols[i] = (trak_col_mem){x, sizeof x[0]};
  assert_null(trak__prefault_start(cols, TRAK_PREFAULT_MAX_COLUMNS + 1, 4, 1));
  assert_null(trak__prefault_start(cols, 1, 0, 1));
  assert_null(trak__prefault_start(cols, 1, 4, 0));
  trak__prefault_stop(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_values_written_stay),
      cmocka_unit_test(test_no_further_than_ahead),
      cmocka_unit_test(test_ahead_to_steps),
      cmocka_unit_test(test_refuses_what_it_cannot_do),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
