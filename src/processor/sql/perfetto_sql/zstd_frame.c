/*
** This file holds __intrinsic_zstd_compress(value): the bytes of a text or blob as a zstd frame
** (RFC 8878) that any zstd decoder reads back. trak writes the data in raw (stored) blocks: a
** valid frame without a compressor to depend on, so the output is the input plus 12 bytes and
** 3 per 128 KiB. NULL gives NULL.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"

enum { MAX_BLOCK = 128 * 1024 };

static void zstd_compress(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  const unsigned char *in = sqlite3_value_blob(argv[0]);
  uint64_t n = (uint64_t)sqlite3_value_bytes(argv[0]);
  uint64_t blocks = n ? (n + MAX_BLOCK - 1) / MAX_BLOCK : 1;
  uint64_t size = 4 + 1 + 8 + 3 * blocks + n;
  unsigned char *out = sqlite3_malloc64(size);
  if (!out) return sqlite3_result_error_nomem(ctx);
  unsigned char *p = out;
  memcpy(p, "\x28\xb5\x2f\xfd", 4); /* magic 0xFD2FB528, little-endian */
  p += 4;
  *p++ = 0xE0; /* frame header: 8-byte content size, single segment, no checksum, no dictionary */
  for (int i = 0; i < 8; i++)
    *p++ = (unsigned char)(n >> (8 * i));
  uint64_t at = 0;
  do {
    uint32_t len = (uint32_t)(n - at < MAX_BLOCK ? n - at : MAX_BLOCK);
    uint32_t last = at + len == n;
    uint32_t header = last | (0u << 1) /* raw block */ | (len << 3);
    *p++ = (unsigned char)header;
    *p++ = (unsigned char)(header >> 8);
    *p++ = (unsigned char)(header >> 16);
    if (len) memcpy(p, in + at, len);
    p += len;
    at += len;
  } while (at < n);
  sqlite3_result_blob64(ctx, out, (sqlite3_uint64)(p - out), sqlite3_free);
}

int trak__psql_zstd_register(sqlite3 *db) {
  return sqlite3_create_function(db, "__intrinsic_zstd_compress", 1,
                                 SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, zstd_compress, NULL,
                                 NULL);
}
