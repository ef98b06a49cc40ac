/*
** This file holds Adreno (kgsl) GPU command batches as Perfetto reads them: a batch's retired
** event is placed at its start on the GPU, the GPU's tick count (19.2 MHz) turned into the
** trace's time through the sync event of the same timestamp (whichever comes first in the
** trace), and becomes a slice "GPU" of its GPU run time on the lanes of the context and
** priority's track "GPU <process> (Ctx=<id>, Prio=<prio>)" (type adreno_gpu_cmdbatch), the
** process the one of the thread that queued the context's last batch.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "processor/import/ftrace/ftrace_internal.h"

#define XO_HZ 19200000 /* the Adreno always-on counter's frequency */

/* A retired event waiting for its sync event, or a sync event waiting for its retired one. */
typedef struct pending_retired {
  int64_t raw_ts, flags;
  uint32_t cpu, id, prio, tid, name, set;
  uint64_t start, retire;
} pending_retired;
typedef struct sync_point {
  int64_t ts;
  uint64_t ticks;
} sync_point;

/* A set of lanes (a context and priority): each lane's track and the end of its last slice. */
typedef struct cmd_lanes {
  uint64_t key;
  TRAK_VEC(uint32_t) tracks;
  TRAK_VEC(int64_t) ends;
} cmd_lanes;

struct trak_fgpu {
  trak_map syncs;   /* the batch's timestamp -> index in sync + 1 (0: used) */
  trak_map pending; /* the batch's timestamp -> index in retired + 1 (0: placed) */
  TRAK_VEC(sync_point) sync;
  TRAK_VEC(pending_retired) retired;
  trak_map ctx_tid; /* context id -> the tid that queued its last batch (in timestamp order) */
  TRAK_VEC(cmd_lanes) sets;
};

static struct trak_fgpu *gpu_get(trak_importer *imp) {
  return trak__ftrace_part(imp, (void **)&trak__ftrace_get(imp)->gpu, sizeof(struct trak_fgpu));
}

void trak__gpu_cmdbatch_free(trak_ftrace *f) {
  struct trak_fgpu *g = f->gpu;
  if (!g) return;
  trak__map_free(&g->syncs), trak__map_free(&g->pending), trak__map_free(&g->ctx_tid);
  trak_vec_free(g->sync), trak_vec_free(g->retired);
  for (size_t i = 0; i < g->sets.n; i++)
    trak_vec_free(g->sets.v[i].tracks), trak_vec_free(g->sets.v[i].ends);
  trak_vec_free(g->sets);
  free(g);
  f->gpu = NULL;
}

void trak__cmdbatch_queued(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, uint32_t id) {
  trak_fq_rec r = {ts, 0, cpu, tid, 0, id, 0, 0, 0, TRAK_FQ_CMDBATCH, 0, 0};
  trak__fq_push_seen(imp, &r);
}

/* Sets *ns to `base` plus the ticks from `from` to `to` in ns; returns 0 when that is outside
** int64 (the ticks are the trace's own, possibly hostile, numbers). */
static int xo_ns(int64_t base, uint64_t from, uint64_t to, int64_t *ns) {
  __int128 v = (__int128)base + (__int128)(int64_t)(to - from) * 1000000000 / XO_HZ;
  *ns = (int64_t)v;
  return v >= INT64_MIN && v <= INT64_MAX;
}

/* Queues the retired batch `p` at its GPU start, on its CPU's queue; one whose start or end is
** past int64's ns counts a stat and makes no slice. */
static void retired_push(trak_importer *imp, const pending_retired *p, const sync_point *sync) {
  int64_t start, dur = -1, end;
  if (!xo_ns(sync->ts, sync->ticks, p->start, &start) ||
      (p->retire >= p->start && (!xo_ns(0, p->start, p->retire, &dur) || dur < 0 ||
                                 __builtin_add_overflow(start, dur, &end)))) {
    trak__report(imp, TRAK_STAT_FTRACE_BUNDLE_TOKENIZER_ERRORS,
                 "kgsl_adreno_cmdbatch_retired id %u: GPU ticks %" PRIu64 "..%" PRIu64
                 " are out of the trace's time range", p->id, p->start, p->retire);
    return;
  }
  trak_fq_rec r = {start, dur, p->cpu, 0, 1, p->id, p->prio, 0, 0, TRAK_FQ_CMDBATCH, 0, 0};
  trak__fq_push_to(imp, trak__fq_cpu_queue(imp, TRAK_FQS_FTRACE, p->cpu), &r);
}

