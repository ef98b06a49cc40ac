/*
** `trak convert` input of tabular events (CSV or JSON Lines, see docs/writer.md): recognises
** such input by its name (.csv .jsonl .ndjson, optionally .gz) or its first line, and streams
** it through the synthetic trace writer: rows are read (gzip undone on the fly), converted and
** written as the trace's packets go out, so memory stays flat however many rows there are.
** Bad rows are printed on stderr.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cli/cli.h"
#include "processor/import/json/json.h"
#include "processor/read/trace_file.h"
#include "trak/pb.h"
#include "trak/pbtxt.h"

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

trak_events_format trak_cli_events_format(const char *path) {
  trak_events_format format = format_from_name(path);
  return format ? format : format_from_content(path);
}

/* Input: zlib reads gzip and plain files alike. */
typedef struct input {
  gzFile gz;
  const char *path;
} input;

static int64_t input_read(void *user, void *buf, size_t cap, trak_error *err) {
  input *in = user;
  int n = gzread(in->gz, buf, cap > (1u << 30) ? 1u << 30 : (unsigned)cap);
  if (n >= 0) return n;
  int zerr;
  const char *why = gzerror(in->gz, &zerr);
  return trak_error_set(err, zerr == Z_ERRNO ? TRAK_EIO : TRAK_EFORMAT, "reading %s: %s", in->path,
                        zerr == Z_ERRNO ? strerror(errno) : why);
}

static void print_bad_row(void *user, const char *message) {
  fprintf(stderr, "trak convert: %s\n", message);
}

/* Converts the events at `path` into `w` and closes `w` (whatever happens). Returns 0 or the
** first error, in `err`. */
static int convert_into(trak_writer *w, const char *path, trak_events_format format,
                        const trak_cli_events_opts *o, trak_error *err) {
  int rc = o->seeded ? trak_writer_set_seed(w, o->seed) : 0;
  input in = {.path = path};
  if (!rc) {
    int fd = strcmp(path, "-") ? -2 : dup(0);
    in.gz = fd == -2 ? gzopen(path, "rb") : fd >= 0 ? gzdopen(fd, "rb") : NULL;
    if (!in.gz) rc = trak_error_set(err, TRAK_EIO, "%s: %s", path, strerror(errno));
  }
  trak_events_options opts = {
      .format = format, .keep_going = o->keep_going, .diag = print_bad_row, .source_name = path};
  trak_events_result result = {0};
  if (!rc) {
    gzbuffer(in.gz, 256u << 10);
    rc = trak_events_convert_stream(w, input_read, &in, &opts, &result, err);
  }
  if (in.gz) gzclose(in.gz);
  trak_error close_err = {0};
  int crc = trak_writer_close(w, NULL, &close_err);
  if (!rc && crc) {
    rc = crc;
    *err = close_err;
  }
  if (!rc && result.bad_rows)
    fprintf(stderr, "trak convert: %s: skipped %llu bad row(s) of %llu\n", path,
            (unsigned long long)result.bad_rows, (unsigned long long)result.rows);
  return rc;
}

/* Where the trace goes: a FILE, as binary or as text format. The writer hands over whole
** packets only, so each piece prints on its own as a Trace and the texts concatenate. */
typedef struct output {
  FILE *f;
  int text;
  trak_pb_buf printed; /* text of the current piece */
  trak_error err;      /* why the sink failed */
} output;

static int output_sink(void *user, const void *data, size_t len) {
  output *out = user;
  if (out->text) {
    out->printed.p = out->printed.start;
    int rc = trak_pbtxt_print("Trace", data, len, &out->printed, &out->err);
    if (rc) return rc;
    data = out->printed.start;
    len = trak_pb_buf_len(&out->printed);
  }
  if (len && fwrite(data, 1, len, out->f) != len) {
    trak_error_set(&out->err, TRAK_EIO, "write failed: %s", strerror(errno));
    return TRAK_EIO;
  }
  return 0;
}

/* Creates a temporary file next to `path` (so rename() replaces `path` atomically), with the
** permissions a new file would get. Returns the FILE, or NULL with `err` set. */
static FILE *create_temp(const char *path, char *tmp, size_t tmp_size, trak_error *err) {
  if ((size_t)snprintf(tmp, tmp_size, "%s.tmp-XXXXXX", path) >= tmp_size) {
    trak_error_set(err, TRAK_EIO, "%s: path too long", path);
    return NULL;
  }
  int fd = mkstemp(tmp);
  mode_t mask = umask(0);
  umask(mask);
  FILE *f = fd >= 0 && !fchmod(fd, 0666 & ~mask) ? fdopen(fd, "wb") : NULL;
  if (!f) {
    trak_error_set(err, TRAK_EIO, "%s: %s", path, strerror(errno));
    if (fd >= 0) {
      close(fd);
      unlink(tmp);
    }
  }
  return f;
}

/* Opens OUT as it exists when it is not a regular file (a device, a FIFO): no temporary file
** can stand in for it. Returns the FILE, or NULL with *direct 0 for a regular or new file. */
static FILE *open_special(const char *path, int *direct, trak_error *err) {
  struct stat st;
  *direct = !strcmp(path, "-") || (!stat(path, &st) && !S_ISREG(st.st_mode));
  if (!*direct) return NULL;
  FILE *f = strcmp(path, "-") ? fopen(path, "wb") : stdout;
  if (!f) trak_error_set(err, TRAK_EIO, "%s: %s", path, strerror(errno));
  return f;
}

int trak_cli_convert_events(const char *path, trak_events_format format, const char *out_path,
                            trak_trace_format out_format, const trak_cli_events_opts *o,
                            trak_error *err) {
  int direct;
  char tmp[4096];
  output out = {.text = out_format == TRAK_FORMAT_PBTXT};
  out.f = open_special(out_path, &direct, err);
  if (!direct) out.f = create_temp(out_path, tmp, sizeof tmp, err);
  if (!out.f) return err->code;
  trak_pb_buf_init_heap(&out.printed);
  trak_writer *w;
  int rc = trak_writer_open_callback(&w, output_sink, &out, err);
  if (!rc) rc = convert_into(w, path, format, o, err);
  if (rc && out.err.code) { /* the sink's own words are better than "EIO" */
    *err = out.err;
    trak_error_prefix(err, "%s", out_path);
  }
  trak_pb_buf_free(&out.printed);
  int close_rc = out.f == stdout ? fflush(stdout) : fclose(out.f);
  if (!rc && close_rc)
    rc = trak_error_set(err, TRAK_EIO, "%s: write failed: %s", out_path, strerror(errno));
  if (!direct && !rc && rename(tmp, out_path))
    rc = trak_error_set(err, TRAK_EIO, "%s: %s", out_path, strerror(errno));
  /* A failed conversion leaves no output file behind (and an earlier one untouched). */
  if (!direct && rc) unlink(tmp);
  return rc;
}

static int buffer_sink(void *user, const void *data, size_t len) {
  trak_pb_put_raw((trak_pb_buf *)user, data, len);
  return ((trak_pb_buf *)user)->error;
}

int trak_cli_load_events(const char *path, trak_events_format format, const trak_cli_events_opts *o,
                         uint8_t **bin, size_t *len, trak_error *err) {
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_writer *w;
  int rc = trak_writer_open_callback(&w, buffer_sink, &out, err);
  if (!rc) rc = convert_into(w, path, format, o, err);
  if (rc) {
    trak_pb_buf_free(&out);
    return rc;
  }
  *bin = trak_pb_buf_detach(&out, len);
  return 0;
}
