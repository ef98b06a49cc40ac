/*
** This file holds the Linux event sink's queues: the sink's entry points record each event as a
** 48-byte record, kept in 32 bytes when it fits (fq_slot.h), in one queue per stream of
** Perfetto's sorter (per CPU and kind of event), while the trace is tokenized, and
** trak__ftrace_finish merges them in timestamp order, ties as Perfetto's sorter breaks them,
** into the trackers of this folder. It also owns imp->ftrace and the cpu table.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "processor/import/ftrace/fq_slot.h"
#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/tables/prefault.h"
#include "processor/util/block_pool.h"

_Static_assert(sizeof(trak_fq_rec) * TRAK_FQ_BLOCK == TRAK_FQ_BLOCK_BYTES, "wide blocks are full");
_Static_assert(sizeof(trak_fq_slot) * TRAK_FQ_NARROW_BLOCK == TRAK_FQ_BLOCK_BYTES,
               "narrow blocks are full");

trak_ftrace *trak__ftrace_get(trak_importer *imp) {
  if (TRAK_LIKELY(imp->ftrace != NULL)) return imp->ftrace;
  imp->ftrace = calloc(1, sizeof *imp->ftrace);
  if (!imp->ftrace) abort();
  imp->ftrace->drop_before = imp->ftrace->soft_drop_before = INT64_MIN;
  imp->ftrace->bundle_cpu = -1;
  const char *records = getenv("TRAK_FTRACE_COMPACT_RECORDS"); /* the tests' other path */
  imp->ftrace->compact_records = records && *records && strcmp(records, "0");
  const char *wide = getenv("TRAK_FTRACE_WIDE_QUEUES"); /* the tests' path without slots */
  imp->ftrace->wide_queues = wide && *wide && strcmp(wide, "0");
  const char *sets = getenv("TRAK_FTRACE_SCHED_SETS"); /* the tests' path without sched_sets.c */
  imp->ftrace->sched_sets_off = sets && !strcmp(sets, "0");
  return imp->ftrace;
}

/* Makes the next queue. */
static uint32_t queue_add(trak_ftrace *f) {
  trak_fqueue q = {{NULL, 0, 0}, 0, INT64_MIN, 0, 0, f->wide_queues, {NULL, 0, 0}};
  trak_vec_push(f->queues, q);
  return (uint32_t)(f->queues.n - 1);
}

uint32_t trak__fq_cpu_queue(trak_importer *imp, enum trak_fq_source source, uint32_t cpu) {
  trak_ftrace *f = trak__ftrace_get(imp);
  if (cpu >= 4096) cpu = 4095; /* as the trackers cap it: no 4-billion-queue trace */
  if (TRAK_LIKELY(cpu < f->by_cpu[source].n)) return f->by_cpu[source].v[cpu];
  while (f->queues.n < 2)
    queue_add(f); /* TRAK_FQ_PACKETS, TRAK_FQ_TEXT */
  while (f->by_cpu[source].n <= cpu)
    trak_vec_push(f->by_cpu[source], queue_add(f));
  return f->by_cpu[source].v[cpu];
}

#define POOL_READY 8 /* blocks the pool keeps mapped ahead (1.5 MiB) */

/* The block pool, its own thread started (when two threads are the import's policy) once a
** queue needs its second block, while tokenizing only; NULL: none. */
static struct trak_block_pool *pool(trak_ftrace *f) {
  if (TRAK_LIKELY(f->pool || f->pool_tried || f->applying)) return f->pool;
  f->pool_tried = 1;
  if (trak__import_threads(0) < 2) return NULL;
  f->pool = trak__block_pool_new(TRAK_FQ_BLOCK_BYTES, POOL_READY, 0);
  if (f->pool && trak__block_pool_run(f->pool)) {
    trak__block_pool_free(f->pool);
    f->pool = NULL;
  }
  return f->pool;
}

/* q's next block (q->n records fill the ones it has), pushed on q->blocks. From a queue's
** second block on, every page is present at once (MAP_POPULATE): one trip into the kernel per
** block, not a page fault per 4 KiB page (on a virtual machine, a third of the import's time
** was the queue's faults), made by the pool's thread when there is one and it has a block
** ready. A first block faults page by page, so a trace of many CPUs with few events each holds
** no 192 KiB per queue. Can't fail (out of memory aborts). */
__attribute__((noinline, cold)) static void block_add(trak_ftrace *f, trak_fqueue *q) {
  void *b = q->n ? trak__block_pool_take(pool(f)) : NULL;
  if (!b)
    b = mmap(NULL, TRAK_FQ_BLOCK_BYTES, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | (q->n ? MAP_POPULATE : 0), -1, 0);
  if (b == MAP_FAILED) abort();
  trak_vec_push(q->blocks, b);
}

