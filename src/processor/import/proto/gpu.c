/*
** This file holds the GPU packets as Perfetto's importers read them: GpuInfo (the gpu table's
** rows, by index, with each GPU's extra facts as args), GenericGpuFrequencyEvent (the GPU's
** "gpufreq" counter, kHz) and GpuCounterEvent. A counter descriptor (inline, its counter ids
** global to the trace and the first spec of an id winning; or interned per sequence, read once
** per iid when an event first names it) makes each counter's gpu_counter track at once (named
** by the spec, told apart by GPU and name, with its description and unit) and its
** gpu_counter_group rows. The samples wait for the end of the tokenizing
** (trak__gpu_finish): sorted by time, a forwards-looking counter's value sits at its own
** time; a backwards-looking one's (the default) covers the interval that ends there, so each
** sample writes 0 at its time and its value on the counter's previous sample.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/hash.h"
#include "processor/import/proto/proto.h"
#include "processor/tables/arg_value.h"

/* An interned GpuCounterDescriptor of a sequence, kept until an event names its iid. */
typedef struct gpu_desc {
  uint8_t *bytes; /* the InternedGpuCounterDescriptor (NULL once read) */
  size_t len;
  uint8_t read;      /* an event named it: `counters` holds its tracks */
  trak_map counters; /* counter id -> track << 1 | forwards looking */
} gpu_desc;

/* One counter sample, until trak__gpu_finish. */
typedef struct gpu_sample {
  int64_t ts;
  trak_sequence *seq;
  uint32_t pkt;
  uint32_t key;   /* resolved: track << 1 | forwards; else (inline descriptors) the counter id */
  uint8_t legacy; /* the counter id of an inline descriptor: resolved at the end */
  double value;
  size_t order; /* arrival: ties of time keep it */
} gpu_sample;

struct trak_gpu_state {
  trak_map gpus;   /* machine << 32 | gpu -> gpu table row (ugpu) */
  trak_map legacy; /* counter id of inline descriptors -> track << 1 | forwards */
  trak_map descs;  /* mix(sequence, iid) -> 1 + index in desc */
  TRAK_VEC(gpu_desc) desc;
  TRAK_VEC(gpu_sample) samples;
};

static struct trak_gpu_state *gpu_state(trak_importer *imp) {
  trak_packet_state *s = trak__packet_state(imp);
  if (!s->gpu) {
    s->gpu = calloc(1, sizeof *s->gpu);
    if (!s->gpu) abort();
  }
  return s->gpu;
}

static uint32_t intern(trak_importer *imp, const uint8_t *s, size_t n) {
  return n ? trak__strpool_intern(&imp->tables->strings, (const char *)s, n) : 0;
}

uint32_t trak__gpu_row(trak_importer *imp, uint32_t gpu) {
  struct trak_gpu_state *st = gpu_state(imp);
  int added;
  uint32_t *row =
      trak__map_put(&st->gpus, (uint64_t)imp->threads.machine << 32 | gpu, TRAK_NULL_U32, &added);
  if (added) {
    trak_tables *t = imp->tables;
    uint32_t r = trak__gpu_push(t);
    t->gpu.gpu[r] = gpu;
    t->gpu.machine_id[r] = imp->threads.machine;
    *row = r;
  }
  return *row;
}

/* ---- GpuInfo, GenericGpuFrequencyEvent ---------------------------------------------------- */

