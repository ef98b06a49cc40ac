/*
** Asking the daemon what it has (what `trak status` prints): one IpcQueryService, one
** IpcServiceState answer, decoded into the public trak_service_state. The answer comes from a
** process we trust no more than any peer: every field is bounds-checked by the decoder and
** anything malformed is an error, never a crash.
*/
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "system/system.h"

#define ANSWER_TIMEOUT_MS 5000

/* Appends a zeroed element of `size` bytes to array `v` of *n elements: returns the grown
** array (NULL when out of memory, `v` unchanged) and points *out at the new element. */
static void *grow(void *v, size_t *n, size_t size, void **out) {
  void *bigger = realloc(v, (*n + 1) * size);
  if (!bigger) return NULL;
  *out = (char *)bigger + *n * size;
  memset(*out, 0, size);
  ++*n;
  return bigger;
}

static int add_source(trak_producer_info *p, const trak_pb_field *f) {
  size_t n = 0;
  while (p->data_sources && p->data_sources[n])
    n++;
  char **bigger = realloc(p->data_sources, (n + 2) * sizeof *bigger);
  if (!bigger) return TRAK_ENOMEM;
  p->data_sources = bigger;
  bigger[n + 1] = NULL;
  return (bigger[n] = strndup((const char *)f->data, f->len)) ? 0 : TRAK_ENOMEM;
}

static int read_producer(const trak_pb_field *outer, trak_producer_info *p) {
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, outer->data, outer->len);
  int rc = 0, bad = 0;
  while (!bad && (rc = trak_pb_decoder_next(&d, &f)) == 1) {
    int len = f.wire_type == TRAK_PB_WIRE_LEN;
    if (f.number == TRAK_PB_IpcServiceState_Producer_pid) p->pid = (int32_t)f.value;
    if (f.number == TRAK_PB_IpcServiceState_Producer_uid) p->uid = (int32_t)f.value;
    if (f.number == TRAK_PB_IpcServiceState_Producer_sessions) p->sessions = (uint32_t)f.value;
    if (f.number == TRAK_PB_IpcServiceState_Producer_name && len && !p->name)
      bad = !(p->name = strndup((const char *)f.data, f.len));
    if (f.number == TRAK_PB_IpcServiceState_Producer_data_sources && len)
      bad = add_source(p, &f) != 0;
  }
  if (bad) return TRAK_ENOMEM;
  if (!p->name && !(p->name = strdup(""))) return TRAK_ENOMEM;
  return rc < 0 ? TRAK_EFORMAT : 0;
}

static int read_session(const trak_pb_field *outer, trak_session_info *s) {
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, outer->data, outer->len);
  int rc;
  while ((rc = trak_pb_decoder_next(&d, &f)) == 1) {
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    switch (f.number) {
    case TRAK_PB_IpcServiceState_Session_id:
      s->id = (uint32_t)f.value;
      break;
    case TRAK_PB_IpcServiceState_Session_uid:
      s->uid = (int32_t)f.value;
      break;
    case TRAK_PB_IpcServiceState_Session_producers:
      s->producers = (uint32_t)f.value;
      break;
    case TRAK_PB_IpcServiceState_Session_bytes_written:
      s->bytes_written = f.value;
      break;
    case TRAK_PB_IpcServiceState_Session_chunks:
      s->chunks = f.value;
      break;
    case TRAK_PB_IpcServiceState_Session_packets_lost:
      s->packets_lost = f.value;
      break;
    default:
      break;
    }
  }
  return rc < 0 ? TRAK_EFORMAT : 0;
}

