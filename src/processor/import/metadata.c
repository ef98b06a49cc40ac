/*
** This file holds the metadata table's rows as Perfetto's importer makes them: trace_uuid (the
** TraceUuid packet, else TraceConfig's, else a hash of the trace's first 4096 bytes),
** trace_type, trace_time_clock_id, system_info, service events, trace attributes,
** triggers, the trace config as text, a JSON trace's "metadata" object, the
** track event range of interest, and trace_size_bytes (Chromium's own packets' rows are
** proto/chrome_metadata.c's, added through trak__meta_add); it also fills the machine table's
** system_info columns and hands concurrent_session_event packets on. Rows keep the order
** Perfetto gives them: the packets Perfetto reads while tokenizing in file order, then those
** it reads after sorting (trace_config, triggers) in timestamp order. These packets are rare;
** nothing here runs per event.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/importer.h"
#include "processor/import/json/json.h"
#include "trak/pbtxt.h"

#define UUID_HASH_BYTES 4096

/* A packet Perfetto reads after sorting: kept (copied) until the end of the import. */
typedef struct late_packet {
  uint32_t field, machine;
  int64_t ts;
  size_t order; /* file order, for a stable sort */
  uint8_t *data;
  size_t len;
} late_packet;

typedef struct trak_metadata {
  TRAK_VEC(trak_meta_row) rows; /* after trak__meta_finish: every row, in order */
  trak_map by_name;             /* FNV-1a of a single key's name -> its row */
  TRAK_VEC(late_packet) late;
  uint64_t hash; /* FNV-1a of the first UUID_HASH_BYTES bytes */
  char uuid[37]; /* from the trace, when uuid_found */
  uint8_t uuid_found, clock_set;
  uint32_t machine;        /* the machine of the packet being read (machine table row) */
  uint8_t trigger_kind;    /* 0 none yet, 1 a trigger, 2 a clone snapshot trigger */
  uint32_t chrome_count;   /* ChromeMetadataPackets so far */
  uint32_t chrome_bundles; /* ChromeEventBundles with metadata so far */
  int64_t last_ts;         /* for late packets without a timestamp */
  uint8_t *config;         /* the last TraceConfig, for trace_stats.c */
  size_t config_len;
  trak_map ftrace_cpus; /* machine << 32 | cpu of the ftrace bundles seen */
} trak_metadata;

static trak_metadata *meta_get(trak_importer *imp) {
  if (!imp->meta) {
    imp->meta = calloc(1, sizeof *imp->meta);
    if (!imp->meta) abort();
    imp->meta->hash = 14695981039346656037ull;
  }
  return imp->meta;
}

static char *dup_n(const void *s, size_t n) {
  char *d = malloc(n + 1);
  if (!d) abort();
  if (n) memcpy(d, s, n);
  d[n] = 0;
  return d;
}

/* ---- rows ------------------------------------------------------------------------------- */

/* Adds a row, or with `single` replaces the value of the row named `name` in place (Perfetto
** keeps a key's first position). `str` NULL with is_str: a NULL value (an absent string). */
static void put(trak_metadata *m, const char *name, int is_str, const char *str, size_t len,
                int64_t value, int scope, int multi, int single) {
  trak_meta_row r = {0};
  r.str = is_str && str ? dup_n(str, len) : NULL;
  r.value = is_str ? 0 : value;
  r.is_str = (uint8_t)is_str;
  r.multi = (uint8_t)multi;
  r.scope = (uint8_t)scope;
  r.machine = m->machine;
  if (single) { /* a trace can set many keys (a JSON object's): found by hash, not a scan */
    uint64_t h = 14695981039346656037ull ^ m->machine; /* a key per machine */
    for (const char *c = name; *c; c++)
      h = (h ^ (uint8_t)*c) * 1099511628211ull;
    int added;
    uint32_t *slot = trak__map_put(&m->by_name, h, (uint32_t)m->rows.n, &added);
    trak_meta_row *o = added ? NULL : &m->rows.v[*slot];
    if (o && o->machine == m->machine && !strcmp(o->name, name)) {
      free(o->str);
      r.name = o->name;
      *o = r;
      return;
    } /* a new key (or a hash collision): a row of its own */
  }
  r.name = dup_n(name, strlen(name));
  trak_vec_push(m->rows, r);
}

void trak__meta_add(trak_importer *imp, const char *name, int is_str, const void *str, size_t len,
                    int64_t value, int scope) {
  trak_metadata *m = meta_get(imp);
  put(m, name, is_str, str, len, value, scope, 0, 0);
}

static void set_str(trak_metadata *m, const char *name, int scope, const void *s, size_t len) {
  put(m, name, 1, s, len, 0, scope, 0, 1);
}
static void set_int(trak_metadata *m, const char *name, int scope, int64_t v) {
  put(m, name, 0, NULL, 0, v, scope, 0, 1);
}

