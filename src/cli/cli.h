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
int trak_cli_status(int argc, char **argv);
int trak_cli_metrics(int argc, char **argv);
int trak_cli_alerts(int argc, char **argv);
int trak_cli_annotate(int argc, char **argv);
int trak_cli_ui(int argc, char **argv);
int trak_cli_html(int argc, char **argv);

/* `--descriptions FILE` (any command, any position; repeatable): main() takes them out of argv
** and every opened trace gets their rules (descriptions_opt.c). Returns the new argc. */
int trak_cli_take_descriptions(int argc, char **argv);
/* Loads the --descriptions files into `p`. Returns 0, or 1 after printing the error. */
int trak_cli_apply_descriptions(const char *cmd, trak_processor *p);

/* Opens a trace for command `cmd` with progress and warnings on stderr. Returns 0, or 1 after
** printing the error. */
int trak_cli_open_trace(const char *cmd, const char *path, trak_processor **out);

/* Query result printing, shared by query and shell (query_output.c). */
typedef enum trak_cli_format { TRAK_CLI_CSV, TRAK_CLI_TABLE, TRAK_CLI_JSON } trak_cli_format;
int trak_cli_parse_format(const char *s, trak_cli_format *out);
/* Prints one open query's rows. Returns 0 or the query's error. */
int trak_cli_print_result(FILE *out, trak_query *q, trak_cli_format format, trak_error *err);
/* Runs every statement of `sql`, printing those that return rows, blank-line separated. */
int trak_cli_run_sql(FILE *out, trak_processor *p, const char *sql, trak_cli_format format,
                     trak_error *err);

/* Tabular events input of `trak convert` (CSV / JSON Lines; events_input.c). */
typedef struct trak_cli_events_opts {
  int keep_going;  /* bad rows are printed and skipped */
  int seeded;      /* --seed: reproducible sequence id and track uuids from `seed` */
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
int trak_cli_load_events(const char *path, trak_events_format format,
                         const trak_cli_events_opts *o, uint8_t **bin, size_t *len,
                         trak_error *err);

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

/* True if argv[i] is -h or --help. */
int trak_cli_is_help(const char *arg);

/* Writes `len` bytes to `path` ("-" for stdout). Returns 0 or TRAK_EIO with the file named. */
int trak_cli_write_file(const char *path, const void *data, size_t len, trak_error *err);

#endif /* TRAK_CLI_H */
