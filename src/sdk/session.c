/*
** In-process tracing sessions: the chunked buffer (its configuration is session_config.c's)
** with its ring or discard policy, start / flush / stop, reading the trace into memory or a
** file (with a streaming thread for long sessions), statistics, and fork handling.
**
** Locking. trak__lock guards session slots and category masks; a session's own lock guards
** its chunk bookkeeping and is taken by writers only to swap a full chunk.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sdk/backend.h"

trak__slot trak__slots[TRAK_MAX_SESSIONS];

int trak_session_new(const trak_session_config *cfg, trak_session **out, trak_error *err) {
  trak_init();
  *out = NULL;
  uint32_t chunk = cfg->chunk_size ? cfg->chunk_size : 4096;
  uint64_t size = (uint64_t)(cfg->buffer_size_kb ? cfg->buffer_size_kb : 1024) * 1024;
  if (chunk < 512 || chunk > TRAK__CHUNK_MAX || (chunk & 7))
    return trak_error_set(err, TRAK_EINVAL, "chunk_size %u: want a multiple of 8 in 512..1M",
                          chunk);
  if (cfg->fill_policy != TRAK_FILL_RING && cfg->fill_policy != TRAK_FILL_DISCARD)
    return trak_error_set(err, TRAK_EINVAL, "unknown fill_policy %d", cfg->fill_policy);
  uint64_t n = size / chunk;
  if (n < 2) n = 2;
  trak_session *s = calloc(1, sizeof *s);
  if (!s) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  s->slot = -1;
  s->owner_pid = getpid();
  s->chunk_size = chunk;
  s->nchunks = (uint32_t)n;
  s->fill_policy = (uint32_t)cfg->fill_policy;
  s->clear_period_ms = cfg->clear_period_ms;
  s->compress = cfg->compress != 0;
  s->file_write_period_ms = cfg->file_write_period_ms ? cfg->file_write_period_ms : 1000;
  int ok = trak__session_config_copy(s, cfg) == 0;
  /* Every page present from the start (MAP_POPULATE, in one pass of the kernel rather than a
  ** fault per page): a page fault per chunk on the event path would cost more than the events
  ** in it. */
  size_t bytes = (size_t)n * chunk;
  void *mem = ok ? mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0)
                 : MAP_FAILED;
  if (mem != MAP_FAILED) {
    s->mem = mem;
    s->mem_mapped = bytes;
  }
  s->meta = s->mem ? calloc(n, sizeof *s->meta) : NULL;
  if (!s->meta) {
    if (s->mem) munmap(s->mem, bytes);
    trak__session_config_free(s);
    free(s);
    return trak_error_set(err, TRAK_ENOMEM, "out of memory for a %llu-byte trace buffer",
                          (unsigned long long)(n * chunk));
  }
  pthread_mutex_init(&s->lock, NULL);
  pthread_mutex_init(&s->file_lock, NULL);
  pthread_cond_init(&s->stream_cond, NULL);
  *out = s;
  return 0;
}

/* ---- chunks ------------------------------------------------------------------------------ */

/* Marks the writer's chunk complete and folds its counts into the stats. s->lock held. */
static void retire_locked(trak_session *s, trak__writer *w) {
  if (!w->chunk) return;
  uint32_t i = (uint32_t)(((uint8_t *)w->chunk - s->mem) / s->chunk_size);
  uint64_t fill = atomic_load_explicit(&w->chunk->fill, memory_order_relaxed);
  if (s->meta[i].state == TRAK__CHUNK_WRITING) {
    s->meta[i].state = TRAK__CHUNK_COMPLETE;
    s->stats.bytes_written += trak__fill_bytes(fill);
    s->stats.packets_written += trak__fill_packets(fill);
  }
  w->chunk = NULL;
  w->base = w->p = w->end = NULL;
}

void trak__session_retire_chunk(trak_session *s, trak__writer *w) {
  pthread_mutex_lock(&s->lock);
  retire_locked(s, w);
  pthread_mutex_unlock(&s->lock);
}

