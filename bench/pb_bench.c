/*
** pb_bench: encode and decode throughput of the wire codec on a realistic TrackEvent stream.
**
** The stream mimics what the SDK writes: per packet a timestamp, a sequence id and a TrackEvent
** with type, interned name and category ids and a track uuid; slices come as begin/end pairs,
** every fifth slice carries two debug annotations, every tenth packet is a counter, and the
** first packet of the sequence carries interned data. Decoding walks every field of every
** packet, the track event and its annotations, the way an importer does.
** Prints MB/s of packet bytes and packets/s, the median of several runs.
** Usage: pb_bench [packets]   (default 2,000,000)
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "trak/pb.h"
#include "trak/protos.h"
#include "bench_util.h"

#define RUNS 7

static void put_interned(trak_pb_buf *b, uint32_t field, uint64_t iid, const char *name) {
  trak_pb_nested t = trak_pb_begin_nested(b, field);
  trak_pb_put_varint(b, TRAK_PB_EventName_iid, iid);
  trak_pb_put_string(b, TRAK_PB_EventName_name, name);
  trak_pb_end_nested(b, t);
}

/* Writes `n` packets into `b` (a Trace). Returns the number of packets written. */
static size_t encode_stream(trak_pb_buf *b, size_t n) {
  uint64_t ts = 3600ull * 1000000000; /* an hour of boot time, in ns: a 7-byte varint */
  for (size_t i = 0; i < n; i++) {
    /* As in Perfetto's files: minimal top-level packet lengths, 4-byte nested ones. */
    trak_pb_nested packet = trak_pb_begin_nested_short(b, TRAK_PB_Trace_packet);
    ts += 137 + (i % 7) * 11;
    trak_pb_put_varint(b, TRAK_PB_TracePacket_timestamp, ts);
    trak_pb_put_varint(b, TRAK_PB_TracePacket_trusted_packet_sequence_id, 7);
    if (i == 0) {
      trak_pb_put_varint(b, TRAK_PB_TracePacket_sequence_flags,
                         TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED);
      trak_pb_nested interned = trak_pb_begin_nested(b, TRAK_PB_TracePacket_interned_data);
      put_interned(b, TRAK_PB_InternedData_event_names, 1, "DrawFrame");
      put_interned(b, TRAK_PB_InternedData_event_categories, 1, "rendering");
      put_interned(b, TRAK_PB_InternedData_debug_annotation_names, 1, "frame");
      trak_pb_end_nested(b, interned);
    } else {
      trak_pb_put_varint(b, TRAK_PB_TracePacket_sequence_flags,
                         TRAK_PB_TracePacket_SEQ_NEEDS_INCREMENTAL_STATE);
    }
    trak_pb_nested event = trak_pb_begin_nested(b, TRAK_PB_TracePacket_track_event);
    if (i % 10 == 9) {
      trak_pb_put_varint(b, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_COUNTER);
      trak_pb_put_varint(b, TRAK_PB_TrackEvent_track_uuid, 0x8d3f5eed00000002ull);
      trak_pb_put_int64(b, TRAK_PB_TrackEvent_counter_value, (int64_t)(i * 3));
    } else if (i % 2 == 0) {
      trak_pb_put_varint(b, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_SLICE_BEGIN);
      trak_pb_put_varint(b, TRAK_PB_TrackEvent_track_uuid, 0x8d3f5eed00000001ull);
      trak_pb_put_varint(b, TRAK_PB_TrackEvent_category_iids, 1);
      trak_pb_put_varint(b, TRAK_PB_TrackEvent_name_iid, 1 + i % 3);
      if (i % 5 == 0) {
        trak_pb_nested arg = trak_pb_begin_nested(b, TRAK_PB_TrackEvent_debug_annotations);
        trak_pb_put_varint(b, TRAK_PB_DebugAnnotation_name_iid, 1);
        trak_pb_put_int64(b, TRAK_PB_DebugAnnotation_int_value, (int64_t)i);
        trak_pb_end_nested(b, arg);
        arg = trak_pb_begin_nested(b, TRAK_PB_TrackEvent_debug_annotations);
        trak_pb_put_string(b, TRAK_PB_DebugAnnotation_name, "path");
        trak_pb_put_string(b, TRAK_PB_DebugAnnotation_string_value, "/usr/lib/libfoo.so");
        trak_pb_end_nested(b, arg);
      }
    } else {
      trak_pb_put_varint(b, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_SLICE_END);
      trak_pb_put_varint(b, TRAK_PB_TrackEvent_track_uuid, 0x8d3f5eed00000001ull);
    }
    trak_pb_end_nested(b, event);
    trak_pb_end_nested_short(b, packet);
  }
  return n;
}

/* Sums every scalar it meets so the compiler cannot drop the walk. */
static uint64_t decode_message(trak_pb_decoder *dec, int depth) {
  uint64_t sum = 0;
  trak_pb_field f;
  while (trak_pb_decoder_next(dec, &f) == 1) {
    if (f.wire_type != TRAK_PB_WIRE_LEN) {
      sum += f.value;
      continue;
    }
    /* Recurse into the messages an importer opens; strings are only looked at. */
    int nested = (depth == 0 && f.number == TRAK_PB_Trace_packet) ||
                 (depth == 1 && (f.number == TRAK_PB_TracePacket_track_event ||
                                 f.number == TRAK_PB_TracePacket_interned_data)) ||
                 (depth == 2 && (f.number == TRAK_PB_TrackEvent_debug_annotations ||
                                 f.number == TRAK_PB_InternedData_event_names ||
                                 f.number == TRAK_PB_InternedData_event_categories ||
                                 f.number == TRAK_PB_InternedData_debug_annotation_names));
    if (nested) {
      trak_pb_decoder child;
      trak_pb_decoder_init_nested(&child, dec, &f);
      sum += decode_message(&child, depth + 1);
    } else {
      sum += f.len + f.data[0];
    }
  }
  return sum;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  encode_stream(&b, n); /* warm-up, and sizes the buffer */
  size_t bytes = trak_pb_buf_len(&b);

  double enc[RUNS], dec[RUNS];
  uint64_t checksum = 0;
  for (int r = 0; r < RUNS; r++) {
    b.p = b.start;
    double t0 = bench_now_sec();
    encode_stream(&b, n);
    enc[r] = bench_now_sec() - t0;
    trak_pb_decoder d;
    trak_pb_decoder_init(&d, b.start, trak_pb_buf_len(&b));
    t0 = bench_now_sec();
    checksum += decode_message(&d, 0);
    dec[r] = bench_now_sec() - t0;
  }
  qsort(enc, RUNS, sizeof *enc, bench_cmp_double);
  qsort(dec, RUNS, sizeof *dec, bench_cmp_double);
  double e = enc[RUNS / 2], d = dec[RUNS / 2];
  printf("stream: %zu packets, %zu bytes (%.1f bytes/packet)\n", n, bytes,
         (double)bytes / (double)n);
  printf("encode: %.0f MB/s, %.1f M packets/s\n", (double)bytes / e / 1e6, (double)n / e / 1e6);
  printf("decode: %.0f MB/s, %.1f M packets/s\n", (double)bytes / d / 1e6, (double)n / d / 1e6);
  printf("(checksum %llu)\n", (unsigned long long)checksum);
  trak_pb_buf_free(&b);
  return 0;
}
