/*
** This file holds the protobuf exporter behind `trak convert trace.json out.pb`: the tables of
** a finished processor written as a Perfetto protobuf trace, so that importing it gives the
** same slices (ts, dur, name, category, depth), counter values and flows:
**   - one TrackDescriptor per track, on a packet sequence of its own: thread tracks with their
**     thread {pid, tid, thread_name}, process-scoped tracks as children of their process's
**     descriptor (process {pid, process_name}), other tracks global; counter tracks with an
**     empty `counter`;
**   - each track's slices as TYPE_SLICE_BEGIN / TYPE_SLICE_END (TYPE_INSTANT for dur 0, a
**     begin alone for a slice that never ended) in the order that rebuilds their nesting: a
**     walk of the track's slice tree, ending open slices until the next slice's parent is on
**     top;
**   - counter values as TYPE_COUNTER events with double_counter_value;
**   - flow row i as flow id i + 1: in flow_ids of its outgoing slice's begin, in
**     terminating_flow_ids of its incoming slice's begin;
**   - a slice's args as debug annotations named after the key without its first segment
**     ("args.size" -> "size", read back as debug.size).
** A process's chrome.process_label[i] args (from JSON process_labels) become its descriptor's
** process_labels. Not written: thread_ts / thread_dur (protobuf carries them as counter
** values, which would add counter rows), sort indexes (Perfetto reads no protobuf field for
** them), other process and thread args.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/export/pb_export.h"
#include "processor/processor_internal.h"
#include "processor/tables/arg_value.h"
#include "trak/protos.h"
#include "util/wrapping.h"

#define PROCESS_UUID_BASE (1ULL << 40) /* + upid; track uuids are track id + 1 */

typedef struct pb_out {
  trak_pb_buf *buf;
  const trak_tables *t;
  uint32_t *flow_off, *flow_ids; /* slice -> its flow rows (CSR; an id's low bit: incoming) */
  uint32_t *thread_root; /* utid -> the track written as its thread descriptor, or NULL_U32 */
} pb_out;

static const char *str(const trak_tables *t, uint32_t id) {
  return trak__str(&t->strings, id);
}

static int is_thread_kind(uint8_t kind) {
  return kind == TRAK_TRACK_THREAD || kind == TRAK_TRACK_THREAD_COUNTER;
}
static int is_process_kind(uint8_t kind) {
  return kind == TRAK_TRACK_PROCESS || kind == TRAK_TRACK_PROCESS_COUNTER;
}
static int is_counter_kind(uint8_t kind) {
  return kind >= TRAK_TRACK_COUNTER;
}

/* Opens a packet on sequence `seq` at `ts` (no timestamp when ts is INT64_MIN); the first
** packet of a sequence clears its incremental state, which it never uses. */
static trak_pb_nested packet_begin(pb_out *o, uint32_t seq, int64_t ts, int first) {
  trak_pb_nested pkt = trak_pb_begin_nested(o->buf, TRAK_PB_Trace_packet);
  if (ts != INT64_MIN) trak_pb_put_varint(o->buf, TRAK_PB_TracePacket_timestamp, (uint64_t)ts);
  trak_pb_put_varint(o->buf, TRAK_PB_TracePacket_trusted_packet_sequence_id, seq);
  if (first)
    trak_pb_put_varint(o->buf, TRAK_PB_TracePacket_sequence_flags,
                       TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED);
  return pkt;
}

static void put_str_field(trak_pb_buf *b, uint32_t field, const char *s) {
  if (s) trak_pb_put_string(b, field, s);
}

/* The descriptor of process `upid`, on sequence 1 with the others. */
static void process_descriptor(pb_out *o, uint32_t upid) {
  const trak_tables *t = o->t;
  trak_pb_nested pkt = packet_begin(o, 1, INT64_MIN, upid == 0);
  trak_pb_nested td = trak_pb_begin_nested(o->buf, TRAK_PB_TracePacket_track_descriptor);
  trak_pb_put_varint(o->buf, TRAK_PB_TrackDescriptor_uuid, PROCESS_UUID_BASE + upid);
  trak_pb_nested pd = trak_pb_begin_nested(o->buf, TRAK_PB_TrackDescriptor_process);
  trak_pb_put_int64(o->buf, TRAK_PB_ProcessDescriptor_pid, t->process.pid[upid]);
  put_str_field(o->buf, TRAK_PB_ProcessDescriptor_process_name, str(t, t->process.name[upid]));
  uint32_t set = t->process.arg_set_id[upid];
  for (uint32_t row = set;
       set != TRAK_NULL_U32 && row < t->args.n && t->args.arg_set_id[row] == set;
       row++) /* labels from a JSON process_labels event, where Perfetto reads them from */
    if (t->args.value_type[row] == TRAK_ARG_STRING &&
        !strcmp(str(t, t->args.flat_key[row]), "chrome.process_label"))
      put_str_field(o->buf, TRAK_PB_ProcessDescriptor_process_labels,
                    str(t, trak__arg_str(t, row)));
  trak_pb_end_nested(o->buf, pd);
  trak_pb_end_nested(o->buf, td);
  trak_pb_end_nested(o->buf, pkt);
}