/* Picks the chunk to fill next by the fill policy (counting what a ring overwrites) and
** resets its bookkeeping to WRITING. Returns its index, or -1 when none is available.
** s->lock held. */
static int pick_chunk_locked(trak_session *s) {
  /* A full discard buffer stays full until a chunk is freed (which clears the flag): no scan. */
  if (s->fill_policy == TRAK_FILL_DISCARD && atomic_load_explicit(&s->full, memory_order_relaxed))
    return -1;
  int found = -1;
  for (uint32_t k = 0; k < s->nchunks; k++) {
    uint32_t i = (s->cursor + k) % s->nchunks;
    trak__chunk_meta *m = &s->meta[i];
    if (m->state == TRAK__CHUNK_FREE) {
      found = (int)i;
      break;
    }
    if (m->state == TRAK__CHUNK_COMPLETE && s->fill_policy == TRAK_FILL_RING) {
      uint64_t fill = atomic_load_explicit(&trak__chunk_at(s, i)->fill, memory_order_relaxed);
      if (m->read_pos < trak__fill_bytes(fill)) {
        s->stats.chunks_overwritten++;
        s->stats.packets_overwritten += trak__fill_packets(fill) - m->read_pkts;
      }
      found = (int)i;
      break;
    }
  }
  if (found < 0) {
    if (s->fill_policy == TRAK_FILL_DISCARD)
      atomic_store_explicit(&s->full, 1, memory_order_relaxed);
    return -1;
  }
  uint32_t i = (uint32_t)found;
  s->cursor = (i + 1) % s->nchunks;
  s->meta[i].state = TRAK__CHUNK_WRITING;
  s->meta[i].continues = 0;
  s->meta[i].untrusted = 0;
  s->meta[i].read_pos = 0;
  s->meta[i].read_pkts = 0;
  s->stats.chunks_written++;
  if (s->fill_policy == TRAK_FILL_RING && s->stats.chunks_written * 2 >= s->nchunks)
    atomic_store_explicit(&s->chunk_restarts, 1, memory_order_relaxed);
  return found;
}

int trak__session_acquire_chunk(trak_session *s, trak__writer *w) {
  pthread_mutex_lock(&s->lock);
  retire_locked(s, w);
  int found = s->state == TRAK__S_STARTED ? pick_chunk_locked(s) : -1;
  if (found >= 0) {
    trak__chunk *c = trak__chunk_at(s, (uint32_t)found);
    c->writer_id = w->seq_id;
    c->chunk_index = w->next_chunk_index++;
    atomic_store_explicit(&c->fill, 0, memory_order_relaxed);
    w->chunk = c;
    w->base = w->p = (uint8_t *)c + TRAK__CHUNK_HEADER;
    w->end = (uint8_t *)c + s->chunk_size;
    w->packets = 0;
  }
  pthread_mutex_unlock(&s->lock);
  return found >= 0 ? 0 : -1;
}

void trak__session_lost(trak_session *s, uint32_t packets) {
  atomic_fetch_add_explicit(&s->packets_lost, packets, memory_order_relaxed);
}

/* ---- output ------------------------------------------------------------------------------ */

/* Drains unread packets of `s` into `out` and, when the session's stop is done and the trace
** did not end yet, ends it with the trace_stats packet: a trace holds that packet once, after
** its last packet. The end is decided in the same lock hold as the drain, so no packet can be
** left behind it. s->lock not held. */
static void drain_and_end(trak_session *s, trak_pb_buf *out) {
  pthread_mutex_lock(&s->lock);
  trak__session_drain(s, out);
  int end = s->trace_ended && !s->stats_emitted && !out->error;
  s->stats_emitted |= end;
  pthread_mutex_unlock(&s->lock);
  if (!end) return;
  size_t before = trak_pb_buf_len(out);
  trak__session_put_trace_stats(s, out, NULL);
  pthread_mutex_lock(&s->lock);
  s->stats.bytes_read += trak_pb_buf_len(out) - before;
  pthread_mutex_unlock(&s->lock);
}

