/*
** `trak daemon`: the tracing service of the system backend. One thread polls a listening
** SOCK_SEQPACKET socket and its clients: producers (traced processes) and consumers
** (`trak record`). A consumer's IpcEnableTracing creates a session: a central buffer (an
** unstarted trak_session used only as storage and readout) plus, for every producer, a memfd
** the producer maps as its chunk buffer (an attachment, daemon.h). Producers commit
** complete chunks; the daemon copies each into the central buffer (chunks.c checks the
** copy and remaps the writer's sequence id to one it allocates) and releases the chunk. Readout
** stamps
** the trusted fields from the daemon's own record of the producer (SO_PEERCRED), dropping any
** the producer wrote.
**
** Isolation. Each producer has its own memfd per session and can only name chunks of it; a
** message or chunk that does not check out disconnects that producer alone, with a log line.
** Sends to producers never block: one that stops reading is disconnected.
*/
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "system/daemon.h"

#define MAX_CLIENTS 64
#define STOP_GRACE_MS 2000 /* how long a stopping session waits for a silent producer */
/* A client must say what it is (hello, enable_tracing, query_service) this soon after it
** connects, or it is disconnected: idle connections cannot hold the slots. */
#define HELLO_DEADLINE_MS 1000
/* The slots one uid may hold: with --shared, one user cannot lock the others out. */
#define UID_QUOTA (MAX_CLIENTS * 3 / 4)
/* A producer's loss reports are believed up to LOSS_PER_PACKET packets for every packet the
** daemon copied from it on this connection, plus LOSS_GRACE: a count made of what the daemon
** itself saw, so a scribbled or hostile report cannot claim billions (docs/limits.md). A
** flooded producer loses far fewer than 100 packets per packet delivered (test_losses_accounted:
** about 30 with a 64 KiB buffer); the grace covers what a restart left (IpcLostWhileAway). */
#define LOSS_PER_PACKET 100ull
#define LOSS_GRACE 10000ull

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

static struct {
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
} D;

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "trak daemon: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static dsession *session_by_id(uint32_t id) {
  for (int i = 0; i < TRAK_MAX_SESSIONS; i++)
    if (id && D.s[i].id == id) return &D.s[i];
  return NULL;
}

/* ---- chunks ------------------------------------------------------------------------------ */

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

/* ---- data sources and access ------------------------------------------------------------- */

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

/* ---- clients ------------------------------------------------------------------------------ */

static void end_session(dsession *s);

static uint64_t add_sat(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Counts what producer `ci`'s loss reports claimed, as far as what it delivered vouches for:
** its believed total stays within LOSS_PER_PACKET per packet copied from it plus LOSS_GRACE.
** A claim past that waits for more delivered packets (a report may come before the packets
** that show the loss) and is dropped with its attachment or connection; it is logged once. */
static void credit(int ci) {
  client *c = &D.c[ci];
  uint64_t cap = c->delivered > (UINT64_MAX - LOSS_GRACE) / LOSS_PER_PACKET
                     ? UINT64_MAX
                     : c->delivered * LOSS_PER_PACKET + LOSS_GRACE;
  uint64_t room = cap > c->believed ? cap - c->believed : 0, waiting = 0;
  for (int k = 0; k < TRAK_MAX_SESSIONS; k++) {
    trak__attach *a = &c->at[k];
    dsession *s = session_by_id(a->session_id);
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
      dsession *s = session_by_id(c->at[k].session_id);
      if (s) s->lost_away += t;
      joined |= s != NULL;
    }
    if (!joined) D.lost_away += t;
    c->away_pending -= t, c->believed += t;
  }
  waiting = add_sat(waiting, c->away_pending);
  if (waiting && !c->loss_logged) {
    logf_("producer %d (%s) claims %llu more lost packets than the %llu packets it delivered "
          "vouch for (%llu each, plus %llu); %llu counted so far",
          (int)c->pid, c->name, (unsigned long long)waiting, (unsigned long long)c->delivered,
          LOSS_PER_PACKET, LOSS_GRACE, (unsigned long long)c->believed);
    c->loss_logged = 1;
  }
}

