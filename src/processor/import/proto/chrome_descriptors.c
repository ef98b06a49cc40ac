/*
** This file holds what Chromium's track descriptors add to the process and thread tables, as
** Perfetto's track event parser does:
**   process names   a name replaces one of lower or equal priority: ChromeProcessDescriptor's
**                   type name (1; renderers 3) < ProcessDescriptor.process_name (2);
**   thread names    ChromeThreadDescriptor's type name (3) < ThreadDescriptor.thread_name (4);
**   process args    chrome.process_label[i] (ProcessDescriptor.process_labels),
**                   chrome.process_type (the type's name), chrome.host_app_package_name,
**                   chrome.crash_trace_id (uint).
** Names of the same priority: the one of the latest descriptor packet by timestamp stays.
** Descriptors are re-emitted on every sequence, so process args are collected while importing
** and each process gets one arg set at the end: a later value for a key replaces the earlier,
** later by the descriptor packet's timestamp, as Perfetto parses them in timestamp order.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb/schema.h"
#include "processor/import/import.h"

static uint32_t str_id(trak_importer *imp, const char *s) {
  return trak__strpool_intern(&imp->tables->strings, s, strlen(s));
}

/* Sets `name` on row `row` of a name column unless the row has a name of higher priority, or
** of the same priority from a later descriptor packet (Perfetto parses them in timestamp
** order). The map holds the index of the row's (priority, timestamp) in imp->name_marks. */
static void set_name(trak_importer *imp, trak_map *marks, uint32_t *names, uint32_t row,
                     uint32_t name, uint32_t p) {
  if (!name) return;
  int added;
  uint32_t *slot = trak__map_put(marks, row, 0, &added);
  if (added) {
    trak_name_mark m = {p, INT64_MIN};
    *slot = (uint32_t)imp->name_marks.n;
    trak_vec_push(imp->name_marks, m);
  }
  trak_name_mark *m = &imp->name_marks.v[*slot];
  if (p < m->prio || (p == m->prio && imp->descriptor_ts < m->ts)) return;
  m->prio = p;
  m->ts = imp->descriptor_ts;
  names[row] = name;
}

void trak__process_name_set(trak_importer *imp, uint32_t upid, uint32_t name, uint32_t prio) {
  set_name(imp, &imp->process_name_prio, imp->tables->process.name, upid, name, prio);
}

void trak__thread_name_set(trak_importer *imp, uint32_t utid, uint32_t name, uint32_t prio) {
  set_name(imp, &imp->thread_name_prio, imp->tables->thread.name, utid, name, prio);
}

void trak__process_arg(trak_importer *imp, uint32_t upid, uint32_t flat, uint32_t key,
                       trak_arg_type type, int64_t int_value, uint32_t str) {
  trak_owner_arg a = {upid, flat, key, (uint8_t)type, int_value, imp->descriptor_ts, str};
  trak_vec_push(imp->owner_args, a);
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
  trak__process_name_set(imp, upid, name, renderer ? 3 : 1);
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
      trak__thread_name_set(imp, utid, trak__chrome_thread_name(imp, (int32_t)f.value), 3);
}

/* Orders collected args by process, then as Perfetto parses descriptors: by their packets'
** timestamps, then in the order they came in. */
static int by_owner(const void *a, const void *b) {
  const trak_owner_arg *x = *(trak_owner_arg *const *)a, *y = *(trak_owner_arg *const *)b;
  if (x->upid != y->upid) return x->upid < y->upid ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x < y ? -1 : x > y;
}

void trak__process_args_flush(trak_importer *imp) {
  size_t n = imp->owner_args.n;
  if (!n) return;
  trak_owner_arg **order = malloc(n * sizeof *order);
  if (!order) abort();
  for (size_t i = 0; i < n; i++)
    order[i] = &imp->owner_args.v[i];
  qsort(order, n, sizeof *order, by_owner);
  trak_tables *t = imp->tables;
  for (size_t i = 0; i < n;) {
    uint32_t upid = order[i]->upid;
    uint32_t set = (uint32_t)t->args.n;
    uint32_t old = t->process.arg_set_id[upid];
    for (uint32_t r = old; old != TRAK_NULL_U32 && r < set && t->args.arg_set_id[r] == old; r++) {
      uint32_t row = trak__arg_add(t, set, t->args.flat_key[r], t->args.key[r],
                                   (trak_arg_type)t->args.value_type[r]);
      t->args.int_value[row] = t->args.int_value[r];
      t->args.real_value[row] = t->args.real_value[r];
      t->args.string_value[row] = t->args.string_value[r];
    }
    for (; i < n && order[i]->upid == upid; i++) {
      const trak_owner_arg *a = order[i];
      uint32_t row = trak__arg_add(t, set, a->flat, a->key, (trak_arg_type)a->type);
      t->args.int_value[row] = a->int_value;
      t->args.string_value[row] = a->str;
    }
    t->process.arg_set_id[upid] = trak__args_share(imp, set);
  }
  free(order);
  imp->owner_args.n = 0;
}
