/*
** Startup tracing: a session that records from early in main(), before any real session (in-
** process or the system daemon's) exists, and hands what it recorded to the first one that
** starts with track events, or drops it, counted, when none starts within a timeout.
**
** Handover. The starting session claims the startup session before it records; in the one
** category update that enables the new session the startup session stops, so each event goes
** to exactly one of them. Once no thread writes into the startup session any more its packets
** move into the new session's buffer on their own sequences (same sequence ids, chunk by chunk
** in order), through the same chunk path as any writer: for a system producer they reach the
** daemon like its other chunks.
*/
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sdk/internal.h"

enum { IDLE = 0, RECORDING, CLAIMED, ENDING };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* before trak__lock, never inside */
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static struct {
  int state;             /* IDLE, RECORDING, CLAIMED (by a starting session), ENDING */
  uint32_t generation;   /* bumped by each begin: a timer acts only on its own generation */
  trak_session *session; /* the startup session while not IDLE */
  pid_t owner_pid;       /* a forked child never adopts its parent's startup data */
  struct timespec deadline;
  trak_startup_opts opts;
  trak_startup_stats stats;
} st;
static _Atomic int active; /* nonzero while a startup session may be claimed: the start path's
                              only cost when there is none */

/* Records the end of the current startup session (lock held), then runs the callback
** without the lock. */
static void finish(int outcome, uint64_t adopted, uint64_t dropped) {
  void (*cb)(int, void *) = st.opts.on_end;
  void *user = st.opts.user;
  st.state = IDLE;
  st.session = NULL;
  st.stats.outcome = outcome;
  st.stats.packets_adopted += adopted;
  st.stats.packets_dropped += dropped;
  pthread_cond_broadcast(&wake);
  pthread_mutex_unlock(&lock);
  if (cb) cb(outcome, user);
  pthread_mutex_lock(&lock);
}

/* Stops and frees the startup session, counting everything it holds as dropped. The caller
** set ENDING (so nothing else touches the session); lock held, released meanwhile. */
static void drop(int outcome) {
  trak_session *s = st.session;
  atomic_store(&active, 0);
  pthread_mutex_unlock(&lock);
  trak_session_stop(s, NULL);
  trak_session_stats ss;
  trak_session_get_stats(s, &ss);
  trak_session_free(s);
  pthread_mutex_lock(&lock);
  finish(outcome, 0, ss.packets_written + ss.packets_lost);
}

/* The timer: drops the startup session of `generation` when its deadline passes first. */
static void *timer(void *arg) {
  uint32_t generation = (uint32_t)(uintptr_t)arg;
  pthread_mutex_lock(&lock);
  while (st.generation == generation && st.state == RECORDING) {
    if (pthread_cond_timedwait(&wake, &lock, &st.deadline) == ETIMEDOUT &&
        st.generation == generation && st.state == RECORDING) {
      st.state = ENDING;
      drop(TRAK_STARTUP_EXPIRED);
    }
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

int trak_startup_tracing_begin(trak_session *s, const trak_startup_opts *opts, trak_error *err) {
  trak_startup_opts o = {0};
  if (opts) o = *opts;
  if (!o.timeout_ms) o.timeout_ms = 10000;
  if (!s) {
    trak_session_config cfg = {0};
    cfg.fill_policy = TRAK_FILL_DISCARD; /* startup data is about the start: keep the oldest */
    int rc = trak_session_new(&cfg, &s, err);
    if (rc) return rc;
  }
  pthread_mutex_lock(&lock);
  if (st.state != IDLE && st.owner_pid == getpid()) {
    pthread_mutex_unlock(&lock);
    trak_session_free(s);
    return trak_error_set(err, TRAK_ESTATE, "startup tracing already recording");
  }
  int rc = trak_session_start(s, err);
  if (rc) {
    pthread_mutex_unlock(&lock);
    trak_session_free(s);
    return rc;
  }
  st.state = RECORDING;
  st.generation++;
  st.session = s;
  st.owner_pid = getpid();
  st.opts = o;
  clock_gettime(CLOCK_REALTIME, &st.deadline);
  uint64_t ns = (uint64_t)st.deadline.tv_nsec + (uint64_t)o.timeout_ms * 1000000u;
  st.deadline.tv_sec += (time_t)(ns / 1000000000u);
  st.deadline.tv_nsec = (long)(ns % 1000000000u);
  st.stats.outcome = TRAK_STARTUP_RECORDING;
  atomic_store(&active, 1);
  pthread_t t;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&t, &attr, timer, (void *)(uintptr_t)st.generation) != 0) {
    st.state = ENDING; /* no timer, no timeout: refuse rather than record forever */
    drop(TRAK_STARTUP_ABORTED);
    rc = trak_error_set(err, TRAK_ENOMEM, "startup tracing: no thread for the timeout");
  }
  pthread_attr_destroy(&attr);
  pthread_mutex_unlock(&lock);
  return rc;
}

