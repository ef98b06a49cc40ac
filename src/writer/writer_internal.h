/*
** The synthetic trace writer's internal interface, shared by src/writer/ files:
**   writer.c    lifecycle, sinks, the output buffer and packet framing, refusals;
**   intern.c    the interning tables (names, categories, argument names);
**   ids.c       the writer's packet sequence id and track uuids (random, or from a seed);
**   tracks.c    track declaration and descriptors, lanes of AUTO_SIBLINGS tracks;
**   slices.c    per-track slice stacks: validation and placement of events;
**   events.c    trak_writer_write(): checks, placement, encoding of one TrackEvent;
**   default_track.c   the sequence's default track: why and when events rely on it, the
**               TracePacketDefaults encoding (the per-packet choice is inline below);
**   args.c      typed arguments (DebugAnnotation) validation and encoding;
**   events_convert.c, events_csv.c, events_jsonl.c, ...   the tabular event converter.
*/
#ifndef TRAK_WRITER_INTERNAL_H
#define TRAK_WRITER_INTERNAL_H

#include <stdint.h>

#include "trak/pb.h"
#include "trak/protos.h"
#include "trak/writer.h"

#define TRAK__OPEN UINT64_MAX          /* end of a slice whose end is not known yet */
#define TRAK__FLUSH_BYTES (256u << 10) /* hand bytes to the sink past this much */
#define TRAK__UUID_BLOCK_BITS 12u      /* tracks per block of consecutive uuids: 4096 */

/* One interning table: a string <-> iid map for one InternedData field. */
typedef struct trak__intern_table {
  char **strings;   /* strings[iid - 1], owned */
  uint32_t *hashes; /* hashes[iid - 1] */
  uint64_t count;   /* iids handed out; the next iid is count + 1 */
  uint64_t cap;     /* allocated entries of strings / hashes */
  uint32_t *slots;  /* open addressing: iid, 0 when empty */
  uint32_t n_slots; /* a power of two, kept at least twice count */
  uint32_t field;   /* InternedData field the definitions go to */
} trak__intern_table;

/* One slice on a track's stack. */
typedef struct trak__wslice {
  uint64_t start;
  uint64_t end;          /* TRAK__OPEN while a BEGIN waits for its END */
  uint64_t bound;        /* the earliest known end among this slice and its ancestors, or OPEN */
  uint64_t seq;          /* begin order across the writer: picks the newest among lanes */
  trak_writer_name name; /* iid of the name (0 for none) */
} trak__wslice;

enum trak__track_kind { TRAK__KIND_SLICES = 0, TRAK__KIND_COUNTER = 1 };

typedef struct trak__wtrack {
  uint64_t uuid;
  trak_writer_track parent; /* 0 for a top-level track */
  trak_writer_track
      alias_of;        /* lane 0 of an AUTO_SIBLINGS track: writes go to it without placement */
  uint8_t kind;        /* enum trak__track_kind */
  uint8_t has_events;  /* last_ts is meaningful */
  uint8_t os_track;    /* a process or thread track */
  unsigned flags;      /* TRAK_TRACK_* as declared */
  uint64_t last_ts;    /* timestamp of the latest accepted event */
  uint32_t last_run;   /* packets in this track's latest run (default_track.c) */
  trak__wslice *stack; /* open and not-yet-finished slices, outermost first */
  uint32_t depth, cap;
  trak_writer_track *lanes; /* AUTO_SIBLINGS: the lanes below it (the track itself is lane 0) */
  uint32_t n_lanes, lanes_cap;
  char *label; /* for messages: the name, or "process 12", "thread 34" */
  char *name;  /* the track's name (copied onto lanes), may be NULL */
} trak__wtrack;

