/*
** This file holds the rare TracePacket fields that become metadata rows, trace-wide state or
** trigger slices, decoded here and handed to import/metadata.c (and the others) as values:
** trace_uuid, system_info, service_event, trace_attributes, track_event_range_of_interest, the
** header of ftrace bundles, triggers and trace_config. Rows keep the order Perfetto gives them:
** the packets Perfetto reads while tokenizing in file order, then those it reads after sorting
** (trace_config, triggers, Chrome triggers and event bundles) in timestamp order, kept until
** trak__proto_finish. These packets are rare; nothing here runs per event.
*/
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/proto/proto.h"
#include "processor/tables/arg_value.h"
#include "trak/pbtxt.h"

trak_packet_state *trak__packet_state(trak_importer *imp) {
  if (!imp->packet_state) {
    imp->packet_state = calloc(1, sizeof *imp->packet_state);
    if (!imp->packet_state) abort();
  }
  return imp->packet_state;
}

/* ---- packets read in file order --------------------------------------------------------- */

/* SystemInfo, decoded for trak__meta_system_info. */
void trak__system_info_packet(trak_importer *imp, const uint8_t *data, size_t len) {
  static const uint32_t strings[TRAK_SYSINFO_STRINGS] = {
      [TRAK_SYSINFO_MANUFACTURER] = TRAK_PB_SystemInfo_android_device_manufacturer,
      [TRAK_SYSINFO_SERVICE_VERSION] = TRAK_PB_SystemInfo_tracing_service_version,
      [TRAK_SYSINFO_SOC_MODEL] = TRAK_PB_SystemInfo_android_soc_model,
      [TRAK_SYSINFO_GUEST_SOC_MODEL] = TRAK_PB_SystemInfo_android_guest_soc_model,
      [TRAK_SYSINFO_HARDWARE_REVISION] = TRAK_PB_SystemInfo_android_hardware_revision,
      [TRAK_SYSINFO_STORAGE_MODEL] = TRAK_PB_SystemInfo_android_storage_model,
      [TRAK_SYSINFO_RAM_MODEL] = TRAK_PB_SystemInfo_android_ram_model,
      [TRAK_SYSINFO_SERIAL_CONSOLE] = TRAK_PB_SystemInfo_android_serial_console,
  };
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak_system_info si = {0};
  trak_span uts = {0};
  uint32_t page_size = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    int is_len = f.wire_type == TRAK_PB_WIRE_LEN;
    if (f.number == TRAK_PB_SystemInfo_page_size && !is_len)
      page_size = (uint32_t)f.value;
    else if (f.number == TRAK_PB_SystemInfo_utsname && is_len)
      uts = (trak_span){f.data, f.len}, si.has_uts = 1;
    else if (f.number == TRAK_PB_SystemInfo_android_build_fingerprint && is_len)
      si.fingerprint = (trak_span){f.data, f.len}, si.has_fingerprint = 1;
    else if (f.number == TRAK_PB_SystemInfo_android_sdk_version && !is_len)
      si.sdk = (int64_t)f.value, si.has_sdk = 1;
    else if (f.number == TRAK_PB_SystemInfo_timezone_off_mins && !is_len)
      si.tz = (int32_t)f.value, si.has_tz = 1;
    else if (f.number == TRAK_PB_SystemInfo_system_ram_bytes && !is_len)
      si.ram = (int64_t)f.value, si.has_ram = 1;
    else if (f.number == TRAK_PB_SystemInfo_num_cpus && !is_len)
      si.cpus = (int64_t)(uint32_t)f.value, si.has_cpus = 1;
    else if (f.number == TRAK_PB_SystemInfo_machine_name && is_len)
      si.machine_name = (trak_span){f.data, f.len};
    else if (is_len)
      for (size_t i = 0; i < TRAK_SYSINFO_STRINGS; i++)
        if (strings[i] == f.number) si.str[i] = (trak_span){f.data, f.len}, si.has_str[i] = 1;
  }
  if (si.has_uts) {
    trak__dec_init(imp, &sub, uts.data, uts.len);
    while (trak_pb_decoder_next(&sub, &g) > 0)
      if (g.wire_type == TRAK_PB_WIRE_LEN && g.number >= 1 && g.number <= 4)
        si.uts[g.number - 1] = (trak_span){g.data, g.len};
  }
  trak__packet_state(imp)->page_size = page_size ? page_size : 4096; /* Perfetto's default */
  trak__meta_system_info(imp, &si);
}

