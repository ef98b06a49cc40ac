/*
** This file holds the importer's lifetime: the state one import builds (sequences, tracks,
** threads and processes, clocks) from its start with the idle thread to its end.
** Problem accounting is report.c's.
*/
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "processor/import/gpu_flows.h"
#include "processor/import/importer.h"

/* The string pool's report of a string that is not UTF-8 (kept as read): counted against the
** packet read. */
static void invalid_utf8(void *ctx, size_t first) {
  trak__report(ctx, TRAK_STAT_STRING_INVALID_UTF8,
               "a string is not UTF-8 (the first invalid byte at its byte %zu); kept as read, "
               "shown with U+FFFD in text outputs",
               first);
}

void trak__importer_init(trak_importer *imp, trak_tables *tables,
                         const trak_processor_options *opts, const trak_format_part *parts,
                         size_t n) {
  assert(tables && (parts || !n));
  memset(imp, 0, sizeof *imp);
  imp->tables = tables;
  if (opts) imp->opts = *opts;
  imp->parts = parts, imp->n_parts = n;
  imp->trace_clock = TRAK_PB_BUILTIN_CLOCK_BOOTTIME;
  imp->range_of_interest_ns = imp->crop_before_ns = INT64_MIN;
  trak_vec_push(imp->aux, 0); /* aux index 0 means "none" */
  trak__threads_init(imp);
  tables->strings.on_invalid_utf8 = invalid_utf8;
  tables->strings.ctx = imp;
}

void trak__importer_free(trak_importer *imp) {
  trak__sequences_free(&imp->seqs);
  trak__threads_free(&imp->threads);
  trak__tracks_free(&imp->tracks);
  trak__async_tracks_free(&imp->async);
  trak__slices_free(&imp->slices);
  trak__flows_free(&imp->flows);
  trak__gpu_flows_free(imp);
  trak__args_free(&imp->args);
  for (size_t i = 0; i < imp->clocks.n; i++)
    trak_vec_free(imp->clocks.v[i].pairs);
  trak_vec_free(imp->clocks);
  trak__clock_cache_free(imp);
  trak__remote_clock_free(imp);
  trak__map_free(&imp->clock_index);
  trak_vec_free(imp->aux);
  trak_vec_free(imp->import_logs);
  trak_vec_free(imp->logs);
  trak_vec_free(imp->packages);
  trak__map_free(&imp->package_names);
  trak__meta_free(imp);
  for (size_t i = 0; i < imp->n_parts; i++)
    imp->parts[i].free(imp);
  if (imp->tables && imp->tables->strings.ctx == imp) imp->tables->strings.on_invalid_utf8 = NULL;
  memset(imp, 0, sizeof *imp);
}

int trak__import_threads(uint64_t size) {
  const char *env = getenv("TRAK_IMPORT_THREADS");
  if (env && (env[0] == '1' || env[0] == '2') && !env[1]) return env[0] - '0';
  if (size && size < (4u << 20)) return 1;
  return sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
}
