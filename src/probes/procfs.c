/*
** This file writes the packets of linux.process_stats and linux.system_info from /proc and
** uname(2): a ProcessTree of every process (pid, ppid, uid, command line) and, on request,
** every thread's name; SystemInfo; CpuInfo.
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "probes/probes.h"
#include "probes/tracefs.h"
#include "trak/protos.h"

static uint64_t boot_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The value of "Key:\t..." in a /proc status text, as a number (first field). */
static long status_num(const char *text, const char *key) {
  const char *p = strstr(text, key);
  return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* One thread's name from /proc/PID/task/TID/comm into name[size]. */
static void comm_of(const char *rel, char *name, size_t size) {
  if (trak__tracefs_read("/proc", rel, name, size) < 0) name[0] = 0;
  name[strcspn(name, "\n")] = 0;
}

static int is_pid(const char *s) {
  if (!*s) return 0;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

/* Starts a process tree packet from `next` into *t (*t is where its nested message begins:
** the packet's size is measured from there). */
static trak_pb_buf *tree_packet(trak_pb_nested *t, trak__packet_next_fn next, void *ctx) {
  trak_pb_buf *p = next(ctx);
  trak_pb_put_varint(p, TRAK_PB_TracePacket_timestamp, boot_ns());
  *t = trak_pb_begin_nested(p, TRAK_PB_TracePacket_process_tree);
  return p;
}

/* The packet to go on writing the tree in: p, or a new one when `need` more bytes would take
** p past TRAK__PROCESS_TREE_MAX (packets must fit a shared-memory chunk; a packet that does
** not is lost whole). */
static trak_pb_buf *tree_room(trak_pb_buf *p, trak_pb_nested *t, trak__packet_next_fn next,
                              void *ctx, size_t need) {
  size_t used = trak_pb_buf_len(p) - *t;
  if (!used || used + need <= TRAK__PROCESS_TREE_MAX) return p;
  trak_pb_end_nested(p, *t);
  return tree_packet(t, next, ctx);
}

/* How much of the command line [buf, buf + n) (NUL-separated arguments) the tree keeps: all
** of it up to TRAK__CMDLINE_MAX bytes, else the whole arguments that fit in that (at least
** the first argument, cut), so that one process always fits a packet. */
static size_t cmdline_cut(const char *buf, size_t n) {
  if (n <= TRAK__CMDLINE_MAX) return n;
  size_t keep = 0;
  for (size_t i = 0; i < TRAK__CMDLINE_MAX;) {
    size_t len = strnlen(buf + i, n - i);
    if (i + len > TRAK__CMDLINE_MAX) break;
    keep = i + len;
    i += len + 1;
  }
  return keep ? keep : TRAK__CMDLINE_MAX;
}

void trak__probes_process_tree(trak__packet_next_fn next, void *ctx, int thread_names) {
  trak_pb_nested t;
  trak_pb_buf *p = tree_packet(&t, next, ctx);
  DIR *d = opendir("/proc");
  struct dirent *e;
  static char buf[8192]; /* callers are serialized by the data source's single writer */
  while (d && (e = readdir(d))) {
    if (!is_pid(e->d_name)) continue;
    char rel[600];
    snprintf(rel, sizeof rel, "%s/status", e->d_name);
    if (trak__tracefs_read("/proc", rel, buf, sizeof buf) <= 0) continue;
    long ppid = status_num(buf, "PPid:"), uid = status_num(buf, "Uid:");
    snprintf(rel, sizeof rel, "%s/cmdline", e->d_name);
    long n = trak__tracefs_read("/proc", rel, buf, sizeof buf);
    n = n > 0 ? (long)cmdline_cut(buf, (size_t)n) : n;
    /* Each argument costs its length and up to 3 bytes of key and length: at most 2 n. */
    p = tree_room(p, &t, next, ctx, 40 + (n > 0 ? 2 * (size_t)n : 64));
    trak_pb_nested pr = trak_pb_begin_nested(p, TRAK_PB_ProcessTree_processes);
    trak_pb_put_varint(p, TRAK_PB_ProcessTree_Process_pid, strtoul(e->d_name, NULL, 10));
    if (ppid >= 0) trak_pb_put_int32(p, TRAK_PB_ProcessTree_Process_ppid, (int32_t)ppid);
    if (uid >= 0) trak_pb_put_int32(p, TRAK_PB_ProcessTree_Process_uid, (int32_t)uid);
    if (n > 0) {
      for (long i = 0; i < n;) {
        size_t len = strnlen(buf + i, (size_t)(n - i));
        trak_pb_put_bytes(p, TRAK_PB_ProcessTree_Process_cmdline, buf + i, len);
        i += (long)len + 1;
      }
    } else { /* a kernel thread: its name stands for the command line */
      char name[64];
      snprintf(rel, sizeof rel, "%s/comm", e->d_name);
      comm_of(rel, name, sizeof name);
      trak_pb_put_string(p, TRAK_PB_ProcessTree_Process_cmdline, name);
      trak_pb_put_bool(p, TRAK_PB_ProcessTree_Process_cmdline_is_comm, 1);
    }
    trak_pb_end_nested(p, pr);
    if (!thread_names) continue;
    snprintf(rel, sizeof rel, "/proc/%s/task", e->d_name);
    DIR *td = opendir(rel);
    struct dirent *te;
    while (td && (te = readdir(td))) {
      if (!is_pid(te->d_name)) continue;
      char name[64];
      snprintf(rel, sizeof rel, "%s/task/%s/comm", e->d_name, te->d_name);
      comm_of(rel, name, sizeof name);
      p = tree_room(p, &t, next, ctx, 40);
      trak_pb_nested th = trak_pb_begin_nested_short(p, TRAK_PB_ProcessTree_threads);
      trak_pb_put_varint(p, TRAK_PB_ProcessTree_Thread_tid, strtoul(te->d_name, NULL, 10));
      trak_pb_put_varint(p, TRAK_PB_ProcessTree_Thread_tgid, strtoul(e->d_name, NULL, 10));
      if (name[0]) trak_pb_put_string(p, TRAK_PB_ProcessTree_Thread_name, name);
      trak_pb_end_nested_short(p, th);
    }
    if (td) closedir(td);
  }
  if (d) closedir(d);
  trak_pb_put_varint(p, TRAK_PB_ProcessTree_collection_end_timestamp, boot_ns());
  trak_pb_end_nested(p, t);
}

void trak__probes_system_info(trak_pb_buf *p) {
  struct utsname u;
  trak_pb_put_varint(p, TRAK_PB_TracePacket_timestamp, boot_ns());
  trak_pb_nested s = trak_pb_begin_nested(p, TRAK_PB_TracePacket_system_info);
  if (uname(&u) == 0) {
    trak_pb_nested n = trak_pb_begin_nested_short(p, TRAK_PB_SystemInfo_utsname);
    trak_pb_put_string(p, TRAK_PB_Utsname_sysname, u.sysname);
    trak_pb_put_string(p, TRAK_PB_Utsname_version, u.version);
    trak_pb_put_string(p, TRAK_PB_Utsname_release, u.release);
    trak_pb_put_string(p, TRAK_PB_Utsname_machine, u.machine);
    trak_pb_end_nested_short(p, n);
  }
  trak_pb_put_varint(p, TRAK_PB_SystemInfo_page_size, (uint64_t)sysconf(_SC_PAGESIZE));
  trak_pb_put_varint(p, TRAK_PB_SystemInfo_num_cpus, (uint64_t)sysconf(_SC_NPROCESSORS_CONF));
  trak_pb_put_varint(p, TRAK_PB_SystemInfo_hz, (uint64_t)sysconf(_SC_CLK_TCK));
  trak_pb_put_varint(p, TRAK_PB_SystemInfo_system_ram_bytes,
                     (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE));
  trak_pb_end_nested(p, s);
}

void trak__probes_cpu_info(trak_pb_buf *p) {
  static char text[65536];
  if (trak__tracefs_read("/proc", "cpuinfo", text, sizeof text) < 0) text[0] = 0;
  trak_pb_put_varint(p, TRAK_PB_TracePacket_timestamp, boot_ns());
  trak_pb_nested c = trak_pb_begin_nested(p, TRAK_PB_TracePacket_cpu_info);
  long ncpu = sysconf(_SC_NPROCESSORS_CONF);
  const char *model = strstr(text, "model name");
  for (long i = 0; i < ncpu; i++) {
    char name[256] = "";
    if (model) { /* the i-th "model name" line */
      const char *colon = strchr(model, ':');
      if (colon) {
        colon += 1 + (colon[1] == ' ');
        size_t n = strcspn(colon, "\n");
        snprintf(name, sizeof name, "%.*s", (int)n, colon);
      }
      model = strstr(model + 1, "model name");
    }
    trak_pb_nested cpu = trak_pb_begin_nested_short(p, TRAK_PB_CpuInfo_cpus);
    if (name[0]) trak_pb_put_string(p, TRAK_PB_CpuInfo_Cpu_processor, name);
    char rel[128], freqs[4096];
    snprintf(rel, sizeof rel, "cpu%ld/cpufreq/scaling_available_frequencies", i);
    if (trak__tracefs_read("/sys/devices/system/cpu", rel, freqs, sizeof freqs) > 0)
      for (char *q = freqs, *end; *q; q = end) {
        unsigned long f = strtoul(q, &end, 10);
        if (end == q) break;
        trak_pb_put_varint(p, TRAK_PB_CpuInfo_Cpu_frequencies, f);
      }
    trak_pb_end_nested_short(p, cpu);
  }
  trak_pb_end_nested(p, c);
}