/* Perfetto's text of a 128-bit uuid: msb then lsb in hex, 8-4-4-4-12. */
static void uuid_text(char out[37], uint64_t msb, uint64_t lsb) {
  snprintf(out, 37, "%08x-%04x-%04x-%04x-%012llx", (unsigned)(msb >> 32),
           (unsigned)(msb >> 16) & 0xffff, (unsigned)msb & 0xffff, (unsigned)(lsb >> 48),
           (unsigned long long)(lsb & 0xffffffffffffull));
}

void trak__meta_hash_input(trak_importer *imp, const uint8_t *data, size_t len, uint64_t offset) {
  if (offset >= UUID_HASH_BYTES) return;
  trak_metadata *m = meta_get(imp);
  size_t n = len < UUID_HASH_BYTES - offset ? len : (size_t)(UUID_HASH_BYTES - offset);
  for (size_t i = 0; i < n; i++)
    m->hash = (m->hash ^ data[i]) * 1099511628211ull;
}

void trak__meta_clock_seen(trak_importer *imp) {
  trak_metadata *m = meta_get(imp);
  if (m->clock_set) return; /* the first snapshot fixes it */
  m->clock_set = 1;
  set_int(m, "trace_time_clock_id", TRAK_META_GLOBAL, imp->trace_clock);
}

/* ---- packets read in file order --------------------------------------------------------- */

/* The SDK level an Android release number stands for (Android's CDD), or -1. */
static int sdk_of_release(const char *v, size_t n) {
  static const struct {
    const char *release;
    int sdk;
  } map[] = {{"12", 31},    {"11", 30},  {"10", 29},    {"9", 28},    {"8.1", 27},
             {"8.0", 26},   {"7.1", 25}, {"7.0", 24},   {"6.0", 23},  {"5.1", 22},
             {"5.1.1", 22}, {"5.0", 21}, {"5.0.1", 21}, {"5.0.2", 21}};
  if (n && (v[0] == 'S' || v[0] == 'T')) return 31;
  for (size_t i = 0; i < sizeof map / sizeof *map; i++)
    if (strlen(map[i].release) == n && !memcmp(map[i].release, v, n)) return map[i].sdk;
  return -1;
}

/* BRAND/PRODUCT/DEVICE:RELEASE/ID/INCREMENTAL:TYPE/TAGS: the incremental build, and the SDK
** level unless the packet gave one. */
static int fingerprint(trak_metadata *m, const char *f, size_t n, int have_sdk) {
  const char *end = f + n;
  const char *colon = memchr(f, ':', n);
  if (!colon) return -1;
  const char *rel_slash = memchr(colon, '/', (size_t)(end - colon));
  if (!rel_slash) return -1;
  const char *id_slash = memchr(rel_slash + 1, '/', (size_t)(end - rel_slash - 1));
  if (!id_slash) return -1;
  const char *inc_colon = memchr(id_slash, ':', (size_t)(end - id_slash));
  if (!inc_colon) return -1;
  set_str(m, "android_incremental_build", TRAK_META_MACHINE, id_slash + 1,
          (size_t)(inc_colon - id_slash - 1));
  int sdk = sdk_of_release(colon + 1, (size_t)(rel_slash - colon - 1));
  if (!have_sdk && sdk >= 0) set_int(m, "android_sdk_version", TRAK_META_MACHINE, sdk);
  return sdk;
}

/* A string of SystemInfo for the machine table (0: absent, NULL). */
static uint32_t machine_str(trak_importer *imp, const trak_span *s) {
  return s->data ? trak__strpool_intern(&imp->tables->strings, (const char *)s->data, s->len) : 0;
}