/* Drops a client. A producer that went away (not one caught misbehaving) gets its buffers
** salvaged: every chunk still holding packets is copied as if committed. */
static void drop_client(int ci, int salvage) {
  client *c = &D.c[ci];
  char why[160];
  for (int k = 0; k < TRAK_MAX_SESSIONS; k++) {
    trak__attach *a = &c->at[k];
    dsession *s = session_by_id(a->session_id);
    for (uint32_t i = 0; salvage && s && i < a->nchunks; i++)
      if (take(c, a, s, i, TRAK__TAKE_ALL, why, sizeof why) != 0) break;
  }
  if (salvage) credit(ci); /* what the salvage delivered vouches for its last reports */
  for (int k = 0; k < TRAK_MAX_SESSIONS; k++)
    trak__attach_free(&c->at[k]);
  if (c->role == C_CONSUMER) {
    dsession *s = session_by_id(c->session_id);
    if (s) {
      s->consumer = -1;
      if (!s->stopping) end_session(s);
    }
  }
  if (D.cfg->verbose && c->role)
    logf_("%s %d (%s) disconnected", c->role == C_PRODUCER ? "producer" : "consumer", (int)c->pid,
          c->name);
  close(c->fd);
  trak__names_free(c->sources);
  memset(c, 0, sizeof *c);
  c->fd = -1;
}

static void misbehaved(int ci, const char *why) {
  client *c = &D.c[ci];
  logf_("disconnecting producer pid %d uid %d (%s): %s", (int)c->pid, (int)c->uid, c->name, why);
  drop_client(ci, 0);
}

/* Sends D.tx to client `ci` without blocking; one that does not read is dropped. A peer
** that closed its end is not dropped here: the messages it sent before closing are still
** queued, and reading them to the end of the stream keeps its last commits and losses. */
static int send_to(int ci, int pass_fd) {
  if (trak__ipc_send(D.c[ci].fd, &D.tx, pass_fd, 1) == 0) return 0;
  if (errno == EPIPE || errno == ECONNRESET) return -1;
  if (D.c[ci].role == C_PRODUCER && (errno == EAGAIN || errno == EWOULDBLOCK))
    misbehaved(ci, "its socket is full (it does not read)");
  else
    drop_client(ci, 1);
  return -1;
}

/* Gives producer `ci` a buffer in session `s` and tells it to start. */
static void attach_producer(int ci, dsession *s) {
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
    logf_("no shared buffer for producer %d: %s", (int)c->pid, strerror(errno));
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
    logf_("no memory for producer %d's buffer", (int)c->pid);
    trak__attach_free(a);
    close(fd);
    return;
  }
  trak_pb_nested n = trak__ipc_begin(&D.tx, TRAK_PB_IpcMessage_start_session);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcStartSession_session_id, s->id);
  trak_pb_put_bytes(&D.tx, TRAK_PB_IpcStartSession_trace_config, s->pconfig, s->pconfig_len);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcStartSession_buffer_size, size);
  trak__ipc_end(&D.tx, n);
  send_to(ci, fd);
  close(fd);
}

static void on_commit(int ci, const trak__ipc_msg *m) {
  client *c = &D.c[ci];
  trak__attach *a = NULL;
  for (int k = 0; k < TRAK_MAX_SESSIONS && !a; k++)
    if (m->session_id && c->at[k].session_id == m->session_id) a = &c->at[k];
  dsession *s = session_by_id(m->session_id);
  if (!a || !s) return; /* a session that ended meanwhile */
  /* A stopping session waits as long as its producers make progress: the grace runs from
  ** the last message, not from the stop (a busy daemon may read them late). */
  if (s->stopping) s->stop_deadline = now_ms() + STOP_GRACE_MS;
  char why[160];
  if (take_commit(c, a, s, m, why, sizeof why) != 0) return misbehaved(ci, why);
  if (m->packets_lost > a->lost)
    a->lost_pending = add_sat(a->lost_pending, m->packets_lost - a->lost);
  a->lost = m->packets_lost;
  credit(ci);
  trak__ipc_put_chunks(&D.tx, TRAK_PB_IpcMessage_release_chunks, m->session_id, m->chunks,
                       m->nchunks, 0, 0);
  send_to(ci, -1);
}

