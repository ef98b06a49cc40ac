/*
** The SDK's internal structures, shared by the files of src/sdk/: chunks (the unit a writer fills
** and a session buffers), per-thread writers, sessions and their slots, and the clock.
**
** Data flow: an event macro calls into event.c, which for each session bit set in the
** category's mask writes one packet through the calling thread's writer for that session
** (writer.c). A writer owns one chunk of the session's buffer at a time and takes the session
** lock only to swap a full chunk for an empty one (session.c). readout.c turns chunks into a
** serialized Trace. Chunks hold no pointers: the header names the writer sequence and counts
** the complete packets, so a later shared-memory backend can move them between processes.
*/
#ifndef TRAK_SDK_INTERNAL_H
#define TRAK_SDK_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "trak/pb.h"
#include "trak/protos.h"
#include "trak/trak.h"

#define TRAK__HIDDEN __attribute__((visibility("hidden")))
#define TRAK__COLD __attribute__((noinline, cold))

/* Category flags. */
#define TRAK__CAT_REGISTERED 1u
#define TRAK__CAT_GROUP 2u   /* name lists members separated by commas */
#define TRAK__CAT_DYNAMIC 4u /* created at run time; name owned by the registry */

/* Interned types: builtin ones first, user types after. */
enum {
  TRAK__INTERN_CATEGORY = 0,
  TRAK__INTERN_NAME = 1,
  TRAK__INTERN_ANNOTATION = 2,
  TRAK__INTERN_FIRST_USER = 3,
  TRAK__INTERN_TYPES = 16
};

/* The sequence-scoped incremental clock every writer's default timestamps use. */
#define TRAK__SEQ_CLOCK_ID 64

/* The sequence of the packets the service itself writes (trace_stats), as in Perfetto. Writer
** sequences, in-process and the daemon's, start at 2. */
#define TRAK__SERVICE_SEQ_ID 1

/* ---- chunks ---------------------------------------------------------------------------- */

/* A chunk is this header followed by packets framed as Trace.packet fields (field 1, LEN), so
** its payload is itself a valid Trace fragment. Only complete packets are counted. */
typedef struct trak__chunk {
  uint32_t writer_id;    /* trusted packet sequence id of the writer filling it */
  uint32_t chunk_index;  /* 0, 1, 2, ... per writer: a gap means chunks were overwritten */
  _Atomic uint64_t fill; /* payload bytes of complete packets (low 32) | packet count << 32 */
} trak__chunk;
#define TRAK__CHUNK_HEADER sizeof(trak__chunk)
#define TRAK__CHUNK_MAX (1u << 20) /* the largest chunk size a session allows */

static inline uint32_t trak__fill_bytes(uint64_t fill) {
  return (uint32_t)fill;
}
static inline uint32_t trak__fill_packets(uint64_t fill) {
  return (uint32_t)(fill >> 32);
}

/* Session-side bookkeeping of one chunk (not in the chunk: the writer never touches it). */
enum {
  TRAK__CHUNK_FREE = 0,
  TRAK__CHUNK_WRITING,
  TRAK__CHUNK_COMPLETE,
  TRAK__CHUNK_SHARED /* system backend: handed to the daemon, untouchable until released */
};
typedef struct trak__chunk_meta {
  uint8_t state;      /* TRAK__CHUNK_* */
  uint8_t continues;  /* daemon: the rest of a chunk whose first part was copied before */
  uint8_t untrusted;  /* daemon: packets carry trusted fields their producer wrote */
  uint32_t read_pos;  /* payload bytes already read out */
  uint32_t read_pkts; /* packets already read out */
} trak__chunk_meta;

/* ---- writers --------------------------------------------------------------------------- */

typedef struct trak__intern_entry {
  uint64_t key;   /* string address or user key */
  uint16_t type;  /* TRAK__INTERN_* or user index */
  uint16_t epoch; /* the entry is live only when equal to the writer's epoch */
  uint32_t iid;
} trak__intern_entry;