/* One GpuInfo.Gpu, the GPU of index `index`. */
static void gpu_info_entry(trak_importer *imp, uint32_t index, const uint8_t *data, size_t len) {
  static const char hex[] = "0123456789abcdef";
  trak_tables *t = imp->tables;
  uint32_t row = trak__gpu_row(imp, index);
  uint32_t set = TRAK_NULL_U32;
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_LEN) continue;
    uint32_t s = intern(imp, f.data, f.len); /* an empty string leaves the column as it is */
    if (f.number == TRAK_PB_GpuInfo_Gpu_name && s) t->gpu.name[row] = s;
    if (f.number == TRAK_PB_GpuInfo_Gpu_vendor && s) t->gpu.vendor[row] = s;
    if (f.number == TRAK_PB_GpuInfo_Gpu_model && s) t->gpu.model[row] = s;
    if (f.number == TRAK_PB_GpuInfo_Gpu_architecture && s) t->gpu.architecture[row] = s;
    if (f.number == TRAK_PB_GpuInfo_Gpu_pci_bdf && s) t->gpu.pci_bdf[row] = s;
    if (f.number == TRAK_PB_GpuInfo_Gpu_uuid && f.len && f.len <= 64) {
      char text[129];
      for (size_t i = 0; i < f.len; i++)
        text[2 * i] = hex[f.data[i] >> 4], text[2 * i + 1] = hex[f.data[i] & 15];
      t->gpu.uuid[row] = trak__strpool_intern(&t->strings, text, 2 * f.len);
    }
    if (f.number != TRAK_PB_GpuInfo_Gpu_extra_info) continue;
    trak_span key = {NULL, 0}, value = {NULL, 0};
    trak__dec_init(imp, &sub, f.data, f.len);
    while (trak_pb_decoder_next(&sub, &g) > 0) {
      if (g.wire_type != TRAK_PB_WIRE_LEN) continue;
      if (g.number == TRAK_PB_GpuInfo_Gpu_KeyValue_key) key = (trak_span){g.data, g.len};
      if (g.number == TRAK_PB_GpuInfo_Gpu_KeyValue_value) value = (trak_span){g.data, g.len};
    }
    if (!key.data || !value.data) continue; /* Perfetto's args need both */
    if (set == TRAK_NULL_U32) set = (uint32_t)t->args.n;
    uint32_t k = trak__strpool_intern(&t->strings, (const char *)key.data, key.len);
    uint32_t arg = trak__arg_add(t, set, k, k, TRAK_ARG_STRING);
    trak__arg_set_str(t, arg,
                      trak__strpool_intern(&t->strings, (const char *)value.data, value.len));
  }
  if (set == TRAK_NULL_U32) return;
  set = trak__args_share(imp, set);
  if (set != TRAK_NULL_U32) trak__arg_order_log(imp, TRAK_ARG_ORDER_SET, set);
  t->gpu.arg_set_id[row] = set;
}

/* TracePacket.gpu_info: each GPU, by its index in the list. */
static void gpu_info(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  uint32_t index = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_GpuInfo_gpus && f.wire_type == TRAK_PB_WIRE_LEN)
      gpu_info_entry(imp, index++, f.data, f.len);
}

/* TracePacket.generic_gpu_frequency_event: the frequency (kHz) on the GPU's "gpufreq" track. */
static void gpu_frequency(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                          size_t len) {
  uint32_t gpu = (uint32_t)trak__dec_varint(imp, data, len, TRAK_PB_GenericGpuFrequencyEvent_gpu_id, 0);
  uint32_t khz = (uint32_t)trak__dec_varint(imp, data, len,
                                            TRAK_PB_GenericGpuFrequencyEvent_frequency_khz, 0);
  uint32_t ugpu = trak__gpu_row(imp, gpu);
  trak_strpool *pool = &imp->tables->strings;
  uint32_t track = trak__system_counter_track(imp, TRAK_TK_GPU_FREQUENCY, TRAK_NULL_U32, ugpu, 0,
                                              trak__strpool_intern(pool, "gpufreq", 7));
  imp->tracks.info.v[track].dim_int = gpu;
  imp->tracks.info.v[track].unit = trak__strpool_intern(pool, "kHz", 3);
  trak_packet_ctx timed = trak__packet_ctx_timed(imp, ctx);
  trak__system_counter(imp, &timed, track, (double)khz);
}

/* ---- counter descriptors ----------------------------------------------------------------- */

