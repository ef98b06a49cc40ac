/*
** A program with known scheduling for the probes tests: a thread named "trak_spin" spins for
** 3 x 60 ms, a thread named "trak_sleep" alternates 5 ms of spinning with 80 ms of sleep, three
** times. It prints "pid PID spin TID sleep TID" first, then runs them, prints "boot FROM TO" (the
** run's CLOCK_BOOTTIME span in ns, the recording's clock, for a failing test's message) and exits.
** `sched_workload burst MS` instead passes a byte back and forth between two threads through
** pipes for MS milliseconds: tens of thousands of switches a second, to fill buffers.
*/
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_barrier_t ready;
static int tids[2];

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void spin(double ms) {
  volatile unsigned x = 0;
  for (double end = now_ms() + ms; now_ms() < end;)
    x++;
}

static void *spinner(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "trak_spin");
  tids[0] = (int)syscall(SYS_gettid);
  pthread_barrier_wait(&ready);
  pthread_barrier_wait(&ready);
  for (int i = 0; i < 3; i++)
    spin(60);
  return NULL;
}

static void *sleeper(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "trak_sleep");
  tids[1] = (int)syscall(SYS_gettid);
  pthread_barrier_wait(&ready);
  pthread_barrier_wait(&ready);
  for (int i = 0; i < 3; i++) {
    spin(5);
    nanosleep(&(struct timespec){0, 80 * 1000000}, NULL);
  }
  return NULL;
}

static long long boot_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int ping[2], pong[2];

static void *echo(void *arg) {
  char c;
  while (read(ping[0], &c, 1) == 1 && write(pong[1], &c, 1) == 1)
    ;
  return arg;
}

static int burst(double ms) {
  pthread_t t;
  if (pipe(ping) || pipe(pong) || pthread_create(&t, NULL, echo, NULL)) return 1;
  char c = 1;
  for (double end = now_ms() + ms; now_ms() < end;)
    if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) return 1;
  close(ping[1]);
  pthread_join(t, NULL);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "burst")) return burst(atof(argv[2]));
  pthread_t a, b;
  pthread_barrier_init(&ready, NULL, 3);
  pthread_create(&a, NULL, spinner, NULL);
  pthread_create(&b, NULL, sleeper, NULL);
  pthread_barrier_wait(&ready);
  printf("pid %d spin %d sleep %d\n", (int)getpid(), tids[0], tids[1]);
  fflush(stdout);
  long long from = boot_ns();
  pthread_barrier_wait(&ready);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("boot %lld %lld\n", from, boot_ns());
  return 0;
}
