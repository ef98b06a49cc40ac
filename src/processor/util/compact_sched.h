/*
** FtraceEventBundle.CompactSched, the structure-of-arrays form of sched_switch and sched_waking
** that Perfetto's recorder writes: packed arrays walked in step, timestamps as deltas from 0,
** comms as indexes into the bundle's intern table. Decoded with Perfetto's rules into one event
** at a time; the caller (the ftrace importer) does the rest.
*/
#ifndef TRAK_PROCESSOR_UTIL_COMPACT_SCHED_H
#define TRAK_PROCESSOR_UTIL_COMPACT_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "processor/util/systrace_line.h"
#include "trak/pb.h"

/* One CompactSched message: its intern table and the last LEN occurrence of each packed array
** (as Perfetto's decoder takes them; an array written unpacked reads as empty). */
typedef struct trak_compact_sched {
  trak_strv *intern; /* the intern_table strings in order (malloc'd; trak__compact_sched_close) */
  size_t n_intern;
  trak_pb_field arrays[13]; /* by field number; len 0 and data NULL when absent */
} trak_compact_sched;

/* A decoded sched_switch: the previous task's fields are the CPU's last next_* (the caller's). */
typedef struct trak_compact_switch {
  int64_t ts;         /* accumulated delta (in the bundle's clock) */
  int64_t prev_state; /* raw bits (util/task_state.h) */
  int32_t next_pid;
  int32_t next_prio;
  trak_strv next_comm;      /* points into the message */
  uint32_t next_comm_index; /* its index in the intern table */
} trak_compact_switch;

/* A decoded sched_waking; the waker is the CPU's running task (the caller's). */
typedef struct trak_compact_waking {
  int64_t ts;
  int32_t pid;
  uint16_t target_cpu;
  uint16_t prio;
  trak_strv comm;
  uint32_t comm_index;  /* its index in the intern table */
  int has_common_flags; /* 1 when waking_common_flags had an element for this event */
  uint16_t common_flags;
} trak_compact_waking;

/* Walks one kind of event of a trak_compact_sched (fill with the begin functions). */
typedef struct trak_compact_iter {
  const trak_compact_sched *cs;
  trak_pb_packed it[6];
  uint64_t cur[6];
  int valid[6];
  int ncols;   /* 5 for switches, 6 for wakings (common_flags is optional) */
  int64_t ts;  /* the running sum of the timestamp deltas */
  int error;   /* a truncated element or an intern index out of range was met */
  int stopped; /* the walk is over */
} trak_compact_iter;

/* Reads the message [data, data + len). Returns 0, or -1 when out of memory (*cs is then
** empty and needs no close). Malformed bytes end the reading where they start, keeping the fields
** before them, as Perfetto's decoder does. */
int trak__compact_sched_open(trak_compact_sched *cs, const uint8_t *data, size_t len);
/* Frees what trak__compact_sched_open allocated. */
void trak__compact_sched_close(trak_compact_sched *cs);

/* Starts walking the switches / the wakings of cs (which must outlive the walk). */
void trak__compact_switch_begin(trak_compact_iter *it, const trak_compact_sched *cs);
void trak__compact_waking_begin(trak_compact_iter *it, const trak_compact_sched *cs);
/* The next event: returns 1 and fills *ev, or 0 at the end. The walk ends when any array runs
** out, an element is truncated, or a comm index is past the intern table (that event is not
** given). */
int trak__compact_switch_next(trak_compact_iter *it, trak_compact_switch *ev);
int trak__compact_waking_next(trak_compact_iter *it, trak_compact_waking *ev);
/* After the end: 1 when Perfetto counts compact_sched_has_parse_errors for this walk (an error,
** or arrays of different lengths), else 0. */
int trak__compact_iter_bad(const trak_compact_iter *it);

/* Where one kind of event's arrays lie in a message, as offsets from its start (so that a copy
** of the message can be walked without reading it again), with its intern table's length. An
** array absent or not length-delimited is empty (offset 0, length 0), as the walk reads it. */
typedef struct trak_compact_cols {
  uint32_t off[6], len[6]; /* the walk's order: timestamp first, comm index fifth */
  uint32_t n_intern;
} trak_compact_cols;

