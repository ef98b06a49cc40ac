/*
** The protobuf wire codec: a zero-copy encoder and a zero-copy decoder.
**
** Everything in trak that touches bytes goes through here: the SDK's event path, the importer,
** the text format and the tools. Field numbers come from the generated header <trak/protos.h>
** (TRAK_PB_<Message>_<field>), never from literals.
**
** Encoder. A trak_pb_buf is a write cursor over memory the caller owns (a fixed array, an SDK
** chunk, a growing heap buffer). Scalar writers are inline and allocation-free. A nested message
** reserves a fixed-width 4-byte length that is patched when the message ends, so nothing is
** written twice. Errors are sticky: the first failure sets buf->error and later writes are
** dropped, so a caller checks once at the end rather than after every field.
**
** Decoder. A trak_pb_decoder walks the fields of one message in a byte span without copying.
** trak_pb_decoder_next() returns 1 with the next field, 0 at the clean end of the span, or a
** negative TRAK_EFORMAT when the bytes are malformed; the decoder then records the absolute byte
** offset (counted from the outermost buffer) and a reason. Every read is bounds-checked.
*/
#ifndef TRAK_PB_H
#define TRAK_PB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trak/error.h"
#include "trak/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TRAK_LIKELY(x) __builtin_expect(!!(x), 1)
#define TRAK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define TRAK_LIKELY(x) (x)
#define TRAK_UNLIKELY(x) (x)
#endif

enum trak_pb_wire_type {
  TRAK_PB_WIRE_VARINT = 0,
  TRAK_PB_WIRE_FIXED64 = 1,
  TRAK_PB_WIRE_LEN = 2,
  TRAK_PB_WIRE_SGROUP = 3, /* groups are rejected by the decoder */
  TRAK_PB_WIRE_EGROUP = 4,
  TRAK_PB_WIRE_FIXED32 = 5
};

#define TRAK_PB_MAX_VARINT_BYTES 10
#define TRAK_PB_MAX_FIELD_NUMBER ((1u << 29) - 1)
#define TRAK_PB_MAX_DEPTH 64       /* nesting limit of the decoder */
#define TRAK_PB_NESTED_LEN_BYTES 4 /* reserved length width of a nested message */
#define TRAK_PB_MAX_NESTED_LEN ((1u << 28) - 1)

/* ------------------------------------------------------------------------------------------ */
/* Encoder                                                                                    */
/* ------------------------------------------------------------------------------------------ */

typedef struct trak_pb_buf trak_pb_buf;

/* Called when fewer than `need` bytes remain after buf->p. It must make at least `need` bytes
** writable while keeping the bytes in [start, p); it may move them, updating start, p and end
** together. Returns 0, or a negative TRAK_E* code (which becomes buf->error). */
typedef int (*trak_pb_grow_fn)(trak_pb_buf *buf, size_t need);

struct trak_pb_buf {
  uint8_t *start; /* first byte of what this buffer holds; nested tokens are offsets from it */
  uint8_t *p;     /* next byte to write */
  uint8_t *end;   /* one past the last writable byte */
  trak_pb_grow_fn grow; /* NULL for a fixed buffer: running out sets TRAK_ENOSPC */
  void *user;           /* for the grow function */
  int error;            /* sticky: 0, TRAK_ENOSPC, TRAK_ENOMEM or TRAK_EINVAL */
};

/* A nested message in progress: the offset of its reserved length bytes from buf->start. */
typedef size_t trak_pb_nested;

/* Writes into [mem, mem + size). Can't fail. */
TRAK_API void trak_pb_buf_init_fixed(trak_pb_buf *buf, void *mem, size_t size);
/* A buffer on the heap that doubles as needed; release it with trak_pb_buf_free(). */
TRAK_API void trak_pb_buf_init_heap(trak_pb_buf *buf);
TRAK_API void trak_pb_buf_free(trak_pb_buf *buf);
/* Hands the heap buffer's bytes to the caller (free() them); the buffer becomes empty. */
TRAK_API uint8_t *trak_pb_buf_detach(trak_pb_buf *buf, size_t *len);
static inline size_t trak_pb_buf_len(const trak_pb_buf *buf) {
  return (size_t)(buf->p - buf->start);
}

