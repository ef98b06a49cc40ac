/*
** The tabular event converter's internal interface. Two readers (events_csv.c, events_jsonl.c)
** turn text into rows of named values; events_convert.c turns each row into a trak_writer_event,
** resolving its track path with events_path.c. Rows live in a per-row arena.
*/
#ifndef TRAK_WRITER_EVENTS_INTERNAL_H
#define TRAK_WRITER_EVENTS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "trak/writer.h"

/* A bump allocator whose memory is released all at once. */
typedef struct trak__arena_chunk trak__arena_chunk;
typedef struct trak__arena {
  trak__arena_chunk *head;
} trak__arena;

/* Returns `size` bytes aligned for any type, or NULL when memory runs out. */
void *trak__wr_arena_alloc(trak__arena *a, size_t size);
/* Releases everything allocated so far (keeps one chunk for reuse). */
void trak__wr_arena_reset(trak__arena *a);
void trak__wr_arena_free(trak__arena *a);

/* A cell value. CSV cells are all TRAK__V_TEXT (untyped text); JSON gives the typed kinds. */
typedef enum trak__val_type {
  TRAK__V_NULL,
  TRAK__V_BOOL,
  TRAK__V_NUMBER, /* JSON number: str holds its literal text */
  TRAK__V_STRING, /* JSON string, unescaped */
  TRAK__V_TEXT,   /* CSV cell: a type is inferred where one is needed */
  TRAK__V_OBJECT,
  TRAK__V_ARRAY
} trak__val_type;

typedef struct trak__val {
  trak__val_type type;
  int b;           /* BOOL */
  const char *str; /* NUMBER, STRING, TEXT: NUL-terminated, in the arena */
  size_t len;
  struct trak__val *items; /* OBJECT, ARRAY */
  const char **keys;       /* OBJECT: keys[i] names items[i] */
  size_t n;
} trak__val;

/* One row: named cells in column order, and the line it starts on (1-based). */
typedef struct trak__row {
  const char **keys;
  trak__val *vals;
  size_t n;
  uint64_t line;
} trak__row;

/* A reader yields rows one by one. next() returns 1 with a row, 0 at the end, or TRAK_EFORMAT
** with `err` saying "line N: why"; after an error it skips to the next line and can go on. */
typedef struct trak__reader {
  const char *p, *end; /* unread text */
  uint64_t line;       /* line number at p */
  const char **header; /* CSV: column names (in the reader's own arena) */
  size_t n_header;
  trak__arena header_arena;
  int (*next)(struct trak__reader *r, trak__arena *a, trak__row *row, trak_error *err);
} trak__reader;

/* events_csv.c: reads the header line first; fails with TRAK_EFORMAT if it is unusable. */
int trak__wr_csv_reader_init(trak__reader *r, const char *text, size_t len, trak_error *err);
/* events_jsonl.c */
void trak__wr_jsonl_reader_init(trak__reader *r, const char *text, size_t len);
void trak__wr_reader_free(trak__reader *r);

/* events_path.c: resolves track paths to writer tracks, declaring them on first use. */
typedef struct trak__paths trak__paths;
trak__paths *trak__wr_paths_new(void);
void trak__wr_paths_free(trak__paths *p);
/* Resolves `path` for an event of `type`; a counter's last segment becomes a counter track
** with `unit` (ns, count, bytes, or any other text as unit_name; may be NULL). Returns 0 and
** sets *out, or TRAK_EFORMAT / the writer's refusal with a message in `err`. */
int trak__wr_paths_resolve(trak__paths *p, trak_writer *w, const char *path, int counter,
                           const char *unit, trak_writer_track *out, trak_error *err);

#endif /* TRAK_WRITER_EVENTS_INTERNAL_H */
