/*
** The system backend with threads: several threads of one producer process trace at once
** into shared memory while the producer's connection thread hands chunks to the daemon
** concurrently; every event must arrive. The daemon and the recorder are forked before any
** thread starts (so this also runs under TSan), the recorder waiting for a go byte.
*/
#include <pthread.h>

#include "system_testutil.h"

TRAK_CATEGORY_DEFINE(cat_mt, "mt", "threads");

enum { THREADS = 4, PER_THREAD = 5000 };

static void *emit(void *arg) {
  (void)arg;
  for (int i = 0; i < PER_THREAD; i++) {
    TRAK_EVENT(cat_mt, "step", TRAK_ARG("i", i));
  }
  return NULL;
}

static void test_threads_into_daemon(void **state) {
  (void)state;
  start_daemon(8192); /* room for every event: any loss would be a bug */
  int go[2];
  assert_int_equal(pipe(go), 0);
  pid_t rec = spawn_recorder("buffers { size_kb: 32768 fill_policy: DISCARD }\n", 0, go[0]);
  assert_int_equal(trak_system_connect(sock), 0);
  assert_int_equal(write(go[1], "g", 1), 1);
  for (int t = 0; t < 1000 && trak_system_active_sessions() != 1; t++)
    sleep_ms(10);
  assert_int_equal(trak_system_active_sessions(), 1);
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++)
    assert_int_equal(pthread_create(&th[i], NULL, emit, NULL), 0);
  for (int i = 0; i < THREADS; i++)
    pthread_join(th[i], NULL);
  kill(rec, SIGUSR1);
  int rc = wait_child(rec, 20000);
  for (int t = 0; t < 1000 && trak_system_active_sessions() != 0; t++)
    sleep_ms(10);
  trak_system_disconnect();
  assert_int_equal(rc, 0); /* exit 5 would mean losses */
  tally t;
  read_trace(0, &t);
  int k = index_of(&t, getpid());
  assert_true(k >= 0);
  assert_int_equal(t.untrusted, 0);
  assert_int_equal(t.slices[k], THREADS * PER_THREAD);
  close(go[0]);
  close(go[1]);
  stop_daemon();
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_threads_into_daemon)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
