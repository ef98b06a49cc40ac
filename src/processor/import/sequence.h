/*
** Packet sequences and their event records (sequence.c): the record every importer appends
** while tokenizing (trak_ev, kept packed in byte blocks per sequence: 5-10 bytes for a common
** event instead of its 32), each sequence's interning maps, TracePacketDefaults and incremental
** counters. The parse phase (event_parser.c) merges the sequences' records by timestamp.
*/
#ifndef TRAK_PROCESSOR_IMPORT_SEQUENCE_H
#define TRAK_PROCESSOR_IMPORT_SEQUENCE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "processor/tables/storage.h"
#include "trak/pb.h" /* TRAK_LIKELY */

typedef struct trak_importer trak_importer;

/* Bytes of the input (a sub-message, a packet), not owned unless the holder says so. */
typedef struct trak_span {
  const uint8_t *data;
  size_t len;
} trak_span;

/* ---- event records --------------------------------------------------------------------- */

/* Record types, stored in the top bits of trak_ev.track. */
enum {
  TRAK_EV_BEGIN = 1,
  TRAK_EV_END = 2,
  TRAK_EV_INSTANT = 3,
  TRAK_EV_COUNTER = 4,
  TRAK_EV_EXTRA_ONLY = 5,
  /* JSON only: a slice with its duration (imp->aux[aux] = dur, imp->aux[aux + 1] = index of
  ** its flows block or 0, bit 63 set when thread_ts and thread_dur follow). Both formats: a v1
  ** flow step (u.s.name = trak_flow_v1_kind, imp->aux[aux] = the flow key, trak__flow_v1_key,
  ** imp->aux[aux + 1] = name << 32 | category). */
  TRAK_EV_COMPLETE = 6,
  TRAK_EV_FLOW = 7
};
enum trak_flow_v1_kind {
  TRAK_FLOW_V1_BEGIN = 1,     /* s: from the enclosing slice */
  TRAK_FLOW_V1_STEP,          /* t: through the enclosing slice */
  TRAK_FLOW_V1_END_ENCLOSING, /* f with bp "e": into the enclosing slice */
  TRAK_FLOW_V1_END_NEXT       /* f: into the next slice to begin on the track */
};
/* In the third word of a JSON event's flows block (where protobuf events count their extra
** counter values, which JSON events never have): the block's flow ids are followed by the
** event's tts and tdur in ns (INT64_MIN when absent), for the slice's thread_ts / thread_dur. */
#define TRAK_AUX_JSON_THREAD_TIME (1ULL << 63)
/* Also in that word, for a JSON v2 flow id with both flow_in and flow_out: a step. */
#define TRAK_AUX_JSON_FLOW_STEP (1ULL << 62)
/* An aux block of a protobuf event: [n flow ids, n terminating ids | v2 kind << 32, n extra
** counter values, flow ids..., terminating ids..., (v2 bind_id,) (track, value bits)...]. A
** legacy v2 bind_id (kind != 0) is the last terminating id, counted in the second word. */
enum trak_flow_v2_kind { TRAK_FLOW_V2_OUT = 1, TRAK_FLOW_V2_INOUT, TRAK_FLOW_V2_IN };
/* In the second word of a protobuf event's aux block: the event has a callstack, whose index
** (proto/callstacks.c) is the block's last word, after the counter values. */
#define TRAK_AUX_CALLSTACK (1ULL << 63)
/* Also there: the block's terminating ids end flows an importer made between two slices of its
** own (the Linux event sink's), as Perfetto inserts them: from the slice the flow left to this
** one, with no trace_id. */
#define TRAK_AUX_SLICE_FLOW (1ULL << 62)
#define TRAK_EV_TYPE_SHIFT 29
#define TRAK_EV_TRACK_MASK ((1u << TRAK_EV_TYPE_SHIFT) - 1)

typedef struct trak_ev {
  int64_t ts;     /* trace clock, ns */
  uint32_t track; /* type << TRAK_EV_TYPE_SHIFT | index into imp->tracks.info */
  uint32_t pkt;   /* packet index, for ordering ties and diagnostics */
  union {
    struct {
      uint32_t name; /* string id (0: none) */
      uint32_t cat;  /* string id (0: none) */
    } s;
    double value; /* counter value */
  } u;
  uint32_t arg_set_id; /* TRAK_NULL_U32: no args */
  uint32_t aux;        /* index into imp->aux of flows / extra counters, 0: none */
} trak_ev;

