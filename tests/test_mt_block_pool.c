/*
** The block pool (src/processor/util/block_pool.c), which the ftrace queue (a thread of its own)
** and the track-event sequences (filled by the decoding thread) take record blocks from: nothing
** is mapped before the first take, a filled pool hands out blocks whose pages are all present
** and zero, and freeing it keeps the blocks taken. A test_mt_* test: under ThreadSanitizer it
** also checks that taker and filler share no byte but through the pool's lock.
*/
#define _DEFAULT_SOURCE /* mincore */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "processor/util/block_pool.h"
#include "testutil.h"

#define BLOCK (192u << 10)

/* How many of the pages of the block at `b` are in memory. */
static size_t resident_pages(void *b, size_t size) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (size + page - 1) / page;
  unsigned char *v = calloc(n, 1);
  assert_non_null(v);
  assert_int_equal(mincore(b, size, v), 0);
  size_t in = 0;
  for (size_t i = 0; i < n; i++)
    in += v[i] & 1;
  free(v);
  return in;
}

/* Whether every byte of the block is zero. */
static int zero(const uint8_t *b, size_t size) {
  for (size_t i = 0; i < size; i++)
    if (b[i]) return 0;
  return 1;
}

/* Filled by the caller's other thread (here, this one): nothing before a take, then `keep`
** blocks, each present and zero, then none. */
static void test_filled_by_caller(void **state) {
  (void)state;
  trak_block_pool *bp = trak__block_pool_new(BLOCK, 3, 0);
  assert_non_null(bp);
  trak__block_pool_fill(bp); /* never taken: fills nothing */
  assert_null(trak__block_pool_take(bp));
  trak__block_pool_fill(bp);
  void *b[3];
  for (int i = 0; i < 3; i++) {
    b[i] = trak__block_pool_take(bp);
    assert_non_null(b[i]);
    assert_int_equal(resident_pages(b[i], BLOCK), BLOCK / (size_t)sysconf(_SC_PAGESIZE));
    assert_true(zero(b[i], BLOCK));
  }
  assert_null(trak__block_pool_take(bp)); /* three kept, no more */
  trak__block_pool_fill(bp);              /* refilled, unmapped by free */
  trak__block_pool_free(bp);
  for (int i = 0; i < 3; i++) { /* the blocks taken are still the taker's */
    memset(b[i], 0x5a, BLOCK);
    munmap(b[i], BLOCK);
  }
  assert_null(trak__block_pool_take(NULL));
  trak__block_pool_free(NULL);
}

/* With its own thread: after the first take, blocks come ready; each is written by the taker. */
static void test_own_thread(void **state) {
  (void)state;
  trak_block_pool *bp = trak__block_pool_new(BLOCK, 8, 0);
  assert_non_null(bp);
  assert_int_equal(trak__block_pool_run(bp), 0);
  void *first = trak__block_pool_take(bp); /* asks: the thread starts mapping */
  if (first) munmap(first, BLOCK);
  size_t got = 0;
  for (int i = 0; i < 64; i++) {
    void *b = NULL;
    for (int w = 0; w < 1000 && !b; w++) { /* up to 10 s each on a loaded machine */
      b = trak__block_pool_take(bp);
      if (!b) nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    assert_non_null(b);
    assert_true(zero(b, BLOCK));
    memset(b, i, BLOCK);
    munmap(b, BLOCK);
    got++;
  }
  assert_int_equal(got, 64);
  trak__block_pool_free(bp);
}

/* A size that is no whole number of pages (sequence.c's 2 MiB + 16), of small pages: the block
** asks the kernel for no huge page (zeroing one costs a dozen times more per byte on the
** machines measured). */
static void test_odd_size_small(void **state) {
  (void)state;
  const size_t size = (2u << 20) + 16;
  trak_block_pool *bp = trak__block_pool_new(size, 1, 1);
  assert_non_null(bp);
  assert_null(trak__block_pool_take(bp));
  trak__block_pool_fill(bp);
  uint8_t *b = trak__block_pool_take(bp);
  assert_non_null(b);
  assert_true(zero(b, size));
  int nh = tu_no_huge_pages(b);
  if (nh >= 0) assert_int_equal(nh, 1); /* no /proc: nothing to check */
  b[size - 1] = 1;
  munmap(b, size);
  trak__block_pool_free(bp);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_filled_by_caller),
      cmocka_unit_test(test_own_thread),
      cmocka_unit_test(test_odd_size_small),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
