/*
** This file holds the JSON tokenizer of the trace-event importer: it reads one value at a time
** from a buffer that may stop anywhere (a value cut by the end of the buffer answers
** TRAK_JSON_MORE, and the caller retries once more bytes came), validates nested values without
** building them, and lets the importer walk a validated object or array again. Number text is
** kept as text: timestamps are converted from their decimal digits, never through a double.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/json/json_scan.h"
#include "util/limits.h"

void trak__json_set_error(trak_json_cur *c, const char *at, const char *msg) {
  c->err_at = at;
  c->err_msg = msg;
}

int trak__json_expect(trak_json_cur *c, char ch, const char *what) {
  int got = trak__json_peek(c);
  if (got < 0) return trak__json_more(c, what);
  if (got != (unsigned char)ch) return trak__json_fail(c, c->p, what);
  c->p++;
  return TRAK_JSON_OK;
}

static inline int literal(trak_json_cur *c, trak_json_value *v, const char *word,
                          trak_json_kind kind) {
  size_t n = kind == TRAK_JSON_FALSE ? 5 : 4, have = (size_t)(c->end - c->p);
  if (TRAK_LIKELY(have >= n && !memcmp(c->p, word, n))) goto found;
  for (size_t i = 0; i < n && i < have; i++)
    if (c->p[i] != word[i]) return trak__json_fail(c, c->p + i, "unexpected word");
  if (have < n) return trak__json_more(c, "unexpected end");
found:
  v->kind = (uint8_t)kind;
  v->s = c->p;
  v->len = (uint32_t)n;
  c->p += n;
  return TRAK_JSON_OK;
}

static int container(trak_json_cur *c, trak_json_value *v, int depth);

/* A value of any kind at c->p (after whitespace): scalars inline, containers by a call. */
static inline __attribute__((always_inline)) int value_inline(trak_json_cur *c, trak_json_value *v,
                                                              int depth) {
  int ch = trak__json_peek(c);
  if (ch < 0) return trak__json_more(c, "unexpected end");
  switch (ch) {
  case '"':
    return trak__json_string_at(c, v);
  case '{':
  case '[':
    return container(c, v, depth);
  case 't':
    return literal(c, v, "true", TRAK_JSON_TRUE);
  case 'f':
    return literal(c, v, "false", TRAK_JSON_FALSE);
  case 'n':
    return literal(c, v, "null", TRAK_JSON_NULL);
  default:
    if (ch == '-' || (ch >= '0' && ch <= '9')) return trak__json_number_at(c, v);
    return trak__json_fail(c, c->p, "unexpected character");
  }
}

