/*
** The trace_stats packet that ends a trace: the session's buffer figures and losses, written
** as Perfetto's tracing service writes TracePacket.trace_stats, so that what was lost is
** visible inside the trace (a trace processor turns it into traced_* rows of its stats table).
** session.c appends it once per in-process session; the system daemon appends it with the
** figures only it knows (producers, producer-side losses, rejected chunks).
*/
#include "sdk/backend.h"

/* The session's figures as TraceStats.BufferStats. Every loss trak counts becomes a lost
** packet in trace_writer_packet_loss: the counters are disjoint (a packet is lost by its
** writer, or overwritten in the ring, or withheld at readout, or lost by a producer), so
** their sum is the number of packets written that the trace does not hold. */
static void put_buffer_stats(trak_pb_buf *b, const trak_session *s, const trak_session_stats *st,
                             uint64_t producer_lost) {
  trak_pb_nested n = trak_pb_begin_nested_short(b, TRAK_PB_TraceStats_buffer_stats);
  trak_pb_put_varint(b, TRAK_PB_TraceStats_BufferStats_buffer_size,
                     (uint64_t)s->nchunks * s->chunk_size);
  trak_pb_put_varint(b, TRAK_PB_TraceStats_BufferStats_bytes_written, st->bytes_written);
  trak_pb_put_varint(b, TRAK_PB_TraceStats_BufferStats_bytes_read, st->bytes_read);
  trak_pb_put_varint(b, TRAK_PB_TraceStats_BufferStats_chunks_written, st->chunks_written);
  trak_pb_put_varint(b, TRAK_PB_TraceStats_BufferStats_chunks_overwritten, st->chunks_overwritten);
  trak_pb_put_varint(b, TRAK_PB_TraceStats_BufferStats_chunks_discarded, st->chunks_discarded);
  trak_pb_put_varint(b, TRAK_PB_TraceStats_BufferStats_trace_writer_packet_loss,
                     st->packets_lost + st->packets_overwritten + st->packets_skipped +
                         producer_lost);
  trak_pb_end_nested_short(b, n);
}

void trak__session_put_trace_stats(trak_session *s, trak_pb_buf *out,
                                   const trak__stats_extra *extra) {
  /* In process, the process itself is the one producer. */
  static const trak__stats_extra in_process = {0, 1, 1, 0};
  if (!extra) extra = &in_process;
  trak_session_stats st;
  trak_session_get_stats(s, &st);
  trak_pb_nested pkt = trak_pb_begin_nested_short(out, TRAK_PB_Trace_packet);
  trak_pb_put_varint(out, TRAK_PB_TracePacket_timestamp, trak__boottime());
  trak_pb_put_varint(out, TRAK_PB_TracePacket_timestamp_clock_id, TRAK_PB_BUILTIN_CLOCK_BOOTTIME);
  trak_pb_nested ts = trak_pb_begin_nested_short(out, TRAK_PB_TracePacket_trace_stats);
  put_buffer_stats(out, s, &st, extra->producer_packets_lost);
  trak_pb_put_varint(out, TRAK_PB_TraceStats_producers_connected, extra->producers_connected);
  trak_pb_put_varint(out, TRAK_PB_TraceStats_producers_seen, extra->producers_seen);
  trak_pb_put_varint(out, TRAK_PB_TraceStats_chunks_discarded, extra->invalid_chunks);
  trak_pb_end_nested_short(out, ts);
  trak_pb_put_varint(out, TRAK_PB_TracePacket_trusted_packet_sequence_id, TRAK__SERVICE_SEQ_ID);
  trak_pb_end_nested_short(out, pkt);
}
