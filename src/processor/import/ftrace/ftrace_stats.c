/*
** This file holds the per-CPU ftrace stats Perfetto keeps indexed by CPU: the kernel ring
** buffer's figures of FtraceStats packets at the start and end of the trace (entries, overrun,
** commit_overrun, bytes, dropped_events, read_events, now_ts, oldest_event_ts: *_begin, *_end
** and, for the counts, *_delta = end - begin) and ftrace_cpu_has_data_loss (1 for a CPU with a
** bundle flagged lost_events). The SQL layer lists them after the other stats. It also holds the
** recorder's setup errors (ftrace_setup_errors).
*/
#include <stdio.h>
#include <stdlib.h>

#include "processor/import/ftrace/ftrace_internal.h"

/* The figures, in the order of FtraceCpuStats' fields; each has _begin, _end, _delta stats. */
#define FIGURES(X)                                                                                 \
  X(entries, "ftrace_cpu_entries")                                                                 \
  X(overrun, "ftrace_cpu_overrun")                                                                 \
  X(commit_overrun, "ftrace_cpu_commit_overrun")                                                   \
  X(bytes, "ftrace_cpu_bytes")                                                                     \
  X(dropped_events, "ftrace_cpu_dropped_events")                                                   \
  X(read_events, "ftrace_cpu_read_events")                                                         \
  X(now_ts, "ftrace_cpu_now_ts")                                                                   \
  X(oldest_event_ts, "ftrace_cpu_oldest_event_ts")

#define DEFS(f, name)                                                                              \
  {name "_begin", TRAK_SEVERITY_INFO, "", 0}, {name "_end", TRAK_SEVERITY_INFO, "", 0},            \
      {name "_delta", TRAK_SEVERITY_INFO, "", 0},
static const trak_stat_def defs[] = {
    FIGURES(DEFS){"ftrace_cpu_has_data_loss", TRAK_SEVERITY_DATA_LOSS,
                  "Ftrace data of this CPU has losses (a bundle said lost_events): the kernel "
                  "buffer overwrote events between reads, so the CPU's data is unreliable. A "
                  "bigger buffer helps.",
                  0}};
#define N_DEFS (sizeof defs / sizeof *defs)
#define DATA_LOSS (N_DEFS - 1)

/* Whether `r` is the row of stat `def` for `cpu` of the machine of the packet being tokenized
** (each machine has its own rows, as Perfetto scopes these stats by machine). */
static int is_row(const trak_importer *imp, const trak_traced_indexed *r, uint32_t def,
                  int64_t cpu) {
  return r->def == def && r->idx == cpu && r->machine == imp->threads.machine;
}

/* The row of stat `def` for `cpu` of the packet's machine, made (value 0) on first use. */
static int64_t *row(trak_importer *imp, uint32_t def, int64_t cpu) {
  trak_ftrace *f = trak__ftrace_get(imp);
  for (size_t i = 0; i < f->stats.n; i++)
    if (is_row(imp, &f->stats.v[i], def, cpu)) return &f->stats.v[i].value;
  trak_traced_indexed r = {def, cpu, 0, imp->threads.machine};
  trak_vec_push(f->stats, r);
  return &f->stats.v[f->stats.n - 1].value;
}

static const int64_t *find(trak_importer *imp, uint32_t def, int64_t cpu) {
  trak_ftrace *f = imp->ftrace;
  for (size_t i = 0; f && i < f->stats.n; i++)
    if (is_row(imp, &f->stats.v[i], def, cpu)) return &f->stats.v[i].value;
  return NULL;
}

void trak__ftrace_cpu_stats(trak_importer *imp, int end, int64_t cpu, const int64_t figures[8]) {
  for (uint32_t k = 0; k < 8; k++) {
    *row(imp, k * 3 + (uint32_t)end, cpu) = figures[k];
    if (!end || k >= 6) continue; /* now_ts and oldest_event_ts have no delta */
    const int64_t *begin = find(imp, k * 3, cpu);
    if (begin) *row(imp, k * 3 + 2, cpu) = figures[k] - *begin;
  }
}

void trak__ftrace_cpu_loss(trak_importer *imp, uint32_t cpu) {
  *row(imp, DATA_LOSS, cpu) = 1; /* a flag, as Perfetto's SetIndexedStats: not a count */
}

int64_t trak__ftrace_loss_total(const trak_importer *imp) {
  const trak_ftrace *f = imp->ftrace;
  int64_t n = 0;
  for (size_t i = 0; f && i < f->stats.n; i++)
    if (f->stats.v[i].def == DATA_LOSS) n += f->stats.v[i].value;
  return n;
}

int trak__ftrace_stats_row(const trak_importer *imp, size_t i, trak_traced_row *out) {
  const trak_ftrace *f = imp->ftrace;
  if (!f || i >= f->stats.n) return 0;
  /* in stat order, then by cpu: the order of insertion is fixed by sorting a copy once */
  const trak_traced_indexed *r = &f->stats.v[i];
  out->def = &defs[r->def];
  out->idx = r->idx;
  out->value = r->value;
  out->machine = r->machine;
  return 1;
}

void trak__ftrace_stats_sort(trak_importer *imp) {
  trak_ftrace *f = imp->ftrace;
  if (f && f->stats.n) qsort(f->stats.v, f->stats.n, sizeof *f->stats.v, trak__traced_indexed_cmp);
}

void trak__ftrace_setup_error(trak_importer *imp, uint32_t seq_id, const char *prefix,
                              const uint8_t *s, size_t len) {
  trak_ftrace *f = trak__ftrace_get(imp);
  int added;
  uint32_t packet = (uint32_t)imp->packet_index;
  uint32_t *first = trak__map_put(&f->setup_packets, seq_id, packet, &added);
  if (*first != packet) return; /* an earlier packet of the sequence reported its errors */
  char msg[512];
  int n =
      snprintf(msg, sizeof msg, "%s%.*s", prefix, (int)(len < 400 ? len : 400), (const char *)s);
  size_t msg_len = n < 0 ? 0 : (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1;
  trak__report(imp, TRAK_STAT_FTRACE_SETUP_ERRORS, "%s", msg);
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_str(imp, set, trak__ftrace_str(imp, "message"),
                       trak__strpool_intern(&imp->tables->strings, msg, msg_len));
  set = trak__args_share(imp, set);
  trak__arg_order_log(imp, TRAK_ARG_ORDER_SET, set);
  trak_vec_push(imp->import_logs,
                ((trak_import_log){INT64_MIN, TRAK_STAT_FTRACE_SETUP_ERRORS, set, -1}));
}