/* Where the bytes of q's record i are (a trak_fq_rec in a wide queue, else a trak_fq_slot). */
static void *rec_mem(const trak_fqueue *q, size_t i) {
  if (q->wide) return (trak_fq_rec *)q->blocks.v[i / TRAK_FQ_BLOCK] + i % TRAK_FQ_BLOCK;
  return (trak_fq_slot *)q->blocks.v[i / TRAK_FQ_NARROW_BLOCK] + i % TRAK_FQ_NARROW_BLOCK;
}

/* Whether q's record i is the first of a block. */
static int block_starts(const trak_fqueue *q, size_t i) {
  return q->wide ? i % TRAK_FQ_BLOCK == 0 : i % TRAK_FQ_NARROW_BLOCK == 0;
}

/* Q's record i: in its block (wide), in q->spill, or unpacked into *buf (valid while buf is). */
static const trak_fq_rec *rec_get(const trak_fqueue *q, size_t i, trak_fq_rec *buf) {
  if (q->wide) return rec_mem(q, i);
  const trak_fq_slot *s = rec_mem(q, i);
  if (s->type == TRAK_FQ_SLOT_SPILL) return &q->spill.v[s->a];
  trak__fq_slot_unpack(buf, s);
  return buf;
}

/* The timestamp of q's record i (a slot's, spilled or not, is its record's). */
static int64_t ts_at(const trak_fqueue *q, size_t i) {
  return *(const int64_t *)rec_mem(q, i); /* the first field of both forms */
}

static void block_unmap(trak_fqueue *q, size_t b);
static void rec_append(trak_ftrace *f, trak_fqueue *q, const trak_fq_rec *r);

/* Gives back q's blocks and spilled records. */
static void queue_release(trak_fqueue *q) {
  for (size_t b = 0; b < q->blocks.n; b++)
    block_unmap(q, b);
  trak_vec_free(q->blocks);
  trak_vec_free(q->spill);
}

/* Appends record r, which fits no slot, to narrow queue q: kept whole in q->spill while such
** records are at most an eighth of the queue (and a few); past that the queue is rewritten wide,
** once, and r appended to it. */
__attribute__((noinline, cold)) static void rec_spill(trak_ftrace *f, trak_fqueue *q,
                                                      const trak_fq_rec *r) {
  if ((q->spill.n + 1) * 8 <= q->n + 64 && q->spill.n < UINT32_MAX) {
    trak_fq_slot *s = rec_mem(q, q->n);
    memset(s, 0, sizeof *s);
    s->ts = r->ts;
    s->type = TRAK_FQ_SLOT_SPILL;
    s->a = (uint32_t)q->spill.n;
    trak_vec_push(q->spill, *r);
    q->n++;
    return;
  }
  trak_fqueue w = *q;
  memset(&w.blocks, 0, sizeof w.blocks);
  memset(&w.spill, 0, sizeof w.spill);
  w.n = 0, w.wide = 1;
  for (size_t i = 0; i < q->n; i++) {
    trak_fq_rec buf;
    rec_append(f, &w, rec_get(q, i, &buf));
  }
  rec_append(f, &w, r);
  queue_release(q);
  *q = w;
}

/* Appends record r to q's blocks. */
static void rec_append(trak_ftrace *f, trak_fqueue *q, const trak_fq_rec *r) {
  if (block_starts(q, q->n)) block_add(f, q);
  if (q->wide) {
    *(trak_fq_rec *)rec_mem(q, q->n) = *r;
  } else if (TRAK_LIKELY(trak__fq_slot_fits(r))) {
    trak__fq_slot_pack(rec_mem(q, q->n), r);
  } else {
    rec_spill(f, q, r);
    return;
  }
  q->n++;
}

/* Queue `qi`, made (with the ones before it) on first use. */
static trak_fqueue *queue_at(trak_ftrace *f, uint32_t qi) {
  while (f->queues.n <= qi)
    queue_add(f);
  return &f->queues.v[qi];
}

void trak__fq_push_to(trak_importer *imp, uint32_t qi, const trak_fq_rec *r) {
  trak_ftrace *f = trak__ftrace_get(imp);
  trak_fqueue *q = queue_at(f, qi);
  if (r->ts < q->last_ts) q->unsorted = 1;
  q->last_ts = r->ts;
  rec_append(f, q, r);
  f->n_queued++;
  f->n_type[r->type & 31]++;
  imp->n_events++; /* a trace of kernel data only is not empty */
}

void trak__fq_push_run(trak_importer *imp, uint32_t qi, const trak_fq_rec *run, uint8_t type,
                       int sorted) {
  trak_ftrace *f = trak__ftrace_get(imp);
  trak_fqueue *q = queue_at(f, qi);
  if (run->ts < q->last_ts || !sorted) q->unsorted = 1;
  q->last_ts = run->x;
  q->has_runs = 1;
  rec_append(f, q, run);
  f->n_queued += run->a;
  f->n_type[type & 15] += run->a;
  imp->n_events += run->a;
}

