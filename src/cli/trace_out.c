/*
** This file holds the output side of `dump` and `convert` for protobuf traces: top-level
** fields streamed in by trak_cli_read_packets are written one at a time as binary or as text
** format, so memory holds one packet, never the trace.
*/
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "trak/pbtxt.h"

int trak_cli_trace_out_open(trak_cli_trace_out *o, const char *path, trak_trace_format format,
                            trak_error *err) {
  memset(o, 0, sizeof *o);
  o->path = path;
  o->format = format;
  o->f = strcmp(path, "-") ? fopen(path, "wb") : stdout;
  if (!o->f) return trak_error_set(err, TRAK_EIO, "%s: %s", path, strerror(errno));
  trak_pb_buf_init_heap(&o->text);
  return 0;
}

void trak_cli_trace_out_field(void *user, const uint8_t *field, size_t len) {
  trak_cli_trace_out *o = user;
  if (o->failed) return;
  const void *bytes = field;
  size_t n = len;
  if (o->format == TRAK_FORMAT_PBTXT) {
    o->text.p = o->text.start;
    if (trak_pbtxt_print("Trace", field, len, &o->text, &o->err)) {
      o->failed = 1;
      return;
    }
    bytes = o->text.start, n = trak_pb_buf_len(&o->text);
  }
  if (n && fwrite(bytes, 1, n, o->f) != n) {
    trak_error_set(&o->err, TRAK_EIO, "%s: write failed: %s", o->path, strerror(errno));
    o->failed = 1;
  }
}

int trak_cli_trace_out_close(trak_cli_trace_out *o, trak_error *err) {
  int is_stdout = o->f == stdout;
  if ((is_stdout ? fflush(o->f) : fclose(o->f)) && !o->failed) {
    trak_error_set(&o->err, TRAK_EIO, "%s: write failed: %s", o->path, strerror(errno));
    o->failed = 1;
  }
  trak_pb_buf_free(&o->text);
  if (!o->failed) return 0;
  if (!is_stdout) unlink(o->path); /* half a file after a write error helps nobody */
  *err = o->err;
  return err->code ? err->code : TRAK_EIO;
}
