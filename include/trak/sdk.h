/*
** The tracing SDK's control surface: initialization, categories, tracks and in-process tracing
** sessions. The event macros that use these live in track_event.h; include trak/trak.h for both.
**
** Model. A category is a static object whose `mask` has one bit per active session that records
** it; the event macros test that word (one load and one branch) and do nothing else when it is
** zero. Each thread writes into per-session chunks of the session's buffer through its own
** writer (a packet sequence), so the event path takes no lock and allocates nothing.
*/
#ifndef TRAK_SDK_H
#define TRAK_SDK_H

#include <stddef.h>
#include <stdint.h>

#include "trak/error.h"
#include "trak/export.h"
#include "trak/protos.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRAK_MAX_SESSIONS 16 /* concurrent sessions; one bit each in a category's mask */
#define TRAK_MAX_TAGS 4      /* tags per category */

/* Initializes the SDK (clock calibration, fork handlers). Optional: creating a session does it.
** Idempotent and thread-safe. Returns 0. */
TRAK_API int trak_init(void);

/* The trace clock (CLOCK_BOOTTIME) in nanoseconds, for explicit event timestamps. */
TRAK_API uint64_t trak_clock_now(void);

/* Tests only: makes every SDK timestamp come from now() (NULL restores the real clock). Call
** it before any session starts; the TSC fast clock is off from then on. */
TRAK_API void trak_clock_set_fake(uint64_t (*now)(void));

/* ------------------------------------------------------------------------------------------ */
/* Categories                                                                                 */
/* ------------------------------------------------------------------------------------------ */

typedef struct trak_category {
  uint32_t mask;                   /* bit i: session slot i records this category (atomic) */
  const char *name;                /* "rendering", or a group "rendering,benchmark" */
  const char *description;         /* may be NULL */
  const char *tags[TRAK_MAX_TAGS]; /* e.g. "debug", "slow"; unused entries NULL */
  uint32_t flags;                  /* internal: TRAK__CAT_* */
  struct trak_category *next;      /* internal: registry link */
} trak_category;

/* GNU features the macros use where the compiler has them (GCC, Clang), with fallbacks. Without
** them, TRAK_CATEGORY_DEFINE categories must be registered by hand (trak_category_register). */
#if defined(__GNUC__)
#define TRAK__CONSTRUCTOR __attribute__((constructor))
#else
#define TRAK__CONSTRUCTOR
#endif

/* Defines a static category `var` (usable as `trak_category *`) registered before main():
**   TRAK_CATEGORY_DEFINE(cat_render, "rendering", "Graphics events", "debug");
** The arguments after `var` are the name, the description (may be NULL) and up to four tags.
** A name with commas defines a category group: enabled when any member is. */
#define TRAK_CATEGORY_DEFINE(var, ...)                                                             \
  extern trak_category var[1];                                                                     \
  static void trak__register_##var(void) TRAK__CONSTRUCTOR;                                        \
  static void trak__register_##var(void) {                                                         \
    trak_category_register(var);                                                                   \
  }                                                                                                \
  trak_category var[1] = {{0, TRAK__CATEGORY_FIELDS(__VA_ARGS__, 0, 0, 0, 0, 0, 0)}}
#define TRAK__CATEGORY_FIELDS(name, description, t0, t1, t2, t3, ...)                              \
  name, description, {t0, t1, t2, t3}, 0, 0
#define TRAK_CATEGORY_GROUP_DEFINE(var, names) TRAK_CATEGORY_DEFINE(var, names, 0)
/* Declares a category defined in another file. */
#define TRAK_CATEGORY_DECLARE(var) extern trak_category var[1]

/* Test-only category prefixes: trak_category_test("test.foo") works only for these. Ends with
** a semicolon: TRAK_TEST_CATEGORY_PREFIXES("test", "dontship"); */
#define TRAK_TEST_CATEGORY_PREFIXES(...)                                                           \
  static const char *const trak__test_prefixes[] = {__VA_ARGS__, 0};                               \
  static void trak__register_test_prefixes(void) TRAK__CONSTRUCTOR;                                \
  static void trak__register_test_prefixes(void) {                                                 \
    trak_category_add_test_prefixes(trak__test_prefixes);                                          \
  }                                                                                                \
  extern const char *const trak__test_prefixes[]

/* Nonzero when at least one active session records `cat`: one relaxed load. */
#if defined(__GNUC__)
#define TRAK_CATEGORY_ENABLED(cat) (__atomic_load_n(&(cat)->mask, __ATOMIC_RELAXED) != 0)
#else
#define TRAK_CATEGORY_ENABLED(cat) (*(volatile const uint32_t *)&(cat)->mask != 0)
#endif

