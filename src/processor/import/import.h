/*
** The importer's internal interface. Importing happens in two phases, as in Perfetto:
**   1. tokenize (importer.c, packet.c, track_event.c with typed_args.c and legacy_event.c,
**      debug_args.c, clocks.c, tracks.c): packets
**      are read in file order; per-sequence incremental state, interning, defaults, clock
**      snapshots and track descriptors are applied at once, and each TrackEvent becomes a
**      32-byte record with resolved string ids and a timestamp in the trace clock, appended to
**      its sequence's block list;
**   2. parse (event_parser.c): the sequences' records are merged by timestamp and turned into
**      slices (with depth and parent), counters and flows.
** The tables live in storage.h; the SQL layer only reads them once the import is finished.
*/
#ifndef TRAK_PROCESSOR_IMPORT_H
#define TRAK_PROCESSOR_IMPORT_H

#include <stdint.h>

#include "processor/tables/storage.h"
#include "trak/pb.h"
#include "trak/processor.h"
#include "trak/protos.h"

/* Bytes of the input (a sub-message, a packet), not owned unless the holder says so. */
typedef struct trak_span {
  const uint8_t *data;
  size_t len;
} trak_span;

/* A copy of a packet kept until the end of the trace (its clock was not known yet), with where
** it was, for the reports made when it is retried. */
typedef struct trak_deferred_packet {
  trak_span bytes; /* owned */
  uint64_t index, offset;
  size_t outer_len;
} trak_deferred_packet;

/* Timestamps come from untrusted input: arithmetic on them wraps instead of overflowing. */
static inline int64_t trak__wadd(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}
static inline int64_t trak__wsub(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}
static inline int64_t trak__wmul(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a * (uint64_t)b);
}

/* ---- stats ----------------------------------------------------------------------------- */

typedef enum trak_stat_id {
  TRAK_STAT_TRACE_TRUNCATED,
  TRAK_STAT_TRACE_CORRUPT,
  TRAK_STAT_PACKET_MALFORMED,
  TRAK_STAT_TEXT_PARSE_ERROR,
  TRAK_STAT_COMPRESSED_ERRORS,
  TRAK_STAT_COMPRESSED_UNSUPPORTED,
  TRAK_STAT_INCREMENTAL_INVALID,
  TRAK_STAT_PACKET_LOSS,
  TRAK_STAT_INTERNED_ERRORS,
  TRAK_STAT_CLOCK_SYNC_FAILURE, /* Perfetto's generic row, never counted: the three below are */
  TRAK_STAT_CLOCK_UNKNOWN_SOURCE,
  TRAK_STAT_CLOCK_NO_PATH,
  TRAK_STAT_CLOCK_UNDEFERRABLE,
  TRAK_STAT_UNKNOWN_TRACK,
  TRAK_STAT_NO_TRACK,
  TRAK_STAT_BAD_TYPE,
  TRAK_STAT_MISPLACED_END,
  TRAK_STAT_UNTERMINATED,
  TRAK_STAT_NON_NESTING,
  TRAK_STAT_COUNTER_NOT_COUNTER_TRACK,
  TRAK_STAT_EXTRA_COUNTER_MISMATCH,
  TRAK_STAT_DECREASING_TS,
  TRAK_STAT_TRACK_PARENT_UNKNOWN,
  TRAK_STAT_JSON_SYNTAX,
  TRAK_STAT_JSON_EVENT,
  TRAK_STAT_FLOW_NO_ENCLOSING,
  TRAK_STAT_LEGACY_UNSUPPORTED,
  TRAK_STAT_PACKET_TOO_LARGE,
  TRAK_STAT_COMPRESSED_TOO_DEEP,
  TRAK_STAT_INFLATE_LIMIT,
  TRAK_STAT_ANNOTATION_TOO_DEEP,
  TRAK_STAT_KEY_TOO_LONG,
  TRAK_STAT_JSON_EVENT_TOO_LARGE,
  TRAK_STAT_JSON_TOO_DEEP,
  TRAK_STAT_JSON_INVALID_UTF8,
  TRAK_STAT_TRACE_EMPTY,
  TRAK_STAT_SPILL_OVERLAPPING_COMPLETE,
  TRAK_STAT_DROP_OVERLAPPING_COMPLETE,
  TRAK_STAT_NEGATIVE_TS_DROPPED,
  TRAK_STAT_JSON_DISPLAY_TIME_UNIT,
  TRAK_STAT_THREAD_MISSING_PID_TID,
  TRAK_STAT_PROCESS_MISSING_PID,
  TRAK_STAT_FLOW_END_WITHOUT_START,
  TRAK_STAT_FLOW_WITHOUT_DIRECTION,
  TRAK_STAT_FLOW_DUPLICATE_ID,
  TRAK_STAT_FLOW_STEP_WITHOUT_START,
  TRAK_STAT_INVALID_TIMESTAMP,
  TRAK_STAT_THREAD_DESCRIPTOR_SKIPPED,
  TRAK_STAT_DELTA_WITHOUT_STATE,
  TRAK_STAT_END_UNMATCHED,
  TRAK_STAT_MISSING_SEQUENCE_ID,
  TRAK_STAT_TEXT_UNKNOWN_FIELD,
  TRAK_STAT_PROTO_UNKNOWN_FIELD,
  TRAK_STAT_OUTSIDE_RANGE_OF_INTEREST,
  TRAK_STAT_RANGE_OF_INTEREST_NO_START,
  TRAK_STAT_CONCURRENT_UNKNOWN_STATE,
  TRAK_STAT_PROC_STAT_UNKNOWN_COUNTERS,
  TRAK_STAT_UNKNOWN_EXTENSION_FIELDS,
  TRAK_STAT_EMPTY_CHROME_METADATA,
  TRAK_STAT_COUNT
} trak_stat_id;

typedef struct trak_stat_def {
  const char *name;
  trak_severity severity;
  const char *description;
  uint8_t analysis; /* Perfetto's source: 0 "trace" (the trace's own data), 1 "analysis" */
} trak_stat_def;
extern const trak_stat_def trak__stat_defs[TRAK_STAT_COUNT];

