/*
** slices.time_in_state and slices.cpu_time computed on two threads (slice_thread_time_all.c:
** each half of the rows counted and copied on a thread, each half of the threads walked on one)
** answer what one thread answers, row for row, and what the SQL intersection of the same
** intervals answers. The trace is a generated systrace: 12 threads on 2 CPUs switching in
** Running, R, S and D (some with a blocked function), slices nested up to three deep, and a
** 5 s pause so that some states last over 2^32 ns (the intervals' wide case). Under
** ThreadSanitizer this also checks that the two threads share no unguarded state.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqlcheck.h"
#include "testutil.h"
#include "trak/processor.h"

#define NTHREADS 12
#define STEPS 6000

static uint64_t rng = 0x2545f4914f6cdd1dull;
static unsigned next_rand(unsigned n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng % n);
}

/* Writes the trace to a temporary file; returns its path (static). */
static const char *write_trace(void) {
  static char path[] = "/tmp/trak_mt_slice_time_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  assert_non_null(f);
  fputs("# tracer: nop\n#\n", f);
  int on_cpu[2] = {-1, -1}, depth[NTHREADS] = {0}, busy[NTHREADS] = {0};
  uint64_t us = 1000000;
  static const char *const states[] = {"R", "S", "D", "R+"};
  for (int step = 0; step < STEPS; step++) {
    us += 1 + next_rand(40);
    if (step == STEPS / 2) us += 5000000; /* states over 2^32 ns */
    int cpu = (int)next_rand(2), cur = on_cpu[cpu];
    int tid = cur < 0 ? 0 : 200 + cur;
    char comm[16];
    snprintf(comm, sizeof comm, cur < 0 ? "<idle>" : "t%d", cur);
    unsigned what = next_rand(10);
    if (cur >= 0 && what < 4) { /* a slice begins or ends on the running thread */
      if (depth[cur] < 3 && (what < 2 || !depth[cur])) {
        fprintf(f, "%16s-%-5d (  200) [%03d] d..3 %6llu.%06llu: tracing_mark_write: B|200|s%u\n",
                comm, tid, cpu, (unsigned long long)(us / 1000000),
                (unsigned long long)(us % 1000000), next_rand(5));
        depth[cur]++;
      } else {
        fprintf(f, "%16s-%-5d (  200) [%03d] d..3 %6llu.%06llu: tracing_mark_write: E|200\n",
                comm, tid, cpu, (unsigned long long)(us / 1000000),
                (unsigned long long)(us % 1000000));
        depth[cur]--;
      }
      continue;
    }
    int next = (int)next_rand(NTHREADS + 1) - 1; /* -1: idle */
    if (next >= 0 && busy[next]) continue;
    const char *prev_state = cur < 0 ? "R" : states[next_rand(4)];
    char next_comm[16];
    snprintf(next_comm, sizeof next_comm, next < 0 ? "swapper/%d" : "t%d", next < 0 ? cpu : next);
    fprintf(f,
            "%16s-%-5d (  200) [%03d] d..3 %6llu.%06llu: sched_switch: prev_comm=%s prev_pid=%d "
            "prev_prio=120 prev_state=%s ==> next_comm=%s next_pid=%d next_prio=120\n",
            comm, tid, cpu, (unsigned long long)(us / 1000000), (unsigned long long)(us % 1000000),
            cur < 0 ? "swapper" : comm, tid, prev_state, next_comm, next < 0 ? 0 : 200 + next);
    if (cur >= 0 && prev_state[0] == 'D' && next_rand(2))
      fprintf(f,
              "%16s-%-5d (  200) [%03d] d..3 %6llu.%06llu: sched_blocked_reason: pid=%d "
              "iowait=%u caller=f%u+0x4/0x8\n",
              next_comm, next < 0 ? 0 : 200 + next, cpu, (unsigned long long)(us / 1000000),
              (unsigned long long)(us % 1000000), tid, next_rand(2), next_rand(3));
    if (cur >= 0) busy[cur] = 0;
    if (next >= 0) busy[next] = 1;
    on_cpu[cpu] = next;
  }
  fclose(f);
  return path;
}

/* The full answers of both tables under TRAK_QUERY_THREADS=threads, on a new processor. */
static char *answers(const char *path, const char *threads) {
  setenv("TRAK_QUERY_THREADS", threads, 1);
  trak_processor *p;
  trak_error err = {0};
  assert_int_equal(trak_processor_open_file(path, NULL, &p, &err), 0);
  /* the trace has states over 2^32 ns on threads with slices */
  assert_true(sc_int(p, "SELECT count(*) FROM thread_state WHERE dur >= 4294967295 AND utid IN "
                        "(SELECT utid FROM thread_track JOIN slice ON slice.track_id = "
                        "thread_track.id)") > 0);
  const char *a = sc_rows(p, "INCLUDE PERFETTO MODULE slices.time_in_state; "
                             "SELECT * FROM thread_slice_time_in_state");
  size_t na = strlen(a);
  assert_true(na > 1000);
  char *out = malloc(na + 1);
  assert_non_null(out);
  memcpy(out, a, na + 1);
  const char *c = sc_rows(p, "INCLUDE PERFETTO MODULE slices.cpu_time; "
                             "SELECT * FROM thread_slice_cpu_time");
  size_t nc = strlen(c);
  assert_true(nc > 100);
  out = realloc(out, na + nc + 2);
  assert_non_null(out);
  out[na] = '\n';
  memcpy(out + na + 1, c, nc + 1);
  if (!strcmp(threads, "2")) { /* the two-thread answer is the SQL intersection's */
    static const char reference[] =
        "SELECT ii.id_0, st.state, st.io_wait, st.blocked_function, sum(ii.dur) "
        "FROM _thread_slice_intersect!((SELECT id, ts, dur, utid FROM thread_state "
        "WHERE dur > 0)) AS ii JOIN thread_state AS st ON st.id = ii.id_1 "
        "GROUP BY ii.id_0, st.state, st.io_wait, st.blocked_function";
    static const char mine[] =
        "SELECT id, state, io_wait, blocked_function, dur FROM thread_slice_time_in_state";
    assert_int_equal(sc_int(p, "SELECT count(*) FROM (%s EXCEPT %s)", mine, reference), 0);
    assert_int_equal(sc_int(p, "SELECT count(*) FROM (%s EXCEPT %s)", reference, mine), 0);
  }
  trak_processor_free(p);
  return out;
}

static void two_threads_same_answer(void **state) {
  (void)state;
  const char *path = write_trace();
  char *one = answers(path, "1"), *two = answers(path, "2");
  assert_string_equal(one, two);
  free(one);
  free(two);
  unsetenv("TRAK_QUERY_THREADS");
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(two_threads_same_answer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
