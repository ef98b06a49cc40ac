/*
** The semantic model of a trace, for tests that compare traces by meaning rather than bytes:
** a binary perfetto.protos.Trace is decoded into normalized text lines (tracks by path with
** their ordering fields, each track's slices with ts / dur / depth / name / category / args,
** counter values, flows between slices), with uuids, interning and packet order taken out.
** Two traces that the trace processor would import into the same rows give the same text.
**
** It mirrors the processor's rules that matter here: events are replayed in timestamp order
** (stable), a SLICE_END closes the innermost open slice, an event on an undeclared track gets
** an unnamed top-level track of its own, an unterminated slice has dur -1, interned strings are
** valid from the packet that defines them and only after the sequence cleared its incremental
** state, and an event without track_uuid is on its sequence's default track
** (trace_packet_defaults.track_event_defaults.track_uuid, from the packet that sets it, that
** packet's own event included, until the sequence clears its incremental state).
**
** Header-only (static functions) so that any test can include it.
*/
#ifndef TRAK_TEST_TRACE_MODEL_H
#define TRAK_TEST_TRACE_MODEL_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trak/pb.h"
#include "trak/protos.h"

#define TM_UNUSED __attribute__((unused))

/* A growing text buffer. */
typedef struct tm_str {
  char *s;
  size_t len, cap;
} tm_str;

static TM_UNUSED void tm_printf(tm_str *b, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (b->s && b->len + (size_t)n < b->cap) {
      b->len += (size_t)n;
      return;
    }
    b->cap = (b->cap + (size_t)n + 1) * 2;
    b->s = realloc(b->s, b->cap);
  }
}

static TM_UNUSED char *tm_strndup(const void *p, size_t n) {
  char *s = malloc(n + 1);
  memcpy(s, p, n);
  s[n] = 0;
  return s;
}

typedef struct tm_track {
  uint64_t uuid, parent_uuid;
  char *name;
  int has_process, has_thread, has_counter;
  int32_t pid;
  int64_t tid;
  char *os_name;
  uint64_t unit;
  char *unit_name;
  uint64_t child_ordering;
  int has_rank;
  int32_t rank;
  char *path; /* filled by tm_paths */
  int order;  /* descriptor order */
} tm_track;

typedef struct tm_event {
  uint64_t ts;
  uint64_t type;
  uint64_t track_uuid;
  char *name, *category, *args;
  int has_int, has_double;
  int64_t ivalue;
  double dvalue;
  uint64_t flows[8], term[8];
  int n_flows, n_term;
  size_t order;
} tm_event;

typedef struct tm_slice {
  int track; /* index into tracks */
  uint64_t ts;
  int64_t dur;
  int depth;
  int instant;
  const tm_event *ev;
} tm_slice;

/* Interned strings of one kind on one sequence. */
typedef struct tm_intern {
  uint64_t *iid;
  char **str;
  int n, cap;
} tm_intern;

/* Each packet sequence's default track (0: none). */
enum { TM_MAX_SEQUENCES = 256 };
typedef struct tm_defaults {
  uint32_t seq[TM_MAX_SEQUENCES];
  uint64_t track[TM_MAX_SEQUENCES];
  int n;
} tm_defaults;

/* The track_uuid of a TracePacketDefaults' track_event_defaults, or 0. */
static TM_UNUSED uint64_t tm_default_track_of(const trak_pb_decoder *parent,
                                              const trak_pb_field *f) {
  trak_pb_decoder d, e;
  trak_pb_field g, h;
  uint64_t uuid = 0;
  trak_pb_decoder_init_nested(&d, parent, f);
  while (trak_pb_decoder_next(&d, &g) > 0) {
    if (g.number != TRAK_PB_TracePacketDefaults_track_event_defaults) continue;
    trak_pb_decoder_init_nested(&e, &d, &g);
    while (trak_pb_decoder_next(&e, &h) > 0)
      if (h.number == TRAK_PB_TrackEventDefaults_track_uuid) uuid = h.value;
  }
  return uuid;
}

