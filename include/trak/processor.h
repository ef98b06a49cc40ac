/*
** The trace processor: imports a trace (binary or text protobuf, or JSON trace events; gzip or
** not) into in-memory tables with the names and columns of Perfetto's trace processor, and
** answers SQL over them.
**
** Life of a processor: create it, feed it bytes (a whole file with trak_processor_open_file, or
** chunks as they arrive with trak_processor_feed), call trak_processor_finish to sort events and
** build the tables, then run queries and iterate typed rows. Import problems never fail the
** import: what is valid is kept, and every skip is counted in the `stats` table (and readable
** here with trak_processor_stat*). A processor is not thread-safe; use one per thread.
*/
#ifndef TRAK_PROCESSOR_H
#define TRAK_PROCESSOR_H

#include <stddef.h>
#include <stdint.h>

#include "trak/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trak_processor trak_processor;
typedef struct trak_query trak_query;

/* Severity of an import problem, as in the stats table's `severity` column. */
typedef enum trak_severity {
  TRAK_SEVERITY_INFO = 0,
  TRAK_SEVERITY_DATA_LOSS = 1,
  TRAK_SEVERITY_ERROR = 2
} trak_severity;

/* Called for every problem found, in import order: `packet` is the index of the TracePacket
** (counting from 0 over the whole trace, packets inside compressed_packets included), `offset`
** its byte offset in the uncompressed trace, `stat` the stats row it counts in. */
typedef void (*trak_processor_diag_fn)(void *user, uint64_t packet, uint64_t offset,
                                       trak_severity severity, const char *stat,
                                       const char *message);
/* Called now and then while feeding; `total` is 0 when unknown. */
typedef void (*trak_processor_progress_fn)(void *user, uint64_t done, uint64_t total);

typedef struct trak_processor_options {
  trak_processor_diag_fn diag;         /* NULL: problems are only counted */
  trak_processor_progress_fn progress; /* NULL: no progress reports */
  void *user;                          /* passed to both callbacks */
} trak_processor_options;

/* Creates an empty processor ready to be fed. `options` may be NULL. Returns 0 or TRAK_ENOMEM. */
int trak_processor_new(const trak_processor_options *options, trak_processor **out,
                       trak_error *err);

/* Feeds the next `len` bytes of the trace (any split: packets may straddle calls). The format
** (gzip, binary, text, JSON) is recognised from the first bytes. Returns 0; TRAK_ESTATE after finish;
** TRAK_ENOMEM. Malformed bytes are not an error here: they are counted and reported. */
int trak_processor_feed(trak_processor *p, const void *data, size_t len, trak_error *err);

/* Ends the input: sorts the events, builds the tables and makes SQL available. Returns 0, or
** TRAK_EFORMAT when a text trace does not parse (nothing is imported then), TRAK_ENOMEM. */
int trak_processor_finish(trak_processor *p, trak_error *err);

/* new + feed the whole file ("-" for stdin) in chunks + finish. On error *out is NULL. */
int trak_processor_open_file(const char *path, const trak_processor_options *options,
                             trak_processor **out, trak_error *err);

/* Frees the processor. Queries still open on it must be freed first. NULL is allowed. */
void trak_processor_free(trak_processor *p);

/* Number of events (TrackEvent packets) imported, and bytes fed (after gunzip). */
uint64_t trak_processor_event_count(const trak_processor *p);
uint64_t trak_processor_byte_count(const trak_processor *p);

/* Import statistics, the importer's own rows of the `stats` table. The figures a trace carries
** in trace_stats packets (traced_* rows) are in the SQL table only. */
typedef struct trak_stat {
  const char *name; /* e.g. "misplaced_end_event" */
  trak_severity severity;
  int64_t value;
  const char *description; /* one line */
} trak_stat;
size_t trak_processor_stat_count(const trak_processor *p);
/* Fills `out` with stat `i` (< trak_processor_stat_count). Returns 0 or TRAK_EINVAL. */
int trak_processor_stat_get(const trak_processor *p, size_t i, trak_stat *out);
/* The value of the stat called `name`, or -1 if there is no such stat. */
int64_t trak_processor_stat_value(const trak_processor *p, const char *name);

/* ---- SQL ------------------------------------------------------------------------------- */

typedef enum trak_value_type {
  TRAK_VALUE_NULL = 0,
  TRAK_VALUE_INT = 1,
  TRAK_VALUE_DOUBLE = 2,
  TRAK_VALUE_STRING = 3
} trak_value_type;

