/*
** The Linux sink's merge on a thread of its own (import/ftrace/merge_thread.c) gives the tables
** of the merge on the importer's thread: every Linux trace under tests/data (the Linux goldens'
** text traces, read as text so that only the merge runs on a second thread, and the systrace
** files) and generated scheduling traces (typed and compact_sched, many batches of the hand-off)
** are imported with TRAK_IMPORT_THREADS=1 and =2 and exported to SQLite files, which must be
** equal byte for byte, the import log included. Under ThreadSanitizer (the label "concurrency")
** this also checks that the merge shares no unguarded state with the applying thread.
*/
#define _GNU_SOURCE /* nftw */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bench/gen_sched.h"
#include "testutil.h"
#include "trak/processor.h"

static int compared;

/* Imports `path` with TRAK_IMPORT_THREADS=`threads` and exports it to `db`; the import's code. */
static int export_threads(const char *path, const char *threads, const char *db) {
  setenv("TRAK_IMPORT_THREADS", threads, 1);
  int rc = tu_import_export(path, db);
  unsetenv("TRAK_IMPORT_THREADS");
  return rc;
}

/* Asserts that one and two threads import `path` to the same bytes. */
static void same_tables(const char *path) {
  char a[] = "/tmp/trak_merge_1_XXXXXX", b[] = "/tmp/trak_merge_2_XXXXXX";
  tu_temp_file(a);
  tu_temp_file(b);
  int ra = export_threads(path, "1", a), rb = export_threads(path, "2", b);
  if (ra != rb) fail_msg("%s: import returns %d with one thread, %d with two", path, ra, rb);
  size_t na, nb;
  char *da = tu_read_file(a, &na), *db = tu_read_file(b, &nb);
  if (!ra && (na != nb || memcmp(da, db, na)))
    fail_msg("%s: the tables differ between the merge on one thread and on two", path);
  free(da);
  free(db);
  unlink(a);
  unlink(b);
  compared++;
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st, (void)ftw;
  size_t n = strlen(path);
  static const char *const ext[] = {".pbtxt", ".pb", ".systrace"};
  for (size_t i = 0; type == FTW_F && i < sizeof ext / sizeof *ext; i++) {
    size_t m = strlen(ext[i]);
    if (n > m && !strcmp(path + n - m, ext[i])) {
      same_tables(path);
      break;
    }
  }
  return 0;
}

static void test_every_linux_trace(void **state) {
  (void)state;
  compared = 0;
  static const char *const dirs[] = {"tests/data/linux", "tests/data/golden/linux",
                                     "tests/data/systrace"};
  for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
    assert_int_equal(nftw(tu_source_path(dirs[i]), visit, 16, FTW_PHYS), 0);
  printf("compared %d Linux traces\n", compared);
  assert_true(compared >= 40);
}

/* Generated traces of many hand-off batches (1,024 records each), typed (a waking and its raw
** row in one record) and compact_sched (runs decoded by the merge thread). */
static void test_generated_sched_traces(void **state) {
  (void)state;
  for (int compact = 0; compact < 2; compact++) {
    char pb[] = "/tmp/trak_merge_sched_XXXXXX";
    tu_temp_file(pb);
    assert_true(gen_sched(pb, 30000 + 1000 * compact, compact) > 0);
    same_tables(pb);
    unlink(pb);
  }
}

/* A trace whose queue blocks the merge thread moves onto the sched tables' columns (prefault.h's
** trak__ahead_recycle: a hundred thousand rows and more, past the page-ahead's margin): the tables
** are those of one thread, which unmaps the blocks. */
static void test_queue_blocks_become_columns(void **state) {
  (void)state;
  char pb[] = "/tmp/trak_merge_recycle_XXXXXX";
  tu_temp_file(pb);
  assert_true(gen_sched(pb, 150000, 0) > 0);
  same_tables(pb);
  unlink(pb);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_linux_trace),
      cmocka_unit_test(test_generated_sched_traces),
      cmocka_unit_test(test_queue_blocks_become_columns),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
