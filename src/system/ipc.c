/*
** The system backend's wire layer: connecting, sending and receiving one IpcMessage per
** SOCK_SEQPACKET datagram with an optional file descriptor (SCM_RIGHTS), and the message
** codec. The decoder is the daemon's first line of defense against a malformed producer:
** it bounds every length and rejects anything it does not expect (fuzzed by
** tests/fuzz/fuzz_ipc.c).
*/
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "system/system.h"

/* ---- codec ------------------------------------------------------------------------------- */

/* Appends the chunk indexes of a repeated field, packed or not. */
static int add_chunks(const trak_pb_field *f, trak__ipc_msg *m) {
  trak_pb_packed it;
  uint64_t v = f->value;
  int r = 1;
  if (f->wire_type == TRAK_PB_WIRE_LEN) trak_pb_packed_init(&it, f, TRAK_PB_WIRE_VARINT);
  for (int first = 1;; first = 0) {
    if (f->wire_type == TRAK_PB_WIRE_LEN)
      r = trak_pb_packed_next(&it, &v);
    else if (!first)
      r = 0;
    if (r != 1) break;
    if (m->nchunks == TRAK__IPC_MAX_CHUNKS || v > UINT32_MAX) return TRAK_EFORMAT;
    m->chunks[m->nchunks++] = (uint32_t)v;
  }
  return r < 0 ? TRAK_EFORMAT : 0;
}

/* Appends one data source name. */
static int add_name(const trak_pb_field *f, trak__ipc_msg *m) {
  if (m->nnames == TRAK__IPC_MAX_NAMES || f->len > 255) return TRAK_EFORMAT;
  m->names[m->nnames] = f->data;
  m->name_lens[m->nnames++] = (uint32_t)f->len;
  return 0;
}

/* Reads the fields of one member message into `m`. */
static int decode_member(const trak_pb_field *outer, trak__ipc_msg *m) {
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, outer->data, outer->len);
  int rc;
  while ((rc = trak_pb_decoder_next(&d, &f)) == 1) {
    int varint = f.wire_type == TRAK_PB_WIRE_VARINT, len = f.wire_type == TRAK_PB_WIRE_LEN;
    switch (m->type) {
    case TRAK_PB_IpcMessage_hello:
      if (f.number == TRAK_PB_IpcHello_process_name && len) {
        m->bytes = f.data;
        m->bytes_len = f.len;
      }
      if (f.number == TRAK_PB_IpcHello_data_sources && len && add_name(&f, m) != 0)
        return TRAK_EFORMAT;
      break;
    case TRAK_PB_IpcMessage_lost_while_away:
      if (f.number == TRAK_PB_IpcLostWhileAway_packets && varint) m->packets_lost = f.value;
      break;
    case TRAK_PB_IpcMessage_data_sources:
      if (f.number == TRAK_PB_IpcDataSources_data_sources && len && add_name(&f, m) != 0)
        return TRAK_EFORMAT;
      break;
    case TRAK_PB_IpcMessage_enable_tracing:
      if (f.number == TRAK_PB_IpcEnableTracing_trace_config && len) {
        m->bytes = f.data;
        m->bytes_len = f.len;
      }
      break;
    case TRAK_PB_IpcMessage_start_session:
      if (f.number == TRAK_PB_IpcStartSession_session_id && varint)
        m->session_id = (uint32_t)f.value;
      if (f.number == TRAK_PB_IpcStartSession_trace_config && len) {
        m->bytes = f.data;
        m->bytes_len = f.len;
      }
      if (f.number == TRAK_PB_IpcStartSession_buffer_size && varint)
        m->buffer_size = (uint32_t)f.value;
      break;
    case TRAK_PB_IpcMessage_commit_chunks:
    case TRAK_PB_IpcMessage_release_chunks:
      /* Both messages number their fields alike (checked at compile time below). */
      if (f.number == TRAK_PB_IpcCommitChunks_session_id && varint)
        m->session_id = (uint32_t)f.value;
      if (f.number == TRAK_PB_IpcCommitChunks_packets_lost && varint) m->packets_lost = f.value;
      if (f.number == TRAK_PB_IpcCommitChunks_flushed && varint) m->flushed = f.value != 0;
      if (f.number == TRAK_PB_IpcCommitChunks_chunks && (varint || len)) {
        if (add_chunks(&f, m) != 0) return TRAK_EFORMAT;
      }
      break;
    case TRAK_PB_IpcMessage_flush_session:
    case TRAK_PB_IpcMessage_stop_session:
    case TRAK_PB_IpcMessage_stop_done:
      if (f.number == TRAK_PB_IpcStopSession_session_id && varint)
        m->session_id = (uint32_t)f.value;
      break;
    case TRAK_PB_IpcMessage_status:
      if (f.number == TRAK_PB_IpcStatus_producers && varint) m->producers = (uint32_t)f.value;
      if (f.number == TRAK_PB_IpcStatus_bytes_written && varint) m->bytes_written = f.value;
      if (f.number == TRAK_PB_IpcStatus_chunks && varint) m->chunk_count = f.value;
      if (f.number == TRAK_PB_IpcStatus_packets_lost && varint) m->packets_lost = f.value;
      if (f.number == TRAK_PB_IpcStatus_done && varint) m->done = f.value != 0;
      if (f.number == TRAK_PB_IpcStatus_error && len) {
        m->error = f.data;
        m->error_len = f.len;
      }
      break;
    default:
      break;
    }
  }
  return rc < 0 ? TRAK_EFORMAT : 0;
}

