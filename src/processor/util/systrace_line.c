/*
** This file holds the systrace text line parser (see systrace_line.h): a hand-written matcher
** for the one pattern Perfetto's tokenizer applies to each line, leftmost match first, and the
** lookup of one key in the line's key=value arguments.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/util/systrace_line.h"

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
static int is_digit(char c) {
  return c >= '0' && c <= '9';
}
static int is_flag_head(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.';
}
static int is_flag_tail(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || c == '.';
}

static size_t skip_spaces(const char *s, size_t i, size_t len) {
  while (i < len && is_space(s[i]))
    i++;
  return i;
}
static size_t skip_digits(const char *s, size_t i, size_t len) {
  while (i < len && is_digit(s[i]))
    i++;
  return i;
}

/* strtoul's value of a run of decimal digits on an LP64 machine (saturating at 2^64 - 1), cast
** to uint32_t as Perfetto's StringToUInt32 casts it. */
static uint32_t digits_u32(const char *s, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned d = (unsigned)(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return (uint32_t)UINT64_MAX;
    v = v * 10 + d;
  }
  return (uint32_t)v;
}

/* Matches "DIGITS.DIGITS:" at s[i]; on success returns the index past the ':' and sets the
** ends of the number, else returns 0. */
static size_t match_seconds(const char *s, size_t i, size_t len, size_t *num_end) {
  size_t j = skip_digits(s, i, len);
  if (j == i || j >= len || s[j] != '.') return 0;
  size_t k = skip_digits(s, j + 1, len);
  if (k == j + 1 || k >= len || s[k] != ':') return 0;
  *num_end = k;
  return k + 1;
}

/* The nanoseconds of "DIGITS.DIGITS" as Perfetto computes them (strtod, times 1e9, truncated).
** Returns 0, or -1 when the value does not fit int64. The number is copied to a bounded buffer;
** fraction digits past its room are folded into one sticky '1' so the rounding stays exact. */
static int seconds_to_ns(const char *s, size_t n, int64_t *ns) {
  char buf[1100];
  size_t dot = 0;
  while (s[dot] != '.')
    dot++;
  if (dot > 40) return -1; /* at least 1e39 seconds */
  size_t keep = n < sizeof buf - 2 ? n : sizeof buf - 2;
  memcpy(buf, s, keep);
  if (keep < n) {
    for (size_t i = keep; i < n; i++)
      if (s[i] != '0') {
        buf[keep++] = '1';
        break;
      }
  }
  buf[keep] = '\0';
  double v = strtod(buf, NULL) * 1e9;
  if (!(v < 9223372036854775808.0)) return -1;
  *ns = (int64_t)v;
  return 0;
}

/* Tries the pattern with its '-' at s[at]; returns 1 and fills *out on a match, else 0. */
static int match_at(const char *s, size_t len, size_t at, trak_systrace_line *out,
                    size_t *match_end, size_t *sec_start, size_t *sec_end) {
  size_t i = at + 1;
  size_t pid_end = skip_digits(s, i, len);
  if (pid_end == i) return 0;
  size_t j = skip_spaces(s, pid_end, len);
  if (j == pid_end) return 0;
  if (j < len && s[j] == '(') j = skip_spaces(s, j + 1, len);
  size_t tgid_start = j;
  if (j < len && is_digit(s[j]))
    j = skip_digits(s, j, len);
  else
    while (j < len && s[j] == '-')
      j++;
  size_t tgid_end = j;
  if (j < len && s[j] == ')') j++;
  if (j < len && is_space(s[j])) j++;
  if (j >= len || s[j] != '[') return 0;
  size_t cpu_start = j + 1;
  size_t cpu_end = skip_digits(s, cpu_start, len);
  if (cpu_end == cpu_start || cpu_end >= len || s[cpu_end] != ']') return 0;
  j = skip_spaces(s, cpu_end + 1, len);

  /* Optional irq flags, then the seconds: the flags group is tried with two tail characters,
  ** then one, then left out, as a backtracking regex engine tries it. */
  size_t after = 0, num_start = 0, num_end = 0;
  if (j + 3 < len && is_flag_head(s[j]) && is_flag_head(s[j + 1]) && is_flag_head(s[j + 2]) &&
      is_flag_tail(s[j + 3])) {
    for (size_t tail = 2; tail >= 1 && !after; tail--) {
      if (tail == 2 && !(j + 4 < len && is_flag_tail(s[j + 4]))) continue;
      num_start = skip_spaces(s, j + 3 + tail, len);
      after = match_seconds(s, num_start, len, &num_end);
    }
  }
  if (!after) {
    num_start = j;
    after = match_seconds(s, num_start, len, &num_end);
  }
  if (!after) return 0;

  /* White space, then the event name: the longest prefix of the next non-space run that a ':'
  ** follows. */
  size_t name_start = skip_spaces(s, after, len);
  if (name_start == after) return 0;
  size_t run_end = name_start;
  while (run_end < len && !is_space(s[run_end]))
    run_end++;
  size_t colon = run_end;
  while (colon > name_start + 1 && s[colon - 1] != ':')
    colon--;
  if (colon <= name_start + 1) return 0;
  colon--; /* s[colon] is the ':' */

  out->pid = digits_u32(s + at + 1, pid_end - at - 1);
  out->tgid.s = s + tgid_start;
  out->tgid.len = tgid_end - tgid_start;
  out->cpu = digits_u32(s + cpu_start, cpu_end - cpu_start);
  out->event.s = s + name_start;
  out->event.len = colon - name_start;
  *match_end = colon + 1;
  *sec_start = num_start;
  *sec_end = num_end;
  return 1;
}

