/*
** This file holds the DRM events as Perfetto's drm tracker reads them: vblank instants per CRTC,
** the GPU scheduler's jobs (an instant on the queueing thread, a "job" slice on the ring while
** the job is the ring's first running one, a flow between the two), dma fences as slices on
** their timelines while first pending, and fence waits as slices on the waiting thread. Queued:
** every state change follows timestamp order.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/hash.h"
#include "processor/import/tracks.h"

/* A scheduler job by the ids it has (TRAK_DRM_JOB_* bits). */
typedef struct drm_job {
  uint64_t id0, id1;
  uint8_t types;
} drm_job;

/* A ring: its track, the jobs running on it in order (from `head`). */
typedef struct drm_ring {
  uint32_t track;
  size_t head;
  TRAK_VEC(drm_job) running;
} drm_ring;

/* A fence timeline: its track, its pending seqnos in order (from `head`). */
typedef struct drm_timeline {
  uint32_t track;
  uint8_t has_emit;
  size_t head;
  TRAK_VEC(uint32_t) pending;
} drm_timeline;

struct trak_fdrm {
  trak_map ring_at;     /* ring name (string id) -> index in rings + 1 */
  TRAK_VEC(drm_ring) rings;
  trak_map busy;        /* a job's global key -> the ring it runs on + 1 (0: none) */
  trak_map queued;      /* a job's local key and its ring -> its queueing's flow number (0) */
  uint32_t flows;       /* flow numbers given */
  trak_map timeline_at; /* fence context -> index in timelines + 1 */
  TRAK_VEC(drm_timeline) timelines;
};

void trak__drm_free(trak_ftrace *f) {
  struct trak_fdrm *d = f->drm;
  if (!d) return;
  for (size_t i = 0; i < d->rings.n; i++)
    trak_vec_free(d->rings.v[i].running);
  for (size_t i = 0; i < d->timelines.n; i++)
    trak_vec_free(d->timelines.v[i].pending);
  trak_vec_free(d->rings), trak_vec_free(d->timelines);
  trak__map_free(&d->ring_at), trak__map_free(&d->busy), trak__map_free(&d->queued);
  trak__map_free(&d->timeline_at);
  free(d);
  f->drm = NULL;
}

void trak__drm_event(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                     const trak_drm_ev *e) {
  trak_fq_rec r = {ts,
                   (int64_t)e->id0,
                   cpu,
                   tid,
                   (uint32_t)e->kind | (uint32_t)e->job << 8,
                   e->name,
                   (uint32_t)e->id1,
                   (int32_t)(uint32_t)(e->id1 >> 32),
                   0,
                   TRAK_FQ_DRM,
                   0,
                   0};
  trak__fq_push_seen(imp, &r);
}

/* Jobs match as Perfetto's do: by fence when both have one, else by global id (the busy
** rings), else by local id (the queueings). Keys of different id kinds never meet. */
static uint64_t global_key(const drm_job *j) {
  if (j->types & TRAK_DRM_JOB_FENCE) return trak__mix(trak__mix(1, j->id0), j->id1);
  return trak__mix(2, j->types & TRAK_DRM_JOB_GLOBAL ? j->id0 : 0);
}
static uint64_t local_key(const drm_job *j) {
  if (j->types & TRAK_DRM_JOB_FENCE) return trak__mix(trak__mix(1, j->id0), j->id1);
  return trak__mix(3, j->types & TRAK_DRM_JOB_LOCAL ? j->id1 : 0);
}

/* The flow id of flow number n (a space of its own among flow ids). */
static uint64_t flow_id(uint32_t n) {
  return trak__mix(0xd53f10e5u, n) | 1;
}

/* A string id of a C string; a slice track of `kind` keyed by (a, b), named `name`. */
static uint32_t str(trak_importer *imp, const char *s) {
  return trak__ftrace_str(imp, s);
}
static uint32_t slice_track(trak_importer *imp, trak_track_kind_id kind, uint64_t a, uint64_t b,
                            uint32_t name) {
  return trak__keyed_track(imp, trak__track_key(kind, a, b), name, TRAK_NULL_U32, 0, kind);
}

/* The ring named `name` (a string id), its track made on first use. */
static drm_ring *ring_get(trak_importer *imp, struct trak_fdrm *d, uint32_t name, uint32_t *idx) {
  int added;
  uint32_t *at = trak__map_put(&d->ring_at, name, 0, &added);
  if (!*at) {
    char buf[320];
    snprintf(buf, sizeof buf, "sched-%.256s", trak__str(&imp->tables->strings, name));
    drm_ring ring = {slice_track(imp, TRAK_TK_DRM_SCHED_RING, name, 0, str(imp, buf)), 0,
                     {NULL, 0, 0}};
    imp->tracks.info.v[ring.track].dim_key = name;
    trak_vec_push(d->rings, ring);
    at = trak__map_get(&d->ring_at, name);
    *at = (uint32_t)d->rings.n;
  }
  *idx = *at - 1;
  return &d->rings.v[*at - 1];
}

