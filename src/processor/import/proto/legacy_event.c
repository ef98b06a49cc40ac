/*
** This file holds TrackEvents that carry legacy_event (TrackEvent.LegacyEvent, the JSON trace
** event model inside the protobuf format), mapped as Perfetto's track event parser does:
**   B / E              slice begin / end on the event's thread track;
**   X                  a complete slice of duration_us;
**   I / i / R          an instant: on the thread track (scope thread or unspecified), on the
**                      process's instant track (scope process) or the global one (scope global);
**   b / e / n, S / F / T / p   begin / end / instant on an async track keyed by the id
**                      (unscoped_id, global_id, or local_id scoped to the process), the id
**                      scope (the category, or the name for S / F / T / p; "<cat>:<id_scope>"
**                      with id_scope) and, for local ids, the process;
**   s / t / f          v1 flow steps keyed by unscoped_id, category and name;
**   bind_id            v2 flows in the id space of flow_ids: flow_direction out / inout
**                      continue a flow, in ends it (Perfetto leaves it open for another in);
**   C                  counters, as its JSON export would import (see counters());
**   M                  thread_name / process_name.
** Tracks follow the sequence's thread (tid_override picks another thread of its process)
** unless the event names a track_uuid. Thread times (track_event.c) fill the thread slices'
** columns; an X event's thread_duration_us is its thread_dur. What trak does not map (other
** phases, pid_override, thread_instruction_delta, use_async_tts) is counted in
** legacy_event_unsupported; what Perfetto rejects (a phase without the thread, process or id
** it needs) in track_event_parser_errors.
*/
#include <stdio.h>
#include <string.h>

#include "processor/import/hash.h"
#include "processor/import/proto/track_event.h"

typedef struct legacy_fields {
  uint64_t name_iid, id, bind_id, flow_direction, scope;
  int64_t phase, duration_us, tid_override, pid_override, thread_duration_us;
  uint8_t has_phase, has_duration, has_bind_id, has_direction, has_tid_override, has_thread_dur;
  uint8_t has_pid_override;
  uint8_t id_kind; /* 0: none, else the LegacyEvent field number of the id */
  uint8_t bind_to_enclosing;
  uint32_t ignored; /* field numbers of fields trak ignores, as bits */
  trak_span id_scope;
} legacy_fields;

static int decode(trak_importer *imp, const trak_span *msg, legacy_fields *lf) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, msg->data, msg->len);
  memset(lf, 0, sizeof *lf);
  int rc;
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    if (f.wire_type == TRAK_PB_WIRE_LEN) {
      if (f.number == TRAK_PB_TrackEvent_LegacyEvent_id_scope)
        lf->id_scope = (trak_span){f.data, f.len};
      continue;
    }
    switch (f.number) {
    case TRAK_PB_TrackEvent_LegacyEvent_name_iid:
      lf->name_iid = f.value;
      break;
    case TRAK_PB_TrackEvent_LegacyEvent_phase:
      lf->phase = trak_pb_as_int32(&f), lf->has_phase = 1;
      break;
    case TRAK_PB_TrackEvent_LegacyEvent_duration_us:
      lf->duration_us = trak_pb_as_int64(&f), lf->has_duration = 1;
      break;
    case TRAK_PB_TrackEvent_LegacyEvent_unscoped_id:
    case TRAK_PB_TrackEvent_LegacyEvent_local_id:
    case TRAK_PB_TrackEvent_LegacyEvent_global_id:
      lf->id = f.value, lf->id_kind = (uint8_t)f.number; /* a oneof: the last one wins */
      break;
    case TRAK_PB_TrackEvent_LegacyEvent_bind_id:
      lf->bind_id = f.value, lf->has_bind_id = 1;
      break;
    case TRAK_PB_TrackEvent_LegacyEvent_bind_to_enclosing:
      lf->bind_to_enclosing = f.value != 0;
      break;
    case TRAK_PB_TrackEvent_LegacyEvent_flow_direction:
      lf->flow_direction = f.value, lf->has_direction = 1;
      break;
    case TRAK_PB_TrackEvent_LegacyEvent_instant_event_scope:
      lf->scope = f.value;
      break;
    case TRAK_PB_TrackEvent_LegacyEvent_tid_override:
      lf->tid_override = trak_pb_as_int32(&f), lf->has_tid_override = 1;
      break;
    case TRAK_PB_TrackEvent_LegacyEvent_thread_duration_us:
      lf->thread_duration_us = trak_pb_as_int64(&f), lf->has_thread_dur = 1;
      break;
    case TRAK_PB_TrackEvent_LegacyEvent_pid_override:
      lf->pid_override = trak_pb_as_int32(&f), lf->has_pid_override = 1;
      break;
    case TRAK_PB_TrackEvent_LegacyEvent_thread_instruction_delta:
    case TRAK_PB_TrackEvent_LegacyEvent_use_async_tts:
      lf->ignored |= 1u << f.number;
      break;
    default:
      break;
    }
  }
  return rc;
}

