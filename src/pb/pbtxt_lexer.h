/*
** Tokens of the protobuf text format: identifiers, numbers, strings (escapes decoded, adjacent
** literals joined) and punctuation, with `#` comments skipped and line:column kept for errors.
** Used by pbtxt_parse.c; separate so that the grammar there reads without lexing details.
*/
#ifndef TRAK_PB_PBTXT_LEXER_H
#define TRAK_PB_PBTXT_LEXER_H

#include <stddef.h>

#include "trak/error.h"
#include "trak/pb.h"

typedef enum pbtxt_token_kind {
  PBTXT_END = 0,
  PBTXT_IDENT,  /* [A-Za-z_][A-Za-z0-9_]* */
  PBTXT_NUMBER, /* starts with a digit or '.': 12, 0x1f, 017, 1.5e-3, 2f */
  PBTXT_STRING, /* one or more adjacent quoted literals; value in lexer->str */
  PBTXT_PUNCT   /* one of : { } [ ] < > , ; - */
} pbtxt_token_kind;

typedef struct pbtxt_token {
  pbtxt_token_kind kind;
  const char *text; /* the token's source text */
  size_t len;
  int line, column; /* 1-based position of its first character */
} pbtxt_token;

typedef struct pbtxt_lexer {
  const char *p, *end;
  int line;
  const char *line_start;
  int column_base; /* columns before the text on its first line (trak_pbtxt_parse_at) */
  pbtxt_token tok; /* the current (lookahead) token */
  trak_pb_buf str; /* decoded bytes of the current PBTXT_STRING token */
  trak_error *err;
  int error; /* sticky TRAK_EFORMAT / TRAK_ENOMEM */
} pbtxt_lexer;

/* Starts lexing and reads the first token. Returns 0 or an error (already in `err`). */
int trak__pbtxt_lexer_init(pbtxt_lexer *lx, const char *text, size_t len, trak_error *err);
/* Same for text that starts at `line`:`column` (1-based) of a larger file, so that positions
** in errors are those of the whole file. */
int trak__pbtxt_lexer_init_at(pbtxt_lexer *lx, const char *text, size_t len, int line, int column,
                              trak_error *err);
void trak__pbtxt_lexer_free(pbtxt_lexer *lx);

/* Advances to the next token. Returns 0 or an error. */
int trak__pbtxt_next(pbtxt_lexer *lx);

/* With '[' the current token: moves past the raw text up to the next ']' on the same line (an
** extension or Any type name, whose dots and slashes are no tokens) and reads the token after
** it. Returns 0 or an error when the line has no ']'. */
int trak__pbtxt_skip_bracketed(pbtxt_lexer *lx);

/* True if the current token is the punctuation character `c`. */
static inline int trak__pbtxt_is(const pbtxt_lexer *lx, char c) {
  return lx->tok.kind == PBTXT_PUNCT && lx->tok.text[0] == c;
}

/* Records "line L, column C: <message> (near 'token')" for the current token and returns
** TRAK_EFORMAT. */
int trak__pbtxt_fail(pbtxt_lexer *lx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* TRAK_PB_PBTXT_LEXER_H */
