/*
** The import on two cores (pipeline.c): a decoding thread frames the binary trace into
** TracePackets and decodes their top-level fields while the importer's thread tokenizes the
** packets decoded before, in file order, so that every table is what one thread would build.
*/
#ifndef TRAK_PROCESSOR_READ_PIPELINE_H
#define TRAK_PROCESSOR_READ_PIPELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "processor/import/json/json.h"
#include "processor/import/proto/proto.h"
#include "processor/processor_internal.h"
#include "processor/read/file_map.h"

/* What the decoding thread met in the bytes, in file order. A packet's fields are kept whole:
** only their first two cache lines are written and read for a common packet (the spans past
** the first stay untouched), and a compact copy (spans as offsets) measured 30 instructions
** more per packet on the importer's thread to unpack.
** A gzip-compressed trace is inflated on the decoding thread too: its batches hold compressed
** bytes, and each piece of inflated output (a CHUNK item, as one thread's gzip_feed hands 64 KiB
** to plain_feed) sets the plain-byte counter and the bytes its packets point into. */
enum {
  TRAK_FRAME_PACKET,
  TRAK_FRAME_TOO_LARGE,
  TRAK_FRAME_CORRUPT,
  TRAK_FRAME_CHUNK,        /* inflated bytes: offset = bytes_plain after them; data, len */
  TRAK_FRAME_GZIP_CORRUPT, /* offset = the plain offset, len = compressed bytes read */
  TRAK_FRAME_GZIP_TRAILING /* the same, for data after the last gzip member */
};
typedef struct trak_frame_item {
  uint8_t kind;
  uint64_t offset;   /* stream offset of the field */
  uint64_t len;      /* TOO_LARGE: the packet's length */
  union {            /* one word: a packet's item stays as small as before gzip JSON came */
    const char *why; /* CORRUPT: what was wrong (a static string) */
    size_t ops_end;  /* gzip JSON (CHUNK, GZIP_*): the batch's JSON ops read before this item */
  };
  const uint8_t *data;   /* CHUNK: the inflated bytes (with a carried tail before them) */
  uint32_t fpre;         /* PACKET: its ftrace bundle in the batch's fpre.bundles + 1, 0: none */
  trak_packet_fields pf; /* PACKET: its fields, pointing into the batch's bytes */
} trak_frame_item;

/* A piece of the input passed from the importer's thread to the decoding thread and back. */
typedef struct trak_frame_batch {
  uint8_t *bytes; /* owned: the piece, behind the start of a packet carried from the last one;
                  ** gzip: the compressed piece */
  size_t cap;
  const uint8_t *data; /* the bytes framed or read: `bytes`, or a mapped file's, in place */
  size_t n;            /* bytes at data */
  uint64_t bytes_in, bytes_plain; /* the importer's input counters when the piece was fed */
  int call_end;                   /* gzip: the last piece of one feed call */
  TRAK_VEC(trak_bytes) chunks;    /* gzip: the inflated chunks' bytes, `n_chunks` used */
  size_t n_chunks;
  TRAK_VEC(trak_frame_item) items;
  trak_fpre_set fpre;     /* the ftrace bundles of its packets, decoded (import/proto/proto.h) */
  trak_json_ops json_ops; /* JSON: what the reader met in the piece (import/json/json.h) */
} trak_frame_batch;

/* The decoding thread's framing state: what binary_feed keeps in the processor when one
** thread frames (the tail of a packet straddling pieces, offsets, the skip of an oversized
** packet, corrupt framing). */
typedef struct trak_framer {
  trak_bytes carry;
  uint64_t offset; /* stream offset of carry's first byte */
  uint64_t skip_left;
  int dead;
  /* gzip (inf non-NULL): the processor's inflate, which only this thread touches while it runs */
  trak_inflate *inf;
  uint64_t plain; /* inflated bytes so far: the importer's bytes_plain */
} trak_framer;

typedef struct trak_pipeline trak_pipeline;

