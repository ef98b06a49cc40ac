/*
** This file holds what the commands that read a trace share: opening it through the processor
** API (or streaming its packets, for dump and convert) with a progress bar on a terminal, one
** error line per problem that damages the input (malformed, truncated, cut by a limit) naming
** the byte offset, and the flag that makes such a command exit 1.
*/
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

typedef struct open_ctx {
  const char *cmd, *path;
  int tty;
  double start;
  int bar_shown;
  int warnings;
} open_ctx;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress(void *user, uint64_t done, uint64_t total) {
  open_ctx *c = user;
  if (!c->tty || !total) return;
  if (!c->bar_shown && now_seconds() - c->start < 0.5) return; /* short imports stay quiet */
  int width = 40, filled = (int)(done * (uint64_t)width / total);
  char bar[41];
  memset(bar, '#', (size_t)filled);
  memset(bar + filled, ' ', (size_t)(width - filled));
  bar[width] = 0;
  fprintf(stderr, "\r[%s] %3d%% %llu MB", bar, (int)(done * 100 / total),
          (unsigned long long)(done >> 20));
  c->bar_shown = 1;
  if (done >= total) fprintf(stderr, "\r%*s\r", width + 20, "");
}

int trak_cli_input_damaged;

/* The stats that mean the input is malformed or was cut by a limit (docs/limits.md). Each is
** printed as an error line, and any of them makes the command exit 1 (main.c). Losses the
** trace itself reports (traced_*, previous_packet_dropped) are `trak check`'s business. */
static int damages_input(const char *stat) {
  static const char *const names[] = {"trace_truncated",
                                      "trace_corrupt",
                                      "packet_malformed",
                                      "text_parse_error",
                                      "compressed_packets_errors",
                                      "compressed_packets_unsupported",
                                      "json_tokenizer_failure",
                                      "packet_too_large",
                                      "compressed_packets_too_deep",
                                      "compressed_packets_inflate_limit",
                                      "json_event_too_large",
                                      "debug_annotation_too_deep",
                                      "arg_key_too_long"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(stat, names[i])) return 1;
  return 0;
}

static void diag(void *user, uint64_t packet, uint64_t offset, trak_severity severity,
                 const char *stat, const char *message) {
  (void)severity;
  open_ctx *c = user;
  if (!damages_input(stat)) return;
  trak_cli_input_damaged = 1;
  if (++c->warnings > 5) return;
  if (c->bar_shown) fputc('\n', stderr), c->bar_shown = 0;
  /* Stream problems name their byte in the message; packet problems get it appended. */
  if (strstr(message, "byte"))
    fprintf(stderr, "trak %s: error: %s: %s (packet %llu)\n", c->cmd, c->path, message,
            (unsigned long long)packet);
  else
    fprintf(stderr, "trak %s: error: %s: %s (packet %llu at byte %llu)\n", c->cmd, c->path, message,
            (unsigned long long)packet, (unsigned long long)offset);
}

static void more_problems(const open_ctx *c) {
  if (c->warnings > 5)
    fprintf(stderr, "trak %s: error: %s: %d more problems; see the stats table\n", c->cmd, c->path,
            c->warnings - 5);
}

int trak_cli_read_packets(const char *cmd, const char *path, trak__field_sink sink, void *user,
                          trak_trace_format *format) {
  open_ctx c = {cmd, path, isatty(2), now_seconds(), 0, 0};
  trak_processor_options opts = {diag, progress, &c};
  trak_error err = {0};
  int rc = trak__read_packets(path, &opts, sink, user, format, &err);
  more_problems(&c);
  return rc ? trak_cli_fail(cmd, &err) : 0;
}

int trak_cli_open_trace(const char *cmd, const char *path, trak_processor **out) {
  open_ctx c = {cmd, path, isatty(2), now_seconds(), 0, 0};
  trak_processor_options opts = {diag, progress, &c};
  trak_error err = {0};
  int rc = trak_processor_open_file(path, &opts, out, &err);
  more_problems(&c);
  if (rc) return trak_cli_fail(cmd, &err);
  if (trak_cli_apply_descriptions(cmd, *out)) {
    trak_processor_free(*out);
    *out = NULL;
    return 1;
  }
  return 0;
}
