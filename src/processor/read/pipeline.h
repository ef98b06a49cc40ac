/*
** The import on two cores (pipeline.c): a decoding thread frames the binary trace into
** TracePackets and decodes their top-level fields while the importer's thread tokenizes the
** packets decoded before, in file order, so that every table is what one thread would build.
*/
#ifndef TRAK_PROCESSOR_READ_PIPELINE_H
#define TRAK_PROCESSOR_READ_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "processor/import/proto/proto.h"
#include "processor/processor_internal.h"

/* What the decoding thread met in the bytes, in file order. A packet's decoded fields are kept
** compact (a trak_packet_fields is 4 cache lines, mostly empty spans), as the importer's thread
** reads them from the other core's writes: its spans are offsets into the packet, in the batch's
** `spans`, one per bit of `present`. */
enum { TRAK_FRAME_PACKET, TRAK_FRAME_TOO_LARGE, TRAK_FRAME_CORRUPT };
typedef struct trak_frame_span {
  uint32_t off, len; /* from the packet's first byte */
} trak_frame_span;
typedef struct trak_frame_item {
  uint64_t offset; /* stream offset of the field */
  union {
    const char *why;    /* CORRUPT: what was wrong (a static string) */
    uint64_t too_large; /* TOO_LARGE: the packet's length */
    uint64_t timestamp; /* PACKET: trak_packet_fields.timestamp */
  } u;
  uint32_t kind, data_off, len; /* PACKET: the packet at bytes + data_off, of len bytes */
  uint32_t clock_id, seq_id, flags, dropped, present, meta_field;
  uint32_t first_span; /* index in the batch's spans of the packet's first */
  uint8_t has_ts, has_clock, has_seq, cleared, first_on_seq, has_zstd, unhandled, malformed;
} trak_frame_item;

/* A piece of the input passed from the importer's thread to the decoding thread and back. */
typedef struct trak_frame_batch {
  uint8_t *bytes; /* owned: the piece, behind the start of a packet carried from the last one */
  size_t n, cap;
  uint64_t bytes_in, bytes_plain; /* the importer's input counters when the piece was fed */
  TRAK_VEC(trak_frame_item) items;
  TRAK_VEC(trak_frame_span) spans;
} trak_frame_batch;

/* Keeps the decoded packet `pf` (inside b->bytes) in `it` (on the decoding thread). */
static inline void trak__frame_item_pack(trak_frame_batch *b, trak_frame_item *it,
                                         const trak_packet_fields *pf) {
  it->kind = TRAK_FRAME_PACKET;
  it->data_off = (uint32_t)(pf->raw - b->bytes), it->len = (uint32_t)pf->raw_len;
  it->u.timestamp = pf->timestamp;
  it->clock_id = pf->clock_id, it->seq_id = pf->seq_id, it->flags = pf->flags;
  it->dropped = pf->dropped, it->present = pf->present, it->meta_field = pf->meta_field;
  it->has_ts = pf->has_ts, it->has_clock = pf->has_clock, it->has_seq = pf->has_seq;
  it->cleared = pf->cleared, it->first_on_seq = pf->first_on_seq, it->has_zstd = pf->has_zstd;
  it->unhandled = pf->unhandled, it->malformed = pf->malformed;
  it->first_span = (uint32_t)b->spans.n;
  for (uint32_t bits = pf->present; bits; bits &= bits - 1) {
    const trak_span *sp = &pf->span[__builtin_ctz(bits)];
    trak_vec_push(b->spans, ((trak_frame_span){(uint32_t)(sp->data - pf->raw), (uint32_t)sp->len}));
  }
}

/* The decoded packet of `it` back in full (on the importer's thread). */
static inline void trak__frame_item_unpack(const trak_frame_batch *b, const trak_frame_item *it,
                                           trak_packet_fields *pf) {
  const uint8_t *raw = b->bytes + it->data_off;
  pf->timestamp = it->u.timestamp;
  pf->clock_id = it->clock_id, pf->seq_id = it->seq_id, pf->flags = it->flags;
  pf->dropped = it->dropped, pf->present = it->present, pf->meta_field = it->meta_field;
  pf->raw = raw, pf->raw_len = it->len;
  pf->has_ts = it->has_ts, pf->has_clock = it->has_clock, pf->has_seq = it->has_seq;
  pf->cleared = it->cleared, pf->first_on_seq = it->first_on_seq, pf->has_zstd = it->has_zstd;
  pf->unhandled = it->unhandled, pf->malformed = it->malformed;
  const trak_frame_span *sp = b->spans.v + it->first_span;
  for (uint32_t bits = it->present; bits; bits &= bits - 1, sp++)
    pf->span[__builtin_ctz(bits)] = (trak_span){raw + sp->off, sp->len};
}

/* The decoding thread's framing state: what binary_feed keeps in the processor when one
** thread frames (the tail of a packet straddling pieces, offsets, the skip of an oversized
** packet, corrupt framing). */
typedef struct trak_framer {
  trak_bytes carry;
  uint64_t offset; /* stream offset of carry's first byte */
  uint64_t skip_left;
  int dead;
} trak_framer;

typedef struct trak_pipeline trak_pipeline;

/* How many threads an import of `size` bytes (0: unknown) uses: TRAK_IMPORT_THREADS=1 or 2
** when set, else 2 for a trace of 4 MiB or more (or of unknown size) on a machine with two
** cores or more, else 1. */
int trak__import_threads(uint64_t size);
/* Starts the decoding thread for `p`'s binary trace, its framing from p's state (offset, carry,
** skip). Returns NULL when the thread cannot start (the caller frames on its own thread). */
trak_pipeline *trak__pipeline_start(trak_processor *p);
/* Hands `len` bytes to the decoding thread (copied: the caller may reuse them), applying the
** batches already decoded when the ring of batches is full. */
void trak__pipeline_feed(trak_pipeline *pl, const uint8_t *data, size_t len);
/* Applies every batch left, stops the thread and gives its framing state back to the processor
** (pending, plain_offset, skip_left, dead) as if one thread had framed; frees `pl`. */
void trak__pipeline_finish(trak_pipeline *pl);
/* Stops the thread without applying what is left (an import abandoned); frees `pl`. */
void trak__pipeline_free(trak_pipeline *pl);

/* stream.c, for pipeline.c: frames and decodes a batch on the decoding thread (touches only
** `fr` and `b`), and applies a decoded batch on the importer's thread. */
void trak__stream_frame_batch(trak_framer *fr, trak_frame_batch *b);
void trak__stream_apply_batch(trak_processor *p, trak_frame_batch *b);

#endif /* TRAK_PROCESSOR_READ_PIPELINE_H */
