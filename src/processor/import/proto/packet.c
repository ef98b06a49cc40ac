/*
** This file holds the tokenization of one TracePacket: sequence bookkeeping (incremental state
** cleared / needed / lost), defaults, interned data, clock snapshots, descriptors, zlib
** compressed_packets, the service's trace_stats, and hand-off of the TrackEvent with its
** timestamp in the trace clock.
*/
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/callstacks.h"
#include "processor/import/ftrace/ftrace.h"
#include "processor/import/proto/proto.h"
#include "processor/import/proto/te_predecode.h"
#include "processor/util/inflate.h"
#include "util/limits.h"

/* The sub-messages of a packet that packet_body reads: indexes into packet_fields.span. */
enum packet_span {
  P_TRACK_EVENT,
  P_INTERNED,
  P_DEFAULTS,
  P_DESCRIPTOR,
  P_SNAPSHOT,
  P_THREAD,
  P_COMPRESSED,
  P_TRACE_STATS,
  P_PROCESS_STATS,
  P_META, /* a rare payload (rare_packet); meta_field says which */
  P_COUNT
};

typedef trak_packet_fields packet_fields;
_Static_assert(P_COUNT == TRAK_PACKET_SPANS, "proto.h sizes trak_packet_fields.span");

#define HAS(pf, p) ((pf)->present & 1u << (p))

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

/* The TracePacket fields below 128 that rare_packet dispatches, as a bit set (and
** concurrent_session_event, 134, interrupt_info, 130, and journald_event, 132, which
** unhandled_fields() finds). */
#define META_BIT(n) (1ull << ((n)&63))
#define META_WORD(w, n) ((n) >> 6 == (w) ? META_BIT(n) : 0)
#define META_FIELDS(w)                                                                             \
  (META_WORD(w, TRAK_PB_TracePacket_trace_config) | META_WORD(w, TRAK_PB_TracePacket_trace_uuid) | \
   META_WORD(w, TRAK_PB_TracePacket_system_info) | META_WORD(w, TRAK_PB_TracePacket_cpu_info) |    \
   META_WORD(w, TRAK_PB_TracePacket_service_event) | META_WORD(w, TRAK_PB_TracePacket_trigger) |   \
   META_WORD(w, TRAK_PB_TracePacket_clone_snapshot_trigger) |                                      \
   META_WORD(w, TRAK_PB_TracePacket_chrome_trigger) |                                              \
   META_WORD(w, TRAK_PB_TracePacket_chrome_metadata) |                                             \
   META_WORD(w, TRAK_PB_TracePacket_chrome_events) |                                               \
   META_WORD(w, TRAK_PB_TracePacket_trace_attributes) |                                            \
   META_WORD(w, TRAK_PB_TracePacket_track_event_range_of_interest) |                               \
   META_WORD(w, TRAK_PB_TracePacket_ftrace_events) |                                               \
   META_WORD(w, TRAK_PB_TracePacket_ftrace_stats) |                                                \
   META_WORD(w, TRAK_PB_TracePacket_process_tree) | META_WORD(w, TRAK_PB_TracePacket_sys_stats) |  \
   META_WORD(w, TRAK_PB_TracePacket_generic_kernel_task_state_event) |                             \
   META_WORD(w, TRAK_PB_TracePacket_generic_kernel_cpu_freq_event) |                               \
   META_WORD(w, TRAK_PB_TracePacket_generic_kernel_task_rename_event) |                            \
   META_WORD(w, TRAK_PB_TracePacket_generic_kernel_process_tree) |                                 \
   META_WORD(w, TRAK_PB_TracePacket_battery) |                                                     \
   META_WORD(w, TRAK_PB_TracePacket_streaming_profile_packet) |                                    \
   META_WORD(w, TRAK_PB_TracePacket_profile_packet) |                                              \
   META_WORD(w, TRAK_PB_TracePacket_deobfuscation_mapping) |                                       \
   META_WORD(w, TRAK_PB_TracePacket_perf_sample) | META_WORD(w, TRAK_PB_TracePacket_power_rails) | \
   META_WORD(w, TRAK_PB_TracePacket_android_energy_estimation_breakdown) |                         \
   META_WORD(w, TRAK_PB_TracePacket_entity_state_residency) |                                      \
   META_WORD(w, TRAK_PB_TracePacket_android_system_property) |                                     \
   META_WORD(w, TRAK_PB_TracePacket_initial_display_state) |                                       \
   META_WORD(w, TRAK_PB_TracePacket_packages_list) |                                               \
   META_WORD(w, TRAK_PB_TracePacket_gpu_counter_event) |                                           \
   META_WORD(w, TRAK_PB_TracePacket_gpu_render_stage_event) |                                      \
   META_WORD(w, TRAK_PB_TracePacket_vulkan_api_event) |                                            \
   META_WORD(w, TRAK_PB_TracePacket_gpu_log) |                                                     \
   META_WORD(w, TRAK_PB_TracePacket_gpu_mem_total_event) |                                         \
   META_WORD(w, TRAK_PB_TracePacket_graphics_frame_event) |                                        \
   META_WORD(w, TRAK_PB_TracePacket_frame_timeline_event) |                                        \
   META_WORD(w, TRAK_PB_TracePacket_remote_clock_sync))
