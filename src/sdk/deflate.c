/*
** A small zlib-format compressor (RFC 1950/1951: LZ77 with one hash candidate per position
** and the fixed Huffman codes) for TracePacket.compressed_packets, so libtrak needs no zlib.
** Sessions use it when their config asks for COMPRESSION_TYPE_DEFLATE: trace bytes of
** repeated events shrink several times, at a cost paid at readout, never on the event path.
*/
#include <stdlib.h>
#include <string.h>

#include "sdk/internal.h"

#define WINDOW 32768
#define HASH_BITS 15
#define MIN_MATCH 3
#define MAX_MATCH 258

typedef struct bits {
  trak_pb_buf *out;
  uint64_t acc; /* pending bits, least significant first */
  int n;        /* number of pending bits */
} bits;

static void put_bits(bits *b, uint32_t value, int count) {
  b->acc |= (uint64_t)value << b->n;
  b->n += count;
  while (b->n >= 8) {
    if (trak_pb_buf_ensure(b->out, 1)) *b->out->p++ = (uint8_t)b->acc;
    b->acc >>= 8;
    b->n -= 8;
  }
}

/* Huffman codes go most significant bit first. */
static void put_code(bits *b, uint32_t code, int len) {
  uint32_t rev = 0;
  for (int i = 0; i < len; i++)
    rev |= ((code >> i) & 1u) << (len - 1 - i);
  put_bits(b, rev, len);
}

/* A literal/length symbol (0..285) with the fixed code. */
static void put_symbol(bits *b, int sym) {
  if (sym < 144)
    put_code(b, 0x30u + (uint32_t)sym, 8);
  else if (sym < 256)
    put_code(b, 0x190u + (uint32_t)(sym - 144), 9);
  else if (sym < 280)
    put_code(b, (uint32_t)(sym - 256), 7);
  else
    put_code(b, 0xC0u + (uint32_t)(sym - 280), 8);
}

static const uint16_t len_base[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                      15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                      67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static void put_match(bits *b, int len, int dist) {
  int i = 28;
  while (len_base[i] > len)
    i--;
  put_symbol(b, 257 + i);
  put_bits(b, (uint32_t)(len - len_base[i]), len_extra[i]);
  int d = 29;
  while (dist_base[d] > dist)
    d--;
  put_code(b, (uint32_t)d, 5);
  put_bits(b, (uint32_t)(dist - dist_base[d]), dist_extra[d]);
}

static uint32_t hash3(const uint8_t *p) {
  uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
  return (v * 2654435761u) >> (32 - HASH_BITS);
}

static uint32_t adler32(const uint8_t *p, size_t n) {
  uint32_t a = 1, b = 0;
  while (n) {
    size_t k = n < 5552 ? n : 5552; /* keeps the sums below 2^32 between reductions */
    n -= k;
    while (k--) {
      a += *p++;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return b << 16 | a;
}

int trak__zlib_compress(const uint8_t *in, size_t n, trak_pb_buf *out) {
  int32_t *head = malloc(sizeof(int32_t) << HASH_BITS);
  if (!head) return TRAK_ENOMEM;
  memset(head, 0xff, sizeof(int32_t) << HASH_BITS); /* -1: no candidate */
  if (trak_pb_buf_ensure(out, 2)) {
    *out->p++ = 0x78; /* deflate, 32K window */
    *out->p++ = 0x01; /* no preset dictionary; header checksum */
  }
  bits b = {out, 0, 0};
  put_bits(&b, 1, 1); /* BFINAL: one block */
  put_bits(&b, 1, 2); /* BTYPE 01: fixed Huffman codes */
  size_t i = 0;
  while (i < n) {
    int best = 0;
    size_t dist = 0;
    if (i + MIN_MATCH <= n) {
      uint32_t h = hash3(in + i);
      int32_t cand = head[h];
      head[h] = (int32_t)i;
      if (cand >= 0 && i - (size_t)cand <= WINDOW) {
        size_t max = n - i < MAX_MATCH ? n - i : MAX_MATCH;
        size_t k = 0;
        while (k < max && in[(size_t)cand + k] == in[i + k])
          k++;
        if (k >= MIN_MATCH) {
          best = (int)k;
          dist = i - (size_t)cand;
        }
      }
    }
    if (best) {
      put_match(&b, best, (int)dist);
      /* Index the skipped positions too, so later repeats find them. */
      for (size_t j = i + 1; j < i + (size_t)best && j + MIN_MATCH <= n; j++)
        head[hash3(in + j)] = (int32_t)j;
      i += (size_t)best;
    } else {
      put_symbol(&b, in[i++]);
    }
  }
  put_symbol(&b, 256); /* end of block */
  put_bits(&b, 0, 7);  /* flush to a byte boundary */
  uint32_t a = adler32(in, n);
  if (trak_pb_buf_ensure(out, 4)) {
    *out->p++ = (uint8_t)(a >> 24);
    *out->p++ = (uint8_t)(a >> 16);
    *out->p++ = (uint8_t)(a >> 8);
    *out->p++ = (uint8_t)a;
  }
  free(head);
  return out->error;
}
