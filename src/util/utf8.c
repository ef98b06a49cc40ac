/*
** This file holds UTF-8 validation and repair (see utf8.h): the JSON importer repairs strings
** with invalid bytes to U+FFFD, counting them, so tables and protobuf output hold valid text;
** the text-format printer escapes what is not well-formed.
*/
#include <stdint.h>
#include <string.h>

#include "util/utf8.h"

/* The length of the valid sequence at s[0] (1-4), or 0 if it is not one; then *skip receives
** the length of the maximal invalid subsequence to replace by one U+FFFD. */
static size_t sequence(const unsigned char *s, size_t len, size_t *skip) {
  unsigned char c = s[0];
  size_t need;
  unsigned char lo = 0x80, hi = 0xbf; /* the valid range of the second byte */
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf)
    need = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    need = 3;
    if (c == 0xe0)
      lo = 0xa0; /* overlong */
    else if (c == 0xed)
      hi = 0x9f; /* surrogates */
  } else if (c >= 0xf0 && c <= 0xf4) {
    need = 4;
    if (c == 0xf0)
      lo = 0x90; /* overlong */
    else if (c == 0xf4)
      hi = 0x8f; /* past U+10FFFF */
  } else {
    *skip = 1;
    return 0;
  }
  size_t i = 1;
  for (; i < need && i < len; i++) {
    unsigned char b = s[i];
    if (i == 1 ? b < lo || b > hi : b < 0x80 || b > 0xbf) break;
  }
  if (i == need) return need;
  *skip = i;
  return 0;
}

size_t trak__utf8_sequence_len(const char *s, size_t len) {
  size_t skip;
  return sequence((const unsigned char *)s, len, &skip);
}

size_t trak__utf8_valid_prefix(const char *s, size_t len) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0, skip;
  while (i < len) {
    uint64_t w; /* ASCII eight bytes at a time: most text is */
    if (i + 8 <= len && (memcpy(&w, u + i, 8), !(w & 0x8080808080808080ULL))) {
      i += 8;
      continue;
    }
    if (u[i] < 0x80) {
      i++;
      continue;
    }
    size_t n = sequence(u + i, len - i, &skip);
    if (!n) return i;
    i += n;
  }
  return len;
}

size_t trak__utf8_repair(const char *s, size_t len, char *out, size_t *bad) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0, o = 0, skip;
  *bad = 0;
  while (i < len) {
    size_t n = sequence(u + i, len - i, &skip);
    if (n) {
      memcpy(out + o, s + i, n);
      o += n, i += n;
    } else {
      memcpy(out + o, "\xef\xbf\xbd", 3);
      o += 3, i += skip;
      ++*bad;
    }
  }
  return o;
}