/* A direct-mapped cache in front of the interning table for the fast path: one event name
** (by address) with its category and both iids. Cleared with the incremental state. */
typedef struct trak__fast_entry {
  const char *name;
  const void *cat;
  uint32_t name_iid, cat_iid;
} trak__fast_entry;
#define TRAK__FAST_ENTRIES 32

/* The bit a writer adds to its generation while its packets go to an interceptor: such a
** writer never passes the event path's inline generation check, so interception costs the
** ordinary path nothing. */
#define TRAK__GEN_ICPT 0x80000000u

struct trak__icpt_inst;

/* One thread's packet sequence into one data source instance (one session). */
typedef struct trak__writer {
  uint32_t gen;                 /* slot generation this writer serves (| TRAK__GEN_ICPT when
                                   intercepted); 0: unbound */
  uint32_t seq_id;              /* trusted_packet_sequence_id */
  struct trak_session *session; /* valid while gen matches the slot */
  trak__chunk *chunk;           /* current chunk, or NULL */
  uint8_t *base, *p, *end;      /* payload start, write cursor, payload end */
  uint32_t packets;             /* complete packets in the current chunk */
  uint32_t next_chunk_index;
  uint64_t last_ts;        /* last incremental timestamp written */
  uint64_t next_clear_ts;  /* clear incremental state at or after this time; 0: never */
  uint8_t need_clear;      /* next packet must restart incremental state */
  uint8_t dropped;         /* packets were lost since the last written one */
  uint8_t started;         /* a packet was written on this sequence */
  trak__intern_entry *tab; /* open addressing, pointer keys */
  uint32_t tab_cap, tab_count;
  uint16_t epoch; /* bumped to empty the table in O(1) at each restart; never 0 */
  uint64_t next_iid[TRAK__INTERN_TYPES];
  trak__fast_entry fast[TRAK__FAST_ENTRIES];
  uint64_t *tracks; /* track uuids described on this sequence since the last clear */
  uint32_t tracks_cap, tracks_count;
  /* data sources and interceptors (data_source.c, intercept.c) */
  uint8_t ds;                          /* data source index: 0 track events, else custom */
  uint8_t cleared;                     /* custom: no packet committed since the state was cleared */
  void *incr;                          /* custom: the user's incremental state, or NULL */
  struct trak__icpt_inst *icpt;        /* intercepted: the interceptor instance */
  const struct trak__icpt *icpt_owner; /* the interceptor whose thread state icpt_tls is */
  void *icpt_tls;                      /* the interceptor's per-sequence state */
  uint8_t *private_chunk; /* intercepted: the chunk packets collect in until delivered */
} trak__writer;

#define TRAK__MAX_DS (TRAK_MAX_DATA_SOURCES + 1) /* index 0: track events */

/* Per-thread state, reached through the trak__tls pointer. */
typedef struct trak__thread {
  _Atomic int busy; /* 1 while writing an event (stop waits for 0) */
  pid_t tid;
  uint64_t uuid; /* thread track uuid */
  char name[64];
  trak_pb_buf scratch;               /* heap: a packet being encoded off the fast path */
  trak_pb_buf interned;              /* heap: InternedData entries of that packet */
  trak__writer w[TRAK_MAX_SESSIONS]; /* track events */
  trak__writer *dsw[TRAK__MAX_DS];   /* custom data source i: TRAK_MAX_SESSIONS writers */
  struct trak__thread *next, *prev;
} trak__thread;

extern __thread trak__thread *trak__tls __attribute__((tls_model("initial-exec"))) TRAK__HIDDEN;

/* ---- sessions -------------------------------------------------------------------------- */

enum { TRAK__S_NEW = 0, TRAK__S_STARTING, TRAK__S_STARTED, TRAK__S_STOPPED };

typedef struct trak__seq_read { /* readout state of one writer sequence */
  uint32_t seq_id;
  uint32_t last_index; /* chunk_index last read from */
  uint8_t seen;        /* last_index is valid */
  uint8_t skipping;    /* a loss was seen: withhold packets until incremental state restarts */
} trak__seq_read;