/* ---- sessions ------------------------------------------------------------------------------ */

static void on_enable(int ci, const trak__ipc_msg *m, int out_fd) {
  client *c = &D.c[ci];
  dsession *s = NULL;
  for (int i = 0; i < TRAK_MAX_SESSIONS && !s; i++)
    if (!D.s[i].id) s = &D.s[i];
  const char *fail = out_fd < 0   ? "no output file descriptor"
                     : D.stopping ? "the daemon is stopping"
                     : !s         ? "too many sessions"
                                  : NULL;
  trak_pb_buf central, prod;
  trak_pb_buf_init_heap(&central);
  trak_pb_buf_init_heap(&prod);
  trak_error err = {0};
  uint32_t cap = D.cfg->max_session_kb ? D.cfg->max_session_kb : 262144;
  if (!fail) {
    memset(s, 0, sizeof *s);
    s->stream = trak__config_for_buffer(m->bytes, m->bytes_len, &central);
    trak__config_put_buffer(&central, m->bytes, m->bytes_len, cap, 0);
    trak__config_for_buffer(m->bytes, m->bytes_len, &prod);
    trak__config_put_buffer(&prod, m->bytes, m->bytes_len, cap, 1);
    if (central.error || prod.error ||
        trak_session_new_from_proto(central.start, trak_pb_buf_len(&central), &s->central, &err))
      fail = err.message[0] ? err.message : "out of memory";
  }
  if (fail) {
    logf_("consumer %d: cannot start a session: %s", (int)c->pid, fail);
    trak_pb_nested n = trak__ipc_begin(&D.tx, TRAK_PB_IpcMessage_status);
    trak_pb_put_bool(&D.tx, TRAK_PB_IpcStatus_done, 1);
    trak_pb_put_string(&D.tx, TRAK_PB_IpcStatus_error, fail);
    trak__ipc_end(&D.tx, n);
    send_to(ci, -1);
    if (out_fd >= 0) close(out_fd);
    trak_pb_buf_free(&central);
    trak_pb_buf_free(&prod);
    return;
  }
  trak_pb_buf_free(&central);
  s->id = ++D.next_session;
  s->out_fd = out_fd;
  s->consumer = ci;
  s->pconfig = trak_pb_buf_detach(&prod, &s->pconfig_len);
  s->uid = c->uid;
  trak__config_periods(m->bytes, m->bytes_len, s->stream, &s->write_period_ms, &s->flush_period_ms);
  s->next_write = now_ms() + s->write_period_ms;
  s->next_flush = now_ms() + s->flush_period_ms;
  s->lost_away = D.lost_away; /* what reconnecting producers reported while none ran */
  D.lost_away = 0;
  c->role = C_CONSUMER;
  c->session_id = s->id;
  if (D.cfg->verbose) logf_("session %u started by pid %d", s->id, (int)c->pid);
  for (int k = 0; k < MAX_CLIENTS; k++)
    if (D.c[k].fd >= 0 && D.c[k].role == C_PRODUCER) attach_producer(k, s);
}

/* Writes one batch of whole packets to the session's file. A failed write (disk full) cuts
** the file back to the end of the last whole batch, so it stays a valid trace. */
static int write_batch(const uint8_t *data, size_t len, void *user) {
  dsession *s = user;
  for (size_t done = 0; done < len;) {
    ssize_t n = write(s->out_fd, data + done, len - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      snprintf(s->error, sizeof s->error, "writing the trace: %s",
               n < 0 ? strerror(errno) : "short write");
      logf_("session %u: %s; the file keeps the %llu bytes before", s->id, s->error,
            (unsigned long long)s->bytes_out);
      if (ftruncate(s->out_fd, (off_t)s->bytes_out) != 0) { /* not a regular file */
      }
      return TRAK_EIO;
    }
    done += (size_t)n;
  }
  s->bytes_out += len;
  return 0;
}

/* Writes what the central buffer holds to the session's file, 4 MiB at a time: the daemon
** never holds a second copy of a session's buffer. */
static void write_out(dsession *s) {
  if (s->error[0]) return;
  trak__drain_sink to_file = {write_batch, s, 4u << 20};
  pthread_mutex_lock(&s->central->lock);
  trak__session_drain_to(s->central, &to_file);
  pthread_mutex_unlock(&s->central->lock);
}