static void system_info(trak_importer *imp, trak_metadata *m, const uint8_t *data, size_t len) {
  static const struct {
    uint32_t field;
    const char *name;
  } strings[] = {
      {TRAK_PB_SystemInfo_android_device_manufacturer, "android_device_manufacturer"},
      {TRAK_PB_SystemInfo_tracing_service_version, "tracing_service_version"},
      {TRAK_PB_SystemInfo_android_soc_model, "android_soc_model"},
      {TRAK_PB_SystemInfo_android_guest_soc_model, "android_guest_soc_model"},
      {TRAK_PB_SystemInfo_android_hardware_revision, "android_hardware_revision"},
      {TRAK_PB_SystemInfo_android_storage_model, "android_storage_model"},
      {TRAK_PB_SystemInfo_android_ram_model, "android_ram_model"},
      {TRAK_PB_SystemInfo_android_serial_console, "android_serial_console"},
  };
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  /* the machine table's columns for this packet's machine, next to the metadata rows */
  __typeof__(imp->tables->machine) *mt = &imp->tables->machine;
  uint32_t row = m->machine;
  trak_span uts = {0}, fp = {0}, str[sizeof strings / sizeof *strings] = {{0}};
  trak_span machine_name = {0};
  int has_uts = 0, has_fp = 0, has_sdk = 0, has_tz = 0, has_ram = 0, has_cpus = 0;
  uint8_t has_str[sizeof strings / sizeof *strings] = {0};
  int64_t sdk = 0, tz = 0, ram = 0, cpus = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    int is_len = f.wire_type == TRAK_PB_WIRE_LEN;
    if (f.number == TRAK_PB_SystemInfo_utsname && is_len)
      uts = (trak_span){f.data, f.len}, has_uts = 1;
    else if (f.number == TRAK_PB_SystemInfo_android_build_fingerprint && is_len)
      fp = (trak_span){f.data, f.len}, has_fp = 1;
    else if (f.number == TRAK_PB_SystemInfo_android_sdk_version && !is_len)
      sdk = (int64_t)f.value, has_sdk = 1;
    else if (f.number == TRAK_PB_SystemInfo_timezone_off_mins && !is_len)
      tz = (int32_t)f.value, has_tz = 1;
    else if (f.number == TRAK_PB_SystemInfo_system_ram_bytes && !is_len)
      ram = (int64_t)f.value, has_ram = 1;
    else if (f.number == TRAK_PB_SystemInfo_num_cpus && !is_len)
      cpus = (int64_t)(uint32_t)f.value, has_cpus = 1;
    else if (f.number == TRAK_PB_SystemInfo_machine_name && is_len)
      machine_name = (trak_span){f.data, f.len};
    else if (is_len)
      for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
        if (strings[i].field == f.number) str[i] = (trak_span){f.data, f.len}, has_str[i] = 1;
  }
  /* Perfetto's order: utsname, timezone, fingerprint, manufacturer, sdk, the rest, RAM */
  if (has_uts) {
    trak_span u[4] = {{0}}; /* sysname, version, release, machine */
    trak__dec_init(imp, &sub, uts.data, uts.len);
    while (trak_pb_decoder_next(&sub, &g) > 0)
      if (g.wire_type == TRAK_PB_WIRE_LEN && g.number >= 1 && g.number <= 4)
        u[g.number - 1] = (trak_span){g.data, g.len};
    static const char *const names[4] = {"system_name", "system_version", "system_release",
                                         "system_machine"};
    for (int i = 0; i < 4; i++)
      set_str(m, names[i], TRAK_META_MACHINE, u[i].data, u[i].len);
    mt->sysname[row] = machine_str(imp, &u[0]), mt->version[row] = machine_str(imp, &u[1]);
    mt->release[row] = machine_str(imp, &u[2]), mt->arch[row] = machine_str(imp, &u[3]);
  }
  if (has_tz) set_int(m, "timezone_off_mins", TRAK_META_MACHINE, tz);
  if (has_fp) {
    set_str(m, "android_build_fingerprint", TRAK_META_MACHINE, fp.data, fp.len);
    mt->fingerprint[row] = machine_str(imp, &fp);
    int fp_sdk = fingerprint(m, (const char *)fp.data, fp.len, has_sdk);
    if (!has_sdk && fp_sdk >= 0) mt->sdk_version[row] = fp_sdk;
  }
  if (has_sdk) mt->sdk_version[row] = sdk;
  if (has_str[0]) mt->manufacturer[row] = machine_str(imp, &str[0]);
  if (machine_name.data) mt->name[row] = machine_str(imp, &machine_name);
  if (has_cpus) mt->num_cpus[row] = cpus;
  if (has_str[0]) set_str(m, strings[0].name, TRAK_META_MACHINE, str[0].data, str[0].len);
  if (has_sdk) set_int(m, "android_sdk_version", TRAK_META_MACHINE, sdk);
  for (size_t i = 1; i < sizeof strings / sizeof *strings; i++)
    if (has_str[i]) set_str(m, strings[i].name, TRAK_META_MACHINE, str[i].data, str[i].len);
  if (has_ram) {
    set_int(m, "system_ram_bytes", TRAK_META_MACHINE, ram);
    set_int(m, "system_ram_gb", TRAK_META_MACHINE, (int64_t)llround((double)ram / 1e9));
    mt->ram_bytes[row] = ram, mt->ram_gb[row] = (int64_t)llround((double)ram / 1e9);
  }
}

