/*
** Helpers shared by the cmocka tests: locating test data, reading files, and turning text
** format into binary with one call.
*/
#ifndef TRAK_TESTUTIL_H
#define TRAK_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "trak/pb.h"

/* $TRAK_SOURCE_DIR/relative, in a static buffer (valid until the next call). */
const char *tu_source_path(const char *relative);

/* Reads a whole file into a malloc'ed NUL-terminated buffer; fails the test if it can't. */
char *tu_read_file(const char *path, size_t *len);

/* Creates an empty file from the mkstemp template `path` (rewritten in place to its name);
** fails the test if it can't. */
void tu_temp_file(char *path);

/* Whether the page holding `p` (mapped) is in memory (mincore); fails the test if it can't tell. */
int tu_resident(const void *p);

/* Creates a file from the mkstemp template `path` (rewritten in place to its name) holding the
** `len` bytes at `data`; fails the test if it can't. */
void tu_write_temp(char *path, const void *data, size_t len);

/* Parses text as `message` into a heap buffer `out` (initialised here); fails the test on error. */
void tu_pbtxt_to_binary(const char *message, const char *text, trak_pb_buf *out);

/* Prints binary as text into a malloc'ed NUL-terminated string; fails the test on error. */
char *tu_binary_to_pbtxt(const char *message, const void *data, size_t len);

/* Imports the trace at `path` and exports its tables, and its import log (what was reported
** where, in order) as table `logs`, to the SQLite file `db`. Returns the import's code (a
** malformed trace still imports what it can and exports). */
int tu_import_export(const char *path, const char *db);
/* Exports the tables and import log of the processor `p` (a trak_processor, its import finished)
** to `db` as tu_import_export does; returns the export's code. */
struct trak_processor;
int tu_export(struct trak_processor *p, const char *db);

/* Opens the trace at `path` and returns the first column of the first row of `sql` over it
** (as an integer); fails the test if either step fails or there is no row. */
int64_t tu_query_int(const char *path, const char *sql);
/* The same as text (a copy to free; NULL for a NULL). */
char *tu_query_text(const char *path, const char *sql);

/* Fails the test, saying the tables differ in `what`, unless files `a` and `b` hold the same
** bytes. */
void tu_assert_same_file(const char *a, const char *b, const char *what);

/* Whether the mapping holding address `p` carries the kernel's "no huge pages" flag (VmFlags
** "nh" in /proc/self/smaps, set by madvise(MADV_NOHUGEPAGE)): 1, 0, or -1 when smaps cannot be
** read. */
int tu_no_huge_pages(const void *p);

/* The next number of a xorshift64 generator whose state is *s (nonzero): tests' random inputs,
** the same on every run. */
static inline uint64_t tu_xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

#endif /* TRAK_TESTUTIL_H */