/* What the event's phase needs, and where it goes. */
typedef struct legacy_ctx {
  uint32_t track, utid, upid, name, cat;
  uint32_t thread_track; /* the base track when it is a thread's, else TRAK_NULL_U32 */
  uint32_t base_track;   /* the event's own track, before its phase picks another */
  trak_te_args_extra args;
} legacy_ctx;

__attribute__((cold)) static void reject(trak_importer *imp, const legacy_fields *lf,
                                         const char *why) {
  trak__report(imp, TRAK_STAT_BAD_TYPE, "legacy event with phase '%c' %s; dropped", (char)lf->phase,
               why);
}

__attribute__((cold)) static void report_ignored(trak_importer *imp, uint32_t ignored) {
  static const struct {
    uint32_t field;
    const char *name;
  } names[] = {
      {TRAK_PB_TrackEvent_LegacyEvent_thread_instruction_delta, "thread_instruction_delta"},
      {TRAK_PB_TrackEvent_LegacyEvent_use_async_tts, "use_async_tts"}};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (ignored & 1u << names[i].field)
      trak__report(imp, TRAK_STAT_LEGACY_UNSUPPORTED, "legacy_event.%s is not imported; ignored",
                   names[i].name);
}

/* The event's track before its phase is considered: its track_uuid (or the sequence's
** default), else the sequence's thread or, with tid_override, another thread of its process. */
static int base_track(trak_importer *imp, trak_sequence *seq, const trak_te_fields *ef,
                      const legacy_fields *lf, legacy_ctx *c) {
  uint32_t track = trak__te_track(imp, seq, ef);
  if (track == TRAK_NULL_U32) return 0;
  const trak_track_info *info = &imp->tracks.info.v[track];
  /* On the sequence's thread or the default track (no track uuid), the overrides pick the
  ** thread as Perfetto's fallback to pid / tid tracks does: tid_override another thread of the
  ** sequence's process (or of pid_override's). pid_override alone is not imported. */
  int on_thread = info->is_legacy_thread;
  if (!on_thread && !info->uuid && !info->kind && seq->thread_track != TRAK_NULL_U32 &&
      lf->has_tid_override)
    on_thread = 1, info = &imp->tracks.info.v[seq->thread_track];
  if (lf->has_tid_override && on_thread) {
    uint32_t upid = imp->tables->thread.upid[info->utid];
    int64_t pid = lf->has_pid_override    ? lf->pid_override
                  : upid != TRAK_NULL_U32 ? imp->tables->process.pid[upid]
                                          : -1;
    track = trak__legacy_thread_track(imp, trak__thread_for_tid(imp, lf->tid_override, pid));
    info = &imp->tracks.info.v[track];
  } else if (lf->has_pid_override) {
    trak__report(imp, TRAK_STAT_LEGACY_UNSUPPORTED,
                 "legacy_event.pid_override without tid_override is not imported; ignored");
  }
  c->track = track;
  c->thread_track = info->is_thread ? track : TRAK_NULL_U32;
  c->utid = info->is_thread ? info->utid : TRAK_NULL_U32;
  c->upid = c->utid != TRAK_NULL_U32 ? imp->tables->thread.upid[c->utid] : info->upid;
  /* Perfetto finds the thread by pid and tid for each event: once a process descriptor reused
  ** the pid, the sequence's thread is a new thread of the new process. */
  if (info->is_legacy_thread && c->upid != TRAK_NULL_U32) {
    const trak_tables *t = imp->tables;
    int64_t pid = t->process.pid[c->upid];
    if (trak__process_for_pid(imp, pid) != c->upid) {
      c->utid = trak__thread_for_tid(imp, t->thread.tid[c->utid], pid);
      c->track = c->thread_track = trak__legacy_thread_track(imp, c->utid);
      c->upid = imp->tables->thread.upid[c->utid];
    }
  }
  c->base_track = c->track;
  return 1;
}

