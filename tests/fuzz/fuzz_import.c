/*
** libFuzzer target for the trace importer: arbitrary bytes are fed in two chunks (split where the
** first byte says, so packet straddling is exercised), the import is finished, and queries touch
** every table and the SQL functions (to_ftrace over the ftrace events, the trace diagnostics).
** Nothing may crash, leak or read out of bounds.
**
** A structure-aware mutator (LLVMFuzzerCustomMutator) reaches what byte flips cannot: it wraps
** the input in a packet's zlib compressed_packets (again and again: nesting), gzips it whole,
** or appends a packet claiming a huge length, besides libFuzzer's own mutations.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "trak/processor.h"

static void run(trak_processor *p, const char *sql) {
  trak_query *q;
  if (trak_query_open(p, sql, &q, NULL, NULL) || !q) return;
  while (trak_query_next(q, NULL) > 0) {
  }
  trak_query_free(q);
}

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static size_t put_varint(uint8_t *p, uint64_t v) {
  size_t n = 0;
  do {
    p[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  return n;
}

/* Replaces data with Trace{packet{compressed_packets: zlib(data)}} (gzip: the gzip of data).
** Returns the new size, or 0 if it does not fit. */
static size_t wrap(uint8_t *data, size_t size, size_t max_size, int gzip) {
  uLong bound = compressBound(size) + 32;
  uint8_t *z = malloc(bound);
  if (!z) return 0;
  z_stream s;
  memset(&s, 0, sizeof s);
  size_t zn = 0;
  if (deflateInit2(&s, 6, Z_DEFLATED, gzip ? 15 + 16 : 15, 8, Z_DEFAULT_STRATEGY) == Z_OK) {
    s.next_in = data, s.avail_in = (uInt)size;
    s.next_out = z, s.avail_out = (uInt)bound;
    if (deflate(&s, Z_FINISH) == Z_STREAM_END) zn = bound - s.avail_out;
    deflateEnd(&s);
  }
  size_t out = 0;
  if (zn && gzip && zn <= max_size) {
    memcpy(data, z, zn);
    out = zn;
  } else if (zn && !gzip) {
    uint8_t head[16], inner[16];
    size_t inner_head = put_varint(inner, 50u << 3 | 2); /* TracePacket.compressed_packets */
    inner_head += put_varint(inner + inner_head, zn);
    size_t h = put_varint(head, 1u << 3 | 2); /* Trace.packet */
    h += put_varint(head + h, inner_head + zn);
    if (h + inner_head + zn <= max_size) {
      memcpy(data, head, h);
      memcpy(data + h, inner, inner_head);
      memcpy(data + h + inner_head, z, zn);
      out = h + inner_head + zn;
    }
  }
  free(z);
  return out;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  switch (seed % 16) {
  case 0:
  case 1: { /* nest: one more level of compressed_packets */
    size_t n = wrap(data, size, max_size, 0);
    if (n) return n;
    break;
  }
  case 2: { /* gzip the whole trace */
    size_t n = wrap(data, size, max_size, 1);
    if (n) return n;
    break;
  }
  case 3: /* a packet claiming more than the packet limit, then the input again */
    if (size + 8 <= max_size) {
      static const uint8_t huge[] = {0x0a, 0x80, 0x80, 0x80, 0x81, 0x01}; /* 257 MiB */
      memcpy(data + size, huge, sizeof huge);
      return size + sizeof huge;
    }
    break;
  default:
    break;
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  trak_processor *p;
  if (trak_processor_new(NULL, &p, NULL)) return 0;
  size_t split = size ? data[0] % (size + 1) : 0;
  trak_processor_feed(p, data, split, NULL);
  trak_processor_feed(p, data + split, size - split, NULL);
  if (trak_processor_finish(p, NULL) == 0) {
    run(p, "SELECT * FROM slice JOIN track ON slice.track_id = track.id");
    run(p,
        "SELECT * FROM args; SELECT * FROM counter; SELECT * FROM thread; SELECT * FROM process");
    run(p, "SELECT extract_arg(arg_set_id, 'debug.x') FROM slice");
    run(p, "SELECT (SELECT COUNT(*) FROM ancestor_slice(id)) + (SELECT COUNT(*) FROM "
           "descendant_slice(id)) + (SELECT COUNT(*) FROM following_flow(id)) + "
           "(SELECT COUNT(*) FROM preceding_flow(id)) FROM slice LIMIT 50");
    run(p, "SELECT to_ftrace(id) FROM ftrace_event LIMIT 200");
    run(p, "SELECT * FROM __intrinsic_trace_diagnostics");
  }
  trak_processor_free(p);
  return 0;
}
