/*
** This file holds the text-format trace in the stream: its top-level fields cut as they
** complete (text_split.c), parsed to binary in batches and framed like a binary trace, so
** memory holds one batch's text and binary, not the whole trace; a syntax error is reported
** with its position, names the schema lacks are skipped and reported, a field over the text
** packet limit is skipped unparsed.
*/
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "processor/read/stream.h"
#include "trak/pbtxt.h"
#include "util/limits.h"

#define TEXT_BATCH (64u << 10) /* text bytes parsed per call, to spread its fixed cost */

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
  trak__bytes_append(&p->text_skips, (const uint8_t *)msg,
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
  trak__stream_frame(p, p->text_out.start, trak_pb_buf_len(&p->text_out), at.offset);
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

void trak__stream_text_feed(trak_processor *p, const uint8_t *data, size_t len) {
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

void trak__stream_text_finish(trak_processor *p) {
  trak__stream_text_feed(p, NULL, 0); /* starts the cutter of an empty text */
  trak__text_split_finish(&p->text, text_piece, p);
}