static void service_event(trak_importer *imp, trak_metadata *m, int64_t ts, const uint8_t *data,
                          size_t len) {
  trak_pb_decoder dec, sub, ds;
  trak_pb_field f, g, h;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_TracingServiceEvent_slow_starting_data_sources &&
        f.wire_type == TRAK_PB_WIRE_LEN) {
      trak__dec_init(imp, &sub, f.data, f.len);
      while (trak_pb_decoder_next(&sub, &g) > 0) {
        if (g.number != 1 || g.wire_type != TRAK_PB_WIRE_LEN) continue;
        trak_span name[2] = {{0}}; /* producer, data source */
        trak__dec_init(imp, &ds, g.data, g.len);
        while (trak_pb_decoder_next(&ds, &h) > 0)
          if (h.wire_type == TRAK_PB_WIRE_LEN && (h.number == 1 || h.number == 2))
            name[h.number - 1] = (trak_span){h.data, h.len};
        char *s = malloc(name[0].len + name[1].len + 2);
        if (!s) abort();
        memcpy(s, name[0].data ? (const char *)name[0].data : "", name[0].len);
        s[name[0].len] = ' ';
        memcpy(s + name[0].len + 1, name[1].data ? (const char *)name[1].data : "", name[1].len);
        put(m, "slow_start_data_source", 1, s, name[0].len + name[1].len + 1, 0,
            TRAK_META_MACHINE_TRACE, 1, 0);
        free(s);
      }
      continue;
    }
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    switch (f.number) {
    case TRAK_PB_TracingServiceEvent_tracing_started:
      if (f.value) set_int(m, "tracing_started_ns", TRAK_META_MACHINE_TRACE, ts);
      break;
    case TRAK_PB_TracingServiceEvent_tracing_disabled:
      if (f.value) set_int(m, "tracing_disabled_ns", TRAK_META_MACHINE_TRACE, ts);
      break;
    case TRAK_PB_TracingServiceEvent_all_data_sources_started:
      if (f.value) set_int(m, "all_data_source_started_ns", TRAK_META_MACHINE_TRACE, ts);
      break;
    case TRAK_PB_TracingServiceEvent_all_data_sources_flushed:
      if (f.value)
        put(m, "all_data_source_flushed_ns", 0, NULL, 0, ts, TRAK_META_MACHINE_TRACE, 1, 0);
      break;
    case TRAK_PB_TracingServiceEvent_clone_started:
      trak__trace_stats_clone(imp, TRAK_CLONE_STARTED, 0, ts);
      break;
    case TRAK_PB_TracingServiceEvent_buffer_cloned:
      trak__trace_stats_clone(imp, TRAK_CLONE_BUFFER_DONE, (int64_t)(uint32_t)f.value, ts);
      break;
    default:
      break;
    }
  }
}

/* TraceAttributes (a packet, or TraceConfig's): trace_attribute.<key> rows, the last value of
** a key winning. */
static void trace_attributes(trak_importer *imp, trak_metadata *m, const uint8_t *data,
                             size_t len) {
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_TraceAttributes_attribute || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    trak_span key = {0}, str = {0};
    int kind = 0; /* 1 long, 2 string */
    int64_t v = 0;
    trak__dec_init(imp, &sub, f.data, f.len);
    while (trak_pb_decoder_next(&sub, &g) > 0) {
      if (g.number == TRAK_PB_TraceAttributes_Attribute_key && g.wire_type == TRAK_PB_WIRE_LEN)
        key = (trak_span){g.data, g.len};
      else if (g.number == TRAK_PB_TraceAttributes_Attribute_long_value &&
               g.wire_type == TRAK_PB_WIRE_VARINT)
        v = (int64_t)g.value, kind = 1;
      else if (g.number == TRAK_PB_TraceAttributes_Attribute_string_value &&
               g.wire_type == TRAK_PB_WIRE_LEN)
        str = (trak_span){g.data, g.len}, kind = 2;
    }
    if (!kind || !key.len) continue;
    char *name = malloc(key.len + 17);
    if (!name) abort();
    memcpy(name, "trace_attribute.", 16);
    memcpy(name + 16, key.data, key.len);
    name[16 + key.len] = 0;
    put(m, name, kind == 2, (const char *)str.data, str.len, v, TRAK_META_MACHINE_TRACE, 0, 1);
    free(name);
  }
}

static void trace_uuid(trak_importer *imp, trak_metadata *m, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  uint64_t msb = 0, lsb = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    if (f.number == TRAK_PB_TraceUuid_msb) msb = f.value;
    if (f.number == TRAK_PB_TraceUuid_lsb) lsb = f.value;
  }
  if (!msb && !lsb) return;
  uuid_text(m->uuid, msb, lsb);
  m->uuid_found = 1;
}

/* ---- trigger slices ---------------------------------------------------------------------- */

/* Adds an arg row (`key` as both keys) to the set that starts at row `set`; returns the row. */
static uint32_t arg_row(trak_importer *imp, uint32_t set, const char *key, trak_arg_type type) {
  trak_tables *t = imp->tables;
  uint32_t k = trak__strpool_intern(&t->strings, key, strlen(key));
  return trak__arg_add(t, set, k, k, type);
}

