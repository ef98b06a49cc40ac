/*
** This file holds the import of TracePacket.trace_stats, the figures a tracing service (trak's
** SDK and daemon, or Perfetto's traced) writes about its buffers and losses, into the `stats`
** table under Perfetto's names (traced_*, source 'trace'), as Perfetto's trace processor does:
** each packet sets the figures it carries, absent ones to 0; per-buffer figures are indexed by
** the buffer's position in the packet. The severities follow Perfetto's stats.h; a figure of
** data_loss severity above 0 is also passed to the diag callback, so `trak check` lists it.
** Beside the TraceStats fields: the filter's figures, the packet losses of the sequences each
** buffer's writers used (from previous_packet_dropped and the writer_stats map), the clone
** timestamps of service events, and long_trace_mode_bytes_overwritten at the end.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/proto/proto.h"

#define INFO TRAK_SEVERITY_INFO
#define LOSS TRAK_SEVERITY_DATA_LOSS
#define ERR TRAK_SEVERITY_ERROR

/* Stats of the whole service. `outcome` 0: the row is the field's value; else the row counts
** the packets whose field equals `outcome` (final_flush_outcome, an enum). */
typedef struct single_def {
  uint32_t field; /* TraceStats field */
  uint32_t outcome;
  trak_stat_def def;
} single_def;

static const single_def singles[] = {
    {TRAK_PB_TraceStats_producers_connected,
     0,
     {"traced_producers_connected", INFO, "Producers connected to the tracing service.", 0}},
    {TRAK_PB_TraceStats_producers_seen,
     0,
     {"traced_producers_seen", INFO, "Producers the tracing service ever saw.", 0}},
    {TRAK_PB_TraceStats_data_sources_registered,
     0,
     {"traced_data_sources_registered", INFO, "Data sources registered with the service.", 0}},
    {TRAK_PB_TraceStats_data_sources_seen,
     0,
     {"traced_data_sources_seen", INFO, "Data sources the service ever saw.", 0}},
    {TRAK_PB_TraceStats_tracing_sessions,
     0,
     {"traced_tracing_sessions", INFO, "Tracing sessions active in the service.", 0}},
    {TRAK_PB_TraceStats_total_buffers,
     0,
     {"traced_total_buffers", INFO, "Buffers of all the service's sessions.", 0}},
    {TRAK_PB_TraceStats_chunks_discarded,
     0,
     {"traced_chunks_discarded", INFO,
      "Chunks the service discarded before committing them to a buffer (trak: malformed "
      "chunks from producers).",
      0}},
    {TRAK_PB_TraceStats_patches_discarded,
     0,
     {"traced_patches_discarded", INFO, "Patches the service discarded before applying them.", 0}},
    {TRAK_PB_TraceStats_flushes_requested,
     0,
     {"traced_flushes_requested", INFO, "Flushes requested during the session.", 0}},
    {TRAK_PB_TraceStats_flushes_succeeded,
     0,
     {"traced_flushes_succeeded", INFO, "Flushes that completed.", 0}},
    {TRAK_PB_TraceStats_flushes_failed,
     0,
     {"traced_flushes_failed", LOSS, "Flushes that failed (timed out): data may be missing.", 0}},
    {TRAK_PB_TraceStats_final_flush_outcome,
     TRAK_PB_TraceStats_FINAL_FLUSH_SUCCEEDED,
     {"traced_final_flush_succeeded", INFO, "The flush at the end of the session completed.", 0}},
    {TRAK_PB_TraceStats_final_flush_outcome,
     TRAK_PB_TraceStats_FINAL_FLUSH_FAILED,
     {"traced_final_flush_failed", LOSS,
      "The flush at the end of the session failed: the end of the trace may be missing.", 0}},
    /* TraceStats.filter_stats: what the service's packet filter did */
    {0, 0, {"filter_input_packets", INFO, "Packets the trace filter read.", 0}},
    {0, 0, {"filter_input_bytes", INFO, "Bytes the trace filter read.", 0}},
    {0, 0, {"filter_output_bytes", INFO, "Bytes the trace filter let through.", 0}},
    {0, 0, {"filter_errors", ERR, "Packets the trace filter could not parse.", 0}},
    {0, 0, {"filter_time_taken_ns", INFO, "Time the trace filter took, in ns.", 0}},
    /* service events (trak__trace_stats_clone) */
    {0,
     0,
     {"traced_clone_started_timestamp_ns", INFO,
      "When the service began cloning the session (trace time; 0: not a clone).", 0}},
    {0,
     0,
     {"traced_clone_trigger_timestamp_ns", INFO,
      "When the trigger that made the service clone the session fired (trace time).", 0}},
    /* the trace config (trak__trace_stats_finish) */
    {0,
     0,
     {"config_write_into_file_no_flush", ERR,
      "The trace was written into a file (write_into_file) without flush_period_ms, by a "
      "service older than Perfetto v54 (or of unknown version): data of long-lived sources "
      "may be missing from the file.",
      0}},
};
enum { FILTER_FIRST = 13, CLONE_STARTED = 18, CLONE_TRIGGER = 19, NO_FLUSH = 20 };

