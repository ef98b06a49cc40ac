/*
** This file holds the tokenization of TrackEvent payloads into 32-byte event records: the
** track (explicit uuid, sequence default, or the writer's thread), name and categories from
** interned ids or inline strings, debug annotations into args, counter values, extra counters
** and flow ids (kept in imp->aux for the parse phase). This is the importer's hot path: fields
** most events lack (typed arguments, legacy_event, the legacy thread time fields, whose values
** become extra counter values on the thread's "thread_time" / "thread_instruction_count"
** counter tracks) are decoded and handled out of line.
*/
#include <stddef.h>
#include <string.h>

#include "processor/import/gpu_flows.h"
#include "processor/import/proto/te_predecode.h"
#include "processor/import/proto/track_event.h"

typedef trak_te_fields event_fields;

int trak__u64_list_add(trak_u64_list *l, const trak_pb_field *f, uint32_t packed_wire_type) {
  if (f->wire_type != TRAK_PB_WIRE_LEN) {
    if (l->n < TRAK_TE_MAX_REPEATED)
      l->v[l->n++] = f->value;
    else
      l->overflow = 1;
    return 0;
  }
  trak_pb_packed it;
  uint64_t v;
  int rc;
  trak_pb_packed_init(&it, f, packed_wire_type);
  while ((rc = trak_pb_packed_next(&it, &v)) > 0) {
    if (l->n < TRAK_TE_MAX_REPEATED)
      l->v[l->n++] = v;
    else
      l->overflow = 1;
  }
  return rc;
}

/* Keeps a length-delimited field most events lack; a later one replaces it (last one wins). */
static void rare_span(event_fields *ef, const trak_pb_field *f, trak_span *span, uint32_t bit) {
  if (f->wire_type != TRAK_PB_WIRE_LEN) return;
  *span = (trak_span){f->data, f->len};
  ef->extras |= bit;
}

/* The fields most events lack, out of the common switch so that its dispatch stays as cheap
** as before they were imported; each sets its `extras` bit. */
__attribute__((noinline)) static void rare_field(event_fields *ef, const trak_pb_field *f) {
  switch (f->number) {
  case TRAK_PB_TrackEvent_thread_time_delta_us:
  case TRAK_PB_TrackEvent_thread_time_absolute_us:
    ef->thread_time = trak_pb_as_int64(f), ef->extras |= TRAK_TE_THREAD_TIME;
    ef->thread_time_kind = f->number == TRAK_PB_TrackEvent_thread_time_delta_us ? 1 : 2;
    break;
  case TRAK_PB_TrackEvent_thread_instruction_count_delta:
  case TRAK_PB_TrackEvent_thread_instruction_count_absolute:
    ef->thread_ic = trak_pb_as_int64(f), ef->extras |= TRAK_TE_THREAD_IC;
    ef->thread_ic_kind = f->number == TRAK_PB_TrackEvent_thread_instruction_count_delta ? 1 : 2;
    break;
  case TRAK_PB_TrackEvent_source_location_iid:
    ef->source_location_iid = f->value, ef->extras |= TRAK_TE_SOURCE_IID;
    break;
  case TRAK_PB_TrackEvent_correlation_id:
    ef->correlation_id = f->value, ef->extras |= TRAK_TE_CORRELATION;
    break;
  case TRAK_PB_TrackEvent_correlation_id_str_iid:
    ef->correlation_iid = f->value, ef->extras |= TRAK_TE_CORRELATION_IID;
    break;
  case TRAK_PB_TrackEvent_correlation_id_str:
    rare_span(ef, f, &ef->correlation_str, TRAK_TE_CORRELATION_STR);
    break;
  case TRAK_PB_TrackEvent_source_location:
    rare_span(ef, f, &ef->source_location, TRAK_TE_SOURCE_INLINE);
    break;
  case TRAK_PB_TrackEvent_log_message:
    rare_span(ef, f, &ef->log_message, TRAK_TE_LOG);
    break;
  case TRAK_PB_TrackEvent_legacy_event:
    rare_span(ef, f, &ef->legacy, TRAK_TE_LEGACY);
    break;
  case TRAK_PB_TrackEvent_task_execution:
    rare_span(ef, f, &ef->task, TRAK_TE_TASK);
    break;
  case TRAK_PB_TrackEvent_chrome_histogram_sample:
    rare_span(ef, f, &ef->histogram, TRAK_TE_HISTOGRAM);
    ef->extras |= TRAK_TE_REFLECT;
    break;
  case TRAK_PB_GpuTrackEvent_gpu_correlation: /* flows to render stages, and reflected */
    rare_span(ef, f, &ef->gpu, TRAK_TE_GPU);
    ef->extras |= TRAK_TE_REFLECT;
    break;
  case TRAK_PB_TrackEvent_callstack: /* a oneof with callstack_iid: the last one wins */
  case TRAK_PB_TrackEvent_callstack_iid:
  case TRAK_PB_TrackEvent_callstack_weight:
    if (!(ef->extras & TRAK_TE_CALLSTACK))
      ef->callstack.data = NULL, ef->callstack_iid = 0, ef->has_callstack_weight = 0;
    ef->extras |= TRAK_TE_CALLSTACK;
    if (f->number == TRAK_PB_TrackEvent_callstack_weight)
      ef->callstack_weight = trak_pb_as_double(f), ef->has_callstack_weight = 1;
    else if (f->number == TRAK_PB_TrackEvent_callstack_iid)
      ef->callstack_iid = f->value, ef->callstack.data = NULL;
    else if (f->wire_type == TRAK_PB_WIRE_LEN)
      ef->callstack = (trak_span){f->data, f->len}, ef->callstack_iid = 0;
    break;
  default:
    if (trak__te_reflected(f->number)) { /* known to Perfetto, reflected into args */
      ef->extras |= TRAK_TE_REFLECT;
      break;
    }
    if (!trak__schema_lacks("TrackEvent", f->number)) break;
    if (!(ef->extras & TRAK_TE_UNKNOWN)) ef->unknown_fields = 0;
    ef->unknown_fields++, ef->extras |= TRAK_TE_UNKNOWN;
    break;
  }
}

