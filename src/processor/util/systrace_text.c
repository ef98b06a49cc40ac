/*
** This file holds the systrace file layout rules of systrace_text.h: the sniff, the banner and
** header lines dropped at the start, and the per-line section machine of HTML traces.
*/
#define _GNU_SOURCE /* memmem */
#include <string.h>

#include "processor/util/systrace_text.h"

/* Whether [s, s + len) holds `needle`; an empty input (s may then be NULL) holds nothing. */
static int contains(const char *s, size_t len, const char *needle) {
  return len && memmem(s, len, needle, strlen(needle)) != NULL;
}
static int starts_with(const char *s, size_t len, const char *prefix) {
  size_t n = strlen(prefix);
  return len >= n && memcmp(s, prefix, n) == 0;
}
static int starts_with_nocase(const char *s, size_t len, const char *prefix) {
  size_t n = strlen(prefix);
  if (len < n) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != prefix[i]) return 0;
  }
  return 1;
}

int trak__systrace_text_sniff(const char *s, size_t len) {
  if (len > TRAK_SYSTRACE_LOOKAHEAD) len = TRAK_SYSTRACE_LOOKAHEAD;
  return contains(s, len, "# tracer") || starts_with_nocase(s, len, "<!doctype html>") ||
         starts_with_nocase(s, len, "<html>") || contains(s, len, "TRACE:\n") ||
         starts_with(s, len, "cpus=") || starts_with(s, len, " ");
}

size_t trak__systrace_text_start(const char *s, size_t len, trak_systrace_section *section) {
  static const char banner[] = "TRACE:\n";
  size_t skip = 0;
  size_t look = len < TRAK_SYSTRACE_LOOKAHEAD ? len : TRAK_SYSTRACE_LOOKAHEAD;
  for (size_t i = 0; i + sizeof banner - 1 <= look; i++)
    if (memcmp(s + i, banner, sizeof banner - 1) == 0) {
      skip = i + sizeof banner - 1;
      break;
    }
  const char *nl = memchr(s + skip, '\n', len - skip);
  if (nl && starts_with(s + skip, (size_t)(nl - s) - skip, "cpus=")) {
    size_t i = skip + 5;
    while (i < (size_t)(nl - s) && s[i] >= '0' && s[i] <= '9')
      i++;
    if (i == (size_t)(nl - s)) skip = i + 1;
  }
  *section = skip < len && s[skip] == '<' ? TRAK_SYSTRACE_HTML : TRAK_SYSTRACE_EVENTS;
  return skip;
}

/* The number of space-separated fields of a line (runs of ' ' separate). */
static size_t count_fields(const char *s, size_t len, const char *first[4]) {
  size_t n = 0;
  for (size_t i = 0; i < len;) {
    while (i < len && s[i] == ' ')
      i++;
    if (i == len) break;
    if (n < 4) first[n] = s + i;
    n++;
    while (i < len && s[i] != ' ')
      i++;
  }
  return n;
}

static int field_is(const char *f, const char *end, const char *word) {
  size_t n = strlen(word);
  return (size_t)(end - f) >= n && memcmp(f, word, n) == 0 && (f + n == end || f[n] == ' ');
}

trak_systrace_line_kind trak__systrace_text_line(trak_systrace_section *section, const char *line,
                                                 size_t len) {
  const char *end = line + len;
  const char *f[4] = {0};
  size_t nf;
  switch (*section) {
  case TRAK_SYSTRACE_HTML:
    if (contains(line, len, "<script class=\"trace-data\" type=\"application/text\">"))
      *section = TRAK_SYSTRACE_DATA;
    return TRAK_SYSTRACE_SKIP;
  case TRAK_SYSTRACE_DATA:
    if (starts_with(line, len, "#") && contains(line, len, "TASK-PID"))
      *section = TRAK_SYSTRACE_EVENTS;
    else if (starts_with(line, len, "PROCESS DUMP"))
      *section = TRAK_SYSTRACE_PS_LONG;
    else if (starts_with(line, len, "CGROUP DUMP"))
      *section = TRAK_SYSTRACE_CGROUP;
    else if (contains(line, len, "</script>"))
      *section = TRAK_SYSTRACE_HTML;
    return TRAK_SYSTRACE_SKIP;
  case TRAK_SYSTRACE_EVENTS:
    if (contains(line, len, "</script>")) {
      *section = TRAK_SYSTRACE_DONE;
      return TRAK_SYSTRACE_SKIP;
    }
    return len == 0 || line[0] == '#' ? TRAK_SYSTRACE_SKIP : TRAK_SYSTRACE_EVENT;
  case TRAK_SYSTRACE_PS_LONG:
  case TRAK_SYSTRACE_PS_SHORT:
    if (contains(line, len, "</script>")) {
      *section = TRAK_SYSTRACE_HTML;
      return TRAK_SYSTRACE_SKIP;
    }
    nf = count_fields(line, len, f);
    if (nf == 4 && field_is(f[0], end, "USER") && field_is(f[1], end, "PID") &&
        field_is(f[2], end, "TID") && field_is(f[3], end, "CMD")) {
      *section = TRAK_SYSTRACE_PS_SHORT;
      return TRAK_SYSTRACE_SKIP;
    }
    if (nf > 4 && field_is(f[0], end, "USER") && field_is(f[1], end, "PID") &&
        field_is(f[2], end, "PPID") && field_is(f[3], end, "VSZ")) {
      *section = TRAK_SYSTRACE_PS_LONG;
      return TRAK_SYSTRACE_SKIP;
    }
    if (*section == TRAK_SYSTRACE_PS_LONG && nf >= 10) return TRAK_SYSTRACE_PS_ROW_LONG;
    if (*section == TRAK_SYSTRACE_PS_SHORT && nf >= 4) return TRAK_SYSTRACE_PS_ROW_SHORT;
    return TRAK_SYSTRACE_SKIP;
  case TRAK_SYSTRACE_CGROUP:
    if (contains(line, len, "</script>")) *section = TRAK_SYSTRACE_HTML;
    return TRAK_SYSTRACE_SKIP;
  case TRAK_SYSTRACE_DONE:
  default:
    return TRAK_SYSTRACE_SKIP;
  }
}
