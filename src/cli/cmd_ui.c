/*
** `trak ui [TRACE] [--port N] [--bind ADDR] [--open]`: imports a trace once and serves the
** timeline viewer for it on 127.0.0.1 (src/ui/server.c) until interrupted; without TRACE, the
** page opens one (uploaded to the server).
*/
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/cli.h"
#include "ui/ui.h"

extern char **environ;

static const char usage[] =
    "usage: trak ui [TRACE] [--port N] [--bind ADDR] [--open] [--max-open-mb N]\n"
    "               [--run METRIC[,METRIC...] [--metrics-dir DIR] [--param KEY=VALUE]...]\n"
    "Imports TRACE and serves a timeline viewer for it at the printed URL until Ctrl-C.\n"
    "The page opens other traces (Open, or a file dropped on it) of at most N MB (default\n"
    "1024); without TRACE it starts empty.\n"
    "It listens on 127.0.0.1 only; --bind 0.0.0.0 makes it reachable from other machines\n"
    "(anyone who can reach it can run SQL over the trace). --port 0 (the default) picks a free\n"
    "port. --open starts the desktop's browser on the URL. With --run, the metrics' annotation\n"
    "tracks and alerts show on the timeline.\n";

/* Starts xdg-open on `url` without waiting for the browser. Failure only prints a note. */
static void open_browser(const char *url) {
  char *argv[] = {"xdg-open", (char *)url, NULL};
  pid_t pid;
  if (posix_spawnp(&pid, "xdg-open", NULL, NULL, argv, environ))
    fprintf(stderr, "trak ui: could not run xdg-open; open %s yourself\n", url);
}

int trak_cli_ui(int argc, char **argv) {
  trak_cli_viewer_args args = {0};
  trak_ui_server_options so = {0};
  int open = 0;
  for (int i = 1; i < argc; i++) {
    if (trak_cli_is_help(argv[i])) {
      fputs(usage, stdout);
      return 0;
    } else if (!strcmp(argv[i], "--port") && i + 1 < argc) {
      char *end;
      long port = strtol(argv[++i], &end, 10);
      if (*end || port < 0 || port > 65535)
        return trak_cli_failf("ui", "--port wants 0..65535, not '%s'", argv[i]);
      so.port = (uint16_t)port;
    } else if (!strcmp(argv[i], "--bind") && i + 1 < argc) {
      so.bind = argv[++i];
    } else if (!strcmp(argv[i], "--open")) {
      open = 1;
    } else if (!strcmp(argv[i], "--max-open-mb") && i + 1 < argc) {
      char *end;
      long long mb = strtoll(argv[++i], &end, 10);
      if (*end || mb < 1 || mb > 1 << 24)
        return trak_cli_failf("ui", "--max-open-mb wants a size in MB, not '%s'", argv[i]);
      so.max_open_mb = (uint64_t)mb;
    } else if (!trak_cli_viewer_arg(&args, argc, argv, &i)) {
      if (trak_cli_is_option(argv[i])) return trak_cli_unknown_option("ui", argv[i]);
      return trak_cli_usage_error("ui", "expected one TRACE");
    }
  }
  if (!args.trace && args.metrics.run) return trak_cli_usage_error("ui", "--run needs a TRACE");
  /* Signals are taken with sigwait below: block them before the server's thread starts, so
  ** that it inherits the mask and Ctrl-C reaches this thread. */
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop, NULL);

  trak_processor *p = NULL;
  trak_error err = {0};
  if (args.trace) {
    if (trak_cli_viewer_open("ui", &args, &p)) return 1;
  } else if (trak_processor_new(NULL, &p, &err) || trak_processor_finish(p, &err)) {
    trak_processor_free(p);
    return trak_cli_fail("ui", &err);
  }
  const char *slash = args.trace ? strrchr(args.trace, '/') : NULL;
  so.name = slash ? slash + 1 : args.trace;
  so.owns_processor = 1;
  trak_ui_server *s = NULL;
  if (trak__ui_server_start(p, &so, &s, &err)) {
    trak_processor_free(p);
    return trak_cli_fail("ui", &err);
  }
  char url[96];
  snprintf(url, sizeof url, "http://%s:%u/", so.bind ? so.bind : "127.0.0.1",
           (unsigned)trak__ui_server_port(s));
  printf("trak ui: serving %s at %s (Ctrl-C to stop)\n", args.trace ? args.trace : "no trace yet",
         url);
  fflush(stdout);
  if (open) open_browser(url);
  int sig;
  sigwait(&stop, &sig);
  trak__ui_server_stop(s); /* frees the processor */
  return 0;
}
