/*
** The slice stack's common cases, inline in the parse loop (event_parser.c): a push, a prepare
** whose stack holds open B slices only or whose one slice with a duration is its top, an end
** that ends the top. Every other case goes to slice_stack.c, whose walk and end loop give the
** same results for these cases too (the inline code is their first step).
*/
#ifndef TRAK_PROCESSOR_IMPORT_SLICE_STACK_H
#define TRAK_PROCESSOR_IMPORT_SLICE_STACK_H

#include <stdint.h>

#include "processor/import/importer.h"

/* Perfetto commits a slice's args when it leaves the stack (arg_order.c). */
__attribute__((always_inline)) static inline void trak__stack_pop(trak_importer *imp,
                                                                  trak_track_info *info) {
  trak__arg_order_slice(imp, (uint32_t)info->open[--info->open_depth]);
}

/* How many of the stack's bottom slices are known to be open B slices (tracks.h: open_only).
** A stack is only popped and pushed at its top, and a slice id is pushed once: the slices
** under the open_only-th are those that were there when it was set as long as it is still
** on the stack. Pops cost nothing so. */
static inline size_t trak__open_prefix(const trak_track_info *info) {
  size_t k = info->open_only;
  if (!k || (k <= info->open_depth && info->open[k - 1] == info->open_only_top)) return k;
  return 0;
}
/* Sets the open prefix to the stack's first k slices (all of them open B slices). */
static inline void trak__open_prefix_set(trak_track_info *info, size_t k) {
  info->open_only = k;
  info->open_only_top = k ? info->open[k - 1] : 0;
}

/* The end of open slice `s` (INT64_MAX while it is open). */
static inline int64_t trak__slice_end_ts(const trak_tables *t, uint32_t s) {
  return t->slice.dur[s] < 0 ? INT64_MAX : trak__wadd(t->slice.ts[s], t->slice.dur[s]);
}

/* Pushes slice `slice` (of the event at packet `pkt`) onto the stack of `info`. */
static inline void trak__stack_push(trak_track_info *info, uint32_t pkt, uint32_t slice) {
  if (info->open_depth == info->open_cap)
    trak__grow((void **)&info->open, &info->open_cap, info->open_depth + 1, sizeof *info->open);
  info->open[info->open_depth++] = (uint64_t)pkt << 32 | slice;
}

/* After a slice with a duration (complete or instant) is pushed on a stack of `depth` slices:
** the stack may hold closed slices now. With `prefix` (JSON), a stack that held open B slices
** only (no closed_on_stack) makes them the open prefix, so that the next walk starts at the
** slice pushed instead of at the prefix set last. */
static inline void trak__stack_closed(trak_track_info *info, size_t depth, int prefix) {
  if (prefix && !info->closed_on_stack) trak__open_prefix_set(info, depth);
  info->closed_on_stack = 1;
}

/* Whether a new slice at `ts` of duration `dur` (-1: a begin) partly overlaps open complete
** slice `s`, which ends at `end`; if so, fills *overlap. */
static inline int trak__stack_overlap(const trak_tables *t, uint32_t s, int64_t end, int64_t ts,
                                      int64_t dur, trak_overlap *overlap) {
  if (dur < 0 || ts >= end || trak__wadd(ts, dur) <= end) return 0;
  overlap->start = ts;
  overlap->end = end;
  overlap->name = t->slice.name[s];
  overlap->ts = t->slice.ts[s];
  overlap->dur = t->slice.dur[s];
  return 1;
}

/* Before a slice of duration `dur` (-1: a begin, still open) starts on `track` (whose info is
** `info`, &imp->tracks.info.v[track], which the caller has at hand) at ev->ts:
** pops the slices that ended (an instant stays under an instant at its timestamp) and cuts
** slices still open above a complete one that ended (misplaced_end_event). Returns 0, with
** *overlap filled, if the new slice would partly overlap an open complete slice. A stack of
** open B slices only (see closed_on_stack) needs no walk: nothing there ends or overlaps; one
** whose only slice with a duration is its top (the rest its open prefix) is decided here, as
** the walk's first step decides it; any other goes to trak__stack_walk. */
__attribute__((always_inline)) static inline int trak__stack_prepare(
    trak_importer *imp, trak_track_info *info, uint32_t track, const trak_ev *ev, int64_t dur,
    trak_overlap *overlap) {
  if (!info->closed_on_stack) return 1;
  size_t depth = info->open_depth;
  const trak_tables *t = imp->tables;
  uint32_t s;
  if (TRAK_UNLIKELY(!depth || trak__open_prefix(info) != depth - 1 ||
                    t->slice.dur[s = (uint32_t)info->open[depth - 1]] < 0))
    return trak__stack_walk(imp, track, ev, dur, overlap);
  int64_t sdur = t->slice.dur[s], end = trak__wadd(t->slice.ts[s], sdur), ts = ev->ts;
  /* closed on the left, open on the right; instants at one timestamp stack */
  if (end < ts || (end == ts && !(sdur == 0 && dur == 0))) {
    trak__stack_pop(imp, info);
    trak__open_prefix_set(info, depth - 1); /* all that is left is open */
    info->closed_on_stack = 0;
    return 1;
  }
  if (trak__stack_overlap(t, s, end, ts, dur, overlap)) return 0;
  trak__open_prefix_set(info, depth - 1); /* the top stays, open under it */
  return 1;
}

/* After trak__stack_prepare (dur -1): ends the innermost open slice of `track` (`info`: its
** info, &imp->tracks.info.v[track]) whose name and
** category match the end record's (absent ones match any), merging the end's args; returns it,
** or TRAK_NULL_U32 (an end with nothing to end; Perfetto does not count it). The slice leaves
** the stack only if it is the top one: slices still open above it are cut off by the next
** event after its end. The top is tried here; trak__stack_end_below does the rest. */
__attribute__((always_inline)) static inline uint32_t
trak__stack_end(trak_importer *imp, trak_track_info *info, uint32_t track, const trak_ev *ev) {
  trak_tables *t = imp->tables;
  uint32_t name = ev->u.s.name, cat = ev->u.s.cat, s;
  if (TRAK_UNLIKELY(!info->open_depth)) return TRAK_NULL_U32;
  s = (uint32_t)info->open[info->open_depth - 1];
  if (TRAK_UNLIKELY(t->slice.dur[s] >= 0 || (cat && t->slice.category[s] != cat) ||
                    (name && t->slice.name[s] && t->slice.name[s] != name)))
    return trak__stack_end_below(imp, track, ev);
  t->slice.dur[s] = trak__wsub(ev->ts, t->slice.ts[s]);
  if (ev->arg_set_id != TRAK_NULL_U32)
    t->slice.arg_set_id[s] = trak__args_merge(imp, t->slice.arg_set_id[s], ev->arg_set_id);
  trak__stack_pop(imp, info);
  return s;
}

#endif /* TRAK_PROCESSOR_IMPORT_SLICE_STACK_H */