/* The args of job `j`: its fence, else its local id. */
static void job_args(trak_importer *imp, uint32_t set, const drm_job *j) {
  if (j->types & TRAK_DRM_JOB_FENCE) {
    trak__ftrace_arg_uint(imp, set, str(imp, "fence context"), j->id0);
    trak__ftrace_arg_uint(imp, set, str(imp, "fence seqno"), j->id1);
  } else {
    trak__ftrace_arg_uint(imp, set, str(imp, "gpu sched job"),
                          j->types & TRAK_DRM_JOB_LOCAL ? j->id1 : 0);
  }
}

/* Begins the slice of ring `ri`'s first running job at `ts`, the flow of its queueing into it. */
static void ring_begin(trak_importer *imp, struct trak_fdrm *d, uint32_t ri, int64_t ts) {
  drm_ring *ring = &d->rings.v[ri];
  drm_job j = ring->running.v[ring->head];
  uint32_t set = trak__ftrace_args_begin(imp);
  job_args(imp, set, &j);
  set = trak__args_share(imp, set);
  uint64_t in = 0;
  uint32_t *q = trak__map_get(&d->queued, trak__mix(local_key(&j), ri));
  if (q && *q) in = flow_id(*q), *q = 0;
  trak__ftrace_slice_flow_ev(imp, ts, TRAK_EV_BEGIN, ring->track, str(imp, "job"), 0, set, 0, in);
}

static void sched_queue(trak_importer *imp, struct trak_fdrm *d, const trak_fq_rec *r,
                        const drm_job *j) {
  uint32_t track = trak__legacy_thread_track(imp, trak__ftrace_utid(imp, r->pid));
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_str(imp, set, str(imp, "gpu sched ring"), r->s1);
  job_args(imp, set, j);
  set = trak__args_share(imp, set);
  uint32_t n = ++d->flows, ri;
  trak__ftrace_slice_flow_ev(imp, r->ts, TRAK_EV_INSTANT, track, str(imp, "drm_sched_job_queue"),
                             0, set, flow_id(n), 0);
  ring_get(imp, d, r->s1, &ri);
  int added;
  *trak__map_put(&d->queued, trak__mix(local_key(j), ri), 0, &added) = n;
}

static void sched_run(trak_importer *imp, struct trak_fdrm *d, const trak_fq_rec *r,
                      const drm_job *j) {
  uint32_t ri;
  drm_ring *ring = ring_get(imp, d, r->s1, &ri);
  trak_vec_push(ring->running, *j);
  int added;
  *trak__map_put(&d->busy, global_key(j), 0, &added) = ri + 1;
  if (ring->running.n - ring->head == 1) ring_begin(imp, d, ri, r->ts);
}

static void sched_done(trak_importer *imp, struct trak_fdrm *d, const trak_fq_rec *r,
                       const drm_job *j) {
  uint32_t *busy = trak__map_get(&d->busy, global_key(j));
  if (!busy || !*busy) return; /* no such job running: nothing, as Perfetto */
  uint32_t ri = *busy - 1;
  *busy = 0;
  drm_ring *ring = &d->rings.v[ri];
  if (ring->head < ring->running.n) ring->head++; /* the ring's first job ends, as Perfetto's */
  if (ring->head == ring->running.n) ring->head = 0, ring->running.n = 0;
  trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_END, ring->track, 0, 0, TRAK_NULL_U32);
  if (ring->running.n) ring_begin(imp, d, ri, r->ts);
}

/* The timeline of fence context `context`, made on first use named by `name` (a string id). */
static drm_timeline *timeline_get(trak_importer *imp, struct trak_fdrm *d, uint32_t context,
                                  uint32_t name) {
  int added;
  uint32_t *at = trak__map_put(&d->timeline_at, context, 0, &added);
  if (!*at) {
    char buf[320];
    snprintf(buf, sizeof buf, "fence-%.256s-%u", trak__str(&imp->tables->strings, name), context);
    drm_timeline tl = {slice_track(imp, TRAK_TK_DRM_FENCE, context, 0, str(imp, buf)), 0, 0,
                       {NULL, 0, 0}};
    imp->tracks.info.v[tl.track].dim_key = name;
    imp->tracks.info.v[tl.track].lane = context;
    trak_vec_push(d->timelines, tl);
    at = trak__map_get(&d->timeline_at, context);
    *at = (uint32_t)d->timelines.n;
  }
  return &d->timelines.v[*at - 1];
}