/* Moves unread packets into the session's file; the final drain (`final`) ends the trace.
** file_lock held; the buffer lock is held only while draining, so writers never wait for the
** file. */
static int drain_to_file(trak_session *s, int final, trak_error *err) {
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  if (final) {
    drain_and_end(s, &b);
  } else {
    pthread_mutex_lock(&s->lock);
    trak__session_drain(s, &b);
    pthread_mutex_unlock(&s->lock);
  }
  int rc = b.error;
  size_t len = trak_pb_buf_len(&b);
  if (!rc && len && (fwrite(b.start, 1, len, s->file) != len || fflush(s->file) != 0))
    rc = trak_error_set(err, TRAK_EIO, "%s: %s", s->output_path, strerror(errno));
  trak_pb_buf_free(&b);
  return rc;
}

static void *streamer(void *arg) {
  trak_session *s = arg;
  pthread_mutex_lock(&s->file_lock);
  while (!s->stream_stop) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    uint64_t ns = (uint64_t)until.tv_nsec + (uint64_t)s->file_write_period_ms * 1000000u;
    until.tv_sec += (time_t)(ns / 1000000000u);
    until.tv_nsec = (long)(ns % 1000000000u);
    pthread_cond_timedwait(&s->stream_cond, &s->file_lock, &until);
    if (!s->stream_stop) drain_to_file(s, 0, NULL);
  }
  pthread_mutex_unlock(&s->file_lock);
  return NULL;
}

/* ---- lifecycle ----------------------------------------------------------------------------- */

static int inert(trak_session *s) {
  return s->owner_pid != getpid();
}

int trak_session_start(trak_session *s, trak_error *err) {
  if (inert(s)) return trak_error_set(err, TRAK_ESTATE, "session belongs to the parent process");
  /* 1. Reserve a slot (its generation stays even: nothing records into it yet). */
  pthread_mutex_lock(&trak__lock);
  int rc = 0, slot = -1;
  if (s->state != TRAK__S_NEW) {
    rc = trak_error_set(err, TRAK_ESTATE, "session already started");
  } else {
    for (int i = 0; i < TRAK_MAX_SESSIONS && slot < 0; i++)
      if (!trak__slots[i].session) slot = i;
    if (slot < 0)
      rc = trak_error_set(err, TRAK_ENOSPC, "%d sessions already active", TRAK_MAX_SESSIONS);
  }
  if (rc == 0) {
    s->slot = slot;
    s->state = TRAK__S_STARTING;
    trak__slots[slot].session = s;
  }
  pthread_mutex_unlock(&trak__lock);
  if (rc) return rc;
  /* 2. Set up and start the data source instances, running their callbacks without trak__lock
  **    (data sources registered from now on join the session: data_source.c). */
  rc = trak__ds_session_setup(s, slot, err);
  if (rc == 0 && s->output_path && !(s->file = fopen(s->output_path, "wb"))) {
    rc = trak_error_set(err, TRAK_EIO, "%s: %s", s->output_path, strerror(errno));
    trak__ds_session_teardown(slot);
  }
  /* 3. Record; a startup session hands over to this one in the same category update, so
  **    each event goes to exactly one of them (startup.c). */
  trak_session *startup = rc == 0 ? trak__startup_claim(s) : NULL;
  pthread_mutex_lock(&trak__lock);
  if (rc) {
    trak__slots[slot].session = NULL;
    s->slot = -1;
    s->state = TRAK__S_NEW;
  } else {
    pthread_mutex_lock(&s->lock);
    s->state = TRAK__S_STARTED;
    pthread_mutex_unlock(&s->lock);
    s->gen = atomic_load(&trak__slots[slot].gen) + 1; /* odd: started */
    atomic_store_explicit(&trak__slots[slot].gen, s->gen, memory_order_release);
    if (startup) trak__session_stop_begin(startup);
    trak__categories_update();
    trak__ds_session_enable(slot, 1);
  }
  pthread_mutex_unlock(&trak__lock);
  if (startup) trak__startup_adopt(s, startup);
  if (rc == 0 && s->file) s->streaming = pthread_create(&s->streamer, NULL, streamer, s) == 0;
  return rc;
}

