/*
** The systrace text writer: the inverse of the line parser of systrace_line.h. It writes the
** prefix of an event line ("TASK-PID (TGID) [CPU] .... SECONDS: EVENT:") in the layout of
** Perfetto's to_ftrace, with a timestamp that the parser reads back to the same nanosecond, and
** one key=value argument as Perfetto's line parser splits it. Pure functions over a caller's
** buffer; no processor state.
*/
#ifndef TRAK_PROCESSOR_UTIL_SYSTRACE_WRITE_H
#define TRAK_PROCESSOR_UTIL_SYSTRACE_WRITE_H

#include <stddef.h>
#include <stdint.h>

/* A growing text buffer, NUL-terminated after `len` bytes once anything is written. */
typedef struct trak_textbuf {
  char *s;    /* malloc'ed, owned by the buffer; NULL before the first write */
  size_t len; /* bytes written, excluding the NUL */
  size_t cap; /* bytes allocated */
} trak_textbuf;

/* Appends printf-formatted text. Aborts when memory runs out (as the tables' growth does). */
void trak__textbuf_printf(trak_textbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends n bytes of s, each control byte (below 0x20: a newline would end the event line)
** written as a space. Aborts when memory runs out. */
void trak__textbuf_put_text(trak_textbuf *b, const char *s, size_t n);

/* Frees the buffer's memory and empties it. Accepts an empty buffer. */
void trak__textbuf_free(trak_textbuf *b);

/* Writes the seconds of `ns` (>= 0) as "SECONDS.NNNNNNNNN" to out (room for 32 bytes), with a
** tenth fraction digit '5' when the nine-digit form would read back (strtod, times 1e9,
** truncated, as systrace_line.c reads it) as a different nanosecond. Returns the length. */
size_t trak__systrace_ts_format(int64_t ns, char out[32]);

/* Appends the prefix of an event line up to and including "EVENT:" to b: the task name right
** aligned in 16 columns ("<...>" when task is NULL or empty; control bytes as spaces), "-TID",
** "(TGID)" ("-----" when tgid < 0), "[CPU]" with three digits, the flags "....", the timestamp
** and the event name. When the task name would make the line read back with another task or
** pid, its '-' are written as '_' (as Perfetto writes every '-'). `event` must be one run of
** non-space bytes. */
void trak__systrace_prefix_write(trak_textbuf *b, const char *task, int64_t tid, int64_t tgid,
                                 uint32_t cpu, int64_t ts, const char *event);

/* Appends the prefix of a line of Perfetto's to_ftrace(id) to b, up to and including "EVENT:":
** as trak__systrace_prefix_write, but the task is "<idle>" for tid 0 and "<unknown>" when NULL
** or empty, every '-' of it is written as '_', and the time has whole microseconds
** ("SECONDS.UUUUUU", truncated). tgid < 0 is written "-----". */
void trak__ftrace_prefix_write(trak_textbuf *b, const char *task, int64_t tid, int64_t tgid,
                               uint32_t cpu, int64_t ts, const char *event);

#endif /* TRAK_PROCESSOR_UTIL_SYSTRACE_WRITE_H */
