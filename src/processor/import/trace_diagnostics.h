/*
** Trace diagnostics: Perfetto's rules that read a trace's TraceConfig, with a few facts of the
** imported trace, for known-bad settings (a tiny ftrace buffer, a low drain bandwidth, syscalls
** without a filter, kernel-symbol events without symbolize_ksyms, a DISCARD buffer behind a
** streaming trace, a tiny heapprofd sampling interval, display video on a user build, a
** preserved ftrace buffer long after boot). Each finding is a row of
** __intrinsic_trace_diagnostics (tables/import_result.h's trak_diag_row). Pure functions.
*/
#ifndef TRAK_PROCESSOR_IMPORT_TRACE_DIAGNOSTICS_H
#define TRAK_PROCESSOR_IMPORT_TRACE_DIAGNOSTICS_H

#include <stddef.h>
#include <stdint.h>

#include "processor/tables/import_result.h"

/* What the rules read besides the config. */
typedef struct trak_diag_facts {
  int ftrace_data_loss;    /* a stat ftrace_cpu_has_data_loss or *_overrun_delta above 0 */
  int heapprofd_errors;    /* an error stat of heapprofd above 0 */
  int android_user_build;  /* the build fingerprint's type is "user" */
  int video_frames;        /* the trace holds display video frames */
  int video_errors;        /* an error or data-loss stat of android_video_ above 0 */
  int has_started;         /* tracing_started_ns is known: */
  int64_t started_boot_ns; /* when tracing started, in nanoseconds since boot */
} trak_diag_facts;

/* Runs every rule, in Perfetto's order, over the TraceConfig bytes [config, config + len)
** (NULL or empty: no config, no rows) and appends their findings to *rows (malloc'ed,
** *n rows; *rows may start NULL with *n 0). Returns 0, or -1 when memory runs out (the rows
** made so far stay, to be freed). */
int trak__trace_diagnostics_run(const uint8_t *config, size_t len, const trak_diag_facts *facts,
                                trak_diag_row **rows, size_t *n);

/* Whether the fingerprint "brand/product/device:release/id/incr:type/tags" names a user build
** (the text after its last ':' up to the next '/' is "user"). NULL: no. */
int trak__diag_user_build(const char *fingerprint);

/* Frees n rows and their descriptions. Accepts NULL. */
void trak__trace_diagnostics_free(trak_diag_row *rows, size_t n);

#endif /* TRAK_PROCESSOR_IMPORT_TRACE_DIAGNOSTICS_H */
