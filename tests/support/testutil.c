/*
** Helpers shared by the cmocka tests (see testutil.h).
*/
#define _DEFAULT_SOURCE /* mincore */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "testutil.h"
#include "trak/pbtxt.h"
#include "trak/processor.h"

const char *tu_source_path(const char *relative) {
  static char path[4096];
  const char *root = getenv("TRAK_SOURCE_DIR");
  snprintf(path, sizeof path, "%s/%s", root ? root : ".", relative);
  return path;
}

void tu_temp_file(char *path) {
  int fd = mkstemp(path);
  if (fd < 0) fail_msg("cannot create a file from %s", path);
  close(fd);
}

int tu_resident(const void *p) {
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  unsigned char v = 0;
  if (mincore((void *)((uintptr_t)p & ~(page - 1)), page, &v)) fail_msg("mincore of %p fails", p);
  return v & 1;
}

void tu_write_temp(char *path, const void *data, size_t len) {
  tu_temp_file(path);
  FILE *f = fopen(path, "wb");
  if (!f) fail_msg("cannot open %s", path);
  if (fwrite(data, 1, len, f) != len || fclose(f)) fail_msg("cannot write %s", path);
}

char *tu_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = malloc((size_t)n + 1);
  assert_non_null(data);
  assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
  data[n] = 0;
  fclose(f);
  if (len) *len = (size_t)n;
  return data;
}

void tu_pbtxt_to_binary(const char *message, const char *text, trak_pb_buf *out) {
  trak_error err = {0};
  trak_pb_buf_init_heap(out);
  if (trak_pbtxt_parse(message, text, strlen(text), out, &err))
    fail_msg("pbtxt parse failed: %s", err.message);
}

char *tu_binary_to_pbtxt(const char *message, const void *data, size_t len) {
  trak_error err = {0};
  trak_pb_buf text;
  trak_pb_buf_init_heap(&text);
  if (trak_pbtxt_print(message, data, len, &text, &err))
    fail_msg("pbtxt print failed: %s", err.message);
  trak_pb_put_raw(&text, "", 1);
  size_t n;
  return (char *)trak_pb_buf_detach(&text, &n);
}

int tu_export(trak_processor *p, const char *db) {
  trak_error err = {0};
  int rc = trak_processor_export(p, db, &err);
  char sql[200];
  snprintf(sql, sizeof sql,
           "ATTACH DATABASE '%s' AS x; CREATE TABLE x.import_logs AS SELECT * FROM "
           "__intrinsic_trace_import_logs; DETACH DATABASE x",
           db);
  if (!rc) rc = trak_processor_exec(p, sql, &err);
  return rc;
}

int tu_import_export(const char *path, const char *db) {
  trak_processor *p;
  trak_error err = {0};
  int rc = trak_processor_open_file(path, NULL, &p, &err);
  if (rc) return rc;
  rc = tu_export(p, db);
  trak_processor_free(p);
  return rc;
}

/* Opens the trace at `path` into *p and returns `sql` over it at its first row; fails the test if
** either step fails or there is no row. */
static trak_query *first_row(const char *path, const char *sql, trak_processor **p) {
  trak_error err = {0};
  assert_int_equal(trak_processor_open_file(path, NULL, p, &err), 0);
  trak_query *q;
  assert_int_equal(trak_query_open(*p, sql, &q, NULL, &err), 0);
  assert_int_equal(trak_query_next(q, &err), 1);
  return q;
}

int64_t tu_query_int(const char *path, const char *sql) {
  trak_processor *p;
  trak_query *q = first_row(path, sql, &p);
  int64_t v = trak_query_int(q, 0);
  trak_query_free(q);
  trak_processor_free(p);
  return v;
}

char *tu_query_text(const char *path, const char *sql) {
  trak_processor *p;
  trak_query *q = first_row(path, sql, &p);
  const char *v = trak_query_string(q, 0);
  char *copy = v ? strdup(v) : NULL;
  trak_query_free(q);
  trak_processor_free(p);
  return copy;
}

void tu_assert_same_file(const char *a, const char *b, const char *what) {
  size_t na, nb;
  char *da = tu_read_file(a, &na), *db = tu_read_file(b, &nb);
  if (na != nb || memcmp(da, db, na)) fail_msg("the tables differ: %s", what);
  free(da);
  free(db);
}

int tu_no_huge_pages(const void *p) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  int in = 0, flag = -1;
  uintptr_t at = (uintptr_t)p;
  while (fgets(line, sizeof line, f)) {
    uintmax_t lo, hi;
    if (sscanf(line, "%jx-%jx ", &lo, &hi) == 2)
      in = at >= lo && at < hi;
    else if (in && !strncmp(line, "VmFlags:", 8))
      flag = strstr(line, " nh") != NULL;
  }
  fclose(f);
  return flag;
}
