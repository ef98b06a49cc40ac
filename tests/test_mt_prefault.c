/*
** The page-ahead of columns (src/processor/tables/prefault.c), which the merge threads run beside
** the importer's thread on a large import: while a writer fills columns row by row, another
** thread makes their pages present no further than it is asked, and every value the writer wrote
** is what it reads back. A test_mt_* test: under ThreadSanitizer it also checks that the other
** thread touches no byte. The JSON import's args page-ahead (a trak_ahead_job over the args
** table reserved ahead) stops before a resize past the reserve can move the columns.
*/
#define _DEFAULT_SOURCE /* mincore */
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "processor/tables/arg_value.h"
#include "processor/tables/prefault.h"
#include "testutil.h"

#define ROWS (1u << 20)
#define AHEAD (1u << 15)

/* The other thread: makes the columns present up to AHEAD rows past what the writer says it has
** written, as the merge threads do between their batches, until the writer is done. */
typedef struct beside {
  pthread_mutex_t mu;
  size_t written; /* under mu: SIZE_MAX when the writer is done */
  trak_ahead a;
} beside;

static void *beside_main(void *arg) {
  beside *b = arg;
  for (;;) {
    pthread_mutex_lock(&b->mu);
    size_t w = b->written;
    pthread_mutex_unlock(&b->mu);
    if (w == SIZE_MAX || trak__ahead_to(&b->a, w + AHEAD, 64u << 10)) return NULL;
    nanosleep(&(struct timespec){0, 100 * 1000}, NULL);
  }
}

/* Columns of three widths filled row by row while the other thread runs ahead: every value reads
** back as written. */
static void test_values_written_stay(void **state) {
  (void)state;
  int64_t *a = malloc(ROWS * sizeof *a);
  uint32_t *b = malloc(ROWS * sizeof *b);
  uint8_t *c = malloc(ROWS);
  assert_true(a && b && c);
  const trak_col_mem cols[] = {{a, sizeof *a, 0}, {b, sizeof *b, 0}, {c, 1, 0}};
  beside bs = {.written = 0};
  pthread_mutex_init(&bs.mu, NULL);
  trak__ahead_init(&bs.a, cols, 3, ROWS);
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, beside_main, &bs), 0);
  for (size_t r = 0; r < ROWS; r++) {
    a[r] = (int64_t)(r * 7919), b[r] = (uint32_t)(r ^ 0x5a5a5a5a), c[r] = (uint8_t)(r * 31);
    if (r % 4096 == 4095) {
      pthread_mutex_lock(&bs.mu);
      bs.written = r + 1;
      pthread_mutex_unlock(&bs.mu);
    }
  }
  pthread_mutex_lock(&bs.mu);
  bs.written = SIZE_MAX;
  pthread_mutex_unlock(&bs.mu);
  pthread_join(th, NULL);
  pthread_mutex_destroy(&bs.mu);
  size_t bad = 0;
  for (size_t r = 0; r < ROWS; r++)
    bad += a[r] != (int64_t)(r * 7919) || b[r] != (uint32_t)(r ^ 0x5a5a5a5a) ||
           c[r] != (uint8_t)(r * 31);
  assert_int_equal(bad, 0);
  free(a), free(b), free(c);
}

/* Asked for the first AHEAD rows, no page past them is faulted in. */
static void test_no_further_than_asked(void **state) {
  (void)state;
  int64_t *a = malloc(ROWS * sizeof *a);
  assert_non_null(a);
  const trak_col_mem cols[] = {{a, sizeof *a, 0}};
  trak_ahead ah;
  trak__ahead_init(&ah, cols, 1, ROWS);
  if (!trak__ahead_to(&ah, AHEAD, 0)) /* (a kernel without MADV_POPULATE_WRITE does nothing) */
    assert_true(tu_resident(&a[AHEAD - 1]));
  size_t past = 0;
  for (size_t r = AHEAD + 4096; r < ROWS; r += 512)
    past += (size_t)tu_resident(&a[r]);
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
  const trak_col_mem cols[] = {{a, 8, 0}, {b, 1, 0}};
  trak_ahead ah;
  trak__ahead_init(&ah, cols, 2, rows);
  if (trak__ahead_to(&ah, 4 * page / 8, 2 * page)) { /* a kernel before 5.14 */
    assert_int_equal(trak__ahead_to(&ah, rows, 0), -1);
    munmap(a, rows * 8), munmap(b, rows);
    return;
  }
  /* a's 4 pages are present (4 pages >= step); b's half page is under the step: not yet */
  assert_true(tu_resident(&a[4 * page / 8 - 1]));
  assert_false(tu_resident(&a[4 * page / 8 + page / 8]));
  assert_false(tu_resident(b));
  trak__ahead_to(&ah, 5 * page / 8, 2 * page); /* a: one page more, under the step: waits */
  assert_false(tu_resident(&a[4 * page / 8 + page / 8]));
  trak__ahead_to(&ah, rows, 2 * page); /* the last row: everything, whatever the step */
  assert_true(tu_resident(&a[rows - 1]) && tu_resident(b) && tu_resident(&b[rows - 1]));
  assert_int_equal(ah.done[0], rows * 8);
  munmap(a, rows * 8), munmap(b, rows);
}

