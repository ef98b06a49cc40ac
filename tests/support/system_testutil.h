/*
** Helpers for the multi-process tests of the system backend (test_system_*.c, test_mt_system.c):
** a forked daemon in a fresh temp dir, forked recorders, bounded waits that kill children
** which overstay, and a reader that tallies a trace's track events per trusted pid.
** Header-only: each test includes it once.
*/
#ifndef TRAK_SYSTEM_TESTUTIL_H
#define TRAK_SYSTEM_TESTUTIL_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "system/system.h"
#include "trak/pbtxt.h"
#include "trak/trak.h"

#define MAX_PIDS 16

/* How long a wait for something that must happen (a session, a connection, a child's byte)
** lasts before the test fails. Every wait ends as soon as the thing happens, so this only
** bounds a real hang: it is far beyond what a loaded machine takes (a slow run must be a slow
** pass, never a failure). Children's alarms are set past it. */
#define PATIENCE_MS 60000
#define CHILD_ALARM_S (PATIENCE_MS / 1000 + 30) /* producers, recorders */
#define DAEMON_ALARM_S (3 * PATIENCE_MS / 1000) /* a daemon lives through a whole test */

static char dir[64], sock[128];
static pid_t daemon_pid;

static __attribute__((unused)) void sleep_ms(int ms) {
  nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

/* Milliseconds on the monotonic clock. */
static __attribute__((unused)) long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for child `pid` up to `ms`; kills it after that. Returns its exit code, or -1 when it
** had to be killed or died of a signal. */
static __attribute__((unused)) int wait_child(pid_t pid, int ms) {
  int status;
  for (int t = 0; t < ms; t += 10) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    sleep_ms(10);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

/* In a producer child: waits (PATIENCE_MS at most, else exits 2) until `want` sessions record. */
static __attribute__((unused)) void wait_sessions(int want) {
  for (long start = now_ms();
       trak_system_active_sessions() != want && now_ms() - start < PATIENCE_MS;)
    sleep_ms(10);
  if (trak_system_active_sessions() != want) _exit(2);
}

/* Forks a producer child. In the child (0 returned) it is connected to the daemon and
** `sessions` sessions record it; the parent gets its pid. */
static __attribute__((unused)) pid_t fork_producer(int sessions) {
  pid_t pid = fork();
  if (pid == 0) {
    alarm(CHILD_ALARM_S);
    trak_system_connect(sock);
    wait_sessions(sessions);
  }
  return pid;
}

/* Ends a producer child: waits until no session records it, disconnects, exits 0. */
static __attribute__((unused, noreturn)) void producer_exit(void) {
  wait_sessions(0);
  trak_system_disconnect();
  _exit(0);
}

/* In a producer child: waits (PATIENCE_MS at most, else exits 2) until connected is `want`. */
static __attribute__((unused)) void wait_connected(int want) {
  for (long start = now_ms(); !trak_system_connected() != !want && now_ms() - start < PATIENCE_MS;)
    sleep_ms(10);
  if (!trak_system_connected() != !want) _exit(2);
}

static volatile int stop_flag;
static __attribute__((unused)) void on_stop(int sig) {
  (void)sig;
  stop_flag = 1;
}

static __attribute__((unused)) void catch_stop(int sig) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sigaction(sig, &sa, NULL);
}

static __attribute__((unused)) int daemon_up(void) {
  int fd = trak__ipc_connect(sock);
  if (fd >= 0) close(fd);
  return fd >= 0;
}

/* Forks a daemon on `sock` (a restart reuses the path) and waits until it answers. */
static __attribute__((unused)) void fork_daemon(uint32_t producer_kb, int shared) {
  daemon_pid = fork();
  assert_true(daemon_pid >= 0);
  if (daemon_pid == 0) {
    alarm(DAEMON_ALARM_S);
    catch_stop(SIGTERM);
    trak_daemon_config cfg = {
        .socket_path = sock, .producer_buffer_kb = producer_kb, .shared = shared};
    trak_error err = {0};
    int rc = trak_daemon_run(&cfg, &stop_flag, &err);
    if (rc) fprintf(stderr, "daemon: %s\n", err.message);
    _exit(rc ? 1 : 0);
  }
  for (long start = now_ms(); !daemon_up() && now_ms() - start < PATIENCE_MS;)
    sleep_ms(10);
  assert_true(daemon_up());
}

/* A daemon in a fresh temp dir; `shared`: one every user may use (the dir too). */
static __attribute__((unused)) void start_daemon_with(uint32_t producer_kb, int shared) {
  snprintf(dir, sizeof dir, "/tmp/trak-sys-XXXXXX");
  assert_non_null(mkdtemp(dir));
  if (shared) assert_int_equal(chmod(dir, 0777), 0);
  snprintf(sock, sizeof sock, "%s/trak.sock", dir);
  fork_daemon(producer_kb, shared);
}

static __attribute__((unused)) void start_daemon(uint32_t producer_kb) {
  start_daemon_with(producer_kb, 0);
}

static __attribute__((unused)) void stop_daemon(void);

/* The end of a test: closes its pipe and stops the daemon. */
static __attribute__((unused)) void end_test(int pipe_fds[2]) {
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  stop_daemon();
}

/* Stops the daemon; asserts it was alive and exits cleanly. */
static __attribute__((unused)) void stop_daemon(void) {
  assert_int_equal(kill(daemon_pid, SIGTERM), 0);
  assert_int_equal(wait_child(daemon_pid, PATIENCE_MS), 0);
  char path[160];
  snprintf(path, sizeof path, "%s/trace0.pb", dir);
  for (int i = 0; i < 4; i++) {
    snprintf(path, sizeof path, "%s/trace%d.pb", dir, i);
    unlink(path);
    snprintf(path, sizeof path, "%s/trace%d.lost", dir, i);
    unlink(path);
  }
  rmdir(dir);
}

/* A consumer child recording `config_text` into trace<n>.pb until SIGUSR1, as user `uid`
** (unchanged when (uid_t)-1); with `go` >= 0 it first waits for a byte on it (so it can be
** forked before the parent starts threads). */
static __attribute__((unused)) pid_t spawn_recorder_as(const char *config_text, int n, int go,
                                                       uid_t uid) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  alarm(CHILD_ALARM_S + 10);
  if (uid != (uid_t)-1 && setuid(uid) != 0) _exit(7);
  catch_stop(SIGUSR1);
  char c;
  if (go >= 0 && read(go, &c, 1) != 1) _exit(6);
  trak_pb_buf cfg;
  trak_pb_buf_init_heap(&cfg);
  trak_error err = {0};
  if (trak_pbtxt_parse("TraceConfig", config_text, strlen(config_text), &cfg, &err)) _exit(4);
  char path[160];
  snprintf(path, sizeof path, "%s/trace%d.pb", dir, n);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  trak_record_config rc = {sock, cfg.start, trak_pb_buf_len(&cfg), fd, 0, &stop_flag, 0, 0};
  trak_record_status st;
  int r = trak_record_run(&rc, &st, &err);
  if (r) fprintf(stderr, "record: %s\n", err.message);
  snprintf(path, sizeof path, "%s/trace%d.lost", dir, n);
  FILE *lost = fopen(path, "w");
  if (lost) {
    fprintf(lost, "%llu\n", (unsigned long long)st.packets_lost);
    fclose(lost);
  }
  _exit(r ? 1 : st.packets_lost ? 5 : 0);
}