/* Perfetto's text of a MeasureUnit ("" for NONE, "Unknown" for values it does not know). */
static const char *unit_text(uint64_t unit) {
  static const char *const names[] = {
      "",   "bit", "Kb",  "Mb",  "Gb",     "Tb",    "Pb",       "B",         "KB",       "MB",
      "GB", "TB",  "PB",  "Hz",  "KHz",    "MHz",   "GHz",      "THz",       "PHz",      "ns",
      "us", "ms",  "s",   "min", "h",      "Vertex", "Pixel",   "Triangle",  "mW",       "W",
      "kW", "J",   "V",   "A",   "C",      "F",     "K",        "%",         "Primitive", "Fragment",
      "Instruction"};
  return unit < sizeof names / sizeof *names ? names[unit] : "Unknown";
}

/* The unit of a spec (string id, 0: none): its numerator units joined by ':', then '/' and
** its denominator units (NONE left out) joined by ':', as Perfetto formats them. */
static uint32_t spec_unit(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  char text[256];
  size_t n = 0;
  int any = 0;
  for (int denominator = 0; denominator < 2; denominator++) {
    uint32_t field = denominator ? TRAK_PB_GpuCounterDescriptor_GpuCounterSpec_denominator_units
                                 : TRAK_PB_GpuCounterDescriptor_GpuCounterSpec_numerator_units;
    char sep = '/';
    trak__dec_init(imp, &dec, data, len);
    while (trak_pb_decoder_next(&dec, &f) > 0) {
      if (f.number != field) continue;
      trak_u64_vec units = {0};
      trak__pb_push_varints(&f, &units);
      for (size_t i = 0; i < units.n; i++) {
        const char *u = unit_text(units.v[i]);
        any = 1;
        if (denominator && !*u) continue;
        char s = denominator ? sep : ':';
        if ((denominator || n) && n < sizeof text - 1) text[n++] = s;
        if (denominator) sep = ':';
        for (; *u && n < sizeof text - 1; u++)
          text[n++] = *u;
      }
      trak_vec_free(units);
    }
  }
  return any ? trak__strpool_intern(&imp->tables->strings, text, n) : 0;
}

/* A GpuCounterSpec's fields. */
typedef struct gpu_spec {
  const uint8_t *data;
  size_t len;
  uint32_t id;
  int has_id;
  trak_span name, description;
  int has_name, forwards;
} gpu_spec;

static gpu_spec spec_read(trak_importer *imp, const uint8_t *data, size_t len) {
  gpu_spec s = {data, len, 0, 0, {(const uint8_t *)"", 0}, {(const uint8_t *)"", 0}, 0, 0};
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_GpuCounterDescriptor_GpuCounterSpec_counter_id &&
        f.wire_type == TRAK_PB_WIRE_VARINT)
      s.id = (uint32_t)f.value, s.has_id = 1;
    else if (f.number == TRAK_PB_GpuCounterDescriptor_GpuCounterSpec_name &&
             f.wire_type == TRAK_PB_WIRE_LEN)
      s.name = (trak_span){f.data, f.len}, s.has_name = 1;
    else if (f.number == TRAK_PB_GpuCounterDescriptor_GpuCounterSpec_description &&
             f.wire_type == TRAK_PB_WIRE_LEN)
      s.description = (trak_span){f.data, f.len};
    else if (f.number == TRAK_PB_GpuCounterDescriptor_GpuCounterSpec_value_direction &&
             f.wire_type == TRAK_PB_WIRE_VARINT)
      s.forwards =
          f.value ==
          TRAK_PB_GpuCounterDescriptor_GpuCounterSpec_VALUE_DIRECTION_FORWARDS_LOOKING;
  }
  return s;
}

