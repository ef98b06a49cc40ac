/*
** The cutter of text traces into top-level fields: see text_split.h.
**
** A field ends at a closing bracket that brings the bracket depth back to 0, outside strings
** and comments. At such a point the text format parser, had it read the whole text, would be
** between two fields of the Trace (or would have failed on the same bytes), so parsing the
** pieces one after another gives the same packets and the same first error. The one place
** where a piece boundary could differ is the optional ',' or ';' after a field: it belongs to
** the field before, so a piece that opens with one drops it (skip_separator).
**
** Pieces gather fields up to `batch` bytes because each parse call has a fixed cost (the
** schema lookup of "Trace"); they point into the caller's bytes except the one piece that
** straddles two feeds, which is copied.
*/
#include <string.h>

#include "processor/read/text_split.h"

/* Bytes the scanner stops at outside strings and comments. Newlines are not among them:
** lines are counted only over the pieces handed out (advance), not byte by byte. */
static const uint8_t SPECIAL[256] = {
    ['#'] = 1, ['"'] = 1, ['\''] = 1, ['{'] = 1, ['<'] = 1,
    ['['] = 1, ['}'] = 1, ['>'] = 1,  [']'] = 1,
};

static void held_append(trak_text_split *s, const char *data, size_t len) {
  if (!len) return;
  trak__grow((void **)&s->held.v, &s->held.cap, s->held.n + len, 1);
  memcpy(s->held.v + s->held.n, data, len);
  s->held.n += len;
}

void trak__text_split_init(trak_text_split *s, trak_text_pos at, size_t batch) {
  memset(s, 0, sizeof *s);
  s->batch = batch;
  s->start = at;
}

void trak__text_split_free(trak_text_split *s) {
  trak_vec_free(s->held);
}

/* If blanks and comments then ',' or ';' open the text, returns the length up to and
** including the separator and moves *at past it; otherwise returns 0. */
static size_t skip_separator(const char *text, size_t len, trak_text_pos *at) {
  trak_text_pos p = *at;
  for (size_t i = 0; i < len; i++, p.offset++, p.column++) {
    char c = text[i];
    if (c == ',' || c == ';') {
      *at = (trak_text_pos){p.offset + 1, p.line, p.column + 1};
      return i + 1;
    }
    if (c == '\n') {
      p.line++;
      p.column = 0; /* 1 after the loop's increment */
    } else if (c == '#') {
      const char *eol = memchr(text + i, '\n', len - i);
      size_t skip = (eol ? (size_t)(eol - text) : len) - i;
      i += skip - 1;
      p.offset += skip - 1;
      p.column += skip - 1;
    } else if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') {
      return 0;
    }
  }
  return 0;
}

/* Newlines in text[0, len), eight bytes at a time: a byte of x is zero where text has '\n';
** ~((x & 0x7f..) + 0x7f.. | x | 0x7f..) sets exactly the high bit of each zero byte. */
static uint64_t count_newlines(const char *text, size_t len) {
  const uint64_t low7 = 0x7f7f7f7f7f7f7f7full, nl = 0x0a0a0a0a0a0a0a0aull;
  uint64_t lines = 0;
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, text + i, 8);
    uint64_t x = w ^ nl;
    lines += (uint64_t)__builtin_popcountll(~(((x & low7) + low7) | x | low7));
  }
  for (; i < len; i++)
    lines += text[i] == '\n';
  return lines;
}

/* The position just past `len` bytes of text that start at `at`. */
static trak_text_pos advance(trak_text_pos at, const char *text, size_t len) {
  uint64_t lines = count_newlines(text, len);
  if (!lines) return (trak_text_pos){at.offset + len, at.line, at.column + len};
  size_t last = len - 1;
  while (text[last] != '\n')
    last--;
  return (trak_text_pos){at.offset + len, at.line + lines, len - last};
}