/* Stats rows trace_stats packets give (trace_stats.c): the service's own figures (always
** listed, 0 until a packet sets them), then those of each buffer a packet reported. */
#define TRAK_TRACED_SINGLE_COUNT 21
/* One figure of one buffer (trace_stats.c's `indexed` stat `def`). */
typedef struct trak_traced_indexed {
  uint32_t def;
  int64_t idx, value;
} trak_traced_indexed;
typedef struct trak_traced_row {
  const trak_stat_def *def;
  int64_t idx; /* buffer index, or -1 for the service's figures */
  int64_t value;
} trak_traced_row;

/* ---- event records --------------------------------------------------------------------- */

/* Record types, stored in the top bits of trak_ev.track. */
enum {
  TRAK_EV_BEGIN = 1,
  TRAK_EV_END = 2,
  TRAK_EV_INSTANT = 3,
  TRAK_EV_COUNTER = 4,
  TRAK_EV_EXTRA_ONLY = 5,
  /* JSON only: a slice with its duration (imp->aux[aux] = dur, imp->aux[aux + 1] = index of
  ** its flows block or 0, bit 63 set when thread_ts and thread_dur follow), and a v1 flow step
  *(u.s.name = trak_flow_v1_kind, imp->aux[aux] =
  ** the flow key). */
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
#define TRAK_EV_TYPE_SHIFT 29
#define TRAK_EV_TRACK_MASK ((1u << TRAK_EV_TYPE_SHIFT) - 1)

typedef struct trak_ev {
  int64_t ts;     /* trace clock, ns */
  uint32_t track; /* type << TRAK_EV_TYPE_SHIFT | index into imp->tracks */
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

#define TRAK_EV_BLOCK 65535 /* a block is just under 2 MiB: one huge page where available */
typedef struct trak_ev_block {
  struct trak_ev_block *next;
  uint32_t n;
  trak_ev ev[TRAK_EV_BLOCK];
} trak_ev_block;

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
  TRAK_INTERN_KINDS
};

typedef struct trak_sequence {
  uint32_t id;         /* trusted_packet_sequence_id */
  uint8_t state_valid; /* incremental state usable */
  uint8_t seen_clear;  /* a clear was ever seen */
  uint8_t unsorted;    /* records are not in timestamp order */
  uint8_t
      timestamps_valid; /* a thread_descriptor gave the delta bases since the last clear / loss */
  uint8_t first_packet_flag;            /* a packet of the sequence had first_packet_on_sequence */
  uint8_t tie_unsorted;                 /* JSON: same-timestamp records out of tie order */
  int64_t last_tie_key;                 /* JSON: tie key of the last record (trak__ev_tie_key) */
  trak_map interned[TRAK_INTERN_KINDS]; /* iid -> string id */
  /* TracePacketDefaults */
  uint32_t default_clock; /* 0: none */
  uint8_t has_default_track;
  uint64_t default_track_uuid;
  TRAK_VEC(uint64_t) default_extra_uuids;        /* int extra counters */
  TRAK_VEC(uint64_t) default_extra_double_uuids; /* double extra counters */
  /* For Perfetto's per-buffer loss stats (trace_stats.c): the index of the sequence's first
  ** packet (whose previous_packet_dropped is not counted), SEQ_NEEDS_INCREMENTAL_STATE
  ** packets and those skipped, and (made on the first loss) the losses and their causes. */
  uint64_t first_packet_index;
  uint32_t needs_state_total, needs_state_skipped;
  uint32_t *losses;         /* [0] packets after a loss, [1 + b] those with cause bit b + 1 */
  uint32_t thread_track;    /* legacy thread_descriptor track, or TRAK_NULL_U32 */
  int64_t last_event_us;    /* for TrackEvent.timestamp_delta_us */
  int64_t thread_time_us;   /* for TrackEvent.thread_time_delta_us */
  int64_t thread_ic;        /* for TrackEvent.thread_instruction_count_delta */
  int64_t last_ts;          /* last record timestamp, to detect disorder */
  uint64_t last_track_uuid; /* one-entry cache of uuid -> track index */
  uint32_t last_track;
  trak_ev_block *head, *tail;
  size_t n_events;
  /* Incremental counters' sums on this sequence (track index -> index in inc_values), which
  ** restart at 0 when its incremental state is cleared, as Perfetto keeps them. */
  trak_map inc_index;
  TRAK_VEC(double) inc_values;
} trak_sequence;

/* ---- tracks as the importer sees them (index = final track id) -------------------------- */

typedef struct trak_track_info {
  uint64_t uuid;
  uint64_t parent_uuid;
  uint8_t described, has_parent, is_counter, is_incremental, child_ordering, has_rank;
  uint8_t merge_none;     /* sibling_merge_behavior NONE: Perfetto's *_track_event, not merged */
  uint32_t merge_key;     /* string id of its sibling_merge_key (BY_SIBLING_MERGE_KEY); 0: none */
  uint8_t orphan;         /* an ancestor's uuid is never described: its events are dropped */
  uint32_t n_descriptors; /* TrackDescriptor packets that described it */
  const char *type;       /* Perfetto's track type when the format implies the track, else NULL */
  uint8_t is_thread, is_process, is_legacy_thread;
  uint8_t compressed;   /* a cookie track of async ids or merged siblings: records go to the
                        ** track trak__async_track gives them */
  uint8_t lane_taken;   /* a compressed descriptor whose own track already serves a lane */
  uint8_t counter_type; /* CounterDescriptor.type: thread time or instruction count */
  uint8_t is_state;     /* TrackDescriptor.state: TYPE_STATE events set its states */
  uint32_t machine;     /* machine table row of the packet that first named it */
  uint32_t state_row;   /* parse phase: its current state's row in tables->state + 1, 0: none */
  /* a state track's state that ends at once (string id, 0: none) */
  uint32_t terminal_state;
  int32_t rank;
  uint32_t name; /* string id */
  uint32_t description;
  uint32_t scope;       /* legacy async tracks: the id's scope (string id, 0: none) */
  uint32_t root_name;   /* legacy async tracks: the first name of the id, 0: the track's name */
  uint32_t src_upid;    /* implied tracks: the process of the event that made it, or NULL */
  uint32_t lane;        /* a lane of a set of tracks (async ids, overflow slices): its index */
  uint32_t utid, upid;  /* TRAK_NULL_U32 unless a thread / process descriptor */
  uint32_t unit;        /* string id */
  int64_t multiplier;   /* counter unit multiplier, 1 by default */
  int64_t last_file_ts; /* for the decreasing-timestamp check, within one sequence: */
  uint32_t last_seq;    /* tracks shared by writers interleave in file order legitimately */
  uint64_t first_pkt;   /* first packet that used or described it */
  int64_t first_ts;     /* parse phase: its first event's timestamp, INT64_MAX: no event */
  uint32_t first_order; /* parse phase: how many tracks had a first event before it */
  uint32_t first_name;  /* parse phase: its first event's name (string id) */
  uint8_t
      first_seq_flagged; /* parse phase: its first event's sequence had first_packet_on_sequence */
  uint8_t closed_on_stack; /* parse phase: the open stack may hold slices that have a duration
                           ** (complete, instant, or ended below the top); 0: only open B slices,
                           ** which trak__stack_prepare need not walk */
  size_t open_depth;       /* parse phase: number of open slices */
  size_t open_cap;
  uint64_t *open;        /* parse phase: stack of open slices, begin packet << 32 | slice id */
  uint64_t pending_flow; /* parse phase: JSON flow ends waiting for the next slice here */
} trak_track_info;

/* ---- clocks ---------------------------------------------------------------------------- */

typedef struct trak_clock_pair {
  int64_t src, dst; /* the same instant in the source clock (ns) and in the trace clock (or in
                    ** the clock `via`, when the clock has one) */
} trak_clock_pair;

typedef struct trak_clock {
  uint64_t key;        /* clock id, or sequence << 32 | id for ids 64..127 */
  uint64_t multiplier; /* unit_multiplier_ns (1 by default) */
  uint8_t incremental;
  uint8_t has_via; /* its snapshots lack the trace clock: pairs lead to clock `via` (a key) */
  uint64_t via;
  int64_t last; /* incremental clocks: last absolute value (in units) */
  TRAK_VEC(trak_clock_pair) pairs;
} trak_clock;

/* ---- typed arguments -------------------------------------------------------------------- */

/* An interned SourceLocation (imp->source_locs; the sequence's map holds its index). */
typedef struct trak_source_loc {
  uint32_t file, function; /* string ids (0: absent) */
  uint32_t line;
  uint8_t has_line;
} trak_source_loc;

/* Arg keys the importer writes itself, interned on first use (typed_args.c). */
enum trak_key {
  TRAK_KEY_SOURCE_FILE,
  TRAK_KEY_SOURCE_FUNCTION,
  TRAK_KEY_SOURCE_LINE,
  TRAK_KEY_SOURCE_IID,
  TRAK_KEY_INLINE_FILE,
  TRAK_KEY_INLINE_FUNCTION,
  TRAK_KEY_INLINE_LINE,
  TRAK_KEY_LOG_BODY,
  TRAK_KEY_LOG_FILE,
  TRAK_KEY_LOG_FUNCTION,
  TRAK_KEY_LOG_LINE,
  TRAK_KEY_LOG_PRIORITY,
  TRAK_KEY_CORRELATION,
  TRAK_KEY_LEGACY_SOURCE_ID,
  TRAK_KEY_LEGACY_PASSTHROUGH_UTID,
  TRAK_KEY_LEGACY_PHASE,
  TRAK_KEY_TASK_FILE,
  TRAK_KEY_TASK_FUNCTION,
  TRAK_KEY_TASK_LINE,
  TRAK_KEY_HISTOGRAM_NAME,
  TRAK_KEY_COUNT
};

/* ---- the importer ---------------------------------------------------------------------- */

/* One row of _trace_import_logs: a problem the parse phase logged with its details as args
** (Perfetto's table; trak logs the conditions listed where it is filled). */
typedef struct trak_import_log {
  int64_t ts; /* INT64_MIN: none (a problem found while tokenizing) */
  trak_stat_id stat;
  uint32_t arg_set_id; /* TRAK_NULL_U32: none */
  int64_t byte_offset; /* of the packet's payload in the (inflated) trace, -1: none */
} trak_import_log;

/* One row of android_logs: a TrackEvent log message, as Perfetto's importer also logs it. */
typedef struct trak_log_row {
  int64_t ts;
  uint32_t utid, prio; /* prio: Android's priority, INFO (4) when the message has none */
  uint32_t tag, msg;   /* string ids; tag "<file>:<line>" of its source location, 0: none */
} trak_log_row;

/* One output track of a set of JSON async ids (async_tracks.c): the id ("cookie" track) that
** holds it and how many of its begins are open. */
typedef struct trak_async_lane {
  uint32_t cookie; /* cookie track index */
  uint32_t nest;
  uint32_t track; /* output track index */
  uint32_t next;  /* next lane of the set in async_lanes, TRAK_NULL_U32: last */
} trak_async_lane;

/* A JSON flow end (f without bp "e") waiting for the next slice to begin on its track. */
typedef struct trak_pending_flow {
  uint64_t key;
  uint32_t track;
} trak_pending_flow;

/* A process arg collected from descriptors, written at the end (chrome_descriptors.c). */
typedef struct trak_owner_arg {
  uint32_t upid, flat, key;
  uint8_t type;          /* trak_arg_type */
  int64_t int_value, ts; /* ts: of the descriptor's packet, which orders the values */
  uint32_t str;
} trak_owner_arg;

/* What named a process or thread row: the name's priority and its packet's timestamp. */
typedef struct trak_name_mark {
  uint32_t prio;
  int64_t ts;
} trak_name_mark;

/* An event record whose legacy_event.passthrough_utid waits for its track's scope: an
** ancestor of the track was not yet described when the event was read (tracks.c). */
typedef struct trak_pending_passthrough {
  trak_ev *ev; /* the record in its sequence's block (blocks do not move while tokenizing) */
  uint32_t track, utid; /* the event's track, its sequence's thread then */
} trak_pending_passthrough;

/* The earliest event (timestamp, then file order) that names a thread (JSON traces). */
typedef struct trak_first_use {
  int64_t ts;
  uint64_t index; /* UINT64_MAX: none */
} trak_first_use;

typedef struct trak_importer {
  trak_tables *tables;
  trak_processor_options opts;
  int64_t stats[TRAK_STAT_COUNT];
  int64_t traced[TRAK_TRACED_SINGLE_COUNT]; /* trace_stats: the service's figures */
  TRAK_VEC(trak_traced_indexed) traced_buf; /* trace_stats: per-buffer figures, sparse */
  trak_map traced_buf_index;                /* (figure, buffer) -> index in traced_buf */
  struct trak_metadata *meta; /* metadata.c: the metadata table's rows; NULL until needed */
  /* proto/callstacks.c: interned callstack messages and the events' callstacks; NULL until a
  ** trace has one */
  struct trak_callstacks *callstacks;
  /* TracePacket.track_event_range_of_interest's start_us * 1000 (INT64_MIN: none); the parse
  ** phase drops track events before it when the crop option is on */
  int64_t range_of_interest_ns;
  int64_t crop_before_ns; /* INT64_MIN, or range_of_interest_ns with the crop option */

  trak_map seq_index; /* sequence id -> index in seqs */
  TRAK_VEC(trak_sequence *) seqs;
  trak_sequence *last_seq;     /* one-entry cache of sequence lookups */
  trak_map track_index;        /* uuid -> index in tracks */
  trak_map thread_track_index; /* utid -> legacy thread track */
  TRAK_VEC(trak_track_info) tracks;
  trak_map tid_index, pid_index; /* tid -> newest utid, pid -> live upid (threads.c) */
  uint32_t machine;              /* machine table row of the packet being tokenized (0: the host) */
  TRAK_VEC(uint32_t) thread_prev;     /* utid -> the previous utid with its tid (threads.c) */
  trak_map thread_uuid, process_uuid; /* utid / upid -> uuid of the descriptor that claimed it */
  trak_map process_name_prio, thread_name_prio; /* upid / utid -> index in name_marks */
  TRAK_VEC(trak_name_mark) name_marks;          /* priority and packet time of a row's name */
  TRAK_VEC(trak_owner_arg) owner_args;          /* process args collected (chrome_descriptors.c) */
  int64_t descriptor_ts;  /* of the track descriptor's packet (or latest_ts without one) */
  int64_t latest_ts;      /* the largest packet timestamp so far, in trace time */
  TRAK_VEC(uint64_t) aux; /* flows and extra counters of records */
  trak_map clock_index;   /* key -> index in clocks */
  TRAK_VEC(trak_clock) clocks;
  uint32_t trace_clock;   /* BOOTTIME unless a snapshot says otherwise */
  uint8_t json_tie_order; /* a JSON trace with X events: ties sort by trak__ev_tie_key */
  uint8_t json;           /* a JSON trace: slices follow slice_stack.c's discipline */
  trak_map spill_lanes;   /* utid << 20 | lane -> overflow track of X events (slice_stack.c) */
  TRAK_VEC(trak_pending_flow) pending_flows;              /* JSON flow ends waiting for a slice */
  TRAK_VEC(trak_pending_passthrough) pending_passthrough; /* see trak__passthrough_defer */
  TRAK_VEC(trak_import_log) import_logs;                  /* rows of _trace_import_logs */
  TRAK_VEC(trak_deferred_packet) deferred; /* packets whose clock was not known yet (packet.c) */
  size_t deferred_bytes;
  uint8_t at_eof; /* the whole trace is read: a clock still unknown now is a failure */
  TRAK_VEC(trak_log_row) android_logs; /* rows of android_logs, in file order */
  trak_map async_roots;                /* JSON cookie track -> its set's root name */
  trak_map legacy_async_roots; /* legacy async id (and process) -> first name (legacy_event.c) */
  trak_map async_sets;         /* root name << 32 | upid + 1 -> first lane */
  TRAK_VEC(trak_async_lane) async_lanes; /* lanes of all sets */
  trak_map json_v1_flow_ids; /* JSON v1 flow key (id, cat, name) -> flow id (json_flows.c) */
  uint32_t json_v1_flows;    /* v1 flow ids given so far */
  TRAK_VEC(uint32_t) json_v1_flow_args; /* v1 flow id -> its flows' arg set */

  const uint8_t *base, *limit; /* the buffer being tokenized (decoder fast path) */
  uint64_t packet_index;       /* of the packet being tokenized */
  uint64_t packet_offset;      /* its byte offset */
  size_t packet_len;           /* its length (of the outer packet) */
  uint64_t bytes_in;           /* trace bytes fed so far, as stored (compressed or not) */
  uint64_t inflated_total;     /* bytes all compressed_packets inflated to so far */
  uint64_t n_events;
  uint32_t n_tracks_used;     /* parse phase: tracks that had an event so far */
  uint64_t n_slice_records;   /* begins and instants: the slice table's final size */
  uint64_t n_counter_records; /* counter values, extra ones included */
  char *scratch;              /* key building for args */
  size_t scratch_cap;
  trak_map flows;               /* parse phase: flow id -> slice id */
  trak_map arg_sets;            /* content hash -> arg_set_id, to share identical sets */
  TRAK_VEC(uint64_t) arg_order; /* parse phase: when Perfetto makes arg sets (arg_order.c) */
  TRAK_VEC(trak_first_use) thread_first; /* JSON: utid -> its earliest event (threads.c) */
  trak_map debug_keys;                   /* annotation name id -> id of "debug.<name>" */
  TRAK_VEC(trak_source_loc) source_locs; /* interned SourceLocations; [0] is unused */
  uint32_t keys[TRAK_KEY_COUNT];         /* string ids of enum trak_key, 0 until used */
  /* TrackEvent, ChromeTrackEvent (its extensions) and DebugAnnotation in the schema, found on
  ** first use. */
  const struct trak_pb_message_desc *te_schema, *chrome_te_schema, *da_schema;
  /* The root track descriptor's (uuid 0) process_ordering / thread_ordering are EXPLICIT:
  ** process and thread tracks' sibling_order_rank become their sort index hints. */
  uint8_t process_ordering_explicit, thread_ordering_explicit;
} trak_importer;

/* Starts a decoder over [data, data + len), which lies in the buffer being tokenized: the
** decoder may then read ahead up to that buffer's end (its fast path needs 16 bytes). */
static inline void trak__dec_init(const trak_importer *imp, trak_pb_decoder *dec,
                                  const uint8_t *data, size_t len) {
  trak_pb_decoder_init(dec, data, len);
  if (imp->limit && data >= imp->base && dec->end <= imp->limit) dec->limit = imp->limit;
}

void trak__importer_init(trak_importer *imp, trak_tables *tables,
                         const trak_processor_options *opts);
void trak__importer_free(trak_importer *imp);

/* Counts one problem and reports it to the diag callback with the current packet. */
void trak__report(trak_importer *imp, trak_stat_id stat, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));
/* Same, naming a given packet (parse phase). */
void trak__report_at(trak_importer *imp, trak_stat_id stat, uint64_t packet, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), cold));

