/*
** This file holds the importer's problem accounting: the stats definitions (the rows of the
** `stats` table, with Perfetto's names and severities) and the report functions every importer
** file calls. It depends on nothing but the importer's state, so any part of import/, read/ or
** a format's folder can report without calling back into the others.
*/
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "pb/schema.h"

#include "processor/import/importer.h"

const trak_stat_def trak__stat_defs[TRAK_STAT_COUNT] = {
    [TRAK_STAT_TRACE_TRUNCATED] = {"trace_truncated", TRAK_SEVERITY_DATA_LOSS,
                                   "The trace ends in the middle of a packet; it was dropped.", 0},
    [TRAK_STAT_TRACE_CORRUPT] = {"trace_corrupt", TRAK_SEVERITY_DATA_LOSS,
                                 "Malformed bytes between packets; the rest of the trace was "
                                 "skipped.",
                                 0},
    [TRAK_STAT_PACKET_MALFORMED] = {"packet_malformed", TRAK_SEVERITY_DATA_LOSS,
                                    "A packet whose fields do not decode; its valid fields "
                                    "before the error were kept.",
                                    0},
    [TRAK_STAT_TEXT_PARSE_ERROR] =
        {"text_parse_error", TRAK_SEVERITY_ERROR,
         "A text format trace does not parse; the packets before the error "
         "were imported.",
         0},
    [TRAK_STAT_COMPRESSED_ERRORS] = {"compressed_packets_errors", TRAK_SEVERITY_DATA_LOSS,
                                     "compressed_packets that do not inflate.", 0},
    [TRAK_STAT_COMPRESSED_UNSUPPORTED] = {"compressed_packets_unsupported", TRAK_SEVERITY_DATA_LOSS,
                                          "zstd_compressed_packets are not supported.", 0},
    [TRAK_STAT_INCREMENTAL_INVALID] = {"packet_skipped_seq_needs_incremental_state_invalid",
                                       TRAK_SEVERITY_NOTICE,
                                       "Packets with SEQ_NEEDS_INCREMENTAL_STATE skipped while "
                                       "the sequence's incremental state was invalid; each is "
                                       "logged in _trace_import_logs with its "
                                       "packet_sequence_id.",
                                       1},
    [TRAK_STAT_PACKET_LOSS] = {"sequence_packet_loss", TRAK_SEVERITY_DATA_LOSS,
                               "previous_packet_dropped: the writer lost packets on a sequence.",
                               0},
    [TRAK_STAT_INTERNED_ERRORS] =
        {"interned_data_tokenizer_errors", TRAK_SEVERITY_INFO,
         "Interned entries without an iid, and references to interned ids never defined on the "
         "sequence (the field is left out).",
         1},
    [TRAK_STAT_CLOCK_SYNC_FAILURE] = {"clock_sync_failure", TRAK_SEVERITY_ERROR,
                                      "Not counted: the clock_sync_failure_* rows say why.", 1},
    [TRAK_STAT_CLOCK_UNKNOWN_SOURCE] = {"clock_sync_failure_unknown_source_clock",
                                        TRAK_SEVERITY_ERROR,
                                        "Timestamps in a clock no clock snapshot of the trace has.",
                                        1},
    [TRAK_STAT_CLOCK_NO_PATH] = {"clock_sync_failure_no_path", TRAK_SEVERITY_ERROR,
                                 "Timestamps in a clock whose snapshots never include the trace "
                                 "clock, so nothing converts it.",
                                 1},
    [TRAK_STAT_INVALID_CLOCK_SNAPSHOTS] = {"invalid_clock_snapshots", TRAK_SEVERITY_ERROR,
                                           "Remote clock syncs set aside because the host's "
                                           "reading of the trace clock went back from the "
                                           "sync before.",
                                           1},
    [TRAK_STAT_CLOCK_UNDEFERRABLE] = {"clock_sync_failure_undeferrable_packet_loss",
                                      TRAK_SEVERITY_DATA_LOSS,
                                      "Packets dropped because their timestamp could not be "
                                      "converted to the trace clock (one of the two rows above "
                                      "says why).",
                                      1},
    [TRAK_STAT_UNKNOWN_TRACK] = {"track_event_unknown_track", TRAK_SEVERITY_ERROR,
                                 "Track uuids used by events but never described.", 0},
    [TRAK_STAT_NO_TRACK] = {"track_event_without_track", TRAK_SEVERITY_ERROR,
                            "Events with no track_uuid, no default track and no thread; "
                            "dropped.",
                            0},
    [TRAK_STAT_BAD_TYPE] = {"track_event_parser_errors", TRAK_SEVERITY_INFO,
                            "Events of unspecified or unknown type, legacy events without "
                            "the thread, process or id their phase needs, and descriptors and "
                            "events on a track with an ancestor never described "
                            "(track_hierarchy_missing_uuid) (dropped); log messages on events "
                            "without a thread (left out of the args).",
                            1},
    [TRAK_STAT_MISPLACED_END] = {"misplaced_end_event", TRAK_SEVERITY_DATA_LOSS,
                                 "Slices left open inside a slice that ended (ends that do not "
                                 "nest); cut off at its end.",
                                 1},
    [TRAK_STAT_UNTERMINATED] = {"slice_unterminated", TRAK_SEVERITY_INFO,
                                "Slices never ended; their dur is -1.", 0},
    [TRAK_STAT_NON_NESTING] = {"slice_non_nesting", TRAK_SEVERITY_ERROR,
                               "Slice ends naming a slice other than the innermost open one "
                               "(overlapping slices that do not nest).",
                               0},
    [TRAK_STAT_COUNTER_NOT_COUNTER_TRACK] = {"track_event_counter_invalid_track_uuid",
                                             TRAK_SEVERITY_ERROR,
                                             "Counter values on a track that is not a counter "
                                             "track (no counter descriptor); dropped.",
                                             1},
    [TRAK_STAT_EXTRA_COUNTER_MISMATCH] = {"extra_counter_mismatch", TRAK_SEVERITY_ERROR,
                                          "Extra counter values without a matching track "
                                          "uuid; dropped.",
                                          0},
    [TRAK_STAT_DECREASING_TS] = {"track_timestamp_decreasing", TRAK_SEVERITY_INFO,
                                 "Events written with a timestamp below the previous one of their "
                                 "sequence on the same track (sorted on import).",
                                 0},
    [TRAK_STAT_TRACK_PARENT_UNKNOWN] = {"track_hierarchy_missing_uuid", TRAK_SEVERITY_INFO,
                                        "Track descriptors and track events on a track with "
                                        "an ancestor (parent_uuid) that is never described; "
                                        "the events are dropped and each is logged in "
                                        "_trace_import_logs with its track_uuid. As in "
                                        "Perfetto, an upper bound on the events lost.",
                                        1},
    [TRAK_STAT_JSON_SYNTAX] = {"json_tokenizer_failure", TRAK_SEVERITY_ERROR,
                               "A JSON trace is not valid JSON (the events before the error "
                               "were imported), or a JSON event has no ph, no valid ts, or a "
                               "dur, tts or tdur that is not a number (skipped).",
                               0},
    [TRAK_STAT_JSON_EVENT] = {"json_parser_failure", TRAK_SEVERITY_ERROR,
                              "JSON events that cannot be imported (X without dur, async "
                              "event without id, counter without args, bad M args); skipped.",
                              0},
    [TRAK_STAT_FLOW_NO_ENCLOSING] = {"flow_no_enclosing_slice", TRAK_SEVERITY_ERROR,
                                     "JSON flow events (s, t, f with bp e) with no slice open "
                                     "on their thread; dropped.",
                                     0},
    [TRAK_STAT_LEGACY_UNSUPPORTED] = {"legacy_event_unsupported", TRAK_SEVERITY_INFO,
                                      "TrackEvent.legacy_event phases (dropped) or fields "
                                      "(ignored) trak does not import; Perfetto keeps such "
                                      "events in its raw table.",
                                      0},
    [TRAK_STAT_THREAD_MISSING_PID_TID] = {"track_descriptor_thread_missing_pid_tid",
                                          TRAK_SEVERITY_ERROR,
                                          "Track descriptors with a thread that lacks its pid or "
                                          "tid; the descriptor was skipped.",
                                          1},
    [TRAK_STAT_PROCESS_MISSING_PID] = {"track_descriptor_process_missing_pid", TRAK_SEVERITY_ERROR,
                                       "Track descriptors with a process that lacks its pid; the "
                                       "descriptor was skipped.",
                                       1},
    [TRAK_STAT_FLOW_END_WITHOUT_START] = {"flow_end_without_start", TRAK_SEVERITY_INFO,
                                          "Flow ends (legacy FLOW_IN) for flows that never "
                                          "began; no flow row.",
                                          0},
    [TRAK_STAT_FLOW_WITHOUT_DIRECTION] = {"flow_without_direction", TRAK_SEVERITY_ERROR,
                                          "legacy_event.bind_id without a valid flow_direction; "
                                          "no flow.",
                                          0},
    [TRAK_STAT_FLOW_DUPLICATE_ID] = {"flow_duplicate_id", TRAK_SEVERITY_ERROR,
                                     "Flows begun (legacy FLOW_OUT) with the id of a flow still "
                                     "open; ignored.",
                                     0},
    [TRAK_STAT_FLOW_STEP_WITHOUT_START] = {"flow_step_without_start", TRAK_SEVERITY_INFO,
                                           "Flow steps (legacy FLOW_INOUT) for flows that never "
                                           "began; no flow row.",
                                           0},
    [TRAK_STAT_INVALID_TIMESTAMP] = {"track_event_invalid_timestamp", TRAK_SEVERITY_ERROR,
                                     "Track events whose timestamp is negative (or saturates "
                                     "there); dropped.",
                                     1},
    [TRAK_STAT_THREAD_DESCRIPTOR_SKIPPED] = {"thread_descriptor_skipped_incremental_state_invalid",
                                             TRAK_SEVERITY_NOTICE,
                                             "thread_descriptor packets on a sequence whose "
                                             "incremental state is not valid (not cleared yet, "
                                             "or packets were lost); skipped.",
                                             1},
    [TRAK_STAT_DELTA_WITHOUT_STATE] = {"track_event_skipped_timestamp_delta_without_valid_state",
                                       TRAK_SEVERITY_NOTICE,
                                       "Track events with timestamp_delta_us on a sequence with "
                                       "no valid thread_descriptor since its last clear or loss; "
                                       "dropped.",
                                       1},
    [TRAK_STAT_END_UNMATCHED] = {"slice_end_unmatched", TRAK_SEVERITY_INFO,
                                 "Slice ends that match no open slice on their track (it began "
                                 "before the trace, or never); dropped. Perfetto drops them "
                                 "without counting.",
                                 0},
    [TRAK_STAT_MISSING_SEQUENCE_ID] = {"track_event_missing_sequence_id", TRAK_SEVERITY_ERROR,
                                       "Track events in packets without a "
                                       "trusted_packet_sequence_id, whose interned data and "
                                       "defaults cannot be known; dropped, as Perfetto drops "
                                       "them, and logged in _trace_import_logs.",
                                       1},
    [TRAK_STAT_TEXT_UNKNOWN_FIELD] = {"text_unknown_field", TRAK_SEVERITY_DATA_LOSS,
                                      "Fields of a text trace whose name (or enum value name) "
                                      "trak's schema lacks; each was skipped with its whole "
                                      "value and the rest of the trace imported.",
                                      0},
    [TRAK_STAT_PROTO_UNKNOWN_FIELD] = {"proto_unknown_field", TRAK_SEVERITY_INFO,
                                       "Fields of binary TracePackets and TrackEvents that "
                                       "trak's schema lacks (newer producers, packet types trak "
                                       "does not import); skipped, as protobuf readers do.",
                                       0},
    [TRAK_STAT_PROC_STAT_UNKNOWN_COUNTERS] = {"proc_stat_unknown_counters", TRAK_SEVERITY_ERROR,
                                              "Fields of process_stats processes that Perfetto's "
                                              "importer has no counter for, counted as it counts "
                                              "them (chrome_peak_resident_set_kb among them).",
                                              1},
    [TRAK_STAT_UNKNOWN_EXTENSION_FIELDS] = {"unknown_extension_fields", TRAK_SEVERITY_ERROR,
                                            "Fields of TrackEvents, and of the typed payloads "
                                            "reflected into their args, that trak's schema "
                                            "lacks (a newer Chromium's extensions): their args "
                                            "are missing. Counted as Perfetto counts them.",
                                            0},
    [TRAK_STAT_EMPTY_CHROME_METADATA] = {"empty_chrome_metadata", TRAK_SEVERITY_ERROR,
                                         "Name/value pairs of a ChromeEventBundle without a "
                                         "value; no metadata row.",
                                         0},
    [TRAK_STAT_FTRACE_BUNDLE_TOKENIZER_ERRORS] =
        {"ftrace_bundle_tokenizer_errors", TRAK_SEVERITY_ERROR,
         "FtraceEventBundles (or their events) that could "
         "not be read; the rest of the bundle was skipped.",
         1},
    [TRAK_STAT_FTRACE_MISSING_EVENT_ID] = {"ftrace_missing_event_id", TRAK_SEVERITY_INFO,
                                           "Ftrace events without an event (only a timestamp and "
                                           "pid, e.g. filtered); dropped.",
                                           1},
    [TRAK_STAT_MISMATCHED_SCHED_SWITCH_TIDS] = {"mismatched_sched_switch_tids", TRAK_SEVERITY_ERROR,
                                                "sched_switch events whose previous thread is not "
                                                "the one the CPU's last switch brought in (lost "
                                                "events); that sched slice stays open (dur -1).",
                                                1},
    [TRAK_STAT_TASK_STATE_INVALID] = {"task_state_invalid", TRAK_SEVERITY_ERROR,
                                      "sched_switch prev_state values that are no task state of "
                                      "the trace's kernel; end_state is NULL.",
                                      1},
    [TRAK_STAT_COMPACT_SCHED_HAS_PARSE_ERRORS] = {"compact_sched_has_parse_errors",
                                                  TRAK_SEVERITY_ERROR,
                                                  "compact_sched messages with arrays of unequal "
                                                  "length or an intern index out of range; the "
                                                  "rest of the message was dropped.",
                                                  0},
    [TRAK_STAT_COMPACT_SCHED_SWITCH_SKIPPED] = {"compact_sched_switch_skipped", TRAK_SEVERITY_INFO,
                                                "The first compact sched_switch of each CPU, which "
                                                "has no previous thread: it only says which "
                                                "thread runs.",
                                                1},
    [TRAK_STAT_COMPACT_SCHED_WAKING_SKIPPED] = {"compact_sched_waking_skipped", TRAK_SEVERITY_INFO,
                                                "Compact sched_waking events before the first "
                                                "switch of their CPU (the waker is unknown); "
                                                "dropped.",
                                                1},
    [TRAK_STAT_SYSTRACE_PARSE_FAILURE] = {"systrace_parse_failure", TRAK_SEVERITY_ERROR,
                                          "Systrace lines or atrace markers (print events) that "
                                          "could not be parsed; skipped.",
                                          1},
    [TRAK_STAT_SYSTRACE_EVENT_UNPARSED] = {"systrace_event_unparsed", TRAK_SEVERITY_ERROR,
                                           "Systrace lines of an event trak models whose fields "
                                           "lack the numbers it needs (rss_stat as kernels since "
                                           "6.2 print it, without member); skipped, as Perfetto "
                                           "skips them without counting.",
                                           1},
    [TRAK_STAT_FTRACE_PACKET_BEFORE_TRACING_START] = {"ftrace_packet_before_tracing_start",
                                                      TRAK_SEVERITY_INFO,
                                                      "Ftrace events older than the start of "
                                                      "tracing (stale kernel buffers); dropped.",
                                                      1},
    [TRAK_STAT_PROCESS_TRACKER_ERRORS] = {"process_tracker_errors", TRAK_SEVERITY_ERROR,
                                          "Threads that cloned one another but are of two "
                                          "different processes (lost events or pid reuse); "
                                          "each keeps its own process.",
                                          1},
    [TRAK_STAT_FTRACE_SETUP_ERRORS] = {"ftrace_setup_errors", TRAK_SEVERITY_NOTICE,
                                       "Ftrace events or atrace categories the recorder could "
                                       "not find or enable (or ftrace was busy): their data is "
                                       "missing. Each is logged in _trace_import_logs with its "
                                       "message.",
                                       0},
    [TRAK_STAT_RSS_STAT_UNKNOWN_KEYS] = {"rss_stat_unknown_keys", TRAK_SEVERITY_ERROR,
                                         "Never counted: an rss_stat member with no name of its "
                                         "own goes to the \"mem.unknown\" track.",
                                         1},
    [TRAK_STAT_RSS_STAT_NEGATIVE_SIZE] = {"rss_stat_negative_size", TRAK_SEVERITY_INFO,
                                          "rss_stat events with a negative size; dropped.", 1},
    [TRAK_STAT_POWER_RAIL_UNKNOWN_INDEX] = {"power_rail_unknown_index", TRAK_SEVERITY_ERROR,
                                            "Power rail energy values of an index no rail "
                                            "descriptor of their session names; dropped.",
                                            0},
    [TRAK_STAT_POWER_RAIL_EMPTY_PACKET] = {"power_rail_empty_packet", TRAK_SEVERITY_ERROR,
                                           "PowerRails packets without energy data (rail "
                                           "descriptors only).",
                                           1},
    [TRAK_STAT_ENERGY_BREAKDOWN_MISSING_VALUES] = {"energy_breakdown_missing_values",
                                                   TRAK_SEVERITY_ERROR,
                                                   "Energy estimates without a consumer id or "
                                                   "energy, or of a consumer no descriptor "
                                                   "names; dropped.",
                                                   1},
    [TRAK_STAT_ENERGY_DESCRIPTOR_INVALID] = {"energy_descriptor_invalid", TRAK_SEVERITY_ERROR,
                                             "Energy consumers without an id, and entity "
                                             "states without an entity or state index; "
                                             "skipped.",
                                             1},
    [TRAK_STAT_ENERGY_UID_BREAKDOWN_MISSING_VALUES] =
        {"energy_uid_breakdown_missing_values", TRAK_SEVERITY_ERROR,
         "Per-app energy estimates without a uid or energy; skipped.", 1},
    [TRAK_STAT_ENTITY_STATE_RESIDENCY_INVALID] = {"entity_state_residency_invalid",
                                                  TRAK_SEVERITY_ERROR,
                                                  "EntityStateResidency packets without "
                                                  "residencies (descriptors only).",
                                                  1},
    [TRAK_STAT_ENTITY_STATE_RESIDENCY_LOOKUP_FAILED] =
        {"entity_state_residency_lookup_failed", TRAK_SEVERITY_ERROR,
         "Entity state residencies of an entity and state no descriptor names; the rest of "
         "their packet was dropped.",
         1},
    [TRAK_STAT_RSS_STAT_UNKNOWN_THREAD_FOR_MM_ID] =
        {"rss_stat_unknown_thread_for_mm_id", TRAK_SEVERITY_INFO,
         "rss_stat events about the memory of another thread (curr 0) whose mm_id no live "
         "thread was seen to own; dropped.",
         1},
    [TRAK_STAT_TRUNCATED_SYS_WRITE_DURATION] =
        {"truncated_sys_write_duration", TRAK_SEVERITY_INFO,
         "sys_write slices ended early, at an atrace marker their thread wrote, so that the "
         "marker's slice nests (as Perfetto does); their ftrace_event rows keep the real end.",
         1},
    [TRAK_STAT_MEMINFO_UNKNOWN_KEYS] = {"meminfo_unknown_keys", TRAK_SEVERITY_ERROR,
                                        "sys_stats meminfo values of a key this schema does not "
                                        "know; dropped.",
                                        1},
    [TRAK_STAT_VMSTAT_UNKNOWN_KEYS] = {"vmstat_unknown_keys", TRAK_SEVERITY_ERROR,
                                       "sys_stats vmstat values of a key this schema does not "
                                       "know; dropped.",
                                       1},
    [TRAK_STAT_INVALID_CPU_TIMES] = {"invalid_cpu_times", TRAK_SEVERITY_ERROR,
                                     "sys_stats CPU times without a cpu_id; dropped.", 1},
    [TRAK_STAT_PSI_UNKNOWN_RESOURCE] = {"psi_unknown_resource", TRAK_SEVERITY_ERROR,
                                        "sys_stats pressure stall samples of an unknown "
                                        "resource; dropped.",
                                        1},
    [TRAK_STAT_CLOCK_CACHE_MISS] = {"clock_sync_cache_miss", TRAK_SEVERITY_INFO,
                                    "Timestamp conversions between clocks that Perfetto's clock "
                                    "converter could not answer from its cache of conversion "
                                    "paths (each snapshot's clocks, the first boot-clock "
                                    "timestamp of a trace without a snapshot, ...): a measure of "
                                    "its work, no problem. Counted as Perfetto counts them.",
                                    1},
    [TRAK_STAT_FTRACE_GENERIC_DESCRIPTOR_ERRORS] =
        {"ftrace_generic_descriptor_errors", TRAK_SEVERITY_ERROR,
         "Self-describing ftrace events (and fields of them) that no descriptor of the trace "
         "describes, and descriptors of a field numbered 32 or more: skipped, as Perfetto "
         "skips them.",
         1},
    [TRAK_STAT_PARENT_PID_CHANGED] = {"process_tracker_parent_pid_changed", TRAK_SEVERITY_INFO,
                                      "Processes a process tree listed again with another "
                                      "parent (reparented, to init say, when their parent "
                                      "died): the first parent is kept, as in Perfetto.",
                                      1},
    [TRAK_STAT_KERNEL_TRACKEVENT_FORMAT_ERROR] =
        {"kernel_trackevent_format_error", TRAK_SEVERITY_ERROR,
         "Kernel track events (self-describing ftrace events following Perfetto's convention) "
         "missing a field their track, slice or counter needs, or with a slice type other "
         "than B, E or I: skipped, as Perfetto skips them.",
         1},
    [TRAK_STAT_FTRACE_ABI_ZERO_DATA_LENGTH] =
        {"ftrace_abi_errors_skipped_zero_data_length", TRAK_SEVERITY_INFO,
         "Ring buffer records of zero data length the recorder met and skipped (an "
         "FtraceStats packet's ftrace_parse_errors FTRACE_STATUS_ABI_ZERO_DATA_LENGTH, one per "
         "packet that lists it): zero-padded pages, which lose no event.",
         1},
    [TRAK_STAT_CPU_INFO_EMPTY] = {"cpu_info_empty", TRAK_SEVERITY_ERROR,
                                  "CpuInfo packets that list no CPU (the recorder could not "
                                  "read /proc/cpuinfo, e.g. in a sandbox): the cpu table has no "
                                  "processor names, capacities or frequencies from them.",
                                  1},
    [TRAK_STAT_CPU_INFO_UNKNOWN_FEATURES] = {"cpu_info_unknown_cpu_features", TRAK_SEVERITY_INFO,
                                             "CPUs whose CpuInfo feature bitmap has bits past "
                                             "the features this version names (mte, mte3): the "
                                             "whole bitmap is still in the cpu row's args as "
                                             "cpu_features.raw_bitmap.",
                                             1},
    [TRAK_STAT_GENERIC_TASK_STATE_INVALID_ORDER] =
        {"generic_task_state_invalid_order", TRAK_SEVERITY_ERROR,
         "Invalid order of generic task state events. Should never happen.", 1},
    [TRAK_STAT_STREAMING_PROFILE_INVALID_TS] =
        {"streaming_profile_invalid_timestamp", TRAK_SEVERITY_ERROR,
         "StreamingProfilePackets whose sequence time went negative (or saturated there): the "
         "rest of the packet's samples are dropped.",
         1},
    [TRAK_STAT_STACKPROFILE_PARSER_ERROR] = {"stackprofile_parser_error", TRAK_SEVERITY_ERROR,
                                             "CPU profile samples whose callstack could not be "
                                             "resolved, or with more callstacks than "
                                             "timestamps: no sample row.",
                                             0},
    [TRAK_STAT_STACKPROFILE_INVALID_CALLSTACK] = {"stackprofile_invalid_callstack_id",
                                                  TRAK_SEVERITY_ERROR,
                                                  "CPU profile samples naming a callstack iid "
                                                  "their sequence never interned.",
                                                  0},
    [TRAK_STAT_STACKPROFILE_INVALID_FRAME] = {"stackprofile_invalid_frame_id", TRAK_SEVERITY_ERROR,
                                              "CPU profile samples whose callstack names a frame "
                                              "(or its mapping or strings) their sequence never "
                                              "interned.",
                                              0},
    [TRAK_STAT_FTRACE_THERMAL_EXYNOS_ACPM_UNKNOWN_TZ_ID] =
        {"ftrace_thermal_exynos_acpm_unknown_tz_id", TRAK_SEVERITY_ERROR,
         "thermal_exynos_acpm_bulk / _high_overhead events of a tz_id past the seven thermal "
         "zones Perfetto names (BIG, MID, LITTLE, GPU, ISP, TPU, AUR): no counter, as Perfetto.",
         1},
    [TRAK_STAT_SYSTEMD_JOURNAL_NUM_FAILED] = {"systemd_journal_num_failed", TRAK_SEVERITY_ERROR,
                                              "Journal entries the systemd journal data source "
                                              "failed to read, as its last count gave them.",
                                              0},
    [TRAK_STAT_SYSTEMD_JOURNAL_NUM_TOTAL] = {"systemd_journal_num_total", TRAK_SEVERITY_INFO,
                                             "Journal entries the systemd journal data source "
                                             "read, as its last count gave them.",
                                             0},
    [TRAK_STAT_PACKAGES_LIST_PARSE_ERRORS] = {"packages_list_has_parse_errors",
                                              TRAK_SEVERITY_ERROR,
                                              "1 when the last package list's recorder could "
                                              "not parse some of packages.list's lines.",
                                              0},
    [TRAK_STAT_PACKAGES_LIST_READ_ERRORS] = {"packages_list_has_read_errors", TRAK_SEVERITY_ERROR,
                                             "1 when the last package list's recorder could not "
                                             "read packages.list.",
                                             0},
    [TRAK_STAT_PERF_SAMPLES_SKIPPED] = {"perf_samples_skipped", TRAK_SEVERITY_ERROR,
                                        "Perf samples the profiler could not read or unwind: "
                                        "their process may be missing from the profile; the "
                                        "sample's counters are kept.",
                                        1},
    [TRAK_STAT_PERF_SAMPLES_SKIPPED_DATALOSS] = {"perf_samples_skipped_dataloss",
                                                 TRAK_SEVERITY_DATA_LOSS,
                                                 "Perf samples the profiler dropped under load "
                                                 "before unwinding them.",
                                                 0},
    [TRAK_STAT_STACKPROFILE_EMPTY_CALLSTACK] = {"stackprofile_empty_callstack",
                                                TRAK_SEVERITY_ERROR,
                                                "Samples whose callstack has no frames: the "
                                                "sample has no callsite.",
                                                0},
    [TRAK_STAT_GPU_COUNTERS_INVALID_SPEC] = {"gpu_counters_invalid_spec", TRAK_SEVERITY_ERROR,
                                             "GPU counter specs without an id or a name, an "
                                             "inline spec of an id an earlier one took, an "
                                             "interned descriptor never interned, or samples of "
                                             "a counter id their interned descriptor lacks; "
                                             "skipped.",
                                             1},
    [TRAK_STAT_GPU_COUNTERS_MISSING_SPEC] = {"gpu_counters_missing_spec", TRAK_SEVERITY_ERROR,
                                             "Never counted: Perfetto's row, which its importer "
                                             "no longer counts (samples of unknown counters "
                                             "count gpu_counters_invalid_spec).",
                                             1},
    [TRAK_STAT_GPU_COUNTERS_MISSING_TIMESTAMP] = {"gpu_counters_missing_timestamp",
                                                  TRAK_SEVERITY_ERROR,
                                                  "GpuCounterEvent packets with samples but no "
                                                  "timestamp: the samples cannot be placed in "
                                                  "time and are dropped (their descriptor is "
                                                  "still read). A bug of the producer.",
                                                  0},
    [TRAK_STAT_GRAPHICS_FRAME_EVENT_PARSER_ERRORS] = {"graphics_frame_event_parser_errors",
                                                      TRAK_SEVERITY_INFO,
                                                      "GraphicsFrameEvent buffer events without "
                                                      "a buffer_id (dropped), or of a type "
                                                      "that is no phase of a buffer (its "
                                                      "instant is still made).",
                                                      1},
    [TRAK_STAT_FRAME_TIMELINE_EVENT_PARSER_ERRORS] = {"frame_timeline_event_parser_errors",
                                                      TRAK_SEVERITY_INFO,
                                                      "FrameTimelineEvent packets dropped (a "
                                                      "start without its cookie, token, pid or "
                                                      "display frame token, a FrameEnd without "
                                                      "a cookie, no event at all, a timestamp "
                                                      "within 10 s of int64's end), and enum values "
                                                      "out of range (present, prediction, "
                                                      "severity, fence: their default name is "
                                                      "used).",
                                                      1},
    [TRAK_STAT_FRAME_TIMELINE_UNPAIRED_END_EVENT] = {"frame_timeline_unpaired_end_event",
                                                     TRAK_SEVERITY_INFO,
                                                     "FrameTimelineEvent FrameEnds whose cookie "
                                                     "began no frame (or whose frame ended "
                                                     "already); dropped.",
                                                     1},
    [TRAK_STAT_HEAPPROFD_MISSING_PACKET] = {"heapprofd_missing_packet", TRAK_SEVERITY_ERROR,
                                            "ProfilePackets of a heap profile whose index "
                                            "skips one: packets of the dump were lost.",
                                            0},
    [TRAK_STAT_HEAPPROFD_MALFORMED_PACKET] = {"heapprofd_malformed_packet", TRAK_SEVERITY_ERROR,
                                              "Heap profile samples whose totals went down "
                                              "since the previous dump: no row (Perfetto "
                                              "indexes this stat by process; trak does not).",
                                              0},
    [TRAK_STAT_STACKPROFILE_INVALID_STRING] = {"stackprofile_invalid_string_id",
                                               TRAK_SEVERITY_ERROR,
                                               "Heap profile mappings and frames naming a "
                                               "string their packet never gave: dropped (a "
                                               "mapping's path stops there).",
                                               0},
    [TRAK_STAT_STACKPROFILE_INVALID_MAPPING] = {"stackprofile_invalid_mapping_id",
                                                TRAK_SEVERITY_ERROR,
                                                "Heap profile frames naming a mapping their "
                                                "packet never gave: dropped.",
                                                0},
    [TRAK_STAT_DEOBFUSCATE_LOCATION_PARSE_ERROR] = {"deobfuscate_location_parse_error",
                                                    TRAK_SEVERITY_ERROR,
                                                    "Java frames of an app's mapping under "
                                                    "/data/app/ whose path names no package: "
                                                    "not deobfuscated by the package's map.",
                                                    1},
    [TRAK_STAT_SYS_STATS_UNIMPORTED] = {"sys_stats_unimported", TRAK_SEVERITY_INFO,
                                        "sys_stats fields trak does not import yet (buddy_info, "
                                        "slab_info); skipped.",
                                        1},
    [TRAK_STAT_OUTSIDE_RANGE_OF_INTEREST] = {"track_event_dropped_packets_outside_of_range_of_"
                                             "interest",
                                             TRAK_SEVERITY_INFO,
                                             "Track events before the trace's "
                                             "track_event_range_of_interest, dropped because the "
                                             "crop option (--crop-track-events) is on.",
                                             1},
    [TRAK_STAT_RANGE_OF_INTEREST_NO_START] = {"track_event_range_of_interest_missing_start_us",
                                              TRAK_SEVERITY_ERROR,
                                              "track_event_range_of_interest packets without "
                                              "start_us; ignored.",
                                              1},
    [TRAK_STAT_CONCURRENT_UNKNOWN_STATE] = {"concurrent_session_event_unknown_state",
                                            TRAK_SEVERITY_ERROR,
                                            "concurrent_session_event packets with a state "
                                            "trak does not know (unspecified, or newer than "
                                            "trak); dropped and logged in _trace_import_logs "
                                            "with the state's value.",
                                            1},
    [TRAK_STAT_SPILL_OVERLAPPING_COMPLETE] = {"slice_spill_overlapping_complete_event",
                                              TRAK_SEVERITY_ERROR,
                                              "JSON complete (X) events that partly overlap a "
                                              "slice of their thread (they neither nest nor "
                                              "follow it); each went to an overflow track of "
                                              "the thread (type thread_overlapping_slice) and "
                                              "is logged in _trace_import_logs.",
                                              1},
    [TRAK_STAT_DROP_OVERLAPPING_COMPLETE] = {"slice_drop_overlapping_complete_event",
                                             TRAK_SEVERITY_ERROR,
                                             "Complete slices that partly overlap a slice of "
                                             "their track and have no overflow track to go "
                                             "to; dropped.",
                                             1},
    [TRAK_STAT_NEGATIVE_TS_DROPPED] = {"trace_sorter_negative_timestamp_dropped",
                                       TRAK_SEVERITY_ERROR,
                                       "Events with a negative timestamp (JSON events, a "
                                       "remote machine's packets after its clock offset, "
                                       "frame timeline events); dropped, as Perfetto's "
                                       "sorter drops them.",
                                       0},
    [TRAK_STAT_JSON_DISPLAY_TIME_UNIT] = {"json_display_time_unit", TRAK_SEVERITY_INFO,
                                          "The JSON trace has a displayTimeUnit key; it is a "
                                          "hint for viewers and does not change timestamps, "
                                          "which stay microseconds.",
                                          0},
    [TRAK_STAT_PACKET_TOO_LARGE] = {"packet_too_large", TRAK_SEVERITY_DATA_LOSS,
                                    "Packets longer than the packet limit (docs/limits.md); "
                                    "skipped, the packets after them kept.",
                                    0},
    [TRAK_STAT_COMPRESSED_TOO_DEEP] = {"compressed_packets_too_deep", TRAK_SEVERITY_DATA_LOSS,
                                       "compressed_packets nested past the nesting limit; the "
                                       "innermost were skipped.",
                                       0},
    [TRAK_STAT_INFLATE_LIMIT] = {"compressed_packets_inflate_limit", TRAK_SEVERITY_DATA_LOSS,
                                 "compressed_packets that inflate past the per-packet or "
                                 "per-trace limit (a decompression bomb?); skipped.",
                                 0},
    [TRAK_STAT_ANNOTATION_TOO_DEEP] = {"debug_annotation_too_deep", TRAK_SEVERITY_ERROR,
                                       "Debug annotation values nested past the depth limit; "
                                       "the deeper values were dropped.",
                                       0},
    [TRAK_STAT_KEY_TOO_LONG] = {"arg_key_too_long", TRAK_SEVERITY_ERROR,
                                "Arg keys longer than the key limit; the values were dropped "
                                "(a cut key could collide with another).",
                                0},
    [TRAK_STAT_JSON_EVENT_TOO_LARGE] = {"json_event_too_large", TRAK_SEVERITY_DATA_LOSS,
                                        "JSON events longer than the event limit; skipped.", 0},
    [TRAK_STAT_JSON_TOO_DEEP] = {"json_nesting_too_deep", TRAK_SEVERITY_DATA_LOSS,
                                 "JSON events (or top-level values) nested deeper than the "
                                 "nesting limit; each was skipped, the events after it read.",
                                 0},
    [TRAK_STAT_JSON_INVALID_UTF8] = {"json_invalid_utf8", TRAK_SEVERITY_ERROR,
                                     "JSON strings with bytes that are not UTF-8; each bad "
                                     "sequence was replaced by U+FFFD.",
                                     0},
    [TRAK_STAT_STRING_INVALID_UTF8] = {"string_invalid_utf8", TRAK_SEVERITY_INFO,
                                       "Distinct strings of a protobuf or text trace (names, "
                                       "args, process and thread names) with bytes that are "
                                       "not UTF-8, kept as read (as Perfetto keeps them); text "
                                       "outputs show U+FFFD in their place.",
                                       0},
    [TRAK_STAT_IMPORT_MEMORY_LIMIT] = {"import_memory_limit", TRAK_SEVERITY_DATA_LOSS,
                                       "Events dropped because the import's records would "
                                       "pass the memory bound (a multiple of the trace's "
                                       "size) or memory ran out.",
                                       0},
    [TRAK_STAT_TRACK_HIERARCHY_LOOP] = {"track_event_track_hierarchy_loop", TRAK_SEVERITY_ERROR,
                                        "Track descriptors and track events on a track whose "
                                        "parent_uuid chain loops (a track is its own "
                                        "ancestor); dropped.",
                                        1},
    [TRAK_STAT_TRACK_HIERARCHY_TOO_DEEP] = {"track_event_track_hierarchy_too_deep",
                                            TRAK_SEVERITY_ERROR,
                                            "Track descriptors and track events on a track with "
                                            "more than 98 ancestors; dropped.",
                                            1},
    [TRAK_STAT_TRACE_EMPTY] = {"trace_empty", TRAK_SEVERITY_DATA_LOSS,
                               "The trace holds no packets or events at all (e.g. a recording "
                               "whose daemon died).",
                               0},
};

