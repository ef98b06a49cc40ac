/*
** This file holds the tokenization of one TracePacket: sequence bookkeeping (incremental state
** cleared / needed / lost), defaults, interned data, clock snapshots, descriptors, zlib
** compressed_packets, the service's trace_stats, and hand-off of the TrackEvent with its
** timestamp in the trace clock.
*/
#include <string.h>

#include "processor/import/import.h"
#include "processor/util/inflate.h"

/* The fields of a packet that need ordering: state changes apply before the payload. */
typedef struct packet_fields {
  uint64_t timestamp;
  uint32_t clock_id, seq_id, flags;
  uint8_t has_ts, has_clock, cleared, dropped, first_on_seq;
  trak_span track_event, interned, defaults, descriptor, snapshot, thread, compressed;
  trak_span trace_stats;
  uint8_t has_zstd;
} packet_fields;

static void read_repeated_u64(const trak_pb_field *f, void *vec_ptr) {
  TRAK_VEC(uint64_t) *vec = vec_ptr;
  if (f->wire_type == TRAK_PB_WIRE_VARINT) {
    trak_vec_push(*vec, f->value);
  } else if (f->wire_type == TRAK_PB_WIRE_LEN) {
    trak_pb_packed it;
    uint64_t v;
    trak_pb_packed_init(&it, f, TRAK_PB_WIRE_VARINT);
    while (trak_pb_packed_next(&it, &v) > 0)
      trak_vec_push(*vec, v);
  }
}

static void packet_defaults(const trak_importer *imp, trak_sequence *seq, const trak_span *span) {
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak__dec_init(imp, &dec, span->data, span->len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_TracePacketDefaults_timestamp_clock_id &&
        f.wire_type == TRAK_PB_WIRE_VARINT) {
      seq->default_clock = (uint32_t)f.value;
    } else if (f.number == TRAK_PB_TracePacketDefaults_track_event_defaults &&
               f.wire_type == TRAK_PB_WIRE_LEN) {
      seq->default_extra_uuids.n = seq->default_extra_double_uuids.n = 0;
      trak__dec_init(imp, &sub, f.data, f.len);
      while (trak_pb_decoder_next(&sub, &g) > 0) {
        if (g.number == TRAK_PB_TrackEventDefaults_track_uuid &&
            g.wire_type == TRAK_PB_WIRE_VARINT) {
          seq->default_track_uuid = g.value;
          seq->has_default_track = 1;
        } else if (g.number == TRAK_PB_TrackEventDefaults_extra_counter_track_uuids) {
          read_repeated_u64(&g, &seq->default_extra_uuids);
        } else if (g.number == TRAK_PB_TrackEventDefaults_extra_double_counter_track_uuids) {
          read_repeated_u64(&g, &seq->default_extra_double_uuids);
        }
      }
    }
  }
}

/* Tokenizes the packets of a zlib-inflated Trace fragment, counting them as packets. */
static void compressed_packets(trak_importer *imp, const trak_span *span) {
  uint8_t *plain;
  size_t plain_len;
  trak_error err;
  if (trak__gunzip(span->data, span->len, 1, &plain, &plain_len, &err)) {
    trak__report(imp, TRAK_STAT_COMPRESSED_ERRORS, "compressed_packets: %s", err.message);
    return;
  }
  trak_pb_decoder dec;
  trak_pb_field f;
  const uint8_t *base = imp->base, *limit = imp->limit;
  imp->base = plain, imp->limit = plain + plain_len;
  trak__dec_init(imp, &dec, plain, plain_len);
  int rc;
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    if (f.number != TRAK_PB_Trace_packet || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    imp->packet_index++;
    trak__packet_tokenize(imp, f.data, f.len);
  }
  if (rc < 0)
    trak__report(imp, TRAK_STAT_COMPRESSED_ERRORS,
                 "compressed_packets: malformed packet at byte %zu of the inflated data",
                 dec.error_offset);
  imp->base = base, imp->limit = limit;
  free(plain);
}

static int decode_fields(const trak_importer *imp, const uint8_t *data, size_t len,
                         packet_fields *pf) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  int rc;
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    trak_span span = {f.data, f.len};
    int is_len = f.wire_type == TRAK_PB_WIRE_LEN;
    switch (f.number) {
    case TRAK_PB_TracePacket_timestamp:
      pf->timestamp = f.value, pf->has_ts = 1;
      break;
    case TRAK_PB_TracePacket_timestamp_clock_id:
      pf->clock_id = (uint32_t)f.value, pf->has_clock = 1;
      break;
    case TRAK_PB_TracePacket_trusted_packet_sequence_id:
      pf->seq_id = (uint32_t)f.value;
      break;
    case TRAK_PB_TracePacket_sequence_flags:
      pf->flags = (uint32_t)f.value;
      break;
    case TRAK_PB_TracePacket_incremental_state_cleared:
      pf->cleared = f.value != 0;
      break;
    case TRAK_PB_TracePacket_previous_packet_dropped:
      pf->dropped = f.value != 0;
      break;
    case TRAK_PB_TracePacket_first_packet_on_sequence:
      pf->first_on_seq = f.value != 0;
      break;
    case TRAK_PB_TracePacket_track_event:
      if (is_len) pf->track_event = span;
      break;
    case TRAK_PB_TracePacket_interned_data:
      if (is_len) pf->interned = span;
      break;
    case TRAK_PB_TracePacket_trace_packet_defaults:
      if (is_len) pf->defaults = span;
      break;
    case TRAK_PB_TracePacket_track_descriptor:
      if (is_len) pf->descriptor = span;
      break;
    case TRAK_PB_TracePacket_clock_snapshot:
      if (is_len) pf->snapshot = span;
      break;
    case TRAK_PB_TracePacket_thread_descriptor:
      if (is_len) pf->thread = span;
      break;
    case TRAK_PB_TracePacket_trace_stats:
      if (is_len) pf->trace_stats = span;
      break;
    case TRAK_PB_TracePacket_compressed_packets:
      if (is_len) pf->compressed = span;
      break;
    case TRAK_PB_TracePacket_zstd_compressed_packets:
      pf->has_zstd = 1;
      break;
    default:
      break;
    }
  }
  return rc < 0 ? (int)dec.error_offset + 1 : 0;
}

