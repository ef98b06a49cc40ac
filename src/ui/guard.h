/*
** This file declares the viewer's connection guard (guard.c): per-connection deadlines that do
** not restart with each byte, a cap per client (the uid owning the peer's socket, peer.c) and a
** global cap, each closing the longest idle connection of whoever holds the most first, so that
** slow or silent clients cannot keep others out of `trak ui`.
*/
#ifndef TRAK_UI_GUARD_H
#define TRAK_UI_GUARD_H

#include <stdint.h>

/* What a connection is doing, and so which deadline holds. */
typedef enum trak_ui_phase {
  TRAK_UI_HEAD,  /* waiting for a request's head (a new or kept-alive connection): idle */
  TRAK_UI_BODY,  /* reading a request's body */
  TRAK_UI_WRITE, /* sending an answer */
  TRAK_UI_BUSY,  /* a query runs for it (suspended): no deadline, /api/cancel ends it */
} trak_ui_phase;

typedef struct trak_ui_conn {
  int fd;              /* the socket, shut down (never closed: libmicrohttpd does) to reap it */
  trak_ui_phase phase; /* what it is doing */
  int64_t since_ns;    /* when it entered the phase (monotonic): the oldest idle goes first */
  int64_t deadline_ns; /* when the phase must be over; 0: none */
  int reaped;          /* shut down, waiting for libmicrohttpd to close it */
  int64_t uid;         /* the client: the uid owning the peer's socket, -1 when not known */
  struct trak_ui_conn *prev, *next;
} trak_ui_conn;

typedef struct trak_ui_guard {
  trak_ui_conn *head; /* every open connection, newest first */
  unsigned count;     /* open and not reaped */
  unsigned cap;       /* most connections kept open */
  unsigned per_uid;   /* most connections kept open for one client (uid) */
} trak_ui_guard;

/* Registers a new connection on socket `fd` of client `uid` (-1: not known; such clients count
** as one), in the head phase. Returns NULL when out of memory (the caller closes the
** connection). The guard is used from one thread only. */
trak_ui_conn *trak__ui_guard_open(trak_ui_guard *g, int fd, int64_t uid);
/* Forgets a connection (libmicrohttpd closed it) and frees `k`. NULL is allowed. */
void trak__ui_guard_close(trak_ui_guard *g, trak_ui_conn *k);
/* Moves `k` to `phase`, whose deadline is now + `seconds` (0: none). NULL is allowed. */
void trak__ui_guard_phase(trak_ui_conn *k, trak_ui_phase phase, unsigned seconds);
/* Extends `k`'s deadline by the time `bytes` take at `bytes_per_s`: a long body that keeps
** arriving at that rate is not cut, one that trickles is. NULL is allowed. */
void trak__ui_guard_extend(trak_ui_conn *k, uint64_t bytes, uint64_t bytes_per_s);
/* Shuts down every connection past its deadline; then, while a client holds more than per_uid,
** its idle connection (head phase) that has waited longest; then, while more than the cap are
** open, the longest idle of the client holding the most. Returns how many it shut down. */
unsigned trak__ui_guard_sweep(trak_ui_guard *g);

#endif
