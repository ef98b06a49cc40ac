/*
** This file holds the daemon's clients: the chunks taken from a producer's attachment (chunks.c
** checks them), which sessions a producer's data sources and uid admit it to, the credit given
** to its loss reports, attaching it to a session (its memfd) and its commits, and dropping a
** client (a producer that went away salvaged, one caught misbehaving not). Sends to clients
** never block: one that stops reading is disconnected.
*/
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "system/daemon_state.h"

/* A producer's loss reports are believed up to LOSS_PER_PACKET packets for every packet the
** daemon copied from it on this connection, plus LOSS_GRACE: a count made of what the daemon
** itself saw, so a scribbled or hostile report cannot claim billions (docs/limits.md). A
** flooded producer loses far fewer than 100 packets per packet delivered (test_losses_accounted:
** about 30 with a 64 KiB buffer); the grace covers what a restart left (IpcLostWhileAway). */
#define LOSS_PER_PACKET 100ull
#define LOSS_GRACE 10000ull

/* Takes chunk `i` of producer `c`'s attachment `a` into session `s` (chunks.c), counting it
** and the packets it delivered. */
static int take(client *c, trak__attach *a, dsession *s, uint32_t i, int how, char *why, size_t n) {
  uint64_t before = a->copied;
  int rc = trak__attach_take(&D.copier, a, s->central, i, how, why, n);
  c->delivered += a->copied - before;
  if (rc > 0) s->chunks++;
  s->invalid_chunks += rc < 0;
  return rc < 0 ? -1 : 0;
}

/* Every chunk of a commit, then, when it answers a flush, what the chunks still being written
** hold. Returns -1 (reason in `why`) at the first malformed one. */
static int take_commit(client *c, trak__attach *a, dsession *s, const trak__ipc_msg *m, char *why,
                       size_t n) {
  int rc = 0;
  for (uint32_t k = 0; k < m->nchunks && !rc; k++)
    rc = take(c, a, s, m->chunks[k], TRAK__TAKE_ALL, why, n);
  for (uint32_t i = 0; !rc && m->flushed && i < a->nchunks; i++)
    rc = take(c, a, s, i, TRAK__TAKE_SCRAPE, why, n);
  return rc;
}

/* Did producer `c` advertise data source `name`? */
static int has_source(const client *c, const char *name) {
  for (size_t j = 0; c->sources && c->sources[j]; j++)
    if (!strcmp(name, c->sources[j])) return 1;
  return 0;
}

/* Should producer `c` record into session `s`? Not already in it; of the consumer's uid
** (root's sessions record every uid); with a data source the session asks for. */
static int wants(const dsession *s, const client *c) {
  if (s->stopping || (s->uid != 0 && s->uid != c->uid)) return 0;
  for (int k = 0; k < TRAK_MAX_SESSIONS; k++)
    if (c->at[k].session_id == s->id) return 0;
  /* The central buffer's session parsed the config's data sources; none means track events,
  ** as in-process. */
  const trak_session *cs = s->central;
  if (!cs->ndss) return has_source(c, "track_event");
  for (size_t i = 0; i < cs->ndss; i++)
    if (has_source(c, cs->dss[i].name)) return 1;
  return 0;
}

/* Counts what producer `ci`'s loss reports claimed, as far as what it delivered vouches for:
** its believed total stays within LOSS_PER_PACKET per packet copied from it plus LOSS_GRACE.
** A claim past that waits for more delivered packets (a report may come before the packets
** that show the loss) and is dropped with its attachment or connection; it is logged once. */
void trak__daemon_credit(int ci) {
  client *c = &D.c[ci];
  uint64_t cap = c->delivered > (UINT64_MAX - LOSS_GRACE) / LOSS_PER_PACKET
                     ? UINT64_MAX
                     : c->delivered * LOSS_PER_PACKET + LOSS_GRACE;
  uint64_t room = cap > c->believed ? cap - c->believed : 0, waiting = 0;
  for (int k = 0; k < TRAK_MAX_SESSIONS; k++) {
    trak__attach *a = &c->at[k];
    dsession *s = trak__daemon_session(a->session_id);
    if (!s) continue;
    uint64_t t = a->lost_pending < room ? a->lost_pending : room;
    s->producer_lost += t;
    a->lost_pending -= t, room -= t, c->believed += t;
    waiting = add_sat(waiting, a->lost_pending);
  }
  uint64_t t = c->away_pending < room ? c->away_pending : room;
  if (t) { /* to the sessions it joined at its hello, or to the next session started */
    int joined = 0;
    for (int k = 0; k < TRAK_MAX_SESSIONS; k++) {
      dsession *s = trak__daemon_session(c->at[k].session_id);
      if (s) s->lost_away += t;
      joined |= s != NULL;
    }
    if (!joined) D.lost_away += t;
    c->away_pending -= t, c->believed += t;
  }
  waiting = add_sat(waiting, c->away_pending);
  if (waiting && !c->loss_logged) {
    trak__daemon_log(
        "producer %d (%s) claims %llu more lost packets than the %llu packets it delivered "
        "vouch for (%llu each, plus %llu); %llu counted so far",
        (int)c->pid, c->name, (unsigned long long)waiting, (unsigned long long)c->delivered,
        LOSS_PER_PACKET, LOSS_GRACE, (unsigned long long)c->believed);
    c->loss_logged = 1;
  }
}

