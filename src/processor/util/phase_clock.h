/*
** The import's phase clock: with TRAK_IMPORT_PROFILE=1 in the environment, each phase of an
** import (reading and tokenizing, the parse phase, the tables' finishing, the SQL layer's set-up,
** the processor's freeing) prints its wall time, the calling thread's CPU, the other threads'
** CPU, the process's system time, its page faults and its resident memory at the phase's end
** (and its peak so far), then the calling thread's own system time and page faults, to stderr,
** one line a phase.
*/
#ifndef TRAK_PHASE_CLOCK_H
#define TRAK_PHASE_CLOCK_H

/* The readings at the last mark. */
typedef struct trak_phase_clock {
  int on;             /* TRAK_IMPORT_PROFILE was set when started; marks do nothing otherwise */
  double wall;        /* CLOCK_MONOTONIC, seconds */
  double thread_cpu;  /* the calling thread's user + system, seconds */
  double proc_cpu;    /* the process's user + system, seconds */
  double proc_sys;    /* the process's system time, seconds */
  long faults;        /* the process's minor + major page faults */
  double thread_sys;  /* the calling thread's system time */
  long thread_faults; /* the calling thread's minor + major page faults */
  double rss_mb;      /* the process's resident memory, MB (/proc/self/statm) */
  double peak_mb;     /* the most it has been so far, MB (VmHWM, /proc/self/status) */
} trak_phase_clock;

/* Starts the clock: reads TRAK_IMPORT_PROFILE ("1" turns it on) and takes the first readings.
** Can't fail. */
void trak__phase_clock_start(trak_phase_clock *c);

/* Ends the phase `name` (a short label) at now: prints its figures since the last mark to stderr
** (the phase's own thread is the caller's) and takes new readings. Does nothing when off. */
void trak__phase_clock_mark(trak_phase_clock *c, const char *name);

#endif /* TRAK_PHASE_CLOCK_H */