/* An object or array from its opening bracket: members are validated and skipped. */
static int container(trak_json_cur *c, trak_json_value *v, int depth) {
  int is_obj = *c->p == '{';
  char close = is_obj ? '}' : ']';
  if (depth >= TRAK_LIMIT_JSON_DEPTH) {
    trak__json_fail(c, c->p, "nesting deeper than the nesting limit");
    return TRAK_JSON_TOO_DEEP;
  }
  v->kind = is_obj ? TRAK_JSON_OBJECT : TRAK_JSON_ARRAY;
  v->s = c->p++;
  int ch = trak__json_peek(c), rc;
  if (ch < 0) return trak__json_more(c, "unexpected end");
  if (ch != close) {
    for (;;) {
      trak_json_value member;
      if (is_obj) {
        ch = trak__json_peek(c);
        if (ch < 0) return trak__json_more(c, "unexpected end");
        if (ch != '"') return trak__json_fail(c, c->p, "expected a string key");
        if ((rc = trak__json_string_at(c, &member))) return rc;
        if (TRAK_LIKELY(c->p < c->end && *c->p == ':'))
          c->p++;
        else if ((rc = trak__json_expect(c, ':', "expected ':' after a key")))
          return rc;
      }
      if ((rc = value_inline(c, &member, depth + 1))) return rc;
      ch = trak__json_peek(c);
      if (ch < 0) return trak__json_more(c, "unexpected end");
      if (ch == close) break;
      if (ch != ',')
        return trak__json_fail(c, c->p, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
      c->p++;
      /* A trailing comma before the close is forgiven, as Perfetto's reader forgives it. */
      ch = trak__json_peek(c);
      if (ch < 0) return trak__json_more(c, "unexpected end");
      if (ch == close) break;
    }
  }
  c->p++;
  v->len = (uint32_t)(c->p - v->s);
  return TRAK_JSON_OK;
}

int trak__json_value_at(trak_json_cur *c, trak_json_value *v, int depth) {
  return value_inline(c, v, depth);
}

int trak__json_value(trak_json_cur *c, trak_json_value *v) {
  return trak__json_value_at(c, v, 0);
}

int trak__json_member(trak_json_cur *c, trak_json_value *key, trak_json_value *val) {
  return trak__json_member_at(c, key, val);
}

int trak__json_next(const trak_json_value *cont, size_t *state, trak_json_value *key,
                    trak_json_value *val) {
  trak_json_cur c = {cont->s + (*state ? *state : 1), cont->s + cont->len, 1, NULL, NULL};
  int ch = trak__json_peek(&c);
  if (ch == ',') c.p++;
  ch = trak__json_peek(&c);
  if (ch < 0 || ch == '}' || ch == ']') return 0;
  if (cont->kind == TRAK_JSON_OBJECT) {
    if (trak__json_string_at(&c, key) || trak__json_expect(&c, ':', "")) return 0;
  }
  if (trak__json_value(&c, val)) return 0;
  *state = (size_t)(c.p - cont->s);
  return 1;
}

static int hex4(const char *p, const char *end, uint32_t *out) {
  if (end - p < 4) return 0;
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    char ch = p[i];
    v <<= 4;
    if (ch >= '0' && ch <= '9')
      v |= (uint32_t)(ch - '0');
    else if (ch >= 'a' && ch <= 'f')
      v |= (uint32_t)(ch - 'a' + 10);
    else if (ch >= 'A' && ch <= 'F')
      v |= (uint32_t)(ch - 'A' + 10);
    else
      return 0;
  }
  *out = v;
  return 1;
}

static size_t put_utf8(char *buf, size_t n, size_t cap, uint32_t cp) {
  char tmp[4];
  size_t k;
  if (cp < 0x80)
    tmp[0] = (char)cp, k = 1;
  else if (cp < 0x800)
    tmp[0] = (char)(0xc0 | cp >> 6), tmp[1] = (char)(0x80 | (cp & 0x3f)), k = 2;
  else if (cp < 0x10000)
    tmp[0] = (char)(0xe0 | cp >> 12), tmp[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
    tmp[2] = (char)(0x80 | (cp & 0x3f)), k = 3;
  else
    tmp[0] = (char)(0xf0 | cp >> 18), tmp[1] = (char)(0x80 | ((cp >> 12) & 0x3f)),
    tmp[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), tmp[3] = (char)(0x80 | (cp & 0x3f)), k = 4;
  if (n + k > cap) return n;
  memcpy(buf + n, tmp, k);
  return n + k;
}

size_t trak__json_unescape(const trak_json_value *v, char *buf, size_t cap) {
  const char *p = v->s, *end = v->s + v->len;
  size_t n = 0;
  while (p < end) {
    if (*p != '\\') {
      if (n < cap) buf[n++] = *p;
      p++;
      continue;
    }
    char e = p + 1 < end ? p[1] : 0;
    p += 2;
    uint32_t cp = 0;
    switch (e) {
    case 'b':
      cp = '\b';
      break;
    case 'f':
      cp = '\f';
      break;
    case 'n':
      cp = '\n';
      break;
    case 'r':
      cp = '\r';
      break;
    case 't':
      cp = '\t';
      break;
    case 'u':
      if (!hex4(p, end, &cp))
        cp = 0xfffd;
      else
        p += 4;
      if (cp >= 0xd800 && cp < 0xdc00) {
        uint32_t lo;
        if (end - p >= 6 && p[0] == '\\' && p[1] == 'u' && hex4(p + 2, end, &lo) && lo >= 0xdc00 &&
            lo < 0xe000) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          p += 6;
        } else {
          cp = 0xfffd;
        }
      } else if (cp >= 0xdc00 && cp < 0xe000) {
        cp = 0xfffd;
      }
      break;
    default:
      cp = (unsigned char)e;
      break; /* \" \\ \/ and anything else: the byte itself */
    }
    n = put_utf8(buf, n, cap, cp);
  }
  return n;
}