/* A trigger is an instant on the global "Trace Triggers" track, named by the trigger, with its
** producer as args (a Chrome trigger: its name hash), as Perfetto's importer makes it. */
static void trigger_slice(trak_importer *imp, const trak_packet_ctx *ctx, int64_t ts,
                          uint32_t field, const uint8_t *data, size_t len) {
  trak_tables *t = imp->tables;
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_span name = {0}, producer = {0};
  int has_uid = 0, has_name = 0;
  int64_t uid = 0;
  uint64_t hash = 0;
  int chrome = field == TRAK_PB_TracePacket_chrome_trigger;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == 1 && f.wire_type == TRAK_PB_WIRE_LEN) /* trigger_name in both */
      name = (trak_span){f.data, f.len}, has_name = 1;
    else if (!chrome && f.number == TRAK_PB_Trigger_producer_name &&
             f.wire_type == TRAK_PB_WIRE_LEN)
      producer = (trak_span){f.data, f.len};
    else if (!chrome && f.number == TRAK_PB_Trigger_trusted_producer_uid &&
             f.wire_type == TRAK_PB_WIRE_VARINT)
      uid = (int32_t)f.value, has_uid = 1;
    else if (chrome && f.number == TRAK_PB_ChromeTrigger_trigger_name_hash &&
             f.wire_type == TRAK_PB_WIRE_FIXED32)
      hash = (uint32_t)f.value;
  }
  uint32_t name_id = has_name || !chrome
                         ? trak__strpool_intern(&t->strings, (const char *)name.data, name.len)
                         : trak__strpool_intern(&t->strings, "chrome_trigger", 14);
  uint32_t set = (uint32_t)t->args.n, row;
  if (chrome) {
    row = arg_row(imp, set, "chrome_trigger.name_hash", TRAK_ARG_UINT);
    t->args.int_value[row] = (int64_t)hash;
    if (has_name) {
      row = arg_row(imp, set, "chrome_trigger.name", TRAK_ARG_STRING);
      t->args.string_value[row] = name_id;
    }
  } else {
    if (producer.len) {
      uint32_t str = trak__strpool_intern(&t->strings, (const char *)producer.data, producer.len);
      row = arg_row(imp, set, "producer_name", TRAK_ARG_STRING);
      t->args.string_value[row] = str;
    }
    if (has_uid) {
      row = arg_row(imp, set, "trusted_producer_uid", TRAK_ARG_INT);
      t->args.int_value[row] = uid;
    }
  }
  static const char track_name[] = "Trace Triggers";
  uint32_t track =
      trak__keyed_track(imp, trak__track_key(TRAK_TK_TRIGGERS, 0, 0),
                        trak__strpool_intern(&t->strings, track_name, sizeof track_name - 1),
                        TRAK_NULL_U32, 0, TRAK_TK_TRIGGERS);
  trak_ev ev = {0};
  ev.ts = ts;
  ev.track = (uint32_t)TRAK_EV_INSTANT << TRAK_EV_TYPE_SHIFT | track;
  ev.pkt = (uint32_t)imp->packet_index;
  ev.u.s.name = name_id;
  ev.arg_set_id = trak__args_share(imp, set);
  trak__sequence_push(imp, ctx->seq, &ev);
}

/* TracePacket.track_event_range_of_interest: its start for the parse phase's crop (applied to
** the whole trace, as Perfetto's tokenizer sets it before any event is parsed) and the
** range_of_interest_start_us row. */
static void range_of_interest(trak_importer *imp, trak_metadata *m, const uint8_t *data,
                              size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int has_start = 0;
  int64_t start = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_TrackEventRangeOfInterest_start_us &&
        f.wire_type == TRAK_PB_WIRE_VARINT)
      start = (int64_t)f.value, has_start = 1;
  if (!has_start) {
    trak__report(imp, TRAK_STAT_RANGE_OF_INTEREST_NO_START,
                 "track_event_range_of_interest without start_us; ignored");
    return;
  }
  imp->range_of_interest_ns = trak__wmul(start, 1000);
  if (imp->opts.flags & TRAK_PROCESSOR_CROP_TRACK_EVENTS)
    imp->crop_before_ns = imp->range_of_interest_ns;
  set_int(m, "range_of_interest_start_us", TRAK_META_TRACE, start);
}