struct trak_session {
  int state; /* TRAK__S_* (under trak__lock) */
  int slot;  /* slot index while started, else -1 */
  uint32_t gen;
  pid_t owner_pid; /* a forked child sees its parent's sessions as inert */
  /* config (owned copies) */
  uint32_t fill_policy, clear_period_ms, file_write_period_ms;
  int compress;    /* readout wraps packets in compressed_packets (zlib) */
  char **lists[4]; /* enabled_categories, disabled_categories, enabled_tags, disabled_tags */
  trak_category_config cat_cfg;
  char *output_path;
  /* buffer */
  pthread_mutex_t lock; /* guards everything below */
  uint8_t *mem;
  uint32_t chunk_size, nchunks, cursor;
  trak__chunk_meta *meta;
  trak_session_stats stats; /* writer-side fields accumulate at chunk retirement */
  _Atomic uint64_t packets_lost;
  _Atomic int full; /* discard policy: no free chunk left (writers fail without locking) */
  _Atomic int chunk_restarts; /* ring policy, buffer half used: restart at every new chunk */
  trak__seq_read *seqs;
  size_t nseqs, seqs_cap;
  uint8_t trace_ended;   /* stop is done: no packet joins the buffer any more */
  uint8_t stats_emitted; /* the trace_stats packet ending the trace was read out */
  /* streaming (under file_lock) */
  pthread_mutex_t file_lock;
  FILE *file;
  pthread_t streamer;
  int streaming;
  pthread_cond_t stream_cond;
  int stream_stop;
  /* data sources (data_source.c) */
  int track_events;         /* nonzero: the config enables track events */
  int sources_optional;     /* system producer: the config may name data sources it lacks */
  struct trak__ds_cfg *dss; /* data sources of the config, track_event included */
  size_t ndss;
  /* system backend (system_*.c) */
  size_t mem_mapped;         /* size of the mapping mem is (munmap) */
  struct trak__trust *trust; /* daemon: sequence -> producer credentials; readout stamps them */
  size_t ntrust, trust_cap;
};

/* The producer a daemon-side sequence came from (the daemon's own view, never the producer's). */
typedef struct trak__trust {
  uint32_t seq_id;
  int32_t uid, pid;
} trak__trust;

/* One data source entry of a session's config. */
typedef struct trak__ds_cfg {
  char *name;
  uint8_t *config; /* serialized DataSourceConfig */
  size_t config_len;
  char *icpt_name;      /* interceptor_config.name, or NULL */
  uint8_t *icpt_config; /* serialized InterceptorConfig */
  size_t icpt_config_len;
} trak__ds_cfg;

typedef struct trak__slot {
  _Atomic uint32_t gen; /* bumped at start and stop */
  struct trak_session *session;
} trak__slot;

extern trak__slot trak__slots[TRAK_MAX_SESSIONS] TRAK__HIDDEN;

/* Slots whose session is recording: a slot's generation is odd while started. */
static inline uint32_t trak__started_mask(void) {
  uint32_t mask = 0;
  for (int i = 0; i < TRAK_MAX_SESSIONS; i++)
    if (atomic_load_explicit(&trak__slots[i].gen, memory_order_relaxed) & 1) mask |= 1u << i;
  return mask;
}
extern pthread_mutex_t trak__lock TRAK__HIDDEN; /* sessions, categories, thread list */

static inline trak__chunk *trak__chunk_at(struct trak_session *s, uint32_t i) {
  return (trak__chunk *)(s->mem + (size_t)i * s->chunk_size);
}

/* ---- cross-file functions -------------------------------------------------------------- */