/* 1 if trak's schema has no field `number` in message `name` ("TracePacket", "TrackEvent"):
** the field is one a protobuf reader skips as unknown (proto_unknown_field). The message is
** looked up once per process. Called only for fields the importer does not read. */
int trak__schema_lacks(const char *name, uint32_t number) __attribute__((cold));

/* Makes the machine of a packet (TracePacket.machine_id, if it has one) the current one,
** adding its machine row and idle thread and process the first time (threads.c). */
void trak__machine_switch(trak_importer *imp, int has_id, uint64_t raw_id) __attribute__((cold));

/* Tokenizes one serialized TracePacket (packet.c). Never fails: problems are reported. */
void trak__packet_tokenize(trak_importer *imp, const uint8_t *data, size_t len);
/* Converts and imports the packets kept because their clock was not known when they were read
** (packet.c), now that the whole trace is; those still unknown are counted. Called once, after
** the last packet and before the parse phase. */
void trak__packets_retry_deferred(trak_importer *imp);
/* Tokenizes a TrackEvent of a packet (track_event.c). */
typedef struct trak_packet_ctx {
  trak_sequence *seq;
  int64_t ts; /* in the trace clock, valid when has_ts */
  int has_ts;
} trak_packet_ctx;
void trak__track_event_tokenize(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                                size_t len);
/* Adds the debug annotations of one event as a new arg set; returns its id or TRAK_NULL_U32. */
uint32_t trak__debug_args_add(trak_importer *imp, trak_sequence *seq, const trak_span *annos,
                              size_t n);