void trak__fq_push(trak_importer *imp, const trak_fq_rec *r) {
  trak_ftrace *f = trak__ftrace_get(imp);
  uint32_t qi = f->bundle_cpu < 0
                    ? TRAK_FQ_TEXT
                    : trak__fq_cpu_queue(imp, TRAK_FQS_FTRACE, (uint32_t)f->bundle_cpu);
  trak__fq_push_to(imp, qi, r);
}

void trak__fq_push_seen(trak_importer *imp, const trak_fq_rec *r) {
  trak__ftrace_cpu_seen(imp, r->cpu);
  trak__fq_push(imp, r);
}

void *trak__ftrace_part(trak_importer *imp, void **slot, size_t size) {
  (void)trak__ftrace_get(imp);
  if (!*slot) {
    *slot = calloc(1, size);
    if (!*slot) abort();
  }
  return *slot;
}

void trak__ftrace_bundle_cpu(trak_importer *imp, int64_t cpu) {
  trak__ftrace_get(imp)->bundle_cpu = cpu < 0 ? -1 : cpu;
}

trak_sequence *trak__ftrace_seq(trak_importer *imp) {
  trak_ftrace *f = trak__ftrace_get(imp);
  if (TRAK_LIKELY(f->seq != NULL)) return f->seq;
  trak_sequence *seq = calloc(1, sizeof *seq);
  if (!seq) abort();
  seq->id = UINT32_MAX;
  seq->kernel = 1;
  seq->first_packet_index = imp->packet_index;
  seq->thread_track = TRAK_NULL_U32;
  seq->last_ts = INT64_MIN;
  seq->last_track = TRAK_NULL_U32;
  seq->state_valid = 1;
  trak_vec_push(imp->seqs.all, seq); /* freed with the sequences */
  return f->seq = seq;
}

/* The packet index of a record for the parse phase: while the queue is applied, the number of
** the event that made it past the packets' (see trak_ftrace.pkt_base). */
static uint32_t ev_pkt(const trak_importer *imp) {
  const trak_ftrace *f = imp->ftrace;
  return f->applying ? f->pkt_base + f->rec_ord : (uint32_t)imp->packet_index;
}

void trak__ftrace_ev(trak_importer *imp, int64_t ts, uint32_t type, uint32_t track, uint32_t name,
                     double value) {
  trak_ev ev = {ts, type << TRAK_EV_TYPE_SHIFT | track, ev_pkt(imp), {{0, 0}}, TRAK_NULL_U32, 0};
  if (type == TRAK_EV_COUNTER)
    ev.u.value = value;
  else
    ev.u.s.name = name;
  trak__sequence_push(imp, trak__ftrace_seq(imp), &ev);
}

void trak__ftrace_track_made(trak_importer *imp, uint32_t track, int64_t ts) {
  /* a record of no slice and no counter: the parse phase makes its track a row, nothing else */
  trak__ftrace_ev(imp, ts, TRAK_EV_EXTRA_ONLY, track, 0, 0);
}

void trak__ftrace_counter_ev(trak_importer *imp, int64_t ts, uint32_t track, double value,
                             uint32_t set) {
  trak_ev ev = {
      ts, (uint32_t)TRAK_EV_COUNTER << TRAK_EV_TYPE_SHIFT | track, ev_pkt(imp), {{0, 0}}, set, 0};
  ev.u.value = value;
  trak__sequence_push(imp, trak__ftrace_seq(imp), &ev);
}

void trak__ftrace_slice_ev(trak_importer *imp, int64_t ts, uint32_t type, uint32_t track,
                           uint32_t name, uint32_t cat, uint32_t set) {
  trak__ftrace_slice_flow_ev(imp, ts, type, track, name, cat, set, 0, 0);
}

void trak__ftrace_slice_flow_ev(trak_importer *imp, int64_t ts, uint32_t type, uint32_t track,
                                uint32_t name, uint32_t cat, uint32_t set, uint64_t out,
                                uint64_t in) {
  uint32_t aux = 0;
  if (out || in) { /* a block of flow ids then terminating ids (sequence.h) */
    aux = (uint32_t)imp->aux.n;
    trak_vec_push(imp->aux, (uint64_t)(out != 0));
    trak_vec_push(imp->aux, (uint64_t)(in != 0) | TRAK_AUX_SLICE_FLOW);
    trak_vec_push(imp->aux, 0);
    if (out) trak_vec_push(imp->aux, out);
    if (in) trak_vec_push(imp->aux, in);
  }
  trak_ev ev = {ts, type << TRAK_EV_TYPE_SHIFT | track, ev_pkt(imp), {{name, cat}}, set, aux};
  trak__sequence_push(imp, trak__ftrace_seq(imp), &ev);
}

