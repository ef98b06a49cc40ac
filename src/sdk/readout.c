/*
** Reading a session's buffer out as a serialized Trace. Chunks are taken in order per writer
** sequence (by chunk_index); each packet is copied with trusted_packet_sequence_id appended,
** as a tracing service does. A gap in a sequence's chunk indexes (ring buffer overwrites) means
** lost packets: the next packet read gets previous_packet_dropped, and packets are withheld
** until the sequence restarts its incremental state, so no packet is handed to an importer
** that refers to interned data or a timestamp base it cannot have.
*/
#include <stdlib.h>
#include <string.h>

#include "sdk/backend.h"

typedef struct item {
  uint32_t index;  /* chunk position in the buffer */
  uint32_t writer; /* sequence id */
  uint32_t cindex; /* chunk index within the sequence */
} item;

static int item_cmp(const void *a, const void *b) {
  const item *x = a, *y = b;
  if (x->writer != y->writer) return x->writer < y->writer ? -1 : 1;
  return x->cindex < y->cindex ? -1 : x->cindex > y->cindex;
}

static trak__seq_read *seq_for(trak_session *s, uint32_t id) {
  for (size_t i = 0; i < s->nseqs; i++)
    if (s->seqs[i].seq_id == id) return &s->seqs[i];
  if (s->nseqs == s->seqs_cap) {
    size_t cap = s->seqs_cap ? s->seqs_cap * 2 : 16;
    trak__seq_read *grown = realloc(s->seqs, cap * sizeof *grown);
    if (!grown) return NULL;
    s->seqs = grown;
    s->seqs_cap = cap;
  }
  trak__seq_read *q = &s->seqs[s->nseqs++];
  q->seq_id = id;
  q->last_index = 0;
  q->seen = 0;
  q->skipping = 0;
  return q;
}

/* Does the packet restart its sequence's incremental state? */
static int restarts_state(const uint8_t *pkt, size_t len) {
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, pkt, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    if (f.number == TRAK_PB_TracePacket_sequence_flags &&
        (f.value & TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED))
      return 1;
    if (f.number == TRAK_PB_TracePacket_incremental_state_cleared && f.value) return 1;
  }
  return 0;
}

/* Is field `number` one only the service may write? */
static int is_trusted_field(uint32_t number) {
  return number == TRAK_PB_TracePacket_trusted_packet_sequence_id ||
         number == TRAK_PB_TracePacket_trusted_uid || number == TRAK_PB_TracePacket_trusted_pid;
}

/* The packet without any trusted field its producer wrote, into `scratch` (the daemon's
** path: it never passes on what a producer claims about itself). Returns its length. */
static size_t strip_trusted(const uint8_t *pkt, size_t len, trak_pb_buf *scratch) {
  scratch->p = scratch->start;
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, pkt, len);
  const uint8_t *at = d.p;
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (!is_trusted_field(f.number)) trak_pb_put_raw(scratch, at, (size_t)(d.p - at));
    at = d.p;
  }
  return trak_pb_buf_len(scratch);
}

static const trak__trust *trust_for(const trak_session *s, uint32_t seq) {
  for (size_t i = 0; i < s->ntrust; i++)
    if (s->trust[i].seq_id == seq) return &s->trust[i];
  return NULL;
}

