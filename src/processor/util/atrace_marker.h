/*
** The atrace marker: the text a program writes to tracefs' trace_marker ("B|1636|name",
** "E|1636", "C|1636|counter|42", "S|1636|name|cookie", ...), which reaches a trace inside ftrace
** print events and systrace lines. Parsed with Perfetto's rules by a pure function.
*/
#ifndef TRAK_PROCESSOR_UTIL_ATRACE_MARKER_H
#define TRAK_PROCESSOR_UTIL_ATRACE_MARKER_H

#include <stdint.h>

#include "processor/util/systrace_line.h"

/* One marker; the trak_strv fields point into the text given to the parser. */
typedef struct trak_atrace_marker {
  char phase;      /* 'B', 'E', 'C', 'S', 'F', 'I', 'N', 'G' or 'H' */
  uint32_t tgid;   /* the process id after the phase; 0 when absent or not a number */
  trak_strv name;  /* B, C, S, F, I: the name; N, G: the slice's name; else empty */
  int64_t value;   /* C: the counter's value; S, F, G, H: the cookie; else 0 */
  trak_strv track; /* N, G, H: the track's name; else empty */
} trak_atrace_marker;

/* trak__atrace_marker_parse's results. */
enum {
  TRAK_ATRACE_OK = 0,          /* *out holds a marker */
  TRAK_ATRACE_UNSUPPORTED = 1, /* "trace_event_clock_sync: ...": skipped without a stat */
  TRAK_ATRACE_FAILURE = -1     /* not a marker Perfetto accepts (counted as a parse failure) */
};

/* Parses the marker text [s, s + len) as Perfetto does: trailing '\n' and '\0' bytes are
** dropped; fields are separated by '|' (or a '\0' inside the text); the first field's first
** byte is the phase and the second field the tgid (decimal, strtoul's reading, cast to 32
** bits). B needs a tgid and takes the rest of the text, '|' included, as its name
** ("[empty slice name]" when there is none); E needs nothing more; S, F, C need a tgid, a name
** and a decimal int64 (the cookie or value; any fields after are ignored, like Chromium's
** counter category); I needs a tgid and a name; N a tgid, a track and a name; G a tgid, track,
** name and cookie; H a tgid, track and a cookie in its fourth field, or its third when the
** fourth is empty. Returns a TRAK_ATRACE_* code; on failure *out is unspecified. */
int trak__atrace_marker_parse(const char *s, size_t len, trak_atrace_marker *out);

#endif /* TRAK_PROCESSOR_UTIL_ATRACE_MARKER_H */
