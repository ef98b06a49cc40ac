/*
** Problem accounting (report.c): the stats Perfetto's importers count, under Perfetto's names
** and severities, and the rows of _trace_import_logs. Every importer file reports through
** trak__report / trak__report_at; nothing is dropped without a counted stat.
*/
#ifndef TRAK_PROCESSOR_IMPORT_STATS_H
#define TRAK_PROCESSOR_IMPORT_STATS_H

#include <stdint.h>
#include "processor/tables/import_result.h"
#include "trak/processor.h"

typedef struct trak_importer trak_importer;

typedef enum trak_stat_id {
  TRAK_STAT_TRACE_TRUNCATED,
  TRAK_STAT_TRACE_CORRUPT,
  TRAK_STAT_PACKET_MALFORMED,
  TRAK_STAT_TEXT_PARSE_ERROR,
  TRAK_STAT_COMPRESSED_ERRORS,
  TRAK_STAT_COMPRESSED_UNSUPPORTED,
  TRAK_STAT_INCREMENTAL_INVALID,
  TRAK_STAT_PACKET_LOSS,
  TRAK_STAT_INTERNED_ERRORS,
  TRAK_STAT_CLOCK_SYNC_FAILURE, /* Perfetto's generic row, never counted: the three below are */
  TRAK_STAT_CLOCK_UNKNOWN_SOURCE,
  TRAK_STAT_CLOCK_NO_PATH,
  TRAK_STAT_CLOCK_UNDEFERRABLE,
  TRAK_STAT_UNKNOWN_TRACK,
  TRAK_STAT_NO_TRACK,
  TRAK_STAT_BAD_TYPE,
  TRAK_STAT_MISPLACED_END,
  TRAK_STAT_UNTERMINATED,
  TRAK_STAT_NON_NESTING,
  TRAK_STAT_COUNTER_NOT_COUNTER_TRACK,
  TRAK_STAT_EXTRA_COUNTER_MISMATCH,
  TRAK_STAT_DECREASING_TS,
  TRAK_STAT_TRACK_PARENT_UNKNOWN,
  TRAK_STAT_JSON_SYNTAX,
  TRAK_STAT_JSON_EVENT,
  TRAK_STAT_FLOW_NO_ENCLOSING,
  TRAK_STAT_LEGACY_UNSUPPORTED,
  TRAK_STAT_PACKET_TOO_LARGE,
  TRAK_STAT_COMPRESSED_TOO_DEEP,
  TRAK_STAT_INFLATE_LIMIT,
  TRAK_STAT_ANNOTATION_TOO_DEEP,
  TRAK_STAT_KEY_TOO_LONG,
  TRAK_STAT_JSON_EVENT_TOO_LARGE,
  TRAK_STAT_JSON_TOO_DEEP,
  TRAK_STAT_JSON_INVALID_UTF8,
  TRAK_STAT_STRING_INVALID_UTF8,
  TRAK_STAT_TRACE_EMPTY,
  TRAK_STAT_SPILL_OVERLAPPING_COMPLETE,
  TRAK_STAT_DROP_OVERLAPPING_COMPLETE,
  TRAK_STAT_NEGATIVE_TS_DROPPED,
  TRAK_STAT_JSON_DISPLAY_TIME_UNIT,
  TRAK_STAT_THREAD_MISSING_PID_TID,
  TRAK_STAT_PROCESS_MISSING_PID,
  TRAK_STAT_FLOW_END_WITHOUT_START,
  TRAK_STAT_FLOW_WITHOUT_DIRECTION,
  TRAK_STAT_FLOW_DUPLICATE_ID,
  TRAK_STAT_FLOW_STEP_WITHOUT_START,
  TRAK_STAT_INVALID_TIMESTAMP,
  TRAK_STAT_THREAD_DESCRIPTOR_SKIPPED,
  TRAK_STAT_DELTA_WITHOUT_STATE,
  TRAK_STAT_END_UNMATCHED,
  TRAK_STAT_MISSING_SEQUENCE_ID,
  TRAK_STAT_TEXT_UNKNOWN_FIELD,
  TRAK_STAT_PROTO_UNKNOWN_FIELD,
  TRAK_STAT_OUTSIDE_RANGE_OF_INTEREST,
  TRAK_STAT_RANGE_OF_INTEREST_NO_START,
  TRAK_STAT_CONCURRENT_UNKNOWN_STATE,
  TRAK_STAT_PROC_STAT_UNKNOWN_COUNTERS,
  TRAK_STAT_UNKNOWN_EXTENSION_FIELDS,
  TRAK_STAT_EMPTY_CHROME_METADATA,
  TRAK_STAT_IMPORT_MEMORY_LIMIT,
  TRAK_STAT_TRACK_HIERARCHY_LOOP,
  TRAK_STAT_TRACK_HIERARCHY_TOO_DEEP,
  /* Linux kernel data (import/ftrace/) */
  TRAK_STAT_FTRACE_BUNDLE_TOKENIZER_ERRORS,
  TRAK_STAT_FTRACE_MISSING_EVENT_ID,
  TRAK_STAT_MISMATCHED_SCHED_SWITCH_TIDS,
  TRAK_STAT_TASK_STATE_INVALID,
  TRAK_STAT_COMPACT_SCHED_HAS_PARSE_ERRORS,
  TRAK_STAT_COMPACT_SCHED_SWITCH_SKIPPED,
  TRAK_STAT_COMPACT_SCHED_WAKING_SKIPPED,
  TRAK_STAT_SYSTRACE_PARSE_FAILURE,
  TRAK_STAT_SYSTRACE_EVENT_UNPARSED, /* trak's: Perfetto drops such a line without a count */
  TRAK_STAT_FTRACE_PACKET_BEFORE_TRACING_START,
  TRAK_STAT_PROCESS_TRACKER_ERRORS,
  TRAK_STAT_FTRACE_SETUP_ERRORS,
  TRAK_STAT_RSS_STAT_UNKNOWN_KEYS, /* Perfetto's row, never counted: any member has a key */
  TRAK_STAT_RSS_STAT_NEGATIVE_SIZE,
  /* the power HAL's packets (proto/power_rails.c, proto/android_energy.c) */
  TRAK_STAT_POWER_RAIL_UNKNOWN_INDEX,
  TRAK_STAT_POWER_RAIL_EMPTY_PACKET,
  TRAK_STAT_ENERGY_BREAKDOWN_MISSING_VALUES,
  TRAK_STAT_ENERGY_DESCRIPTOR_INVALID,
  TRAK_STAT_ENERGY_UID_BREAKDOWN_MISSING_VALUES,
  TRAK_STAT_ENTITY_STATE_RESIDENCY_INVALID,
  TRAK_STAT_ENTITY_STATE_RESIDENCY_LOOKUP_FAILED,
  TRAK_STAT_RSS_STAT_UNKNOWN_THREAD_FOR_MM_ID,
  TRAK_STAT_TRUNCATED_SYS_WRITE_DURATION,
  /* the system's counters (proto/sys_stats.c) */
  TRAK_STAT_MEMINFO_UNKNOWN_KEYS,
  TRAK_STAT_VMSTAT_UNKNOWN_KEYS,
  TRAK_STAT_INVALID_CPU_TIMES,
  TRAK_STAT_PSI_UNKNOWN_RESOURCE,
  TRAK_STAT_SYS_STATS_UNIMPORTED,
  TRAK_STAT_CLOCK_CACHE_MISS,
  TRAK_STAT_FTRACE_GENERIC_DESCRIPTOR_ERRORS,
  TRAK_STAT_PARENT_PID_CHANGED,
  TRAK_STAT_KERNEL_TRACKEVENT_FORMAT_ERROR,
  TRAK_STAT_FTRACE_ABI_ZERO_DATA_LENGTH,
  TRAK_STAT_CPU_INFO_EMPTY,
  TRAK_STAT_CPU_INFO_UNKNOWN_FEATURES,
  TRAK_STAT_GENERIC_TASK_STATE_INVALID_ORDER,
  TRAK_STAT_STREAMING_PROFILE_INVALID_TS,
  TRAK_STAT_STACKPROFILE_PARSER_ERROR,
  TRAK_STAT_STACKPROFILE_INVALID_CALLSTACK,
  TRAK_STAT_STACKPROFILE_INVALID_FRAME,
  TRAK_STAT_FTRACE_THERMAL_EXYNOS_ACPM_UNKNOWN_TZ_ID,
  /* the systemd journal data source's counts (proto/journald.c) */
  TRAK_STAT_SYSTEMD_JOURNAL_NUM_FAILED,
  TRAK_STAT_SYSTEMD_JOURNAL_NUM_TOTAL,
  /* the Android package list (proto/packages.c) */
  TRAK_STAT_PACKAGES_LIST_PARSE_ERRORS,
  TRAK_STAT_PACKAGES_LIST_READ_ERRORS,
  /* the perf profiler's samples (proto/perf_samples.c) */
  TRAK_STAT_PERF_SAMPLES_SKIPPED,
  TRAK_STAT_PERF_SAMPLES_SKIPPED_DATALOSS,
  TRAK_STAT_STACKPROFILE_EMPTY_CALLSTACK,
  /* GPU counters (proto/gpu.c) */
  TRAK_STAT_GPU_COUNTERS_INVALID_SPEC,
  TRAK_STAT_GPU_COUNTERS_MISSING_SPEC, /* Perfetto's row, never counted */
  TRAK_STAT_GPU_COUNTERS_MISSING_TIMESTAMP,
  /* Android's graphics frame events (proto/graphics_frames.c) */
  TRAK_STAT_GRAPHICS_FRAME_EVENT_PARSER_ERRORS,
  /* Remote machines' clock syncs (proto/remote_clock_sync.c) */
  TRAK_STAT_INVALID_CLOCK_SNAPSHOTS,
  /* SurfaceFlinger's frame timeline (proto/frame_timeline.c) */
  TRAK_STAT_FRAME_TIMELINE_EVENT_PARSER_ERRORS,
  TRAK_STAT_FRAME_TIMELINE_UNPAIRED_END_EVENT,
  /* heapprofd's heap profiles (proto/heap_profile.c) */
  TRAK_STAT_HEAPPROFD_MISSING_PACKET,
  TRAK_STAT_HEAPPROFD_MALFORMED_PACKET,
  TRAK_STAT_STACKPROFILE_INVALID_STRING,
  TRAK_STAT_STACKPROFILE_INVALID_MAPPING,
  TRAK_STAT_DEOBFUSCATE_LOCATION_PARSE_ERROR, /* proto/deobfuscation.c */
  TRAK_STAT_COUNT
} trak_stat_id;

