/*
** This file holds what Chromium's track descriptors add to the process and thread tables, as
** Perfetto's track event parser does:
**   process names   ChromeProcessDescriptor's type name (TRAK_PROCESS_NAME_CHROME_LABEL;
**                   renderers TRAK_PROCESS_NAME_CHROME_RENDERER);
**   thread names    ChromeThreadDescriptor's type name (TRAK_THREAD_NAME_CHROME_TYPE);
**   process args    chrome.process_label[i] (ProcessDescriptor.process_labels),
**                   chrome.process_type (the type's name), chrome.host_app_package_name,
**                   chrome.crash_trace_id (uint).
** Names go through trak__process_name_set / trak__thread_name_set and args through
** trak__process_arg (threads.c, which keeps the priorities and writes one arg set per process).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb/schema.h"
#include "processor/import/proto/proto.h"

static uint32_t str_id(trak_importer *imp, const char *s) {
  return trak__strpool_intern(&imp->tables->strings, s, strlen(s));
}

void trak__chrome_process_descriptor(trak_importer *imp, uint32_t upid, const uint8_t *data,
                                     size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  int32_t type = 0;
  uint32_t host = 0;
  uint64_t crash = 0;
  int has_crash = 0;
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    int is_len = f.wire_type == TRAK_PB_WIRE_LEN;
    if (f.number == TRAK_PB_ChromeProcessDescriptor_process_type && !is_len)
      type = (int32_t)f.value;
    else if (f.number == TRAK_PB_ChromeProcessDescriptor_host_app_package_name && is_len)
      host = trak__strpool_intern(&imp->tables->strings, (const char *)f.data, f.len);
    else if (f.number == TRAK_PB_ChromeProcessDescriptor_crash_trace_id && !is_len)
      crash = f.value, has_crash = 1;
  }
  uint32_t name = trak__chrome_process_name(imp, type);
  const trak_pb_enum_desc *e = trak__schema_enum("ChromeEnums.ProcessType");
  const char *value = e ? trak__schema_enum_name(e, type) : NULL;
  int renderer =
      value && (!strcmp(value, "PROCESS_RENDERER") || !strcmp(value, "PROCESS_RENDERER_EXTENSION"));
  trak__process_name_set(imp, upid, name,
                         renderer ? TRAK_PROCESS_NAME_CHROME_RENDERER
                                  : TRAK_PROCESS_NAME_CHROME_LABEL);
  uint32_t k = str_id(imp, "chrome.process_type");
  trak__process_arg(imp, upid, k, k, TRAK_ARG_STRING, 0, name); /* NULL when unnamed */
  if (host) {
    k = str_id(imp, "chrome.host_app_package_name");
    trak__process_arg(imp, upid, k, k, TRAK_ARG_STRING, 0, host);
  }
  if (has_crash) {
    k = str_id(imp, "chrome.crash_trace_id");
    trak__process_arg(imp, upid, k, k, TRAK_ARG_UINT, (int64_t)crash, 0);
  }
}

void trak__process_labels(trak_importer *imp, uint32_t upid, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  uint32_t index = 0, flat = 0;
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_ProcessDescriptor_process_labels || f.wire_type != TRAK_PB_WIRE_LEN)
      continue;
    char key[48];
    snprintf(key, sizeof key, "chrome.process_label[%u]", index++);
    if (!flat) flat = str_id(imp, "chrome.process_label");
    trak__process_arg(imp, upid, flat, str_id(imp, key), TRAK_ARG_STRING, 0,
                      trak__strpool_intern(&imp->tables->strings, (const char *)f.data, f.len));
  }
}

void trak__chrome_thread_descriptor(trak_importer *imp, uint32_t utid, const uint8_t *data,
                                    size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_ChromeThreadDescriptor_thread_type &&
        f.wire_type == TRAK_PB_WIRE_VARINT)
      trak__thread_name_set(imp, utid, trak__chrome_thread_name(imp, (int32_t)f.value),
                            TRAK_THREAD_NAME_CHROME_TYPE);
}