/* Stats of one buffer, indexed by buffer: first TraceStats.BufferStats's fields, then the
** figures that come from elsewhere (field 0). */
typedef struct buffer_def {
  uint32_t field; /* BufferStats field */
  trak_stat_def def;
} buffer_def;

static const buffer_def buffers[] = {
    {TRAK_PB_TraceStats_BufferStats_buffer_size,
     {"traced_buf_buffer_size", INFO, "Size of the buffer in bytes.", 0}},
    {TRAK_PB_TraceStats_BufferStats_bytes_written,
     {"traced_buf_bytes_written", INFO, "Bytes written into the buffer.", 0}},
    {TRAK_PB_TraceStats_BufferStats_bytes_overwritten,
     {"traced_buf_bytes_overwritten", INFO, "Bytes overwritten before they were read.", 0}},
    {TRAK_PB_TraceStats_BufferStats_bytes_read,
     {"traced_buf_bytes_read", INFO, "Bytes read out of the buffer.", 0}},
    {TRAK_PB_TraceStats_BufferStats_padding_bytes_written,
     {"traced_buf_padding_bytes_written", INFO, "Padding bytes written between chunks.", 0}},
    {TRAK_PB_TraceStats_BufferStats_padding_bytes_cleared,
     {"traced_buf_padding_bytes_cleared", INFO, "Padding bytes cleared when overwritten.", 0}},
    {TRAK_PB_TraceStats_BufferStats_chunks_written,
     {"traced_buf_chunks_written", INFO, "Chunks written into the buffer.", 0}},
    {TRAK_PB_TraceStats_BufferStats_chunks_rewritten,
     {"traced_buf_chunks_rewritten", INFO, "Chunks written again with more packets.", 0}},
    {TRAK_PB_TraceStats_BufferStats_chunks_overwritten,
     {"traced_buf_chunks_overwritten", INFO,
      "Chunks a ring buffer overwrote before they were read.", 0}},
    {TRAK_PB_TraceStats_BufferStats_chunks_discarded,
     {"traced_buf_chunks_discarded", INFO, "Chunks a full DISCARD buffer refused.", 0}},
    {TRAK_PB_TraceStats_BufferStats_chunks_read,
     {"traced_buf_chunks_read", INFO, "Chunks read out of the buffer.", 0}},
    {TRAK_PB_TraceStats_BufferStats_chunks_committed_out_of_order,
     {"traced_buf_chunks_committed_out_of_order", INFO, "Chunks committed out of order.", 0}},
    {TRAK_PB_TraceStats_BufferStats_write_wrap_count,
     {"traced_buf_write_wrap_count", INFO, "Times the ring buffer wrapped around.", 0}},
    {TRAK_PB_TraceStats_BufferStats_patches_succeeded,
     {"traced_buf_patches_succeeded", INFO, "Chunk patches applied.", 0}},
    {TRAK_PB_TraceStats_BufferStats_patches_failed,
     {"traced_buf_patches_failed", LOSS,
      "Chunk patches that failed: data written into this buffer may be lost.", 0}},
    {TRAK_PB_TraceStats_BufferStats_readaheads_succeeded,
     {"traced_buf_readaheads_succeeded", INFO, "Reads of packets spanning chunks that succeeded.",
      0}},
    {TRAK_PB_TraceStats_BufferStats_readaheads_failed,
     {"traced_buf_readaheads_failed", INFO, "Reads of packets spanning chunks that failed.", 0}},
    {TRAK_PB_TraceStats_BufferStats_abi_violations,
     {"traced_buf_abi_violations", LOSS, "Violations of the shared memory ABI by producers.", 0}},
    {TRAK_PB_TraceStats_BufferStats_trace_writer_packet_loss,
     {"traced_buf_trace_writer_packet_loss", LOSS,
      "Packet loss the service saw on this buffer's writer sequences (trak: packets written "
      "that the trace does not hold).",
      0}},
    {TRAK_PB_TraceStats_BufferStats_chunks_relocated,
     {"traced_buf_chunks_relocated", INFO, "Chunks moved within the buffer.", 0}},
    {0,
     {"traced_buf_bytes_filtered_out", INFO, "Bytes the trace filter removed from the buffer.", 0}},
    {0,
     {"traced_buf_sequence_packet_loss", LOSS,
      "Packets after which packets were lost, on the sequences writing into the buffer "
      "(TracePacket.previous_packet_dropped; the first packet of a sequence is not counted).",
      1}},
    {0,
     {"traced_buf_incremental_sequences_dropped", LOSS,
      "Sequences writing into the buffer all of whose packets needing incremental state were "
      "skipped because that state was lost.",
      1}},
    /* the cause bits of previous_packet_dropped, 2 to 256 */
    {0, {"traced_buf_data_loss_read_gap", LOSS, "Losses from a gap in the read chunks.", 0}},
    {0, {"traced_buf_data_loss_chunk_corrupted", LOSS, "Losses from a corrupted chunk.", 0}},
    {0,
     {"traced_buf_data_loss_orphan_continuation", LOSS,
      "Losses from a packet continuation whose start was gone.", 0}},
    {0,
     {"traced_buf_data_loss_reassembly_gap", LOSS,
      "Losses from a gap while joining a packet split across chunks.", 0}},
    {0,
     {"traced_buf_data_loss_reassembly_broken_chain", LOSS,
      "Losses from a broken chain of chunks of a split packet.", 0}},
    {0, {"traced_buf_data_loss_overwrite", LOSS, "Losses from the ring buffer overwriting.", 0}},
    {0, {"traced_buf_data_loss_writer_abort", LOSS, "Losses from a writer that gave up.", 0}},
    {0,
     {"traced_buf_data_loss_smb_full", LOSS,
      "Losses from a full shared memory buffer between producer and service.", 0}},
    {0,
     {"traced_buf_clone_done_timestamp_ns", INFO,
      "When the service finished cloning the buffer (trace time).", 0}},
    {0,
     {"config_write_into_file_discard", LOSS,
      "The trace was written into a file (write_into_file) through this DISCARD buffer: once "
      "full, it dropped everything that came later.",
      0}},
    {0,
     {"long_trace_mode_bytes_overwritten", LOSS,
      "Bytes a ring buffer overwrote in a trace written into a file (write_into_file with "
      "file_write_period_ms under a day): they never reached the file.",
      0}},
};
#define BUF_STATS_COUNT 20 /* the BufferStats fields above */
enum {
  FILTERED_OUT = 20,
  SEQ_LOSS,
  INC_DROPPED,
  LOSS_CAUSE_FIRST, /* 8 of them */
  CLONE_DONE = LOSS_CAUSE_FIRST + 8,
  INTO_FILE_DISCARD,
  LONG_TRACE_OVERWRITTEN,
  INDEXED_COUNT
};