static uint32_t producers_in(const dsession *s) {
  uint32_t n = 0;
  for (int k = 0; k < MAX_CLIENTS; k++)
    for (int j = 0; D.c[k].fd >= 0 && j < TRAK_MAX_SESSIONS; j++)
      n += D.c[k].at[j].session_id == s->id;
  return n;
}

/* Every packet the session lost: in producers (also while no daemon was there), in the
** central buffer, withheld at readout. */
static uint64_t packets_lost(dsession *s) {
  trak_session_stats st;
  trak_session_get_stats(s->central, &st);
  return st.packets_lost + st.packets_overwritten + st.packets_skipped + s->producer_lost +
         s->lost_away;
}

static void send_status(dsession *s, int done) {
  if (s->consumer < 0) return;
  trak_pb_nested n = trak__ipc_begin(&D.tx, TRAK_PB_IpcMessage_status);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcStatus_producers, producers_in(s));
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcStatus_bytes_written, s->bytes_out);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcStatus_chunks, s->chunks);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcStatus_packets_lost, packets_lost(s));
  if (done) trak_pb_put_bool(&D.tx, TRAK_PB_IpcStatus_done, 1);
  if (s->error[0]) trak_pb_put_string(&D.tx, TRAK_PB_IpcStatus_error, s->error);
  trak__ipc_end(&D.tx, n);
  send_to(s->consumer, -1);
}

/* Sends IpcFlushSession to every producer in `s` (and, when `then_stop`, IpcStopSession). */
static void signal_producers(dsession *s, int then_stop) {
  for (int k = 0; k < MAX_CLIENTS; k++)
    for (int j = 0; D.c[k].fd >= 0 && j < TRAK_MAX_SESSIONS; j++)
      if (D.c[k].at[j].session_id == s->id) {
        trak__ipc_put_session(&D.tx, TRAK_PB_IpcMessage_flush_session, s->id);
        if (send_to(k, -1) != 0 || !then_stop) break;
        trak__ipc_put_session(&D.tx, TRAK_PB_IpcMessage_stop_session, s->id);
        if (send_to(k, -1) != 0) break;
      }
}

/* Asks every producer in `s` to flush and stop; the session ends when all answered or after a
** grace. */
static void end_session(dsession *s) {
  if (s->stopping) return;
  s->stopping = 1;
  s->stop_deadline = now_ms() + STOP_GRACE_MS;
  /* Flush first, as Perfetto does: data sources' flush callbacks run before the stop. */
  signal_producers(s, 1);
}

/* Ends the file with the session's trace_stats packet: buffer figures and every loss. */
static void write_trace_stats(dsession *s, uint32_t connected) {
  trak__stats_extra extra = {s->producer_lost + s->lost_away, connected, s->producers_seen,
                             s->invalid_chunks};
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  trak__session_put_trace_stats(s->central, &b, &extra);
  if (!s->error[0] && !b.error) write_batch(b.start, trak_pb_buf_len(&b), s);
  trak_pb_buf_free(&b);
}

static void finish_session(dsession *s) {
  uint32_t connected = 0; /* service-wide, as Perfetto counts it */
  for (int k = 0; k < MAX_CLIENTS; k++)
    connected += D.c[k].fd >= 0 && D.c[k].role == C_PRODUCER;
  for (int k = 0; k < MAX_CLIENTS; k++)
    for (int j = 0; D.c[k].fd >= 0 && j < TRAK_MAX_SESSIONS; j++)
      if (D.c[k].at[j].session_id == s->id) {
        credit(k);
        trak__attach_free(&D.c[k].at[j]);
      }
  write_out(s);
  write_trace_stats(s, connected);
  send_status(s, 1);
  if (D.cfg->verbose)
    logf_("session %u ended: %llu chunks, %llu bytes", s->id, (unsigned long long)s->chunks,
          (unsigned long long)s->bytes_out);
  close(s->out_fd);
  trak_session_free(s->central);
  free(s->pconfig);
  memset(s, 0, sizeof *s);
}