/* Registers a static category (TRAK_CATEGORY_DEFINE calls this). The object must live for the
** rest of the process. Registering twice is a no-op. */
TRAK_API void trak_category_register(trak_category *cat);

/* Returns the category named `name`, creating it at run time if needed (copied; lives until
** exit). Returns NULL only when out of memory. Cache the pointer: this takes a lock. */
TRAK_API trak_category *trak_category_dynamic(const char *name);

/* Adds NULL-terminated test prefixes ("test" applies to "test" and "test.*"). */
TRAK_API void trak_category_add_test_prefixes(const char *const *prefixes);

/* Returns a dynamic category for a name under a test prefix, or NULL if no prefix matches. */
TRAK_API trak_category *trak_category_test(const char *name);

/* The configuration a session applies to categories: NULL-terminated glob lists ('*', '?').
** disabled_tags == NULL means the default {"slow", "debug"}; pass a list holding only NULL for
** none. */
typedef struct trak_category_config {
  const char *const *enabled_categories;
  const char *const *disabled_categories;
  const char *const *enabled_tags;
  const char *const *disabled_tags;
} trak_category_config;

/* The eight-step rule: exact matches (enabled categories, enabled tags, disabled categories,
** disabled tags) before pattern matches in the same order; enabled when nothing matches. A
** group is enabled when any member is. Returns 1 or 0. */
TRAK_API int trak_category_config_enables(const trak_category_config *cfg,
                                          const trak_category *cat);

/* ------------------------------------------------------------------------------------------ */
/* Tracks                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* A track is named by its uuid. 0 in an event means the calling thread's track. */
typedef uint64_t trak_track;

/* Values of TrackDescriptor.ChildTracksOrdering (generated from protos/). */
#define TRAK_ORDER_UNKNOWN TRAK_PB_TrackDescriptor_UNKNOWN
#define TRAK_ORDER_LEXICOGRAPHIC TRAK_PB_TrackDescriptor_LEXICOGRAPHIC
#define TRAK_ORDER_CHRONOLOGICAL TRAK_PB_TrackDescriptor_CHRONOLOGICAL
#define TRAK_ORDER_EXPLICIT TRAK_PB_TrackDescriptor_EXPLICIT
/* Values of CounterDescriptor.Unit (generated from protos/). */
#define TRAK_UNIT_UNSPECIFIED TRAK_PB_CounterDescriptor_UNIT_UNSPECIFIED
#define TRAK_UNIT_TIME_NS TRAK_PB_CounterDescriptor_UNIT_TIME_NS
#define TRAK_UNIT_COUNT TRAK_PB_CounterDescriptor_UNIT_COUNT
#define TRAK_UNIT_SIZE_BYTES TRAK_PB_CounterDescriptor_UNIT_SIZE_BYTES

/* What a custom track's descriptor says. Zero-initialize, then set what you need. */
typedef struct trak_track_desc {
  const char *name;           /* shown in the UI; NULL for none */
  trak_track parent;          /* 0: the process track */
  int child_ordering;         /* TRAK_ORDER_* for this track's children */
  int32_t sibling_order_rank; /* used when the parent orders TRAK_ORDER_EXPLICIT */
  int has_sibling_order_rank; /* nonzero to write sibling_order_rank */
  int is_counter;             /* nonzero: a counter track */
  int counter_unit;           /* TRAK_UNIT_* */
  const char *unit_name;      /* free-form unit, may be NULL */
} trak_track_desc;

TRAK_API trak_track trak_track_thread(void);  /* the calling thread's track */
TRAK_API trak_track trak_track_process(void); /* this process's track */
/* The uuid of the track named `name` under `parent` (0: the process track); stable for a
** given name and parent within the process. Does not register a descriptor. It is the uuid
** Perfetto's SDK gives perfetto::NamedTrack(name, 0, parent) (and trak_track_counter_uuid the
** one of perfetto::CounterTrack(name, parent)): FNV-1a 64 of the name, xor the kind's magic
** below, xor the parent's uuid. The process and thread tracks' uuids are Perfetto's too, so
** trak and Perfetto in one process write to the same tracks. */
#define TRAK_TRACK_NAMED_MAGIC 0xCD571EC5EAD37024ull
#define TRAK_TRACK_COUNTER_MAGIC 0xB1A4A67D7970839Eull
TRAK_API trak_track trak_track_uuid(const char *name, trak_track parent);
TRAK_API trak_track trak_track_counter_uuid(const char *name, trak_track parent);
/* trak_track_uuid() plus a descriptor with that name and parent. Returns the uuid. */
TRAK_API trak_track trak_track_named(const char *name, trak_track parent);
/* A counter track (descriptor with a counter field and unit) named `name` under `parent`. */
TRAK_API trak_track trak_track_counter(const char *name, int unit, trak_track parent);

