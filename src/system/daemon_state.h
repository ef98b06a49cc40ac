/*
** The daemon's state and the interface between its files: daemon.c (the loop: connections,
** messages, periodic work), daemon_clients.c (clients: the chunks taken from producers, their
** data sources and access, loss reports, attaching and dropping), daemon_sessions.c (a
** session's start, write-out, status, stop and end) and daemon_status.c (the service state
** `trak status` asks for). One thread runs them all: nothing here is locked.
*/
#ifndef TRAK_SYSTEM_DAEMON_STATE_H
#define TRAK_SYSTEM_DAEMON_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "system/daemon.h"

#define MAX_CLIENTS 64
#define STOP_GRACE_MS 2000 /* how long a stopping session waits for a silent producer */

enum { C_NEW = 0, C_PRODUCER, C_CONSUMER };

typedef struct client {
  int fd;
  int role;
  int32_t pid, uid;
  uint64_t since_ms;     /* when it connected */
  uint64_t delivered;    /* packets the daemon copied from it */
  uint64_t believed;     /* lost packets of its reports counted so far */
  uint64_t away_pending; /* IpcLostWhileAway packets not believed yet */
  int loss_logged;       /* a report went past what it delivered (logged once) */
  char name[64];
  char **sources;      /* producer: its data sources (NULL-terminated), from IpcHello */
  uint32_t session_id; /* consumer: its session */
  trak__attach at[TRAK_MAX_SESSIONS];
} client;

typedef struct dsession {
  uint32_t id; /* 0: unused */
  trak_session *central;
  int out_fd, consumer; /* consumer: client index or -1 */
  uint8_t *pconfig;     /* TraceConfig the producers get */
  size_t pconfig_len;
  int32_t uid; /* the consumer's: it records producers of this uid only, unless root */
  int stream;  /* write_into_file: write as it goes */
  int stopping;
  uint32_t write_period_ms, flush_period_ms; /* 0: no periodic flush */
  uint64_t stop_deadline, next_write, next_flush;
  uint64_t chunks, bytes_out, producer_lost, lost_away;
  uint32_t producers_seen; /* producers that joined */
  uint64_t invalid_chunks; /* chunks refused as malformed (their producers disconnected) */
  char error[160];
} dsession;

/* The daemon's one state (daemon.c defines it; trak_daemon_run clears it). */
typedef struct trak__daemon_state {
  const trak_daemon_config *cfg;
  int listen_fd;
  client c[MAX_CLIENTS];
  dsession s[TRAK_MAX_SESSIONS];
  uint32_t next_session;
  uint64_t lost_away;                 /* reported by reconnecting producers while no session ran */
  uint64_t refused, next_refusal_log; /* connections refused since the last log line */
  int stopping;                       /* asked to stop: sessions are ending, no new one starts */
  uint8_t *rx;
  trak__copier copier;
  trak_pb_buf tx;
  trak__ipc_msg m;
} trak__daemon_state;
extern trak__daemon_state trak__daemon TRAK__HIDDEN;
#define D trak__daemon /* short, as the daemon's files name it */

static inline uint64_t add_sat(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---- daemon.c ------------------------------------------------------------------------------ */

/* The monotonic clock in milliseconds. */
uint64_t trak__daemon_now_ms(void) TRAK__HIDDEN;
/* Writes "trak daemon: " and the formatted line to stderr. */
void trak__daemon_log(const char *fmt, ...) __attribute__((format(printf, 1, 2))) TRAK__HIDDEN;
/* The running session of id `id`, or NULL (id 0, or ended). */
dsession *trak__daemon_session(uint32_t id) TRAK__HIDDEN;

/* ---- daemon_clients.c ---------------------------------------------------------------------- */

/* Counts what producer `ci`'s loss reports claimed, as far as what it delivered vouches for
** (docs/limits.md); a claim past that waits, and is logged once. */
void trak__daemon_credit(int ci) TRAK__HIDDEN;
/* Drops client `ci` (its slot is free after). `salvage`: a producer that went away (not one
** caught misbehaving) gets every chunk still holding packets copied as if committed. A
** consumer's session ends. */
void trak__daemon_drop_client(int ci, int salvage) TRAK__HIDDEN;
/* Logs why producer `ci` is disconnected, and drops it without salvage. */
void trak__daemon_misbehaved(int ci, const char *why) TRAK__HIDDEN;
/* Sends D.tx (with `pass_fd` beside it, -1: none) to client `ci` without blocking. Returns 0,
** or -1 when it was not sent: a client that does not read is dropped (a producer as
** misbehaving), one whose peer closed is left for its queued messages to be read. */
int trak__daemon_send(int ci, int pass_fd) TRAK__HIDDEN;
/* Gives producer `ci` a shared buffer in session `s` and tells it to start, when it has an
** attachment free and the session wants it (its uid, its data sources). Failures are logged;
** the producer then stays out of the session. */
void trak__daemon_attach(int ci, dsession *s) TRAK__HIDDEN;
/* IpcCommitChunks from producer `ci`: its chunks taken (a malformed one disconnects it), its
** loss report counted, the chunks released to it. */
void trak__daemon_on_commit(int ci, const trak__ipc_msg *m) TRAK__HIDDEN;
/* IpcStopDone from producer `ci`: its losses counted, its attachment to session `id` freed. */
void trak__daemon_on_stop_done(int ci, uint32_t id) TRAK__HIDDEN;

/* ---- daemon_sessions.c --------------------------------------------------------------------- */

/* IpcEnableTracing from consumer `ci`: a session writing to `out_fd` (owned from here on),
** every producer that fits attached; or a final IpcStatus saying why not. */
void trak__daemon_on_enable(int ci, const trak__ipc_msg *m, int out_fd) TRAK__HIDDEN;
/* Writes what the central buffer holds to the session's file (nothing after a write error). */
void trak__daemon_write_out(dsession *s) TRAK__HIDDEN;
/* The producers attached to `s`. */
uint32_t trak__daemon_producers_in(const dsession *s) TRAK__HIDDEN;
/* Every packet the session lost: in producers (also while no daemon was there), in the
** central buffer, withheld at readout. */
uint64_t trak__daemon_packets_lost(dsession *s) TRAK__HIDDEN;
/* Sends the session's IpcStatus to its consumer (if still connected); `done`: the last one. */
void trak__daemon_send_status(dsession *s, int done) TRAK__HIDDEN;
/* Sends IpcFlushSession to every producer in `s` (and, when `then_stop`, IpcStopSession). */
void trak__daemon_signal_producers(dsession *s, int then_stop) TRAK__HIDDEN;
/* Asks every producer in `s` to flush and stop; the session ends (trak__daemon_finish_session,
** from the loop's tick) when all answered or after a grace. Does nothing if it is stopping. */
void trak__daemon_end_session(dsession *s) TRAK__HIDDEN;
/* Ends session `s`: its producers' chunks and losses counted and attachments freed, the rest
** of its buffer and its trace_stats written, the last status sent, everything freed; the slot
** is free after. */
void trak__daemon_finish_session(dsession *s) TRAK__HIDDEN;

/* ---- daemon_status.c ----------------------------------------------------------------------- */

/* IpcQueryService from client `ci`: the producers and sessions it may see (its uid's; root:
** all), as many as one datagram holds (then marked truncated). */
void trak__daemon_on_query(int ci) TRAK__HIDDEN;

#endif /* TRAK_SYSTEM_DAEMON_STATE_H */
