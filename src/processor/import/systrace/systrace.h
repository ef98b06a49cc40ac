/*
** The systrace text importer's entry points for read/ and json/: a stream of systrace text
** (tracefs' `trace` file, `trace-cmd report`, a Catapult HTML trace, a JSON trace's
** `systemTraceEvents` string) read line by line into the importer's tables.
*/
#ifndef TRAK_PROCESSOR_IMPORT_SYSTRACE_H
#define TRAK_PROCESSOR_IMPORT_SYSTRACE_H

#include <stddef.h>

typedef struct trak_importer trak_importer;
typedef struct trak_systrace_import trak_systrace_import;

/* How the text is laid out. */
typedef enum trak_systrace_kind {
  TRAK_SYSTRACE_FILE, /* a whole file: banner, "cpus=N", HTML sections and ps output are read */
  TRAK_SYSTRACE_JSON  /* a JSON trace's systemTraceEvents string: event lines and comments only */
} trak_systrace_kind;

/* A new systrace reader filling `imp` (which must outlive it). Free with
** trak__systrace_import_free. Aborts when out of memory, like the rest of the importer. */
trak_systrace_import *trak__systrace_import_new(trak_importer *imp, trak_systrace_kind kind);

/* Reads the next `len` bytes of the text (any split: a line cut by the end waits for the rest)
** and hands each event line to the Linux event sink (import/ftrace/), which applies them in
** timestamp order when the import ends. Lines that are not events count
** systrace_parse_failure with their line number; nothing here fails. */
void trak__systrace_import_feed(trak_systrace_import *s, const char *data, size_t len);

/* Reads the last line (one without a '\n'). Call once, at the end of the text. */
void trak__systrace_import_finish(trak_systrace_import *s);

/* Frees the reader (NULL is fine); the rows it made stay in the tables. */
void trak__systrace_import_free(trak_systrace_import *s);

/* The number of event lines read so far (for the processor's empty-trace check). */
size_t trak__systrace_import_events(const trak_systrace_import *s);

#endif /* TRAK_PROCESSOR_IMPORT_SYSTRACE_H */