/* The descriptor of track `id`, first packet of its sequence (id + 2). */
static void track_descriptor(pb_out *o, uint32_t id) {
  const trak_tables *t = o->t;
  uint8_t kind = t->track.kind[id];
  trak_pb_nested pkt = packet_begin(o, id + 2, INT64_MIN, 1);
  trak_pb_nested td = trak_pb_begin_nested(o->buf, TRAK_PB_TracePacket_track_descriptor);
  trak_pb_put_varint(o->buf, TRAK_PB_TrackDescriptor_uuid, (uint64_t)id + 1);
  put_str_field(o->buf, TRAK_PB_TrackDescriptor_name, str(t, t->track.name[id]));
  uint32_t utid = t->track.utid[id], upid = t->track.upid[id];
  if (is_thread_kind(kind) && utid != TRAK_NULL_U32 && o->thread_root[utid] != id) {
    /* A thread's other tracks are children of its descriptor: a second descriptor with the
    ** same pid and tid would mean the tid was reused. */
    trak_pb_put_varint(o->buf, TRAK_PB_TrackDescriptor_parent_uuid,
                       (uint64_t)o->thread_root[utid] + 1);
  } else if (is_thread_kind(kind) && utid != TRAK_NULL_U32) {
    uint32_t tp = t->thread.upid[utid];
    trak_pb_nested th = trak_pb_begin_nested(o->buf, TRAK_PB_TrackDescriptor_thread);
    trak_pb_put_int64(o->buf, TRAK_PB_ThreadDescriptor_pid,
                      tp != TRAK_NULL_U32 ? t->process.pid[tp] : 0);
    trak_pb_put_int64(o->buf, TRAK_PB_ThreadDescriptor_tid, t->thread.tid[utid]);
    put_str_field(o->buf, TRAK_PB_ThreadDescriptor_thread_name, str(t, t->thread.name[utid]));
    trak_pb_end_nested(o->buf, th);
  } else if (is_process_kind(kind) && upid != TRAK_NULL_U32) {
    trak_pb_put_varint(o->buf, TRAK_PB_TrackDescriptor_parent_uuid, PROCESS_UUID_BASE + upid);
  }
  if (is_counter_kind(kind))
    trak_pb_end_nested(o->buf, trak_pb_begin_nested(o->buf, TRAK_PB_TrackDescriptor_counter));
  trak_pb_end_nested(o->buf, td);
  trak_pb_end_nested(o->buf, pkt);
}

/* One arg row as a debug annotation (no row for a NULL value). */
static void debug_annotation(pb_out *o, uint32_t row) {
  const trak_tables *t = o->t;
  trak_pb_buf *b = o->buf;
  trak_arg_type type = (trak_arg_type)t->args.value_type[row];
  if (type == TRAK_ARG_NULL) return;
  const char *key = str(t, t->args.key[row]), *dot = strchr(key, '.');
  /* The key after its first segment as nested values: ".name" a dict entry, "[i]" the i-th
  ** array element (after i empty ones, as each row is its own annotation), since names with
  ** '.', '[' or ']' in them read back sanitised ('_'), as Perfetto reads them. */
  const char *p = dot ? dot + 1 : key;
  trak_pb_nested nest[32];
  int depth = 0;
  nest[depth++] = trak_pb_begin_nested(b, TRAK_PB_TrackEvent_debug_annotations);
  size_t n = strcspn(p, ".[");
  trak_pb_put_bytes(b, TRAK_PB_DebugAnnotation_name, p, n);
  for (p += n; *p && depth < 32;) {
    if (*p == '.') {
      n = strcspn(++p, ".[");
      nest[depth++] = trak_pb_begin_nested(b, TRAK_PB_DebugAnnotation_dict_entries);
      trak_pb_put_bytes(b, TRAK_PB_DebugAnnotation_name, p, n);
      p += n;
    } else {
      char *end;
      unsigned long index = strtoul(p + 1, &end, 10);
      for (unsigned long k = 0; k < index && k < 4096; k++)
        trak_pb_end_nested(b, trak_pb_begin_nested(b, TRAK_PB_DebugAnnotation_array_values));
      nest[depth++] = trak_pb_begin_nested(b, TRAK_PB_DebugAnnotation_array_values);
      p = *end == ']' ? end + 1 : end;
    }
  }
  int64_t i = trak__arg_int(t, row);
  switch (type) {
  case TRAK_ARG_INT:
    trak_pb_put_int64(b, TRAK_PB_DebugAnnotation_int_value, i);
    break;
  case TRAK_ARG_UINT:
    trak_pb_put_varint(b, TRAK_PB_DebugAnnotation_uint_value, (uint64_t)i);
    break;
  case TRAK_ARG_BOOL:
    trak_pb_put_bool(b, TRAK_PB_DebugAnnotation_bool_value, i != 0);
    break;
  case TRAK_ARG_POINTER:
    trak_pb_put_varint(b, TRAK_PB_DebugAnnotation_pointer_value, (uint64_t)i);
    break;
  case TRAK_ARG_REAL:
    trak_pb_put_double(b, TRAK_PB_DebugAnnotation_double_value, trak__arg_real(t, row));
    break;
  case TRAK_ARG_JSON:
  case TRAK_ARG_STRING: {
    const char *s = str(t, trak__arg_str(t, row));
    trak_pb_put_string(b,
                       type == TRAK_ARG_JSON ? TRAK_PB_DebugAnnotation_legacy_json_value
                                             : TRAK_PB_DebugAnnotation_string_value,
                       s ? s : "");
    break;
  }
  default:
    break;
  }
  while (depth > 0)
    trak_pb_end_nested(b, nest[--depth]);
}

