/*
** Import benchmark of systrace text (tracefs' `trace` file format). Generates a trace of N
** event lines straight to a file in /tmp: 8 CPUs, 20 processes of 10 threads, each CPU
** switching between threads (sched_switch with real prev/next, sched_waking of the next one),
** atrace markers (B/E slices nested up to depth 4 per thread, C counters), cpu_frequency and
** cpu_idle counters, and events the text import does not model (irq_handler_entry), in
** timestamp order as tracefs prints them. It imports the file with the public API (1 MiB
** chunks, as `trak query` does), prints lines/s, MB/s and peak RSS per line, and deletes it.
**
**   systrace_bench [MILLION_LINES] [FILE] [keep]
**   defaults: 1 M lines, /tmp/trak_systrace_bench.txt; "keep" leaves the file in place.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_import.h"
#include "trak/processor.h"

#define CPUS 8
#define PROCESSES 20
#define THREADS_PER_PROCESS 10
#define THREADS (PROCESSES * THREADS_PER_PROCESS)
#define MAX_DEPTH 4

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static int tid_of(int t) {
  return 1000 + (t / THREADS_PER_PROCESS) * 100 + t % THREADS_PER_PROCESS;
}
static int pid_of(int t) {
  return 1000 + (t / THREADS_PER_PROCESS) * 100;
}

/* The line prefix: "  name-tid (  pid) [cpu] d..2 seconds.micros: " ("<idle>-0" for -1). */
static void prefix(FILE *f, int t, int cpu, uint64_t us) {
  if (t < 0)
    fprintf(f, "          <idle>-0     (-----) [%03d] d..2 %5llu.%06llu: ", cpu,
            (unsigned long long)(us / 1000000), (unsigned long long)(us % 1000000));
  else
    fprintf(f, "      thread%03d-%-5d (%5d) [%03d] d..2 %5llu.%06llu: ", t, tid_of(t), pid_of(t),
            cpu, (unsigned long long)(us / 1000000), (unsigned long long)(us % 1000000));
}

static uint64_t generate(const char *path, uint64_t lines) {
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  fputs("# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:8\n#\n"
        "#           TASK-PID    TGID   CPU#  ||||   TIMESTAMP  FUNCTION\n"
        "#              | |        |      |   ||||      |         |\n",
        f);
  int running[CPUS], depth[THREADS] = {0};
  for (int c = 0; c < CPUS; c++)
    running[c] = -1;
  uint64_t us = 1000000, n = 0;
  while (n < lines) {
    uint64_t r = next_rand();
    int cpu = (int)(r % CPUS);
    int cur = running[cpu];
    unsigned kind = (unsigned)(r >> 8) % 20;
    us += 1 + (r >> 16) % 5;
    if (kind < 8 || cur < 0) { /* waking then switch to another thread */
      int next = (int)((r >> 24) % THREADS);
      prefix(f, cur, cpu, us);
      fprintf(f, "sched_waking: comm=thread%03d pid=%d prio=120 target_cpu=%03d\n", next,
              tid_of(next), cpu);
      prefix(f, cur, cpu, us + 1);
      if (cur < 0)
        fputs("sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> ", f);
      else
        fprintf(f,
                "sched_switch: prev_comm=thread%03d prev_pid=%d prev_prio=120 prev_state=%s ==> ",
                cur, tid_of(cur), (r >> 40) & 1 ? "S" : "R+");
      fprintf(f, "next_comm=thread%03d next_pid=%d next_prio=120\n", next, tid_of(next));
      running[cpu] = next;
      n += 2;
    } else if (kind < 15) { /* a marker of the running thread */
      prefix(f, cur, cpu, us);
      if (kind < 11 && depth[cur] < MAX_DEPTH) {
        fprintf(f, "tracing_mark_write: B|%d|slice%u\n", pid_of(cur), (unsigned)(r >> 32) % 100);
        depth[cur]++;
      } else if (kind < 14 && depth[cur] > 0) {
        fprintf(f, "tracing_mark_write: E|%d\n", pid_of(cur));
        depth[cur]--;
      } else {
        fprintf(f, "tracing_mark_write: C|%d|counter%u|%u\n", pid_of(cur), (unsigned)(r >> 32) % 4,
                (unsigned)(r >> 40) % 1000);
      }
      n++;
    } else if (kind < 18) {
      prefix(f, -1, cpu, us);
      if (kind == 15)
        fprintf(f, "cpu_frequency: state=%u cpu_id=%d\n",
                300000 + (unsigned)(r >> 32) % 20 * 100000, cpu);
      else
        fprintf(f, "cpu_idle: state=%s cpu_id=%d\n", kind == 16 ? "1" : "4294967295", cpu);
      n++;
    } else {
      prefix(f, cur, cpu, us);
      fprintf(f, "irq_handler_entry: irq=%u name=eth0\n", (unsigned)(r >> 32) % 64);
      n++;
    }
  }
  fclose(f);
  return n;
}

int main(int argc, char **argv) {
  double million = argc > 1 ? strtod(argv[1], NULL) : 1;
  const char *path = argc > 2 ? argv[2] : "/tmp/trak_systrace_bench.txt";
  int keep = argc > 3 && !strcmp(argv[3], "keep");
  double t0 = bench_now_sec();
  uint64_t lines = generate(path, (uint64_t)(million * 1e6));
  printf("generated %s: %llu event lines in %.1f s\n", path, (unsigned long long)lines,
         bench_now_sec() - t0);

  trak_processor *p = bench_import_file(path, lines, "lines");
  static const char *const labels[] = {"sched", "thread_state", "slices", "counter values", NULL};
  bench_import_finish(p,
                      "select (select count(*) from sched), (select count(*) from thread_state), "
                      "(select count(*) from slice), (select count(*) from counter)",
                      labels, path, keep);
  return 0;
}
