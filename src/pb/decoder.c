/*
** The out-of-line half of the protobuf decoder: multi-byte tags and values, every malformed
** case, nested spans and packed repeated fields. The common one-byte cases are inline in
** <trak/pb.h>; everything here checks bounds before it reads.
*/
#include "trak/pb.h"

void trak_pb_decoder_init(trak_pb_decoder *dec, const void *data, size_t len) {
  dec->p = (const uint8_t *)data;
  dec->end = len ? dec->p + len : dec->p; /* no arithmetic on NULL */
  dec->limit = dec->end;
  dec->origin = dec->p;
  dec->depth = 0;
  dec->error = 0;
  dec->error_offset = 0;
  dec->error_reason = NULL;
}

/* Records the first error at `at` and makes every later next() return it. */
static int fail(trak_pb_decoder *dec, const uint8_t *at, const char *reason) {
  dec->error = TRAK_EFORMAT;
  dec->error_offset = (size_t)(at - dec->origin);
  dec->error_reason = reason;
  dec->p = dec->end;
  return TRAK_EFORMAT;
}

int trak_pb_read_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out,
                        const char **reason) {
  const uint8_t *p = *pp;
  uint64_t v = 0;
  for (unsigned shift = 0; shift < 70; shift += 7) {
    if (p >= end) {
      *reason = "truncated varint";
      return TRAK_EFORMAT;
    }
    uint8_t b = *p++;
    if (shift < 64) v |= (uint64_t)(b & 0x7f) << shift;
    if (b < 0x80) {
      *pp = p;
      *out = v;
      return 0;
    }
  }
  *reason = "varint longer than 10 bytes";
  return TRAK_EFORMAT;
}

static uint64_t read_le(const uint8_t *p, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

int trak_pb__decoder_next_slow(trak_pb_decoder *dec, trak_pb_field *field) {
  const uint8_t *start = dec->p;
  if (start >= dec->end) return dec->error;
  const uint8_t *p = start;
  const char *reason;
  uint64_t tag;
  if (trak_pb_read_varint(&p, dec->end, &tag, &reason)) return fail(dec, start, reason);
  uint32_t wire_type = (uint32_t)(tag & 7);
  uint64_t number = tag >> 3;
  if (number == 0) return fail(dec, start, "field number 0");
  if (number > TRAK_PB_MAX_FIELD_NUMBER) return fail(dec, start, "field number above 2^29-1");
  field->number = (uint32_t)number;
  field->wire_type = wire_type;
  switch (wire_type) {
  case TRAK_PB_WIRE_VARINT:
    if (trak_pb_read_varint(&p, dec->end, &field->value, &reason)) return fail(dec, p, reason);
    break;
  case TRAK_PB_WIRE_FIXED64:
  case TRAK_PB_WIRE_FIXED32: {
    unsigned n = wire_type == TRAK_PB_WIRE_FIXED64 ? 8 : 4;
    if ((size_t)(dec->end - p) < n) return fail(dec, p, "truncated fixed-width value");
    field->value = read_le(p, n);
    p += n;
    break;
  }
  case TRAK_PB_WIRE_LEN: {
    uint64_t len;
    const uint8_t *len_at = p;
    if (trak_pb_read_varint(&p, dec->end, &len, &reason)) return fail(dec, len_at, reason);
    if (len > (uint64_t)(dec->end - p)) return fail(dec, len_at, "length runs past the end");
    field->data = p;
    field->len = (size_t)len;
    p += len;
    break;
  }
  case TRAK_PB_WIRE_SGROUP:
  case TRAK_PB_WIRE_EGROUP:
    return fail(dec, start, "group wire type (unsupported, deprecated)");
  default:
    return fail(dec, start, "invalid wire type");
  }
  dec->p = p;
  return 1;
}

int trak_pb__decoder_init_nested_slow(trak_pb_decoder *child, const trak_pb_decoder *parent,
                                      const trak_pb_field *field) {
  child->origin = parent->origin;
  child->limit = parent->limit;
  child->depth = parent->depth + 1;
  child->error = 0;
  child->error_reason = NULL;
  child->error_offset = 0;
  if (field->wire_type != TRAK_PB_WIRE_LEN) {
    child->p = child->end = parent->p;
    return fail(child, parent->p, "expected a length-delimited (message) field");
  }
  child->p = field->data;
  child->end = field->data + field->len;
  if (child->depth > TRAK_PB_MAX_DEPTH) return fail(child, field->data, "nesting too deep");
  return 0;
}

int trak_pb_decoder_error(const trak_pb_decoder *dec, trak_error *err) {
  return trak_error_set(err, TRAK_EFORMAT, "malformed protobuf at byte %zu: %s", dec->error_offset,
                        dec->error_reason ? dec->error_reason : "?");
}

void trak_pb_packed_init(trak_pb_packed *it, const trak_pb_field *field,
                         uint32_t element_wire_type) {
  it->p = field->data;
  it->end = field->data + field->len;
  it->element_wire_type = element_wire_type;
}

int trak_pb_packed_next(trak_pb_packed *it, uint64_t *value) {
  if (it->p >= it->end) return 0;
  if (it->element_wire_type == TRAK_PB_WIRE_VARINT) {
    const char *reason;
    if (trak_pb_read_varint(&it->p, it->end, value, &reason)) {
      it->p = it->end;
      return TRAK_EFORMAT;
    }
    return 1;
  }
  unsigned n = it->element_wire_type == TRAK_PB_WIRE_FIXED64 ? 8 : 4;
  if ((size_t)(it->end - it->p) < n) {
    it->p = it->end;
    return TRAK_EFORMAT;
  }
  *value = read_le(it->p, n);
  it->p += n;
  return 1;
}