/* The problem being passed to the diag callback on this thread: its message is formatted when
** first asked for (trak_processor_diag_message). */
typedef struct diag_report {
  const char *text; /* the message; NULL until made from `fmt` and `ap` */
  const char *fmt;
  va_list ap;
  char msg[512];
} diag_report;
static _Thread_local diag_report *diag_current;

const char *trak_processor_diag_message(void) {
  diag_report *r = diag_current;
  if (!r) return NULL;
  if (!r->text) {
    va_list aq;
    va_copy(aq, r->ap);
    vsnprintf(r->msg, sizeof r->msg, r->fmt, aq);
    va_end(aq);
    r->text = r->msg;
  }
  return r->text;
}

/* Calls the diag callback with `r`'s message: made now, or by the callback if it asks for it
** (TRAK_PROCESSOR_DIAG_LAZY). */
static void diag_call(trak_importer *imp, diag_report *r, uint64_t packet, trak_severity severity,
                      const char *stat) {
  diag_report *outer = diag_current; /* (a callback that feeds another processor) */
  diag_current = r;
  const char *msg =
      imp->opts.flags & TRAK_PROCESSOR_DIAG_LAZY ? NULL : trak_processor_diag_message();
  imp->opts.diag(imp->opts.user, packet, imp->packet_offset, severity, stat, msg);
  diag_current = outer;
}