/* Drops a client. A producer that went away (not one caught misbehaving) gets its buffers
** salvaged: every chunk still holding packets is copied as if committed. */
void trak__daemon_drop_client(int ci, int salvage) {
  client *c = &D.c[ci];
  char why[160];
  for (int k = 0; k < TRAK_MAX_SESSIONS; k++) {
    trak__attach *a = &c->at[k];
    dsession *s = trak__daemon_session(a->session_id);
    for (uint32_t i = 0; salvage && s && i < a->nchunks; i++)
      if (take(c, a, s, i, TRAK__TAKE_ALL, why, sizeof why) != 0) break;
  }
  if (salvage)
    trak__daemon_credit(ci); /* what the salvage delivered vouches for its last reports */
  for (int k = 0; k < TRAK_MAX_SESSIONS; k++)
    trak__attach_free(&c->at[k]);
  if (c->role == C_CONSUMER) {
    dsession *s = trak__daemon_session(c->session_id);
    if (s) {
      s->consumer = -1;
      if (!s->stopping) trak__daemon_end_session(s);
    }
  }
  if (D.cfg->verbose && c->role)
    trak__daemon_log("%s %d (%s) disconnected", c->role == C_PRODUCER ? "producer" : "consumer",
                     (int)c->pid, c->name);
  close(c->fd);
  trak__names_free(c->sources);
  memset(c, 0, sizeof *c);
  c->fd = -1;
}

void trak__daemon_misbehaved(int ci, const char *why) {
  client *c = &D.c[ci];
  trak__daemon_log("disconnecting producer pid %d uid %d (%s): %s", (int)c->pid, (int)c->uid,
                   c->name, why);
  trak__daemon_drop_client(ci, 0);
}

/* Sends D.tx to client `ci` without blocking; one that does not read is dropped. A peer
** that closed its end is not dropped here: the messages it sent before closing are still
** queued, and reading them to the end of the stream keeps its last commits and losses. */
int trak__daemon_send(int ci, int pass_fd) {
  if (trak__ipc_send(D.c[ci].fd, &D.tx, pass_fd, 1) == 0) return 0;
  if (errno == EPIPE || errno == ECONNRESET) return -1;
  if (D.c[ci].role == C_PRODUCER && (errno == EAGAIN || errno == EWOULDBLOCK))
    trak__daemon_misbehaved(ci, "its socket is full (it does not read)");
  else
    trak__daemon_drop_client(ci, 1);
  return -1;
}

/* Gives producer `ci` a buffer in session `s` and tells it to start. */
void trak__daemon_attach(int ci, dsession *s) {
  client *c = &D.c[ci];
  trak__attach *a = NULL;
  for (int k = 0; k < TRAK_MAX_SESSIONS && !a; k++)
    if (!c->at[k].session_id) a = &c->at[k];
  if (!a || !wants(s, c)) return;
  uint32_t cs = s->central->chunk_size;
  size_t size = (size_t)(D.cfg->producer_buffer_kb ? D.cfg->producer_buffer_kb : 1024) * 1024;
  size = size / cs * cs;
  if (size < 2 * (size_t)cs) size = 2 * (size_t)cs;
  int fd = memfd_create("trak-producer", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, (off_t)size) != 0 ||
      (a->mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0)) ==
          MAP_FAILED) {
    trak__daemon_log("no shared buffer for producer %d: %s", (int)c->pid, strerror(errno));
    a->mem = NULL;
    if (fd >= 0) close(fd);
    return;
  }
  a->session_id = s->id;
  a->uid = c->uid;
  a->pid = c->pid;
  s->producers_seen++;
  a->size = size;
  a->nchunks = (uint32_t)(size / cs);
  if (!(a->scr = calloc(a->nchunks, sizeof *a->scr))) {
    trak__daemon_log("no memory for producer %d's buffer", (int)c->pid);
    trak__attach_free(a);
    close(fd);
    return;
  }
  trak_pb_nested n = trak__ipc_begin(&D.tx, TRAK_PB_IpcMessage_start_session);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcStartSession_session_id, s->id);
  trak_pb_put_bytes(&D.tx, TRAK_PB_IpcStartSession_trace_config, s->pconfig, s->pconfig_len);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcStartSession_buffer_size, size);
  trak__ipc_end(&D.tx, n);
  trak__daemon_send(ci, fd);
  close(fd);
}

void trak__daemon_on_commit(int ci, const trak__ipc_msg *m) {
  client *c = &D.c[ci];
  trak__attach *a = NULL;
  for (int k = 0; k < TRAK_MAX_SESSIONS && !a; k++)
    if (m->session_id && c->at[k].session_id == m->session_id) a = &c->at[k];
  dsession *s = trak__daemon_session(m->session_id);
  if (!a || !s) return; /* a session that ended meanwhile */
  /* A stopping session waits as long as its producers make progress: the grace runs from
  ** the last message, not from the stop (a busy daemon may read them late). */
  if (s->stopping) s->stop_deadline = trak__daemon_now_ms() + STOP_GRACE_MS;
  char why[160];
  if (take_commit(c, a, s, m, why, sizeof why) != 0) return trak__daemon_misbehaved(ci, why);
  if (m->packets_lost > a->lost)
    a->lost_pending = add_sat(a->lost_pending, m->packets_lost - a->lost);
  a->lost = m->packets_lost;
  trak__daemon_credit(ci);
  trak__ipc_put_chunks(&D.tx, TRAK_PB_IpcMessage_release_chunks, m->session_id, m->chunks,
                       m->nchunks, 0, 0);
  trak__daemon_send(ci, -1);
}

void trak__daemon_on_stop_done(int ci, uint32_t id) {
  trak__daemon_credit(ci);
  for (int j = 0; j < TRAK_MAX_SESSIONS; j++)
    if (id && D.c[ci].at[j].session_id == id) trak__attach_free(&D.c[ci].at[j]);
}