/* Applies packet f's clearing of incremental state and its defaults to its sequence; returns
** the default track that holds for the packet's own event (0: none). Like the processor, a
** defaults message without a track_uuid leaves the default track as it was. */
static TM_UNUSED uint64_t tm_defaults_apply(tm_defaults *t, const trak_pb_decoder *parent,
                                            const trak_pb_field *f) {
  trak_pb_decoder d;
  trak_pb_field g;
  uint32_t seq = 0;
  int cleared = 0;
  uint64_t track = 0;
  trak_pb_decoder_init_nested(&d, parent, f);
  while (trak_pb_decoder_next(&d, &g) > 0) {
    if (g.number == TRAK_PB_TracePacket_trusted_packet_sequence_id)
      seq = (uint32_t)g.value;
    else if ((g.number == TRAK_PB_TracePacket_sequence_flags &&
              (g.value & TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED)) ||
             (g.number == TRAK_PB_TracePacket_incremental_state_cleared && g.value))
      cleared = 1;
    else if (g.number == TRAK_PB_TracePacket_trace_packet_defaults &&
             g.wire_type == TRAK_PB_WIRE_LEN)
      track = tm_default_track_of(&d, &g);
  }
  int i = 0;
  while (i < t->n && t->seq[i] != seq)
    i++;
  if (i == t->n) {
    if (t->n == TM_MAX_SEQUENCES) return 0;
    t->seq[t->n] = seq;
    t->track[t->n++] = 0;
  }
  if (cleared) t->track[i] = 0;
  if (track) t->track[i] = track;
  return t->track[i];
}

typedef struct tm_model {
  tm_defaults defaults;
  tm_track *tracks;
  int n_tracks;
  tm_event *events;
  size_t n_events;
  tm_intern names, cats, argnames;
  int cleared;
  tm_str err;
} tm_model;

/* Forgets the strings; `release` also frees the arrays. */
static TM_UNUSED void tm_intern_reset(tm_intern *t, int release) {
  for (int i = 0; i < t->n; i++)
    free(t->str[i]);
  t->n = 0;
  if (release) {
    free(t->iid);
    free(t->str);
    memset(t, 0, sizeof *t);
  }
}

static TM_UNUSED const char *tm_intern_get(const tm_intern *t, uint64_t iid) {
  /* Writers usually hand out iids 1, 2, 3...: try the direct slot first. */
  if (iid && iid <= (uint64_t)t->n && t->iid[iid - 1] == iid) return t->str[iid - 1];
  for (int i = t->n - 1; i >= 0; i--)
    if (t->iid[i] == iid) return t->str[i];
  return NULL;
}

/* Reads InternedData entries of the {iid = 1, name = 2} layout into t. */
static TM_UNUSED void tm_intern_add(tm_intern *t, const trak_pb_decoder *parent,
                                    const trak_pb_field *f) {
  trak_pb_decoder d;
  trak_pb_field g;
  uint64_t iid = 0;
  char *s = NULL;
  trak_pb_decoder_init_nested(&d, parent, f);
  while (trak_pb_decoder_next(&d, &g) > 0) {
    if (g.number == TRAK_PB_EventName_iid)
      iid = g.value;
    else if (g.number == TRAK_PB_EventName_name && g.wire_type == TRAK_PB_WIRE_LEN) {
      free(s);
      s = tm_strndup(g.data, g.len);
    }
  }
  if (!s) return;
  if (t->n == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 64;
    t->iid = realloc(t->iid, (size_t)t->cap * sizeof *t->iid);
    t->str = realloc(t->str, (size_t)t->cap * sizeof *t->str);
  }
  t->iid[t->n] = iid;
  t->str[t->n++] = s;
}