/* The importer's stats, indexed by trak_stat_id (trak_stat_def: tables/import_result.h). */
extern const trak_stat_def trak__stat_defs[TRAK_STAT_COUNT];

/* Stats rows trace_stats packets give (trace_stats.c): the service's own figures (always
** listed, 0 until a packet sets them), then those of each buffer a packet reported. */
#define TRAK_TRACED_SINGLE_COUNT 21
/* One figure of one buffer (trace_stats.c's `indexed` stat `def`). */
typedef struct trak_traced_indexed {
  uint32_t def;
  int64_t idx, value;
  uint32_t machine; /* machine table row the figure is of (0: host) */
} trak_traced_indexed;
/* qsort's order of indexed figures: by stat, then by index, then by machine. */
int trak__traced_indexed_cmp(const void *a, const void *b);
typedef struct trak_traced_row {
  const trak_stat_def *def;
  int64_t idx; /* buffer index, or -1 for the service's figures */
  int64_t value;
  uint32_t machine; /* machine table row (0: host, what a part that does not set it means) */
} trak_traced_row;

/* Counts one problem (imp->stats[stat] += 1) and reports it to the diag callback, naming the
** packet being tokenized. Can't fail; `fmt` is the message's detail. */
void trak__report(trak_importer *imp, trak_stat_id stat, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));
/* Same, naming packet `packet` (the parse phase reports on records of earlier packets). */
void trak__report_at(trak_importer *imp, trak_stat_id stat, uint64_t packet, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), cold));

