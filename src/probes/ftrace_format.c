/*
** This file reads tracefs' layout descriptions: events/header_page (where a ring buffer page
** keeps its timestamp, length and records) and each event's `format` file (its id and the
** offset, size and kind of every field).
*/
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/ftrace.h"

/* The next line of [*p, end) into [*line, *line + *n); returns 0 at the end. */
static int next_line(const char **p, const char *end, const char **line, size_t *n) {
  if (*p >= end) return 0;
  const char *nl = memchr(*p, '\n', (size_t)(end - *p));
  *line = *p;
  *n = (size_t)((nl ? nl : end) - *p);
  *p = nl ? nl + 1 : end;
  return 1;
}

/* The unsigned number after `key` in [line, line + n), or -1 when absent. */
static long key_number(const char *line, size_t n, const char *key) {
  size_t kl = strlen(key);
  for (size_t i = 0; i + kl <= n; i++)
    if (!memcmp(line + i, key, kl)) {
      long v = 0;
      size_t j = i + kl;
      if (j >= n || line[j] < '0' || line[j] > '9') return -1;
      for (; j < n && line[j] >= '0' && line[j] <= '9' && v < 1000000; j++)
        v = v * 10 + (line[j] - '0');
      return v;
    }
  return -1;
}

/* Parses "field:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:G;" into `fd`; `decl` receives
** the declaration's text. Returns 0 or -1. */
static int field_line(const char *line, size_t n, trak__ftrace_field *fd, char *decl,
                      size_t decl_size) {
  const char *f = memchr(line, 'f', n);
  if (!f || (size_t)(line + n - f) < 6 || memcmp(f, "field:", 6)) return -1;
  const char *d = f + 6, *semi = memchr(d, ';', (size_t)(line + n - d));
  if (!semi || (size_t)(semi - d) >= decl_size) return -1;
  memcpy(decl, d, (size_t)(semi - d));
  decl[semi - d] = 0;
  long off = key_number(line, n, "offset:"), size = key_number(line, n, "size:");
  long sg = key_number(line, n, "signed:");
  if (off < 0 || size < 0 || off > 65535 || size > 65535) return -1;
  memset(fd, 0, sizeof *fd);
  fd->offset = (uint16_t)off;
  fd->size = (uint16_t)size;
  fd->is_signed = sg == 1;
  /* The name: the last identifier before an optional [N]. */
  char *br = strchr(decl, '[');
  char *e = br ? br : decl + strlen(decl);
  while (e > decl && e[-1] == ' ')
    e--;
  char *s = e;
  while (s > decl && (s[-1] == '_' || (s[-1] >= 'a' && s[-1] <= 'z') ||
                      (s[-1] >= 'A' && s[-1] <= 'Z') || (s[-1] >= '0' && s[-1] <= '9')))
    s--;
  if (s == e || (size_t)(e - s) >= sizeof fd->name) return -1;
  memcpy(fd->name, s, (size_t)(e - s));
  fd->name[e - s] = 0;
  int is_char = strstr(decl, "char") != NULL;
  if (!strncmp(decl, "__data_loc", 10)) {
    fd->kind = is_char && size == 4 ? TRAK__FT_DATALOC : TRAK__FT_OTHER;
  } else if (br) {
    long count = strtol(br + 1, NULL, 10);
    if (is_char)
      fd->kind = size == 0 ? TRAK__FT_TAILSTR : TRAK__FT_CSTR;
    else if (count > 0 && size % count == 0 &&
             (size / count == 1 || size / count == 2 || size / count == 4 || size / count == 8)) {
      fd->kind = TRAK__FT_INTARRAY;
      fd->elem = (uint8_t)(size / count);
    } else {
      fd->kind = TRAK__FT_OTHER;
    }
  } else {
    fd->kind = size == 1 || size == 2 || size == 4 || size == 8 ? TRAK__FT_INT : TRAK__FT_OTHER;
  }
  return 0;
}

