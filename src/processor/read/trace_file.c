/*
** Recognising a trace's format from its content or its file name.
*/
#define _GNU_SOURCE /* memmem */
#include <string.h>

#include "processor/read/trace_file.h"
#include "processor/util/systrace_line.h"
#include "processor/util/systrace_text.h"

/* Perfetto's systrace sniff, except for JSON (which Perfetto tries first) and with its "starts
** with a space" case kept only when the first non-blank line is a systrace event line. */
static int is_systrace(const uint8_t *data, size_t len) {
  const char *s = (const char *)data;
  size_t i = 0;
  while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
    i++;
  if (i < len && (s[i] == '{' || s[i] == '[')) return 0;
  if (!trak__systrace_text_sniff(s, len)) return 0;
  if (s[0] != ' ') return 1; /* the sniff matched by another rule */
  size_t look = len < TRAK_SYSTRACE_LOOKAHEAD ? len : TRAK_SYSTRACE_LOOKAHEAD;
  if (memmem(s, look, "# tracer", 8) || memmem(s, look, "TRACE:\n", 7)) return 1;
  const char *nl = memchr(s + i, '\n', len - i);
  trak_systrace_line line;
  return trak__systrace_line_parse(s + i, nl ? (size_t)(nl - (s + i)) : len - i, &line) == 0;
}

trak_trace_format trak__detect_format(const uint8_t *data, size_t len) {
  /* A UTF-8 byte order mark, which some tools put before a JSON trace. */
  if (len >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf) {
    size_t i = 3;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
      i++;
    if (i < len && (data[i] == '{' || data[i] == '[')) return TRAK_FORMAT_JSON;
  }
  if (is_systrace(data, len)) return TRAK_FORMAT_SYSTRACE;
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
  } known[] = {{".pbtxt", TRAK_FORMAT_PBTXT},   {".textproto", TRAK_FORMAT_PBTXT},
               {".txt", TRAK_FORMAT_PBTXT},     {".pb", TRAK_FORMAT_PROTO},
               {".pftrace", TRAK_FORMAT_PROTO}, {".perfetto-trace", TRAK_FORMAT_PROTO},
               {".trace", TRAK_FORMAT_PROTO},   {".json", TRAK_FORMAT_JSON}};
  for (size_t i = 0; i < sizeof known / sizeof *known; i++)
    if (ends_with(path, known[i].suffix)) return known[i].format;
  return TRAK_FORMAT_UNKNOWN;
}

const char *trak__format_name(trak_trace_format format) {
  switch (format) {
  case TRAK_FORMAT_PROTO:
    return "pb";
  case TRAK_FORMAT_PBTXT:
    return "pbtxt";
  case TRAK_FORMAT_JSON:
    return "json";
  case TRAK_FORMAT_SYSTRACE:
    return "systrace";
  default:
    return "unknown";
  }
}
