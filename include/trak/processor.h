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
#include "trak/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trak_processor trak_processor;
typedef struct trak_query trak_query;

/* Severity of an import problem, as in the stats table's `severity` column. */
typedef enum trak_severity {
  TRAK_SEVERITY_INFO = 0,
  TRAK_SEVERITY_DATA_LOSS = 1,
  TRAK_SEVERITY_ERROR = 2,
  /* Normal but noteworthy, neither data loss nor a bug (as Perfetto's "notice"): e.g. packets
  ** skipped until a sequence that lost packets clears its incremental state. */
  TRAK_SEVERITY_NOTICE = 3
} trak_severity;

/* Called for every problem found, in import order: `packet` is the index of the TracePacket
** (counting from 0 over the whole trace, packets inside compressed_packets included), `offset`
** its byte offset in the uncompressed trace, `stat` the stats row it counts in. */
typedef void (*trak_processor_diag_fn)(void *user, uint64_t packet, uint64_t offset,
                                       trak_severity severity, const char *stat,
                                       const char *message);
/* Called now and then while feeding; `total` is 0 when unknown. */
typedef void (*trak_processor_progress_fn)(void *user, uint64_t done, uint64_t total);

/* trak_processor_options.flags: drop the track events before the trace's
** TracePacket.track_event_range_of_interest (Perfetto's --crop-track-events; by default they
** are kept, as Perfetto keeps them, and counted in no stat). */
#define TRAK_PROCESSOR_CROP_TRACK_EVENTS 1u
/* trak_processor_options.flags: trak_processor_finish ends with trak_processor_restrict_sql. */
#define TRAK_PROCESSOR_RESTRICT_SQL 2u
/* trak_processor_options.flags: the diag callback's `message` is NULL; the callback that wants
** it calls trak_processor_diag_message(). A callback that keeps only some stats then spares the
** formatting of the others (thousands of reports on a big JSON trace with misplaced ends). */
#define TRAK_PROCESSOR_DIAG_LAZY 4u
/* trak_processor_options.flags: the caller exits soon after its queries, so finishing keeps the
** heap the import freed instead of giving it back to the system (malloc_trim: 4 ms at 2 M JSON
** events, and 33 MB less resident memory while the trace is queried). */
#define TRAK_PROCESSOR_KEEP_HEAP 8u

typedef struct trak_processor_options {
  trak_processor_diag_fn diag;         /* NULL: problems are only counted */
  trak_processor_progress_fn progress; /* NULL: no progress reports */
  void *user;                          /* passed to both callbacks */
  unsigned flags;                      /* TRAK_PROCESSOR_* bits; 0: none */
} trak_processor_options;

/* The message of the problem being passed to a diag callback on this thread (with
** TRAK_PROCESSOR_DIAG_LAZY), the same text the callback would be given without that flag; NULL
** outside a diag callback. Valid until the callback returns. */
TRAK_API const char *trak_processor_diag_message(void);

/* Creates an empty processor ready to be fed. `options` may be NULL. Returns 0 or TRAK_ENOMEM. */
TRAK_API int trak_processor_new(const trak_processor_options *options, trak_processor **out,
                                trak_error *err);

/* Feeds the next `len` bytes of the trace (any split: packets may straddle calls). The format
** (gzip, binary, text, JSON) is recognised from the first bytes. Returns 0; TRAK_ESTATE after
** finish; TRAK_ENOMEM. Malformed bytes are not an error here: they are counted and reported. */
TRAK_API int trak_processor_feed(trak_processor *p, const void *data, size_t len, trak_error *err);

/* Ends the input: sorts the events, builds the tables and makes SQL available. Returns 0, or
** TRAK_EFORMAT when a text trace does not parse (nothing is imported then), TRAK_ENOMEM. SQL's
** tables, views, functions and PerfettoSQL prelude are set up by the first call that runs SQL
** (a query, exec, trak_processor_export, metrics, restrict_sql; at once with
** TRAK_PROCESSOR_RESTRICT_SQL), so an import that is only converted (JSON, protobuf) or counted
** does not pay for them; a set-up failure (out of
** memory: "cannot set up SQL: ...") is then that call's error, and every later one's. */
TRAK_API int trak_processor_finish(trak_processor *p, trak_error *err);

/* new + feed the whole file ("-" for stdin) in chunks + finish. On error *out is NULL. */
TRAK_API int trak_processor_open_file(const char *path, const trak_processor_options *options,
                                      trak_processor **out, trak_error *err);