int trak__json_int(const char *s, size_t len, int64_t *out) {
  const char *p = s, *end = s + len;
  int neg = p < end && *p == '-';
  p += neg;
  if (p >= end || *p < '0' || *p > '9') return 0;
  uint64_t v = 0;
  while (p < end && *p >= '0' && *p <= '9') {
    uint64_t d = (uint64_t)(*p++ - '0');
    if (v > (UINT64_MAX - d) / 10) return 0;
    v = v * 10 + d;
  }
  if (v > (uint64_t)INT64_MAX + neg) return 0;
  if (p < end) { /* a fraction or exponent: go through a double, as jsoncpp would */
    double d = trak__json_real(s, len);
    if (!(d > -9.2e18 && d < 9.2e18)) return 0;
    *out = (int64_t)d;
    return 1;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return 1;
}

double trak__json_real(const char *s, size_t len) {
  char buf[128];
  if (len >= sizeof buf) len = sizeof buf - 1;
  memcpy(buf, s, len);
  buf[len] = 0;
  return strtod(buf, NULL);
}

int trak__json_ts_ns(const char *s, size_t len, int64_t *out) {
  const char *p = s, *end = s + len;
  int neg = p < end && *p == '-';
  p += neg;
  /* Fast path: plain integer microseconds. */
  uint64_t v = 0;
  int n_int = 0;
  while (p < end && *p >= '0' && *p <= '9' && n_int < 19)
    v = v * 10 + (uint64_t)(*p++ - '0'), n_int++;
  if (!n_int) return 0;
  if (n_int > 1 && s[neg] == '0') return 0; /* JSON numbers have no leading zeros */
  if (p == end) {                           /* whole microseconds */
    if (v > (uint64_t)INT64_MAX / 1000) return 0;
    *out = neg ? -(int64_t)(v * 1000) : (int64_t)(v * 1000);
    return 1;
  }
  if (*p >= '0' && *p <= '9') return 0; /* over 19 integer digits */
  /* A fraction or an exponent: the value is a double built as Perfetto builds it (integer
  ** part plus fraction digits over their power of ten, then the exponent), and a value that
  ** is not whole becomes llround(value * 1000), so sub-nanosecond digits round. */
  uint64_t frac = 0, divisor = 1;
  if (*p == '.') { /* as in JSON, a fraction and an exponent have at least one digit */
    p++;
    if (p == end || *p < '0' || *p > '9') return 0;
    for (int n = 0; p < end && *p >= '0' && *p <= '9'; p++, n++)
      if (n < 18) frac = frac * 10 + (uint64_t)(*p - '0'), divisor *= 10;
  }
  long exp = 0;
  int eneg = 0;
  if (p < end && (*p == 'e' || *p == 'E')) {
    p++;
    eneg = p < end && *p == '-';
    if (p < end && (*p == '-' || *p == '+')) p++;
    if (p == end || *p < '0' || *p > '9') return 0;
    while (p < end && *p >= '0' && *p <= '9')
      exp = exp < 1000 ? exp * 10 + (*p - '0') : exp, p++;
  }
  if (p != end) return 0;
  double d = (double)v + (double)frac / (double)divisor;
  if (eneg)
    d /= pow(10, (double)exp);
  else if (exp)
    d *= pow(10, (double)exp);
  if (neg) d = -d;
  double ns = d == trunc(d) ? d * 1000 : (double)llround(d * 1000.0);
  if (!(ns > -9.2e18 && ns < 9.2e18)) return 0;
  *out = d == trunc(d) ? (int64_t)d * 1000 : (int64_t)ns;
  return 1;
}