/* Appends one packet with the service's fields: its sequence id, the drop mark, and, for a
** daemon's sequences, the producer's uid and pid. */
static void emit(trak_pb_buf *out, const uint8_t *pkt, size_t len, uint32_t seq, int dropped,
                 const trak__trust *tr) {
  uint8_t extra[48], *e = extra;
  if (tr) {
    e = trak_pb_write_tag(e, TRAK_PB_TracePacket_trusted_uid, TRAK_PB_WIRE_VARINT);
    e = trak_pb_write_varint(e, (uint64_t)(int64_t)tr->uid);
    e = trak_pb_write_tag(e, TRAK_PB_TracePacket_trusted_pid, TRAK_PB_WIRE_VARINT);
    e = trak_pb_write_varint(e, (uint64_t)(int64_t)tr->pid);
  }
  e = trak_pb_write_tag(e, TRAK_PB_TracePacket_trusted_packet_sequence_id, TRAK_PB_WIRE_VARINT);
  e = trak_pb_write_varint(e, seq);
  if (dropped) {
    e = trak_pb_write_tag(e, TRAK_PB_TracePacket_previous_packet_dropped, TRAK_PB_WIRE_VARINT);
    e = trak_pb_write_varint(e, 1);
  }
  size_t n = (size_t)(e - extra);
  if (!trak_pb_buf_ensure(out, 16 + len + n)) return;
  uint8_t *p = trak_pb_write_tag(out->p, TRAK_PB_Trace_packet, TRAK_PB_WIRE_LEN);
  p = trak_pb_write_varint(p, len + n);
  memcpy(p, pkt, len);
  memcpy(p + len, extra, n);
  out->p = p + len + n;
}

/* Reads one chunk's unread packets. */
static void read_chunk(trak_session *s, const item *it, trak__seq_read *q, trak_pb_buf *out,
                       trak_pb_buf *scratch) {
  const trak__trust *tr = s->trust ? trust_for(s, it->writer) : NULL;
  trak__chunk *c = trak__chunk_at(s, it->index);
  trak__chunk_meta *m = &s->meta[it->index];
  uint64_t fill = atomic_load_explicit(&c->fill, memory_order_acquire);
  /* A chunk's rest continues only the chunk read last; any other way, packets went missing. */
  int gap = m->continues ? !q->seen || it->cindex != q->last_index
            : q->seen    ? it->cindex > q->last_index + 1
                         : it->cindex != 0;
  if (gap) q->skipping = 2; /* 2: skipping, and the next packet read reports the drop */
  q->seen = 1;
  q->last_index = it->cindex;
  const uint8_t *payload = (const uint8_t *)c + TRAK__CHUNK_HEADER;
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, payload + m->read_pos, trak__fill_bytes(fill) - m->read_pos);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number != TRAK_PB_Trace_packet || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    int dropped = 0;
    if (q->skipping) {
      if (!restarts_state(f.data, f.len)) {
        s->stats.packets_skipped++;
        continue;
      }
      dropped = q->skipping == 2;
      q->skipping = 0;
    }
    if (m->untrusted) {
      size_t n = strip_trusted(f.data, f.len, scratch);
      if (!scratch->error) emit(out, scratch->start, n, it->writer, dropped, tr);
    } else {
      emit(out, f.data, f.len, it->writer, dropped, tr);
    }
  }
  m->read_pos = trak__fill_bytes(fill);
  m->read_pkts = trak__fill_packets(fill);
  if (m->state == TRAK__CHUNK_COMPLETE) {
    atomic_store_explicit(&s->full, 0, memory_order_relaxed);
    m->state = TRAK__CHUNK_FREE;
    m->read_pos = m->read_pkts = 0;
  }
}

/* Hands what `out` holds to the sink (compressed when the session compresses) and empties it.
** Returns the sink's answer. */
static int pass_on(trak_session *s, trak_pb_buf *out, const trak__drain_sink *sink);

