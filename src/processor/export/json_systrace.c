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

#include "processor/export/json_systrace.h"
#include "processor/processor_internal.h"
#include "processor/tables/sched_cols.h"
#include "processor/util/systrace_write.h"
#include "processor/util/task_state.h"
#include "util/kernel_marker.h"

typedef struct line {
  const trak_tables *t;
  trak_textbuf *b;
  uint32_t set;     /* the event's arg set, TRAK_NULL_U32: none */
  int major, minor; /* the trace's kernel version, for prev_state bits */
} line;

static const char *str(const trak_tables *t, uint32_t id) {
  const char *s = id ? trak__str(&t->strings, id) : NULL;
  return s ? s : "";
}

/* The row of `key` in the event's arg set, or TRAK_NULL_U32. */
static uint32_t arg_row(const line *l, const char *key) {
  const trak_tables *t = l->t;
  if (l->set == TRAK_NULL_U32) return TRAK_NULL_U32;
  for (uint32_t row = l->set; row < t->args.n && t->args.arg_set_id[row] == l->set; row++)
    if (!strcmp(str(t, t->args.key[row]), key)) return row;
  return TRAK_NULL_U32;
}

/* An arg's value as Perfetto's to_ftrace writes it (pointers in decimal, bools as words). */
static void put_value(const line *l, uint32_t row) {
  const trak_tables *t = l->t;
  trak_textbuf *b = l->b;
  switch ((trak_arg_type)t->args.value_type[row]) {
  case TRAK_ARG_INT:
    trak__textbuf_printf(b, "%" PRId64, t->args.int_value[row]);
    break;
  case TRAK_ARG_UINT:
  case TRAK_ARG_POINTER:
    trak__textbuf_printf(b, "%" PRIu64, (uint64_t)t->args.int_value[row]);
    break;
  case TRAK_ARG_BOOL:
    trak__textbuf_printf(b, "%s", t->args.int_value[row] ? "true" : "false");
    break;
  case TRAK_ARG_REAL:
    trak__textbuf_printf(b, "%f", t->args.real_value[row]);
    break;
  case TRAK_ARG_STRING:
  case TRAK_ARG_JSON: {
    const char *s = str(t, t->args.string_value[row]);
    trak__textbuf_put_text(b, s, strlen(s));
    break;
  }
  default:
    trak__textbuf_printf(b, "[NULL]");
    break;
  }
}

/* " name=value" for the arg `key` (written as `as`), nothing when the event lacks it. */
static void put_arg_as(const line *l, const char *key, const char *as) {
  uint32_t row = arg_row(l, key);
  if (row == TRAK_NULL_U32) return;
  trak__textbuf_printf(l->b, " %s=", as);
  put_value(l, row);
}

static void put_arg(const line *l, const char *key) {
  put_arg_as(l, key, key);
}

static int64_t int_arg(const line *l, const char *key, int64_t absent) {
  uint32_t row = arg_row(l, key);
  return row == TRAK_NULL_U32 ? absent : l->t->args.int_value[row];
}

/* prev_state as letters joined by '|' ("S", "D|K", "R+"), as the systrace parsers read them. */
static void put_prev_state(const line *l) {
  uint32_t row = arg_row(l, "prev_state");
  if (row == TRAK_NULL_U32) return;
  char letters[4];
  trak__textbuf_printf(l->b, " prev_state=");
  if (trak__task_state_letters((uint16_t)l->t->args.int_value[row], l->major, l->minor, letters) <
      0) {
    trak__textbuf_printf(l->b, "?");
    return;
  }
  for (int i = 0; letters[i]; i++)
    trak__textbuf_printf(l->b, "%s%c", i && letters[0] != 'R' ? "|" : "", letters[i]);
}

