/*
** The ftrace part of the JSON exporter (json_systrace.c): the ftrace_event rows as the systrace
** text of a JSON trace's "systemTraceEvents".
*/
#ifndef TRAK_PROCESSOR_JSON_SYSTRACE_H
#define TRAK_PROCESSOR_JSON_SYSTRACE_H

#include <stdint.h>

#include "processor/util/systrace_write.h"

struct trak_tables;

/* Appends to b a systrace header and one event line per row of t's ftrace_event table from
** `from_ts` on, in table order. Returns how many rows text cannot hold (a negative time, a name
** with white space or none, an unknown thread) or are before from_ts: they are left out. Aborts
** when memory runs out. */
uint32_t trak__json_systrace_text(const struct trak_tables *t, int64_t from_ts, trak_textbuf *b);

#endif /* TRAK_PROCESSOR_JSON_SYSTRACE_H */