void trak__service_event_packet(trak_importer *imp, int64_t ts, const uint8_t *data, size_t len) {
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
        trak__meta_add_multi(imp, "slow_start_data_source", 1, s, name[0].len + name[1].len + 1, 0,
                             TRAK_META_MACHINE_TRACE);
        free(s);
      }
      continue;
    }
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    switch (f.number) {
    case TRAK_PB_TracingServiceEvent_tracing_started:
      if (f.value) trak__meta_set_int(imp, "tracing_started_ns", TRAK_META_MACHINE_TRACE, ts);
      break;
    case TRAK_PB_TracingServiceEvent_tracing_disabled:
      if (f.value) trak__meta_set_int(imp, "tracing_disabled_ns", TRAK_META_MACHINE_TRACE, ts);
      break;
    case TRAK_PB_TracingServiceEvent_all_data_sources_started:
      if (f.value)
        trak__meta_set_int(imp, "all_data_source_started_ns", TRAK_META_MACHINE_TRACE, ts);
      break;
    case TRAK_PB_TracingServiceEvent_all_data_sources_flushed:
      if (f.value)
        trak__meta_add_multi(imp, "all_data_source_flushed_ns", 0, NULL, 0, ts,
                             TRAK_META_MACHINE_TRACE);
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
void trak__trace_attributes_packet(trak_importer *imp, const uint8_t *data, size_t len) {
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
    trak__meta_set(imp, name, TRAK_META_MACHINE_TRACE, kind == 2, str.data, str.len, v);
    free(name);
  }
}

