/*
** This file holds the handover of a finished import to the SQL layer: the stats rows with their
** keys, the import and android logs, the metadata rows and the clock snapshots, gathered into
** one plain struct (tables/import_result.h).
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/import_result.h"
#include "processor/import/importer.h"
#include "processor/import/trace_diagnostics.h"

/* Perfetto's global parse_trace_duration_ns, which trak leaves 0: a timing would make the stats
** of the same trace differ from run to run (docs/processor.md). */
static const trak_stat_def parse_duration = {
    "parse_trace_duration_ns", TRAK_SEVERITY_INFO,
    "Perfetto's time to parse the trace, in ns; trak leaves it 0 so that the stats of a "
    "trace are the same on every run.",
    1};

/* Appends the rows `row` gives to `v` (which has room for them), rows of one stat sharing a
** key after *key. Returns the number appended. */
static size_t add_traced_rows(const trak_importer *imp, const trak_format_part *part,
                              trak_stat_row *v, int64_t *key) {
  trak_traced_row r = {0};
  const trak_stat_def *prev = NULL;
  size_t n = 0;
  for (size_t i = 0; part->stats_row(imp, i, &r); i++, n++) {
    if (r.def != prev) ++*key;
    prev = r.def;
    if (v) v[n] = (trak_stat_row){r.def, *key, r.idx, r.value, r.machine};
    r.machine = 0;
  }
  return n;
}

/* The importer's own counts (key: the stat id), then the format parts' rows in their order
** (protobuf's trace_stats figures, then ftrace's), then parse_trace_duration_ns. Returns the
** rows (malloc'd) or NULL. */
static trak_stat_row *stats_rows(const trak_importer *imp, size_t *n_out) {
  int64_t key = TRAK_STAT_COUNT - 1;
  size_t n = TRAK_STAT_COUNT + 1;
  for (size_t i = 0; i < imp->n_parts; i++)
    n += add_traced_rows(imp, &imp->parts[i], NULL, &key);
  trak_stat_row *v = malloc(n * sizeof *v);
  if (!v) return NULL;
  for (size_t i = 0; i < TRAK_STAT_COUNT; i++)
    v[i] = (trak_stat_row){&trak__stat_defs[i], (int64_t)i, -1, imp->stats[i], 0};
  size_t at = TRAK_STAT_COUNT;
  key = TRAK_STAT_COUNT - 1;
  for (size_t i = 0; i < imp->n_parts; i++)
    at += add_traced_rows(imp, &imp->parts[i], v + at, &key);
  v[at++] = (trak_stat_row){&parse_duration, key + 1, -1, 0, 0};
  *n_out = at;
  return v;
}

static int log_cmp(const void *a, const void *b) {
  const trak_log_row *x = *(const trak_log_row *const *)a, *y = *(const trak_log_row *const *)b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x < y ? -1 : x > y; /* file order within a timestamp */
}

/* The logs rows in timestamp order, as Perfetto's parse phase writes them. 0 or TRAK_ENOMEM. */
static int logs_sorted(const trak_importer *imp, trak_import_result *out) {
  size_t n = imp->logs.n;
  if (!n) return 0;
  const trak_log_row **order = malloc(n * sizeof *order);
  out->logs = malloc(n * sizeof *out->logs);
  if (!order || !out->logs) {
    free(order);
    return TRAK_ENOMEM;
  }
  for (size_t i = 0; i < n; i++)
    order[i] = &imp->logs.v[i];
  qsort(order, n, sizeof *order, log_cmp);
  for (size_t i = 0; i < n; i++)
    out->logs[i] = *order[i];
  out->n_logs = n;
  free(order);
  return 0;
}

static int starts_with(const char *s, const char *prefix) {
  return !strncmp(s, prefix, strlen(prefix));
}

/* The trace diagnostics of the trace's last TraceConfig, from the stats and metadata rows of
** `out` (made first). tracing_started_ns is taken as time since boot (Perfetto converts it to
** BOOTTIME, which is the trace clock of Linux and Android traces). Returns 0 or TRAK_ENOMEM. */
static int diagnostics(const trak_importer *imp, trak_import_result *out) {
  if (!imp->trace_config) return 0;
  trak_diag_facts facts = {0};
  for (size_t i = 0; i < out->n_stats; i++) {
    const trak_stat_def *d = out->stats[i].def;
    if (out->stats[i].value <= 0) continue;
    if (!strcmp(d->name, "ftrace_cpu_has_data_loss") ||
        !strcmp(d->name, "ftrace_cpu_overrun_delta") ||
        !strcmp(d->name, "ftrace_cpu_commit_overrun_delta"))
      facts.ftrace_data_loss = 1;
    if (d->severity == TRAK_SEVERITY_ERROR && starts_with(d->name, "heapprofd"))
      facts.heapprofd_errors = 1;
    if ((d->severity == TRAK_SEVERITY_ERROR || d->severity == TRAK_SEVERITY_DATA_LOSS) &&
        starts_with(d->name, "android_video_"))
      facts.video_errors = 1;
  }
  for (size_t i = 0; i < out->n_metadata; i++) {
    const trak_meta_row *r = &out->metadata[i];
    if (!strcmp(r->name, "android_build_fingerprint") && r->is_str)
      facts.android_user_build = trak__diag_user_build(r->str);
    else if (!strcmp(r->name, "tracing_started_ns") && !r->is_str)
      facts.has_started = 1, facts.started_boot_ns = r->value;
  }
  return trak__trace_diagnostics_run(imp->trace_config, imp->trace_config_len, &facts,
                                     &out->diagnostics, &out->n_diagnostics)
             ? TRAK_ENOMEM
             : 0;
}

int trak__import_result_make(trak_importer *imp, const char *trace_type, int64_t size,
                             trak_import_result *out) {
  memset(out, 0, sizeof *out);
  trak__meta_finish(imp, trace_type, size);
  out->stats = stats_rows(imp, &out->n_stats);
  out->import_logs = imp->import_logs.v;
  out->n_import_logs = imp->import_logs.n;
  out->packages = imp->packages.v;
  out->n_packages = imp->packages.n;
  out->trace_clock = imp->trace_clock;
  int rc = out->stats ? logs_sorted(imp, out) : TRAK_ENOMEM;
  trak_meta_row row;
  size_t n_meta = 0;
  while (trak__meta_row(imp, n_meta, &row))
    n_meta++;
  if (!rc && n_meta && !(out->metadata = malloc(n_meta * sizeof *out->metadata))) rc = TRAK_ENOMEM;
  for (size_t i = 0; !rc && i < n_meta; i++)
    trak__meta_row(imp, i, &out->metadata[out->n_metadata++]);
  size_t n_clocks = imp->clocks.n;
  if (!rc && n_clocks && !(out->clocks = malloc(n_clocks * sizeof *out->clocks))) rc = TRAK_ENOMEM;
  for (size_t i = 0; !rc && i < n_clocks; i++) {
    const trak_clock *c = &imp->clocks.v[i];
    out->clocks[out->n_clocks++] = (trak_clock_pairs){c->key, c->pairs.v, c->pairs.n};
  }
  if (!rc) rc = diagnostics(imp, out);
  if (rc) trak__import_result_free(out);
  return rc;
}

void trak__import_result_free(trak_import_result *r) {
  free(r->stats);
  free(r->logs);
  free(r->metadata);
  free(r->clocks);
  trak__trace_diagnostics_free(r->diagnostics, r->n_diagnostics);
  memset(r, 0, sizeof *r);
}