static void on_stop_done(int ci, uint32_t id) {
  credit(ci);
  for (int j = 0; j < TRAK_MAX_SESSIONS; j++)
    if (id && D.c[ci].at[j].session_id == id) trak__attach_free(&D.c[ci].at[j]);
}

/* ---- service state (`trak status`) -------------------------------------------------------- */

static void put_producer(const client *p) {
  uint32_t sessions = 0;
  for (int j = 0; j < TRAK_MAX_SESSIONS; j++)
    sessions += p->at[j].session_id != 0;
  trak_pb_nested n = trak_pb_begin_nested(&D.tx, TRAK_PB_IpcServiceState_producers);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Producer_pid, (uint64_t)(int64_t)p->pid);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Producer_uid, (uint64_t)(int64_t)p->uid);
  trak_pb_put_string(&D.tx, TRAK_PB_IpcServiceState_Producer_name, p->name);
  for (size_t i = 0; p->sources && p->sources[i]; i++)
    trak_pb_put_string(&D.tx, TRAK_PB_IpcServiceState_Producer_data_sources, p->sources[i]);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Producer_sessions, sessions);
  trak_pb_end_nested(&D.tx, n);
}

static void put_session(dsession *s) {
  trak_pb_nested n = trak_pb_begin_nested(&D.tx, TRAK_PB_IpcServiceState_sessions);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Session_id, s->id);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Session_uid, (uint64_t)(int64_t)s->uid);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Session_producers, producers_in(s));
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Session_bytes_written, s->bytes_out);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Session_chunks, s->chunks);
  trak_pb_put_varint(&D.tx, TRAK_PB_IpcServiceState_Session_packets_lost, packets_lost(s));
  trak_pb_end_nested(&D.tx, n);
}

/* Keeps the entry written since `mark` if the message still fits one datagram; else takes it
** back. Returns 0 when it did not fit. */
static int fits(uint8_t *mark) {
  if (!D.tx.error && trak_pb_buf_len(&D.tx) <= TRAK__IPC_MAX - 64) return 1;
  D.tx.p = mark;
  D.tx.error = 0;
  return 0;
}

/* IpcQueryService: the producers and sessions the asker may see (its uid's; root: all). */
static void on_query(int ci) {
  int32_t asker = D.c[ci].uid;
  int full = 0;
  trak_pb_nested n = trak__ipc_begin(&D.tx, TRAK_PB_IpcMessage_service_state);
  for (int k = 0; k < MAX_CLIENTS && !full; k++) {
    const client *p = &D.c[k];
    if (p->fd < 0 || p->role != C_PRODUCER || (asker != 0 && p->uid != asker)) continue;
    uint8_t *mark = D.tx.p;
    put_producer(p);
    full = !fits(mark);
  }
  for (int i = 0; i < TRAK_MAX_SESSIONS && !full; i++) {
    if (!D.s[i].id || (asker != 0 && D.s[i].uid != asker)) continue;
    uint8_t *mark = D.tx.p;
    put_session(&D.s[i]);
    full = !fits(mark);
  }
  if (full) trak_pb_put_bool(&D.tx, TRAK_PB_IpcServiceState_truncated, 1);
  trak__ipc_end(&D.tx, n);
  send_to(ci, -1);
}

/* ---- the loop ------------------------------------------------------------------------------- */

/* Attaches producer `ci` to every session that wants it and does not have it yet. */
static void attach_everywhere(int ci) {
  for (int i = 0; i < TRAK_MAX_SESSIONS && D.c[ci].fd >= 0; i++)
    if (D.s[i].id) attach_producer(ci, &D.s[i]);
}

/* IpcHello: a producer. The welcome goes first: it tells the producer a live daemon heard it,
** and precedes any session start. */
static void on_hello(int ci, const trak__ipc_msg *m) {
  client *c = &D.c[ci];
  c->role = C_PRODUCER;
  snprintf(c->name, sizeof c->name, "%.*s", (int)(m->bytes_len < 63 ? m->bytes_len : 63),
           (const char *)m->bytes);
  trak__names_free(c->sources);
  c->sources = trak__names_from(m);
  if (D.cfg->verbose) logf_("producer %d (%s) connected", (int)c->pid, c->name);
  trak__ipc_end(&D.tx, trak__ipc_begin(&D.tx, TRAK_PB_IpcMessage_welcome));
  if (send_to(ci, -1) == 0) attach_everywhere(ci);
}

