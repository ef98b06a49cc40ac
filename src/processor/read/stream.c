/*
** This file holds the input stream: bytes fed in any split are un-gzipped on the fly, the
** format is recognised from the first bytes, and a binary trace is cut into TracePackets as
** they complete (a packet straddling two feeds waits in `pending`). A text trace is cut into
** its top-level fields as they complete (text_split.c); each is parsed to binary and framed
** like a binary trace, so memory holds one field's text and binary, not the whole trace.
** Malformed framing, a truncated end or a text syntax error are reported with their position;
** everything before them is kept.
*/
#include <limits.h>
#include <string.h>

#include "processor/import/json/json.h"
#include "processor/import/proto/proto.h"
#include "processor/import/systrace/systrace.h"
#include "processor/processor_internal.h"
#include "processor/read/pipeline.h"
#include "trak/pbtxt.h"
#include "util/limits.h"

#define SNIFF_BYTES 4096
#define TEXT_BATCH (64u << 10) /* text bytes parsed per call, to spread its fixed cost */

static void bytes_append(trak_bytes *b, const uint8_t *data, size_t len) {
  if (!len) return;
  trak__grow((void **)&b->v, &b->cap, b->n + len, 1);
  memcpy(b->v + b->n, data, len);
  b->n += len;
}

__attribute__((cold)) static void corrupt(trak_processor *p, uint64_t offset, const char *why) {
  p->imp->packet_offset = offset;
  trak__report(p->imp, TRAK_STAT_TRACE_CORRUPT,
               "malformed trace at byte %llu (%s); skipped the rest of the trace",
               (unsigned long long)offset, why);
  p->dead = 1;
}

/* A packet over the size limit: it is skipped (frame() and binary_feed() drop its bytes as
** they come, without holding them) and the packets after it are kept. */
__attribute__((cold)) static void too_large(trak_processor *p, uint64_t offset, uint64_t len) {
  p->imp->packet_offset = offset;
  trak__report(p->imp, TRAK_STAT_PACKET_TOO_LARGE,
               "packet at byte %llu is %llu bytes, over the %u MiB limit; skipped it",
               (unsigned long long)offset, (unsigned long long)len, TRAK_LIMIT_PACKET_BYTES >> 20);
  p->imp->packet_index++;
}

/* The gzip stream's problems, reported at `plain_offset` with the compressed bytes read:
** trailing data after the last member (ignored), or corrupt data (the rest skipped). */
__attribute__((cold)) static void gzip_problem(trak_processor *p, uint64_t plain_offset,
                                               uint64_t member_in, int trailing) {
  p->imp->packet_offset = plain_offset;
  trak__report(p->imp, TRAK_STAT_TRACE_CORRUPT,
               trailing ? "trailing data after the last gzip member, at compressed byte %llu; "
                          "ignored it"
                        : "corrupt gzip data at compressed byte %llu; skipped the rest",
               (unsigned long long)member_in);
}

/* trak_pb_read_varint with the one- and two-byte cases inline: packet tags and lengths. */
static inline int read_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out,
                              const char **why) {
  const uint8_t *p = *pp;
  if (TRAK_LIKELY(end - p >= 2)) {
    if (p[0] < 0x80) {
      *out = p[0];
      *pp = p + 1;
      return 0;
    }
    if (p[1] < 0x80) {
      *out = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
      *pp = p + 2;
      return 0;
    }
  }
  return trak_pb_read_varint(pp, end, out, why);
}

/* Reader mode (trak__read_packets): hands a whole top-level field to the sink. A packet whose
** fields do not decode is reported and held back, so what is copied is a valid trace. */
static void sink_field(trak_processor *p, const uint8_t *field, size_t len, int is_packet,
                       size_t body, uint64_t offset) {
  if (is_packet) {
    p->imp->packet_offset = offset;
    trak_pb_decoder dec;
    trak_pb_field f;
    int rc;
    trak_pb_decoder_init(&dec, field + len - body, body);
    while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    }
    if (rc < 0) {
      trak__report(p->imp, TRAK_STAT_PACKET_MALFORMED,
                   "packet at byte %llu does not decode (at its byte %zu); skipped it",
                   (unsigned long long)offset, dec.error_offset);
      p->imp->packet_index++;
      return;
    }
    p->imp->packet_index++;
  }
  p->sink(p->sink_user, field, len);
}