uint32_t trak__ftrace_ucpu(const trak_importer *imp, uint32_t cpu) {
  return imp->threads.machine * 4096u + (cpu < 4096 ? cpu : 4095);
}

void trak__ftrace_cpu_seen(trak_importer *imp, uint32_t cpu) {
  trak_ftrace *f = trak__ftrace_get(imp);
  uint32_t ucpu = trak__ftrace_ucpu(imp, cpu);
  if (TRAK_LIKELY(ucpu < f->cpu_seen.n && f->cpu_seen.v[ucpu])) return;
  while (f->cpu_seen.n <= ucpu)
    trak_vec_push(f->cpu_seen, 0);
  f->cpu_seen.v[ucpu] = 1;
}

static void flags_set(trak_fq_rec *r, int64_t common_flags) {
  if (common_flags < 0) return;
  r->has_flags = 1;
  r->flags = (uint16_t)common_flags;
}

void trak__sched_switch(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t common_flags,
                        uint32_t prev_pid, uint32_t prev_comm, int32_t prev_prio,
                        int64_t prev_state, uint32_t next_pid, uint32_t next_comm,
                        int32_t next_prio) {
  trak_fq_rec r = {ts,        prev_state, cpu,       prev_pid,       next_pid, prev_comm,
                   next_comm, prev_prio,  next_prio, TRAK_FQ_SWITCH, 0,        0};
  flags_set(&r, common_flags);
  trak__ftrace_cpu_seen(imp, cpu);
  trak__fq_push(imp, &r);
}

void trak__sched_switch_compact(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t prev_state,
                                uint32_t next_pid, uint32_t next_comm, int32_t next_prio) {
  trak_fq_rec r = trak__fq_switch_compact_rec(cpu, ts, prev_state, next_pid, next_comm, next_prio);
  trak__ftrace_cpu_seen(imp, cpu);
  trak__fq_push_to(imp, trak__fq_cpu_queue(imp, TRAK_FQS_COMPACT_SWITCH, cpu), &r);
}

void trak__sched_waking_compact(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t common_flags,
                                uint32_t pid, uint32_t comm, int32_t prio, uint32_t target_cpu) {
  trak_fq_rec r = trak__fq_waking_compact_rec(cpu, ts, common_flags, pid, comm, prio, target_cpu);
  trak__ftrace_cpu_seen(imp, cpu);
  trak__fq_push_to(imp, trak__fq_cpu_queue(imp, TRAK_FQS_COMPACT_WAKING, cpu), &r);
}

void trak__sched_waking(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t common_flags,
                        uint32_t waker_tid, uint32_t pid, uint32_t comm, int32_t prio,
                        uint32_t target_cpu, uint32_t name) {
  trak_fq_rec r = {
      ts, 0, cpu, waker_tid, pid, comm, name, prio, (int32_t)target_cpu, TRAK_FQ_WAKING, 0, 0};
  flags_set(&r, common_flags);
  trak__ftrace_cpu_seen(imp, cpu);
  trak__fq_push(imp, &r);
}

void trak__sched_waking_raw(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t common_flags,
                            uint32_t waker_tid, uint32_t pid, uint32_t comm, int32_t prio,
                            uint32_t target_cpu, uint32_t name, uint32_t set, uint32_t ksyms) {
  trak_fq_rec r = {ts,
                   (int64_t)((uint64_t)ksyms << 32 | set),
                   cpu,
                   waker_tid,
                   pid,
                   comm,
                   name,
                   prio,
                   (int32_t)target_cpu,
                   TRAK_FQ_WAKING_RAW,
                   0,
                   0};
  flags_set(&r, common_flags);
  trak__ftrace_cpu_seen(imp, cpu);
  trak__fq_push(imp, &r);
  /* counted as the two records it stands for (the tables reserve a row for each) */
  trak_ftrace *f = imp->ftrace;
  f->n_type[TRAK_FQ_WAKING_RAW]--, f->n_type[TRAK_FQ_GENERIC]++, f->n_type[TRAK_FQ_WAKING]++;
  f->n_queued++, imp->n_events++;
}

/* Applies a WAKING_RAW record as the two records it stands for. */
static void waking_raw_apply(trak_importer *imp, const trak_fq_rec *r) {
  trak_fq_rec g = {r->ts,
                   0,
                   r->cpu,
                   r->pid,
                   (uint32_t)((uint64_t)r->x >> 32),
                   r->s2,
                   (uint32_t)r->x,
                   0,
                   0,
                   TRAK_FQ_GENERIC,
                   r->has_flags,
                   r->flags};
  trak_fq_rec w = *r;
  w.x = 0, w.s2 = 0, w.type = TRAK_FQ_WAKING;
  trak__fq_apply(imp, &g);
  trak__fq_apply(imp, &w);
}