/* b / e / n / S / F / T / p: the async track of the event's id. */
static int async_track(trak_importer *imp, const legacy_fields *lf, legacy_ctx *c) {
  if (!lf->id_kind) {
    reject(imp, lf, "has no unscoped_id, global_id or local_id");
    return 0;
  }
  int local = lf->id_kind == TRAK_PB_TrackEvent_LegacyEvent_local_id;
  if (local && c->upid == TRAK_NULL_U32) {
    reject(imp, lf, "has a local_id but no process");
    return 0;
  }
  int by_name = strchr("STpF", (int)lf->phase) != NULL;
  uint32_t scope = by_name ? c->name : c->cat; /* Perfetto's scope of the id */
  uint64_t key = trak__mix(trak__mix(0xa5a5, lf->id), scope);
  if (lf->id_scope.data) {
    /* "<category>:<id_scope>", as Perfetto scopes ids. */
    const trak_strpool *sp = &imp->tables->strings;
    char buf[1024];
    size_t n = c->cat ? sp->len.v[c->cat] : 0;
    if (n + 1 + lf->id_scope.len > sizeof buf) {
      reject(imp, lf, "has too long an id_scope");
      return 0;
    }
    if (n) memcpy(buf, sp->str.v[c->cat], n);
    buf[n++] = ':';
    memcpy(buf + n, lf->id_scope.data, lf->id_scope.len);
    scope = trak__strpool_intern(&imp->tables->strings, buf, n + lf->id_scope.len);
    key = trak__mix(trak__mix(0xa5a6, lf->id), scope);
  }
  trak_track_kind_id kind =
      local ? TRAK_TK_LEGACY_ASYNC_PROCESS_SLICE : TRAK_TK_LEGACY_ASYNC_GLOBAL_SLICE;
  key = trak__track_key(kind, key, local ? (uint64_t)c->upid + 1 : 0);
  c->args.passthrough_utid = c->utid;
  c->track = trak__keyed_track(imp, key, c->name, local ? c->upid : TRAK_NULL_U32, 0, kind);
  trak_track_info *info = &imp->tracks.info.v[c->track];
  info->compressed = 1; /* ids of one name share tracks, as Perfetto's track compressor */
  if (!info->scope) {
    /* Perfetto's async tracks are told apart by scope and by the first name the id had (in
    ** its process, for a local id): the track's "name" dimension. */
    int added;
    uint64_t id_key = trak__mix(lf->id, local ? (uint64_t)c->upid + 1 : 0);
    uint32_t *root = trak__map_put(&imp->async.legacy_roots, id_key, c->name, &added);
    info->scope = scope, info->src_upid = c->upid, info->root_name = *root;
  }
  c->args.has_source_id = 1;
  c->args.source_id = (int64_t)lf->id;
  return 1;
}

/* I / i: thread-scoped instants stay on the thread track; process and global ones get the
** process's or the trace's instant track. */
static int instant_track(trak_importer *imp, const legacy_fields *lf, legacy_ctx *c) {
  switch (lf->scope) {
  case TRAK_PB_TrackEvent_LegacyEvent_SCOPE_GLOBAL:
    c->args.passthrough_utid = c->utid;
    c->track = trak__keyed_track(imp, trak__track_key(TRAK_TK_LEGACY_CHROME_GLOBAL_INSTANTS, 0, 0),
                                 0, TRAK_NULL_U32, 0, TRAK_TK_LEGACY_CHROME_GLOBAL_INSTANTS);
    return 1;
  case TRAK_PB_TrackEvent_LegacyEvent_SCOPE_PROCESS:
    if (c->upid == TRAK_NULL_U32) {
      reject(imp, lf, "(process scope) has no process");
      return 0;
    }
    c->args.passthrough_utid = c->utid;
    c->track = trak__keyed_track(imp, trak__track_key(TRAK_TK_CHROME_PROCESS_INSTANT, c->upid, 0),
                                 0, c->upid, 0, TRAK_TK_CHROME_PROCESS_INSTANT);
    return 1;
  default:
    if (c->utid == TRAK_NULL_U32) {
      reject(imp, lf, "(thread scope) has no thread");
      return 0;
    }
    return 1;
  }
}

