/*
** This file holds trak_writer_write(): one event is checked against its track (kind, names,
** arguments, flows, then the slice stack in slices.c), its strings are interned, and only then
** is it encoded as one TracePacket with a TrackEvent (a COMPLETE slice as a BEGIN and an END),
** naming its track or relying on the sequence's default track (default_track.c). The
** shorthands for the common events are here too.
*/
#include <string.h>

#include "writer/writer_internal.h"

const char *trak__wr_event_call(trak_writer_event_type type) {
  switch (type) {
  case TRAK_WRITER_BEGIN:
    return "slice_begin";
  case TRAK_WRITER_END:
    return "slice_end";
  case TRAK_WRITER_COMPLETE:
    return "slice_complete";
  case TRAK_WRITER_INSTANT:
    return "instant";
  case TRAK_WRITER_COUNTER_INT:
    return "counter";
  case TRAK_WRITER_COUNTER_DOUBLE:
    return "counter_double";
  }
  return NULL;
}

/* The checks that do not depend on the slice stack. Returns 0 or a refusal. */
static int check_event(trak_writer *w, const trak_writer_event *ev, const char *call) {
  unsigned long long ts = (unsigned long long)ev->ts;
  const trak__wtrack *t = trak__track(w, ev->track);
  if (!t)
    return trak__wr_fail(w, TRAK_EINVAL, "%s at %llu: unknown track handle %u", call, ts,
                         ev->track);
  if (t->alias_of) t = trak__track(w, t->alias_of);
  int counter = ev->type == TRAK_WRITER_COUNTER_INT || ev->type == TRAK_WRITER_COUNTER_DOUBLE;
  if (counter != (t->kind == TRAK__KIND_COUNTER))
    return trak__wr_fail(w, TRAK_EINVAL, "%s at %llu on track %u [%s]: %s", call, ts, ev->track,
                         t->label,
                         counter ? "counter values need a counter track"
                                 : "a counter track takes only counter values");
  if (ev->name_id && ev->name_id > w->names.count)
    return trak__wr_fail(w, TRAK_EINVAL, "%s at %llu: unknown name_id %llu", call, ts,
                         (unsigned long long)ev->name_id);
  int takes_extras = ev->type == TRAK_WRITER_BEGIN || ev->type == TRAK_WRITER_COMPLETE ||
                     ev->type == TRAK_WRITER_INSTANT;
  if (!takes_extras && (ev->n_args || ev->n_flow_ids || ev->n_terminating_flow_ids))
    return trak__wr_fail(w, TRAK_EINVAL,
                         "%s at %llu: only slices and instants take arguments or flows", call, ts);
  if ((ev->n_flow_ids && !ev->flow_ids) ||
      (ev->n_terminating_flow_ids && !ev->terminating_flow_ids))
    return trak__wr_fail(w, TRAK_EINVAL, "%s at %llu: flow id list is NULL", call, ts);
  return ev->n_args ? trak__wr_args_check(w, call, ev->args, ev->n_args) : 0;
}

static void put_flows(trak_pb_buf *b, uint32_t field, const uint64_t *ids, size_t n) {
  for (size_t i = 0; i < n; i++)
    trak_pb_put_fixed64(b, field, ids[i]);
}

static const uint8_t TRACK_EVENT_TYPES[] = {
    [TRAK_WRITER_BEGIN] = TRAK_PB_TrackEvent_TYPE_SLICE_BEGIN,
    [TRAK_WRITER_END] = TRAK_PB_TrackEvent_TYPE_SLICE_END,
    [TRAK_WRITER_COMPLETE] = TRAK_PB_TrackEvent_TYPE_SLICE_BEGIN,
    [TRAK_WRITER_INSTANT] = TRAK_PB_TrackEvent_TYPE_INSTANT,
    [TRAK_WRITER_COUNTER_INT] = TRAK_PB_TrackEvent_TYPE_COUNTER,
    [TRAK_WRITER_COUNTER_DOUBLE] = TRAK_PB_TrackEvent_TYPE_COUNTER,
};

