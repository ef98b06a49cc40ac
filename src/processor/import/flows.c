/*
** This file holds flow binding for both formats, with the rules of Perfetto's flow tracker: a
** flow's id maps to the slice it last left. A begin (v1 s, v2 flow_out / FLOW_OUT, a TrackEvent
** flow id not open) starts a flow at a slice (a second begin of an open id is flow_duplicate_id
** and ignored); a step (v1 t, v2 both / FLOW_INOUT, a TrackEvent flow id already open) links it
** on; an end (v1 f bound to the enclosing slice, v2 flow_in / FLOW_IN) links it into a slice
** and leaves it open, a TrackEvent terminating id closes it; a v1 f not bound to the enclosing
** slice waits, in a queue per track, for the next slice to begin there. A link runs from the
** earlier of its two slices to the later one, and may join a slice to itself. Flows are
** identified as in Perfetto: a v2 or TrackEvent flow by its id, a v1 flow (id, category, name)
** by a number counted from 0 in order of first use; all share one space, and flow.trace_id
** holds it.
*/
#include <assert.h>
#include <string.h>

#include "processor/import/importer.h"
#include "processor/tables/arg_value.h"

/* Adds a flow row; a flow whose id is a v1 flow's gets that flow's name and category args, as
** Perfetto's flow tracker looks the id up (the other ids share the space). */
static void add(trak_importer *imp, uint32_t out, uint32_t in, uint64_t id) {
  uint32_t flow = trak__flow_add(imp->tables, out, in, (int64_t)id);
  if (id < imp->flows.v1_args.n) {
    imp->tables->flow.arg_set_id[flow] = imp->flows.v1_args.v[id];
    trak__arg_order_log(imp, TRAK_ARG_ORDER_SET, imp->flows.v1_args.v[id]);
  }
}

/* Adds flow `id` between `from` and `slice`, from the earlier slice to the later one. */
static void link(trak_importer *imp, uint32_t from, uint32_t slice, uint64_t id) {
  const trak_tables *t = imp->tables;
  assert(from != TRAK_NULL_U32 && slice != TRAK_NULL_U32);
  if (t->slice.ts[from] > t->slice.ts[slice])
    add(imp, slice, from, id);
  else
    add(imp, from, slice, id);
}

uint64_t trak__flow_v1_id(trak_importer *imp, uint64_t key, uint64_t name_cat) {
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
    trak__arg_set_str(t, row, values[i]);
  }
  trak_vec_push(imp->flows.v1_args, trak__args_share(imp, set));
  return imp->flows.v1_count - 1;
}

/* Ends flow `id` in `slice`; with `close`, the flow is closed (a terminating id). */
static void end(trak_importer *imp, uint32_t *from, uint32_t slice, uint64_t id, int close) {
  uint32_t out = *from;
  if (close) *from = TRAK_NULL_U32;
  link(imp, out, slice, id);
}

void trak__flow_event(trak_importer *imp, int op, uint64_t id, uint32_t slice, uint32_t track,
                      uint64_t pkt) {
  assert(op >= TRAK_FLOW_V1_BEGIN && op <= TRAK_FLOW_V1_END_NEXT);
  if (op == TRAK_FLOW_V1_END_NEXT) {
    assert(track < imp->tracks.info.n);
    imp->tracks.info.v[track].pending_flow++;
    trak_vec_push(imp->flows.pending, ((trak_pending_flow){id, track}));
    return;
  }
  if (slice == TRAK_NULL_U32) {
    trak__report_at(imp, TRAK_STAT_FLOW_NO_ENCLOSING, pkt,
                    "flow %llu has no enclosing slice on its track", (unsigned long long)id);
    return;
  }
  int added;
  uint32_t *from = trak__map_put(&imp->flows.last_slice, id, TRAK_NULL_U32, &added);
  int open = *from != TRAK_NULL_U32;
  switch (op) {
  case TRAK_FLOW_V1_BEGIN:
    if (open)
      trak__report_at(imp, TRAK_STAT_FLOW_DUPLICATE_ID, pkt, "flow %llu begins again while open",
                      (unsigned long long)id);
    else
      *from = slice;
    return;
  case TRAK_FLOW_V1_STEP:
    if (!open) {
      trak__report_at(imp, TRAK_STAT_FLOW_STEP_WITHOUT_START, pkt,
                      "flow %llu steps without a start", (unsigned long long)id);
      return;
    }
    link(imp, *from, slice, id);
    *from = slice;
    return;
  default: /* an end binding to the enclosing slice: the flow stays open */
    if (!open)
      trak__report_at(imp, TRAK_STAT_FLOW_END_WITHOUT_START, pkt, "flow %llu ends without a start",
                      (unsigned long long)id);
    else
      end(imp, from, slice, id, 0);
    return;
  }
}

