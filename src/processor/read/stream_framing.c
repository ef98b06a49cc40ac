/*
** This file holds the framing of a binary trace: its bytes cut into top-level fields as they
** complete, each TracePacket tokenized on the importer's thread (or handed whole to the reader
** mode's sink), or decoded into a batch on the decoding thread (a piece of plain bytes, or a
** mapped file's packets where they lie), with the malformed frames and oversized packets met.
*/
#include <string.h>

#include "processor/import/proto/proto.h"
#include "processor/read/stream.h"
#include "util/limits.h"

void trak__stream_corrupt(trak_processor *p, uint64_t offset, const char *why) {
  p->imp->packet_offset = offset;
  trak__report(p->imp, TRAK_STAT_TRACE_CORRUPT,
               "malformed trace at byte %llu (%s); skipped the rest of the trace",
               (unsigned long long)offset, why);
  p->dead = 1;
}

/* A packet over the size limit: it is skipped (trak__stream_frame and trak__stream_binary_feed
** drop its bytes as they come, without holding them) and the packets after it are kept. */
void trak__stream_too_large(trak_processor *p, uint64_t offset, uint64_t len) {
  p->imp->packet_offset = offset;
  trak__report(p->imp, TRAK_STAT_PACKET_TOO_LARGE,
               "packet at byte %llu is %llu bytes, over the %u MiB limit; skipped it",
               (unsigned long long)offset, (unsigned long long)len, TRAK_LIMIT_PACKET_BYTES >> 20);
  p->imp->packet_index++;
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
    trak__stream_corrupt(p, offset, why);
    return;
  }
  *dead = 1;
  trak_vec_push(out->items,
                ((trak_frame_item){.kind = TRAK_FRAME_CORRUPT, .offset = offset, .why = why}));
}

static inline __attribute__((always_inline)) void
framed_too_large(trak_processor *p, trak_frame_batch *out, uint64_t offset, uint64_t len) {
  if (!out)
    trak__stream_too_large(p, offset, len);
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

size_t trak__stream_frame(trak_processor *p, const uint8_t *data, size_t len, uint64_t base) {
  return frame_scan(p, &p->dead, &p->skip_left, data, len, base, NULL);
}

/* Frames one piece as trak__stream_binary_feed frames a call's bytes on the importer's thread:
** the skip of an oversized packet, then the carried tail put before the piece, the complete
** packets decoded into `b`'s items, the new tail carried (stream.h). */
void trak__stream_frame_piece(trak_framer *fr, trak_frame_batch *b, uint8_t **buf, size_t *n,
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
  /* as trak__stream_binary_feed keeps it: a carried tail even past corruption, a new one only
  ** before it */
  if (carried || !fr->dead) trak__bytes_append(&fr->carry, *buf + used, *n - used);
}

void trak__stream_frame_batch(trak_framer *fr, trak_frame_batch *b) {
  b->items.n = b->fpre.bundles.n = b->fpre.evs.n = 0;
  trak__stream_frame_piece(fr, b, &b->bytes, &b->n, &b->cap);
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
  if (!used &&
      !b->items.n) { /* the file ends inside a packet: carried as trak__stream_frame_piece does */
    if (!fr->dead) trak__bytes_append(&fr->carry, m->data + off, (size_t)(m->end - off));
    return 0;
  }
  fr->offset = off + used;
  b->data = m->data + off, b->n = (size_t)(e - off);
  trak__ftrace_predecode_done(&b->fpre);
  uint64_t in = read_end(e - 1, chunk);
  return in < m->end ? in : m->end;
}

void trak__stream_binary_feed(trak_processor *p, const uint8_t *data, size_t len) {
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
    trak__bytes_append(&p->pending, data, len);
    size_t used = trak__stream_frame(p, p->pending.v, p->pending.n, p->plain_offset);
    memmove(p->pending.v, p->pending.v + used, p->pending.n - used);
    p->pending.n -= used;
    p->plain_offset += used;
    return;
  }
  size_t used = trak__stream_frame(p, data, len, p->plain_offset);
  p->plain_offset += used;
  if (!p->dead) trak__bytes_append(&p->pending, data + used, len - used);
}
