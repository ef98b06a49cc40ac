/*
** Flows (flows.c): binding flow ids to the slices they leave and enter, as Perfetto's
** flow tracker does; the flow table's rows.
*/
#ifndef TRAK_PROCESSOR_IMPORT_FLOWS_H
#define TRAK_PROCESSOR_IMPORT_FLOWS_H

#include <stdint.h>

#include "processor/import/hash.h"
#include "processor/tables/storage.h"

typedef struct trak_importer trak_importer;

/* A flow end (v1 f without binding to the enclosing slice) waiting for the next slice to begin
** on its track. */
typedef struct trak_pending_flow {
  uint64_t key;
  uint32_t track;
} trak_pending_flow;

/* The flow state of one import (flows.c owns it; imp->flows). */
typedef struct trak_flows {
  trak_map last_slice;                 /* parse phase: flow id -> the slice it last left */
  TRAK_VEC(trak_pending_flow) pending; /* flow ends waiting for a slice, in order */
  trak_map v1_ids;                     /* v1 flow key (trak__flow_v1_key) -> flow id */
  uint32_t v1_count;                   /* v1 flow ids given so far */
  TRAK_VEC(uint32_t) v1_args;          /* v1 flow id -> its flows' arg set */
} trak_flows;

/* The key of a v1 flow (s / t / f events of both formats): its id, category and name (string
** ids), as Perfetto keys v1 flows. Can't fail. */
static inline uint64_t trak__flow_v1_key(uint64_t id, uint32_t cat, uint32_t name) {
  return trak__mix(trak__mix(trak__mix(0xf101, id), cat), name);
}
/* The flow id of v1 flow `key`: 0, 1, 2, ... in order of first use, as Perfetto's; a new id
** gets the arg set {name, cat} (`name_cat`: name << 32 | category) its flows carry (so does any
** flow with that id: TrackEvent and v2 ids share the space, as in Perfetto). Can't fail. */
uint64_t trak__flow_v1_id(trak_importer *imp, uint64_t key, uint64_t name_cat);

/* A flow event of either format, bound as Perfetto's flow tracker binds it: `op` is a
** trak_flow_v1_kind. BEGIN starts flow `id` at `slice` (an id still open: flow_duplicate_id,
** ignored); STEP links it from the slice it last left to `slice` and moves it on (never begun:
** flow_step_without_start); END_ENCLOSING links it into `slice`, the flow staying open (never
** begun: flow_end_without_start); END_NEXT queues it for the next slice to begin on `track`
** (trak__flows_pending). For all but END_NEXT, `slice` is the topmost open slice of the event's
** track (TRAK_NULL_U32: none, flow_no_enclosing_slice). A link runs from the earlier of its two
** slices to the later one, and may join a slice to itself, as in Perfetto. Problems are
** logged at packet `pkt`; can't fail. */
void trak__flow_event(trak_importer *imp, int op, uint64_t id, uint32_t slice, uint32_t track,
                      uint64_t pkt);
/* Binds the flow ends queued on `track` to `slice`, which just began there (before the slice's
** own flows, as Perfetto's slice tracker calls back at a slice's start). */
void trak__flows_pending(trak_importer *imp, uint32_t track, uint32_t slice);
/* A JSON v2 flow (bind_id with flow_in / flow_out) on the slice that just began; `block` is the
** slice's flows block (one id, TRAK_AUX_JSON_FLOW_STEP in its third word for a step). */
void trak__json_flow_v2(trak_importer *imp, const uint64_t *block, uint32_t slice, uint64_t pkt);
/* The flows of TrackEvent slice `slice` from its record's aux block (sequence.h: aux[0] flow
** ids, then (uint32)aux[1] terminating ones, the last being a legacy v2 bind_id of kind
** aux[1] >> 32 & 0xffff when that is non-zero; ids from aux[3]), in Perfetto's order: the v2
** bind_id (OUT begins, INOUT steps, IN ends without closing), then each flow id (begins a flow,
** or steps an open one), then each terminating id (ends an open flow and closes it; one not
** open is ignored, as Perfetto ignores it). Problems are logged at packet `pkt`; can't fail. */
void trak__flows_bind(trak_importer *imp, const uint64_t *aux, uint32_t slice, uint64_t pkt);

/* Frees what imp->flows holds. */
void trak__flows_free(trak_flows *f);

#endif /* TRAK_PROCESSOR_IMPORT_FLOWS_H */
