/*
** The data-source layer: the registry of data sources (index 0 is the built-in "track_event",
** custom ones follow), their per-session instances (setup / start / stop / flush and the
** interceptor an instance routes its packets to) and the trace path of custom data sources.
**
** Instances are addressed by (data source, slot): slot i is the session slot whose generation
** the writers bind to. Sessions drive instances through trak__ds_session_setup / _enable /
** _teardown / _flush only, so a backend other than the in-process session can drive them the
** same way. A custom data source's `mask` has bit i set while instance i is active; each
** thread writes to instance i through its own writer (thread->dsw[index][i]), a packet
** sequence of its own with its own interning table and incremental state.
**
** Joining. A data source registered while sessions run joins every one whose config names it
** (join_slot). Each slot's instances are set up, joined and torn down under that slot's
** slot_lock, never under trak__lock, so callbacks may call what takes trak__lock (registering
** a category or a data source); the lock order is slot_lock, then trak__lock, then
** registry_lock. slot_ready says the session's own
** setup ran (and its teardown did not): before it, the session's setup will find the new
** data source itself. An instance's `live` flag and its mask bit change under trak__lock as
** well, so a session's start (which enables live instances) and stop (which disables them)
** see a join either wholly or not at all; a join that ends after the stop began leaves its
** instance to the stop's teardown, so every instance gets one setup, start and stop.
*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP */
#endif
#include <stdlib.h>
#include <string.h>

#include "sdk/backend.h"

typedef struct instance {
  void *state;                  /* the data source's setup state */
  struct trak__icpt_inst *icpt; /* where its packets go instead of the buffer, or NULL */
  pthread_mutex_t lock;         /* trak_ds_lock_instance */
  uint8_t live;                 /* set up and not yet torn down */
} instance;

typedef struct trak__ds {
  trak_data_source pub; /* first: the public handle points here */
  trak_data_source_desc desc;
  uint32_t index;
  instance inst[TRAK_MAX_SESSIONS];
} trak__ds;

