/*
** System backend benchmarks. Prints:
**   1. the median cost of one instant event in a producer process, in-process and in system
**      mode (same event path; system mode's buffer is the shared memory the daemon drains);
**   2. the daemon's sustained throughput: 2 producer processes emitting flat out into one
**      discard session for SECONDS, written to a file: MB/s, events/s and the loss figure.
** Run: build/system_bench   (it forks its own daemon on a socket in a temp dir)
*/
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trak/pbtxt.h"
#include "trak/trak.h"
#include "bench_util.h"
#include "util/proc_stat.h"

TRAK_CATEGORY_DEFINE(cat_b, "bench", "recorded");

enum { BATCH = 2000, BATCHES = 201 };
#define SECONDS 2.0

static char dir[64], sock[128];
static volatile int stop_flag;
static void on_stop(int sig) {
  (void)sig;
  stop_flag = 1;
}

/* Median ns per instant event over BATCHES batches; the least of three such medians. */
static double event_cost(void) {
  static double v[BATCHES];
  double best = 1e9;
  for (int round = 0; round < 3; round++) {
    for (int b = 0; b < BATCHES; b++) {
      uint64_t t0 = bench_now_ns();
      for (int i = 0; i < BATCH; i++)
        TRAK_EVENT_INSTANT(cat_b, "tick", TRAK_ARG("i", i));
      v[b] = (double)(bench_now_ns() - t0) / BATCH;
    }
    qsort(v, BATCHES, sizeof *v, bench_cmp_double);
    if (v[BATCHES / 2] < best) best = v[BATCHES / 2];
  }
  return best;
}

/* Top-level Trace.packet fields in the file at `path`. */
static uint64_t count_packets(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  static uint8_t buf[1 << 20];
  trak_pb_buf all;
  trak_pb_buf_init_heap(&all);
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    trak_pb_put_raw(&all, buf, n);
  fclose(f);
  trak_pb_decoder d;
  trak_pb_field fl;
  uint64_t count = 0;
  trak_pb_decoder_init(&d, all.start, trak_pb_buf_len(&all));
  while (trak_pb_decoder_next(&d, &fl) == 1)
    count++;
  trak_pb_buf_free(&all);
  return count;
}

static const char CONFIG[] = "buffers { size_kb: 262144 fill_policy: DISCARD }\n"
                             "write_into_file: true\n"; /* the daemon writes as it goes */

/* A recorder child: records CONFIG into `path` until SIGUSR1, prints its figures. */
static pid_t spawn_recorder(const char *path, double *elapsed_out) {
  (void)elapsed_out;
  pid_t pid = fork();
  if (pid) return pid;
  struct sigaction sa = {.sa_handler = on_stop};
  sigaction(SIGUSR1, &sa, NULL);
  trak_pb_buf cfg;
  trak_pb_buf_init_heap(&cfg);
  trak_error err = {0};
  trak_pbtxt_parse("TraceConfig", CONFIG, strlen(CONFIG), &cfg, &err);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  trak_record_config rc = {sock, cfg.start, trak_pb_buf_len(&cfg), fd, 0, &stop_flag, 0, 0};
  trak_record_status st;
  if (trak_record_run(&rc, &st, &err)) fprintf(stderr, "record: %s\n", err.message);
  printf("  recorder: %llu chunks copied, %llu bytes written, %llu packets lost\n",
         (unsigned long long)st.chunks, (unsigned long long)st.bytes_written,
         (unsigned long long)st.packets_lost);
  _exit(0);
}

/* CPU seconds (user + system) process `pid` has used so far, from /proc. */
static double cpu_seconds(pid_t pid) {
  unsigned long long t[2]; /* fields 14 and 15: utime, stime in clock ticks */
  if (trak__proc_stat((int)pid, 14, 2, t)) return 0;
  return (double)(t[0] + t[1]) / (double)sysconf(_SC_CLK_TCK);
}

