/*
** This file holds flow binding for both formats, as Perfetto's flow tracker binds flows. The
** flow ids TrackEvents name (flow_ids, terminating_flow_ids, legacy v2 bind_id) and protobuf
** legacy v1 flow events come in records' aux blocks (trak__flows_bind, trak__flow_legacy_v1).
** JSON flow events are bound as follows: a flow's id
** maps to the slice it last left from; s (and v2 flow_out) starts a flow at the topmost
** slice of its track (a second start of the same id is flow_duplicate_id and ignored), t
** (flow_in with flow_out) steps it on, f with bp "e" (and v2 flow_in) ends it in the topmost
** slice without closing it, f without bp "e" waits for the next slice to begin on its track.
** A flow between two slices always runs from the earlier one to the later one. Flows are
** identified as in Perfetto: a v2 flow by its bind_id, a v1 flow (id, category, name) by a
** number counted from 0 in order of first use; both share one space, and flow.trace_id
** holds it.
*/
#include <string.h>

#include "processor/import/importer.h"

/* Adds a JSON flow; a flow whose id is a v1 flow's gets that flow's name and category args, as
** Perfetto's flow tracker looks the id up (v2 ids share the space). */
static void add(trak_importer *imp, uint32_t out, uint32_t in, uint64_t id) {
  uint32_t flow = trak__flow_add(imp->tables, out, in, (int64_t)id);
  if (imp->json && id < imp->flows.v1_args.n) {
    imp->tables->flow.arg_set_id[flow] = imp->flows.v1_args.v[id];
    trak__arg_order_log(imp, TRAK_ARG_ORDER_SET, imp->flows.v1_args.v[id]);
  }
}

void trak__flow_link(trak_importer *imp, uint32_t from, uint32_t slice, uint64_t id) {
  const trak_tables *t = imp->tables;
  if (t->slice.ts[from] > t->slice.ts[slice])
    add(imp, slice, from, id);
  else
    add(imp, from, slice, id);
}

uint64_t trak__json_v1_flow_id(trak_importer *imp, uint64_t key, uint64_t name_cat) {
  int added;
  uint32_t *id = trak__map_put(&imp->flows.v1_ids, key, 0, &added);
  if (!added) return *id;
  *id = imp->flows.v1_count++;
  trak_tables *t = imp->tables;
  uint32_t set = (uint32_t)t->args.n;
  static const char *const keys[] = {"name", "cat"};
  uint32_t values[] = {(uint32_t)(name_cat >> 32), (uint32_t)name_cat};
  for (int i = 0; i < 2; i++) {
    if (!values[i]) continue;
    uint32_t k = trak__strpool_intern(&t->strings, keys[i], strlen(keys[i]));
    uint32_t row = trak__arg_add(t, set, k, k, TRAK_ARG_STRING);
    t->args.string_value[row] = values[i];
  }
  trak_vec_push(imp->flows.v1_args, trak__args_share(imp, set));
  return imp->flows.v1_count - 1;
}

void trak__json_flow(trak_importer *imp, int op, uint64_t key, uint32_t slice, uint32_t track,
                     uint64_t pkt) {
  if (op == TRAK_FLOW_V1_END_NEXT) {
    imp->tracks.info.v[track].pending_flow++;
    trak_vec_push(imp->flows.pending, ((trak_pending_flow){key, track}));
    return;
  }
  if (slice == TRAK_NULL_U32) {
    trak__report_at(imp, TRAK_STAT_FLOW_NO_ENCLOSING, pkt,
                    "flow event has no enclosing slice on its track");
    return;
  }
  uint32_t *from = trak__map_get(&imp->flows.last_slice, key);
  switch (op) {
  case TRAK_FLOW_V1_BEGIN:
    if (from) {
      trak__report_at(imp, TRAK_STAT_FLOW_DUPLICATE_ID, pkt,
                      "flow starts again with an id that already started; ignored");
      return;
    }
    int added;
    *trak__map_put(&imp->flows.last_slice, key, slice, &added) = slice;
    return;
  case TRAK_FLOW_V1_STEP:
    if (!from) {
      trak__report_at(imp, TRAK_STAT_FLOW_STEP_WITHOUT_START, pkt,
                      "flow step with an id no flow started with; ignored");
      return;
    }
    trak__flow_link(imp, *from, slice, key);
    *from = slice;
    return;
  default: /* an end binding to the enclosing slice: the flow stays open */
    if (!from) {
      trak__report_at(imp, TRAK_STAT_FLOW_END_WITHOUT_START, pkt,
                      "flow end with an id no flow started with; ignored");
      return;
    }
    trak__flow_link(imp, *from, slice, key);
    return;
  }
}