/* The gpu_counter track of spec `s` of GPU `gpu`, made now (as Perfetto interns it while it
** tokenizes): told apart by the GPU and the counter's name; the first spec of a name gives its
** description and unit. */
static uint32_t counter_track(trak_importer *imp, int32_t gpu, const gpu_spec *s) {
  uint32_t ugpu = trak__gpu_row(imp, (uint32_t)gpu);
  uint32_t name = intern(imp, s->name.data, s->name.len);
  int made;
  uint32_t track = trak__dim_counter_track(imp, TRAK_TK_GPU_COUNTER,
                                           (uint64_t)ugpu << 32 | (uint32_t)gpu, name, name, &made);
  if (made) {
    trak_track_info *info = &imp->tracks.info.v[track];
    info->lane = ugpu;
    info->dim_int = (uint32_t)gpu;
    info->description = intern(imp, s->description.data, s->description.len);
    info->unit = spec_unit(imp, s->data, s->len);
  }
  trak__track_made_now(imp, track);
  return track;
}

/* One gpu_counter_group row. */
static void group_row(trak_importer *imp, int64_t group, uint32_t track, uint32_t name,
                      uint32_t description) {
  trak_tables *t = imp->tables;
  uint32_t r = trak__gpu_counter_group_push(t);
  t->gpu_counter_group.group_id[r] = group;
  t->gpu_counter_group.track_id[r] = track;
  t->gpu_counter_group.name[r] = name;
  t->gpu_counter_group.description[r] = description;
}

/* A GpuCounterGroupSpec's fields: its id (has_id 0 when it has none), name and description
** (string ids, 0: none). */
typedef struct gpu_group {
  int has_id;
  int64_t id;
  uint32_t name, description;
} gpu_group;

static gpu_group group_read(trak_importer *imp, const uint8_t *data, size_t len) {
  gpu_group g = {0, 0, 0, 0};
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_GpuCounterDescriptor_GpuCounterGroupSpec_group_id &&
        f.wire_type == TRAK_PB_WIRE_VARINT)
      g.has_id = 1, g.id = (int32_t)f.value;
    else if (f.number == TRAK_PB_GpuCounterDescriptor_GpuCounterGroupSpec_name &&
             f.wire_type == TRAK_PB_WIRE_LEN)
      g.name = trak__strpool_intern(&imp->tables->strings, (const char *)f.data, f.len);
    else if (f.number == TRAK_PB_GpuCounterDescriptor_GpuCounterGroupSpec_description &&
             f.wire_type == TRAK_PB_WIRE_LEN)
      g.description = trak__strpool_intern(&imp->tables->strings, (const char *)f.data, f.len);
  }
  return g;
}

/* The custom group of id `group` of descriptor [desc, desc + len) (has_id 0: none; the last
** of an id wins, as in Perfetto's map). */
static gpu_group group_find(trak_importer *imp, const uint8_t *desc, size_t len, int64_t group) {
  gpu_group found = {0, 0, 0, 0};
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, desc, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_GpuCounterDescriptor_counter_groups || f.wire_type != TRAK_PB_WIRE_LEN)
      continue;
    gpu_group g = group_read(imp, f.data, f.len);
    if (g.has_id && g.id == group) found = g;
  }
  return found;
}

/* The group rows of spec `s` on `track`: one per group it lists (named when the descriptor
** [desc, desc + len) has a custom group of that id), or group 0 (UNCLASSIFIED). */
static void spec_groups(trak_importer *imp, const uint8_t *desc, size_t len, const gpu_spec *s,
                        uint32_t track) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int any = 0;
  trak__dec_init(imp, &dec, s->data, s->len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_GpuCounterDescriptor_GpuCounterSpec_groups) continue;
    trak_u64_vec groups = {0};
    trak__pb_push_varints(&f, &groups);
    for (size_t i = 0; i < groups.n; i++) {
      int64_t id = (int32_t)groups.v[i];
      gpu_group g = group_find(imp, desc, len, id);
      group_row(imp, id, track, g.name, g.description);
      any = 1;
    }
    trak_vec_free(groups);
  }
  if (!any) group_row(imp, TRAK_PB_GpuCounterDescriptor_UNCLASSIFIED, track, 0, 0);
}

