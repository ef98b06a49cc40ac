/*
** The trak command's internal interface: one entry point per subcommand (each in its own
** cmd_<name>.c), plus the small helpers they share for errors and argument handling.
*/
#ifndef TRAK_CLI_H
#define TRAK_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "trak/error.h"
#include "processor/read/trace_file.h"
#include "trak/pb.h"
#include "trak/processor.h"
#include "trak/writer.h"

/* A subcommand: receives argv with argv[0] being the subcommand name. Returns the exit code. */
typedef int (*trak_cli_fn)(int argc, char **argv);

typedef struct trak_cli_command {
  const char *name;
  trak_cli_fn run;
  const char *summary; /* one line for `trak --help` */
} trak_cli_command;

int trak_cli_convert(int argc, char **argv);
int trak_cli_dump(int argc, char **argv);
int trak_cli_query(int argc, char **argv);
int trak_cli_shell(int argc, char **argv);
int trak_cli_export(int argc, char **argv);
int trak_cli_check(int argc, char **argv);
int trak_cli_daemon(int argc, char **argv);
int trak_cli_record(int argc, char **argv);
int trak_cli_probes(int argc, char **argv);
int trak_cli_status(int argc, char **argv);
int trak_cli_metrics(int argc, char **argv);
int trak_cli_alerts(int argc, char **argv);
int trak_cli_annotate(int argc, char **argv);
int trak_cli_ui(int argc, char **argv);
int trak_cli_html(int argc, char **argv);

/* `--descriptions FILE` (repeatable), `--allow-empty`, `--crop-track-events` and `--restrict-sql`,
** any command,
** any position: main() takes them out of argv (global_opts.c). Returns the new argc. */
int trak_cli_take_global_options(int argc, char **argv);
/* Loads the --descriptions files into `p`. Returns 0, or 1 after printing the error. */
int trak_cli_apply_descriptions(const char *cmd, trak_processor *p);
/* 1 when --allow-empty was given. */
int trak_cli_allow_empty(void);
/* trak_processor_options.flags the global options ask for (--crop-track-events,
** --restrict-sql). */
unsigned trak_cli_processor_flags(void);

/* Opens a trace for command `cmd` (trace_open.c) with progress and warnings on stderr, under
** the one rule of every command: input in which nothing could be read (the first bytes match
** no format, or no packet or event decoded before the first malformed byte) is an error naming
** the file and what was expected; a trace without events is a warning unless --allow-empty.
** `diag` (may be NULL) receives every problem; when given, the caller reports them and no
** warning lines are printed. Returns 0, or 1 after printing the error (*out is then NULL). */
int trak_cli_open_trace(const char *cmd, const char *path, trak_processor **out);
/* The same for a command that exits after its queries (query, export): the import's
** freed heap is kept (TRAK_PROCESSOR_KEEP_HEAP); end with trak_cli_close_trace. */
int trak_cli_open_trace_brief(const char *cmd, const char *path, trak_processor **out);
int trak_cli_open_trace_diag(const char *cmd, const char *path, trak_processor_diag_fn diag,
                             void *user, trak_processor **out);
/* Ends the use of a trace opened above by a command that returns to main right after: without
** a sanitizer the process's exit gives its memory back at once (2 M events: 6 ms of unmapping
** saved), with one it is freed so that leak checks hold. Takes `p` (may be NULL). */
void trak_cli_close_trace(trak_processor *p);
/* The same rule for commands that read a trace's bytes without importing it (dump, convert):
** `len` bytes of binary trace loaded from `path`. Returns 0, or 1 after printing the error. */
int trak_cli_check_trace_bytes(const char *cmd, const char *path, const uint8_t *bin, size_t len);
/* Streams the top-level fields of the binary or text trace `path` to `sink` (see
** trak__read_packets), printing problems like trak_cli_open_trace. *format receives the input
** format: for JSON and systrace text nothing was read. Returns 0, or 1 after printing the error. */
int trak_cli_read_packets(const char *cmd, const char *path, trak__field_sink sink, void *user,
                          trak_trace_format *format);
/* A protobuf trace being written field by field (trace_out.c), as binary (PROTO) or text
** (PBTXT); trak_cli_trace_out_field is a trak__field_sink. */
typedef struct trak_cli_trace_out {
  FILE *f;
  const char *path; /* "-": stdout */
  trak_trace_format format;
  trak_pb_buf text; /* one field's text */
  int failed;       /* a write or print failed: the rest is ignored, `err` says why */
  trak_error err;
} trak_cli_trace_out;
/* Opens `path` for writing. Returns 0 or TRAK_EIO naming it. */
int trak_cli_trace_out_open(trak_cli_trace_out *o, const char *path, trak_trace_format format,
                            trak_error *err);
void trak_cli_trace_out_field(void *user, const uint8_t *field, size_t len);
/* Closes the output. Returns 0, or the first error (the file is then removed). */
int trak_cli_trace_out_close(trak_cli_trace_out *o, trak_error *err);
/* `convert` of a JSON trace to protobuf (binary or text) at `out_path`: imported, then its
** tables written as track events. Returns the exit code, after printing any error. */
int trak_cli_json_to_pb(const char *cmd, const char *in, trak_trace_format format,
                        const char *out_path);

/* Set when a trace read by the command was malformed or cut by a limit: the exit-code rule
** (docs/limits.md) is that the command then exits 1, whatever else it printed. */
extern int trak_cli_input_damaged;

/* Query result printing, shared by query, shell, metrics and alerts (query_output.c,
** table_output.c). */
typedef enum trak_cli_format {
  TRAK_CLI_TP,    /* trace_processor_shell's csv, byte for byte (query's default) */
  TRAK_CLI_CSV,   /* RFC 4180: NULL an empty field, doubles round-trip */
  TRAK_CLI_TABLE, /* aligned columns for people ("text" is another name for it) */
  TRAK_CLI_JSON   /* an array of one object per row */
} trak_cli_format;
#define TRAK_CLI_FORMATS "table, csv, json or tp"