/* Appends the rows of the debug annotations to the arg set `set` being built (its first row). */
void trak__debug_args_append(trak_importer *imp, trak_sequence *seq, uint32_t set,
                             const trak_span *annos, size_t n);

/* Shares the arg set just built at `set` (the last rows of args) with an identical earlier
** one, dropping its rows; returns the id to use (TRAK_NULL_U32 for an empty set). */
uint32_t trak__args_share(trak_importer *imp, uint32_t set);
/* A new arg set holding the rows of `a` then those of `b` (either may be TRAK_NULL_U32): how
** a slice end's arguments join its begin's, as arg sets never change once made. As in Perfetto,
** a key `a` has takes `b`'s value, and an array `a` has continues its indices in `b`. */
uint32_t trak__args_merge(trak_importer *imp, uint32_t a, uint32_t b);
/* Appends copies of the rows of arg set `from` to the set being built at `set`. */
void trak__args_copy(trak_tables *t, uint32_t from, uint32_t set);
/* Arg set `set` (TRAK_NULL_U32: none) with legacy_event.passthrough_utid `utid` added last,
** shared as trak__args_share does (typed_args.c). */
uint32_t trak__te_args_passthrough(trak_importer *imp, uint32_t set, uint32_t utid);

/* JSON traces (threads.c): event `index` at `ts` names thread `utid`. Perfetto sorts JSON
** events by timestamp before it makes their threads and processes, so when the import ends
** trak__threads_json_order renumbers utids and upids in the order of their earliest events. */
void trak__thread_seen_slow(trak_importer *imp, uint32_t utid, int64_t ts, uint64_t index);
static inline void trak__thread_seen(trak_importer *imp, uint32_t utid, int64_t ts,
                                     uint64_t index) {
  if (TRAK_LIKELY(utid < imp->thread_first.n && imp->thread_first.v[utid].ts <= ts)) return;
  trak__thread_seen_slow(imp, utid, ts, index);
}
void trak__threads_json_order(trak_importer *imp);

