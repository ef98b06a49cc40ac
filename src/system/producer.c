/*
** The producer side of the system backend: a background thread in a traced process that
** keeps a connection to the daemon, and turns the daemon's commands into ordinary in-process
** sessions whose buffer is a shared mapping of the memfd the daemon sent. Threads write
** events exactly as in-process; this thread only moves chunk ownership: it hands complete
** chunks to the daemon (state SHARED: no writer touches them) and frees them when the daemon
** says it has copied them.
**
** Reconnection. When the daemon goes away the thread tries again after 100 ms, doubling the
** wait (to 5 s) while attempts fail or are refused. The sessions
** it ran keep running meanwhile, orphaned: nobody copies their chunks, so threads fill the
** shared buffer and then lose events, all counted. At the next connection the thread stops
** them and reports how many packets never reached a daemon (IpcLostWhileAway), so the gap a
** restart leaves is counted, not silent. "Next connection" means the daemon's IpcWelcome: a
** connect can succeed on the listening socket of a daemon that is just dying.
*/
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "system/system.h"

typedef struct psession {
  uint32_t id; /* the daemon's session id; 0: unused */
  trak_session *s;
  uint64_t lost_at_loss; /* orphaned: its loss count when the connection went */
} psession;

static struct {
  pthread_mutex_t lock; /* guards starting and stopping the thread */
  pthread_t thread;
  int running;
  pid_t pid; /* the process that started the thread (a forked child has none) */
  char path[108];
  _Atomic int stop, connected, active; /* connected: welcomed by a daemon */
  int fd;
  psession ps[TRAK_MAX_SESSIONS];
  uint64_t lost_away;    /* packets orphaned sessions never handed over, not yet reported */
  uint32_t sources_told; /* data sources the daemon knows of */
  uint32_t backoff_ms;   /* wait before the next connection attempt: 100 ms, doubling to 5 s */
  uint8_t *rx;
  trak_pb_buf tx;
} P = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

static void log_line(const char *fmt, const char *arg) {
  fprintf(stderr, "trak producer %d: ", (int)getpid());
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
}

static psession *find(uint32_t id) {
  for (int i = 0; i < TRAK_MAX_SESSIONS; i++)
    if (P.ps[i].id == id && id) return &P.ps[i];
  return NULL;
}

/* Sends one IpcCommitChunks of `n` chunk indexes with the loss count so far. */
static int send_commit(psession *p, const uint32_t *idx, size_t n, int flushed) {
  trak__ipc_put_chunks(&P.tx, TRAK_PB_IpcMessage_commit_chunks, p->id, idx, n,
                       atomic_load(&p->s->packets_lost), flushed);
  return trak__ipc_send(P.fd, &P.tx, -1, 0);
}

/* Hands every complete chunk of `p` to the daemon, in messages of bounded size. `flushed`:
** this answers an IpcFlushSession, and the last message says so (even with no chunk). */
static int commit(psession *p, int flushed) {
  static uint32_t idx[TRAK__IPC_MAX_CHUNKS / 2];
  size_t n;
  do {
    n = trak__session_take_complete(p->s, idx, sizeof idx / sizeof *idx);
    if (!n) break;
    int last = n < sizeof idx / sizeof *idx;
    if (send_commit(p, idx, n, flushed && last) != 0) return -1;
    if (last && flushed) return 0;
  } while (n == sizeof idx / sizeof *idx);
  return flushed ? send_commit(p, NULL, 0, 1) : 0;
}

static void end_session(psession *p) {
  trak_session_free(p->s);
  p->s = NULL;
  p->id = 0;
  atomic_fetch_sub(&P.active, 1);
}

static void end_orphans(void);
static int tell_lost(void);

/* The daemon starts a session here because this process has one of the data sources the
** config names, not necessarily all of them. */
static int start_as_producer(trak_session *s, trak_error *err) {
  s->sources_optional = 1;
  return trak_session_start(s, err);
}

/* IpcStartSession: an in-process session over the daemon's memfd. */
static void start_session(const trak__ipc_msg *m, int memfd) {
  psession *p = NULL;
  for (int i = 0; i < TRAK_MAX_SESSIONS && !p; i++)
    if (!P.ps[i].id) p = &P.ps[i];
  trak_error err = {0};
  trak_session *s = NULL;
  uint8_t *mem = MAP_FAILED;
  if (p && memfd >= 0 && m->session_id && m->buffer_size)
    mem = mmap(NULL, m->buffer_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, memfd, 0);
  if (mem == MAP_FAILED) {
    log_line("cannot start a session: %s", p ? "bad memfd" : "no free slot");
  } else if (trak_session_new_from_proto(m->bytes, m->bytes_len, &s, &err) != 0 ||
             trak__session_use_shared(s, mem, m->buffer_size) != 0) {
    log_line("cannot start a session: %s", err.message);
    munmap(mem, m->buffer_size);
    trak_session_free(s);
    s = NULL;
  } else if (start_as_producer(s, &err) != 0) {
    log_line("cannot start a session: %s", err.message);
    trak_session_free(s);
    s = NULL;
  }
  if (memfd >= 0) close(memfd);
  if (!s) return;
  p->id = m->session_id;
  p->s = s;
  atomic_fetch_add(&P.active, 1);
}

