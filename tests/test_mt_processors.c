/*
** Several processors on several threads at once, as the Python package's BatchTraceProcessor
** runs them: each thread imports the same trace, runs a metric, describes a slice and fetches a
** table in columns. Under ThreadSanitizer this checks that processors share no unguarded state;
** every thread must see the same results. Each import frames and decodes on a thread of its
** own (TRAK_IMPORT_THREADS=2).
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "trak/processor.h"

#define THREADS 4

typedef struct worker {
  const char *path;
  int rc;           /* 0, or the first failing call's code */
  int64_t rows;     /* rows of the slice table */
  int64_t name_sum; /* sum of the name codes, to compare the dictionaries */
  int64_t alerts;   /* rows of the alert table after long_slices */
  char description[64];
} worker;

static void *run(void *arg) {
  worker *w = arg;
  trak_processor *p;
  trak_error err = {0};
  if ((w->rc = trak_processor_open_file(w->path, NULL, &p, &err))) return NULL;
  const char *metric = "long_slices";
  if ((w->rc = trak_processor_compute_metrics(p, &metric, 1, NULL, &err))) goto out;
  const char *desc = NULL, *link = NULL;
  if (trak_processor_describe_slice(p, 3, &desc, &link))
    snprintf(w->description, sizeof w->description, "%s", desc);
  trak_query *q;
  if ((w->rc = trak_query_open(p, "select name, ts from slice order by id", &q, NULL, &err)))
    goto out;
  trak_column_batch cols[2];
  int64_t n;
  while ((n = trak_query_fetch_columns(q, 16, cols, &err)) > 0) {
    w->rows += n;
    for (int64_t r = 0; r < n; r++)
      w->name_sum += cols[0].codes[r];
  }
  if (n < 0) w->rc = (int)n;
  trak_query_free(q);
  if (!w->rc && (w->rc = trak_query_open(p, "select count(*) from alert", &q, NULL, &err)) == 0) {
    if (trak_query_next(q, &err) > 0) w->alerts = trak_query_int(q, 0);
    trak_query_free(q);
  }
out:
  trak_processor_free(p);
  return NULL;
}

static void test_processors_in_parallel(void **state) {
  /* The trace in binary, imported with a decoding thread each (read/pipeline.c): eight threads. */
  size_t len;
  char *text = tu_read_file(tu_source_path("tests/data/analysis/app.pbtxt"), &len);
  trak_pb_buf bin;
  tu_pbtxt_to_binary("Trace", text, &bin);
  free(text);
  char path[] = "/tmp/trak_mt_processors_XXXXXX";
  tu_write_temp(path, bin.start, trak_pb_buf_len(&bin));
  trak_pb_buf_free(&bin);
  setenv("TRAK_IMPORT_THREADS", "2", 1);
  worker workers[THREADS];
  pthread_t threads[THREADS];
  memset(workers, 0, sizeof workers);
  for (int i = 0; i < THREADS; i++) {
    workers[i].path = path;
    assert_int_equal(pthread_create(&threads[i], NULL, run, &workers[i]), 0);
  }
  for (int i = 0; i < THREADS; i++)
    pthread_join(threads[i], NULL);
  for (int i = 0; i < THREADS; i++) {
    assert_int_equal(workers[i].rc, 0);
    assert_true(workers[i].rows > 10);
    assert_true(workers[i].alerts > 0);
    assert_true(strlen(workers[i].description) > 0);
    assert_int_equal(workers[i].rows, workers[0].rows);
    assert_int_equal(workers[i].name_sum, workers[0].name_sum);
    assert_int_equal(workers[i].alerts, workers[0].alerts);
    assert_string_equal(workers[i].description, workers[0].description);
  }
  unsetenv("TRAK_IMPORT_THREADS");
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_processors_in_parallel)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
