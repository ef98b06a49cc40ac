/*
** This file holds tracefs control for `trak probes`: finding a writable mount, small file reads
** and writes, and the state file that lets a recording's changes be undone at its end or, after
** a crash, at the next start (see tracefs.h).
*/
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "probes/tracefs.h"

int trak__tracefs_find(char *root, size_t size, trak_error *err) {
  static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
  const char *env = getenv("TRAK_TRACEFS");
  for (int i = -1; i < 2; i++) {
    const char *r = i < 0 ? env : roots[i];
    if (!r) continue;
    char path[512];
    snprintf(path, sizeof path, "%s/tracing_on", r);
    if (access(path, F_OK) != 0) continue;
    if (access(path, W_OK) != 0)
      return trak_error_set(err, TRAK_EIO,
                            "%s is not writable: run trak probes as root (or give its group "
                            "write access to tracefs)",
                            r);
    snprintf(root, size, "%s", r);
    return 0;
  }
  return trak_error_set(err, TRAK_EIO,
                        "tracefs is not mounted: as root, mount -t tracefs nodev "
                        "/sys/kernel/tracing");
}

long trak__tracefs_read(const char *root, const char *rel, char *buf, size_t size) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t n = 0;
  while (n + 1 < size) {
    ssize_t r = read(fd, buf + n, size - 1 - n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    n += (size_t)r;
  }
  close(fd);
  buf[n] = 0;
  return (long)n;
}

int trak__tracefs_write(const char *root, const char *rel, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t n = strlen(text);
  ssize_t w = write(fd, text, n);
  int e = errno;
  close(fd);
  errno = e;
  return w == (ssize_t)n ? 0 : -1;
}

void trak__tracefs_state_path(char *buf, size_t size) {
  const char *env = getenv("TRAK_PROBES_STATE");
  if (env && *env)
    snprintf(buf, size, "%s", env);
  else
    snprintf(buf, size, "%s/trak-probes.state", access("/run", W_OK) == 0 ? "/run" : "/tmp");
}

/* The owner pid recorded in the state file text, 0 when none. */
static long state_pid(const char *text) {
  const char *p = strstr(text, "pid ");
  return p ? strtol(p + 4, NULL, 10) : 0;
}

static int lock_fd = -1; /* the lock on the tracefs directory while a recording holds it */

static void unlock_tracefs(void) {
  if (lock_fd >= 0) close(lock_fd); /* closing drops the flock */
  lock_fd = -1;
}

/* Is another tracer recording into the top-level buffer? Its tracer is not nop (Perfetto's
** test), or tracing is on with events enabled. */
static int tracefs_busy(const char *root) {
  char t[256];
  if (trak__tracefs_read(root, "current_tracer", t, sizeof t) > 0 && strncmp(t, "nop", 3)) return 1;
  return trak__tracefs_read(root, "tracing_on", t, sizeof t) > 0 && t[0] == '1' &&
         trak__tracefs_read(root, "set_event", t, sizeof t) > 0;
}

