/*
** The parts of a recorder's TraceConfig the daemon acts on itself (daemon.c): the buffer sizes it
** grants, the write and flush periods, and the config it passes on to the central buffer and to
** producers without those fields.
*/
#include "system/daemon.h"

int trak__config_for_buffer(const uint8_t *cfg, size_t len, trak_pb_buf *out) {
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, cfg, len);
  const uint8_t *at = d.p;
  int stream = 0;
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number == TRAK_PB_TraceConfig_write_into_file) stream = f.value != 0;
    if (f.number != TRAK_PB_TraceConfig_buffers &&
        f.number != TRAK_PB_TraceConfig_write_into_file &&
        f.number != TRAK_PB_TraceConfig_output_path && f.number != TRAK_PB_TraceConfig_duration_ms)
      trak_pb_put_raw(out, at, (size_t)(d.p - at));
    at = d.p;
  }
  return stream;
}

void trak__config_periods(const uint8_t *cfg, size_t len, int stream, uint32_t *write_ms,
                          uint32_t *flush_ms) {
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, cfg, len);
  *write_ms = 1000;
  *flush_ms = 0;
  int flush_set = 0;
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    if (f.number == TRAK_PB_TraceConfig_file_write_period_ms && f.value)
      *write_ms = f.value < 100 ? 100 : (uint32_t)f.value;
    if (f.number == TRAK_PB_TraceConfig_flush_period_ms) {
      *flush_ms = f.value && f.value < 50 ? 50 : (uint32_t)f.value;
      flush_set = 1;
    }
  }
  if (stream && !flush_set) *flush_ms = *write_ms;
}

void trak__config_put_buffer(trak_pb_buf *b, const uint8_t *cfg, size_t len, uint32_t cap_kb,
                             int for_producer) {
  uint32_t size_kb = 0, policy = TRAK_PB_TraceConfig_BufferConfig_RING_BUFFER;
  trak_pb_decoder d, sub;
  trak_pb_field f, g;
  trak_pb_decoder_init(&d, cfg, len);
  while (trak_pb_decoder_next(&d, &f) == 1)
    if (f.number == TRAK_PB_TraceConfig_buffers && trak_pb_decoder_init_nested(&sub, &d, &f) == 0)
      while (trak_pb_decoder_next(&sub, &g) == 1) {
        if (g.number == TRAK_PB_TraceConfig_BufferConfig_size_kb) size_kb = (uint32_t)g.value;
        if (g.number == TRAK_PB_TraceConfig_BufferConfig_fill_policy) policy = (uint32_t)g.value;
      }
  if (!size_kb || size_kb > cap_kb) size_kb = cap_kb;
  if (for_producer) size_kb = 64; /* the producer's real buffer is the memfd */
  trak_pb_nested n = trak_pb_begin_nested(b, TRAK_PB_TraceConfig_buffers);
  trak_pb_put_varint(b, TRAK_PB_TraceConfig_BufferConfig_size_kb, size_kb);
  trak_pb_put_varint(b, TRAK_PB_TraceConfig_BufferConfig_fill_policy, policy);
  trak_pb_end_nested(b, n);
}