static int decode_event(const trak_importer *imp, const uint8_t *data, size_t len,
                        event_fields *ef) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  ef->blob = (trak_span){data, len};
  int rc;
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    switch (f.number) {
    case TRAK_PB_TrackEvent_type:
      ef->type = f.value, ef->has_type = 1;
      break;
    case TRAK_PB_TrackEvent_track_uuid:
      ef->track_uuid = f.value, ef->has_track = 1;
      break;
    case TRAK_PB_TrackEvent_name_iid:
      ef->name_iid = f.value, ef->has_name_iid = 1;
      break;
    case TRAK_PB_TrackEvent_name:
      if (f.wire_type == TRAK_PB_WIRE_LEN) ef->name = (trak_span){f.data, f.len};
      break;
    case TRAK_PB_TrackEvent_category_iids:
      ef->bad_packed |= trak__u64_list_add(&ef->cat_iids, &f, TRAK_PB_WIRE_VARINT) < 0;
      break;
    case TRAK_PB_TrackEvent_categories:
      if (f.wire_type == TRAK_PB_WIRE_LEN && ef->n_cats < 8)
        ef->cats[ef->n_cats++] = (trak_span){f.data, f.len};
      break;
    case TRAK_PB_TrackEvent_debug_annotations:
      if (f.wire_type == TRAK_PB_WIRE_LEN && ef->n_annos < TRAK_TE_MAX_ANNOTATIONS)
        ef->annos[ef->n_annos++] = (trak_span){f.data, f.len};
      break;
    case TRAK_PB_TrackEvent_counter_value:
      ef->int_value = trak_pb_as_int64(&f), ef->has_value = 1, ef->value_is_double = 0;
      break;
    case TRAK_PB_TrackEvent_double_counter_value:
      ef->double_value = trak_pb_as_double(&f), ef->has_value = 1, ef->value_is_double = 1;
      break;
    case TRAK_PB_TrackEvent_extra_counter_track_uuids:
      ef->bad_packed |= trak__u64_list_add(&ef->extra_uuids, &f, TRAK_PB_WIRE_VARINT) < 0;
      break;
    case TRAK_PB_TrackEvent_extra_counter_values:
      ef->bad_packed |= trak__u64_list_add(&ef->extra_values, &f, TRAK_PB_WIRE_VARINT) < 0;
      break;
    case TRAK_PB_TrackEvent_extra_double_counter_track_uuids:
      ef->bad_packed |= trak__u64_list_add(&ef->extra_double_uuids, &f, TRAK_PB_WIRE_VARINT) < 0;
      break;
    case TRAK_PB_TrackEvent_extra_double_counter_values:
      ef->bad_packed |= trak__u64_list_add(&ef->extra_double_values, &f, TRAK_PB_WIRE_FIXED64) < 0;
      break;
    case TRAK_PB_TrackEvent_flow_ids:
      ef->bad_packed |= trak__u64_list_add(&ef->flows, &f, TRAK_PB_WIRE_FIXED64) < 0;
      break;
    case TRAK_PB_TrackEvent_terminating_flow_ids:
      ef->bad_packed |= trak__u64_list_add(&ef->terms, &f, TRAK_PB_WIRE_FIXED64) < 0;
      break;
    case TRAK_PB_TrackEvent_flow_ids_old:
      ef->bad_packed |= trak__u64_list_add(&ef->flows, &f, TRAK_PB_WIRE_VARINT) < 0;
      break;
    case TRAK_PB_TrackEvent_terminating_flow_ids_old:
      ef->bad_packed |= trak__u64_list_add(&ef->terms, &f, TRAK_PB_WIRE_VARINT) < 0;
      break;
    case TRAK_PB_TrackEvent_timestamp_absolute_us:
      ef->abs_us = trak_pb_as_int64(&f), ef->has_abs_us = 1;
      break;
    case TRAK_PB_TrackEvent_timestamp_delta_us:
      ef->delta_us = trak_pb_as_int64(&f), ef->has_delta_us = 1;
      break;
    default:
      rare_field(ef, &f);
      break;
    }
  }
  return rc;
}