/* What framing meets, done at once (`out` NULL: the importer's thread) or kept in `out` in file
** order for trak__stream_apply_batch (the decoding thread, read/pipeline.c, where nothing of the
** import may be touched). `dead` and `skip_left` are the framer's: the processor's, or the
** decoding thread's own. */
static inline __attribute__((always_inline)) void framed_corrupt(trak_processor *p, int *dead,
                                                                 trak_frame_batch *out,
                                                                 uint64_t offset, const char *why) {
  if (!out) {
    corrupt(p, offset, why);
    return;
  }
  *dead = 1;
  trak_vec_push(out->items,
                ((trak_frame_item){.kind = TRAK_FRAME_CORRUPT, .offset = offset, .why = why}));
}

static inline __attribute__((always_inline)) void
framed_too_large(trak_processor *p, trak_frame_batch *out, uint64_t offset, uint64_t len) {
  if (!out)
    too_large(p, offset, len);
  else
    trak_vec_push(out->items,
                  ((trak_frame_item){.kind = TRAK_FRAME_TOO_LARGE, .offset = offset, .len = len}));
}

/* Frames the complete packets at the start of [data, data + len) whose first byte is at
** stream offset `base`: tokenizes them (out NULL) or decodes them into `out`. Returns the
** number of bytes consumed; the rest is an incomplete field that needs more input. */
static inline __attribute__((always_inline)) size_t
frame_scan(trak_processor *p, int *dead, uint64_t *skip_left, const uint8_t *data, size_t len,
           uint64_t base, trak_frame_batch *out) {
  if (!len) return 0;
  if (!out) {
    p->imp->base = data;
    p->imp->limit = data + len;
  }
  size_t pos = 0;
  const uint8_t *end = data + len;
  while (pos < len && !*dead) {
    const uint8_t *q = data + pos;
    uint64_t tag, v;
    const char *why;
    uint32_t field, wt;
    size_t body = 0;
    /* A packet's one-byte tag and a length of one or two bytes (under every limit): the
    ** common case, tested at once; anything else is read field by field below. */
    if (TRAK_LIKELY(end - q >= 3 && q[0] == (TRAK_PB_Trace_packet << 3 | TRAK_PB_WIRE_LEN) &&
                    (q[1] < 0x80 || q[2] < 0x80))) {
      field = TRAK_PB_Trace_packet, wt = TRAK_PB_WIRE_LEN;
      if (q[1] < 0x80)
        body = q[1], q += 2;
      else
        body = (size_t)(q[1] & 0x7f) | (size_t)q[2] << 7, q += 3;
      goto framed;
    }
    if (read_varint(&q, end, &tag, &why)) {
      if (end - (data + pos) < TRAK_PB_MAX_VARINT_BYTES) return pos;
      framed_corrupt(p, dead, out, base + pos, why);
      return pos;
    }
    field = (uint32_t)(tag >> 3), wt = (uint32_t)(tag & 7);
    if (field == 0) {
      framed_corrupt(p, dead, out, base + pos, "field number 0");
      return pos;
    }
    switch (wt) {
    case TRAK_PB_WIRE_VARINT:
      if (read_varint(&q, end, &v, &why)) {
        if (end - q < TRAK_PB_MAX_VARINT_BYTES) return pos;
        framed_corrupt(p, dead, out, base + pos, why);
        return pos;
      }
      break;
    case TRAK_PB_WIRE_FIXED64:
      body = 8;
      break;
    case TRAK_PB_WIRE_FIXED32:
      body = 4;
      break;
    case TRAK_PB_WIRE_LEN:
      if (read_varint(&q, end, &v, &why)) {
        if (end - q < TRAK_PB_MAX_VARINT_BYTES) return pos;
        framed_corrupt(p, dead, out, base + pos, why);
        return pos;
      }
      if (v > TRAK_LIMIT_PACKET_BYTES) {
        framed_too_large(p, out, base + pos, v);
        if ((uint64_t)(end - q) >= v) {
          pos = (size_t)(q - data) + (size_t)v;
          continue;
        }
        *skip_left = v - (uint64_t)(end - q);
        pos = len;
        continue;
      }
      body = (size_t)v;
      break;
    default:
      framed_corrupt(p, dead, out, base + pos, "invalid wire type");
      return pos;
    }
  framed:
    if ((size_t)(end - q) < body) return pos;
    if (out) {
      if (field == TRAK_PB_Trace_packet && wt == TRAK_PB_WIRE_LEN) {
        if (out->items.n == out->items.cap)
          trak__grow((void **)&out->items.v, &out->items.cap, out->items.n + 1,
                     sizeof *out->items.v);
        trak_frame_item *it = &out->items.v[out->items.n++];
        it->kind = TRAK_FRAME_PACKET;
        it->offset = base + pos;
        trak__packet_decode(data, end, q, body, &it->pf);
        it->fpre = trak__ftrace_predecode(end, &it->pf, &out->fpre);
      }
    } else if (p->sink) {
      sink_field(p, data + pos, (size_t)(q - data) + body - pos,
                 field == TRAK_PB_Trace_packet && wt == TRAK_PB_WIRE_LEN, body, base + pos);
    } else if (field == TRAK_PB_Trace_packet && wt == TRAK_PB_WIRE_LEN) {
      p->imp->packet_offset = base + pos;
      trak__packet_tokenize(p->imp, q, body);
      p->imp->packet_index++;
    }
    pos = (size_t)(q - data) + body;
  }
  if (!out) p->imp->base = p->imp->limit = NULL;
  return pos;
}

