/*
** The text format printer: decodes binary with the pb decoder and prints each field in wire
** order using the generated schema, so that parsing the output gives back the same bytes.
** Fields the schema does not know, whose wire type disagrees with it, whose value the name
** would lose, or (for message fields) whose bytes are not a valid message, print by number:
** varints in decimal, fixed64 / fixed32 as 0x with 16 / 8 hex digits, length-delimited as a
** quoted byte string.
*/
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb/schema.h"
#include "trak/pbtxt.h"
#include "util/limits.h"
#include "util/utf8.h"

typedef struct printer {
  trak_pb_buf *out;
  int indent;
} printer;

static void emit(printer *pr, const char *s, size_t n) {
  trak_pb_put_raw(pr->out, s, n);
}
static void emit_str(printer *pr, const char *s) {
  emit(pr, s, strlen(s));
}

static void emitf(printer *pr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emitf(printer *pr, const char *fmt, ...) {
  char buf[64];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  emit(pr, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void emit_indent(printer *pr) {
  static const char spaces[] = "                                ";
  for (int left = pr->indent * 2; left > 0; left -= 32)
    emit(pr, spaces, left < 32 ? (size_t)left : 32);
}

/* Quoted string with C escapes. Well-formed UTF-8 stays raw in strings; other bytes >= 0x80
** (and all of them in bytes fields and unknown fields) are escaped in octal, as protobuf's own
** printer does, so the text is valid UTF-8 and parses back to the same bytes. */
static void emit_quoted(printer *pr, const uint8_t *s, size_t n, int keep_high) {
  emit(pr, "\"", 1);
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t c = s[i];
    const char *esc = NULL;
    switch (c) {
    case '\n':
      esc = "\\n";
      break;
    case '\r':
      esc = "\\r";
      break;
    case '\t':
      esc = "\\t";
      break;
    case '"':
      esc = "\\\"";
      break;
    case '\'':
      esc = "\\'";
      break;
    case '\\':
      esc = "\\\\";
      break;
    }
    if (!esc && c >= 0x80 && keep_high) {
      size_t len = trak__utf8_sequence_len((const char *)s + i, n - i);
      if (len) {
        i += len - 1;
        continue;
      }
    }
    int plain = !esc && c >= 0x20 && c != 0x7f && c < 0x80;
    if (plain) continue;
    emit(pr, (const char *)s + run, i - run);
    run = i + 1;
    if (esc)
      emit_str(pr, esc);
    else
      emitf(pr, "\\%03o", c);
  }
  emit(pr, (const char *)s + run, n - run);
  emit(pr, "\"", 1);
}

/* Shortest text that reads back as the same double (protobuf's own printers do the same). */
static void emit_real(printer *pr, double v, int is_float) {
  if (isnan(v)) return emit_str(pr, "nan");
  if (isinf(v)) return emit_str(pr, v < 0 ? "-inf" : "inf");
  char buf[40];
  snprintf(buf, sizeof buf, "%.*g", is_float ? 6 : 15, v);
  int same = is_float ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v;
  if (!same) snprintf(buf, sizeof buf, "%.*g", is_float ? 9 : 17, v);
  emit_str(pr, buf);
}

static void emit_scalar(printer *pr, const trak_pb_field_desc *fd, uint64_t bits) {
  switch (fd->type) {
  case TRAK_PB_TYPE_BOOL:
    return emit_str(pr, bits ? "true" : "false");
  case TRAK_PB_TYPE_DOUBLE: {
    double d;
    memcpy(&d, &bits, 8);
    return emit_real(pr, d, 0);
  }
  case TRAK_PB_TYPE_FLOAT: {
    uint32_t b32 = (uint32_t)bits;
    float f;
    memcpy(&f, &b32, 4);
    return emit_real(pr, f, 1);
  }
  case TRAK_PB_TYPE_ENUM: {
    const char *name = trak__schema_enum_name(trak__schema_field_enum(fd), (int32_t)bits);
    if (name) return emit_str(pr, name);
    return emitf(pr, "%" PRId32, (int32_t)bits);
  }
  case TRAK_PB_TYPE_INT32:
  case TRAK_PB_TYPE_SFIXED32:
    return emitf(pr, "%" PRId32, (int32_t)bits);
  case TRAK_PB_TYPE_INT64:
  case TRAK_PB_TYPE_SFIXED64:
    return emitf(pr, "%" PRId64, (int64_t)bits);
  case TRAK_PB_TYPE_SINT32: {
    uint32_t v = (uint32_t)bits;
    return emitf(pr, "%" PRId32, (int32_t)(v >> 1) ^ -(int32_t)(v & 1));
  }
  case TRAK_PB_TYPE_SINT64:
    return emitf(pr, "%" PRId64, (int64_t)(bits >> 1) ^ -(int64_t)(bits & 1));
  case TRAK_PB_TYPE_UINT32:
  case TRAK_PB_TYPE_FIXED32:
    return emitf(pr, "%" PRIu32, (uint32_t)bits);
  default:
    return emitf(pr, "%" PRIu64, bits);
  }
}

/* True when printing `bits` by name and parsing it back gives the same bits: the value fits
** the declared type and, for reals, any NaN is the one the parser produces. */
static int prints_losslessly(const trak_pb_field_desc *fd, uint64_t bits) {
  switch (fd->type) {
  case TRAK_PB_TYPE_BOOL:
    return bits <= 1;
  case TRAK_PB_TYPE_INT32:
  case TRAK_PB_TYPE_ENUM:
    return (uint64_t)(int64_t)(int32_t)bits == bits;
  case TRAK_PB_TYPE_UINT32:
  case TRAK_PB_TYPE_SINT32:
    return bits <= UINT32_MAX;
  case TRAK_PB_TYPE_DOUBLE: {
    double d = NAN;
    uint64_t canonical;
    memcpy(&canonical, &d, 8);
    memcpy(&d, &bits, 8);
    return !isnan(d) || bits == canonical;
  }
  case TRAK_PB_TYPE_FLOAT: {
    float f = NAN;
    uint32_t canonical, b32 = (uint32_t)bits;
    memcpy(&canonical, &f, 4);
    memcpy(&f, &b32, 4);
    return !isnan(f) || b32 == canonical;
  }
  default:
    return 1;
  }
}

static void emit_field_start(printer *pr, const char *name, uint32_t number) {
  emit_indent(pr);
  if (name)
    emit_str(pr, name);
  else
    emitf(pr, "%" PRIu32, number);
}

static void emit_unknown(printer *pr, const trak_pb_field *f) {
  emit_field_start(pr, NULL, f->number);
  switch (f->wire_type) {
  case TRAK_PB_WIRE_VARINT:
    emitf(pr, ": %" PRIu64 "\n", f->value);
    break;
  case TRAK_PB_WIRE_FIXED64:
    emitf(pr, ": 0x%016" PRIx64 "\n", f->value);
    break;
  case TRAK_PB_WIRE_FIXED32:
    emitf(pr, ": 0x%08" PRIx32 "\n", (uint32_t)f->value);
    break;
  default:
    emit_str(pr, ": ");
    emit_quoted(pr, f->data, f->len, 0);
    emit_str(pr, "\n");
  }
}

static int print_message(printer *pr, const trak_pb_message_desc *msg, trak_pb_decoder *dec);

/* A declared-packed field's payload, as the `name: [a, b]` list the parser packs again. */
static int print_packed(printer *pr, const trak_pb_field_desc *fd, const trak_pb_field *f) {
  trak_pb_packed it;
  uint64_t bits;
  int rc;
  trak_pb_packed_init(&it, f, trak__schema_wire_type(fd->type));
  while ((rc = trak_pb_packed_next(&it, &bits)) == 1)
    if (!prints_losslessly(fd, bits)) return TRAK_EFORMAT; /* caller prints it by number */
  if (rc) return rc;
  emit_field_start(pr, fd->name, fd->number);
  emit_str(pr, ": [");
  trak_pb_packed_init(&it, f, trak__schema_wire_type(fd->type));
  for (int first = 1; trak_pb_packed_next(&it, &bits) == 1; first = 0) {
    if (!first) emit_str(pr, ", ");
    emit_scalar(pr, fd, bits);
  }
  emit_str(pr, "]\n");
  return 0;
}

static int print_field(printer *pr, const trak_pb_message_desc *msg, trak_pb_decoder *dec,
                       const trak_pb_field *f, trak_pb_seen_fields *seen) {
  const trak_pb_field_desc *fd = msg ? trak__schema_field_by_number(msg, f->number) : NULL;
  /* A repeat of a non-repeated field prints by number: the parser refuses the name twice. */
  if (!fd || !trak__schema_mark_seen(seen, msg, fd)) return emit_unknown(pr, f), 0;
  /* By name only in the encoding the parser would write back; anything else by number. */
  uint32_t expected = fd->packed ? TRAK_PB_WIRE_LEN : trak__schema_wire_type(fd->type);
  if (f->wire_type != expected) return emit_unknown(pr, f), 0;
  if (fd->packed) {
    if (print_packed(pr, fd, f) == 0) return 0;
    return emit_unknown(pr, f), 0;
  }
  if (fd->type != TRAK_PB_TYPE_MESSAGE && !prints_losslessly(fd, f->value))
    return emit_unknown(pr, f), 0;
  /* Past the nesting limit a message prints as its bytes: still lossless, and neither the
  ** stack nor the indentation grows with the input. */
  if (fd->type == TRAK_PB_TYPE_MESSAGE && pr->indent >= TRAK_LIMIT_MESSAGE_DEPTH)
    return emit_unknown(pr, f), 0;
  size_t mark = trak_pb_buf_len(pr->out);
  emit_field_start(pr, fd->name, fd->number);
  if (fd->type == TRAK_PB_TYPE_MESSAGE) {
    trak_pb_decoder child;
    trak_pb_decoder_init_nested(&child, dec, f);
    emit_str(pr, " {\n");
    pr->indent++;
    int rc = print_message(pr, trak__schema_field_message(fd), &child);
    pr->indent--;
    if (rc && !pr->out->error) {
      /* Bytes that are not a valid message: take back what was printed and show them raw,
      ** so nothing is lost and the text still parses to the same bytes. */
      pr->out->p = pr->out->start + mark;
      return emit_unknown(pr, f), 0;
    }
    emit_indent(pr);
    emit_str(pr, "}\n");
    return 0;
  }
  emit_str(pr, ": ");
  if (fd->type == TRAK_PB_TYPE_STRING || fd->type == TRAK_PB_TYPE_BYTES)
    emit_quoted(pr, f->data, f->len, fd->type == TRAK_PB_TYPE_STRING);
  else
    emit_scalar(pr, fd, f->value);
  emit_str(pr, "\n");
  return 0;
}

static int print_message(printer *pr, const trak_pb_message_desc *msg, trak_pb_decoder *dec) {
  trak_pb_field f;
  trak_pb_seen_fields seen = {{0}};
  int rc;
  while ((rc = trak_pb_decoder_next(dec, &f)) == 1)
    if ((rc = print_field(pr, msg, dec, &f, &seen)) != 0) return rc;
  return rc;
}

int trak_pbtxt_print(const char *message_name, const void *data, size_t len, trak_pb_buf *out,
                     trak_error *err) {
  const trak_pb_message_desc *msg = trak__schema_message(message_name);
  if (!msg)
    return trak_error_set(err, TRAK_ENOTFOUND, "no message named '%s' in the schema", message_name);
  printer pr = {.out = out, .indent = 0};
  trak_pb_decoder dec;
  trak_pb_decoder_init(&dec, data, len);
  int rc = print_message(&pr, msg, &dec);
  if (rc) return trak_pb_decoder_error(&dec, err);
  if (out->error)
    return trak_error_set(err, out->error, "text output: %s", trak_strerror(out->error));
  return 0;
}