/* The TrackEvent fields every event has (type, track unless `uuid` is 0 for the default track,
** name, category, counter value), written at p, which has room for TRAK__SMALL_EVENT bytes.
** Returns the new end. */
#define TRAK__SMALL_EVENT 64
static uint8_t *put_small_fields(uint8_t *p, const trak_writer_event *ev, uint64_t uuid,
                                 trak_writer_name name, uint64_t category) {
  p = trak_pb_write_tag(p, TRAK_PB_TrackEvent_type, TRAK_PB_WIRE_VARINT);
  p = trak_pb_write_varint(p, TRACK_EVENT_TYPES[ev->type]);
  if (uuid) {
    p = trak_pb_write_tag(p, TRAK_PB_TrackEvent_track_uuid, TRAK_PB_WIRE_VARINT);
    p = trak_pb_write_varint(p, uuid);
  }
  if (name && ev->type != TRAK_WRITER_END) {
    p = trak_pb_write_tag(p, TRAK_PB_TrackEvent_name_iid, TRAK_PB_WIRE_VARINT);
    p = trak_pb_write_varint(p, name);
  }
  if (category) {
    p = trak_pb_write_tag(p, TRAK_PB_TrackEvent_category_iids, TRAK_PB_WIRE_VARINT);
    p = trak_pb_write_varint(p, category);
  }
  if (ev->type == TRAK_WRITER_COUNTER_INT) {
    p = trak_pb_write_tag(p, TRAK_PB_TrackEvent_counter_value, TRAK_PB_WIRE_VARINT);
    p = trak_pb_write_varint(p, (uint64_t)ev->int_value);
  } else if (ev->type == TRAK_WRITER_COUNTER_DOUBLE) {
    uint64_t bits;
    memcpy(&bits, &ev->double_value, 8);
    p = trak_pb_write_tag(p, TRAK_PB_TrackEvent_double_counter_value, TRAK_PB_WIRE_FIXED64);
    p = trak_pb_write_fixed64(p, bits);
  }
  return p;
}

/* How one event packet is encoded: its track's uuid and how the packet names it. */
typedef struct track_ref {
  uint64_t uuid;
  enum trak__track_ref how;
} track_ref;

/* The track_uuid the TrackEvent carries: 0 (none) when the default track is meant. */
static inline uint64_t event_uuid(track_ref track) {
  return track.how == TRAK__REF_UUID ? track.uuid : 0;
}

/* The fast path for the common packet (no arguments, flows or pending interned data, not the
** first packet). Such a packet and its TrackEvent are always shorter than 128 bytes (defaults
** included), so each length takes one byte, reserved and then filled in: nothing is patched or
** shifted. Returns 0 or the buffer / sink error. */
static int encode_small(trak_writer *w, const trak_writer_event *ev, track_ref track,
                        trak_writer_name name, uint64_t category, int needs_state) {
  trak_pb_buf *b = &w->out;
  if (!trak_pb_buf_ensure(b, 2 + 32 + TRAK__DEFAULT_TRACK_BYTES + 2 + TRAK__SMALL_EVENT))
    return b->error;
  uint8_t *packet = b->p, *p;
  p = trak_pb_write_tag(packet, TRAK_PB_Trace_packet, TRAK_PB_WIRE_LEN) + 1;
  uint8_t *body = p;
  p = trak_pb_write_tag(p, TRAK_PB_TracePacket_timestamp, TRAK_PB_WIRE_VARINT);
  p = trak_pb_write_varint(p, ev->ts);
  p = trak_pb_write_tag(p, TRAK_PB_TracePacket_trusted_packet_sequence_id, TRAK_PB_WIRE_VARINT);
  p = trak_pb_write_varint(p, w->seq_id);
  if (needs_state) {
    p = trak_pb_write_tag(p, TRAK_PB_TracePacket_sequence_flags, TRAK_PB_WIRE_VARINT);
    p = trak_pb_write_varint(p, TRAK_PB_TracePacket_SEQ_NEEDS_INCREMENTAL_STATE);
  }
  if (track.how == TRAK__REF_SWITCH) p = trak__wr_put_default_track(p, track.uuid);
  p = trak_pb_write_tag(p, TRAK_PB_TracePacket_track_event, TRAK_PB_WIRE_LEN) + 1;
  uint8_t *te = p;
  p = put_small_fields(p, ev, event_uuid(track), name, category);
  te[-1] = (uint8_t)(p - te);
  body[-1] = (uint8_t)(p - body);
  b->p = p;
  w->totals.packets++;
  if (TRAK_UNLIKELY(trak_pb_buf_len(b) >= TRAK__FLUSH_BYTES)) return trak_writer_flush(w);
  return 0;
}