static size_t frame(trak_processor *p, const uint8_t *data, size_t len, uint64_t base) {
  return frame_scan(p, &p->dead, &p->skip_left, data, len, base, NULL);
}

/* Frames one piece of plain bytes on the decoding thread as binary_feed frames a call's bytes
** on the importer's: the skip of an oversized packet first, then the carried tail of a packet
** straddling pieces put before the piece, the complete packets decoded into `b`'s items, the new
** tail carried. `*buf` holds the piece in [0, *n) and grows (cap) to take the tail. */
static void frame_piece(trak_framer *fr, trak_frame_batch *b, uint8_t **buf, size_t *n,
                        size_t *cap) {
  size_t skip = 0;
  if (fr->skip_left && *n) {
    skip = fr->skip_left < *n ? (size_t)fr->skip_left : *n;
    fr->skip_left -= skip, fr->offset += skip;
  }
  if (fr->dead || skip == *n) {
    *n = 0;
    return;
  }
  size_t rest = *n - skip;
  int carried = fr->carry.n != 0;
  if (carried) { /* the packet straddling the pieces: its start goes before this piece */
    trak__grow((void **)buf, cap, fr->carry.n + rest, 1);
    memmove(*buf + fr->carry.n, *buf + skip, rest);
    memcpy(*buf, fr->carry.v, fr->carry.n);
    *n = fr->carry.n + rest;
    fr->carry.n = 0;
  } else if (skip) {
    memmove(*buf, *buf + skip, rest);
    *n = rest;
  }
  size_t used = frame_scan(NULL, &fr->dead, &fr->skip_left, *buf, *n, fr->offset, b);
  fr->offset += used;
  /* as binary_feed keeps it: a carried tail even past corruption, a new one only before it */
  if (carried || !fr->dead) bytes_append(&fr->carry, *buf + used, *n - used);
}

void trak__stream_frame_batch(trak_framer *fr, trak_frame_batch *b) {
  b->items.n = b->fpre.bundles.n = b->fpre.evs.n = 0;
  frame_piece(fr, b, &b->bytes, &b->n, &b->cap);
  b->data = b->bytes;
  trak__ftrace_predecode_done(&b->fpre);
}

/* The end of the read of `chunk` bytes (reads cut the file from its start) holding byte `at`. */
static uint64_t read_end(uint64_t at, size_t chunk) {
  return (at / chunk + 1) * chunk;
}

