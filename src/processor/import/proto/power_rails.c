/*
** This file holds TracePacket.power_rails (PowerRails, Perfetto's android.power data source), as
** Perfetto's importer reads it. Each rail descriptor makes its counter track at once, as Perfetto
** interns it while tokenizing: type power_rails, dimensions the rail's name and its session's
** uuid, named "power.rails.<name>" for the rails Perfetto knows by a friendly name and
** "power.<rail>_uws" for the others, source args raw_name and subsystem_name. Each energy value
** is a counter on the track its session and index name, at its own timestamp_ms
** (CLOCK_BOOTTIME) or else the packet's time, with the packet's time as arg packet_ts. Perfetto
** reads every descriptor before it sorts the values, so the values wait for the end of the
** tokenizing (trak__power_rails_finish): the last descriptor of an index names all its values.
*/
#include <stdio.h>
#include <string.h>

#include "processor/import/proto/proto.h"
#include "processor/tables/arg_value.h"

/* Perfetto's friendly names of well-known rails, by the end of the rail's name (first match). */
static const struct {
  const char *suffix, *name;
} friendly[] = {
    {"M_VDD_CPUCL0", "cpu.little"},
    {"M_VDD_CPUCL0_M", "cpu.little.mem"},
    {"M_VDD_CPUCL1", "cpu.mid"},
    {"M_VDD_CPUCL1_M", "cpu.mid.mem"},
    {"M_VDD_CPUCL2", "cpu.big"},
    {"M_VDD_INT", "system.fabric"},
    {"M_VDD_TPU", "tpu"},
    {"VSYS_PWR_DISP", "display"},
    {"VSYS_PWR_DISPLAY", "display"},
    {"M_DISP", "ldo.main.a.display"},
    {"VSYS_PWR_MODEM", "modem"},
    {"M_VDD_MIF", "memory.interface"},
    {"VSYS_PWR_WLAN_BT", "wifi.bt"},
    {"VSYS_PWR_MMWAVE", "mmwave"},
    {"S_VDD_AOC_RET", "aoc.memory"},
    {"S_VDD_AOC", "aoc.logic"},
    {"S_VDDQ_MEM", "ddr.a"},
    {"S_VDD2L", "ddr.b"},
    {"S_VDD2L_MEM", "ddr.b"},
    {"S_VDD2H_MEM", "ddr.c"},
    {"S_VDD_G3D", "gpu"},
    {"S_VDD_G3D_L2", "gpu.l2"},
    {"S_GNSS_CORE", "gps"},
    {"VSYS_PWR_RFFE", "radio.frontend"},
    {"VSYS_PWR_CAMERA", "camera"},
    {"S_VDD_CAM", "multimedia"},
    {"S_UDFPS", "udfps"},
    {"S_PLL_MIPI_UFS", "ufs"},
    {"M_LLDO1", "ldo.main.a"},
    {"M_LLDO2", "ldo.main.b"},
    {"S_LLDO1", "ldo.sub"},
};

/* The friendly name of rail `raw` (n bytes), NULL when Perfetto knows none. */
static const char *friendly_name(const char *raw, size_t n) {
  for (size_t i = 0; i < sizeof friendly / sizeof *friendly; i++) {
    size_t k = strlen(friendly[i].suffix);
    if (n >= k && !memcmp(raw + n - k, friendly[i].suffix, k)) return friendly[i].name;
  }
  return NULL;
}

/* The key of rail `index` of session `session` on the packet's machine in the state's map. */
static uint64_t rail_key(trak_importer *imp, uint64_t session, uint64_t index) {
  return trak__mix(trak__mix(trak__mix(0x7261696cULL, imp->threads.machine), session), index);
}

/* One PowerRails packet's session and time, for its messages. */
typedef struct rails_packet {
  trak_packet_ctx *ctx;
  uint64_t session;
  int64_t packet_ts; /* trace time */
} rails_packet;

