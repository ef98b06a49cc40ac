/*
** This file holds the crop of kernel data at the start of a trace, as Perfetto's ftrace parser
** does by default: events before tracing started (metadata tracing_started_ns) are dropped and
** counted (ftrace_packet_before_tracing_start); events before every CPU's data is complete
** (ftrace_latest_data_start_ns, from each CPU's first bundle) keep only their ftrace_event row,
** so that an operation whose start a CPU lost is not taken to run forever.
*/
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"

/* The largest value of the integer metadata `name` over machines, INT64_MIN when absent. */
static int64_t meta_int(const trak_importer *imp, const char *name) {
  int64_t v = INT64_MIN;
  trak_meta_row row;
  for (size_t i = 0; trak__meta_row(imp, i, &row); i++)
    if (!row.is_str && !strcmp(row.name, name) && row.value > v) v = row.value;
  return v;
}

void trak__ftrace_crop_init(trak_importer *imp) {
  trak_ftrace *f = imp->ftrace;
  f->drop_before = meta_int(imp, "tracing_started_ns");
  f->soft_drop_before = meta_int(imp, "ftrace_latest_data_start_ns");
  if (f->soft_drop_before < f->drop_before) f->soft_drop_before = f->drop_before;
  if (f->soft_drop_before == INT64_MIN) return;
  /* The sink's records made while tokenizing (counters, interrupt slices) come from events
  ** Perfetto parses only past the soft limit (each event's queued row counts it when it is
  ** before tracing started). */
  trak_sequence *seq = f->seq;
  if (!seq) return;
  seq->drop_n = seq->n_events; /* dropped when the parse phase unpacks the records */
  seq->drop_before = f->soft_drop_before;
  seq->unpack = 1;
}

int trak__ftrace_crop(trak_importer *imp, const trak_fq_rec *r) {
  trak_ftrace *f = imp->ftrace;
  if (TRAK_LIKELY(r->ts >= f->soft_drop_before) || r->type == TRAK_FQ_PROCESS_TREE ||
      r->type >= TRAK_FQ_GK_STATE) /* packets' and JSON's records, not ftrace's */
    return 0;
  if (r->ts < f->drop_before) {
    /* once per event: by the record that makes its row (its other records, and the sink's
    ** records of it made while tokenizing, are dropped uncounted) */
    if (r->type == TRAK_FQ_GENERIC || r->type == TRAK_FQ_SWITCH ||
        r->type == TRAK_FQ_SWITCH_COMPACT || r->type == TRAK_FQ_WAKING_COMPACT ||
        (r->type == TRAK_FQ_WAKING && r->s2))
      imp->stats[TRAK_STAT_FTRACE_PACKET_BEFORE_TRACING_START]++;
    return 1;
  }
  switch (r->type) {
  case TRAK_FQ_GENERIC: /* the raw row is kept, with its args' kernel-symbol lookups */
    f->raw_only = 1;
    trak__fa_generic(imp, r);
    f->raw_only = 0;
    return 1;
  case TRAK_FQ_WAKING:
  case TRAK_FQ_WAKING_COMPACT:
  case TRAK_FQ_SWITCH_COMPACT: /* their raw rows (not a typed switch's), as Perfetto's */
    f->raw_only = 1;
    if (r->type == TRAK_FQ_SWITCH_COMPACT)
      trak__fa_switch_compact(imp, r);
    else
      trak__fa_waking_any(imp, r);
    f->raw_only = 0;
    return 1;
  default:
    return 1;
  }
}
