/*
** This file holds the parse phase: the sequences' event records, merged in timestamp order
** (event_merge.c: ties keep file order; JSON ties as Perfetto's sorter orders them), become
** slices with depth and parent_id per track, counter values
** (incremental and scaled counters included), extra counter values and flows. Record blocks
** are freed as soon as they are consumed, so records and tables are never both at full size.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/callstacks.h"
#include "processor/import/event_merge.h"
#include "processor/import/gpu_flows.h"
#include "processor/import/importer.h"
#include "processor/import/slice_stack.h"

static const char *track_label(trak_importer *imp, uint32_t track, char *buf, size_t size) {
  const trak_track_info *info = &imp->tracks.info.v[track];
  const char *name = trak__str(&imp->tables->strings, info->name);
  if (info->is_legacy_thread)
    snprintf(buf, size, "the thread track of sequence's thread");
  else if (name)
    snprintf(buf, size, "track uuid %llu (\"%s\")", (unsigned long long)info->uuid, name);
  else
    snprintf(buf, size, "track uuid %llu", (unsigned long long)info->uuid);
  return buf;
}

/* The flows (flows.c) and the callstack of slice `slice` from its record's aux block (its
** event's packet: `pkt`). */
static inline void slice_aux(trak_importer *imp, const uint64_t *aux, uint32_t slice,
                             uint64_t pkt) {
  trak__flows_bind(imp, aux, slice, pkt);
  if (TRAK_UNLIKELY(aux[1] & TRAK_AUX_CALLSTACK)) /* its index follows the counter values */
    trak__callstack_slice(imp, (uint32_t)aux[3 + aux[0] + (uint32_t)aux[1] + 2 * aux[2]], slice);
}

/* The first event on track `track` makes it a row, numbered in this order (tracks.c); its arg
** sets are made then too, before the event's (arg_order.c), which also notes whether the event
** starts a slice (Perfetto's slice tracker then gives the track a stack). */
__attribute__((noinline, cold)) static void track_made(trak_importer *imp, trak_track_info *info,
                                                       const trak_ev *ev, uint32_t track,
                                                       int slice_start) {
  info->first_ts = ev->ts;
  info->first_order = imp->tracks.n_used++;
  trak__arg_order_log(imp, slice_start ? TRAK_ARG_ORDER_TRACK_SLICE : TRAK_ARG_ORDER_TRACK, track);
}

/* Whether event `ev`, the first on its track, makes the track a row: not a kernel process
** counter's value (it has args) on a track a ProcessStats packet made, which Perfetto makes with
** the packet's value (process_counters.c). */
static inline int makes_row(const trak_track_info *info, const trak_ev *ev) {
  return !info->made_early || ev->arg_set_id == TRAK_NULL_U32;
}

/* counter_value's rare cases: a value on a track that is no counter track is dropped (and
** counted), as Perfetto drops it (returns 0); the first value on a counter track makes it a row
** (unless a ProcessStats packet made it: makes_row). Returns 1 unless dropped. */
__attribute__((noinline, cold)) static int counter_track_check(trak_importer *imp,
                                                               const trak_ev *ev,
                                                               trak_track_info *info,
                                                               uint32_t track) {
  if (!info->is_counter) {
    char label[160];
    trak__report_at(imp, TRAK_STAT_COUNTER_NOT_COUNTER_TRACK, ev->pkt,
                    "counter value on %s, which has no counter descriptor; dropped",
                    track_label(imp, track, label, sizeof label));
    return 0;
  }
  if (makes_row(info, ev)) track_made(imp, info, ev, track, 0);
  return 1;
}

/* Adds one counter value with its arg set (TRAK_NULL_U32: none); returns it after scaling and
** accumulation (as it was when dropped: see counter_track_check). (Not inlined into the parse
** loop: GCC's allocation of the loop's registers then costs more than the call.) */
__attribute__((noinline)) static double counter_value(trak_importer *imp, const trak_ev *ev,
                                                      uint32_t track, double v, uint32_t set) {
  trak_track_info *info = &imp->tracks.info.v[track];
  if (TRAK_UNLIKELY(!info->is_counter || info->first_ts == INT64_MAX) &&
      !counter_track_check(imp, ev, info, track))
    return v;
  v *= (double)info->multiplier; /* incremental values were summed per sequence already */
  uint32_t row = trak__counter_add(imp->tables, ev->ts, track, v);
  if (TRAK_UNLIKELY(set != TRAK_NULL_U32)) {
    imp->tables->counter.arg_set_id[row] = set;
    trak__arg_order_log(imp, TRAK_ARG_ORDER_COUNTER, row); /* Perfetto makes it with the row */
  }
  return v;
}