/* s / t / f: a FLOW record (sequence.h) on the thread track, keyed as Perfetto keys v1 flows
** (by unscoped_id, category and name), bound by flows.c as JSON's are. */
static void flow_v1(trak_importer *imp, trak_sequence *seq, const legacy_fields *lf, legacy_ctx *c,
                    int64_t ts) {
  if (lf->id_kind != TRAK_PB_TrackEvent_LegacyEvent_unscoped_id) {
    reject(imp, lf, "(a v1 flow) has no unscoped_id");
    return;
  }
  if (c->utid == TRAK_NULL_U32) {
    reject(imp, lf, "(a v1 flow) has no thread");
    return;
  }
  uint32_t at = (uint32_t)imp->aux.n;
  trak_vec_push(imp->aux, trak__flow_v1_key(lf->id, c->cat, c->name));
  trak_vec_push(imp->aux, (uint64_t)c->name << 32 | c->cat); /* for the flow's args */
  uint32_t kind = lf->phase == 's'        ? TRAK_FLOW_V1_BEGIN
                  : lf->phase == 't'      ? TRAK_FLOW_V1_STEP
                  : lf->bind_to_enclosing ? TRAK_FLOW_V1_END_ENCLOSING
                                          : TRAK_FLOW_V1_END_NEXT;
  trak_ev ev = {ts,
                (uint32_t)TRAK_EV_FLOW << TRAK_EV_TYPE_SHIFT | c->track,
                (uint32_t)imp->packet_index,
                {{kind, 0}},
                TRAK_NULL_U32,
                at};
  trak__te_push(imp, seq, &ev);
}

/* A debug annotation's name and value, as C and M events read them. */
typedef struct annotation {
  uint32_t name, str; /* string ids (0: none) */
  double number;
  int is_number;
} annotation;

static void annotation_read(trak_importer *imp, trak_sequence *seq, const trak_span *span,
                            annotation *a) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, span->data, span->len);
  memset(a, 0, sizeof *a);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    int is_len = f.wire_type == TRAK_PB_WIRE_LEN;
    if (f.number == TRAK_PB_DebugAnnotation_name && is_len)
      a->name = trak__strpool_intern(&imp->tables->strings, (const char *)f.data, f.len);
    else if (f.number == TRAK_PB_DebugAnnotation_name_iid && !is_len)
      a->name = trak__interned_get(imp, seq, TRAK_INTERN_DEBUG_NAME, f.value);
    else if (f.number == TRAK_PB_DebugAnnotation_string_value && is_len)
      a->str = trak__strpool_intern(&imp->tables->strings, (const char *)f.data, f.len);
    else if (f.number == TRAK_PB_DebugAnnotation_int_value && !is_len)
      a->number = (double)trak_pb_as_int64(&f), a->is_number = 1;
    else if (f.number == TRAK_PB_DebugAnnotation_uint_value && !is_len)
      a->number = (double)f.value, a->is_number = 1;
    else if (f.number == TRAK_PB_DebugAnnotation_double_value && !is_len)
      a->number = trak_pb_as_double(&f), a->is_number = 1;
  }
}

/* C: Perfetto keeps it in its raw table and its JSON export turns it into a JSON counter
** event; trak imports it as that JSON event would be: each numeric debug annotation is a value
** on the process counter track "<name> <key>" ("<name> id: <id> <key>" with an id). */
static void counters(trak_importer *imp, trak_sequence *seq, const trak_te_fields *ef,
                     const legacy_fields *lf, const legacy_ctx *c, int64_t ts) {
  if (c->upid == TRAK_NULL_U32) {
    reject(imp, lf, "(a counter) has no process");
    return;
  }
  const trak_strpool *sp = &imp->tables->strings;
  char prefix[512];
  int n = snprintf(prefix, sizeof prefix, "%.*s", c->name ? (int)sp->len.v[c->name] : 0,
                   c->name ? sp->str.v[c->name] : "");
  if (lf->id_kind)
    n += snprintf(prefix + n, sizeof prefix - (size_t)n, " id: %llu", (unsigned long long)lf->id);
  for (uint32_t i = 0; i < ef->n_annos; i++) {
    annotation a;
    annotation_read(imp, seq, &ef->annos[i], &a);
    if (!a.is_number) {
      trak__report(imp, TRAK_STAT_LEGACY_UNSUPPORTED,
                   "counter (C) legacy event with a value that is not a number; ignored");
      continue;
    }
    char name[1024];
    int m = snprintf(name, sizeof name, "%s %.*s", prefix, a.name ? (int)sp->len.v[a.name] : 0,
                     a.name ? sp->str.v[a.name] : "");
    uint32_t name_id = trak__strpool_intern(&imp->tables->strings, name,
                                            (size_t)m < sizeof name ? (size_t)m : sizeof name - 1);
    uint32_t track = trak__keyed_track(
        imp, trak__track_key(TRAK_TK_PROCESS_COUNTER_TRACK_EVENT, c->upid, name_id), name_id,
        c->upid, 1, TRAK_TK_PROCESS_COUNTER_TRACK_EVENT);
    trak_ev ev = {ts,
                  (uint32_t)TRAK_EV_COUNTER << TRAK_EV_TYPE_SHIFT | track,
                  (uint32_t)imp->packet_index,
                  {{0, 0}},
                  TRAK_NULL_U32,
                  0};
    ev.u.value = a.number;
    trak__te_push(imp, seq, &ev);
  }
}

