/*
** This file holds what the commands that read a trace share: opening it through the processor
** API with a progress bar on a terminal and one warning line per structural problem (a
** truncated or corrupt trace), naming the byte offset.
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

static void diag(void *user, uint64_t packet, uint64_t offset, trak_severity severity,
                 const char *stat, const char *message) {
  open_ctx *c = user;
  int structural = !strcmp(stat, "trace_truncated") || !strcmp(stat, "trace_corrupt") ||
                   !strcmp(stat, "packet_malformed") || !strcmp(stat, "compressed_packets_errors") ||
                   !strcmp(stat, "json_tokenizer_failure") || !strcmp(stat, "text_parse_error");
  if (!structural || ++c->warnings > 5) return;
  if (c->bar_shown) fputc('\n', stderr), c->bar_shown = 0;
  /* Stream problems name their byte in the message; packet problems get it appended. */
  if (strstr(message, "byte"))
    fprintf(stderr, "trak %s: warning: %s: %s (packet %llu)\n", c->cmd, c->path, message,
            (unsigned long long)packet);
  else
    fprintf(stderr, "trak %s: warning: %s: %s (packet %llu at byte %llu)\n", c->cmd, c->path,
            message, (unsigned long long)packet, (unsigned long long)offset);
}

int trak_cli_open_trace(const char *cmd, const char *path, trak_processor **out) {
  open_ctx c = {cmd, path, isatty(2), now_seconds(), 0, 0};
  trak_processor_options opts = {diag, progress, &c};
  trak_error err = {0};
  int rc = trak_processor_open_file(path, &opts, out, &err);
  if (c.warnings > 5)
    fprintf(stderr, "trak %s: warning: %s: %d more problems; see the stats table\n", cmd, path,
            c.warnings - 5);
  if (rc) return trak_cli_fail(cmd, &err);
  if (trak_cli_apply_descriptions(cmd, *out)) {
    trak_processor_free(*out);
    *out = NULL;
    return 1;
  }
  return 0;
}