_Static_assert(sizeof singles / sizeof *singles == TRAK_TRACED_SINGLE_COUNT, "singles");
_Static_assert(sizeof buffers / sizeof *buffers == INDEXED_COUNT, "buffers");

/* Tells the diag callback about a loss the trace reports (it is not counted again: the row
** holds the figure), with what the figure means. `from` says where the figure comes from. */
__attribute__((noinline, cold)) static void report_loss(trak_importer *imp,
                                                        const trak_stat_def *def, int64_t idx,
                                                        int64_t value, const char *from) {
  if (!imp->opts.diag) return;
  /* Perfetto calls discarded chunks and patches info, but they are data the service lost:
  ** `trak check` hears of them as losses. */
  trak_severity severity =
      def->severity == TRAK_SEVERITY_INFO ? TRAK_SEVERITY_DATA_LOSS : def->severity;
  char msg[512], where[48] = "";
  if (idx >= 0) snprintf(where, sizeof where, " in buffer %lld", (long long)idx);
  snprintf(msg, sizeof msg, "%s: %s = %lld%s: %s", from, def->name, (long long)value, where,
           def->description);
  trak__diag(imp, imp->packet_index, severity, def->name, msg);
}

/* Sets figure `def` of buffer `idx` (a later value replaces an earlier one). Buffer indexes
** come from the trace (up to 2^32): the map keeps a packet with many buffers linear. */
static void set_indexed(trak_importer *imp, uint32_t def, int64_t idx, int64_t value) {
  int added;
  uint64_t key = (uint64_t)def << 40 | ((uint64_t)idx & 0xffffffffffull);
  uint32_t *slot = trak__map_put(&imp->traced_buf_index, key, (uint32_t)imp->traced_buf.n, &added);
  if (!added) {
    imp->traced_buf.v[*slot].value = value;
    return;
  }
  trak_traced_indexed e = {def, idx, value, 0};
  trak_vec_push(imp->traced_buf, e);
}

