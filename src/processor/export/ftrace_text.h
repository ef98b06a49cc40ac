/*
** The ftrace_event rows as tracefs text: the arguments of one event as Perfetto's systrace
** serializer writes them (sched_switch with prev_state letters, softirq action names,
** workqueue and binder layouts, gfp_flags names, ...) and the whole line of the SQL function
** to_ftrace(id). The JSON exporter's systemTraceEvents (json_systrace.c) write their arguments
** with the same rules.
*/
#ifndef TRAK_PROCESSOR_EXPORT_FTRACE_TEXT_H
#define TRAK_PROCESSOR_EXPORT_FTRACE_TEXT_H

#include <stdint.h>

#include "processor/util/systrace_write.h"

struct trak_tables;

/* What the writers read and where they write. */
typedef struct trak_ftrace_text {
  const struct trak_tables *t;
  trak_textbuf *b;
  int major, minor; /* the trace's kernel version (machine 0's release), 0.0: unknown */
  int one_line;     /* 1: string values with control bytes written as spaces (line-based text) */
} trak_ftrace_text;

/* Fills x for tables t and buffer b, reading the kernel version from t. Can't fail. */
void trak__ftrace_text_init(trak_ftrace_text *x, const struct trak_tables *t, trak_textbuf *b,
                            int one_line);

/* The args row of `key` in arg set `set` (TRAK_NULL_U32: none), or TRAK_NULL_U32. */
uint32_t trak__ftrace_arg_row(const struct trak_tables *t, uint32_t set, const char *key);

/* Appends the text after "EVENT:" of an event named `name` with arg set `set`, as Perfetto's
** systrace serializer writes it: nothing for an event without args, the layout of the events
** it models, else " key=value" per arg in arg set order. Aborts when memory runs out. */
void trak__ftrace_args_write(const trak_ftrace_text *x, const char *name, uint32_t set);

/* Appends " key=value" per arg of arg set `set` in arg set order (gfp_flags by flag names), the
** layout of the events Perfetto's serializer does not model. */
void trak__ftrace_args_plain_write(const trak_ftrace_text *x, uint32_t set);

/* Appends the to_ftrace line of ftrace_event row `row` (no newline). Returns 0, or -1 (nothing
** written) when `row` is out of range or its event is a chrome_event.* or track_event.* row,
** which Perfetto does not serialize. */
int trak__ftrace_line_write(const trak_ftrace_text *x, uint32_t row);

#endif /* TRAK_PROCESSOR_EXPORT_FTRACE_TEXT_H */