/* Appends the unread packets, sequence by sequence in chunk order, to `out`; with a sink,
** passes them on whenever `out` holds a batch, and at the end. Returns 0, the sink's nonzero
** answer (the drain stops there), or TRAK_ENOMEM. */
static int drain_plain(trak_session *s, trak_pb_buf *out, const trak__drain_sink *sink) {
  item *items = malloc((size_t)s->nchunks * sizeof *items);
  if (!items) return out->error = TRAK_ENOMEM;
  size_t n = 0;
  for (uint32_t i = 0; i < s->nchunks; i++) {
    trak__chunk_meta *m = &s->meta[i];
    if (m->state == TRAK__CHUNK_FREE || m->state == TRAK__CHUNK_SHARED) continue;
    trak__chunk *c = trak__chunk_at(s, i);
    uint64_t fill = atomic_load_explicit(&c->fill, memory_order_acquire);
    if (m->read_pos >= trak__fill_bytes(fill) && m->state == TRAK__CHUNK_WRITING) continue;
    items[n].index = i;
    items[n].writer = c->writer_id;
    items[n].cindex = c->chunk_index;
    n++;
  }
  qsort(items, n, sizeof *items, item_cmp);
  trak_pb_buf scratch;
  trak_pb_buf_init_heap(&scratch);
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    trak__seq_read *q = seq_for(s, items[i].writer);
    if (!q) {
      rc = out->error = TRAK_ENOMEM;
      break;
    }
    read_chunk(s, &items[i], q, out, &scratch);
    if (sink && trak_pb_buf_len(out) >= sink->batch) rc = pass_on(s, out, sink);
  }
  if (sink && !rc && trak_pb_buf_len(out)) rc = pass_on(s, out, sink);
  trak_pb_buf_free(&scratch);
  free(items);
  return rc ? rc : out->error;
}

#define COMPRESS_BATCH (512 * 1024) /* input bytes per compressed_packets packet */

/* Wraps serialized packets [data, data + len) into compressed_packets packets, cutting only
** at packet boundaries, into pieces of equal size up to COMPRESS_BATCH (no small tail piece:
** deflate does worse on it). */
static void put_compressed(const uint8_t *data, size_t len, trak_pb_buf *out) {
  size_t pieces = (len + COMPRESS_BATCH - 1) / COMPRESS_BATCH, piece = len / (pieces ? pieces : 1);
  trak_pb_buf z;
  trak_pb_buf_init_heap(&z);
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, data, len);
  const uint8_t *start = data;
  for (;;) {
    const uint8_t *at = d.p;
    int more = trak_pb_decoder_next(&d, &f) == 1;
    if (start < at && (!more || (size_t)(d.p - start) > piece)) {
      const uint8_t *cut = more ? at : d.p;
      z.p = z.start;
      if (trak__zlib_compress(start, (size_t)(cut - start), &z) != 0) {
        out->error = TRAK_ENOMEM;
        break;
      }
      trak_pb_nested n = trak_pb_begin_nested_short(out, TRAK_PB_Trace_packet);
      trak_pb_put_bytes(out, TRAK_PB_TracePacket_compressed_packets, z.start, trak_pb_buf_len(&z));
      trak_pb_end_nested_short(out, n);
      start = cut;
    }
    if (!more) break;
  }
  trak_pb_buf_free(&z);
}

static int pass_on(trak_session *s, trak_pb_buf *out, const trak__drain_sink *sink) {
  int rc;
  if (out->error) return out->error;
  if (!s->compress) {
    rc = sink->fn(out->start, trak_pb_buf_len(out), sink->user);
    s->stats.bytes_read += trak_pb_buf_len(out);
  } else {
    trak_pb_buf z;
    trak_pb_buf_init_heap(&z);
    put_compressed(out->start, trak_pb_buf_len(out), &z);
    rc = z.error ? z.error : sink->fn(z.start, trak_pb_buf_len(&z), sink->user);
    s->stats.bytes_read += trak_pb_buf_len(&z);
    trak_pb_buf_free(&z);
  }
  out->p = out->start;
  return rc;
}

void trak__session_drain(trak_session *s, trak_pb_buf *out) {
  size_t before = trak_pb_buf_len(out);
  if (!s->compress) {
    drain_plain(s, out, NULL);
  } else {
    trak_pb_buf plain;
    trak_pb_buf_init_heap(&plain);
    drain_plain(s, &plain, NULL);
    if (plain.error)
      out->error = plain.error;
    else
      put_compressed(plain.start, trak_pb_buf_len(&plain), out);
    trak_pb_buf_free(&plain);
  }
  s->stats.bytes_read += trak_pb_buf_len(out) - before;
}

int trak__session_drain_to(trak_session *s, const trak__drain_sink *sink) {
  trak_pb_buf batch;
  trak_pb_buf_init_heap(&batch);
  int rc = drain_plain(s, &batch, sink);
  trak_pb_buf_free(&batch);
  return rc;
}