static const uint64_t meta_fields[2] = {META_FIELDS(0), META_FIELDS(1)};

static void set_span(packet_fields *pf, enum packet_span p, const trak_pb_field *f) {
  pf->span[p] = (trak_span){f->data, f->len};
  pf->present |= 1u << p;
}

/* decode_fields' fast path, for the fields of the SDKs' event packets: one-byte tags of
** timestamp, trusted_packet_sequence_id and sequence_flags (varints) and track_event and
** interned_data (LEN), read from [p, end) with the 16 bytes after `end` readable (the caller
** checks). Returns where it stopped: `end` when every field was one of those, else the first
** field it does not take (another field, another wire type, or bytes that may not decode),
** from which the generic loop goes on. `*last` is the value of the last varint read, which the
** generic loop's field holds until its next varint. */
static inline __attribute__((always_inline)) const uint8_t *
decode_common(const uint8_t *p, const uint8_t *end, packet_fields *pf, uint64_t *last) {
  /* The SDKs' order first, each field tested once: a timestamp, then one-byte sequence id and
  ** flags, each the packet's first field or not there. */
  if (p < end && p[0] == TRAK_TAG(TRAK_PB_TracePacket_timestamp, TRAK_PB_WIRE_VARINT)) {
    uint64_t v;
    const uint8_t *q = trak_pb__read_varint_unchecked(p + 1, &v);
    if (TRAK_UNLIKELY(!q || q > end)) return p;
    pf->timestamp = v, pf->has_ts = 1, *last = v;
    p = q;
  }
  if (p + 1 < end && p[0] == TRAK_TAG(TRAK_PB_TracePacket_trusted_packet_sequence_id,
                                 TRAK_PB_WIRE_VARINT) && p[1] < 0x80) {
    pf->seq_id = p[1], pf->has_seq = 1, *last = p[1];
    p += 2;
  }
  if (p + 1 < end && p[0] == TRAK_TAG(TRAK_PB_TracePacket_sequence_flags, TRAK_PB_WIRE_VARINT) &&
      p[1] < 0x80) {
    pf->flags = p[1], *last = p[1];
    p += 2;
  }
  while (p < end) {
    const uint8_t *q = p + 1;
    uint64_t v = q[0];
    if (v < 0x80) {
      q++;
    } else {
      q = trak_pb__read_varint_unchecked(q, &v);
      if (TRAK_UNLIKELY(!q)) return p;
    }
    if (TRAK_UNLIKELY(q > end)) return p;
    switch (p[0]) {
    case TRAK_TAG(TRAK_PB_TracePacket_timestamp, TRAK_PB_WIRE_VARINT):
      pf->timestamp = v, pf->has_ts = 1, *last = v;
      break;
    case TRAK_TAG(TRAK_PB_TracePacket_trusted_packet_sequence_id, TRAK_PB_WIRE_VARINT):
      pf->seq_id = (uint32_t)v, pf->has_seq = 1, *last = v;
      break;
    case TRAK_TAG(TRAK_PB_TracePacket_sequence_flags, TRAK_PB_WIRE_VARINT):
      pf->flags = (uint32_t)v, *last = v;
      break;
    case TRAK_TAG(TRAK_PB_TracePacket_track_event, TRAK_PB_WIRE_LEN):
      if (TRAK_UNLIKELY(v > (uint64_t)(end - q))) return p;
      pf->span[P_TRACK_EVENT] = (trak_span){q, (size_t)v}, pf->present |= 1u << P_TRACK_EVENT;
      q += v;
      break;
    case TRAK_TAG(TRAK_PB_TracePacket_interned_data, TRAK_PB_WIRE_LEN):
      if (TRAK_UNLIKELY(v > (uint64_t)(end - q))) return p;
      pf->span[P_INTERNED] = (trak_span){q, (size_t)v}, pf->present |= 1u << P_INTERNED;
      q += v;
      break;
    default:
      return p;
    }
    p = q;
  }
  return p;
}

/* Whether [data, data + len) lies in the buffer [base, limit) (limit NULL: no buffer) with 16
** readable bytes after it, as decode_common and trak__te_predecode_fast need. */
static inline int decode_fast_ok(const uint8_t *base, const uint8_t *limit, const uint8_t *data,
                                 size_t len) {
  return limit && data >= base && limit - data >= 16 && (size_t)(limit - data) - 16 >= len;
}

