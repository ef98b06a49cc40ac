/*
** `trak alerts TRACE --run METRICS [--fail-on warning|error]`: runs metrics and prints the
** alerts their annotations raise, sorted by time. With --fail-on the exit status is 3 when an
** alert of that level or worse exists, so a CI pipeline can gate on a trace.
*/
#include <stdio.h>
#include <string.h>

#include "cli/analysis_opts.h"

static const char usage[] =
    "usage: trak alerts TRACE --run NAME[,NAME...] [--fail-on warning|error]\n"
    "                   [--metrics-dir DIR] [--param KEY=VALUE]... [--format table|csv|json|tp]\n"
    "Runs the metrics and prints their alerts by time. Exit status: 0, or 3 with --fail-on\n"
    "when an alert at that level (error counts as warning too) exists, 1 on errors.\n";

#define EXIT_ALERTS 3

static void print_usage(FILE *out) {
  fputs(usage, out);
}

/* Counts alerts of each type into counts[0] (warning) and counts[1] (error). */
static int count_alerts(trak_processor *p, int64_t counts[2], trak_error *err) {
  trak_query *q;
  int rc = trak_query_open(p,
                           "SELECT count(*) FILTER (WHERE alert_type = 'warning'), "
                           "count(*) FILTER (WHERE alert_type = 'error') FROM alert",
                           &q, NULL, err);
  if (rc) return rc;
  if ((rc = trak_query_next(q, err)) > 0) {
    counts[0] = trak_query_int(q, 0);
    counts[1] = trak_query_int(q, 1);
    rc = 0;
  }
  trak_query_free(q);
  return rc;
}

int trak_cli_alerts(int argc, char **argv) {
  trak_cli_analysis_opts o;
  int rc = trak_cli_analysis_parse("alerts", print_usage, argc, argv, OPT_FORMAT | OPT_FAIL_ON, &o);
  if (!o.ok) {
    trak_cli_analysis_free(&o);
    return rc;
  }
  trak_processor *p;
  if (trak_cli_analysis_run("alerts", &o, &p)) {
    trak_cli_analysis_free(&o);
    return 1;
  }
  trak_error err = {0};
  trak_query *q;
  rc = trak_query_open(p,
                       "SELECT ts, dur, alert_type, metric, track_name, message, source_slice_id "
                       "FROM alert ORDER BY ts, id",
                       &q, NULL, &err);
  if (!rc) {
    rc = trak_cli_print_result(&(trak_cli_output){stdout, o.format, 1}, q, &err);
    trak_query_free(q);
  }
  int64_t counts[2] = {0, 0};
  if (!rc) rc = count_alerts(p, counts, &err);
  trak_processor_free(p);
  int gate = o.fail_on && (counts[1] || (!strcmp(o.fail_on, "warning") && counts[0]));
  trak_cli_analysis_free(&o);
  fflush(stdout);
  if (rc) return trak_cli_fail("alerts", &err);
  fprintf(stderr, "trak alerts: %lld errors, %lld warnings\n", (long long)counts[1],
          (long long)counts[0]);
  return gate ? EXIT_ALERTS : 0;
}