/* Begins the slice of the timeline's first pending fence at `ts`. */
static void fence_begin(trak_importer *imp, const drm_timeline *tl, int64_t ts) {
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_uint(imp, set, str(imp, "fence seqno"), tl->pending.v[tl->head]);
  trak__ftrace_slice_ev(imp, ts, TRAK_EV_BEGIN, tl->track, str(imp, "fence"), 0,
                        trak__args_share(imp, set));
}

static void fence_event(trak_importer *imp, struct trak_fdrm *d, const trak_fq_rec *r, int kind) {
  const char *name = trak__str(&imp->tables->strings, r->s1);
  if (!strcmp(name, "unbound")) return; /* containers of other fences: no timeline */
  uint32_t context = (uint32_t)r->x, seqno = r->s2;
  drm_timeline *tl = timeline_get(imp, d, context, r->s1);
  if (kind == TRAK_DMA_FENCE_SIGNALED) {
    if (tl->head == tl->pending.n || seqno < tl->pending.v[tl->head]) return;
    tl->head++;
    if (tl->head == tl->pending.n) tl->head = 0, tl->pending.n = 0;
    trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_END, tl->track, 0, 0, TRAK_NULL_U32);
    if (tl->pending.n) fence_begin(imp, tl, r->ts);
    return;
  }
  if (kind == TRAK_DMA_FENCE_INIT && tl->has_emit) return; /* emits are more exact */
  if (kind == TRAK_DMA_FENCE_EMIT && !tl->has_emit) { /* from now on, emits only */
    tl->has_emit = 1;
    if (tl->pending.n) {
      trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_END, tl->track, 0, 0, TRAK_NULL_U32);
      tl->head = 0, tl->pending.n = 0;
    }
  }
  trak_vec_push(tl->pending, seqno);
  if (tl->pending.n - tl->head == 1) fence_begin(imp, tl, r->ts);
}

void trak__fa_drm(trak_importer *imp, const trak_fq_rec *r) {
  struct trak_fdrm *d = trak__ftrace_part(imp, (void **)&imp->ftrace->drm, sizeof *d);
  int kind = (int)(r->a & 0xff);
  uint64_t id1 = (uint64_t)(uint32_t)r->p1 << 32 | r->s2;
  drm_job j = {(uint64_t)r->x, id1, (uint8_t)(r->a >> 8)};
  switch (kind) {
  case TRAK_DRM_VBLANK:
  case TRAK_DRM_VBLANK_DELIVERED: {
    char buf[32];
    snprintf(buf, sizeof buf, "vblank-%u", (uint32_t)r->x);
    uint32_t track = slice_track(imp, TRAK_TK_DRM_VBLANK, (uint32_t)r->x, 0, str(imp, buf));
    imp->tracks.info.v[track].lane = (uint32_t)r->x;
    uint32_t set = trak__ftrace_args_begin(imp);
    trak__ftrace_arg_uint(imp, set, str(imp, "vblank seqno"), r->s2);
    trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_INSTANT, track,
                          str(imp, kind == TRAK_DRM_VBLANK ? "signal" : "deliver"), 0,
                          trak__args_share(imp, set));
    return;
  }
  case TRAK_DRM_SCHED_QUEUE:
    sched_queue(imp, d, r, &j);
    return;
  case TRAK_DRM_SCHED_RUN:
    sched_run(imp, d, r, &j);
    return;
  case TRAK_DRM_SCHED_DONE:
    sched_done(imp, d, r, &j);
    return;
  case TRAK_DMA_FENCE_WAIT_START: {
    uint32_t track = trak__legacy_thread_track(imp, trak__ftrace_utid(imp, r->pid));
    uint32_t set = trak__ftrace_args_begin(imp);
    trak__ftrace_arg_uint(imp, set, str(imp, "fence context"), (uint32_t)r->x);
    trak__ftrace_arg_uint(imp, set, str(imp, "fence seqno"), r->s2);
    trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_BEGIN, track, str(imp, "dma_fence_wait"), 0,
                          trak__args_share(imp, set));
    return;
  }
  case TRAK_DMA_FENCE_WAIT_END:
    trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_END,
                          trak__legacy_thread_track(imp, trak__ftrace_utid(imp, r->pid)), 0, 0,
                          TRAK_NULL_U32);
    return;
  default: /* init, emit, signaled */
    fence_event(imp, d, r, kind);
    return;
  }
}