void trak__diag(trak_importer *imp, uint64_t packet, trak_severity severity, const char *stat,
                const char *msg) {
  if (!imp->opts.diag) return;
  diag_report r; /* (msg left unset: no 512 bytes zeroed a report) */
  r.text = msg;
  diag_call(imp, &r, packet, severity, stat);
}

static void report_v(trak_importer *imp, trak_stat_id stat, uint64_t packet, const char *fmt,
                     va_list ap) {
  imp->stats[stat]++;
  imp->n_reports++;
  if (!imp->opts.diag) return;
  diag_report r;
  r.text = NULL;
  r.fmt = fmt;
  va_copy(r.ap, ap);
  diag_call(imp, &r, packet, trak__stat_defs[stat].severity, trak__stat_defs[stat].name);
  va_end(r.ap);
}

void trak__report(trak_importer *imp, trak_stat_id stat, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report_v(imp, stat, imp->packet_index, fmt, ap);
  va_end(ap);
}

void trak__report_at(trak_importer *imp, trak_stat_id stat, uint64_t packet, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report_v(imp, stat, packet, fmt, ap);
  va_end(ap);
}

int trak__schema_lacks(const char *name, uint32_t number) {
  /* Two messages asked for; each found once (a race finds the same pointer twice). */
  static _Atomic(const trak_pb_message_desc *) cache[2];
  int slot = strcmp(name, "TracePacket") != 0;
  const trak_pb_message_desc *msg = atomic_load_explicit(&cache[slot], memory_order_relaxed);
  if (!msg) {
    msg = trak__schema_message(name);
    atomic_store_explicit(&cache[slot], msg, memory_order_relaxed);
  }
  return msg && !trak__schema_field_by_number(msg, number);
}

int trak__traced_indexed_cmp(const void *pa, const void *pb) {
  const trak_traced_indexed *a = pa, *b = pb;
  if (a->def != b->def) return a->def < b->def ? -1 : 1;
  if (a->idx != b->idx) return a->idx < b->idx ? -1 : 1;
  return a->machine < b->machine ? -1 : a->machine > b->machine;
}