void trak__sched_blocked_reason(trak_importer *imp, int64_t ts, uint32_t pid, int64_t io_wait,
                                uint32_t caller) {
  trak_fq_rec r = {ts, io_wait, 0, 0, pid, caller, 0, 0, 0, TRAK_FQ_BLOCKED_REASON, 0, 0};
  trak__fq_push(imp, &r);
}

void trak__task_newtask(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t source_tid,
                        uint32_t pid, uint32_t comm, uint64_t clone_flags) {
  trak_fq_rec r = {ts, (int64_t)clone_flags, cpu, source_tid, pid, comm, 0, 0,
                   0,  TRAK_FQ_NEWTASK,      0,   0};
  trak__fq_push(imp, &r);
}

void trak__task_rename(trak_importer *imp, int64_t ts, uint32_t pid, uint32_t comm) {
  trak_fq_rec r = {ts, 0, 0, 0, pid, comm, 0, 0, 0, TRAK_FQ_RENAME, 0, 0};
  trak__fq_push(imp, &r);
}

void trak__process_free(trak_importer *imp, int64_t ts, uint32_t pid) {
  trak_fq_rec r = {ts, 0, 0, 0, pid, 0, 0, 0, 0, TRAK_FQ_FREE, 0, 0};
  trak__fq_push(imp, &r);
}

void trak__ftrace_thread_name(trak_importer *imp, int64_t ts, uint32_t tid, int64_t tgid,
                              uint32_t comm) {
  trak_fq_rec r = {ts, tgid, 0, 0, tid, comm, 0, 0, 0, TRAK_FQ_THREAD_NAME, 0, 0};
  trak__fq_push(imp, &r);
}

void trak__ftrace_generic(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, uint32_t name,
                          int64_t common_flags, uint32_t set, uint32_t ksyms) {
  trak_fq_rec r = {ts, 0, cpu, tid, ksyms, name, set, 0, 0, TRAK_FQ_GENERIC, 0, 0};
  flags_set(&r, common_flags);
  trak__ftrace_cpu_seen(imp, cpu);
  trak__fq_push(imp, &r);
}

/* ---- applying the queue ----------------------------------------------------------------- */

typedef struct order_key {
  int64_t ts;
  uint64_t i;
} order_key;

static int order_cmp(const void *pa, const void *pb) {
  const order_key *a = pa, *b = pb;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return a->i < b->i ? -1 : a->i > b->i;
}

/* The applier of each record type. */
static void (*const appliers[])(trak_importer *, const trak_fq_rec *) = {
    [TRAK_FQ_SWITCH] = trak__fa_switch,
    [TRAK_FQ_WAKING] = trak__fa_waking,
    [TRAK_FQ_BLOCKED_REASON] = trak__fa_blocked_reason,
    [TRAK_FQ_NEWTASK] = trak__fa_newtask,
    [TRAK_FQ_RENAME] = trak__fa_rename,
    [TRAK_FQ_FREE] = trak__fa_free,
    [TRAK_FQ_THREAD_NAME] = trak__fa_thread_name,
    [TRAK_FQ_GENERIC] = trak__fa_generic,
    [TRAK_FQ_SWITCH_COMPACT] = trak__fa_switch_compact,
    [TRAK_FQ_WAKING_COMPACT] = trak__fa_waking_compact,
    [TRAK_FQ_PROCESS_TREE] = trak__fa_process_tree,
    [TRAK_FQ_MARKER] = trak__fa_marker,
    [TRAK_FQ_SUSPEND_RESUME] = trak__fa_suspend_resume,
    [TRAK_FQ_PROC_COUNTER] = trak__fa_proc_counter,
    [TRAK_FQ_THREAD_SLICE] = trak__fa_thread_slice,
    [TRAK_FQ_SYSCALL] = trak__fa_syscall,
    [TRAK_FQ_KERNEL_TE] = trak__fa_kernel_te,
    [TRAK_FQ_GK_STATE] = trak__fa_gk_state,
    [TRAK_FQ_GK_RENAME] = trak__fa_gk_rename,
    [TRAK_FQ_JSON_STATE] = trak__fa_json_state,
    [TRAK_FQ_MEM] = trak__fa_mem,
    [TRAK_FQ_CMDBATCH] = trak__fa_cmdbatch,
    [TRAK_FQ_NET] = trak__fa_net,
    [TRAK_FQ_FS] = trak__fa_fs,
    [TRAK_FQ_VIRTGPU] = trak__fa_virtgpu,
    [TRAK_FQ_WAKESOURCE] = trak__fa_wakesource,
    [TRAK_FQ_DRM] = trak__fa_drm,
    [TRAK_FQ_V4L2] = trak__fa_v4l2,
    [TRAK_FQ_VIRTIO_VIDEO] = trak__fa_virtio_video,
    [TRAK_FQ_GPU_MEM] = trak__fa_gpu_mem,
};