int trak_session_flush(trak_session *s, trak_error *err) {
  if (inert(s)) return 0;
  pthread_mutex_lock(&trak__lock);
  int slot = s->state == TRAK__S_STARTED ? s->slot : -1;
  pthread_mutex_unlock(&trak__lock);
  if (slot >= 0) trak__ds_session_flush(slot); /* not concurrently with stop (documented) */
  pthread_mutex_lock(&s->file_lock);
  int rc = s->file ? drain_to_file(s, 0, err) : 0;
  pthread_mutex_unlock(&s->file_lock);
  return rc;
}

void trak__session_stop_begin(trak_session *s) {
  pthread_mutex_lock(&s->lock);
  s->state = TRAK__S_STOPPED; /* writers' chunk requests fail from now on */
  pthread_mutex_unlock(&s->lock);
  trak__ds_session_enable(s->slot, 0);
  atomic_store_explicit(&trak__slots[s->slot].gen, s->gen + 1, memory_order_release);
}

int trak__session_stop_end(trak_session *s, trak_error *err) {
  int slot = s->slot;
  pthread_mutex_lock(&trak__lock);
  trak__threads_wait_idle();
  pthread_mutex_unlock(&trak__lock);
  /* No thread writes into the slot now: stop its instances (callbacks run without trak__lock;
  ** a data source joining meanwhile is stopped with them), then give the slot back. */
  trak__ds_session_teardown(slot);
  pthread_mutex_lock(&trak__lock);
  trak__slots[slot].session = NULL;
  s->slot = -1;
  pthread_mutex_lock(&s->lock);
  for (uint32_t i = 0; i < s->nchunks; i++) {
    if (s->meta[i].state != TRAK__CHUNK_WRITING) continue;
    uint64_t fill = atomic_load_explicit(&trak__chunk_at(s, i)->fill, memory_order_acquire);
    s->meta[i].state = TRAK__CHUNK_COMPLETE;
    s->stats.bytes_written += trak__fill_bytes(fill);
    s->stats.packets_written += trak__fill_packets(fill);
  }
  s->trace_ended = 1;
  pthread_mutex_unlock(&s->lock);
  pthread_mutex_unlock(&trak__lock);
  pthread_mutex_lock(&s->file_lock);
  s->stream_stop = 1;
  pthread_cond_signal(&s->stream_cond);
  pthread_mutex_unlock(&s->file_lock);
  int rc = 0;
  if (s->streaming) pthread_join(s->streamer, NULL);
  s->streaming = 0;
  pthread_mutex_lock(&s->file_lock);
  if (s->file) {
    rc = drain_to_file(s, 1, err);
    if (fclose(s->file) != 0 && rc == 0)
      rc = trak_error_set(err, TRAK_EIO, "%s: %s", s->output_path, strerror(errno));
    s->file = NULL;
  }
  pthread_mutex_unlock(&s->file_lock);
  return rc;
}

int trak_session_stop(trak_session *s, trak_error *err) {
  if (inert(s)) return 0;
  pthread_mutex_lock(&trak__lock);
  if (s->state != TRAK__S_STARTED) {
    pthread_mutex_unlock(&trak__lock);
    return s->state == TRAK__S_STOPPED ? 0
                                       : trak_error_set(err, TRAK_ESTATE, "session not started");
  }
  trak__session_stop_begin(s);
  trak__categories_update();
  pthread_mutex_unlock(&trak__lock);
  return trak__session_stop_end(s, err);
}

int trak_session_read(trak_session *s, uint8_t **data, size_t *len, trak_error *err) {
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  if (!inert(s)) {
    drain_and_end(s, &b);
  }
  if (b.error) {
    trak_pb_buf_free(&b);
    return trak_error_set(err, b.error, "reading the trace: %s", trak_strerror(b.error));
  }
  *data = trak_pb_buf_detach(&b, len);
  if (!*data && !(*data = malloc(1))) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  return 0;
}

int trak_session_write_file(trak_session *s, const char *path, trak_error *err) {
  uint8_t *data;
  size_t len;
  int rc = trak_session_read(s, &data, &len, err);
  if (rc) return rc;
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, len, f) != len)
    rc = trak_error_set(err, TRAK_EIO, "%s: %s", path, strerror(errno));
  if (f && fclose(f) != 0 && rc == 0)
    rc = trak_error_set(err, TRAK_EIO, "%s: %s", path, strerror(errno));
  free(data);
  return rc;
}

