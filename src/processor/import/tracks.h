/*
** Tracks as the importer sees them (tracks.c; async_tracks.c for the lanes async ids share):
** identity (uuid, or a key the format implies), naming, scope (global, process, thread),
** parents, and the track table written at the end. A track info's index is its final id.
*/
#ifndef TRAK_PROCESSOR_IMPORT_TRACKS_H
#define TRAK_PROCESSOR_IMPORT_TRACKS_H

#include <stdint.h>
#include "processor/import/sequence.h"
#include "processor/import/track_kinds.h"
#include "processor/tables/storage.h"

typedef struct trak_importer trak_importer;

/* Why a track's ancestors cannot be resolved (trak_track_info.orphan), as Perfetto tells them
** apart: a parent never described, a loop, a chain past TRAK_LIMIT_TRACK_ANCESTORS. */
enum { TRAK_ORPHAN_MISSING = 1, TRAK_ORPHAN_LOOP, TRAK_ORPHAN_TOO_DEEP };

typedef struct trak_track_info {
  uint64_t uuid;
  uint64_t parent_uuid;
  uint64_t orphan_uuid; /* the ancestor never described, or the one met twice (a loop) */
  uint8_t described, has_parent, is_counter, is_incremental, child_ordering, has_rank;
  uint8_t merge_none;     /* sibling_merge_behavior NONE: Perfetto's *_track_event, not merged */
  uint32_t merge_key;     /* string id of its sibling_merge_key (BY_SIBLING_MERGE_KEY); 0: none */
  uint8_t orphan;         /* TRAK_ORPHAN_*: its ancestors cannot be resolved, events dropped */
  uint32_t n_descriptors; /* TrackDescriptor packets that described it */
  uint8_t kind;           /* trak_track_kind_id when the format implies the track; TRAK_TK_NONE: a
                ** descriptor's, whose kind its scope decides (track_kinds.h) */
  uint8_t is_thread, is_process, is_legacy_thread;
  uint8_t compressed;    /* a cookie track of async ids or merged siblings: records go to the
                        ** track trak__async_track gives them */
  uint8_t lane_taken;    /* a compressed descriptor whose own track already serves a lane */
  uint8_t counter_type;  /* CounterDescriptor.type: thread time or instruction count */
  uint8_t is_state;      /* TrackDescriptor.state: TYPE_STATE events set its states */
  uint8_t kernel_slices; /* kernel records began slices on it: those left open are no problem */
  uint8_t made_at_end;   /* made when the import ends, as Perfetto makes the tracks of counters
                        ** it resolves then (JSON counters, kernel process counters) */
  uint8_t made_early;    /* a process counter track a ProcessStats packet made: the kernel's
                        ** values for it (which carry args) do not make it a row, however early */
  uint32_t machine;      /* machine table row of the packet that first named it */
  uint32_t state_row;    /* parse phase: its current state's row in tables->state + 1, 0: none */
  /* a state track's state that ends at once (string id, 0: none) */
  uint32_t terminal_state;
  int32_t rank; /* sibling_order_rank; an energy consumer's ordinal (TRAK_SOURCE_ENERGY_CONSUMER) */
  uint32_t name;    /* string id */
  uint32_t dim_key; /* a TRAK_DIM_KEY kind's key (string id) */
  uint32_t description;
  uint32_t scope;      /* legacy async tracks: the id's scope (string id, 0: none); power tracks:
                       ** a rail's subsystem, a consumer's type (string ids) */
  uint32_t root_name;  /* legacy async tracks: the first name of the id, 0: the track's name */
  uint32_t src_upid;   /* implied tracks: the process of the event that made it, or NULL */
  uint32_t lane;       /* a lane of a set of tracks (async ids, overflow slices): its index; the CPU
                 ** of a per-CPU track (TRAK_DIM_CPU) */
  uint32_t utid, upid; /* TRAK_NULL_U32 unless a thread / process descriptor */
  int64_t dim_int;     /* an integer dimension wider than lane (TRAK_DIM_BLOCK_DEVICE's dev) */
  uint32_t group;      /* track_group_id + 1 (the set of lanes it belongs to), 0: NULL */
  uint32_t unit;       /* string id */
  int64_t multiplier;  /* counter unit multiplier, 1 by default */
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
  uint8_t parse_plain; /* parse phase: 1 only when not orphan, not compressed and first_ts set,
                       ** so that its events skip those tests (event_parser.c); 0 (the state
                       ** of a new track, and of all at the parse phase's start): test them */
  size_t open_depth;       /* parse phase: number of open slices */
  size_t open_cap;
  uint64_t *open;        /* parse phase: stack of open slices, begin packet << 32 | slice id */
  /* Parse phase: while the stack holds open_only slices or more, the open_only-th of them still
  ** open_only_top, its first open_only slices are open B slices (no duration), which
  ** trak__stack_prepare's walk need not visit (slice_stack.c; 0: nothing known). */
  size_t open_only;
  uint64_t open_only_top;
  uint64_t pending_flow; /* parse phase: flow ends waiting for the next slice here (count) */
} trak_track_info;