/* Sets (replaces) the descriptor of `uuid`; it is written into every active session now and
** into each writer sequence before its first event on the track. Returns 0 or TRAK_ENOMEM. */
TRAK_API int trak_track_set_descriptor(trak_track uuid, const trak_track_desc *desc);
/* Same with serialized TrackDescriptor fields (the uuid field is added by trak). */
TRAK_API int trak_track_set_descriptor_raw(trak_track uuid, const void *fields, size_t len);
/* trak_track_set_descriptor_raw() unless `uuid` already has a descriptor (which stays). Returns
** 1 when it registered this one, 0 when one was there, or TRAK_ENOMEM. */
TRAK_API int trak_track_describe_once(trak_track uuid, const void *fields, size_t len);
/* Forgets the descriptor of `uuid` (later sessions no longer describe the track). */
TRAK_API void trak_track_erase_descriptor(trak_track uuid);

/* Names the calling thread / this process in traces (copied). */
TRAK_API void trak_thread_set_name(const char *name);
TRAK_API void trak_process_set_name(const char *name);

/* ------------------------------------------------------------------------------------------ */
/* Sessions (in-process backend)                                                              */
/* ------------------------------------------------------------------------------------------ */

typedef struct trak_session trak_session;

enum { TRAK_FILL_RING = 0, TRAK_FILL_DISCARD = 1 };

/* One data source a session enables besides track events (see trak/data_source.h). */
typedef struct trak_session_data_source {
  const char *name;        /* a registered data source's name */
  const char *interceptor; /* NULL, or the name of the interceptor its packets go to */
  const void *config;      /* serialized DataSourceConfig for setup; NULL: one with the name */
  size_t config_len;
} trak_session_data_source;

typedef struct trak_session_config {
  uint32_t buffer_size_kb; /* 0: 1024 */
  uint32_t chunk_size;     /* bytes per chunk, 0: 4096 (512 .. 1 MiB) */
  int fill_policy;         /* TRAK_FILL_RING (overwrite oldest) or TRAK_FILL_DISCARD */
  trak_category_config categories;
  uint32_t clear_period_ms;            /* incremental state cleared this often; 0: never */
  const char *output_path;             /* non-NULL: stream the trace into this file */
  uint32_t file_write_period_ms;       /* streaming period, 0: 1000 */
  int compress;                        /* nonzero: the trace read out (or streamed) wraps packets in
                                          TracePacket.compressed_packets (zlib), as Perfetto's
                                          COMPRESSION_TYPE_DEFLATE does */
  const char *track_event_interceptor; /* NULL, or the interceptor track events go to */
  const trak_session_data_source *data_sources; /* custom data sources to enable */
  size_t n_data_sources;
} trak_session_config;

typedef struct trak_session_stats {
  uint64_t bytes_written;       /* bytes of packets committed by writers */
  uint64_t packets_written;     /* packets committed by writers */
  uint64_t chunks_written;      /* chunks handed to writers */
  uint64_t packets_lost;        /* packets writers dropped: no chunk available */
  uint64_t chunks_overwritten;  /* ring buffer: unread chunks reused */
  uint64_t packets_overwritten; /* packets in those chunks */
  uint64_t packets_skipped;     /* readout: packets withheld after a loss until their sequence
                                   restarted its incremental state */
  uint64_t bytes_read;          /* trace bytes read out or written to the file */
  uint64_t chunks_discarded;    /* discard policy, system daemon: producer chunks refused because
                                   the buffer was full (their packets count in packets_lost) */
} trak_session_stats;

/* Creates a session from a config struct (copied). Returns 0 or TRAK_EINVAL / TRAK_ENOMEM. */
TRAK_API int trak_session_new(const trak_session_config *cfg, trak_session **out, trak_error *err);
/* Creates a session from a serialized perfetto.protos.TraceConfig: buffers[0] (size_kb,
** fill_policy), data_sources (the "track_event" one with its TrackEventConfig, others matched
** by name against registered data sources at start; each may name an interceptor in
** interceptor_config), incremental_state_config, write_into_file / output_path /
** file_write_period_ms, compression_type. A config that lists data sources but not
** "track_event" records no track events; one listing none records them. */
TRAK_API int trak_session_new_from_proto(const void *trace_config, size_t len, trak_session **out,
                                         trak_error *err);
