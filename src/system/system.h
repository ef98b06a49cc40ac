/*
** The system backend's internals shared by ipc.c (socket framing and the message
** codec), producer.c (the connection thread inside a traced process) and
** daemon*.c (`trak daemon`). protos/system_ipc.proto defines the messages; every
** datagram on the SOCK_SEQPACKET socket is one IpcMessage of at most TRAK__IPC_MAX bytes,
** with at most one file descriptor beside it (SCM_RIGHTS).
*/
#ifndef TRAK_SYSTEM_SYSTEM_H
#define TRAK_SYSTEM_SYSTEM_H

#include <stddef.h>
#include <stdint.h>

#include "sdk/backend.h"
#include "trak/system.h"

#define TRAK__IPC_MAX 65536       /* bytes per message */
#define TRAK__IPC_MAX_CHUNKS 4096 /* chunk indexes per commit / release message */
#define TRAK__IPC_MAX_NAMES 64    /* data source names per hello / data-sources message */

/* A decoded IpcMessage: the one member set (type is its TRAK_PB_IpcMessage_* field number,
** 0 when none) with its fields flattened. Pointers point into the decoded datagram. */
typedef struct trak__ipc_msg {
  uint32_t type;
  uint32_t session_id;
  const uint8_t *bytes; /* trace_config, process_name, or service_state's whole member */
  size_t bytes_len;
  uint32_t buffer_size;
  uint32_t nchunks;
  uint32_t chunks[TRAK__IPC_MAX_CHUNKS];
  uint64_t packets_lost; /* commit: so far; lost_while_away; status: in all */
  int flushed;           /* IpcCommitChunks.flushed */
  uint32_t nnames;       /* IpcHello / IpcDataSources data source names */
  const uint8_t *names[TRAK__IPC_MAX_NAMES];
  uint32_t name_lens[TRAK__IPC_MAX_NAMES];
  /* IpcStatus */
  uint32_t producers;
  uint64_t bytes_written, chunk_count;
  int done;
  const uint8_t *error; /* IpcStatus.error, not NUL-terminated */
  size_t error_len;
} trak__ipc_msg;

/* Decodes one datagram. Returns 0, or TRAK_EFORMAT for anything malformed: bad wire data, a
** member of the wrong wire type, more than one member, too many chunk indexes. */
int trak__ipc_decode(const uint8_t *data, size_t len, trak__ipc_msg *m) TRAK__HIDDEN;

/* Starts an IpcMessage whose member is field `type` in `b` (a heap buffer); end it with
** trak__ipc_end. */
trak_pb_nested trak__ipc_begin(trak_pb_buf *b, uint32_t type) TRAK__HIDDEN;
void trak__ipc_end(trak_pb_buf *b, trak_pb_nested n) TRAK__HIDDEN;
/* A message holding only a session id (flush, stop, stop done) into `b`. */
void trak__ipc_put_session(trak_pb_buf *b, uint32_t type, uint32_t session_id) TRAK__HIDDEN;
/* A commit / release message of chunk indexes (`lost` and `flushed`: commits only). */
void trak__ipc_put_chunks(trak_pb_buf *b, uint32_t type, uint32_t session_id, const uint32_t *idx,
                          size_t n, uint64_t lost, int flushed) TRAK__HIDDEN;

/* Sends `b` (with `pass_fd` >= 0 attached) without blocking when `nonblock`. Returns 0 or -1
** (errno set; EAGAIN: the peer does not read). */
int trak__ipc_send(int fd, const trak_pb_buf *b, int pass_fd, int nonblock) TRAK__HIDDEN;
/* Receives one datagram into buf[TRAK__IPC_MAX]; a passed descriptor goes to *got_fd (else
** -1). Returns its length, 0 at end of stream, -1 on error, -2 when it was too long. */
long trak__ipc_recv(int fd, uint8_t *buf, int *got_fd) TRAK__HIDDEN;

/* Decodes an IpcServiceState member [data, len) into `st` (zeroed; free with
** trak_service_state_free even on failure). Returns 0, TRAK_EFORMAT or TRAK_ENOMEM. */
int trak__service_state_decode(const uint8_t *data, size_t len,
                               trak_service_state *st) TRAK__HIDDEN;

/* socket_path.c. Connects to the daemon's socket. Returns the descriptor, or -1 with errno set:
** EPERM when the daemon runs as another user than this one or root (SO_PEERCRED). */
int trak__ipc_connect(const char *path) TRAK__HIDDEN;
/* The same for a consumer, with its errors in words: returns the descriptor, or TRAK_EIO
** naming the path and why (no daemon, another user's daemon or directory). */
int trak__ipc_connect_daemon(const char *path, trak_error *err) TRAK__HIDDEN;
/* The socket path when none is given: $TRAK_SOCKET, $XDG_RUNTIME_DIR/trak.sock or
** $TMPDIR/trak-$UID/trak.sock (/tmp without TMPDIR). */
void trak__ipc_default_path(char *buf, size_t size) TRAK__HIDDEN;
/* When `path` is in trak's own directory trak-$UID, checks that directory is this user's and
** owner-only (after making it, mode 0700, when `create`). Returns 0 (also for any other path),
** or TRAK_EIO saying what is wrong with it. */
int trak__ipc_check_dir(const char *path, int create, trak_error *err) TRAK__HIDDEN;

/* The daemon and the consumer call this first: ends a producer TRAK_BACKEND=system started in
** their own process at load time, and prevents another. */
void trak__system_not_a_producer(void) TRAK__HIDDEN;

/* names.c: NULL-terminated lists of malloc'ed names (NULL is the empty list). names_add
** appends a copy of [name, name + len) and returns 0, or -1 out of memory (the list is kept);
** names_from copies a message's data source names (stopping at the first failure). */
void trak__names_free(char **v) TRAK__HIDDEN;
int trak__names_add(char ***v, const void *name, size_t len) TRAK__HIDDEN;
char **trak__names_from(const trak__ipc_msg *m) TRAK__HIDDEN;

#endif /* TRAK_SYSTEM_SYSTEM_H */