/* Frees the processor. Queries still open on it must be freed first. NULL is allowed. */
TRAK_API void trak_processor_free(trak_processor *p);

/* Number of events (TrackEvent packets) imported, and bytes fed (after gunzip). */
TRAK_API uint64_t trak_processor_event_count(const trak_processor *p);
TRAK_API uint64_t trak_processor_byte_count(const trak_processor *p);

/* Import statistics, the importer's own rows of the `stats` table. The figures a trace carries
** in trace_stats packets (traced_* rows) are in the SQL table only. */
typedef struct trak_stat {
  const char *name; /* e.g. "misplaced_end_event" */
  trak_severity severity;
  int64_t value;
  const char *description; /* one line */
} trak_stat;
TRAK_API size_t trak_processor_stat_count(const trak_processor *p);
/* Fills `out` with stat `i` (< trak_processor_stat_count). Returns 0 or TRAK_EINVAL. */
TRAK_API int trak_processor_stat_get(const trak_processor *p, size_t i, trak_stat *out);
/* The value of the stat called `name`, or -1 if there is no such stat. */
TRAK_API int64_t trak_processor_stat_value(const trak_processor *p, const char *name);

/* ---- SQL ------------------------------------------------------------------------------- */

typedef enum trak_value_type {
  TRAK_VALUE_NULL = 0,
  TRAK_VALUE_INT = 1,
  TRAK_VALUE_DOUBLE = 2,
  TRAK_VALUE_STRING = 3,
  TRAK_VALUE_BLOB = 4 /* bytes: read with trak_query_blob (trak_query_string gives their text) */
} trak_value_type;

/* Compiles the first SQL statement of `sql` (after finish). *tail (if not NULL) receives the
** rest of the text, so a caller can run several statements one by one; *out is NULL when the
** text holds only whitespace or comments. Returns 0, TRAK_ESTATE before finish, or TRAK_EINVAL
** with SQLite's message. The query is freed with trak_query_free. */
TRAK_API int trak_query_open(trak_processor *p, const char *sql, trak_query **out,
                             const char **tail, trak_error *err);

/* Advances to the next row. Returns 1 with a row, 0 when done, TRAK_EINVAL on a SQL error. */
TRAK_API int trak_query_next(trak_query *q, trak_error *err);

/* Columns of the result, valid as soon as the query is open. */
TRAK_API int trak_query_column_count(const trak_query *q);
TRAK_API const char *trak_query_column_name(const trak_query *q, int col);

/* Values of the current row. A string stays valid until the next trak_query_next. */
TRAK_API trak_value_type trak_query_type(trak_query *q, int col);
TRAK_API int64_t trak_query_int(trak_query *q, int col);
TRAK_API double trak_query_double(trak_query *q, int col);
TRAK_API const char *trak_query_string(trak_query *q, int col);
/* The bytes of a value and their count in *len (any type; a NULL value gives NULL, 0). Valid
** until the next trak_query_next. */
TRAK_API const void *trak_query_blob(trak_query *q, int col, size_t *len);

TRAK_API void trak_query_free(trak_query *q);

/* Makes the statement running on `p` (in another thread, or from a signal handler: it only
** sets a flag) stop soon with TRAK_EINVAL and the message "interrupted". Statements started
** later run normally. It does nothing while SQL is being set up (by the first call that runs
** SQL, see trak_processor_finish), so that the set-up does not fail. */
TRAK_API void trak_processor_interrupt(trak_processor *p);

/* A batch of rows in columns, for callers that move whole results (Python, dataframes) rather
** than values one at a time. Filled by trak_query_fetch_columns; every pointer stays valid until
** the next fetch or trak_query_free, and belongs to the query. */
typedef struct trak_column_batch {
  /* The column's type in this batch: INT, DOUBLE or STRING, or NULL when every value of the
  ** batch is NULL. A column mixing types comes as the widest: integers with doubles as DOUBLE;
  ** numbers with strings as STRING (the numbers as SQLite prints them). Blobs come as STRING. */
  trak_value_type type;
  const uint8_t *nulls;        /* one byte per row: 1 where the value is NULL */
  const int64_t *ints;         /* INT: the values, 0 where NULL */
  const double *doubles;       /* DOUBLE: the values, NaN where NULL */
  const int32_t *codes;        /* STRING: index of the row's string in the column's dictionary, -1
                               ** where NULL. The dictionary grows over the whole query: batch after
                               ** batch, each distinct string gets the next index once. */
  const char *new_strings;     /* the strings this batch adds to the dictionary, in index order,
                               ** each followed by a NUL */
  const uint64_t *new_offsets; /* n_new_strings + 1 offsets into new_strings (for strings that
                               ** hold a NUL themselves) */
  uint32_t n_new_strings;
  int new_strings_have_nul; /* 1 when some new string holds a NUL (use the offsets) */
} trak_column_batch;