void trak__trace_uuid_packet(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  uint64_t msb = 0, lsb = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    if (f.number == TRAK_PB_TraceUuid_msb) msb = f.value;
    if (f.number == TRAK_PB_TraceUuid_lsb) lsb = f.value;
  }
  trak__meta_uuid(imp, msb, lsb, 0);
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
    trak__arg_set_int(t, row, (int64_t)hash);
    if (has_name) {
      row = arg_row(imp, set, "chrome_trigger.name", TRAK_ARG_STRING);
      trak__arg_set_str(t, row, name_id);
    }
  } else {
    if (producer.len) {
      uint32_t str = trak__strpool_intern(&t->strings, (const char *)producer.data, producer.len);
      row = arg_row(imp, set, "producer_name", TRAK_ARG_STRING);
      trak__arg_set_str(t, row, str);
    }
    if (has_uid) {
      row = arg_row(imp, set, "trusted_producer_uid", TRAK_ARG_INT);
      trak__arg_set_int(t, row, uid);
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
void trak__range_of_interest_packet(trak_importer *imp, const uint8_t *data, size_t len) {
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
  trak__meta_set_int(imp, "range_of_interest_start_us", TRAK_META_TRACE, start);
}

void trak__ftrace_head_field(trak_fhead *h, const trak_pb_field *f) {
  if (f->wire_type != TRAK_PB_WIRE_VARINT) { /* an event is known without a look-up */
    if (f->number != TRAK_PB_FtraceEventBundle_event &&
        trak__schema_lacks("FtraceEventBundle", f->number))
      h->unknown++;
    return;
  }
  if (f->number == TRAK_PB_FtraceEventBundle_cpu) h->cpu = f->value, h->has_cpu = 1;
  if (f->number == TRAK_PB_FtraceEventBundle_ftrace_clock) h->clock = f->value;
  if (f->number == TRAK_PB_FtraceEventBundle_last_read_event_timestamp && h->has_start != 2)
    h->start = f->value, h->has_start = 1;
  if (f->number == TRAK_PB_FtraceEventBundle_previous_bundle_end_timestamp)
    h->prev_end = f->value, h->has_start = 2;
}

/* An ftrace bundle: only its header is read (the decoding thread's reading of it, when it read
** the bundle). The first bundle of each CPU of a machine says
** from when that CPU's data is complete; the latest of those is ftrace_latest_data_start_ns,
** as Perfetto's tokenizer sets it (a clock other than boot time or MONOTONIC_RAW, which needs
** the bundle's clock snapshots, is not converted: no row). The events count as unknown fields. */
void trak__ftrace_bundle_header(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                                size_t len) {
  const trak_fpre *pre = imp->ftrace_pre;
  trak_fhead h = {0};
  if (pre && pre->data == data && pre->len == len) {
    h = pre->head;
  } else {
    trak_pb_decoder dec;
    trak_pb_field f;
    trak__dec_init(imp, &dec, data, len);
    while (trak_pb_decoder_next(&dec, &f) > 0)
      trak__ftrace_head_field(&h, &f);
  }
  imp->stats[TRAK_STAT_PROTO_UNKNOWN_FIELD] += h.unknown;
  if (!h.has_cpu) return;
  trak_packet_state *m = trak__packet_state(imp);
  int added;
  trak__map_put(&m->ftrace_cpus, (uint64_t)imp->threads.machine << 32 | (uint32_t)h.cpu, 1, &added);
  if (!added || !h.has_start) return;
  uint32_t clock_id = h.clock == TRAK_PB_FTRACE_CLOCK_UNSPECIFIED ? TRAK_PB_BUILTIN_CLOCK_BOOTTIME
                      : h.clock == TRAK_PB_FTRACE_CLOCK_MONO_RAW
                          ? TRAK_PB_BUILTIN_CLOCK_MONOTONIC_RAW
                          : 0;
  int64_t ts;
  int64_t raw = (int64_t)(h.has_start == 2 ? h.prev_end : h.start);
  if (clock_id && ctx && !imp->threads.machine) trak__clock_cache_note(imp, clock_id, raw);
  if (!clock_id || !ctx || trak__clock_convert(imp, ctx->seq, clock_id, raw, &ts)) return;
  /* a later CPU's start replaces an earlier one */
  trak__meta_set_max(imp, "ftrace_latest_data_start_ns", TRAK_META_MACHINE_TRACE, ts);
}

void trak__late_packet_keep(trak_importer *imp, const trak_packet_ctx *ctx, uint32_t field,
                            const uint8_t *data, size_t len) {
  trak_packet_state *m = trak__packet_state(imp);
  if (field == TRAK_PB_TracePacket_trace_config) {
    /* its attributes now; the rest after sorting, as Perfetto parses it */
    trak_pb_decoder dec;
    trak_pb_field f;
    trak__dec_init(imp, &dec, data, len);
    while (trak_pb_decoder_next(&dec, &f) > 0)
      if (f.number == TRAK_PB_TraceConfig_trace_attributes && f.wire_type == TRAK_PB_WIRE_LEN)
        trak__trace_attributes_packet(imp, f.data, f.len);
  } else if (field != TRAK_PB_TracePacket_chrome_events) { /* a trigger is also a slice */
    trigger_slice(imp, ctx, ctx->has_ts ? ctx->ts : m->last_ts, field, data, len);
  }
  trak_late_packet lp = {
      field, imp->threads.machine, ctx->has_ts ? ctx->ts : m->last_ts, m->late.n, NULL, len};
  if (!(lp.data = malloc(len ? len : 1))) abort();
  if (len) memcpy(lp.data, data, len);
  trak_vec_push(m->late, lp);
}

/* ---- packets read after sorting --------------------------------------------------------- */

/* A TraceConfig: its uuid, session name and text rows; the packet's bytes (taken from `lp`)
** are kept for trace_stats.c. */
static void trace_config(trak_importer *imp, trak_packet_state *m, trak_late_packet *lp) {
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
      trak__meta_set_str(imp, "unique_session_name", TRAK_META_TRACE, f.data, f.len);
  }
  trak__meta_uuid(imp, msb, lsb, 1);
  trak_pb_buf text;
  trak_error err;
  trak_pb_buf_init_heap(&text);
  trak_pbtxt_print("TraceConfig", lp->data, lp->len, &text, &err);
  size_t n = text.error ? 0 : (size_t)(text.p - text.start);
  while (n && text.start[n - 1] == '\n') /* Perfetto's text has no final newline */
    n--;
  trak__meta_set_str(imp, "trace_config_pbtxt", TRAK_META_TRACE, text.start, n);
  trak_pb_buf_free(&text);
  free(m->config);
  m->config = lp->data, m->config_len = lp->len;
  imp->trace_config = m->config, imp->trace_config_len = m->config_len;
  lp->data = NULL;
}

/* The first clone snapshot trigger names the trace's trigger, else the first trigger. */
static void trigger(trak_importer *imp, trak_packet_state *m, const trak_late_packet *lp) {
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
    trak__meta_set_str(imp, "trace_trigger", TRAK_META_TRACE, name.data, name.len);
    trak__trace_stats_clone(imp, TRAK_CLONE_TRIGGER, 0, lp->ts);
  } else if (!clone && !m->trigger_kind) {
    m->trigger_kind = 1;
    trak__meta_set_str(imp, "trace_trigger", TRAK_META_TRACE, name.data, name.len);
  }
}

