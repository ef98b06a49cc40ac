/*
** This file holds the service state the daemon gives `trak status` (IpcQueryService): the
** producers and sessions the asker may see, as many as one datagram holds.
*/
#include <stdint.h>

#include "system/daemon_state.h"

static void put_producer(const client *p) {
  uint32_t sessions = 0;
  for (int j = 0; j < TRAK_MAX_SESSIONS; j++)
    sessions += p->at[j].session_id != 0;
  trak_pb_nested n = trak_pb_begin_nested(&D.tx, TRAK_PB_IpcServiceState_producers);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Producer_pid, (uint64_t)(int64_t)p->pid);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Producer_uid, (uint64_t)(int64_t)p->uid);
  trak_pb_put_string(&D.tx, TRAK_PB_IpcServiceState_Producer_name, p->name);
  for (size_t i = 0; p->sources && p->sources[i]; i++)
    trak_pb_put_string(&D.tx, TRAK_PB_IpcServiceState_Producer_data_sources, p->sources[i]);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Producer_sessions, sessions);
  trak_pb_end_nested(&D.tx, n);
}

static void put_session(dsession *s) {
  trak_pb_nested n = trak_pb_begin_nested(&D.tx, TRAK_PB_IpcServiceState_sessions);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Session_id, s->id);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Session_uid, (uint64_t)(int64_t)s->uid);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Session_producers,
                     trak__daemon_producers_in(s));
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Session_bytes_written, s->bytes_out);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Session_chunks, s->chunks);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Session_packets_lost,
                     trak__daemon_packets_lost(s));
  trak_pb_end_nested(&D.tx, n);
}

/* Keeps the entry written since `mark` if the message still fits one datagram; else takes it
** back. Returns 0 when it did not fit. */
static int fits(uint8_t *mark) {
  if (!D.tx.error && trak_pb_buf_len(&D.tx) <= TRAK__IPC_MAX - 64) return 1;
  D.tx.p = mark;
  D.tx.error = 0;
  return 0;
}

/* IpcQueryService: the producers and sessions the asker may see (its uid's; root: all). */
void trak__daemon_on_query(int ci) {
  int32_t asker = D.c[ci].uid;
  int full = 0;
  trak_pb_nested n = trak__ipc_begin(&D.tx, TRAK_PB_IpcMessage_service_state);
  for (int k = 0; k < MAX_CLIENTS && !full; k++) {
    const client *p = &D.c[k];
    if (p->fd < 0 || p->role != C_PRODUCER || (asker != 0 && p->uid != asker)) continue;
    uint8_t *mark = D.tx.p;
    put_producer(p);
    full = !fits(mark);
  }
  for (int i = 0; i < TRAK_MAX_SESSIONS && !full; i++) {
    if (!D.s[i].id || (asker != 0 && D.s[i].uid != asker)) continue;
    uint8_t *mark = D.tx.p;
    put_session(&D.s[i]);
    full = !fits(mark);
  }
  if (full) trak_pb_put_bool(&D.tx, TRAK_PB_IpcServiceState_truncated, 1);
  trak__ipc_end(&D.tx, n);
  trak__daemon_send(ci, -1);
}
