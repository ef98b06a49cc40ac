/*
** Cutting a text-format trace into its top-level fields (`packet { ... }`) as its bytes
** arrive, so that the importer parses and imports each packet without holding the whole text.
** The cutter only counts brackets outside strings and `#` comments; the text format parser
** (trak_pbtxt_parse_at) still judges every byte. stream_text.c drives it.
*/
#ifndef TRAK_PROCESSOR_TEXT_SPLIT_H
#define TRAK_PROCESSOR_TEXT_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "processor/tables/storage.h"

/* A position in the whole text: byte offset and 1-based line and column. */
typedef struct trak_text_pos {
  uint64_t offset, line, column;
} trak_text_pos;

/* Receives one piece of text: one or more whole top-level fields, from the end of the
** previous piece (less the separator after it) to the bracket that closes the last field, or
** the rest of the text at the end. It starts at `at`. Returns 0 to go on, or nonzero to
** stop the cutter for good (the rest of the input is ignored). */
typedef int trak_text_piece_fn(void *ctx, const char *text, size_t len, trak_text_pos at);

typedef struct trak_text_split {
  TRAK_VEC(char) held; /* the piece in progress when it straddles feeds */
  size_t batch;        /* a piece gathers whole fields up to this many bytes (0: one) */
  trak_text_pos start; /* where the piece in progress (held bytes first) starts */
  uint32_t depth;      /* brackets open */
  char in;             /* 0, or inside a string ('"', '\'') or a comment ('#') */
  uint8_t escaped;     /* the previous byte was a backslash inside a string */
  uint8_t after_cut;   /* a piece was handed out: the next may open with a separator */
  uint8_t stopped;
  uint8_t skipping;         /* inside a field over max_field: its bytes are scanned, not held */
  size_t max_field;         /* longest field held, in bytes (0: no limit) */
  uint64_t skipped;         /* fields skipped for their length */
  trak_text_pos skipped_at; /* where the last of them starts */
} trak_text_split;

/* Starts a cutter at `at` of a text (trak_text_pos){0, 1, 1} for a whole one). A field longer
** than `max_field` (set after init; 0: none) is not held: it is skipped to its closing bracket
** and counted in `skipped`, and the fields after it are cut as usual. */
void trak__text_split_init(trak_text_split *s, trak_text_pos at, size_t batch);
void trak__text_split_free(trak_text_split *s);

/* Scans `len` more bytes, handing each complete piece to `fn`. Bytes of an incomplete piece
** are copied and kept for the next call. */
void trak__text_split_feed(trak_text_split *s, const char *data, size_t len, trak_text_piece_fn *fn,
                           void *ctx);

/* Hands the rest (whatever follows the last complete field: whitespace, an unfinished field)
** to `fn` as the last piece, unless the cutter was stopped. */
void trak__text_split_finish(trak_text_split *s, trak_text_piece_fn *fn, void *ctx);

#endif /* TRAK_PROCESSOR_TEXT_SPLIT_H */
