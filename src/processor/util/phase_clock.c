/*
** This file holds the import's phase clock (phase_clock.h): readings of the monotonic clock and
** of getrusage for the process and the calling thread, printed per phase with TRAK_IMPORT_PROFILE.
*/
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "processor/util/phase_clock.h"

static double tv_sec(struct timeval tv) {
  return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void take(trak_phase_clock *c) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  c->wall = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
  struct rusage self, thread;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_THREAD, &thread);
  c->thread_cpu = tv_sec(thread.ru_utime) + tv_sec(thread.ru_stime);
  c->proc_cpu = tv_sec(self.ru_utime) + tv_sec(self.ru_stime);
  c->proc_sys = tv_sec(self.ru_stime);
  c->faults = self.ru_minflt + self.ru_majflt;
  c->thread_sys = tv_sec(thread.ru_stime);
  c->thread_faults = thread.ru_minflt + thread.ru_majflt;
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
  }
  c->rss_mb = (double)resident * (double)sysconf(_SC_PAGESIZE) / 1e6;
  c->peak_mb = 0;
  f = fopen("/proc/self/status", "r");
  if (f) {
    char line[128];
    long kb;
    while (fgets(line, sizeof line, f))
      if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) c->peak_mb = (double)kb * 1024 / 1e6;
    fclose(f);
  }
}

void trak__phase_clock_start(trak_phase_clock *c) {
  const char *env = getenv("TRAK_IMPORT_PROFILE");
  c->on = env && env[0] == '1' && !env[1];
  if (c->on) take(c);
}

void trak__phase_clock_mark(trak_phase_clock *c, const char *name) {
  if (!c->on) return;
  trak_phase_clock was = *c;
  take(c);
  double own = c->thread_cpu - was.thread_cpu, all = c->proc_cpu - was.proc_cpu;
  fprintf(stderr,
          "trak import profile: %-14s %8.1f ms wall %8.1f ms this thread %8.1f ms others "
          "%8.1f ms sys %8ld faults %7.1f MB resident (peak %.1f; this thread: %.1f ms sys, %ld "
          "faults)\n",
          name, (c->wall - was.wall) * 1e3, own * 1e3, (all - own) * 1e3,
          (c->proc_sys - was.proc_sys) * 1e3, c->faults - was.faults, c->rss_mb, c->peak_mb,
          (c->thread_sys - was.thread_sys) * 1e3, c->thread_faults - was.thread_faults);
}