/* clock.c */
void trak__clock_init(void) TRAK__HIDDEN;
extern uint64_t (*trak__clock_fake)(void) TRAK__HIDDEN;
extern int trak__clock_tsc TRAK__HIDDEN;
extern uint64_t trak__tsc_base, trak__boot_base, trak__tsc_mult TRAK__HIDDEN;
uint64_t trak__boottime(void) TRAK__HIDDEN;
#if defined(__x86_64__)
/* A TSC reading scaled to nanoseconds on the BOOTTIME scale (trak__clock_tsc set). */
static inline uint64_t trak__tsc_ns(uint64_t tsc) {
  return trak__boot_base +
         (uint64_t)(((unsigned __int128)(tsc - trak__tsc_base) * trak__tsc_mult) >> 32);
}
#endif
/* The event clock: TSC-derived nanoseconds on the BOOTTIME scale (or BOOTTIME itself). */
static inline uint64_t trak__now(void) {
#if defined(__x86_64__)
  if (TRAK_LIKELY(trak__clock_tsc)) return trak__tsc_ns(__builtin_ia32_rdtsc());
#endif
  return trak__boottime();
}
/* The BOOTTIME value that matches event-clock time `ts` (a reading this thread took earlier):
** what a ClockSnapshot pairs with `ts`. Pairing `ts` with a BOOTTIME read later would shift
** every event of the sequence by the time between the two reads. */
uint64_t trak__boottime_at(uint64_t ts) TRAK__HIDDEN;

/* category.c */
void trak__categories_update(void) TRAK__HIDDEN; /* recompute masks; trak__lock held */

/* thread.c */
void trak__init_core(void) TRAK__HIDDEN; /* trak_init() without choosing a backend */
trak__thread *trak__thread_get_slow(void) TRAK__HIDDEN;
static inline trak__thread *trak__thread_get(void) {
  trak__thread *t = trak__tls;
  return TRAK_LIKELY(t != NULL) ? t : trak__thread_get_slow();
}
void trak__threads_wait_idle(void) TRAK__HIDDEN; /* trak__lock held */
void trak__threads_after_fork(void) TRAK__HIDDEN;
extern pid_t trak__pid TRAK__HIDDEN;
uint64_t trak__process_uuid(void) TRAK__HIDDEN;

/* writer.c */
/* Binds `w` to the session in `slot` and restarts its incremental state when due. Returns 1
** when the writer can take the event, 0 when the session stopped meanwhile, -1 when the
** restart packet was lost (the event is lost too). */
int trak__writer_prepare(trak__thread *t, trak__writer *w, int slot, uint64_t ts) TRAK__HIDDEN;
uint8_t *trak__writer_reserve_slow(trak__thread *t, trak__writer *w, size_t need) TRAK__HIDDEN;
int trak__writer_put_packet(trak__thread *t, trak__writer *w, const uint8_t *pkt,
                            size_t len) TRAK__HIDDEN;
void trak__writer_release(trak__writer *w) TRAK__HIDDEN; /* trak__lock held */
int trak__writer_ensure_track(trak__thread *t, trak__writer *w, uint64_t uuid) TRAK__HIDDEN;
uint64_t trak__intern(trak__thread *t, trak__writer *w, uint32_t type, uint32_t field, uint64_t key,
                      const char *str, trak_interned_type *user, const void *value) TRAK__HIDDEN;

static inline uint32_t trak__intern_hash(uint64_t key, uint32_t type, uint32_t mask) {
  return (uint32_t)(((key ^ ((uint64_t)type << 56)) * 0x9E3779B97F4A7C15ull) >> 40) & mask;
}
/* The iid of (type, key) on this sequence, or 0 when not interned yet. */
static inline uint64_t trak__intern_find(const trak__writer *w, uint32_t type, uint64_t key) {
  if (TRAK_UNLIKELY(!w->tab)) return 0;
  uint32_t mask = w->tab_cap - 1;
  for (uint32_t i = trak__intern_hash(key, type, mask);; i = (i + 1) & mask) {
    const trak__intern_entry *e = &w->tab[i];
    if (e->epoch != w->epoch) return 0; /* an empty slot */
    if (e->key == key && e->type == type) return e->iid;
  }
}
static inline uint8_t *trak__writer_reserve(trak__thread *t, trak__writer *w, size_t need) {
  if (TRAK_LIKELY((size_t)(w->end - w->p) >= need)) return w->p;
  return trak__writer_reserve_slow(t, w, need);
}