void trak__fq_apply(trak_importer *imp, const trak_fq_rec *r) {
  if (r->type == TRAK_FQ_WAKING_RAW) {
    waking_raw_apply(imp, r);
    return;
  }
  if (TRAK_UNLIKELY(r->ts < imp->ftrace->soft_drop_before) && trak__ftrace_crop(imp, r)) return;
  /* Names of one priority are ordered by time, as Perfetto's sorter applies them: a rename
  ** before a process tree's scan does not override the scan's name. */
  imp->descriptor_ts = r->ts;
  /* where this event's sets fall among the parse's at its time (trak__arg_order_ord) */
  trak__arg_order_ord(&imp->args, ++imp->ftrace->rec_ord);
  appliers[r->type](imp, r); /* types are the sink's own: always in the table */
}

/* Gives block `b` of q back to the system (once). */
static void block_unmap(trak_fqueue *q, size_t b) {
  if (!q->blocks.v[b]) return;
  munmap(q->blocks.v[b], TRAK_FQ_BLOCK_BYTES);
  q->blocks.v[b] = NULL;
}

static void queues_free(trak_ftrace *f) {
  for (size_t i = 0; i < f->queues.n; i++)
    queue_release(&f->queues.v[i]);
  trak_vec_free(f->queues);
  for (int k = 0; k < TRAK_FQS_KINDS; k++)
    trak_vec_free(f->by_cpu[k]);
}

/* The cpu table: a row per ucpu up to the largest seen, `cpu` set on those seen. */
static void cpu_rows(trak_importer *imp) {
  trak_ftrace *f = imp->ftrace;
  trak_tables *t = imp->tables;
  for (uint32_t u = 0; u < f->cpu_seen.n; u++) {
    uint32_t row = trak__cpu_push(t);
    t->cpu.machine_id[row] = u / 4096;
    if (f->cpu_seen.v[u]) t->cpu.cpu[row] = u % 4096;
    if (u < f->cpu_info.n) { /* a CpuInfo packet's */
      t->cpu.processor[row] = f->cpu_info.v[u].processor;
      t->cpu.cluster_id[row] = f->cpu_info.v[u].cluster_id;
      t->cpu.capacity[row] = f->cpu_info.v[u].capacity;
      t->cpu.arg_set_id[row] = f->cpu_info.v[u].arg_set_id;
    }
  }
}

/* The kernel version of the trace's system info (the host's utsname release), for the layout of
** prev_state bits; 0.0 when unknown. */
static void kernel_version(trak_importer *imp, trak_ftrace *f) {
  const char *rel = trak__str(&imp->tables->strings, imp->tables->machine.release[0]);
  int major = 0, minor = 0;
  if (rel && sscanf(rel, "%d.%d", &major, &minor) == 2 && major > 0)
    f->kernel_major = major, f->kernel_minor = minor;
}

/* A queue being merged: its records in timestamp order (through `order` when they did not come
** so; ties in the order they came) from `pos`. */
typedef struct merge_src {
  int64_t ts; /* the timestamp of src_front's record */
  trak_fqueue *q;
  uint32_t *order; /* NULL: the records are in order */
  size_t pos, n;
  trak_frun *run;           /* the run record at pos being read, event by event; NULL: none */
  const trak_fq_rec *front; /* the record at pos when not in `buf` (a run's: its `at`) */
  trak_fq_rec buf;          /* the record at pos unpacked from its slot */
} merge_src;

static const trak_fq_rec *src_front(const merge_src *m) {
  return m->front ? m->front : &m->buf;
}

/* Reads m's record at pos (when there is one); when it is a run, starts reading its events (a
** queue with runs is in order: see queue_expand). */
static void src_enter(trak_importer *imp, merge_src *m) {
  if (m->pos >= m->n) return;
  const trak_fq_rec *r = rec_get(m->q, m->order ? m->order[m->pos] : m->pos, &m->buf);
  m->front = r == &m->buf ? NULL : r; /* m moves in the merge's array: no pointer into it */
  if (!m->order && r->type == TRAK_FQ_COMPACT_RUN) {
    m->run = trak__frun_open(imp, r);
    m->front = m->run->at;
  }
  m->ts = src_front(m)->ts;
}