/* A slice's begin (or instant): name, category, args and flows. */
static void slice_begin(pb_out *o, uint32_t s) {
  const trak_tables *t = o->t;
  trak_pb_buf *b = o->buf;
  uint32_t track = t->slice.track_id[s];
  trak_pb_nested pkt = packet_begin(o, track + 2, t->slice.ts[s], 0);
  trak_pb_nested ev = trak_pb_begin_nested(b, TRAK_PB_TracePacket_track_event);
  trak_pb_put_varint(b, TRAK_PB_TrackEvent_type,
                     t->slice.dur[s] == 0 ? TRAK_PB_TrackEvent_TYPE_INSTANT
                                          : TRAK_PB_TrackEvent_TYPE_SLICE_BEGIN);
  trak_pb_put_varint(b, TRAK_PB_TrackEvent_track_uuid, (uint64_t)track + 1);
  put_str_field(b, TRAK_PB_TrackEvent_name, str(t, t->slice.name[s]));
  put_str_field(b, TRAK_PB_TrackEvent_categories, str(t, t->slice.category[s]));
  uint32_t set = t->slice.arg_set_id[s];
  for (uint32_t row = set;
       set != TRAK_NULL_U32 && row < t->args.n && t->args.arg_set_id[row] == set; row++)
    debug_annotation(o, row);
  for (uint32_t k = o->flow_off[s]; k < o->flow_off[s + 1]; k++) {
    uint32_t f = o->flow_ids[k];
    trak_pb_put_fixed64(
        b, f & 1 ? TRAK_PB_TrackEvent_terminating_flow_ids : TRAK_PB_TrackEvent_flow_ids,
        (uint64_t)(f >> 1) + 1);
  }
  trak_pb_end_nested(b, ev);
  trak_pb_end_nested(b, pkt);
}

static void slice_end(pb_out *o, uint32_t s) {
  const trak_tables *t = o->t;
  uint32_t track = t->slice.track_id[s];
  /* an annotation's ts and dur are a metric's own: its end stops at INT64_MAX */
  trak_pb_nested pkt =
      packet_begin(o, track + 2, trak__sat_add(t->slice.ts[s], t->slice.dur[s]), 0);
  trak_pb_nested ev = trak_pb_begin_nested(o->buf, TRAK_PB_TracePacket_track_event);
  trak_pb_put_varint(o->buf, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_SLICE_END);
  trak_pb_put_varint(o->buf, TRAK_PB_TrackEvent_track_uuid, (uint64_t)track + 1);
  trak_pb_end_nested(o->buf, ev);
  trak_pb_end_nested(o->buf, pkt);
}

static void counter_value(pb_out *o, uint32_t c) {
  const trak_tables *t = o->t;
  uint32_t track = t->counter.track_id[c];
  trak_pb_nested pkt = packet_begin(o, track + 2, t->counter.ts[c], 0);
  trak_pb_nested ev = trak_pb_begin_nested(o->buf, TRAK_PB_TracePacket_track_event);
  trak_pb_put_varint(o->buf, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_COUNTER);
  trak_pb_put_varint(o->buf, TRAK_PB_TrackEvent_track_uuid, (uint64_t)track + 1);
  trak_pb_put_double(o->buf, TRAK_PB_TrackEvent_double_counter_value, t->counter.value[c]);
  trak_pb_end_nested(o->buf, ev);
  trak_pb_end_nested(o->buf, pkt);
}

