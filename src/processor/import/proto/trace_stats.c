/*
** This file holds the import of TracePacket.trace_stats, the figures a tracing service (trak's
** SDK and daemon, or Perfetto's traced) writes about its buffers and losses, into the `stats`
** table under Perfetto's names (traced_*, source 'trace'), as Perfetto's trace processor does:
** each packet sets the figures it carries, absent ones to 0; per-buffer figures are indexed by
** the buffer's position in the packet. The severities follow Perfetto's stats.h; a figure of
** data_loss severity above 0 is also passed to the diag callback, so `trak check` lists it.
*/
#include <stdio.h>
#include <string.h>

#include "processor/import/import.h"

#define INFO TRAK_SEVERITY_INFO
#define LOSS TRAK_SEVERITY_DATA_LOSS

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
     {"traced_chunks_discarded", LOSS,
      "Chunks the service discarded before committing them to a buffer (trak: malformed "
      "chunks from producers).",
      0}},
    {TRAK_PB_TraceStats_patches_discarded,
     0,
     {"traced_patches_discarded", LOSS, "Patches the service discarded before applying them.", 0}},
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
};

/* Stats of one buffer (TraceStats.BufferStats), indexed by buffer. */
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
     {"traced_buf_chunks_discarded", LOSS, "Chunks a full DISCARD buffer refused.", 0}},
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
     {"traced_buf_readaheads_failed", LOSS, "Reads of packets spanning chunks that failed.", 0}},
    {TRAK_PB_TraceStats_BufferStats_abi_violations,
     {"traced_buf_abi_violations", LOSS, "Violations of the shared memory ABI by producers.", 0}},
    {TRAK_PB_TraceStats_BufferStats_trace_writer_packet_loss,
     {"traced_buf_trace_writer_packet_loss", LOSS,
      "Packet loss the service saw on this buffer's writer sequences (trak: packets written "
      "that the trace does not hold).",
      0}},
};

_Static_assert(sizeof singles / sizeof *singles == TRAK_TRACED_SINGLE_COUNT, "singles");
_Static_assert(sizeof buffers / sizeof *buffers == TRAK_TRACED_BUFFER_COUNT, "buffers");

/* Tells the diag callback about a loss the trace reports (it is not counted again: the row
** holds the figure). */
__attribute__((noinline, cold)) static void
report_loss(trak_importer *imp, const trak_stat_def *def, int64_t idx, int64_t value) {
  if (!imp->opts.diag) return;
  char msg[160];
  if (idx < 0)
    snprintf(msg, sizeof msg, "trace_stats: %s = %lld while recording", def->name,
             (long long)value);
  else
    snprintf(msg, sizeof msg, "trace_stats: %s = %lld in buffer %lld while recording", def->name,
             (long long)value, (long long)idx);
  imp->opts.diag(imp->opts.user, imp->packet_index, imp->packet_offset, def->severity, def->name,
                 msg);
}

/* Sets the figures of buffer `index` from one BufferStats, absent ones to 0. */
static void buffer_stats_add(trak_importer *imp, size_t index, const uint8_t *data, size_t len) {
  size_t need = (index + 1) * TRAK_TRACED_BUFFER_COUNT;
  if (imp->traced_buf.cap < need)
    trak__grow((void **)&imp->traced_buf.v, &imp->traced_buf.cap, need, sizeof(int64_t));
  if (imp->traced_buf.n < need) {
    memset(imp->traced_buf.v + imp->traced_buf.n, 0, (need - imp->traced_buf.n) * sizeof(int64_t));
    imp->traced_buf.n = need;
  }
  int64_t *row = imp->traced_buf.v + index * TRAK_TRACED_BUFFER_COUNT;
  memset(row, 0, TRAK_TRACED_BUFFER_COUNT * sizeof *row);
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    for (size_t i = 0; i < TRAK_TRACED_BUFFER_COUNT; i++)
      if (buffers[i].field == f.number) row[i] = (int64_t)f.value;
  }
  for (size_t i = 0; i < TRAK_TRACED_BUFFER_COUNT; i++)
    if (row[i] && buffers[i].def.severity != TRAK_SEVERITY_INFO)
      report_loss(imp, &buffers[i].def, (int64_t)index, row[i]);
}

void trak__trace_stats_add(trak_importer *imp, const uint8_t *data, size_t len) {
  int64_t value[TRAK_TRACED_SINGLE_COUNT] = {0};
  trak_pb_decoder dec;
  trak_pb_field f;
  size_t nbuf = 0;
  trak__dec_init(imp, &dec, data, len);
  int rc;
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    if (f.number == TRAK_PB_TraceStats_buffer_stats && f.wire_type == TRAK_PB_WIRE_LEN) {
      buffer_stats_add(imp, nbuf++, f.data, f.len);
      continue;
    }
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    for (size_t i = 0; i < TRAK_TRACED_SINGLE_COUNT; i++)
      if (singles[i].field == f.number)
        value[i] = singles[i].outcome ? f.value == singles[i].outcome : (int64_t)f.value;
  }
  if (rc < 0) trak__report(imp, TRAK_STAT_PACKET_MALFORMED, "trace_stats does not decode");
  for (size_t i = 0; i < TRAK_TRACED_SINGLE_COUNT; i++) {
    imp->traced[i] = singles[i].outcome ? imp->traced[i] + value[i] : value[i];
    if (value[i] && singles[i].def.severity != TRAK_SEVERITY_INFO)
      report_loss(imp, &singles[i].def, -1, value[i]);
  }
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
  out->def = &buffers[i % TRAK_TRACED_BUFFER_COUNT].def;
  out->idx = (int64_t)(i / TRAK_TRACED_BUFFER_COUNT);
  out->value = imp->traced_buf.v[i];
  return 1;
}
