/*
** The options shared by `trak metrics`, `trak alerts` and `trak annotate` (TRACE, --run,
** --metrics-dir, --param, --format, --fail-on, -o), and opening a trace and running the
** metrics through the processor API.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/analysis_opts.h"

/* Splits "a,b,c" into opts->names (pointing into a copy). */
static int add_names(trak_cli_analysis_opts *o, const char *list) {
  char *copy = strdup(list);
  if (!copy) return -1;
  o->owned[o->n_owned++] = copy;
  for (char *s = strtok(copy, ","); s; s = strtok(NULL, ","))
    if (o->n_names < TRAK_CLI_MAX_METRICS) o->names[o->n_names++] = s;
  return 0;
}

/* Prints "trak <cmd>: <what><arg>" and returns 2, the exit status of bad usage. */
static int usage_error(const char *cmd, const char *what, const char *arg) {
  fprintf(stderr, "trak %s: %s%s\n", cmd, what, arg);
  return 2;
}

int trak_cli_analysis_parse(const char *cmd, void (*usage)(FILE *out), int argc, char **argv,
                            unsigned allowed, trak_cli_analysis_opts *o) {
  memset(o, 0, sizeof *o);
  o->format = TRAK_CLI_TABLE;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int has_value = i + 1 < argc, bad;
    if (trak_cli_is_help(a)) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--run") && has_value && o->n_owned < TRAK_CLI_MAX_METRICS) {
      if (add_names(o, argv[++i])) return 1;
    } else if (!strcmp(a, "--metrics-dir") && has_value) {
      o->metrics_dir = argv[++i];
    } else if (!strcmp(a, "--param") && has_value && o->n_params < TRAK_CLI_MAX_METRICS) {
      if (!strchr(argv[++i], '='))
        return usage_error(cmd, "--param wants key=value, not ", argv[i]);
      o->params[o->n_params++] = argv[i];
    } else if ((allowed & OPT_FORMAT) &&
               trak_cli_format_option(cmd, argc, argv, &i, &o->format, &bad)) {
      if (bad) return 2;
    } else if ((allowed & OPT_FAIL_ON) && !strcmp(a, "--fail-on") && has_value) {
      o->fail_on = argv[++i];
      if (strcmp(o->fail_on, "warning") && strcmp(o->fail_on, "error"))
        return usage_error(cmd, "--fail-on wants warning or error, not ", o->fail_on);
    } else if ((allowed & OPT_OUTPUT) && !strcmp(a, "-o") && has_value) {
      o->output = argv[++i];
    } else if (trak_cli_is_option(a)) {
      return trak_cli_unknown_option(cmd, a);
    } else if (!o->trace) {
      o->trace = a;
    } else {
      usage(stderr);
      return 2;
    }
  }
  if (!o->trace || !o->n_names || ((allowed & OPT_OUTPUT) && !o->output)) {
    usage(stderr);
    return 2;
  }
  o->ok = 1;
  return 0;
}

int trak_cli_analysis_run(const char *cmd, trak_cli_analysis_opts *o, trak_processor **out) {
  if (trak_cli_open_trace(cmd, o->trace, out)) return 1;
  trak_metrics_options mo = {o->metrics_dir, o->params, o->n_params};
  trak_error err = {0};
  if (trak_processor_compute_metrics(*out, o->names, o->n_names, &mo, &err)) {
    trak_processor_free(*out);
    *out = NULL;
    return trak_cli_fail(cmd, &err);
  }
  return 0;
}

void trak_cli_analysis_free(trak_cli_analysis_opts *o) {
  for (int i = 0; i < o->n_owned; i++)
    free(o->owned[i]);
}

int trak_cli_metric_arg(trak_cli_metric_args *m, int argc, char **argv, int *i) {
  if (*i + 1 >= argc) return 0;
  const char *a = argv[*i], *v = argv[*i + 1];
  if (!strcmp(a, "--run")) {
    m->run = v;
  } else if (!strcmp(a, "--metrics-dir")) {
    m->metrics_dir = v;
  } else if (!strcmp(a, "--param") && m->n_params < sizeof m->params / sizeof *m->params) {
    m->params[m->n_params++] = v;
  } else {
    return 0;
  }
  ++*i;
  return 1;
}

int trak_cli_metric_args_run(trak_cli_metric_args *m, trak_processor *p, trak_error *err) {
  if (!m->run) return 0;
  char *list = strdup(m->run);
  if (!list) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  const char *names[TRAK_CLI_MAX_METRICS];
  size_t n = 0;
  for (char *s = strtok(list, ","); s && n < TRAK_CLI_MAX_METRICS; s = strtok(NULL, ","))
    names[n++] = s;
  trak_metrics_options mo = {m->metrics_dir, m->params, m->n_params};
  int rc = trak_processor_compute_metrics(p, names, n, &mo, err);
  free(list);
  return rc;
}