/* Runs the query on for up to `max_rows` rows (from the row after the current one; 0 means
** 65536) and fills `cols` (trak_query_column_count entries) with them, column by column.
** Returns the number of rows fetched (0 when the query is done), TRAK_EINVAL on a SQL error
** (the rows fetched before it are lost), TRAK_ENOMEM. Do not mix with trak_query_next. */
TRAK_API int64_t trak_query_fetch_columns(trak_query *q, size_t max_rows, trak_column_batch *cols,
                                          trak_error *err);

/* Runs every statement of `sql`, discarding rows (for DDL, ATTACH, ...). Returns 0 or the
** first error. */
TRAK_API int trak_processor_exec(trak_processor *p, const char *sql, trak_error *err);

/* Restricts the SQL of `p` from now on, for SQL its caller did not write (the viewer's, a
** tool's): statements still read every table and may create tables, views, functions, macros
** and indexes of their own (CREATE PERFETTO ..., INCLUDE PERFETTO MODULE) and change those, but
** ATTACH, DETACH, VACUUM INTO, PRAGMAs other than the read-only ones, file functions and any
** change to an object that existed before this call (trak's tables, what was computed before)
** fail with TRAK_EINVAL ("not authorized"). It cannot be undone; compute metrics and export
** before it. Returns 0 (also when already restricted), TRAK_ESTATE before finish, TRAK_ENOMEM. */
TRAK_API int trak_processor_restrict_sql(trak_processor *p, trak_error *err);

/* Writes every table to a new SQLite database file at `path` (an existing file is replaced).
** Returns 0, TRAK_ESTATE before finish, TRAK_EIO. */
TRAK_API int trak_processor_export(trak_processor *p, const char *path, trak_error *err);

/* Names of the tables and views a user can query, NULL-terminated, static. */
TRAK_API const char *const *trak_processor_table_names(void);

/* Names of the PerfettoSQL modules trak ships (docs/sql.md), sorted, NULL-terminated, static:
** each can be loaded with `INCLUDE PERFETTO MODULE name;` ("prelude.*" are always loaded). */
TRAK_API const char *const *trak_perfetto_modules_list(void);

/* ---- analysis (docs/analysis.md) ------------------------------------------------------- */

/* Adds slice description rules: `len` bytes of the text format of SliceDescriptionRules
** (protos/analysis_rules.proto). They take precedence over the built-in rules and rules added
** before. `source` names the text in errors (NULL: "descriptions"). Returns 0, or
** TRAK_EFORMAT naming source, line and column; then none of the text's rules are added. */
TRAK_API int trak_processor_add_descriptions(trak_processor *p, const char *text, size_t len,
                                             const char *source, trak_error *err);
/* The same for a file. Also TRAK_EIO. */
TRAK_API int trak_processor_load_descriptions(trak_processor *p, const char *path, trak_error *err);

/* Describes one slice (what `describe_slice` returns for it): 1 with *description and
** *doc_link (NULL when the rule has none) set, valid while the processor lives and no rules
** are added; 0 when no rule matches, the id is not a slice or the trace is not finished. */
TRAK_API int trak_processor_describe_slice(trak_processor *p, int64_t slice_id,
                                           const char **description, const char **doc_link);

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
TRAK_API int trak_processor_compute_metrics(trak_processor *p, const char *const *names, size_t n,
                                            const trak_metrics_options *opts, trak_error *err);
/* Opens `SELECT * FROM <name>_output` (after compute). */
TRAK_API int trak_processor_metric_output(trak_processor *p, const char *name, trak_query **out,
                                          trak_error *err);
/* Name of built-in metric `i`, or NULL past the last. */
TRAK_API const char *trak_metric_builtin_name(size_t i);

#ifdef __cplusplus
}
#endif
#endif /* TRAK_PROCESSOR_H */