/* Flattens a DebugAnnotation's value into "key=value;" text, the way args are flattened. */
static TM_UNUSED void tm_annotation(tm_model *m, tm_str *out, const char *key,
                                    const trak_pb_decoder *parent, const trak_pb_field *f) {
  trak_pb_decoder d;
  trak_pb_field g;
  int n_array = 0;
  trak_pb_decoder_init_nested(&d, parent, f);
  while (trak_pb_decoder_next(&d, &g) > 0) {
    switch (g.number) {
    case TRAK_PB_DebugAnnotation_bool_value:
      tm_printf(out, "%s=%s;", key, g.value ? "true" : "false");
      break;
    case TRAK_PB_DebugAnnotation_uint_value:
      tm_printf(out, "%s=%" PRIu64 ";", key, g.value);
      break;
    case TRAK_PB_DebugAnnotation_int_value:
      tm_printf(out, "%s=%" PRId64 ";", key, (int64_t)g.value);
      break;
    case TRAK_PB_DebugAnnotation_double_value:
      tm_printf(out, "%s=%.17g;", key, trak_pb_as_double(&g));
      break;
    case TRAK_PB_DebugAnnotation_pointer_value:
      tm_printf(out, "%s=0x%" PRIx64 ";", key, g.value);
      break;
    case TRAK_PB_DebugAnnotation_string_value:
      tm_printf(out, "%s=\"%.*s\";", key, (int)g.len, (const char *)g.data);
      break;
    case TRAK_PB_DebugAnnotation_dict_entries: {
      trak_pb_decoder e;
      trak_pb_field h;
      char sub[512] = "";
      trak_pb_decoder_init_nested(&e, &d, &g);
      while (trak_pb_decoder_next(&e, &h) > 0)
        if (h.number == TRAK_PB_DebugAnnotation_name)
          snprintf(sub, sizeof sub, "%s.%.*s", key, (int)h.len, (const char *)h.data);
      tm_annotation(m, out, sub, &d, &g);
      break;
    }
    case TRAK_PB_DebugAnnotation_array_values: {
      char sub[512];
      snprintf(sub, sizeof sub, "%s[%d]", key, n_array++);
      tm_annotation(m, out, sub, &d, &g);
      break;
    }
    default:
      break;
    }
  }
}

static TM_UNUSED void tm_track_event(tm_model *m, const trak_pb_decoder *parent,
                                     const trak_pb_field *f, uint64_t ts, uint64_t default_track) {
  tm_event *e = &m->events[m->n_events];
  memset(e, 0, sizeof *e);
  e->ts = ts;
  e->track_uuid = default_track;
  e->order = m->n_events++;
  tm_str args = {0};
  trak_pb_decoder d;
  trak_pb_field g;
  trak_pb_decoder_init_nested(&d, parent, f);
  while (trak_pb_decoder_next(&d, &g) > 0) {
    switch (g.number) {
    case TRAK_PB_TrackEvent_type:
      e->type = g.value;
      break;
    case TRAK_PB_TrackEvent_track_uuid:
      e->track_uuid = g.value;
      break;
    case TRAK_PB_TrackEvent_name:
      free(e->name);
      e->name = tm_strndup(g.data, g.len);
      break;
    case TRAK_PB_TrackEvent_name_iid: {
      const char *s = m->cleared ? tm_intern_get(&m->names, g.value) : NULL;
      char bad[64];
      snprintf(bad, sizeof bad, "<bad name_iid %" PRIu64 ">", g.value);
      free(e->name);
      e->name = strdup(s ? s : bad);
      break;
    }
    case TRAK_PB_TrackEvent_categories:
      free(e->category);
      e->category = tm_strndup(g.data, g.len);
      break;
    case TRAK_PB_TrackEvent_category_iids: {
      const char *s = m->cleared ? tm_intern_get(&m->cats, g.value) : NULL;
      free(e->category);
      e->category = strdup(s ? s : "<bad category_iid>");
      break;
    }
    case TRAK_PB_TrackEvent_counter_value:
      e->has_int = 1;
      e->ivalue = (int64_t)g.value;
      break;
    case TRAK_PB_TrackEvent_double_counter_value:
      e->has_double = 1;
      e->dvalue = trak_pb_as_double(&g);
      break;
    case TRAK_PB_TrackEvent_flow_ids:
    case TRAK_PB_TrackEvent_flow_ids_old:
      if (e->n_flows < 8) e->flows[e->n_flows++] = g.value;
      break;
    case TRAK_PB_TrackEvent_terminating_flow_ids:
    case TRAK_PB_TrackEvent_terminating_flow_ids_old:
      if (e->n_term < 8) e->term[e->n_term++] = g.value;
      break;
    case TRAK_PB_TrackEvent_debug_annotations: {
      trak_pb_decoder a;
      trak_pb_field h;
      char key[256] = "<no name>";
      trak_pb_decoder_init_nested(&a, &d, &g);
      while (trak_pb_decoder_next(&a, &h) > 0) {
        if (h.number == TRAK_PB_DebugAnnotation_name)
          snprintf(key, sizeof key, "%.*s", (int)h.len, (const char *)h.data);
        else if (h.number == TRAK_PB_DebugAnnotation_name_iid) {
          const char *s = m->cleared ? tm_intern_get(&m->argnames, h.value) : NULL;
          snprintf(key, sizeof key, "%s", s ? s : "<bad name_iid>");
        }
      }
      tm_annotation(m, &args, key, &d, &g);
      break;
    }
    default:
      break;
    }
  }
  e->args = args.s;
}

