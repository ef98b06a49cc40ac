/*
** `trak probes`: the privileged producer of Linux system data (like Perfetto's traced_probes).
** It connects to `trak daemon` and offers linux.ftrace, linux.process_stats and
** linux.system_info until SIGINT or SIGTERM; sessions whose config names them record the kernel's
** view beside the programs' track events. `--restore` puts tracefs back after a crashed
** recording; `--drain` (for tests and debugging) writes what the kernel buffers hold now as a
** trace, enabling nothing.
*/
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "probes/probes.h"
#include "probes/tracefs.h"
#include "system/system.h"
#include "trak/system.h"

static const char PROBES_HELP[] =
    "usage: trak probes [--socket PATH]\n"
    "       trak probes --restore\n"
    "       trak probes --drain OUT.pb --events 'group/name,...' [--compact-sched]\n"
    "\n"
    "Connects to `trak daemon` and offers the data sources linux.ftrace (kernel events from\n"
    "tracefs' per-CPU ring buffers), linux.process_stats (a process tree from /proc) and\n"
    "linux.system_info (uname and CPUs) to its sessions, until SIGINT or SIGTERM. Needs root\n"
    "(or write access to tracefs) for linux.ftrace. Whatever a recording changes in tracefs is\n"
    "put back when it ends; after a crash, the next start (or --restore) puts it back.\n"
    "--drain writes what the kernel buffers hold now (the named events) to OUT.pb.\n"
    "See docs/system-tracing.md.\n";

static volatile int stop_flag;

static void on_signal(int sig) {
  (void)sig;
  stop_flag = 1;
}

static void write_packet(void *user, const uint8_t *data, size_t len) {
  FILE *f = user;
  trak_pb_buf b;
  uint8_t hdr[16];
  trak_pb_buf_init_fixed(&b, hdr, sizeof hdr);
  b.p = trak_pb_write_tag(b.p, 1, TRAK_PB_WIRE_LEN);
  b.p = trak_pb_write_varint(b.p, len);
  fwrite(hdr, 1, trak_pb_buf_len(&b), f);
  fwrite(data, 1, len, f);
}

/* --drain: the named events' records now in the kernel buffers into `out`. */
static int drain(const char *out, const char *events, int compact) {
  trak__ftrace_opts o = {0};
  for (const char *p = events; p && *p;) {
    size_t n = strcspn(p, ",");
    if (n && trak__names_add(&o.events, p, n)) return trak_cli_failf("probes", "out of memory");
    p += n + (p[n] == ',');
  }
  o.compact_sched = compact;
  trak__ftrace_reader r;
  trak_error err = {0};
  int rc = trak__ftrace_reader_open(&r, &o, &err);
  if (!rc) rc = trak__ftrace_reader_attach(&r, &err);
  FILE *f = rc ? NULL : fopen(out, "wb");
  if (!rc && !f) rc = trak_error_set(&err, TRAK_EIO, "%s: %s", out, strerror(errno));
  if (!rc) {
    for (char **u = r.unknown; u && *u; u++)
      fprintf(stderr, "trak probes: unknown event '%s' (no format file in tracefs)\n", *u);
    uint64_t pages = trak__ftrace_reader_drain(&r, write_packet, f, 0, NULL);
    trak_pb_buf s;
    trak_pb_buf_init_heap(&s);
    trak__ftrace_reader_stats(&r, TRAK_PB_FtraceStats_END_OF_TRACE, &s);
    write_packet(f, s.start, trak_pb_buf_len(&s));
    trak_pb_buf_free(&s);
    uint64_t events_total = 0;
    for (int c = 0; c < r.ncpus; c++)
      events_total += r.bundlers[c].events_total;
    fprintf(stderr, "trak probes: %s: %llu events from %llu pages\n", out,
            (unsigned long long)events_total, (unsigned long long)pages);
    if (fclose(f)) rc = trak_error_set(&err, TRAK_EIO, "%s: %s", out, strerror(errno));
  }
  trak__ftrace_reader_close(&r);
  trak__names_free(o.events);
  return rc ? trak_cli_fail("probes", &err) : 0;
}

int trak_cli_probes(int argc, char **argv) {
  const char *socket = NULL, *drain_out = NULL, *events = NULL;
  int restore = 0, compact = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (trak_cli_is_help(a)) {
      fputs(PROBES_HELP, stdout);
      return 0;
    }
    if (!strcmp(a, "--restore")) {
      restore = 1;
    } else if (!strcmp(a, "--compact-sched")) {
      compact = 1;
    } else if (!strcmp(a, "--socket") || !strcmp(a, "--drain") || !strcmp(a, "--events")) {
      if (!v) return trak_cli_failf("probes", "%s needs a value (see --help)", a);
      i++;
      if (!strcmp(a, "--socket"))
        socket = v;
      else if (!strcmp(a, "--drain"))
        drain_out = v;
      else
        events = v;
    } else {
      return trak_cli_unknown_option("probes", a);
    }
  }
  if (restore) {
    int r = trak__tracefs_restore(1);
    if (r < 0) return trak_cli_failf("probes", "tracefs could not be fully restored");
    fprintf(stderr, "trak probes: %s\n",
            r ? "tracefs restored" : "nothing to restore (no recording left changes behind)");
    return 0;
  }
  if (drain_out) return drain(drain_out, events, compact);
  /* A recording that died without restoring tracefs is put right first. */
  if (trak__tracefs_restore(1) > 0)
    fprintf(stderr, "trak probes: restored tracefs after an earlier recording that did not end\n");
  char root[256];
  trak_error err = {0};
  if (trak__tracefs_find(root, sizeof root, &err))
    fprintf(stderr, "trak probes: linux.ftrace will record nothing: %s\n", err.message);
  if (trak__probes_register(&err)) return trak_cli_fail("probes", &err);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  if (trak_system_connect(socket))
    return trak_cli_failf("probes", "already connected to another daemon");
  fprintf(stderr, "trak probes: offering linux.ftrace, linux.process_stats, linux.system_info\n");
  int was = 0;
  while (!stop_flag) {
    int now = trak_system_connected();
    if (now != was)
      fprintf(stderr, "trak probes: %s the daemon\n", now ? "connected to" : "waiting for");
    was = now;
    nanosleep(&(struct timespec){0, 100 * 1000000}, NULL);
  }
  trak_system_disconnect(); /* stops the sessions: their stop restores tracefs */
  trak__tracefs_restore(0);
  return 0;
}
