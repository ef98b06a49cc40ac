/*
** Concurrency test of the wire codec and the text format: several threads encode, decode,
** parse and print at once with no shared state between them. Run under ThreadSanitizer in
** `make test`, it proves the libraries keep no hidden mutable globals (static scratch buffers,
** lazily built tables) on these paths.
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "trak/pbtxt.h"
#include "trak/protos.h"

#define THREADS 4
#define ROUNDS 200

static const char *seed_text;

typedef struct worker {
  int id;
  int failures;
} worker;

static void *run(void *arg) {
  worker *w = arg;
  for (int r = 0; r < ROUNDS; r++) {
    trak_pb_buf bin, text, again;
    trak_error err;
    trak_pb_buf_init_heap(&bin);
    trak_pb_buf_init_heap(&text);
    trak_pb_buf_init_heap(&again);
    /* Each thread adds its own packet so the outputs differ between threads. */
    trak_pb_nested packet = trak_pb_begin_nested(&bin, TRAK_PB_Trace_packet);
    trak_pb_put_varint(&bin, TRAK_PB_TracePacket_timestamp, (uint64_t)(w->id * 1000000 + r));
    trak_pb_end_nested(&bin, packet);
    if (trak_pbtxt_parse("Trace", seed_text, strlen(seed_text), &bin, &err)) w->failures++;
    if (trak_pbtxt_print("Trace", bin.start, trak_pb_buf_len(&bin), &text, &err)) w->failures++;
    if (trak_pbtxt_parse("Trace", (const char *)text.start, trak_pb_buf_len(&text), &again, &err))
      w->failures++;
    /* The first packet was written with a 4-byte length, the reparse with a minimal one. */
    size_t first = 1 + 4 + 1 + trak_pb_varint_size((uint64_t)(w->id * 1000000 + r));
    size_t first_again = first - 3;
    if (trak_pb_buf_len(&again) != trak_pb_buf_len(&bin) - 3 ||
        memcmp(again.start + first_again, bin.start + first, trak_pb_buf_len(&bin) - first))
      w->failures++;
    trak_pb_buf_free(&bin);
    trak_pb_buf_free(&text);
    trak_pb_buf_free(&again);
  }
  return NULL;
}

static void test_parallel_round_trips(void **state) {
  seed_text = tu_read_file(tu_source_path("tests/data/seed/02_process_slices.pbtxt"), NULL);
  pthread_t threads[THREADS];
  worker workers[THREADS];
  for (int i = 0; i < THREADS; i++) {
    workers[i] = (worker){.id = i + 1};
    assert_int_equal(pthread_create(&threads[i], NULL, run, &workers[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) {
    pthread_join(threads[i], NULL);
    assert_int_equal(workers[i].failures, 0);
  }
  free((void *)seed_text);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_parallel_round_trips)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
