/*
** This file holds gzip undone on the fly: one inflate loop (inflate_run) for either thread,
** members concatenated read in turn, trailing data or corrupt data reported; on the importer's
** thread its chunks go to the plain stream, on the decoding thread they are framed (or read
** by the JSON reader) into a batch, which then takes over the rest of the input.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/json/json.h"
#include "processor/read/stream.h"

/* The gzip stream's problems, reported at `plain_offset` with the compressed bytes read:
** trailing data after the last member (ignored), or corrupt data (the rest skipped). */
void trak__stream_gzip_problem(trak_processor *p, uint64_t plain_offset, uint64_t member_in,
                               int trailing) {
  p->imp->packet_offset = plain_offset;
  trak__report(p->imp, TRAK_STAT_TRACE_CORRUPT,
               trailing ? "trailing data after the last gzip member, at compressed byte %llu; "
                          "ignored it"
                        : "corrupt gzip data at compressed byte %llu; skipped the rest",
               (unsigned long long)member_in);
}

/* What the inflate loop (inflate_run) hands its caller: a chunk of inflated bytes
** (inf->chunk, inf->fill bytes), corrupt data, or trailing data after the last member. */
enum { INFLATE_CHUNK, INFLATE_CORRUPT, INFLATE_TRAILING };
/* `may_stop`: a chunk with input left after it, where the caller may take the rest (returns
** nonzero: inflate_run returns, the rest in inf->z.next_in, avail_in); otherwise returns 0. */
typedef int (*inflate_emit)(void *ctx, int what, int may_stop);

/* After a gzip member's end (inf->ended == 1), input that starts another member (cat a.gz b.gz
** makes such files, as do log shippers) restarts inflate on it; anything else is trailing
** garbage, reported once and ignored (ended = 2: nothing more is read). */
static int inflate_next_member(trak_inflate *inf, const uint8_t *data, inflate_emit emit,
                               void *ctx) {
  if (data[0] == 0x1f) { /* a second magic byte that is not 0x8b fails in inflate, reported */
    inflateReset(&inf->z);
    inf->ended = 0;
    return 1;
  }
  emit(ctx, INFLATE_TRAILING, 0);
  inf->ended = 2;
  return 0;
}

/* Inflates `len` bytes of one feed call (`call_end`: its last piece), on either thread. A chunk
** ends when full, at a member's end or an error, or where the call's input ends; a piece's end
** inside a call keeps filling the chunk with the next piece, so the chunks, and the framing of
** what they hold, are the same whichever thread inflates and however a call is cut in pieces. */
static void inflate_run(trak_inflate *inf, const uint8_t *data, size_t len, int call_end,
                        inflate_emit emit, void *ctx) {
  z_stream *z = &inf->z;
  if (inf->ended == 2 || !len) return;
  if (inf->ended && !inflate_next_member(inf, data, emit, ctx)) return;
  z->next_in = (Bytef *)data;
  z->avail_in = (uInt)len;
  for (;;) {
    z->next_out = inf->chunk + inf->fill;
    z->avail_out = (uInt)(TRAK_INFLATE_CHUNK - inf->fill);
    uLong before = z->total_in;
    int rc = inflate(z, Z_NO_FLUSH);
    inf->member_in += z->total_in - before;
    inf->fill = TRAK_INFLATE_CHUNK - z->avail_out;
    int full = z->avail_out == 0;
    if (rc == Z_BUF_ERROR && !call_end) return; /* no progress: the next piece continues */
    if (full || rc != Z_OK || (!z->avail_in && call_end)) {
      int stop = emit(ctx, INFLATE_CHUNK, rc == Z_OK && z->avail_in);
      inf->fill = 0;
      if (stop) return;
    }
    if (rc == Z_STREAM_END) {
      inf->ended = 1;
      if (!z->avail_in || !inflate_next_member(inf, z->next_in, emit, ctx)) return;
      continue;
    }
    if (rc == Z_BUF_ERROR) return; /* needs more input */
    if (rc != Z_OK) {
      emit(ctx, INFLATE_CORRUPT, 0);
      inf->ended = 2;
      return;
    }
    if (!z->avail_in && !full) return;
  }
}

typedef struct inflate_batch_ctx {
  trak_framer *fr;
  trak_json_import *json; /* a JSON trace's reader, or NULL: binary, framed */
  trak_frame_batch *b;
} inflate_batch_ctx;

/* A gzip problem kept as an item of the batch (at plain offset `offset`), after `ops_end` of
** its JSON ops. */
static void gzip_item(trak_framer *fr, trak_frame_batch *b, int what, uint64_t offset) {
  trak_vec_push(b->items,
                ((trak_frame_item){.kind = what == INFLATE_CORRUPT ? TRAK_FRAME_GZIP_CORRUPT
                                                                   : TRAK_FRAME_GZIP_TRAILING,
                                   .offset = offset,
                                   .len = fr->inf->member_in,
                                   .ops_end = b->json_ops.n}));
}