static inline __attribute__((always_inline)) int decode_fields(const uint8_t *base,
                                                               const uint8_t *limit,
                                                               const uint8_t *data, size_t len,
                                                               packet_fields *pf) {
  trak_pb_field f;
  const uint8_t *at = data;
  /* A field of the wrong wire type takes the value of the last varint (0 before any), read by
  ** either loop. Fields the fast path took are not read again: the generic loop starts where it
  ** stopped. */
  f.value = 0;
  if (decode_fast_ok(base, limit, data, len)) {
    at = decode_common(data, data + len, pf, &f.value);
    if (TRAK_LIKELY(at == data + len)) {
      pf->plain = pf->has_seq && pf->present == 1u << P_TRACK_EVENT;
      return 0;
    }
  }
  trak_pb_decoder dec;
  trak__dec_init_in(&dec, data, len, base, limit);
  dec.p = at;
  int rc;
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    int is_len = f.wire_type == TRAK_PB_WIRE_LEN;
    switch (f.number) {
    case TRAK_PB_TracePacket_timestamp:
      pf->timestamp = f.value, pf->has_ts = 1;
      break;
    case TRAK_PB_TracePacket_timestamp_clock_id:
      pf->clock_id = (uint32_t)f.value, pf->has_clock = 1;
      break;
    case TRAK_PB_TracePacket_trusted_packet_sequence_id:
      pf->seq_id = (uint32_t)f.value, pf->has_seq = 1;
      break;
    case TRAK_PB_TracePacket_sequence_flags:
      pf->flags = (uint32_t)f.value;
      break;
    case TRAK_PB_TracePacket_incremental_state_cleared:
      pf->cleared = f.value != 0;
      break;
    case TRAK_PB_TracePacket_previous_packet_dropped:
      pf->dropped = (uint32_t)f.value;
      break;
    case TRAK_PB_TracePacket_first_packet_on_sequence:
      pf->first_on_seq = f.value != 0;
      break;
    case TRAK_PB_TracePacket_track_event:
      if (is_len) set_span(pf, P_TRACK_EVENT, &f);
      break;
    case TRAK_PB_TracePacket_interned_data:
      if (is_len) set_span(pf, P_INTERNED, &f);
      break;
    case TRAK_PB_TracePacket_trace_packet_defaults:
      if (is_len) set_span(pf, P_DEFAULTS, &f);
      break;
    case TRAK_PB_TracePacket_track_descriptor:
      if (is_len) set_span(pf, P_DESCRIPTOR, &f);
      break;
    case TRAK_PB_TracePacket_clock_snapshot:
      if (is_len) set_span(pf, P_SNAPSHOT, &f);
      break;
    case TRAK_PB_TracePacket_thread_descriptor:
      if (is_len) set_span(pf, P_THREAD, &f);
      break;
    case TRAK_PB_TracePacket_trace_stats:
      if (is_len) set_span(pf, P_TRACE_STATS, &f);
      break;
    case TRAK_PB_TracePacket_process_stats:
      if (is_len) set_span(pf, P_PROCESS_STATS, &f);
      break;
    case TRAK_PB_TracePacket_compressed_packets:
      if (is_len) set_span(pf, P_COMPRESSED, &f);
      break;
    case TRAK_PB_TracePacket_zstd_compressed_packets:
      pf->has_zstd = 1;
      break;
    default:
      pf->unhandled = 1;
      /* the rare payloads (rare_packet): tested here, off the switch of common fields */
      if (is_len && f.number < 128 && (meta_fields[f.number >> 6] >> (f.number & 63) & 1))
        set_span(pf, P_META, &f), pf->meta_field = f.number;
      break;
    }
  }
  return rc < 0 ? (int)dec.error_offset + 1 : 0;
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
__attribute__((cold, noinline)) static void skipped_needing_state(trak_importer *imp,
                                                                  trak_sequence *seq) {
  seq->needs_state_skipped++;
  trak__report(imp, TRAK_STAT_INCREMENTAL_INVALID,
               "packet needs incremental state, but sequence %u has %s", seq->id,
               seq->seen_clear ? "lost it (packets were dropped)" : "not cleared it yet");
  trak_tables *t = imp->tables;
  uint32_t set = (uint32_t)t->args.n;
  uint32_t key = trak__strpool_intern(&t->strings, "packet_sequence_id", 18);
  uint32_t row = trak__arg_add(t, set, key, key, TRAK_ARG_UINT);
  t->args.int_value[row] = seq->id;
  trak_vec_push(imp->import_logs,
                ((trak_import_log){INT64_MIN, TRAK_STAT_INCREMENTAL_INVALID,
                                   trak__args_share(imp, set), payload_offset(imp)}));
}

