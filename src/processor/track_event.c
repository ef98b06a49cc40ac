/*
** This file holds the tokenization of TrackEvent payloads into 32-byte event records: the
** track (explicit uuid, sequence default, or the writer's thread), name and categories from
** interned ids or inline strings, debug annotations into args, counter values, extra counters
** and flow ids (kept in imp->aux for the parse phase). This is the importer's hot path.
*/
#include <stddef.h>
#include <string.h>

#include "processor/import.h"

#define MAX_REPEATED 64 /* flow ids, categories, extra counters per event */
#define MAX_ANNOTATIONS 256

typedef struct u64_list {
  uint64_t v[MAX_REPEATED];
  uint32_t n;
  uint8_t overflow;
} u64_list;

typedef struct event_fields {
  uint64_t type, track_uuid, name_iid;
  uint8_t has_type, has_track, has_name_iid, has_value, value_is_double, has_abs_us, has_delta_us;
  int64_t int_value, abs_us, delta_us;
  double double_value;
  trak_span name;
  u64_list cat_iids, flows, terms, extra_uuids, extra_values, extra_double_uuids,
      extra_double_values;
  trak_span cats[8];
  uint32_t n_cats;
  trak_span annos[MAX_ANNOTATIONS];
  uint32_t n_annos;
  uint64_t source_location_iid, correlation_iid, log_body_iid;
} event_fields;

/* Appends a repeated scalar, accepting both packed and unpacked encodings. */
static void list_add(u64_list *l, const trak_pb_field *f, uint32_t packed_wire_type) {
  if (f->wire_type != TRAK_PB_WIRE_LEN) {
    if (l->n < MAX_REPEATED)
      l->v[l->n++] = f->value;
    else
      l->overflow = 1;
    return;
  }
  trak_pb_packed it;
  uint64_t v;
  trak_pb_packed_init(&it, f, packed_wire_type);
  while (trak_pb_packed_next(&it, &v) > 0) {
    if (l->n < MAX_REPEATED)
      l->v[l->n++] = v;
    else
      l->overflow = 1;
  }
}

static int decode_event(const trak_importer *imp, const uint8_t *data, size_t len,
                        event_fields *ef) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
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
      list_add(&ef->cat_iids, &f, TRAK_PB_WIRE_VARINT);
      break;
    case TRAK_PB_TrackEvent_categories:
      if (f.wire_type == TRAK_PB_WIRE_LEN && ef->n_cats < 8)
        ef->cats[ef->n_cats++] = (trak_span){f.data, f.len};
      break;
    case TRAK_PB_TrackEvent_debug_annotations:
      if (f.wire_type == TRAK_PB_WIRE_LEN && ef->n_annos < MAX_ANNOTATIONS)
        ef->annos[ef->n_annos++] = (trak_span){f.data, f.len};
      break;
    case TRAK_PB_TrackEvent_counter_value:
      ef->int_value = trak_pb_as_int64(&f), ef->has_value = 1, ef->value_is_double = 0;
      break;
    case TRAK_PB_TrackEvent_double_counter_value:
      ef->double_value = trak_pb_as_double(&f), ef->has_value = 1, ef->value_is_double = 1;
      break;
    case TRAK_PB_TrackEvent_extra_counter_track_uuids:
      list_add(&ef->extra_uuids, &f, TRAK_PB_WIRE_VARINT);
      break;
    case TRAK_PB_TrackEvent_extra_counter_values:
      list_add(&ef->extra_values, &f, TRAK_PB_WIRE_VARINT);
      break;
    case TRAK_PB_TrackEvent_extra_double_counter_track_uuids:
      list_add(&ef->extra_double_uuids, &f, TRAK_PB_WIRE_VARINT);
      break;
    case TRAK_PB_TrackEvent_extra_double_counter_values:
      list_add(&ef->extra_double_values, &f, TRAK_PB_WIRE_FIXED64);
      break;
    case TRAK_PB_TrackEvent_flow_ids:
      list_add(&ef->flows, &f, TRAK_PB_WIRE_FIXED64);
      break;
    case TRAK_PB_TrackEvent_terminating_flow_ids:
      list_add(&ef->terms, &f, TRAK_PB_WIRE_FIXED64);
      break;
    case TRAK_PB_TrackEvent_flow_ids_old:
      list_add(&ef->flows, &f, TRAK_PB_WIRE_VARINT);
      break;
    case TRAK_PB_TrackEvent_terminating_flow_ids_old:
      list_add(&ef->terms, &f, TRAK_PB_WIRE_VARINT);
      break;
    case TRAK_PB_TrackEvent_timestamp_absolute_us:
      ef->abs_us = trak_pb_as_int64(&f), ef->has_abs_us = 1;
      break;
    case TRAK_PB_TrackEvent_timestamp_delta_us:
      ef->delta_us = trak_pb_as_int64(&f), ef->has_delta_us = 1;
      break;
    case TRAK_PB_TrackEvent_source_location_iid:
      ef->source_location_iid = f.value;
      break;
    case TRAK_PB_TrackEvent_correlation_id_str_iid:
      ef->correlation_iid = f.value;
      break;
    case TRAK_PB_TrackEvent_log_message:
      if (f.wire_type == TRAK_PB_WIRE_LEN) {
        trak_pb_decoder sub;
        trak_pb_field g;
        trak__dec_init(imp, &sub, f.data, f.len);
        while (trak_pb_decoder_next(&sub, &g) > 0)
          if (g.number == TRAK_PB_LogMessage_body_iid) ef->log_body_iid = g.value;
      }
      break;
    default:
      break;
    }
  }
  return rc;
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