/* More columns than it keeps: the first TRAK_PREFAULT_MAX_COLUMNS are kept, the rest left to
** fault as they are written. */
static void test_columns_past_the_most(void **state) {
  (void)state;
  int64_t x[4];
  trak_col_mem cols[TRAK_PREFAULT_MAX_COLUMNS + 1];
  for (size_t i = 0; i <= TRAK_PREFAULT_MAX_COLUMNS; i++)
    cols[i] = (trak_col_mem){x, sizeof x[0], 0};
  trak_ahead ah;
  trak__ahead_init(&ah, cols, TRAK_PREFAULT_MAX_COLUMNS + 1, 4);
  assert_int_equal(ah.n_col, TRAK_PREFAULT_MAX_COLUMNS);
  assert_int_equal(ah.rows, 4);
}

/* A spare block of `pages` pages, every byte `fill`, its pages present. */
static void *spare_block(size_t pages, int fill) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  uint8_t *b = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(b != MAP_FAILED);
  memset(b, fill, pages * page);
  return b;
}

/* trak__ahead_recycle moves spare blocks onto the columns' next pages, only those wholly in an
** array, past the pages made present and past row `from`: the rows written keep their values, a
** `filled` column its values past the rows, a column whose present pages end before `from` is
** skipped; the pages moved onto hold the block's bytes and count as made present; the arrays
** (malloc's) still grow and free as before. */
static void test_recycle_moves_spares_onto_columns(void **state) {
  (void)state;
  const size_t page = (size_t)sysconf(_SC_PAGESIZE), rows = 256 * page / 8, bp = 8;
  int64_t *a = malloc(rows * 8), *f = malloc(rows * 8), *late = malloc(rows * 8);
  assert_true(a && f && late);
  for (size_t r = 0; r < rows; r++)
    f[r] = -7; /* an O column: set past the rows too */
  const size_t written = 10 * page / 8;
  for (size_t r = 0; r < written; r++)
    a[r] = (int64_t)r, late[r] = (int64_t)r;
  const trak_col_mem cols[] = {{a, 8, 0}, {f, 8, 1}, {late, 8, 0}};
  trak_ahead ah;
  trak__ahead_init(&ah, cols, 3, rows);
  ah.done[0] = ah.done[1] = 16 * page; /* 16 pages made present; late's: none */
  trak_spares sp;
  memset(&sp, 0, sizeof sp);
  sp.size = bp * page;
  for (int i = 0; i < 3; i++)
    trak__spares_give(&sp, spare_block(bp, 0xab), bp * page);
  assert_int_equal(sp.n, 3);
  trak__spares_give(&sp, spare_block(4, 0), 4 * page); /* not of the spares' size: unmapped */
  assert_int_equal(sp.n, 3);
  /* rows up to 16 pages' worth may be written: a's moves start on its 17th page and stop once
  ** past the rows asked for (20 pages' worth) */
  size_t moved = trak__ahead_recycle(&ah, 16 * page / 8, 20 * page / 8, &sp);
  if (!moved && sp.moves == TRAK_SPARES_MOVES) { /* no mremap: nothing was touched */
    trak__spares_free(&sp);
    free(a), free(f), free(late);
    return;
  }
  assert_int_equal(moved, 1);
  assert_int_equal(sp.n, 2);
  assert_int_equal(sp.moves, 1);
  const uintptr_t at = ((uintptr_t)a + 16 * page + page - 1) & ~(uintptr_t)(page - 1);
  assert_int_equal(ah.done[0], at + bp * page - (uintptr_t)a);
  assert_int_equal(*(const uint8_t *)at, 0xab);
  assert_int_equal(((const uint8_t *)at)[bp * page - 1], 0xab);
  assert_true(tu_resident((const void *)at));
  for (size_t r = 0; r < written; r++)
    assert_true(a[r] == (int64_t)r && late[r] == (int64_t)r);
  for (size_t r = 0; r < rows; r++)
    assert_true(f[r] == -7);
  assert_int_equal(ah.done[1], 16 * page);
  assert_int_equal(ah.done[2], 0);
  /* a row past the moved block, and the array grown and freed as malloc's */
  a[rows - 1] = 42;
  a = realloc(a, 2 * rows * 8);
  assert_non_null(a);
  for (size_t r = 0; r < written; r++)
    assert_true(a[r] == (int64_t)r);
  assert_true(a[rows - 1] == 42);
  /* after the kernel refused once (as counted), nothing more moves; spares unmapped */
  sp.moves = TRAK_SPARES_MOVES;
  ah.col[0].p = a, ah.done[0] = 16 * page;
  assert_int_equal(trak__ahead_recycle(&ah, 0, rows, &sp), 0);
  assert_int_equal(sp.n, 2);
  trak__spares_free(&sp);
  assert_int_equal(sp.n, 0);
  free(a), free(f), free(late);
}

