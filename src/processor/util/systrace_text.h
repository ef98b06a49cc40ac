/*
** The layout of a systrace text file around its event lines, as Perfetto reads it: recognising
** the format from its first bytes, what to drop before the first line (adb's "TRACE:" banner,
** trace-cmd's "cpus=N" line), and which lines are events, ps output or neither, including inside
** the <script> sections of a Catapult HTML trace. Pure functions over bytes.
*/
#ifndef TRAK_PROCESSOR_UTIL_SYSTRACE_TEXT_H
#define TRAK_PROCESSOR_UTIL_SYSTRACE_TEXT_H

#include <stddef.h>

/* How many first bytes the format checks look at. */
#define TRAK_SYSTRACE_LOOKAHEAD 128

/* Where in the file a line is (the reader's state between lines). */
typedef enum trak_systrace_section {
  TRAK_SYSTRACE_EVENTS,   /* event lines (plain text, or inside an HTML trace-data section) */
  TRAK_SYSTRACE_HTML,     /* HTML outside a trace-data section */
  TRAK_SYSTRACE_DATA,     /* inside a trace-data section, before its kind is known */
  TRAK_SYSTRACE_PS_LONG,  /* "PROCESS DUMP": user pid ppid vsz rss wchan pc s name cmdline */
  TRAK_SYSTRACE_PS_SHORT, /* the short ps form: user pid tid cmdline */
  TRAK_SYSTRACE_CGROUP,   /* "CGROUP DUMP" (not read) */
  TRAK_SYSTRACE_DONE      /* after the events' closing </script>: the rest is ignored */
} trak_systrace_section;

/* What a line is, as trak__systrace_text_line says. */
typedef enum trak_systrace_line_kind {
  TRAK_SYSTRACE_SKIP,        /* nothing to read (comment, blank, header, HTML, cgroups) */
  TRAK_SYSTRACE_EVENT,       /* an event line for trak__systrace_line_parse */
  TRAK_SYSTRACE_PS_ROW_LONG, /* a long ps row with at least 10 fields */
  TRAK_SYSTRACE_PS_ROW_SHORT /* a short ps row with at least 4 fields */
} trak_systrace_line_kind;

/* Returns 1 when the first bytes [s, s + len) (at most TRAK_SYSTRACE_LOOKAHEAD are looked at)
** look like systrace text: "# tracer" in them, an HTML start ("<!doctype html>" or "<html>",
** any case), "TRACE:\n" in them, or a start with "cpus=" or a space. Else 0. */
int trak__systrace_text_sniff(const char *s, size_t len);

/* For the first bytes of the file: returns how many bytes to drop before the first line (up to
** and including a "TRACE:\n" found in the first TRAK_SYSTRACE_LOOKAHEAD bytes, then a first line
** "cpus=DIGITS\n") and sets *section to the state of the first line (HTML when the remaining
** text starts with '<'). This function can't fail. */
size_t trak__systrace_text_start(const char *s, size_t len, trak_systrace_section *section);

/* Classifies one line (without its '\n') in *section and moves *section to the next line's state
** (a "</script>" line ends a section; in events it ends the file's events). */
trak_systrace_line_kind trak__systrace_text_line(trak_systrace_section *section, const char *line,
                                                 size_t len);

#endif /* TRAK_PROCESSOR_UTIL_SYSTRACE_TEXT_H */
