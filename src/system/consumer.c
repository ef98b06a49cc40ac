/*
** The consumer side of the system backend (what `trak record` runs): asks the daemon for a
** session, passing the output file's descriptor so the daemon writes the trace itself, polls
** its progress, asks it to stop at the end of the duration or when told to, and waits for the
** daemon's final status.
*/
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "system/system.h"

#define FINISH_TIMEOUT_MS 15000 /* after asking to stop, how long to wait for the file */
#define STATUS_PERIOD_MS 500

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void status_from(const trak__ipc_msg *m, trak_record_status *st) {
  st->producers = m->producers;
  st->bytes_written = m->bytes_written;
  st->chunks = m->chunk_count;
  st->packets_lost = m->packets_lost;
}

/* Sends a member-only message (disable, get status). */
static int send_empty(int fd, uint32_t type, trak_pb_buf *b) {
  trak__ipc_end(b, trak__ipc_begin(b, type));
  return trak__ipc_send(fd, b, -1, 0);
}

int trak_record_run(const trak_record_config *cfg, trak_record_status *final, trak_error *err) {
  trak__system_not_a_producer();
  char path[108];
  if (cfg->socket_path)
    snprintf(path, sizeof path, "%s", cfg->socket_path);
  else
    trak__ipc_default_path(path, sizeof path);
  trak_record_status st = {0};
  if (final) *final = st;
  if (cfg->out_fd < 0) return trak_error_set(err, TRAK_EINVAL, "no output file");
  int fd = trak__ipc_connect(path);
  if (fd < 0)
    return trak_error_set(err, TRAK_EIO, "no daemon at %s: %s (start one with `trak daemon`)", path,
                          strerror(errno));
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  uint8_t *rx = malloc(TRAK__IPC_MAX);
  trak__ipc_msg *m = malloc(sizeof *m);
  trak_pb_nested n = trak__ipc_begin(&b, TRAK_PB_IpcMessage_enable_tracing);
  trak_pb_put_bytes(&b, TRAK_PB_IpcEnableTracing_trace_config, cfg->trace_config,
                    cfg->trace_config_len);
  trak__ipc_end(&b, n);
  int rc = 0;
  if (!rx || !m)
    rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
  else if (trak__ipc_send(fd, &b, cfg->out_fd, 0) != 0)
    rc = trak_error_set(err, TRAK_EIO, "%s: %s", path, strerror(errno));
  uint64_t start = now_ms(), next_status = start, deadline = 0;
  int stopping = 0, done = 0;
  while (rc == 0 && !done) {
    uint64_t now = now_ms();
    int expired = cfg->duration_ms && now >= start + cfg->duration_ms;
    if (!stopping && (expired || (cfg->stop && *cfg->stop))) {
      stopping = 1;
      deadline = now + FINISH_TIMEOUT_MS;
      if (send_empty(fd, TRAK_PB_IpcMessage_disable_tracing, &b) != 0) break;
    }
    if (stopping && now >= deadline) {
      rc = trak_error_set(err, TRAK_EIO, "the daemon did not finish the trace in time");
      break;
    }
    if (!stopping && now >= next_status) {
      next_status = now + STATUS_PERIOD_MS;
      if (send_empty(fd, TRAK_PB_IpcMessage_get_status, &b) != 0) break;
    }
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    int got_fd;
    long len = trak__ipc_recv(fd, rx, &got_fd);
    if (got_fd >= 0) close(got_fd);
    if (len == -1 && (errno == EAGAIN || errno == EINTR)) continue;
    if (len <= 0 || trak__ipc_decode(rx, (size_t)len, m) != 0 ||
        m->type != TRAK_PB_IpcMessage_status)
      break;
    status_from(m, &st);
    if (m->done) {
      done = 1;
      if (m->error)
        rc = trak_error_set(err, TRAK_EIO, "daemon: %.*s", (int)m->error_len,
                            (const char *)m->error);
    } else if (cfg->progress) {
      uint64_t left =
          cfg->duration_ms && start + cfg->duration_ms > now ? start + cfg->duration_ms - now : 0;
      cfg->progress(&st, (uint32_t)left, cfg->user);
    }
  }
  if (rc == 0 && !done) rc = trak_error_set(err, TRAK_EIO, "lost the connection to the daemon");
  if (final) *final = st;
  trak_pb_buf_free(&b);
  free(rx);
  free(m);
  close(fd);
  return rc;
}