/* Sets the figures of buffer `index` from one BufferStats, absent ones to 0. */
static void buffer_stats_add(trak_importer *imp, size_t index, const uint8_t *data, size_t len) {
  int64_t row[BUF_STATS_COUNT] = {0};
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    for (size_t i = 0; i < BUF_STATS_COUNT; i++)
      if (buffers[i].field == f.number) row[i] = (int64_t)f.value;
  }
  for (uint32_t i = 0; i < BUF_STATS_COUNT; i++) {
    set_indexed(imp, i, (int64_t)index, row[i]);
    if (row[i] && (buffers[i].def.severity != TRAK_SEVERITY_INFO ||
                   buffers[i].field == TRAK_PB_TraceStats_BufferStats_chunks_discarded ||
                   buffers[i].field == TRAK_PB_TraceStats_BufferStats_readaheads_failed))
      report_loss(imp, &buffers[i].def, (int64_t)index, row[i], "trace_stats");
  }
}

/* TraceStats.filter_stats. */
static void filter_stats_add(trak_importer *imp, int64_t *value, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int64_t nbuf = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_TraceStats_FilterStats_bytes_discarded_per_buffer) {
      trak_pb_packed it;
      uint64_t v;
      if (f.wire_type == TRAK_PB_WIRE_VARINT) {
        set_indexed(imp, FILTERED_OUT, nbuf++, (int64_t)f.value);
      } else if (f.wire_type == TRAK_PB_WIRE_LEN) {
        trak_pb_packed_init(&it, &f, TRAK_PB_WIRE_VARINT);
        int rc;
        while ((rc = trak_pb_packed_next(&it, &v)) > 0)
          set_indexed(imp, FILTERED_OUT, nbuf++, (int64_t)v);
        if (rc < 0)
          trak__report(imp, TRAK_STAT_PACKET_MALFORMED,
                       "a packed repeated field of %s does not decode; the values before the bad "
                       "one were kept",
                       "trace_stats");
      }
      continue;
    }
    if (f.wire_type != TRAK_PB_WIRE_VARINT || f.number < 1 || f.number > 5) continue;
    /* input_packets 1, input_bytes 2, output_bytes 3, errors 4, time_taken_ns 5 */
    value[FILTER_FIRST + f.number - 1] = (int64_t)f.value;
  }
}

void trak__trace_stats_loss(trak_sequence *seq, uint32_t bits) {
  if (!seq->losses) {
    seq->losses = calloc(9, sizeof *seq->losses);
    if (!seq->losses) abort();
  }
  seq->losses[0]++;
  for (int b = 1; b <= 8; b++)
    if (bits & (1u << b)) seq->losses[b]++;
}

