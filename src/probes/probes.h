/*
** `trak probes`' data sources and the ftrace reader behind linux.ftrace (probes.c,
** ftrace_reader.c, procfs.c): what src/cli/cmd_probes.c and the tests call.
*/
#ifndef TRAK_PROBES_PROBES_H
#define TRAK_PROBES_PROBES_H

#include <stdint.h>

#include "probes/ftrace.h"
#include "trak/pb.h"

/* Starts a new TracePacket and returns the buffer to write it into. */
typedef trak_pb_buf *(*trak__packet_next_fn)(void *ctx);

/* Bytes after which the process tree goes on in a new packet (a packet must fit a 4 KiB
** shared-memory chunk), and the longest command line it keeps of a process (longer ones keep
** the whole arguments that fit). */
#define TRAK__PROCESS_TREE_MAX 3000
#define TRAK__CMDLINE_MAX 1024

/* procfs.c: whole TracePacket payloads (timestamped now, boot time). The process tree takes
** as many packets of `next` as it needs; the others are written into p. */
void trak__probes_process_tree(trak__packet_next_fn next, void *ctx, int thread_names) TRAK__HIDDEN;
void trak__probes_system_info(trak_pb_buf *p) TRAK__HIDDEN;
void trak__probes_cpu_info(trak_pb_buf *p) TRAK__HIDDEN;

/* What a reader records (from FtraceConfig). */
typedef struct trak__ftrace_opts {
  char **events; /* NULL-terminated: "group/name", a whole group ("group/" then a star) or "name" */
  uint32_t buffer_kb; /* per CPU; 0: 1024 */
  int compact_sched;
  int no_generic;
  int mono_raw; /* use_monotonic_raw_clock */
} trak__ftrace_opts;

/* One recording of the kernel's ftrace buffers. */
typedef struct trak__ftrace_reader {
  char root[256];
  trak__ftrace_page_layout layout;
  trak__ftrace_table table;
  trak__ftrace_format *formats; /* nformats, owned */
  uint32_t nformats;
  char **unknown; /* config names with no format file (NULL-terminated, owned) */
  char **failed;  /* events whose enable file refused */
  int ncpus;
  int *fds; /* per_cpu/cpuN/trace_pipe_raw, non-blocking */
  trak__ftrace_bundler *bundlers;
  uint8_t *more; /* per CPU, during a drain: not yet found empty */
  uint8_t *page;
  uint32_t buffer_pages; /* per CPU, as set */
  int claimed;           /* the state file is ours: close restores */
  int clock;             /* FtraceClock of the timestamps (0: boot) */
  uint32_t parse_errors; /* bit per FtraceParseStatus met */
  int held_back;         /* the last drain left pages in the kernel (no room, or max_pages) */
} trak__ftrace_reader;

/* Reads the layout and the format of every requested event (unknown names are listed in
** r->unknown, not an error). Returns 0, or TRAK_EIO / TRAK_EFORMAT / TRAK_ENOMEM with `err`
** set (tracefs missing or not writable: one line saying what to do). */
int trak__ftrace_reader_open(trak__ftrace_reader *r, const trak__ftrace_opts *o,
                             trak_error *err) TRAK__HIDDEN;
/* Takes tracefs (the state file), sets the clock and buffer size, empties the buffers,
** enables the events and turns tracing on. Returns 0, TRAK_ESTATE (another recording holds
** ftrace) or TRAK_EIO. On failure tracefs is already restored. */
int trak__ftrace_reader_start(trak__ftrace_reader *r, const trak__ftrace_opts *o,
                              trak_error *err) TRAK__HIDDEN;
/* Opens the per-CPU pipes only (reading what the buffers hold, enabling nothing). */
int trak__ftrace_reader_attach(trak__ftrace_reader *r, trak_error *err) TRAK__HIDDEN;
/* Reads every CPU's buffer until empty (at most `max_pages` per CPU, 0: no limit), a page of
** each CPU in turn, handing finished packets to out. `room` (NULL: always) is asked before
** each page: when it answers 0 the drain stops and sets r->held_back, leaving the rest in the
** kernel's buffers for the next drain (where an overrun is counted by the kernel, in
** FtraceStats) rather than losing packets the writer has no room for; it is also set when
** max_pages left pages there. Returns the number of pages read. */
uint64_t trak__ftrace_reader_drain(trak__ftrace_reader *r, trak__ftrace_packet_fn out, void *user,
                                   uint32_t max_pages, int (*room)(void *user)) TRAK__HIDDEN;
/* An FtraceStats packet (phase: FtraceStats.Phase) into p. */
void trak__ftrace_reader_stats(trak__ftrace_reader *r, int phase, trak_pb_buf *p) TRAK__HIDDEN;
/* Turns tracing off and restores tracefs when started, closes and frees everything. */
void trak__ftrace_reader_close(trak__ftrace_reader *r) TRAK__HIDDEN;

/* probes.c: registers linux.ftrace, linux.process_stats and linux.system_info in this
** process. Returns 0 or the registration's error. */
int trak__probes_register(trak_error *err) TRAK__HIDDEN;

#endif /* TRAK_PROBES_PROBES_H */
