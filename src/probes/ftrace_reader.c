/*
** This file holds one recording of the kernel's ftrace buffers: resolving the configured event
** names to format files, setting tracefs up (clock, buffer size, events, tracing_on) under the
** restore state of tracefs.c, draining each CPU's trace_pipe_raw page by page into bundles,
** and the FtraceStats of the per-CPU counters.
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes/probes.h"
#include "probes/tracefs.h"
#include "system/system.h"
#include "trak/protos.h"

static char text[65536]; /* format files are read on the setup path only, one at a time */

/* Reads and translates events/GROUP/NAME/format into a new entry of r->formats. Returns 0,
** -1 when it does not exist, or a TRAK_E* code. */
static int add_event(trak__ftrace_reader *r, const char *group, const char *name, trak_error *err) {
  char rel[300];
  for (uint32_t i = 0; i < r->nformats; i++)
    if (!strcmp(r->formats[i].group, group) && !strcmp(r->formats[i].name, name)) return 0;
  snprintf(rel, sizeof rel, "events/%s/%s/format", group, name);
  long n = trak__tracefs_read(r->root, rel, text, sizeof text);
  if (n < 0) return -1;
  trak__ftrace_format *v = realloc(r->formats, (r->nformats + 1) * sizeof *v);
  if (!v) return TRAK_ENOMEM;
  r->formats = v;
  trak__ftrace_format *f = &v[r->nformats];
  int rc = trak__ftrace_format_parse(text, (size_t)n, f, err);
  if (rc) {
    trak_error_prefix(err, "%s/%s", r->root, rel);
    return rc;
  }
  snprintf(f->group, sizeof f->group, "%s", group);
  trak__ftrace_format_translate(f);
  r->nformats++;
  return 0;
}

/* Every event of events/GROUP ("*": of every group) named `name` ("*": any). Returns how many
** were added, or a negative TRAK_E* code. */
static int add_matching(trak__ftrace_reader *r, const char *group, const char *name,
                        trak_error *err) {
  char path[800];
  snprintf(path, sizeof path, "%s/events", r->root);
  DIR *gd = opendir(path);
  struct dirent *g;
  int added = 0;
  while (gd && (g = readdir(gd))) {
    if (g->d_name[0] == '.' || (strcmp(group, "*") && strcmp(group, g->d_name))) continue;
    if (strcmp(name, "*")) {
      int rc = add_event(r, g->d_name, name, err);
      if (rc > 0 || rc < -1) {
        closedir(gd);
        return rc;
      }
      added += rc == 0;
      continue;
    }
    snprintf(path, sizeof path, "%s/events/%s", r->root, g->d_name);
    DIR *ed = opendir(path);
    struct dirent *e;
    while (ed && (e = readdir(ed))) {
      if (e->d_name[0] == '.') continue;
      int rc = add_event(r, g->d_name, e->d_name, err);
      if (rc > 0 || rc < -1) {
        closedir(ed);
        closedir(gd);
        return rc;
      }
      added += rc == 0;
    }
    if (ed) closedir(ed);
  }
  if (gd) closedir(gd);
  return added;
}

int trak__ftrace_reader_open(trak__ftrace_reader *r, const trak__ftrace_opts *o, trak_error *err) {
  memset(r, 0, sizeof *r);
  int rc = trak__tracefs_find(r->root, sizeof r->root, err);
  if (rc) return rc;
  long n = trak__tracefs_read(r->root, "events/header_page", text, sizeof text);
  if (n < 0)
    return trak_error_set(err, TRAK_EIO, "%s/events/header_page: %s", r->root, strerror(errno));
  if ((rc = trak__ftrace_header_parse(text, (size_t)n, &r->layout, err))) return rc;
  for (char **e = o->events; e && *e; e++) {
    char group[64] = "*", name[128];
    const char *slash = strchr(*e, '/');
    if (slash && slash - *e < (long)sizeof group) {
      snprintf(group, sizeof group, "%.*s", (int)(slash - *e), *e);
      snprintf(name, sizeof name, "%s", slash + 1);
    } else {
      snprintf(name, sizeof name, "%s", *e);
    }
    int got = strchr(name, '/') || strchr(group, '.') ? 0 : add_matching(r, group, name, err);
    if (got < 0) return got;
    if (!got && trak__names_add(&r->unknown, *e, strlen(*e))) return TRAK_ENOMEM;
  }
  r->table.compact_sched = o->compact_sched;
  r->table.no_generic = o->no_generic;
  for (uint32_t i = 0; i < r->nformats; i++)
    if (trak__ftrace_table_add(&r->table, &r->formats[i])) return TRAK_ENOMEM;
  r->page = malloc(r->layout.page_size);
  return r->page ? 0 : TRAK_ENOMEM;
}