/* The loss figures of each buffer from the sequences writing into it (TraceStats.writer_stats
** maps sequence ids to buffers): only buffers with a known sequence get rows, as in Perfetto. */
static void writer_stats_add(trak_importer *imp, const trak_span *writers, size_t n) {
  TRAK_VEC(int64_t) sums = {0}; /* per buffer: 1 + 1 + 8 figures, and a "seen" mark */
  enum { W = 11 };
  for (size_t i = 0; i < n; i++) {
    trak_pb_decoder dec;
    trak_pb_field f;
    uint64_t seq_id = 0, buffer = 0;
    trak__dec_init(imp, &dec, writers[i].data, writers[i].len);
    while (trak_pb_decoder_next(&dec, &f) > 0) {
      if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
      if (f.number == TRAK_PB_TraceStats_WriterStats_sequence_id) seq_id = f.value;
      if (f.number == TRAK_PB_TraceStats_WriterStats_buffer) buffer = (uint32_t)f.value;
    }
    uint32_t *slot = trak__map_get(&imp->seqs.by_id, seq_id);
    if (!slot || buffer > 1024) continue;
    const trak_sequence *seq = imp->seqs.all.v[*slot];
    while (sums.n < (buffer + 1) * W)
      trak_vec_push(sums, 0);
    int64_t *b = sums.v + buffer * W;
    b[0] = 1;
    b[1] += seq->losses ? seq->losses[0] : 0;
    b[2] += seq->needs_state_skipped && seq->needs_state_skipped == seq->needs_state_total;
    for (int c = 0; c < 8; c++)
      b[3 + c] += seq->losses ? seq->losses[1 + c] : 0;
  }
  for (size_t buf = 0; buf * W < sums.n; buf++) {
    const int64_t *b = sums.v + buf * W;
    if (!b[0]) continue;
    set_indexed(imp, SEQ_LOSS, (int64_t)buf, b[1]);
    set_indexed(imp, INC_DROPPED, (int64_t)buf, b[2]);
    for (uint32_t c = 0; c < 8; c++)
      set_indexed(imp, LOSS_CAUSE_FIRST + c, (int64_t)buf, b[3 + c]);
  }
  trak_vec_free(sums);
}

void trak__trace_stats_add(trak_importer *imp, const uint8_t *data, size_t len) {
  int64_t value[TRAK_TRACED_SINGLE_COUNT];
  memcpy(value, imp->traced, sizeof value); /* figures the packet does not carry stay */
  for (size_t i = 0; i < FILTER_FIRST; i++)
    value[i] = 0;
  TRAK_VEC(trak_span) writers = {0};
  trak_pb_decoder dec;
  trak_pb_field f;
  size_t nbuf = 0;
  trak__dec_init(imp, &dec, data, len);
  int rc;
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    if (f.wire_type == TRAK_PB_WIRE_LEN) {
      if (f.number == TRAK_PB_TraceStats_buffer_stats)
        buffer_stats_add(imp, nbuf++, f.data, f.len);
      else if (f.number == TRAK_PB_TraceStats_filter_stats)
        filter_stats_add(imp, value, f.data, f.len);
      else if (f.number == TRAK_PB_TraceStats_writer_stats)
        trak_vec_push(writers, ((trak_span){f.data, f.len}));
      continue;
    }
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    for (size_t i = 0; i < FILTER_FIRST; i++)
      if (singles[i].field == f.number)
        value[i] = singles[i].outcome ? f.value == singles[i].outcome : (int64_t)f.value;
  }
  if (rc < 0) trak__report(imp, TRAK_STAT_PACKET_MALFORMED, "trace_stats does not decode");
  writer_stats_add(imp, writers.v, writers.n);
  trak_vec_free(writers);
  for (size_t i = 0; i < TRAK_TRACED_SINGLE_COUNT; i++) {
    int64_t was = imp->traced[i];
    imp->traced[i] = singles[i].outcome ? imp->traced[i] + value[i] : value[i];
    /* the carried-over figures (filter, clone) are told about when they change */
    int loss = singles[i].def.severity != TRAK_SEVERITY_INFO ||
               singles[i].field == TRAK_PB_TraceStats_chunks_discarded ||
               singles[i].field == TRAK_PB_TraceStats_patches_discarded;
    if (value[i] && (i < FILTER_FIRST || value[i] != was) && loss)
      report_loss(imp, &singles[i].def, -1, value[i], "trace_stats");
  }
}