static const char *const softirq_actions[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                              "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};

/* Each arg of the event as " key=value", in the order of its arg set. */
static void put_all_args(const line *l) {
  const trak_tables *t = l->t;
  if (l->set == TRAK_NULL_U32) return;
  for (uint32_t row = l->set; row < t->args.n && t->args.arg_set_id[row] == l->set; row++) {
    trak__textbuf_printf(l->b, " %s=", str(t, t->args.key[row]));
    put_value(l, row);
  }
}

/* The text after "EVENT:" of one event named `name`. */
static void put_event_args(const line *l, const char *name) {
  if (!strcmp(name, "sched_switch")) {
    put_arg(l, "prev_comm");
    put_arg(l, "prev_pid");
    put_arg(l, "prev_prio");
    put_prev_state(l);
    trak__textbuf_printf(l->b, " ==>");
    put_arg(l, "next_comm");
    put_arg(l, "next_pid");
    put_arg(l, "next_prio");
  } else if (!strcmp(name, "sched_wakeup")) {
    put_arg(l, "comm");
    put_arg(l, "pid");
    put_arg(l, "prio");
    int64_t cpu = int_arg(l, "target_cpu", -1);
    if (cpu >= 0) trak__textbuf_printf(l->b, " target_cpu=%03" PRId64, cpu);
  } else if (!strcmp(name, "print")) {
    uint32_t row = arg_row(l, "buf");
    const char *s = row == TRAK_NULL_U32 ? "" : str(l->t, l->t->args.string_value[row]);
    size_t n = strlen(s);
    if (n && s[n - 1] == '\n') n--;
    trak__textbuf_printf(l->b, " ");
    trak__textbuf_put_text(l->b, s, n);
  } else if (!strcmp(name, "sched_blocked_reason")) {
    put_arg(l, "pid");
    put_arg_as(l, "io_wait", "iowait");
    uint32_t row = arg_row(l, "caller");
    if (row != TRAK_NULL_U32 && l->t->args.value_type[row] != TRAK_ARG_STRING)
      trak__textbuf_printf(l->b, " caller=%" PRIx64, (uint64_t)l->t->args.int_value[row]);
    else
      put_arg(l, "caller");
  } else if (!strcmp(name, "irq_handler_exit")) {
    put_arg(l, "irq");
    trak__textbuf_printf(l->b, " ret=%s", int_arg(l, "ret", 0) ? "handled" : "unhandled");
  } else if (!strcmp(name, "softirq_entry") || !strcmp(name, "softirq_exit")) {
    put_arg(l, "vec");
    int64_t vec = int_arg(l, "vec", -1);
    if (vec >= 0 && vec < 10)
      trak__textbuf_printf(l->b, " [action=%s]", softirq_actions[vec]);
    else
      trak__textbuf_printf(l->b, " [action=%" PRId64 "]", vec);
  } else if (!strcmp(name, "cpu_frequency_limits")) {
    /* A field the event left out is 0 to the protobuf parser: written, so that text says it */
    trak__textbuf_printf(l->b, " min_freq=%" PRId64 " max_freq=%" PRId64 " cpu_id=%" PRId64,
                         int_arg(l, "min_freq", 0), int_arg(l, "max_freq", 0),
                         int_arg(l, "cpu_id", 0));
  } else {
    put_all_args(l);
  }
}

/* A kernel atrace-style event (util/kernel_marker.h) of kind `kind`: the marker text it stands
** for into `out` (cap bytes), from its args; its length, or -1 when it names no point. */
static int kernel_marker(const line *l, int kind, char *out, size_t cap) {
  const trak_kmark_desc *k = &trak__kernel_marker_kinds[kind];
  trak_kmark m = {0};
  uint32_t row = k->name ? arg_row(l, k->name) : TRAK_NULL_U32;
  if (row != TRAK_NULL_U32) {
    m.name = str(l->t, l->t->args.string_value[row]);
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
  line l = {t, b, TRAK_NULL_U32, 0, 0};
  const char *rel = t->machine.n ? str(t, t->machine.release[0]) : "";
  if (sscanf(rel, "%d.%d", &l.major, &l.minor) != 2 || l.major <= 0) l.major = l.minor = 0;
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