/* Slices in walk order: by track, then start, then depth (a parent before the children that
** start with it), then id. */
static const trak_tables *sort_tables;
static int slice_cmp(const void *a, const void *b) {
  const trak_tables *t = sort_tables;
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  if (t->slice.track_id[x] != t->slice.track_id[y])
    return t->slice.track_id[x] < t->slice.track_id[y] ? -1 : 1;
  if (t->slice.ts[x] != t->slice.ts[y]) return t->slice.ts[x] < t->slice.ts[y] ? -1 : 1;
  if (t->slice.depth[x] != t->slice.depth[y]) return t->slice.depth[x] < t->slice.depth[y] ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* Writes the slices in walk order: before each slice, the open slices that are not its parent
** end (an unended slice stays open and so stays every later slice's ancestor). */
static void slices(pb_out *o) {
  const trak_tables *t = o->t;
  size_t n = t->slice.n;
  uint32_t *order = malloc((n ? n : 1) * sizeof *order),
           *stack = malloc((n ? n : 1) * sizeof *stack);
  if (!order || !stack) abort();
  for (size_t i = 0; i < n; i++)
    order[i] = (uint32_t)i;
  sort_tables = t;
  qsort(order, n, sizeof *order, slice_cmp);
  size_t depth = 0;
  uint32_t track = TRAK_NULL_U32;
  for (size_t i = 0; i <= n; i++) {
    uint32_t s = i < n ? order[i] : TRAK_NULL_U32;
    int new_track = s == TRAK_NULL_U32 || t->slice.track_id[s] != track;
    while (depth && (new_track || stack[depth - 1] != t->slice.parent_id[s])) {
      uint32_t top = stack[--depth];
      if (t->slice.dur[top] >= 0) slice_end(o, top);
    }
    if (s == TRAK_NULL_U32) break;
    track = t->slice.track_id[s];
    slice_begin(o, s);
    if (t->slice.dur[s] != 0) stack[depth++] = s;
  }
  free(order);
  free(stack);
}

/* Each slice's flow rows, as CSR arrays: row f as f << 1 (outgoing) or f << 1 | 1. */
static void index_flows(pb_out *o) {
  const trak_tables *t = o->t;
  size_t n = t->slice.n, m = t->flow.n;
  o->flow_off = calloc(n + 2, sizeof *o->flow_off);
  o->flow_ids = malloc((2 * m + 1) * sizeof *o->flow_ids);
  if (!o->flow_off || !o->flow_ids) abort();
  for (size_t f = 0; f < m; f++)
    o->flow_off[t->flow.slice_out[f] + 2]++, o->flow_off[t->flow.slice_in[f] + 2]++;
  for (size_t s = 0; s < n; s++)
    o->flow_off[s + 2] += o->flow_off[s + 1];
  for (size_t f = 0; f < m; f++) {
    o->flow_ids[o->flow_off[t->flow.slice_out[f] + 1]++] = (uint32_t)f << 1;
    o->flow_ids[o->flow_off[t->flow.slice_in[f] + 1]++] = (uint32_t)f << 1 | 1;
  }
}

int trak__pb_export(trak_processor *p, trak_pb_buf *buf, trak_error *err) {
  if (!p->finished) return trak_error_set(err, TRAK_ESTATE, "the trace is not finished");
  const trak_tables *t = &p->tables;
  pb_out o = {buf, t, NULL, NULL, NULL};
  /* Each thread's descriptor is its first slice track, else its first counter track. */
  o.thread_root = malloc((t->thread.n ? t->thread.n : 1) * sizeof *o.thread_root);
  if (!o.thread_root) return trak_error_set(err, TRAK_ENOMEM, "protobuf export: out of memory");
  for (uint32_t u = 0; u < t->thread.n; u++)
    o.thread_root[u] = TRAK_NULL_U32;
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t id = 0; id < t->track.n; id++) {
      uint32_t u = t->track.utid[id];
      if (u < t->thread.n && o.thread_root[u] == TRAK_NULL_U32 &&
          t->track.kind[id] == (pass ? TRAK_TRACK_THREAD_COUNTER : TRAK_TRACK_THREAD))
        o.thread_root[u] = id;
    }
  for (uint32_t upid = 0; upid < t->process.n; upid++)
    process_descriptor(&o, upid);
  for (uint32_t id = 0; id < t->track.n; id++)
    track_descriptor(&o, id);
  index_flows(&o);
  slices(&o);
  for (uint32_t c = 0; c < t->counter.n; c++)
    counter_value(&o, c);
  free(o.flow_off);
  free(o.flow_ids);
  free(o.thread_root);
  if (buf->error) return trak_error_set(err, buf->error, "protobuf export: out of memory");
  return 0;
}