int trak__track_event_predecode(const uint8_t *base, const uint8_t *limit, const uint8_t *data,
                                size_t len, trak_te_pre *pre) {
  trak__te_pre_clear(pre);
  if (limit && data >= base && limit - data >= 16 && (size_t)(limit - data) - 16 >= len) {
    int fast = trak__te_predecode_fast(data, data + len, pre);
    if (fast >= 0) return fast;
    trak__te_pre_clear(pre); /* the fast path gave up part way */
  }
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init_in(&dec, data, len, base, limit);
  int rc;
  /* decode_event's assignments, for the fields and wire types taken here; anything else: 0 */
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    if (f.wire_type == TRAK_PB_WIRE_LEN) {
      if (f.number == TRAK_PB_TrackEvent_debug_annotations) {
        if (pre->n_annos == TRAK_TE_PRE_ANNOS) return 0;
        pre->anno_at[pre->n_annos] = (uint32_t)(f.data - data);
        pre->anno_len[pre->n_annos++] = (uint32_t)f.len;
      } else if (f.number == TRAK_PB_TrackEvent_name) {
        pre->name_at = (uint32_t)(f.data - data), pre->name_len = (uint32_t)f.len;
        pre->has_name = 1;
      } else {
        return 0;
      }
      continue;
    }
    switch (f.number) {
    case TRAK_PB_TrackEvent_type:
      pre->type = f.value, pre->has_type = 1;
      break;
    case TRAK_PB_TrackEvent_track_uuid:
      pre->track_uuid = f.value, pre->has_track = 1;
      break;
    case TRAK_PB_TrackEvent_name_iid:
      pre->name_iid = f.value, pre->has_name_iid = 1;
      break;
    case TRAK_PB_TrackEvent_category_iids:
      if (pre->n_cat_iids) return 0;
      pre->cat_iid = f.value, pre->n_cat_iids = 1;
      break;
    case TRAK_PB_TrackEvent_counter_value:
      pre->value = f.value, pre->has_value = 1, pre->value_is_double = 0;
      break;
    case TRAK_PB_TrackEvent_double_counter_value:
      pre->value = f.value, pre->has_value = 1, pre->value_is_double = 1;
      break;
    default:
      return 0;
    }
  }
  return rc == 0;
}

/* The fields of a common event that the decoding thread decoded (trak__track_event_predecode)
** as decode_event would have set them. */
static inline void predecoded(const trak_te_pre *pre, const uint8_t *data, size_t len,
                              event_fields *ef) {
  ef->blob = (trak_span){data, len};
  ef->type = pre->type, ef->has_type = pre->has_type;
  ef->track_uuid = pre->track_uuid, ef->has_track = pre->has_track;
  ef->name_iid = pre->name_iid, ef->has_name_iid = pre->has_name_iid;
  if (pre->has_name) ef->name = (trak_span){data + pre->name_at, pre->name_len};
  ef->cat_iids.v[0] = pre->cat_iid, ef->cat_iids.n = pre->n_cat_iids;
  for (uint32_t i = 0; i < pre->n_annos; i++)
    ef->annos[i] = (trak_span){data + pre->anno_at[i], pre->anno_len[i]};
  ef->n_annos = pre->n_annos;
  if (pre->has_value) {
    ef->has_value = 1, ef->value_is_double = pre->value_is_double;
    if (pre->value_is_double)
      memcpy(&ef->double_value, &pre->value, 8);
    else
      ef->int_value = (int64_t)pre->value;
  }
}

/* Joins several categories with ',' as Perfetto's slice.category does. */
__attribute__((noinline)) static uint32_t categories(trak_importer *imp, trak_sequence *seq,
                                                     const event_fields *ef) {
  char buf[1024];
  size_t n = 0;
  trak_strpool *sp = &imp->tables->strings;
  for (uint32_t i = 0; i < ef->cat_iids.n + ef->n_cats; i++) {
    const char *s;
    size_t len;
    if (i < ef->cat_iids.n) {
      uint32_t id = trak__interned_get(imp, seq, TRAK_INTERN_CATEGORY, ef->cat_iids.v[i]);
      if (!id) continue;
      s = sp->str.v[id], len = sp->len.v[id];
    } else {
      s = (const char *)ef->cats[i - ef->cat_iids.n].data, len = ef->cats[i - ef->cat_iids.n].len;
    }
    if (n + len + 1 >= sizeof buf) break;
    if (n) buf[n++] = ',';
    memcpy(buf + n, s, len);
    n += len;
  }
  return n ? trak__strpool_intern(sp, buf, n) : 0;
}