static void on_bundle_none(void *user, const uint8_t *p, size_t n) {
  (void)user, (void)p, (void)n;
}

int trak__ftrace_reader_attach(trak__ftrace_reader *r, trak_error *err) {
  long ncpu = sysconf(_SC_NPROCESSORS_CONF);
  r->ncpus = ncpu > 0 ? (int)ncpu : 1;
  r->fds = malloc((size_t)r->ncpus * sizeof *r->fds);
  r->bundlers = calloc((size_t)r->ncpus, sizeof *r->bundlers);
  r->more = calloc((size_t)r->ncpus, 1);
  if (!r->fds || !r->bundlers || !r->more) return TRAK_ENOMEM;
  for (int c = 0; c < r->ncpus; c++) {
    char path[800];
    snprintf(path, sizeof path, "%s/per_cpu/cpu%d/trace_pipe_raw", r->root, c);
    r->fds[c] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    trak__ftrace_bundler_init(&r->bundlers[c], &r->table, (uint32_t)c, on_bundle_none, NULL);
    r->bundlers[c].clock = r->clock;
    if (r->fds[c] < 0 && errno != ENOENT) /* an offline CPU has no directory */
      return trak_error_set(err, TRAK_EIO, "%s: %s", path, strerror(errno));
  }
  return 0;
}

int trak__ftrace_reader_start(trak__ftrace_reader *r, const trak__ftrace_opts *o, trak_error *err) {
  int rc = trak__tracefs_claim(r->root, err);
  if (rc) return rc;
  r->claimed = 1;
  trak__tracefs_write(r->root, "tracing_on", "0");
  const char *clock = o->mono_raw ? "mono_raw" : "boot";
  if (trak__tracefs_write(r->root, "trace_clock", clock)) {
    /* Older kernels lack boot: fall back to the default and say so in every bundle. */
    r->clock = TRAK_PB_FTRACE_CLOCK_LOCAL;
  } else {
    r->clock = o->mono_raw ? TRAK_PB_FTRACE_CLOCK_MONO_RAW : 0;
  }
  /* Large per-CPU buffers may not be allocatable: halve until the kernel accepts. */
  uint32_t kb = o->buffer_kb ? o->buffer_kb : 1024;
  char v[32];
  for (; kb >= 8; kb /= 2) {
    snprintf(v, sizeof v, "%u", kb);
    if (!trak__tracefs_write(r->root, "buffer_size_kb", v)) break;
  }
  r->buffer_pages = kb * 1024 / r->layout.page_size;
  trak__tracefs_write(r->root, "trace", "");
  for (uint32_t i = 0; i < r->nformats; i++) {
    trak__ftrace_format *f = &r->formats[i];
    char ev[200], rel[300];
    snprintf(ev, sizeof ev, "%s/%s", f->group, f->name);
    snprintf(rel, sizeof rel, "events/%s/enable", ev);
    if (trak__tracefs_note_event(ev) || trak__tracefs_write(r->root, rel, "1")) {
      r->table.by_id[f->id] = NULL;
      if (trak__names_add(&r->failed, ev, strlen(ev))) return TRAK_ENOMEM;
    }
  }
  if ((rc = trak__ftrace_reader_attach(r, err))) {
    trak__tracefs_restore(0);
    r->claimed = 0;
    return rc;
  }
  if (trak__tracefs_write(r->root, "tracing_on", "1")) {
    trak__tracefs_restore(0);
    r->claimed = 0;
    return trak_error_set(err, TRAK_EIO, "%s/tracing_on: %s", r->root, strerror(errno));
  }
  return 0;
}