_Static_assert(TRAK_PB_IpcCommitChunks_session_id == TRAK_PB_IpcReleaseChunks_session_id &&
                   TRAK_PB_IpcCommitChunks_chunks == TRAK_PB_IpcReleaseChunks_chunks &&
                   TRAK_PB_IpcStopSession_session_id == TRAK_PB_IpcFlushSession_session_id &&
                   TRAK_PB_IpcStopSession_session_id == TRAK_PB_IpcStopDone_session_id,
               "session-id messages share their field numbers");

int trak__ipc_decode(const uint8_t *data, size_t len, trak__ipc_msg *m) {
  memset(m, 0, offsetof(trak__ipc_msg, chunks));
  m->packets_lost = m->producers = 0;
  m->flushed = 0;
  m->nnames = 0;
  m->bytes_written = m->chunk_count = 0;
  m->done = 0;
  m->error = NULL;
  m->error_len = 0;
  if (len > TRAK__IPC_MAX) return TRAK_EFORMAT;
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, data, len);
  int rc;
  while ((rc = trak_pb_decoder_next(&d, &f)) == 1) {
    if (f.number < TRAK_PB_IpcMessage_hello || f.number > TRAK_PB_IpcMessage_service_state)
      continue; /* unknown members of a later version */
    if (f.wire_type != TRAK_PB_WIRE_LEN || m->type) return TRAK_EFORMAT;
    m->type = f.number;
    if (decode_member(&f, m) != 0) return TRAK_EFORMAT;
    if (m->type == TRAK_PB_IpcMessage_service_state) { /* nested lists: the reader walks them */
      m->bytes = f.data;
      m->bytes_len = f.len;
    }
  }
  return rc < 0 ? TRAK_EFORMAT : 0;
}

trak_pb_nested trak__ipc_begin(trak_pb_buf *b, uint32_t type) {
  b->p = b->start;
  return trak_pb_begin_nested(b, type);
}

void trak__ipc_end(trak_pb_buf *b, trak_pb_nested n) {
  trak_pb_end_nested(b, n);
}

void trak__ipc_put_session(trak_pb_buf *b, uint32_t type, uint32_t session_id) {
  trak_pb_nested n = trak__ipc_begin(b, type);
  trak_pb_put_varint(b, TRAK_PB_IpcStopSession_session_id, session_id);
  trak__ipc_end(b, n);
}

void trak__ipc_put_chunks(trak_pb_buf *b, uint32_t type, uint32_t session_id, const uint32_t *idx,
                          size_t n, uint64_t lost, int flushed) {
  trak_pb_nested m = trak__ipc_begin(b, type);
  trak_pb_put_varint(b, TRAK_PB_IpcCommitChunks_session_id, session_id);
  if (n) {
    trak_pb_nested p = trak_pb_begin_nested(b, TRAK_PB_IpcCommitChunks_chunks);
    for (size_t i = 0; i < n && trak_pb_buf_ensure(b, 10); i++)
      b->p = trak_pb_write_varint(b->p, idx[i]);
    trak_pb_end_nested(b, p);
  }
  if (type == TRAK_PB_IpcMessage_commit_chunks)
    trak_pb_put_varint(b, TRAK_PB_IpcCommitChunks_packets_lost, lost);
  if (type == TRAK_PB_IpcMessage_commit_chunks && flushed)
    trak_pb_put_bool(b, TRAK_PB_IpcCommitChunks_flushed, 1);
  trak__ipc_end(b, m);
}

/* ---- transport ----------------------------------------------------------------------------- */

int trak__ipc_send(int fd, const trak_pb_buf *b, int pass_fd, int nonblock) {
  if (b->error || trak_pb_buf_len(b) > TRAK__IPC_MAX) {
    errno = EMSGSIZE;
    return -1;
  }
  struct iovec iov = {b->start, trak_pb_buf_len(b)};
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } u;
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (pass_fd >= 0) {
    memset(&u, 0, sizeof u);
    msg.msg_control = u.buf;
    msg.msg_controllen = sizeof u.buf;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
  }
  ssize_t n;
  do
    n = sendmsg(fd, &msg, MSG_NOSIGNAL | (nonblock ? MSG_DONTWAIT : 0));
  while (n < 0 && errno == EINTR);
  return n == (ssize_t)iov.iov_len ? 0 : -1;
}

long trak__ipc_recv(int fd, uint8_t *buf, int *got_fd) {
  *got_fd = -1;
  struct iovec iov = {buf, TRAK__IPC_MAX};
  union {
    char buf[CMSG_SPACE(sizeof(int) * 4)];
    struct cmsghdr align;
  } u;
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = u.buf;
  msg.msg_controllen = sizeof u.buf;
  ssize_t n;
  int resets = 0;
  /* A peer that closed with our last message unread leaves ECONNRESET pending, reported
  ** before the messages it sent first (a daemon refusing us as busy sends why, then closes):
  ** reading once more gets them. */
  do
    n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
  while (n < 0 && (errno == EINTR || (errno == ECONNRESET && !resets++)));
  /* Keep one descriptor; close any others a peer sent. */
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); n >= 0 && c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; i++) {
      int got;
      memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof got);
      if (*got_fd < 0)
        *got_fd = got;
      else
        close(got);
    }
  }
  if (n < 0) return -1;
  if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
    if (*got_fd >= 0) close(*got_fd);
    *got_fd = -1;
    return -2;
  }
  return (long)n;
}