/* A sequence's records live packed in a list of byte blocks that start small and double: a
** trace of many short sequences (a hostile one has thousands) costs memory in proportion to its
** records. Blocks of the largest size are 2 MiB, of small pages (cheaper to zero than a huge page
** on the machines measured, and moved onto the slice columns once read: tables/prefault.h).
**
** A packed record says each field against the sequence's previous record, little-endian
** (trak__sequence_push writes it, trak__ev_unpack reads it back). Bits 0-2 of its first byte
** are the type; bit 3 says which of two forms follows:
** - set: the common event, 8 bytes in all: the same track as the previous record, no arg set, no
**   aux; bits 4-23 the timestamp's delta (< 2^20), 24-31 the packet index's delta (< 2^8),
**   32-47 `u.s.name`, 48-63 `u.s.cat` (each < 2^16).
** - clear: any event, 3 header bytes and the fields they say are there. The first byte's bits
**   4-5 the timestamp's delta (u64, wrapping) in 1, 2, 4 or 8 bytes, 6-7 the packet index's
**   delta (u32, wrapping) in 0, 1, 2 or 4 bytes (size codes 0-3; 0 bytes is the value 0). The
**   second byte's size codes of four fields, each in 0, 1, 2 or 4 bytes: bits 0-1 the track
**   index + 1, or (0) the previous record's track; 2-3 and 4-5 the two halves of `u` (name and
**   category, or a counter value's low and high bits); 6-7 arg_set_id + 1 (0: TRAK_NULL_U32).
**   The third byte: 1 when aux follows in 4 bytes (0: aux is 0).
** At most TRAK_EV_PACKED_MAX bytes; every field is read and written with one 4- or 8-byte
** access, so a block keeps TRAK_EV_BLOCK_SLACK bytes free after its records. sequence_put.h
** (trak__sequence_put) writes them. */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "packed event records assume a little-endian machine"
#endif
#define TRAK_EV_PACKED_COMMON 8u
#define TRAK_EV_PACKED_MAX 35
#define TRAK_EV_BLOCK_SLACK 48
#define TRAK_EV_BLOCK_FIRST 1024              /* bytes of a sequence's first block */
#define TRAK_EV_BLOCK_BYTES ((2u << 20) - 16) /* bytes of the largest blocks (2 MiB) */
typedef struct trak_ev_block {
  struct trak_ev_block *next;
  uint32_t used; /* bytes of packed records */
  uint32_t cap;  /* bytes it holds: TRAK_EV_BLOCK_FIRST, doubling up to TRAK_EV_BLOCK_BYTES */
  uint8_t data[];
} trak_ev_block;

/* trak__ev_unpack of a record in the second form (sequence.c). */
const uint8_t *trak__ev_unpack_any(const uint8_t *p, trak_ev *ev);

/* Reads the packed record at `p` into *ev, which holds the sequence's previous record (all
** zero before its first); returns the next record's bytes. */
static inline const uint8_t *trak__ev_unpack(const uint8_t *p, trak_ev *ev) {
  uint64_t w;
  memcpy(&w, p, 8);
  if (TRAK_UNLIKELY(!(w & TRAK_EV_PACKED_COMMON))) return trak__ev_unpack_any(p, ev);
  ev->ts = (int64_t)((uint64_t)ev->ts + (w >> 4 & 0xFFFFF));
  ev->pkt += (uint32_t)(w >> 24 & 0xFF);
  ev->track = (uint32_t)(w & 7) << TRAK_EV_TYPE_SHIFT | (ev->track & TRAK_EV_TRACK_MASK);
  ev->u.s.name = (uint32_t)(w >> 32 & 0xFFFF);
  ev->u.s.cat = (uint32_t)(w >> 48);
  ev->arg_set_id = UINT32_MAX; /* TRAK_NULL_U32 */
  ev->aux = 0;
  return p + 8;
}

/* ---- sequences ------------------------------------------------------------------------- */