/* The order of queue `q`'s records by timestamp, ties in the order they came (a stable sort). */
static uint32_t *queue_order(const trak_fqueue *q) {
  order_key *keys = malloc(q->n * sizeof *keys);
  uint32_t *order = malloc(q->n * sizeof *order);
  if (!keys || !order) abort();
  for (size_t i = 0; i < q->n; i++)
    keys[i] = (order_key){ts_at(q, i), i};
  qsort(keys, q->n, sizeof *keys, order_cmp);
  for (size_t i = 0; i < q->n; i++)
    order[i] = (uint32_t)keys[i].i;
  free(keys);
  return order;
}

/* Moves m past the record just applied; a queue applied in order gives each block it has
** finished back to the system, or to the merge thread's spares (f->spares) to become table
** memory, so the queue shrinks as the tables grow. */
static void src_next(trak_importer *imp, merge_src *m) {
  if (m->run) {
    if (trak__frun_next(imp, m->run)) {
      m->front = m->run->at;
      m->ts = m->front->ts;
      return;
    }
    m->run = NULL;
  }
  m->pos++;
  /* The records were written long ago: ask for the ones a few ahead now (a hint). */
  if (!m->order && m->pos + 4 < m->n) __builtin_prefetch(rec_mem(m->q, m->pos + 4));
  if (!m->order && block_starts(m->q, m->pos)) {
    size_t b = (m->q->wide ? m->pos / TRAK_FQ_BLOCK : m->pos / TRAK_FQ_NARROW_BLOCK) - 1;
    trak__spares_give(imp->ftrace->spares, m->q->blocks.v[b], TRAK_FQ_BLOCK_BYTES);
    m->q->blocks.v[b] = NULL;
  }
  src_enter(imp, m);
}

/* A queue with runs whose records are not in timestamp order gets every event of its runs as
** a record of its own, in the order they came, for the sort (rare: runs go back in time only
** in a malformed or concatenated trace). */
static void queue_expand(trak_importer *imp, trak_fqueue *q) {
  trak_fqueue out = {{NULL, 0, 0}, 0, INT64_MIN, 1, 0, q->wide, {NULL, 0, 0}};
  merge_src m = {0, q, NULL, 0, q->n, NULL, NULL, {0}};
  src_enter(imp, &m);
  while (m.pos < m.n) {
    rec_append(imp->ftrace, &out, src_front(&m));
    src_next(imp, &m);
  }
  queue_release(q);
  *q = out;
}

/* The merge of the queues (trak__fmerge_*): every queue's records in the order Perfetto's sorter
** extracts them. */
struct trak_fmerge {
  merge_src *src; /* the queues with records left, in the order they were made */
  size_t live;
  merge_src *cur; /* the queue of the record last returned, NULL: pick one */
  int64_t until;  /* cur gives its records up to this timestamp (the next of any other queue) */
};

trak_fmerge *trak__fmerge_open(trak_importer *imp) {
  trak_ftrace *f = imp->ftrace;
  trak_fmerge *mg = calloc(1, sizeof *mg);
  if (!mg) abort();
  mg->src = malloc((f->queues.n ? f->queues.n : 1) * sizeof *mg->src);
  if (!mg->src) abort();
  for (size_t i = 0; i < f->queues.n; i++) {
    trak_fqueue *q = &f->queues.v[i];
    if (!q->n) continue;
    if (q->unsorted && q->has_runs) queue_expand(imp, q);
    mg->src[mg->live] =
        (merge_src){0, q, q->unsorted ? queue_order(q) : NULL, 0, q->n, NULL, NULL, {0}};
    src_enter(imp, &mg->src[mg->live++]);
  }
  return mg;
}

/* Perfetto's sorter (trace_sorter.cc, full sort): each queue in timestamp order; then,
** repeatedly, the queue whose next record is the earliest (on a tie, the queue made first) gives
** its records up to and including the timestamp of the next record of any other queue. So at one
** timestamp the queue that holds the earliest record comes first, not the lowest CPU. */
const trak_fq_rec *trak__fmerge_next(trak_importer *imp, trak_fmerge *mg) {
  merge_src *m = mg->cur;
  if (m) { /* past the record returned last */
    src_next(imp, m);
    if (m->pos < m->n && m->ts <= mg->until) return src_front(m);
    if (m->pos == m->n) { /* drop the queue, keeping the others' order */
      free(m->order);
      memmove(m, m + 1, (size_t)(mg->src + mg->live - m - 1) * sizeof *m);
      mg->live--;
    }
    mg->cur = NULL;
  }
  if (!mg->live) return NULL;
  size_t best = 0;
  int64_t min0 = INT64_MAX, min1 = INT64_MAX;
  for (size_t i = 0; i < mg->live; i++) {
    int64_t ts = mg->src[i].ts;
    if (i == 0 || ts < min0)
      min1 = min0, min0 = ts, best = i;
    else if (ts < min1)
      min1 = ts;
  }
  mg->cur = &mg->src[best];
  mg->until = min1;
  return src_front(mg->cur);
}

