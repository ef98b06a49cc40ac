/*
** The SDK's internal interface for the system backend (src/system/): everything the producer,
** the daemon and the consumer call in the SDK is declared here, so that one look shows what
** the backend may use. It builds on internal.h's chunk and session structures, which the
** backend reads and writes under the same rules as the SDK's own files. The SDK calls the
** backend only through its public API (trak_system_connect, from trak__backend_autostart).
*/
#ifndef TRAK_SDK_BACKEND_H
#define TRAK_SDK_BACKEND_H

#include "sdk/internal.h"

/* thread.c: set by the daemon and consumer so TRAK_BACKEND=system never makes them producers of
** themselves. */
extern int trak__backend_no_autostart TRAK__HIDDEN;

/* session.c */
/* System backend. Producer side: replaces the buffer with a shared mapping [mem, mem + size)
** (freed with munmap), before start. Marks complete chunks shared and lists up to `max` of
** them; gives shared chunks back. Counts, in a stopped session, the packets never handed
** over: those in chunks the daemon did not copy (it zeroes a chunk's fill word when it has)
** plus the losses. */
int trak__session_use_shared(struct trak_session *s, uint8_t *mem, size_t size) TRAK__HIDDEN;
size_t trak__session_take_complete(struct trak_session *s, uint32_t *idx, size_t max) TRAK__HIDDEN;
void trak__session_release(struct trak_session *s, const uint32_t *idx, size_t n) TRAK__HIDDEN;
uint64_t trak__session_undelivered(struct trak_session *s) TRAK__HIDDEN;
/* Producer side: how many of the buffer's chunks a writer could take now (*total: all of
** them). A ring buffer counts every chunk: it never refuses one. A session that no longer
** hands out chunks (stopping) has none, and *total is 0 then: a waiting writer stops waiting.
** For writers that would rather wait than lose packets while the producer thread hands chunks
** to the daemon (trak probes, as Perfetto's traced_probes stalls). */
uint32_t trak__session_free_chunks(struct trak_session *s, uint32_t *total) TRAK__HIDDEN;

/* data_source.c: trak__session_free_chunks of the buffer a trace callback writes into. */
struct trak_ds_ctx;
uint32_t trak__ds_free_chunks(const struct trak_ds_ctx *ctx, uint32_t *total) TRAK__HIDDEN;
/* Daemon side, copying each chunk once, straight into the central buffer, and checking the
** copy there (s->lock held across both calls). Reserve: room for `bytes` of chunk (seq,
** cindex); `continues`: they are the rest of a chunk whose first part went to central chunk
** *at, which they join while it is still unread. Returns where to copy them and sets *at, or
** NULL when a discard buffer is full. Commit: makes them readable (`ok`) or gives the room
** back; `untrusted`: some packet carries fields only the service may write (readout strips
** them). Readout treats a rest whose first part it never read as a loss. */
uint8_t *trak__session_import_reserve(struct trak_session *s, uint32_t seq, uint32_t cindex,
                                      uint32_t bytes, int continues, uint32_t *at) TRAK__HIDDEN;
void trak__session_import_commit(struct trak_session *s, uint32_t at, uint32_t bytes,
                                 uint32_t packets, int untrusted, int ok) TRAK__HIDDEN;
int trak__session_trust(struct trak_session *s, uint32_t seq, int32_t uid,
                        int32_t pid) TRAK__HIDDEN;

/* readout.c */
/* Where trak__session_drain_to hands the packets: `fn` gets whole packets (compressed when
** the session compresses), about `batch` bytes at a time, and returns 0 to go on. */
typedef struct trak__drain_sink {
  int (*fn)(const uint8_t *data, size_t len, void *user);
  void *user;
  size_t batch;
} trak__drain_sink;
/* Drains like trak__session_drain without holding the whole output in memory (s->lock held).
** Returns 0, the sink's nonzero answer (chunks read until then are consumed), or
** TRAK_ENOMEM. */
int trak__session_drain_to(struct trak_session *s, const trak__drain_sink *sink) TRAK__HIDDEN;

/* trace_stats.c */
/* Appends one TracePacket with trace_stats for session `s` (its buffer figures and losses)
** plus the caller's `extra` figures, on the service sequence. s->lock NOT held. */
typedef struct trak__stats_extra {
  uint64_t producer_packets_lost; /* lost before reaching the buffer (producer side) */
  uint32_t producers_connected, producers_seen;
  uint64_t invalid_chunks; /* chunks rejected as malformed */
} trak__stats_extra;
void trak__session_put_trace_stats(trak_session *s, trak_pb_buf *out,
                                   const trak__stats_extra *extra) TRAK__HIDDEN;

#endif /* TRAK_SDK_BACKEND_H */
