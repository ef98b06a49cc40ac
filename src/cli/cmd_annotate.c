/*
** `trak annotate TRACE --run METRICS -o OUT.pb`: writes a copy of the trace (as binary
** protobuf) followed by the metrics' annotation tracks, slices and counters as ordinary
** TrackEvent packets on a sequence of their own (descriptors first), so that they show in the
** Perfetto UI and re-import with trak. Slices carry their alert and source slice as debug
** annotations. A track scoped to a thread or process keeps that scope (thread / process in
** its descriptor).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cli/analysis_opts.h"
#include "trak/pb.h"
#include "trak/pbtxt.h"
#include "trak/protos.h"

static const char usage[] =
    "usage: trak annotate TRACE --run NAME[,NAME...] -o OUT.pb [--metrics-dir DIR]\n"
    "                     [--param KEY=VALUE]...\n"
    "Writes TRACE with the metrics' annotation tracks appended as TrackEvent packets.\n";

static void print_usage(FILE *out) {
  fputs(usage, out);
}

/* Annotation track uuids: a fixed high prefix plus the track id, unlikely to meet a writer's
** random uuids. */
#define UUID_BASE 0x7a6e000000000000ull

/* Reads a whole trace (gunzipping when needed) as binary: text traces are parsed. */
static int read_trace(const char *path, trak_pb_buf *out, trak_error *err) {
  gzFile f = gzopen(path, "rb");
  if (!f) return trak_error_set(err, TRAK_EIO, "%s: cannot open", path);
  struct {
    char *v;
    size_t n, cap;
  } b = {0};
  char chunk[1 << 16];
  int got;
  while ((got = gzread(f, chunk, sizeof chunk)) > 0) {
    if (b.n + (size_t)got > b.cap) {
      b.cap = (b.n + (size_t)got) * 2;
      b.v = realloc(b.v, b.cap);
      if (!b.v) abort();
    }
    memcpy(b.v + b.n, chunk, (size_t)got);
    b.n += (size_t)got;
  }
  int bad = got < 0;
  gzclose(f);
  int rc = 0;
  if (bad)
    rc = trak_error_set(err, TRAK_EIO, "%s: read failed", path);
  else if (b.n && (unsigned char)b.v[0] == 0x0a) /* Trace.packet: binary */
    trak_pb_put_raw(out, b.v, b.n);
  else if (b.n && (rc = trak_pbtxt_parse("Trace", b.v, b.n, out, err)))
    trak_error_prefix(err, "%s", path);
  free(b.v);
  return rc;
}

/* The largest trusted_packet_sequence_id in the trace, so ours can be new. */
static uint64_t max_sequence(const uint8_t *data, size_t len) {
  trak_pb_decoder d, pd;
  trak_pb_field f, pf;
  uint64_t max = 0;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) > 0) {
    if (f.number != TRAK_PB_Trace_packet || trak_pb_decoder_init_nested(&pd, &d, &f)) continue;
    while (trak_pb_decoder_next(&pd, &pf) > 0)
      if (pf.number == TRAK_PB_TracePacket_trusted_packet_sequence_id && pf.value > max)
        max = pf.value;
  }
  return max;
}

/* A thread (pid, tid) or process (pid, tid -1) and the uuid of the descriptor that names it. */
typedef struct scope_uuid {
  int64_t pid, tid;
  uint64_t uuid;
} scope_uuid;

typedef struct writer {
  trak_pb_buf *out;
  uint64_t seq;
  int first;
  scope_uuid *scopes; /* the trace's thread and process descriptors, later ones win */
  size_t n_scopes, cap_scopes;
} writer;

static scope_uuid *scope_find(writer *w, int64_t pid, int64_t tid) {
  for (size_t i = w->n_scopes; i-- > 0;)
    if (w->scopes[i].pid == pid && w->scopes[i].tid == tid) return &w->scopes[i];
  return NULL;
}

static void scope_add(writer *w, int64_t pid, int64_t tid, uint64_t uuid) {
  if (w->n_scopes == w->cap_scopes) {
    w->cap_scopes = w->cap_scopes ? 2 * w->cap_scopes : 16;
    w->scopes = realloc(w->scopes, w->cap_scopes * sizeof *w->scopes);
    if (!w->scopes) abort();
  }
  w->scopes[w->n_scopes++] = (scope_uuid){pid, tid, uuid};
}