/* An ftrace bundle: only its header is read. The first bundle of each CPU of a machine says
** from when that CPU's data is complete; the latest of those is ftrace_latest_data_start_ns,
** as Perfetto's tokenizer sets it (a clock other than boot time or MONOTONIC_RAW, which needs
** the bundle's clock snapshots, is not converted: no row). The events count as unknown fields. */
static void ftrace_bundle(trak_importer *imp, trak_metadata *m, const trak_packet_ctx *ctx,
                          const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int has_cpu = 0, has_start = 0;
  uint64_t cpu = 0, start = 0, prev_end = 0, clock = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_VARINT) {
      if (trak__schema_lacks("FtraceEventBundle", f.number))
        imp->stats[TRAK_STAT_PROTO_UNKNOWN_FIELD]++;
      continue;
    }
    if (f.number == TRAK_PB_FtraceEventBundle_cpu) cpu = f.value, has_cpu = 1;
    if (f.number == TRAK_PB_FtraceEventBundle_ftrace_clock) clock = f.value;
    if (f.number == TRAK_PB_FtraceEventBundle_last_read_event_timestamp && has_start != 2)
      start = f.value, has_start = 1;
    if (f.number == TRAK_PB_FtraceEventBundle_previous_bundle_end_timestamp)
      prev_end = f.value, has_start = 2;
  }
  if (!has_cpu) return;
  int added;
  trak__map_put(&m->ftrace_cpus, (uint64_t)imp->threads.machine << 32 | (uint32_t)cpu, 1, &added);
  if (!added || !has_start) return;
  uint32_t clock_id = clock == TRAK_PB_FTRACE_CLOCK_UNSPECIFIED ? TRAK_PB_BUILTIN_CLOCK_BOOTTIME
                      : clock == TRAK_PB_FTRACE_CLOCK_MONO_RAW ? TRAK_PB_BUILTIN_CLOCK_MONOTONIC_RAW
                                                               : 0;
  int64_t ts;
  if (!clock_id || !ctx ||
      trak__clock_convert(imp, ctx->seq, clock_id, (int64_t)(has_start == 2 ? prev_end : start),
                          &ts))
    return;
  static const char key[] = "ftrace_latest_data_start_ns";
  for (size_t i = 0; i < m->rows.n; i++) { /* a later CPU's start replaces an earlier one */
    trak_meta_row *r = &m->rows.v[i];
    if (r->machine == m->machine && !strcmp(r->name, key)) {
      if (ts > r->value) r->value = ts;
      return;
    }
  }
  set_int(m, key, TRAK_META_MACHINE_TRACE, ts);
}

void trak__meta_packet(trak_importer *imp, const trak_packet_ctx *ctx, uint32_t field,
                       const uint8_t *data, size_t len) {
  trak_metadata *m = meta_get(imp);
  m->machine = imp->threads.machine;
  if (ctx && ctx->has_ts) m->last_ts = ctx->ts;
  int64_t ts = ctx && ctx->has_ts ? ctx->ts : 0;
  switch (field) {
  case TRAK_PB_TracePacket_trace_uuid:
    trace_uuid(imp, m, data, len);
    return;
  case TRAK_PB_TracePacket_system_info:
    system_info(imp, m, data, len);
    return;
  case TRAK_PB_TracePacket_service_event:
    service_event(imp, m, ts, data, len);
    return;
  case TRAK_PB_TracePacket_chrome_metadata:
    trak__chrome_metadata(imp, m->chrome_count++, data, len);
    return;
  case TRAK_PB_TracePacket_trace_attributes:
    trace_attributes(imp, m, data, len);
    return;
  case TRAK_PB_TracePacket_track_event_range_of_interest:
    range_of_interest(imp, m, data, len);
    return;
  case TRAK_PB_TracePacket_process_tree:
    if (ctx) trak__process_tree(imp, ctx, data, len);
    return;
  case TRAK_PB_TracePacket_ftrace_events:
    ftrace_bundle(imp, m, ctx, data, len);
    trak__ftrace_bundle(imp, ctx ? ctx->seq : NULL, data, len);
    return;
  case TRAK_PB_TracePacket_ftrace_stats:
    trak__ftrace_stats_packet(imp, data, len);
    return;
  case TRAK_PB_TracePacket_concurrent_session_event:
    if (ctx) trak__concurrent_session_event(imp, ctx, data, len);
    return;
  case TRAK_PB_TracePacket_trace_config: {
    /* its attributes now; the rest after sorting, as Perfetto parses it */
    trak_pb_decoder dec;
    trak_pb_field f;
    trak__dec_init(imp, &dec, data, len);
    while (trak_pb_decoder_next(&dec, &f) > 0)
      if (f.number == TRAK_PB_TraceConfig_trace_attributes && f.wire_type == TRAK_PB_WIRE_LEN)
        trace_attributes(imp, m, f.data, f.len);
    break;
  }
  default:
    break;
  }
  /* trace_config and triggers: read after sorting; a trigger is also a slice */
  if (ctx && field != TRAK_PB_TracePacket_trace_config &&
      field != TRAK_PB_TracePacket_chrome_events)
    trigger_slice(imp, ctx, ctx->has_ts ? ctx->ts : m->last_ts, field, data, len);
  late_packet lp = {field,     m->machine, ctx && ctx->has_ts ? ctx->ts : m->last_ts,
                    m->late.n, NULL,       len};
  lp.data = (uint8_t *)dup_n(data, len);
  trak_vec_push(m->late, lp);
}