/* Passes a problem that counts in no stat row (its message `msg` made already) to the diag
** callback, if there is one, as trak__report does; `stat` names what it is about. */
void trak__diag(trak_importer *imp, uint64_t packet, trak_severity severity, const char *stat,
                const char *msg);

/* 1 if trak's schema has no field `number` in message `name` ("TracePacket", "TrackEvent"):
** the field is one a protobuf reader skips as unknown (proto_unknown_field). The message is
** looked up once per process. Called only for fields the importer does not read. */
int trak__schema_lacks(const char *name, uint32_t number) __attribute__((cold));

/* ---- trace_stats packets (implemented in proto/trace_stats.c) */

/* trace_stats (trace_stats.c): applies one TraceStats message; reads stats row `i` (0 past
** the last row) once trak__trace_stats_finish has ordered them. */
void trak__trace_stats_add(trak_importer *imp, const uint8_t *data, size_t len);
/* A sequence's packet loss flags (previous_packet_dropped's bits): counted per sequence, added
** to its buffer's traced_buf_* figures when a trace_stats packet names the buffer. */
__attribute__((cold)) void trak__trace_stats_loss(struct trak_sequence *seq, uint32_t bits);
/* The service events that are stats: a clone began, buffer `buffer` was cloned, a clone
** trigger fired (at trace time `ts`). */
typedef enum { TRAK_CLONE_STARTED, TRAK_CLONE_BUFFER_DONE, TRAK_CLONE_TRIGGER } trak_clone_event;
/* Counts service event `what` (`buffer`: the cloned buffer's index, for BUFFER_DONE) at `ts`
** in the clone figures. Can't fail. */
void trak__trace_stats_clone(trak_importer *imp, trak_clone_event what, int64_t buffer, int64_t ts);
/* End of import: figures that depend on the trace config (config_write_into_file_*,
** long_trace_mode_bytes_overwritten), then the rows in order. `config` is the last
** TraceConfig (NULL: none); `service_major` the Perfetto version of the service (-1: unknown). */
void trak__trace_stats_finish(trak_importer *imp, const uint8_t *config, size_t config_len,
                              int64_t service_major);
/* Row `i` of the service's figures into *out (singles first, then per buffer, in order once
** trak__trace_stats_finish ran). Returns 1, or 0 past the last row. */
int trak__trace_stats_row(const trak_importer *imp, size_t i, trak_traced_row *out);

#endif /* TRAK_PROCESSOR_IMPORT_STATS_H */
