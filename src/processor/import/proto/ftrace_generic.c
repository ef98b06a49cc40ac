/*
** This file imports self-describing ftrace events as Perfetto's trace processor does: an event
** the recorder has no compiled message for (traced_probes writes them with
** denser_generic_event_encoding, e.g. mmap_lock's) is FtraceEvent field 65536 or above, and
** the bundle's generic_event_descriptors give that field's event name and its fields' names
** and types. Each event becomes an ftrace_event row named by its descriptor, its fields args
** keyed and typed as a compiled event's would be. A descriptor holds for the whole trace (the
** first one of a field number wins); an event or field it does not describe is counted in
** ftrace_generic_descriptor_errors and skipped. An event whose fields follow Perfetto's kernel
** track event convention (track_event_type and slice_name: a slice; counter_value: a counter;
** optional track_name and scope_tgid / scope_cpu / scope_*) also becomes a slice or counter on
** a track of its own (the sink's trak__kernel_track_event).
*/
#include <stdlib.h>
#include <string.h>

#include "pb/schema.h"
#include "processor/import/ftrace/ftrace.h"
#include "processor/import/proto/proto.h"

#define MAX_FIELDS 32 /* Perfetto refuses a descriptor of a field numbered 32 or more */

/* The fields of an event that follows the kernel track event convention (0: none). */
typedef struct fg_kte {
  uint8_t kind;        /* 0 not such an event, 1 a slice, 2 a counter */
  uint8_t scope;       /* enum trak_kte_scope */
  uint8_t type_field;  /* track_event_type: 'B', 'E' or 'I' */
  uint8_t name_field;  /* slice_name */
  uint8_t value_field; /* counter_value */
  uint8_t track_field; /* track_name (default: the event's name) */
  uint8_t scope_field; /* scope_tgid, scope_cpu or scope_<anything> */
} fg_kte;

typedef struct fg_event {
  uint32_t number; /* the FtraceEvent field */
  uint32_t name;   /* string id */
  uint32_t key[MAX_FIELDS];
  uint8_t type[MAX_FIELDS]; /* enum trak_pb_type, 0: no such field */
  fg_kte kte;
} fg_event;

struct trak_ftrace_generic {
  TRAK_VEC(fg_event) events;
  trak_map by_number; /* FtraceEvent field -> index in events */
};

static struct trak_ftrace_generic *fg_get(trak_importer *imp) {
  if (TRAK_LIKELY(imp->ftrace_generic != NULL)) return imp->ftrace_generic;
  struct trak_ftrace_generic *g = calloc(1, sizeof *g);
  if (!g) abort();
  imp->ftrace_generic = g;
  return g;
}

void trak__ftrace_generic_free(trak_importer *imp) {
  struct trak_ftrace_generic *g = imp->ftrace_generic;
  if (!g) return;
  trak_vec_free(g->events);
  trak__map_free(&g->by_number);
  free(g);
  imp->ftrace_generic = NULL;
}

static uint32_t intern(trak_importer *imp, const trak_pb_field *f) {
  return trak__strpool_intern(&imp->tables->strings, (const char *)f->data, f->len);
}

/* One FieldDescriptorProto into `ev`; returns 0 when Perfetto refuses the whole descriptor (a
** field numbered past MAX_FIELDS, or a type past sint64). */
static int field_add(trak_importer *imp, fg_event *ev, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f, name = {0};
  name.data = (const uint8_t *)"";
  uint64_t number = 0, type = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_FieldDescriptorProto_name && f.wire_type == TRAK_PB_WIRE_LEN)
      name = f;
    else if (f.number == TRAK_PB_FieldDescriptorProto_number && f.wire_type == TRAK_PB_WIRE_VARINT)
      number = (uint32_t)f.value; /* an int32: a negative one is past the limit too */
    else if (f.number == TRAK_PB_FieldDescriptorProto_type && f.wire_type == TRAK_PB_WIRE_VARINT)
      type = (uint32_t)f.value;
  }
  if (number >= MAX_FIELDS || type > TRAK_PB_TYPE_SINT64) {
    trak__report(imp, TRAK_STAT_FTRACE_GENERIC_DESCRIPTOR_ERRORS,
                 "self-describing ftrace event descriptor with a field numbered %llu of type "
                 "%llu; the event is not described",
                 (unsigned long long)number, (unsigned long long)type);
    return 0;
  }
  ev->key[number] = intern(imp, &name);
  ev->type[number] = (uint8_t)type;
  return 1;
}