/* Publishes the packet that ends at `end`: the release store makes its bytes visible to a
** reader that loads `fill` with acquire. */
static inline void trak__writer_commit(trak__writer *w, uint8_t *end) {
  w->p = end;
  w->packets++;
  atomic_store_explicit(&w->chunk->fill, (uint64_t)(end - w->base) | ((uint64_t)w->packets << 32),
                        memory_order_release);
}

/* track.c */
/* Appends the serialized TrackDescriptor of `uuid` as a track_descriptor field to `b`.
** Returns 1 if one is registered, else 0. */
int trak__track_put_descriptor(trak_pb_buf *b, uint64_t uuid) TRAK__HIDDEN;
void trak__put_thread_descriptor(trak_pb_buf *b, trak__thread *t) TRAK__HIDDEN;
void trak__put_process_descriptor(trak_pb_buf *b) TRAK__HIDDEN;
/* The process's name: trak_process_set_name's, else the program's short name. */
void trak__process_name(char *buf, size_t size) TRAK__HIDDEN;
void trak__track_lock(int lock) TRAK__HIDDEN; /* fork handlers: 1 locks, 0 unlocks */

/* event.c */
/* Writes a packet built by fn(b, user) (TracePacket fields) into every session in `mask`. */
void trak__packet_all(uint32_t mask, void (*fn)(trak_pb_buf *b, void *user),
                      void *user) TRAK__HIDDEN;

/* session_config.c: copies the lists, output path and data sources of `cfg` into new session
** `s` (its fields zero before). Returns 0, or TRAK_ENOMEM when a copy failed or a data source
** has no name; what was copied is then still to free with trak__session_config_free, which
** frees them all (fields NULL are fine). */
int trak__session_config_copy(struct trak_session *s, const trak_session_config *cfg) TRAK__HIDDEN;
void trak__session_config_free(struct trak_session *s) TRAK__HIDDEN;

/* session.c */
/* Gives `w` a fresh chunk of `s`. Returns 0, or -1 when none is available (a loss). */
int trak__session_acquire_chunk(struct trak_session *s, trak__writer *w) TRAK__HIDDEN;
void trak__session_retire_chunk(struct trak_session *s, trak__writer *w) TRAK__HIDDEN;
void trak__session_lost(struct trak_session *s, uint32_t packets) TRAK__HIDDEN;
void trak__sessions_after_fork(void) TRAK__HIDDEN;
/* trak_session_stop() in two steps, so that a session starting can take over from one
** stopping in the same category update. Begin: marks started `s` stopped (its writers' chunk
** requests fail, its slot's generation turns even); the caller then recomputes category masks
** before releasing trak__lock (held). End: waits until no thread writes into `s`, stops its
** data sources, frees its slot, completes its chunks, ends its file. Returns 0 or the file's
** error (trak__lock not held). */
void trak__session_stop_begin(struct trak_session *s) TRAK__HIDDEN;
int trak__session_stop_end(struct trak_session *s, trak_error *err) TRAK__HIDDEN;

/* startup.c */
/* When a startup session records and `s` (starting, not yet recording) takes track events,
** reserves the startup session for `s` and returns it (the caller stops it with
** trak__session_stop_begin in the update that starts `s`, then calls trak__startup_adopt),
** else NULL. trak__lock not held. */
struct trak_session *trak__startup_claim(struct trak_session *s) TRAK__HIDDEN;
/* Ends the stop of the claimed `startup`, moves its packets into `s` (same sequences, in
** order) and frees it. Can't fail: packets that do not fit count as lost in both stats. */
void trak__startup_adopt(struct trak_session *s, struct trak_session *startup) TRAK__HIDDEN;