/* The custom groups' rows: each group with an id, for each counter id it lists that `made`
** (counter id -> track << 1 | forwards, the descriptor's own counters) knows. */
static void custom_groups(trak_importer *imp, const uint8_t *desc, size_t len,
                          const trak_map *made) {
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak__dec_init(imp, &dec, desc, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_GpuCounterDescriptor_counter_groups || f.wire_type != TRAK_PB_WIRE_LEN)
      continue;
    gpu_group group = group_read(imp, f.data, f.len);
    if (!group.has_id) continue;
    trak__dec_init(imp, &sub, f.data, f.len);
    while (trak_pb_decoder_next(&sub, &g) > 0) {
      if (g.number != TRAK_PB_GpuCounterDescriptor_GpuCounterGroupSpec_counter_ids) continue;
      trak_u64_vec ids = {0};
      trak__pb_push_varints(&g, &ids);
      for (size_t i = 0; i < ids.n; i++) {
        const uint32_t *track = trak__map_get(made, (uint32_t)ids.v[i]);
        if (track) group_row(imp, group.id, *track >> 1, group.name, group.description);
      }
      trak_vec_free(ids);
    }
  }
}

/* Reads the specs of descriptor [desc, desc + len) of GPU `gpu` into `counters` (counter id ->
** track << 1 | forwards). Inline (`global`: the trace's counter ids, the first spec of an id
** winning) or interned (the descriptor's own ids). Bad specs are counted. */
static void descriptor_read(trak_importer *imp, const uint8_t *desc, size_t len, int32_t gpu,
                            trak_map *counters, int global) {
  trak_map made = {0}; /* this descriptor's counters, for its custom groups */
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, desc, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_GpuCounterDescriptor_specs || f.wire_type != TRAK_PB_WIRE_LEN)
      continue;
    gpu_spec s = spec_read(imp, f.data, f.len);
    if (!s.has_id || !s.has_name) {
      if (global)
        trak__report(imp, TRAK_STAT_GPU_COUNTERS_INVALID_SPEC,
                     "a GPU counter spec without a counter id or a name; skipped");
      continue;
    }
    if (global && trak__map_get(counters, s.id)) {
      trak__report(imp, TRAK_STAT_GPU_COUNTERS_INVALID_SPEC,
                   "GPU counter spec \"%.*s\" of counter id %u, which an earlier inline "
                   "descriptor defined; skipped",
                   (int)s.name.len, (const char *)s.name.data, s.id);
      continue;
    }
    uint32_t track = counter_track(imp, gpu, &s);
    int added;
    uint32_t value = track << 1 | (uint32_t)s.forwards;
    trak__map_put(&made, s.id, value, &added);
    if (added || global) spec_groups(imp, desc, len, &s, track);
    trak__map_put(counters, s.id, value, &added); /* an id's first spec wins */
  }
  custom_groups(imp, desc, len, &made);
  trak__map_free(&made);
}

void trak__gpu_interned_descriptor(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                                   size_t len) {
  struct trak_gpu_state *st = gpu_state(imp);
  uint64_t iid = trak__dec_varint(imp, data, len, TRAK_PB_InternedGpuCounterDescriptor_iid, 0);
  int added;
  uint32_t *slot = trak__map_put(&st->descs, trak__mix(seq->id, iid), 0, &added);
  if (added) {
    gpu_desc d = {NULL, 0, 0, {0}};
    trak_vec_push(st->desc, d);
    *slot = (uint32_t)st->desc.n;
  }
  gpu_desc *d = &st->desc.v[*slot - 1];
  if (d->read) return; /* its tracks are made: Perfetto reads an iid once */
  free(d->bytes);
  d->bytes = malloc(len ? len : 1);
  if (!d->bytes) abort();
  memcpy(d->bytes, data, len);
  d->len = len;
}