/* One output track of a set of JSON async ids (async_tracks.c): the id ("cookie" track) that
** holds it and how many of its begins are open. */
typedef struct trak_async_lane {
  uint32_t cookie; /* cookie track index */
  uint32_t nest;
  uint32_t track; /* output track index */
  uint32_t next;  /* next lane of the set in async_lanes, TRAK_NULL_U32: last */
} trak_async_lane;

/* An event record whose legacy_event.passthrough_utid waits for its track's scope: an
** ancestor of the track was not yet described when the event was read (tracks.c). */
typedef struct trak_pending_passthrough {
  trak_sequence *seq;   /* the record's sequence (unpacked before the args are resolved) */
  size_t index;         /* the record's index among the sequence's records */
  uint32_t track, utid; /* the event's track, its sequence's thread then */
} trak_pending_passthrough;

/* The tracks of one import (tracks.c owns them; imp->tracks). */
typedef struct trak_tracks {
  TRAK_VEC(trak_track_info) info;     /* index = track id */
  trak_map by_uuid;                   /* uuid -> index in info */
  trak_map legacy_thread;             /* utid -> its legacy thread track */
  trak_map thread_uuid, process_uuid; /* utid / upid -> uuid of the descriptor that claimed it */
  TRAK_VEC(trak_pending_passthrough) pending_passthrough; /* see trak__passthrough_defer */
  uint32_t n_used; /* parse phase: tracks that had an event so far */
  /* The root track descriptor's (uuid 0) process_ordering / thread_ordering are EXPLICIT:
  ** process and thread tracks' sibling_order_rank become their sort index hints. */
  uint8_t process_ordering_explicit, thread_ordering_explicit;
} trak_tracks;

/* The lanes async ids share (async_tracks.c owns them, but legacy_roots, which
** proto/legacy_event.c fills; imp->async). */
typedef struct trak_async_tracks {
  trak_map roots;                  /* JSON cookie track -> its set's root name */
  trak_map legacy_roots;           /* legacy async id (and process) -> first name */
  trak_map sets;                   /* root name << 32 | upid + 1 -> first lane */
  TRAK_VEC(trak_async_lane) lanes; /* lanes of all sets */
} trak_async_tracks;

/* Tracks (tracks.c). */

/* A thread descriptor's identity, decoded (proto/track_descriptor.c). */
typedef struct trak_thread_desc {
  uint64_t uuid;             /* of the track descriptor */
  int64_t pid, tid;          /* both present (the decoder skips a descriptor without) */
  uint32_t name;             /* string id, 0: none */
  uint8_t has_chrome_thread; /* a ChromeThreadDescriptor came with it */
  uint8_t sandboxed;         /* it says the tid was read in a sandbox: (pid, tid) is the key */
} trak_thread_desc;

/* The thread a thread descriptor names: the descriptor's uuid owns one (pid, tid) thread; a
** second uuid for a live (pid, tid) means the tid was reused, and starts a new thread. Sets
** *other when the uuid's track already names a thread that is not (pid, tid) (then the name
** is not applied to it); else the thread takes the descriptor's name. Returns the utid. */
uint32_t trak__descriptor_thread(trak_importer *imp, const trak_thread_desc *td, int *other);
/* The track of thread descriptor `td` whose thread is `utid` (trak__descriptor_thread; `other`
** its answer): with `own_track` (no counter, merging allowed) the thread's own track, which
** a second uuid of the thread shares, else the uuid's track. The descriptor's (pid, tid) also
** becomes `seq`'s thread (seq may be NULL). Returns the track index. */
uint32_t trak__descriptor_thread_track(trak_importer *imp, trak_sequence *seq,
                                       const trak_thread_desc *td, uint32_t utid, int other,
                                       int own_track);
