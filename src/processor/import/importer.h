/*
** The importer: the state of one import, made of one part per concept, each owned by the file
** named beside it (imp->threads by threads.c, imp->tracks by tracks.c, ...); its lifetime
** (importer.c); and the few inline fast paths that read more than one part.
** Importing happens in two phases, as in Perfetto:
**   1. tokenize (proto/packet.c and the files it calls, json/json_import.c): packets are read
**      in file order; per-sequence incremental state, interning, defaults, clock snapshots and
**      track descriptors are applied at once, and each event becomes a 32-byte record
**      (sequence.h) with resolved string ids and a timestamp in the trace clock;
**   2. parse (event_parser.c): the sequences' records are merged by timestamp and turned into
**      slices (with depth and parent), counters and flows.
** The tables live in tables/storage.h; the SQL layer only reads them once the import is done.
*/
#ifndef TRAK_PROCESSOR_IMPORT_IMPORTER_H
#define TRAK_PROCESSOR_IMPORT_IMPORTER_H

#include <stdint.h>

#include "processor/import/args.h"
#include "processor/import/clocks.h"
#include "processor/import/flows.h"
#include "processor/import/metadata.h"
#include "processor/import/sequence.h"
#include "processor/import/slices.h"
#include "processor/import/stats.h"
#include "processor/import/threads.h"
#include "processor/import/tracks.h"
#include "processor/tables/storage.h"
#include "trak/pb.h"
#include "trak/processor.h"
#include "trak/protos.h"
#include "util/wrapping.h" /* timestamps wrap (trak__wadd, ...) */

/* A copy of a packet kept until the end of the trace (its clock was not known yet), with where
** it was, for the reports made when it is retried. */
typedef struct trak_deferred_packet {
  trak_span bytes; /* owned */
  uint64_t index, offset;
  size_t outer_len;
} trak_deferred_packet;

/* A format folder's part of the importer. The core includes no header of its format folders:
** processor.c, which knows them all, gives trak__importer_init their list (trak__format_parts). */
typedef struct trak_format_part {
  /* its rows of the stats table, after the importer's own counts and the parts before it: row
  ** `i` into *out, returning 1, or 0 past the last */
  int (*stats_row)(const struct trak_importer *imp, size_t i, trak_traced_row *out);
  void (*free)(struct trak_importer *imp); /* frees its parts of the importer */
} trak_format_part;

