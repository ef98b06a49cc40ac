/*
** The kernel's atrace-style events as the atrace markers they stand for: the display and GPU
** drivers' tracing_mark_write kinds (mdss's tracing_mark_write, sde_, samsung_, dpu_, g2d_,
** mali_, lwis_tracing_mark_write, panel_write_generic) and the systrace "zero" event carry a
** phase (a letter as a number, a begin flag, or zero's flag bits), a process, a name and a value
** in fields whose names differ by kind. The importer (import/proto/ftrace_markers.c) reads them
** from the event's protobuf fields, the JSON exporter (export/json_systrace.c) from its args;
** both pick the phase and write the marker text here, as Perfetto's parsers read these events.
*/
#ifndef TRAK_UTIL_KERNEL_MARKER_H
#define TRAK_UTIL_KERNEL_MARKER_H

#include <stddef.h>
#include <stdint.h>

/* The kinds, in the order of trak__kernel_marker_kinds. */
typedef enum trak_kmark_kind {
  TRAK_KMARK_MDSS = 0, /* tracing_mark_write: trace_begin */
  TRAK_KMARK_SDE,      /* trace_type, else trace_begin */
  TRAK_KMARK_SAMSUNG,  /* trace_type */
  TRAK_KMARK_DPU,      /* type; the payload's pid kept for counters only */
  TRAK_KMARK_G2D,
  TRAK_KMARK_MALI,
  TRAK_KMARK_LWIS, /* named by func_name */
  TRAK_KMARK_PANEL,
  TRAK_KMARK_ZERO, /* flag: 1 begin, 2 end, 4 counter */
  TRAK_KMARK_KINDS
} trak_kmark_kind;

/* One kind: its event name and the names of the fields that make its point (NULL: none). */
typedef struct trak_kmark_desc {
  const char *event, *pid, *name, *type, *begin, *value, *flag;
} trak_kmark_desc;

extern const trak_kmark_desc trak__kernel_marker_kinds[TRAK_KMARK_KINDS];

/* An event's point fields as read (has_*: the field was there). */
typedef struct trak_kmark {
  int64_t pid, type, begin, value, flag;
  const char *name; /* not NUL-terminated: name_len bytes */
  size_t name_len;
  int has_type, has_begin;
} trak_kmark;

/* The kind of the event named `event` (NUL-terminated), or -1 when it is none of them. */
int trak__kernel_marker_kind(const char *event);

/* Writes the marker text of `m`, an event of kind `kind` ("B|tgid|name", "E|tgid",
** "C|tgid|name|value" or "I|tgid|name", the name cut at 500 bytes), NUL-terminated into `out`
** of `cap` bytes (at least 600). Returns its length, or -1 when the event names no phase (what
** Perfetto counts as a systrace_parse_failure). */
int trak__kernel_marker_text(trak_kmark_kind kind, const trak_kmark *m, char *out, size_t cap);

#endif /* TRAK_UTIL_KERNEL_MARKER_H */
