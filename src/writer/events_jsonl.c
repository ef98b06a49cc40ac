/*
** This file holds the JSON Lines reader of the tabular event converter: each non-blank line is
** one JSON object whose members are the row's cells, typed as JSON types them (objects and
** arrays become nested arguments). A small recursive-descent JSON parser, limited in depth.
*/
#include <stdio.h>
#include <string.h>

#include "writer/events_internal.h"
#include "writer/writer_internal.h"

#define JSON_MAX_DEPTH 64

typedef struct jparser {
  const char *p, *end;
  trak__arena *a;
  const char *error; /* static reason once parsing failed */
} jparser;

static void ws(jparser *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r'))
    j->p++;
}

static int fail(jparser *j, const char *why) {
  if (!j->error) j->error = why;
  return -1;
}

static int hex4(const char *p, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= (unsigned)(c - 'A' + 10);
    else
      return -1;
  }
  *out = v;
  return 0;
}

static size_t put_utf8(char *o, unsigned cp) {
  if (cp < 0x80) return o[0] = (char)cp, 1;
  if (cp < 0x800) return o[0] = (char)(0xc0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3f)), 2;
  if (cp < 0x10000) {
    o[0] = (char)(0xe0 | cp >> 12);
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  o[0] = (char)(0xf0 | cp >> 18);
  o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
  o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
  o[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

/* Parses a string at j->p (on the opening quote) into the arena. */
static int parse_string(jparser *j, const char **out, size_t *out_len) {
  const char *q = ++j->p;
  while (q < j->end && *q != '"')
    q += (*q == '\\' && q + 1 < j->end) ? 2 : 1;
  if (q >= j->end) return fail(j, "unterminated string");
  char *buf = trak__wr_arena_alloc(j->a, (size_t)(q - j->p) + 1);
  if (!buf) return fail(j, "out of memory");
  size_t len = 0;
  while (j->p < q) {
    unsigned char c = (unsigned char)*j->p++;
    if (c < 0x20) return fail(j, "control character in string");
    if (c != '\\') {
      buf[len++] = (char)c;
      continue;
    }
    char e = *j->p++;
    switch (e) {
    case '"':
    case '\\':
    case '/':
      buf[len++] = e;
      break;
    case 'b':
      buf[len++] = '\b';
      break;
    case 'f':
      buf[len++] = '\f';
      break;
    case 'n':
      buf[len++] = '\n';
      break;
    case 'r':
      buf[len++] = '\r';
      break;
    case 't':
      buf[len++] = '\t';
      break;
    case 'u': {
      unsigned cp, lo;
      if (q - j->p < 4 || hex4(j->p, &cp)) return fail(j, "bad \\u escape");
      j->p += 4;
      if (cp >= 0xd800 && cp < 0xdc00 && q - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u' &&
          !hex4(j->p + 2, &lo) && lo >= 0xdc00 && lo < 0xe000) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        j->p += 6;
      }
      len += put_utf8(buf + len, cp); /* at most 4 bytes for the 6 or 12 read */
      break;
    }
    default:
      return fail(j, "bad escape in string");
    }
  }
  buf[len] = 0;
  j->p = q + 1;
  *out = buf;
  *out_len = len;
  return 0;
}

/* Checks the JSON number grammar at j->p and keeps its literal text. */
static int parse_number(jparser *j, trak__val *v) {
  const char *s = j->p, *p = s;
  if (p < j->end && *p == '-') p++;
  if (p >= j->end || *p < '0' || *p > '9') return fail(j, "bad number");
  if (*p == '0')
    p++;
  else
    while (p < j->end && *p >= '0' && *p <= '9')
      p++;
  if (p < j->end && *p == '.') {
    if (++p >= j->end || *p < '0' || *p > '9') return fail(j, "bad number");
    while (p < j->end && *p >= '0' && *p <= '9')
      p++;
  }
  if (p < j->end && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < j->end && (*p == '+' || *p == '-')) p++;
    if (p >= j->end || *p < '0' || *p > '9') return fail(j, "bad number");
    while (p < j->end && *p >= '0' && *p <= '9')
      p++;
  }
  char *lit = trak__wr_arena_alloc(j->a, (size_t)(p - s) + 1);
  if (!lit) return fail(j, "out of memory");
  memcpy(lit, s, (size_t)(p - s));
  lit[p - s] = 0;
  *v = (trak__val){.type = TRAK__V_NUMBER, .str = lit, .len = (size_t)(p - s)};
  j->p = p;
  return 0;
}

