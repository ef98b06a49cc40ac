/*
** Custom data sources: named producers of whole TracePackets, enabled per tracing session by
** the session's config (TraceConfig.data_sources[].config.name). Track events are the built-in
** data source "track_event"; this header is for everything else (a memory sampler, a frame
** statistics writer, a bridge from another logging system, ...).
**
**   static trak_data_source *frames;
**   trak_data_source_desc d = {0};
**   d.name = "com.example.frames";
**   trak_data_source_register(&d, &frames, NULL);
**   ...
**   TRAK_DATA_SOURCE_TRACE(frames, write_frame, &frame);   one load and a branch when off
**
** The trace callback runs once per active instance (one per session that enabled the data
** source) on the calling thread; it writes packets with trak_ds_new_packet() and the wire
** encoder, using the generated field numbers of trak/protos.h. Each (thread, instance) pair is
** its own packet sequence (trusted_packet_sequence_id) with its own incremental state.
** See docs/data-sources.md.
*/
#ifndef TRAK_DATA_SOURCE_H
#define TRAK_DATA_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "trak/error.h"
#include "trak/export.h"
#include "trak/pb.h"
#include "trak/track_event.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRAK_MAX_DATA_SOURCES 32 /* registered custom data sources per process */

/* A registered data source. Only `mask` is public: bit i is set while instance i (the session
** in slot i) is active; the trace macro tests it. */
typedef struct trak_data_source {
  uint32_t mask;
} trak_data_source;

/* What a data source does at each point of an instance's life. Every callback may be NULL.
** `user` is passed back to each; `instance` is the instance index (0..TRAK_MAX_SESSIONS-1).
** setup receives the instance's serialized perfetto.protos.DataSourceConfig and may store a
** per-instance state in *state; it returns 0, or nonzero to refuse the instance (the session
** then starts without it). stop is the last call for an instance: free the state there. flush
** runs on trak_session_flush(). None of them runs on the event path; none may call
** trak_session_* on the session being set up or stopped. */
typedef struct trak_data_source_desc {
  const char *name; /* copied */
  void *user;
  int (*setup)(void *user, uint32_t instance, const uint8_t *config, size_t len, void **state);
  void (*start)(void *user, uint32_t instance, void *state);
  void (*stop)(void *user, uint32_t instance, void *state);
  void (*flush)(void *user, uint32_t instance, void *state);
  /* Per-sequence incremental state (e.g. an interning dictionary): created on first use by
  ** trak_ds_incremental_state(), freed whenever the sequence clears its incremental state
  ** (first packet, after a loss, periodically) and when the writer goes away. */
  void *(*incremental_state_new)(void *user);
  void (*incremental_state_free)(void *user, void *state);
} trak_data_source_desc;

/* Registers a data source (the name must not be "track_event" or taken). Sessions started
** afterwards enable it when their config names it, and so does every session already started
** whose config names it (a system producer's, typically): its instance there is set up,
** started and enabled before this returns, with its callbacks run on this thread. Returns 0,
** TRAK_EINVAL (name taken or empty), TRAK_ENOSPC (TRAK_MAX_DATA_SOURCES reached) or
** TRAK_ENOMEM. Thread-safe. */
TRAK_API int trak_data_source_register(const trak_data_source_desc *desc, trak_data_source **out,
                                       trak_error *err);

/* The context of one trace callback: one instance, one writer sequence. */
typedef struct trak_ds_ctx trak_ds_ctx;
typedef void (*trak_ds_trace_fn)(trak_ds_ctx *ctx, void *user);

/* Nonzero when some instance is active: one relaxed load. */
#define TRAK_DATA_SOURCE_ENABLED(ds) (__atomic_load_n(&(ds)->mask, __ATOMIC_RELAXED) != 0)

/* Calls fn(ctx, user) once per active instance of `ds`; costs a load and a branch when none. */
#define TRAK_DATA_SOURCE_TRACE(ds, fn, user)                                                       \
  do {                                                                                             \
    if (TRAK_UNLIKELY(TRAK_DATA_SOURCE_ENABLED(ds))) trak_data_source_trace((ds), (fn), (user));   \
  } while (0)

/* The function behind TRAK_DATA_SOURCE_TRACE (also callable directly). */
TRAK_API void trak_data_source_trace(trak_data_source *ds, trak_ds_trace_fn fn, void *user);

/* Starts a new TracePacket and returns the buffer to write its fields into (the previous
** packet of this callback, if any, is committed). trak frames the packet and adds
** first_packet_on_sequence / previous_packet_dropped when they apply; the packet's timestamp,
** sequence_flags and content are the caller's. Packets are committed when the callback returns. */
TRAK_API trak_pb_buf *trak_ds_new_packet(trak_ds_ctx *ctx);

/* Nonzero while this sequence's incremental state is fresh: no packet was committed since it
** was cleared. The packet written then should carry sequence_flags
** SEQ_INCREMENTAL_STATE_CLEARED (and re-emit what later packets refer to). */
TRAK_API int trak_ds_incremental_state_cleared(const trak_ds_ctx *ctx);

/* This sequence's incremental state (see incremental_state_new), or NULL without one. */
TRAK_API void *trak_ds_incremental_state(trak_ds_ctx *ctx);

/* The iid of `key` in `type` on this sequence; the first time, writes the InternedData entry
** (through type->write with `value`) into the current packet's interned_data. Returns 0 when
** the table is full (the sequence then clears its state before its next packet). */
TRAK_API uint64_t trak_ds_intern(trak_ds_ctx *ctx, trak_interned_type *type, uint64_t key,
                                 const void *value);

/* The instance index and its setup state. The state may be read freely if it is immutable
** while the instance runs; otherwise take the instance lock (trak_ds_lock_instance returns the
** state, trak_ds_unlock_instance releases it). */
TRAK_API uint32_t trak_ds_instance_index(const trak_ds_ctx *ctx);
TRAK_API void *trak_ds_lock_instance(trak_ds_ctx *ctx);
TRAK_API void trak_ds_unlock_instance(trak_ds_ctx *ctx);

/* The writer sequence's trusted_packet_sequence_id. */
TRAK_API uint32_t trak_ds_sequence_id(const trak_ds_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif /* TRAK_DATA_SOURCE_H */