typedef struct trak_importer {
  trak_tables *tables; /* the tables being filled; not owned */
  trak_processor_options opts;
  const trak_format_part *parts; /* the format folders' parts (static, not owned) */
  size_t n_parts;

  /* ---- the concepts' parts, each owned by its file */
  trak_sequences seqs;     /* sequence.c */
  trak_threads threads;    /* threads.c */
  trak_tracks tracks;      /* tracks.c */
  trak_async_tracks async; /* async_tracks.c */
  trak_slices slices;      /* slice_stack.c */
  trak_flows flows;        /* flows.c */
  struct trak_gpu_flows *gpu_flows; /* gpu_flows.c: NULL until a packet notes GPU ids */
  trak_args args;          /* arg_sets.c, arg_order.c, proto/debug_annotations.c */
  TRAK_VEC(uint64_t) aux;  /* flows and extra counters of records (sequence.h) */

  /* ---- problems (report.c) and the rows the SQL layer reads */
  int64_t stats[TRAK_STAT_COUNT];
  uint64_t n_reports; /* problems reported (report.c), to tell whether a step reported one */
  TRAK_VEC(trak_import_log) import_logs; /* rows of _trace_import_logs */
  TRAK_VEC(trak_log_row) logs; /* rows of the logs table (tables/import_result.h), in file
                                ** order */
  TRAK_VEC(trak_package_row) packages; /* rows of package_list (proto/packages.c) */
  trak_map package_names;              /* the string ids of their names -> 1 */
  struct trak_metadata *meta; /* metadata.c: the metadata table's rows; NULL until needed */
  struct trak_ftrace *ftrace; /* ftrace/: the Linux event sink's queue and trackers; NULL until
                              ** a front-end calls it */

  /* ---- clocks (proto/clocks.c; read by the SQL layer's clock functions) */
  trak_map clock_index; /* key -> index in clocks */
  TRAK_VEC(trak_clock) clocks;
  uint32_t trace_clock; /* BOOTTIME unless a snapshot says otherwise */
  /* proto/clock_cache.c: Perfetto's conversion cache, for clock_sync_cache_miss (NULL until
  ** the first conversion or snapshot), the entry that answers the next conversion without a
  ** call, and the clock a snapshot made Perfetto's default for packets (0: none yet) */
  struct trak_clock_cache *clock_cache;
  trak_clock_cache_fast clock_cache_fast;
  uint32_t clock_cache_default;
  /* proto/remote_clock_sync.c: per machine index (the host's unused), and whether the host
  ** wrote a ClockSnapshot yet (a sync before it is not applied, as in Perfetto) */
  TRAK_VEC(trak_remote_machine) remote;
  uint8_t host_snapshot_seen;

  /* ---- owned by proto/ */
  int64_t traced[TRAK_TRACED_SINGLE_COUNT]; /* trace_stats.c: the service's figures */
  TRAK_VEC(trak_traced_indexed) traced_buf; /* trace_stats.c: per-buffer figures, sparse */
  trak_map traced_buf_index;                /* (figure, buffer) -> index in traced_buf */
  struct trak_packet_state *packet_state;   /* metadata_packets.c: rare packets; NULL until one */
  /* metadata_packets.c: the last TraceConfig's bytes (packet_state's), for the trace
  ** diagnostics import_result.c runs; NULL: none */
  const uint8_t *trace_config;
  size_t trace_config_len;
  /* ftrace_generic.c: self-describing ftrace events' descriptors; NULL until one */
  struct trak_ftrace_generic *ftrace_generic;
  /* callstacks.c: interned callstack messages and the events' callstacks; NULL until a trace
  ** has one */
  struct trak_callstacks *callstacks;
  /* stack_samples.c: StreamingProfilePacket samples until their rows; NULL until one */
  struct trak_stack_samples *stack_samples;
  /* perf_samples.c: PerfSample sessions, counter tracks and samples until their rows; NULL
  ** until one */
  struct trak_perf_samples *perf_samples;
  /* heap_profile.c: each sequence's ProfilePacket state; NULL until one */
  struct trak_heap_profiles *heap_profiles;
  /* deobfuscation.c: the DeobfuscationMapping packets until the import's end; NULL until one */
  struct trak_deobfuscation *deobfuscation;
  TRAK_VEC(trak_source_loc) source_locs; /* typed_args.c: interned SourceLocations; [0] unused */
  /* typed_args.c: TrackEvent, ChromeTrackEvent (its extensions) and DebugAnnotation in the
  ** schema, found on first use. */
  const struct trak_pb_message_desc *te_schema, *chrome_te_schema, *da_schema;
  /* TracePacket.track_event_range_of_interest's start_us * 1000 (INT64_MIN: none); the parse
  ** phase drops track events before it when the crop option is on */
  int64_t range_of_interest_ns;
  int64_t crop_before_ns; /* INT64_MIN, or range_of_interest_ns with the crop option */
  int64_t descriptor_ts;  /* of the track descriptor's packet (or latest_ts without one) */
  int64_t latest_ts;      /* the largest packet timestamp so far, in trace time */
  TRAK_VEC(trak_deferred_packet) deferred; /* packet.c: packets whose clock was not known yet */
  size_t deferred_bytes;
  uint8_t at_eof;   /* the whole trace is read: a clock still unknown now is a failure */
  uint8_t prefault; /* the parse phase may fault in its columns on a second core (prefault.h) */
  /* Record blocks of the largest size (TRAK_EV_BLOCK_BYTES + 16) made present by another
  ** thread (read/pipeline.c's decoding thread), or NULL: sequence.c maps its own when the pool
  ** has none ready (util/block_pool.h). */
  struct trak_block_pool *blocks;
  /* The record blocks of 64 KiB and more not from `blocks`, made present ahead of their writes
  ** by the same thread while it reads the file (import/region_ahead.h), or NULL. */
  struct trak_region_ahead *blocks_ahead;

  /* ---- owned by json/ */
  uint8_t json_tie_order; /* a JSON trace with X events: ties sort by trak__ev_tie_key */
  uint8_t json;           /* a JSON trace: slices follow slice_stack.c's discipline */

  /* ---- the input position (read/stream.c, proto/packet.c) */
  const uint8_t *base, *limit; /* the buffer being tokenized (decoder fast path) */
  uint64_t packet_index;       /* of the packet being tokenized */
  uint64_t packet_offset;      /* its byte offset */
  size_t packet_len;           /* its length (of the outer packet) */
  /* its ftrace bundle as the decoding thread decoded it (a trak_fpre of proto/proto.h), or NULL */
  const void *ftrace_pre;
  uint64_t bytes_in;       /* trace bytes fed so far, as stored (compressed or not) */
  uint64_t inflated_total; /* bytes all compressed_packets inflated to so far */
  uint64_t bytes_plain;    /* trace bytes fed so far after gzip (what is tokenized) */
  uint64_t record_bytes;   /* sequence.c: bytes of sequences and their record blocks */
  uint64_t n_events;
  uint64_t n_of_type[8];      /* records of each type (TRAK_EV_*): the tables' final sizes */
  uint64_t n_counter_records; /* extra counter values (counter records are of their type) */
} trak_importer;