/* Same from TraceConfig in protobuf text format (needs trak_pbtxt_parse). */
TRAK_API int trak_session_new_from_text(const char *text, trak_session **out, trak_error *err);

/* Starts recording: sets up and starts the instances of its data sources (and of their
** interceptors). Returns 0, TRAK_ESTATE (not new), TRAK_ENOSPC (TRAK_MAX_SESSIONS busy),
** TRAK_ENOTFOUND (an interceptor named in the config is not registered) or an interceptor
** setup's error. */
TRAK_API int trak_session_start(trak_session *s, trak_error *err);
/* Calls the flush callback of the session's custom data sources; streaming sessions then
** write everything committed so far into the file. Not concurrently with trak_session_stop. */
TRAK_API int trak_session_flush(trak_session *s, trak_error *err);
/* Stops recording; waits until no thread is writing into the session, then calls the stop
** callbacks of its data source and interceptor instances. Streaming sessions write the rest
** of the trace, end it with a trace_stats packet (the session's figures and losses, as
** Perfetto's service writes them) and close the file. */
TRAK_API int trak_session_stop(trak_session *s, trak_error *err);
/* Returns the not yet read part of the trace as serialized perfetto.protos.Trace (malloc'ed;
** caller frees). Works while running or after stop; each byte is returned once. The first read
** after the stop ends with the trace_stats packet (sequence 1), which then is the trace's last
** packet; reads of a running session never hold it. */
TRAK_API int trak_session_read(trak_session *s, uint8_t **data, size_t *len, trak_error *err);
/* trak_session_read() into a new file at `path`. */
TRAK_API int trak_session_write_file(trak_session *s, const char *path, trak_error *err);
TRAK_API void trak_session_get_stats(trak_session *s, trak_session_stats *stats);
/* Stops if needed and frees the session. NULL is allowed. */
TRAK_API void trak_session_free(trak_session *s);

/* Startup tracing (Perfetto's SetupStartupTracing): record from early in main(), before the
** session that wants the data exists. The first session that starts afterwards with track
** events (in-process, or the system daemon's through trak_system_connect) adopts what was
** recorded: the packets join its trace on their own sequences and tracks, in order, and from
** that moment events go to it. When none starts within the timeout the data is dropped and
** counted (trak_startup_tracing_get_stats). */
enum {
  TRAK_STARTUP_NONE = 0,  /* startup tracing never began */
  TRAK_STARTUP_RECORDING, /* recording, waiting for a session */
  TRAK_STARTUP_ADOPTED,   /* a session took the data */
  TRAK_STARTUP_EXPIRED,   /* the timeout passed first: the data was dropped */
  TRAK_STARTUP_ABORTED    /* trak_startup_tracing_abort(): the data was dropped */
};
typedef struct trak_startup_opts {
  uint32_t timeout_ms;                     /* 0: 10000, as Perfetto's default */
  void (*on_end)(int outcome, void *user); /* TRAK_STARTUP_ADOPTED / _EXPIRED / _ABORTED; runs
                                              on the adopting, timer or aborting thread */
  void *user;
} trak_startup_opts;
typedef struct trak_startup_stats {
  int outcome;              /* TRAK_STARTUP_*: the state of the last startup session */
  uint64_t packets_adopted; /* packets handed to adopting sessions (all startup sessions) */
  uint64_t packets_dropped; /* packets dropped: expired or aborted, the startup buffer full, or
                               not fitting the adopting session (which counts them as lost) */
} trak_startup_stats;
/* Starts startup tracing with session `s` (created, not started: its config says what to
** record; the startup code owns and frees it) or, when `s` is NULL, a 1 MiB buffer that keeps
** the oldest data and the categories enabled by default. Returns 0, TRAK_ESTATE (a startup
** session already records; `s` is freed) or trak_session_start's error. */
TRAK_API int trak_startup_tracing_begin(trak_session *s, const trak_startup_opts *opts,
                                        trak_error *err);
/* Drops the data of the recording startup session now (counted). Returns once the startup
** session is gone, also when an adoption or expiry was under way. */
TRAK_API void trak_startup_tracing_abort(void);
TRAK_API void trak_startup_tracing_get_stats(trak_startup_stats *stats);

#ifdef __cplusplus
}
#endif
#endif /* TRAK_SDK_H */
