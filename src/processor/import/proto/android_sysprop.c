/*
** This file holds TracePacket.android_system_property (AndroidSystemProperty): the properties
** Perfetto's importer turns into counters at the packet's time, each value an int32 written in
** full as decimal: debug.tracing.battery_stats.<x> on the battery_stats track
** "battery_stats.<x>" (the one atrace's battery_stats counters feed), debug.tracing.screen_state on
** ScreenState, and mcc, mnc, desktop_mode_visible_tasks, battery_status (BatteryStatus) and
** plug_type (PlugType) on sysprop_counter tracks told apart by the property's name.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/proto/proto.h"

#define PREFIX "debug.tracing."
#define PREFIX_LEN (sizeof PREFIX - 1)

/* `s` (n bytes) as an int32 when it is one in full (Perfetto's base::StringToInt32). */
static int to_int32(const uint8_t *s, size_t n, int32_t *out) {
  char buf[32];
  if (!n || n >= sizeof buf) return 0;
  memcpy(buf, s, n);
  buf[n] = 0;
  char *end;
  errno = 0;
  long v = strtol(buf, &end, 10);
  if (*end || errno || v < INT32_MIN || v > INT32_MAX) return 0;
  *out = (int32_t)v;
  return 1;
}

static int is(const trak_span *name, const char *s) {
  return name->len == strlen(s) && !memcmp(name->data, s, name->len);
}

/* One property: its counter, if Perfetto makes one of it. */
static void property(trak_importer *imp, void *arg, const uint8_t *data, size_t len) {
  trak_packet_ctx *ctx = arg;
  trak_strpool *pool = &imp->tables->strings;
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_span name = {(const uint8_t *)"", 0}, value = {(const uint8_t *)"", 0};
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_LEN) continue;
    if (f.number == TRAK_PB_AndroidSystemProperty_PropertyValue_name)
      name = (trak_span){f.data, f.len};
    else if (f.number == TRAK_PB_AndroidSystemProperty_PropertyValue_value)
      value = (trak_span){f.data, f.len};
  }
  int32_t state;
  if (!to_int32(value.data, value.len, &state)) return;
  if (name.len < PREFIX_LEN || memcmp(name.data, PREFIX, PREFIX_LEN)) return;
  trak_span bare = {name.data + PREFIX_LEN, name.len - PREFIX_LEN};
  uint32_t track;
  if (is(&bare, "screen_state")) {
    track = trak__system_counter_track(imp, TRAK_TK_SCREEN_STATE, TRAK_NULL_U32, 0, 0,
                                       trak__strpool_intern(pool, "ScreenState", 11));
  } else if (bare.len >= 14 && !memcmp(bare.data, "battery_stats.", 14)) {
    uint32_t id = trak__strpool_intern(pool, (const char *)bare.data, bare.len);
    track = trak__system_counter_track(imp, TRAK_TK_BATTERY_STATS, TRAK_NULL_U32, 0, id, id);
  } else {
    const char *label = is(&bare, "battery_status") ? "BatteryStatus"
                        : is(&bare, "plug_type")    ? "PlugType"
                                                    : NULL;
    if (!label && !is(&bare, "mcc") && !is(&bare, "mnc") &&
        !is(&bare, "desktop_mode_visible_tasks"))
      return;
    uint32_t key = trak__strpool_intern(pool, (const char *)name.data, name.len);
    uint32_t track_name = label ? trak__strpool_intern(pool, label, strlen(label))
                                : trak__strpool_intern(pool, (const char *)bare.data, bare.len);
    track =
        trak__system_counter_track(imp, TRAK_TK_SYSPROP_COUNTER, TRAK_NULL_U32, 0, key, track_name);
  }
  trak__system_counter(imp, ctx, track, (double)state);
}

void trak__system_property_packet(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                                  size_t len) {
  trak_packet_ctx c = trak__packet_ctx_timed(imp, ctx);
  trak__dec_each(imp, data, len, TRAK_PB_AndroidSystemProperty_values, property, &c);
}
