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

/* A reader yields rows one by one from a window of whole lines, [p, end), that the driver
** refills from its source (events_source.c) between rows. next() returns 1 with a row, 0 at the
** end of the input, TRAK__NEED_MORE when the window ends before the row does (nothing consumed:
** the driver widens the window and calls again), or TRAK_EFORMAT with `err` saying
** "line N: why"; after an error it skips to the next line and can go on. */
#define TRAK__NEED_MORE 2
typedef struct trak__reader {
  const char *p, *end; /* unread text in the window: whole lines, or all the rest when eof */
  int eof;             /* nothing follows `end` */
  uint64_t line;       /* line number at p */
  const char **header; /* CSV: column names (in the reader's own arena) */
  size_t n_header;
  trak__arena header_arena;
  int (*next)(struct trak__reader *r, trak__arena *a, trak__row *row, trak_error *err);
} trak__reader;

/* The readers' init functions set r->next on a reader whose window the caller set up. */
/* events_csv.c. Read the header line first: returns 0, TRAK__NEED_MORE, or TRAK_EFORMAT if
** it is unusable. */
void trak__wr_csv_reader_init(trak__reader *r);
int trak__wr_csv_read_header(trak__reader *r, trak_error *err);
/* events_jsonl.c */
void trak__wr_jsonl_reader_init(trak__reader *r);
void trak__wr_reader_free(trak__reader *r);

/* events_source.c: where the window's text comes from. A source with no `read` function is
** text in memory, all in the window from the start. */
typedef struct trak__source {
  trak_events_read_fn read;
  void *user;
  char *buf; /* owned: bytes read, [0, len), the window and what follows it */
  size_t len, cap;
  int at_eof; /* read() reported the end */
} trak__source;
/* Widens r's window by at least one whole line, or to the end of the input (setting r->eof),
** first moving the unread text to the start of the buffer (rows hold no pointers into it).
** Returns 0, or TRAK_EIO / TRAK_ENOMEM / TRAK_EFORMAT (a row longer than the limit) with `err`
** set. */
int trak__wr_source_more(trak__source *s, trak__reader *r, trak_error *err);
void trak__wr_source_free(trak__source *s);

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
