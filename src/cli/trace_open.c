/*
** This file holds what the commands that read a trace share: opening it through the processor
** API (or streaming its packets, for dump and convert) with a progress bar on a terminal, one
** error line per problem that damages the input (malformed, truncated, cut by a limit) naming
** the byte offset, the flag that then makes the command exit 1 (docs/limits.md), and the one
** rule for input that is not a trace: nothing readable is an error (exit 1), a trace without
** events a warning (or nothing, with --allow-empty).
*/
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/sanitized.h"
#include "trak/pb.h"
#include "trak/protos.h"

#define MAX_WARNINGS 5

static const char EXPECTED[] =
    "expected a Perfetto trace (binary or text protobuf, gzip or not) or a JSON trace";

typedef struct open_ctx {
  const char *cmd, *path;
  int tty;
  double start;
  int bar_shown;
  int warnings;                        /* problems that damage the input, seen */
  int malformed;                       /* of them, malformed input (not limits) */
  char lines[MAX_WARNINGS][640];       /* the first ones, printed once the import ends */
  uint8_t line_is_error[MAX_WARNINGS]; /* else a warning: the input is kept whole otherwise */
  char first[TRAK_ERROR_MESSAGE_MAX];  /* the first problem's message, up to its first ';' */
  uint64_t first_packet;               /* packet index of the first malformed input */
  trak_processor_diag_fn diag;         /* the caller's, or NULL */
  void *user;
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
  if (done >= total) fprintf(stderr, "\r%*s\r", width + 20, ""), c->bar_shown = 0;
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
                                      "json_nesting_too_deep",
                                      "debug_annotation_too_deep",
                                      "arg_key_too_long",
                                      "import_memory_limit"};
  /* (the first letters first: a trace may report a problem of another kind per event, such as
  ** misplaced_end_event, and a call of strcmp per name cost ~40 instructions) */
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (stat[0] == names[i][0] && !strcmp(stat, names[i])) return 1;
  return 0;
}

/* (With TRAK_PROCESSOR_DIAG_LAZY `message` is NULL: it is made only for the problems kept.) */
static void diag(void *user, uint64_t packet, uint64_t offset, trak_severity severity,
                 const char *stat, const char *message) {
  open_ctx *c = user;
  if (c->diag)
    c->diag(c->user, packet, offset, severity, stat,
            message ? message : trak_processor_diag_message());
  /* A text field trak's schema lacks is printed too, as a warning: the rest imports. */
  int damaged = damages_input(stat);
  if (!damaged && strcmp(stat, "text_unknown_field")) return;
  if (!message) message = trak_processor_diag_message();
  if (damaged) trak_cli_input_damaged = 1;
  /* Malformed bytes before anything was read make it "not a trace"; a limit does not, nor a
  ** JSON event that is well-formed JSON with a bad value (a bad "ts": the file is JSON). */
  int malformed = !strcmp(stat, "trace_truncated") || !strcmp(stat, "trace_corrupt") ||
                  !strcmp(stat, "packet_malformed") || !strcmp(stat, "compressed_packets_errors") ||
                  !strcmp(stat, "text_parse_error") ||
                  (!strcmp(stat, "json_tokenizer_failure") && !strncmp(message, "JSON syntax", 11));
  if (malformed && !c->malformed++) {
    snprintf(c->first, sizeof c->first, "%s", message);
    c->first[strcspn(c->first, ";")] = 0;
    c->first_packet = packet;
  }
  c->warnings++;
  if (c->warnings > MAX_WARNINGS) return;
  char *line = c->lines[c->warnings - 1];
  c->line_is_error[c->warnings - 1] = (uint8_t)damaged;
  /* Stream problems name their byte in the message; packet problems get it appended. */
  if (strstr(message, "byte"))
    snprintf(line, sizeof c->lines[0], "%s (packet %llu)", message, (unsigned long long)packet);
  else
    snprintf(line, sizeof c->lines[0], "%s (packet %llu at byte %llu)", message,
             (unsigned long long)packet, (unsigned long long)offset);
}

static void print_warnings(const open_ctx *c) {
  if (c->diag) return; /* the caller lists the problems itself */
  for (int i = 0; i < c->warnings && i < MAX_WARNINGS; i++)
    fprintf(stderr, "trak %s: %s: %s: %s\n", c->cmd, c->line_is_error[i] ? "error" : "warning",
            c->path, c->lines[i]);
  if (c->warnings > MAX_WARNINGS)
    fprintf(stderr, "trak %s: error: %s: %d more problems; see the stats table\n", c->cmd, c->path,
            c->warnings - MAX_WARNINGS);
}

