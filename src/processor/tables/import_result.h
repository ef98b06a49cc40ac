/*
** What an import leaves behind for queries besides the columnar tables: the rows of the stats
** table, of _trace_import_logs, of logs, of the metadata table and of the trace
** diagnostics, and the clock snapshots the clock functions convert with (as Perfetto keeps
** stats and metadata in its storage). The importer fills it once, when the import is done
** (import/import_result.c); sql/ only reads it. Plain data and no functions, so the layers
** above import/ need no importer header.
*/
#ifndef TRAK_PROCESSOR_TABLES_IMPORT_RESULT_H
#define TRAK_PROCESSOR_TABLES_IMPORT_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "trak/processor.h"

/* One stat as Perfetto defines it: the importer's (import/stats.h), trace_stats' and ftrace's. */
typedef struct trak_stat_def {
  const char *name;
  trak_severity severity;
  const char *description;
  uint8_t analysis; /* Perfetto's source: 0 "trace" (the trace's own data), 1 "analysis" */
} trak_stat_def;

/* One row of the stats table. */
typedef struct trak_stat_row {
  const trak_stat_def *def; /* static: outlives every import */
  int64_t key;              /* rows of one stat (buffer or CPU indexes) share a key */
  int64_t idx;              /* buffer or CPU index, or -1: none */
  int64_t value;
  uint32_t machine; /* machine table row of the figure (0: host); global stats ignore it */
} trak_stat_row;

/* One row of _trace_import_logs: a problem the parse phase logged with its details as args
** (Perfetto's table; trak logs the conditions listed where it is filled). */
typedef struct trak_import_log {
  int64_t ts;          /* INT64_MIN: none (a problem found while tokenizing) */
  uint32_t stat;       /* the problem's trak_stat_id (import/stats.h): its key in the stats table */
  uint32_t arg_set_id; /* TRAK_NULL_U32: none */
  int64_t byte_offset; /* of the packet's payload in the (inflated) trace, -1: none */
} trak_import_log;

/* Where a row of the logs table comes from (its log_source). */
typedef enum trak_log_source {
  TRAK_LOG_ANDROID_LOGCAT,   /* a TrackEvent log message, as Perfetto's importer also logs it */
  TRAK_LOG_SYSTEMD_JOURNALD, /* an entry of the systemd journal (proto/journald.c) */
} trak_log_source;

/* One row of the logs table (android_logs shows those of TRAK_LOG_ANDROID_LOGCAT). */
typedef struct trak_log_row {
  int64_t ts;
  uint32_t utid;       /* TRAK_NULL_U32: none */
  uint32_t prio;       /* Android's priority (INFO when a message has none), or syslog's */
  uint32_t tag, msg;   /* string ids, 0: none (a TrackEvent's tag is "<file>:<line>") */
  uint32_t arg_set_id; /* TRAK_NULL_U32: none */
  uint8_t source;      /* trak_log_source */
} trak_log_row;

/* One row of package_list: an installed Android package. */
typedef struct trak_package_row {
  uint32_t name; /* string id, 0: none (NULL) */
  uint8_t debuggable, profileable_from_shell;
  int64_t uid, version_code;
} trak_package_row;

/* One row of the metadata table. */
typedef enum trak_meta_scope {
  TRAK_META_GLOBAL,       /* machine_id and trace_id NULL */
  TRAK_META_TRACE,        /* trace_id 0 */
  TRAK_META_MACHINE,      /* machine_id 0 */
  TRAK_META_MACHINE_TRACE /* both 0 */
} trak_meta_scope;
typedef struct trak_meta_row {
  char *name;
  char *str; /* a string value (NULL: a NULL value) when is_str */
  int64_t value;
  uint8_t multi, is_str, scope;
  uint32_t machine; /* machine table row, for the scopes with a machine_id */
} trak_meta_row;

/* One row of __intrinsic_trace_diagnostics: a known-bad trace config setting (Perfetto's trace
** diagnostics rules, import/trace_diagnostics.h). */
typedef struct trak_diag_row {
  const char *key, *title, *remediation; /* static */
  char *description;                     /* malloc'ed, the row's */
  double confidence;                     /* 0 .. 1 */
} trak_diag_row;

/* The same instant in a clock and in the trace clock (one ClockSnapshot's pair). */
typedef struct trak_clock_pair {
  int64_t src, dst; /* the same instant in the source clock (ns) and in the trace clock (or in
                    ** the clock `via`, when the clock has one) */
} trak_clock_pair;
/* The snapshots of one clock. */
typedef struct trak_clock_pairs {
  uint64_t key; /* clock id, or sequence << 32 | id for ids 64..127 */
  const trak_clock_pair *v;
  size_t n;
} trak_clock_pairs;

/* Everything above, made by trak__import_result_make (import/import_result.h) when the import
** is done and freed by trak__import_result_free. The arrays marked "borrowed" point into the
** importer, which must outlive the result; the others are the result's. */
typedef struct trak_import_result {
  trak_stat_row *stats; /* the stats table in order: the importer's, trace_stats', ftrace's */
  size_t n_stats;
  const trak_import_log *import_logs; /* borrowed; in the order they were logged */
  size_t n_import_logs;
  trak_log_row *logs; /* in timestamp order (file order within one) */
  size_t n_logs;
  const trak_package_row *packages; /* borrowed; in the order the lists gave them */
  size_t n_packages;
  trak_meta_row *metadata; /* in Perfetto's order; the strings are borrowed */
  size_t n_metadata;
  trak_diag_row *diagnostics; /* in the order the rules found them */
  size_t n_diagnostics;
  trak_clock_pairs *clocks; /* the pairs are borrowed */
  size_t n_clocks;
  uint32_t trace_clock; /* the clock id trace timestamps are in */
} trak_import_result;

#endif /* TRAK_PROCESSOR_TABLES_IMPORT_RESULT_H */