static TM_UNUSED void tm_descriptor(tm_model *m, const trak_pb_decoder *parent,
                                    const trak_pb_field *f) {
  tm_track *t = &m->tracks[m->n_tracks];
  memset(t, 0, sizeof *t);
  t->order = m->n_tracks++;
  trak_pb_decoder d, s;
  trak_pb_field g, h;
  trak_pb_decoder_init_nested(&d, parent, f);
  while (trak_pb_decoder_next(&d, &g) > 0) {
    switch (g.number) {
    case TRAK_PB_TrackDescriptor_uuid:
      t->uuid = g.value;
      break;
    case TRAK_PB_TrackDescriptor_parent_uuid:
      t->parent_uuid = g.value;
      break;
    case TRAK_PB_TrackDescriptor_name:
      free(t->name);
      t->name = tm_strndup(g.data, g.len);
      break;
    case TRAK_PB_TrackDescriptor_child_ordering:
      t->child_ordering = g.value;
      break;
    case TRAK_PB_TrackDescriptor_sibling_order_rank:
      t->has_rank = 1;
      t->rank = (int32_t)g.value;
      break;
    case TRAK_PB_TrackDescriptor_process:
    case TRAK_PB_TrackDescriptor_thread:
      if (g.number == TRAK_PB_TrackDescriptor_process)
        t->has_process = 1;
      else
        t->has_thread = 1;
      trak_pb_decoder_init_nested(&s, &d, &g);
      while (trak_pb_decoder_next(&s, &h) > 0) {
        if (h.number == TRAK_PB_ProcessDescriptor_pid)
          t->pid = (int32_t)h.value;
        else if (t->has_thread && h.number == TRAK_PB_ThreadDescriptor_tid)
          t->tid = (int64_t)h.value;
        else if ((t->has_thread && h.number == TRAK_PB_ThreadDescriptor_thread_name) ||
                 (!t->has_thread && h.number == TRAK_PB_ProcessDescriptor_process_name)) {
          free(t->os_name);
          t->os_name = tm_strndup(h.data, h.len);
        }
      }
      break;
    case TRAK_PB_TrackDescriptor_counter:
      t->has_counter = 1;
      trak_pb_decoder_init_nested(&s, &d, &g);
      while (trak_pb_decoder_next(&s, &h) > 0) {
        if (h.number == TRAK_PB_CounterDescriptor_unit)
          t->unit = h.value;
        else if (h.number == TRAK_PB_CounterDescriptor_unit_name)
          t->unit_name = tm_strndup(h.data, h.len);
      }
      break;
    default:
      break;
    }
  }
}

