/*
** The interface between the files of the input stream: stream.c (bytes fed in any split, the
** format recognised, each format's bytes dispatched; the decoding thread's batches applied),
** stream_framing.c (a binary trace cut into TracePackets), stream_gzip.c (gzip undone on the
** fly, on either thread) and stream_text.c (a text-format trace cut into fields, parsed and
** framed). Their entry points for the processor are processor_internal.h's, for the decoding
** thread pipeline.h's; this header is for these four files only.
*/
#ifndef TRAK_READ_STREAM_H
#define TRAK_READ_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "processor/processor_internal.h"
#include "processor/read/pipeline.h"

/* Appends [data, data + len) to `b`, growing it (aborts when out of memory, as trak__grow). */
static inline void trak__bytes_append(trak_bytes *b, const uint8_t *data, size_t len) {
  if (!len) return;
  trak__grow((void **)&b->v, &b->cap, b->n + len, 1);
  memcpy(b->v + b->n, data, len);
  b->n += len;
}

/* ---- stream.c ------------------------------------------------------------------------------ */

/* Feeds plain (un-gzipped) bytes: the first SNIFF_BYTES (or all, `final`) name the format,
** then each piece goes to the format's reader. Counts them in imp->bytes_plain. Can't fail:
** problems are reported. */
void trak__stream_plain_feed(trak_processor *p, const uint8_t *data, size_t len, int final);

/* ---- stream_framing.c ---------------------------------------------------------------------- */

/* A malformed frame at stream offset `offset` (`why` says how): reported, and the rest of the
** trace skipped (p->dead). */
__attribute__((cold)) void trak__stream_corrupt(trak_processor *p, uint64_t offset,
                                                const char *why);
/* A packet of `len` bytes at `offset`, over the size limit: reported and counted as a packet;
** the caller skips its bytes. */
__attribute__((cold)) void trak__stream_too_large(trak_processor *p, uint64_t offset, uint64_t len);
/* Frames the complete packets at the start of [data, data + len), whose first byte is at
** stream offset `base`, on the importer's thread: tokenizes them (or hands them to the reader
** mode's sink). Returns the number of bytes consumed; the rest is an incomplete field that
** needs more input. */
size_t trak__stream_frame(trak_processor *p, const uint8_t *data, size_t len, uint64_t base);
/* Frames one piece of plain bytes on the decoding thread into `b`'s items as
** trak__stream_binary_feed frames a call's bytes: the skip of an oversized packet first, the
** carried tail of a packet straddling pieces put before the piece, the new tail carried. `*buf`
** holds the piece in [0, *n) and grows (`*cap`) to take the tail; on return [0, *n) holds
** what was framed. */
void trak__stream_frame_piece(trak_framer *fr, trak_frame_batch *b, uint8_t **buf, size_t *n,
                              size_t *cap);
/* Feeds plain bytes of a binary trace: to the decoding thread (started here when two import
** threads are asked for), or framed here, a packet straddling two calls kept in p->pending. */
void trak__stream_binary_feed(trak_processor *p, const uint8_t *data, size_t len);

/* ---- stream_gzip.c ------------------------------------------------------------------------- */

/* The gzip stream's problems, reported at `plain_offset` with the compressed bytes read
** (`member_in`): trailing data after the last member (ignored), or corrupt data (the rest
** skipped). */
__attribute__((cold)) void trak__stream_gzip_problem(trak_processor *p, uint64_t plain_offset,
                                                     uint64_t member_in, int trailing);
/* Feeds gzip-compressed bytes: inflated here, each chunk to trak__stream_plain_feed, or handed
** to the decoding thread once it runs (from the call where the format becomes known). Can't
** fail: corrupt data is reported and the rest ignored. */
void trak__stream_gzip_feed(trak_processor *p, const uint8_t *data, size_t len);

/* ---- stream_text.c ------------------------------------------------------------------------- */

/* Feeds bytes of a text-format trace: its complete top-level fields (in batches) are parsed to
** binary and framed; a syntax error is reported and ends the import (p->dead). Counts the
** bytes in p->plain_offset. */
void trak__stream_text_feed(trak_processor *p, const uint8_t *data, size_t len);
/* The end of a text-format trace: its last fields parsed (the cutter started for an empty
** text). */
void trak__stream_text_finish(trak_processor *p);

#endif