void trak__json_flow_pending(trak_importer *imp, uint32_t track, uint32_t slice) {
  imp->tracks.info.v[track].pending_flow = 0;
  size_t kept = 0;
  for (size_t i = 0; i < imp->flows.pending.n; i++) {
    trak_pending_flow p = imp->flows.pending.v[i];
    if (p.track != track) {
      imp->flows.pending.v[kept++] = p;
      continue;
    }
    const uint32_t *from = trak__map_get(&imp->flows.last_slice, p.key);
    if (from) add(imp, *from, slice, p.key);
  }
  imp->flows.pending.n = kept;
}

void trak__json_flow_v2(trak_importer *imp, const uint64_t *block, uint32_t slice, uint32_t track,
                        uint64_t pkt) {
  if (!block[0] && !block[1]) return;
  int op = block[2] & TRAK_AUX_JSON_FLOW_STEP ? TRAK_FLOW_V1_STEP
           : block[0]                         ? TRAK_FLOW_V1_BEGIN
                                              : TRAK_FLOW_V1_END_ENCLOSING;
  trak__json_flow(imp, op, block[3], slice, track, pkt);
}

/* ---- protobuf (and JSON v1 through the legacy event path): flows named in records -------- */

/* The flows of slice `slice` from its record's aux block (import.h), as Perfetto's flow tracker
** makes them: a flow id begins a flow or continues it from its last slice; a terminating id
** ends an open flow; a legacy v2 bind_id begins (OUT), continues (INOUT) or ends a step of
** (IN: the flow stays open, from the same slice) a flow. A flow runs from the earlier of its
** two slices to the later one, whichever event named it first. */
void trak__flows_bind(trak_importer *imp, const uint64_t *aux, uint32_t slice) {
  const uint64_t *ids = aux + 3;
  uint64_t n = aux[0] + (uint32_t)aux[1];
  uint32_t v2 = (uint32_t)(aux[1] >> 32) & 0xffff;
  for (uint64_t i = 0; i < n; i++) {
    int added;
    uint32_t *last = trak__map_put(&imp->flows.last_slice, ids[i], TRAK_NULL_U32, &added);
    uint32_t from = *last;
    int open = from != TRAK_NULL_U32;
    uint32_t kind = i + 1 == n && v2 ? v2 : i < aux[0] ? 0 : TRAK_FLOW_V2_IN + 1;
    if (kind == TRAK_FLOW_V2_OUT && open) {
      trak__report(imp, TRAK_STAT_FLOW_DUPLICATE_ID, "flow %llu begins again while open",
                   (unsigned long long)ids[i]);
      continue;
    }
    if (!open) {
      if (kind == TRAK_FLOW_V2_INOUT)
        trak__report(imp, TRAK_STAT_FLOW_STEP_WITHOUT_START, "flow %llu steps without a start",
                     (unsigned long long)ids[i]);
      else if (kind == TRAK_FLOW_V2_IN)
        trak__report(imp, TRAK_STAT_FLOW_END_WITHOUT_START, "flow %llu ends without a start",
                     (unsigned long long)ids[i]);
      else if (kind <= TRAK_FLOW_V2_OUT)
        *last = slice; /* begins */
      continue;
    }
    if (from != slice) trak__flow_link(imp, from, slice, ids[i]);
    if (kind == TRAK_FLOW_V2_IN + 1)
      *last = TRAK_NULL_U32; /* a terminating id closes the flow */
    else if (kind != TRAK_FLOW_V2_IN)
      *last = slice;
  }
}

/* A protobuf legacy v1 flow event (LegacyEvent phases s, t, f) binding to the enclosing slice
** or, for f without bp "e", to the next slice that begins on the track. */
void trak__flow_legacy_v1(trak_importer *imp, const trak_ev *ev, trak_track_info *info) {
  uint64_t key = imp->aux.v[ev->aux];
  if (ev->u.s.name == TRAK_FLOW_V1_END_NEXT) {
    info->pending_flow = key;
    return;
  }
  if (!info->open_depth) {
    trak__report_at(imp, TRAK_STAT_FLOW_NO_ENCLOSING, ev->pkt,
                    "flow event at %lld has no enclosing slice on its thread", (long long)ev->ts);
    return;
  }
  uint32_t slice = (uint32_t)info->open[info->open_depth - 1];
  uint64_t step[4] = {ev->u.s.name != TRAK_FLOW_V1_END_ENCLOSING,
                      ev->u.s.name == TRAK_FLOW_V1_END_ENCLOSING, 0, key};
  if (ev->u.s.name == TRAK_FLOW_V1_BEGIN) {
    int added;
    *trak__map_put(&imp->flows.last_slice, key, slice, &added) = slice;
    return;
  }
  trak__flows_bind(imp, step, slice);
}

void trak__flows_free(trak_flows *f) {
  trak__map_free(&f->last_slice);
  trak__map_free(&f->v1_ids);
  trak_vec_free(f->pending);
  trak_vec_free(f->v1_args);
}