static uint32_t resolve_track(trak_importer *imp, trak_sequence *seq, const event_fields *ef) {
  uint64_t uuid = ef->has_track ? ef->track_uuid : 0;
  if (!uuid && seq->has_default_track) uuid = seq->default_track_uuid;
  if (!uuid) return seq->thread_track;
  if (TRAK_LIKELY(uuid == seq->last_track_uuid && seq->last_track != TRAK_NULL_U32))
    return seq->last_track;
  seq->last_track_uuid = uuid;
  return seq->last_track = trak__track_for_uuid(imp, uuid);
}

/* Packs flows and extra counters into imp->aux; returns the index (0 when none). */
static uint32_t aux_add(trak_importer *imp, trak_sequence *seq, const event_fields *ef) {
  const u64_list *uuids = &ef->extra_uuids, *duuids = &ef->extra_double_uuids;
  u64_list defaults_int, defaults_double;
  if (!uuids->n && ef->extra_values.n && seq->default_extra_uuids.n) {
    defaults_int.n =
        (uint32_t)(seq->default_extra_uuids.n < MAX_REPEATED ? seq->default_extra_uuids.n
                                                             : MAX_REPEATED);
    memcpy(defaults_int.v, seq->default_extra_uuids.v, defaults_int.n * 8);
    uuids = &defaults_int;
  }
  if (!duuids->n && ef->extra_double_values.n && seq->default_extra_double_uuids.n) {
    defaults_double.n = (uint32_t)(seq->default_extra_double_uuids.n < MAX_REPEATED
                                       ? seq->default_extra_double_uuids.n
                                       : MAX_REPEATED);
    memcpy(defaults_double.v, seq->default_extra_double_uuids.v, defaults_double.n * 8);
    duuids = &defaults_double;
  }
  uint32_t n_int = ef->extra_values.n < uuids->n ? ef->extra_values.n : uuids->n;
  uint32_t n_dbl = ef->extra_double_values.n < duuids->n ? ef->extra_double_values.n : duuids->n;
  if (n_int != ef->extra_values.n || n_dbl != ef->extra_double_values.n)
    trak__report(imp, TRAK_STAT_EXTRA_COUNTER_MISMATCH,
                 "%u extra counter values for %u track uuids",
                 ef->extra_values.n + ef->extra_double_values.n, uuids->n + duuids->n);
  if (!ef->flows.n && !ef->terms.n && !n_int && !n_dbl) return 0;
  uint32_t at = (uint32_t)imp->aux.n;
  trak_vec_push(imp->aux, ef->flows.n);
  trak_vec_push(imp->aux, ef->terms.n);
  trak_vec_push(imp->aux, n_int + n_dbl);
  imp->n_counter_records += n_int + n_dbl;
  for (uint32_t i = 0; i < ef->flows.n; i++)
    trak_vec_push(imp->aux, ef->flows.v[i]);
  for (uint32_t i = 0; i < ef->terms.n; i++)
    trak_vec_push(imp->aux, ef->terms.v[i]);
  for (uint32_t i = 0; i < n_int + n_dbl; i++) {
    int is_double = i >= n_int;
    uint64_t uuid = is_double ? duuids->v[i - n_int] : uuids->v[i];
    double value = is_double ? 0 : (double)(int64_t)ef->extra_values.v[i];
    uint64_t bits;
    if (is_double)
      bits = ef->extra_double_values.v[i - n_int];
    else
      memcpy(&bits, &value, 8);
    trak_vec_push(imp->aux, (uint64_t)trak__track_for_uuid(imp, uuid));
    trak_vec_push(imp->aux, bits);
  }
  return at;
}

static uint32_t record_type(const event_fields *ef) {
  switch (ef->has_type ? ef->type : 0) {
  case TRAK_PB_TrackEvent_TYPE_SLICE_BEGIN:
    return TRAK_EV_BEGIN;
  case TRAK_PB_TrackEvent_TYPE_SLICE_END:
    return TRAK_EV_END;
  case TRAK_PB_TrackEvent_TYPE_INSTANT:
    return TRAK_EV_INSTANT;
  case TRAK_PB_TrackEvent_TYPE_COUNTER:
    return TRAK_EV_COUNTER;
  default:
    return ef->extra_values.n || ef->extra_double_values.n ? TRAK_EV_EXTRA_ONLY : 0;
  }
}