/* The process a process descriptor of track `uuid` names, by the same rule, named `name`
** (0: none) with the descriptor's priority. Returns the upid. */
uint32_t trak__descriptor_process(trak_importer *imp, uint64_t uuid, int64_t pid, uint32_t name);
/* Marks track `index` described once more, by a descriptor of thread `utid` / process `upid`
** (TRAK_NULL_U32: none). Returns its info, for the descriptor's other fields. */
trak_track_info *trak__track_described(trak_importer *imp, uint32_t index, uint32_t utid,
                                       uint32_t upid);
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
** trak__passthrough_resolve (tokenizing done, the sequences it names unpacked) adds the arg
** where the scope then calls for it. */
#define TRAK_PASSTHROUGH_PENDING (TRAK_NULL_U32 - 1)
__attribute__((cold)) void trak__passthrough_defer(trak_importer *imp, trak_sequence *seq,
                                                   uint32_t track);
void trak__passthrough_resolve(trak_importer *imp);
/* The global "Default Track" (uuid 0): events with no track and no thread go there. */
uint32_t trak__default_track(trak_importer *imp);
/* The track of thread `utid` that its events without a track use, made on first use. Can't
** fail. */
uint32_t trak__legacy_thread_track(trak_importer *imp, uint32_t utid);
/* A track the format implies rather than describes (legacy async tracks, process and global
** instant tracks), found by `key` (its uuid is key | 1 << 63) and made on first use: named
** `name` (or by the first named event), a process track when upid is not TRAK_NULL_U32, of
** `kind` (TRAK_TK_NONE: the descriptor kind its scope implies). Can't fail. */
uint32_t trak__keyed_track(trak_importer *imp, uint64_t key, uint32_t name, uint32_t upid,
                           int is_counter, trak_track_kind_id kind);
/* The counter track of `kind` (a system or process counter kind of track_kinds.h) for process
** `upid` (TRAK_NULL_U32: a global track), CPU or interrupt `lane`, and key `key` (string id; 0
** for kinds without TRAK_DIM_KEY), named `name` (string id) when made: the same track for every source of the kind (SysStats
** devfreq and systrace clock_set_rate share "<device> Frequency"). Can't fail. */
uint32_t trak__system_counter_track(trak_importer *imp, trak_track_kind_id kind, uint32_t upid,
                                    uint32_t lane, uint32_t key, uint32_t name);
/* The global counter track of `kind` on the packet's machine told apart by dimensions `a` and
** `b` (the caller writes them into the info when *made is set), named `name` (string id). Can't
** fail. */
uint32_t trak__dim_counter_track(trak_importer *imp, trak_track_kind_id kind, uint64_t a,
                                 uint64_t b, uint32_t name, int *made);
/* Makes track `track` a row now if no event has (Perfetto interns some tracks while it
** tokenizes: power rails, from their descriptors), numbered before the tracks events make
** later. Can't fail. */
void trak__track_made_now(trak_importer *imp, uint32_t track);
/* Once tokenizing is done: marks the tracks with an ancestor that is never described, whose
** events the parse phase drops as Perfetto does (each of their descriptors and events counts
** track_hierarchy_missing_uuid and track_event_parser_errors, and is logged). */
void trak__tracks_check_hierarchy(trak_importer *imp);
/* Counts and logs one descriptor or event on orphan track `track`. */
void trak__track_orphan_report(trak_importer *imp, uint32_t track, uint64_t packet);
/* Writes the track table from the track infos (after parsing). */
void trak__tracks_finish(trak_importer *imp);
/* The output track of a record (type BEGIN, END or INSTANT, event name `name`) on cookie track
** `cookie` (a JSON or legacy async id, or a descriptor track merged by name with its
** siblings), as Perfetto's track compressor picks it (async_tracks.c). */
uint32_t trak__async_track(trak_importer *imp, uint32_t cookie, uint32_t type, uint32_t name);

/* TracePacket.concurrent_session_event (implemented in proto/concurrent_sessions.c): a state
** of the session's state track; and the session id of such a track from its uuid (for its
** dimension arg). */
void trak__concurrent_session_event(trak_importer *imp, const trak_packet_ctx *ctx,
                                    const uint8_t *data, size_t len) __attribute__((cold));
int64_t trak__concurrent_session_id(uint64_t uuid);

/* Free what imp->tracks / imp->async hold (tracks.c, async_tracks.c). */
void trak__tracks_free(trak_tracks *tr);
void trak__async_tracks_free(trak_async_tracks *a);

#endif /* TRAK_PROCESSOR_IMPORT_TRACKS_H */