/* The counters of interned descriptor `iid` of `seq`, read on first use; NULL (counted) when
** it was never interned or has no descriptor. */
static const trak_map *interned_counters(trak_importer *imp, trak_sequence *seq, uint64_t iid) {
  struct trak_gpu_state *st = gpu_state(imp);
  const uint32_t *slot = trak__map_get(&st->descs, trak__mix(seq->id, iid));
  gpu_desc *d = slot ? &st->desc.v[*slot - 1] : NULL;
  if (d && d->read) return &d->counters;
  const uint8_t *desc = NULL;
  size_t desc_len = 0;
  int32_t gpu = 0;
  trak_pb_decoder dec;
  trak_pb_field f;
  if (d) trak__dec_init(imp, &dec, d->bytes, d->len);
  while (d && trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_InternedGpuCounterDescriptor_counter_descriptor &&
        f.wire_type == TRAK_PB_WIRE_LEN)
      desc = f.data, desc_len = f.len;
    else if (f.number == TRAK_PB_InternedGpuCounterDescriptor_gpu_id &&
             f.wire_type == TRAK_PB_WIRE_VARINT)
      gpu = (int32_t)f.value;
  }
  if (!desc) {
    trak__report(imp, TRAK_STAT_GPU_COUNTERS_INVALID_SPEC,
                 "GpuCounterEvent names counter descriptor iid %llu, which sequence %u never "
                 "interned with a descriptor; its samples are dropped",
                 (unsigned long long)iid, seq->id);
    return NULL;
  }
  descriptor_read(imp, desc, desc_len, gpu, &d->counters, 0);
  d->read = 1;
  free(d->bytes);
  d->bytes = NULL;
  return &d->counters;
}

/* ---- samples ----------------------------------------------------------------------------- */

/* The samples of GpuCounterEvent [data, data + len) at `ctx`'s time: resolved now through
** `counters` (an interned descriptor's; unknown ids counted), or kept by counter id for the
** inline descriptors (counters NULL; unknown ids dropped at the end, as in Perfetto). */
static void samples_add(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                        size_t len, const trak_map *counters) {
  struct trak_gpu_state *st = gpu_state(imp);
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_GpuCounterEvent_counters || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    uint32_t id = 0;
    int has_id = 0, has_value = 0;
    double value = 0;
    trak__dec_init(imp, &sub, f.data, f.len);
    while (trak_pb_decoder_next(&sub, &g) > 0) {
      if (g.number == TRAK_PB_GpuCounterEvent_GpuCounter_counter_id &&
          g.wire_type == TRAK_PB_WIRE_VARINT)
        id = (uint32_t)g.value, has_id = 1;
      else if (g.number == TRAK_PB_GpuCounterEvent_GpuCounter_int_value &&
               g.wire_type == TRAK_PB_WIRE_VARINT)
        value = (double)(int64_t)g.value, has_value = 1;
      else if (g.number == TRAK_PB_GpuCounterEvent_GpuCounter_double_value &&
               g.wire_type == TRAK_PB_WIRE_FIXED64)
        memcpy(&value, &g.value, sizeof value), has_value = 1;
    }
    if (!has_id || !has_value) continue;
    gpu_sample s = {ctx->ts, ctx->seq, (uint32_t)imp->packet_index, id, 1, value,
                    st->samples.n};
    if (counters) {
      const uint32_t *key = trak__map_get(counters, id);
      if (!key) {
        trak__report(imp, TRAK_STAT_GPU_COUNTERS_INVALID_SPEC,
                     "a GPU counter sample of counter id %u, which its interned descriptor "
                     "lacks; dropped",
                     id);
        continue;
      }
      s.key = *key, s.legacy = 0;
    }
    trak_vec_push(st->samples, s);
  }
}

