/*
** This file holds the ftrace part of the JSON exporter: every ftrace_event row written as one
** line of systrace text for a JSON trace's "systemTraceEvents", in the layout of Perfetto's
** to_ftrace (traceconv json) and readable by systrace parsers (trak's and Perfetto's). The
** events those parsers model are written in the form they read (sched_switch with prev_state
** letters, print as tracing_mark_write, ...), every other event as "name: key=value ...".
*/
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "processor/export/ftrace_text.h"
#include "processor/export/json_systrace.h"
#include "processor/processor_internal.h"
#include "processor/tables/arg_value.h"
#include "processor/tables/sched_cols.h"
#include "processor/util/systrace_write.h"
#include "util/kernel_marker.h"

typedef struct line {
  const trak_tables *t;
  trak_ftrace_text x; /* the args writer, one line per event */
  uint32_t set;       /* the event's arg set, TRAK_NULL_U32: none */
} line;

static const char *str(const trak_tables *t, uint32_t id) {
  const char *s = id ? trak__str(&t->strings, id) : NULL;
  return s ? s : "";
}

static uint32_t arg_row(const line *l, const char *key) {
  return trak__ftrace_arg_row(l->t, l->set, key);
}

static int64_t int_arg(const line *l, const char *key, int64_t absent) {
  uint32_t row = arg_row(l, key);
  return row == TRAK_NULL_U32 ? absent : trak__arg_int(l->t, row);
}

/* Events whose Perfetto layout the systrace parsers would read back other than the trace has
** them: clock events without their name (a key=value the parsers look for), workqueue events
** as slices the JSON's traceEvents already hold. */
static const char *const plain_events[] = {"clock_set_rate", "clock_enable", "clock_disable",
                                           "workqueue_execute_start", "workqueue_execute_end"};

/* The text after "EVENT:" of one event named `name`: Perfetto's serializer's (ftrace_text.h),
** but for the plain_events, and cpu_frequency_limits, which the systrace parsers read with all
** three fields. */
static void put_event_args(const line *l, const char *name) {
  for (size_t i = 0; i < sizeof plain_events / sizeof *plain_events; i++)
    if (!strcmp(name, plain_events[i])) {
      trak__ftrace_args_plain_write(&l->x, l->set);
      return;
    }
  if (!strcmp(name, "cpu_frequency_limits")) {
    /* A field the event left out is 0 to the protobuf parser: written, so that text says it */
    trak__textbuf_printf(l->x.b, " min_freq=%" PRId64 " max_freq=%" PRId64 " cpu_id=%" PRId64,
                         int_arg(l, "min_freq", 0), int_arg(l, "max_freq", 0),
                         int_arg(l, "cpu_id", 0));
  } else {
    trak__ftrace_args_write(&l->x, name, l->set);
  }
}

/* A kernel atrace-style event (util/kernel_marker.h) of kind `kind`: the marker text it stands
** for into `out` (cap bytes), from its args; its length, or -1 when it names no point. */
static int kernel_marker(const line *l, int kind, char *out, size_t cap) {
  const trak_kmark_desc *k = &trak__kernel_marker_kinds[kind];
  trak_kmark m = {0};
  uint32_t row = k->name ? arg_row(l, k->name) : TRAK_NULL_U32;
  if (row != TRAK_NULL_U32) {
    m.name = str(l->t, trak__arg_str(l->t, row));
    m.name_len = strlen(m.name);
  }
  m.pid = k->pid ? int_arg(l, k->pid, 0) : 0;
  m.has_type = k->type && arg_row(l, k->type) != TRAK_NULL_U32;
  m.type = m.has_type ? int_arg(l, k->type, 0) : 0;
  m.has_begin = k->begin && arg_row(l, k->begin) != TRAK_NULL_U32;
  m.begin = m.has_begin ? int_arg(l, k->begin, 0) : 0;
  m.value = k->value ? int_arg(l, k->value, 0) : 0;
  m.flag = k->flag ? int_arg(l, k->flag, 0) : 0;
  return trak__kernel_marker_text((trak_kmark_kind)kind, &m, out, cap);
}

/* The CPU number of a ucpu (the cpu table's row). */
static uint32_t cpu_of(const trak_tables *t, uint32_t ucpu) {
  if (ucpu < t->cpu.n && t->cpu.cpu[ucpu] != TRAK_NULL_U32) return t->cpu.cpu[ucpu];
  return ucpu % 4096;
}

uint32_t trak__json_systrace_text(const trak_tables *t, int64_t from_ts, trak_textbuf *b) {
  line l = {.t = t, .set = TRAK_NULL_U32};
  trak__ftrace_text_init(&l.x, t, b, 1);
  uint32_t skipped = 0;
  trak__textbuf_printf(b, "# tracer: nop\n#\n"
                          "#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
                          "#              | |        |      |   ||||       |         |\n");
  for (uint32_t i = 0; i < t->ftrace_event.n; i++) {
    const char *name = str(t, trak__fe_name(t, i));
    int64_t ts = t->ftrace_event.ts[i];
    uint32_t utid = t->ftrace_event.utid[i];
    /* Text holds neither negative times nor event names with spaces or no name. */
    if (ts < 0 || ts < from_ts || !*name || strpbrk(name, " \t\n\r") || utid >= t->thread.n) {
      skipped++;
      continue;
    }
    uint32_t upid = t->thread.upid[utid];
    int64_t tgid = upid != TRAK_NULL_U32 && t->process.pid[upid] > 0 ? t->process.pid[upid] : -1;
    l.set = t->ftrace_event.arg_set_id[i];
    /* print, and a kernel atrace-style event that names a point, are the marker text of a
    ** tracing_mark_write line, what systrace readers take as markers */
    char mark[600];
    int kind = trak__kernel_marker_kind(name);
    int n = kind >= 0 ? kernel_marker(&l, kind, mark, sizeof mark) : -1;
    trak__systrace_prefix_write(b, str(t, t->thread.name[utid]), t->thread.tid[utid], tgid,
                                cpu_of(t, trak__fe_ucpu(t, i)), ts,
                                n >= 0 || !strcmp(name, "print") ? "tracing_mark_write" : name);
    if (n >= 0)
      trak__textbuf_printf(b, " %s", mark);
    else
      put_event_args(&l, name);
    trak__textbuf_printf(b, "\n");
  }
  return skipped;
}
