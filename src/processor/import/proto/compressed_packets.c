/*
** This file holds TracePacket.compressed_packets: each level is inflated within the limits
** (util/limits.h) and its packets tokenized in order, then the rest of the packet holding them;
** nesting is walked with an explicit stack, never by recursion.
*/
#include <stdlib.h>

#include "processor/import/proto/packet.h"
#include "processor/util/inflate.h"
#include "util/limits.h"

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
void trak__compressed_packets(trak_importer *imp, const packet_fields *top) {
  inflated_level stack[TRAK_LIMIT_COMPRESSED_DEPTH];
  int depth = 0;
  size_t open_bytes = 0;
  const uint8_t *base = imp->base, *limit = imp->limit;
  if (inflate_level(imp, top, 0, &stack[0])) {
    trak__packet_body(imp, top);
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
      trak__packet_body(imp, &owner);
      continue;
    }
    if (f.number != TRAK_PB_Trace_packet || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    imp->packet_index++;
    imp->base = lv->plain, imp->limit = lv->plain + lv->len;
    packet_fields pf;
    trak__packet_decode_in(imp, f.data, f.len, &pf);
    if (!HAS(&pf, P_COMPRESSED)) {
      trak__packet_body(imp, &pf);
    } else if (depth == TRAK_LIMIT_COMPRESSED_DEPTH) {
      trak__report(imp, TRAK_STAT_COMPRESSED_TOO_DEEP,
                   "compressed_packets nested deeper than %d levels; the innermost skipped",
                   TRAK_LIMIT_COMPRESSED_DEPTH);
      trak__packet_body(imp, &pf);
    } else if (!inflate_level(imp, &pf, open_bytes, &stack[depth])) {
      open_bytes += stack[depth++].len;
    } else {
      trak__packet_body(imp, &pf);
    }
  }
  imp->base = base, imp->limit = limit;
}
