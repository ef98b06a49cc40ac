/*
** Unit tests of src/processor/read/file_map.c, the read-only mapping trace files are read
** through: the bytes are the file's, what cannot be mapped (empty, a pipe, TRAK_IMPORT_MMAP=0)
** is left to fread, and a file truncated while mapped ends where it now ends instead of raising
** SIGBUS; releasing pages behind keeps the bytes readable.
*/
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "processor/read/file_map.h"
#include "testutil.h"

#define SIZE ((size_t)10 << 20)

/* A temporary file of SIZE bytes, byte i being (uint8_t)(i * 7); returns it open for reading. */
static int make_file(char *path) {
  uint8_t *bytes = malloc(SIZE);
  assert_non_null(bytes);
  for (size_t i = 0; i < SIZE; i++)
    bytes[i] = (uint8_t)(i * 7);
  tu_write_temp(path, bytes, SIZE);
  free(bytes);
  int fd = open(path, O_RDONLY);
  assert_true(fd >= 0);
  return fd;
}

/* make_file's file mapped as `m`, its first 1 MiB made present; returns it open. */
static int map_file(char *path, trak_file_map *m) {
  int fd = make_file(path);
  assert_int_equal(trak__file_map_open(m, fd, SIZE), 0);
  assert_int_equal(trak__file_map_ready(m, 1 << 20), 1 << 20);
  return fd;
}

static void test_bytes_are_the_files(void **state) {
  (void)state;
  char path[] = "/tmp/trak_file_map_XXXXXX";
  trak_file_map m;
  int fd = map_file(path, &m);
  assert_int_equal(m.data[12345], (uint8_t)(12345 * 7));
  assert_int_equal(trak__file_map_ready(&m, SIZE + 100), SIZE); /* never past the end */
  trak__file_map_drop(&m, SIZE - 1);
  assert_true(m.dropped >= SIZE - (8u << 20));                   /* released behind */
  assert_int_equal(m.data[5u << 20], (uint8_t)((5u << 20) * 7)); /* and readable again */
  assert_int_equal(m.data[SIZE - 1], (uint8_t)((SIZE - 1) * 7));
  trak__file_map_close(&m);
  assert_null(m.data);
  trak__file_map_close(&m); /* nothing mapped: nothing done */
  close(fd);
  unlink(path);
}

/* The file cut to 3 MiB + 100 bytes after its first pages were made present: the reader is told
** the new end (the next call returns it), and reading up to it does not fault. */
static void test_truncated_while_mapped(void **state) {
  (void)state;
  char path[] = "/tmp/trak_file_map_XXXXXX";
  trak_file_map m;
  int fd = map_file(path, &m);
  size_t cut = (3u << 20) + 100;
  assert_int_equal(truncate(path, (off_t)cut), 0);
  assert_int_equal(trak__file_map_ready(&m, SIZE), cut);
  assert_int_equal(m.end, cut);
  assert_int_equal(m.data[cut - 1], (uint8_t)((cut - 1) * 7));
  assert_int_equal(trak__file_map_ready(&m, SIZE), cut);
  trak__file_map_close(&m);
  close(fd);
  unlink(path);
}

/* What is not mapped: an empty file, a pipe, and any file with TRAK_IMPORT_MMAP=0. */
static void test_not_mapped(void **state) {
  (void)state;
  char path[] = "/tmp/trak_file_map_XXXXXX";
  int fd = make_file(path);
  trak_file_map m;
  setenv("TRAK_IMPORT_MMAP", "0", 1);
  assert_int_equal(trak__file_map_open(&m, fd, SIZE), -1);
  assert_null(m.data);
  unsetenv("TRAK_IMPORT_MMAP");
  assert_int_equal(trak__file_map_open(&m, fd, 0), -1);
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  assert_int_equal(trak__file_map_open(&m, fds[0], SIZE), -1);
  assert_null(m.data);
  close(fds[0]);
  close(fds[1]);
  close(fd);
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bytes_are_the_files),
      cmocka_unit_test(test_truncated_while_mapped),
      cmocka_unit_test(test_not_mapped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