/* The major version of a "Perfetto vNN.x" tracing_service_version, or -1. */
static int64_t service_major(const trak_importer *imp) {
  trak_meta_row r;
  for (size_t i = 0; trak__meta_row(imp, i, &r); i++) {
    if (strcmp(r.name, "tracing_service_version") || !r.str) continue;
    if (strncmp(r.str, "Perfetto v", 10)) return -1;
    const char *s = r.str + 10;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    return end != s && (*end == '.' || *end == '-') && v < 1000000 ? (int64_t)v : -1;
  }
  return -1;
}

static int late_cmp(const void *a, const void *b) {
  const trak_late_packet *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return (x->order > y->order) - (x->order < y->order);
}

void trak__proto_finish(trak_importer *imp) {
  trak_packet_state *m = trak__packet_state(imp);
  assert(!m->finished); /* runs once: the kept packets are freed here */
  m->finished = 1;
  trak__stack_samples_finish(imp);
  trak__perf_samples_finish(imp);
  trak__deobfuscation_finish(imp); /* every frame is made now */
  if (m->late.n) qsort(m->late.v, m->late.n, sizeof *m->late.v, late_cmp);
  for (size_t i = 0; i < m->late.n; i++) {
    trak_late_packet *lp = &m->late.v[i];
    trak__meta_machine(imp, lp->machine);
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
  trak__meta_machine(imp, 0);
  trak__trace_stats_finish(imp, m->config, m->config_len, service_major(imp));
}

void trak__packet_state_free(trak_importer *imp) {
  trak_packet_state *m = imp->packet_state;
  if (!m) return;
  trak__map_free(&m->ftrace_cpus);
  trak__map_free(&m->irq_names);
  trak__map_free(&m->disks);
  trak_vec_free(m->disk_prev);
  trak__map_free(&m->power);
  trak_vec_free(m->power_names);
  trak_vec_free(m->rail_values);
  trak__gpu_free(m->gpu);
  trak__gpu_stages_free(m->gpu_stages);
  trak__graphics_frames_free(m->graphics_frames);
  trak__frame_timeline_free(m->frame_timeline);
  for (size_t i = 0; i < m->late.n; i++)
    free(m->late.v[i].data);
  trak_vec_free(m->late);
  free(m->config);
  free(m);
  imp->packet_state = NULL;
  imp->trace_config = NULL, imp->trace_config_len = 0;
}
