/*
** This file holds the metadata rows of Chromium's own packets, with Perfetto's keys:
** ChromeMetadataPacket ("cr-<a..z>-<what>" per Chrome instance, the background tracing
** scenario as base64), ChromeTrigger ("cr-triggered_rule_name_hash") and the metadata pairs of
** ChromeEventBundle ("cr-<name>", "cr-<n>-<name>" from the second bundle on). packet.c and
** metadata_packets.c call these; metadata.c keeps the rows (trak__meta_add).
*/
#include <stdio.h>
#include <stdlib.h>

#include "processor/import/proto/proto.h"

/* A row of one Chrome instance's metadata, "cr-<letter>-<what>" (Perfetto's keys). */
static void chrome_row(trak_importer *imp, char letter, const char *what, int is_str,
                       const trak_span *s, int64_t v) {
  char name[64];
  snprintf(name, sizeof name, "cr-%c-%s", letter, what);
  trak__meta_add(imp, name, is_str, s ? s->data : NULL, s ? s->len : 0, v, TRAK_META_MACHINE_TRACE);
}

void trak__chrome_metadata(trak_importer *imp, uint32_t instance, const uint8_t *data, size_t len) {
  char letter = (char)('a' + instance % 26);
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak_span app_version = {0}, os = {0}, package = {0}, categories = {0}, background = {0};
  int has[9] = {0};
  int64_t version_code = 0, channel = 0;
  TRAK_VEC(char) trials = {0};
  int on_line = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number > 8) continue;
    int is_len = f.wire_type == TRAK_PB_WIRE_LEN;
    trak_span s = {f.data, f.len};
    switch (f.number) {
    case TRAK_PB_ChromeMetadataPacket_chrome_version_code:
      if (!is_len) version_code = (int32_t)f.value, has[f.number] = 1;
      break;
    case TRAK_PB_ChromeMetadataPacket_app_version:
      if (is_len) app_version = s, has[f.number] = 1;
      break;
    case TRAK_PB_ChromeMetadataPacket_os_name:
      if (is_len) os = s, has[f.number] = 1;
      break;
    case TRAK_PB_ChromeMetadataPacket_app_package_name:
      if (is_len) package = s, has[f.number] = 1;
      break;
    case TRAK_PB_ChromeMetadataPacket_channel:
      if (!is_len) channel = (uint32_t)f.value, has[f.number] = 1;
      break;
    case TRAK_PB_ChromeMetadataPacket_enabled_categories:
      if (is_len) categories = s, has[f.number] = 1;
      break;
    case TRAK_PB_ChromeMetadataPacket_background_tracing_metadata:
      if (is_len) background = s, has[f.number] = 1;
      break;
    case TRAK_PB_ChromeMetadataPacket_field_trial_hashes: {
      if (!is_len) break;
      has[f.number] = 1;
      uint32_t hv[2] = {0, 0}; /* name, group */
      trak__dec_init(imp, &sub, f.data, f.len);
      while (trak_pb_decoder_next(&sub, &g) > 0)
        if (g.wire_type == TRAK_PB_WIRE_VARINT && (g.number == 1 || g.number == 2))
          hv[g.number - 1] = (uint32_t)g.value;
      char buf[48];
      /* two hashes to a line, as Perfetto writes them for its UI */
      if (on_line == 2) {
        trak_vec_push(trials, '\n');
        on_line = 1;
      } else {
        on_line++;
      }
      int n = snprintf(buf, sizeof buf, "{ name: %u, group: %u } ", hv[0], hv[1]);
      for (int i = 0; i < n; i++)
        trak_vec_push(trials, buf[i]);
      break;
    }
    default:
      break;
    }
  }
  if (has[2]) chrome_row(imp, letter, "playstore_version_code", 0, NULL, version_code);
  if (has[6]) chrome_row(imp, letter, "product-version", 1, &app_version, 0);
  if (has[8]) chrome_row(imp, letter, "os-name", 1, &os, 0);
  if (has[5]) chrome_row(imp, letter, "package-name", 1, &package, 0);
  if (has[7]) chrome_row(imp, letter, "channel", 0, NULL, channel);
  if (has[3]) chrome_row(imp, letter, "enabled_categories", 1, &categories, 0);
  if (has[4]) {
    trak_span t = {(const uint8_t *)trials.v, trials.n};
    chrome_row(imp, letter, "field_trial_hashes", 1, &t, 0);
  }
  trak_vec_free(trials);
  if (!has[1]) return;
  /* the scenario as base64 of its bytes, and its name hash */
  static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t n = background.len;
  char *out = malloc((n + 2) / 3 * 4 + 1);
  if (!out) abort();
  size_t o = 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)background.data[i] << 16;
    if (i + 1 < n) v |= (uint32_t)background.data[i + 1] << 8;
    if (i + 2 < n) v |= background.data[i + 2];
    out[o++] = b64[v >> 18 & 63];
    out[o++] = b64[v >> 12 & 63];
    out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
    out[o++] = i + 2 < n ? b64[v & 63] : '=';
  }
  trak__meta_add(imp, "cr-background_tracing_metadata", 1, out, o, 0, TRAK_META_MACHINE_TRACE);
  free(out);
  trak__dec_init(imp, &sub, background.data, background.len);
  while (trak_pb_decoder_next(&sub, &g) > 0)
    if (g.number == TRAK_PB_BackgroundTracingMetadata_scenario_name_hash &&
        g.wire_type == TRAK_PB_WIRE_FIXED32)
      trak__meta_add(imp, "cr-scenario_name_hash", 0, NULL, 0, (int64_t)(uint32_t)g.value,
                     TRAK_META_MACHINE_TRACE);
}