/* Compiles the first SQL statement of `sql` (after finish). *tail (if not NULL) receives the
** rest of the text, so a caller can run several statements one by one; *out is NULL when the
** text holds only whitespace or comments. Returns 0, TRAK_ESTATE before finish, or TRAK_EINVAL
** with SQLite's message. The query is freed with trak_query_free. */
int trak_query_open(trak_processor *p, const char *sql, trak_query **out, const char **tail,
                    trak_error *err);

/* Advances to the next row. Returns 1 with a row, 0 when done, TRAK_EINVAL on a SQL error. */
int trak_query_next(trak_query *q, trak_error *err);

/* Columns of the result, valid as soon as the query is open. */
int trak_query_column_count(const trak_query *q);
const char *trak_query_column_name(const trak_query *q, int col);

/* Values of the current row. A string stays valid until the next trak_query_next. */
trak_value_type trak_query_type(trak_query *q, int col);
int64_t trak_query_int(trak_query *q, int col);
double trak_query_double(trak_query *q, int col);
const char *trak_query_string(trak_query *q, int col);

void trak_query_free(trak_query *q);

/* Runs every statement of `sql`, discarding rows (for DDL, ATTACH, ...). Returns 0 or the
** first error. */
int trak_processor_exec(trak_processor *p, const char *sql, trak_error *err);

/* Writes every table to a new SQLite database file at `path` (an existing file is replaced).
** Returns 0, TRAK_ESTATE before finish, TRAK_EIO. */
int trak_processor_export(trak_processor *p, const char *path, trak_error *err);

/* Names of the tables and views a user can query, NULL-terminated, static. */
const char *const *trak_processor_table_names(void);

/* Names of the PerfettoSQL modules trak ships (docs/sql.md), sorted, NULL-terminated, static:
** each can be loaded with `INCLUDE PERFETTO MODULE name;` ("prelude.*" are always loaded). */
const char *const *trak_perfetto_modules_list(void);

/* ---- analysis (docs/analysis.md) ------------------------------------------------------- */

/* Adds slice description rules: `len` bytes of the text format of SliceDescriptionRules
** (protos/analysis_rules.proto). They take precedence over the built-in rules and rules added
** before. `source` names the text in errors (NULL: "descriptions"). Returns 0, or
** TRAK_EFORMAT naming source, line and column; then none of the text's rules are added. */
int trak_processor_add_descriptions(trak_processor *p, const char *text, size_t len,
                                    const char *source, trak_error *err);
/* The same for a file. Also TRAK_EIO. */
int trak_processor_load_descriptions(trak_processor *p, const char *path, trak_error *err);

/* Describes one slice (what `describe_slice` returns for it): 1 with *description and
** *doc_link (NULL when the rule has none) set, valid while the processor lives and no rules
** are added; 0 when no rule matches, the id is not a slice or the trace is not finished. */
int trak_processor_describe_slice(trak_processor *p, int64_t slice_id, const char **description,
                                  const char **doc_link);

typedef struct trak_metrics_options {
  const char *metrics_dir;   /* NULL: built-in metrics only; else DIR/<name>.sql comes first */
  const char *const *params; /* "key=value": {{key}} in a metric becomes value as one SQL
                             ** literal (a decimal number, else a quoted string) */
  size_t n_params;
} trak_metrics_options;

/* Runs the named metrics (each, and what it INCLUDEs, once per processor) after finish. Each
** creates `<name>_output`; a metric with `<name>_annotations` adds annotation tracks, slices
** and counters to the trace's tables and its alerts to the `alert` table. Queries must not be
** open meanwhile. Each metric of `names` runs all or nothing: when it fails, the database and
** the trace's tables are as they were before it (the metrics before it stay). Returns 0,
** TRAK_ESTATE before finish, TRAK_ENOTFOUND for an unknown metric, or TRAK_EINVAL naming the
** metric's file and line, the statement and SQLite's message. `opts` may be NULL. */
int trak_processor_compute_metrics(trak_processor *p, const char *const *names, size_t n,
                                   const trak_metrics_options *opts, trak_error *err);
/* Opens `SELECT * FROM <name>_output` (after compute). */
int trak_processor_metric_output(trak_processor *p, const char *name, trak_query **out,
                                 trak_error *err);
/* Name of built-in metric `i`, or NULL past the last. */
const char *trak_metric_builtin_name(size_t i);

#ifdef __cplusplus
}
#endif
#endif /* TRAK_PROCESSOR_H */
