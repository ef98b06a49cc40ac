/*
** This file holds the viewer's connection guard: each connection's phase and fixed deadline
** (reading a head, reading a body, writing an answer), and the sweep that shuts down those past
** their deadline and, above a client's share or the global cap, the longest idle of the client
** holding the most (every local client comes from 127.0.0.1: a client is the peer's uid). libmicrohttpd's own timeout restarts with
** every byte, so one byte every few seconds would hold a connection for ever; these do not.
*/
#include "ui/guard.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

trak_ui_conn *trak__ui_guard_open(trak_ui_guard *g, int fd, int64_t uid) {
  trak_ui_conn *k = calloc(1, sizeof *k);
  if (!k) return NULL;
  k->fd = fd;
  k->uid = uid;
  trak__ui_guard_phase(k, TRAK_UI_HEAD, 0);
  k->next = g->head;
  if (g->head) g->head->prev = k;
  g->head = k;
  g->count++;
  return k;
}

void trak__ui_guard_close(trak_ui_guard *g, trak_ui_conn *k) {
  if (!k) return;
  if (k->prev)
    k->prev->next = k->next;
  else
    g->head = k->next;
  if (k->next) k->next->prev = k->prev;
  if (!k->reaped) g->count--;
  free(k);
}

void trak__ui_guard_phase(trak_ui_conn *k, trak_ui_phase phase, unsigned seconds) {
  if (!k) return;
  k->phase = phase;
  k->since_ns = now_ns();
  k->deadline_ns = seconds ? k->since_ns + (int64_t)seconds * 1000000000 : 0;
}

void trak__ui_guard_extend(trak_ui_conn *k, uint64_t bytes, uint64_t bytes_per_s) {
  if (!k || !k->deadline_ns || !bytes_per_s) return;
  k->deadline_ns += (int64_t)(bytes * 1000000000.0 / (double)bytes_per_s);
}

/* Shuts `k` down: libmicrohttpd sees the end of the stream and closes it on its next turn. */
static void reap(trak_ui_guard *g, trak_ui_conn *k) {
  shutdown(k->fd, SHUT_RDWR);
  k->reaped = 1;
  g->count--;
}

/* Connections of client `uid` not yet reaped. */
static unsigned held_by(const trak_ui_guard *g, int64_t uid) {
  unsigned n = 0;
  for (const trak_ui_conn *k = g->head; k; k = k->next)
    n += !k->reaped && k->uid == uid;
  return n;
}

/* The idle connection to reap next: of the client holding the most connections (only those
** holding more than `over`), the one that has waited longest. NULL when there is none. */
static trak_ui_conn *victim(const trak_ui_guard *g, unsigned over) {
  trak_ui_conn *best = NULL;
  unsigned best_held = 0;
  for (trak_ui_conn *k = g->head; k; k = k->next) {
    if (k->reaped || k->phase != TRAK_UI_HEAD) continue;
    unsigned held = held_by(g, k->uid);
    if (held <= over) continue;
    if (!best || held > best_held || (held == best_held && k->since_ns <= best->since_ns))
      best = k, best_held = held;
  }
  return best;
}

unsigned trak__ui_guard_sweep(trak_ui_guard *g) {
  int64_t now = now_ns();
  unsigned n = 0;
  for (trak_ui_conn *k = g->head; k; k = k->next)
    if (!k->reaped && k->deadline_ns && now >= k->deadline_ns) reap(g, k), n++;
  trak_ui_conn *k;
  while (g->per_uid && (k = victim(g, g->per_uid)) != NULL) /* a client over its share */
    reap(g, k), n++;
  /* Over the cap: busy connections wait for libmicrohttpd's own cap. */
  while (g->count > g->cap && (k = victim(g, 0)) != NULL)
    reap(g, k), n++;
  return n;
}
