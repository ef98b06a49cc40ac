/*
** The cutter of text traces into top-level fields: see text_split.h.
**
** A piece ends at a closing bracket that brings the bracket depth back to 0, outside strings
** and comments. At such a point the text format parser, had it read the whole text, would be
** between two fields of the Trace (or would have failed on the same bytes), so parsing the
** pieces one after another gives the same packets and the same first error. The one place
** where a piece boundary could differ is the optional ',' or ';' after a field: it belongs to
** the field before, so the cutter drops it instead of starting the next piece with it.
*/
#include <string.h>

#include "processor/text_split.h"

static void held_append(trak_text_split *s, const char *data, size_t len) {
  if (!len) return;
  trak__grow((void **)&s->held.v, &s->held.cap, s->held.n + len, 1);
  memcpy(s->held.v + s->held.n, data, len);
  s->held.n += len;
}

void trak__text_split_init(trak_text_split *s) {
  memset(s, 0, sizeof *s);
  s->line = 1;
  s->start = (trak_text_pos){0, 1, 1};
}

void trak__text_split_free(trak_text_split *s) {
  trak_vec_free(s->held);
}

/* The scanner's state lives in locals while a feed runs; these carry it between feeds. */
typedef struct scan {
  uint64_t base_offset; /* text offset of data[0] */
  uint64_t line, line_start;
  uint32_t depth;
  char in;
  int escaped, after_field;
} scan;

static trak_text_pos pos_at(const scan *sc, size_t i) {
  uint64_t offset = sc->base_offset + i;
  return (trak_text_pos){offset, sc->line, offset - sc->line_start + 1};
}

/* Hands the piece that ends just before data[end] (held bytes first) to `fn`. Returns its
** verdict. */
static int emit(trak_text_split *s, const char *data, size_t begin, size_t end,
                trak_text_piece_fn *fn, void *ctx) {
  const char *piece = data + begin;
  size_t len = end - begin;
  if (s->held.n) {
    held_append(s, piece, len);
    piece = s->held.v;
    len = s->held.n;
  }
  int stop = fn(ctx, piece, len, s->start);
  s->held.n = 0;
  return stop;
}

void trak__text_split_feed(trak_text_split *s, const char *data, size_t len,
                           trak_text_piece_fn *fn, void *ctx) {
  if (s->stopped || !len) return;
  scan sc = {s->offset, s->line, s->line_start, s->depth, s->in, s->escaped, s->after_field};
  size_t begin = 0; /* the piece in progress: held bytes, then data[begin, i) */
  for (size_t i = 0; i < len; i++) {
    char c = data[i];
    if (c == '\n') {
      sc.line++;
      sc.line_start = sc.base_offset + i + 1;
      sc.in = 0; /* ends a comment; a string with a newline is an error the parser reports */
      sc.escaped = 0;
      continue;
    }
    if (sc.in) {
      if (sc.in == '#') continue;
      if (sc.escaped)
        sc.escaped = 0;
      else if (c == '\\')
        sc.escaped = 1;
      else if (c == sc.in)
        sc.in = 0;
      continue;
    }
    switch (c) {
    case ' ':
    case '\t':
    case '\r':
    case '\f':
    case '\v':
      continue;
    case '#':
      sc.in = '#';
      continue;
    case '"':
    case '\'':
      sc.in = c;
      break;
    case '{':
    case '<':
    case '[':
      sc.depth++;
      break;
    case '}':
    case '>':
    case ']':
      if (sc.depth > 1) {
        sc.depth--;
        break;
      }
      /* Depth back to 0 (or a stray closer at 0, which the parser rejects in this piece). */
      sc.depth = 0;
      if (emit(s, data, begin, i + 1, fn, ctx)) {
        s->stopped = 1;
        trak_vec_free(s->held);
        return;
      }
      begin = i + 1;
      s->start = pos_at(&sc, begin);
      sc.after_field = 1;
      continue;
    case ',':
    case ';':
      if (sc.after_field && sc.depth == 0) {
        s->held.n = 0; /* only blanks and comments since the field closed */
        begin = i + 1;
        s->start = pos_at(&sc, begin);
        sc.after_field = 0;
        continue;
      }
      break;
    default:
      break;
    }
    sc.after_field = 0;
  }
  held_append(s, data + begin, len - begin);
  s->offset = sc.base_offset + len;
  s->line = sc.line;
  s->line_start = sc.line_start;
  s->depth = sc.depth;
  s->in = sc.in;
  s->escaped = (uint8_t)sc.escaped;
  s->after_field = (uint8_t)sc.after_field;
}

void trak__text_split_finish(trak_text_split *s, trak_text_piece_fn *fn, void *ctx) {
  if (!s->stopped && s->held.n) fn(ctx, s->held.v, s->held.n, s->start);
  s->stopped = 1;
  trak_vec_free(s->held);
}