/* IpcLostWhileAway: goes to the sessions the producer joined at its hello, or to the next
** session started, as far as credit() believes it. */
static void on_lost_while_away(int ci, uint64_t packets) {
  client *c = &D.c[ci];
  logf_("producer %d (%s) reports %llu packets lost while no daemon was there", (int)c->pid,
        c->name, (unsigned long long)packets);
  c->away_pending = add_sat(c->away_pending, packets);
  credit(ci);
}

static void on_message(int ci) {
  client *c = &D.c[ci];
  int got_fd;
  long n = trak__ipc_recv(c->fd, D.rx, &got_fd);
  if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
  if (n == -2) return misbehaved(ci, "message longer than 64 KiB");
  if (n <= 0) return drop_client(ci, 1); /* it went away: keep what it left */
  trak__ipc_msg *m = &D.m;
  if (trak__ipc_decode(D.rx, (size_t)n, m) != 0) {
    if (got_fd >= 0) close(got_fd);
    return misbehaved(ci, "malformed message");
  }
  int role =
      m->type == TRAK_PB_IpcMessage_hello ? C_PRODUCER
      : m->type == TRAK_PB_IpcMessage_enable_tracing || m->type == TRAK_PB_IpcMessage_query_service
          ? C_CONSUMER
          : c->role;
  if (got_fd >= 0 && m->type != TRAK_PB_IpcMessage_enable_tracing) {
    close(got_fd);
    got_fd = -1;
  }
  if (c->role != role && c->role != C_NEW) return misbehaved(ci, "message out of its role");
  switch (m->type) {
  case TRAK_PB_IpcMessage_hello:
    on_hello(ci, m);
    break;
  case TRAK_PB_IpcMessage_data_sources:
    if (c->role != C_PRODUCER) return misbehaved(ci, "data sources before its hello");
    trak__names_free(c->sources);
    c->sources = trak__names_from(m);
    attach_everywhere(ci);
    break;
  case TRAK_PB_IpcMessage_lost_while_away:
    if (c->role != C_PRODUCER) return misbehaved(ci, "a loss report before its hello");
    on_lost_while_away(ci, m->packets_lost);
    break;
  case TRAK_PB_IpcMessage_commit_chunks:
    on_commit(ci, m);
    break;
  case TRAK_PB_IpcMessage_stop_done:
    on_stop_done(ci, m->session_id);
    break;
  case TRAK_PB_IpcMessage_enable_tracing:
    if (c->session_id) {
      if (got_fd >= 0) close(got_fd);
      break;
    }
    on_enable(ci, m, got_fd);
    break;
  case TRAK_PB_IpcMessage_disable_tracing:
    if (session_by_id(c->session_id)) end_session(session_by_id(c->session_id));
    break;
  case TRAK_PB_IpcMessage_query_service:
    c->role = C_CONSUMER;
    on_query(ci);
    break;
  case TRAK_PB_IpcMessage_get_status:
    if (session_by_id(c->session_id)) send_status(session_by_id(c->session_id), 0);
    break;
  default:
    if (c->role == C_PRODUCER) {
      char why[64];
      snprintf(why, sizeof why, "unexpected message (IpcMessage field %u)", m->type);
      misbehaved(ci, why);
    }
    break;
  }
}

/* Logs refused connections at most once a second, with how many there were: a client that
** retries in a loop must not flood the log. */
static void log_refusal(const char *why) {
  D.refused++;
  uint64_t now = now_ms();
  if (now < D.next_refusal_log) return;
  logf_("refused %llu connection(s): %s", (unsigned long long)D.refused, why);
  D.refused = 0;
  D.next_refusal_log = now + 1000;
}

