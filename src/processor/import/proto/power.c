/*
** This file holds the power packets of Perfetto's power data sources. TracePacket.battery
** (BatteryCounters), a battery's gauges as the linux.sysfs_power data source reads them,
** imported as Perfetto's importer does: one counter
** track of type battery_counter per battery and gauge (dimensions battery_name, counter_name;
** named "batt.<battery>.<gauge>", or "batt.<gauge>" for a battery without a name), a value per
** gauge the packet has. Two gauges are derived: the charge from energy and voltage when the
** gauge gives no charge, and the power (mW, always positive) from current and voltage. Both
** follow Perfetto's 64-bit integer arithmetic, so they truncate as its do.
** TracePacket.initial_display_state: the display's state, a value of the global "ScreenState"
** counter that atrace ScreenState counters also feed.
*/
#include <stdio.h>
#include <string.h>

#include "processor/import/proto/proto.h"

/* The packet's gauges: which it has (bit per field number) and their values. */
typedef struct gauges {
  uint32_t has;
  int64_t v[8]; /* by field number: the integer gauges */
  float capacity;
  uint32_t name; /* string id, 0: none */
} gauges;

#define HAS(g, field) ((g)->has >> (field) & 1)

/* Its value on the track of gauge `counter` of the packet's battery. */
static void gauge(trak_importer *imp, trak_packet_ctx *ctx, const gauges *g, const char *counter,
                  int push, double value) {
  trak_strpool *pool = &imp->tables->strings;
  const char *battery = g->name ? trak__str(pool, g->name) : "";
  char name[1024]; /* Perfetto's StackString<1024> */
  int n = g->name ? snprintf(name, sizeof name, "batt.%s.%s", battery, counter)
                  : snprintf(name, sizeof name, "batt.%s", counter);
  size_t name_len = n < 0 ? 0 : (size_t)n < sizeof name ? (size_t)n : sizeof name - 1;
  uint32_t key = trak__strpool_intern(pool, counter, strlen(counter));
  uint32_t track =
      trak__system_counter_track(imp, TRAK_TK_BATTERY_COUNTER, TRAK_NULL_U32, g->name, key,
                                 trak__strpool_intern(pool, name, name_len));
  if (push) trak__system_counter(imp, ctx, track, value);
}

/* a * b / c in 64-bit integers that wrap, as the C++ they come from does on x86-64 */
static int64_t mul_div(int64_t a, int64_t b, int64_t c) {
  return (int64_t)((uint64_t)a * (uint64_t)b) / c;
}

void trak__battery_packet(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                          size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  gauges g = {0};
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number >= 8) continue;
    if (f.number == TRAK_PB_BatteryCounters_name && f.wire_type == TRAK_PB_WIRE_LEN) {
      g.name = f.len ? trak__strpool_intern(&imp->tables->strings, (const char *)f.data, f.len) : 0;
    } else if (f.number == TRAK_PB_BatteryCounters_capacity_percent &&
               f.wire_type == TRAK_PB_WIRE_FIXED32) {
      uint32_t bits = (uint32_t)f.value;
      memcpy(&g.capacity, &bits, sizeof g.capacity);
    } else if (f.wire_type == TRAK_PB_WIRE_VARINT) {
      g.v[f.number] = (int64_t)f.value;
    } else {
      continue;
    }
    g.has |= 1u << f.number;
  }
  const int64_t *v = g.v;
  if (HAS(&g, TRAK_PB_BatteryCounters_charge_counter_uah)) {
    gauge(imp, ctx, &g, "charge_uah", 1, (double)v[TRAK_PB_BatteryCounters_charge_counter_uah]);
  } else if (HAS(&g, TRAK_PB_BatteryCounters_energy_counter_uwh) &&
             HAS(&g, TRAK_PB_BatteryCounters_voltage_uv)) {
    int64_t uv = v[TRAK_PB_BatteryCounters_voltage_uv]; /* the track is made either way */
    gauge(imp, ctx, &g, "charge_uah", uv > 0,
          uv > 0 ? (double)mul_div(v[TRAK_PB_BatteryCounters_energy_counter_uwh], 1000000, uv) : 0);
  }
  if (HAS(&g, TRAK_PB_BatteryCounters_capacity_percent))
    gauge(imp, ctx, &g, "capacity_pct", 1, (double)g.capacity);
  if (HAS(&g, TRAK_PB_BatteryCounters_current_ua))
    gauge(imp, ctx, &g, "current_ua", 1, (double)v[TRAK_PB_BatteryCounters_current_ua]);
  if (HAS(&g, TRAK_PB_BatteryCounters_current_avg_ua))
    gauge(imp, ctx, &g, "current.avg_ua", 1, (double)v[TRAK_PB_BatteryCounters_current_avg_ua]);
  if (HAS(&g, TRAK_PB_BatteryCounters_voltage_uv))
    gauge(imp, ctx, &g, "voltage_uv", 1, (double)v[TRAK_PB_BatteryCounters_voltage_uv]);
  if (HAS(&g, TRAK_PB_BatteryCounters_current_ua) && HAS(&g, TRAK_PB_BatteryCounters_voltage_uv)) {
    double mw = (double)mul_div(v[TRAK_PB_BatteryCounters_current_ua],
                                v[TRAK_PB_BatteryCounters_voltage_uv], 1000000000);
    gauge(imp, ctx, &g, "power_mw", 1, mw < 0 ? -mw : mw);
  }
}

void trak__initial_display_state_packet(trak_importer *imp, trak_packet_ctx *ctx,
                                        const uint8_t *data, size_t len) {
  int64_t state =
      (int32_t)trak__dec_varint(imp, data, len, TRAK_PB_InitialDisplayState_display_state, 0);
  uint32_t track =
      trak__system_counter_track(imp, TRAK_TK_SCREEN_STATE, TRAK_NULL_U32, 0, 0,
                                 trak__strpool_intern(&imp->tables->strings, "ScreenState", 11));
  trak__system_counter(imp, ctx, track, (double)state);
}