struct trak_writer {
  trak_pb_buf out; /* encoded bytes not yet handed to the sink */
  trak_writer_sink_fn sink;
  void *sink_user;
  int fd;                          /* for the fd and file sinks */
  int own_fd;                      /* close fd on close (open_file) */
  int sink_error;                  /* sticky: first sink failure */
  int started;                     /* the first packet (clearing incremental state) is out */
  trak_writer_track default_track; /* the sequence's default track (0: none yet), see below */
  trak_writer_track run_track;     /* the track of the latest event packet */
  uint32_t run_len;                /* event packets in a row on run_track */
  uint32_t seq_id;                 /* trusted_packet_sequence_id of every packet (ids.c) */
  int seq_explicit;                /* seq_id was set by trak_writer_set_sequence_id */
  uint64_t rng;                    /* splitmix64 state drawing seq_id and uuid blocks */
  uint64_t *uuid_blocks;           /* uuid_blocks[k]: uuid of track index k << 12 (ids.c) */
  uint32_t n_uuid_blocks;
  trak__wtrack *tracks; /* tracks[handle - 1] */
  uint32_t n_tracks, tracks_cap;
  trak__intern_table names, categories, arg_names;
  trak_pb_buf pending_interned; /* InternedData body to attach to the next packet */
  uint64_t slice_seq;
  uint64_t
      type_counts[TRAK_WRITER_COUNTER_DOUBLE + 1]; /* accepted events by trak_writer_event_type */
  trak_writer_totals totals;
  trak_error last_error;
};

/* writer.c */
/* Records a refusal or failure in w->last_error (and totals) and returns `code`. */
int trak__wr_fail(trak_writer *w, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold, noinline));
/* Starts a TracePacket with the sequence fields (and pending interned data); `needs_state` is
** set for packets that refer to interned data. Pair with trak__wr_packet_end. */
trak_pb_nested trak__wr_packet_begin(trak_writer *w, int needs_state);
/* Ends a packet; flushes to the sink past TRAK__FLUSH_BYTES. Returns 0 or the buffer/sink error. */
int trak__wr_packet_end(trak_writer *w, trak_pb_nested packet);

/* ids.c */
/* Draws a random sequence id and seeds the uuid generator (from getrandom, else pid, time and
** address). Can't fail. */
void trak__wr_ids_init(trak_writer *w);
/* The uuid of the track at index i (handle i + 1), drawing a new block of uuids every 4096
** tracks. Returns 0 when memory runs out. */
uint64_t trak__wr_uuid(trak_writer *w, uint32_t i);
void trak__wr_ids_free(trak_writer *w);

/* intern.c */
void trak__wr_intern_init(trak__intern_table *t, uint32_t field);
void trak__wr_intern_free(trak__intern_table *t);
/* Returns the iid of `s` in `t`, interning it (and queueing its definition in
** w->pending_interned) when new; 0 when memory runs out. */
uint64_t trak__wr_intern(trak_writer *w, trak__intern_table *t, const char *s);
/* The iid of `s` if already interned, else 0. Can't fail. */
uint64_t trak__wr_intern_find(const trak__intern_table *t, const char *s);
/* The string of an iid, or NULL. */
const char *trak__wr_intern_string(const trak__intern_table *t, uint64_t iid);

/* tracks.c */
/* The track of a handle, or NULL. An alias handle (lane 0 of an AUTO_SIBLINGS track) has an
** entry of its own with no descriptor and no stack; callers resolve alias_of. */
static inline trak__wtrack *trak__track(trak_writer *w, trak_writer_track h) {
  return h && h <= w->n_tracks ? &w->tracks[h - 1] : NULL;
}
/* Creates the next lane of AUTO_SIBLINGS track `h` and writes its descriptor. Returns the lane
** handle, or 0 when memory or the sink fails (w->last_error set). */
trak_writer_track trak__wr_lane_add(trak_writer *w, trak_writer_track h);
void trak__wr_tracks_free(trak_writer *w);

/* slices.c */
/* Where an accepted event goes and what it does to the stack there. */
typedef struct trak__plan {
  trak_writer_track lane; /* the track to write on */
  uint32_t depth;         /* the lane's stack depth once finished slices are popped */
} trak__plan;
/* Checks `ev` against track `h` (placing it on a lane when h is AUTO_SIBLINGS and not
** `direct`; already known to be a slice or counter track of the right
** kind) and fills `plan`. Returns 0, or a refusal code with w->last_error set. Changes nothing. */
int trak__wr_slices_plan(trak_writer *w, trak_writer_track h, int direct,
                         const trak_writer_event *ev, trak_writer_name name, trak__plan *plan);