uint64_t trak__stream_frame_mapped(trak_framer *fr, trak_frame_batch *b, trak_file_map *m,
                                   size_t piece, size_t chunk) {
  b->items.n = b->fpre.bundles.n = b->fpre.evs.n = 0;
  fr->carry.n = 0; /* a carried tail is the file's bytes from fr->offset: read there again */
  uint64_t off = fr->offset;
  if (fr->skip_left && off < m->end) {
    uint64_t n = fr->skip_left < m->end - off ? fr->skip_left : m->end - off;
    fr->skip_left -= n, fr->offset = off += n;
  }
  if (fr->dead || off >= m->end) return 0;
  uint64_t e = off + piece < read_end(off, chunk) ? off + piece : read_end(off, chunk);
  size_t used;
  for (;;) { /* the window [off, e) grows while its first packet does not fit, within a read */
    e = trak__file_map_ready(m, e < m->end ? (size_t)e : m->end);
    if (e <= off) return 0; /* the file shrank below the window since it was mapped */
    used = frame_scan(NULL, &fr->dead, &fr->skip_left, m->data + off, (size_t)(e - off), off, b);
    if (used || fr->dead || e >= m->end) break;
    uint64_t grow = e - off < piece ? piece : 2 * (e - off), next = read_end(e, chunk);
    e = off + grow < next ? off + grow : next;
  }
  if (!used && !b->items.n) { /* the file ends inside a packet: carried as frame_piece does */
    if (!fr->dead) bytes_append(&fr->carry, m->data + off, (size_t)(m->end - off));
    return 0;
  }
  fr->offset = off + used;
  b->data = m->data + off, b->n = (size_t)(e - off);
  trak__ftrace_predecode_done(&b->fpre);
  uint64_t in = read_end(e - 1, chunk);
  return in < m->end ? in : m->end;
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
** hands it to plain_feed (the plain byte count grows, then the chunk is framed, or read by the
** JSON reader: its bytes are copied to a chunk buffer of the batch, which its packets or the
** read events' spans point into; a CHUNK item records the count, and for JSON the ops read so
** far); problems are kept as items (between the ops) for the importer's thread to report. */
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
  frame_piece(fr, b, &c->v, &c->n, &c->cap);
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

/* A JSON batch on the importer's thread: its ops in order, each gzip chunk's under the
** plain-byte count one thread has while reading that chunk, gzip problems where they came. */
static void apply_json_batch(trak_processor *p, trak_frame_batch *b) {
  trak_json_ops *ops = &b->json_ops;
  if (!b->items.n) { /* plain JSON: one piece, counted when it was fed */
    trak__json_import_apply(p->json, ops, 0, ops->n);
    ops->n = 0;
    return;
  }
  size_t done = 0;
  for (size_t i = 0; i < b->items.n; i++) {
    trak_frame_item *it = &b->items.v[i];
    if (it->kind == TRAK_FRAME_CHUNK) p->imp->bytes_plain = it->offset;
    trak__json_import_apply(p->json, ops, done, it->ops_end);
    done = it->ops_end;
    if (it->kind != TRAK_FRAME_CHUNK)
      gzip_problem(p, it->offset, it->len, it->kind == TRAK_FRAME_GZIP_TRAILING);
  }
  ops->n = 0;
}

void trak__stream_apply_batch(trak_processor *p, trak_frame_batch *b) {
  trak_importer *imp = p->imp;
  uint64_t bytes_in = imp->bytes_in, bytes_plain = imp->bytes_plain;
  /* the input counted as when the single thread would tokenize these packets (limits use it) */
  imp->bytes_in = b->bytes_in, imp->bytes_plain = b->bytes_plain;
  if (p->format == TRAK_FORMAT_JSON) {
    apply_json_batch(p, b);
    imp->bytes_in = bytes_in, imp->bytes_plain = bytes_plain;
    return;
  }
  imp->base = b->data, imp->limit = b->data + b->n;
  for (size_t i = 0; i < b->items.n; i++) {
    trak_frame_item *it = &b->items.v[i];
    if (it->kind == TRAK_FRAME_PACKET) {
      imp->packet_offset = it->offset;
      imp->ftrace_pre = it->fpre ? &b->fpre.bundles.v[it->fpre - 1] : NULL;
      trak__packet_tokenize_decoded(imp, &it->pf);
      imp->ftrace_pre = NULL;
      imp->packet_index++;
    } else if (it->kind == TRAK_FRAME_CHUNK) {
      imp->bytes_plain = it->offset;
      imp->base = it->data, imp->limit = it->data + it->len;
    } else if (it->kind == TRAK_FRAME_TOO_LARGE) {
      too_large(p, it->offset, it->len);
    } else if (it->kind == TRAK_FRAME_CORRUPT) {
      corrupt(p, it->offset, it->why);
    } else if (it->kind == TRAK_FRAME_GZIP_CORRUPT) {
      gzip_problem(p, it->offset, it->len, 0);
    } else {
      gzip_problem(p, it->offset, it->len, 1);
    }
  }
  imp->base = imp->limit = NULL;
  imp->bytes_in = bytes_in, imp->bytes_plain = bytes_plain;
}

static void binary_feed(trak_processor *p, const uint8_t *data, size_t len) {
  if (p->import_threads > 1 && !p->sink && !p->pipe && !p->dead && p->raw_state != 2)
    p->pipe = trak__pipeline_start(p, TRAK_PIPE_BINARY);
  if (p->pipe) {
    trak__pipeline_feed(p->pipe, data, len);
    return;
  }
  if (p->skip_left && len) {
    size_t n = p->skip_left < len ? (size_t)p->skip_left : len;
    p->skip_left -= n, p->plain_offset += n;
    data += n, len -= n;
  }
  if (p->dead || !len) return;
  if (p->pending.n) {
    bytes_append(&p->pending, data, len);
    size_t used = frame(p, p->pending.v, p->pending.n, p->plain_offset);
    memmove(p->pending.v, p->pending.v + used, p->pending.n - used);
    p->pending.n -= used;
    p->plain_offset += used;
    return;
  }
  size_t used = frame(p, data, len, p->plain_offset);
  p->plain_offset += used;
  if (!p->dead) bytes_append(&p->pending, data + used, len - used);
}

__attribute__((cold, noinline)) static void text_error(trak_processor *p, trak_text_pos at,
                                                       const trak_error *err) {
  p->imp->packet_offset = at.offset;
  trak__report(p->imp, TRAK_STAT_TEXT_PARSE_ERROR,
               "text format error at %s; the packets before it were imported, the rest of the "
               "trace was skipped",
               err->message);
  p->dead = 1;
}

static int clamp_int(uint64_t v) {
  return v > INT_MAX ? INT_MAX : (int)v;
}

/* The parser met a field or enum value name the schema lacks: kept until its piece parses
** (a piece that fails is parsed again field by field, which would tell it twice). */
__attribute__((cold, noinline)) static void text_skip(void *user, int line, int column,
                                                      const char *what) {
  trak_processor *p = user;
  char msg[320];
  int n =
      snprintf(msg, sizeof msg, "line %d, column %d: %s; skipped the field", line, column, what);
  bytes_append(&p->text_skips, (const uint8_t *)msg,
               (n < 0                    ? 0
                : (size_t)n < sizeof msg ? (size_t)n
                                         : sizeof msg - 1) +
                   1);
}

__attribute__((cold, noinline)) static void text_skips_report(trak_processor *p, uint64_t offset) {
  p->imp->packet_offset = offset;
  for (size_t i = 0; i < p->text_skips.n; i += strlen((const char *)p->text_skips.v + i) + 1)
    trak__report(p->imp, TRAK_STAT_TEXT_UNKNOWN_FIELD, "%s", (const char *)p->text_skips.v + i);
  p->text_skips.n = 0;
}

/* Parses whole top-level fields of a text trace and imports their packets, whose offsets in
** reports are the text offset of the piece. Names the schema lacks are skipped and reported.
** Returns 0 or the parser's error. */
static int text_parse(trak_processor *p, const char *text, size_t len, trak_text_pos at,
                      trak_error *err) {
  p->text_out.p = p->text_out.start;
  p->text_skips.n = 0;
  int rc = trak_pbtxt_parse_lenient("Trace", text, len, clamp_int(at.line), clamp_int(at.column),
                                    text_skip, p, &p->text_out, err);
  if (rc) return rc;
  if (p->text_skips.n) text_skips_report(p, at.offset);
  frame(p, p->text_out.start, trak_pb_buf_len(&p->text_out), at.offset);
  return 0;
}

/* A piece of one field (see text_piece): reports a syntax error and stops the cutter. */
static int text_field(void *ctx, const char *text, size_t len, trak_text_pos at) {
  trak_processor *p = ctx;
  trak_error err = {0};
  if (text_parse(p, text, len, at, &err)) text_error(p, at, &err);
  return p->dead;
}

/* A piece of several fields (a batch, text_split.h). When it does not parse, its output is
** partial, so it is cut again field by field: the fields before the error are imported and
** the error is reported. Returns nonzero to stop the cutter. */
static int text_piece(void *ctx, const char *text, size_t len, trak_text_pos at) {
  trak_processor *p = ctx;
  trak_error err = {0};
  if (!text_parse(p, text, len, at, &err)) return p->dead;
  trak_text_split one;
  trak__text_split_init(&one, at, 0);
  trak__text_split_feed(&one, text, len, text_field, p);
  trak__text_split_finish(&one, text_field, p);
  trak__text_split_free(&one);
  return p->dead;
}

/* A top-level field of a text trace over the text packet limit: skipped unparsed (the cutter
** does not hold it), the fields after it imported. */
__attribute__((cold, noinline)) static void text_too_long(trak_processor *p) {
  trak_text_pos at = p->text.skipped_at;
  p->imp->packet_offset = at.offset;
  trak__report(p->imp, TRAK_STAT_PACKET_TOO_LARGE,
               "the text packet at line %llu, column %llu is over the %u MiB text packet limit; "
               "skipped it",
               (unsigned long long)at.line, (unsigned long long)at.column,
               TRAK_LIMIT_TEXT_PACKET_BYTES >> 20);
  p->imp->packet_index++;
}

static void text_feed(trak_processor *p, const uint8_t *data, size_t len) {
  if (!p->text_live) {
    p->text_live = 1;
    trak__text_split_init(&p->text, (trak_text_pos){0, 1, 1}, TEXT_BATCH);
    p->text.max_field = TRAK_LIMIT_TEXT_PACKET_BYTES;
    trak_pb_buf_init_heap(&p->text_out);
  }
  uint64_t skipped = p->text.skipped;
  trak__text_split_feed(&p->text, (const char *)data, len, text_piece, p);
  if (p->text.skipped != skipped) text_too_long(p);
  p->plain_offset += len;
}

static void plain_dispatch(trak_processor *p, const uint8_t *data, size_t len) {
  if (p->format == TRAK_FORMAT_PROTO) {
    binary_feed(p, data, len);
  } else if (p->format == TRAK_FORMAT_JSON) {
    if (p->sink) { /* the reader's caller imports JSON itself */
      p->dead = 1;
      return;
    }
    if (!p->json) p->json = trak__json_import_new(p->imp);
    if (p->import_threads > 1 && !p->pipe && !p->dead && p->raw_state != 2)
      p->pipe = trak__pipeline_start(p, TRAK_PIPE_JSON); /* gzip: see gzip_pipeline */
    if (p->pipe)
      trak__pipeline_feed(p->pipe, data, len);
    else
      trak__json_import_feed(p->json, data, len);
    p->plain_offset += len;
  } else if (p->format == TRAK_FORMAT_SYSTRACE) {
    if (p->sink) { /* the reader's caller imports systrace text itself */
      p->dead = 1;
      return;
    }
    if (!p->systrace) p->systrace = trak__systrace_import_new(p->imp, TRAK_SYSTRACE_FILE);
    trak__systrace_import_feed(p->systrace, (const char *)data, len);
    p->plain_offset += len;
  } else {
    text_feed(p, data, len);
  }
}

/* Whether the first bytes are UTF-16 text: a byte order mark, or ASCII with every other byte
** zero (JSON's opening bracket first, in either byte order). */
static int utf16_text(const uint8_t *d, size_t n) {
  if (n >= 2 && ((d[0] == 0xff && d[1] == 0xfe) || (d[0] == 0xfe && d[1] == 0xff))) return 1;
  if (n < 4) return 0;
  int le = (d[0] == '{' || d[0] == '[') && !d[1], be = !d[0] && (d[1] == '{' || d[1] == '[');
  for (size_t i = 0; i + 1 < n && i < 64 && (le || be); i += 2)
    if (d[le ? i + 1 : i] || !d[le ? i : i + 1]) le = be = 0;
  return le || be;
}

static void plain_feed(trak_processor *p, const uint8_t *data, size_t len, int final) {
  p->imp->bytes_plain += len;
  if (p->format != TRAK_FORMAT_UNKNOWN) {
    plain_dispatch(p, data, len);
    return;
  }
  bytes_append(&p->plain_sniff, data, len);
  if (p->plain_sniff.n < SNIFF_BYTES && !final) return;
  p->format = trak__detect_format(p->plain_sniff.v, p->plain_sniff.n);
  if (p->format == TRAK_FORMAT_PROTO && utf16_text(p->plain_sniff.v, p->plain_sniff.n)) {
    p->imp->packet_offset = 0;
    trak__report(p->imp, TRAK_STAT_TRACE_CORRUPT,
                 "UTF-16 text at byte 0, a JSON trace saved as UTF-16? trak reads UTF-8: "
                 "convert it with iconv -f UTF-16 -t UTF-8");
    p->dead = 1;
  }
  plain_dispatch(p, p->plain_sniff.v, p->plain_sniff.n);
  trak_vec_free(p->plain_sniff);
}

/* The end of a systrace text trace: its held lines are applied; a text without one event line
** (a header alone: was tracing on?) is reported as empty. */
static void systrace_finish(trak_processor *p) {
  size_t events = trak__systrace_import_events(p->systrace);
  trak__systrace_import_finish(p->systrace);
  if (!events && !p->dead) {
    p->imp->packet_offset = 0;
    trak__report(p->imp, TRAK_STAT_TRACE_EMPTY,
                 "the systrace text holds no event line (%llu bytes); was tracing on?",
                 (unsigned long long)p->fed);
  }
}

/* Whether the rest of a gzip-compressed binary or JSON trace is inflated on the decoding
** thread: once the format is known (from the first inflated bytes, framed or read on this
** thread), the thread is started and takes over inflate's state (and the JSON reader's).
** binary_feed and plain_dispatch start no pipeline for gzip: a running one is this one. */
static int gzip_pipeline(trak_processor *p) {
  if (!p->pipe && p->import_threads > 1 && !p->sink && !p->dead && p->inf.live && !p->inf.ended) {
    if (p->format == TRAK_FORMAT_PROTO)
      p->pipe = trak__pipeline_start(p, TRAK_PIPE_GZIP);
    else if (p->format == TRAK_FORMAT_JSON && p->json)
      p->pipe = trak__pipeline_start(p, TRAK_PIPE_GZIP_JSON);
  }
  return p->pipe != NULL;
}

/* The importer's thread's side of inflate_run: chunks go to plain_feed, problems are reported;
** once the decoding thread starts, it takes the rest of the call's input. */
static int gzip_emit(void *ctx, int what, int may_stop) {
  trak_processor *p = ctx;
  if (what != INFLATE_CHUNK) {
    gzip_problem(p, p->plain_offset, p->inf.member_in, what == INFLATE_TRAILING);
    return 0;
  }
  plain_feed(p, p->inf.chunk, p->inf.fill, 0);
  return may_stop && gzip_pipeline(p);
}

static void gzip_feed(trak_processor *p, const uint8_t *data, size_t len) {
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

static void raw_dispatch(trak_processor *p, const uint8_t *data, size_t len) {
  if (p->raw_state == 2) {
    /* zlib counts in uInt: feed huge buffers in slices. */
    while (len > (1u << 30)) {
      gzip_feed(p, data, 1u << 30);
      data += 1u << 30, len -= 1u << 30;
    }
    if (len) gzip_feed(p, data, len);
  } else {
    plain_feed(p, data, len, 0);
  }
}

void trak__stream_feed(trak_processor *p, const uint8_t *data, size_t len) {
  trak__meta_hash_input(p->imp, data, len, p->fed);
  p->fed += len;
  p->imp->bytes_in += len;
  if (p->raw_state) {
    raw_dispatch(p, data, len);
    return;
  }
  bytes_append(&p->raw_sniff, data, len);
  if (p->raw_sniff.n < 2) return;
  p->raw_state = trak__is_gzip(p->raw_sniff.v, p->raw_sniff.n) ? 2 : 1;
  raw_dispatch(p, p->raw_sniff.v, p->raw_sniff.n);
  trak_vec_free(p->raw_sniff);
}

int trak__stream_read_rest(trak_processor *p, FILE *f, trak_file_map *m, uint64_t total) {
  if (!p->pipe || p->raw_state != 1 || p->sink || !trak__pipeline_reads(p->pipe)) return 0;
  trak__pipeline_read(p->pipe, f, m, total);
  return 1;
}

int trak__stream_finish(trak_processor *p, trak_error *err) {
  (void)err; /* problems in the trace are stats, not errors */
  if (!p->raw_state) {
    p->raw_state = 1;
    plain_feed(p, p->raw_sniff.v, p->raw_sniff.n, 0);
    trak_vec_free(p->raw_sniff);
  }
  if (p->pipe) { /* the decoded packets left are tokenized, the framing state comes back */
    trak__pipeline_finish(p->pipe);
    p->pipe = NULL;
  }
  if (p->raw_state == 2 && !p->inf.ended) {
    p->imp->packet_offset = p->plain_offset;
    trak__report(p->imp, TRAK_STAT_TRACE_TRUNCATED,
                 "gzip stream ends early, inside the packet at byte %llu of the uncompressed "
                 "trace; the packet was dropped",
                 (unsigned long long)p->plain_offset);
  }
  plain_feed(p, NULL, 0, 1);
  if (p->pipe) { /* started by the last bytes (a trace of a few KiB and two threads asked for) */
    trak__pipeline_finish(p->pipe);
    p->pipe = NULL;
  }
  if (p->raw_state == 2 && !p->inf.ended) p->dead = 1; /* one warning for one truncation */
  if (p->format == TRAK_FORMAT_JSON) {
    if (p->json) trak__json_import_finish(p->json);
    return 0;
  }
  if (p->format == TRAK_FORMAT_SYSTRACE) {
    if (p->systrace) systrace_finish(p);
    return 0;
  }
  if (p->format == TRAK_FORMAT_PBTXT && !p->dead) {
    text_feed(p, NULL, 0); /* starts the cutter of an empty text */
    trak__text_split_finish(&p->text, text_piece, p);
  }
  if (p->skip_left && !p->dead) {
    p->imp->packet_offset = p->plain_offset;
    trak__report(p->imp, TRAK_STAT_TRACE_TRUNCATED,
                 "trace ends inside the oversized packet being skipped, %llu bytes short",
                 (unsigned long long)p->skip_left);
  }
  if (p->pending.n && !p->dead) {
    p->imp->packet_offset = p->plain_offset;
    trak__report(p->imp, TRAK_STAT_TRACE_TRUNCATED,
                 "trace ends inside a packet that starts at byte %llu (%zu bytes present); "
                 "the packet was dropped",
                 (unsigned long long)p->plain_offset, p->pending.n);
  }
  trak_vec_free(p->pending);
  if (p->format != TRAK_FORMAT_JSON && !p->imp->packet_index && !p->dead) {
    p->imp->packet_offset = 0;
    trak__report(p->imp, TRAK_STAT_TRACE_EMPTY,
                 "the trace holds no packets (%llu bytes); was the recording cut short?",
                 (unsigned long long)p->fed);
  }
  return 0;
}

void trak__stream_free(trak_processor *p) {
  trak__pipeline_free(p->pipe);
  p->pipe = NULL;
  trak_vec_free(p->raw_sniff);
  trak_vec_free(p->plain_sniff);
  trak__text_split_free(&p->text);
  trak_pb_buf_free(&p->text_out);
  trak_vec_free(p->text_skips);
  trak_vec_free(p->pending);
  trak__json_import_free(p->json);
  p->json = NULL;
  trak__systrace_import_free(p->systrace);
  p->systrace = NULL;
  if (p->inf.live) inflateEnd(&p->inf.z);
  free(p->inf.chunk);
  memset(&p->inf, 0, sizeof p->inf);
}