/* Applies the sequence flags. Returns 0 if the packet must be skipped. */
static inline __attribute__((always_inline)) int
sequence_state(trak_importer *imp, trak_sequence *seq, const packet_fields *pf, int plain) {
  /* Perfetto's per-buffer loss figures count drops after a sequence's first packet */
  if (!plain && TRAK_UNLIKELY(pf->dropped) && imp->packet_index != seq->first_packet_index &&
      pf->seq_id)
    trak__trace_stats_loss(seq, pf->dropped);
  if (!plain && pf->dropped && !pf->first_on_seq) {
    trak__report(imp, TRAK_STAT_PACKET_LOSS, "sequence %u lost packets before this one", seq->id);
    seq->state_valid = 0;
    seq->timestamps_valid = 0;
  }
  if ((!plain && pf->cleared) || (pf->flags & TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED))
    trak__sequence_clear(seq);
  if (!(pf->flags & TRAK_PB_TracePacket_SEQ_NEEDS_INCREMENTAL_STATE)) return 1;
  seq->needs_state_total++;
  if (!seq->state_valid) {
    skipped_needing_state(imp, seq);
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
static void missing_sequence_id(trak_importer *imp) {
  trak__report(imp, TRAK_STAT_MISSING_SEQUENCE_ID,
               "track_event in a packet without trusted_packet_sequence_id; dropped");
  trak_vec_push(imp->import_logs, ((trak_import_log){INT64_MIN, TRAK_STAT_MISSING_SEQUENCE_ID,
                                                     TRAK_NULL_U32, payload_offset(imp)}));
}

static inline int packet_payload(trak_importer *imp, const packet_fields *pf, trak_sequence *seq,
                                  int plain);
static void defer_packet(trak_importer *imp, const packet_fields *pf);

/* trak__sequence_get, its cache of the last sequence read here. */
static inline __attribute__((always_inline)) trak_sequence *sequence_of(trak_importer *imp,
                                                                       uint32_t id) {
  trak_sequence *last = imp->seqs.last;
  return TRAK_LIKELY(last && last->id == id) ? last : trak__sequence_get(imp, id);
}

/* The sub-messages of a packet that set its sequence's or the import's state, before its
** payload: defaults, interned data, a clock snapshot, trace stats, a legacy thread
** descriptor (packet_body_in tests them together, as they are rare). */
#define STATE_SPANS                                                                                \
  (1u << P_DEFAULTS | 1u << P_INTERNED | 1u << P_SNAPSHOT | 1u << P_TRACE_STATS | 1u << P_THREAD)
__attribute__((noinline)) static void packet_state(trak_importer *imp, trak_sequence *seq,
                                                   const packet_fields *pf) {
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

/* Everything of a packet but its compressed_packets, which the caller has handled: inline in
** the decoded packets' loop (trak__packet_tokenize_decoded), packet_body elsewhere. `plain`
** (a constant where it is inlined) says the packet is pf->plain: the tests of what such a
** packet cannot have are left out. */
static inline __attribute__((always_inline)) void
packet_body_in(trak_importer *imp, const packet_fields *pf, int plain) {
  if (!plain && pf->has_zstd)
    trak__report(imp, TRAK_STAT_COMPRESSED_UNSUPPORTED, "zstd_compressed_packets skipped");
  trak_sequence *seq = sequence_of(imp, pf->seq_id);
  if (!plain && pf->first_on_seq) seq->first_packet_flag = 1;
  if (!sequence_state(imp, seq, pf, plain)) return;
  if (!plain && TRAK_UNLIKELY(pf->present & STATE_SPANS)) packet_state(imp, seq, pf);
  if (TRAK_UNLIKELY(packet_payload(imp, pf, seq, plain))) defer_packet(imp, pf);
}

static void packet_body(trak_importer *imp, const packet_fields *pf) {
  packet_body_in(imp, pf, 0);
}

/* A rare TracePacket field (meta_fields, and those past 127 unhandled_fields() finds): decoded
** by the file that owns it; those Perfetto reads after sorting are kept until trak__proto_finish. */
__attribute__((cold, noinline)) static void rare_packet(trak_importer *imp,
                                                        const trak_packet_ctx *ctx, uint32_t field,
                                                        const uint8_t *data, size_t len) {
  trak_packet_state *s = trak__packet_state(imp);
  trak__meta_machine(imp, imp->threads.machine);
  if (ctx->has_ts) s->last_ts = ctx->ts;
  switch (field) {
  case TRAK_PB_TracePacket_trace_uuid:
    trak__trace_uuid_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_system_info:
    trak__system_info_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_cpu_info:
    trak__cpu_info_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_service_event:
    trak__service_event_packet(imp, ctx->has_ts ? ctx->ts : 0, data, len);
    return;
  case TRAK_PB_TracePacket_chrome_metadata:
    trak__chrome_metadata(imp, s->chrome_count++, data, len);
    return;
  case TRAK_PB_TracePacket_trace_attributes:
    trak__trace_attributes_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_track_event_range_of_interest:
    trak__range_of_interest_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_process_tree:
    trak__process_tree(imp, ctx, data, len);
    return;
  case TRAK_PB_TracePacket_profile_packet:
    trak__profile_packet(imp, ctx, data, len);
    return;
  case TRAK_PB_TracePacket_deobfuscation_mapping:
    trak__deobfuscation_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_streaming_profile_packet:
    trak__streaming_profile_packet(imp, ctx->seq, data, len);
    return;
  case TRAK_PB_TracePacket_perf_sample:
    trak__perf_sample_packet(imp, (trak_packet_ctx *)ctx, data, len);
    return;
  case TRAK_PB_TracePacket_ftrace_events:
    trak__ftrace_bundle_header(imp, ctx, data, len);
    trak__ftrace_bundle(imp, ctx->seq, data, len);
    return;
  case TRAK_PB_TracePacket_ftrace_stats:
    trak__ftrace_stats_packet(imp, ctx->seq ? ctx->seq->id : 0, data, len);
    return;
  case TRAK_PB_TracePacket_interrupt_info:
    trak__interrupt_info_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_sys_stats:
    if (ctx->has_ts) trak__sys_stats_packet(imp, (trak_packet_ctx *)ctx, data, len);
    return;
  case TRAK_PB_TracePacket_battery:
  case TRAK_PB_TracePacket_initial_display_state:
    if (!ctx->has_ts)
      trak__report(imp, TRAK_STAT_PACKET_MALFORMED, "power packet without a timestamp");
    else if (field == TRAK_PB_TracePacket_battery)
      trak__battery_packet(imp, (trak_packet_ctx *)ctx, data, len);
    else
      trak__initial_display_state_packet(imp, (trak_packet_ctx *)ctx, data, len);
    return;
  case TRAK_PB_TracePacket_remote_clock_sync:
    trak__remote_clock_sync_add(imp, data, len);
    return;
  case TRAK_PB_TracePacket_power_rails:
    trak__power_rails_packet(imp, (trak_packet_ctx *)ctx, data, len);
    return;
  case TRAK_PB_TracePacket_android_energy_estimation_breakdown:
    trak__energy_breakdown_packet(imp, (trak_packet_ctx *)ctx, data, len);
    return;
  case TRAK_PB_TracePacket_entity_state_residency:
    trak__entity_state_packet(imp, (trak_packet_ctx *)ctx, data, len);
    return;
  case TRAK_PB_TracePacket_android_system_property:
    trak__system_property_packet(imp, (trak_packet_ctx *)ctx, data, len);
    return;
  case TRAK_PB_TracePacket_packages_list:
    trak__packages_list_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_journald_event:
    trak__journald_packet(imp, ctx, data, len);
    return;
  case TRAK_PB_TracePacket_concurrent_session_event:
    trak__concurrent_session_event(imp, ctx, data, len);
    return;
  case TRAK_PB_TracePacket_generic_kernel_task_state_event:
  case TRAK_PB_TracePacket_generic_kernel_cpu_freq_event:
  case TRAK_PB_TracePacket_generic_kernel_task_rename_event:
  case TRAK_PB_TracePacket_generic_kernel_process_tree:
    trak__generic_kernel_packet(imp, ctx, field, data, len);
    return;
  case TRAK_PB_TracePacket_gpu_counter_event:
  case TRAK_PB_TracePacket_gpu_render_stage_event:
  case TRAK_PB_TracePacket_gpu_info:
  case TRAK_PB_TracePacket_generic_gpu_frequency_event:
    trak__gpu_packet(imp, ctx, field, data, len);
    return;
  case TRAK_PB_TracePacket_vulkan_api_event:
  case TRAK_PB_TracePacket_gpu_log:
  case TRAK_PB_TracePacket_gpu_mem_total_event:
    trak__gpu_api_packet(imp, ctx, field, data, len);
    return;
  case TRAK_PB_TracePacket_graphics_frame_event:
    trak__graphics_frame_packet(imp, ctx, data, len);
    return;
  case TRAK_PB_TracePacket_frame_timeline_event:
    trak__frame_timeline_packet(imp, ctx, data, len);
    return;
  default: /* trace_config, triggers, chrome_events */
    trak__late_packet_keep(imp, ctx, field, data, len);
    return;
  }
}

/* The timestamped part of a packet: its timestamp in the trace clock, then its payload.
** Returns 1 if no snapshot has related the timestamp's clock yet (nothing done: the caller
** defers the packet). */
static inline __attribute__((always_inline)) int
packet_payload(trak_importer *imp, const packet_fields *pf, trak_sequence *seq, int plain) {
  const trak_span *sp = pf->span;
  /* Every timestamped packet converts, not only events: an incremental clock advances with
  ** each packet of its sequence (SDKs give descriptors timestamps too). */
  trak_packet_ctx ctx = {seq, 0, 0};
  if (pf->has_ts) {
    uint32_t clock = pf->has_clock        ? pf->clock_id
                     : seq->default_clock ? seq->default_clock
                                          : TRAK_PB_BUILTIN_CLOCK_BOOTTIME;
    /* Perfetto converts only a timestamp whose clock the packet, its sequence's defaults or a
    ** snapshot names (not a snapshot's own packet) */
    if (plain || !HAS(pf, P_SNAPSHOT)) {
      uint32_t named = pf->has_clock        ? pf->clock_id
                       : seq->default_clock ? seq->default_clock
                                            : imp->clock_cache_default;
      /* Chrome's events and metadata are MONOTONIC unless they name another clock */
      if (!plain && TRAK_UNLIKELY(HAS(pf, P_META)) &&
          (pf->meta_field == TRAK_PB_TracePacket_chrome_events ||
           pf->meta_field == TRAK_PB_TracePacket_chrome_metadata) &&
          (!named || named == TRAK_PB_BUILTIN_CLOCK_MONOTONIC))
        named = TRAK_PB_BUILTIN_CLOCK_MONOTONIC;
      if (named) trak__clock_cache_note(imp, trak__clock_key(seq, named), (int64_t)pf->timestamp);
    }
    int rc = trak__clock_convert(imp, seq, clock, (int64_t)pf->timestamp, &ctx.ts);
    if (rc) return rc > 0;
    ctx.has_ts = 1;
    if (ctx.ts > imp->latest_ts) imp->latest_ts = ctx.ts;
  }
  /* A descriptor takes its packet's trace time (Perfetto applies descriptors in that order);
  ** a packet without a timestamp sorts at the latest one seen so far, as in Perfetto. */
  if (!plain && HAS(pf, P_DESCRIPTOR)) {
    imp->descriptor_ts = ctx.has_ts ? ctx.ts : imp->latest_ts;
    trak__track_descriptor_add(imp, seq, sp[P_DESCRIPTOR].data, sp[P_DESCRIPTOR].len);
  }
  if (!plain && HAS(pf, P_TRACK_EVENT) && !pf->has_seq)
    missing_sequence_id(imp);
  else if (HAS(pf, P_TRACK_EVENT) && pf->te_pre)
    trak__track_event_tokenize_pre(imp, &ctx, sp[P_TRACK_EVENT].data, sp[P_TRACK_EVENT].len,
                                   &pf->te);
  else if (HAS(pf, P_TRACK_EVENT))
    trak__track_event_tokenize(imp, &ctx, sp[P_TRACK_EVENT].data, sp[P_TRACK_EVENT].len, NULL);
  else if (HAS(pf, P_META))
    rare_packet(imp, &ctx, pf->meta_field, sp[P_META].data, sp[P_META].len);
  if (!plain && HAS(pf, P_PROCESS_STATS) && ctx.has_ts)
    trak__process_stats(imp, &ctx, sp[P_PROCESS_STATS].data, sp[P_PROCESS_STATS].len);
  return 0;
}

/* Keeps a copy of a packet whose clock no snapshot has related to the trace clock yet, for
** trak__packets_retry_deferred: Perfetto converts such a packet with the snapshots of the whole
** trace (a writer may write its snapshot after its first events). Past
** TRAK_LIMIT_DEFERRED_BYTES the packet fails at once, reported as at the end. */
__attribute__((cold, noinline)) static void defer_packet(trak_importer *imp,
                                                         const packet_fields *pf) {
  uint8_t *copy = imp->deferred_bytes + pf->raw_len <= TRAK_LIMIT_DEFERRED_BYTES
                      ? malloc(pf->raw_len ? pf->raw_len : 1)
                      : NULL;
  if (!copy) {
    imp->at_eof = 1;
    packet_payload(imp, pf, trak__sequence_get(imp, pf->seq_id), 0);
    imp->at_eof = 0;
    return;
  }
  memcpy(copy, pf->raw, pf->raw_len);
  imp->deferred_bytes += pf->raw_len;
  trak_deferred_packet d = {
      {copy, pf->raw_len}, imp->packet_index, imp->packet_offset, imp->packet_len};
  trak_vec_push(imp->deferred, d);
}

void trak__packets_retry_deferred(trak_importer *imp) {
  imp->at_eof = 1;
  /* The copies lie outside any buffer being tokenized: no read-ahead past their ends. */
  imp->base = imp->limit = NULL;
  for (size_t i = 0; i < imp->deferred.n; i++) {
    const trak_deferred_packet *d = &imp->deferred.v[i];
    imp->packet_index = d->index, imp->packet_offset = d->offset, imp->packet_len = d->outer_len;
    packet_fields pf;
    memset(&pf, 0, offsetof(packet_fields, span));
    /* Decoded before without error; its sequence state and descriptors were applied then. */
    decode_fields(NULL, NULL, d->bytes.data, d->bytes.len, &pf);
    packet_payload(imp, &pf, trak__sequence_get(imp, pf.seq_id), 0);
    free((void *)d->bytes.data);
  }
  trak_vec_free(imp->deferred);
  imp->deferred_bytes = 0;
}

/* The fields of a packet that the common decoding switch leaves (read again here, out of the
** common path): machine_id makes its machine current, concurrent_session_event,
** interrupt_info and journald_event are kept for rare_packet, and fields trak's schema lacks
** count in proto_unknown_field. Also run for a packet without machine_id after one with: the
** host is current again. */
__attribute__((cold, noinline)) static void
unhandled_fields(trak_importer *imp, const uint8_t *data, size_t len, packet_fields *pf) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  int has_machine = 0;
  uint64_t machine = 0;
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_TracePacket_machine_id && f.wire_type == TRAK_PB_WIRE_VARINT)
      has_machine = 1, machine = f.value;
    else if ((f.number == TRAK_PB_TracePacket_concurrent_session_event ||
              f.number == TRAK_PB_TracePacket_interrupt_info ||
              f.number == TRAK_PB_TracePacket_journald_event ||
              f.number == TRAK_PB_TracePacket_gpu_info ||
              f.number == TRAK_PB_TracePacket_generic_gpu_frequency_event) &&
             f.wire_type == TRAK_PB_WIRE_LEN) /* rare_packet's, past the bit set's 128 */
      set_span(pf, P_META, &f), pf->meta_field = f.number;
    else if (trak__schema_lacks("TracePacket", f.number))
      imp->stats[TRAK_STAT_PROTO_UNKNOWN_FIELD]++;
  }
  if (has_machine || imp->threads.machine) trak__machine_switch(imp, has_machine, machine);
}

