/*
** libFuzzer target for the daemon's message decoder (trak__ipc_decode in
** src/system/ipc.c), the first code to read what a producer or consumer sends. Any input
** must decode or be rejected without reading outside it; what decodes must keep every
** pointer inside the input and every count in bounds, and a decoded chunk list must survive
** re-encoding unchanged. A service state answer (what `trak status` reads) must decode or be
** rejected without leaking or crashing.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "system/system.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static trak__ipc_msg m, again;
  if (trak__ipc_decode(data, size, &m) != 0) return 0;
  if (m.bytes && (m.bytes < data || m.bytes + m.bytes_len > data + size)) abort();
  if (m.error && (m.error < data || m.error + m.error_len > data + size)) abort();
  if (m.nchunks > TRAK__IPC_MAX_CHUNKS || m.nnames > TRAK__IPC_MAX_NAMES) abort();
  for (uint32_t i = 0; i < m.nnames; i++)
    if (m.names[i] < data || m.names[i] + m.name_lens[i] > data + size) abort();
  if (m.type == TRAK_PB_IpcMessage_service_state) { /* what `trak status` reads */
    trak_service_state *st = calloc(1, sizeof *st);
    if (!st) return 0;
    if (trak__service_state_decode(m.bytes, m.bytes_len, st) == 0)
      for (size_t i = 0; i < st->n_producers; i++)
        if (!st->producers[i].name) abort();
    trak_service_state_free(st);
  }
  if (m.type == TRAK_PB_IpcMessage_commit_chunks || m.type == TRAK_PB_IpcMessage_release_chunks) {
    trak_pb_buf b;
    trak_pb_buf_init_heap(&b);
    trak__ipc_put_chunks(&b, m.type, m.session_id, m.chunks, m.nchunks, m.packets_lost, m.flushed);
    if (!b.error && trak_pb_buf_len(&b) <= TRAK__IPC_MAX) {
      if (trak__ipc_decode(b.start, trak_pb_buf_len(&b), &again) != 0) abort();
      if (again.type != m.type || again.session_id != m.session_id || again.nchunks != m.nchunks ||
          memcmp(again.chunks, m.chunks, m.nchunks * sizeof *m.chunks) != 0 ||
          (m.type == TRAK_PB_IpcMessage_commit_chunks && again.flushed != m.flushed))
        abort();
    }
    trak_pb_buf_free(&b);
  }
  return 0;
}