static __attribute__((unused)) pid_t spawn_recorder(const char *config_text, int n, int go) {
  return spawn_recorder_as(config_text, n, go, (uid_t)-1);
}

static __attribute__((unused)) const char ALL[] =
    "buffers { size_kb: 16384 fill_policy: DISCARD }\n"
    "data_sources { config { name: \"track_event\" } }\n";
static __attribute__((unused)) const char ONLY_APP[] =
    "buffers { size_kb: 16384 fill_policy: DISCARD }\n"
    "data_sources { config { name: \"track_event\" track_event_config {\n"
    "  enabled_categories: \"app\" disabled_categories: \"*\" } } }\n";
static __attribute__((unused)) const char ONLY_NET[] =
    "buffers { size_kb: 16384 fill_policy: DISCARD }\n"
    "data_sources { config { name: \"track_event\" track_event_config {\n"
    "  enabled_categories: \"n*\" disabled_categories: \"*\" } } }\n";

/* ---- reading the result ------------------------------------------------------------------ */

typedef struct tally {
  int32_t pid[MAX_PIDS];
  long slices[MAX_PIDS], instants[MAX_PIDS];
  int n;
  long packets, untrusted; /* packets without exactly one trusted pid, uid and sequence id */
  long forged;             /* packets claiming the forged pid or uid */
  long marked;             /* packets with timestamp MARK_TS (written by test data sources) */
  long trace_stats;        /* the daemon's trace_stats packets (not counted in `packets`) */
  long stats_packet_loss;  /* their trace_writer_packet_loss */
} tally;

#define MARK_TS 777

static __attribute__((unused)) int tally_pid(tally *t, int32_t pid) {
  for (int i = 0; i < t->n; i++)
    if (t->pid[i] == pid) return i;
  assert_true(t->n < MAX_PIDS);
  t->pid[t->n] = pid;
  return t->n++;
}

#define FORGED_PID 4242
#define FORGED_UID 4343