void trak_startup_tracing_abort(void) {
  pthread_mutex_lock(&lock);
  if (st.state == RECORDING && st.owner_pid == getpid()) {
    st.state = ENDING;
    drop(TRAK_STARTUP_ABORTED);
  }
  while (st.state == CLAIMED || st.state == ENDING) /* an adoption or expiry under way */
    pthread_cond_wait(&wake, &lock);
  pthread_mutex_unlock(&lock);
}

void trak_startup_tracing_get_stats(trak_startup_stats *out) {
  pthread_mutex_lock(&lock);
  *out = st.stats;
  pthread_mutex_unlock(&lock);
}

/* Whether `s` takes track events into its own buffer (not through an interceptor). */
static int takes_track_events(const trak_session *s) {
  if (!s->track_events) return 0;
  for (size_t i = 0; i < s->ndss; i++)
    if (strcmp(s->dss[i].name, "track_event") == 0 && s->dss[i].icpt_name) return 0;
  return 1;
}

trak_session *trak__startup_claim(trak_session *s) {
  if (!atomic_load_explicit(&active, memory_order_relaxed) || !takes_track_events(s)) return NULL;
  trak_session *startup = NULL;
  pthread_mutex_lock(&lock);
  if (st.state == RECORDING && st.session != s && st.owner_pid == getpid()) {
    st.state = CLAIMED;
    atomic_store(&active, 0);
    startup = st.session;
  }
  pthread_mutex_unlock(&lock);
  return startup;
}

/* Orders chunks by sequence, then by their index in it. */
static int chunk_order(const void *a, const void *b, void *arg) {
  const trak_session *s = arg;
  const trak__chunk *x = trak__chunk_at((trak_session *)s, *(const uint32_t *)a);
  const trak__chunk *y = trak__chunk_at((trak_session *)s, *(const uint32_t *)b);
  if (x->writer_id != y->writer_id) return x->writer_id < y->writer_id ? -1 : 1;
  return x->chunk_index < y->chunk_index ? -1 : x->chunk_index > y->chunk_index;
}

/* Copies the packets of the startup session's complete chunks into `s`, each sequence through
** a writer of its own id. A sequence that loses a packet (a full buffer, a packet larger than
** `s`'s chunks) stops there: its later packets could refer to what was lost. Returns how many
** packets moved; *lost gets how many did not. */
static uint64_t move_packets(trak_session *s, trak_session *from, uint64_t *lost) {
  uint64_t moved = 0;
  *lost = 0;
  uint32_t *idx = malloc((size_t)from->nchunks * sizeof *idx);
  uint32_t n = 0;
  for (uint32_t i = 0; idx && i < from->nchunks; i++)
    if (from->meta[i].state == TRAK__CHUNK_COMPLETE) idx[n++] = i;
  if (!idx) { /* nothing moves: count every packet */
    for (uint32_t i = 0; i < from->nchunks; i++)
      if (from->meta[i].state == TRAK__CHUNK_COMPLETE)
        *lost += trak__fill_packets(atomic_load(&trak__chunk_at(from, i)->fill));
    return 0;
  }
  qsort_r(idx, n, sizeof *idx, chunk_order, from);
  trak__writer w;
  memset(&w, 0, sizeof w);
  w.session = s;
  int failed = 0;
  for (uint32_t k = 0; k < n; k++) {
    trak__chunk *c = trak__chunk_at(from, idx[k]);
    uint64_t fill = atomic_load(&c->fill);
    if (c->writer_id != w.seq_id) { /* the next sequence */
      trak__session_retire_chunk(s, &w);
      w.seq_id = c->writer_id;
      w.next_chunk_index = 0;
      failed = 0;
    }
    const uint8_t *p = (const uint8_t *)c + TRAK__CHUNK_HEADER;
    const uint8_t *end = p + trak__fill_bytes(fill);
    uint32_t left = trak__fill_packets(fill);
    for (; left > 0 && p < end; left--) { /* each: tag, varint length, packet */
      const uint8_t *q = p + 1;
      uint64_t len = 0;
      for (int shift = 0; q < end && shift < 64; shift += 7) {
        len |= (uint64_t)(*q & 0x7f) << shift;
        if (!(*q++ & 0x80)) break;
      }
      size_t framed = (size_t)(q - p) + (size_t)len;
      if (len > (uint64_t)(end - q)) break; /* cannot happen: the chunk is the SDK's own */
      if (failed || trak__writer_put_packet(NULL, &w, p, framed) != 0) {
        failed = 1;
        (*lost)++;
      } else {
        moved++;
      }
      p += framed;
    }
    *lost += left;
  }
  trak__session_retire_chunk(s, &w);
  free(idx);
  return moved;
}

void trak__startup_adopt(trak_session *s, trak_session *startup) {
  trak__session_stop_end(startup, NULL);
  uint64_t lost;
  uint64_t moved = move_packets(s, startup, &lost);
  trak_session_stats ss;
  trak_session_get_stats(startup, &ss);
  lost += ss.packets_lost;
  if (lost) trak__session_lost(s, (uint32_t)(lost > UINT32_MAX ? UINT32_MAX : lost));
  trak_session_free(startup);
  pthread_mutex_lock(&lock);
  finish(TRAK_STARTUP_ADOPTED, moved, lost);
  pthread_mutex_unlock(&lock);
}