void trak__cmdbatch_sync(trak_importer *imp, int64_t ts, uint32_t timestamp, uint64_t ticks) {
  struct trak_fgpu *g = gpu_get(imp);
  sync_point sync = {ts, ticks};
  uint32_t *pend = trak__map_get(&g->pending, timestamp);
  if (pend && *pend) { /* its retired event came first: placed now */
    const pending_retired *p = &g->retired.v[*pend - 1];
    /* Perfetto's tokenizer pushes the event's raw copy again then: a second ftrace_event row,
    ** on the retired event's CPU */
    int64_t cpu = imp->ftrace->bundle_cpu;
    trak__ftrace_bundle_cpu(imp, p->cpu);
    trak__ftrace_generic(imp, p->cpu, p->raw_ts, p->tid, p->name, p->flags, p->set, 0);
    trak__ftrace_bundle_cpu(imp, cpu);
    retired_push(imp, p, &sync);
    *pend = 0;
    return;
  }
  int added;
  trak_vec_push(g->sync, sync);
  *trak__map_put(&g->syncs, timestamp, 0, &added) = (uint32_t)g->sync.n;
}

void trak__cmdbatch_retired(trak_importer *imp, uint32_t cpu, int64_t ts, const trak_fraw *raw,
                            uint32_t timestamp, uint32_t id, uint32_t prio, uint64_t start,
                            uint64_t retire) {
  struct trak_fgpu *g = gpu_get(imp);
  pending_retired p = {ts, raw->flags, cpu, id, prio, raw->tid, raw->name, raw->set, start, retire};
  uint32_t *sync = trak__map_get(&g->syncs, timestamp);
  if (sync && *sync) {
    retired_push(imp, &p, &g->sync.v[*sync - 1]);
    *sync = 0;
    return;
  }
  int added;
  trak_vec_push(g->retired, p);
  *trak__map_put(&g->pending, timestamp, 0, &added) = (uint32_t)g->retired.n;
}

/* The lane of the set of (`id`, `prio`) free at `ts` (its last slice ended), made when none
** is, the slice to end at `end`: its track, named `name` (the set's tracks take the name of
** the last batch that knew its process). */
static uint32_t lane_track(trak_importer *imp, uint32_t id, uint32_t prio, int64_t ts, int64_t end,
                           uint32_t name, int named) {
  struct trak_fgpu *g = gpu_get(imp);
  uint64_t key = (uint64_t)id << 32 | prio;
  cmd_lanes *set = NULL;
  for (size_t i = 0; i < g->sets.n && !set; i++)
    if (g->sets.v[i].key == key) set = &g->sets.v[i];
  if (!set) {
    cmd_lanes fresh = {key, {NULL, 0, 0}, {NULL, 0, 0}};
    trak_vec_push(g->sets, fresh);
    set = &g->sets.v[g->sets.n - 1];
  }
  size_t l = 0;
  while (l < set->ends.n && set->ends.v[l] > ts)
    l++;
  if (l == set->ends.n) {
    uint64_t tk = trak__track_key(TRAK_TK_ADRENO_GPU_CMDBATCH, key, l);
    uint32_t track = trak__keyed_track(imp, tk, name, TRAK_NULL_U32, 0, TRAK_TK_ADRENO_GPU_CMDBATCH);
    imp->tracks.info.v[track].lane = (uint32_t)l;
    trak_vec_push(set->tracks, track);
    trak_vec_push(set->ends, end);
  }
  set->ends.v[l] = end;
  if (named) imp->tracks.info.v[set->tracks.v[l]].name = name;
  return set->tracks.v[l];
}

void trak__fa_cmdbatch(trak_importer *imp, const trak_fq_rec *r) {
  struct trak_fgpu *g = gpu_get(imp);
  int added;
  if (r->a == 0) {
    *trak__map_put(&g->ctx_tid, r->s1, 0, &added) = r->pid;
    return;
  }
  if (r->x < 0) return; /* retired before it started: no slice, as Perfetto */
  trak_tables *t = imp->tables;
  uint32_t pname = 0;
  uint32_t *tid = trak__map_get(&g->ctx_tid, r->s1);
  if (tid) {
    uint32_t upid = t->thread.upid[trak__ftrace_utid(imp, *tid)];
    if (upid != TRAK_NULL_U32) pname = t->process.name[upid];
  }
  char buf[320];
  if (pname)
    snprintf(buf, sizeof buf, "GPU %.200s (Ctx=%u, Prio=%u)", trak__str(&t->strings, pname),
             r->s1, r->s2);
  else
    snprintf(buf, sizeof buf, "GPU (Ctx=%u, Prio=%u)", r->s1, r->s2);
  uint32_t name = trak__ftrace_str(imp, buf);
  uint32_t track = lane_track(imp, r->s1, r->s2, r->ts, r->ts + r->x, name, pname != 0);
  trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_BEGIN, track, trak__ftrace_str(imp, "GPU"), 0,
                        TRAK_NULL_U32);
  trak__ftrace_slice_ev(imp, r->ts + r->x, TRAK_EV_END, track, 0, 0, TRAK_NULL_U32);
}