/* Tells a refused client why, as a final IpcStatus (trak record and trak status print it),
** then closes it. */
static void refuse(int fd, const char *why) {
  trak_pb_nested n = trak__ipc_begin(&D.tx, TRAK_PB_IpcMessage_status);
  trak_pb_put_bool(&D.tx, TRAK_PB_IpcStatus_done, 1);
  trak_pb_put_string(&D.tx, TRAK_PB_IpcStatus_error, why);
  trak__ipc_end(&D.tx, n);
  trak__ipc_send(fd, &D.tx, -1, 1);
  /* Read what it already sent: closing with it unread would make the client's next read fail
  ** with ECONNRESET before it sees why. */
  while (recv(fd, D.rx, TRAK__IPC_MAX, MSG_DONTWAIT) > 0) {
  }
  close(fd);
  log_refusal(why);
}

/* Is there a slot for a client of `uid`, within its quota? */
static int has_room(int32_t uid) {
  int free_slots = 0, of_uid = 0;
  for (int k = 0; k < MAX_CLIENTS; k++) {
    free_slots += D.c[k].fd < 0;
    of_uid += D.c[k].fd >= 0 && D.c[k].uid == uid;
  }
  return free_slots && of_uid < UID_QUOTA;
}

/* Drops the clients whose peers closed or hung up, after reading what they sent before: a
** client that closed its connections and connects again must find their slots free, even
** when its hang-ups and its new connection arrive in the same poll. */
static void reap_hung_up(void) {
  for (int k = 0; k < MAX_CLIENTS; k++) {
    int fd = D.c[k].fd;
    struct pollfd p = {fd, POLLIN, 0};
    if (fd < 0 || poll(&p, 1, 0) != 1 || !(p.revents & (POLLHUP | POLLERR))) continue;
    /* A closed peer sends nothing more: its queue ends (the bound is only a safeguard). */
    for (int i = 0; D.c[k].fd == fd && i < 1 << 16; i++)
      on_message(k);
  }
}

static void on_accept(void) {
  int fd = accept4(D.listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0) return;
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    logf_("refusing a connection: %s", strerror(errno));
    close(fd);
    return;
  }
  if (!has_room((int32_t)cred.uid)) reap_hung_up();
  int slot = -1, used = 0, of_uid = 0;
  for (int k = 0; k < MAX_CLIENTS; k++) {
    if (D.c[k].fd < 0) {
      if (slot < 0) slot = k;
      continue;
    }
    used++;
    of_uid += D.c[k].uid == (int32_t)cred.uid;
  }
  char why[128];
  if (slot < 0 || of_uid >= UID_QUOTA) {
    snprintf(why, sizeof why, "daemon busy: %d clients (%d of uid %d; at most %d, %d per uid)",
             used, of_uid, (int)cred.uid, MAX_CLIENTS, UID_QUOTA);
    refuse(fd, why);
    return;
  }
  client *c = &D.c[slot];
  memset(c, 0, sizeof *c);
  c->fd = fd;
  c->pid = (int32_t)cred.pid;
  c->uid = (int32_t)cred.uid;
  c->since_ms = now_ms();
}

/* Periodic work: sessions flush and streaming ones write out at their periods; stopping ones
** finish when their producers answered or the grace ran out. */
static void tick(void) {
  uint64_t now = now_ms();
  for (int k = 0; k < MAX_CLIENTS; k++)
    if (D.c[k].fd >= 0 && D.c[k].role == C_NEW && now - D.c[k].since_ms > HELLO_DEADLINE_MS) {
      log_refusal("a client said nothing within a second of connecting");
      drop_client(k, 0);
    }
  for (int i = 0; i < TRAK_MAX_SESSIONS; i++) {
    dsession *s = &D.s[i];
    if (!s->id) continue;
    if (s->stopping && (producers_in(s) == 0 || now >= s->stop_deadline)) {
      finish_session(s);
      continue;
    }
    if (s->flush_period_ms && now >= s->next_flush) {
      signal_producers(s, 0);
      s->next_flush = now + s->flush_period_ms;
    }
    if (s->stream && now >= s->next_write) {
      write_out(s);
      s->next_write = now + s->write_period_ms;
    }
  }
}

