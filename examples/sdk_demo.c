/*
** A small instrumented program: a producer thread hands work items to a pool of workers
** (flows connect each hand-off), workers run nested slices with arguments, a counter track
** follows the queue depth, and a custom track shows request lifetimes. It records one
** in-process session and writes the trace to the path given as its argument:
**   example_sdk_demo out.pftrace      (open it in the Perfetto UI or `trak`)
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "trak/trak.h"

TRAK_CATEGORY_DEFINE(cat_app, "app", "Application events");
TRAK_CATEGORY_DEFINE(cat_io, "io", "Simulated I/O");
TRAK_CATEGORY_DEFINE(cat_verbose, "app.verbose", "Per-item detail", "debug");

enum { WORKERS = 3, ITEMS = 60 };

static int queue[ITEMS];
static int head, tail;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;
static trak_track depth_track, requests_track;

static void spin_us(int us) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do
    clock_gettime(CLOCK_MONOTONIC, &t1);
  while ((t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000 < us);
}

static void process(int item) {
  TRAK_EVENT(cat_app, "process", TRAK_ARG("item", item), TRAK_TERMINATING_FLOW(1000 + item));
  {
    TRAK_EVENT(cat_io, "read", TRAK_ARG("bytes", 4096u * (unsigned)(item % 4 + 1)));
    spin_us(50 + item % 5 * 20);
  }
  {
    TRAK_EVENT(cat_app, "compute", TRAK_ARG("ratio", item / 7.0), TRAK_ARG("ok", item % 9 != 0));
    TRAK_EVENT_INSTANT(cat_verbose, "detail"); /* "debug" tag: off by default */
    spin_us(100);
  }
}

/* Worker `arg` takes every WORKERS-th item, starting at its own number, so that each worker has
** work (and a track in the trace) however the threads are scheduled: with a shared queue, a
** loaded machine once let one worker take all the items before the others first ran. */
static void *worker(void *arg) {
  char name[32];
  int me = (int)(intptr_t)arg;
  snprintf(name, sizeof name, "worker-%d", me);
  trak_thread_set_name(name);
  for (int item = me; item < ITEMS; item += WORKERS) {
    pthread_mutex_lock(&lock);
    while (tail <= item)
      pthread_cond_wait(&more, &lock);
    head++;
    TRAK_COUNTER(cat_app, depth_track, tail - head);
    pthread_mutex_unlock(&lock);
    process(queue[item]);
    TRAK_EVENT_END(cat_app, TRAK_TRACK(requests_track)); /* the request's slice ends here */
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUTPUT_TRACE\n", argv[0]);
    return 2;
  }
  trak_process_set_name("sdk_demo");
  trak_session_config cfg = {0};
  cfg.buffer_size_kb = 4096;
  trak_session *session;
  trak_error err;
  if (trak_session_new(&cfg, &session, &err) || trak_session_start(session, &err)) {
    fprintf(stderr, "sdk_demo: %s\n", err.message);
    return 1;
  }
  depth_track = trak_track_counter("queue depth", TRAK_UNIT_COUNT, 0);
  requests_track = trak_track_named("requests", 0);

  pthread_t th[WORKERS];
  for (int i = 0; i < WORKERS; i++)
    pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
  trak_thread_set_name("producer");
  {
    TRAK_EVENT(cat_app, "produce all", TRAK_ARG("items", ITEMS));
    for (int i = 0; i < ITEMS; i++) {
      TRAK_EVENT(cat_app, "enqueue", TRAK_FLOW(1000 + i));
      TRAK_EVENT_BEGIN(cat_app, "request", TRAK_TRACK(requests_track), TRAK_ARG("id", i));
      pthread_mutex_lock(&lock);
      queue[tail++] = i;
      TRAK_COUNTER(cat_app, depth_track, tail - head);
      pthread_cond_broadcast(&more); /* the item's worker among them */
      pthread_mutex_unlock(&lock);
      spin_us(60);
    }
  }
  for (int i = 0; i < WORKERS; i++)
    pthread_join(th[i], NULL);

  trak_session_stats st;
  if (trak_session_stop(session, &err) || trak_session_write_file(session, argv[1], &err)) {
    fprintf(stderr, "sdk_demo: %s\n", err.message);
    return 1;
  }
  trak_session_get_stats(session, &st);
  printf("sdk_demo: wrote %s (%llu packets, %llu bytes, %llu lost)\n", argv[1],
         (unsigned long long)st.packets_written, (unsigned long long)st.bytes_read,
         (unsigned long long)st.packets_lost);
  trak_session_free(session);
  return 0;
}