/* One RailDescriptor of the packet `arg`: its track, made now. Indexes over 256 are skipped, as
** Perfetto skips them. */
static void rail_descriptor(trak_importer *imp, void *arg, const uint8_t *data, size_t len) {
  uint64_t session = ((const rails_packet *)arg)->session;
  trak_strpool *pool = &imp->tables->strings;
  trak_pb_decoder dec;
  trak_pb_field f;
  uint64_t index = 0;
  trak_span raw = {(const uint8_t *)"", 0}, subsys = {(const uint8_t *)"", 0};
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_PowerRails_RailDescriptor_index && f.wire_type == TRAK_PB_WIRE_VARINT)
      index = (uint32_t)f.value;
    else if (f.number == TRAK_PB_PowerRails_RailDescriptor_rail_name &&
             f.wire_type == TRAK_PB_WIRE_LEN)
      raw = (trak_span){f.data, f.len};
    else if (f.number == TRAK_PB_PowerRails_RailDescriptor_subsys_name &&
             f.wire_type == TRAK_PB_WIRE_LEN)
      subsys = (trak_span){f.data, f.len};
  }
  if (index > 256) return;
  const char *friendly_id = friendly_name((const char *)raw.data, raw.len);
  char name[256]; /* Perfetto's StackString<255> */
  int n = friendly_id ? snprintf(name, sizeof name, "power.rails.%s", friendly_id)
                      : snprintf(name, sizeof name, "power.%.*s_uws", (int)raw.len, raw.data);
  size_t name_len = n < 0 ? 0 : (size_t)n < sizeof name ? (size_t)n : sizeof name - 1;
  /* an empty string is NULL, as Perfetto interns it */
  uint32_t raw_id = raw.len ? trak__strpool_intern(pool, (const char *)raw.data, raw.len) : 0;
  int made;
  uint32_t track = trak__dim_counter_track(imp, TRAK_TK_POWER_RAILS, raw_id, session,
                                           trak__strpool_intern(pool, name, name_len), &made);
  if (made) {
    trak_track_info *info = &imp->tracks.info.v[track];
    info->dim_key = raw_id;
    info->dim_int = (int64_t)session;
    info->scope =
        subsys.len ? trak__strpool_intern(pool, (const char *)subsys.data, subsys.len) : 0;
  }
  trak__track_made_now(imp, track);
  int added;
  *trak__map_put(&trak__packet_state(imp)->power, rail_key(imp, session, index), track, &added) =
      track;
}

/* One EnergyData of the packet `arg`, kept for trak__power_rails_finish. */
static void energy_data(trak_importer *imp, void *arg, const uint8_t *data, size_t len) {
  const rails_packet *rp = arg;
  trak_packet_ctx *ctx = rp->ctx;
  uint64_t session = rp->session;
  int64_t packet_ts = rp->packet_ts;
  trak_pb_decoder dec;
  trak_pb_field f;
  uint64_t index = 0, energy = 0, ms = 0;
  int has_ms = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    if (f.number == TRAK_PB_PowerRails_EnergyData_index)
      index = (uint32_t)f.value;
    else if (f.number == TRAK_PB_PowerRails_EnergyData_timestamp_ms)
      ms = f.value, has_ms = 1;
    else if (f.number == TRAK_PB_PowerRails_EnergyData_energy)
      energy = f.value;
  }
  int64_t ts = packet_ts;
  /* timestamp_ms is CLOCK_BOOTTIME; a time no snapshot relates is dropped, as in Perfetto */
  if (has_ms) {
    int64_t ns = (int64_t)(ms * 1000000u);
    trak__clock_cache_note(imp, trak__clock_key(ctx->seq, TRAK_PB_BUILTIN_CLOCK_BOOTTIME), ns);
    if (trak__clock_convert(imp, ctx->seq, TRAK_PB_BUILTIN_CLOCK_BOOTTIME, ns, &ts)) return;
  }
  trak_tables *t = imp->tables;
  uint32_t key = trak__strpool_intern(&t->strings, "packet_ts", 9);
  uint32_t set = (uint32_t)t->args.n;
  uint32_t row = trak__arg_add(t, set, key, key, TRAK_ARG_UINT);
  trak__arg_set_int(t, row, packet_ts);
  trak_rail_value v = {ts,
                       ctx->seq,
                       rail_key(imp, session, index),
                       (double)energy,
                       trak__args_share(imp, set),
                       (uint32_t)imp->packet_index};
  trak_vec_push(trak__packet_state(imp)->rail_values, v);
}

void trak__power_rails_finish(trak_importer *imp) {
  trak_packet_state *s = trak__packet_state(imp);
  for (size_t i = 0; i < s->rail_values.n; i++) {
    const trak_rail_value *v = &s->rail_values.v[i];
    uint32_t *track = trak__map_get(&s->power, v->key);
    if (!track) {
      trak__report(imp, TRAK_STAT_POWER_RAIL_UNKNOWN_INDEX,
                   "power_rails energy at %lld of an index no rail descriptor of its session "
                   "names; dropped",
                   (long long)v->ts);
      continue;
    }
    trak_ev ev = {v->ts,  (uint32_t)TRAK_EV_COUNTER << TRAK_EV_TYPE_SHIFT | *track,
                  v->pkt, {{0, 0}},
                  v->set, 0};
    ev.u.value = v->value;
    /* each value sorts by its own time, as Perfetto's forged packets do: no decreasing-time
    ** check */
    trak__sequence_push(imp, v->seq, &ev);
  }
  trak_vec_free(s->rail_values);
}

void trak__power_rails_packet(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                              size_t len) {
  rails_packet rp = {ctx, trak__dec_varint(imp, data, len, TRAK_PB_PowerRails_session_uuid, 0),
                     ctx->has_ts ? ctx->ts : imp->latest_ts};
  trak__dec_each(imp, data, len, TRAK_PB_PowerRails_rail_descriptor, rail_descriptor, &rp);
  if (!trak__dec_each(imp, data, len, TRAK_PB_PowerRails_energy_data, energy_data, &rp))
    trak__report(imp, TRAK_STAT_POWER_RAIL_EMPTY_PACKET, "power_rails packet without energy data");
}
