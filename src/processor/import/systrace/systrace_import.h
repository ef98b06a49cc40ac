/*
** The systrace importer's private state, shared by reader.c (bytes to lines, the file's
** layout), events.c (what each event line means), ps_rows.c (ps output) and numbers.c.
*/
#ifndef TRAK_PROCESSOR_IMPORT_SYSTRACE_IMPORT_H
#define TRAK_PROCESSOR_IMPORT_SYSTRACE_IMPORT_H

#include <stdint.h>

#include "processor/import/importer.h"
#include "processor/import/systrace/systrace.h"
#include "processor/util/systrace_line.h"
#include "processor/util/systrace_text.h"

struct trak_systrace_import {
  trak_importer *imp;
  trak_systrace_kind kind;
  int started;                   /* the file's first bytes (banner, cpus=N) are handled */
  trak_systrace_section section; /* of the next line */
  TRAK_VEC(char) part;           /* a line cut by the end of a feed (or the file's first bytes) */
  uint64_t line_no;              /* lines read so far */
  uint64_t offset;               /* text offset of the next byte fed */
  int skipping;                  /* a line over the length limit is being skipped */
  uint64_t events;               /* event lines read */
};

/* events.c: applies one parsed event line (line `line_no`) through the Linux event sink
** (import/ftrace/ftrace.h, which orders events by timestamp as Perfetto's sorter does): the
** thread its task names, then what its event means (sched_switch, sched_waking, counters,
** atrace markers, ...). A line whose arguments do not read counts systrace_parse_failure. */
void trak__systrace_event_apply(trak_systrace_import *s, const trak_systrace_line *line,
                                uint64_t line_no);

/* ps_rows.c: one row of a PROCESS DUMP section (`kind` TRAK_SYSTRACE_PS_ROW_LONG or _SHORT):
** a process and its parent, or a thread of a process and its command line as its name. A row
** whose ids do not read counts systrace_parse_failure. */
void trak__systrace_ps_row(trak_systrace_import *s, trak_systrace_line_kind kind, const char *line,
                           size_t len);

/* numbers.c: an argument's text as a number, read as Perfetto's base::StringToUInt32 /
** StringToInt32 / StringToInt64 / StringToDouble read it (strtoul / strtol / strtoll / strtod
** on the whole text: leading blanks and a sign accepted, the integer ones cast to their width).
** Return 0 and set *out, or -1 when the text is empty or has bytes after the number. */
int trak__systrace_u32(trak_strv v, uint32_t *out);
int trak__systrace_i32(trak_strv v, int32_t *out);
int trak__systrace_i64(trak_strv v, int64_t *out);
int trak__systrace_double(trak_strv v, double *out);

/* reader.c: counts systrace_parse_failure for line `line_no` (a line that does not read as a
** systrace line), saying why. trak__systrace_unparsed: counts systrace_event_unparsed for line
** `line_no`, an event whose fields lack what its parser needs. */
void trak__systrace_failure(trak_systrace_import *s, uint64_t line_no, const char *why);
void trak__systrace_unparsed(trak_systrace_import *s, uint64_t line_no, const char *why);

#endif /* TRAK_PROCESSOR_IMPORT_SYSTRACE_IMPORT_H */
