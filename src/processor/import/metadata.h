/*
** The metadata table (metadata.c), filled as Perfetto's importer fills it: trace uuid, type,
** size, clocks, system info and the rows other files add through trak__meta_add.
*/
#ifndef TRAK_PROCESSOR_IMPORT_METADATA_H
#define TRAK_PROCESSOR_IMPORT_METADATA_H

#include <stddef.h>
#include <stdint.h>

#include "processor/import/sequence.h"
#include "processor/tables/import_result.h"

typedef struct trak_importer trak_importer;

/* The metadata table (metadata.c), filled as Perfetto's importer fills it; its rows
** (trak_meta_row) are tables/import_result.h's. */
/* The first raw bytes of the trace (Perfetto's trace_uuid, when the trace has none, is an
** FNV-1a hash of its first 4096 bytes). `offset` is where `data` starts in the input. */
void trak__meta_hash_input(trak_importer *imp, const uint8_t *data, size_t len, uint64_t offset);
/* A packet field metadata.c handles (TracePacket field number `field`): trace_uuid,
** system_info, service_event, triggers, chrome_metadata, trace_attributes, trace_config. */
__attribute__((cold)) void trak__meta_packet(trak_importer *imp, const trak_packet_ctx *ctx,
                                             uint32_t field, const uint8_t *data, size_t len);
/* The first clock snapshot fixed the trace clock (the trace_time_clock_id row). */
void trak__meta_clock_seen(trak_importer *imp);
/* Adds a metadata row of `scope` (a string `str` of `len` bytes with is_str, else `value`),
** after those already there, keys repeating (metadata.c). */
void trak__meta_add(trak_importer *imp, const char *name, int is_str, const void *str, size_t len,
                    int64_t value, int scope);
/* A JSON trace's top-level "metadata" object (its text), as json_metadata.* rows. */
void trak__meta_json(trak_importer *imp, const char *text, size_t len);
/* The rows in Perfetto's order (trace_uuid, trace_type, ..., trace_size_bytes), ready after
** trak__meta_finish; `trace_type` is the trace's format as Perfetto names it ("proto", "json",
** "systrace"), `size` its byte count. */
void trak__meta_finish(trak_importer *imp, const char *trace_type, int64_t size);
int trak__meta_row(const trak_importer *imp, size_t i, trak_meta_row *out);
void trak__meta_free(trak_importer *imp);

/* Chromium's packets' metadata rows (implemented in proto/chrome_metadata.c): a
** ChromeMetadataPacket of the `instance`-th Chrome (0 first), a ChromeTrigger, a
** ChromeEventBundle (`bundles` counts those
** with metadata so far; their keys depend on it). */
void trak__chrome_metadata(trak_importer *imp, uint32_t instance, const uint8_t *data, size_t len);
void trak__chrome_trigger(trak_importer *imp, const uint8_t *data, size_t len);
void trak__chrome_events(trak_importer *imp, uint32_t *bundles, const uint8_t *data, size_t len);

/* TracePacket.ftrace_stats (implemented in proto/ftrace_bundle.c): the per-CPU ring buffer
** figures at the start or end of the trace, as stats. */
void trak__ftrace_stats_packet(trak_importer *imp, const uint8_t *data, size_t len);
/* TracePacket.ftrace_events (implemented in proto/ftrace_bundle.c): the bundle's events to the
** Linux event sink (ftrace/ftrace.h); `seq` (may be NULL) converts their boot-time timestamps. */
void trak__ftrace_bundle(trak_importer *imp, struct trak_sequence *seq, const uint8_t *data,
                         size_t len);

#endif /* TRAK_PROCESSOR_IMPORT_METADATA_H */