/* The track of an event with (has_track) or without a track_uuid, typed or not. */
static inline uint32_t track_of(trak_importer *imp, trak_sequence *seq, int has_track,
                                uint64_t track_uuid, int has_type) {
  uint64_t uuid = has_track                ? track_uuid
                  : seq->has_default_track ? seq->default_track_uuid
                                           : 0;
  if (TRAK_UNLIKELY(!uuid)) {
    /* The sequence's thread, unless an explicit track_uuid 0 on a typed event asks for the
    ** global "Default Track" (where events go without a thread too), as in Perfetto. */
    if ((!has_track || !has_type) && seq->thread_track != TRAK_NULL_U32)
      return seq->thread_track;
    return trak__default_track(imp);
  }
  if (TRAK_LIKELY(uuid == seq->last_track_uuid && seq->last_track != TRAK_NULL_U32))
    return seq->last_track;
  seq->last_track_uuid = uuid;
  return seq->last_track = trak__track_for_uuid(imp, uuid);
}

static inline uint32_t resolve_track(trak_importer *imp, trak_sequence *seq,
                                     const event_fields *ef) {
  return track_of(imp, seq, ef->has_track, ef->track_uuid, ef->has_type);
}

uint32_t trak__te_track(trak_importer *imp, trak_sequence *seq, const event_fields *ef) {
  return resolve_track(imp, seq, ef);
}

void trak__te_thread(trak_sequence *seq, const event_fields *ef, trak_te_thread *out) {
  out->has_time = out->has_ic = 0;
  /* a delta moves the sequence's base (saturating, as Perfetto's); an absolute value is a
  ** one-off that leaves it */
  if (ef->extras & TRAK_TE_THREAD_TIME) {
    int64_t ns = trak__sat_mul(ef->thread_time, 1000);
    out->time = ef->thread_time_kind == 1
                    ? (seq->thread_time_ns = trak__sat_add(seq->thread_time_ns, ns))
                    : ns;
    out->has_time = 1;
  }
  if (ef->extras & TRAK_TE_THREAD_IC) {
    out->ic = ef->thread_ic_kind == 1 ? (seq->thread_ic = trak__sat_add(seq->thread_ic, ef->thread_ic))
                                      : ef->thread_ic;
    out->has_ic = 1;
  }
}

uint32_t trak__te_thread_counter(trak_importer *imp, uint32_t utid, int instructions) {
  static const char *const names[] = {"thread_time", "thread_instruction_count"};
  uint32_t track = trak__track_for_uuid(
      imp,
      trak__track_key(instructions ? TRAK_TK_THREAD_INSTRUCTIONS : TRAK_TK_THREAD_TIME, utid, 0));
  trak_track_info *info = &imp->tracks.info.v[track];
  if (!info->described) {
    info->described = info->is_counter = info->is_thread = 1;
    info->kind = instructions ? TRAK_TK_THREAD_INSTRUCTIONS : TRAK_TK_THREAD_TIME;
    info->utid = utid;
    info->upid = imp->tables->thread.upid[utid];
    info->name = trak__strpool_intern(&imp->tables->strings, names[instructions],
                                      strlen(names[instructions]));
    info->counter_type = instructions ? TRAK_PB_CounterDescriptor_COUNTER_THREAD_INSTRUCTION_COUNT
                                      : TRAK_PB_CounterDescriptor_COUNTER_THREAD_TIME_NS;
    trak__tables_thread_time(imp->tables);
  }
  return track;
}

