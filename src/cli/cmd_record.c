/*
** `trak record`: the consumer of the system backend. Builds a TraceConfig (from a text-format
** file, or from the short options), has the daemon record one session into OUT (through a
** temporary file renamed over OUT when the session ends), and shows progress on stderr when it
** is a terminal. Ctrl-C ends the session early; the trace is still written.
*/
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "trak/pbtxt.h"
#include "trak/protos.h"
#include "trak/system.h"

static const char RECORD_HELP[] =
    "usage: trak record -c CONFIG.pbtxt -o OUT.pb [--socket PATH]\n"
    "       trak record -o OUT.pb [--time 10s] [--categories 'a,b*'] [--buffer 64mb] [--ring]\n"
    "                         [--sched] [--full-sched]\n"
    "\n"
    "Records a trace of every process connected to `trak daemon`. The first form takes a\n"
    "TraceConfig in protobuf text format (duration_ms, buffers, data_sources). The short\n"
    "form records track events of the given category globs (default: all) for --time\n"
    "(s, ms, m; default: until Ctrl-C) into a discard buffer (--ring: a ring buffer) of\n"
    "--buffer bytes (kb, mb, gb; default 64mb). Ctrl-C stops early and still writes OUT.\n"
    "--sched also records the kernel's scheduling, CPU frequency and idle states, process\n"
    "lifetimes and names through `trak probes` (linux.ftrace, linux.process_stats,\n"
    "linux.system_info), sched events in Perfetto's compact form (--full-sched: one\n"
    "message per event).\n";

/* The kernel events of --sched (Perfetto's usual scheduling set). */
static const char *const SCHED_EVENTS[] = {"sched/sched_switch",       "sched/sched_waking",
                                           "sched/sched_wakeup_new",   "sched/sched_process_exit",
                                           "sched/sched_process_free", "task/task_newtask",
                                           "task/task_rename",         "power/cpu_frequency",
                                           "power/cpu_idle",           "power/suspend_resume"};

/* One TraceConfig.data_sources entry for one of trak probes' data sources, with --sched's options.
 */
static void put_source(trak_pb_buf *b, const char *name, int full) {
  trak_pb_nested ds = trak_pb_begin_nested(b, TRAK_PB_TraceConfig_data_sources);
  trak_pb_nested dc = trak_pb_begin_nested(b, TRAK_PB_TraceConfig_DataSource_config);
  trak_pb_put_string(b, TRAK_PB_DataSourceConfig_name, name);
  if (!strcmp(name, "linux.ftrace")) {
    trak_pb_nested f = trak_pb_begin_nested(b, TRAK_PB_DataSourceConfig_ftrace_config);
    for (size_t i = 0; i < sizeof SCHED_EVENTS / sizeof *SCHED_EVENTS; i++)
      trak_pb_put_string(b, TRAK_PB_FtraceConfig_ftrace_events, SCHED_EVENTS[i]);
    trak_pb_nested c = trak_pb_begin_nested(b, TRAK_PB_FtraceConfig_compact_sched);
    trak_pb_put_bool(b, TRAK_PB_FtraceConfig_CompactSchedConfig_enabled, !full);
    trak_pb_end_nested(b, c);
    trak_pb_end_nested(b, f);
  } else if (!strcmp(name, "linux.process_stats")) {
    trak_pb_nested p = trak_pb_begin_nested(b, TRAK_PB_DataSourceConfig_process_stats_config);
    trak_pb_put_bool(b, TRAK_PB_ProcessStatsConfig_scan_all_processes_on_start, 1);
    trak_pb_end_nested(b, p);
  }
  trak_pb_end_nested(b, dc);
  trak_pb_end_nested(b, ds);
}

static volatile int stop_flag;

static void on_signal(int sig) {
  (void)sig;
  stop_flag = 1;
}

/* "10s", "500ms", "2m", "10" (seconds) in milliseconds; 0 when malformed. */
static uint64_t parse_duration(const char *s) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || v < 0) return 0;
  double mult = !*end || !strcmp(end, "s") ? 1000
                : !strcmp(end, "ms")       ? 1
                : !strcmp(end, "m")        ? 60000
                                           : -1;
  return mult < 0 ? 0 : (uint64_t)(v * mult);
}