void trak_session_get_stats(trak_session *s, trak_session_stats *st) {
  pthread_mutex_lock(&s->lock);
  *st = s->stats;
  /* Chunks still being written count what they hold so far. */
  for (uint32_t i = 0; i < s->nchunks; i++) {
    if (s->meta[i].state != TRAK__CHUNK_WRITING) continue;
    uint64_t fill = atomic_load_explicit(&trak__chunk_at(s, i)->fill, memory_order_acquire);
    st->bytes_written += trak__fill_bytes(fill);
    st->packets_written += trak__fill_packets(fill);
  }
  pthread_mutex_unlock(&s->lock);
  st->packets_lost = atomic_load(&s->packets_lost);
}

void trak_session_free(trak_session *s) {
  if (!s) return;
  if (!inert(s)) {
    trak_session_stop(s, NULL);
    pthread_mutex_destroy(&s->lock);
    pthread_mutex_destroy(&s->file_lock);
    pthread_cond_destroy(&s->stream_cond);
  }
  if (s->mem) munmap(s->mem, s->mem_mapped);
  free(s->meta);
  free(s->seqs);
  free(s->trust);
  trak__session_config_free(s);
  free(s);
}

/* In a forked child: no session records (the parent's become inert), every mask is clear,
** and no data source instance is set up (a session of the child sets up its own). */
void trak__sessions_after_fork(void) {
  for (int i = 0; i < TRAK_MAX_SESSIONS; i++) {
    uint32_t gen = atomic_load(&trak__slots[i].gen);
    atomic_store(&trak__slots[i].gen, (gen | 1) + 1);
    trak__slots[i].session = NULL;
  }
  trak__categories_update();
  trak__ds_after_fork();
}

/* ---- system backend ------------------------------------------------------------------------ */

int trak__session_use_shared(trak_session *s, uint8_t *mem, size_t size) {
  uint32_t n = (uint32_t)(size / s->chunk_size);
  trak__chunk_meta *meta = n >= 2 ? calloc(n, sizeof *meta) : NULL;
  if (!meta || s->state != TRAK__S_NEW) {
    free(meta);
    return TRAK_EINVAL;
  }
  if (s->mem) munmap(s->mem, s->mem_mapped);
  free(s->meta);
  s->mem = mem;
  s->mem_mapped = size;
  s->meta = meta;
  s->nchunks = n;
  s->cursor = 0;
  /* A producer never overwrites: chunks it cannot get are losses it reports. */
  s->fill_policy = TRAK_FILL_DISCARD;
  return 0;
}

size_t trak__session_take_complete(trak_session *s, uint32_t *idx, size_t max) {
  size_t n = 0;
  pthread_mutex_lock(&s->lock);
  for (uint32_t i = 0; i < s->nchunks && n < max; i++) {
    if (s->meta[i].state != TRAK__CHUNK_COMPLETE) continue;
    s->meta[i].state = TRAK__CHUNK_SHARED;
    idx[n++] = i;
  }
  pthread_mutex_unlock(&s->lock);
  return n;
}

void trak__session_release(trak_session *s, const uint32_t *idx, size_t n) {
  pthread_mutex_lock(&s->lock);
  for (size_t k = 0; k < n; k++) {
    if (idx[k] >= s->nchunks || s->meta[idx[k]].state != TRAK__CHUNK_SHARED) continue;
    s->meta[idx[k]].state = TRAK__CHUNK_FREE;
    atomic_store_explicit(&s->full, 0, memory_order_relaxed);
  }
  pthread_mutex_unlock(&s->lock);
}

uint32_t trak__session_free_chunks(trak_session *s, uint32_t *total) {
  uint32_t n = 0;
  pthread_mutex_lock(&s->lock);
  for (uint32_t i = 0; i < s->nchunks; i++)
    n += s->meta[i].state == TRAK__CHUNK_FREE;
  *total = s->nchunks;
  if (s->fill_policy == TRAK_FILL_RING) n = s->nchunks;
  if (s->state != TRAK__S_STARTED) n = *total = 0; /* stopping: no chunk is handed out any more */
  pthread_mutex_unlock(&s->lock);
  return n;
}

