/*
** This file holds the daemon's sessions: a consumer's IpcEnableTracing starts one (a central
** buffer, an unstarted trak_session used only as storage and readout, and every producer that
** fits attached); its buffer is written out to the consumer's file, as it goes for a streaming
** session; its status goes to the consumer; its producers are asked to flush and stop, and it
** ends with its trace_stats packet.
*/
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "system/daemon_state.h"

void trak__daemon_on_enable(int ci, const trak__ipc_msg *m, int out_fd) {
  client *c = &D.c[ci];
  dsession *s = NULL;
  for (int i = 0; i < TRAK_MAX_SESSIONS && !s; i++)
    if (!D.s[i].id) s = &D.s[i];
  const char *fail = out_fd < 0   ? "no output file descriptor"
                     : D.stopping ? "the daemon is stopping"
                     : !s         ? "too many sessions"
                                  : NULL;
  trak_pb_buf central, prod;
  trak_pb_buf_init_heap(&central);
  trak_pb_buf_init_heap(&prod);
  trak_error err = {0};
  uint32_t cap = D.cfg->max_session_kb ? D.cfg->max_session_kb : 262144;
  if (!fail) {
    memset(s, 0, sizeof *s);
    s->stream = trak__config_for_buffer(m->bytes, m->bytes_len, &central);
    trak__config_put_buffer(&central, m->bytes, m->bytes_len, cap, 0);
    trak__config_for_buffer(m->bytes, m->bytes_len, &prod);
    trak__config_put_buffer(&prod, m->bytes, m->bytes_len, cap, 1);
    if (central.error || prod.error ||
        trak_session_new_from_proto(central.start, trak_pb_buf_len(&central), &s->central, &err))
      fail = err.message[0] ? err.message : "out of memory";
  }
  if (fail) {
    trak__daemon_log("consumer %d: cannot start a session: %s", (int)c->pid, fail);
    trak_pb_nested n = trak__ipc_begin(&D.tx, TRAK_PB_IpcMessage_status);
    trak_pb_put_bool(&D.tx, TRAK_PB_IpcStatus_done, 1);
    trak_pb_put_string(&D.tx, TRAK_PB_IpcStatus_error, fail);
    trak__ipc_end(&D.tx, n);
    trak__daemon_send(ci, -1);
    if (out_fd >= 0) close(out_fd);
    trak_pb_buf_free(&central);
    trak_pb_buf_free(&prod);
    return;
  }
  trak_pb_buf_free(&central);
  s->id = ++D.next_session;
  s->out_fd = out_fd;
  s->consumer = ci;
  s->pconfig = trak_pb_buf_detach(&prod, &s->pconfig_len);
  s->uid = c->uid;
  trak__config_periods(m->bytes, m->bytes_len, s->stream, &s->write_period_ms, &s->flush_period_ms);
  s->next_write = trak__daemon_now_ms() + s->write_period_ms;
  s->next_flush = trak__daemon_now_ms() + s->flush_period_ms;
  s->lost_away = D.lost_away; /* what reconnecting producers reported while none ran */
  D.lost_away = 0;
  c->role = C_CONSUMER;
  c->session_id = s->id;
  if (D.cfg->verbose) trak__daemon_log("session %u started by pid %d", s->id, (int)c->pid);
  for (int k = 0; k < MAX_CLIENTS; k++)
    if (D.c[k].fd >= 0 && D.c[k].role == C_PRODUCER) trak__daemon_attach(k, s);
}

/* Writes one batch of whole packets to the session's file. A failed write (disk full) cuts
** the file back to the end of the last whole batch, so it stays a valid trace. */
static int write_batch(const uint8_t *data, size_t len, void *user) {
  dsession *s = user;
  for (size_t done = 0; done < len;) {
    ssize_t n = write(s->out_fd, data + done, len - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      snprintf(s->error, sizeof s->error, "writing the trace: %s",
               n < 0 ? strerror(errno) : "short write");
      trak__daemon_log("session %u: %s; the file keeps the %llu bytes before", s->id, s->error,
                       (unsigned long long)s->bytes_out);
      if (ftruncate(s->out_fd, (off_t)s->bytes_out) != 0) { /* not a regular file */
      }
      return TRAK_EIO;
    }
    done += (size_t)n;
  }
  s->bytes_out += len;
  return 0;
}

