/*
** `trak daemon [--socket PATH] [--producer-buffer KB] [--max-buffer KB] [--shared] [-v]`: runs
** the system tracing service (trak_daemon_run) until SIGINT or SIGTERM.
*/
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "trak/system.h"

static const char DAEMON_HELP[] =
    "usage: trak daemon [--socket PATH] [--producer-buffer KB] [--max-buffer KB] [--shared] [-v]\n"
    "\n"
    "Runs the tracing service processes connect to when they trace in system mode\n"
    "(TRAK_BACKEND=system, or trak_system_connect()), and `trak record` records through.\n"
    "The socket (default $TRAK_SOCKET, $XDG_RUNTIME_DIR/trak.sock or /tmp/trak-$UID/trak.sock\n"
    "in a directory it makes owner-only) is created readable and writable by its owner only;\n"
    "another user's socket or directory there is refused, never replaced. SIGINT or SIGTERM\n"
    "stops the daemon, finishing the files of running sessions.\n"
    "\n"
    "  --producer-buffer KB  shared buffer per producer and session (default 1024)\n"
    "  --max-buffer KB       largest central buffer a session may ask for (default 262144)\n"
    "  --shared              let every local user connect (socket mode 0666); a session\n"
    "                        records only producers of its recorder's uid (root's: all)\n"
    "  -v                    log connections and sessions\n";

static volatile int stop_flag;

/* A size in KiB: a whole number from 1 to 4194303 (under 4 GiB). */
static int parse_kb(const char *s, uint32_t *out) {
  char *end;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (errno || end == s || *end || !v || v >= 4194304 || *s == '-') return -1;
  *out = (uint32_t)v;
  return 0;
}

static void on_signal(int sig) {
  (void)sig;
  stop_flag = 1;
}

int trak_cli_daemon(int argc, char **argv) {
  trak_daemon_config cfg = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (trak_cli_is_help(a)) {
      fputs(DAEMON_HELP, stdout);
      return 0;
    }
    if (!strcmp(a, "-v")) {
      cfg.verbose = 1;
    } else if (i + 1 < argc && !strcmp(a, "--socket")) {
      cfg.socket_path = argv[++i];
    } else if (!strcmp(a, "--shared")) {
      cfg.shared = 1;
    } else if (i + 1 < argc && !strcmp(a, "--producer-buffer")) {
      if (parse_kb(argv[++i], &cfg.producer_buffer_kb))
        return trak_cli_failf("daemon", "bad --producer-buffer '%s' (KiB, 1 or more)", argv[i]);
    } else if (i + 1 < argc && !strcmp(a, "--max-buffer")) {
      if (parse_kb(argv[++i], &cfg.max_session_kb))
        return trak_cli_failf("daemon", "bad --max-buffer '%s' (KiB, 1 or more)", argv[i]);
    } else {
      return trak_cli_unknown_option("daemon", a);
    }
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  trak_error err = {0};
  return trak_daemon_run(&cfg, &stop_flag, &err) ? trak_cli_fail("daemon", &err) : 0;
}