/* Arg set numbering (arg_order.c): the parse phase logs the moments Perfetto makes sets, a
** kind << 32 | value entry each, and trak__arg_order_apply lays the args table out in that
** order when the import ends. */
enum {
  TRAK_ARG_ORDER_SLICE,       /* slice id: its set, which it has when it leaves its track's stack */
  TRAK_ARG_ORDER_TRACK,       /* track index first used: the sets of its row (and its parents') */
  TRAK_ARG_ORDER_TRACK_SLICE, /* the same, by an event that starts a slice */
  TRAK_ARG_ORDER_SET,         /* an arg set id */
  TRAK_ARG_ORDER_FLUSH,       /* slice id: still on its track's stack when the import ends */
  TRAK_ARG_ORDER_COUNTER      /* counter row with args: its set (renumbered from this entry only) */
};
void trak__arg_order_log(trak_importer *imp, uint32_t kind, uint32_t value);
/* A slice leaves its track's stack: its set, if it has one, is made now. */
static inline void trak__arg_order_slice(trak_importer *imp, uint32_t slice) {
  if (imp->tables->slice.arg_set_id[slice] != TRAK_NULL_U32)
    trak__arg_order_log(imp, TRAK_ARG_ORDER_SLICE, slice);
}
/* Renumbers every arg set in the logged order; `track_row` maps track indexes to rows, of
** which those from `n_early` on are made at the end (after all logged sets). */
void trak__arg_order_apply(trak_importer *imp, const uint32_t *track_row, uint32_t n_early);

/* Sequences and interning (sequence.c; interned_data_add in proto/interned_data.c). */
extern const char *const trak__intern_kind_names[TRAK_INTERN_KINDS]; /* for messages */
trak_sequence *trak__sequence_get(trak_importer *imp, uint32_t id);
void trak__sequence_clear(trak_sequence *seq);
void trak__interned_data_add(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                             size_t len);
/* The string id interned under `iid` of `kind` (for source locations: the index in
** imp->source_locs), or 0 (reported as missing; a missing category is named
** "unknown(<iid>)", as Perfetto names it). */
uint32_t trak__interned_get(trak_importer *imp, trak_sequence *seq, int kind, uint64_t iid);
void trak__sequence_push(trak_importer *imp, trak_sequence *seq, const trak_ev *ev);
/* A counter value as recorded: on an incremental counter track, the sequence's running sum
** (before the track's unit multiplier, which the parse phase applies). */
double trak__counter_add_incremental(trak_sequence *seq, uint32_t track, double v);
static inline double trak__counter_in(trak_importer *imp, trak_sequence *seq, uint32_t track,
                                      double v) {
  if (TRAK_LIKELY(!imp->tracks.v[track].is_incremental)) return v;
  return trak__counter_add_incremental(seq, track, v);
}
/* Record blocks are mapped from and returned to the kernel directly, so that the parse phase,
** which frees them as it fills the tables, really lowers the resident memory. */
void trak__block_free(trak_ev_block *b);