/* Writes what the central buffer holds to the session's file, 4 MiB at a time: the daemon
** never holds a second copy of a session's buffer. */
void trak__daemon_write_out(dsession *s) {
  if (s->error[0]) return;
  trak__drain_sink to_file = {write_batch, s, 4u << 20};
  pthread_mutex_lock(&s->central->lock);
  trak__session_drain_to(s->central, &to_file);
  pthread_mutex_unlock(&s->central->lock);
}

uint32_t trak__daemon_producers_in(const dsession *s) {
  uint32_t n = 0;
  for (int k = 0; k < MAX_CLIENTS; k++)
    for (int j = 0; D.c[k].fd >= 0 && j < TRAK_MAX_SESSIONS; j++)
      n += D.c[k].at[j].session_id == s->id;
  return n;
}

/* Every packet the session lost: in producers (also while no daemon was there), in the
** central buffer, withheld at readout. */
uint64_t trak__daemon_packets_lost(dsession *s) {
  trak_session_stats st;
  trak_session_get_stats(s->central, &st);
  return st.packets_lost + st.packets_overwritten + st.packets_skipped + s->producer_lost +
         s->lost_away;
}

void trak__daemon_send_status(dsession *s, int done) {
  if (s->consumer < 0) return;
  trak_pb_nested n = trak__ipc_begin(&D.tx, TRAK_PB_IpcMessage_status);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcStatus_producers, trak__daemon_producers_in(s));
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcStatus_bytes_written, s->bytes_out);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcStatus_chunks, s->chunks);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcStatus_packets_lost, trak__daemon_packets_lost(s));
  if (done) trak_pb_put_bool(&D.tx, TRAK_PB_IpcStatus_done, 1);
  if (s->error[0]) trak_pb_put_string(&D.tx, TRAK_PB_IpcStatus_error, s->error);
  trak__ipc_end(&D.tx, n);
  trak__daemon_send(s->consumer, -1);
}

/* Sends IpcFlushSession to every producer in `s` (and, when `then_stop`, IpcStopSession). */
void trak__daemon_signal_producers(dsession *s, int then_stop) {
  for (int k = 0; k < MAX_CLIENTS; k++)
    for (int j = 0; D.c[k].fd >= 0 && j < TRAK_MAX_SESSIONS; j++)
      if (D.c[k].at[j].session_id == s->id) {
        trak__ipc_put_session(&D.tx, TRAK_PB_IpcMessage_flush_session, s->id);
        if (trak__daemon_send(k, -1) != 0 || !then_stop) break;
        trak__ipc_put_session(&D.tx, TRAK_PB_IpcMessage_stop_session, s->id);
        if (trak__daemon_send(k, -1) != 0) break;
      }
}

/* Asks every producer in `s` to flush and stop; the session ends when all answered or after a
** grace. */
void trak__daemon_end_session(dsession *s) {
  if (s->stopping) return;
  s->stopping = 1;
  s->stop_deadline = trak__daemon_now_ms() + STOP_GRACE_MS;
  /* Flush first, as Perfetto does: data sources' flush callbacks run before the stop. */
  trak__daemon_signal_producers(s, 1);
}

/* Ends the file with the session's trace_stats packet: buffer figures and every loss. */
static void write_trace_stats(dsession *s, uint32_t connected) {
  trak__stats_extra extra = {s->producer_lost + s->lost_away, connected, s->producers_seen,
                             s->invalid_chunks};
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  trak__session_put_trace_stats(s->central, &b, &extra);
  if (!s->error[0] && !b.error) write_batch(b.start, trak_pb_buf_len(&b), s);
  trak_pb_buf_free(&b);
}

void trak__daemon_finish_session(dsession *s) {
  uint32_t connected = 0; /* service-wide, as Perfetto counts it */
  for (int k = 0; k < MAX_CLIENTS; k++)
    connected += D.c[k].fd >= 0 && D.c[k].role == C_PRODUCER;
  for (int k = 0; k < MAX_CLIENTS; k++)
    for (int j = 0; D.c[k].fd >= 0 && j < TRAK_MAX_SESSIONS; j++)
      if (D.c[k].at[j].session_id == s->id) {
        trak__daemon_credit(k);
        trak__attach_free(&D.c[k].at[j]);
      }
  trak__daemon_write_out(s);
  write_trace_stats(s, connected);
  trak__daemon_send_status(s, 1);
  if (D.cfg->verbose)
    trak__daemon_log("session %u ended: %llu chunks, %llu bytes", s->id,
                     (unsigned long long)s->chunks, (unsigned long long)s->bytes_out);
  close(s->out_fd);
  trak_session_free(s->central);
  free(s->pconfig);
  memset(s, 0, sizeof *s);
}