/* When packet `fp` is the daemon's trace_stats packet: tallies it and returns 1. It must be
** the only one, on the service sequence, and last (read_trace checks). */
static int read_trace_stats(const trak_pb_field *fp, tally *t) {
  trak_pb_decoder d, ts, bs;
  trak_pb_field g, h, k;
  int found = 0, seq = 0;
  trak_pb_decoder_init(&d, fp->data, fp->len);
  while (trak_pb_decoder_next(&d, &g) == 1) {
    if (g.number == TRAK_PB_TracePacket_trusted_packet_sequence_id) seq = (int)g.value;
    if (g.number != TRAK_PB_TracePacket_trace_stats) continue;
    found = 1;
    assert_int_equal(trak_pb_decoder_init_nested(&ts, &d, &g), 0);
    while (trak_pb_decoder_next(&ts, &h) == 1)
      if (h.number == TRAK_PB_TraceStats_buffer_stats &&
          trak_pb_decoder_init_nested(&bs, &ts, &h) == 0)
        while (trak_pb_decoder_next(&bs, &k) == 1)
          if (k.number == TRAK_PB_TraceStats_BufferStats_trace_writer_packet_loss)
            t->stats_packet_loss += (long)k.value;
  }
  if (!found) return 0;
  assert_int_equal(seq, TRAK__SERVICE_SEQ_ID);
  assert_int_equal(t->trace_stats, 0); /* one per trace */
  t->trace_stats++;
  return 1;
}

static __attribute__((unused)) void read_trace(int n, tally *t) {
  memset(t, 0, sizeof *t);
  char path[160];
  snprintf(path, sizeof path, "%s/trace%d.pb", dir, n);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static uint8_t data[32 << 20];
  size_t len = fread(data, 1, sizeof data, f);
  fclose(f);
  trak_pb_decoder d, pd, ed;
  trak_pb_field fp, g, h;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &fp) == 1) {
    assert_int_equal(fp.number, TRAK_PB_Trace_packet);
    assert_int_equal(trak_pb_decoder_init_nested(&pd, &d, &fp), 0);
    int pids = 0, uids = 0, seqs = 0;
    int32_t pid = 0;
    int64_t type = -1;
    assert_int_equal(t->trace_stats, 0); /* nothing after the trace_stats packet */
    if (read_trace_stats(&fp, t)) continue;
    while (trak_pb_decoder_next(&pd, &g) == 1) {
      if (g.number == TRAK_PB_TracePacket_trusted_pid) pids++, pid = (int32_t)g.value;
      if (g.number == TRAK_PB_TracePacket_trusted_uid) {
        uids++;
        t->forged += g.value == FORGED_UID;
      }
      if (g.number == TRAK_PB_TracePacket_trusted_packet_sequence_id) seqs++;
      if (g.number == TRAK_PB_TracePacket_timestamp && g.value == MARK_TS) t->marked++;
      if (g.number == TRAK_PB_TracePacket_track_event &&
          trak_pb_decoder_init_nested(&ed, &pd, &g) == 0)
        while (trak_pb_decoder_next(&ed, &h) == 1)
          if (h.number == TRAK_PB_TrackEvent_type) type = (int64_t)h.value;
    }
    assert_int_equal(pd.error, 0);
    t->packets++;
    t->untrusted += pids != 1 || uids != 1 || seqs != 1;
    t->forged += pid == FORGED_PID;
    int i = tally_pid(t, pid);
    t->slices[i] += type == TRAK_PB_TrackEvent_TYPE_SLICE_BEGIN;
    t->instants[i] += type == TRAK_PB_TrackEvent_TYPE_INSTANT;
  }
  assert_int_equal(d.error, 0);
}

/* The loss count the recorder of trace<n>.pb reported. */
static __attribute__((unused)) long read_lost(int n) {
  char path[160];
  snprintf(path, sizeof path, "%s/trace%d.lost", dir, n);
  FILE *f = fopen(path, "r");
  long lost = -1;
  assert_non_null(f);
  assert_int_equal(fscanf(f, "%ld", &lost), 1);
  fclose(f);
  return lost;
}

static __attribute__((unused)) int index_of(const tally *t, pid_t pid) {
  for (int i = 0; i < t->n; i++)
    if (t->pid[i] == pid) return i;
  return -1;
}

/* The index of `pid` in `t`; fails the test when it has no packet there. */
static __attribute__((unused)) int must_index(const tally *t, pid_t pid) {
  int k = index_of(t, pid);
  if (k < 0) fail_msg("pid %d has no packet in the trace", (int)pid);
  return k;
}

static __attribute__((unused)) void wait_ready(int fd, int count) {
  char c;
  for (int i = 0; i < count; i++) {
    struct pollfd p = {fd, POLLIN, 0};
    assert_int_equal(poll(&p, 1, PATIENCE_MS), 1);
    assert_int_equal(read(fd, &c, 1), 1);
  }
}

#endif /* TRAK_SYSTEM_TESTUTIL_H */
