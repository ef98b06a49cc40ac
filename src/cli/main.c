/*
** The trak command: dispatches `trak <subcommand> ...` to the cmd_*.c files and holds the
** helpers they share. Every subcommand is a thin user of the public libraries.
*/
#include <errno.h>
#include <locale.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const trak_cli_command commands[] = {
    {"convert", trak_cli_convert, "convert a trace between binary, text and other formats"},
    {"dump", trak_cli_dump, "print a trace as protobuf text format"},
    {"query", trak_cli_query, "run SQL over a trace's tables"},
    {"shell", trak_cli_shell, "interactive SQL over a trace"},
    {"export", trak_cli_export, "write a trace's tables to a SQLite database file"},
    {"check", trak_cli_check, "list every problem in a trace"},
    {"daemon", trak_cli_daemon, "run the system tracing service"},
    {"record", trak_cli_record, "record a trace of every process connected to the daemon"},
    {"probes", trak_cli_probes,
     "offer Linux system data (ftrace, processes) to the daemon's sessions"},
    {"status", trak_cli_status, "list the daemon's producers, data sources and sessions"},
    {"metrics", trak_cli_metrics, "run SQL metrics over a trace and print their outputs"},
    {"alerts", trak_cli_alerts, "run metrics and list their alerts (--fail-on gates CI)"},
    {"annotate", trak_cli_annotate, "write a trace with metrics' annotation tracks added"},
    {"ui", trak_cli_ui, "serve a timeline viewer for a trace on 127.0.0.1"},
    {"html", trak_cli_html, "write a trace's timeline as one self-contained HTML file"},
};
#define N_COMMANDS (sizeof commands / sizeof *commands)

static void usage(FILE *out) {
  fprintf(out, "usage: trak <command> [options] [args]\n\ncommands:\n");
  for (size_t i = 0; i < N_COMMANDS; i++)
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\n`trak <command> --help` describes a command. `trak --version` prints the "
               "version.\nCommands that open a trace take --descriptions FILE (slice description "
               "rules),\n--allow-empty (a trace without events is no warning) and "
               "--crop-track-events\n(drop track events before the trace's range of interest, "
               "as Perfetto's option)\nand --restrict-sql (the SQL run cannot touch files or "
               "change trak's tables).\n");
}

int trak_cli_fail(const char *cmd, const trak_error *err) {
  fprintf(stderr, "trak %s: %s\n", cmd, err->message[0] ? err->message : trak_strerror(err->code));
  return 1;
}

int trak_cli_failf(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "trak %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 1;
}

int trak_cli_unknown_option(const char *cmd, const char *arg) {
  fprintf(stderr, "trak %s: unknown option '%s' (see trak %s --help)\n", cmd, arg, cmd);
  return 2;
}

int trak_cli_usage_error(const char *cmd, const char *what) {
  fprintf(stderr, "trak %s: %s (see trak %s --help)\n", cmd, what, cmd);
  return 2;
}

int trak_cli_is_option(const char *arg) {
  return arg[0] == '-' && arg[1];
}

int trak_cli_is_help(const char *arg) {
  return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

int trak_cli_write_file(const char *path, const void *data, size_t len, trak_error *err) {
  int is_stdout = !strcmp(path, "-");
  FILE *f = is_stdout ? stdout : fopen(path, "wb");
  if (!f) return trak_error_set(err, TRAK_EIO, "%s: %s", path, strerror(errno));
  size_t wrote = len ? fwrite(data, 1, len, f) : 0; /* data may be NULL when len is 0 */
  int rc = is_stdout ? fflush(f) : fclose(f);
  if (wrote != len || rc)
    return trak_error_set(err, TRAK_EIO, "%s: write failed: %s", path, strerror(errno));
  return 0;
}

int main(int argc, char **argv) {
  /* Character classes of UTF-8 (display widths in tables, multibyte input in the shell); the
  ** numeric locale stays C, so numbers always print with a '.'. */
  if (!setlocale(LC_CTYPE, "C.UTF-8")) setlocale(LC_CTYPE, "");
  /* No glibc fastbins: a query that makes SQLite free millions of small cells (a temporary
  ** B-tree of a GROUP BY over a big table) otherwise leaves them to be sorted into bins by the
  ** next large malloc, which the next statement then pays (170-300 ms CPU at 2 M events, 1 ms
  ** without; docs/performance.md). Freed chunks are merged at free instead. */
  mallopt(M_MXFAST, 0);
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (trak_cli_is_help(argv[1])) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("trak %s\n", TRAK_VERSION);
    return 0;
  }
  argc = trak_cli_take_global_options(argc, argv);
  for (size_t i = 0; i < N_COMMANDS; i++)
    if (!strcmp(argv[1], commands[i].name)) {
      int rc = commands[i].run(argc - 1, argv + 1);
      /* One rule for every command: data lost or input malformed -> non-zero. */
      return rc ? rc : trak_cli_input_damaged ? 1 : 0;
    }
  fprintf(stderr, "trak: unknown command '%s' (see trak --help)\n", argv[1]);
  return 2;
}
