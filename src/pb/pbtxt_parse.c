/*
** The text format parser: walks tokens from pbtxt_lexer.c against the generated schema
** (schema.h) and writes the binary encoding as it goes, with no intermediate tree.
**
** The output is canonical: minimal varints and minimal nested lengths (the encoder's compact
** nested form, shifted in the rare message over 127 bytes), and fields written by number are
** encoded raw without consulting the schema. With the printer's rule of falling back to
** by-number output whenever a name would lose bits, text -> binary -> text -> binary is
** byte-identical for every input.
**
** trak_pbtxt_parse_lenient() also takes names the schema lacks (a newer producer's field, an
** enum value added since): the field and its whole value are skipped and reported to a
** callback, and nothing of them reaches the output.
*/
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pb/pbtxt_lexer.h"
#include "pb/schema.h"
#include "trak/pbtxt.h"
#include "util/limits.h"

#define MAX_TEXT_DEPTH TRAK_LIMIT_MESSAGE_DEPTH

typedef struct parser {
  pbtxt_lexer lx;
  trak_pb_buf *out;
  int depth;
  trak_pbtxt_skip_fn *skip; /* NULL: an unknown name is an error */
  void *skip_user;
  int skip_value; /* set by parse_enum: the value just read is an unknown name, write nothing */
} parser;

static int tok_equals(const pbtxt_token *t, const char *s) {
  return strlen(s) == t->len && !memcmp(t->text, s, t->len);
}

static int expect(parser *ps, char c, const char *context) {
  if (!trak__pbtxt_is(&ps->lx, c)) return trak__pbtxt_fail(&ps->lx, "expected '%c' %s", c, context);
  return trak__pbtxt_next(&ps->lx);
}

/* Skips an optional ',' or ';' after a field or list element. */
static int skip_separator(parser *ps) {
  if (trak__pbtxt_is(&ps->lx, ',') || trak__pbtxt_is(&ps->lx, ';'))
    return trak__pbtxt_next(&ps->lx);
  return 0;
}

/* ---- scalar values ---- */

/* Integer ranges of the field types, as the largest magnitude allowed each way. */
typedef struct int_range {
  uint64_t max_positive;
  uint64_t max_negative;
} int_range;

static int_range range_of(uint8_t type) {
  switch (type) {
  case TRAK_PB_TYPE_INT32:
  case TRAK_PB_TYPE_SINT32:
  case TRAK_PB_TYPE_SFIXED32:
  case TRAK_PB_TYPE_ENUM:
    return (int_range){INT32_MAX, (uint64_t)INT32_MAX + 1};
  case TRAK_PB_TYPE_UINT32:
  case TRAK_PB_TYPE_FIXED32:
    return (int_range){UINT32_MAX, 0};
  case TRAK_PB_TYPE_UINT64:
  case TRAK_PB_TYPE_FIXED64:
    return (int_range){UINT64_MAX, 0};
  case TRAK_PB_TYPE_INT64:
  case TRAK_PB_TYPE_SINT64:
  case TRAK_PB_TYPE_SFIXED64:
    return (int_range){INT64_MAX, (uint64_t)INT64_MAX + 1};
  default: /* an unknown field given by number: any 64-bit value */
    return (int_range){UINT64_MAX, (uint64_t)INT64_MAX + 1};
  }
}

/* Parses an integer literal (decimal, 0x hex or 0 octal) with an optional leading '-', checks
** it against the range of `type` and returns its two's complement bits. */
static int parse_integer(parser *ps, uint8_t type, uint64_t *bits) {
  int negative = 0;
  if (trak__pbtxt_is(&ps->lx, '-')) {
    negative = 1;
    if (trak__pbtxt_next(&ps->lx)) return ps->lx.error;
  }
  const pbtxt_token *t = &ps->lx.tok;
  if (t->kind != PBTXT_NUMBER) return trak__pbtxt_fail(&ps->lx, "expected an integer");
  char buf[72];
  if (t->len >= sizeof buf) return trak__pbtxt_fail(&ps->lx, "integer literal too long");
  memcpy(buf, t->text, t->len);
  buf[t->len] = 0;
  int base = 10;
  const char *digits = buf;
  if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
    base = 16, digits = buf + 2;
  else if (buf[0] == '0' && buf[1])
    base = 8, digits = buf + 1;
  char *end;
  errno = 0;
  uint64_t magnitude = strtoull(digits, &end, base);
  if (!*digits || *end || digits[0] == '-' || digits[0] == '+')
    return trak__pbtxt_fail(&ps->lx, "expected an integer");
  int_range range = range_of(type);
  if (errno == ERANGE || magnitude > (negative ? range.max_negative : range.max_positive))
    return trak__pbtxt_fail(&ps->lx, "integer out of range for this field");
  *bits = negative ? (uint64_t)0 - magnitude : magnitude;
  return trak__pbtxt_next(&ps->lx);
}