/* Out-of-line slow path of trak_pb_buf_ensure. */
TRAK_API int trak_pb__buf_grow(trak_pb_buf *buf, size_t need);

/* Makes `n` bytes writable at buf->p. Returns 1, or 0 when the buffer is (now) in error. */
static inline int trak_pb_buf_ensure(trak_pb_buf *buf, size_t n) {
  if (TRAK_LIKELY((size_t)(buf->end - buf->p) >= n && !buf->error)) return 1;
  return trak_pb__buf_grow(buf, n) == 0;
}

/* Raw writers: they assume room was ensured and return the new write position. */
static inline uint8_t *trak_pb_write_varint(uint8_t *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}
static inline uint8_t *trak_pb_write_fixed64(uint8_t *p, uint64_t v) {
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  memcpy(p, &v, 8);
  return p + 8;
}
static inline uint8_t *trak_pb_write_fixed32(uint8_t *p, uint32_t v) {
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  memcpy(p, &v, 4);
  return p + 4;
}
static inline uint8_t *trak_pb_write_tag(uint8_t *p, uint32_t field, uint32_t wire_type) {
  return trak_pb_write_varint(p, ((uint64_t)field << 3) | wire_type);
}
/* A whole field at a raw position (room already ensured): tag plus value. */
static inline uint8_t *trak_pb_write_varint_field(uint8_t *p, uint32_t field, uint64_t v) {
  return trak_pb_write_varint(trak_pb_write_tag(p, field, TRAK_PB_WIRE_VARINT), v);
}
static inline uint8_t *trak_pb_write_fixed64_field(uint8_t *p, uint32_t field, uint64_t v) {
  return trak_pb_write_fixed64(trak_pb_write_tag(p, field, TRAK_PB_WIRE_FIXED64), v);
}
static inline uint8_t *trak_pb_write_double_field(uint8_t *p, uint32_t field, double v) {
  uint64_t bits;
  memcpy(&bits, &v, 8);
  return trak_pb_write_fixed64_field(p, field, bits);
}
/* Number of bytes the varint encoding of v takes (1 to 10). */
static inline size_t trak_pb_varint_size(uint64_t v) {
  return (size_t)((((64 - __builtin_clzll(v | 1)) * 9) + 64) / 64);
}

