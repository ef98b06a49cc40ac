/*
** `trak convert` input of tabular events (CSV or JSON Lines, see docs/writer.md): recognises
** such input by its name (.csv .jsonl .ndjson, optionally .gz) or its first line, converts it
** with the synthetic trace writer into binary trace bytes, and prints bad rows on stderr.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "processor/json.h"
#include "processor/trace_file.h"
#include "trak/pb.h"
#include "trak/writer.h"

/* The events format of `path` from its name, looking through a .gz suffix. */
static trak_events_format format_from_name(const char *path) {
  size_t n = strlen(path);
  if (n > 3 && !strcmp(path + n - 3, ".gz")) {
    char base[4096];
    if (n - 3 >= sizeof base) return TRAK_EVENTS_AUTO;
    memcpy(base, path, n - 3);
    base[n - 3] = 0;
    return trak_events_format_from_name(base);
  }
  return trak_events_format_from_name(path);
}

/* The events format from the first bytes of a plain (not gzip) file, else AUTO. */
static trak_events_format format_from_content(const char *path) {
  char head[4096];
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : NULL;
  if (!f) return TRAK_EVENTS_AUTO;
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  if (trak__is_gzip((const uint8_t *)head, n)) return TRAK_EVENTS_AUTO;
  /* A JSON trace (an array, or an object with "traceEvents") is not a JSON Lines file. */
  if (trak__json_is_trace((const uint8_t *)head, n)) return TRAK_EVENTS_AUTO;
  return trak_events_detect(head, n);
}

static int sink(void *user, const void *data, size_t len) {
  trak_pb_put_raw((trak_pb_buf *)user, data, len);
  return ((trak_pb_buf *)user)->error;
}

static void print_bad_row(void *user, const char *message) {
  fprintf(stderr, "trak convert: %s\n", message);
}

int trak_cli_load_events(const char *path, int keep_going, uint8_t **bin, size_t *len,
                         trak_error *err) {
  trak_events_format format = format_from_name(path);
  if (!format) format = format_from_content(path);
  if (!format) return 0;
  uint8_t *text;
  size_t text_len;
  int rc = trak__read_trace_file(path, &text, &text_len, err);
  if (rc) return rc;
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_writer *w;
  rc = trak_writer_open_callback(&w, sink, &out, err);
  trak_events_options opts = {
      .format = format, .keep_going = keep_going, .diag = print_bad_row, .source_name = path};
  trak_events_result result = {0};
  if (!rc) {
    rc = trak_events_convert(w, (const char *)text, text_len, &opts, &result, err);
    trak_error close_err = {0};
    int crc = trak_writer_close(w, NULL, &close_err);
    if (!rc && crc) {
      rc = crc;
      *err = close_err;
    }
  }
  free(text);
  if (rc) {
    trak_pb_buf_free(&out);
    return rc;
  }
  if (result.bad_rows)
    fprintf(stderr, "trak convert: %s: skipped %llu bad row(s) of %llu\n", path,
            (unsigned long long)result.bad_rows, (unsigned long long)result.rows);
  *bin = trak_pb_buf_detach(&out, len);
  return 1;
}
