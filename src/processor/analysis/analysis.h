/*
** Trace analysis (docs/analysis.md): slice descriptions from rules (describe.c), metrics run
** from SQL files (metrics.c), the annotation tracks and alerts they create (annotations.c), and
** the built-in rules and metrics embedded in the library (analysis_builtins.c). The state
** hangs off the processor and is created on first use.
*/
#ifndef TRAK_PROCESSOR_ANALYSIS_H
#define TRAK_PROCESSOR_ANALYSIS_H

#include "processor/processor_internal.h"

typedef struct trak_rules trak_rules;             /* describe.c */
typedef struct trak_thread_time trak_thread_time; /* sql/perfetto_sql/slice_thread_time.c */

struct trak_analysis {
  trak_rules *rules; /* NULL until the first describe or rules file */
  /* describe_slice's index of thread states, built on first use for the tables as they were
  ** at `thread_time_generation` with `thread_time_slices` slices */
  trak_thread_time *thread_time;
  uint32_t thread_time_generation;
  size_t thread_time_slices;
  char **done; /* names of the metrics run so far (strdup'ed) */
  size_t n_done;
  int have_alert_table;
};

/* The processor's analysis state, created on first use (OOM aborts, as in storage.c). */
trak_analysis *trak__analysis(trak_processor *p);
void trak__analysis_free(trak_processor *p);
/* Registers describe_slice and the annotation_track view on a new database (from sql.c). */
int trak__analysis_register(trak_processor *p);

/* ---- describe.c ------------------------------------------------------------------------ */

/* Adds the rules of a SliceDescriptionRules text (`source` names it in errors). They take
** precedence over the rules added before. Returns 0 or TRAK_EFORMAT naming source and line. */
int trak__rules_add(trak_processor *p, const char *text, size_t len, const char *source,
                    trak_error *err);
/* The description of slice `slice` (a valid id): 1 with *desc / *link (link may be NULL) set,
** or 0 when no rule matches. The strings live as long as the rules. */
int trak__describe(trak_processor *p, uint32_t slice, const char **desc, const char **link);
void trak__rules_free(trak_rules *r);
/* Registers the describe_slice module. */
int trak__describe_register(trak_processor *p);

/* ---- annotations.c --------------------------------------------------------------------- */

/* If `<metric>_annotations` exists, appends its rows to the trace model as annotation tracks,
** slices, counters and alerts. Returns 0, or TRAK_EINVAL naming the metric and the problem. */
int trak__annotations_import(trak_processor *p, const char *metric, trak_error *err);

/* ---- analysis_builtins.c --------------------------------------------------------------- */

typedef struct trak_builtin_metric {
  const char *name;
  const char *sql;
} trak_builtin_metric;
extern const trak_builtin_metric trak__builtin_metrics[]; /* ends with {NULL, NULL} */
extern const char trak__builtin_rules[];                  /* SliceDescriptionRules text */

#endif /* TRAK_PROCESSOR_ANALYSIS_H */