/* Looks up the interned ids an event references only to validate them. */
static void check_other_iids(trak_importer *imp, trak_sequence *seq, const event_fields *ef) {
  if (ef->source_location_iid)
    trak__interned_get(imp, seq, TRAK_INTERN_SOURCE_LOCATION, ef->source_location_iid);
  if (ef->correlation_iid)
    trak__interned_get(imp, seq, TRAK_INTERN_CORRELATION, ef->correlation_iid);
  if (ef->log_body_iid) trak__interned_get(imp, seq, TRAK_INTERN_LOG_BODY, ef->log_body_iid);
}

void trak__track_event_tokenize(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                                size_t len) {
  event_fields ef;
  /* Only the counters of the lists need zeroing; the arrays are filled before being read. */
  memset(&ef, 0, offsetof(event_fields, cat_iids));
  ef.cat_iids.n = ef.flows.n = ef.terms.n = ef.extra_uuids.n = ef.extra_values.n = 0;
  ef.extra_double_uuids.n = ef.extra_double_values.n = 0;
  ef.cat_iids.overflow = ef.flows.overflow = ef.terms.overflow = 0;
  ef.n_cats = ef.n_annos = 0;
  ef.source_location_iid = ef.correlation_iid = ef.log_body_iid = 0;
  trak_sequence *seq = ctx->seq;
  if (decode_event(imp, data, len, &ef) < 0)
    trak__report(imp, TRAK_STAT_PACKET_MALFORMED, "track_event fields do not decode");

  int64_t ts = ctx->ts;
  if (ef.has_abs_us)
    ts = trak__wmul(ef.abs_us, 1000), seq->last_event_us = ef.abs_us;
  else if (ef.has_delta_us)
    seq->last_event_us = trak__wadd(seq->last_event_us, ef.delta_us),
    ts = trak__wmul(seq->last_event_us, 1000);
  else if (!ctx->has_ts)
    ts = 0;

  uint32_t type = record_type(&ef);
  if (!type) {
    trak__report(imp, TRAK_STAT_BAD_TYPE, "track_event has type %llu, which trak does not import",
                 (unsigned long long)ef.type);
    return;
  }
  uint32_t track = resolve_track(imp, seq, &ef);
  if (track == TRAK_NULL_U32) {
    trak__report(imp, TRAK_STAT_NO_TRACK,
                 "track_event has no track_uuid, its sequence %u no default track and no thread",
                 seq->id);
    return;
  }
  trak_track_info *info = &imp->tracks.v[track];
  if (TRAK_UNLIKELY(ts < info->last_file_ts) && info->last_seq == seq->id)
    trak__report(imp, TRAK_STAT_DECREASING_TS,
                 "timestamp %lld is before the previous event's %lld on track uuid %llu",
                 (long long)ts, (long long)info->last_file_ts, (unsigned long long)info->uuid);
  info->last_file_ts = ts;
  info->last_seq = seq->id;

  trak_ev ev;
  ev.ts = ts;
  ev.track = type << TRAK_EV_TYPE_SHIFT | track;
  ev.pkt = (uint32_t)imp->packet_index;
  ev.arg_set_id = TRAK_NULL_U32;
  if (type == TRAK_EV_COUNTER) {
    ev.u.value = ef.value_is_double ? ef.double_value : (double)ef.int_value;
  } else {
    ev.u.s.name = 0;
    if (ef.has_name_iid)
      ev.u.s.name = trak__interned_get(imp, seq, TRAK_INTERN_NAME, ef.name_iid);
    else if (ef.name.data)
      ev.u.s.name =
          trak__strpool_intern(&imp->tables->strings, (const char *)ef.name.data, ef.name.len);
    if (ef.cat_iids.n == 1 && !ef.n_cats)
      ev.u.s.cat = trak__interned_get(imp, seq, TRAK_INTERN_CATEGORY, ef.cat_iids.v[0]);
    else
      ev.u.s.cat = ef.cat_iids.n || ef.n_cats ? categories(imp, seq, &ef) : 0;
    if (ef.n_annos) ev.arg_set_id = trak__debug_args_add(imp, seq, ef.annos, ef.n_annos);
  }
  if (TRAK_UNLIKELY(ef.source_location_iid | ef.correlation_iid | ef.log_body_iid))
    check_other_iids(imp, seq, &ef);
  ev.aux = TRAK_UNLIKELY(ef.flows.n | ef.terms.n | ef.extra_values.n | ef.extra_double_values.n)
               ? aux_add(imp, seq, &ef)
               : 0;
  trak__sequence_push(imp, seq, &ev);
}