/* "64mb", "512kb", "1gb", "4096" (bytes) in KiB; 0 when malformed. */
static uint64_t parse_size_kb(const char *s) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || v <= 0) return 0;
  double mult = !*end || !strcasecmp(end, "b")                    ? 1.0 / 1024
                : !strcasecmp(end, "kb") || !strcasecmp(end, "k") ? 1
                : !strcasecmp(end, "mb") || !strcasecmp(end, "m") ? 1024
                : !strcasecmp(end, "gb") || !strcasecmp(end, "g") ? 1024 * 1024
                                                                  : -1;
  return mult < 0 ? 0 : (uint64_t)(v * mult);
}

/* The short form's TraceConfig: one buffer, track events of the category globs. */
static void short_config(trak_pb_buf *b, uint64_t size_kb, int ring, uint64_t ms, const char *cats,
                         int sched) {
  trak_pb_nested n = trak_pb_begin_nested(b, TRAK_PB_TraceConfig_buffers);
  trak_pb_put_varint(b, TRAK_PB_TraceConfig_BufferConfig_size_kb, size_kb);
  trak_pb_put_varint(b, TRAK_PB_TraceConfig_BufferConfig_fill_policy,
                     ring ? TRAK_PB_TraceConfig_BufferConfig_RING_BUFFER
                          : TRAK_PB_TraceConfig_BufferConfig_DISCARD);
  trak_pb_end_nested(b, n);
  if (ms) trak_pb_put_varint(b, TRAK_PB_TraceConfig_duration_ms, ms);
  trak_pb_nested ds = trak_pb_begin_nested(b, TRAK_PB_TraceConfig_data_sources);
  trak_pb_nested dc = trak_pb_begin_nested(b, TRAK_PB_TraceConfig_DataSource_config);
  trak_pb_put_string(b, TRAK_PB_DataSourceConfig_name, "track_event");
  if (cats) {
    trak_pb_nested te = trak_pb_begin_nested(b, TRAK_PB_DataSourceConfig_track_event_config);
    for (const char *p = cats; *p;) {
      size_t len = strcspn(p, ",");
      if (len) trak_pb_put_bytes(b, TRAK_PB_TrackEventConfig_enabled_categories, p, len);
      p += len + (p[len] == ',');
    }
    trak_pb_put_string(b, TRAK_PB_TrackEventConfig_disabled_categories, "*");
    trak_pb_end_nested(b, te);
  }
  trak_pb_end_nested(b, dc);
  trak_pb_end_nested(b, ds);
  if (sched) {
    put_source(b, "linux.ftrace", sched > 1);
    put_source(b, "linux.process_stats", 0);
    put_source(b, "linux.system_info", 0);
  }
}

/* TraceConfig.duration_ms of a serialized config, 0 when absent. */
static uint64_t config_duration(const uint8_t *cfg, size_t len) {
  trak_pb_decoder d;
  trak_pb_field f;
  uint64_t ms = 0;
  trak_pb_decoder_init(&d, cfg, len);
  while (trak_pb_decoder_next(&d, &f) == 1)
    if (f.number == TRAK_PB_TraceConfig_duration_ms) ms = f.value;
  return ms;
}

static void progress(const trak_record_status *st, uint32_t ms_left, void *user) {
  (void)user;
  fprintf(stderr, "\r%u producer%s, %llu chunks, %llu bytes written, %llu lost", st->producers,
          st->producers == 1 ? "" : "s", (unsigned long long)st->chunks,
          (unsigned long long)st->bytes_written, (unsigned long long)st->packets_lost);
  if (ms_left) fprintf(stderr, ", %.1f s left", ms_left / 1000.0);
  fputs("   ", stderr);
}

/* Reads CONFIG.pbtxt into a serialized TraceConfig. */
static int load_config(const char *path, trak_pb_buf *b, trak_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return trak_error_set(err, TRAK_EIO, "%s: %s", path, strerror(errno));
  trak_pb_buf text;
  trak_pb_buf_init_heap(&text);
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    trak_pb_put_raw(&text, chunk, n);
  fclose(f);
  int rc =
      trak_pbtxt_parse("TraceConfig", (const char *)text.start, trak_pb_buf_len(&text), b, err);
  if (rc) trak_error_prefix(err, "%s", path);
  trak_pb_buf_free(&text);
  return rc;
}