/* The pure half of decode_packet: reads only the packet's bytes, so it may run on the decoding
** thread (read/pipeline.c). */
static inline __attribute__((always_inline)) void decode_pure(const uint8_t *base,
                                                              const uint8_t *limit,
                                                              const uint8_t *data, size_t len,
                                                              packet_fields *pf) {
  memset(pf, 0, offsetof(packet_fields, span));
  pf->raw = data, pf->raw_len = len;
  pf->malformed = decode_fields(base, limit, data, len, pf) != 0;
}

/* The half of decode_packet that reads or changes the import's state, in packet order. */
static inline __attribute__((always_inline)) void
decode_finish(trak_importer *imp, const uint8_t *data, size_t len, packet_fields *pf) {
  if (pf->malformed)
    trak__report(imp, TRAK_STAT_PACKET_MALFORMED,
                 "packet fields do not decode; kept the fields before the error");
  if (TRAK_UNLIKELY(pf->unhandled | imp->threads.machine)) unhandled_fields(imp, data, len, pf);
}

static void decode_packet(trak_importer *imp, const uint8_t *data, size_t len, packet_fields *pf) {
  decode_pure(imp->base, imp->limit, data, len, pf);
  decode_finish(imp, data, len, pf);
}

/* One level of compressed_packets being tokenized: its inflated Trace fragment, the decoder
** walking it, and the packet that holds it, whose other fields follow its inner packets. */
typedef struct inflated_level {
  uint8_t *plain;
  size_t len;
  trak_pb_decoder dec;
  packet_fields owner;
} inflated_level;