/* The general path: any packet, with arguments, flows and interned definitions. */
__attribute__((noinline)) static int encode_full(trak_writer *w, const trak_writer_event *ev,
                                                 track_ref track, trak_writer_name name,
                                                 uint64_t category, int needs_state) {
  trak_pb_buf *b = &w->out;
  trak_pb_nested packet = trak__wr_packet_begin(w, needs_state);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_timestamp, ev->ts);
  if (track.how == TRAK__REF_SWITCH && trak_pb_buf_ensure(b, TRAK__DEFAULT_TRACK_BYTES))
    b->p = trak__wr_put_default_track(b->p, track.uuid);
  trak_pb_nested te = trak_pb_begin_nested_short(b, TRAK_PB_TracePacket_track_event);
  if (trak_pb_buf_ensure(b, TRAK__SMALL_EVENT))
    b->p = put_small_fields(b->p, ev, event_uuid(track), name, category);
  put_flows(b, TRAK_PB_TrackEvent_flow_ids, ev->flow_ids, ev->n_flow_ids);
  put_flows(b, TRAK_PB_TrackEvent_terminating_flow_ids, ev->terminating_flow_ids,
            ev->n_terminating_flow_ids);
  trak__wr_args_encode(w, ev->args, ev->n_args);
  trak_pb_end_nested_short(b, te);
  return trak__wr_packet_end(w, packet);
}

/* Encodes the accepted event on `lane`. A COMPLETE slice is written as its BEGIN; its END
** follows when the track's time passes its end (slices.c), keeping each track in time order. */
static int encode(trak_writer *w, const trak_writer_event *ev, trak_writer_track lane,
                  trak_writer_name name, uint64_t category) {
  track_ref track = {w->tracks[lane - 1].uuid, trak__wr_track_ref(w, lane)};
  /* Packets that refer to interned strings or the default track depend on the sequence's
  ** incremental state; once the sequence has a default track, all of them do (see
  ** default_track.c). */
  int needs_state = (name && ev->type != TRAK_WRITER_END) || category || ev->n_args ||
                    track.how != TRAK__REF_UUID || w->default_track;
  int small = w->started && !(ev->n_args | ev->n_flow_ids | ev->n_terminating_flow_ids) &&
              w->pending_interned.p == w->pending_interned.start;
  int rc = small ? encode_small(w, ev, track, name, category, needs_state)
                 : encode_full(w, ev, track, name, category, needs_state);
  /* The packet is in the sequence unless the buffer failed (a sink error loses everything). */
  if (track.how == TRAK__REF_SWITCH && !w->out.error) w->default_track = lane;
  return rc;
}

int trak__wr_write_end(trak_writer *w, trak_writer_track lane, uint64_t ts) {
  trak_writer_event end = {.type = TRAK_WRITER_END, .ts = ts};
  return encode(w, &end, lane, 0, 0);
}

/* Interns the event's strings before its packet starts, so their definitions precede it. */
static int intern_strings(trak_writer *w, const trak_writer_event *ev, trak_writer_name *name,
                          uint64_t *category) {
  if (ev->name && !*name) {
    *name = trak__wr_intern(w, &w->names, ev->name);
    if (!*name) return TRAK_ENOMEM;
  }
  if (ev->category) {
    *category = trak__wr_intern(w, &w->categories, ev->category);
    if (!*category) return TRAK_ENOMEM;
  }
  for (size_t i = 0; i < ev->n_args; i++)
    if (!trak__wr_intern(w, &w->arg_names, ev->args[i].name)) return TRAK_ENOMEM;
  return 0;
}

/* Counts an accepted event; close turns the per-type counts into totals. */
static inline void count(trak_writer *w, const trak_writer_event *ev) {
  w->type_counts[ev->type]++;
  if (TRAK_UNLIKELY(ev->n_flow_ids | ev->n_terminating_flow_ids))
    w->totals.flows += ev->n_flow_ids + ev->n_terminating_flow_ids;
}