enum trak_intern_kind {
  TRAK_INTERN_CATEGORY,
  TRAK_INTERN_NAME,
  TRAK_INTERN_DEBUG_NAME,
  TRAK_INTERN_DEBUG_TYPE_NAME,
  TRAK_INTERN_DEBUG_STRING,
  TRAK_INTERN_SOURCE_LOCATION,
  TRAK_INTERN_LOG_BODY,
  TRAK_INTERN_CORRELATION,
  TRAK_INTERN_HISTOGRAM,
  /* the callstack tables (proto/callstacks.c): strings, then indexes of decoded messages */
  TRAK_INTERN_BUILD_ID,
  TRAK_INTERN_MAPPING_PATH,
  TRAK_INTERN_FUNCTION_NAME,
  TRAK_INTERN_SOURCE_PATH,
  TRAK_INTERN_MAPPING,
  TRAK_INTERN_FRAME,
  TRAK_INTERN_CALLSTACK,
  TRAK_INTERN_KERNEL_SYMBOL, /* ftrace's kernel-function fields (proto/ftrace_ksyms.c) */
  TRAK_INTERN_COMPUTE_ARG_NAME, /* GpuInternedData.compute_arg_names (proto/gpu_stages.c) */
  TRAK_INTERN_KINDS
};

typedef struct trak_sequence {
  uint32_t id;         /* trusted_packet_sequence_id */
  uint8_t state_valid; /* incremental state usable */
  uint8_t seen_clear;  /* a clear was ever seen */
  uint8_t unsorted;    /* records are not in timestamp order */
  uint8_t
      timestamps_valid; /* a thread_descriptor gave the delta bases since the last clear / loss */
  uint8_t first_packet_flag; /* a packet of the sequence had first_packet_on_sequence */
  uint8_t tie_unsorted;      /* JSON: same-timestamp records out of tie order */
  uint8_t refused; /* the sink of sequences refused past the memory bound: holds no record */
  uint8_t kernel;  /* the sequence of kernel records (ftrace bundles, systrace text): Perfetto's
                  ** slice tracker drops their unmatched ends and keeps open slices uncounted */
  int64_t last_tie_key;                 /* JSON: tie key of the last record (trak__ev_tie_key) */
  trak_map interned[TRAK_INTERN_KINDS]; /* iid -> string id */
  uint32_t intern_epoch; /* changes when an interned iid is cleared or given another value */
  /* TracePacketDefaults */
  uint32_t default_clock; /* 0: none */
  uint8_t has_default_track;
  uint64_t default_track_uuid;
  TRAK_VEC(uint64_t) default_extra_uuids;        /* int extra counters */
  TRAK_VEC(uint64_t) default_extra_double_uuids; /* double extra counters */
  TRAK_VEC(uint8_t) perf_defaults;               /* PerfSampleDefaults' bytes, when has_: */
  uint8_t has_perf_defaults;
  /* For Perfetto's per-buffer loss stats (trace_stats.c): the index of the sequence's first
  ** packet (whose previous_packet_dropped is not counted), SEQ_NEEDS_INCREMENTAL_STATE
  ** packets and those skipped, and (made on the first loss) the losses and their causes. */
  uint64_t first_packet_index;
  uint32_t needs_state_total, needs_state_skipped;
  uint32_t *losses;       /* [0] packets after a loss, [1 + b] those with cause bit b + 1 */
  uint32_t thread_track;  /* legacy thread_descriptor track, or TRAK_NULL_U32 */
  int64_t last_event_ns;  /* TrackEvent.timestamp_delta_us's base, in ns (saturating) */
  int64_t thread_time_ns; /* TrackEvent.thread_time_delta_us's base, in ns (saturating) */
  int64_t thread_ic;      /* thread_instruction_count_delta's base (saturating) */
  int64_t last_ts;        /* last record timestamp, to detect disorder */
  /* The previous packed record's timestamp, packet and track (trak__ev_unpack's deltas). */
  int64_t pack_ts;
  uint32_t pack_pkt, pack_track;
  uint64_t last_track_uuid; /* one-entry cache of uuid -> track index */
  uint32_t last_track;
  trak_ev_block *head, *tail;
  size_t n_events;
  /* Set while tokenizing when the parse phase must hold the records unpacked (`all`, n_events
  ** of them: trak__sequence_unpack) before merging them: a record whose args are resolved
  ** then (trak__passthrough_defer), records dropped by the ftrace crop. Out-of-order sequences
  ** and the range-of-interest crop unpack too. */
  uint8_t unpack;
  trak_ev *all;
  /* The ftrace crop (ftrace/crop.c): of the first drop_n records, those before drop_before are
  ** dropped when the sequence is unpacked (drop_n 0: none). */
  size_t drop_n;
  int64_t drop_before;
  /* Incremental counters' sums on this sequence (track index -> index in inc_values), which
  ** restart at 0 when its incremental state is cleared, as Perfetto keeps them. */
  trak_map inc_index;
  TRAK_VEC(double) inc_values;
} trak_sequence;