/* A counter value as an integer column holds it: out-of-range values saturate, NaN is 0 (the
** values come from untrusted input, and such a conversion is undefined in C). */
static int64_t counter_int(double v) {
  if (!(v == v)) return 0;
  if (v >= 9223372036854775807.0) return INT64_MAX;
  if (v <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}

/* A thread-time or instruction-count value on a slice's begin or end fills its thread_ts /
** thread_dur (or thread_instruction_count / _delta), as Perfetto does. */
static void thread_time(trak_importer *imp, uint32_t track, uint32_t type, uint32_t slice,
                        double v) {
  trak_tables *t = imp->tables;
  uint8_t kind = imp->tracks.info.v[track].counter_type;
  if (slice == TRAK_NULL_U32 || !t->slice.thread_ts) return;
  int64_t *start, *delta;
  if (kind == TRAK_PB_CounterDescriptor_COUNTER_THREAD_TIME_NS)
    start = t->slice.thread_ts, delta = t->slice.thread_dur;
  else if (kind == TRAK_PB_CounterDescriptor_COUNTER_THREAD_INSTRUCTION_COUNT)
    start = t->slice.thread_ic, delta = t->slice.thread_icd;
  else
    return;
  if (type == TRAK_EV_END) {
    int64_t d = trak__wsub(counter_int(v), start[slice]);
    /* a thread time that did not move leaves thread_dur NULL, as in Perfetto */
    if (start[slice] != INT64_MIN && (d || delta == t->slice.thread_icd)) delta[slice] = d;
  } else {
    start[slice] = counter_int(v);
    if (type == TRAK_EV_INSTANT) delta[slice] = 0;
  }
}

/* JSON tts on a B or thread I (thread_ts) or E (thread_dur = tts - the slice's thread_ts), as
** Perfetto reads them. `tt` points at the two values after the event's flow ids. */
static void json_thread_time(trak_tables *t, uint32_t type, uint32_t slice, const uint64_t *tt) {
  int64_t tts = (int64_t)tt[0], tdur = (int64_t)tt[1];
  if (slice == TRAK_NULL_U32 || !t->slice.thread_ts) return;
  if (type == TRAK_EV_END) {
    if (tts != INT64_MIN && t->slice.thread_ts[slice] != INT64_MIN)
      t->slice.thread_dur[slice] = trak__wsub(tts, t->slice.thread_ts[slice]);
    return;
  }
  t->slice.thread_ts[slice] = tts;
  (void)tdur; /* a B's or an instant's tdur is not read (thread_dur stays NULL), as in Perfetto */
}

static void extra_counters(trak_importer *imp, const trak_ev *ev, const uint64_t *aux,
                           uint32_t slice) {
  const uint64_t *p = aux + 3 + aux[0] + (uint32_t)aux[1];
  for (uint64_t i = 0; i < aux[2]; i++, p += 2) {
    double v;
    memcpy(&v, &p[1], 8);
    v = counter_value(imp, ev, (uint32_t)p[0], v, TRAK_NULL_U32); /* the args are the slice's */
    thread_time(imp, (uint32_t)p[0], ev->track >> TRAK_EV_TYPE_SHIFT, slice, v);
  }
}

/* Numbers the extra counter tracks of `ev` that no event used before; each takes
** has_first_packet_on_sequence from the event's sequence, as Perfetto interns them with it. */
static void extra_counters_first_use(trak_importer *imp, const trak_ev *ev, const uint64_t *aux,
                                     const trak_sequence *seq) {
  const uint64_t *p = aux + 3 + aux[0] + (uint32_t)aux[1];
  for (uint64_t i = 0; i < aux[2]; i++, p += 2) {
    trak_track_info *info = &imp->tracks.info.v[(uint32_t)p[0]];
    if (info->is_counter && info->first_ts == INT64_MAX) {
      track_made(imp, info, ev, (uint32_t)p[0], 0);
      info->first_seq_flagged = seq->first_packet_flag;
    }
  }
}

/* Ends the topmost open slice of `track` that the end matches (slice_stack.c), with the end's
** flows; an end that matches nothing is dropped (as Perfetto drops it, without counting), and
** reported in slice_end_unmatched unless a kernel record of `seq` (an irq, block_io or
** workqueue end whose begin came before the trace: common, and Perfetto's stats say nothing). */
static uint32_t slice_end(trak_importer *imp, const trak_ev *ev, uint32_t track,
                          const trak_sequence *seq) {
  uint32_t slice = trak__stack_end(imp, &imp->tracks.info.v[track], track, ev);
  if (slice == TRAK_NULL_U32) {
    if (seq->kernel) return TRAK_NULL_U32;
    char label[160];
    trak__report_at(imp, TRAK_STAT_END_UNMATCHED, ev->pkt,
                    "slice end on %s matches no open slice (none began there); dropped",
                    track_label(imp, track, label, sizeof label));
    return TRAK_NULL_U32;
  }
  if (ev->aux) slice_aux(imp, imp->aux.v + ev->aux, slice, ev->pkt);
  return slice;
}

/* A TYPE_STATE event (tokenized as EXTRA_ONLY, on a state track only): the track's current
** state ends here, and the event's name, if it has one, is the new state (no name: none). */
__attribute__((noinline)) static void state_value(trak_importer *imp, const trak_ev *ev,
                                                  trak_track_info *info, uint32_t track) {
  trak_tables *t = imp->tables;
  if (info->state_row) {
    uint32_t row = info->state_row - 1;
    t->state.dur[row] = trak__wsub(ev->ts, t->state.ts[row]);
    info->state_row = 0;
  }
  if (!ev->u.s.name) return;
  uint32_t row = trak__state_add(t, ev->ts, track, ev->u.s.cat, ev->u.s.name, ev->arg_set_id);
  if (ev->u.s.name == info->terminal_state) /* ends at once: a zero-length marker */
    t->state.dur[row] = 0;
  else
    info->state_row = row + 1;
}

/* (Inlined into the merge loop: it runs once per record. `json` is imp->json, a constant there,
** so that each format's loop has only its own branches.) */
__attribute__((always_inline)) static inline void
parse_one(trak_importer *imp, const trak_ev *ev, const trak_sequence *seq, const int json) {
  trak_tables *t = imp->tables;
  uint32_t type = ev->track >> TRAK_EV_TYPE_SHIFT, track = ev->track & TRAK_EV_TRACK_MASK;
  trak_track_info *info = &imp->tracks.info.v[track];
  uint32_t slice = TRAK_NULL_U32;
  /* (Perfetto finds a counter value on a track that is no counter track while tokenizing, so
  ** before it resolves the track's hierarchy.) A plain track (parse_plain) is none of the
  ** three cases below. */
  if (TRAK_UNLIKELY(!info->parse_plain)) {
    if (TRAK_UNLIKELY(info->orphan) && (type != TRAK_EV_COUNTER || info->is_counter)) {
      trak__track_orphan_report(imp, track, ev->pkt);
      return;
    }
    if (TRAK_UNLIKELY(info->compressed)) { /* a cookie track: the track it is given now */
      track = trak__async_track(imp, track, type, ev->u.s.name);
      info = &imp->tracks.info.v[track];
    }
  }
  /* Perfetto makes an event's extra counter tracks before the track of the event itself. */
  if (TRAK_UNLIKELY(ev->aux) && !json && type <= TRAK_EV_EXTRA_ONLY && imp->aux.v[ev->aux + 2])
    extra_counters_first_use(imp, ev, imp->aux.v + ev->aux, seq);
  /* the event that makes the track a row (not a counter value on a track that is no counter
  ** track: dropped, as Perfetto's tokenizer drops it) */
  if (TRAK_UNLIKELY(!info->parse_plain)) {
    if (info->first_ts == INT64_MAX && (type != TRAK_EV_COUNTER || info->is_counter) &&
        makes_row(info, ev)) {
      track_made(imp, info, ev, track,
                 type == TRAK_EV_BEGIN || type == TRAK_EV_INSTANT || type == TRAK_EV_COMPLETE);
      info->first_name = type == TRAK_EV_COUNTER ? 0 : ev->u.s.name;
      info->first_seq_flagged = seq->first_packet_flag;
    }
    info->parse_plain = !info->orphan && !info->compressed && info->first_ts != INT64_MAX;
  }
  if (json) {
    /* Perfetto's slice tracker: flow steps read the stack as it is (a complete slice that has
    ** ended stays the enclosing one until the next slice event); slices prepare it. */
    if (type == TRAK_EV_END) {
      trak_overlap unused;
      trak__stack_prepare(imp, info, track, ev, -1, &unused);
    } else if (type == TRAK_EV_BEGIN || type == TRAK_EV_INSTANT || type == TRAK_EV_COMPLETE) {
      int64_t dur = type == TRAK_EV_BEGIN     ? -1
                    : type == TRAK_EV_INSTANT ? 0
                                              : (int64_t)imp->aux.v[ev->aux];
      trak_overlap overlap;
      if (!trak__stack_prepare(imp, info, track, ev, dur, &overlap)) {
        track = trak__spill_track(imp, track, ev, dur, &overlap);
        t = imp->tables;
        info = &imp->tracks.info.v[track];
        if (info->first_ts == INT64_MAX) track_made(imp, info, ev, track, 1), info->first_name = 0;
      }
    }
  } else if (info->open_depth && info->closed_on_stack) {
    /* the same discipline (a proto overlap is only reported); a stack of open B slices only
    ** needs none (see closed_on_stack) */
    trak_overlap unused;
    trak__stack_prepare(imp, info, track, ev,
                        type == TRAK_EV_INSTANT    ? 0
                        : type == TRAK_EV_COMPLETE ? (int64_t)imp->aux.v[ev->aux]
                                                   : -1,
                        &unused);
  }
  switch (type) {
  case TRAK_EV_BEGIN:
  case TRAK_EV_INSTANT:
  case TRAK_EV_COMPLETE: {
    uint32_t depth = (uint32_t)info->open_depth;
    uint32_t parent = depth ? (uint32_t)info->open[depth - 1] : TRAK_NULL_U32;
    uint32_t id =
        trak__slice_add(t, ev->ts, track, ev->u.s.cat, ev->u.s.name, depth, parent, ev->arg_set_id);
    uint32_t aux = ev->aux;
    if (type == TRAK_EV_COMPLETE) {
      const uint64_t *c = imp->aux.v + aux;
      t->slice.dur[id] = (int64_t)c[0];
      if (c[1] >> 63 && t->slice.thread_ts) /* JSON tts / tdur follow */
        t->slice.thread_ts[id] = (int64_t)c[2], t->slice.thread_dur[id] = (int64_t)c[3];
      aux = (uint32_t)c[1];
      if (!json && parent != TRAK_NULL_U32 && t->slice.dur[parent] >= 0 &&
          trak__wadd(ev->ts, t->slice.dur[id]) >
              trak__wadd(t->slice.ts[parent], t->slice.dur[parent]))
        trak__report_at(imp, TRAK_STAT_NON_NESTING, ev->pkt,
                        "complete slice at %lld ends after its parent, which it overlaps",
                        (long long)ev->ts);
    }
    if (type == TRAK_EV_INSTANT) t->slice.dur[id] = 0;
    /* instants too: later instants at their time stack on them */
    trak__stack_push(info, ev->pkt, id);
    info->kernel_slices |= seq->kernel;
    if (type != TRAK_EV_BEGIN) trak__stack_closed(info, depth, json);
    /* flow ends waiting for this slice first, as Perfetto's slice tracker calls back at its
    ** start, then the event's own flows */
    if (TRAK_UNLIKELY(info->pending_flow)) trak__flows_pending(imp, track, id);
    if (aux && json)
      trak__json_flow_v2(imp, imp->aux.v + aux, id, ev->pkt);
    else if (aux)
      slice_aux(imp, imp->aux.v + aux, id, ev->pkt);
    if (TRAK_UNLIKELY(imp->gpu_flows != NULL)) trak__gpu_flows_slice(imp, ev->pkt, id);
    slice = id;
    if (type == TRAK_EV_COMPLETE) return;
    break;
  }
  case TRAK_EV_FLOW: { /* a v1 flow event of either format */
    uint32_t top = info->open_depth ? (uint32_t)info->open[info->open_depth - 1] : TRAK_NULL_U32;
    uint64_t id = trak__flow_v1_id(imp, imp->aux.v[ev->aux], imp->aux.v[ev->aux + 1]);
    trak__flow_event(imp, (int)ev->u.s.name, id, top, track, ev->pkt);
    return;
  }
  case TRAK_EV_END:
    slice = json ? trak__stack_end(imp, info, track, ev) : slice_end(imp, ev, track, seq);
    break;
  case TRAK_EV_COUNTER:
    counter_value(imp, ev, track, ev->u.value, ev->arg_set_id);
    break;
  case TRAK_EV_EXTRA_ONLY:
    if (TRAK_UNLIKELY(info->is_state)) state_value(imp, ev, info, track);
    break;
  default:
    break;
  }
  if (!ev->aux || !imp->aux.v[ev->aux + 2]) return;
  const uint64_t *aux = imp->aux.v + ev->aux;
  if (json) {
    if (aux[2] & TRAK_AUX_JSON_THREAD_TIME)
      json_thread_time(t, type, slice, aux + 3 + aux[0] + aux[1]);
  } else {
    extra_counters(imp, ev, aux, slice);
  }
}

static void report_unterminated(trak_importer *imp) {
  trak_tables *t = imp->tables;
  for (uint32_t track = 0; track < imp->tracks.info.n; track++) {
    trak_track_info *info = &imp->tracks.info.v[track];
    for (size_t i = 0; i < info->open_depth; i++) {
      uint32_t slice = (uint32_t)info->open[i];
      if (t->slice.arg_set_id[slice] != TRAK_NULL_U32) /* committed when the import ends */
        trak__arg_order_log(imp, TRAK_ARG_ORDER_FLUSH, slice);
      if (t->slice.dur[slice] >= 0) continue; /* a complete slice (JSON X) */
      if (info->kernel_slices) continue;      /* a syscall, block_io or atrace slice still open */
      char label[160];
      trak__report_at(imp, TRAK_STAT_UNTERMINATED, info->open[i] >> 32,
                      "slice \"%s\" on %s never ends (dur stays -1)",
                      t->slice.name[slice] ? trak__str(&t->strings, t->slice.name[slice]) : "",
                      track_label(imp, track, label, sizeof label));
    }
    free(info->open);
    info->open = NULL;
    info->open_depth = info->open_cap = 0;
  }
}

/* Parses every record of merge `m` in its order (`json`: imp->json, a constant in each copy). */
__attribute__((always_inline)) static inline void parse_all(trak_importer *imp, trak_ev_merge *m,
                                                            const int json) {
  const trak_ev_rec *recs;
  size_t n_recs;
  while ((n_recs = trak__ev_merge_next(m, imp->tables->slice.n, &recs)))
    for (size_t i = 0; i < n_recs; i++) {
      if (TRAK_UNLIKELY(imp->args.timed)) {
        trak__arg_order_at(&imp->args, recs[i].ev.ts);
        const trak_args *a = &imp->args;
        uint32_t pkt = recs[i].ev.pkt;
        trak__arg_order_ord(&imp->args, recs[i].seq == a->ord_seq && pkt >= a->ord_pkt_base
                                            ? pkt - a->ord_pkt_base
                                            : UINT32_MAX);
      }
      parse_one(imp, &recs[i].ev, recs[i].seq, json);
    }
}

void trak__events_parse(trak_importer *imp) {
  trak__tracks_check_hierarchy(imp);
  trak__ev_merge_prepare(imp);
  const uint64_t *n = imp->n_of_type;
  trak__tables_reserve(imp->tables, n[TRAK_EV_BEGIN] + n[TRAK_EV_INSTANT] + n[TRAK_EV_COMPLETE],
                       n[TRAK_EV_COUNTER] + imp->n_counter_records);
  trak_ev_merge *m = trak__ev_merge_open(imp);
  if (imp->json)
    parse_all(imp, m, 1);
  else
    parse_all(imp, m, 0);
  trak__ev_merge_close(m);
  trak__arg_order_at(&imp->args, INT64_MAX); /* Perfetto's last sets: made when its import ends */
  trak__arg_order_ord(&imp->args, UINT32_MAX);
  report_unterminated(imp);
  trak__process_args_flush(imp);
}
