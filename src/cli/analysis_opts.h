/*
** Options shared by the analysis commands (metrics, alerts, annotate; analysis_opts.c).
*/
#ifndef TRAK_CLI_ANALYSIS_OPTS_H
#define TRAK_CLI_ANALYSIS_OPTS_H

#include "cli/cli.h"

#define TRAK_CLI_MAX_METRICS 64

enum { OPT_FORMAT = 1, OPT_FAIL_ON = 2, OPT_OUTPUT = 4 }; /* options a command accepts */

typedef struct trak_cli_analysis_opts {
  int ok; /* parsed and the command should run */
  const char *trace, *metrics_dir, *fail_on, *output;
  const char *names[TRAK_CLI_MAX_METRICS];
  int n_names;
  const char *params[TRAK_CLI_MAX_METRICS];
  size_t n_params;
  trak_cli_format format;
  char *owned[TRAK_CLI_MAX_METRICS];
  int n_owned;
} trak_cli_analysis_opts;

/* Parses argv (argv[0] the command). Returns the exit code to leave with when o->ok is 0
** (0 after --help, 2 for bad usage), else 0. */
int trak_cli_analysis_parse(const char *cmd, void (*usage)(FILE *out), int argc, char **argv,
                            unsigned allowed, trak_cli_analysis_opts *o);
/* Opens the trace and computes the metrics. Returns 0, or 1 after printing the error. */
int trak_cli_analysis_run(const char *cmd, trak_cli_analysis_opts *o, trak_processor **out);
void trak_cli_analysis_free(trak_cli_analysis_opts *o);

#endif /* TRAK_CLI_ANALYSIS_OPTS_H */