/* M: thread_name and process_name name the event's thread or process from the string value
** of its first debug annotation, unless a descriptor named it; others are not imported. */
static void metadata(trak_importer *imp, trak_sequence *seq, const trak_te_fields *ef,
                     const legacy_fields *lf, const legacy_ctx *c) {
  const char *name = c->name ? trak__str(&imp->tables->strings, c->name) : "";
  int thread = !strcmp(name, "thread_name"), process = !strcmp(name, "process_name");
  if (!thread && !process) {
    trak__report(imp, TRAK_STAT_LEGACY_UNSUPPORTED,
                 "metadata (M) legacy event \"%s\" is not imported; dropped", name);
    return;
  }
  if (thread ? c->utid == TRAK_NULL_U32 : c->upid == TRAK_NULL_U32) {
    reject(imp, lf, thread ? "(thread_name) has no thread" : "(process_name) has no process");
    return;
  }
  if (!ef->n_annos) {
    reject(imp, lf, "(a name) has no debug annotation");
    return;
  }
  annotation a;
  annotation_read(imp, seq, &ef->annos[0], &a);
  if (!a.str || !imp->tables->strings.len.v[a.str]) return;
  uint32_t *slot =
      thread ? &imp->tables->thread.name[c->utid] : &imp->tables->process.name[c->upid];
  if (!*slot) *slot = a.str; /* descriptors name with a higher priority in Perfetto */
}

/* bind_id with flow_direction: v2 flows, in the id space of flow_ids (the parse phase applies
** the direction; see flows() in event_parser.c). */
static void flow_v2(trak_importer *imp, trak_te_fields *ef, const legacy_fields *lf) {
  if (!lf->has_bind_id) return;
  uint64_t dir = lf->has_direction ? lf->flow_direction : 0;
  uint32_t kind = dir == TRAK_PB_TrackEvent_LegacyEvent_FLOW_OUT     ? TRAK_FLOW_V2_OUT
                  : dir == TRAK_PB_TrackEvent_LegacyEvent_FLOW_INOUT ? TRAK_FLOW_V2_INOUT
                  : dir == TRAK_PB_TrackEvent_LegacyEvent_FLOW_IN    ? TRAK_FLOW_V2_IN
                                                                     : 0;
  if (!kind) {
    trak__report(imp, TRAK_STAT_FLOW_WITHOUT_DIRECTION,
                 "legacy_event.bind_id %llu without a flow_direction; no flow",
                 (unsigned long long)lf->bind_id);
    return;
  }
  ef->bind_id = lf->bind_id, ef->bind_kind = kind, ef->extras |= TRAK_TE_FLOW_V2;
}

/* Pushes a value on one of the thread counters of `utid` (a complete event's thread time and
** instruction count, which its COMPLETE record does not carry as extra counters). */
static void thread_value(trak_importer *imp, trak_sequence *seq, uint32_t utid, int instructions,
                         int64_t ts, double v) {
  trak_ev ev = {ts,
                (uint32_t)TRAK_EV_COUNTER << TRAK_EV_TYPE_SHIFT |
                    trak__te_thread_counter(imp, utid, instructions),
                (uint32_t)imp->packet_index,
                {{0, 0}},
                TRAK_NULL_U32,
                0};
  ev.u.value = v;
  trak__te_push(imp, seq, &ev);
}

