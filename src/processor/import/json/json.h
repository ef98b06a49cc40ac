/*
** The legacy JSON trace-event format inside the processor: a small tokenizer over a buffer that
** may end in the middle of a value (json_tokenizer.c), the streaming importer that turns each
** event object into the importer's records (json_import.c), and the exporter that writes the
** tables back out as JSON Object Format (json_export.c).
*/
#ifndef TRAK_PROCESSOR_JSON_H
#define TRAK_PROCESSOR_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trak/error.h"

/* ---- tokenizer ------------------------------------------------------------------------- */

/* Results of the scanning functions. TRAK_JSON_TOO_DEEP: the value is well formed as far as
** read but nests deeper than TRAK_LIMIT_JSON_DEPTH (err_at: where); the reader skips it. */
enum { TRAK_JSON_OK = 0, TRAK_JSON_MORE = 1, TRAK_JSON_ERROR = -1, TRAK_JSON_TOO_DEEP = -2 };

typedef enum trak_json_kind {
  TRAK_JSON_NULL,
  TRAK_JSON_FALSE,
  TRAK_JSON_TRUE,
  TRAK_JSON_NUMBER,
  TRAK_JSON_STRING,
  TRAK_JSON_OBJECT,
  TRAK_JSON_ARRAY
} trak_json_kind;

/* A value found in the buffer: for a string the bytes between the quotes (escapes undone
** only by trak__json_unescape), for a number its text, for an object or array the whole text
** from the bracket to its match. */
/* 24 bytes: an event's 18 fields are kept as values from the decoding thread to the
** importer's (json_import.h), so the struct is packed and a length is 32 bits: a cursor never
** spans TRAK_JSON_LEN_MAX bytes (the reader reads its input in pieces and bounds what it
** buffers, json_import.c; the other texts scanned are values already read, or protobuf
** fields). */
typedef struct trak_json_value {
  const char *s;
  uint32_t len;
  uint8_t kind;       /* trak_json_kind */
  uint8_t escaped;    /* string holding backslash escapes */
  uint8_t is_float;   /* number with a fraction (bit 0) or an exponent (bit 1) */
  uint8_t int_digits; /* number: digits before the point (255 if more) */
  uint64_t ival;      /* number: those digits' value when at most 19 (read while scanning) */
} trak_json_value;
#define TRAK_JSON_LEN_MAX UINT32_MAX /* a cursor's bytes, so a value's, are fewer (len + 1 fits) */

/* A cursor over [p, end), fewer than TRAK_JSON_LEN_MAX bytes. `final` says no more bytes will
** come: running out is then an error instead of TRAK_JSON_MORE. On TRAK_JSON_ERROR, `err_at`
** and `err_msg` say where and why. */
typedef struct trak_json_cur {
  const char *p, *end;
  int final;
  const char *err_at;
  const char *err_msg;
} trak_json_cur;

/* Skips whitespace; returns the next byte, or -1 at the end of the buffer. A byte above ' '
** (the common case: no whitespace between tokens) is answered with one comparison. */
static inline int trak__json_peek(trak_json_cur *c) {
  const char *p = c->p, *end = c->end;
  if (__builtin_expect(p < end && (unsigned char)*p > ' ', 1)) return (unsigned char)*p;
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
    p++;
  c->p = p;
  return p < end ? (unsigned char)*p : -1;
}
/* Reads one value of any kind (validating nested ones, at most TRAK_LIMIT_JSON_DEPTH levels
** deep: deeper answers TRAK_JSON_TOO_DEEP). */
int trak__json_value(trak_json_cur *c, trak_json_value *v);
/* Reads one object member: a string key, ':' and its value. */
int trak__json_member(trak_json_cur *c, trak_json_value *key, trak_json_value *val);
/* Expects byte `ch` (after whitespace) and steps over it. */
int trak__json_expect(trak_json_cur *c, char ch, const char *what);
/* Iterates an object or array value already validated by trak__json_value: call with
** *state 0 first; returns 1 with the next member (key is set for objects), 0 at the end. */
int trak__json_next(const trak_json_value *container, size_t *state, trak_json_value *key,
                    trak_json_value *val);
