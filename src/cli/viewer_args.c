/*
** What `trak ui` and `trak html` share: their TRACE argument with the metric options
** (--run, --metrics-dir, --param), and opening the trace with its metrics computed.
*/
#include "cli/cli.h"

int trak_cli_viewer_arg(trak_cli_viewer_args *a, int argc, char **argv, int *i) {
  if (trak_cli_metric_arg(&a->metrics, argc, argv, i)) return 1;
  const char *s = argv[*i];
  if (a->trace || (s[0] == '-' && s[1])) return 0;
  a->trace = s;
  return 1;
}

int trak_cli_viewer_open(const char *cmd, trak_cli_viewer_args *a, trak_processor **out) {
  if (trak_cli_open_trace(cmd, a->trace, out)) return 1;
  trak_error err = {0};
  if (!trak_cli_metric_args_run(&a->metrics, *out, &err)) return 0;
  trak_processor_free(*out);
  *out = NULL;
  return trak_cli_fail(cmd, &err);
}
