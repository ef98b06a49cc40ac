/*
** The metadata table (metadata.c), filled as Perfetto's importer fills it: trace uuid, type,
** size, clocks, system info and the rows the formats add through trak__meta_set/_add.
*/
#ifndef TRAK_PROCESSOR_IMPORT_METADATA_H
#define TRAK_PROCESSOR_IMPORT_METADATA_H

#include <stddef.h>
#include <stdint.h>

#include "processor/import/sequence.h"
#include "processor/tables/import_result.h"

typedef struct trak_importer trak_importer;

/* The metadata table (metadata.c), filled as Perfetto's importer fills it; its rows
** (trak_meta_row) are tables/import_result.h's. The formats decode their packets (protobuf:
** proto/metadata_packets.c; JSON: json/json_import.c) and hand the values to the functions
** below. Rows belong to the machine last given to trak__meta_machine (0 until then). None of
** these functions can fail (out of memory aborts); strings are copied. */

/* The first raw bytes of the trace (Perfetto's trace_uuid, when the trace has none, is an
** FNV-1a hash of its first 4096 bytes). `offset` is where `data` starts in the input. */
void trak__meta_hash_input(trak_importer *imp, const uint8_t *data, size_t len, uint64_t offset);
/* The first clock snapshot fixed the trace clock (the trace_time_clock_id row). */
void trak__meta_clock_seen(trak_importer *imp);
/* Rows added from now on belong to `machine` (a machine table row). */
void trak__meta_machine(trak_importer *imp, uint32_t machine);
/* Sets the single row `name` of `scope` of the current machine: a string `str` of `len`
** bytes with is_str (str NULL: a NULL value), else `value`. A key already there keeps its
** position and takes the new value, as in Perfetto. */
void trak__meta_set(trak_importer *imp, const char *name, int scope, int is_str, const void *str,
                    size_t len, int64_t value);
/* trak__meta_set of an int row, unless the row is already there with a value >= `value`. */
void trak__meta_set_max(trak_importer *imp, const char *name, int scope, int64_t value);
/* Adds a row of `scope` (a string `str` of `len` bytes with is_str, else `value`) after those
** already there, keys repeating; `multi` marks a key Perfetto keeps several values of. */
void trak__meta_add(trak_importer *imp, const char *name, int is_str, const void *str, size_t len,
                    int64_t value, int scope);
/* trak__meta_add of a key Perfetto keeps several values of (its rows are marked multi). */
void trak__meta_add_multi(trak_importer *imp, const char *name, int is_str, const void *str,
                          size_t len, int64_t value, int scope);
/* The trace's uuid from its two halves (both 0: ignored); with `keep`, only if the trace has
** not given one yet (TraceConfig's uuid yields to a TraceUuid packet's). */
void trak__meta_uuid(trak_importer *imp, uint64_t msb, uint64_t lsb, int keep);

/* trak__meta_set of a string row / of an int row. */
static inline void trak__meta_set_str(trak_importer *imp, const char *name, int scope,
                                      const void *s, size_t len) {
  trak__meta_set(imp, name, scope, 1, s, len, 0);
}
static inline void trak__meta_set_int(trak_importer *imp, const char *name, int scope, int64_t v) {
  trak__meta_set(imp, name, scope, 0, NULL, 0, v);
}

/* SystemInfo's plain strings, in the order of Perfetto's rows (the manufacturer comes before
** android_sdk_version, the others after it). */
enum {
  TRAK_SYSINFO_MANUFACTURER,
  TRAK_SYSINFO_SERVICE_VERSION,
  TRAK_SYSINFO_SOC_MODEL,
  TRAK_SYSINFO_GUEST_SOC_MODEL,
  TRAK_SYSINFO_HARDWARE_REVISION,
  TRAK_SYSINFO_STORAGE_MODEL,
  TRAK_SYSINFO_RAM_MODEL,
  TRAK_SYSINFO_SERIAL_CONSOLE,
  TRAK_SYSINFO_STRINGS
};

/* A decoded SystemInfo: spans borrowed from the packet; each has_* says a field was there. */
typedef struct trak_system_info {
  trak_span uts[4]; /* utsname: sysname, version, release, machine */
  trak_span fingerprint, machine_name, str[TRAK_SYSINFO_STRINGS];
  int64_t sdk, tz, ram, cpus;
  uint8_t has_uts, has_fingerprint, has_sdk, has_tz, has_ram, has_cpus;
  uint8_t has_str[TRAK_SYSINFO_STRINGS];
} trak_system_info;

/* SystemInfo's rows (system_*, android_*, timezone, RAM, in Perfetto's order) and the machine
** table's columns of the current machine. */
void trak__meta_system_info(trak_importer *imp, const trak_system_info *si);

/* The rows in Perfetto's order (trace_uuid, trace_type, ..., trace_size_bytes), ready after
** trak__meta_finish, which runs once, after the formats have added theirs; `trace_type` is the
** trace's format as Perfetto names it ("proto", "json", "systrace"), `size` its byte count. */
void trak__meta_finish(trak_importer *imp, const char *trace_type, int64_t size);
/* Copies row `i` to *out (its strings stay the importer's). Returns 1, or 0 past the last. */
int trak__meta_row(const trak_importer *imp, size_t i, trak_meta_row *out);
/* Frees the rows; the importer's lifetime calls it. */
void trak__meta_free(trak_importer *imp);

#endif /* TRAK_PROCESSOR_IMPORT_METADATA_H */