uint32_t trak__te_aux(trak_importer *imp, trak_sequence *seq, const event_fields *ef,
                      const trak_te_thread *th, uint32_t utid) {
  const trak_u64_list *uuids = &ef->extra_uuids, *duuids = &ef->extra_double_uuids;
  trak_u64_list defaults_int, defaults_double;
  if (!uuids->n && ef->extra_values.n && seq->default_extra_uuids.n) {
    defaults_int.n =
        (uint32_t)(seq->default_extra_uuids.n < TRAK_TE_MAX_REPEATED ? seq->default_extra_uuids.n
                                                                     : TRAK_TE_MAX_REPEATED);
    memcpy(defaults_int.v, seq->default_extra_uuids.v, defaults_int.n * 8);
    uuids = &defaults_int;
  }
  if (!duuids->n && ef->extra_double_values.n && seq->default_extra_double_uuids.n) {
    defaults_double.n = (uint32_t)(seq->default_extra_double_uuids.n < TRAK_TE_MAX_REPEATED
                                       ? seq->default_extra_double_uuids.n
                                       : TRAK_TE_MAX_REPEATED);
    memcpy(defaults_double.v, seq->default_extra_double_uuids.v, defaults_double.n * 8);
    duuids = &defaults_double;
  }
  uint32_t n_int = ef->extra_values.n < uuids->n ? ef->extra_values.n : uuids->n;
  uint32_t n_dbl = ef->extra_double_values.n < duuids->n ? ef->extra_double_values.n : duuids->n;
  if (n_int != ef->extra_values.n || n_dbl != ef->extra_double_values.n)
    trak__report(imp, TRAK_STAT_EXTRA_COUNTER_MISMATCH,
                 "%u extra counter values for %u track uuids",
                 ef->extra_values.n + ef->extra_double_values.n, uuids->n + duuids->n);
  uint32_t n_thread = 0;
  uint64_t thread_track[2], thread_value[2];
  if (th && utid != TRAK_NULL_U32) {
    for (int k = 0; k < 2; k++) {
      if (!(k ? th->has_ic : th->has_time)) continue;
      double v = (double)(k ? th->ic : th->time);
      thread_track[n_thread] = trak__te_thread_counter(imp, utid, k);
      memcpy(&thread_value[n_thread++], &v, 8);
    }
  }
  if (!ef->flows.n && !ef->terms.n && !n_int && !n_dbl && !n_thread &&
      !(ef->extras & TRAK_TE_FLOW_V2))
    return 0;
  uint32_t at = (uint32_t)imp->aux.n;
  trak_vec_push(imp->aux, ef->flows.n);
  uint64_t v2 = ef->extras & TRAK_TE_FLOW_V2 ? ef->bind_kind : 0;
  trak_vec_push(imp->aux, (ef->terms.n + (v2 != 0)) | v2 << 32);
  trak_vec_push(imp->aux, n_int + n_dbl + n_thread);
  imp->n_counter_records += n_int + n_dbl + n_thread;
  for (uint32_t i = 0; i < ef->flows.n; i++)
    trak_vec_push(imp->aux, ef->flows.v[i]);
  for (uint32_t i = 0; i < ef->terms.n; i++)
    trak_vec_push(imp->aux, ef->terms.v[i]);
  if (v2) trak_vec_push(imp->aux, ef->bind_id);
  for (uint32_t i = 0; i < n_int + n_dbl; i++) {
    int is_double = i >= n_int;
    uint64_t uuid = is_double ? duuids->v[i - n_int] : uuids->v[i];
    double value;
    if (is_double)
      memcpy(&value, &ef->extra_double_values.v[i - n_int], 8);
    else
      value = (double)(int64_t)ef->extra_values.v[i];
    uint32_t track = trak__track_for_uuid(imp, uuid);
    value = trak__counter_in(imp, seq, track, value);
    uint64_t bits;
    memcpy(&bits, &value, 8);
    trak_vec_push(imp->aux, (uint64_t)track);
    trak_vec_push(imp->aux, bits);
  }
  for (uint32_t i = 0; i < n_thread; i++) {
    trak_vec_push(imp->aux, thread_track[i]);
    trak_vec_push(imp->aux, thread_value[i]);
  }
  return at;
}

/* The record type of a TrackEvent type (0 when absent) that makes a slice or a counter value,
** 0 for any other (TYPE_STATE, none, unknown). */
static inline uint32_t slice_or_counter_type(uint64_t type) {
  switch (type) {
  case TRAK_PB_TrackEvent_TYPE_SLICE_BEGIN:
    return TRAK_EV_BEGIN;
  case TRAK_PB_TrackEvent_TYPE_SLICE_END:
    return TRAK_EV_END;
  case TRAK_PB_TrackEvent_TYPE_INSTANT:
    return TRAK_EV_INSTANT;
  case TRAK_PB_TrackEvent_TYPE_COUNTER:
    return TRAK_EV_COUNTER;
  default:
    return 0;
  }
}

static uint32_t record_type(const event_fields *ef) {
  uint32_t type = slice_or_counter_type(ef->has_type ? ef->type : 0);
  if (type) return type;
  /* a state track's value: state_value() in the parser */
  if (ef->has_type && ef->type == TRAK_PB_TrackEvent_TYPE_STATE) return TRAK_EV_EXTRA_ONLY;
  return ef->extra_values.n || ef->extra_double_values.n ? TRAK_EV_EXTRA_ONLY : 0;
}

static inline uint32_t event_name(trak_importer *imp, trak_sequence *seq, const event_fields *ef) {
  if (ef->has_name_iid) return trak__interned_get(imp, seq, TRAK_INTERN_NAME, ef->name_iid);
  if (ef->name.data)
    return trak__strpool_intern(&imp->tables->strings, (const char *)ef->name.data, ef->name.len);
  return 0;
}