static inline uint64_t trak_pb_zigzag64(int64_t v) {
  return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline uint32_t trak_pb_zigzag32(int32_t v) {
  return ((uint32_t)v << 1) ^ (uint32_t)(v >> 31);
}

/* Field writers. `field` is a field number from <trak/protos.h>. */
static inline void trak_pb_put_varint(trak_pb_buf *buf, uint32_t field, uint64_t v) {
  if (!trak_pb_buf_ensure(buf, 5 + TRAK_PB_MAX_VARINT_BYTES)) return;
  buf->p = trak_pb_write_varint(trak_pb_write_tag(buf->p, field, TRAK_PB_WIRE_VARINT), v);
}
/* int32/int64/enum: negative values take ten bytes, as the protobuf spec requires. */
static inline void trak_pb_put_int64(trak_pb_buf *buf, uint32_t field, int64_t v) {
  trak_pb_put_varint(buf, field, (uint64_t)v);
}
static inline void trak_pb_put_int32(trak_pb_buf *buf, uint32_t field, int32_t v) {
  trak_pb_put_varint(buf, field, (uint64_t)(int64_t)v);
}
static inline void trak_pb_put_bool(trak_pb_buf *buf, uint32_t field, int v) {
  trak_pb_put_varint(buf, field, v ? 1 : 0);
}
static inline void trak_pb_put_sint64(trak_pb_buf *buf, uint32_t field, int64_t v) {
  trak_pb_put_varint(buf, field, trak_pb_zigzag64(v));
}
static inline void trak_pb_put_sint32(trak_pb_buf *buf, uint32_t field, int32_t v) {
  trak_pb_put_varint(buf, field, trak_pb_zigzag32(v));
}
static inline void trak_pb_put_fixed64(trak_pb_buf *buf, uint32_t field, uint64_t v) {
  if (!trak_pb_buf_ensure(buf, 5 + 8)) return;
  buf->p = trak_pb_write_fixed64(trak_pb_write_tag(buf->p, field, TRAK_PB_WIRE_FIXED64), v);
}
static inline void trak_pb_put_fixed32(trak_pb_buf *buf, uint32_t field, uint32_t v) {
  if (!trak_pb_buf_ensure(buf, 5 + 4)) return;
  buf->p = trak_pb_write_fixed32(trak_pb_write_tag(buf->p, field, TRAK_PB_WIRE_FIXED32), v);
}
static inline void trak_pb_put_double(trak_pb_buf *buf, uint32_t field, double v) {
  uint64_t bits;
  memcpy(&bits, &v, 8);
  trak_pb_put_fixed64(buf, field, bits);
}
static inline void trak_pb_put_float(trak_pb_buf *buf, uint32_t field, float v) {
  uint32_t bits;
  memcpy(&bits, &v, 4);
  trak_pb_put_fixed32(buf, field, bits);
}
static inline void trak_pb_put_bytes(trak_pb_buf *buf, uint32_t field, const void *data,
                                     size_t len) {
  if (!trak_pb_buf_ensure(buf, 5 + TRAK_PB_MAX_VARINT_BYTES + len)) return;
  uint8_t *p = trak_pb_write_varint(trak_pb_write_tag(buf->p, field, TRAK_PB_WIRE_LEN), len);
  if (len) memcpy(p, data, len);
  buf->p = p + len;
}
static inline void trak_pb_put_string(trak_pb_buf *buf, uint32_t field, const char *s) {
  trak_pb_put_bytes(buf, field, s, strlen(s));
}
/* Appends bytes that are already encoded fields (a pre-serialized sub-message body, say). */
static inline void trak_pb_put_raw(trak_pb_buf *buf, const void *data, size_t len) {
  if (!len || !trak_pb_buf_ensure(buf, len)) return;
  memcpy(buf->p, data, len);
  buf->p += len;
}

/* Nested messages. begin writes the tag and reserves TRAK_PB_NESTED_LEN_BYTES for the length;
** end patches it as a redundant (padded) varint. Nesting is unlimited; end calls must come in
** reverse order of begin calls. A message longer than TRAK_PB_MAX_NESTED_LEN sets TRAK_EINVAL. */
TRAK_API trak_pb_nested trak_pb_begin_nested(trak_pb_buf *buf, uint32_t field);
TRAK_API void trak_pb_end_nested(trak_pb_buf *buf, trak_pb_nested token);

/* Compact variant for messages that are almost always shorter than 128 bytes (the SDK's
** events): one length byte is reserved; a longer message is shifted once at the end to make
** room for its real length. Same pairing rules as above. */
TRAK_API trak_pb_nested trak_pb_begin_nested_short(trak_pb_buf *buf, uint32_t field);
TRAK_API void trak_pb_end_nested_short(trak_pb_buf *buf, trak_pb_nested token);

/* Packed repeated fields: one length-delimited field holding all elements. */
TRAK_API void trak_pb_put_packed_varint(trak_pb_buf *buf, uint32_t field, const uint64_t *v,
                                        size_t n);
TRAK_API void trak_pb_put_packed_fixed64(trak_pb_buf *buf, uint32_t field, const uint64_t *v,
                                         size_t n);
TRAK_API void trak_pb_put_packed_fixed32(trak_pb_buf *buf, uint32_t field, const uint32_t *v,
                                         size_t n);
TRAK_API void trak_pb_put_packed_double(trak_pb_buf *buf, uint32_t field, const double *v,
                                        size_t n);

/* ------------------------------------------------------------------------------------------ */
/* Decoder                                                                                    */
/* ------------------------------------------------------------------------------------------ */

typedef struct trak_pb_field {
  uint32_t number;     /* field number, 1 .. TRAK_PB_MAX_FIELD_NUMBER */
  uint32_t wire_type;  /* enum trak_pb_wire_type */
  uint64_t value;      /* VARINT, FIXED64 and FIXED32 payloads (raw bits) */
  const uint8_t *data; /* LEN payload; points into the decoded buffer */
  size_t len;          /* LEN payload size */
} trak_pb_field;

typedef struct trak_pb_decoder {
  const uint8_t *p;         /* next unread byte */
  const uint8_t *end;       /* end of this message's span */
  const uint8_t *limit;     /* end of the outermost buffer: reading up to here is safe */
  const uint8_t *origin;    /* first byte of the outermost buffer: error offsets count from it */
  uint32_t depth;           /* 0 for the outermost message */
  int error;                /* 0, or TRAK_EFORMAT once malformed bytes were met */
  size_t error_offset;      /* absolute byte offset of the problem */
  const char *error_reason; /* static text: "truncated varint", ... */
} trak_pb_decoder;

/* Decodes the fields of one message in [data, data + len). Can't fail. */
TRAK_API void trak_pb_decoder_init(trak_pb_decoder *dec, const void *data, size_t len);

/* Out-of-line slow path of trak_pb_decoder_init_nested: records the error in `child`. */
TRAK_API int trak_pb__decoder_init_nested_slow(trak_pb_decoder *child,
                                               const trak_pb_decoder *parent,
                                               const trak_pb_field *field);

/* Decodes a LEN field of `parent` as a nested message. Returns 0, or TRAK_EFORMAT (recorded in
** `child`, whose next() then fails too) when the field is not LEN or nesting is too deep. */
static inline int trak_pb_decoder_init_nested(trak_pb_decoder *child, const trak_pb_decoder *parent,
                                              const trak_pb_field *field) {
  if (TRAK_UNLIKELY(field->wire_type != TRAK_PB_WIRE_LEN || parent->depth >= TRAK_PB_MAX_DEPTH))
    return trak_pb__decoder_init_nested_slow(child, parent, field);
  child->p = field->data;
  child->end = field->data + field->len;
  child->limit = parent->limit;
  child->origin = parent->origin;
  child->depth = parent->depth + 1;
  child->error = 0; /* error_offset and error_reason are only read once error is set */
  return 0;
}

/* Out-of-line slow path of trak_pb_decoder_next. */
TRAK_API int trak_pb__decoder_next_slow(trak_pb_decoder *dec, trak_pb_field *field);

/* Little-endian loads of fixed-width values (the wire's byte order). */
static inline uint64_t trak_pb__load_le64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}
static inline uint32_t trak_pb__load_le32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  return v;
}