/* The sequences of one import (sequence.c owns them; imp->seqs). */
typedef struct trak_sequences {
  trak_map by_id;                /* trusted_packet_sequence_id -> index in all */
  TRAK_VEC(trak_sequence *) all; /* in order of first packet; owned, freed with the importer */
  trak_sequence *last;           /* one-entry cache of trak__sequence_get */
  trak_sequence *refused;        /* given for every sequence past the bound (NULL: none yet) */
} trak_sequences;

/* The packet being tokenized, as the files that import its fields see it. */
typedef struct trak_packet_ctx {
  trak_sequence *seq;
  int64_t ts; /* in the trace clock, valid when has_ts */
  int has_ts;
} trak_packet_ctx;

extern const char *const trak__intern_kind_names[TRAK_INTERN_KINDS]; /* for messages */
/* The sequence with `id`, made (empty, state invalid) on first use. Can't fail (aborts on
** out-of-memory as every container does); the sequence lives until trak__importer_free. A new
** sequence that would take the import past its memory bound (TRAK_LIMIT_RECORD_RATIO) gets a
** shared sink instead, emptied at each call, whose events are dropped and counted
** (import_memory_limit). */
trak_sequence *trak__sequence_get(trak_importer *imp, uint32_t id);
/* Incremental state cleared: interned maps and defaults emptied, incremental counters at 0. */
void trak__sequence_clear(trak_sequence *seq);
/* The string id interned under `iid` of `kind` (for source locations: the index in
** imp->source_locs), or 0 (reported as missing; a missing category is named
** "unknown(<iid>)", as Perfetto names it). */
/* trak__interned_get's miss (out of line): reports it, returns 0 or the "unknown(<iid>)"
** category. */
uint32_t trak__interned_missing(trak_importer *imp, trak_sequence *seq, int kind, uint64_t iid);
static inline uint32_t trak__interned_get(trak_importer *imp, trak_sequence *seq, int kind,
                                          uint64_t iid) {
  uint32_t *id = trak__map_get(&seq->interned[kind], iid);
  return TRAK_LIKELY(id != NULL) ? *id : trak__interned_missing(imp, seq, kind, iid);
}
/* Appends a copy of `ev` to the sequence's records, counting it for the parse phase's table
** sizes. Past the import's memory bound (docs/limits.md: TRAK_LIMIT_RECORD_RATIO) or when
** memory runs out, the record is dropped and counted (import_memory_limit); never aborts. */
void trak__sequence_push(trak_importer *imp, trak_sequence *seq, const trak_ev *ev);
/* trak__sequence_push of a record whose arg set id is not known yet (ev->arg_set_id is not
** read): returns where trak__sequence_held_args writes it once known (before the parse phase),
** or NULL when the record was dropped. Never aborts. */
uint8_t *trak__sequence_push_held(trak_importer *imp, trak_sequence *seq, const trak_ev *ev);
void trak__sequence_held_args(uint8_t *at, uint32_t arg_set_id);
/* A counter value as recorded on an incremental counter track: the sequence's running sum
** (before the track's unit multiplier, which the parse phase applies). See trak__counter_in. */
double trak__counter_add_incremental(trak_sequence *seq, uint32_t track, double v);
/* Unpacks the sequence's records into seq->all (n_events of them, in file order; the ftrace
** crop's records dropped), freeing its blocks. Can't fail (aborts on out-of-memory). */
void trak__sequence_unpack(trak_sequence *seq);
/* Frees a record block. The largest blocks are mapped from and returned to the kernel
** directly, so that the parse phase, which frees them as it fills the tables, really lowers
** the resident memory; smaller ones are malloc'd. */
void trak__block_free(trak_ev_block *b);

/* Frees every sequence, its maps and its remaining record blocks. */
void trak__sequences_free(trak_sequences *s);

#endif /* TRAK_PROCESSOR_IMPORT_SEQUENCE_H */