/* The arrays of the switches (waking 0) or wakings (1) of cs, opened from a message of at most
** UINT32_MAX bytes starting at `data`. */
void trak__compact_cols_of(const trak_compact_sched *cs, const uint8_t *data, int waking,
                           trak_compact_cols *out);

/* The most events one call of trak__compact_batch_next gives. */
#define TRAK_COMPACT_BATCH 128

/* The raw values of up to TRAK_COMPACT_BATCH events, by array in the walk's order: v[0] is the
** timestamp's running sum, v[5] the waking's common_flags (0 where that array had no element). */
typedef struct trak_compact_rows {
  uint64_t v[6][TRAK_COMPACT_BATCH];
  size_t n_flags; /* the first n_flags events had a common_flags element */
} trak_compact_rows;

/* Walks one kind of event of a message many events at a time, giving exactly the events (and
** values) the per-event walk gives, without its per-event checks. */
typedef struct trak_compact_batch {
  trak_pb_packed col[6];
  uint64_t ts;
  uint32_t n_intern;
  uint8_t ncols;      /* 5 for switches, 6 for wakings */
  uint8_t flags_live; /* common_flags still has elements */
  uint8_t stopped;
} trak_compact_batch;

/* Starts walking the arrays `cols` (trak__compact_cols_of's for `waking`) of the message at
** `data` (which must outlive the walk). */
void trak__compact_batch_begin(trak_compact_batch *b, const uint8_t *data,
                               const trak_compact_cols *cols, int waking);
/* Up to `max` (at most TRAK_COMPACT_BATCH) next events into rows: returns how many, fewer than
** max only where the per-event walk ends (then every later call returns 0). */
size_t trak__compact_batch_next(trak_compact_batch *b, trak_compact_rows *rows, size_t max);

/* A switch or waking from the raw values of its arrays (the timestamp's running sum first),
** converted as both walks convert them; the comm (next_comm, comm) is left empty: the caller
** has the intern table. */
static inline void trak__compact_switch_set(trak_compact_switch *ev, uint64_t ts, uint64_t state,
                                            uint64_t pid, uint64_t prio, uint64_t idx) {
  ev->ts = (int64_t)ts;
  ev->prev_state = (int64_t)state;
  ev->next_pid = (int32_t)pid;
  ev->next_prio = (int32_t)prio;
  ev->next_comm.s = NULL, ev->next_comm.len = 0;
  ev->next_comm_index = (uint32_t)idx;
}
static inline void trak__compact_waking_set(trak_compact_waking *ev, uint64_t ts, uint64_t pid,
                                            uint64_t target_cpu, uint64_t prio, uint64_t idx,
                                            int has_flags, uint64_t flags) {
  ev->ts = (int64_t)ts;
  ev->pid = (int32_t)pid;
  ev->target_cpu = (uint16_t)(int32_t)target_cpu;
  ev->prio = (uint16_t)(int32_t)prio;
  ev->comm.s = NULL, ev->comm.len = 0;
  ev->comm_index = (uint32_t)idx;
  ev->has_common_flags = has_flags;
  ev->common_flags = has_flags ? (uint16_t)flags : 0;
}

/* What a walk of one kind of event gives, told without walking it. */
typedef struct trak_compact_count {
  size_t n;            /* events */
  int64_t first, last; /* the first and last event's timestamps (when n > 0) */
  int sorted;          /* 1 when no timestamp is below the one before */
} trak_compact_count;

/* Counts the switches (waking 0) or wakings (1) of cs when its arrays of that kind are plain:
** every one of the same length with no malformed element (common_flags: any length), every comm
** index inside the intern table. Then the walk gives exactly out->n events and is not bad
** (trak__compact_iter_bad): returns 1. Else returns 0 (walk it to know). Reads the timestamp
** and comm index arrays' values, and only the lengths of the others. */
int trak__compact_count(const trak_compact_sched *cs, int waking, trak_compact_count *out);

#endif /* TRAK_PROCESSOR_UTIL_COMPACT_SCHED_H */