static void sleep_ms(int ms) {
  nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

static void wait_sessions(int want) {
  for (int t = 0; t < 3000 && trak_system_active_sessions() != want; t++)
    sleep_ms(10);
}

/* A producer child: emits instants as fast as it can for SECONDS; prints how many. */
static pid_t spawn_flood(void) {
  pid_t pid = fork();
  if (pid) return pid;
  trak_system_connect(sock);
  wait_sessions(1);
  uint64_t end = bench_now_ns() + (uint64_t)(SECONDS * 1e9), n = 0;
  while (bench_now_ns() < end)
    for (int i = 0; i < 1000; i++, n++)
      TRAK_EVENT_INSTANT(cat_b, "flood", TRAK_ARG("i", i));
  printf("  producer %d: %llu events emitted (%.1f M/s)\n", (int)getpid(), (unsigned long long)n,
         n / SECONDS / 1e6);
  wait_sessions(0);
  trak_system_disconnect();
  _exit(0);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  setvbuf(stdout, NULL, _IONBF, 0); /* children print too */
  snprintf(dir, sizeof dir, "/tmp/trak-bench-XXXXXX");
  if (!mkdtemp(dir)) return 1;
  snprintf(sock, sizeof sock, "%s/trak.sock", dir);
  pid_t daemon = fork();
  if (daemon == 0) {
    struct sigaction sa = {.sa_handler = on_stop};
    sigaction(SIGTERM, &sa, NULL);
    trak_daemon_config cfg = {.socket_path = sock,
                              .producer_buffer_kb = 32768, /* 32 MiB per producer */
                              .verbose = getenv("BENCH_VERBOSE") != NULL};
    trak_error err = {0};
    _exit(trak_daemon_run(&cfg, &stop_flag, &err) ? 1 : 0);
  }
  sleep_ms(200);
  char path[160], path2[160];
  snprintf(path, sizeof path, "%s/events.pb", dir);
  snprintf(path2, sizeof path2, "%s/flood.pb", dir);

  /* 2 first: the bench process has no threads yet, so its children fork cleanly. */
  printf("daemon throughput, 2 producers flat out for %.0f s into one discard session:\n", SECONDS);
  pid_t f1 = spawn_flood(), f2 = spawn_flood();
  sleep_ms(200);
  uint64_t t0 = bench_now_ns();
  double cpu0 = cpu_seconds(daemon);
  pid_t rec = spawn_recorder(path2, NULL);
  sleep_ms((int)(SECONDS * 1000) + 300);
  kill(rec, SIGUSR1); /* the producers are done emitting and wait for the stop */
  waitpid(rec, NULL, 0);
  waitpid(f1, NULL, 0);
  waitpid(f2, NULL, 0);
  double secs = (double)(bench_now_ns() - t0) / 1e9;
  double cpu = cpu_seconds(daemon) - cpu0;
  struct stat st;
  stat(path2, &st);
  uint64_t packets = count_packets(path2);
  printf("  file: %.1f MB, %.2f M packets in %.2f s (session start to file complete) = "
         "%.1f MB/s, %.2f M events/s\n",
         st.st_size / 1e6, packets / 1e6, secs, st.st_size / 1e6 / secs, packets / 1e6 / secs);
  printf("  daemon CPU: %.2f s for those bytes = %.0f MB per CPU-second (the machine's load "
         "decides the rest)\n",
         cpu, cpu > 0 ? st.st_size / 1e6 / cpu : 0.0);

  /* 1: in-process, then system mode, in this process. */
  trak_session *s;
  trak_session_config c = {.buffer_size_kb = 65536, .fill_policy = TRAK_FILL_RING};
  trak_session_new(&c, &s, NULL);
  trak_session_start(s, NULL);
  double in_proc = event_cost();
  trak_session_free(s);
  rec = spawn_recorder(path, NULL);
  trak_system_connect(sock);
  wait_sessions(1);
  double sys = event_cost();
  kill(rec, SIGUSR1);
  waitpid(rec, NULL, 0);
  trak_system_disconnect();
  printf("instant event with one arg: in-process %.1f ns, system mode %.1f ns (%+.0f%%)\n", in_proc,
         sys, (sys / in_proc - 1) * 100);

  kill(daemon, SIGTERM);
  waitpid(daemon, NULL, 0);
  unlink(path);
  unlink(path2);
  rmdir(dir);
  return 0;
}
