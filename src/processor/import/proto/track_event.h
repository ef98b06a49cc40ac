/*
** This file holds what the TrackEvent tokenizer shares between its files: the decoded fields of
** one event (track_event.c decodes them), the typed arguments that join its debug annotations
** in its arg set (typed_args.c), and the TrackEvent.legacy_event path (legacy_event.c). Fields
** most events lack are flagged in `extras`, so the common path tests one word for all of them.
*/
#ifndef TRAK_PROCESSOR_TRACK_EVENT_H
#define TRAK_PROCESSOR_TRACK_EVENT_H

#include "processor/import/proto/proto.h"

#define TRAK_TE_MAX_REPEATED 64 /* flow ids, categories, extra counters per event */
#define TRAK_TE_MAX_ANNOTATIONS 256

typedef struct trak_u64_list {
  uint64_t v[TRAK_TE_MAX_REPEATED];
  uint32_t n;
  uint8_t overflow;
} trak_u64_list;

/* Bits of trak_te_fields.extras: the rare fields the event has. */
enum {
  TRAK_TE_LEGACY = 1,           /* legacy_event */
  TRAK_TE_SOURCE_IID = 2,       /* source_location_iid */
  TRAK_TE_SOURCE_INLINE = 4,    /* source_location */
  TRAK_TE_LOG = 8,              /* log_message */
  TRAK_TE_CORRELATION = 16,     /* correlation_id */
  TRAK_TE_CORRELATION_STR = 32, /* correlation_id_str */
  TRAK_TE_CORRELATION_IID = 64, /* correlation_id_str_iid */
  TRAK_TE_THREAD_TIME = 128,    /* thread_time_delta_us / _absolute_us */
  TRAK_TE_THREAD_IC = 256,      /* thread_instruction_count_delta / _absolute */
  TRAK_TE_FLOW_V2 = 512,        /* legacy_event bind_id with a flow_direction */
  TRAK_TE_UNKNOWN = 1024,       /* fields trak's schema lacks: unknown_fields counts them */
  TRAK_TE_LEGACY_TRACK = 2048,  /* legacy_event overrides chose the track (legacy_track) */
  TRAK_TE_TASK = 4096,          /* task_execution */
  TRAK_TE_HISTOGRAM = 8192,     /* chrome_histogram_sample */
  TRAK_TE_REFLECT = 16384,      /* a typed payload Perfetto reflects into args (chrome_*) */
  TRAK_TE_CALLSTACK = 32768,    /* callstack, callstack_iid or callstack_weight */
  TRAK_TE_GPU = 65536           /* GpuTrackEvent.gpu_correlation (also reflected) */
};

typedef struct trak_te_fields {
  uint64_t type, track_uuid, name_iid;
  uint8_t has_type, has_track, has_name_iid, has_value, value_is_double, has_abs_us, has_delta_us;
  uint8_t bad_packed; /* a packed list ended in an element that does not decode */
  uint32_t extras;    /* TRAK_TE_* bits; the fields they flag are read only when set */
  int64_t int_value, abs_us, delta_us;
  double double_value;
  trak_span name;
  /* ---- zeroed by their counters only ---- */
  trak_u64_list cat_iids, flows, terms, extra_uuids, extra_values, extra_double_uuids,
      extra_double_values;
  trak_span cats[8];
  uint32_t n_cats;
  trak_span annos[TRAK_TE_MAX_ANNOTATIONS];
  uint32_t n_annos;
  /* ---- valid when their extras bit is set ---- */
  uint64_t source_location_iid, correlation_id, correlation_iid;
  trak_span source_location, log_message, correlation_str, legacy, task, histogram, gpu;
  trak_span blob; /* the whole TrackEvent, for the reflected payloads (TRAK_TE_REFLECT) */
  int64_t thread_time, thread_ic;           /* as written: deltas or absolute values */
  uint8_t thread_time_kind, thread_ic_kind; /* 1: delta, 2: absolute */
  uint64_t bind_id;                         /* legacy_event.bind_id (TRAK_TE_FLOW_V2) */
  uint32_t bind_kind;                       /* enum trak_flow_v2_kind */
  uint32_t unknown_fields; /* TRAK_TE_UNKNOWN: fields trak's schema lacks (proto_unknown_field) */
  uint32_t legacy_track;   /* TRAK_TE_LEGACY_TRACK */
  /* TRAK_TE_CALLSTACK: callstack (data NULL: none), callstack_iid (0: none), the weight */
  trak_span callstack;
  uint64_t callstack_iid;
  double callstack_weight;
  uint8_t has_callstack_weight;
} trak_te_fields;

/* An event's thread time (ns) and instruction count, from the legacy TrackEvent fields. */
typedef struct trak_te_thread {
  int64_t time, ic;
  uint8_t has_time, has_ic;
} trak_te_thread;

/* What the arg set of an event takes besides its own fields (legacy events and thread
** association, which the tokenizer knows from the event's track). */
typedef struct trak_te_args_extra {
  uint32_t utid;             /* thread of the event's track, TRAK_NULL_U32: none */
  uint32_t passthrough_utid; /* legacy_event.passthrough_utid, TRAK_NULL_U32: none */
  uint8_t has_source_id;     /* legacy_trace_source_id */
  char phase;                /* legacy_event.phase arg ('R', 'S', 'T', 'p'), 0: none */
  int64_t source_id;
  int64_t ts; /* the event's, for its android_logs row */
} trak_te_args_extra;