int trak_cli_record(int argc, char **argv) {
  const char *config = NULL, *out = NULL, *socket = NULL, *cats = NULL;
  uint64_t ms = 0, size_kb = 65536;
  int ring = 0, sched = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (trak_cli_is_help(a)) {
      fputs(RECORD_HELP, stdout);
      return 0;
    }
    if (!strcmp(a, "--ring")) {
      ring = 1;
      continue;
    }
    if (!strcmp(a, "--sched") || !strcmp(a, "--full-sched")) {
      sched = a[2] == 'f' ? 2 : sched ? sched : 1;
      continue;
    }
    static const char *const valued[] = {"-c",           "--config", "-o", "--out",    "--socket",
                                         "--categories", "--time",   "-t", "--buffer", "-b"};
    int known = 0;
    for (size_t k = 0; k < sizeof valued / sizeof *valued; k++)
      known |= !strcmp(a, valued[k]);
    if (!known) return trak_cli_unknown_option("record", a);
    if (!v) return trak_cli_failf("record", "%s needs a value (see --help)", a);
    i++;
    if (!strcmp(a, "-c") || !strcmp(a, "--config"))
      config = v;
    else if (!strcmp(a, "-o") || !strcmp(a, "--out"))
      out = v;
    else if (!strcmp(a, "--socket"))
      socket = v;
    else if (!strcmp(a, "--categories"))
      cats = v;
    else if (!strcmp(a, "--time") || !strcmp(a, "-t")) {
      if (!(ms = parse_duration(v))) return trak_cli_failf("record", "bad duration '%s'", v);
    } else if (!strcmp(a, "--buffer") || !strcmp(a, "-b")) {
      if (!(size_kb = parse_size_kb(v))) return trak_cli_failf("record", "bad size '%s'", v);
    } else {
      return trak_cli_unknown_option("record", a);
    }
  }
  if (!out) return trak_cli_failf("record", "expected -o OUT.pb (see --help)");
  trak_error err = {0};
  trak_pb_buf cfg;
  trak_pb_buf_init_heap(&cfg);
  if (config) {
    if (load_config(config, &cfg, &err)) {
      trak_pb_buf_free(&cfg);
      return trak_cli_fail("record", &err);
    }
    ms = config_duration(cfg.start, trak_pb_buf_len(&cfg));
  } else {
    short_config(&cfg, size_kb, ring, ms, cats, sched);
  }
  /* A regular OUT (or a new one) is written as OUT.tmp.XXXXXX beside it and renamed over it
  ** when the session ends, so an existing OUT survives a record that fails or is killed; a
  ** device or pipe is written in place. Readable too: a recording that fails is cut back to its
  ** last whole packet. */
  struct stat st_out;
  int in_place = stat(out, &st_out) == 0 && !S_ISREG(st_out.st_mode);
  char *tmp = NULL;
  int fd = -1;
  if (in_place) {
    fd = open(out, O_RDWR | O_CLOEXEC);
  } else if ((tmp = malloc(strlen(out) + sizeof ".tmp.XXXXXX"))) {
    strcat(strcpy(tmp, out), ".tmp.XXXXXX");
    fd = mkstemp(tmp);
    mode_t mask = umask(0);
    umask(mask);
    if (fd >= 0) fchmod(fd, 0666 & ~mask), fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  if (fd < 0) {
    int e = errno;
    free(tmp);
    trak_pb_buf_free(&cfg);
    return trak_cli_failf("record", "%s: %s", out, strerror(e));
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  trak_record_config rc = {socket,       cfg.start,  trak_pb_buf_len(&cfg),       fd,
                           (uint32_t)ms, &stop_flag, isatty(2) ? progress : NULL, NULL};
  trak_record_status st;
  int r = trak_record_run(&rc, &st, &err);
  /* A session that wrote nothing (no daemon answered) leaves OUT as it was; one that wrote a
  ** trace, even cut short, replaces OUT with it. */
  struct stat st_tmp;
  int wrote = fstat(fd, &st_tmp) == 0 && st_tmp.st_size > 0;
  close(fd);
  trak_pb_buf_free(&cfg);
  if (tmp && (r && !wrote ? unlink(tmp) : rename(tmp, out)) && !r) {
    r = trak_error_set(&err, TRAK_EIO, "cannot rename %s to %s: %s", tmp, out, strerror(errno));
    unlink(tmp);
  }
  free(tmp);
  if (isatty(2)) fputc('\n', stderr);
  if (r) return trak_cli_fail("record", &err);
  fprintf(stderr, "trak record: %s: %llu bytes from %llu chunks, %llu packets lost\n", out,
          (unsigned long long)st.bytes_written, (unsigned long long)st.chunks,
          (unsigned long long)st.packets_lost);
  return 0;
}