/* Whether `type` is a plain varint type (Perfetto's IsSimpleVarint). */
static int simple_varint(uint8_t type) {
  return type == TRAK_PB_TYPE_INT64 || type == TRAK_PB_TYPE_UINT64 || type == TRAK_PB_TYPE_INT32 ||
         type == TRAK_PB_TYPE_UINT32;
}

/* Whether the key (string id) of a field is the text `name`. */
static int key_is(trak_importer *imp, uint32_t key, const char *name) {
  const char *k = trak__str(&imp->tables->strings, key);
  return k && !strcmp(k, name);
}

/* Perfetto's MatchTrackEventTemplate: whether the event's fields, by name and type, make it a
** kernel track event; ev->kte says which fields do what. Field names are tried in Perfetto's
** order, the first that fits a field wins, and a later field of the same role replaces an
** earlier one. */
static void kte_match(trak_importer *imp, fg_event *ev) {
  fg_kte k = {0};
  for (uint8_t f = 1; f < MAX_FIELDS; f++) {
    uint32_t key = ev->key[f];
    uint8_t type = ev->type[f];
    if (!type) continue;
    if (simple_varint(type) && key_is(imp, key, "track_event_type"))
      k.type_field = f;
    else if (type == TRAK_PB_TYPE_STRING && key_is(imp, key, "slice_name"))
      k.name_field = f;
    else if (type == TRAK_PB_TYPE_STRING && key_is(imp, key, "track_name"))
      k.track_field = f;
    else if (simple_varint(type) && key_is(imp, key, "counter_value"))
      k.value_field = f;
    else if (simple_varint(type) && key_is(imp, key, "scope_tgid"))
      k.scope_field = f, k.scope = TRAK_KTE_PROCESS;
    else if (simple_varint(type) && key_is(imp, key, "scope_cpu"))
      k.scope_field = f, k.scope = TRAK_KTE_CPU;
    else if (simple_varint(type) && key &&
             !strncmp(trak__str(&imp->tables->strings, key), "scope_", 6))
      k.scope_field = f, k.scope = TRAK_KTE_CUSTOM;
  }
  if (k.type_field && k.name_field)
    k.kind = 1;
  else if (k.value_field)
    k.kind = 2;
  ev->kte = k;
}

void trak__ftrace_generic_descriptor(trak_importer *imp, const uint8_t *data, size_t len) {
  struct trak_ftrace_generic *g = fg_get(imp);
  trak_pb_decoder dec, sub;
  trak_pb_field f, d;
  uint32_t number = 0;
  trak_pb_field desc = {0};
  desc.data = (const uint8_t *)"";
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_FtraceEventBundle_GenericEventDescriptor_field_id &&
        f.wire_type == TRAK_PB_WIRE_VARINT)
      number = (uint32_t)f.value;
    else if (f.number == TRAK_PB_FtraceEventBundle_GenericEventDescriptor_event_descriptor &&
             f.wire_type == TRAK_PB_WIRE_LEN)
      desc = f;
  }
  if (trak__map_get(&g->by_number, number)) return; /* the first one holds */
  fg_event ev;
  memset(&ev, 0, sizeof ev);
  ev.number = number;
  trak_pb_field name = {0};
  name.data = (const uint8_t *)"";
  trak__dec_init(imp, &sub, desc.data, desc.len);
  while (trak_pb_decoder_next(&sub, &d) > 0) {
    if (d.wire_type != TRAK_PB_WIRE_LEN) continue;
    if (d.number == TRAK_PB_DescriptorProto_name)
      name = d;
    else if (d.number == TRAK_PB_DescriptorProto_field && !field_add(imp, &ev, d.data, d.len))
      return;
  }
  ev.name = intern(imp, &name);
  kte_match(imp, &ev);
  int added;
  *trak__map_put(&g->by_number, number, 0, &added) = (uint32_t)g->events.n;
  trak_vec_push(g->events, ev);
}

/* The first field `number` of the event's payload into *out; 0 when there is none (a payload
** that does not decode ends the search, as protozero's FindField). */
static int field_find(trak_importer *imp, const trak_pb_field *e, uint8_t number,
                      trak_pb_field *out) {
  if (e->wire_type != TRAK_PB_WIRE_LEN) return 0;
  trak_pb_decoder dec;
  trak__dec_init(imp, &dec, e->data, e->len);
  while (trak_pb_decoder_next(&dec, out) > 0)
    if (out->number == number) return 1;
  return 0;
}