/* Hands the piece data[begin, end) (after the held bytes) to `fn`; the held bytes are used up.
** Returns nonzero when `fn` stops the cutter. */
static int emit(trak_text_split *s, const char *data, size_t begin, size_t end,
                trak_text_piece_fn *fn, void *ctx) {
  const char *piece = data + begin;
  size_t len = end - begin;
  if (s->held.n) {
    held_append(s, piece, len);
    piece = s->held.v;
    len = s->held.n;
  }
  s->held.n = 0;
  trak_text_pos at = s->start;
  s->start = advance(at, piece, len);
  if (s->after_cut) {
    size_t skip = skip_separator(piece, len, &at);
    piece += skip, len -= skip;
  }
  s->after_cut = 1;
  if (fn(ctx, piece, len, at)) {
    s->stopped = 1;
    trak_vec_free(s->held);
    return 1;
  }
  return 0;
}

/* The scanner's state while a feed runs. */
typedef struct scan {
  uint32_t depth;
  char in;
  int escaped;
} scan;

/* Advances *i over string bytes to the closing quote (returns 1), a newline, which ends the
** string as an error the parser reports (returns 0 at it), or the end of data (0). */
static int scan_string(scan *sc, const char *data, size_t len, size_t *i) {
  for (; *i < len; ++*i) {
    char c = data[*i];
    if (c == '\n') return 0;
    if (sc->escaped)
      sc->escaped = 0;
    else if (c == '\\')
      sc->escaped = 1;
    else if (c == sc->in) {
      sc->in = 0;
      return 1;
    }
  }
  return 0;
}

void trak__text_split_feed(trak_text_split *s, const char *data, size_t len, trak_text_piece_fn *fn,
                           void *ctx) {
  if (s->stopped || !len) return;
  scan sc = {s->depth, s->in, s->escaped};
  size_t begin = 0;    /* the piece in progress: held bytes, then data[begin, i) */
  size_t last_cut = 0; /* end of the last whole field in data (0: none yet) */
  for (size_t i = 0; i < len; i++) {
    if (sc.in == '#') {
      const char *eol = memchr(data + i, '\n', len - i);
      if (!eol) break;
      i = (size_t)(eol - data);
    } else if (sc.in) {
      if (scan_string(&sc, data, len, &i)) continue;
      if (i == len) break;
    } else {
      while (i < len && !SPECIAL[(uint8_t)data[i]])
        i++;
      if (i == len) break;
    }
    char c = data[i];
    if (c == '\n') { /* only inside a comment or a string, which it ends */
      sc.in = 0;
      sc.escaped = 0;
      continue;
    }
    switch (c) {
    case '#':
    case '"':
    case '\'':
      sc.in = c;
      break;
    case '{':
    case '<':
    case '[':
      sc.depth++;
      break;
    default: /* a closing bracket */
      if (sc.depth > 1) {
        sc.depth--;
        break;
      }
      /* Depth back to 0 (or a stray closer at 0, which the parser rejects in this piece). */
      sc.depth = 0;
      if (s->skipping) { /* the end of a field too long to hold: the next piece starts after */
        s->start = advance(s->start, data + begin, i + 1 - begin);
        s->skipping = 0;
        s->after_cut = 1;
        begin = last_cut = i + 1;
        break;
      }
      last_cut = i + 1;
      if (s->held.n || last_cut - begin >= s->batch) {
        if (emit(s, data, begin, last_cut, fn, ctx)) return;
        begin = last_cut;
      }
    }
  }
  if (last_cut > begin) { /* whole fields not yet handed out: do not copy them */
    if (emit(s, data, begin, last_cut, fn, ctx)) return;
    begin = last_cut;
  }
  if (s->skipping) {
    s->start = advance(s->start, data + begin, len - begin);
  } else {
    held_append(s, data + begin, len - begin);
    if (s->max_field && s->held.n > s->max_field && sc.depth > 0) {
      s->skipped++;
      s->skipped_at = s->start;
      s->start = advance(s->start, s->held.v, s->held.n);
      s->held.n = 0;
      s->skipping = 1;
    }
  }
  s->depth = sc.depth;
  s->in = sc.in;
  s->escaped = (uint8_t)sc.escaped;
}

void trak__text_split_finish(trak_text_split *s, trak_text_piece_fn *fn, void *ctx) {
  if (!s->stopped && s->held.n && !s->skipping) emit(s, s->held.v, 0, 0, fn, ctx);
  s->stopped = 1;
  trak_vec_free(s->held);
}