static inline uint32_t event_category(trak_importer *imp, trak_sequence *seq,
                                      const event_fields *ef) {
  if (ef->cat_iids.n == 1 && !ef->n_cats)
    return trak__interned_get(imp, seq, TRAK_INTERN_CATEGORY, ef->cat_iids.v[0]);
  return ef->cat_iids.n || ef->n_cats ? categories(imp, seq, ef) : 0;
}

uint32_t trak__te_name(trak_importer *imp, trak_sequence *seq, const event_fields *ef,
                       uint64_t legacy_iid) {
  if (!ef->has_name_iid && legacy_iid)
    return trak__interned_get(imp, seq, TRAK_INTERN_NAME, legacy_iid);
  return event_name(imp, seq, ef);
}

uint32_t trak__te_category(trak_importer *imp, trak_sequence *seq, const event_fields *ef) {
  return event_category(imp, seq, ef);
}

/* The record of an event with typed arguments or legacy thread times (ev's ts, track and pkt
** set): a log message needs the track's thread, and thread times go to its thread counters. */
__attribute__((noinline)) static void rare_event(trak_importer *imp, trak_sequence *seq,
                                                 const event_fields *ef, trak_ev *ev,
                                                 uint32_t passthrough_utid) {
  const trak_track_info *info = &imp->tracks.info.v[ev->track & TRAK_EV_TRACK_MASK];
  uint32_t utid = info->is_thread ? info->utid : TRAK_NULL_U32;
  if (ev->track >> TRAK_EV_TYPE_SHIFT == TRAK_EV_COUNTER) {
    ev->u.value = trak__counter_in(imp, seq, ev->track & TRAK_EV_TRACK_MASK,
                                   ef->value_is_double ? ef->double_value : (double)ef->int_value);
  } else {
    ev->u.s.name = event_name(imp, seq, ef);
    ev->u.s.cat = event_category(imp, seq, ef);
  }
  /* A counter value gets the event's args as a slice does (Perfetto parses both alike). */
  trak_te_args_extra x = {
      utid, passthrough_utid == TRAK_PASSTHROUGH_PENDING ? TRAK_NULL_U32 : passthrough_utid,
      0,    0,
      0,    ev->ts};
  ev->arg_set_id = trak__te_args(imp, seq, ef, &x);
  trak_te_thread th;
  trak__te_thread(seq, ef, &th);
  ev->aux = trak__te_aux(imp, seq, ef, &th, utid);
  if (ef->extras & TRAK_TE_CALLSTACK && ev->track >> TRAK_EV_TYPE_SHIFT != TRAK_EV_COUNTER)
    trak__callstack_event(imp, seq, ev,
                          utid != TRAK_NULL_U32 ? imp->tables->thread.upid[utid] : info->upid,
                          ef->callstack.data ? &ef->callstack : NULL, ef->callstack_iid,
                          ef->has_callstack_weight, ef->callstack_weight);
}

static inline void push_event(trak_importer *imp, trak_sequence *seq, trak_ev *ev) {
  trak_track_info *info = &imp->tracks.info.v[ev->track & TRAK_EV_TRACK_MASK];
  if (TRAK_UNLIKELY(ev->ts < info->last_file_ts) && info->last_seq == seq->id)
    trak__report(imp, TRAK_STAT_DECREASING_TS,
                 "timestamp %lld is before the previous event's %lld on track uuid %llu",
                 (long long)ev->ts, (long long)info->last_file_ts, (unsigned long long)info->uuid);
  info->last_file_ts = ev->ts;
  info->last_seq = seq->id;
  trak__sequence_push(imp, seq, ev);
}

/* The event's GpuCorrelation (packet `pkt`): the render stage ids it submitted and waited on,
** noted for the flows to those stages (import/gpu_flows.c). */
__attribute__((noinline, cold)) static void gpu_correlation(trak_importer *imp,
                                                            const trak_span *gpu, uint32_t pkt) {
  trak_u64_vec sub = {0}, wait = {0};
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, gpu->data, gpu->len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_GpuCorrelation_render_stage_submission_event_ids)
      (void)trak__pb_push_varints(&f, &sub);
    else if (f.number == TRAK_PB_GpuCorrelation_render_stage_wait_event_ids)
      (void)trak__pb_push_varints(&f, &wait);
  }
  trak__gpu_flows_note_event(imp, pkt, sub.v, sub.n, wait.v, wait.n);
  trak_vec_free(sub);
  trak_vec_free(wait);
}

void trak__te_push(trak_importer *imp, trak_sequence *seq, trak_ev *ev) {
  push_event(imp, seq, ev);
}