typedef struct trak_cli_output {
  FILE *out;
  trak_cli_format format;
  int headers; /* print the column names (tp, csv, table) */
} trak_cli_output;

/* Parses a format word. Returns 0, or -1 if it names none. */
int trak_cli_parse_format(const char *s, trak_cli_format *out);
/* If argv[*i] is `--format F` or `--format=F`, consumes it (advancing *i past the value) and
** returns 1; an unknown F is reported (naming cmd) and sets *bad. Returns 0 otherwise. */
int trak_cli_format_option(const char *cmd, int argc, char **argv, int *i, trak_cli_format *out,
                           int *bad);
/* Prints one open query's rows. Returns 0 or the query's error. */
int trak_cli_print_result(const trak_cli_output *o, trak_query *q, trak_error *err);
int trak_cli_print_table(const trak_cli_output *o, trak_query *q, trak_error *err);
/* Runs every statement of `sql`, printing those that return rows, blank-line separated.
** Returns 0 or the first error (the statements before it ran). */
int trak_cli_run_sql(const trak_cli_output *o, trak_processor *p, const char *sql, trak_error *err);
/* Writes the shortest text that reads back as exactly `v` ("0.1", "1e-09", "2.0", "nan",
** "inf") into buf (32 bytes are enough). */
void trak_cli_format_double(char *buf, size_t size, double v);
/* Writes `s` as a JSON string: control characters escaped, bytes that are not UTF-8 become
** U+FFFD. */
void trak_cli_json_string(FILE *out, const char *s);
/* Writes bytes as x'0a1b...'. */
void trak_cli_blob_hex(FILE *out, const void *data, size_t len);
/* Decodes the UTF-8 sequence at s into *cp and returns its length (1-4), or 0 when the bytes
** there are not valid UTF-8 (overlong, surrogate, cut short by the NUL). */
size_t trak_cli_utf8_len(const unsigned char *s, unsigned *cp);

/* Tabular events input of `trak convert` (CSV / JSON Lines; events_input.c). */
typedef struct trak_cli_events_opts {
  int keep_going; /* bad rows are printed and skipped */
  int seeded;     /* --seed: reproducible sequence id and track uuids from `seed` */
  uint64_t seed;
} trak_cli_events_opts;
/* The tabular events format of `path` by its name or first line; AUTO (0) if it is none. */
trak_events_format trak_cli_events_format(const char *path);
/* Streams the events at `path` into a trace at `out_path` (PROTO or PBTXT). A regular file
** appears, atomically, only when the conversion succeeds; stdout ("-"), a device or a FIFO is
** written as rows convert.
** Returns 0 or a negative code with `err` naming the file and line. */
int trak_cli_convert_events(const char *path, trak_events_format format, const char *out_path,
                            trak_trace_format out_format, const trak_cli_events_opts *o,
                            trak_error *err);
/* Converts the events at `path` into binary trace bytes in memory (malloc'ed, caller frees).
** Returns 0 or a negative code with `err` set. */
int trak_cli_load_events(const char *path, trak_events_format format, const trak_cli_events_opts *o,
                         uint8_t **bin, size_t *len, trak_error *err);

/* `--run A,B --metrics-dir DIR --param K=V` for `trak query` (analysis_opts.c). */
typedef struct trak_cli_metric_args {
  const char *run; /* NULL: no metrics */
  const char *metrics_dir;
  const char *params[64];
  size_t n_params;
} trak_cli_metric_args;
/* Consumes argv[*i] (and its value) if it is one of these options; returns 1 if it was. */
int trak_cli_metric_arg(trak_cli_metric_args *m, int argc, char **argv, int *i);
/* Computes the metrics named by --run, if any. Returns 0 or the error. */
int trak_cli_metric_args_run(trak_cli_metric_args *m, trak_processor *p, trak_error *err);

/* TRACE and the metric options of `trak ui` and `trak html` (viewer_args.c). */
typedef struct trak_cli_viewer_args {
  const char *trace; /* the first argument that is not an option */
  trak_cli_metric_args metrics;
} trak_cli_viewer_args;
/* Consumes argv[*i] (and a value) if it is TRACE or a metric option; returns 1 if it was. */
int trak_cli_viewer_arg(trak_cli_viewer_args *a, int argc, char **argv, int *i);
/* Opens the trace and computes its metrics. Returns 0, or 1 after printing the error. */
int trak_cli_viewer_open(const char *cmd, trak_cli_viewer_args *a, trak_processor **out);

/* Prints "trak <cmd>: <message>" to stderr and returns exit code 1. */
int trak_cli_fail(const char *cmd, const trak_error *err);
int trak_cli_failf(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "trak <cmd>: unknown option '<arg>' (see trak <cmd> --help)" and returns 2, the
** exit status of bad usage. */
int trak_cli_unknown_option(const char *cmd, const char *arg);
/* Prints "trak <cmd>: <what> (see trak <cmd> --help)" and returns 2. */
int trak_cli_usage_error(const char *cmd, const char *what);
/* True if arg looks like an option ("-x", "--x"; "-" alone is stdin). */
int trak_cli_is_option(const char *arg);

/* True if argv[i] is -h or --help. */
int trak_cli_is_help(const char *arg);

/* Writes `len` bytes to `path` ("-" for stdout). Returns 0 or TRAK_EIO with the file named. */
int trak_cli_write_file(const char *path, const void *data, size_t len, trak_error *err);

#endif /* TRAK_CLI_H */
