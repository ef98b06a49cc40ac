/*
** Reading trace files whole, undoing gzip, and recognising the trace format from content.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/read/trace_file.h"
#include "processor/util/inflate.h"
#include "trak/pbtxt.h"

static int read_stream(FILE *f, const char *path, uint8_t **data, size_t *len, trak_error *err) {
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = malloc(cap);
  if (!buf) return trak_error_set(err, TRAK_ENOMEM, "%s: out of memory", path);
  for (;;) {
    if (n == cap) {
      uint8_t *bigger = realloc(buf, cap * 2);
      if (!bigger) {
        free(buf);
        return trak_error_set(err, TRAK_ENOMEM, "%s: out of memory", path);
      }
      buf = bigger;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  if (ferror(f)) {
    free(buf);
    return trak_error_set(err, TRAK_EIO, "%s: read failed: %s", path, strerror(errno));
  }
  *data = buf;
  *len = n;
  return 0;
}

int trak__read_trace_file(const char *path, uint8_t **data, size_t *len, trak_error *err) {
  int is_stdin = !strcmp(path, "-");
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  if (!f) return trak_error_set(err, TRAK_EIO, "%s: %s", path, strerror(errno));
  int rc = read_stream(f, path, data, len, err);
  if (!is_stdin) fclose(f);
  if (rc || !trak__is_gzip(*data, *len)) return rc;
  uint8_t *plain;
  size_t plain_len;
  rc = trak__gunzip(*data, *len, 0, &plain, &plain_len, err);
  free(*data);
  *data = NULL;
  if (rc) {
    trak_error_prefix(err, "%s (gzip)", path);
    return rc;
  }
  *data = plain;
  *len = plain_len;
  return 0;
}

trak_trace_format trak__detect_format(const uint8_t *data, size_t len) {
  /* A UTF-8 byte order mark, which some tools put before a JSON trace. */
  if (len >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf) {
    size_t i = 3;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
      i++;
    if (i < len && (data[i] == '{' || data[i] == '[')) return TRAK_FORMAT_JSON;
  }
  size_t probe = len < 4096 ? len : 4096;
  for (size_t i = 0; i < probe; i++) {
    uint8_t c = data[i];
    /* Text never holds control bytes other than tab, newline and carriage return. */
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return TRAK_FORMAT_PROTO;
  }
  size_t i = 0;
  while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
    i++;
  if (i == len) return len ? TRAK_FORMAT_PBTXT : TRAK_FORMAT_PROTO;
  if (data[i] == '{' || data[i] == '[') return TRAK_FORMAT_JSON;
  return TRAK_FORMAT_PBTXT;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

trak_trace_format trak__format_from_name(const char *path) {
  static const struct {
    const char *suffix;
    trak_trace_format format;
  } known[] = {{".pbtxt", TRAK_FORMAT_PBTXT}, {".textproto", TRAK_FORMAT_PBTXT},
               {".txt", TRAK_FORMAT_PBTXT},   {".pb", TRAK_FORMAT_PROTO},
               {".pftrace", TRAK_FORMAT_PROTO}, {".perfetto-trace", TRAK_FORMAT_PROTO},
               {".trace", TRAK_FORMAT_PROTO}, {".json", TRAK_FORMAT_JSON}};
  for (size_t i = 0; i < sizeof known / sizeof *known; i++)
    if (ends_with(path, known[i].suffix)) return known[i].format;
  return TRAK_FORMAT_UNKNOWN;
}

const char *trak__format_name(trak_trace_format format) {
  switch (format) {
  case TRAK_FORMAT_PROTO: return "pb";
  case TRAK_FORMAT_PBTXT: return "pbtxt";
  case TRAK_FORMAT_JSON: return "json";
  default: return "unknown";
  }
}

int trak__load_trace_binary(const char *path, uint8_t **data, size_t *len,
                            trak_trace_format *format, trak_error *err) {
  uint8_t *raw;
  size_t raw_len;
  int rc = trak__read_trace_file(path, &raw, &raw_len, err);
  if (rc) return rc;
  *format = trak__detect_format(raw, raw_len);
  if (*format == TRAK_FORMAT_PROTO) {
    *data = raw;
    *len = raw_len;
    return 0;
  }
  if (*format != TRAK_FORMAT_PBTXT) {
    free(raw);
    return trak_error_set(err, TRAK_EUNSUPPORTED, "%s: %s traces cannot be converted to protobuf",
                          path, trak__format_name(*format));
  }
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  rc = trak_pbtxt_parse("Trace", (const char *)raw, raw_len, &out, err);
  free(raw);
  if (rc) {
    trak_pb_buf_free(&out);
    trak_error_prefix(err, "%s", path);
    return rc;
  }
  *data = trak_pb_buf_detach(&out, len);
  return 0;
}
