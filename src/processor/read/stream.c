/*
** This file holds the input stream: bytes fed in any split are un-gzipped on the fly
** (stream_gzip.c), the format is recognised from the first bytes, and each format's bytes go
** to its reader: a binary trace to its framing into TracePackets (stream_framing.c; a packet
** straddling two feeds waits in `pending`), a text-format trace to its cutting into fields
** (stream_text.c), JSON and systrace text to their importers. It also applies, on the
** importer's thread, the batches the decoding thread framed or read (read/pipeline.c), and
** reports at the end a truncated trace or one without packets. Malformed framing, a truncated
** end or a text syntax error are reported with their position; everything before them is kept.
*/
#include <string.h>

#include "processor/import/json/json.h"
#include "processor/import/proto/proto.h"
#include "processor/import/systrace/systrace.h"
#include "processor/read/stream.h"

#define SNIFF_BYTES 4096

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
      trak__stream_gzip_problem(p, it->offset, it->len, it->kind == TRAK_FRAME_GZIP_TRAILING);
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
      trak__stream_too_large(p, it->offset, it->len);
    } else if (it->kind == TRAK_FRAME_CORRUPT) {
      trak__stream_corrupt(p, it->offset, it->why);
    } else if (it->kind == TRAK_FRAME_GZIP_CORRUPT) {
      trak__stream_gzip_problem(p, it->offset, it->len, 0);
    } else {
      trak__stream_gzip_problem(p, it->offset, it->len, 1);
    }
  }
  imp->base = imp->limit = NULL;
  imp->bytes_in = bytes_in, imp->bytes_plain = bytes_plain;
}

static void plain_dispatch(trak_processor *p, const uint8_t *data, size_t len) {
  if (p->format == TRAK_FORMAT_PROTO) {
    trak__stream_binary_feed(p, data, len);
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
    trak__stream_text_feed(p, data, len);
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

void trak__stream_plain_feed(trak_processor *p, const uint8_t *data, size_t len, int final) {
  p->imp->bytes_plain += len;
  if (p->format != TRAK_FORMAT_UNKNOWN) {
    plain_dispatch(p, data, len);
    return;
  }
  trak__bytes_append(&p->plain_sniff, data, len);
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

static void raw_dispatch(trak_processor *p, const uint8_t *data, size_t len) {
  if (p->raw_state == 2) {
    /* zlib counts in uInt: feed huge buffers in slices. */
    while (len > (1u << 30)) {
      trak__stream_gzip_feed(p, data, 1u << 30);
      data += 1u << 30, len -= 1u << 30;
    }
    if (len) trak__stream_gzip_feed(p, data, len);
  } else {
    trak__stream_plain_feed(p, data, len, 0);
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
  trak__bytes_append(&p->raw_sniff, data, len);
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
    trak__stream_plain_feed(p, p->raw_sniff.v, p->raw_sniff.n, 0);
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
  trak__stream_plain_feed(p, NULL, 0, 1);
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
    trak__stream_text_finish(p);
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