/* Applies an accepted event to its lane's stack, first writing the END packets of the COMPLETE
** slices it pops. Returns 0, TRAK_ENOMEM (nothing changed) or a sink error. */
int trak__wr_slices_commit(trak_writer *w, const trak_writer_event *ev, trak_writer_name name,
                           const trak__plan *plan);
/* At close: writes the END packets of the COMPLETE slices still on the stacks and ends slices
** left open inside one at its end, so the trace stays well nested; counts the other open
** slices. Returns 0 or a sink error. */
int trak__wr_slices_finish(trak_writer *w);

/* args.c */
/* Checks an argument list: names present, known types, strings not NULL, nesting not deeper
** than TRAK_WRITER_ARG_MAX_DEPTH. Returns 0 or TRAK_EINVAL with w->last_error naming the argument.
*/
int trak__wr_args_check(trak_writer *w, const char *call, const trak_writer_arg *args, size_t n);
/* Appends args as TrackEvent.debug_annotations; top-level names are interned. */
void trak__wr_args_encode(trak_writer *w, const trak_writer_arg *args, size_t n);

/* default_track.c, and the choice made for every event packet, inline here (the policy is
** explained in default_track.c).
** How an event packet names its track: by track_uuid (5 bytes of uuid), by omitting it because
** the track is the sequence's default track, or by making its track the default in the same
** packet (TracePacketDefaults, 11 bytes) and omitting it. */
enum trak__track_ref { TRAK__REF_UUID, TRAK__REF_DEFAULT, TRAK__REF_SWITCH };
/* Runs of this many packets or more pay for a switch of the default track (default_track.c). */
#define TRAK__RUN_WORTH_A_SWITCH 3u
/* The start of a run of event packets on `lane` (the previous packet was on another track):
** records the run that ended and decides how this packet names its track. */
static inline enum trak__track_ref trak__wr_run_start(trak_writer *w, trak_writer_track lane) {
  if (w->run_track) w->tracks[w->run_track - 1].last_run = w->run_len;
  w->run_track = lane;
  w->run_len = 1;
  if (lane == w->default_track) return TRAK__REF_DEFAULT;
  return w->tracks[lane - 1].last_run >= TRAK__RUN_WORTH_A_SWITCH ? TRAK__REF_SWITCH
                                                                  : TRAK__REF_UUID;
}
/* How the next event packet, on `lane`, names its track. Counts the packet in the current run;
** the caller makes `lane` the default once a TRAK__REF_SWITCH packet is written. */
static inline enum trak__track_ref trak__wr_track_ref(trak_writer *w, trak_writer_track lane) {
  if (TRAK_UNLIKELY(lane != w->run_track)) return trak__wr_run_start(w, lane);
  w->run_len++;
  if (TRAK_LIKELY(lane == w->default_track)) return TRAK__REF_DEFAULT;
  /* A run on another track that grew long enough switches now. */
  return w->run_len >= TRAK__RUN_WORTH_A_SWITCH ? TRAK__REF_SWITCH : TRAK__REF_UUID;
}
/* Writes at p (room for TRAK__DEFAULT_TRACK_BYTES) the TracePacket.trace_packet_defaults that
** makes `uuid` the sequence's default track. Returns the new end. */
#define TRAK__DEFAULT_TRACK_BYTES 16
uint8_t *trak__wr_put_default_track(uint8_t *p, uint64_t uuid);

/* events.c */
/* The call name used in refusal messages ("slice_begin", ...). */
const char *trak__wr_event_call(trak_writer_event_type type);
/* Writes a SLICE_END packet on `lane` at ts. Returns 0 or the buffer / sink error. */
int trak__wr_write_end(trak_writer *w, trak_writer_track lane, uint64_t ts);

#endif /* TRAK_WRITER_INTERNAL_H */