/* Chromium's descriptors (proto/chrome_descriptors.c). Names are set by Perfetto's priorities
** (a name replaces one of lower or equal priority); process args are collected and written
** by trak__process_args_flush at the end of the import, one arg set per process. */
void trak__process_name_set(trak_importer *imp, uint32_t upid, uint32_t name, uint32_t prio);
void trak__thread_name_set(trak_importer *imp, uint32_t utid, uint32_t name, uint32_t prio);
void trak__process_arg(trak_importer *imp, uint32_t upid, uint32_t flat, uint32_t key,
                       trak_arg_type type, int64_t int_value, uint32_t str);
void trak__process_labels(trak_importer *imp, uint32_t upid, const uint8_t *data, size_t len);
void trak__chrome_process_descriptor(trak_importer *imp, uint32_t upid, const uint8_t *data,
                                     size_t len);
void trak__chrome_thread_descriptor(trak_importer *imp, uint32_t utid, const uint8_t *data,
                                    size_t len);
void trak__process_args_flush(trak_importer *imp);
/* ProcessStats' Chrome figures (proto/chrome_process_stats.c): chrome_private_footprint_kb and
** chrome_peak_resident_set_kb become bytes on the process's counter tracks
** "chrome.private_footprint_kb" / "chrome.peak_resident_set_kb" (type chrome_process_stats),
** is_peak_rss_resettable the process arg of that name. */
void trak__chrome_process_stats(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                                size_t len);

/* The names Perfetto gives Chromium's process and thread types (a string id, 0 for none:
** unspecified or unknown types) (chrome_names.c). */
uint32_t trak__chrome_process_name(trak_importer *imp, int32_t type);
uint32_t trak__chrome_thread_name(trak_importer *imp, int32_t type);

/* Decodes a SourceLocation (proto/typed_args.c); returns the decoder's result (<0: malformed). */
int trak__source_loc_decode(trak_importer *imp, const uint8_t *data, size_t len,
                            trak_source_loc *out, uint64_t *iid);
/* The interned SourceLocation `iid` of the sequence, or NULL (reported as missing). */
const trak_source_loc *trak__source_loc_get(trak_importer *imp, trak_sequence *seq, uint64_t iid);
/* A location's file name as Perfetto writes it: '\\' made '/', absent made "". */
uint32_t trak__source_path(trak_importer *imp, uint32_t file);

/* Adds the args of one field of a message (a TrackEvent's typed payload) to the arg set `set`
** as Perfetto's reflection names them: key "name", nested fields "name.sub", repeated values
** "name[i]" (flat key "name"), enums by value name, an empty message as a null row
** (debug_args.c). */
struct trak_pb_field_desc;
/* Finds imp->te_schema, chrome_te_schema and da_schema once. */
void trak__schemas_init(trak_importer *imp);
void trak__reflect_field_args(trak_importer *imp, trak_sequence *seq, uint32_t set,
                              const struct trak_pb_field_desc *fd, const trak_pb_field *f);

/* Clocks (clocks.c). */
void trak__clock_snapshot_add(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                              size_t len);
/* Converts `ts` in clock `clock_id` to the trace clock. Returns 0; or 1 (nothing reported)
** if no snapshot relates the clocks yet and the trace is still being read: the caller keeps
** the packet to retry at the end, as Perfetto defers it; or -1 (reported) if none ever did. */
int trak__clock_convert(trak_importer *imp, trak_sequence *seq, uint32_t clock_id, int64_t ts,
                        int64_t *out);
/* `ts` in clock `clock_id` converted to the trace clock if a snapshot relates them, else `ts`
** as it is (Perfetto's rule for the legacy microsecond timestamps). Can't fail. */
int64_t trak__clock_try_convert(trak_importer *imp, trak_sequence *seq, uint32_t clock_id,
                                int64_t ts);

/* Thread and process identity (threads.c), Perfetto's model. None of these can fail. */
/* Adds utid 0 / upid 0, the idle rows (pid 0, tid 0, "swapper"), as Perfetto's are. */
void trak__threads_init(trak_importer *imp);
/* The live process with `pid`, made on first use together with its main thread (tid == pid). */
uint32_t trak__process_for_pid(trak_importer *imp, int64_t pid);
/* A new process for `pid` (the pid was reused): the old one and its threads end. */
uint32_t trak__process_start_new(trak_importer *imp, int64_t pid);
/* The live thread (pid, tid), made on first use (with its process); with pid < 0 (unknown),
** the newest live thread with `tid` in any process, or a new one with no process. */
uint32_t trak__thread_for_tid(trak_importer *imp, int64_t tid, int64_t pid);
/* A new thread (pid, tid) even if one is live (the tid was reused). */
uint32_t trak__thread_start_new(trak_importer *imp, int64_t tid, int64_t pid);

/* Tracks (tracks.c). */
/* Applies a TrackDescriptor; a thread descriptor also becomes `seq`'s thread (seq may be NULL). */
void trak__track_descriptor_add(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                                size_t len);
/* A new undescribed track info with `uuid` (0: none); returns its index. */
uint32_t trak__track_new(trak_importer *imp, uint64_t uuid);
/* The track index of `uuid`, creating an undescribed track on first use. */
uint32_t trak__track_for_uuid(trak_importer *imp, uint64_t uuid);
/* The sequence's thread, for the legacy_event.passthrough_utid arg of an event on `track`:
** when `track` is a global track (not the Default Track, uuid 0), or a process track of that
** thread's process; else TRAK_NULL_U32. */
uint32_t trak__passthrough_utid(trak_importer *imp, const trak_sequence *seq, uint32_t track);
/* trak__passthrough_utid's answer when an ancestor of the track is not described yet: the
** record is pushed without the arg and handed to trak__passthrough_defer, just after its push;
** trak__passthrough_resolve (tokenizing done) adds the arg where the scope then calls for it. */
#define TRAK_PASSTHROUGH_PENDING (TRAK_NULL_U32 - 1)
__attribute__((cold)) void trak__passthrough_defer(trak_importer *imp, trak_sequence *seq,
                                                   uint32_t track);