/* Applies the sequence flags. Returns 0 if the packet must be skipped. */
static int sequence_state(trak_importer *imp, trak_sequence *seq, const packet_fields *pf) {
  if (pf->dropped && !pf->first_on_seq) {
    trak__report(imp, TRAK_STAT_PACKET_LOSS, "sequence %u lost packets before this one", seq->id);
    seq->state_valid = 0;
    seq->timestamps_valid = 0;
  }
  if (pf->cleared || (pf->flags & TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED))
    trak__sequence_clear(seq);
  if ((pf->flags & TRAK_PB_TracePacket_SEQ_NEEDS_INCREMENTAL_STATE) && !seq->state_valid) {
    trak__report(imp, TRAK_STAT_INCREMENTAL_INVALID,
                 "packet needs incremental state, but sequence %u has %s", seq->id,
                 seq->seen_clear ? "lost it (packets were dropped)" : "not cleared it yet");
    return 0;
  }
  return 1;
}

/* A legacy thread_descriptor packet's reference values: the bases of the sequence's
** timestamp_delta_us, thread_time_delta_us and thread_instruction_count_delta. */
__attribute__((noinline, cold)) static void
thread_references(trak_importer *imp, trak_sequence *seq, const trak_span *thread) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, thread->data, thread->len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    if (f.number == TRAK_PB_ThreadDescriptor_reference_timestamp_us)
      seq->last_event_us = trak_pb_as_int64(&f);
    else if (f.number == TRAK_PB_ThreadDescriptor_reference_thread_time_us)
      seq->thread_time_us = trak_pb_as_int64(&f);
    else if (f.number == TRAK_PB_ThreadDescriptor_reference_thread_instruction_count)
      seq->thread_ic = trak_pb_as_int64(&f);
  }
}

void trak__packet_tokenize(trak_importer *imp, const uint8_t *data, size_t len) {
  packet_fields pf;
  memset(&pf, 0, sizeof pf);
  if (decode_fields(imp, data, len, &pf))
    trak__report(imp, TRAK_STAT_PACKET_MALFORMED,
                 "packet fields do not decode; kept the fields before the error");
  if (pf.compressed.data) compressed_packets(imp, &pf.compressed);
  if (pf.has_zstd)
    trak__report(imp, TRAK_STAT_COMPRESSED_UNSUPPORTED, "zstd_compressed_packets skipped");

  trak_sequence *seq = trak__sequence_get(imp, pf.seq_id);
  if (pf.first_on_seq) seq->first_packet_flag = 1;
  if (!sequence_state(imp, seq, &pf)) return;
  if (pf.defaults.data) packet_defaults(imp, seq, &pf.defaults);
  if (pf.interned.data) trak__interned_data_add(imp, seq, pf.interned.data, pf.interned.len);
  if (pf.snapshot.data) trak__clock_snapshot_add(imp, seq, pf.snapshot.data, pf.snapshot.len);
  if (pf.descriptor.data)
    trak__track_descriptor_add(imp, seq, pf.descriptor.data, pf.descriptor.len);
  if (pf.trace_stats.data) trak__trace_stats_add(imp, pf.trace_stats.data, pf.trace_stats.len);
  if (pf.thread.data && !seq->state_valid) {
    trak__report(imp, TRAK_STAT_THREAD_DESCRIPTOR_SKIPPED,
                 "thread_descriptor on sequence %u before it cleared its incremental state; "
                 "skipped, as Perfetto skips it",
                 seq->id);
  } else if (pf.thread.data) {
    uint32_t utid = trak__thread_descriptor_add(imp, pf.thread.data, pf.thread.len);
    seq->thread_track = trak__legacy_thread_track(imp, utid);
    thread_references(imp, seq, &pf.thread);
    seq->timestamps_valid = 1;
  }
  /* Every timestamped packet converts, not only events: an incremental clock advances with
  ** each packet of its sequence (SDKs give descriptors timestamps too). */
  trak_packet_ctx ctx = {seq, 0, 0};
  if (pf.has_ts) {
    uint32_t clock = pf.has_clock         ? pf.clock_id
                     : seq->default_clock ? seq->default_clock
                                          : TRAK_PB_BUILTIN_CLOCK_BOOTTIME;
    if (trak__clock_convert(imp, seq, clock, (int64_t)pf.timestamp, &ctx.ts)) return;
    ctx.has_ts = 1;
  }
  if (pf.track_event.data)
    trak__track_event_tokenize(imp, &ctx, pf.track_event.data, pf.track_event.len);
}