static trak_strv trimmed(const char *s, size_t start, size_t end) {
  while (start < end && is_space(s[start]))
    start++;
  while (end > start && is_space(s[end - 1]))
    end--;
  trak_strv v = {s + start, end - start};
  return v;
}

int trak__systrace_line_parse(const char *line, size_t len, trak_systrace_line *out) {
  size_t match_end, sec_start, sec_end;
  for (size_t at = 0; at < len; at++) {
    if (line[at] != '-' || !match_at(line, len, at, out, &match_end, &sec_start, &sec_end))
      continue;
    out->task = trimmed(line, 0, at);
    out->args = trimmed(line, match_end, len);
    if (seconds_to_ns(line + sec_start, sec_end - sec_start, &out->ts))
      return TRAK_SYSTRACE_LINE_BAD_TS;
    return 0;
  }
  return TRAK_SYSTRACE_LINE_NO_MATCH;
}

const char *trak__systrace_line_error(int code) {
  switch (code) {
  case TRAK_SYSTRACE_LINE_NO_MATCH:
    return "not a systrace event line (expected TASK-PID [CPU] SECONDS: EVENT:)";
  case TRAK_SYSTRACE_LINE_BAD_TS:
    return "timestamp out of range";
  default:
    return "no error";
  }
}

/* The next space-separated piece of args from *pos, or an empty piece at the end. */
static trak_strv next_piece(trak_strv args, size_t *pos) {
  size_t i = *pos;
  while (i < args.len && args.s[i] == ' ')
    i++;
  size_t start = i;
  while (i < args.len && args.s[i] != ' ')
    i++;
  *pos = i;
  trak_strv p = {args.s + start, i - start};
  return p;
}

int trak__systrace_args_find(trak_strv args, const char *key, trak_strv *value) {
  size_t key_len = strlen(key);
  size_t pos = 0;
  for (;;) {
    trak_strv piece = next_piece(args, &pos);
    if (!piece.len) return 0;
    const char *eq = memchr(piece.s, '=', piece.len);
    trak_strv k, v = {piece.s + piece.len, 0};
    if (!eq) {
      k.s = "name";
      k.len = 4;
      v = piece;
    } else {
      /* The '='-separated parts without the empty ones: the first is the key, the last the
      ** value. */
      size_t i = 0, nparts = 0;
      k.s = piece.s;
      k.len = 0;
      while (i < piece.len) {
        while (i < piece.len && piece.s[i] == '=')
          i++;
        if (i == piece.len) break;
        size_t start = i;
        while (i < piece.len && piece.s[i] != '=')
          i++;
        if (nparts++ == 0) {
          k.s = piece.s + start;
          k.len = i - start;
        } else {
          v.s = piece.s + start;
          v.len = i - start;
        }
      }
    }
    if (k.len == key_len && memcmp(k.s, key, key_len) == 0) {
      *value = v;
      return 1;
    }
  }
}