/* 1 if `number` is one of Chromium's TrackEvent extensions (ChromeTrackEvent in
** protos/chrome_track_event_ext.proto). The schema is looked up once per process. */
int trak__chrome_extension_known(uint32_t number) __attribute__((cold));

/* Whether Perfetto's parser reflects TrackEvent field `number` into args: Chrome's typed
** payloads (fields 24..50), the GPU extensions (GpuTrackEvent, 3000 and 3001) and Chromium's
** extensions (1000 and up) that the schema has. */
static inline int trak__te_reflected(uint32_t number) {
  switch (number) {
  case TRAK_PB_TrackEvent_cc_scheduler_state:
  case TRAK_PB_TrackEvent_chrome_user_event:
  case TRAK_PB_TrackEvent_chrome_keyed_service:
  case TRAK_PB_TrackEvent_chrome_legacy_ipc:
  case TRAK_PB_TrackEvent_chrome_histogram_sample:
  case TRAK_PB_TrackEvent_chrome_latency_info:
  case TRAK_PB_TrackEvent_chrome_frame_reporter:
  case TRAK_PB_TrackEvent_chrome_message_pump:
  case TRAK_PB_TrackEvent_chrome_mojo_event_info:
  case TRAK_PB_TrackEvent_chrome_application_state_info:
  case TRAK_PB_TrackEvent_chrome_renderer_scheduler_state:
  case TRAK_PB_TrackEvent_chrome_window_handle_event_info:
  case TRAK_PB_TrackEvent_chrome_content_settings_event_info:
  case TRAK_PB_TrackEvent_chrome_active_processes:
  case TRAK_PB_TrackEvent_screenshot:
  case TRAK_PB_GpuTrackEvent_gpu_correlation:
  case TRAK_PB_GpuTrackEvent_gpu_api:
    return 1;
  default:
    return number >= TRAK_PB_ChromeTrackEvent_chrome_app_state &&
           trak__chrome_extension_known(number);
  }
}

/* Appends a repeated scalar, accepting both packed and unpacked encodings. Returns 0, or a
** negative TRAK_E* code when a packed element does not decode (the values before it kept). */
int trak__u64_list_add(trak_u64_list *l, const trak_pb_field *f, uint32_t packed_wire_type);

/* The event's name (name_iid, or else name; legacy_iid when the event has no name_iid) and
** category (one or several joined with ','), as string ids (0: none). */
uint32_t trak__te_name(trak_importer *imp, trak_sequence *seq, const trak_te_fields *ef,
                       uint64_t legacy_iid);
uint32_t trak__te_category(trak_importer *imp, trak_sequence *seq, const trak_te_fields *ef);
/* Resolves the event's thread time and instruction count against the sequence's bases (which
** deltas advance). */
void trak__te_thread(trak_sequence *seq, const trak_te_fields *ef, trak_te_thread *out);
/* The thread counter track ("thread_time" or "thread_instruction_count") of `utid` that the
** legacy fields feed; its values fill the slices' thread_ts / thread_dur (or instruction
** columns) as extra counter values of the thread-time types do. */
uint32_t trak__te_thread_counter(trak_importer *imp, uint32_t utid, int instructions);
/* Packs flows and extra counters into imp->aux, with the thread time and instruction count
** `th` (may be NULL) as values of `utid`'s thread counters; returns the index (0 when none). */
uint32_t trak__te_aux(trak_importer *imp, trak_sequence *seq, const trak_te_fields *ef,
                      const trak_te_thread *th, uint32_t utid);
/* The track of the event's uuid (or the sequence's default track, or its thread's track). */
uint32_t trak__te_track(trak_importer *imp, trak_sequence *seq, const trak_te_fields *ef);
/* Appends the record and checks the track's timestamps (decreasing ones are reported). */
void trak__te_push(trak_importer *imp, trak_sequence *seq, trak_ev *ev);

/* The event's arg set: typed arguments (source location, log message, correlation id, legacy
** extras) in Perfetto's order, then its debug annotations; TRAK_NULL_U32 when empty. Problems
** (iids never interned, a log message off a thread) are reported and their rows left out. */
uint32_t trak__te_args(trak_importer *imp, trak_sequence *seq, const trak_te_fields *ef,
                       const trak_te_args_extra *x);

/* Tokenizes an event carrying legacy_event (legacy_event.c): its phase decides the record,
** the track (thread, async or instant tracks) and the ids and flows. `ts` is in the trace
** clock. Phases and fields trak does not map are counted (legacy_event_unsupported). Returns 1
** when the event is done; 0 for an event without phase, whose name and flows the legacy
** fields completed in `ef` and which the caller imports as a typed event. */
int trak__legacy_event_tokenize(trak_importer *imp, trak_sequence *seq, trak_te_fields *ef,
                                int64_t ts);

#endif /* TRAK_PROCESSOR_TRACK_EVENT_H */