/* data_source.c: instances of data sources, driven by sessions through these entry points
** (a later backend drives them the same way). All of them run without trak__lock except
** where noted. */
/* Sets up and starts every data source instance `s` configures, in `slot`. On failure
** nothing stays set up. */
int trak__ds_session_setup(struct trak_session *s, int slot, trak_error *err) TRAK__HIDDEN;
void trak__ds_session_enable(int slot, int on) TRAK__HIDDEN; /* masks; trak__lock held */
void trak__ds_session_teardown(int slot) TRAK__HIDDEN;       /* stop callbacks, after the grace */
void trak__ds_session_flush(int slot) TRAK__HIDDEN;
/* In a forked child (single-threaded): the locks fresh, no instance live, every mask clear.
** The parent's instances are the parent's: their callbacks do not run in the child. */
void trak__ds_after_fork(void) TRAK__HIDDEN;
/* The names of the data sources registered so far, "track_event" first: up to `max` into
** `names` (strings that live as long as the process). Returns how many. */
uint32_t trak__ds_names(const char **names, uint32_t max) TRAK__HIDDEN;
/* The interceptor instance of data source `ds` in `slot`, or NULL. */
struct trak__icpt_inst *trak__ds_icpt(int ds, int slot) TRAK__HIDDEN;
/* Frees a writer's per-data-source and per-interceptor state (thread exit, rebinding). */
void trak__writer_forget_state(trak__writer *w) TRAK__HIDDEN;
uint64_t trak__intern_user(trak__thread *t, trak__writer *w, trak_interned_type *type, uint64_t key,
                           const void *value) TRAK__HIDDEN;
void trak__ds_incremental_reset(trak__writer *w) TRAK__HIDDEN;

/* intercept.c */
/* Sets up an instance of the interceptor named `name` with its config. Returns 0, or
** TRAK_ENOTFOUND (not registered) or the interceptor's error. */
int trak__icpt_setup(const char *name, const uint8_t *config, size_t len, const char *ds_name,
                     uint32_t instance, struct trak__icpt_inst **out, trak_error *err) TRAK__HIDDEN;
void trak__icpt_start(struct trak__icpt_inst *ii) TRAK__HIDDEN;
void trak__icpt_stop(struct trak__icpt_inst *ii) TRAK__HIDDEN; /* stops and frees */
/* Hands the packets `w` collected to its interceptor and empties its chunk. */
void trak__icpt_deliver(trak__writer *w) TRAK__HIDDEN;
uint32_t trak__icpt_chunk_size(void) TRAK__HIDDEN;      /* the least private chunk size */
void trak__icpt_tls_free(trak__writer *w) TRAK__HIDDEN; /* the interceptor's thread state */

/* console.c: the built-in "console" interceptor. */
extern const trak_interceptor_desc trak__console_desc TRAK__HIDDEN;

/* Gets `w` ready for a packet at `now`: 1 if it can write (see trak__writer_prepare). */
static inline int trak__writer_ready(trak__thread *t, trak__writer *w, int slot, uint64_t now) {
  if (TRAK_LIKELY(w->gen == atomic_load_explicit(&trak__slots[slot].gen, memory_order_relaxed) &&
                  now < w->next_clear_ts))
    return 1;
  int r = trak__writer_prepare(t, w, slot, now);
  if (r < 0) trak__session_lost(w->session, 1);
  return r > 0;
}

/* deflate.c */
/* Appends the zlib stream (RFC 1950) of [in, in + n) to `out`. Returns 0 or out->error. */
int trak__zlib_compress(const uint8_t *in, size_t n, trak_pb_buf *out) TRAK__HIDDEN;

/* readout.c */
/* Appends unread packets of `s` to `out` as Trace.packet fields (s->lock held). */
void trak__session_drain(struct trak_session *s, trak_pb_buf *out) TRAK__HIDDEN;

#endif /* TRAK_SDK_INTERNAL_H */