void trak__chrome_trigger(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int64_t hash = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_ChromeTrigger_trigger_name_hash && f.wire_type == TRAK_PB_WIRE_FIXED32)
      hash = (int64_t)(uint32_t)f.value;
  trak__meta_add(imp, "cr-triggered_rule_name_hash", 0, NULL, 0, hash, TRAK_META_MACHINE_TRACE);
}

/* ChromeEventBundle: each metadata pair is a row "cr-<name>" ("cr-<n>-<name>" from the
** second bundle with metadata on), an int, a bool as an int, or a string or JSON text; a pair
** without a value counts empty_chrome_metadata, as in Perfetto. */
void trak__chrome_events(trak_importer *imp, uint32_t *bundles, const uint8_t *data, size_t len) {
  trak_pb_decoder dec, md;
  trak_pb_field f, g;
  int counted = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_ChromeEventBundle_metadata || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    if (!counted) counted = 1, (*bundles)++;
    trak_span name = {(const uint8_t *)"", 0}, str = {0};
    int has_int = 0, has_str = 0;
    int64_t v = 0;
    trak__dec_init(imp, &md, f.data, f.len);
    while (trak_pb_decoder_next(&md, &g) > 0) {
      int is_len = g.wire_type == TRAK_PB_WIRE_LEN;
      if (g.number == TRAK_PB_ChromeEventBundle_Metadata_name && is_len)
        name = (trak_span){g.data, g.len};
      else if ((g.number == TRAK_PB_ChromeEventBundle_Metadata_string_value ||
                g.number == TRAK_PB_ChromeEventBundle_Metadata_json_value) &&
               is_len)
        str = (trak_span){g.data, g.len}, has_str = 1, has_int = 0;
      else if ((g.number == TRAK_PB_ChromeEventBundle_Metadata_int_value ||
                g.number == TRAK_PB_ChromeEventBundle_Metadata_bool_value) &&
               !is_len)
        v = g.number == TRAK_PB_ChromeEventBundle_Metadata_bool_value ? g.value != 0
                                                                      : (int64_t)g.value,
        has_int = 1, has_str = 0;
    }
    if (!has_int && !has_str) {
      imp->stats[TRAK_STAT_EMPTY_CHROME_METADATA]++;
      continue;
    }
    char key[512];
    int n = *bundles > 1 ? snprintf(key, sizeof key, "cr-%u-", *bundles)
                         : snprintf(key, sizeof key, "cr-");
    snprintf(key + n, sizeof key - (size_t)n, "%.*s", (int)name.len, (const char *)name.data);
    trak__meta_add(imp, key, has_str, has_str ? str.data : NULL, has_str ? str.len : 0, v,
                   TRAK_META_MACHINE_TRACE);
  }
}