int trak_writer_write(trak_writer *w, trak_writer_event *ev) {
  const char *call = ev ? trak__wr_event_call(ev->type) : NULL;
  if (!call)
    return trak__wr_fail(w, TRAK_EINVAL, "trak_writer_write: %s",
                         ev ? "unknown event type" : "NULL event");
  int rc = check_event(w, ev, call);
  if (rc) return rc;
  trak_writer_name name = ev->name_id;
  if (!name && ev->name && ev->type == TRAK_WRITER_END) {
    /* An END names the slice it closes only on AUTO_SIBLINGS tracks; it writes no name. */
    name = trak__wr_intern_find(&w->names, ev->name);
    if (!name && (trak__track(w, ev->track)->flags & TRAK_WRITER_AUTO_SIBLINGS))
      return trak__wr_fail(
          w, TRAK_ESTATE, "%s at %llu on track %u [%s]: no slice named '%s' was ever begun", call,
          (unsigned long long)ev->ts, ev->track, trak__track(w, ev->track)->label, ev->name);
  }
  trak_writer_track track = ev->track;
  int direct = trak__track(w, track)->alias_of != 0;
  if (direct) track = trak__track(w, track)->alias_of;
  trak__plan plan;
  rc = trak__wr_slices_plan(w, track, direct, ev, name, &plan);
  if (rc) return rc;
  uint64_t category = 0;
  if (TRAK_UNLIKELY(intern_strings(w, ev, &name, &category)))
    return trak__wr_fail(w, TRAK_ENOMEM, "%s: out of memory", call);
  if (!plan.lane && !(plan.lane = trak__wr_lane_add(w, track))) return w->last_error.code;
  rc = trak__wr_slices_commit(w, ev, name, &plan);
  if (rc) return trak__wr_fail(w, rc, "%s: %s", call, trak_strerror(rc));
  /* Lane 0 is reported as its alias, so that writes on it nest instead of being placed. */
  ev->lane = plan.lane == track && (trak__track(w, track)->flags & TRAK_WRITER_AUTO_SIBLINGS)
                 ? track + 1
                 : plan.lane;
  count(w, ev);
  rc = encode(w, ev, plan.lane, name, category);
  return rc ? trak__wr_fail(w, rc, "%s: writing failed: %s", call, trak_strerror(rc)) : 0;
}

/* The shorthands: one event without extras. */
static int write_simple(trak_writer *w, trak_writer_event_type type, trak_writer_track track,
                        uint64_t ts, const char *name) {
  trak_writer_event ev = {.type = type, .track = track, .ts = ts, .name = name};
  return trak_writer_write(w, &ev);
}

int trak_writer_begin(trak_writer *w, trak_writer_track track, uint64_t ts, const char *name) {
  return write_simple(w, TRAK_WRITER_BEGIN, track, ts, name);
}
int trak_writer_end(trak_writer *w, trak_writer_track track, uint64_t ts) {
  return write_simple(w, TRAK_WRITER_END, track, ts, NULL);
}
int trak_writer_instant(trak_writer *w, trak_writer_track track, uint64_t ts, const char *name) {
  return write_simple(w, TRAK_WRITER_INSTANT, track, ts, name);
}
int trak_writer_complete(trak_writer *w, trak_writer_track track, uint64_t ts, uint64_t dur,
                         const char *name) {
  trak_writer_event ev = {
      .type = TRAK_WRITER_COMPLETE, .track = track, .ts = ts, .dur = dur, .name = name};
  return trak_writer_write(w, &ev);
}
int trak_writer_counter(trak_writer *w, trak_writer_track track, uint64_t ts, int64_t value) {
  trak_writer_event ev = {
      .type = TRAK_WRITER_COUNTER_INT, .track = track, .ts = ts, .int_value = value};
  return trak_writer_write(w, &ev);
}
int trak_writer_counter_double(trak_writer *w, trak_writer_track track, uint64_t ts, double value) {
  trak_writer_event ev = {
      .type = TRAK_WRITER_COUNTER_DOUBLE, .track = track, .ts = ts, .double_value = value};
  return trak_writer_write(w, &ev);
}