static TM_UNUSED void tm_packet(tm_model *m, const trak_pb_decoder *parent,
                                const trak_pb_field *f) {
  trak_pb_decoder d;
  trak_pb_field g;
  uint64_t ts = 0;
  uint64_t default_track = tm_defaults_apply(&m->defaults, parent, f);
  /* Pass 1: timestamp, flags, interned data (valid for this packet's own event too). */
  trak_pb_decoder_init_nested(&d, parent, f);
  while (trak_pb_decoder_next(&d, &g) > 0) {
    if (g.number == TRAK_PB_TracePacket_timestamp)
      ts = g.value;
    else if ((g.number == TRAK_PB_TracePacket_sequence_flags &&
              (g.value & TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED)) ||
             (g.number == TRAK_PB_TracePacket_incremental_state_cleared && g.value)) {
      m->cleared = 1;
      tm_intern_reset(&m->names, 0);
      tm_intern_reset(&m->cats, 0);
      tm_intern_reset(&m->argnames, 0);
    }
  }
  trak_pb_decoder_init_nested(&d, parent, f);
  while (trak_pb_decoder_next(&d, &g) > 0) {
    if (g.number != TRAK_PB_TracePacket_interned_data || !m->cleared) continue;
    trak_pb_decoder i;
    trak_pb_field h;
    trak_pb_decoder_init_nested(&i, &d, &g);
    while (trak_pb_decoder_next(&i, &h) > 0) {
      if (h.number == TRAK_PB_InternedData_event_names)
        tm_intern_add(&m->names, &i, &h);
      else if (h.number == TRAK_PB_InternedData_event_categories)
        tm_intern_add(&m->cats, &i, &h);
      else if (h.number == TRAK_PB_InternedData_debug_annotation_names)
        tm_intern_add(&m->argnames, &i, &h);
    }
  }
  trak_pb_decoder_init_nested(&d, parent, f);
  while (trak_pb_decoder_next(&d, &g) > 0) {
    if (g.number == TRAK_PB_TracePacket_track_descriptor)
      tm_descriptor(m, &d, &g);
    else if (g.number == TRAK_PB_TracePacket_track_event)
      tm_track_event(m, &d, &g, ts, default_track);
  }
}

static TM_UNUSED int tm_find_track(const tm_model *m, uint64_t uuid) {
  for (int i = 0; i < m->n_tracks; i++)
    if (m->tracks[i].uuid == uuid) return i;
  return -1;
}

/* A track's own label: what it is and its name; " #k" for the k-th sibling (in descriptor order)
** with the same label under the same parent. */
static TM_UNUSED char *tm_label(const tm_model *m, int i) {
  const tm_track *t = &m->tracks[i];
  tm_str b = {0};
  if (t->has_process) tm_printf(&b, "process %d \"%s\"", t->pid, t->os_name ? t->os_name : "");
  if (t->has_thread)
    tm_printf(&b, "thread %d/%" PRId64 " \"%s\"", t->pid, t->tid, t->os_name ? t->os_name : "");
  if (t->name) tm_printf(&b, "%s\"%s\"", t->has_process || t->has_thread ? " " : "", t->name);
  if (!t->name && !t->has_process && !t->has_thread) tm_printf(&b, "<unnamed>");
  return b.s;
}

static TM_UNUSED const char *tm_path(tm_model *m, int i, int depth) {
  tm_track *t = &m->tracks[i];
  if (t->path) return t->path;
  char *own = tm_label(m, i);
  int dup = 1;
  for (int j = 0; j < m->n_tracks; j++) {
    if (m->tracks[j].order >= t->order || m->tracks[j].parent_uuid != t->parent_uuid) continue;
    char *other = tm_label(m, j);
    dup += !strcmp(other, own);
    free(other);
  }
  tm_str b = {0};
  int p = t->parent_uuid ? tm_find_track(m, t->parent_uuid) : -1;
  if (t->parent_uuid)
    tm_printf(&b, "%s / ", p >= 0 && depth < 64 ? tm_path(m, p, depth + 1) : "<unknown parent>");
  tm_printf(&b, "%s", own);
  if (dup > 1) tm_printf(&b, " #%d", dup);
  free(own);
  t->path = b.s;
  return t->path;
}

static TM_UNUSED int tm_cmp_path(const void *a, const void *b) {
  const tm_track *x = a, *y = b;
  int c = strcmp(x->path, y->path);
  return c ? c : x->order - y->order;
}

