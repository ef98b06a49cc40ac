/*
** This file holds the number readers of systrace arguments: the text of a key=value piece read
** as Perfetto's string-to-number helpers read it (the C library's strto* over the whole text).
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/systrace/systrace_import.h"

/* Copies v into a NUL-terminated buffer: `small` when it fits, else a heap copy the caller
** frees (returned in *heap). Returns the C string. */
static const char *cstr(trak_strv v, char *small, size_t cap, char **heap) {
  *heap = NULL;
  if (v.len < cap) {
    memcpy(small, v.s, v.len);
    small[v.len] = 0;
    return small;
  }
  *heap = malloc(v.len + 1);
  if (!*heap) abort();
  memcpy(*heap, v.s, v.len);
  (*heap)[v.len] = 0;
  return *heap;
}

/* Which C library reader. */
enum { READ_UL, READ_L, READ_LL, READ_D };

/* Reads the whole of v with reader `how` into *i or *d. Returns 0, or -1 as the header says
** (text with a NUL inside counts as having bytes after the number). */
static int number_read(trak_strv v, int how, long long *i, double *d) {
  if (!v.len) return -1;
  char small[64], *heap, *end;
  const char *s = cstr(v, small, sizeof small, &heap);
  switch (how) {
  case READ_UL:
    *i = (long long)(unsigned long long)strtoul(s, &end, 10);
    break;
  case READ_L:
    *i = strtol(s, &end, 10);
    break;
  case READ_LL:
    *i = strtoll(s, &end, 10);
    break;
  default:
    *d = strtod(s, &end);
    break;
  }
  int ok = end == s + v.len;
  free(heap);
  return ok ? 0 : -1;
}

int trak__systrace_u32(trak_strv v, uint32_t *out) {
  long long i;
  if (number_read(v, READ_UL, &i, NULL)) return -1;
  *out = (uint32_t)(unsigned long long)i;
  return 0;
}

int trak__systrace_i32(trak_strv v, int32_t *out) {
  long long i;
  if (number_read(v, READ_L, &i, NULL)) return -1;
  *out = (int32_t)(uint32_t)(unsigned long long)i;
  return 0;
}

int trak__systrace_i64(trak_strv v, int64_t *out) {
  long long i;
  if (number_read(v, READ_LL, &i, NULL)) return -1;
  *out = (int64_t)i;
  return 0;
}

int trak__systrace_double(trak_strv v, double *out) {
  return number_read(v, READ_D, NULL, out);
}