/* Acts on one message from the daemon. Returns -1 when the connection is unusable. */
static int handle(const trak__ipc_msg *m, int got_fd) {
  psession *p = m->type == TRAK_PB_IpcMessage_start_session ? NULL : find(m->session_id);
  switch (m->type) {
  case TRAK_PB_IpcMessage_welcome:
    end_orphans();
    atomic_store(&P.connected, 1);
    P.backoff_ms = 100; /* the next loss of the connection starts over */
    return tell_lost();
  case TRAK_PB_IpcMessage_start_session:
    start_session(m, got_fd);
    return 0;
  case TRAK_PB_IpcMessage_release_chunks:
    if (p) trak__session_release(p->s, m->chunks, m->nchunks);
    break;
  case TRAK_PB_IpcMessage_flush_session:
    if (p) {
      trak_session_flush(p->s, NULL);
      return commit(p, 1);
    }
    break;
  case TRAK_PB_IpcMessage_stop_session:
    if (p) {
      trak_session_stop(p->s, NULL); /* every chunk complete */
      /* Then the final loss count, even when no chunk was left to commit. */
      if (commit(p, 0) != 0 || send_commit(p, NULL, 0, 0) != 0) return -1;
      end_session(p); /* the daemon holds its own mapping */
    }
    trak__ipc_put_session(&P.tx, TRAK_PB_IpcMessage_stop_done, m->session_id);
    return trak__ipc_send(P.fd, &P.tx, -1, 0);
  default:
    break;
  }
  if (got_fd >= 0) close(got_fd);
  return 0;
}

/* The connection is gone. Its sessions keep recording, orphaned, until the next connection
** (or, when `end_sessions`, end now: this process is leaving; the daemon salvages). */
static void lose_connection(int end_sessions) {
  for (int i = 0; i < TRAK_MAX_SESSIONS; i++)
    if (P.ps[i].id) {
      if (end_sessions)
        end_session(&P.ps[i]);
      else if (atomic_load(&P.connected)) /* not yet orphaned */
        P.ps[i].lost_at_loss = atomic_load(&P.ps[i].s->packets_lost);
    }
  if (P.fd >= 0) close(P.fd);
  P.fd = -1;
  atomic_store(&P.connected, 0);
}

/* Welcomed by a daemon: ends the sessions orphaned by the last one, counting the packets they
** never handed over (in chunks no daemon copied, or lost since the connection went). */
static void end_orphans(void) {
  for (int i = 0; i < TRAK_MAX_SESSIONS; i++) {
    psession *p = &P.ps[i];
    if (!p->id) continue;
    trak_session_stop(p->s, NULL);
    P.lost_away += trak__session_undelivered(p->s) - p->lost_at_loss;
    end_session(p);
  }
}

/* Puts the registered data sources' names as repeated field `field`; returns how many. */
static uint32_t put_sources(uint32_t field) {
  const char *names[TRAK__IPC_MAX_NAMES];
  uint32_t n = trak__ds_names(names, TRAK__IPC_MAX_NAMES);
  for (uint32_t i = 0; i < n; i++)
    trak_pb_put_string(&P.tx, field, names[i]);
  return n;
}

static int hello(void) {
  char name[64];
  trak__process_name(name, sizeof name); /* as its process track is named in traces */
  trak_pb_nested n = trak__ipc_begin(&P.tx, TRAK_PB_IpcMessage_hello);
  trak_pb_put_string(&P.tx, TRAK_PB_IpcHello_process_name, name);
  P.sources_told = put_sources(TRAK_PB_IpcHello_data_sources);
  trak__ipc_end(&P.tx, n);
  return trak__ipc_send(P.fd, &P.tx, -1, 0);
}

/* Tells the daemon that welcomed us what orphaned sessions never handed over. */
static int tell_lost(void) {
  if (!P.lost_away) return 0;
  trak_pb_nested n = trak__ipc_begin(&P.tx, TRAK_PB_IpcMessage_lost_while_away);
  trak_pb_put_varint(&P.tx, TRAK_PB_IpcLostWhileAway_packets, P.lost_away);
  trak__ipc_end(&P.tx, n);
  if (trak__ipc_send(P.fd, &P.tx, -1, 0) != 0) return -1;
  P.lost_away = 0;
  return 0;
}

