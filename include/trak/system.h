/*
** The system backend: one tracing daemon (`trak daemon`) per machine or user, to which every
** traced process connects, so one trace shows several processes side by side. The event path
** is the in-process one: threads fill chunks of a buffer that is, in system mode, shared
** memory the daemon reads. See docs/system-tracing.md.
**
** Producers: call trak_system_connect() (the init option), or set TRAK_BACKEND=system in the
** environment of any program linking libtrak (read when the library loads). Consumers:
** trak_record_run()
** (what `trak record` does). The daemon: trak_daemon_run() (what `trak daemon` does).
*/
#ifndef TRAK_SYSTEM_H
#define TRAK_SYSTEM_H

#include <stddef.h>
#include <stdint.h>

#include "trak/error.h"
#include "trak/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Makes this process a producer of the daemon at `socket_path` (NULL: $TRAK_SOCKET,
** $XDG_RUNTIME_DIR/trak.sock or /tmp/trak-$UID/trak.sock). A background thread connects, and
** reconnects whenever the daemon goes away; sessions the daemon starts record this process's
** events. Returns 0, or TRAK_ESTATE when already connecting to another path. */
TRAK_API int trak_system_connect(const char *socket_path);
/* Ends the connection (stopping any session it recorded) and joins the thread. */
TRAK_API void trak_system_disconnect(void);
/* Nonzero while connected to a daemon. */
TRAK_API int trak_system_connected(void);
/* How many sessions the daemon has started in this process and that still record. */
TRAK_API int trak_system_active_sessions(void);

typedef struct trak_daemon_config {
  const char *socket_path;     /* NULL: the default path */
  uint32_t producer_buffer_kb; /* shared buffer per producer and session; 0: 1024 */
  uint32_t max_session_kb;     /* upper bound of a session's central buffer; 0: 262144 */
  int verbose;                 /* nonzero: log connections and sessions on stderr */
  /* Nonzero: every local user may connect (socket mode 0666 instead of 0600). Whatever the
  ** mode, a session records only producers of its consumer's uid; root's record every uid. */
  int shared;
} trak_daemon_config;

/* Runs the daemon until *stop becomes nonzero (checked at least every 100 ms; a signal
** handler may set it). Running sessions then end as if their recorders stopped them: producers
** hand over what they hold (2 s grace for a silent one) and the files are finished. The
** socket is created owner-only (see `shared`) and removed at exit. Returns 0 or TRAK_EIO
** (socket could not be created). */
TRAK_API int trak_daemon_run(const trak_daemon_config *cfg, volatile int *stop, trak_error *err);

typedef struct trak_record_status {
  uint32_t producers;     /* producers recording into the session */
  uint64_t bytes_written; /* trace bytes in the file */
  uint64_t chunks;        /* chunks the daemon copied from producers */
  uint64_t packets_lost;  /* packets producers or the buffer dropped */
} trak_record_status;

typedef struct trak_record_config {
  const char *socket_path;  /* NULL: the default path */
  const void *trace_config; /* serialized perfetto.protos.TraceConfig */
  size_t trace_config_len;
  int out_fd;           /* the trace goes here (the daemon writes it); open it read-write. A
                        ** regular file is emptied once a daemon answers, not before */
  uint32_t duration_ms; /* 0: until *stop */
  volatile int *stop;   /* may be NULL; nonzero ends the session early */
  /* Called about twice a second while recording; may be NULL. */
  void (*progress)(const trak_record_status *st, uint32_t ms_left, void *user);
  void *user;
} trak_record_config;

/* Records one session through the daemon: starts it, waits for the duration or *stop, stops
** it and waits until the daemon has written the trace to out_fd. Returns 0, TRAK_EIO (no
** daemon, or the daemon failed) or TRAK_EINVAL. When the session started but failed (e.g.
** the daemon died), out_fd still ends as a valid trace: cut back to its last whole packet
** (when out_fd is readable) and ended by a trace_stats packet whose final flush failed. */
TRAK_API int trak_record_run(const trak_record_config *cfg, trak_record_status *final,
                             trak_error *err);

/* What the daemon has: its producers and sessions (`trak status`). A caller that is not root
** sees only those of its own uid. */
typedef struct trak_producer_info {
  int32_t pid, uid;
  char *name;          /* the process name it announced */
  char **data_sources; /* NULL-terminated: every data source it registered */
  uint32_t sessions;   /* sessions recording it now */
} trak_producer_info;

typedef struct trak_session_info {
  uint32_t id;
  int32_t uid;        /* its recorder's */
  uint32_t producers; /* recording into it now */
  uint64_t bytes_written, chunks, packets_lost;
} trak_session_info;

typedef struct trak_service_state {
  trak_producer_info *producers;
  size_t n_producers;
  trak_session_info *sessions;
  size_t n_sessions;
  int truncated; /* nonzero: more than one answer would hold; the lists stop early */
} trak_service_state;

/* Asks the daemon at `socket_path` (NULL: the default path) what it has. Returns 0 with *out
** set (free it with trak_service_state_free), TRAK_EIO (no daemon, or it did not answer) or
** TRAK_EFORMAT (an answer that does not decode) or TRAK_ENOMEM. */
TRAK_API int trak_system_query(const char *socket_path, trak_service_state **out, trak_error *err);
TRAK_API void trak_service_state_free(trak_service_state *st);

#ifdef __cplusplus
}
#endif
#endif /* TRAK_SYSTEM_H */
