/*
** Flows (flows.c): binding flow ids to the slices they leave and enter, as Perfetto's
** flow tracker does; the flow table's rows.
*/
#ifndef TRAK_PROCESSOR_IMPORT_FLOWS_H
#define TRAK_PROCESSOR_IMPORT_FLOWS_H

#include <stdint.h>
#include "processor/tables/storage.h"

typedef struct trak_importer trak_importer;
struct trak_ev;         /* sequence.h */
struct trak_track_info; /* tracks.h */

/* A JSON flow end (f without bp "e") waiting for the next slice to begin on its track. */
typedef struct trak_pending_flow {
  uint64_t key;
  uint32_t track;
} trak_pending_flow;

/* The flow state of one import (flows.c owns it; imp->flows). */
typedef struct trak_flows {
  trak_map last_slice;                 /* parse phase: flow id -> the slice it last left */
  TRAK_VEC(trak_pending_flow) pending; /* JSON flow ends waiting for a slice */
  trak_map v1_ids;                     /* JSON v1 flow key (id, cat, name) -> flow id */
  uint32_t v1_count;                   /* v1 flow ids given so far */
  TRAK_VEC(uint32_t) v1_args;          /* v1 flow id -> its flows' arg set */
} trak_flows;

/* JSON flows (flows.c), bound as Perfetto's flow tracker binds them: `op` is a
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
/* Binds the flow ends waiting on `track` to `slice`, which just began there. */
void trak__json_flow_pending(trak_importer *imp, uint32_t track, uint32_t slice);

/* The flows of slice `slice` from its record's aux block (sequence.h: aux[0] flow ids, then
** (uint32)aux[1] terminating ones, the last being a legacy v2 bind_id of kind aux[1] >> 32
** & 0xffff when that is non-zero; ids from aux[3]), bound as described at
** trak__flows_bind's definition. Reports problems (flow_duplicate_id, flow_*_without_start);
** can't fail. */
void trak__flows_bind(trak_importer *imp, const uint64_t *aux, uint32_t slice);
/* A protobuf legacy v1 flow event (record `ev` on the track `info` describes): binds to the
** track's topmost open slice, or, for an end that binds to the next slice, waits in
** info->pending_flow. Reports flow_no_enclosing_slice; can't fail. */
void trak__flow_legacy_v1(trak_importer *imp, const struct trak_ev *ev,
                          struct trak_track_info *info);

/* Frees what imp->flows holds. */
void trak__flows_free(trak_flows *f);

#endif /* TRAK_PROCESSOR_IMPORT_FLOWS_H */