/* ---- packets read after sorting --------------------------------------------------------- */

static void trace_config(trak_importer *imp, trak_metadata *m, const late_packet *lp) {
  trak_pb_decoder dec;
  trak_pb_field f;
  uint64_t msb = 0, lsb = 0;
  trak__dec_init(imp, &dec, lp->data, lp->len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_TraceConfig_trace_uuid_msb && f.wire_type == TRAK_PB_WIRE_VARINT)
      msb = f.value;
    else if (f.number == TRAK_PB_TraceConfig_trace_uuid_lsb && f.wire_type == TRAK_PB_WIRE_VARINT)
      lsb = f.value;
    else if (f.number == TRAK_PB_TraceConfig_unique_session_name && f.wire_type == TRAK_PB_WIRE_LEN)
      set_str(m, "unique_session_name", TRAK_META_TRACE, f.data, f.len);
  }
  if (!m->uuid_found && (msb || lsb)) {
    uuid_text(m->uuid, msb, lsb);
    m->uuid_found = 1;
  }
  trak_pb_buf text;
  trak_error err;
  trak_pb_buf_init_heap(&text);
  trak_pbtxt_print("TraceConfig", lp->data, lp->len, &text, &err);
  size_t n = text.error ? 0 : (size_t)(text.p - text.start);
  while (n && text.start[n - 1] == '\n') /* Perfetto's text has no final newline */
    n--;
  set_str(m, "trace_config_pbtxt", TRAK_META_TRACE, text.start, n);
  trak_pb_buf_free(&text);
  free(m->config);
  m->config = (uint8_t *)dup_n(lp->data, lp->len);
  m->config_len = lp->len;
}

/* The first clone snapshot trigger names the trace's trigger, else the first trigger. */
static void trigger(trak_importer *imp, trak_metadata *m, const late_packet *lp) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_span name = {0};
  trak__dec_init(imp, &dec, lp->data, lp->len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_Trigger_trigger_name && f.wire_type == TRAK_PB_WIRE_LEN)
      name = (trak_span){f.data, f.len};
  int clone = lp->field == TRAK_PB_TracePacket_clone_snapshot_trigger;
  if (clone && m->trigger_kind != 2) {
    m->trigger_kind = 2;
    set_str(m, "trace_trigger", TRAK_META_TRACE, name.data, name.len);
    trak__trace_stats_clone(imp, TRAK_CLONE_TRIGGER, 0, lp->ts);
  } else if (!clone && !m->trigger_kind) {
    m->trigger_kind = 1;
    set_str(m, "trace_trigger", TRAK_META_TRACE, name.data, name.len);
  }
}

/* The major version of a "Perfetto vNN.x" tracing_service_version, or -1. */
static int64_t service_major(const trak_metadata *m) {
  for (size_t i = 0; i < m->rows.n; i++) {
    const trak_meta_row *r = &m->rows.v[i];
    if (strcmp(r->name, "tracing_service_version") || !r->str) continue;
    if (strncmp(r->str, "Perfetto v", 10)) return -1;
    const char *s = r->str + 10;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    return end != s && (*end == '.' || *end == '-') && v < 1000000 ? (int64_t)v : -1;
  }
  return -1;
}

static int late_cmp(const void *a, const void *b) {
  const late_packet *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return (x->order > y->order) - (x->order < y->order);
}

/* ---- JSON ------------------------------------------------------------------------------- */

void trak__meta_json(trak_importer *imp, const char *text, size_t len) {
  trak_metadata *m = meta_get(imp);
  trak_json_cur c = {text, text + len, 1, NULL, NULL};
  if (trak__json_peek(&c) != '{') return;
  c.p++;
  if (trak__json_peek(&c) == '}') return;
  for (;;) {
    trak_json_value key, val;
    if (trak__json_member(&c, &key, &val)) return; /* keep what was read, as Perfetto does */
    char name[256];
    size_t kn = trak__json_unescape(&key, name + 14, sizeof name - 15);
    memcpy(name, "json_metadata.", 14);
    name[14 + kn] = 0;
    switch (val.kind) {
    case TRAK_JSON_TRUE:
    case TRAK_JSON_FALSE:
      set_int(m, name, TRAK_META_MACHINE_TRACE, val.kind == TRAK_JSON_TRUE);
      break;
    case TRAK_JSON_NUMBER: {
      char num[64];
      size_t n = val.len < sizeof num - 1 ? val.len : sizeof num - 1;
      memcpy(num, val.s, n);
      num[n] = 0;
      double d = strtod(num, NULL);
      if (d == trunc(d) && fabs(d) < 9.2e18) {
        set_int(m, name, TRAK_META_MACHINE_TRACE, (int64_t)d);
      } else {
        char g[32];
        int gn = snprintf(g, sizeof g, "%g", d);
        set_str(m, name, TRAK_META_MACHINE_TRACE, g, (size_t)gn);
      }
      break;
    }
    case TRAK_JSON_STRING: {
      char *s = malloc(val.len + 1);
      if (!s) abort();
      size_t n = trak__json_unescape(&val, s, val.len + 1);
      set_str(m, name, TRAK_META_MACHINE_TRACE, s, n);
      free(s);
      break;
    }
    case TRAK_JSON_OBJECT:
    case TRAK_JSON_ARRAY: /* its text, brackets included */
      set_str(m, name, TRAK_META_MACHINE_TRACE, val.s, val.len);
      break;
    default: /* null: no row */
      break;
    }
    int ch = trak__json_peek(&c);
    if (ch != ',') return;
    c.p++;
  }
}