/* The JSON import's args page-ahead: the other thread runs its idle calls until told to stop. */
typedef struct idler {
  trak_ahead_job *job;
  atomic_int stop;
  atomic_int did; /* idle calls that made pages present */
} idler;

static void *idler_main(void *arg) {
  idler *d = arg;
  while (!atomic_load(&d->stop)) {
    if (trak__ahead_job_idle(d->job)) atomic_fetch_add(&d->did, 1);
    nanosleep(&(struct timespec){0, 50 * 1000}, NULL);
  }
  return NULL;
}

/* Args rows added while the other thread runs the job ahead of them, past the rows reserved: the
** resize there stops the job before the columns move (no idle call does anything after it), and
** every value reads back as written. */
static void test_args_job_stops_before_a_resize(void **state) {
  (void)state;
  const size_t reserved = ROWS / 4, rows = ROWS / 2;
  trak_tables t;
  trak__tables_init(&t);
  assert_int_equal(trak__args_ahead_start(&t, reserved), 0);
  assert_int_equal(t.args.cap, reserved);
  assert_int_equal(trak__args_ahead_start(&t, reserved), -1); /* one job at a time */
  idler d = {.job = t.args.ahead};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, idler_main, &d), 0);
  for (size_t r = 0; r < rows; r++) {
    uint32_t row = trak__arg_add(&t, (uint32_t)r, (uint32_t)(r ^ 0x5a5a), (uint32_t)(r * 3),
                                 (trak_arg_type)(r % 8));
    t.args.value[row] = (uint64_t)(r * 7919); /* the word, whatever the row's type */
    if (r % 1024 == 1023) trak__ahead_job_tell(t.args.ahead, t.args.n);
    if (r == reserved + 1) { /* the push at `reserved` resized: the job is off for good */
      assert_true(t.args.cap > reserved);
      assert_int_equal(trak__ahead_job_idle(t.args.ahead), 0);
    }
  }
  atomic_store(&d.stop, 1);
  pthread_join(th, NULL);
  assert_int_equal(trak__ahead_job_idle(t.args.ahead), 0);
  size_t bad = 0;
  for (size_t r = 0; r < rows; r++)
    bad += t.args.arg_set_id[r] != (uint32_t)r || t.args.flat_key[r] != (uint32_t)(r ^ 0x5a5a) ||
           t.args.key[r] != (uint32_t)(r * 3) || t.args.value_type[r] != r % 8 ||
           t.args.value[r] != (uint64_t)(r * 7919);
  assert_int_equal(bad, 0);
  trak__args_ahead_end(&t);
  assert_null(t.args.ahead);
  trak__tables_free(&t);
}

/* Reserving keeps the rows there are and never shrinks the table. */
static void test_args_reserve_keeps_rows(void **state) {
  (void)state;
  trak_tables t;
  trak__tables_init(&t);
  for (uint32_t r = 0; r < 100; r++) {
    uint32_t row = trak__arg_add(&t, r, r + 1, r + 2, TRAK_ARG_REAL);
    trak__arg_set_real(&t, row, r / 4.0);
  }
  assert_int_equal(trak__args_reserve(&t, ROWS), 0);
  assert_int_equal(t.args.cap, ROWS);
  assert_int_equal(trak__args_reserve(&t, 16), 0);
  assert_int_equal(t.args.cap, ROWS);
  size_t bad = 0;
  for (uint32_t r = 0; r < 100; r++)
    bad += t.args.arg_set_id[r] != r || t.args.flat_key[r] != r + 1 || t.args.key[r] != r + 2 ||
           t.args.value_type[r] != TRAK_ARG_REAL || trak__arg_real(&t, r) != r / 4.0;
  assert_int_equal(bad, 0);
  assert_int_equal(t.args.n, 100);
  trak__tables_free(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_values_written_stay),
      cmocka_unit_test(test_no_further_than_asked),
      cmocka_unit_test(test_ahead_to_steps),
      cmocka_unit_test(test_columns_past_the_most),
      cmocka_unit_test(test_recycle_moves_spares_onto_columns),
      cmocka_unit_test(test_args_job_stops_before_a_resize),
      cmocka_unit_test(test_args_reserve_keeps_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