uint64_t trak__ftrace_reader_drain(trak__ftrace_reader *r, trak__ftrace_packet_fn out, void *user,
                                   uint32_t max_pages, int (*room)(void *user)) {
  uint64_t pages = 0;
  int left = 0; /* CPUs not yet empty */
  for (int c = 0; c < r->ncpus; c++) {
    r->bundlers[c].out = out;
    r->bundlers[c].user = user;
    r->more[c] = r->fds[c] >= 0;
    left += r->more[c];
  }
  r->held_back = 0;
  /* One page per CPU per round, so that when `room` stops the drain no CPU was left behind
  ** by a busier one. */
  for (uint32_t n = 0; left && !r->held_back && (!max_pages || n < max_pages); n++) {
    for (int c = 0; c < r->ncpus && left; c++) {
      if (!r->more[c]) continue;
      if (room && !room(user)) { /* the kernel keeps the rest until the next drain */
        r->held_back = 1;
        break;
      }
      ssize_t got;
      do
        got = read(r->fds[c], r->page, r->layout.page_size);
      while (got < 0 && errno == EINTR);
      if (got <= 0) {
        r->more[c] = 0;
        left--;
        continue;
      }
      int st = trak__ftrace_bundler_page(&r->bundlers[c], &r->layout, r->page, (size_t)got);
      if (st != TRAK_PB_FTRACE_STATUS_OK && st < 32) r->parse_errors |= 1u << st;
      pages++;
    }
  }
  if (left) r->held_back = 1; /* max_pages reached: the rest next time */
  for (int c = 0; c < r->ncpus; c++)
    trak__ftrace_bundler_flush(&r->bundlers[c]);
  return pages;
}

/* The number after "key: " in a per_cpu stats text (a double for the *_ts keys). */
static double stat_value(const char *t, const char *key, int *found) {
  const char *p = strstr(t, key);
  *found = p != NULL;
  return p ? strtod(p + strlen(key), NULL) : 0;
}

void trak__ftrace_reader_stats(trak__ftrace_reader *r, int phase, trak_pb_buf *p) {
  char st[2048];
  trak_pb_nested s = trak_pb_begin_nested(p, TRAK_PB_TracePacket_ftrace_stats);
  trak_pb_put_varint(p, TRAK_PB_FtraceStats_phase, (uint64_t)phase);
  for (int c = 0; c < r->ncpus; c++) {
    char rel[64];
    snprintf(rel, sizeof rel, "per_cpu/cpu%d/stats", c);
    if (trak__tracefs_read(r->root, rel, st, sizeof st) <= 0) continue;
    static const struct {
      const char *key;
      uint32_t field;
    } keys[] = {{"entries:", TRAK_PB_FtraceCpuStats_entries},
                {"\noverrun:", TRAK_PB_FtraceCpuStats_overrun},
                {"commit overrun:", TRAK_PB_FtraceCpuStats_commit_overrun},
                {"bytes:", TRAK_PB_FtraceCpuStats_bytes_read},
                {"dropped events:", TRAK_PB_FtraceCpuStats_dropped_events},
                {"read events:", TRAK_PB_FtraceCpuStats_read_events}};
    trak_pb_nested cs = trak_pb_begin_nested_short(p, TRAK_PB_FtraceStats_cpu_stats);
    trak_pb_put_varint(p, TRAK_PB_FtraceCpuStats_cpu, (uint64_t)c);
    int found;
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
      double v = stat_value(st, keys[k].key, &found);
      if (found) trak_pb_put_varint(p, keys[k].field, (uint64_t)v);
    }
    double v = stat_value(st, "oldest event ts:", &found);
    if (found) trak_pb_put_double(p, TRAK_PB_FtraceCpuStats_oldest_event_ts, v);
    v = stat_value(st, "now ts:", &found);
    if (found) trak_pb_put_double(p, TRAK_PB_FtraceCpuStats_now_ts, v);
    trak_pb_end_nested_short(p, cs);
  }
  for (char **u = r->unknown; u && *u; u++)
    trak_pb_put_string(p, TRAK_PB_FtraceStats_unknown_ftrace_events, *u);
  for (char **u = r->failed; u && *u; u++)
    trak_pb_put_string(p, TRAK_PB_FtraceStats_failed_ftrace_events, *u);
  for (int e = 0; e < 32; e++)
    if (r->parse_errors >> e & 1)
      trak_pb_put_varint(p, TRAK_PB_FtraceStats_ftrace_parse_errors, (uint64_t)e);
  if (r->buffer_pages)
    trak_pb_put_varint(p, TRAK_PB_FtraceStats_cpu_buffer_size_pages, r->buffer_pages);
  trak_pb_end_nested(p, s);
}

void trak__ftrace_reader_close(trak__ftrace_reader *r) {
  if (r->claimed) trak__tracefs_restore(0);
  for (int c = 0; c < r->ncpus && r->fds; c++)
    if (r->fds[c] >= 0) close(r->fds[c]);
  for (int c = 0; c < r->ncpus && r->bundlers; c++)
    trak__ftrace_bundler_free(&r->bundlers[c]);
  free(r->fds);
  free(r->bundlers);
  free(r->more);
  free(r->page);
  free(r->formats);
  trak__ftrace_table_free(&r->table);
  trak__names_free(r->unknown);
  trak__names_free(r->failed);
  memset(r, 0, sizeof *r);
}