/* Writes the string's decoded bytes (UTF-8) into buf (cap bytes, truncating); returns the
** length. Unescaped strings need no call: their bytes are the value. */
size_t trak__json_unescape(const trak_json_value *v, char *buf, size_t cap);
/* Number parsing. trak__json_int: integer text (or a float truncated); trak__json_real: any
** number. trak__json_ts_ns: microseconds text to nanoseconds from the decimal digits (no
** floating point), truncating beyond nanoseconds; returns 0 if not a number. */
int trak__json_int(const char *s, size_t len, int64_t *out);
double trak__json_real(const char *s, size_t len);
int trak__json_ts_ns(const char *s, size_t len, int64_t *out);
/* A number value as an integer, as trak__json_int reads it: from the value the scan read
** when that is exact (at most 18 digits, no fraction or exponent). Returns 0 if it is not one. */
static inline int trak__json_int_of(const trak_json_value *v, int64_t *out) {
  if (__builtin_expect(!v->is_float && v->int_digits <= 18, 1)) {
    *out = v->s[0] == '-' ? -(int64_t)v->ival : (int64_t)v->ival;
    return 1;
  }
  return trak__json_int(v->s, v->len, out);
}

/* A number value as a double, as trak__json_real reads it: a number of at most 15 significant
** digits (leading zeros counted) without an exponent straight from its digits, its integer
** scaled by an exact power of ten in one correctly rounded division (strtod's value); others
** through trak__json_real. */
static inline double trak__json_real_of(const trak_json_value *v) {
  static const double p10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  int neg = v->s[0] == '-';
  if (__builtin_expect(!(v->is_float & 2) && v->int_digits <= 15, 1)) {
    uint64_t m = v->ival;
    size_t f = 0;
    if (v->is_float & 1) {
      const char *p = v->s + neg + v->int_digits + 1, *end = v->s + v->len;
      f = (size_t)(end - p);
      if (v->int_digits + f > 15) return trak__json_real(v->s, v->len);
      for (; p < end; p++)
        m = m * 10 + (uint64_t)(*p - '0');
    }
    double d = (double)m / p10[f];
    return neg ? -d : d;
  }
  return trak__json_real(v->s, v->len);
}

/* Counts the newlines among the n bytes at p (json_lines.c); when there is one, *last is set to
** the position of the last one (from p), else left alone. Can't fail. trak__json_newlines runs
** the widest variant this CPU has; the others are there for the tests, which compare them
** (x86-64 only: the SSE2 one needs no check, the AVX2 one a CPU that has AVX2 and POPCNT). */
size_t trak__json_newlines(const char *p, size_t n, size_t *last);
size_t trak__json_newlines_scalar(const char *p, size_t n, size_t *last);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
size_t trak__json_newlines_sse2(const char *p, size_t n, size_t *last);
size_t trak__json_newlines_avx2(const char *p, size_t n, size_t *last);
#endif

/* ---- import (json_import.c) ------------------------------------------------------------ */

struct trak_importer;
typedef struct trak_json_import trak_json_import;

trak_json_import *trak__json_import_new(struct trak_importer *imp);
/* Tokenizes the next bytes of a JSON trace (any split). */
void trak__json_import_feed(trak_json_import *j, const uint8_t *data, size_t len);
/* Ends the input: a truncated trace (an unterminated array) is accepted, with what is left
** of a cut event reported. */
void trak__json_import_finish(trak_json_import *j);
void trak__json_import_free(trak_json_import *j);

/* Two threads (read/pipeline.c): the decoding thread reads the bytes of one piece of the input
** (trak__json_import_read: the reader's state only, no import state touched; what it met is
** appended to `ops`), the importer's thread applies the ops in order (trak__json_import_apply:
** ops[from, to), their owned text freed; the caller empties `ops` once all are applied), so
** the tables, stats and reports are those of trak__json_import_feed on one thread. Between
** pieces the two touch disjoint parts of `j`; trak__json_import_finish runs after the reading
** thread has stopped. trak__json_ops_free frees ops, applied or not. */
typedef struct trak_json_op trak_json_op;
typedef struct trak_json_leaf trak_json_leaf;
typedef struct trak_json_ops {
  trak_json_op *v;
  size_t n, cap;
  trak_json_leaf *leaves; /* the events' args read into leaves (json_leaves.h); emptied by the */
  size_t leaves_n, leaves_cap; /* reader when it starts on ops the caller emptied */
} trak_json_ops;
void trak__json_import_read(trak_json_import *j, const uint8_t *data, size_t len,
                            trak_json_ops *ops);
void trak__json_import_apply(trak_json_import *j, trak_json_ops *ops, size_t from, size_t to);
void trak__json_ops_free(trak_json_ops *ops);

/* Returns 1 if the bytes (the start of a plain trace) are a JSON trace: an array, or an
** object whose first key is "traceEvents" or that holds a "traceEvents" key in `len` bytes. */
int trak__json_is_trace(const uint8_t *data, size_t len);

#endif /* TRAK_PROCESSOR_JSON_H */