/* X: a COMPLETE record whose aux entry holds the duration, then the flows block index (bit 63:
** the thread time and thread_duration_us follow, as Perfetto fills thread_ts / thread_dur). */
static uint32_t complete_aux(trak_importer *imp, trak_sequence *seq, const trak_te_fields *ef,
                             const legacy_fields *lf, const trak_te_thread *th, uint32_t utid,
                             int64_t ts) {
  if (ef->extra_values.n || ef->extra_double_values.n)
    trak__report(imp, TRAK_STAT_LEGACY_UNSUPPORTED,
                 "extra counter values on a complete (X) legacy event; ignored");
  if (th->has_ic) thread_value(imp, seq, utid, 1, ts, (double)th->ic);
  if (th->has_time) thread_value(imp, seq, utid, 0, ts, (double)th->time);
  trak_te_fields flows_only = *ef;
  flows_only.extra_values.n = flows_only.extra_double_values.n = 0;
  uint64_t flows = trak__te_aux(imp, seq, &flows_only, NULL, TRAK_NULL_U32);
  uint32_t at = (uint32_t)imp->aux.n;
  trak_vec_push(imp->aux, (uint64_t)trak__wmul(lf->duration_us, 1000));
  trak_vec_push(imp->aux, flows | (uint64_t)th->has_time << 63);
  if (th->has_time) {
    trak_vec_push(imp->aux, (uint64_t)th->time);
    trak_vec_push(imp->aux, (uint64_t)trak__wmul(lf->thread_duration_us, 1000));
    trak__tables_thread_time(imp->tables);
  }
  return at;
}

/* Another phase (P, a V8 CPU profile sample, ...): Perfetto keeps the event in its raw table,
** which trak lacks, but first imports its thread time and instruction count and its extra
** counter values as any event's. They go in one record that adds no slice, on its first
** counter's track, so that the event's own track is not made a row. */
__attribute__((cold)) static void raw_phase_counters(trak_importer *imp, trak_sequence *seq,
                                                     const trak_te_fields *ef,
                                                     const trak_te_thread *th, const legacy_ctx *c,
                                                     int64_t ts) {
  trak_te_fields counters_only = *ef;
  counters_only.flows.n = counters_only.terms.n = 0;
  counters_only.extras &= ~(uint32_t)TRAK_TE_FLOW_V2;
  uint32_t aux = trak__te_aux(imp, seq, &counters_only, th, c->utid);
  if (!aux) return;
  const uint64_t *a = imp->aux.v + aux;
  if (!a[2]) return;
  trak_ev ev = {ts,
                (uint32_t)TRAK_EV_EXTRA_ONLY << TRAK_EV_TYPE_SHIFT |
                    (uint32_t)a[3 + a[0] + (uint32_t)a[1]],
                (uint32_t)imp->packet_index,
                {{0, 0}},
                TRAK_NULL_U32,
                aux};
  trak__te_push(imp, seq, &ev);
}