/* Decodes a multi-byte varint at p (p[0] >= 0x80) when at least 16 bytes are readable.
** Up to eight bytes are decoded without branches from one 64-bit load: the stop bit is found
** with ctz and the 7-bit groups are packed together by three mask-and-shift steps. Returns the
** position after the varint, or NULL if it is longer than ten bytes. */
static inline const uint8_t *trak_pb__read_varint_unchecked(const uint8_t *p, uint64_t *out) {
  uint64_t w = trak_pb__load_le64(p);
  uint64_t stops = ~w & 0x8080808080808080ull;
  if (TRAK_LIKELY(stops != 0)) {
    unsigned bits = (unsigned)__builtin_ctzll(stops) + 1; /* 8 * number of bytes */
    uint64_t x = bits == 64 ? w : w & ((1ull << bits) - 1);
    x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
    x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
    x = ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
    *out = x;
    return p + bits / 8;
  }
  /* Nine or ten bytes: large unsigned or negative values. */
  uint64_t x = w & 0x7f7f7f7f7f7f7f7full;
  x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
  x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
  x = ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
  x |= (uint64_t)(p[8] & 0x7f) << 56;
  if (p[8] < 0x80) {
    *out = x;
    return p + 9;
  }
  if (p[9] > 1) return NULL; /* a tenth byte may only hold the top bit */
  *out = x | ((uint64_t)p[9] << 63);
  return p + 10;
}