/* The legacy timestamp_delta_us / timestamp_absolute_us, which are CLOCK_MONOTONIC
** microseconds (a delta from the sequence's last delta-based time; an absolute one does not
** move that base), as Perfetto reads them: in nanoseconds, each step saturating. Returns -1
** (counted) for a negative time: drop. */
__attribute__((noinline)) static int legacy_timestamp(trak_importer *imp, trak_sequence *seq,
                                                      const event_fields *ef, int64_t *ts) {
  int64_t ns;
  if (ef->has_delta_us && !seq->timestamps_valid) {
    trak__report(imp, TRAK_STAT_DELTA_WITHOUT_STATE,
                 "timestamp_delta_us on sequence %u without a valid thread_descriptor; dropped",
                 seq->id);
    return -1;
  }
  if (ef->has_delta_us)
    ns = seq->last_event_ns = trak__sat_add(seq->last_event_ns, trak__sat_mul(ef->delta_us, 1000));
  else
    ns = trak__sat_mul(ef->abs_us, 1000);
  if (ns < 0) {
    trak__report(imp, TRAK_STAT_INVALID_TIMESTAMP, "track_event time %lld ns is negative; dropped",
                 (long long)ns);
    return -1;
  }
  *ts = trak__clock_try_convert(imp, seq, TRAK_PB_BUILTIN_CLOCK_MONOTONIC, ns);
  return 0;
}

/* An event with unknown fields or legacy_event fields: counts the unknown ones, and imports
** the legacy ones (trak__legacy_event_tokenize). A TYPE_STATE event with legacy_event fields
** gets a legacy (thread) track, never a state track, so it is dropped as Perfetto drops it.
** Returns 1 when the event is done with. */
__attribute__((noinline)) static int unknown_or_legacy(trak_importer *imp, trak_sequence *seq,
                                                       event_fields *ef, int64_t ts) {
  if (ef->extras & TRAK_TE_UNKNOWN) {
    imp->stats[TRAK_STAT_PROTO_UNKNOWN_FIELD] += ef->unknown_fields;
    imp->stats[TRAK_STAT_UNKNOWN_EXTENSION_FIELDS] += ef->unknown_fields;
  }
  if (!(ef->extras & TRAK_TE_LEGACY)) return 0;
  if (ef->has_type && ef->type == TRAK_PB_TrackEvent_TYPE_STATE) {
    trak__report(imp, TRAK_STAT_BAD_TYPE,
                 "TYPE_STATE track_event with legacy_event fields, "
                 "whose track is not a state track; dropped");
    return 1;
  }
  return trak__legacy_event_tokenize(imp, seq, ef, ts);
}

/* The event the decoding thread predecoded (so it has only the fields trak_te_pre holds: no
** rare field, list or legacy timestamp) when it is a slice event or a counter value on a track
** that names no passthrough thread: its record is pushed straight from `pre`, as the generic
** path below would push it, without filling an event_fields. Returns 0, having done and
** reported nothing, for any other event, which the generic path then takes. */
static inline int pre_event(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                            const trak_te_pre *pre) {
  trak_sequence *seq = ctx->seq;
  uint32_t type = slice_or_counter_type(pre->has_type ? pre->type : 0);
  if (TRAK_UNLIKELY(!type)) return 0;
  uint32_t track = track_of(imp, seq, pre->has_track, pre->track_uuid, pre->has_type);
  if (TRAK_UNLIKELY(track == TRAK_NULL_U32 ||
                    (seq->thread_track != TRAK_NULL_U32 && track != seq->thread_track)))
    return 0;
  trak_ev ev;
  ev.ts = ctx->has_ts ? ctx->ts : 0;
  ev.track = type << TRAK_EV_TYPE_SHIFT | track;
  ev.pkt = (uint32_t)imp->packet_index;
  ev.arg_set_id = TRAK_NULL_U32;
  ev.aux = 0;
  if (type == TRAK_EV_COUNTER) {
    double v = 0;
    if (pre->has_value && pre->value_is_double)
      memcpy(&v, &pre->value, 8);
    else if (pre->has_value)
      v = (double)(int64_t)pre->value;
    ev.u.value = trak__counter_in(imp, seq, track, v);
  } else {
    ev.u.s.name = pre->has_name_iid
                      ? trak__interned_get(imp, seq, TRAK_INTERN_NAME, pre->name_iid)
                  : pre->has_name ? trak__strpool_intern(&imp->tables->strings,
                                                         (const char *)data + pre->name_at,
                                                         pre->name_len)
                                  : 0;
    ev.u.s.cat =
        pre->n_cat_iids ? trak__interned_get(imp, seq, TRAK_INTERN_CATEGORY, pre->cat_iid) : 0;
  }
  if (pre->n_annos) {
    trak_span annos[TRAK_TE_PRE_ANNOS];
    for (uint32_t i = 0; i < pre->n_annos; i++)
      annos[i] = (trak_span){data + pre->anno_at[i], pre->anno_len[i]};
    ev.arg_set_id = trak__debug_args_add(imp, seq, annos, pre->n_annos);
  }
  push_event(imp, seq, &ev);
  return 1;
}

