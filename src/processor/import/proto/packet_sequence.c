/*
** This file holds what a packet does to its sequence's state besides its flags: the
** TracePacketDefaults, interned data, clock snapshots, the service's trace_stats and a legacy
** thread_descriptor's reference values, applied before its payload; and the reports of packets
** a sequence cannot take (needing incremental state it lacks, a track event without a
** sequence id), logged as Perfetto logs them.
*/
#include <stdint.h>

#include "processor/import/proto/packet.h"
#include "processor/tables/arg_value.h"

/* Appends a repeated varint, packed or not. Returns 0, or a negative TRAK_E* code when a
** packed element does not decode (the values before it kept). */
static int read_repeated_u64(const trak_pb_field *f, void *vec_ptr) {
  TRAK_VEC(uint64_t) *vec = vec_ptr;
  int rc = 0;
  if (f->wire_type == TRAK_PB_WIRE_VARINT) {
    trak_vec_push(*vec, f->value);
  } else if (f->wire_type == TRAK_PB_WIRE_LEN) {
    trak_pb_packed it;
    uint64_t v;
    trak_pb_packed_init(&it, f, TRAK_PB_WIRE_VARINT);
    while ((rc = trak_pb_packed_next(&it, &v)) > 0)
      trak_vec_push(*vec, v);
  }
  return rc;
}

static void packet_defaults(trak_importer *imp, trak_sequence *seq, const trak_span *span) {
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
      int bad = 0;
      while (trak_pb_decoder_next(&sub, &g) > 0) {
        if (g.number == TRAK_PB_TrackEventDefaults_track_uuid &&
            g.wire_type == TRAK_PB_WIRE_VARINT) {
          seq->default_track_uuid = g.value;
          seq->has_default_track = 1;
        } else if (g.number == TRAK_PB_TrackEventDefaults_extra_counter_track_uuids) {
          bad |= read_repeated_u64(&g, &seq->default_extra_uuids) < 0;
        } else if (g.number == TRAK_PB_TrackEventDefaults_extra_double_counter_track_uuids) {
          bad |= read_repeated_u64(&g, &seq->default_extra_double_uuids) < 0;
        }
      }
      if (bad)
        trak__report(imp, TRAK_STAT_PACKET_MALFORMED,
                     "a packed repeated field of %s does not decode; the values before the bad one "
                     "were kept",
                     "track_event_defaults");
    } else if (f.number == TRAK_PB_TracePacketDefaults_perf_sample_defaults &&
               f.wire_type == TRAK_PB_WIRE_LEN) { /* decoded by perf_samples.c when used */
      seq->perf_defaults.n = 0;
      for (size_t i = 0; i < f.len; i++)
        trak_vec_push(seq->perf_defaults, f.data[i]);
      seq->has_perf_defaults = 1;
    }
  }
}

/* The byte offset of the current packet's payload, which follows the (outer) packet's one-byte
** tag and its length's varint: where Perfetto's import logs place a packet. */
static int64_t payload_offset(const trak_importer *imp) {
  int64_t offset = (int64_t)imp->packet_offset + 2;
  for (size_t n = imp->packet_len; n >= 0x80; n >>= 7)
    offset++;
  return offset;
}

/* A packet needing incremental state its sequence lacks: skipped, counted and logged with its
** packet_sequence_id, as Perfetto's reader logs it. */
void trak__packet_skipped_needing_state(trak_importer *imp, trak_sequence *seq) {
  seq->needs_state_skipped++;
  trak__report(imp, TRAK_STAT_INCREMENTAL_INVALID,
               "packet needs incremental state, but sequence %u has %s", seq->id,
               seq->seen_clear ? "lost it (packets were dropped)" : "not cleared it yet");
  trak_tables *t = imp->tables;
  uint32_t set = (uint32_t)t->args.n;
  uint32_t key = trak__strpool_intern(&t->strings, "packet_sequence_id", 18);
  uint32_t row = trak__arg_add(t, set, key, key, TRAK_ARG_UINT);
  trak__arg_set_int(t, row, seq->id);
  trak_vec_push(imp->import_logs,
                ((trak_import_log){INT64_MIN, TRAK_STAT_INCREMENTAL_INVALID,
                                   trak__args_share(imp, set), payload_offset(imp)}));
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
      seq->last_event_ns = trak__sat_mul(trak_pb_as_int64(&f), 1000);
    else if (f.number == TRAK_PB_ThreadDescriptor_reference_thread_time_us)
      seq->thread_time_ns = trak__sat_mul(trak_pb_as_int64(&f), 1000);
    else if (f.number == TRAK_PB_ThreadDescriptor_reference_thread_instruction_count)
      seq->thread_ic = trak_pb_as_int64(&f);
  }
}

/* A track event in a packet without a trusted_packet_sequence_id: its interned data and
** defaults are unknowable, so it is dropped, counted and logged with the byte offset of its
** packet's payload, as Perfetto's tokenizer does. */
void trak__packet_missing_sequence_id(trak_importer *imp) {
  trak__report(imp, TRAK_STAT_MISSING_SEQUENCE_ID,
               "track_event in a packet without trusted_packet_sequence_id; dropped");
  trak_vec_push(imp->import_logs, ((trak_import_log){INT64_MIN, TRAK_STAT_MISSING_SEQUENCE_ID,
                                                     TRAK_NULL_U32, payload_offset(imp)}));
}

void trak__packet_sequence_state(trak_importer *imp, trak_sequence *seq, const packet_fields *pf) {
  const trak_span *sp = pf->span;
  if (HAS(pf, P_DEFAULTS)) packet_defaults(imp, seq, &sp[P_DEFAULTS]);
  if (HAS(pf, P_INTERNED))
    trak__interned_data_add(imp, seq, sp[P_INTERNED].data, sp[P_INTERNED].len);
  if (HAS(pf, P_SNAPSHOT))
    trak__clock_snapshot_add(imp, seq, sp[P_SNAPSHOT].data, sp[P_SNAPSHOT].len);
  if (HAS(pf, P_TRACE_STATS))
    trak__trace_stats_add(imp, sp[P_TRACE_STATS].data, sp[P_TRACE_STATS].len);
  if (HAS(pf, P_THREAD) && !seq->state_valid) {
    trak__report(imp, TRAK_STAT_THREAD_DESCRIPTOR_SKIPPED,
                 "thread_descriptor on sequence %u before it cleared its incremental state; "
                 "skipped, as Perfetto skips it",
                 seq->id);
  } else if (HAS(pf, P_THREAD)) {
    uint32_t utid = trak__thread_descriptor_add(imp, sp[P_THREAD].data, sp[P_THREAD].len);
    seq->thread_track = trak__legacy_thread_track(imp, utid);
    thread_references(imp, seq, &sp[P_THREAD]);
    seq->timestamps_valid = 1;
  }
}