/* Inflates the compressed_packets of `owner` within the limits (util/limits.h): the levels
** already open share TRAK_LIMIT_INFLATED_PACKET_BYTES, the trace its ratio and cap. Returns 0
** with `level` filled, or -1 after reporting why the compressed packets were skipped. */
static int inflate_level(trak_importer *imp, const packet_fields *owner, size_t open_bytes,
                         inflated_level *level) {
  const trak_span *span = &owner->span[P_COMPRESSED];
  uint64_t budget =
      (uint64_t)TRAK_LIMIT_INFLATE_RATIO * imp->bytes_in + TRAK_LIMIT_INFLATED_PACKET_BYTES;
  if (budget > TRAK_LIMIT_INFLATED_TRACE_BYTES) budget = TRAK_LIMIT_INFLATED_TRACE_BYTES;
  uint64_t trace_left = imp->inflated_total < budget ? budget - imp->inflated_total : 0;
  size_t max = TRAK_LIMIT_INFLATED_PACKET_BYTES - open_bytes;
  int by_trace = trace_left < max;
  if (by_trace) max = (size_t)trace_left;
  trak_error err;
  int rc = trak__gunzip(span->data, span->len, 1, max, &level->plain, &level->len, &err);
  if (rc == TRAK_ENOSPC) {
    trak__report(imp, TRAK_STAT_INFLATE_LIMIT,
                 by_trace ? "compressed_packets skipped: the trace's compressed packets inflate "
                            "past %d times its size (a decompression bomb?)"
                          : "compressed_packets skipped: they inflate past %d MiB",
                 by_trace ? TRAK_LIMIT_INFLATE_RATIO
                          : (int)(TRAK_LIMIT_INFLATED_PACKET_BYTES >> 20));
    return -1;
  }
  if (rc) {
    trak__report(imp, TRAK_STAT_COMPRESSED_ERRORS, "compressed_packets: %s", err.message);
    return -1;
  }
  imp->inflated_total += level->len;
  trak_pb_decoder_init(&level->dec, level->plain, level->len);
  level->owner = *owner;
  return 0;
}