int trak__legacy_event_tokenize(trak_importer *imp, trak_sequence *seq, trak_te_fields *ef,
                                int64_t ts) {
  legacy_fields lf;
  if (decode(imp, &ef->legacy, &lf) < 0)
    trak__report(imp, TRAK_STAT_PACKET_MALFORMED, "legacy_event fields do not decode");
  if (TRAK_UNLIKELY(lf.ignored)) report_ignored(imp, lf.ignored);
  ef->extras &= ~(uint32_t)TRAK_TE_LEGACY;
  if (!lf.has_phase) {
    /* A typed event: the legacy fields only name it, add v2 flows and, with overrides, pick
    ** its thread. */
    if (!ef->has_name_iid && lf.name_iid) ef->name_iid = lf.name_iid, ef->has_name_iid = 1;
    legacy_ctx c;
    if ((lf.has_tid_override | lf.has_pid_override) && base_track(imp, seq, ef, &lf, &c))
      ef->legacy_track = c.track, ef->extras |= TRAK_TE_LEGACY_TRACK;
    flow_v2(imp, ef, &lf);
    return 0;
  }
  trak_te_thread th = {0, 0, 0, 0};
  if (ef->extras & (TRAK_TE_THREAD_TIME | TRAK_TE_THREAD_IC)) trak__te_thread(seq, ef, &th);
  if (lf.has_thread_dur && !(lf.phase == 'X' && th.has_time))
    trak__report(imp, TRAK_STAT_LEGACY_UNSUPPORTED,
                 "legacy_event.thread_duration_us without a thread time on an X event; ignored");
  legacy_ctx c;
  memset(&c, 0, sizeof c);
  c.args.utid = c.args.passthrough_utid = TRAK_NULL_U32;
  if (!base_track(imp, seq, ef, &lf, &c)) {
    trak__report(imp, TRAK_STAT_NO_TRACK,
                 "legacy event has no track_uuid, its sequence %u no default track and no thread",
                 seq->id);
    return 1;
  }
  c.args.utid = c.utid;
  c.name = trak__te_name(imp, seq, ef, lf.name_iid);
  c.cat = trak__te_category(imp, seq, ef);
  uint32_t type;
  switch (lf.phase) {
  case 'B':
  case 'E':
  case 'X':
    if (c.utid == TRAK_NULL_U32) {
      reject(imp, &lf, "has no thread");
      return 1;
    }
    if (lf.phase == 'X' && (!lf.has_duration || lf.duration_us < 0)) {
      reject(imp, &lf, "has no duration_us, or a negative one");
      return 1;
    }
    type = lf.phase == 'B' ? TRAK_EV_BEGIN : lf.phase == 'E' ? TRAK_EV_END : TRAK_EV_COMPLETE;
    break;
  case 'I':
  case 'i':
    if (!instant_track(imp, &lf, &c)) return 1;
    type = TRAK_EV_INSTANT;
    break;
  case 'R':
    type = TRAK_EV_INSTANT;
    c.args.phase = 'R';
    break;
  case 'b':
  case 'S':
  case 'e':
  case 'F':
  case 'n':
  case 'T':
  case 'p':
    if (!async_track(imp, &lf, &c)) return 1;
    type = lf.phase == 'b' || lf.phase == 'S'   ? TRAK_EV_BEGIN
           : lf.phase == 'e' || lf.phase == 'F' ? TRAK_EV_END
                                                : TRAK_EV_INSTANT;
    if (lf.phase == 'S' || lf.phase == 'T' || lf.phase == 'p') c.args.phase = (char)lf.phase;
    break;
  case 's':
  case 't':
  case 'f':
    flow_v1(imp, seq, &lf, &c, ts);
    return 1;
  case 'C':
    counters(imp, seq, ef, &lf, &c, ts);
    return 1;
  case 'M':
    metadata(imp, seq, ef, &lf, &c);
    return 1;
  default:
    raw_phase_counters(imp, seq, ef, &th, &c, ts);
    trak__report(imp, TRAK_STAT_LEGACY_UNSUPPORTED,
                 "legacy event with phase '%c' (%lld) is not imported; dropped", (char)lf.phase,
                 (long long)lf.phase);
    return 1;
  }
  if (type == TRAK_EV_END) /* the begin's args already carry them */
    c.args.has_source_id = 0, c.args.passthrough_utid = TRAK_NULL_U32;
  flow_v2(imp, ef, &lf);
  trak_ev ev;
  ev.ts = ts;
  ev.track = type << TRAK_EV_TYPE_SHIFT | c.track;
  ev.pkt = (uint32_t)imp->packet_index;
  ev.u.s.name = c.name;
  ev.u.s.cat = c.cat;
  c.args.ts = ev.ts;
  ev.arg_set_id = trak__te_args(imp, seq, ef, &c.args); /* TRAK_NULL_U32 when empty */
  /* Thread times fill the slice columns of thread slices only: Perfetto keeps those of async
  ** slices (use_async_tts) in a table trak does not have. */
  int on_thread = c.track == c.thread_track;
  if (type == TRAK_EV_COMPLETE)
    ev.aux = complete_aux(imp, seq, ef, &lf, &th, c.utid, ts);
  else
    ev.aux = trak__te_aux(imp, seq, ef, on_thread ? &th : NULL, c.utid);
  const trak_track_info *base_info = &imp->tracks.info.v[c.base_track];
  if (TRAK_UNLIKELY(c.track != c.base_track) && !base_info->compressed &&
      !base_info->is_legacy_thread) {
    /* Perfetto makes the event's own track before its phase picks another: a record that only
    ** makes it a row, in order. */
    trak_ev base = ev;
    base.track = (uint32_t)TRAK_EV_EXTRA_ONLY << TRAK_EV_TYPE_SHIFT | c.base_track;
    base.arg_set_id = TRAK_NULL_U32, base.aux = 0;
    trak__te_push(imp, seq, &base);
  }
  trak__te_push(imp, seq, &ev);
  return 1;
}