/* Reads the pid and tid of a Thread/ProcessDescriptor field (tid -1 for a process). */
static void scope_of(const trak_pb_field *f, int is_thread, int64_t *pid, int64_t *tid) {
  trak_pb_decoder d;
  trak_pb_field g;
  *pid = 0, *tid = -1;
  trak_pb_decoder_init(&d, f->data, f->len);
  while (trak_pb_decoder_next(&d, &g) > 0) {
    if (g.number == (is_thread ? TRAK_PB_ThreadDescriptor_pid : TRAK_PB_ProcessDescriptor_pid))
      *pid = (int32_t)g.value;
    if (is_thread && g.number == TRAK_PB_ThreadDescriptor_tid) *tid = (int64_t)g.value;
  }
}

/* The uuids of the trace's thread and process descriptors: an annotation track of a thread or
** process becomes a child of its descriptor, since a second descriptor naming the same pid /
** tid would mean, to Perfetto and trak alike, that the pid / tid was reused. */
static void scan_scopes(writer *w, const uint8_t *data, size_t len) {
  trak_pb_decoder d, pd, td;
  trak_pb_field f, pf, tf;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) > 0) {
    if (f.number != TRAK_PB_Trace_packet || trak_pb_decoder_init_nested(&pd, &d, &f)) continue;
    while (trak_pb_decoder_next(&pd, &pf) > 0) {
      if (pf.number != TRAK_PB_TracePacket_track_descriptor ||
          trak_pb_decoder_init_nested(&td, &pd, &pf))
        continue;
      uint64_t uuid = 0;
      int64_t pid = 0, tid = -2;
      while (trak_pb_decoder_next(&td, &tf) > 0) {
        if (tf.number == TRAK_PB_TrackDescriptor_uuid) uuid = tf.value;
        if ((tf.number == TRAK_PB_TrackDescriptor_thread ||
             tf.number == TRAK_PB_TrackDescriptor_process) &&
            tf.wire_type == TRAK_PB_WIRE_LEN)
          scope_of(&tf, tf.number == TRAK_PB_TrackDescriptor_thread, &pid, &tid);
      }
      if (tid != -2 && uuid) scope_add(w, pid, tid, uuid);
    }
  }
}

static trak_pb_nested packet_begin(writer *w, int64_t ts, int has_ts) {
  trak_pb_nested pkt = trak_pb_begin_nested(w->out, TRAK_PB_Trace_packet);
  if (has_ts) trak_pb_put_varint(w->out, TRAK_PB_TracePacket_timestamp, (uint64_t)ts);
  trak_pb_put_varint(w->out, TRAK_PB_TracePacket_trusted_packet_sequence_id, w->seq);
  if (w->first)
    trak_pb_put_varint(w->out, TRAK_PB_TracePacket_sequence_flags,
                       TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED);
  w->first = 0;
  return pkt;
}

static void put_annotation(trak_pb_buf *out, const char *name, trak_query *q, int col) {
  trak_value_type type = trak_query_type(q, col);
  if (type == TRAK_VALUE_NULL) return;
  trak_pb_nested a = trak_pb_begin_nested(out, TRAK_PB_TrackEvent_debug_annotations);
  trak_pb_put_string(out, TRAK_PB_DebugAnnotation_name, name);
  if (type == TRAK_VALUE_INT)
    trak_pb_put_int64(out, TRAK_PB_DebugAnnotation_int_value, trak_query_int(q, col));
  else
    trak_pb_put_string(out, TRAK_PB_DebugAnnotation_string_value, trak_query_string(q, col));
  trak_pb_end_nested(out, a);
}

