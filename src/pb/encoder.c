/*
** The out-of-line half of the protobuf encoder: buffer growth, nested-message length patching
** and packed repeated fields. The per-field writers are inline in <trak/pb.h>.
*/
#include <stdlib.h>

#include "trak/pb.h"

void trak_pb_buf_init_fixed(trak_pb_buf *buf, void *mem, size_t size) {
  buf->start = buf->p = (uint8_t *)mem;
  buf->end = size ? buf->start + size : buf->start; /* no arithmetic on NULL */
  buf->grow = NULL;
  buf->user = NULL;
  buf->error = 0;
}

static int heap_grow(trak_pb_buf *buf, size_t need) {
  size_t used = (size_t)(buf->p - buf->start);
  size_t cap = (size_t)(buf->end - buf->start);
  size_t want = cap ? cap : 256;
  while (want - used < need) {
    if (want > SIZE_MAX / 2) return TRAK_ENOMEM;
    want *= 2;
  }
  uint8_t *mem = realloc(buf->start, want);
  if (!mem) return TRAK_ENOMEM;
  buf->start = mem;
  buf->p = mem + used;
  buf->end = mem + want;
  return 0;
}

void trak_pb_buf_init_heap(trak_pb_buf *buf) {
  trak_pb_buf_init_fixed(buf, NULL, 0);
  buf->grow = heap_grow;
}

void trak_pb_buf_free(trak_pb_buf *buf) {
  if (buf->grow == heap_grow) free(buf->start);
  trak_pb_buf_init_heap(buf);
}

uint8_t *trak_pb_buf_detach(trak_pb_buf *buf, size_t *len) {
  uint8_t *mem = buf->start;
  *len = trak_pb_buf_len(buf);
  trak_pb_buf_init_heap(buf);
  return mem;
}

int trak_pb__buf_grow(trak_pb_buf *buf, size_t need) {
  if (buf->error) return buf->error;
  if ((size_t)(buf->end - buf->p) >= need) return 0;
  int rc = buf->grow ? buf->grow(buf, need) : TRAK_ENOSPC;
  if (rc) buf->error = rc;
  return rc;
}

trak_pb_nested trak_pb_begin_nested(trak_pb_buf *buf, uint32_t field) {
  if (!trak_pb_buf_ensure(buf, 5 + TRAK_PB_NESTED_LEN_BYTES)) return 0;
  buf->p = trak_pb_write_tag(buf->p, field, TRAK_PB_WIRE_LEN);
  trak_pb_nested token = (size_t)(buf->p - buf->start);
  buf->p += TRAK_PB_NESTED_LEN_BYTES;
  return token;
}

void trak_pb_end_nested(trak_pb_buf *buf, trak_pb_nested token) {
  if (buf->error) return;
  size_t len = (size_t)(buf->p - buf->start) - token - TRAK_PB_NESTED_LEN_BYTES;
  if (len > TRAK_PB_MAX_NESTED_LEN) {
    buf->error = TRAK_EINVAL;
    return;
  }
  uint8_t *q = buf->start + token;
  q[0] = (uint8_t)(len | 0x80);
  q[1] = (uint8_t)((len >> 7) | 0x80);
  q[2] = (uint8_t)((len >> 14) | 0x80);
  q[3] = (uint8_t)(len >> 21);
}

trak_pb_nested trak_pb_begin_nested_short(trak_pb_buf *buf, uint32_t field) {
  if (!trak_pb_buf_ensure(buf, 5 + 1)) return 0;
  buf->p = trak_pb_write_tag(buf->p, field, TRAK_PB_WIRE_LEN);
  trak_pb_nested token = (size_t)(buf->p - buf->start);
  buf->p += 1;
  return token;
}

void trak_pb_end_nested_short(trak_pb_buf *buf, trak_pb_nested token) {
  if (buf->error) return;
  size_t len = (size_t)(buf->p - buf->start) - token - 1;
  if (TRAK_LIKELY(len < 0x80)) {
    buf->start[token] = (uint8_t)len;
    return;
  }
  /* Rare: the body outgrew one length byte. Shift it right to fit the real varint. */
  size_t extra = trak_pb_varint_size(len) - 1;
  if (!trak_pb_buf_ensure(buf, extra)) return;
  uint8_t *body = buf->start + token + 1;
  memmove(body + extra, body, len);
  trak_pb_write_varint(buf->start + token, len);
  buf->p += extra;
}

void trak_pb_put_packed_varint(trak_pb_buf *buf, uint32_t field, const uint64_t *v, size_t n) {
  if (!trak_pb_buf_ensure(buf, 5 + TRAK_PB_MAX_VARINT_BYTES + n * TRAK_PB_MAX_VARINT_BYTES)) return;
  size_t len = 0;
  for (size_t i = 0; i < n; i++)
    len += trak_pb_varint_size(v[i]);
  uint8_t *p = trak_pb_write_varint(trak_pb_write_tag(buf->p, field, TRAK_PB_WIRE_LEN), len);
  for (size_t i = 0; i < n; i++)
    p = trak_pb_write_varint(p, v[i]);
  buf->p = p;
}

/* Packed fixed-width elements of `width` bytes (8 or 4), read from `v` in host order. */
static void put_packed_fixed(trak_pb_buf *buf, uint32_t field, const void *v, size_t n,
                             unsigned width) {
  if (!trak_pb_buf_ensure(buf, 5 + TRAK_PB_MAX_VARINT_BYTES + n * width)) return;
  uint8_t *p = trak_pb_write_varint(trak_pb_write_tag(buf->p, field, TRAK_PB_WIRE_LEN), n * width);
  const uint8_t *src = v;
  for (size_t i = 0; i < n; i++, src += width) {
    uint64_t bits64;
    uint32_t bits32;
    if (width == 8) {
      memcpy(&bits64, src, 8);
      p = trak_pb_write_fixed64(p, bits64);
    } else {
      memcpy(&bits32, src, 4);
      p = trak_pb_write_fixed32(p, bits32);
    }
  }
  buf->p = p;
}

void trak_pb_put_packed_fixed64(trak_pb_buf *buf, uint32_t field, const uint64_t *v, size_t n) {
  put_packed_fixed(buf, field, v, n, 8);
}

void trak_pb_put_packed_fixed32(trak_pb_buf *buf, uint32_t field, const uint32_t *v, size_t n) {
  put_packed_fixed(buf, field, v, n, 4);
}

void trak_pb_put_packed_double(trak_pb_buf *buf, uint32_t field, const double *v, size_t n) {
  put_packed_fixed(buf, field, v, n, 8);
}
