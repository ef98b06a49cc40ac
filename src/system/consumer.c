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
#include <sys/stat.h>
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

/* The end of the last whole top-level field of the trace in `fd` (a daemon that died may have
** written part of a packet). Walks the framing with small reads; a read failure (e.g. a
** write-only descriptor) returns `size`, keeping everything. */
static off_t last_whole_field(int fd, off_t size) {
  off_t at = 0;
  while (at < size) {
    uint8_t head[2 * TRAK_PB_MAX_VARINT_BYTES];
    ssize_t got = pread(fd, head, sizeof head, at);
    if (got < 0) return size;
    const uint8_t *p = head, *end = head + got;
    uint64_t tag, len = 0;
    const char *why;
    if (trak_pb_read_varint(&p, end, &tag, &why)) return at;
    switch (tag & 7) {
    case TRAK_PB_WIRE_VARINT:
      if (trak_pb_read_varint(&p, end, &len, &why)) return at;
      len = 0;
      break;
    case TRAK_PB_WIRE_FIXED64:
      len = 8;
      break;
    case TRAK_PB_WIRE_FIXED32:
      len = 4;
      break;
    case TRAK_PB_WIRE_LEN:
      if (trak_pb_read_varint(&p, end, &len, &why)) return at;
      break;
    default:
      return at;
    }
    uint64_t next = (uint64_t)at + (uint64_t)(p - head) + len;
    if (next > (uint64_t)size) return at;
    at = (off_t)next;
  }
  return at;
}

/* A recording that failed still leaves a valid trace: the partial packet a dying daemon left
** is cut off and a trace_stats packet saying the final flush failed is appended, so that
** `trak check` and the stats table show the trace is incomplete. Best effort: errors here are
** ignored, the recording's own error is what the caller reports. */
static void end_failed_trace(int fd) {
  struct stat sb;
  if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) return;
  off_t good = last_whole_field(fd, sb.st_size);
  if (good < sb.st_size && ftruncate(fd, good)) return;
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  trak_pb_nested pkt = trak_pb_begin_nested(&b, TRAK_PB_Trace_packet);
  trak_pb_put_varint(&b, TRAK_PB_TracePacket_trusted_packet_sequence_id, 1);
  trak_pb_nested ts = trak_pb_begin_nested(&b, TRAK_PB_TracePacket_trace_stats);
  trak_pb_put_varint(&b, TRAK_PB_TraceStats_flushes_failed, 1);
  trak_pb_put_varint(&b, TRAK_PB_TraceStats_final_flush_outcome,
                     TRAK_PB_TraceStats_FINAL_FLUSH_FAILED);
  trak_pb_end_nested(&b, ts);
  trak_pb_end_nested(&b, pkt);
  if (!b.error && pwrite(fd, b.start, trak_pb_buf_len(&b), good) < 0) {
    /* nothing more to do: the caller reports the recording's failure */
  }
  trak_pb_buf_free(&b);
}

/* The send to the daemon failed: a daemon that refused the connection (too many clients)
** left its reason in a final IpcStatus, which is reported rather than "Broken pipe". */
static int refusal(int fd, uint8_t *rx, trak__ipc_msg *m, const char *path, trak_error *err) {
  int e = errno, got_fd;
  long len = trak__ipc_recv(fd, rx, &got_fd);
  if (got_fd >= 0) close(got_fd);
  if (len > 0 && trak__ipc_decode(rx, (size_t)len, m) == 0 &&
      m->type == TRAK_PB_IpcMessage_status && m->error)
    return trak_error_set(err, TRAK_EIO, "%s: %.*s", path, (int)m->error_len,
                          (const char *)m->error);
  return trak_error_set(err, TRAK_EIO, "%s: %s", path, strerror(e));
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
  int fd = trak__ipc_connect_daemon(path, err);
  if (fd < 0) return fd;
  struct stat out_st; /* a regular file is emptied now that a daemon answers, not before */
  if (fstat(cfg->out_fd, &out_st) == 0 && S_ISREG(out_st.st_mode) && ftruncate(cfg->out_fd, 0)) {
    close(fd);
    return trak_error_set(err, TRAK_EIO, "cannot empty the output file: %s", strerror(errno));
  }
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
    rc = refusal(fd, rx, m, path, err);
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
  if (rc) end_failed_trace(cfg->out_fd);
  if (final) *final = st;
  trak_pb_buf_free(&b);
  free(rx);
  free(m);
  close(fd);
  return rc;
}
