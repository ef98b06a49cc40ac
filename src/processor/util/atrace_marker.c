/*
** This file holds the atrace marker parser (see atrace_marker.h): the '|'-separated fields of a
** trace_marker text, and the number readings Perfetto gets from strtoul and strtoll, redone over
** a bounded piece of text so no copy is needed.
*/
#include <string.h>

#include "processor/util/atrace_marker.h"

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Reads a whole field as strtoul / strtoll read a NUL-terminated string and Perfetto then
** checks it (not empty, nothing left over): leading white space, an optional sign, decimal
** digits. Returns 0 and sets *neg and *mag (the magnitude, saturated at UINT64_MAX with
** *overflow set), or -1 when the field is not such a number. */
static int read_decimal(trak_strv f, int *neg, uint64_t *mag, int *overflow) {
  size_t i = 0;
  while (i < f.len && is_space(f.s[i]))
    i++;
  *neg = 0;
  if (i < f.len && (f.s[i] == '+' || f.s[i] == '-')) *neg = f.s[i++] == '-';
  size_t start = i;
  uint64_t v = 0;
  *overflow = 0;
  for (; i < f.len && f.s[i] >= '0' && f.s[i] <= '9'; i++) {
    unsigned d = (unsigned)(f.s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) {
      *overflow = 1;
      v = UINT64_MAX;
    } else if (!*overflow) {
      v = v * 10 + d;
    }
  }
  if (i == start || i != f.len) return -1;
  *mag = v;
  return 0;
}

/* Perfetto's StringToUInt32: strtoul's value (negated modulo 2^64 for '-', UINT64_MAX on
** overflow) cast to 32 bits. */
static int field_u32(trak_strv f, uint32_t *out) {
  int neg, overflow;
  uint64_t mag;
  if (read_decimal(f, &neg, &mag, &overflow)) return -1;
  uint64_t v = overflow ? UINT64_MAX : neg ? (uint64_t)0 - mag : mag;
  *out = (uint32_t)v;
  return 0;
}

/* Perfetto's StringToInt64: strtoll's value, saturated at INT64_MIN / INT64_MAX. */
static int field_i64(trak_strv f, int64_t *out) {
  int neg, overflow;
  uint64_t mag;
  if (read_decimal(f, &neg, &mag, &overflow)) return -1;
  if (neg)
    *out = overflow || mag >= (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
  else
    *out = overflow || mag > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)mag;
  return 0;
}

/* The field from *off up to the next '|' or '\0' (or the end); *off moves past the separator,
** so reading past the end gives empty fields. */
static trak_strv next_field(const char *s, size_t len, size_t *off) {
  size_t start = *off < len ? *off : len;
  size_t i = start;
  while (i < len && s[i] != '|' && s[i] != '\0')
    i++;
  *off = (*off > i ? *off : i) + 1;
  trak_strv f = {s + start, i - start};
  return f;
}

int trak__atrace_marker_parse(const char *s, size_t len, trak_atrace_marker *out) {
  static const char empty_name[] = "[empty slice name]";
  static const char clock_sync[] = "trace_event_clock_sync:";
  memset(out, 0, sizeof *out);
  out->name.s = out->track.s = s;
  while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\0'))
    len--;
  size_t off = 0;
  trak_strv phase = next_field(s, len, &off);
  if (!phase.len) return TRAK_ATRACE_FAILURE;
  out->phase = phase.s[0];
  int has_tgid = field_u32(next_field(s, len, &off), &out->tgid) == 0;
  if (!has_tgid) out->tgid = 0;

  trak_strv f2, f3, f4;
  switch (out->phase) {
  case 'B':
    if (!has_tgid) return TRAK_ATRACE_FAILURE;
    if (off < len) {
      out->name.s = s + off;
      out->name.len = len - off;
    } else {
      out->name.s = empty_name;
      out->name.len = sizeof empty_name - 1;
    }
    return TRAK_ATRACE_OK;
  case 'E':
    return TRAK_ATRACE_OK;
  case 'S':
  case 'F':
  case 'C':
    f2 = next_field(s, len, &off);
    f3 = next_field(s, len, &off);
    if (!has_tgid || !f2.len || !f3.len || field_i64(f3, &out->value)) return TRAK_ATRACE_FAILURE;
    out->name = f2;
    return TRAK_ATRACE_OK;
  case 'I':
    f2 = next_field(s, len, &off);
    if (!has_tgid || !f2.len) return TRAK_ATRACE_FAILURE;
    out->name = f2;
    return TRAK_ATRACE_OK;
  case 'N':
    f2 = next_field(s, len, &off);
    f3 = next_field(s, len, &off);
    if (!has_tgid || !f2.len || !f3.len) return TRAK_ATRACE_FAILURE;
    out->track = f2;
    out->name = f3;
    return TRAK_ATRACE_OK;
  case 'G':
    f2 = next_field(s, len, &off);
    f3 = next_field(s, len, &off);
    f4 = next_field(s, len, &off);
    if (!has_tgid || !f2.len || !f3.len || field_i64(f4, &out->value)) return TRAK_ATRACE_FAILURE;
    out->track = f2;
    out->name = f3;
    return TRAK_ATRACE_OK;
  case 'H':
    f2 = next_field(s, len, &off);
    f3 = next_field(s, len, &off);
    f4 = next_field(s, len, &off);
    if (!has_tgid || !f2.len || field_i64(f4.len ? f4 : f3, &out->value))
      return TRAK_ATRACE_FAILURE;
    out->track = f2;
    return TRAK_ATRACE_OK;
  default:
    if (len >= sizeof clock_sync - 1 && memcmp(s, clock_sync, sizeof clock_sync - 1) == 0)
      return TRAK_ATRACE_UNSUPPORTED;
    return TRAK_ATRACE_FAILURE;
  }
}