int trak__service_state_decode(const uint8_t *data, size_t len, trak_service_state *st) {
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, data, len);
  int rc = 0, r = 0;
  while (!r && (rc = trak_pb_decoder_next(&d, &f)) == 1) {
    void *at, *v;
    int len_field = f.wire_type == TRAK_PB_WIRE_LEN;
    if (f.number == TRAK_PB_IpcServiceState_producers && len_field) {
      v = grow(st->producers, &st->n_producers, sizeof *st->producers, &at);
      if (!v) return TRAK_ENOMEM;
      st->producers = v;
      r = read_producer(&f, at);
    } else if (f.number == TRAK_PB_IpcServiceState_sessions && len_field) {
      v = grow(st->sessions, &st->n_sessions, sizeof *st->sessions, &at);
      if (!v) return TRAK_ENOMEM;
      st->sessions = v;
      r = read_session(&f, at);
    } else if (f.number == TRAK_PB_IpcServiceState_truncated) {
      st->truncated = f.value != 0;
    }
  }
  return r ? r : rc < 0 ? TRAK_EFORMAT : 0;
}

/* Waits for the answer on `fd` into rx; returns its length, or -1. */
static long await_answer(int fd, uint8_t *rx) {
  struct pollfd p = {fd, POLLIN, 0};
  for (int waited = 0; waited < ANSWER_TIMEOUT_MS; waited += 50) {
    if (poll(&p, 1, 50) <= 0) continue;
    int got_fd;
    long n = trak__ipc_recv(fd, rx, &got_fd);
    if (got_fd >= 0) close(got_fd);
    if (n == -1 && (errno == EAGAIN || errno == EINTR)) continue;
    return n > 0 ? n : -1;
  }
  return -1;
}

int trak_system_query(const char *socket_path, trak_service_state **out, trak_error *err) {
  trak__system_not_a_producer();
  *out = NULL;
  char path[108];
  if (socket_path)
    snprintf(path, sizeof path, "%s", socket_path);
  else
    trak__ipc_default_path(path, sizeof path);
  int fd = trak__ipc_connect_daemon(path, err);
  if (fd < 0) return fd;
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  trak__ipc_end(&b, trak__ipc_begin(&b, TRAK_PB_IpcMessage_query_service));
  uint8_t *rx = malloc(TRAK__IPC_MAX);
  trak__ipc_msg *m = malloc(sizeof *m);
  trak_service_state *st = calloc(1, sizeof *st);
  int rc = 0;
  long n;
  if (!rx || !m || !st) rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
  /* A failed send is not the end: a daemon that refused us left its reason to read. */
  else if ((void)trak__ipc_send(fd, &b, -1, 0), (n = await_answer(fd, rx)) < 0)
    rc = trak_error_set(err, TRAK_EIO, "%s: the daemon did not answer", path);
  else if (trak__ipc_decode(rx, (size_t)n, m) != 0)
    rc = trak_error_set(err, TRAK_EFORMAT, "%s: not a service state answer", path);
  else if (m->type == TRAK_PB_IpcMessage_status && m->error) /* refused: it says why */
    rc = trak_error_set(err, TRAK_EIO, "%s: %.*s", path, (int)m->error_len, (const char *)m->error);
  else if (m->type != TRAK_PB_IpcMessage_service_state)
    rc = trak_error_set(err, TRAK_EFORMAT, "%s: not a service state answer", path);
  else if ((rc = trak__service_state_decode(m->bytes, m->bytes_len, st)) != 0)
    rc = trak_error_set(err, rc, "%s: the service state does not decode: %s", path,
                        trak_strerror(rc));
  close(fd);
  trak_pb_buf_free(&b);
  free(rx);
  free(m);
  if (rc)
    trak_service_state_free(st);
  else
    *out = st;
  return rc;
}

void trak_service_state_free(trak_service_state *st) {
  if (!st) return;
  for (size_t i = 0; i < st->n_producers; i++) {
    free(st->producers[i].name);
    for (size_t k = 0; st->producers[i].data_sources && st->producers[i].data_sources[k]; k++)
      free(st->producers[i].data_sources[k]);
    free(st->producers[i].data_sources);
  }
  free(st->producers);
  free(st->sessions);
  free(st);
}