/* ---- the table -------------------------------------------------------------------------- */

void trak__meta_finish(trak_importer *imp, const char *trace_type, int64_t size) {
  trak_metadata *m = meta_get(imp);
  if (m->late.n) qsort(m->late.v, m->late.n, sizeof *m->late.v, late_cmp);
  for (size_t i = 0; i < m->late.n; i++) {
    late_packet *lp = &m->late.v[i];
    m->machine = lp->machine;
    if (lp->field == TRAK_PB_TracePacket_trace_config)
      trace_config(imp, m, lp);
    else if (lp->field == TRAK_PB_TracePacket_chrome_trigger)
      trak__chrome_trigger(imp, lp->data, lp->len);
    else if (lp->field == TRAK_PB_TracePacket_chrome_events)
      trak__chrome_events(imp, &m->chrome_bundles, lp->data, lp->len);
    else
      trigger(imp, m, lp);
    free(lp->data);
  }
  trak_vec_free(m->late);
  m->machine = 0;
  trak__trace_stats_finish(imp, m->config, m->config_len, service_major(m));
  /* trace_uuid and trace_type first, trace_size_bytes last, as Perfetto numbers them */
  char uuid[37];
  if (m->uuid_found)
    memcpy(uuid, m->uuid, sizeof uuid);
  else
    uuid_text(uuid, 0, m->hash);
  /* JSON timestamps are on the trace file's own clock, systrace's on CLOCK_MONOTONIC */
  int json = !strcmp(trace_type, "json"), systrace = !strcmp(trace_type, "systrace");
  size_t n = m->rows.n, head = json || systrace ? 3 : 2;
  for (size_t i = 0; i < head + 1; i++) {
    trak_meta_row empty = {0};
    trak_vec_push(m->rows, empty);
  }
  memmove(m->rows.v + head, m->rows.v, n * sizeof *m->rows.v);
  trak_meta_row *r = m->rows.v;
  r[0] = (trak_meta_row){dup_n("trace_uuid", 10),
                         dup_n(uuid, 36),
                         0,
                         0,
                         1,
                         m->uuid_found ? TRAK_META_TRACE : TRAK_META_GLOBAL,
                         0};
  r[1] = (trak_meta_row){
      dup_n("trace_type", 10), dup_n(trace_type, strlen(trace_type)), 0, 0, 1, TRAK_META_TRACE, 0};
  if (json || systrace)
    r[2] =
        (trak_meta_row){dup_n("trace_time_clock_id", 19),
                        NULL,
                        json ? TRAK_PB_BUILTIN_CLOCK_TRACE_FILE : TRAK_PB_BUILTIN_CLOCK_MONOTONIC,
                        0,
                        0,
                        TRAK_META_GLOBAL,
                        0};
  r[head + n] =
      (trak_meta_row){dup_n("trace_size_bytes", 16), NULL, size, 0, 0, TRAK_META_TRACE, 0};
}

int trak__meta_row(const trak_importer *imp, size_t i, trak_meta_row *out) {
  if (!imp->meta || i >= imp->meta->rows.n) return 0;
  *out = imp->meta->rows.v[i];
  return 1;
}

void trak__meta_free(trak_importer *imp) {
  trak_metadata *m = imp->meta;
  if (!m) return;
  for (size_t i = 0; i < m->rows.n; i++) {
    free(m->rows.v[i].name);
    free(m->rows.v[i].str);
  }
  trak_vec_free(m->rows);
  trak__map_free(&m->by_name);
  trak__map_free(&m->ftrace_cpus);
  for (size_t i = 0; i < m->late.n; i++)
    free(m->late.v[i].data);
  trak_vec_free(m->late);
  free(m->config);
  free(m);
  imp->meta = NULL;
}