struct trak_ds_ctx {
  trak__thread *t;
  trak__writer *w;
  trak__ds *ds;
  uint32_t slot;
  int open; /* a packet is being written into t->scratch */
  trak_pb_nested pkt;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
/* Recursive: a callback run under it may register another data source (which then skips
** this slot: it is not ready, or its session stops). */
static pthread_mutex_t slot_lock[TRAK_MAX_SESSIONS] = {[0 ... TRAK_MAX_SESSIONS - 1] =
                                                           PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP};
static uint8_t slot_ready[TRAK_MAX_SESSIONS]; /* slot_lock held */
static trak__ds *registry[TRAK__MAX_DS];      /* entries are never removed */
static uint32_t registry_count;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

static trak__ds *ds_new(const char *name) {
  trak__ds *ds = calloc(1, sizeof *ds);
  char *copy = strdup(name);
  if (!ds || !copy) {
    free(ds);
    free(copy);
    return NULL;
  }
  ds->desc.name = copy;
  for (int i = 0; i < TRAK_MAX_SESSIONS; i++)
    pthread_mutex_init(&ds->inst[i].lock, NULL);
  return ds;
}

static void registry_init(void) {
  registry[0] = ds_new("track_event"); /* NULL only when out of memory at start-up */
  registry_count = 1;
}

/* The index of the data source named `name` (length `len`), or -1. registry_lock held. */
static int find_locked(const char *name, size_t len) {
  for (uint32_t i = 0; i < registry_count; i++)
    if (registry[i] && strlen(registry[i]->desc.name) == len &&
        memcmp(registry[i]->desc.name, name, len) == 0)
      return (int)i;
  return -1;
}

static void join_slot(trak__ds *ds, int slot);

int trak_data_source_register(const trak_data_source_desc *desc, trak_data_source **out,
                              trak_error *err) {
  trak_init();
  pthread_once(&registry_once, registry_init);
  if (!desc->name || !desc->name[0])
    return trak_error_set(err, TRAK_EINVAL, "a data source needs a name");
  pthread_mutex_lock(&registry_lock);
  int rc = 0;
  trak__ds *added = NULL;
  if (find_locked(desc->name, strlen(desc->name)) >= 0) {
    rc = trak_error_set(err, TRAK_EINVAL, "data source \"%s\" is already registered", desc->name);
  } else if (registry_count == TRAK__MAX_DS) {
    rc = trak_error_set(err, TRAK_ENOSPC, "%d data sources already registered",
                        TRAK_MAX_DATA_SOURCES);
  } else {
    trak__ds *ds = ds_new(desc->name);
    if (!ds) {
      rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
    } else {
      const char *name = ds->desc.name;
      ds->desc = *desc;
      ds->desc.name = name;
      ds->index = registry_count;
      registry[registry_count++] = ds;
      *out = &ds->pub;
      added = ds;
    }
  }
  pthread_mutex_unlock(&registry_lock);
  /* Sessions that set up their instances from now on find it; earlier ones get it here. */
  for (int slot = 0; added && slot < TRAK_MAX_SESSIONS; slot++)
    join_slot(added, slot);
  return rc;
}

/* ---- instances --------------------------------------------------------------------------- */

static trak__ds *lookup(const char *name) {
  pthread_once(&registry_once, registry_init);
  pthread_mutex_lock(&registry_lock);
  int i = find_locked(name, strlen(name));
  pthread_mutex_unlock(&registry_lock);
  return i >= 0 ? registry[i] : NULL;
}

/* Every data source registered so far (a snapshot: the array only grows). */
static uint32_t snapshot_count(void) {
  pthread_once(&registry_once, registry_init);
  pthread_mutex_lock(&registry_lock);
  uint32_t n = registry_count;
  pthread_mutex_unlock(&registry_lock);
  return n;
}

uint32_t trak__ds_names(const char **names, uint32_t max) {
  uint32_t n = snapshot_count(), k = 0;
  for (uint32_t i = 0; i < n && k < max; i++)
    if (registry[i]) names[k++] = registry[i]->desc.name;
  return k;
}

/* Stops the instance of `ds` in `slot` if it is live. slot_lock held, and no thread writes
** into the slot any more. */
static void teardown_instance(trak__ds *ds, int slot) {
  instance *in = &ds->inst[slot];
  if (!in->live) return;
  if (ds->desc.stop) ds->desc.stop(ds->desc.user, (uint32_t)slot, in->state);
  if (in->icpt) trak__icpt_stop(in->icpt);
  __atomic_store_n(&in->icpt, NULL, __ATOMIC_RELAXED);
  pthread_mutex_lock(&in->lock);
  in->state = NULL;
  pthread_mutex_unlock(&in->lock);
  in->live = 0;
}

/* Tears down every instance of `slot`; joins skip it until its next setup. slot_lock held. */
static void teardown_locked(int slot) {
  slot_ready[slot] = 0;
  uint32_t n = snapshot_count();
  for (uint32_t i = 0; i < n; i++)
    if (registry[i]) teardown_instance(registry[i], slot);
}

void trak__ds_session_teardown(int slot) {
  pthread_mutex_lock(&slot_lock[slot]);
  teardown_locked(slot);
  pthread_mutex_unlock(&slot_lock[slot]);
}

/* Sets up the instance of `ds` that `cfg` describes (its interceptor first) and records its
** state; the caller marks it live. Returns 1 when set up, 0 when the data source refuses its
** setup (the instance is skipped), or an error that fails the session (an unknown or failing
** interceptor). slot_lock held. */
static int setup_instance(trak__ds *ds, int slot, const trak__ds_cfg *cfg, trak_error *err) {
  instance *in = &ds->inst[slot];
  struct trak__icpt_inst *icpt = NULL;
  if (cfg->icpt_name) {
    int rc = trak__icpt_setup(cfg->icpt_name, cfg->icpt_config, cfg->icpt_config_len, ds->desc.name,
                              (uint32_t)slot, &icpt, err);
    if (rc) return rc;
  }
  void *state = NULL;
  if (ds->desc.setup &&
      ds->desc.setup(ds->desc.user, (uint32_t)slot, cfg->config, cfg->config_len, &state) != 0) {
    if (icpt) trak__icpt_stop(icpt);
    return 0;
  }
  /* Published for writers that bind later (trak__ds_icpt) and for trak_ds_lock_instance. */
  pthread_mutex_lock(&in->lock);
  in->state = state;
  pthread_mutex_unlock(&in->lock);
  __atomic_store_n(&in->icpt, icpt, __ATOMIC_RELEASE);
  return 1;
}

static void start_instance(trak__ds *ds, int slot) {
  instance *in = &ds->inst[slot];
  if (in->icpt) trak__icpt_start(in->icpt);
  if (ds->desc.start) ds->desc.start(ds->desc.user, (uint32_t)slot, in->state);
}

/* Sets up the instances `s` names, then starts them. slot_lock held. */
static int session_setup_locked(trak_session *s, int slot, trak_error *err) {
  for (size_t i = 0; i < s->ndss; i++) {
    trak__ds *ds = lookup(s->dss[i].name);
    int rc = 0;
    if (ds && !ds->inst[slot].live) { /* the first entry naming a data source wins */
      rc = setup_instance(ds, slot, &s->dss[i], err);
      ds->inst[slot].live = rc > 0;
    } else if (!ds && !s->sources_optional) { /* a typo would otherwise record nothing */
      rc = trak_error_set(err, TRAK_EINVAL,
                          "data source \"%s\" is not registered in this process "
                          "(trak_data_source_register)",
                          s->dss[i].name);
    }
    if (rc < 0) {
      teardown_locked(slot);
      return rc;
    }
  }
  uint32_t n = snapshot_count();
  for (uint32_t i = 0; i < n; i++)
    if (registry[i] && registry[i]->inst[slot].live) start_instance(registry[i], slot);
  slot_ready[slot] = 1;
  return 0;
}

int trak__ds_session_setup(trak_session *s, int slot, trak_error *err) {
  pthread_mutex_lock(&slot_lock[slot]);
  int rc = session_setup_locked(s, slot, err);
  pthread_mutex_unlock(&slot_lock[slot]);
  return rc;
}

/* The entry naming `ds` in the config of the session in `slot`, when that session's own
** setup is done and it is not stopping and `ds` has no instance there yet; otherwise NULL.
** The session cannot go away meanwhile: its stop waits for slot_lock to tear down.
** slot_lock held. */
static const trak__ds_cfg *joinable(const trak__ds *ds, int slot) {
  if (!slot_ready[slot] || ds->inst[slot].live) return NULL;
  pthread_mutex_lock(&trak__lock);
  trak_session *s = trak__slots[slot].session;
  int running = s && (s->state == TRAK__S_STARTING || s->state == TRAK__S_STARTED);
  pthread_mutex_unlock(&trak__lock);
  for (size_t i = 0; running && i < s->ndss; i++)
    if (strcmp(s->dss[i].name, ds->desc.name) == 0) return &s->dss[i];
  return NULL;
}

/* Adds the just registered `ds` to the session in `slot` if its config names it, as that
** session's start would have: setup (with the entry's interceptor), start, then its mask bit
** once the session records. A session still starting enables it itself (it enables every
** live instance); a session that began stopping meanwhile tears it down. An interceptor
** that fails, or a refused setup, leaves the session without the instance. */
static void join_slot(trak__ds *ds, int slot) {
  pthread_mutex_lock(&slot_lock[slot]);
  const trak__ds_cfg *cfg = joinable(ds, slot);
  if (cfg && setup_instance(ds, slot, cfg, NULL) > 0) {
    start_instance(ds, slot);
    pthread_mutex_lock(&trak__lock);
    ds->inst[slot].live = 1;
    if (trak__slots[slot].session->state == TRAK__S_STARTED)
      __atomic_fetch_or(&ds->pub.mask, 1u << slot, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&trak__lock);
  }
  pthread_mutex_unlock(&slot_lock[slot]);
}

void trak__ds_session_enable(int slot, int on) {
  uint32_t n = snapshot_count();
  for (uint32_t i = 1; i < n; i++) { /* track events are gated by their categories */
    trak__ds *ds = registry[i];
    if (!ds || !ds->inst[slot].live) continue;
    if (on)
      __atomic_fetch_or(&ds->pub.mask, 1u << slot, __ATOMIC_RELEASE);
    else
      __atomic_fetch_and(&ds->pub.mask, ~(1u << slot), __ATOMIC_RELAXED);
  }
}

void trak__ds_session_flush(int slot) {
  pthread_mutex_lock(&slot_lock[slot]);
  uint32_t n = slot_ready[slot] ? snapshot_count() : 0;
  for (uint32_t i = 1; i < n; i++) {
    trak__ds *ds = registry[i];
    if (ds && ds->inst[slot].live && ds->desc.flush)
      ds->desc.flush(ds->desc.user, (uint32_t)slot, ds->inst[slot].state);
  }
  pthread_mutex_unlock(&slot_lock[slot]);
}

void trak__ds_after_fork(void) {
  pthread_mutex_init(&registry_lock, NULL);
  pthread_mutexattr_t recursive;
  pthread_mutexattr_init(&recursive);
  pthread_mutexattr_settype(&recursive, PTHREAD_MUTEX_RECURSIVE);
  for (int slot = 0; slot < TRAK_MAX_SESSIONS; slot++) {
    pthread_mutex_init(&slot_lock[slot], &recursive);
    slot_ready[slot] = 0;
  }
  pthread_mutexattr_destroy(&recursive);
  for (uint32_t i = 0; i < registry_count; i++) {
    trak__ds *ds = registry[i];
    if (!ds) continue;
    ds->pub.mask = 0;
    for (int slot = 0; slot < TRAK_MAX_SESSIONS; slot++) {
      instance *in = &ds->inst[slot];
      pthread_mutex_init(&in->lock, NULL);
      in->state = NULL; /* the parent's: neither started nor stopped here */
      in->icpt = NULL;
      in->live = 0;
    }
  }
}

struct trak__icpt_inst *trak__ds_icpt(int index, int slot) {
  trak__ds *ds = registry[index];
  return ds ? __atomic_load_n(&ds->inst[slot].icpt, __ATOMIC_ACQUIRE) : NULL;
}

/* ---- writer state -------------------------------------------------------------------------- */

void trak__ds_incremental_reset(trak__writer *w) {
  trak__ds *ds = registry[w->ds];
  if (w->incr && ds->desc.incremental_state_free)
    ds->desc.incremental_state_free(ds->desc.user, w->incr);
  w->incr = NULL;
  w->cleared = 1;
}

void trak__writer_forget_state(trak__writer *w) {
  if (w->ds) trak__ds_incremental_reset(w);
  trak__icpt_tls_free(w);
  free(w->private_chunk);
  w->private_chunk = NULL;
  w->icpt = NULL;
  if (w->chunk && w->gen & TRAK__GEN_ICPT) {
    w->chunk = NULL;
    w->base = w->p = w->end = NULL;
  }
}

/* ---- the trace path ---------------------------------------------------------------------- */

static TRAK__COLD trak__writer *new_row(trak__thread *t, uint32_t index) {
  trak__writer *row = calloc(TRAK_MAX_SESSIONS, sizeof *row);
  if (!row) return NULL;
  for (int i = 0; i < TRAK_MAX_SESSIONS; i++)
    row[i].ds = (uint8_t)index;
  t->dsw[index] = row;
  return row;
}

/* Commits the packet being written. A packet that cannot be written counts as lost. */
static void finish_packet(trak_ds_ctx *ctx) {
  trak__thread *t = ctx->t;
  trak__writer *w = ctx->w;
  trak_pb_buf *b = &t->scratch;
  size_t ilen = trak_pb_buf_len(&t->interned);
  if (ilen) trak_pb_put_bytes(b, TRAK_PB_TracePacket_interned_data, t->interned.start, ilen);
  trak_pb_end_nested_short(b, ctx->pkt);
  ctx->open = 0;
  if (!b->error && !t->interned.error &&
      trak__writer_put_packet(t, w, b->start, trak_pb_buf_len(b)) == 0) {
    w->cleared = 0;
    w->started = 1;
    w->dropped = 0;
  } else {
    trak__session_lost(w->session, 1);
  }
}

void trak_data_source_trace(trak_data_source *pub, trak_ds_trace_fn fn, void *user) {
  trak__ds *ds = (trak__ds *)pub;
  trak__thread *t = trak__thread_get();
  if (TRAK_UNLIKELY(!t)) return;
  atomic_store_explicit(&t->busy, 1, memory_order_relaxed);
  atomic_signal_fence(memory_order_seq_cst); /* see thread.c: the grace period */
  uint32_t mask = __atomic_load_n(&pub->mask, __ATOMIC_RELAXED);
  trak__writer *row = t->dsw[ds->index];
  if (TRAK_UNLIKELY(!row) && mask) row = new_row(t, ds->index);
  uint64_t now = trak__now();
  while (mask && row) {
    int slot = __builtin_ctz(mask);
    mask &= mask - 1;
    trak__writer *w = &row[slot];
    if (!trak__writer_ready(t, w, slot, now)) continue;
    trak_ds_ctx ctx = {t, w, ds, (uint32_t)slot, 0, 0};
    fn(&ctx, user);
    if (ctx.open) finish_packet(&ctx);
    if (TRAK_UNLIKELY(w->icpt != NULL)) trak__icpt_deliver(w);
  }
  atomic_store_explicit(&t->busy, 0, memory_order_release);
}

trak_pb_buf *trak_ds_new_packet(trak_ds_ctx *ctx) {
  if (ctx->open) finish_packet(ctx);
  trak__thread *t = ctx->t;
  trak__writer *w = ctx->w;
  trak_pb_buf *b = &t->scratch;
  b->p = b->start;
  b->error = 0;
  t->interned.p = t->interned.start;
  t->interned.error = 0;
  ctx->pkt = trak_pb_begin_nested_short(b, TRAK_PB_Trace_packet);
  if (TRAK_UNLIKELY(!w->started))
    trak_pb_put_bool(b, TRAK_PB_TracePacket_first_packet_on_sequence, 1);
  if (TRAK_UNLIKELY(w->dropped))
    trak_pb_put_bool(b, TRAK_PB_TracePacket_previous_packet_dropped, 1);
  ctx->open = 1;
  return b;
}

uint32_t trak__ds_free_chunks(const trak_ds_ctx *ctx, uint32_t *total) {
  return trak__session_free_chunks(ctx->w->session, total);
}

int trak_ds_incremental_state_cleared(const trak_ds_ctx *ctx) {
  return ctx->w->cleared;
}

void *trak_ds_incremental_state(trak_ds_ctx *ctx) {
  trak__writer *w = ctx->w;
  const trak_data_source_desc *d = &ctx->ds->desc;
  if (!w->incr && d->incremental_state_new) w->incr = d->incremental_state_new(d->user);
  return w->incr;
}

uint64_t trak_ds_intern(trak_ds_ctx *ctx, trak_interned_type *type, uint64_t key,
                        const void *value) {
  return ctx->open ? trak__intern_user(ctx->t, ctx->w, type, key, value) : 0;
}

uint32_t trak_ds_instance_index(const trak_ds_ctx *ctx) {
  return ctx->slot;
}

void *trak_ds_lock_instance(trak_ds_ctx *ctx) {
  instance *in = &ctx->ds->inst[ctx->slot];
  pthread_mutex_lock(&in->lock);
  return in->state;
}

void trak_ds_unlock_instance(trak_ds_ctx *ctx) {
  pthread_mutex_unlock(&ctx->ds->inst[ctx->slot].lock);
}

uint32_t trak_ds_sequence_id(const trak_ds_ctx *ctx) {
  return ctx->w->seq_id;
}