/* trak__clock_convert_other's contract (clocks.h); a timestamp already in the trace clock is
** returned as it is without a call. */
static inline int trak__clock_convert(trak_importer *imp, trak_sequence *seq, uint32_t clock_id,
                                      int64_t ts, int64_t *out) {
  if (TRAK_UNLIKELY(imp->threads.machine))
    return trak__remote_clock_convert(imp, seq, clock_id, ts, out);
  if (clock_id == imp->trace_clock) {
    *out = ts;
    return 0;
  }
  return trak__clock_convert_other(imp, seq, clock_id, ts, out);
}

/* trak__clock_cache_convert's contract (clocks.h), without a call when the last conversion's
** cache entry answers (every ftrace event after the first, in most traces). */
static inline void trak__clock_cache_note(trak_importer *imp, uint64_t key, int64_t ts) {
  const trak_clock_cache_fast *f = &imp->clock_cache_fast;
  if (TRAK_LIKELY(key == f->key && ts >= f->lo && ts < f->hi)) return;
  trak__clock_cache_convert(imp, key, ts);
}

/* Starts an import into `tables` (not owned, must outlive the importer) with `opts` (copied;
** NULL: defaults) and the format folders' `parts` (n of them; static, not copied; NULL when
** n is 0): the idle thread and process rows exist from here. Can't fail. */
void trak__importer_init(trak_importer *imp, trak_tables *tables,
                         const trak_processor_options *opts, const trak_format_part *parts,
                         size_t n);
/* Frees everything the importer owns (not the tables), each format part's share included, and
** zeroes it. */
void trak__importer_free(trak_importer *imp);
/* How many threads an import of `size` bytes (0: unknown) uses: TRAK_IMPORT_THREADS=1 or 2
** when set, else 2 for `size` of 4 MiB or more (or unknown) on a machine with two cores or
** more, else 1. The reader's decoding thread (read/pipeline.c) asks it with the trace's size,
** the Linux sink's merge thread (ftrace/merge_thread.c) with its queue's. */
int trak__import_threads(uint64_t size);

/* ---- inline fast paths that read more than one part ---------------------------------- */

/* Starts a decoder over [data, data + len); when that lies in the buffer [base, limit) (limit
** NULL: no buffer), the decoder may read ahead up to the buffer's end (its fast path needs 16
** bytes). The decoding thread's form: it has no importer. */
static inline void trak__dec_init_in(trak_pb_decoder *dec, const uint8_t *data, size_t len,
                                     const uint8_t *base, const uint8_t *limit) {
  trak_pb_decoder_init(dec, data, len);
  if (limit && data >= base && dec->end <= limit) dec->limit = limit;
}