/* What the decoding thread does with the input (trak__pipeline_start's `kind`). */
enum { TRAK_PIPE_BINARY, TRAK_PIPE_GZIP, TRAK_PIPE_JSON, TRAK_PIPE_GZIP_JSON };

/* Starts the decoding thread for `p`'s binary trace, its framing from p's state (offset, carry,
** skip); with TRAK_PIPE_GZIP, the thread inflates too, taking over p->inf until the pipeline
** finishes; with TRAK_PIPE_JSON, it reads p->json's JSON (trak__json_import_read) instead, and
** with TRAK_PIPE_GZIP_JSON it inflates, then reads. Returns NULL when the thread cannot start
** (the caller frames or reads, and inflates, on its own thread). */
trak_pipeline *trak__pipeline_start(trak_processor *p, int kind);
/* Hands `len` bytes to the decoding thread (copied: the caller may reuse them), applying the
** batches already decoded when the ring of batches is full. With gzip, the bytes of one call
** are one call of one thread's gzip_feed (inflated output is cut at the same places). */
void trak__pipeline_feed(trak_pipeline *pl, const uint8_t *data, size_t len);
/* Whether the decoding thread can read the rest of the input itself (a binary or JSON trace
** not compressed: trak__pipeline_read). */
int trak__pipeline_reads(const trak_pipeline *pl);
/* Has the decoding thread read the rest of file `f` (`total` bytes, 0: unknown; in place when
** it is mapped as `m`, m NULL or unmapped: fread) into the batches in feed_file's 1 MiB reads
** (a plain binary trace's mapped packets framed in place: trak__stream_frame_mapped), releasing
** the mapped pages behind the batches applied, with the input counters one thread would have, and applies
** them here as they are decoded, calling the processor's progress callback as feed_file does;
** returns at the end of the file (feof or ferror) with the counters (p->fed, bytes_in,
** bytes_plain) set. Only when the trak__pipeline_feed calls so far were feed_file's (the
** processor's first 4 KiB hashed). */
void trak__pipeline_read(trak_pipeline *pl, FILE *f, trak_file_map *m, uint64_t total);
/* Applies every batch left, stops the thread and gives its framing state back to the processor
** (pending, plain_offset, skip_left, dead; with gzip p->inf and the importer's bytes_plain) as if one thread had framed; frees `pl`. */
void trak__pipeline_finish(trak_pipeline *pl);
/* Stops the thread without applying what is left (an import abandoned); frees `pl`. */
void trak__pipeline_free(trak_pipeline *pl);

/* The stream's files, for pipeline.c: stream_framing.c frames and decodes a batch on the
** decoding thread (touches only `fr` and `b`), stream_gzip.c inflates one, and stream.c applies
** a decoded batch (binary or JSON) on the importer's thread. */
void trak__stream_frame_batch(trak_framer *fr, trak_frame_batch *b);
/* Frames, in place, the mapped file's next packets from fr->offset (after the skip of an
** oversized packet) into `b`: those that end within one of feed_file's reads (`chunk` bytes
** each, from the file's start) and, unless the first is larger, within `piece` bytes; b->data
** and b->n are the bytes scanned, which stay mapped until released behind the importer. Makes
** them present first (trak__file_map_ready). Returns the end of that read (at most the file's
** end): the input counters one thread has while it tokenizes them; or 0 when nothing is left,
** an incomplete packet at the end carried in fr->carry as trak__stream_frame_batch carries it.
** The file must be the plain input from its first byte (stream offsets are file offsets). */
uint64_t trak__stream_frame_mapped(trak_framer *fr, trak_frame_batch *b, trak_file_map *m,
                                   size_t piece, size_t chunk);
/* The same for a batch of compressed bytes: inflated as trak__stream_gzip_feed inflates, each
** chunk framed (json NULL) or read by `json`'s reader. */
void trak__stream_inflate_batch(trak_framer *fr, trak_json_import *json, trak_frame_batch *b);
void trak__stream_apply_batch(trak_processor *p, trak_frame_batch *b);

#endif /* TRAK_PROCESSOR_READ_PIPELINE_H */
