/*
** `trak daemon`: the tracing service of the system backend. This file holds its loop: one
** thread polls a listening SOCK_SEQPACKET socket and its clients, producers (traced processes)
** and consumers (`trak record`, `trak status`), accepts connections within the slots and
** quotas, dispatches each message and does the periodic work. A consumer's IpcEnableTracing
** creates a session (daemon_sessions.c): a central buffer (an unstarted trak_session used only
** as storage and readout) plus, for every producer, a memfd the producer maps as its chunk
** buffer (an attachment, daemon.h; daemon_clients.c). Producers commit complete chunks; the
** daemon copies each into the central buffer (chunks.c checks the copy and remaps the writer's
** sequence id to one it allocates) and releases the chunk. Readout stamps the trusted fields
** from the daemon's own record of the producer (SO_PEERCRED), dropping any the producer wrote.
** daemon_state.h holds the state these files share.
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

#include "system/daemon_state.h"

/* A client must say what it is (hello, enable_tracing, query_service) this soon after it
** connects, or it is disconnected: idle connections cannot hold the slots. */
#define HELLO_DEADLINE_MS 1000
/* The slots one uid may hold: with --shared, one user cannot lock the others out. */
#define UID_QUOTA (MAX_CLIENTS * 3 / 4)

trak__daemon_state trak__daemon;

uint64_t trak__daemon_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void trak__daemon_log(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "trak daemon: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

dsession *trak__daemon_session(uint32_t id) {
  for (int i = 0; i < TRAK_MAX_SESSIONS; i++)
    if (id && D.s[i].id == id) return &D.s[i];
  return NULL;
}

/* Attaches producer `ci` to every session that wants it and does not have it yet. */
static void attach_everywhere(int ci) {
  for (int i = 0; i < TRAK_MAX_SESSIONS && D.c[ci].fd >= 0; i++)
    if (D.s[i].id) trak__daemon_attach(ci, &D.s[i]);
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
  if (D.cfg->verbose) trak__daemon_log("producer %d (%s) connected", (int)c->pid, c->name);
  trak__ipc_end(&D.tx, trak__ipc_begin(&D.tx, TRAK_PB_IpcMessage_welcome));
  if (trak__daemon_send(ci, -1) == 0) attach_everywhere(ci);
}

/* IpcLostWhileAway: goes to the sessions the producer joined at its hello, or to the next
** session started, as far as trak__daemon_credit() believes it. */
static void on_lost_while_away(int ci, uint64_t packets) {
  client *c = &D.c[ci];
  trak__daemon_log("producer %d (%s) reports %llu packets lost while no daemon was there",
                   (int)c->pid, c->name, (unsigned long long)packets);
  c->away_pending = add_sat(c->away_pending, packets);
  trak__daemon_credit(ci);
}

static void on_message(int ci) {
  client *c = &D.c[ci];
  int got_fd;
  long n = trak__ipc_recv(c->fd, D.rx, &got_fd);
  if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
  if (n == -2) return trak__daemon_misbehaved(ci, "message longer than 64 KiB");
  if (n <= 0) return trak__daemon_drop_client(ci, 1); /* it went away: keep what it left */
  trak__ipc_msg *m = &D.m;
  if (trak__ipc_decode(D.rx, (size_t)n, m) != 0) {
    if (got_fd >= 0) close(got_fd);
    return trak__daemon_misbehaved(ci, "malformed message");
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
  if (c->role != role && c->role != C_NEW)
    return trak__daemon_misbehaved(ci, "message out of its role");
  switch (m->type) {
  case TRAK_PB_IpcMessage_hello:
    on_hello(ci, m);
    break;
  case TRAK_PB_IpcMessage_data_sources:
    if (c->role != C_PRODUCER) return trak__daemon_misbehaved(ci, "data sources before its hello");
    trak__names_free(c->sources);
    c->sources = trak__names_from(m);
    attach_everywhere(ci);
    break;
  case TRAK_PB_IpcMessage_lost_while_away:
    if (c->role != C_PRODUCER) return trak__daemon_misbehaved(ci, "a loss report before its hello");
    on_lost_while_away(ci, m->packets_lost);
    break;
  case TRAK_PB_IpcMessage_commit_chunks:
    trak__daemon_on_commit(ci, m);
    break;
  case TRAK_PB_IpcMessage_stop_done:
    trak__daemon_on_stop_done(ci, m->session_id);
    break;
  case TRAK_PB_IpcMessage_enable_tracing:
    if (c->session_id) {
      if (got_fd >= 0) close(got_fd);
      break;
    }
    trak__daemon_on_enable(ci, m, got_fd);
    break;
  case TRAK_PB_IpcMessage_disable_tracing:
    if (trak__daemon_session(c->session_id))
      trak__daemon_end_session(trak__daemon_session(c->session_id));
    break;
  case TRAK_PB_IpcMessage_query_service:
    c->role = C_CONSUMER;
    trak__daemon_on_query(ci);
    break;
  case TRAK_PB_IpcMessage_get_status:
    if (trak__daemon_session(c->session_id))
      trak__daemon_send_status(trak__daemon_session(c->session_id), 0);
    break;
  default:
    if (c->role == C_PRODUCER) {
      char why[64];
      snprintf(why, sizeof why, "unexpected message (IpcMessage field %u)", m->type);
      trak__daemon_misbehaved(ci, why);
    }
    break;
  }
}

/* Logs refused connections at most once a second, with how many there were: a client that
** retries in a loop must not flood the log. */
static void log_refusal(const char *why) {
  D.refused++;
  uint64_t now = trak__daemon_now_ms();
  if (now < D.next_refusal_log) return;
  trak__daemon_log("refused %llu connection(s): %s", (unsigned long long)D.refused, why);
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
    trak__daemon_log("refusing a connection: %s", strerror(errno));
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
  c->since_ms = trak__daemon_now_ms();
}

/* Periodic work: sessions flush and streaming ones write out at their periods; stopping ones
** finish when their producers answered or the grace ran out. */
static void tick(void) {
  uint64_t now = trak__daemon_now_ms();
  for (int k = 0; k < MAX_CLIENTS; k++)
    if (D.c[k].fd >= 0 && D.c[k].role == C_NEW && now - D.c[k].since_ms > HELLO_DEADLINE_MS) {
      log_refusal("a client said nothing within a second of connecting");
      trak__daemon_drop_client(k, 0);
    }
  for (int i = 0; i < TRAK_MAX_SESSIONS; i++) {
    dsession *s = &D.s[i];
    if (!s->id) continue;
    if (s->stopping && (trak__daemon_producers_in(s) == 0 || now >= s->stop_deadline)) {
      trak__daemon_finish_session(s);
      continue;
    }
    if (s->flush_period_ms && now >= s->next_flush) {
      trak__daemon_signal_producers(s, 0);
      s->next_flush = now + s->flush_period_ms;
    }
    if (s->stream && now >= s->next_write) {
      trak__daemon_write_out(s);
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
  if (rc == 0 && cfg->verbose) trak__daemon_log("listening on %s", path);
  while (rc == 0 && !(D.stopping && !sessions_running())) {
    if (*stop && !D.stopping) { /* end sessions as a recorder would: producers hand over all */
      D.stopping = 1;
      for (int i = 0; i < TRAK_MAX_SESSIONS; i++)
        if (D.s[i].id) trak__daemon_end_session(&D.s[i]);
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
      if (D.c[k].fd >= 0) trak__daemon_drop_client(k, 0);
    close(D.listen_fd);
    unlink(path);
  }
  free(D.rx);
  free(D.copier.scratch);
  trak_pb_buf_free(&D.tx);
  return rc;
}