int trak__tracefs_claim(const char *root, trak_error *err) {
  char path[512], text[4096];
  trak__tracefs_state_path(path, sizeof path);
  /* Machine-wide, whatever the state file's path: every trak probes locks the tracefs
  ** directory (the kernel drops the lock when its holder dies). Two readers of the same
  ** trace_pipe_raw would each get part of the events. */
  unlock_tracefs();
  lock_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock_fd >= 0 && flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    unlock_tracefs();
    return trak_error_set(err, TRAK_ESTATE,
                          "ftrace is in use by another trak probes (it holds the lock on %s)",
                          root);
  }
  trak__tracefs_restore(1); /* a crashed recording's leftovers first */
  if (trak__tracefs_read("", path, text, sizeof text) >= 0) {
    long pid = state_pid(text);
    unlock_tracefs();
    return trak_error_set(err, TRAK_ESTATE,
                          "ftrace is in use by another recording (trak probes pid %ld, state "
                          "file %s)",
                          pid, path);
  }
  if (tracefs_busy(root)) {
    unlock_tracefs();
    return trak_error_set(err, TRAK_ESTATE,
                          "%s is in use by another tracer (current_tracer not nop, or tracing "
                          "on with events set); when none runs: echo nop > %s/current_tracer; "
                          "echo > %s/set_event",
                          root, root, root);
  }
  char clock[256] = "local", kb[64] = "7";
  if (trak__tracefs_read(root, "trace_clock", text, sizeof text) > 0) {
    char *l = strchr(text, '['), *r = l ? strchr(l, ']') : NULL;
    if (l && r && r - l - 1 < (long)sizeof clock) {
      memcpy(clock, l + 1, (size_t)(r - l - 1));
      clock[r - l - 1] = 0;
    }
  }
  if (trak__tracefs_read(root, "buffer_size_kb", text, sizeof text) > 0)
    snprintf(kb, sizeof kb, "%ld", strtol(text, NULL, 10) > 0 ? strtol(text, NULL, 10) : 7);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    int e = errno;
    unlock_tracefs();
    return trak_error_set(err, e == EEXIST ? TRAK_ESTATE : TRAK_EIO, "%s: %s", path, strerror(e));
  }
  int n = snprintf(text, sizeof text, "pid %ld\ntracefs %s\ntrace_clock %s\nbuffer_size_kb %s\n",
                   (long)getpid(), root, clock, kb);
  int ok = write(fd, text, (size_t)n) == n && fsync(fd) == 0;
  close(fd);
  if (!ok) {
    unlink(path);
    unlock_tracefs();
    return trak_error_set(err, TRAK_EIO, "%s: cannot write the restore state", path);
  }
  return 0;
}

int trak__tracefs_note_event(const char *event) {
  char path[512];
  trak__tracefs_state_path(path, sizeof path);
  int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return -1;
  char line[256];
  int n = snprintf(line, sizeof line, "event %s\n", event);
  int ok = n < (int)sizeof line && write(fd, line, (size_t)n) == n;
  close(fd);
  return ok ? 0 : -1;
}

/* The value after "key " on its own line of `text` into out[size]; 0, or -1 when absent. */
static int state_value(const char *text, const char *key, char *out, size_t size) {
  size_t kl = strlen(key);
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    if (!strncmp(p, key, kl) && p[kl] == ' ') {
      size_t n = strcspn(p + kl + 1, "\n");
      if (n >= size) return -1;
      memcpy(out, p + kl + 1, n);
      out[n] = 0;
      return 0;
    }
  return -1;
}

int trak__tracefs_restore(int only_dead) {
  char path[512], text[65536], root[256], v[256];
  trak__tracefs_state_path(path, sizeof path);
  if (trak__tracefs_read("", path, text, sizeof text) < 0) return 0;
  long pid = state_pid(text);
  if (only_dead && pid > 0 && pid != getpid() && (kill((pid_t)pid, 0) == 0 || errno == EPERM))
    return 0;
  if (state_value(text, "tracefs", root, sizeof root)) {
    unlink(path); /* unreadable: nothing to restore from */
    return -1;
  }
  int rc = trak__tracefs_write(root, "tracing_on", "0");
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    if (strncmp(p, "event ", 6)) continue;
    size_t n = strcspn(p + 6, "\n");
    char rel[300];
    if (n >= 200) continue;
    snprintf(rel, sizeof rel, "events/%.*s/enable", (int)n, p + 6);
    rc |= trak__tracefs_write(root, rel, "0");
  }
  trak__tracefs_write(root, "trace", ""); /* empties every CPU's buffer */
  if (!state_value(text, "trace_clock", v, sizeof v))
    rc |= trak__tracefs_write(root, "trace_clock", v);
  if (!state_value(text, "buffer_size_kb", v, sizeof v))
    rc |= trak__tracefs_write(root, "buffer_size_kb", v);
  unlink(path);
  if (pid == getpid()) unlock_tracefs();
  return rc ? -1 : 1;
}