/* Parses a float/double literal: a number, inf/infinity/nan, optional '-', optional f suffix. */
static int parse_real(parser *ps, int is_float, double *value) {
  int neg = 0;
  if (trak__pbtxt_is(&ps->lx, '-')) {
    neg = 1;
    if (trak__pbtxt_next(&ps->lx)) return ps->lx.error;
  }
  const pbtxt_token *t = &ps->lx.tok;
  char buf[128];
  if (t->len >= sizeof buf) return trak__pbtxt_fail(&ps->lx, "number literal too long");
  memcpy(buf, t->text, t->len);
  buf[t->len] = 0;
  if (t->kind == PBTXT_IDENT) {
    if (!strcasecmp(buf, "inf") || !strcasecmp(buf, "infinity"))
      *value = INFINITY;
    else if (!strcasecmp(buf, "nan"))
      *value = NAN;
    else
      return trak__pbtxt_fail(&ps->lx, "expected a number");
  } else if (t->kind == PBTXT_NUMBER) {
    size_t n = t->len;
    if (n > 1 && (buf[n - 1] == 'f' || buf[n - 1] == 'F') &&
        !(buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')))
      buf[--n] = 0;
    char *end;
    if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
      *value = (double)strtoull(buf + 2, &end, 16);
    else
      *value = is_float ? strtof(buf, &end) : strtod(buf, &end);
    if (*end || end == buf) return trak__pbtxt_fail(&ps->lx, "expected a number");
  } else {
    return trak__pbtxt_fail(&ps->lx, "expected a number");
  }
  if (neg) *value = -*value;
  return trak__pbtxt_next(&ps->lx);
}

static int is_bool_word(const pbtxt_token *t) {
  return tok_equals(t, "true") || tok_equals(t, "True") || tok_equals(t, "t") ||
         tok_equals(t, "false") || tok_equals(t, "False") || tok_equals(t, "f");
}

static int parse_bool(parser *ps, uint64_t *bits) {
  const pbtxt_token *t = &ps->lx.tok;
  if (tok_equals(t, "true") || tok_equals(t, "True") || tok_equals(t, "t") || tok_equals(t, "1"))
    *bits = 1;
  else if (tok_equals(t, "false") || tok_equals(t, "False") || tok_equals(t, "f") ||
           tok_equals(t, "0"))
    *bits = 0;
  else
    return trak__pbtxt_fail(&ps->lx, "expected true or false");
  return trak__pbtxt_next(&ps->lx);
}

/* Tells the skip callback about the name at `at` that the schema lacks. */
__attribute__((cold, noinline)) static void report_skip(parser *ps, const pbtxt_token *at,
                                                        const char *fmt, ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  ps->skip(ps->skip_user, at->line, at->column, what);
}

static int parse_enum(parser *ps, const trak_pb_field_desc *field, uint64_t *bits) {
  const trak_pb_enum_desc *e = trak__schema_field_enum(field);
  if (ps->lx.tok.kind == PBTXT_IDENT) {
    int32_t number;
    if (trak__schema_enum_number(e, ps->lx.tok.text, ps->lx.tok.len, &number)) {
      if (!ps->skip)
        return trak__pbtxt_fail(&ps->lx, "%s has no value with this name", e->full_name);
      report_skip(ps, &ps->lx.tok, "%s has no value '%.*s' (field '%s')", e->full_name,
                  (int)(ps->lx.tok.len > 64 ? 64 : ps->lx.tok.len), ps->lx.tok.text, field->name);
      ps->skip_value = 1, *bits = 0;
      return trak__pbtxt_next(&ps->lx);
    }
    *bits = (uint64_t)(int64_t)number;
    return trak__pbtxt_next(&ps->lx);
  }
  return parse_integer(ps, TRAK_PB_TYPE_ENUM, bits);
}

/* Parses one scalar value of `field` into raw wire bits (varint value or fixed bits). */
static int parse_scalar_bits(parser *ps, const trak_pb_field_desc *field, uint64_t *bits) {
  switch (field->type) {
  case TRAK_PB_TYPE_BOOL:
    return parse_bool(ps, bits);
  case TRAK_PB_TYPE_ENUM:
    return parse_enum(ps, field, bits);
  case TRAK_PB_TYPE_DOUBLE: {
    double d;
    if (parse_real(ps, 0, &d)) return ps->lx.error;
    memcpy(bits, &d, 8);
    return 0;
  }
  case TRAK_PB_TYPE_FLOAT: {
    double d;
    if (parse_real(ps, 1, &d)) return ps->lx.error;
    float f = (float)d;
    uint32_t b32;
    memcpy(&b32, &f, 4);
    *bits = b32;
    return 0;
  }
  default: {
    /* true/false for an integer field: Perfetto widened some bool fields to bit sets
    ** (previous_packet_dropped), and traces written for the bool still say `true`. */
    if (ps->lx.tok.kind == PBTXT_IDENT && is_bool_word(&ps->lx.tok)) return parse_bool(ps, bits);
    if (parse_integer(ps, field->type, bits)) return ps->lx.error;
    if (field->type == TRAK_PB_TYPE_SINT32) *bits = trak_pb_zigzag32((int32_t)*bits);
    if (field->type == TRAK_PB_TYPE_SINT64) *bits = trak_pb_zigzag64((int64_t)*bits);
    if (field->type == TRAK_PB_TYPE_FIXED32 || field->type == TRAK_PB_TYPE_SFIXED32)
      *bits &= 0xffffffffu;
    return 0;
  }
  }
}

/* Writes one element's raw bits without a tag (inside a packed field). */
static void put_element(trak_pb_buf *out, uint32_t wire_type, uint64_t bits) {
  if (!trak_pb_buf_ensure(out, TRAK_PB_MAX_VARINT_BYTES)) return;
  if (wire_type == TRAK_PB_WIRE_FIXED64)
    out->p = trak_pb_write_fixed64(out->p, bits);
  else if (wire_type == TRAK_PB_WIRE_FIXED32)
    out->p = trak_pb_write_fixed32(out->p, (uint32_t)bits);
  else
    out->p = trak_pb_write_varint(out->p, bits);
}

static void put_field(trak_pb_buf *out, uint32_t number, uint32_t wire_type, uint64_t bits) {
  if (wire_type == TRAK_PB_WIRE_FIXED64)
    trak_pb_put_fixed64(out, number, bits);
  else if (wire_type == TRAK_PB_WIRE_FIXED32)
    trak_pb_put_fixed32(out, number, (uint32_t)bits);
  else
    trak_pb_put_varint(out, number, bits);
}

/* One value of a string/bytes or scalar field, written with its tag (or raw when packed). */
static int parse_value(parser *ps, const trak_pb_field_desc *field, int raw) {
  if (field->type == TRAK_PB_TYPE_STRING || field->type == TRAK_PB_TYPE_BYTES) {
    if (ps->lx.tok.kind != PBTXT_STRING) return trak__pbtxt_fail(&ps->lx, "expected a string");
    trak_pb_put_bytes(ps->out, field->number, ps->lx.str.start, trak_pb_buf_len(&ps->lx.str));
    return trak__pbtxt_next(&ps->lx);
  }
  uint64_t bits;
  if (parse_scalar_bits(ps, field, &bits)) return ps->lx.error;
  if (ps->skip_value) {
    ps->skip_value = 0;
    return 0;
  }
  uint32_t wire_type = trak__schema_wire_type(field->type);
  if (raw)
    put_element(ps->out, wire_type, bits);
  else
    put_field(ps->out, field->number, wire_type, bits);
  return 0;
}

/* ---- fields and messages ---- */

static int parse_message_body(parser *ps, const trak_pb_message_desc *msg, char close);

/* `{ ... }` or `< ... >` of a message field (msg NULL: an unknown field given by number). */
static int parse_submessage(parser *ps, uint32_t number, const trak_pb_message_desc *msg) {
  char close;
  if (trak__pbtxt_is(&ps->lx, '{'))
    close = '}';
  else if (trak__pbtxt_is(&ps->lx, '<'))
    close = '>';
  else
    return trak__pbtxt_fail(&ps->lx, "expected '{' to open a message");
  if (++ps->depth > MAX_TEXT_DEPTH) return trak__pbtxt_fail(&ps->lx, "messages nested too deeply");
  if (trak__pbtxt_next(&ps->lx)) return ps->lx.error;
  trak_pb_nested token = trak_pb_begin_nested_short(ps->out, number);
  if (parse_message_body(ps, msg, close)) return ps->lx.error;
  trak_pb_end_nested_short(ps->out, token);
  ps->depth--;
  return trak__pbtxt_next(&ps->lx); /* past the closing bracket */
}

/* A `[a, b, ...]` list; each element parsed by `one`. Empty lists are allowed. */
static int parse_list(parser *ps, const trak_pb_field_desc *field, int packed) {
  if (trak__pbtxt_next(&ps->lx)) return ps->lx.error; /* past '[' */
  trak_pb_nested token = 0;
  if (packed) token = trak_pb_begin_nested_short(ps->out, field->number);
  int first = 1;
  while (!trak__pbtxt_is(&ps->lx, ']')) {
    if (!first && expect(ps, ',', "between list elements")) return ps->lx.error;
    first = 0;
    int rc = field->type == TRAK_PB_TYPE_MESSAGE
                 ? parse_submessage(ps, field->number, trak__schema_field_message(field))
                 : parse_value(ps, field, packed);
    if (rc) return ps->lx.error;
  }
  if (packed) trak_pb_end_nested_short(ps->out, token);
  return trak__pbtxt_next(&ps->lx);
}

/* A field named by number that the schema does not describe: `N: 12`, `N: "..."`, `N {..}`.
** Hex literals of exactly 16 / 8 digits are fixed64 / fixed32, matching the printer. */
static int parse_unknown_field(parser *ps, uint32_t number) {
  int colon = trak__pbtxt_is(&ps->lx, ':');
  if (colon && trak__pbtxt_next(&ps->lx)) return ps->lx.error;
  if (trak__pbtxt_is(&ps->lx, '{') || trak__pbtxt_is(&ps->lx, '<'))
    return parse_submessage(ps, number, NULL);
  if (!colon) return trak__pbtxt_fail(&ps->lx, "expected ':' after the field number");
  if (ps->lx.tok.kind == PBTXT_STRING) {
    trak_pb_put_bytes(ps->out, number, ps->lx.str.start, trak_pb_buf_len(&ps->lx.str));
    return trak__pbtxt_next(&ps->lx);
  }
  size_t len = ps->lx.tok.len;
  int hex = ps->lx.tok.kind == PBTXT_NUMBER && len > 2 && ps->lx.tok.text[1] == 'x';
  uint64_t bits;
  if (parse_integer(ps, 0, &bits)) return ps->lx.error;
  if (hex && len == 18)
    trak_pb_put_fixed64(ps->out, number, bits);
  else if (hex && len == 10)
    trak_pb_put_fixed32(ps->out, number, (uint32_t)bits);
  else
    trak_pb_put_varint(ps->out, number, bits);
  return 0;
}

/* Moves past a field name of a message being skipped: an identifier, a number or an extension
** or Any type name in brackets (`[perfetto.protos.Ext.field]`), whose tokens are not judged. */
static int skip_field_name(parser *ps) {
  const pbtxt_token *t = &ps->lx.tok;
  if (trak__pbtxt_is(&ps->lx, '[')) return trak__pbtxt_skip_bracketed(&ps->lx);
  if (t->kind != PBTXT_IDENT && t->kind != PBTXT_NUMBER)
    return trak__pbtxt_fail(&ps->lx, "expected a field name");
  return trak__pbtxt_next(&ps->lx);
}

/* Skips one value of a field the schema lacks, after its name and optional ':': a scalar (with
** its sign), a string, an identifier, a `{...}` / `<...>` message or a `[...]` list of them. */
static int skip_value(parser *ps) {
  if (trak__pbtxt_is(&ps->lx, '{') || trak__pbtxt_is(&ps->lx, '<')) {
    char close = trak__pbtxt_is(&ps->lx, '{') ? '}' : '>';
    if (++ps->depth > MAX_TEXT_DEPTH)
      return trak__pbtxt_fail(&ps->lx, "messages nested too deeply");
    if (trak__pbtxt_next(&ps->lx)) return ps->lx.error;
    while (!trak__pbtxt_is(&ps->lx, close)) {
      if (ps->lx.tok.kind == PBTXT_END)
        return trak__pbtxt_fail(&ps->lx, "expected '%c' to close the message", close);
      if (skip_field_name(ps)) return ps->lx.error;
      if (trak__pbtxt_is(&ps->lx, ':') && trak__pbtxt_next(&ps->lx)) return ps->lx.error;
      if (skip_value(ps) || skip_separator(ps)) return ps->lx.error;
    }
    ps->depth--;
    return trak__pbtxt_next(&ps->lx);
  }
  if (trak__pbtxt_is(&ps->lx, '[')) { /* lists nest here (unlike in known fields): bounded too */
    if (++ps->depth > MAX_TEXT_DEPTH)
      return trak__pbtxt_fail(&ps->lx, "messages nested too deeply");
    if (trak__pbtxt_next(&ps->lx)) return ps->lx.error;
    int first = 1;
    while (!trak__pbtxt_is(&ps->lx, ']')) {
      if (!first && expect(ps, ',', "between list elements")) return ps->lx.error;
      first = 0;
      if (skip_value(ps)) return ps->lx.error;
    }
    ps->depth--;
    return trak__pbtxt_next(&ps->lx);
  }
  if (trak__pbtxt_is(&ps->lx, '-') && trak__pbtxt_next(&ps->lx)) return ps->lx.error;
  pbtxt_token_kind kind = ps->lx.tok.kind;
  if (kind != PBTXT_IDENT && kind != PBTXT_NUMBER && kind != PBTXT_STRING)
    return trak__pbtxt_fail(&ps->lx, "expected a value");
  return trak__pbtxt_next(&ps->lx);
}

/* A field name the schema lacks, in lenient mode (an extension's `[name]` included): reported,
** then skipped with its value. */
__attribute__((cold, noinline)) static int skip_unknown_name(parser *ps,
                                                             const trak_pb_message_desc *msg) {
  pbtxt_token at = ps->lx.tok;
  if (skip_field_name(ps)) return ps->lx.error;
  if (at.text[0] == '[') { /* the name is the text up to its ']' */
    const char *close = memchr(at.text, ']', (size_t)(ps->lx.tok.text - at.text));
    at.len = close ? (size_t)(close - at.text) + 1 : 1;
  }
  int colon = trak__pbtxt_is(&ps->lx, ':');
  if (colon && trak__pbtxt_next(&ps->lx)) return ps->lx.error;
  if (!colon && !trak__pbtxt_is(&ps->lx, '{') && !trak__pbtxt_is(&ps->lx, '<') &&
      !trak__pbtxt_is(&ps->lx, '['))
    return trak__pbtxt_fail(&ps->lx, "expected ':' after field '%.*s'", (int)at.len, at.text);
  if (skip_value(ps)) return ps->lx.error;
  const char *name = strrchr(msg->full_name, '.');
  report_skip(ps, &at, "%s has no field '%.*s'", name ? name + 1 : msg->full_name,
              (int)(at.len > 64 ? 64 : at.len), at.text);
  return 0;
}

static int parse_known_field(parser *ps, const trak_pb_field_desc *field) {
  int colon = trak__pbtxt_is(&ps->lx, ':');
  if (colon && trak__pbtxt_next(&ps->lx)) return ps->lx.error;
  int is_message = field->type == TRAK_PB_TYPE_MESSAGE;
  if (trak__pbtxt_is(&ps->lx, '[')) {
    if (!field->repeated)
      return trak__pbtxt_fail(&ps->lx, "field '%s' is not repeated", field->name);
    return parse_list(ps, field, field->packed && !is_message);
  }
  if (is_message) return parse_submessage(ps, field->number, trak__schema_field_message(field));
  if (!colon) return trak__pbtxt_fail(&ps->lx, "expected ':' after field '%s'", field->name);
  if (!field->packed) return parse_value(ps, field, 0);
  trak_pb_nested token = trak_pb_begin_nested_short(ps->out, field->number);
  if (parse_value(ps, field, 1)) return ps->lx.error;
  trak_pb_end_nested_short(ps->out, token);
  return 0;
}

/* Fields until `close` (or the end of input when close is 0). msg NULL: unknown message. */
static int parse_message_body(parser *ps, const trak_pb_message_desc *msg, char close) {
  trak_pb_seen_fields seen = {{0}};
  for (;;) {
    const pbtxt_token *t = &ps->lx.tok;
    if (close ? trak__pbtxt_is(&ps->lx, close) : t->kind == PBTXT_END) return 0;
    if (t->kind == PBTXT_END)
      return trak__pbtxt_fail(&ps->lx, "expected '%c' to close the message", close);
    if (trak__pbtxt_is(&ps->lx, '[') && msg && ps->skip) {
      if (skip_unknown_name(ps, msg) || skip_separator(ps)) return ps->lx.error;
      continue;
    }
    if (trak__pbtxt_is(&ps->lx, '['))
      return trak__pbtxt_fail(&ps->lx, "extension and Any syntax ([name]) is not supported");
    if (t->kind == PBTXT_NUMBER) {
      uint64_t number;
      pbtxt_token at = *t;
      if (parse_integer(ps, TRAK_PB_TYPE_UINT32, &number)) return ps->lx.error;
      if (number == 0 || number > TRAK_PB_MAX_FIELD_NUMBER) {
        ps->lx.tok = at;
        return trak__pbtxt_fail(&ps->lx, "invalid field number");
      }
      if (parse_unknown_field(ps, (uint32_t)number)) return ps->lx.error;
    } else if (t->kind == PBTXT_IDENT && msg) {
      const trak_pb_field_desc *field = trak__schema_field_by_name(msg, t->text, t->len);
      if (!field && ps->skip) {
        if (skip_unknown_name(ps, msg) || skip_separator(ps)) return ps->lx.error;
        continue;
      }
      if (!field)
        return trak__pbtxt_fail(&ps->lx, "%s has no field with this name", msg->full_name);
      if (!trak__schema_mark_seen(&seen, msg, field))
        return trak__pbtxt_fail(&ps->lx, "non-repeated field '%s' given twice", field->name);
      if (trak__pbtxt_next(&ps->lx) || parse_known_field(ps, field)) return ps->lx.error;
    } else {
      return trak__pbtxt_fail(&ps->lx, msg ? "expected a field name" : "expected a field number");
    }
    if (skip_separator(ps)) return ps->lx.error;
  }
}

int trak_pbtxt_parse(const char *message_name, const char *text, size_t len, trak_pb_buf *out,
                     trak_error *err) {
  return trak_pbtxt_parse_at(message_name, text, len, 1, 1, out, err);
}

int trak_pbtxt_parse_at(const char *message_name, const char *text, size_t len, int line,
                        int column, trak_pb_buf *out, trak_error *err) {
  return trak_pbtxt_parse_lenient(message_name, text, len, line, column, NULL, NULL, out, err);
}

int trak_pbtxt_parse_lenient(const char *message_name, const char *text, size_t len, int line,
                             int column, trak_pbtxt_skip_fn *skip, void *user, trak_pb_buf *out,
                             trak_error *err) {
  const trak_pb_message_desc *msg = trak__schema_message(message_name);
  if (!msg)
    return trak_error_set(err, TRAK_ENOTFOUND, "no message named '%s' in the schema", message_name);
  parser ps = {.out = out, .skip = skip, .skip_user = user};
  int rc = trak__pbtxt_lexer_init_at(&ps.lx, text, len, line, column, err);
  if (!rc) rc = parse_message_body(&ps, msg, 0);
  trak__pbtxt_lexer_free(&ps.lx);
  if (!rc && out->error)
    rc = trak_error_set(err, out->error, "text format output: %s", trak_strerror(out->error));
  return rc;
}