/* Tokenizes the packets inside `top`'s compressed_packets, and theirs, in order, then the rest
** of `top`. Nesting is walked with an explicit stack of at most TRAK_LIMIT_COMPRESSED_DEPTH
** levels, never by recursion: the input cannot grow the C stack. */
static void compressed_packets(trak_importer *imp, const packet_fields *top) {
  inflated_level stack[TRAK_LIMIT_COMPRESSED_DEPTH];
  int depth = 0;
  size_t open_bytes = 0;
  const uint8_t *base = imp->base, *limit = imp->limit;
  if (inflate_level(imp, top, 0, &stack[0])) {
    packet_body(imp, top);
    return;
  }
  open_bytes = stack[depth++].len;
  while (depth) {
    inflated_level *lv = &stack[depth - 1];
    trak_pb_field f;
    int rc = trak_pb_decoder_next(&lv->dec, &f);
    if (rc <= 0) {
      if (rc < 0)
        trak__report(imp, TRAK_STAT_COMPRESSED_ERRORS,
                     "compressed_packets: malformed packet at byte %zu of the inflated data",
                     lv->dec.error_offset);
      packet_fields owner = lv->owner;
      open_bytes -= lv->len;
      free(lv->plain);
      depth--;
      imp->base = depth ? stack[depth - 1].plain : base;
      imp->limit = depth ? stack[depth - 1].plain + stack[depth - 1].len : limit;
      packet_body(imp, &owner);
      continue;
    }
    if (f.number != TRAK_PB_Trace_packet || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    imp->packet_index++;
    imp->base = lv->plain, imp->limit = lv->plain + lv->len;
    packet_fields pf;
    decode_packet(imp, f.data, f.len, &pf);
    if (!HAS(&pf, P_COMPRESSED)) {
      packet_body(imp, &pf);
    } else if (depth == TRAK_LIMIT_COMPRESSED_DEPTH) {
      trak__report(imp, TRAK_STAT_COMPRESSED_TOO_DEEP,
                   "compressed_packets nested deeper than %d levels; the innermost skipped",
                   TRAK_LIMIT_COMPRESSED_DEPTH);
      packet_body(imp, &pf);
    } else if (!inflate_level(imp, &pf, open_bytes, &stack[depth])) {
      open_bytes += stack[depth++].len;
    } else {
      packet_body(imp, &pf);
    }
  }
  imp->base = base, imp->limit = limit;
}

static inline __attribute__((always_inline)) void packet_dispatch(trak_importer *imp,
                                                                  packet_fields *pf) {
  if (HAS(pf, P_COMPRESSED))
    compressed_packets(imp, pf);
  else
    packet_body(imp, pf);
}

void trak__packet_tokenize(trak_importer *imp, const uint8_t *data, size_t len) {
  imp->packet_len = len;
  packet_fields pf;
  decode_packet(imp, data, len, &pf);
  packet_dispatch(imp, &pf);
}

void trak__packet_decode(const uint8_t *base, const uint8_t *limit, const uint8_t *data, size_t len,
                         trak_packet_fields *pf) {
  decode_pure(base, limit, data, len, pf);
  if (!HAS(pf, P_TRACK_EVENT) || pf->malformed) return;
  const trak_span *te = &pf->span[P_TRACK_EVENT];
  /* the event lies in the packet: its 16 bytes past are readable when the packet's are */
  if (decode_fast_ok(base, limit, data, len)) {
    trak__te_pre_clear(&pf->te);
    int fast = trak__te_predecode_fast(te->data, te->data + te->len, &pf->te);
    if (fast >= 0) {
      pf->te_pre = (uint8_t)fast;
      return;
    }
  }
  pf->te_pre = (uint8_t)trak__track_event_predecode(base, limit, te->data, te->len, &pf->te);
}

uint32_t trak__packet_meta(const trak_packet_fields *pf, trak_span *span) {
  if (!HAS(pf, P_META)) return 0;
  *span = pf->span[P_META];
  return pf->meta_field;
}

void trak__packet_tokenize_decoded(trak_importer *imp, trak_packet_fields *pf) {
  imp->packet_len = pf->raw_len;
  if (TRAK_LIKELY(pf->plain)) { /* decode_finish's test of what a plain packet can have */
    if (TRAK_UNLIKELY(imp->threads.machine)) unhandled_fields(imp, pf->raw, pf->raw_len, pf);
    packet_body_in(imp, pf, 1);
    return;
  }
  decode_finish(imp, pf->raw, pf->raw_len, pf);
  if (HAS(pf, P_COMPRESSED))
    compressed_packets(imp, pf);
  else
    packet_body_in(imp, pf, 0);
}

void trak__proto_free(trak_importer *imp) {
  for (size_t i = 0; i < imp->deferred.n; i++)
    free((void *)imp->deferred.v[i].bytes.data);
  trak_vec_free(imp->deferred);
  trak_vec_free(imp->source_locs);
  trak_vec_free(imp->traced_buf);
  trak__map_free(&imp->traced_buf_index);
  trak__packet_state_free(imp);
  trak__stack_samples_free(imp);
  trak__callstacks_free(imp);
  trak__heap_profiles_free(imp);
  trak__deobfuscation_free(imp);
  trak__ftrace_generic_free(imp);
}