void trak__passthrough_resolve(trak_importer *imp);
/* The global "Default Track" (uuid 0): events with no track and no thread go there. */
uint32_t trak__default_track(trak_importer *imp);
uint32_t trak__legacy_thread_track(trak_importer *imp, uint32_t utid);
/* A track the format implies rather than describes (legacy async tracks, process and global
** instant tracks), found by `key` (its uuid is key | 1 << 63) and made on first use: named
** `name` (or by the first named event), a process track when upid is not TRAK_NULL_U32, of
** Perfetto's track type `type` (NULL: the one its scope implies). */
uint32_t trak__keyed_track(trak_importer *imp, uint64_t key, uint32_t name, uint32_t upid,
                           int is_counter, const char *type);
/* Applies a ThreadDescriptor (in a track descriptor or a legacy packet); returns the utid. */
uint32_t trak__thread_descriptor_add(trak_importer *imp, const uint8_t *data, size_t len);
/* Once tokenizing is done: marks the tracks with an ancestor that is never described, whose
** events the parse phase drops as Perfetto does (each of their descriptors and events counts
** track_hierarchy_missing_uuid and track_event_parser_errors, and is logged). */
void trak__tracks_check_hierarchy(trak_importer *imp);
/* Counts and logs one descriptor or event on orphan track `track`. */
void trak__track_orphan_report(trak_importer *imp, uint32_t track, uint64_t packet);
/* Writes the track table from the track infos (after parsing). */
void trak__tracks_finish(trak_importer *imp);

/* trace_stats (trace_stats.c): applies one TraceStats message; reads stats row `i` (0 past
** the last row) once trak__trace_stats_finish has ordered them. */
void trak__trace_stats_add(trak_importer *imp, const uint8_t *data, size_t len);
/* A sequence's packet loss flags (previous_packet_dropped's bits): counted per sequence, added
** to its buffer's traced_buf_* figures when a trace_stats packet names the buffer. */
__attribute__((cold)) void trak__trace_stats_loss(trak_sequence *seq, uint32_t bits);
/* The service events that are stats: a clone began, buffer `buffer` was cloned, a clone
** trigger fired (at trace time `ts`). */
typedef enum { TRAK_CLONE_STARTED, TRAK_CLONE_BUFFER_DONE, TRAK_CLONE_TRIGGER } trak_clone_event;
void trak__trace_stats_clone(trak_importer *imp, trak_clone_event what, int64_t buffer, int64_t ts);
/* End of import: figures that depend on the trace config (config_write_into_file_*,
** long_trace_mode_bytes_overwritten), then the rows in order. `config` is the last
** TraceConfig (NULL: none); `service_major` the Perfetto version of the service (-1: unknown). */
void trak__trace_stats_finish(trak_importer *imp, const uint8_t *config, size_t config_len,
                              int64_t service_major);
int trak__trace_stats_row(const trak_importer *imp, size_t i, trak_traced_row *out);

/* The metadata table (metadata.c), filled as Perfetto's importer fills it. */
typedef enum trak_meta_scope {
  TRAK_META_GLOBAL,       /* machine_id and trace_id NULL */
  TRAK_META_TRACE,        /* trace_id 0 */
  TRAK_META_MACHINE,      /* machine_id 0 */
  TRAK_META_MACHINE_TRACE /* both 0 */
} trak_meta_scope;
typedef struct trak_meta_row {
  char *name;
  char *str; /* a string value (NULL: a NULL value) when is_str */
  int64_t value;
  uint8_t multi, is_str, scope;
  uint32_t machine; /* machine table row, for the scopes with a machine_id */
} trak_meta_row;
/* The first raw bytes of the trace (Perfetto's trace_uuid, when the trace has none, is an
** FNV-1a hash of its first 4096 bytes). `offset` is where `data` starts in the input. */
void trak__meta_hash_input(trak_importer *imp, const uint8_t *data, size_t len, uint64_t offset);
/* A packet field metadata.c handles (TracePacket field number `field`): trace_uuid,
** system_info, service_event, triggers, chrome_metadata, trace_attributes, trace_config. */
__attribute__((cold)) void trak__meta_packet(trak_importer *imp, const trak_packet_ctx *ctx,
                                             uint32_t field, const uint8_t *data, size_t len);
/* The first clock snapshot fixed the trace clock (the trace_time_clock_id row). */
void trak__meta_clock_seen(trak_importer *imp);
/* Adds a metadata row of `scope` (a string `str` of `len` bytes with is_str, else `value`),
** after those already there, keys repeating (metadata.c). */
void trak__meta_add(trak_importer *imp, const char *name, int is_str, const void *str, size_t len,
                    int64_t value, int scope);
/* Chromium's packets' metadata rows (proto/chrome_metadata.c): a ChromeMetadataPacket of the
** `instance`-th Chrome (0 first), a ChromeTrigger, a ChromeEventBundle (`bundles` counts those
** with metadata so far; their keys depend on it). */
void trak__chrome_metadata(trak_importer *imp, uint32_t instance, const uint8_t *data, size_t len);
void trak__chrome_trigger(trak_importer *imp, const uint8_t *data, size_t len);
void trak__chrome_events(trak_importer *imp, uint32_t *bundles, const uint8_t *data, size_t len);
/* A JSON trace's top-level "metadata" object (its text), as json_metadata.* rows. */
void trak__meta_json(trak_importer *imp, const char *text, size_t len);
/* The rows in Perfetto's order (trace_uuid, trace_type, ..., trace_size_bytes), ready after
** trak__meta_finish; `json` says the trace was JSON, `size` is its byte count. */
void trak__meta_finish(trak_importer *imp, int json, int64_t size);
int trak__meta_row(const trak_importer *imp, size_t i, trak_meta_row *out);
void trak__meta_free(trak_importer *imp);

