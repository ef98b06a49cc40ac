/*
** This file holds the metadata table's rows as Perfetto's importer makes them, whatever the
** format: keys set once or repeated, per machine; trace_uuid (the trace's, else a hash of its
** first 4096 bytes), trace_type, trace_time_clock_id, system_info (with the machine table's
** columns) and trace_size_bytes. The formats decode their packets (proto/metadata_packets.c,
** json/json_import.c) and add the rows in the order Perfetto gives them. Nothing here runs
** per event.
*/
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/importer.h"

#define UUID_HASH_BYTES 4096

typedef struct trak_metadata {
  TRAK_VEC(trak_meta_row) rows; /* after trak__meta_finish: every row, in order */
  trak_map by_name;             /* FNV-1a of a single key's name -> its row */
  uint64_t hash;                /* FNV-1a of the first UUID_HASH_BYTES bytes */
  char uuid[37];                /* from the trace, when uuid_found */
  uint8_t uuid_found, clock_set;
  uint8_t finished; /* trak__meta_finish ran (it runs once) */
  uint32_t machine; /* of the rows being added (machine table row) */
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
  put(meta_get(imp), name, is_str, str, len, value, scope, 0, 0);
}

void trak__meta_add_multi(trak_importer *imp, const char *name, int is_str, const void *str,
                          size_t len, int64_t value, int scope) {
  put(meta_get(imp), name, is_str, str, len, value, scope, 1, 0);
}

void trak__meta_set(trak_importer *imp, const char *name, int scope, int is_str, const void *str,
                    size_t len, int64_t value) {
  put(meta_get(imp), name, is_str, str, len, value, scope, 0, 1);
}

static void set_str(trak_metadata *m, const char *name, int scope, const void *s, size_t len) {
  put(m, name, 1, s, len, 0, scope, 0, 1);
}
static void set_int(trak_metadata *m, const char *name, int scope, int64_t v) {
  put(m, name, 0, NULL, 0, v, scope, 0, 1);
}

void trak__meta_set_max(trak_importer *imp, const char *name, int scope, int64_t value) {
  trak_metadata *m = meta_get(imp);
  for (size_t i = 0; i < m->rows.n; i++) {
    trak_meta_row *r = &m->rows.v[i];
    if (r->machine == m->machine && !strcmp(r->name, name)) {
      if (value > r->value) r->value = value;
      return;
    }
  }
  set_int(m, name, scope, value);
}

void trak__meta_machine(trak_importer *imp, uint32_t machine) {
  meta_get(imp)->machine = machine;
}

/* Perfetto's text of a 128-bit uuid: msb then lsb in hex, 8-4-4-4-12. */
static void uuid_text(char out[37], uint64_t msb, uint64_t lsb) {
  snprintf(out, 37, "%08x-%04x-%04x-%04x-%012llx", (unsigned)(msb >> 32),
           (unsigned)(msb >> 16) & 0xffff, (unsigned)msb & 0xffff, (unsigned)(lsb >> 48),
           (unsigned long long)(lsb & 0xffffffffffffull));
}

void trak__meta_uuid(trak_importer *imp, uint64_t msb, uint64_t lsb, int keep) {
  trak_metadata *m = meta_get(imp);
  if ((!msb && !lsb) || (keep && m->uuid_found)) return;
  uuid_text(m->uuid, msb, lsb);
  m->uuid_found = 1;
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

/* ---- SystemInfo ------------------------------------------------------------------------- */

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

void trak__meta_system_info(trak_importer *imp, const trak_system_info *si) {
  static const char *const names[TRAK_SYSINFO_STRINGS] = {
      "android_device_manufacturer", "tracing_service_version",   "android_soc_model",
      "android_guest_soc_model",     "android_hardware_revision", "android_storage_model",
      "android_ram_model",           "android_serial_console",
  };
  trak_metadata *m = meta_get(imp);
  /* the machine table's columns for this packet's machine, next to the metadata rows */
  __typeof__(imp->tables->machine) *mt = &imp->tables->machine;
  uint32_t row = m->machine;
  /* Perfetto's order: utsname, timezone, fingerprint, manufacturer, sdk, the rest, RAM */
  if (si->has_uts) {
    const trak_span *u = si->uts;
    static const char *const uts_names[4] = {"system_name", "system_version", "system_release",
                                             "system_machine"};
    for (int i = 0; i < 4; i++)
      set_str(m, uts_names[i], TRAK_META_MACHINE, u[i].data, u[i].len);
    mt->sysname[row] = machine_str(imp, &u[0]), mt->version[row] = machine_str(imp, &u[1]);
    mt->release[row] = machine_str(imp, &u[2]), mt->arch[row] = machine_str(imp, &u[3]);
  }
  if (si->has_tz) set_int(m, "timezone_off_mins", TRAK_META_MACHINE, si->tz);
  if (si->has_fingerprint) {
    const trak_span *fp = &si->fingerprint;
    set_str(m, "android_build_fingerprint", TRAK_META_MACHINE, fp->data, fp->len);
    mt->fingerprint[row] = machine_str(imp, fp);
    int fp_sdk = fingerprint(m, (const char *)fp->data, fp->len, si->has_sdk);
    if (!si->has_sdk && fp_sdk >= 0) mt->sdk_version[row] = fp_sdk;
  }
  if (si->has_sdk) mt->sdk_version[row] = si->sdk;
  const trak_span *str = si->str;
  if (si->has_str[0]) mt->manufacturer[row] = machine_str(imp, &str[0]);
  if (si->machine_name.data) mt->name[row] = machine_str(imp, &si->machine_name);
  if (si->has_cpus) mt->num_cpus[row] = si->cpus;
  if (si->has_str[0]) set_str(m, names[0], TRAK_META_MACHINE, str[0].data, str[0].len);
  if (si->has_sdk) set_int(m, "android_sdk_version", TRAK_META_MACHINE, si->sdk);
  for (size_t i = 1; i < TRAK_SYSINFO_STRINGS; i++)
    if (si->has_str[i]) set_str(m, names[i], TRAK_META_MACHINE, str[i].data, str[i].len);
  if (si->has_ram) {
    int64_t gb = (int64_t)llround((double)si->ram / 1e9);
    set_int(m, "system_ram_bytes", TRAK_META_MACHINE, si->ram);
    set_int(m, "system_ram_gb", TRAK_META_MACHINE, gb);
    mt->ram_bytes[row] = si->ram, mt->ram_gb[row] = gb;
  }
}

/* ---- the table -------------------------------------------------------------------------- */

void trak__meta_finish(trak_importer *imp, const char *trace_type, int64_t size) {
  trak_metadata *m = meta_get(imp);
  assert(!m->finished);
  m->finished = 1;
  m->machine = 0;
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
  free(m);
  imp->meta = NULL;
}