static void copy_word(char *dst, size_t size, const char *src, size_t n) {
  while (n && (src[n - 1] == ' ' || src[n - 1] == '\t' || src[n - 1] == '\r'))
    n--;
  while (n && (*src == ' ' || *src == '\t')) {
    src++;
    n--;
  }
  if (n >= size) n = size - 1;
  memcpy(dst, src, n);
  dst[n] = 0;
}

int trak__ftrace_format_parse(const char *text, size_t len, trak__ftrace_format *f,
                              trak_error *err) {
  memset(f, 0, sizeof *f);
  const char *p = text, *end = text + len, *line;
  size_t n;
  int have_id = 0, lineno = 0;
  while (next_line(&p, end, &line, &n)) {
    lineno++;
    if (n >= 5 && !memcmp(line, "name:", 5)) {
      copy_word(f->name, sizeof f->name, line + 5, n - 5);
    } else if (n >= 3 && !memcmp(line, "ID:", 3)) {
      long id = key_number(line, n, "ID: ");
      if (id < 0) id = key_number(line, n, "ID:");
      if (id < 0 || id > 65535)
        return trak_error_set(err, TRAK_EFORMAT, "format line %d: bad ID", lineno);
      f->id = (uint32_t)id;
      have_id = 1;
    } else if (n > 7 && memmem(line, n, "field:", 6)) {
      trak__ftrace_field fd;
      char decl[128];
      if (field_line(line, n, &fd, decl, sizeof decl))
        return trak_error_set(err, TRAK_EFORMAT, "format line %d: field does not parse", lineno);
      if (!strncmp(fd.name, "common_", 7)) {
        if (!strcmp(fd.name, "common_pid") && fd.size == 4) f->pid_offset = fd.offset;
        if (!strcmp(fd.name, "common_flags") && fd.size == 1) f->flags_offset = fd.offset;
        continue;
      }
      if (f->nfields < TRAK__FTRACE_MAX_FIELDS) f->fields[f->nfields++] = fd;
    } else if (n >= 12 && !memcmp(line, "print fmt:", 10)) {
      break;
    }
  }
  if (!f->name[0] || !have_id)
    return trak_error_set(err, TRAK_EFORMAT, "format: no %s line", f->name[0] ? "ID" : "name");
  return 0;
}

void trak__ftrace_page_layout_default(trak__ftrace_page_layout *l) {
  l->ts_offset = 0;
  l->commit_offset = 8;
  l->commit_size = 8;
  l->data_offset = 16;
  l->page_size = 4096;
}

int trak__ftrace_header_parse(const char *text, size_t len, trak__ftrace_page_layout *l,
                              trak_error *err) {
  const char *p = text, *end = text + len, *line;
  size_t n;
  int seen = 0;
  memset(l, 0, sizeof *l);
  while (next_line(&p, end, &line, &n)) {
    trak__ftrace_field fd;
    char decl[128];
    if (field_line(line, n, &fd, decl, sizeof decl)) continue;
    if (!strcmp(fd.name, "timestamp") && fd.size == 8) {
      l->ts_offset = fd.offset;
      seen |= 1;
    } else if (!strcmp(fd.name, "commit") && (fd.size == 4 || fd.size == 8)) {
      l->commit_offset = fd.offset;
      l->commit_size = fd.size;
      seen |= 2;
    } else if (!strcmp(fd.name, "data")) {
      l->data_offset = fd.offset;
      l->page_size = (uint32_t)fd.offset + fd.size;
      seen |= 4;
    }
  }
  if (seen != 7 || l->page_size < 64 || l->data_offset >= l->page_size ||
      l->ts_offset + 8u > l->data_offset ||
      l->commit_offset + (unsigned)l->commit_size > l->data_offset)
    return trak_error_set(err, TRAK_EFORMAT, "events/header_page: %s",
                          seen != 7 ? "timestamp, commit or data field missing"
                                    : "fields out of order");
  return 0;
}