void trak__fmerge_close(trak_fmerge *mg) {
  for (size_t i = 0; i < mg->live; i++)
    free(mg->src[i].order); /* none left once the merge was read to its end */
  free(mg->src);
  free(mg);
}

/* Applies every queue's records in the merge's order, on this thread or, for a big queue, with
** the merge on a second one (merge_thread.c). */
static void apply_queues(trak_importer *imp) {
  if (trak__ftrace_apply_threaded(imp)) return;
  trak_fmerge *mg = trak__fmerge_open(imp);
  const trak_fq_rec *r;
  while ((r = trak__fmerge_next(imp, mg)))
    trak__fq_apply(imp, r);
  trak__fmerge_close(mg);
}

/* Sizes the tables the queue fills once, from the records' types (at most a sched_slice row
** per switch, two thread states per switch and one per waking or new task, an ftrace_event
** row per switch, waking and generic event): no column is copied as it grows, and none is
** held twice while it is. Without the huge-page hint: a huge page is zeroed whole when first
** touched, which on the virtual machines measured cost a dozen times more per byte than small
** pages (docs/performance.md), and the merge thread moves queue blocks, of small pages, onto the
** columns (merge_thread.c). */
static void tables_reserve(trak_importer *imp) {
  const size_t *n = imp->ftrace->n_type;
  trak_tables *t = imp->tables;
  size_t sw = n[TRAK_FQ_SWITCH] + n[TRAK_FQ_SWITCH_COMPACT];
  size_t wk = n[TRAK_FQ_WAKING] + n[TRAK_FQ_WAKING_COMPACT];
  if (t->sched_slice.n + sw > t->sched_slice.cap)
    trak__sched_slice_resize(t, t->sched_slice.n + sw, 0);
  size_t states = t->thread_state.n + 2 * sw + wk + n[TRAK_FQ_NEWTASK];
  if (states > t->thread_state.cap) trak__thread_state_resize(t, states, 0);
  size_t raw = t->ftrace_event.n + sw + wk + n[TRAK_FQ_GENERIC];
  if (raw > t->ftrace_event.cap) trak__ftrace_event_resize(t, raw, 0);
}

void trak__ftrace_finish(trak_importer *imp) {
  trak_ftrace *f = imp->ftrace;
  if (!f) return;
  f->s_running = trak__ftrace_str(imp, "Running");
  f->s_runnable = trak__ftrace_str(imp, "R");
  kernel_version(imp, f);
  trak__ftrace_crop_init(imp);
  f->applying = 1;
  trak__block_pool_free(f->pool); /* nothing is queued from here on */
  f->pool = NULL;
  tables_reserve(imp);
  trak__arg_order_timed_begin(imp);
  f->pkt_base = (uint32_t)imp->packet_index, f->rec_ord = 0;
  imp->args.ord_pkt_base = f->pkt_base;
  apply_queues(imp);
  trak__ftrace_proc_counters_flush(imp);
  trak__arg_order_timed_end(imp);
  imp->args.ord_seq = f->seq; /* the parse's records of it are the merge's events' */
  queues_free(f);
  trak__fcompacts_free(f);
  trak__ftrace_sets_free(f);
  trak__generic_kernel_free(f);
  trak__ftrace_comms_free(f);
  trak_vec_free(f->set_logged);
  trak_vec_free(f->text);
  cpu_rows(imp);
  trak__ftrace_stats_sort(imp);
}

void trak__ftrace_free(trak_importer *imp) {
  trak_ftrace *f = imp->ftrace;
  if (!f) return;
  trak__block_pool_free(f->pool);
  queues_free(f);
  trak__fcompacts_free(f);
  trak_vec_free(f->cpus);
  trak_vec_free(f->cpu_seen);
  trak_vec_free(f->cpu_info);
  trak_vec_free(f->states);
  trak_vec_free(f->stats);
  for (size_t i = 0; i < f->trees.n; i++)
    free((void *)f->trees.v[i].data);
  trak_vec_free(f->trees);
  trak_vec_free(f->text);
  trak__lanes_free(f);
  trak__gpu_cmdbatch_free(f);
  trak__net_free(f);
  trak__mem_free(f);
  trak__fs_free(f);
  trak__virtgpu_free(f);
  trak__drm_free(f);
  trak__v4l2_free(f);
  trak__virtio_video_free(f);
  trak__ftrace_sets_free(f);
  trak__ftrace_comms_free(f);
  trak_vec_free(f->set_logged);
  trak_vec_free(f->pending);
  trak_vec_free(f->in_sys_write);
  trak_vec_free(f->call_names);
  trak__map_free(&f->mm_owner);
  trak__map_free(&f->wakelocks);
  trak__map_free(&f->setup_packets);
  free(f);
  imp->ftrace = NULL;
}