/* TracePacket.gpu_counter_event: its descriptor read now, its samples kept. */
static void counter_event(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                          size_t len) {
  struct trak_gpu_state *st = gpu_state(imp);
  trak_pb_decoder dec;
  trak_pb_field f;
  const uint8_t *desc = NULL;
  size_t desc_len = 0;
  uint64_t iid = 0;
  int has_iid = 0, has_samples = 0;
  int32_t gpu = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_GpuCounterEvent_counter_descriptor && f.wire_type == TRAK_PB_WIRE_LEN)
      desc = f.data, desc_len = f.len;
    else if (f.number == TRAK_PB_GpuCounterEvent_counter_descriptor_iid &&
             f.wire_type == TRAK_PB_WIRE_VARINT)
      iid = f.value, has_iid = 1;
    else if (f.number == TRAK_PB_GpuCounterEvent_gpu_id && f.wire_type == TRAK_PB_WIRE_VARINT)
      gpu = (int32_t)f.value;
    else if (f.number == TRAK_PB_GpuCounterEvent_counters)
      has_samples = 1;
  }
  const trak_map *counters = NULL;
  if (has_iid)
    counters = interned_counters(imp, ctx->seq, iid);
  else if (desc)
    descriptor_read(imp, desc, desc_len, gpu, &st->legacy, 1);
  if (!has_samples) return;
  if (!ctx->has_ts) {
    trak__report(imp, TRAK_STAT_GPU_COUNTERS_MISSING_TIMESTAMP,
                 "GpuCounterEvent with samples but no timestamp; its samples are dropped");
    return;
  }
  if (has_iid && !counters) return; /* counted when its descriptor was looked up */
  samples_add(imp, ctx, data, len, counters);
}

static int sample_cmp(const void *a, const void *b) {
  const gpu_sample *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

void trak__gpu_finish(trak_importer *imp) {
  trak_packet_state *ps = imp->packet_state;
  struct trak_gpu_state *st = ps ? ps->gpu : NULL;
  if (!st || !st->samples.n) return;
  gpu_sample *v = st->samples.v;
  size_t n = st->samples.n;
  qsort(v, n, sizeof *v, sample_cmp);
  /* the inline descriptors' counter ids, known now; a backwards-looking value moves to the
  ** counter's previous sample */
  trak_map last = {0}; /* track -> 1 + index of its latest sample */
  for (size_t i = 0; i < n; i++) {
    if (v[i].legacy) {
      const uint32_t *key = trak__map_get(&st->legacy, v[i].key);
      v[i].key = key ? *key : UINT32_MAX;
    }
    if (v[i].key == UINT32_MAX || (v[i].key & 1)) continue;
    int added;
    uint32_t *prev = trak__map_put(&last, v[i].key >> 1, 0, &added);
    double value = v[i].value;
    v[i].value = 0;
    if (*prev) v[*prev - 1].value = value;
    *prev = (uint32_t)(i + 1);
  }
  trak__map_free(&last);
  for (size_t i = 0; i < n; i++) {
    if (v[i].key == UINT32_MAX) continue;
    trak_ev ev = {v[i].ts, (uint32_t)TRAK_EV_COUNTER << TRAK_EV_TYPE_SHIFT | v[i].key >> 1,
                  v[i].pkt, {{0, 0}}, TRAK_NULL_U32, 0};
    ev.u.value = v[i].value;
    trak__sequence_push(imp, v[i].seq, &ev);
  }
  trak_vec_free(st->samples);
}

void trak__gpu_packet(trak_importer *imp, const trak_packet_ctx *ctx, uint32_t field,
                      const uint8_t *data, size_t len) {
  if (field == TRAK_PB_TracePacket_gpu_counter_event)
    counter_event(imp, ctx, data, len);
  else if (field == TRAK_PB_TracePacket_gpu_render_stage_event)
    trak__gpu_stage_event(imp, ctx, data, len);
  else if (field == TRAK_PB_TracePacket_gpu_info)
    gpu_info(imp, data, len);
  else if (field == TRAK_PB_TracePacket_generic_gpu_frequency_event)
    gpu_frequency(imp, ctx, data, len);
}

void trak__gpu_free(struct trak_gpu_state *st) {
  if (!st) return;
  trak__map_free(&st->gpus);
  trak__map_free(&st->legacy);
  trak__map_free(&st->descs);
  for (size_t i = 0; i < st->desc.n; i++) {
    free(st->desc.v[i].bytes);
    trak__map_free(&st->desc.v[i].counters);
  }
  trak_vec_free(st->desc);
  trak_vec_free(st->samples);
  free(st);
}