/* Tells the daemon the data sources registered since it last heard. */
static int tell_sources(void) {
  const char *names[TRAK__IPC_MAX_NAMES];
  if (trak__ds_names(names, TRAK__IPC_MAX_NAMES) == P.sources_told) return 0;
  trak_pb_nested n = trak__ipc_begin(&P.tx, TRAK_PB_IpcMessage_data_sources);
  P.sources_told = put_sources(TRAK_PB_IpcDataSources_data_sources);
  trak__ipc_end(&P.tx, n);
  return trak__ipc_send(P.fd, &P.tx, -1, 0);
}

/* Waits before connecting again: 100 ms after a daemon that welcomed us went away, doubling
** (to 5 s) while connections fail or are refused, so a full or absent daemon is not hammered.
** Wakes early when asked to stop. */
static void back_off(void) {
  if (P.backoff_ms < 100) P.backoff_ms = 100;
  for (uint32_t waited = 0; waited < P.backoff_ms && !atomic_load(&P.stop); waited += 50)
    nanosleep(&(struct timespec){0, 50000000}, NULL);
  P.backoff_ms = P.backoff_ms >= 2500 ? 5000 : P.backoff_ms * 2;
}

static void *producer_main(void *arg) {
  (void)arg;
  static trak__ipc_msg m;
  while (!atomic_load(&P.stop)) {
    if (P.fd < 0) {
      P.fd = trak__ipc_connect(P.path);
      if (P.fd >= 0 && hello() != 0) lose_connection(0);
      if (P.fd < 0) {
        back_off();
        continue;
      }
    }
    struct pollfd pfd = {P.fd, POLLIN, 0};
    int ready = poll(&pfd, 1, 20);
    int bad = 0;
    while (ready > 0 && !bad) {
      int got_fd;
      long n = trak__ipc_recv(P.fd, P.rx, &got_fd);
      if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n <= 0 || trak__ipc_decode(P.rx, (size_t)n, &m) != 0) {
        if (got_fd >= 0) close(got_fd);
        bad = 1;
        break;
      }
      bad = handle(&m, got_fd) != 0;
    }
    if (!atomic_load(&P.connected)) { /* not welcomed yet: any session is an orphan */
      if (bad) {
        lose_connection(0);
        back_off(); /* refused (a full daemon) or dropped before its welcome */
      }
      continue;
    }
    for (int i = 0; i < TRAK_MAX_SESSIONS && !bad; i++)
      if (P.ps[i].id) bad = commit(&P.ps[i], 0) != 0;
    if (!bad) bad = tell_sources() != 0;
    if (bad) lose_connection(0);
  }
  lose_connection(1);
  return NULL;
}

int trak_system_connect(const char *socket_path) {
  trak__init_core();
  char path[sizeof P.path];
  if (socket_path)
    snprintf(path, sizeof path, "%s", socket_path);
  else
    trak__ipc_default_path(path, sizeof path);
  pthread_mutex_lock(&P.lock);
  if (P.running && P.pid != getpid()) { /* inherited across fork: not ours */
    P.running = 0;
    if (P.fd >= 0) close(P.fd);
    P.fd = -1;
    memset(P.ps, 0, sizeof P.ps);
    atomic_store(&P.active, 0);
    atomic_store(&P.connected, 0);
  }
  int rc = 0;
  if (P.running) {
    rc = strcmp(path, P.path) ? TRAK_ESTATE : 0;
  } else {
    snprintf(P.path, sizeof P.path, "%s", path);
    if (!P.rx) P.rx = malloc(TRAK__IPC_MAX);
    trak_pb_buf_init_heap(&P.tx);
    atomic_store(&P.stop, 0);
    P.pid = getpid();
    if (!P.rx || pthread_create(&P.thread, NULL, producer_main, NULL) != 0)
      rc = TRAK_ENOMEM;
    else
      P.running = 1;
  }
  pthread_mutex_unlock(&P.lock);
  return rc;
}

void trak_system_disconnect(void) {
  pthread_mutex_lock(&P.lock);
  if (P.running && P.pid == getpid()) {
    atomic_store(&P.stop, 1);
    pthread_join(P.thread, NULL);
    trak_pb_buf_free(&P.tx);
  }
  P.running = 0;
  pthread_mutex_unlock(&P.lock);
}

int trak_system_connected(void) {
  return P.pid == getpid() && atomic_load(&P.connected);
}

int trak_system_active_sessions(void) {
  return P.pid == getpid() ? atomic_load(&P.active) : 0;
}

/* A program that never calls into the SDK before its first event (categories stay off until a
** session starts) still becomes a producer with TRAK_BACKEND=system: decided at load time. */
__attribute__((constructor)) static void autostart_at_load(void) {
  const char *backend = getenv("TRAK_BACKEND");
  if (backend && !strcmp(backend, "system")) trak_init(); /* others pay nothing at load */
}

void trak__system_not_a_producer(void) {
  trak__backend_no_autostart = 1;
  trak_system_disconnect();
}