static void warn_empty(const char *cmd, const char *path) {
  if (!trak_cli_allow_empty())
    fprintf(stderr, "trak %s: warning: %s: empty trace: no events (--allow-empty accepts it)\n",
            cmd, path);
}

/* trak_cli_open_trace_diag with `flags` added to the global options' */
static int open_trace(const char *cmd, const char *path, trak_processor_diag_fn user_diag,
                      void *user, unsigned flags, trak_processor **out) {
  open_ctx c = {.cmd = cmd,
                .path = path,
                .tty = isatty(2),
                .start = now_seconds(),
                .diag = user_diag,
                .user = user};
  trak_processor_options opts = {diag, progress, &c,
                                 trak_cli_processor_flags() | TRAK_PROCESSOR_DIAG_LAZY | flags};
  trak_error err = {0};
  int rc = trak_processor_open_file(path, &opts, out, &err);
  if (rc) {
    print_warnings(&c);
    return trak_cli_fail(cmd, &err);
  }
  if (!trak_processor_event_count(*out)) {
    if (c.malformed && c.first_packet == 0) { /* nothing was readable before the first problem */
      trak_processor_free(*out);
      *out = NULL;
      return trak_cli_failf(cmd, "%s: not a trace (%s); %s", path, c.first, EXPECTED);
    }
    print_warnings(&c);
    warn_empty(cmd, path);
  } else {
    print_warnings(&c);
  }
  if (trak_cli_apply_descriptions(cmd, *out)) {
    trak_processor_free(*out);
    *out = NULL;
    return 1;
  }
  return 0;
}

int trak_cli_open_trace_diag(const char *cmd, const char *path, trak_processor_diag_fn user_diag,
                             void *user, trak_processor **out) {
  return open_trace(cmd, path, user_diag, user, 0, out);
}

int trak_cli_open_trace(const char *cmd, const char *path, trak_processor **out) {
  return open_trace(cmd, path, NULL, NULL, 0, out);
}

int trak_cli_open_trace_brief(const char *cmd, const char *path, trak_processor **out) {
  return open_trace(cmd, path, NULL, NULL, TRAK_PROCESSOR_KEEP_HEAP, out);
}

void trak_cli_close_trace(trak_processor *p) {
#ifdef TRAK_SANITIZED_HEAP
  trak_processor_free(p);
#else
  (void)p;
#endif
}

/* A sink that counts the Trace.packet fields it passes on (field 1, length-delimited: tag 0x0a). */
typedef struct counting_sink {
  trak__field_sink sink;
  void *user;
  uint64_t packets;
} counting_sink;

static void count_field(void *user, const uint8_t *field, size_t len) {
  counting_sink *cs = user;
  cs->packets += field[0] == 0x0a;
  cs->sink(cs->user, field, len);
}

int trak_cli_read_packets(const char *cmd, const char *path, trak__field_sink sink, void *user,
                          trak_trace_format *format) {
  open_ctx c = {.cmd = cmd, .path = path, .tty = isatty(2), .start = now_seconds()};
  trak_processor_options opts = {diag, progress, &c, trak_cli_processor_flags()};
  trak_error err = {0};
  counting_sink cs = {sink, user, 0};
  uint64_t bytes;
  int rc = trak__read_packets(path, &opts, count_field, &cs, format, &bytes, &err);
  if (rc) {
    print_warnings(&c);
    return trak_cli_fail(cmd, &err);
  }
  if (trak__format_imported(*format) || cs.packets) {
    print_warnings(&c);
    return 0;
  }
  /* No packet: the same rule as trak_cli_open_trace and trak_cli_check_trace_bytes. */
  if (c.malformed && c.first_packet == 0)
    return trak_cli_failf(cmd, "%s: not a trace (%s); %s", path, c.first, EXPECTED);
  print_warnings(&c);
  if (bytes)
    return trak_cli_failf(cmd, "%s: not a trace: no TracePacket in its %llu bytes; %s", path,
                          (unsigned long long)bytes, EXPECTED);
  warn_empty(cmd, path);
  return 0;
}

int trak_cli_check_trace_bytes(const char *cmd, const char *path, const uint8_t *bin, size_t len) {
  if (!len) {
    warn_empty(cmd, path);
    return 0;
  }
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, bin, len);
  int rc;
  while ((rc = trak_pb_decoder_next(&d, &f)) > 0)
    if (f.number == TRAK_PB_Trace_packet) return 0;
  if (rc < 0) return 0; /* malformed: the caller's decoder reports the byte */
  return trak_cli_failf(cmd, "%s: not a trace: no TracePacket in its %zu bytes; %s", path, len,
                        EXPECTED);
}