/* An integer field (a varint or fixed one; a LEN one does not count: Perfetto would read its
** address) into *v. */
static int field_int(trak_importer *imp, const trak_pb_field *e, uint8_t number, int64_t *v) {
  trak_pb_field f;
  if (!field_find(imp, e, number, &f) || f.wire_type == TRAK_PB_WIRE_LEN) return 0;
  *v = (int64_t)f.value;
  return 1;
}

/* A string field as a string id (one not of LEN wire type reads as "", as Perfetto reads it). */
static int field_str(trak_importer *imp, const trak_pb_field *e, uint8_t number, uint32_t *id) {
  trak_pb_field f;
  if (!field_find(imp, e, number, &f)) return 0;
  if (f.wire_type != TRAK_PB_WIRE_LEN) f.data = (const uint8_t *)"", f.len = 0;
  *id = intern(imp, &f);
  return 1;
}

/* Perfetto's MaybeParseAsTrackEvent, the values it reads here and the rest queued for the sink:
** the track's name (its field, else the event's name), the scope, then the slice's type and
** name or the counter's value. A field missing before the track is known counts
** kernel_trackevent_format_error with no track; after it, the track is made all the same. */
static void kte_event(trak_importer *imp, const fg_event *ev, uint32_t cpu, int64_t ts,
                      uint32_t tid, const trak_pb_field *e) {
  const fg_kte *k = &ev->kte;
  trak_kte v = {
      .scope = k->scope, .counter = k->kind == 2, .tracepoint = ev->name, .track_name = ev->name};
  int64_t scope = 0;
  if ((k->track_field && !field_str(imp, e, k->track_field, &v.track_name)) ||
      (k->scope_field && !field_int(imp, e, k->scope_field, &scope))) {
    v.what = TRAK_KTE_NO_TRACK;
  } else if (v.counter) {
    v.what = field_int(imp, e, k->value_field, &v.value) ? TRAK_KTE_COUNTER : TRAK_KTE_BAD;
  } else {
    int64_t type;
    v.what =
        field_int(imp, e, k->type_field, &type) && field_str(imp, e, k->name_field, &v.slice_name)
            ? (int)(char)type
            : TRAK_KTE_BAD;
  }
  v.scope_value = scope;
  trak__kernel_track_event(imp, cpu, ts, tid, &v);
}

void trak__ftrace_generic_event(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t pid,
                                int64_t flags, const trak_pb_field *e) {
  struct trak_ftrace_generic *g = fg_get(imp);
  uint32_t *slot = trak__map_get(&g->by_number, e->number);
  if (!slot) {
    trak__report(imp, TRAK_STAT_FTRACE_GENERIC_DESCRIPTOR_ERRORS,
                 "self-describing ftrace event %u on cpu %u, which no descriptor describes; "
                 "dropped",
                 e->number, cpu);
    return;
  }
  const fg_event *ev = &g->events.v[*slot];
  if (TRAK_UNLIKELY(ev->kte.kind)) kte_event(imp, ev, cpu, ts, pid, e);
  const uint8_t *key = e->wire_type == TRAK_PB_WIRE_LEN && e->len ? e->data : NULL;
  uint32_t set = key ? trak__ftrace_args_cached(imp, e->number, key, e->len) : TRAK_NULL_U32;
  if (set == TRAK_NULL_U32) {
    int64_t errors = imp->stats[TRAK_STAT_FTRACE_GENERIC_DESCRIPTOR_ERRORS];
    trak_fargs a;
    trak__ftrace_fargs_begin(imp, &a);
    uint32_t begin = a.begin;
    if (e->wire_type == TRAK_PB_WIRE_LEN) {
      trak_pb_decoder dec;
      trak_pb_field f;
      trak__dec_init(imp, &dec, e->data, e->len);
      while (trak_pb_decoder_next(&dec, &f) > 0) {
        if (f.number >= MAX_FIELDS || !ev->type[f.number]) {
          trak__report(imp, TRAK_STAT_FTRACE_GENERIC_DESCRIPTOR_ERRORS,
                       "field %u of self-describing ftrace event %u, which its descriptor "
                       "does not describe; skipped",
                       f.number, e->number);
          continue;
        }
        trak__ftrace_raw_field(imp, &a, ev->key[f.number], ev->type[f.number], &f);
      }
    }
    set = trak__ftrace_fargs_close(imp, &a);
    if (imp->stats[TRAK_STAT_FTRACE_GENERIC_DESCRIPTOR_ERRORS] == errors && key)
      trak__ftrace_args_cache(imp, e->number, key, e->len, set, begin);
  }
  trak__ftrace_generic(imp, cpu, ts, pid, ev->name, flags, set, 0);
}