void trak__flows_pending(trak_importer *imp, uint32_t track, uint32_t slice) {
  imp->tracks.info.v[track].pending_flow = 0;
  size_t kept = 0;
  for (size_t i = 0; i < imp->flows.pending.n; i++) {
    trak_pending_flow p = imp->flows.pending.v[i];
    if (p.track != track) {
      imp->flows.pending.v[kept++] = p;
      continue;
    }
    const uint32_t *from = trak__map_get(&imp->flows.last_slice, p.key);
    if (from && *from != TRAK_NULL_U32) add(imp, *from, slice, p.key);
  }
  imp->flows.pending.n = kept;
}

void trak__json_flow_v2(trak_importer *imp, const uint64_t *block, uint32_t slice, uint64_t pkt) {
  if (!block[0] && !block[1]) return;
  int op = block[2] & TRAK_AUX_JSON_FLOW_STEP ? TRAK_FLOW_V1_STEP
           : block[0]                         ? TRAK_FLOW_V1_BEGIN
                                              : TRAK_FLOW_V1_END_ENCLOSING;
  trak__flow_event(imp, op, block[3], slice, TRAK_NULL_U32, pkt);
}

void trak__flows_bind(trak_importer *imp, const uint64_t *aux, uint32_t slice, uint64_t pkt) {
  const uint64_t *ids = aux + 3;
  uint64_t n_flow = aux[0], n_end = (uint32_t)aux[1];
  uint32_t v2 = (uint32_t)(aux[1] >> 32) & 0xffff;
  if (v2) { /* the legacy bind_id, last in the block, first in Perfetto's order */
    assert(n_end > 0 && v2 <= TRAK_FLOW_V2_IN); /* counted among the terminating ids */
    n_end--;
    int op = v2 == TRAK_FLOW_V2_OUT     ? TRAK_FLOW_V1_BEGIN
             : v2 == TRAK_FLOW_V2_INOUT ? TRAK_FLOW_V1_STEP
                                        : TRAK_FLOW_V1_END_ENCLOSING;
    trak__flow_event(imp, op, ids[n_flow + n_end], slice, TRAK_NULL_U32, pkt);
  }
  for (uint64_t i = 0; i < n_flow; i++) {
    int added;
    uint32_t *from = trak__map_put(&imp->flows.last_slice, ids[i], TRAK_NULL_U32, &added);
    if (*from != TRAK_NULL_U32) link(imp, *from, slice, ids[i]);
    *from = slice; /* begins, or goes on from here */
  }
  for (uint64_t i = n_flow; i < n_flow + n_end; i++) {
    uint32_t *from = trak__map_get(&imp->flows.last_slice, ids[i]);
    if (!from || *from == TRAK_NULL_U32) continue;
    if (aux[1] & TRAK_AUX_SLICE_FLOW) { /* a flow between two slices the importer made */
      trak__flow_add(imp->tables, *from, slice, INT64_MIN);
      *from = TRAK_NULL_U32;
    } else {
      end(imp, from, slice, ids[i], 1);
    }
  }
}

void trak__flows_free(trak_flows *f) {
  trak__map_free(&f->last_slice);
  trak__map_free(&f->v1_ids);
  trak_vec_free(f->pending);
  trak_vec_free(f->v1_args);
}