/* trak__dec_init_in within the buffer being tokenized. */
static inline void trak__dec_init(const trak_importer *imp, trak_pb_decoder *dec,
                                  const uint8_t *data, size_t len) {
  trak__dec_init_in(dec, data, len, imp->base, imp->limit);
}

/* The value of the last varint field `number` of the message [data, data + len), or `dflt` when
** it has none (malformed bytes end the search). */
static inline uint64_t trak__dec_varint(const trak_importer *imp, const uint8_t *data, size_t len,
                                        uint32_t number, uint64_t dflt) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == number && f.wire_type == TRAK_PB_WIRE_VARINT) dflt = f.value;
  return dflt;
}

/* Calls fn(imp, arg, bytes, size) for each length-delimited field `number` of the message
** [data, data + len), in order (malformed bytes end the walk). Returns how many there were. */
static inline size_t trak__dec_each(trak_importer *imp, const uint8_t *data, size_t len,
                                    uint32_t number,
                                    void (*fn)(trak_importer *, void *, const uint8_t *, size_t),
                                    void *arg) {
  trak_pb_decoder dec;
  trak_pb_field f;
  size_t n = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == number && f.wire_type == TRAK_PB_WIRE_LEN) fn(imp, arg, f.data, f.len), n++;
  return n;
}

/* The order of JSON records with the same timestamp once the trace has an X event (as
** Perfetto's sorter orders them): thread slice ends (E) first, then complete slices by
** duration, longest first, then everything else; file order within a key. */
/* The key of a record of `type` on `track`, `dur` being a complete slice's duration. */
static inline int64_t trak__tie_key(const trak_importer *imp, uint32_t type, uint32_t track,
                                    int64_t dur) {
  /* E ends a thread slice; an async e (on its own track) sorts with everything else */
  if (type == TRAK_EV_END && imp->tracks.info.v[track].is_legacy_thread) return INT64_MIN;
  if (type == TRAK_EV_COMPLETE) return INT64_MAX - dur;
  return INT64_MAX;
}
/* trak__tie_key of record `ev` (an X's duration is its aux entry's first word). */
static inline int64_t trak__ev_tie_key(const trak_importer *imp, const trak_ev *ev) {
  uint32_t type = ev->track >> TRAK_EV_TYPE_SHIFT;
  return trak__tie_key(imp, type, ev->track & TRAK_EV_TRACK_MASK,
                       type == TRAK_EV_COMPLETE ? (int64_t)imp->aux.v[ev->aux] : 0);
}

/* JSON traces: event `index` at `ts` names thread `utid` (threads.c keeps the earliest). */
static inline void trak__thread_seen(trak_importer *imp, uint32_t utid, int64_t ts,
                                     uint64_t index) {
  if (TRAK_LIKELY(utid < imp->threads.first_use.n && imp->threads.first_use.v[utid].ts <= ts))
    return;
  trak__thread_seen_slow(imp, utid, ts, index);
}

/* A slice leaves its track's stack: its set, if it has one, is made now (arg_order.c). */
static inline void trak__arg_order_slice(trak_importer *imp, uint32_t slice) {
  if (imp->tables->slice.arg_set_id[slice] != TRAK_NULL_U32)
    trak__arg_order_log(imp, TRAK_ARG_ORDER_SLICE, slice);
}

/* A counter value as recorded: on an incremental counter track, the sequence's running sum
** (sequence.c); else `v` as it is. */
static inline double trak__counter_in(trak_importer *imp, trak_sequence *seq, uint32_t track,
                                      double v) {
  if (TRAK_LIKELY(!imp->tracks.info.v[track].is_incremental)) return v;
  return trak__counter_add_incremental(seq, track, v);
}

#endif /* TRAK_PROCESSOR_IMPORT_IMPORTER_H */
