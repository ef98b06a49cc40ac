/*
** The systrace text line: one event line of tracefs' `trace` file, of `trace-cmd report` and of
** a JSON trace's `systemTraceEvents` string ("TASK-PID (TGID) [CPU] FLAGS SECONDS: EVENT: ARGS"),
** cut into its fields with Perfetto's rules, and the key=value arguments of its ARGS text. Pure
** functions over bytes: no allocation, no processor state.
*/
#ifndef TRAK_PROCESSOR_UTIL_SYSTRACE_LINE_H
#define TRAK_PROCESSOR_UTIL_SYSTRACE_LINE_H

#include <stddef.h>
#include <stdint.h>

/* A piece of a caller's buffer (not NUL-terminated). */
typedef struct trak_strv {
  const char *s;
  size_t len;
} trak_strv;

/* One parsed event line; every trak_strv points into the line given to the parser. */
typedef struct trak_systrace_line {
  trak_strv task;  /* the text before "-PID", trimmed: "<idle>", "kworker/u16:1", "<...>" */
  uint32_t pid;    /* the thread's id (decimal; wraps modulo 2^32 as strtoul then a cast) */
  trak_strv tgid;  /* the digits or dashes of "(TGID)"; empty when the line has no tgid */
  uint32_t cpu;    /* the number between the brackets */
  int64_t ts;      /* SECONDS as a double times 1e9, truncated toward zero: nanoseconds */
  trak_strv event; /* the event's name ("sched_switch", "tracing_mark_write", "0") */
  trak_strv args;  /* everything after "EVENT:", trimmed of white space */
} trak_systrace_line;

/* Why a line is not an event line (trak__systrace_line_parse's negative returns). */
enum {
  TRAK_SYSTRACE_LINE_NO_MATCH = -1, /* no "-PID [CPU] ... SECONDS: EVENT:" anywhere in it */
  TRAK_SYSTRACE_LINE_BAD_TS = -2    /* SECONDS is too large for int64 nanoseconds */
};

/* Parses one line (without its '\n'; a trailing '\r' counts as white space) into *out. The
** fields are found as Perfetto's systrace tokenizer finds them: the leftmost "-PID" followed by
** white space, an optional "(TGID)" (digits or dashes), "[CPU]", optional irq flags (three of
** [a-zA-Z.] then one or two of [0-9a-f.]), "SECONDS.FRACTION:", white space, and the event name
** up to the last ':' of the next run of non-space bytes; the task is what comes before, trimmed.
** Returns 0, or a TRAK_SYSTRACE_LINE_* code with *out unspecified. Lines the caller must skip
** before calling (comments starting with '#', empty lines, headers) are not recognised here. */
int trak__systrace_line_parse(const char *line, size_t len, trak_systrace_line *out);

/* A one-line description of a trak__systrace_line_parse error code (static storage). */
const char *trak__systrace_line_error(int code);

/* Looks up `key` in the ARGS text of an event line as Perfetto's line parser reads it: ARGS is
** split at single spaces (empty pieces dropped); a piece without '=' is the value of the key
** "name"; a piece with '=' is split at '=' (empty parts dropped) into the key (first part) and
** the value (last part, empty when there is one part); when a key occurs twice the first piece
** wins. Returns 1 and sets *value when the key is there, else 0. This function can't fail. */
int trak__systrace_args_find(trak_strv args, const char *key, trak_strv *value);

#endif /* TRAK_PROCESSOR_UTIL_SYSTRACE_LINE_H */