/* Reads the next field. Returns 1 and fills `field`; 0 at the clean end of the span; or
** TRAK_EFORMAT (and keeps returning it) when the bytes are malformed: truncated varint,
** varint over 10 bytes, length past the end, invalid or group wire type, field number 0.
**
** Fast path: with at least 16 readable bytes left in the outermost buffer, a tag of up to two
** bytes (fields 1-2047) and a varint of up to ten bytes can be read without per-byte bounds
** checks; only the result is checked against this message's end. Everything else, including
** every malformed case, goes out of line. */
static inline int trak_pb_decoder_next(trak_pb_decoder *dec, trak_pb_field *field) {
  const uint8_t *p = dec->p, *end = dec->end;
  if (TRAK_UNLIKELY(p >= end)) return dec->error; /* 0 at a clean end */
  if (TRAK_LIKELY(dec->limit - p >= 16)) {
    uint32_t tag = p[0];
    p++;
    if (tag >= 0x80) {
      if (p[0] >= 0x80) goto slow;
      tag = (tag & 0x7f) | ((uint32_t)p[0] << 7);
      p++;
    }
    uint32_t wire_type = tag & 7;
    if (TRAK_UNLIKELY(tag < 8)) goto slow; /* field number 0 */
    uint64_t v;
    if (TRAK_LIKELY(wire_type == TRAK_PB_WIRE_VARINT || wire_type == TRAK_PB_WIRE_LEN)) {
      v = p[0];
      if (v < 0x80) {
        p += 1;
      } else {
        p = trak_pb__read_varint_unchecked(p, &v);
        if (TRAK_UNLIKELY(!p)) goto slow;
      }
      if (TRAK_UNLIKELY(p > end)) goto slow;
      if (wire_type == TRAK_PB_WIRE_VARINT) {
        field->value = v;
      } else {
        if (TRAK_UNLIKELY(v > (uint64_t)(end - p))) goto slow;
        field->data = p;
        field->len = (size_t)v;
        p += v;
      }
    } else if (wire_type == TRAK_PB_WIRE_FIXED64 || wire_type == TRAK_PB_WIRE_FIXED32) {
      int wide = wire_type == TRAK_PB_WIRE_FIXED64;
      if (TRAK_UNLIKELY(end - p < (wide ? 8 : 4))) goto slow;
      field->value = wide ? trak_pb__load_le64(p) : trak_pb__load_le32(p);
      p += wide ? 8 : 4;
    } else {
      goto slow; /* groups and invalid wire types */
    }
    field->number = tag >> 3;
    field->wire_type = wire_type;
    dec->p = p;
    return 1;
  }
slow:
  return trak_pb__decoder_next_slow(dec, field);
}

/* Fills `err` with "malformed protobuf at byte N: reason" and returns TRAK_EFORMAT. */
TRAK_API int trak_pb_decoder_error(const trak_pb_decoder *dec, trak_error *err);

/* Decodes one varint at *pp (not past `end`). Returns 0 and advances *pp, or TRAK_EFORMAT
** with *reason set ("truncated varint" / "varint longer than 10 bytes"). */
TRAK_API int trak_pb_read_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out,
                                 const char **reason);

/* Elements of a packed repeated field (LEN payload). element_wire_type is VARINT, FIXED32 or
** FIXED64. next() returns 1 with the raw element value, 0 at the end, TRAK_EFORMAT if the
** payload is malformed (a truncated element). */
typedef struct trak_pb_packed {
  const uint8_t *p, *end;
  uint32_t element_wire_type;
} trak_pb_packed;
TRAK_API void trak_pb_packed_init(trak_pb_packed *it, const trak_pb_field *field,
                                  uint32_t element_wire_type);
TRAK_API int trak_pb_packed_next(trak_pb_packed *it, uint64_t *value);

/* Typed views of a scalar field's raw value (no wire-type check: callers compare wire_type). */
static inline int32_t trak_pb_as_int32(const trak_pb_field *f) {
  return (int32_t)f->value;
}
static inline int64_t trak_pb_as_int64(const trak_pb_field *f) {
  return (int64_t)f->value;
}
static inline uint32_t trak_pb_as_uint32(const trak_pb_field *f) {
  return (uint32_t)f->value;
}
static inline uint64_t trak_pb_as_uint64(const trak_pb_field *f) {
  return f->value;
}
static inline int trak_pb_as_bool(const trak_pb_field *f) {
  return f->value != 0;
}
static inline int64_t trak_pb_as_sint64(const trak_pb_field *f) {
  return (int64_t)(f->value >> 1) ^ -(int64_t)(f->value & 1);
}
static inline int32_t trak_pb_as_sint32(const trak_pb_field *f) {
  uint32_t v = (uint32_t)f->value;
  return (int32_t)(v >> 1) ^ -(int32_t)(v & 1);
}
static inline double trak_pb_as_double(const trak_pb_field *f) {
  double d;
  memcpy(&d, &f->value, 8);
  return d;
}
static inline float trak_pb_as_float(const trak_pb_field *f) {
  uint32_t bits = (uint32_t)f->value;
  float v;
  memcpy(&v, &bits, 4);
  return v;
}

#ifdef __cplusplus
}
#endif
#endif /* TRAK_PB_H */