static TM_UNUSED int tm_cmp_event(const void *a, const void *b) {
  const tm_event *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static TM_UNUSED int tm_cmp_slice(const void *a, const void *b) {
  const tm_slice *x = a, *y = b;
  if (x->track != y->track) return x->track - y->track;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  if (x->depth != y->depth) return x->depth - y->depth;
  return x->ev->order < y->ev->order ? -1 : 1;
}

static TM_UNUSED int tm_cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static TM_UNUSED void tm_slice_ref(tm_str *b, const tm_model *m, const tm_slice *s) {
  tm_printf(b, "%s @%" PRIu64 " \"%s\"", m->tracks[s->track].path, s->ts,
            s->ev->name ? s->ev->name : "");
}

/* Decodes the binary trace and returns its model as malloc'ed text (the caller frees). A
** malformed trace gives a text that says so, which no well-formed trace matches. */
static TM_UNUSED char *trace_model_text(const void *data, size_t len) {
  tm_model m = {0};
  size_t cap = len / 2 + 16;
  m.tracks = calloc(cap, sizeof *m.tracks);
  m.events = calloc(cap, sizeof *m.events);
  tm_str out = {0};
  trak_pb_decoder d;
  trak_pb_field f;
  int rc;
  trak_pb_decoder_init(&d, data, len);
  while ((rc = trak_pb_decoder_next(&d, &f)) > 0)
    if (f.number == TRAK_PB_Trace_packet) tm_packet(&m, &d, &f);
  if (rc < 0) tm_printf(&out, "MALFORMED at byte %zu: %s\n", d.error_offset, d.error_reason);

  /* An event on an undeclared uuid implies an unnamed top-level track, as the processor has. */
  for (size_t i = 0; i < m.n_events; i++) {
    if (tm_find_track(&m, m.events[i].track_uuid) >= 0 || (size_t)m.n_tracks >= cap) continue;
    tm_track *t = &m.tracks[m.n_tracks];
    memset(t, 0, sizeof *t);
    t->uuid = m.events[i].track_uuid;
    t->order = m.n_tracks++;
  }
  /* Tracks: canonical paths, sorted. */
  for (int i = 0; i < m.n_tracks; i++)
    tm_path(&m, i, 0);
  qsort(m.tracks, (size_t)m.n_tracks, sizeof *m.tracks, tm_cmp_path);

  /* Replay events in timestamp order onto per-track stacks. */
  qsort(m.events, m.n_events, sizeof *m.events, tm_cmp_event);
  tm_slice *slices = calloc(m.n_events + 1, sizeof *slices);
  size_t n_slices = 0;
  int **stacks = calloc((size_t)m.n_tracks + 1, sizeof *stacks); /* open slices per track */
  int *depth = calloc((size_t)m.n_tracks + 1, sizeof *depth);
  int *caps = calloc((size_t)m.n_tracks + 1, sizeof *caps);
  char **flows = calloc(m.n_events * 8 + 1, sizeof *flows);
  size_t n_flows = 0;
  uint64_t flow_id[256];
  size_t flow_slice[256];
  int n_flow_ids = 0;
  for (size_t i = 0; i < m.n_events; i++) {
    const tm_event *e = &m.events[i];
    int t = tm_find_track(&m, e->track_uuid);
    if (t < 0) continue; /* only past the capacity of implied tracks */
    if (e->type == TRAK_PB_TrackEvent_TYPE_SLICE_END) {
      if (depth[t] > 0) {
        tm_slice *s = &slices[stacks[t][--depth[t]]];
        s->dur = (int64_t)(e->ts - s->ts);
      }
      continue;
    }
    if (e->type == TRAK_PB_TrackEvent_TYPE_COUNTER) {
      tm_slice *s = &slices[n_slices++];
      *s = (tm_slice){.track = t, .ts = e->ts, .depth = -1, .ev = e};
      continue;
    }
    tm_slice *s = &slices[n_slices];
    *s = (tm_slice){.track = t, .ts = e->ts, .dur = -1, .depth = depth[t], .ev = e};
    if (e->type == TRAK_PB_TrackEvent_TYPE_INSTANT) {
      s->dur = 0;
      s->instant = 1;
    } else {
      if (depth[t] == caps[t]) {
        caps[t] = caps[t] ? caps[t] * 2 : 16;
        stacks[t] = realloc(stacks[t], (size_t)caps[t] * sizeof **stacks);
      }
      stacks[t][depth[t]++] = (int)n_slices;
    }
    /* Flows: each id links the previous slice that carried it to this one. */
    for (int k = 0; k < e->n_flows + e->n_term; k++) {
      int term = k >= e->n_flows;
      uint64_t id = term ? e->term[k - e->n_flows] : e->flows[k];
      int j = 0;
      while (j < n_flow_ids && flow_id[j] != id)
        j++;
      if (j < n_flow_ids) {
        tm_str b = {0};
        tm_printf(&b, "flow ");
        tm_slice_ref(&b, &m, &slices[flow_slice[j]]);
        tm_printf(&b, " -> ");
        tm_slice_ref(&b, &m, s);
        flows[n_flows++] = b.s;
      } else if (n_flow_ids < 256) {
        flow_id[n_flow_ids++] = id;
      }
      if (term && j < n_flow_ids)
        flow_id[j] = flow_id[--n_flow_ids], flow_slice[j] = flow_slice[n_flow_ids];
      else if (!term)
        flow_slice[j] = n_slices;
    }
    n_slices++;
  }
  qsort(slices, n_slices, sizeof *slices, tm_cmp_slice);

  size_t k = 0;
  for (int t = 0; t < m.n_tracks; t++) {
    const tm_track *tr = &m.tracks[t];
    tm_printf(&out, "track %s", tr->path);
    if (tr->child_ordering) tm_printf(&out, " child_ordering=%" PRIu64, tr->child_ordering);
    if (tr->has_rank) tm_printf(&out, " rank=%d", tr->rank);
    if (tr->has_counter)
      tm_printf(&out, " counter(unit=%" PRIu64 "%s%s)", tr->unit, tr->unit_name ? " " : "",
                tr->unit_name ? tr->unit_name : "");
    tm_printf(&out, "\n");
    for (; k < n_slices && slices[k].track == t; k++) {
      const tm_slice *s = &slices[k];
      const tm_event *e = s->ev;
      if (s->depth < 0) {
        if (e->has_double)
          tm_printf(&out, "  counter ts=%" PRIu64 " value=%.17g\n", s->ts, e->dvalue);
        else
          tm_printf(&out, "  counter ts=%" PRIu64 " value=%" PRId64 "\n", s->ts, e->ivalue);
        continue;
      }
      tm_printf(&out, "  %s ts=%" PRIu64 " dur=%" PRId64 " depth=%d name=\"%s\"",
                s->instant ? "instant" : "slice", s->ts, s->dur, s->depth, e->name ? e->name : "");
      if (e->category) tm_printf(&out, " cat=\"%s\"", e->category);
      if (e->args) tm_printf(&out, " args={%s}", e->args);
      tm_printf(&out, "\n");
    }
  }
  qsort(flows, n_flows, sizeof *flows, tm_cmp_str);
  for (size_t i = 0; i < n_flows; i++)
    tm_printf(&out, "%s\n", flows[i]);
  if (!out.s) tm_printf(&out, "%s", "");

  for (size_t i = 0; i < n_flows; i++)
    free(flows[i]);
  free(flows);
  for (int i = 0; i < m.n_tracks; i++)
    free(stacks[i]);
  free(stacks);
  free(caps);
  free(depth);
  free(slices);
  for (int i = 0; i < m.n_tracks; i++) {
    free(m.tracks[i].name);
    free(m.tracks[i].os_name);
    free(m.tracks[i].unit_name);
    free(m.tracks[i].path);
  }
  for (size_t i = 0; i < m.n_events; i++) {
    free(m.events[i].name);
    free(m.events[i].category);
    free(m.events[i].args);
  }
  free(m.tracks);
  free(m.events);
  tm_intern_reset(&m.names, 1);
  tm_intern_reset(&m.cats, 1);
  tm_intern_reset(&m.argnames, 1);
  return out.s;
}

/* Returns 1 if, in file order, the events of every track (named by uuid or the sequence's
** default track) have non-decreasing timestamps (so a reader that does not sort still sees
** each track in order), else 0. */
static TM_UNUSED int trace_in_track_order(const void *data, size_t len) {
  uint64_t uuids[1024], last[1024];
  int n = 0, ok = 1;
  trak_pb_decoder d, p, e;
  trak_pb_field f, g, h;
  tm_defaults *defaults = calloc(1, sizeof *defaults);
  trak_pb_decoder_init(&d, data, len);
  while (ok && trak_pb_decoder_next(&d, &f) > 0) {
    if (f.number != TRAK_PB_Trace_packet) continue;
    uint64_t ts = 0, uuid = tm_defaults_apply(defaults, &d, &f);
    int has_event = 0;
    trak_pb_decoder_init_nested(&p, &d, &f);
    while (trak_pb_decoder_next(&p, &g) > 0) {
      if (g.number == TRAK_PB_TracePacket_timestamp) ts = g.value;
      if (g.number != TRAK_PB_TracePacket_track_event) continue;
      has_event = 1;
      trak_pb_decoder_init_nested(&e, &p, &g);
      while (trak_pb_decoder_next(&e, &h) > 0)
        if (h.number == TRAK_PB_TrackEvent_track_uuid) uuid = h.value;
    }
    if (!has_event) continue;
    int i = 0;
    while (i < n && uuids[i] != uuid)
      i++;
    if (i == n && n < 1024) {
      uuids[n] = uuid;
      last[n++] = ts;
    } else if (i < n) {
      ok = ts >= last[i];
      last[i] = ts;
    }
  }
  free(defaults);
  return ok;
}

/* Returns 1 if, on every sequence, each packet from the first that sets trace_packet_defaults
** on has SEQ_NEEDS_INCREMENTAL_STATE, as Perfetto's trace_packet.proto asks, else 0. */
static TM_UNUSED int trace_defaults_flagged(const void *data, size_t len) {
  uint32_t with_defaults[TM_MAX_SEQUENCES];
  int n = 0, ok = 1;
  trak_pb_decoder d, p;
  trak_pb_field f, g;
  trak_pb_decoder_init(&d, data, len);
  while (ok && trak_pb_decoder_next(&d, &f) > 0) {
    if (f.number != TRAK_PB_Trace_packet) continue;
    uint32_t seq = 0;
    int flagged = 0, defaults = 0;
    trak_pb_decoder_init_nested(&p, &d, &f);
    while (trak_pb_decoder_next(&p, &g) > 0) {
      if (g.number == TRAK_PB_TracePacket_trusted_packet_sequence_id) seq = (uint32_t)g.value;
      if (g.number == TRAK_PB_TracePacket_sequence_flags)
        flagged = (g.value & TRAK_PB_TracePacket_SEQ_NEEDS_INCREMENTAL_STATE) != 0;
      defaults |= g.number == TRAK_PB_TracePacket_trace_packet_defaults;
    }
    int i = 0;
    while (i < n && with_defaults[i] != seq)
      i++;
    if (i == n && defaults && n < TM_MAX_SEQUENCES) with_defaults[n++] = seq;
    ok = flagged || (i == n && !defaults);
  }
  return ok;
}

/* A slice line of a printed model whose name is "s<index>", as the writer's random tests name
** their slices. */
typedef struct model_s_slice {
  unsigned long long ts;
  long long dur;
  int depth;
  int index;      /* -1 when the line does not parse */
  char track[64]; /* the last segment of its track's path and what follows on that line */
} model_s_slice;

/* Finds the next "s<index>" slice line after *cursor (start with *cursor = NULL) and fills
** `out`. Returns 1 for a line, 0 at the end of the model. */
static __attribute__((unused)) int model_next_s_slice(const char *model, const char **cursor,
                                                      model_s_slice *out) {
  const char *line = strstr(*cursor ? *cursor + 1 : model, "name=\"s");
  if (!line) return 0;
  *cursor = line;
  while (line > model && line[-1] != '\n')
    line--;
  char kind[16];
  if (sscanf(line, "  %15s ts=%llu dur=%lld depth=%d name=\"s%d\"", kind, &out->ts, &out->dur,
             &out->depth, &out->index) != 5)
    out->index = -1;
  /* The track header above the line. */
  const char *h = line;
  while (h > model && strncmp(h, "track ", 6)) {
    h--;
    while (h > model && h[-1] != '\n')
      h--;
  }
  const char *end = strchr(h, '\n'), *seg = h + (strncmp(h, "track ", 6) ? 0 : 6);
  for (const char *q = seg; (q = strstr(q, " / ")) && q < end; q += 3)
    seg = q + 3;
  snprintf(out->track, sizeof out->track, "%.*s", (int)(end - seg), seg);
  return 1;
}

#endif /* TRAK_TEST_TRACE_MODEL_H */