uint64_t trak__session_undelivered(trak_session *s) {
  uint64_t n = atomic_load(&s->packets_lost);
  pthread_mutex_lock(&s->lock);
  for (uint32_t i = 0; i < s->nchunks; i++)
    if (s->meta[i].state != TRAK__CHUNK_FREE)
      n += trak__fill_packets(
          atomic_load_explicit(&trak__chunk_at(s, i)->fill, memory_order_acquire));
  pthread_mutex_unlock(&s->lock);
  return n;
}

/* The free room after the unread part of chunk (seq, cindex) in central chunk `at`, or NULL
** when `at` no longer holds it or `bytes` do not fit. s->lock held. */
static uint8_t *room_after_locked(trak_session *s, uint32_t at, uint32_t seq, uint32_t cindex,
                                  uint32_t bytes) {
  if (at >= s->nchunks || s->meta[at].state != TRAK__CHUNK_COMPLETE) return NULL;
  trak__chunk *c = trak__chunk_at(s, at);
  uint32_t have = trak__fill_bytes(atomic_load_explicit(&c->fill, memory_order_relaxed));
  if (c->writer_id != seq || c->chunk_index != cindex ||
      have + bytes > s->chunk_size - TRAK__CHUNK_HEADER)
    return NULL;
  return (uint8_t *)c + TRAK__CHUNK_HEADER + have;
}

uint8_t *trak__session_import_reserve(trak_session *s, uint32_t seq, uint32_t cindex,
                                      uint32_t bytes, int continues, uint32_t *at) {
  if (bytes > s->chunk_size - TRAK__CHUNK_HEADER) return NULL;
  uint8_t *room = continues ? room_after_locked(s, *at, seq, cindex, bytes) : NULL;
  if (room) return room;
  int i = pick_chunk_locked(s);
  if (i < 0) {
    s->stats.chunks_discarded++; /* the caller counts its packets lost */
    return NULL;
  }
  trak__chunk *c = trak__chunk_at(s, (uint32_t)i);
  c->writer_id = seq;
  c->chunk_index = cindex;
  atomic_store_explicit(&c->fill, 0, memory_order_relaxed);
  s->meta[i].continues = (uint8_t)(continues != 0);
  s->meta[i].untrusted = 0;
  *at = (uint32_t)i; /* WRITING, empty: readout skips it until the commit */
  return (uint8_t *)c + TRAK__CHUNK_HEADER;
}

void trak__session_import_commit(trak_session *s, uint32_t at, uint32_t bytes, uint32_t packets,
                                 int untrusted, int ok) {
  trak__chunk_meta *m = &s->meta[at];
  if (!ok) { /* a fresh chunk goes back; a joined one keeps what it had */
    if (m->state == TRAK__CHUNK_WRITING) m->state = TRAK__CHUNK_FREE;
    atomic_store_explicit(&s->full, 0, memory_order_relaxed);
    return;
  }
  trak__chunk *c = trak__chunk_at(s, at);
  uint64_t fill = atomic_load_explicit(&c->fill, memory_order_relaxed);
  atomic_store_explicit(&c->fill, fill + bytes + ((uint64_t)packets << 32), memory_order_relaxed);
  m->state = TRAK__CHUNK_COMPLETE;
  m->untrusted |= (uint8_t)(untrusted != 0);
  s->stats.bytes_written += bytes;
  s->stats.packets_written += packets;
}

int trak__session_trust(trak_session *s, uint32_t seq, int32_t uid, int32_t pid) {
  pthread_mutex_lock(&s->lock);
  int rc = 0;
  if (s->ntrust == s->trust_cap) {
    size_t cap = s->trust_cap ? s->trust_cap * 2 : 16;
    trak__trust *grown = realloc(s->trust, cap * sizeof *grown);
    if (grown) {
      s->trust = grown;
      s->trust_cap = cap;
    } else {
      rc = TRAK_ENOMEM;
    }
  }
  if (rc == 0) s->trust[s->ntrust++] = (trak__trust){seq, uid, pid};
  pthread_mutex_unlock(&s->lock);
  return rc;
}