static int parse_value(jparser *j, trak__val *v, int depth);

/* Parses an object or array (j->p on its opening bracket) into v. */
static int parse_container(jparser *j, trak__val *v, int depth) {
  int object = *j->p == '{';
  char close = object ? '}' : ']';
  size_t cap = 0;
  *v = (trak__val){.type = object ? TRAK__V_OBJECT : TRAK__V_ARRAY};
  if (depth >= JSON_MAX_DEPTH) return fail(j, "nesting too deep");
  j->p++;
  ws(j);
  if (j->p < j->end && *j->p == close) {
    j->p++;
    return 0;
  }
  for (;;) {
    if (v->n == cap) {
      cap = cap ? cap * 2 : 8;
      trak__val *items = trak__wr_arena_alloc(j->a, cap * sizeof *items);
      const char **keys = object ? trak__wr_arena_alloc(j->a, cap * sizeof *keys) : NULL;
      if (!items || (object && !keys)) return fail(j, "out of memory");
      if (v->n) memcpy(items, v->items, v->n * sizeof *items);
      if (v->n && object) memcpy(keys, v->keys, v->n * sizeof *keys);
      v->items = items;
      v->keys = keys;
    }
    ws(j);
    if (object) {
      size_t klen;
      if (j->p >= j->end || *j->p != '"') return fail(j, "expected a member name");
      if (parse_string(j, &v->keys[v->n], &klen)) return -1;
      ws(j);
      if (j->p >= j->end || *j->p != ':') return fail(j, "expected ':'");
      j->p++;
    }
    if (parse_value(j, &v->items[v->n], depth + 1)) return -1;
    v->n++;
    ws(j);
    if (j->p < j->end && *j->p == ',') {
      j->p++;
      continue;
    }
    if (j->p < j->end && *j->p == close) {
      j->p++;
      return 0;
    }
    return fail(j, object ? "expected ',' or '}'" : "expected ',' or ']'");
  }
}

static int literal(jparser *j, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n)) return fail(j, "unexpected token");
  j->p += n;
  return 0;
}

static int parse_value(jparser *j, trak__val *v, int depth) {
  ws(j);
  if (j->p >= j->end) return fail(j, "expected a value");
  switch (*j->p) {
  case '{':
  case '[':
    return parse_container(j, v, depth);
  case '"':
    *v = (trak__val){.type = TRAK__V_STRING};
    return parse_string(j, &v->str, &v->len);
  case 't':
    *v = (trak__val){.type = TRAK__V_BOOL, .b = 1};
    return literal(j, "true");
  case 'f':
    *v = (trak__val){.type = TRAK__V_BOOL, .b = 0};
    return literal(j, "false");
  case 'n':
    *v = (trak__val){.type = TRAK__V_NULL};
    return literal(j, "null");
  default:
    return parse_number(j, v);
  }
}

static int jsonl_next(trak__reader *r, trak__arena *a, trak__row *row, trak_error *err) {
  for (;;) {
    if (r->p >= r->end) return r->eof ? 0 : TRAK__NEED_MORE;
    const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    const char *line_end = nl ? nl : r->end;
    const char *line_start = r->p;
    jparser j = {.p = r->p, .end = line_end, .a = a};
    row->line = r->line;
    r->p = nl ? nl + 1 : r->end;
    r->line++;
    ws(&j);
    if (j.p == j.end) continue; /* blank line */
    trak__val v;
    if (*j.p != '{') {
      j.error = "a line must hold one JSON object";
    } else if (!parse_value(&j, &v, 0)) {
      ws(&j);
      if (j.p != j.end) j.error = "text after the JSON object";
    }
    if (j.error)
      return trak_error_set(err, TRAK_EFORMAT, "line %llu, column %zu: %s",
                            (unsigned long long)row->line, (size_t)(j.p - line_start) + 1, j.error);
    row->keys = v.keys;
    row->vals = v.items;
    row->n = v.n;
    return 1;
  }
}

void trak__wr_jsonl_reader_init(trak__reader *r) {
  r->next = jsonl_next;
}
