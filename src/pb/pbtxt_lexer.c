/*
** The text format tokenizer: see pbtxt_lexer.h. String escapes follow C and protobuf:
** \n \r \t \a \b \f \v \\ \' \" \? , octal \ooo, hex \xHH, and \uXXXX / \UXXXXXXXX as UTF-8.
*/
#include <stdio.h>
#include <string.h>

#include "pb/pbtxt_lexer.h"

static int is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int is_ident_char(char c) {
  return is_ident_start(c) || (c >= '0' && c <= '9');
}
static int is_digit(char c) {
  return c >= '0' && c <= '9';
}

int trak__pbtxt_fail(pbtxt_lexer *lx, const char *fmt, ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (lx->tok.kind == PBTXT_END)
    trak_error_set(lx->err, TRAK_EFORMAT, "line %d, column %d: %s (at end of input)", lx->tok.line,
                   lx->tok.column, what);
  else
    trak_error_set(lx->err, TRAK_EFORMAT, "line %d, column %d: %s (near '%.*s')", lx->tok.line,
                   lx->tok.column, what, (int)(lx->tok.len > 40 ? 40 : lx->tok.len), lx->tok.text);
  lx->error = TRAK_EFORMAT;
  return TRAK_EFORMAT;
}

static void skip_space_and_comments(pbtxt_lexer *lx) {
  while (lx->p < lx->end) {
    char c = *lx->p;
    if (c == '\n') {
      lx->line++;
      lx->line_start = ++lx->p;
      lx->column_base = 0;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      lx->p++;
    } else if (c == '#') {
      while (lx->p < lx->end && *lx->p != '\n')
        lx->p++;
    } else {
      return;
    }
  }
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static void put_utf8(trak_pb_buf *b, uint32_t cp) {
  uint8_t u[4];
  size_t n;
  if (cp < 0x80) {
    u[0] = (uint8_t)cp;
    n = 1;
  } else if (cp < 0x800) {
    u[0] = (uint8_t)(0xc0 | (cp >> 6));
    u[1] = (uint8_t)(0x80 | (cp & 0x3f));
    n = 2;
  } else if (cp < 0x10000) {
    u[0] = (uint8_t)(0xe0 | (cp >> 12));
    u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    u[2] = (uint8_t)(0x80 | (cp & 0x3f));
    n = 3;
  } else {
    u[0] = (uint8_t)(0xf0 | (cp >> 18));
    u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
    u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    u[3] = (uint8_t)(0x80 | (cp & 0x3f));
    n = 4;
  }
  trak_pb_put_raw(b, u, n);
}

/* Decodes one escape sequence after the backslash at *pp; returns 0 or -1 if malformed. */
static int read_escape(pbtxt_lexer *lx, const char **pp) {
  const char *p = *pp;
  if (p >= lx->end) return -1;
  char c = *p++;
  uint8_t byte;
  switch (c) {
  case 'n':
    byte = '\n';
    break;
  case 'r':
    byte = '\r';
    break;
  case 't':
    byte = '\t';
    break;
  case 'a':
    byte = '\a';
    break;
  case 'b':
    byte = '\b';
    break;
  case 'f':
    byte = '\f';
    break;
  case 'v':
    byte = '\v';
    break;
  case '\\':
  case '\'':
  case '"':
  case '?':
    byte = (uint8_t)c;
    break;
  case 'x':
  case 'X': {
    int v = 0, n = 0;
    while (n < 2 && p < lx->end && hex_value(*p) >= 0)
      v = v * 16 + hex_value(*p++), n++;
    if (!n) return -1;
    byte = (uint8_t)v;
    break;
  }
  case 'u':
  case 'U': {
    int digits = c == 'u' ? 4 : 8;
    uint32_t cp = 0;
    for (int i = 0; i < digits; i++) {
      if (p >= lx->end || hex_value(*p) < 0) return -1;
      cp = cp * 16 + (uint32_t)hex_value(*p++);
    }
    if (cp > 0x10ffff) return -1;
    put_utf8(&lx->str, cp);
    *pp = p;
    return 0;
  }
  default:
    if (c < '0' || c > '7') return -1;
    int v = c - '0';
    for (int i = 0; i < 2 && p < lx->end && *p >= '0' && *p <= '7'; i++)
      v = v * 8 + (*p++ - '0');
    if (v > 255) return -1;
    byte = (uint8_t)v;
  }
  trak_pb_put_raw(&lx->str, &byte, 1);
  *pp = p;
  return 0;
}

/* Reads one quoted literal at lx->p into lx->str (appending). */
static int read_quoted(pbtxt_lexer *lx) {
  char quote = *lx->p;
  const char *p = lx->p + 1;
  for (;;) {
    const char *run = p;
    while (p < lx->end && *p != quote && *p != '\\' && *p != '\n')
      p++;
    trak_pb_put_raw(&lx->str, run, (size_t)(p - run));
    if (p >= lx->end || *p == '\n') {
      lx->tok.len = (size_t)(p - lx->tok.text);
      return trak__pbtxt_fail(lx, "unterminated string");
    }
    if (*p == quote) break;
    const char *esc = p++;
    if (read_escape(lx, &p)) {
      lx->tok.text = esc;
      lx->tok.len = (size_t)(p - esc) + (p < lx->end); /* the next byte, if there is one */
      lx->tok.column = (int)(esc - lx->line_start) + 1 + lx->column_base;
      return trak__pbtxt_fail(lx, "invalid escape sequence in string");
    }
  }
  lx->p = p + 1;
  return 0;
}

static void read_number(pbtxt_lexer *lx) {
  const char *p = lx->p;
  int hex = p + 1 < lx->end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
  while (p < lx->end) {
    char c = *p;
    if (is_ident_char(c) || c == '.') {
      p++;
    } else if ((c == '+' || c == '-') && !hex && (p[-1] == 'e' || p[-1] == 'E')) {
      p++;
    } else {
      break;
    }
  }
  lx->p = p;
}

int trak__pbtxt_skip_bracketed(pbtxt_lexer *lx) {
  if (lx->error) return lx->error;
  while (lx->p < lx->end && *lx->p != ']' && *lx->p != '\n')
    lx->p++;
  if (lx->p >= lx->end || *lx->p != ']') return trak__pbtxt_fail(lx, "expected ']' after the name");
  lx->p++;
  return trak__pbtxt_next(lx);
}

int trak__pbtxt_next(pbtxt_lexer *lx) {
  if (lx->error) return lx->error;
  skip_space_and_comments(lx);
  pbtxt_token *t = &lx->tok;
  t->text = lx->p;
  t->line = lx->line;
  t->column = (int)(lx->p - lx->line_start) + 1 + lx->column_base;
  if (lx->p >= lx->end) {
    t->kind = PBTXT_END;
    t->len = 0;
    return 0;
  }
  char c = *lx->p;
  if (is_ident_start(c)) {
    while (lx->p < lx->end && is_ident_char(*lx->p))
      lx->p++;
    t->kind = PBTXT_IDENT;
  } else if (is_digit(c) || (c == '.' && lx->p + 1 < lx->end && is_digit(lx->p[1]))) {
    read_number(lx);
    t->kind = PBTXT_NUMBER;
  } else if (c == '"' || c == '\'') {
    t->kind = PBTXT_STRING;
    lx->str.p = lx->str.start;
    /* Adjacent literals ("a" "b") form one string. */
    do {
      if (read_quoted(lx)) return lx->error;
      skip_space_and_comments(lx);
    } while (lx->p < lx->end && (*lx->p == '"' || *lx->p == '\''));
    if (lx->str.error) {
      lx->error = lx->str.error;
      return trak_error_set(lx->err, lx->error, "out of memory reading a string");
    }
  } else if (strchr(":{}[]<>,;-", c)) {
    lx->p++;
    t->kind = PBTXT_PUNCT;
  } else {
    t->kind = PBTXT_PUNCT;
    t->len = 1;
    return trak__pbtxt_fail(lx, "unexpected character");
  }
  t->len = (size_t)(lx->p - t->text);
  if (t->kind == PBTXT_STRING) {
    /* Keep the token text to the first literal only, for error messages. */
    const char *q = memchr(t->text + 1, t->text[0], t->len - 1);
    if (q) t->len = (size_t)(q - t->text) + 1;
  }
  return 0;
}

int trak__pbtxt_lexer_init(pbtxt_lexer *lx, const char *text, size_t len, trak_error *err) {
  return trak__pbtxt_lexer_init_at(lx, text, len, 1, 1, err);
}

int trak__pbtxt_lexer_init_at(pbtxt_lexer *lx, const char *text, size_t len, int line, int column,
                              trak_error *err) {
  memset(lx, 0, sizeof *lx);
  lx->p = text;
  lx->end = len ? text + len : text;
  lx->line = line;
  lx->line_start = text;
  lx->column_base = column - 1;
  lx->err = err;
  trak_pb_buf_init_heap(&lx->str);
  return trak__pbtxt_next(lx);
}

void trak__pbtxt_lexer_free(pbtxt_lexer *lx) {
  trak_pb_buf_free(&lx->str);
}
