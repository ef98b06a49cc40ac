/*
** Tests of what the importer puts in `metadata` and `stats` beside the events, where the golden
** tests (tests/data/golden/metadata/trace_metadata_*, trace_stats_*) cannot say it: a
** trace_uuid computed from the trace's first bytes (the golden tests also feed their traces as
** text and gzipped), previous_packet_dropped as a bit mask of loss causes, a trace with no
** metadata packets, and the lookup functions on NULL. The expected answers were compared with
** Perfetto's trace_processor_shell on the same bytes.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sqlcheck.h"
#include "trak/pb.h"
#include "trak/protos.h"

static trak_processor *open_bytes(const void *data, size_t len) {
  trak_processor *p;
  trak_error err;
  if (trak_processor_new(NULL, &p, &err)) fail_msg("%s", err.message);
  int rc = trak_processor_feed(p, data, len, &err);
  if (!rc) rc = trak_processor_finish(p, &err);
  if (rc) fail_msg("%s", err.message);
  return p;
}

static void packet_dropped(trak_pb_buf *b, uint32_t seq, uint32_t bits) {
  trak_pb_nested n = trak_pb_begin_nested(b, TRAK_PB_Trace_packet);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_trusted_packet_sequence_id, seq);
  if (bits) trak_pb_put_varint(b, TRAK_PB_TracePacket_previous_packet_dropped, bits);
  trak_pb_end_nested(b, n);
}

static void writer(trak_pb_buf *b, uint32_t seq, uint32_t buffer) {
  trak_pb_nested n = trak_pb_begin_nested(b, TRAK_PB_TraceStats_writer_stats);
  trak_pb_put_varint(b, TRAK_PB_TraceStats_WriterStats_sequence_id, seq);
  trak_pb_put_varint(b, TRAK_PB_TraceStats_WriterStats_buffer, buffer);
  trak_pb_end_nested(b, n);
}

/* Each DATA_LOSS_* bit after a sequence's first packet counts once for the buffer its writer
** used; bit 0 alone (a loss with no known cause) counts only as a loss. */
static void loss_causes(void **state) {
  (void)state;
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  static const uint32_t seq2[] = {9, 3, 3, 17, 1}; /* the first (9) is not counted */
  for (size_t i = 0; i < sizeof seq2 / sizeof *seq2; i++)
    packet_dropped(&b, 2, seq2[i]);
  packet_dropped(&b, 3, 0);
  packet_dropped(&b, 3, 511); /* every cause */
  trak_pb_nested pk = trak_pb_begin_nested(&b, TRAK_PB_Trace_packet);
  trak_pb_put_varint(&b, TRAK_PB_TracePacket_trusted_packet_sequence_id, 1);
  trak_pb_nested ts = trak_pb_begin_nested(&b, TRAK_PB_TracePacket_trace_stats);
  writer(&b, 2, 1);
  writer(&b, 3, 1);
  trak_pb_end_nested(&b, ts);
  trak_pb_end_nested(&b, pk);
  assert_int_equal(b.error, 0);
  trak_processor *p = open_bytes(b.start, (size_t)(b.p - b.start));
  trak_pb_buf_free(&b);
  assert_string_equal(sc_rows(p, "SELECT name, idx, value FROM stats WHERE name GLOB "
                                 "'traced_buf_data_loss_*' OR name = "
                                 "'traced_buf_sequence_packet_loss' ORDER BY name, idx"),
                      "traced_buf_data_loss_chunk_corrupted|1|1\n"
                      "traced_buf_data_loss_orphan_continuation|1|1\n"
                      "traced_buf_data_loss_overwrite|1|1\n"
                      "traced_buf_data_loss_read_gap|1|3\n"
                      "traced_buf_data_loss_reassembly_broken_chain|1|1\n"
                      "traced_buf_data_loss_reassembly_gap|1|2\n"
                      "traced_buf_data_loss_smb_full|1|1\n"
                      "traced_buf_data_loss_writer_abort|1|1\n"
                      "traced_buf_sequence_packet_loss|1|5");
  trak_processor_free(p);
}

/* Without a TraceUuid packet or a config's uuid, trace_uuid is the FNV-1a hash of the first
** 4096 bytes as the low 64 bits (Perfetto's rule), and a global key (no trace_id). */
static void uuid_from_bytes(void **state) {
  (void)state;
  /* one packet: trusted_packet_sequence_id 1, timestamp 10, an instant "x" */
  static const uint8_t trace[] = {0x0a, 0x0c, 0x40, 0x0a, 0x50, 0x01, 0x5a,
                                  0x06, 0x48, 0x03, 0xba, 0x01, 0x01, 0x78};
  trak_processor *p = open_bytes(trace, sizeof trace);
  assert_string_equal(sc_rows(p, "SELECT str_value, machine_id, trace_id FROM metadata "
                                 "WHERE name = 'trace_uuid'"),
                      "00000000-0000-0000-0628-6918a848c93f|NULL|NULL");
  /* Every trace has these, in this order; nothing else without metadata packets. */
  assert_string_equal(sc_rows(p, "SELECT id, name, int_value, str_value FROM metadata "
                                 "WHERE name <> 'trace_uuid' ORDER BY id"),
                      "1|trace_type|NULL|proto\n2|trace_size_bytes|14|NULL");
  assert_string_equal(sc_rows(p, "SELECT extract_metadata(NULL) IS NULL, "
                                 "extract_metadata('trace_size_bytes'), "
                                 "extract_exact_metadata(0, 0, 'trace_size_bytes'), "
                                 "extract_metadata_for_machine(0, 'trace_type') IS NULL"),
                      "1|14|NULL|1");
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(loss_causes),
      cmocka_unit_test(uuid_from_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