/* One TrackEvent packet: a slice begin / end, an instant or a counter value. */
static void put_event(writer *w, int64_t ts, int type, int64_t track, trak_query *q) {
  trak_pb_nested pkt = packet_begin(w, ts, 1);
  trak_pb_nested ev = trak_pb_begin_nested(w->out, TRAK_PB_TracePacket_track_event);
  trak_pb_put_varint(w->out, TRAK_PB_TrackEvent_type, (uint64_t)type);
  trak_pb_put_varint(w->out, TRAK_PB_TrackEvent_track_uuid, UUID_BASE + (uint64_t)track);
  if (type == TRAK_PB_TrackEvent_TYPE_COUNTER) {
    trak_pb_put_double(w->out, TRAK_PB_TrackEvent_double_counter_value, trak_query_double(q, 2));
  } else if (type != TRAK_PB_TrackEvent_TYPE_SLICE_END) {
    trak_pb_put_string(w->out, TRAK_PB_TrackEvent_name, trak_query_string(q, 3));
    put_annotation(w->out, "source_slice_id", q, 4);
    put_annotation(w->out, "alert_type", q, 5);
    put_annotation(w->out, "alert_message", q, 6);
  }
  trak_pb_end_nested(w->out, ev);
  trak_pb_end_nested(w->out, pkt);
}

/* The descriptor of each annotation track. A thread or process scope becomes the
** descriptor's thread {pid tid} or process {pid}, as SDKs write scoped tracks. */
static int put_descriptors(writer *w, trak_processor *p, trak_error *err) {
  trak_query *q;
  int rc = trak_query_open(p,
                           "SELECT a.id, a.name, a.type = 'annotation_counter_track', "
                           "'annotation from metric ' || a.metric, t.tid, tp.pid, pr.pid "
                           "FROM annotation_track a LEFT JOIN thread t USING (utid) "
                           "LEFT JOIN process tp ON tp.upid = t.upid "
                           "LEFT JOIN process pr ON pr.upid = a.upid ORDER BY a.id",
                           &q, NULL, err);
  if (!rc)
    while ((rc = trak_query_next(q, err)) > 0) {
      trak_pb_buf *out = w->out;
      trak_pb_nested pkt = packet_begin(w, 0, 0);
      trak_pb_nested td = trak_pb_begin_nested(out, TRAK_PB_TracePacket_track_descriptor);
      trak_pb_put_varint(out, TRAK_PB_TrackDescriptor_uuid,
                         UUID_BASE + (uint64_t)trak_query_int(q, 0));
      trak_pb_put_string(out, TRAK_PB_TrackDescriptor_name, trak_query_string(q, 1));
      trak_pb_put_string(out, TRAK_PB_TrackDescriptor_description, trak_query_string(q, 3));
      uint64_t uuid = UUID_BASE + (uint64_t)trak_query_int(q, 0);
      int is_thread = trak_query_type(q, 4) != TRAK_VALUE_NULL;
      int64_t pid = trak_query_int(q, is_thread ? 5 : 6),
              tid = is_thread ? trak_query_int(q, 4) : -1;
      scope_uuid *scope = scope_find(w, pid, tid);
      if ((is_thread || trak_query_type(q, 6) != TRAK_VALUE_NULL) && scope) {
        trak_pb_put_varint(out, TRAK_PB_TrackDescriptor_parent_uuid, scope->uuid);
      } else if (is_thread) {
        trak_pb_nested th = trak_pb_begin_nested(out, TRAK_PB_TrackDescriptor_thread);
        if (trak_query_type(q, 5) != TRAK_VALUE_NULL)
          trak_pb_put_int32(out, TRAK_PB_ThreadDescriptor_pid, (int32_t)pid);
        trak_pb_put_int32(out, TRAK_PB_ThreadDescriptor_tid, (int32_t)tid);
        trak_pb_end_nested(out, th);
        scope_add(w, pid, tid, uuid);
      } else if (trak_query_type(q, 6) != TRAK_VALUE_NULL) {
        trak_pb_nested pr = trak_pb_begin_nested(out, TRAK_PB_TrackDescriptor_process);
        trak_pb_put_int32(out, TRAK_PB_ProcessDescriptor_pid, (int32_t)pid);
        trak_pb_end_nested(out, pr);
        scope_add(w, pid, tid, uuid);
      }
      if (trak_query_int(q, 2))
        trak_pb_end_nested(out, trak_pb_begin_nested(out, TRAK_PB_TrackDescriptor_counter));
      trak_pb_end_nested(out, td);
      trak_pb_end_nested(out, pkt);
    }
  trak_query_free(q);
  return rc;
}

typedef struct open_end {
  int64_t end, track;
} open_end;