/* The inflated chunk counted (the plain byte count grows) and copied to a chunk buffer of the
** batch, which outlives inflate's next output; returns that buffer. */
static trak_bytes *chunk_keep(trak_framer *fr, trak_frame_batch *b) {
  size_t fill = fr->inf->fill;
  fr->plain += fill;
  if (b->n_chunks == b->chunks.n) trak_vec_push(b->chunks, ((trak_bytes){0}));
  trak_bytes *c = &b->chunks.v[b->n_chunks++];
  trak__grow((void **)&c->v, &c->cap, fill ? fill : 1, 1);
  memcpy(c->v, fr->inf->chunk, fill);
  c->n = fill;
  return c;
}

/* The decoding thread's side of inflate_run: a chunk is handed on as one thread's gzip_emit
** hands it to trak__stream_plain_feed (the plain byte count grows, then the chunk is framed, or
** read by the JSON reader: its bytes are copied to a chunk buffer of the batch, which its
** packets or the read events' spans point into; a CHUNK item records the count, and for JSON
** the ops read so far); problems are kept as items (between the ops) for the importer's thread
** to report. */
static int inflate_batch_emit(void *ctx, int what, int may_stop) {
  (void)may_stop;
  inflate_batch_ctx *x = ctx;
  trak_framer *fr = x->fr;
  trak_frame_batch *b = x->b;
  if (what != INFLATE_CHUNK) {
    gzip_item(fr, b, what, x->json ? fr->plain : fr->offset);
    return 0;
  }
  trak_bytes *c = chunk_keep(fr, b);
  if (x->json) {
    trak__json_import_read(x->json, c->v, c->n, &b->json_ops);
    trak_vec_push(b->items,
                  ((trak_frame_item){
                      .kind = TRAK_FRAME_CHUNK, .offset = fr->plain, .ops_end = b->json_ops.n}));
    return 0;
  }
  size_t at = b->items.n;
  trak_vec_push(b->items, ((trak_frame_item){.kind = TRAK_FRAME_CHUNK, .offset = fr->plain}));
  trak__stream_frame_piece(fr, b, &c->v, &c->n, &c->cap);
  b->items.v[at].data = c->v, b->items.v[at].len = c->n; /* where framing left them */
  return 0;
}

void trak__stream_inflate_batch(trak_framer *fr, trak_json_import *json, trak_frame_batch *b) {
  b->items.n = b->n_chunks = b->fpre.bundles.n = b->fpre.evs.n = 0;
  inflate_batch_ctx ctx = {fr, json, b};
  b->data = b->bytes;
  inflate_run(fr->inf, b->bytes, b->n, b->call_end, inflate_batch_emit, &ctx);
  trak__ftrace_predecode_done(&b->fpre);
}

/* Whether the rest of a gzip-compressed binary or JSON trace is inflated on the decoding
** thread: once the format is known (from the first inflated bytes, framed or read on this
** thread), the thread is started and takes over inflate's state (and the JSON reader's).
** trak__stream_binary_feed and stream.c's plain_dispatch start no pipeline for gzip: a running
** one is this one. */
static int gzip_pipeline(trak_processor *p) {
  if (!p->pipe && p->import_threads > 1 && !p->sink && !p->dead && p->inf.live && !p->inf.ended) {
    if (p->format == TRAK_FORMAT_PROTO)
      p->pipe = trak__pipeline_start(p, TRAK_PIPE_GZIP);
    else if (p->format == TRAK_FORMAT_JSON && p->json)
      p->pipe = trak__pipeline_start(p, TRAK_PIPE_GZIP_JSON);
  }
  return p->pipe != NULL;
}

/* The importer's thread's side of inflate_run: chunks go to trak__stream_plain_feed, problems
** are reported; once the decoding thread starts, it takes the rest of the call's input. */
static int gzip_emit(void *ctx, int what, int may_stop) {
  trak_processor *p = ctx;
  if (what != INFLATE_CHUNK) {
    trak__stream_gzip_problem(p, p->plain_offset, p->inf.member_in, what == INFLATE_TRAILING);
    return 0;
  }
  trak__stream_plain_feed(p, p->inf.chunk, p->inf.fill, 0);
  return may_stop && gzip_pipeline(p);
}

void trak__stream_gzip_feed(trak_processor *p, const uint8_t *data, size_t len) {
  if (gzip_pipeline(p)) {
    trak__pipeline_feed(p->pipe, data, len);
    return;
  }
  if (p->inf.ended == 2 || !len) return;
  if (!p->inf.live) {
    memset(&p->inf, 0, sizeof p->inf);
    p->inf.chunk = malloc(TRAK_INFLATE_CHUNK);
    if (!p->inf.chunk || inflateInit2(&p->inf.z, 15 + 16) != Z_OK) abort();
    p->inf.live = 1;
  }
  inflate_run(&p->inf, data, len, 1, gzip_emit, p);
  if (p->pipe && p->inf.z.avail_in) /* the rest of this call's input, from the handover on */
    trak__pipeline_feed(p->pipe, p->inf.z.next_in, p->inf.z.avail_in);
}