static int listen_on(const char *path, trak_error *err) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof addr.sun_path)
    return trak_error_set(err, TRAK_EINVAL, "%s: socket path too long", path);
  strcpy(addr.sun_path, path);
  int rc = trak__ipc_check_dir(path, 1, err);
  if (rc) return rc;
  int probe = trak__ipc_connect(path);
  if (probe >= 0) {
    close(probe);
    return trak_error_set(err, TRAK_EIO, "%s: a daemon already listens there", path);
  }
  struct stat st;
  if (lstat(path, &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      return trak_error_set(err, TRAK_EIO, "%s: exists and is not a socket", path);
    /* Another user's socket is not replaced: whoever made it chose that path first. */
    if (st.st_uid != geteuid())
      return trak_error_set(err, TRAK_EIO,
                            "%s: a socket of uid %u, not yours (uid %u); refusing to replace it "
                            "(give --socket PATH)",
                            path, (unsigned)st.st_uid, (unsigned)geteuid());
    unlink(path); /* a stale socket of a daemon that died */
  }
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  mode_t old = umask(077); /* owner-only from the moment it exists */
  int ok = fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0 &&
           chmod(path, D.cfg->shared ? 0666 : 0600) == 0 && listen(fd, 64) == 0;
  umask(old);
  if (!ok) {
    int e = errno;
    if (fd >= 0) close(fd);
    return trak_error_set(err, TRAK_EIO, "%s: %s", path, strerror(e));
  }
  D.listen_fd = fd;
  return 0;
}

static int sessions_running(void) {
  for (int i = 0; i < TRAK_MAX_SESSIONS; i++)
    if (D.s[i].id) return 1;
  return 0;
}

int trak_daemon_run(const trak_daemon_config *cfg, volatile int *stop, trak_error *err) {
  trak__system_not_a_producer();
  trak_init();
  char path[108];
  if (cfg->socket_path)
    snprintf(path, sizeof path, "%s", cfg->socket_path);
  else
    trak__ipc_default_path(path, sizeof path);
  memset(&D, 0, sizeof D);
  D.cfg = cfg;
  D.copier.last_seq = TRAK__SERVICE_SEQ_ID; /* producers' sequences follow the service's */
  for (int k = 0; k < MAX_CLIENTS; k++)
    D.c[k].fd = -1;
  D.rx = malloc(TRAK__IPC_MAX);
  D.copier.scratch = malloc(TRAK__CHUNK_MAX);
  trak_pb_buf_init_heap(&D.tx);
  int rc = D.rx && D.copier.scratch ? listen_on(path, err)
                                    : trak_error_set(err, TRAK_ENOMEM, "out of memory");
  if (rc == 0 && cfg->verbose) logf_("listening on %s", path);
  while (rc == 0 && !(D.stopping && !sessions_running())) {
    if (*stop && !D.stopping) { /* end sessions as a recorder would: producers hand over all */
      D.stopping = 1;
      for (int i = 0; i < TRAK_MAX_SESSIONS; i++)
        if (D.s[i].id) end_session(&D.s[i]);
    }
    struct pollfd p[MAX_CLIENTS + 1];
    int who[MAX_CLIENTS + 1], n = 0;
    p[n] = (struct pollfd){D.listen_fd, POLLIN, 0};
    who[n++] = -1;
    for (int k = 0; k < MAX_CLIENTS; k++)
      if (D.c[k].fd >= 0) {
        p[n] = (struct pollfd){D.c[k].fd, POLLIN, 0};
        who[n++] = k;
      }
    if (poll(p, (nfds_t)n, 50) > 0) {
      /* Clients first, the listening socket last: slots that hang-ups free are free for
      ** the connections that arrived with them. */
      for (int i = 1; i <= n; i++) {
        int at = i % n;
        if (!p[at].revents) continue;
        if (who[at] < 0)
          on_accept();
        else if (D.c[who[at]].fd == p[at].fd)
          on_message(who[at]);
      }
    }
    tick();
  }
  if (rc == 0) {
    for (int k = 0; k < MAX_CLIENTS; k++)
      if (D.c[k].fd >= 0) drop_client(k, 0);
    close(D.listen_fd);
    unlink(path);
  }
  free(D.rx);
  free(D.copier.scratch);
  trak_pb_buf_free(&D.tx);
  return rc;
}
