/*
** Slices' stack discipline (slice_stack.c), Perfetto's slice tracker's: which open slices an
** event closes, ends matched by name, overlapping complete slices spilled onto overflow
** tracks. The parse phase itself (event_parser.c) is trak__events_parse.
*/
#ifndef TRAK_PROCESSOR_IMPORT_SLICES_H
#define TRAK_PROCESSOR_IMPORT_SLICES_H

#include <stdint.h>
#include "processor/import/sequence.h"
#include "processor/tables/storage.h"

typedef struct trak_importer trak_importer;

/* One thread's overflow lanes (slice_stack.c) and, over them, a tree that finds the first lane
** a complete slice fits in with log2(lanes) steps: a lane's key is the end of the innermost
** slice on its stack (INT64_MIN: empty), and a slice [ts, hi) fits a lane whose key is >= hi
** (it nests) and may fit one whose key is <= ts (its slices may have ended); a key inside
** (ts, hi) means a partial overlap. */
typedef struct trak_lane_set {
  uint32_t n, size;   /* lanes; leaves (a power of two >= n, 0: none yet) */
  uint32_t *track;    /* [size] lane -> its overflow track */
  int64_t *min, *max; /* [2 * size] the least and greatest key below each node (leaves at
                        ** size + lane; unused leaves INT64_MAX / INT64_MIN) */
} trak_lane_set;

/* The slice state of one import beyond each track's open stack (slice_stack.c; imp->slices). */
typedef struct trak_slices {
  trak_map lane_sets;           /* utid -> index in sets */
  TRAK_VEC(trak_lane_set) sets; /* overflow lanes of X events, per thread */
} trak_slices;

typedef struct trak_overlap {
  int64_t start, end; /* the region a new complete slice shares with an open one */
  uint32_t name;      /* the open slice's name, its ts and dur */
  int64_t ts, dur;
} trak_overlap;
/* trak__stack_prepare (slice_stack.h) of a track whose stack may hold a slice with a duration
** under its top, or under its open prefix: its walk. */
int trak__stack_walk(trak_importer *imp, uint32_t track, const trak_ev *ev, int64_t dur,
                     trak_overlap *overlap);
/* trak__stack_end (slice_stack.h) of an end the stack's top (the stack not empty) does not take:
** ends the innermost open slice under it whose name and category match the end record's, which
** stays on the stack with its duration, and returns it, or TRAK_NULL_U32. */
uint32_t trak__stack_end_below(trak_importer *imp, uint32_t track, const trak_ev *ev);
/* Reports the overlap and returns the overflow track of the thread of `track` the complete
** slice goes to (made on first use; prepared for the slice). */
uint32_t trak__spill_track(trak_importer *imp, uint32_t track, const trak_ev *ev, int64_t dur,
                           const trak_overlap *overlap);

/* The parse phase (event_parser.c): merges the sequences' records by timestamp into slices,
** counters, flows and states, freeing the records as it goes. Called once, after tokenizing
** and trak__packets_retry_deferred. Can't fail: problems are counted. */
void trak__events_parse(trak_importer *imp);

/* Frees what imp->slices holds. */
void trak__slices_free(trak_slices *s);

#endif /* TRAK_PROCESSOR_IMPORT_SLICES_H */