void trak__trace_stats_clone(trak_importer *imp, trak_clone_event what, int64_t buffer,
                             int64_t ts) {
  if (what == TRAK_CLONE_STARTED)
    imp->traced[CLONE_STARTED] = ts;
  else if (what == TRAK_CLONE_TRIGGER)
    imp->traced[CLONE_TRIGGER] = ts;
  else
    set_indexed(imp, CLONE_DONE, buffer, ts);
}

static int indexed_cmp(const void *a, const void *b) {
  const trak_traced_indexed *x = a, *y = b;
  if (x->def != y->def) return x->def < y->def ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The fill policy of a TraceConfig.BufferConfig. */
static uint64_t fill_policy(trak_importer *imp, const trak_pb_field *buffer) {
  trak_pb_decoder dec;
  trak_pb_field f;
  uint64_t policy = 0;
  trak__dec_init(imp, &dec, buffer->data, buffer->len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_TraceConfig_BufferConfig_fill_policy) policy = f.value;
  return policy;
}

/* What the config of a write_into_file trace says about its losses: DISCARD buffers, no
** flush period (unless the service is Perfetto v54 or later, `service_major`, -1: unknown),
** and ring buffers that overwrote data, lost for good unless the file period is a day or more
** (Perfetto's cut-off: a ring-buffer trace saved now and then). */
static void config_stats(trak_importer *imp, const uint8_t *config, size_t len,
                         int64_t service_major) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int into_file = 0;
  uint64_t period = 0, flush = 0;
  int64_t nbuf = 0;
  trak__dec_init(imp, &dec, config, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_TraceConfig_write_into_file) into_file = f.value != 0;
    if (f.number == TRAK_PB_TraceConfig_file_write_period_ms) period = f.value;
    if (f.number == TRAK_PB_TraceConfig_flush_period_ms) flush = f.value;
  }
  if (!into_file) return;
  trak__dec_init(imp, &dec, config, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_TraceConfig_buffers || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    if (fill_policy(imp, &f) == TRAK_PB_TraceConfig_BufferConfig_DISCARD) {
      set_indexed(imp, INTO_FILE_DISCARD, nbuf, 1);
      report_loss(imp, &buffers[INTO_FILE_DISCARD].def, nbuf, 1, "trace_config");
    }
    nbuf++;
  }
  if (!flush && (service_major < 0 || service_major < 54)) {
    imp->traced[NO_FLUSH] = 1;
    report_loss(imp, &singles[NO_FLUSH].def, -1, 1, "trace_config");
  }
  if (period >= 24ull * 60 * 60 * 1000) return;
  size_t n = imp->traced_buf.n;
  for (size_t i = 0; i < n; i++) {
    trak_traced_indexed e = imp->traced_buf.v[i];
    if (e.def != 2 /* bytes_overwritten */ || e.idx >= nbuf || e.value <= 0) continue;
    set_indexed(imp, LONG_TRACE_OVERWRITTEN, e.idx, e.value);
    report_loss(imp, &buffers[LONG_TRACE_OVERWRITTEN].def, e.idx, e.value, "trace_stats");
  }
}

void trak__trace_stats_finish(trak_importer *imp, const uint8_t *config, size_t config_len,
                              int64_t service_major) {
  if (config) config_stats(imp, config, config_len, service_major);
  trak__map_free(&imp->traced_buf_index); /* the sort moves the figures */
  if (imp->traced_buf.n)
    qsort(imp->traced_buf.v, imp->traced_buf.n, sizeof *imp->traced_buf.v, indexed_cmp);
}

int trak__trace_stats_row(const trak_importer *imp, size_t i, trak_traced_row *out) {
  if (i < TRAK_TRACED_SINGLE_COUNT) {
    out->def = &singles[i].def;
    out->idx = -1;
    out->value = imp->traced[i];
    return 1;
  }
  i -= TRAK_TRACED_SINGLE_COUNT;
  if (i >= imp->traced_buf.n) return 0;
  out->def = &buffers[imp->traced_buf.v[i].def].def;
  out->idx = imp->traced_buf.v[i].idx;
  out->value = imp->traced_buf.v[i].value;
  return 1;
}
