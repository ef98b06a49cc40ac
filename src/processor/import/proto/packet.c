/*
** This file holds the tokenization of one TracePacket, its common path: the reading of its
** fields (a fast path for the SDKs' event packets), its sequence flags (incremental state
** cleared / needed / lost), its timestamp in the trace clock and the hand-off of its payload
** (the TrackEvent, or a descriptor, process stats, a rare payload), and the packets kept until
** a snapshot relates their clock. What a packet sets in its sequence's state is
** packet_sequence.c's, the rare payloads packet_rare.c's, compressed_packets
** compressed_packets.c's (packet.h).
*/
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/callstacks.h"
#include "processor/import/ftrace/ftrace.h"
#include "processor/import/proto/packet.h"
#include "processor/import/proto/te_predecode.h"
#include "util/limits.h"

/* The rare fields below 128 (packet.h), the bit set decode_fields tests them by. */
static const uint64_t meta_fields[2] = {META_FIELDS(0), META_FIELDS(1)};

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
  if (p + 1 < end &&
      p[0] == TRAK_TAG(TRAK_PB_TracePacket_trusted_packet_sequence_id, TRAK_PB_WIRE_VARINT) &&
      p[1] < 0x80) {
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
      /* the rare payloads (trak__rare_packet): tested here, off the switch of common fields */
      if (is_len && f.number < 128 && (meta_fields[f.number >> 6] >> (f.number & 63) & 1))
        set_span(pf, P_META, &f), pf->meta_field = f.number;
      break;
    }
  }
  return rc < 0 ? (int)dec.error_offset + 1 : 0;
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
    trak__packet_skipped_needing_state(imp, seq);
    return 0;
  }
  return 1;
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

/* Everything of a packet but its compressed_packets, which the caller has handled: inline in
** the decoded packets' loop (trak__packet_tokenize_decoded), trak__packet_body elsewhere. `plain`
** (a constant where it is inlined) says the packet is pf->plain: the tests of what such a
** packet cannot have are left out. */
static inline __attribute__((always_inline)) void
packet_body_in(trak_importer *imp, const packet_fields *pf, int plain) {
  if (!plain && pf->has_zstd)
    trak__report(imp, TRAK_STAT_COMPRESSED_UNSUPPORTED, "zstd_compressed_packets skipped");
  trak_sequence *seq = sequence_of(imp, pf->seq_id);
  if (!plain && pf->first_on_seq) seq->first_packet_flag = 1;
  if (!sequence_state(imp, seq, pf, plain)) return;
  if (!plain && TRAK_UNLIKELY(pf->present & STATE_SPANS)) trak__packet_sequence_state(imp, seq, pf);
  if (TRAK_UNLIKELY(packet_payload(imp, pf, seq, plain))) defer_packet(imp, pf);
}

void trak__packet_body(trak_importer *imp, const packet_fields *pf) {
  packet_body_in(imp, pf, 0);
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
    trak__packet_missing_sequence_id(imp);
  else if (HAS(pf, P_TRACK_EVENT) && pf->te_pre)
    trak__track_event_tokenize_pre(imp, &ctx, sp[P_TRACK_EVENT].data, sp[P_TRACK_EVENT].len,
                                   &pf->te);
  else if (HAS(pf, P_TRACK_EVENT))
    trak__track_event_tokenize(imp, &ctx, sp[P_TRACK_EVENT].data, sp[P_TRACK_EVENT].len, NULL);
  else if (HAS(pf, P_META))
    trak__rare_packet(imp, &ctx, pf->meta_field, sp[P_META].data, sp[P_META].len);
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

/* The pure half of trak__packet_decode_in: reads only the packet's bytes, so it may run on the
** decoding thread (read/pipeline.c). */
static inline __attribute__((always_inline)) void decode_pure(const uint8_t *base,
                                                              const uint8_t *limit,
                                                              const uint8_t *data, size_t len,
                                                              packet_fields *pf) {
  memset(pf, 0, offsetof(packet_fields, span));
  pf->raw = data, pf->raw_len = len;
  pf->malformed = decode_fields(base, limit, data, len, pf) != 0;
}

/* The half of trak__packet_decode_in that reads or changes the import's state, in packet order. */
static inline __attribute__((always_inline)) void
decode_finish(trak_importer *imp, const uint8_t *data, size_t len, packet_fields *pf) {
  if (pf->malformed)
    trak__report(imp, TRAK_STAT_PACKET_MALFORMED,
                 "packet fields do not decode; kept the fields before the error");
  if (TRAK_UNLIKELY(pf->unhandled | imp->threads.machine))
    trak__packet_unhandled_fields(imp, data, len, pf);
}

void trak__packet_decode_in(trak_importer *imp, const uint8_t *data, size_t len,
                            packet_fields *pf) {
  decode_pure(imp->base, imp->limit, data, len, pf);
  decode_finish(imp, data, len, pf);
}

static inline __attribute__((always_inline)) void packet_dispatch(trak_importer *imp,
                                                                  packet_fields *pf) {
  if (HAS(pf, P_COMPRESSED))
    trak__compressed_packets(imp, pf);
  else
    trak__packet_body(imp, pf);
}

void trak__packet_tokenize(trak_importer *imp, const uint8_t *data, size_t len) {
  imp->packet_len = len;
  packet_fields pf;
  trak__packet_decode_in(imp, data, len, &pf);
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
    if (TRAK_UNLIKELY(imp->threads.machine))
      trak__packet_unhandled_fields(imp, pf->raw, pf->raw_len, pf);
    packet_body_in(imp, pf, 1);
    return;
  }
  decode_finish(imp, pf->raw, pf->raw_len, pf);
  if (HAS(pf, P_COMPRESSED))
    trak__compressed_packets(imp, pf);
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