/* Slices in (track, ts, depth) order; a stack of open ends per track closes them in order. */
static int put_slices(writer *w, trak_processor *p, trak_error *err) {
  trak_query *q;
  int rc = trak_query_open(p,
                           "SELECT s.track_id, s.ts, s.dur, s.name, "
                           "extract_arg(s.arg_set_id, 'annotation.source_slice_id'), "
                           "extract_arg(s.arg_set_id, 'annotation.alert_type'), "
                           "extract_arg(s.arg_set_id, 'annotation.alert_message') "
                           "FROM slice s JOIN annotation_track a ON s.track_id = a.id ORDER BY "
                           "s.track_id, s.ts, s.depth",
                           &q, NULL, err);
  struct {
    open_end *v;
    size_t n, cap;
  } stack = {0};
  if (!rc)
    while ((rc = trak_query_next(q, err)) > 0) {
      int64_t track = trak_query_int(q, 0), ts = trak_query_int(q, 1), dur = trak_query_int(q, 2);
      while (stack.n && (stack.v[stack.n - 1].track != track || stack.v[stack.n - 1].end <= ts)) {
        open_end *e = &stack.v[--stack.n];
        put_event(w, e->end, TRAK_PB_TrackEvent_TYPE_SLICE_END, e->track, q);
      }
      if (dur == 0) {
        put_event(w, ts, TRAK_PB_TrackEvent_TYPE_INSTANT, track, q);
        continue;
      }
      put_event(w, ts, TRAK_PB_TrackEvent_TYPE_SLICE_BEGIN, track, q);
      if (stack.n == stack.cap) {
        stack.cap = stack.cap ? stack.cap * 2 : 16;
        stack.v = realloc(stack.v, stack.cap * sizeof *stack.v);
        if (!stack.v) abort();
      }
      int64_t end; /* a metric's own ts and dur: the end stops at int64's bounds */
      if (__builtin_add_overflow(ts, dur, &end)) end = dur > 0 ? INT64_MAX : INT64_MIN;
      stack.v[stack.n++] = (open_end){end, track};
    }
  while (rc == 0 && stack.n) {
    open_end *e = &stack.v[--stack.n];
    put_event(w, e->end, TRAK_PB_TrackEvent_TYPE_SLICE_END, e->track, q);
  }
  free(stack.v);
  trak_query_free(q);
  return rc;
}

static int put_counters(writer *w, trak_processor *p, trak_error *err) {
  trak_query *q;
  int rc = trak_query_open(p,
                           "SELECT c.track_id, c.ts, c.value FROM counter c "
                           "JOIN annotation_track a ON c.track_id = a.id ORDER BY c.track_id, c.ts",
                           &q, NULL, err);
  if (!rc)
    while ((rc = trak_query_next(q, err)) > 0)
      put_event(w, trak_query_int(q, 1), TRAK_PB_TrackEvent_TYPE_COUNTER, trak_query_int(q, 0), q);
  trak_query_free(q);
  return rc;
}

int trak_cli_annotate(int argc, char **argv) {
  trak_cli_analysis_opts o;
  int rc = trak_cli_analysis_parse("annotate", print_usage, argc, argv, OPT_OUTPUT, &o);
  if (!o.ok) {
    trak_cli_analysis_free(&o);
    return rc;
  }
  trak_processor *p;
  if (trak_cli_analysis_run("annotate", &o, &p)) {
    trak_cli_analysis_free(&o);
    return 1;
  }
  trak_error err = {0};
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  rc = read_trace(o.trace, &out, &err);
  size_t len;
  if (!rc) {
    uint8_t *data = trak_pb_buf_detach(&out, &len);
    trak_pb_buf_init_heap(&out);
    trak_pb_put_raw(&out, data, len);
    writer w = {&out, max_sequence(data, len) + 1, 1, NULL, 0, 0};
    scan_scopes(&w, data, len);
    free(data);
    rc = put_descriptors(&w, p, &err);
    if (!rc) rc = put_slices(&w, p, &err);
    if (!rc) rc = put_counters(&w, p, &err);
    free(w.scopes);
  }
  uint8_t *data = trak_pb_buf_detach(&out, &len);
  if (!rc) rc = trak_cli_write_file(o.output, data, len, &err);
  free(data);
  trak_processor_free(p);
  trak_cli_analysis_free(&o);
  return rc ? trak_cli_fail("annotate", &err) : 0;
}
