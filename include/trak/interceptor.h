/*
** Interceptors: send a data source's packets to custom code instead of the session's buffer,
** e.g. print track events to a terminal (the built-in "console" interceptor) or convert them
** to another tracing format. A session's config activates one for a data source:
**
**   data_sources { config { name: "track_event"
**                           interceptor_config { name: "console" } } }
**
** While that session runs, the packets its instance of the data source writes are handed,
** serialized, to the interceptor's on_packet callback on the writing thread, and nothing of
** that data source reaches the session's buffer. An interceptor keeps three kinds of state:
** - global: its own (desc.user), safe for any thread;
** - per instance: created by setup, started / stopped with the session; on_packet reaches it
**   through trak_interceptor_lock(), which holds a lock the library keeps per instance;
** - per writer sequence: thread_state_new / thread_state_free, living as long as the writer
**   (one thread's sequence into one instance). Dictionaries of interned strings belong here;
**   clear them when a packet's sequence_flags has SEQ_INCREMENTAL_STATE_CLEARED (or let
**   trak_interning do it). The library resets nothing itself.
** See docs/interceptors.md.
*/
#ifndef TRAK_INTERCEPTOR_H
#define TRAK_INTERCEPTOR_H

#include <stddef.h>
#include <stdint.h>

#include "trak/error.h"
#include "trak/export.h"

#ifdef __cplusplus
extern "C" {
#endif

struct trak__icpt_inst;

/* One packet handed to an interceptor, with its context. Valid during on_packet only. */
typedef struct trak_intercepted_packet {
  const uint8_t *data; /* one serialized perfetto.protos.TracePacket */
  size_t len;
  uint32_t sequence_id;          /* the writer sequence (what the buffer would record as
                                    trusted_packet_sequence_id) */
  uint32_t sequence_flags;       /* this packet's TracePacket.sequence_flags, 0 when absent */
  const char *data_source;       /* the data source's name, e.g. "track_event" */
  uint32_t instance;             /* instance index (the session's slot) */
  void *thread_state;            /* per-sequence state from thread_state_new, or NULL */
  void *user;                    /* the interceptor's global state (desc.user) */
  struct trak__icpt_inst *inst_; /* internal */
} trak_intercepted_packet;

/* An interceptor's callbacks; any may be NULL except on_packet. setup receives the serialized
** perfetto.protos.InterceptorConfig of the data source's config (name plus its own options)
** and stores the per-instance state in *state; a nonzero return fails the session's start.
** start / stop bracket the instance; stop is its last call (free the state there). setup,
** start and stop run on the thread starting or stopping the session; on_packet on the
** thread that wrote the packet. thread_state_free may run on any thread and must not trace. */
typedef struct trak_interceptor_desc {
  const char *name; /* copied */
  void *user;
  int (*setup)(void *user, const uint8_t *config, size_t len, void **state, trak_error *err);
  void (*start)(void *user, void *state);
  void (*stop)(void *user, void *state);
  void *(*thread_state_new)(void *user);
  void (*thread_state_free)(void *user, void *thread_state);
  void (*on_packet)(const trak_intercepted_packet *packet);
} trak_interceptor_desc;

/* Registers an interceptor by name, before or after sessions start: a session started later
** whose config names it uses it. Returns 0 or TRAK_EINVAL (name taken or empty) /
** TRAK_ENOMEM. Interceptors stay registered for the life of the process. */
TRAK_API int trak_interceptor_register(const trak_interceptor_desc *desc, trak_error *err);

/* Locks the packet's interceptor instance and returns its state (from setup). Every call
** must be paired with trak_interceptor_unlock() before on_packet returns. */
TRAK_API void *trak_interceptor_lock(const trak_intercepted_packet *packet);
TRAK_API void trak_interceptor_unlock(const trak_intercepted_packet *packet);

/* ---- interning dictionaries ------------------------------------------------------------ */

/* The standard interned kinds of a sequence: InternedData event_categories, event_names,
** debug_annotation_names, debug_annotation_string_values. Keep one per writer sequence (in
** the thread state) and feed it every packet. */
typedef struct trak_interning trak_interning;

TRAK_API trak_interning *trak_interning_new(void); /* NULL when out of memory */
TRAK_API void trak_interning_free(trak_interning *in);
/* Forgets every entry. */
TRAK_API void trak_interning_clear(trak_interning *in);
/* Clears when `flags` has SEQ_INCREMENTAL_STATE_CLEARED, then records the InternedData
** entries of the standard kinds found in the packet. Returns 0, TRAK_EFORMAT (malformed
** packet) or TRAK_ENOMEM. */
TRAK_API int trak_interning_update(trak_interning *in, const uint8_t *packet, size_t len,
                                   uint32_t flags);
/* The string interned as `iid` under `kind` (an InternedData field number such as
** TRAK_PB_InternedData_event_names), with its length in *len; NULL when unknown. Not
** NUL-terminated. */
TRAK_API const char *trak_interning_get(const trak_interning *in, uint32_t kind, uint64_t iid,
                                        size_t *len);

/* ---- the console interceptor ("console") ----------------------------------------------- */

/* Options of the built-in console interceptor. A ConsoleConfig in the session's
** InterceptorConfig (output STDOUT / STDERR, enable_colors) overrides fd and colors. */
typedef struct trak_console_options {
  int fd;         /* where lines go; default 2 (stderr) */
  int colors;     /* 1 on, 0 off, -1 (default): on when fd is a terminal */
  int timestamps; /* nonzero (default): each line starts with the time since session start */
  int ids;        /* nonzero (default): pid and tid follow the process and thread names */
} trak_console_options;

/* Fills `o` with the defaults above. */
TRAK_API void trak_console_options_init(trak_console_options *o);
/* Options for console instances set up from now on (copied). NULL restores the defaults. */
TRAK_API void trak_console_set_options(const trak_console_options *o);

#ifdef __cplusplus
}
#endif
#endif /* TRAK_INTERCEPTOR_H */
