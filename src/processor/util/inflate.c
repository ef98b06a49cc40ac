/*
** This file holds zlib and gzip inflation for the processor: gzip-wrapped trace files (read/)
** and TracePacket.compressed_packets (import/proto/packet.c) both undo their compression here.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "processor/util/inflate.h"

/* Not a zlib code: the output would pass the caller's limit. */
#define LIMIT_PASSED (-100)

int trak__is_gzip(const uint8_t *data, size_t len) {
  return len >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

int trak__gunzip(const uint8_t *in, size_t in_len, int zlib_header, size_t max_out, uint8_t **out,
                 size_t *out_len, trak_error *err) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, zlib_header ? 15 : 15 + 16) != Z_OK)
    return trak_error_set(err, TRAK_ENOMEM, "cannot start zlib");
  /* One byte past the limit tells it was passed. */
  size_t ceiling = max_out == SIZE_MAX ? SIZE_MAX : max_out + 1;
  size_t cap = in_len * 4 + 4096, n = 0;
  if (cap > ceiling) cap = ceiling;
  uint8_t *buf = malloc(cap);
  int rc = buf ? Z_OK : Z_MEM_ERROR;
  z.next_in = (Bytef *)in;
  z.avail_in = 0;
  size_t consumed = 0;
  while (rc == Z_OK) {
    if (n > max_out) {
      rc = LIMIT_PASSED;
      break;
    }
    if (n == cap) {
      size_t want = cap > ceiling / 2 ? ceiling : cap * 2;
      uint8_t *bigger = realloc(buf, want);
      if (!bigger) {
        rc = Z_MEM_ERROR;
        break;
      }
      buf = bigger;
      cap = want;
    }
    /* zlib counts in uInt; feed large inputs in slices. */
    if (z.avail_in == 0 && consumed < in_len) {
      size_t slice = in_len - consumed > (1u << 30) ? (1u << 30) : in_len - consumed;
      z.next_in = (Bytef *)in + consumed;
      z.avail_in = (uInt)slice;
      consumed += slice;
    }
    size_t room = cap - n > (1u << 30) ? (1u << 30) : cap - n;
    z.next_out = buf + n;
    z.avail_out = (uInt)room;
    rc = inflate(&z, Z_NO_FLUSH);
    n += room - z.avail_out;
    if (rc == Z_BUF_ERROR && z.avail_in == 0 && consumed == in_len) break;
    if (rc == Z_BUF_ERROR) rc = Z_OK;
  }
  size_t bad_at = (size_t)z.total_in;
  inflateEnd(&z);
  if (rc != Z_STREAM_END) {
    free(buf);
    if (rc == Z_MEM_ERROR) return trak_error_set(err, TRAK_ENOMEM, "out of memory inflating");
    if (rc == LIMIT_PASSED)
      return trak_error_set(err, TRAK_ENOSPC, "inflates past %zu bytes (from %zu compressed)",
                            max_out, bad_at);
    return trak_error_set(err, TRAK_EFORMAT, "%s data at compressed byte %zu",
                          rc == Z_BUF_ERROR ? "truncated compressed" : "corrupt compressed",
                          bad_at);
  }
  *out = buf;
  *out_len = n;
  return 0;
}