void trak__track_event_tokenize(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                                size_t len, const trak_te_pre *pre) {
  event_fields ef;
  /* Only the counters of the lists need zeroing; the arrays are filled before being read, and
  ** the rare fields only when their `extras` bit is set. */
  memset(&ef, 0, offsetof(event_fields, cat_iids));
  ef.cat_iids.n = ef.flows.n = ef.terms.n = ef.extra_uuids.n = ef.extra_values.n = 0;
  ef.extra_double_uuids.n = ef.extra_double_values.n = 0;
  ef.cat_iids.overflow = ef.flows.overflow = ef.terms.overflow = 0;
  ef.n_cats = ef.n_annos = 0;
  trak_sequence *seq = ctx->seq;
  if (pre)
    predecoded(pre, data, len, &ef);
  else if (decode_event(imp, data, len, &ef) < 0)
    trak__report(imp, TRAK_STAT_PACKET_MALFORMED, "track_event fields do not decode");
  else if (TRAK_UNLIKELY(ef.bad_packed))
    trak__report(
        imp, TRAK_STAT_PACKET_MALFORMED,
        "a packed repeated field of %s does not decode; the values before the bad one were kept",
        "track_event");

  int64_t ts = ctx->ts;
  if (TRAK_UNLIKELY(ef.has_abs_us | ef.has_delta_us)) {
    if (legacy_timestamp(imp, seq, &ef, &ts)) return;
  } else if (!ctx->has_ts) {
    ts = 0;
  }

  if (TRAK_UNLIKELY(ef.extras & (TRAK_TE_LEGACY | TRAK_TE_UNKNOWN)) &&
      unknown_or_legacy(imp, seq, &ef, ts))
    return;
  uint32_t type = record_type(&ef);
  if (!type) {
    trak__report(imp, TRAK_STAT_BAD_TYPE, "track_event has type %llu, which trak does not import",
                 (unsigned long long)ef.type);
    return;
  }
  uint32_t track = TRAK_UNLIKELY(ef.extras & TRAK_TE_LEGACY_TRACK) ? ef.legacy_track
                                                                   : resolve_track(imp, seq, &ef);
  if (track == TRAK_NULL_U32) {
    trak__report(imp, TRAK_STAT_NO_TRACK,
                 "track_event has no track_uuid, its sequence %u no default track and no thread",
                 seq->id);
    return;
  }
  if (TRAK_UNLIKELY(type == TRAK_EV_EXTRA_ONLY) && ef.type == TRAK_PB_TrackEvent_TYPE_STATE &&
      !imp->tracks.info.v[track].is_state) {
    trak__report(imp, TRAK_STAT_BAD_TYPE,
                 "TYPE_STATE track_event on track uuid %llu, which is "
                 "not a state track; dropped",
                 (unsigned long long)imp->tracks.info.v[track].uuid);
    return;
  }

  trak_ev ev;
  ev.ts = ts;
  ev.track = type << TRAK_EV_TYPE_SHIFT | track;
  ev.pkt = (uint32_t)imp->packet_index;
  ev.arg_set_id = TRAK_NULL_U32;
  /* An event on a process or global track from a sequence with a thread names that thread in
  ** legacy_event.passthrough_utid, as Perfetto's importer does. */
  uint32_t passthrough =
      TRAK_UNLIKELY(seq->thread_track != TRAK_NULL_U32 && track != seq->thread_track)
          ? trak__passthrough_utid(imp, seq, track)
          : TRAK_NULL_U32;
  if (TRAK_UNLIKELY(ef.extras | (passthrough != TRAK_NULL_U32))) {
    rare_event(imp, seq, &ef, &ev, passthrough);
  } else {
    if (type == TRAK_EV_COUNTER) {
      ev.u.value = trak__counter_in(imp, seq, track,
                                    ef.value_is_double ? ef.double_value : (double)ef.int_value);
    } else {
      ev.u.s.name = event_name(imp, seq, &ef);
      ev.u.s.cat = event_category(imp, seq, &ef);
    }
    if (ef.n_annos) ev.arg_set_id = trak__debug_args_add(imp, seq, ef.annos, ef.n_annos);
    ev.aux = TRAK_UNLIKELY(ef.flows.n | ef.terms.n | ef.extra_values.n | ef.extra_double_values.n)
                 ? trak__te_aux(imp, seq, &ef, NULL, TRAK_NULL_U32)
                 : 0;
  }
  push_event(imp, seq, &ev);
  if (TRAK_UNLIKELY(ef.extras & TRAK_TE_GPU)) gpu_correlation(imp, &ef.gpu, ev.pkt);
  if (TRAK_UNLIKELY(passthrough == TRAK_PASSTHROUGH_PENDING))
    trak__passthrough_defer(imp, seq, track);
}

void trak__track_event_tokenize_pre(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                                    size_t len, const trak_te_pre *pre) {
  if (!pre_event(imp, ctx, data, pre)) trak__track_event_tokenize(imp, ctx, data, len, pre);
}
