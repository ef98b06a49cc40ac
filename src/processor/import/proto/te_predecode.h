/*
** This file holds the decoding thread's fast read of a common TrackEvent into trak_te_pre
** (trak__te_predecode_fast), inline for trak__track_event_predecode (track_event.c) and for the
** packets whose bytes packet.c has already checked (trak__packet_decode).
*/
#ifndef TRAK_PROCESSOR_IMPORT_PROTO_TE_PREDECODE_H
#define TRAK_PROCESSOR_IMPORT_PROTO_TE_PREDECODE_H

#include "processor/import/proto/proto.h"

/* A field's tag as the wire writes it (one or two varint bytes), as a number. */
#define TRAK_TAG(field, wire) ((uint32_t)(field) << 3 | (wire))

/* trak__track_event_predecode's fast path, for the encoding the SDKs write: tags of one or two
** bytes, with at least 16 bytes readable after `end` (the caller checks; as
** trak_pb_decoder_next's fast path). Returns 1 or 0 as trak__track_event_predecode, or -1 for
** anything else (a tag or wire type not taken here, bytes that may not decode): the generic
** loop decides then. A tag of another wire type reads a varint that is never used (the 16
** bytes make it safe) before the switch turns it down. */
static inline int trak__te_predecode_fast(const uint8_t *data, const uint8_t *end, trak_te_pre *pre) {
  const uint8_t *p = data;
  while (p < end) {
    uint32_t tag = p[0];
    if (tag >= 0x80) {
      if (p[1] >= 0x80) return -1;
      tag = (tag & 0x7f) | (uint32_t)p[1] << 7;
      p += 2;
    } else {
      p++;
    }
    if (tag == TRAK_TAG(TRAK_PB_TrackEvent_double_counter_value, TRAK_PB_WIRE_FIXED64)) {
      if (end - p < 8) return -1;
      pre->value = trak_pb__load_le64(p), pre->has_value = 1, pre->value_is_double = 1;
      p += 8;
      continue;
    }
    uint64_t v = p[0];
    if (v < 0x80) {
      p++;
    } else {
      p = trak_pb__read_varint_unchecked(p, &v);
      if (!p) return -1;
    }
    if (p > end) return -1;
    switch (tag) {
    case TRAK_TAG(TRAK_PB_TrackEvent_type, TRAK_PB_WIRE_VARINT):
      pre->type = v, pre->has_type = 1;
      break;
    case TRAK_TAG(TRAK_PB_TrackEvent_track_uuid, TRAK_PB_WIRE_VARINT):
      pre->track_uuid = v, pre->has_track = 1;
      break;
    case TRAK_TAG(TRAK_PB_TrackEvent_name_iid, TRAK_PB_WIRE_VARINT):
      pre->name_iid = v, pre->has_name_iid = 1;
      break;
    case TRAK_TAG(TRAK_PB_TrackEvent_category_iids, TRAK_PB_WIRE_VARINT):
      if (pre->n_cat_iids) return 0;
      pre->cat_iid = v, pre->n_cat_iids = 1;
      break;
    case TRAK_TAG(TRAK_PB_TrackEvent_counter_value, TRAK_PB_WIRE_VARINT):
      pre->value = v, pre->has_value = 1, pre->value_is_double = 0;
      break;
    case TRAK_TAG(TRAK_PB_TrackEvent_debug_annotations, TRAK_PB_WIRE_LEN):
      if (v > (uint64_t)(end - p)) return -1;
      if (pre->n_annos == TRAK_TE_PRE_ANNOS) return 0;
      pre->anno_at[pre->n_annos] = (uint32_t)(p - data);
      pre->anno_len[pre->n_annos++] = (uint32_t)v;
      p += v;
      break;
    case TRAK_TAG(TRAK_PB_TrackEvent_name, TRAK_PB_WIRE_LEN):
      if (v > (uint64_t)(end - p)) return -1;
      pre->name_at = (uint32_t)(p - data), pre->name_len = (uint32_t)v, pre->has_name = 1;
      p += v;
      break;
    default:
      return -1;
    }
  }
  return 1;
}

/* No field taken yet. */
static inline void trak__te_pre_clear(trak_te_pre *pre) {
  pre->has_type = pre->has_track = pre->has_name_iid = pre->has_name = 0;
  pre->n_cat_iids = pre->n_annos = pre->has_value = 0;
}

#endif /* TRAK_PROCESSOR_IMPORT_PROTO_TE_PREDECODE_H */