/* The order of JSON records with the same timestamp once the trace has an X event (as
** Perfetto's sorter orders them): thread slice ends (E) first, then complete slices by duration,
*longest
** first, then everything else; file order within a key. */
static inline int64_t trak__ev_tie_key(const trak_importer *imp, const trak_ev *ev) {
  uint32_t type = ev->track >> TRAK_EV_TYPE_SHIFT;
  /* E ends a thread slice; an async e (on its own track) sorts with everything else */
  if (type == TRAK_EV_END && imp->tracks.v[ev->track & TRAK_EV_TRACK_MASK].is_legacy_thread)
    return INT64_MIN;
  if (type == TRAK_EV_COMPLETE) return INT64_MAX - (int64_t)imp->aux.v[ev->aux];
  return INT64_MAX;
}

/* Slices' stack discipline (slice_stack.c), Perfetto's slice tracker's. */
typedef struct trak_overlap {
  int64_t start, end; /* the region a new complete slice shares with an open one */
  uint32_t name;      /* the open slice's name, its ts and dur */
  int64_t ts, dur;
} trak_overlap;
/* Before a slice of duration `dur` (-1: a begin, still open) starts on `track` at ev->ts:
** pops the slices that ended (an instant stays under an instant at its timestamp) and cuts
** slices still open above a complete one that ended (misplaced_end_event). Returns 0, with
** *overlap filled, if the new slice would partly overlap an open complete slice. */
int trak__stack_prepare(trak_importer *imp, uint32_t track, const trak_ev *ev, int64_t dur,
                        trak_overlap *overlap);
/* After trak__stack_prepare (dur -1): ends the innermost open slice of `track` whose name and
** category match the end record's (absent ones match any), merging the end's args; returns it,
** or TRAK_NULL_U32 (an end with nothing to end; Perfetto does not count it). The slice leaves
** the stack only if it is the top one: slices still open above it are cut off by the next
** event after its end. */
uint32_t trak__stack_end(trak_importer *imp, uint32_t track, const trak_ev *ev);
/* Reports the overlap and returns the overflow track of the thread of `track` the complete
** slice goes to (made on first use; prepared for the slice). */
uint32_t trak__spill_track(trak_importer *imp, uint32_t track, const trak_ev *ev, int64_t dur,
                           const trak_overlap *overlap);

/* JSON flows (json_flows.c), bound as Perfetto's flow tracker binds them: `op` is a
** trak_flow_v1_kind (v2 flow_out: BEGIN; flow_in with flow_out: STEP; flow_in: END_ENCLOSING),
** `key` the flow id (a v2 bind_id, or trak__json_v1_flow_id's),
** `slice` the topmost slice of `track` (TRAK_NULL_U32: none, reported) for all but
** END_NEXT, which waits for the next slice that begins on `track`. */
void trak__json_flow(trak_importer *imp, int op, uint64_t key, uint32_t slice, uint32_t track,
                     uint64_t pkt);
/* A v2 flow (bind_id with flow_in / flow_out) on the slice that just began on `track`; `block`
** is the slice's flows block (one id, TRAK_AUX_JSON_FLOW_STEP in its third word for a step). */
void trak__json_flow_v2(trak_importer *imp, const uint64_t *block, uint32_t slice, uint32_t track,
                        uint64_t pkt);
/* Adds flow `id` between `from` (the slice it last left) and `slice`, from the earlier slice
** to the later one, as Perfetto's flow tracker orders a step or an end (both formats). */
void trak__flow_link(trak_importer *imp, uint32_t from, uint32_t slice, uint64_t id);
/* The flow id of a JSON v1 flow key: 0, 1, 2, ... in order of first use, as Perfetto's; a new
** id gets the arg set {name, cat} (`name_cat`: name << 32 | category) its flows carry. */
uint64_t trak__json_v1_flow_id(trak_importer *imp, uint64_t key, uint64_t name_cat);
/* The output track of a record (type BEGIN, END or INSTANT, event name `name`) on cookie track
** `cookie` (a JSON or legacy async id, or a descriptor track merged by name with its
** siblings), as Perfetto's track compressor picks it (async_tracks.c). */
uint32_t trak__async_track(trak_importer *imp, uint32_t cookie, uint32_t type, uint32_t name);
/* Binds the flow ends waiting on `track` to `slice`, which just began there. */
void trak__json_flow_pending(trak_importer *imp, uint32_t track, uint32_t slice);

/* TrackEvent callstacks (proto/callstacks.c), as Perfetto's importer fills its stack profile
** tables. Tokenizing: the InternedData messages mappings, frames and callstacks (field
** `field`) of a sequence; an event's callstack (inline `inline_stack`, else interned
** `iid`) and callstack_weight, resolved to frames now (interned data changes) and
** kept under the event's packet index. Parsing: the slice `slice` on `track` that the event
** of packet `pkt` began or ended gets its callsite (frames, mappings, callsites and symbols
** interned in parse order, so ids are Perfetto's) in __intrinsic_track_event_callstacks. */
void trak__callstack_interned(trak_importer *imp, trak_sequence *seq, uint32_t field,
                              const uint8_t *data, size_t len) __attribute__((cold));
void trak__callstack_event(trak_importer *imp, trak_sequence *seq, trak_ev *ev, uint32_t upid,
                           const trak_span *inline_stack, uint64_t iid, int has_weight,
                           double weight) __attribute__((cold));
void trak__callstack_slice(trak_importer *imp, uint32_t index, uint32_t slice)
    __attribute__((cold));
void trak__callstacks_free(trak_importer *imp);

/* TracePacket.process_tree (proto/process_tree.c): processes (with a command line) and their
** parents, names, command lines and uids; threads, their processes and names. */
void trak__process_tree(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                        size_t len) __attribute__((cold));

/* TracePacket.concurrent_session_event (proto/concurrent_sessions.c): a state of the session's
** state track; and the session id of such a track from its uuid (for its dimension arg). */
void trak__concurrent_session_event(trak_importer *imp, const trak_packet_ctx *ctx,
                                    const uint8_t *data, size_t len) __attribute__((cold));
int64_t trak__concurrent_session_id(uint64_t uuid);

/* Parse phase (event_parser.c): merges, builds slices/counters/flows, frees the records. */
void trak__events_parse(trak_importer *imp);

#endif /* TRAK_PROCESSOR_IMPORT_H */
