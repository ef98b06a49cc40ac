/*
** libFuzzer target for the decoding thread's reading of a TracePacket (trak__packet_decode,
** src/processor/import/proto/packet.c, and the TrackEvent's predecoding, te_predecode.h): the
** input is one TracePacket's bytes, decoded twice, once with 16 readable bytes after it (0xff,
** as if a varint went on: the one-byte tags' fast paths run) and once at the very end of its
** buffer (the generic decoder only). Both must give the same fields, spans, TrackEvent and
** malformed flag; a packet the fast path calls plain must hold only what a plain one may; and
** nothing may crash or read out of bounds.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/proto/proto.h"

/* The TrackEvent fields trak_te_pre holds, compared where they are set. */
static int te_same(const trak_te_pre *a, const trak_te_pre *b) {
  if (a->has_type != b->has_type || a->has_track != b->has_track ||
      a->has_name_iid != b->has_name_iid || a->has_name != b->has_name ||
      a->n_cat_iids != b->n_cat_iids || a->n_annos != b->n_annos || a->has_value != b->has_value)
    return 0;
  if ((a->has_type && a->type != b->type) || (a->has_track && a->track_uuid != b->track_uuid) ||
      (a->has_name_iid && a->name_iid != b->name_iid) ||
      (a->n_cat_iids && a->cat_iid != b->cat_iid))
    return 0;
  if (a->has_name && (a->name_at != b->name_at || a->name_len != b->name_len)) return 0;
  if (a->has_value && (a->value != b->value || a->value_is_double != b->value_is_double)) return 0;
  for (uint32_t i = 0; i < a->n_annos; i++)
    if (a->anno_at[i] != b->anno_at[i] || a->anno_len[i] != b->anno_len[i]) return 0;
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *buf = malloc(size + 16);
  if (!buf) return 0;
  memcpy(buf, data, size);
  memset(buf + size, 0xff, 16);
  trak_packet_fields fast, slow;
  trak__packet_decode(buf, buf + size + 16, buf, size, &fast);
  trak__packet_decode(buf, buf + size, buf, size, &slow);
  if (fast.timestamp != slow.timestamp || fast.clock_id != slow.clock_id ||
      fast.seq_id != slow.seq_id || fast.flags != slow.flags || fast.dropped != slow.dropped ||
      fast.present != slow.present || fast.meta_field != slow.meta_field ||
      fast.has_ts != slow.has_ts || fast.has_clock != slow.has_clock ||
      fast.has_seq != slow.has_seq || fast.cleared != slow.cleared ||
      fast.first_on_seq != slow.first_on_seq || fast.has_zstd != slow.has_zstd ||
      fast.unhandled != slow.unhandled || fast.malformed != slow.malformed ||
      fast.te_pre != slow.te_pre || slow.plain)
    abort();
  for (int i = 0; i < TRAK_PACKET_SPANS; i++)
    if ((fast.present >> i & 1) && (fast.span[i].data != slow.span[i].data ||
                                     fast.span[i].len != slow.span[i].len))
      abort();
  if (fast.te_pre && !te_same(&fast.te, &slow.te)) abort();
  /* plain: a sequence id and a track_event (the first span, bit 1), nothing else the full
  ** tokenizing would test for */
  if (fast.plain && (!fast.has_seq || fast.present != 1u || fast.has_clock || fast.cleared ||
                     fast.dropped || fast.first_on_seq || fast.has_zstd || fast.unhandled ||
                     fast.malformed))
    abort();
  free(buf);
  return 0;
}
