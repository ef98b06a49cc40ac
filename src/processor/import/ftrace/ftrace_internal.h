/*
** The private state of the Linux event sink (import/ftrace/): the queue of events waiting for
** timestamp order, and each tracker's state. Only the files of this folder include it.
*/
#ifndef TRAK_PROCESSOR_IMPORT_FTRACE_FTRACE_INTERNAL_H
#define TRAK_PROCESSOR_IMPORT_FTRACE_FTRACE_INTERNAL_H

#include <stdint.h>

#include "processor/import/ftrace/ftrace.h"
#include "processor/import/importer.h"
#include "processor/util/compact_sched.h"

/* Queued event types. */
enum trak_fq_type {
  TRAK_FQ_SWITCH = 1,
  TRAK_FQ_WAKING,
  TRAK_FQ_BLOCKED_REASON,
  TRAK_FQ_NEWTASK,
  TRAK_FQ_RENAME,
  TRAK_FQ_FREE,
  TRAK_FQ_THREAD_NAME,
  TRAK_FQ_GENERIC,
  TRAK_FQ_SWITCH_COMPACT, /* as SWITCH, without prev's fields */
  TRAK_FQ_WAKING_COMPACT, /* as WAKING, the waker the CPU's running thread */
  TRAK_FQ_PROCESS_TREE,   /* a ProcessTree / ProcessStats packet (a: its TracePacket field), s1
                          ** its index in trak_ftrace.trees */
  TRAK_FQ_MARKER,         /* an atrace marker: pid tid, p1 tgid (-1: unknown), x its offset in
                          ** trak_ftrace.text, a its length */
  TRAK_FQ_SUSPEND_RESUME, /* suspend_resume: pid tid, s1 slice name, a start, p1 action
                          ** (suspend_resume.c) */
  TRAK_FQ_PROC_COUNTER,   /* rss_stat, oom_score_adj_update: pid the thread, a the counter
                          ** (process_counters.c), x the value, p1 curr (-1: no mm_id), s1 and
                          ** s2 the mm_id's low and high halves */
  TRAK_FQ_SYSCALL,        /* sys_enter / sys_exit (syscalls.c): pid tid, s1 the call's number,
                          ** p1 1 on exit; enter: x the offset of its event's bytes in
                          ** trak_ftrace.text, a their length; exit: p2 1 with a ret, x ret */
  TRAK_FQ_THREAD_SLICE,   /* a slice record on a thread's track (thread_slices.c): pid the
                          ** tid, a its TRAK_EV_* type, s1 name, s2 category, p1 its arg's kind,
                          ** x the arg's value, p2 1 on the thread's Funcgraph track */
  TRAK_FQ_KERNEL_TE,      /* a kernel track event (kernel_tracks.c): pid the tid, s1 the
                          ** tracepoint, s2 the track's name, a and p1 the scope value's low and
                          ** high halves, x the slice's name or the counter's value, p2 its
                          ** `what` | scope << 12 | counter << 15 */
  TRAK_FQ_COMPACT_RUN,    /* a run of compact_sched events kept encoded (compact_runs.c), read
                          ** as SWITCH_COMPACT / WAKING_COMPACT records when merged: ts its first
                          ** event's, x its last's, pid its trak_ftrace.compacts index, a its
                          ** events (at least 1), p1 0 switches / 1 wakings */
  TRAK_FQ_WAKING_RAW,     /* a protobuf sched_waking and its generic ftrace_event row in one
                          ** record: applied as the GENERIC record (s2 its name, x's low 32 bits
                          ** its arg set, x's high 32 its `a`) then the WAKING record (s2 0) the
                          ** front-end queued for it one after the other; counted as both */
  TRAK_FQ_GK_STATE,       /* a generic kernel task state (generic_kernel.c): x tid, s1 comm,
                          ** a state, p1 prio, cpu its CPU */
  TRAK_FQ_GK_RENAME,      /* a generic kernel task rename: x tid, s1 comm */
  TRAK_FQ_JSON_STATE,     /* a JSON trace's thread state (json_states.c): a utid, x dur, s1
                          ** state, s2 blocked_function, p1 io_wait (-1: none), p2 cpu (-1) */
  TRAK_FQ_MEM,            /* a memory allocator's event (mem_events.c): pid the tid, a its
                          ** kind, the rest by kind */
  TRAK_FQ_CMDBATCH,       /* an Adreno command batch (gpu_cmdbatch.c): a 0 queued (pid the tid,
                          ** s1 the context id), 1 retired at its GPU start (s1 the context id,
                          ** s2 prio, x its duration) */
  TRAK_FQ_NET,            /* a networking event (net_events.c): a its kind, the rest by kind */
  TRAK_FQ_FS,             /* an android_fs read (storage_events.c): a 0 start (pid the tid,
                          ** s1 the path), 1 end; x offset, p1 bytes, s2 and p2 the inode's low
                          ** and high halves */
  TRAK_FQ_VIRTGPU,        /* a virtio-gpu command (virtio_gpu.c): a 0 queued, 1 response; p1
                          ** the queue (0 control, 1 cursor), s1 seqno, s2 type, x fence_id,
                          ** p2 num_free */
  TRAK_FQ_WAKESOURCE,     /* wakeup_source_(de)activate (wakesource.c): s1 name, a 1 activate */
  TRAK_FQ_DRM,            /* a DRM event (drm.c): pid the tid, a kind | job << 8, s1 name, x id0,
                          ** s2 and p1 id1's low and high halves */
  TRAK_FQ_V4L2,           /* a V4L2 buffer event (v4l2.c): pid the tid, x its index in
                          ** trak_ftrace.v4l2's events */
  TRAK_FQ_VIRTIO_VIDEO,   /* a virtio-video event (virtio_video.c): x its index in
                          ** trak_ftrace.vvideo's events */
  TRAK_FQ_GPU_MEM         /* gpu_mem_total (gpu_mem.c): a pid, s1 ugpu, s2 gpu, x size */
};

/* One queued event (48 bytes). Fields by type:
**   SWITCH   pid prev, a next, s1 prev_comm, s2 next_comm, p1 prev_prio, p2 next_prio,
**            x prev_state
**   WAKING   pid waker, a wakee, s1 comm, s2 event name (0: no row), p1 prio, p2 target cpu
**   BLOCKED  a pid, s1 caller, x io_wait
**   NEWTASK  pid source, a new pid, s1 comm, x clone_flags
**   RENAME   a pid, s1 comm;   FREE a pid;   THREAD_NAME a tid, s1 comm, x tgid (-1: none)
**   GENERIC  pid, s1 name, s2 arg set, a kernel-symbol lookups (trak__ftrace_generic's ksyms) */
typedef struct trak_fq_rec {
  int64_t ts;
  int64_t x;
  uint32_t cpu;
  uint32_t pid, a;
  uint32_t s1, s2;
  int32_t p1, p2;
  uint8_t type;
  uint8_t has_flags;
  uint16_t flags;
} trak_fq_rec;

/* A value's code in a one-byte column (trak__dict8_code's), remembered by its writer: a value's
** code never changes, so it stays right while the value is the same. Zeroed: none yet. */
typedef struct trak_fcode {
  uint32_t v;
  uint8_t c, known;
} trak_fcode;

/* The code of `v` in `d`, remembered in m. Can't fail. */
static inline uint8_t trak__fcode(trak_dict8 *d, trak_fcode *m, uint32_t v) {
  if (TRAK_LIKELY(m->known && m->v == v)) return m->c;
  m->v = v, m->known = 1;
  return m->c = trak__dict8_code(d, v);
}

/* Per CPU: the sched slice running and its thread, and the codes its rows last used. */
typedef struct trak_fcpu {
  uint32_t slice;     /* row in sched_slice + 1, 0: none */
  uint32_t pid, utid; /* utid TRAK_NULL_U32: no switch seen yet */
  int32_t prio;
  trak_fcode ss_ucpu, fe_ucpu, ss_prio; /* of sched_slice.ucpu8, ftrace_event.ucpu8, priority8 */
} trak_fcpu;

/* A thread's last thread_state row and last blocked row, each + 1 (0: none). */
typedef struct trak_fstate {
  uint32_t last, blocked;
} trak_fstate;

/* A process counter of a thread (process_counters.c), waiting for the end of the queue to know
** the thread's process. */
typedef struct trak_fpending {
  int64_t ts;
  double value;
  uint32_t utid;    /* the thread the event tells of */
  uint32_t counter; /* the record's `a` */
  uint32_t set;     /* the counter's arg set (utid) */
} trak_fpending;

typedef struct trak_clanes trak_clanes; /* async_lanes.c's state */
typedef struct trak_fsets trak_fsets;   /* ftrace_events.c's cache of arg sets */
typedef struct trak_fsched trak_fsched; /* sched_sets.c's sched rows' arg sets by value */
typedef struct trak_fgk trak_fgk;       /* generic_kernel.c's CPUs and switched-out tasks */

/* Bytes of a block of a queue (192 KiB, mapped and unmapped whole: a block applied is given
** back to the system while the tables fill), and the records it holds in a wide queue (each a
** trak_fq_rec) and in a narrow one (each a 32-byte trak_fq_slot, fq_slot.h). */
#define TRAK_FQ_BLOCK_BYTES (192u << 10)
#define TRAK_FQ_BLOCK (TRAK_FQ_BLOCK_BYTES / 48u)
#define TRAK_FQ_NARROW_BLOCK (TRAK_FQ_BLOCK_BYTES / 32u)

/* One of the queues of Perfetto's sorter the records go to: the records in the order they came
** (record i in blocks[i / TRAK_FQ_BLOCK], or i / TRAK_FQ_NARROW_BLOCK in a narrow queue), and
** whether that is not timestamp order. A queue is narrow until records that do not fit a slot
** (kept whole in `spill`) are more than an eighth of it; it is then rewritten wide. */
typedef struct trak_fqueue {
  TRAK_VEC(void *) blocks;
  size_t n;        /* records */
  int64_t last_ts; /* of the last record */
  uint8_t unsorted;
  uint8_t has_runs;            /* some records are TRAK_FQ_COMPACT_RUN */
  uint8_t wide;                /* the blocks hold trak_fq_recs, not trak_fq_slots */
  TRAK_VEC(trak_fq_rec) spill; /* a narrow queue's records that fit no slot */
} trak_fqueue;

/* A compact_sched message kept encoded until its runs are merged (compact_runs.c). */
typedef struct trak_fcompact {
  const uint8_t *bytes; /* a copy of the message, in chunk `chunk` */
  size_t len;
  const uint32_t *ids; /* the string id of each intern_table entry, in the same chunk */
  uint32_t refs;       /* its runs not yet applied */
  uint32_t chunk;
  trak_compact_cols cols[2]; /* where its switches' and wakings' arrays lie in `bytes` */
} trak_fcompact;

/* A mapped chunk of the copies of messages (compact_runs.c): unmapped once the runs of every
** message in it are applied, so the copies shrink as the tables fill. */
typedef struct trak_fchunk {
  uint8_t *base; /* NULL once unmapped */
  size_t used, size;
  uint32_t live; /* its messages with runs not yet applied */
} trak_fchunk;

typedef struct trak_frun trak_frun; /* below */

/* The per-CPU queues of the protobuf front-end, as Perfetto makes a stream per CPU for each. */
enum trak_fq_source {
  TRAK_FQS_FTRACE,         /* typed events (and markers, ...) of a bundle */
  TRAK_FQS_COMPACT_SWITCH, /* compact_sched switches */
  TRAK_FQS_COMPACT_WAKING, /* compact_sched wakings */
  TRAK_FQS_KINDS
};

/* The queues: 0 ProcessTree packets (Perfetto's packet stream, the first), 1 records from outside
** an ftrace bundle (systrace text: one stream), then per-CPU queues in the order Perfetto makes
** its streams (ftrace_queue.c). */
#define TRAK_FQ_PACKETS 0u
#define TRAK_FQ_TEXT 1u

/* A CPU as a CpuInfo packet describes it (proto/cpu_info.c): its cpu table columns. */
typedef struct trak_fcpu_info {
  uint32_t processor;  /* string id, 0: not said */
  uint32_t cluster_id; /* 0 unless CPUs differ in capacity or frequency */
  uint32_t capacity;   /* TRAK_NULL_U32: not said */
  uint32_t arg_set_id; /* its ARM identifier and feature bits; TRAK_NULL_U32: none */
} trak_fcpu_info;

/* The string id of the end-state letters of a sched_switch's prev_state bits, as last computed
** for bits in its slot (sched_tracker.c; id 0: none yet). */
typedef struct trak_fstate_id {
  uint32_t id;
  uint16_t bits;
  trak_fcode ss, ts; /* id's codes in sched_slice.end_state8 and thread_state.state8 */
} trak_fstate_id;
#define TRAK_FSTATE_IDS 64u

typedef struct trak_ftrace {
  TRAK_VEC(trak_fqueue) queues;
  struct trak_block_pool *pool; /* the blocks' pool while tokenizing (util/block_pool.h), or NULL */
  uint8_t pool_tried;           /* whether it was started (or could not be) */
  TRAK_VEC(uint32_t) by_cpu[TRAK_FQS_KINDS]; /* the queue of each CPU, per source */
  int64_t bundle_cpu;                        /* the CPU of the bundle being read, -1: none */
  size_t n_queued;                           /* records queued */
  size_t n_type[32];                         /* records queued by type (trak_fq_type) */
  TRAK_VEC(trak_fcpu) cpus;                  /* by CPU number (host) */
  TRAK_VEC(uint8_t) cpu_seen;                /* by ucpu: 1 when the CPU had data */
  TRAK_VEC(trak_fcpu_info) cpu_info;         /* by ucpu: CpuInfo packets' (proto/cpu_info.c) */
  /* by utid */
  TRAK_VEC(trak_fstate) states;
  uint32_t s_running, s_runnable;   /* string ids of "Running", "R" */
  trak_fcode c_running, c_runnable; /* their codes in thread_state.state8 */
  trak_fcode c_switch, c_waking;    /* of "sched_switch", "sched_waking" in ftrace_event.name8 */
  trak_fstate_id state_ids[TRAK_FSTATE_IDS]; /* end states by prev_state bits (sched_tracker.c) */
  trak_fstate_id state_none;                 /* the end state of an invalid prev_state: id 0 */
  trak_sequence *seq;                  /* the records of counters and markers (not in seqs.by_id) */
  uint32_t keys[16];                   /* interned arg keys, see ftrace_events.c */
  int kernel_major, kernel_minor;      /* of the trace's system info, 0.0: unknown */
  TRAK_VEC(trak_traced_indexed) stats; /* per-CPU stats (ftrace_stats.c) */
  TRAK_VEC(trak_span) trees;     /* copies of deferred ProcessTree / ProcessStats packets (owned) */
  TRAK_VEC(char) text;           /* the text of queued atrace markers */
  uint8_t suspend_state;         /* suspend_resume.c: where a suspend is */
  uint32_t suspend_enter_cookie; /* suspend_resume.c: the suspend_enter slice's name */
  trak_clanes *lanes;            /* sets of lanes of async slices (async_lanes.c), or NULL */
  trak_fsets *sets;              /* sched rows' arg sets by value (ftrace_events.c), or NULL */
  struct trak_fcomm *comms;      /* comms' string ids remembered (comm_ids.c), or NULL */
  trak_fsched *sched_sets;       /* the same in small tables (sched_sets.c), or NULL */
  uint8_t sched_sets_off;        /* TRAK_FTRACE_SCHED_SETS=0: the tests' path without them */
  trak_fgk *gk;                  /* generic kernel events' state (generic_kernel.c), or NULL */
  TRAK_VEC(uint64_t) set_logged; /* bit (arg set id): 1 once its first use is in the order log */
  uint8_t applying;              /* trak__ftrace_finish is applying the queue */
  /* While applying: the import's packet count when it began, and the number of the record being
  ** applied; the records the parse phase gets of it are numbered pkt_base + rec_ord (their
  ** packet index, past every packet's), so arg_order.c can tell which comes first at a time. */
  uint32_t pkt_base, rec_ord;
  uint8_t raw_only;              /* the record applied adds its ftrace_event row only */
  trak_map setup_packets;        /* sequence id -> the packet that reported its setup errors */
  trak_map wakelocks;            /* wakesource.c: wakeup source name id -> activations held */
  trak_map mm_owner;             /* rss_stat: mm_id -> the utid whose own it last was */
  TRAK_VEC(trak_fpending) pending;  /* process counters of threads (process_counters.c) */
  TRAK_VEC(trak_fcompact) compacts; /* compact_sched messages kept encoded (compact_runs.c) */
  TRAK_VEC(trak_fchunk) chunks;     /* the memory of their copies */
  uint8_t compact_records;          /* TRAK_FTRACE_COMPACT_RECORDS: a record per compact event */
  uint8_t wide_queues;              /* TRAK_FTRACE_WIDE_QUEUES: every queue wide from the start */
  /* the merge thread's spares (merge_thread.c), given the queue blocks read; NULL: unmap them */
  struct trak_spares *spares;
  int64_t drop_before;               /* kernel events before are dropped (crop.c) */
  int64_t soft_drop_before;          /* kernel events before keep their raw rows only */
  TRAK_VEC(uint8_t) in_sys_write;    /* by utid: 1 while a sys_write slice is open (syscalls.c) */
  uint8_t arch;                      /* syscalls.c: the machine's trak_arch, + 1 (0: not read) */
  TRAK_VEC(uint32_t) call_names;     /* syscalls.c: by call number, its name's string id */
  uint32_t sys_write, sys_sigreturn; /* syscalls.c: the string ids of those two calls' names */
  struct trak_fgpu *gpu;             /* gpu_cmdbatch.c's state, or NULL */
  struct trak_fnet *net;             /* net_events.c's state, or NULL */
  struct trak_fmem *mem;             /* mem_events.c's state, or NULL */
  struct trak_ffs *fs;               /* storage_events.c's state, or NULL */
  struct trak_fvirtgpu *virtgpu;     /* virtio_gpu.c's state, or NULL */
  struct trak_fdrm *drm;             /* drm.c's state, or NULL */
  struct trak_fv4l2 *v4l2;           /* v4l2.c's state, or NULL */
  struct trak_fvvideo *vvideo;       /* virtio_video.c's state, or NULL */
} trak_ftrace;

/* Frees the comms' memo (comm_ids.c). */
void trak__ftrace_comms_free(trak_ftrace *f);

/* Sorts the per-CPU stats rows by stat, then CPU (ftrace_stats.c). */
void trak__ftrace_stats_sort(trak_importer *imp);
/* imp->ftrace, made on first use. */
trak_ftrace *trak__ftrace_get(trak_importer *imp);
/* A tracker's state *slot (a member of imp->ftrace) of `size` bytes, zeroed when made on first
** use (ftrace_queue.c). Can't fail. */
void *trak__ftrace_part(trak_importer *imp, void **slot, size_t size);
/* Appends a record to the queue of the bundle being read (typed events), else of records from
** outside bundles (ftrace_queue.c). */
void trak__fq_push(trak_importer *imp, const trak_fq_rec *r);
/* The record's CPU had data (trak__ftrace_cpu_seen), and the record is appended as
** trak__fq_push appends it. */
void trak__fq_push_seen(trak_importer *imp, const trak_fq_rec *r);
/* Appends a record to queue `q` (TRAK_FQ_PACKETS, or trak__fq_cpu_queue's). */
void trak__fq_push_to(trak_importer *imp, uint32_t q, const trak_fq_rec *r);
/* Appends run record `run` (TRAK_FQ_COMPACT_RUN) to queue `q`, counted as its events, of type
** `type` (TRAK_FQ_SWITCH_COMPACT or _WAKING_COMPACT); `sorted`: its events' timestamps do not
** go back. */
void trak__fq_push_run(trak_importer *imp, uint32_t q, const trak_fq_rec *run, uint8_t type,
                       int sorted);
/* The record of a compact sched_switch / sched_waking (one definition for both paths). */
static inline trak_fq_rec trak__fq_switch_compact_rec(uint32_t cpu, int64_t ts, int64_t prev_state,
                                                      uint32_t next_pid, uint32_t next_comm,
                                                      int32_t next_prio) {
  trak_fq_rec r = {
      ts, prev_state, cpu, 0, next_pid, 0, next_comm, 0, next_prio, TRAK_FQ_SWITCH_COMPACT, 0, 0};
  return r;
}
static inline trak_fq_rec trak__fq_waking_compact_rec(uint32_t cpu, int64_t ts,
                                                      int64_t common_flags, uint32_t pid,
                                                      uint32_t comm, int32_t prio,
                                                      uint32_t target_cpu) {
  trak_fq_rec r = {ts, 0, cpu, 0, pid, comm, 0, prio, (int32_t)target_cpu, TRAK_FQ_WAKING_COMPACT,
                   0,  0};
  if (common_flags >= 0) { /* as flags_set (ftrace_queue.c) */
    r.has_flags = 1;
    r.flags = (uint16_t)common_flags;
  }
  return r;
}

/* A run being read at merge time: its events decoded a batch at a time into the records the
** sink would have queued for them (compact_runs.c). */
struct trak_frun {
  const trak_fq_rec *at, *end; /* the event the run is at; past the batch's last */
  trak_compact_batch walk;
  uint32_t left;    /* events not decoded yet */
  uint32_t compact; /* its message's index in f->compacts */
  uint32_t cpu;
  uint8_t waking;
  trak_fq_rec buf[TRAK_COMPACT_BATCH];
};

/* Opens run record `run` for the merge: the returned run's `at` is its first event
** (compact_runs.c). Can't fail. */
trak_frun *trak__frun_open(trak_importer *imp, const trak_fq_rec *run);
/* Decodes the run's next batch of events: 1, or 0 when it had no more (the run is then freed,
** and its message once its other run is applied too). */
int trak__frun_refill(trak_importer *imp, trak_frun *r);
/* Moves the run to its next event (r->at): 1, or 0 as trak__frun_refill. */
static inline int trak__frun_next(trak_importer *imp, trak_frun *r) {
  if (TRAK_LIKELY(++r->at < r->end)) return 1;
  return trak__frun_refill(imp, r);
}
/* Frees the messages kept (f->compacts). */
void trak__fcompacts_free(trak_ftrace *f);
/* The queue of `source` for `cpu`, made (with those of the lower CPUs not made yet, in CPU
** order, as Perfetto's streams) on first use. */
uint32_t trak__fq_cpu_queue(trak_importer *imp, enum trak_fq_source source, uint32_t cpu);
/* The ucpu of `cpu` on the current machine. */
uint32_t trak__ftrace_ucpu(const trak_importer *imp, uint32_t cpu);
/* The thread of tid `tid` now (tid 0: the idle thread, utid 0): the memo's answer inline. */
static inline uint32_t trak__ftrace_utid(trak_importer *imp, uint32_t tid) {
  if (tid == 0) return 0; /* every CPU's idle task is the swapper, utid 0 */
  uint32_t utid = trak__tid_memo_get(&imp->threads, tid);
  return TRAK_LIKELY(utid != TRAK_NULL_U32) ? utid : trak__thread_for_tid(imp, tid, -1);
}
/* The kernel names thread `utid` `name`: trak__thread_name_set(.., TRAK_THREAD_NAME_KERNEL), a
** thread named before (every switch names both its threads) inline. */
static inline void trak__ftrace_name_thread(trak_importer *imp, uint32_t utid, uint32_t name) {
  trak_name_marks *marks = &imp->threads.thread_marks;
  if (TRAK_LIKELY(name && utid < marks->n)) {
    if (trak__name_mark_take(&marks->v[utid], TRAK_THREAD_NAME_KERNEL, imp->descriptor_ts))
      imp->tables->thread.name[utid] = name;
    return;
  }
  trak__thread_name_set(imp, utid, name, TRAK_THREAD_NAME_KERNEL);
}

/* The merge of the queues (ftrace_queue.c): every record in the order Perfetto's sorter
** extracts them. It reads the queues, their runs and f->compacts only, never what applying
** changes, so it may run on a thread of its own while another applies (merge_thread.c); nothing
** may be queued meanwhile. Open sorts the queues that need it; next returns the next record
** (valid until the next call), NULL at the end; close frees the merge. Can't fail. */
typedef struct trak_fmerge trak_fmerge;
trak_fmerge *trak__fmerge_open(trak_importer *imp);
const trak_fq_rec *trak__fmerge_next(trak_importer *imp, trak_fmerge *mg);
void trak__fmerge_close(trak_fmerge *mg);
/* Applies record `r` (its type's applier, after the crop's check) on the importer's thread. */
void trak__fq_apply(trak_importer *imp, const trak_fq_rec *r);
/* Applies every queue's records, the merge run on a second thread while this one applies them,
** when the queue is big enough for trak__import_threads to give two threads (merge_thread.c);
** returns 1 when it did, 0 when it left it to the caller (one thread, or no thread started). */
int trak__ftrace_apply_threaded(trak_importer *imp);

/* Appliers, in timestamp order (sched_tracker.c, thread_state.c, process_events.c,
** ftrace_events.c). */
void trak__fa_switch(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_waking(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_blocked_reason(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_newtask(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_rename(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_free(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_thread_name(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_generic(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_switch_compact(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_waking_compact(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_process_tree(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_marker(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_suspend_resume(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_wakesource(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_proc_counter(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_thread_slice(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_syscall(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_kernel_te(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_gk_state(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_gk_rename(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_json_state(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_mem(trak_importer *imp, const trak_fq_rec *r);
/* Frees f->mem (mem_events.c). */
void trak__mem_free(trak_ftrace *f);
void trak__fa_cmdbatch(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_net(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_fs(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_virtgpu(trak_importer *imp, const trak_fq_rec *r);
/* Frees f->virtgpu (virtio_gpu.c). */
void trak__virtgpu_free(trak_ftrace *f);
void trak__fa_drm(trak_importer *imp, const trak_fq_rec *r);
/* Frees f->drm (drm.c). */
void trak__drm_free(trak_ftrace *f);
void trak__fa_v4l2(trak_importer *imp, const trak_fq_rec *r);
/* Frees f->v4l2 (v4l2.c). */
void trak__v4l2_free(trak_ftrace *f);
void trak__fa_virtio_video(trak_importer *imp, const trak_fq_rec *r);
void trak__fa_gpu_mem(trak_importer *imp, const trak_fq_rec *r);
/* Frees f->vvideo (virtio_video.c). */
void trak__virtio_video_free(trak_ftrace *f);
/* Frees f->fs (storage_events.c). */
void trak__fs_free(trak_ftrace *f);
/* Frees f->net (net_events.c). */
void trak__net_free(trak_ftrace *f);
/* Frees f->gpu (gpu_cmdbatch.c). */
void trak__gpu_cmdbatch_free(trak_ftrace *f);
/* A GenericKernelProcessTree packet's processes then threads, applied (generic_kernel.c). */
void trak__generic_process_tree(trak_importer *imp, const uint8_t *data, size_t len);
/* Frees f->gk (generic_kernel.c). */
void trak__generic_kernel_free(trak_ftrace *f);
/* Thread `utid` is named `comm` by the kernel (a string id); a process's main thread names its
** process too (process_events.c). */
void trak__ftrace_thread_rename(trak_importer *imp, uint32_t utid, uint32_t comm);
/* A print event of thread `tid` at `ts` (before its marker is parsed): a sys_write slice the
** thread has open ends there (syscalls.c). */
void trak__syscall_write_cut(trak_importer *imp, int64_t ts, uint32_t tid);
/* Once the queue is applied: the process counters of threads become counters of their
** processes' tracks (process_counters.c). */
void trak__ftrace_proc_counters_flush(trak_importer *imp);
/* trak__fa_waking or trak__fa_waking_compact, by r's type. */
void trak__fa_waking_any(trak_importer *imp, const trak_fq_rec *r);

/* Queues a slice record (TRAK_EV_BEGIN, _END, _INSTANT) named `name` (0: none), of no category,
** on the track of thread `tid`, with arg set `set` (trak__args_share's; TRAK_NULL_U32: none),
** applied in timestamp order (thread_slices.c). */
void trak__thread_slice(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, uint32_t type,
                        uint32_t name, uint32_t set);

/* Atrace markers (atrace.c, atrace_async.c). The writer of a marker: thread `tid` of process
** `marker_tgid` (the marker's, 0: none), else of `tgid` (the front-end's, -1: unknown), else of
** no known process (tid 0: the idle thread). */
uint32_t trak__atrace_writer(trak_importer *imp, uint32_t tid, int64_t tgid, uint32_t marker_tgid);
/* An async marker (S, F, G, H, N) written at `ts` by thread `tid` (of `tgid`, -1: unknown):
** its slice or instant on the track of its process, name and lane, as Perfetto's track
** compressor assigns lanes. Can't fail. */
struct trak_atrace_marker;
void trak__atrace_async(trak_importer *imp, int64_t ts, uint32_t tid, int64_t tgid,
                        const struct trak_atrace_marker *m);

/* Perfetto's track compressor (async_lanes.c): the lanes of a set of tracks. */
/* One lane of a set: a track of the set and what holds it (a pointer to a lane is valid until
** the next call that may make a lane). */
typedef struct trak_clane {
  int64_t key;        /* cookie lanes: the cookie; instant lanes: the end of their last instant */
  int64_t last_begin; /* S/F lanes: the time of the last begin (legacy_unnestable_last_begin_ts) */
  uint32_t track;     /* its track index */
  uint32_t set;       /* its set (index in sets) */
  uint32_t nest;      /* cookie lanes: begins not yet ended (S saturates at 1) */
  uint32_t begins;    /* S/F lanes: begins seen on the lane (legacy_unnestable_begin_count) */
  uint8_t open;       /* S/F lanes: a slice is open */
} trak_clane;

/* The set of tracks of `kind` of process `upid` (TRAK_NULL_U32: global) named `name` (a string
** id), made on first use; returns its index. Can't fail. */
uint32_t trak__lane_set(trak_importer *imp, trak_track_kind_id kind, uint32_t upid, uint32_t name);
/* The lane of set `s` for `cookie`: the cookie's, else the first with no begin open (the cookie
** adopts it), else a new one (its track made now: named as the set, with the set's process, its
** lane number and the set's track_group_id). Can't fail. */
trak_clane *trak__lane_for_cookie(trak_importer *imp, uint32_t s, int64_t cookie);
/* A begin (delta 1; `saturate`: the count becomes 1, not + 1) or end (delta -1) on cookie lane
** `ln`; an end leaving no begin open frees the lane for other cookies. */
void trak__lane_nest(trak_importer *imp, trak_clane *ln, int delta, int saturate);
/* The lane of an instant at `ts` in set `s` (instants have lanes of their own, reused once
** their last instant is over). Can't fail. */
trak_clane *trak__lane_for_instant(trak_importer *imp, uint32_t s, int64_t ts);
/* Frees f->lanes. */
void trak__lanes_free(trak_ftrace *f);

/* The crop limits, read from the metadata; the sink's records before the soft limit dropped
** (crop.c). */
void trak__ftrace_crop_init(trak_importer *imp);
/* 1 when record `r` is cropped (what of it Perfetto keeps is applied here), 0 to apply it. */
int trak__ftrace_crop(trak_importer *imp, const trak_fq_rec *r);

/* Thread-state transitions (thread_state.c). */
void trak__ts_switch(trak_importer *imp, int64_t ts, uint32_t ucpu, uint32_t prev_utid,
                     trak_fstate_id *prev_state, uint32_t next_utid);
/* irq_context: 0, 1, or 2 (unknown). */
void trak__ts_waking(trak_importer *imp, int64_t ts, uint32_t utid, uint32_t waker_utid,
                     uint8_t irq_context);
void trak__ts_newtask(trak_importer *imp, int64_t ts, uint32_t utid, uint32_t waker_utid);
void trak__ts_blocked_reason(trak_importer *imp, uint32_t utid, uint8_t io_wait,
                             uint32_t blocked_function);
/* Generic kernel task states (generic_kernel.c), Perfetto's ThreadStateTracker calls for them:
** push closes the thread's open state at `ts` and opens `state` (a string id, 0: NULL; Running
** on `ucpu`, else TRAK_NULL_U32), counting generic_task_state_invalid_order when the closed state
** began at `ts` too; update_pending gives the thread's last state row `state`; prev_state is
** that row's state (0: none). */
void trak__ts_push(trak_importer *imp, int64_t ts, uint32_t utid, uint32_t state, uint32_t ucpu);
void trak__ts_update_pending(trak_importer *imp, uint32_t utid, uint32_t state);
uint32_t trak__ts_prev_state(trak_importer *imp, uint32_t utid);

/* The utid running on `cpu` after the queue's switches so far (TRAK_NULL_U32: none yet)
** (sched_tracker.c). */
uint32_t trak__ftrace_running_utid(trak_importer *imp, uint32_t cpu);
/* Grows f->cpus to hold `cpu` (the first event of a CPU). Can't fail. */
__attribute__((noinline, cold)) void trak__ftrace_cpus_grow(trak_ftrace *f, uint32_t cpu);
/* The state of `cpu` (CPUs past 4095 share the last), made on first use. Can't fail. */
static inline trak_fcpu *trak__ftrace_cpu(trak_ftrace *f, uint32_t cpu) {
  if (cpu >= 4096) cpu = 4095;
  if (TRAK_UNLIKELY(f->cpus.n <= cpu)) trak__ftrace_cpus_grow(f, cpu);
  return &f->cpus.v[cpu];
}

/* ftrace_event rows (ftrace_events.c): the sched_switch row of `r` on CPU `c` (prev's fields
** given, as the compact encoding takes them from the CPU), and a row of any event. */
void trak__ftrace_switch_row(trak_importer *imp, const trak_fq_rec *r, trak_fcpu *c, uint32_t ucpu,
                             uint32_t prev_utid, uint32_t prev_pid, uint32_t prev_comm,
                             int32_t prev_prio);
void trak__ftrace_waking_row(trak_importer *imp, const trak_fq_rec *r, uint32_t waker);
uint32_t trak__ftrace_row(trak_importer *imp, int64_t ts, uint32_t ucpu, uint32_t utid,
                          uint32_t name, const trak_fq_rec *r, uint32_t set);
/* Set `set` is used now, by an event at `ts`, in the queue's order: its place among the arg
** sets is here, as Perfetto numbers sets in the order it makes them (arg_order.c); later uses
** change nothing. */
void trak__ftrace_set_used(trak_importer *imp, int64_t ts, uint32_t set);
/* Frees f->sets and f->sched_sets. */
void trak__ftrace_sets_free(trak_ftrace *f);

/* Arg sets of sched rows by their values (sched_sets.c), in tables that stay in the cache; every
** set put must be one trak__args_share_stable called stable (the set it shared, or a new set
** it will share from then on), so a hit gives what building and sharing the set again would
** (the sets of a first sight are kept: a row's second sight needs no build). With
** TRAK_FTRACE_SCHED_SETS=0
** every get misses and puts keep nothing.
** The set cached for a sched_switch row of `vals` (ftrace_events.c's order: prev_comm, prev_pid,
** prev_prio, prev_state, next_comm, next_pid, next_prio, then a 0: vals + 4 is the next key,
** read in place), or TRAK_NULL_U32. */
uint32_t trak__fsched_switch_get(trak_importer *imp, const int64_t *vals);
void trak__fsched_switch_put(trak_importer *imp, const int64_t *vals, uint32_t set);
/* Asks the cache for the line trak__fsched_switch_get will likely read last for a switch from
** `prev_pid` to `next_pid` (the pair's slot, whose miss stalled the applying thread): the slot
** of the ids the pids' memos hold now, which are the switch's when the two threads' values are
** those of their last switches. A hint: changes nothing the get or put read. */
void trak__fsched_switch_prefetch(trak_importer *imp, int64_t prev_pid, int64_t next_pid);
/* A hint some records before applying `r`: when it is a sched_switch, the cache line its row's
** arg set will be looked up in is asked for (trak__fsched_switch_prefetch), a compact switch's
** prev pid guessed from its CPU's state now. Changes no state. */
static inline void trak__fa_switch_prefetch(trak_importer *imp, const trak_fq_rec *r) {
  if (r->type == TRAK_FQ_SWITCH) {
    trak__fsched_switch_prefetch(imp, r->pid, r->a);
  } else if (r->type == TRAK_FQ_SWITCH_COMPACT) {
    const trak_ftrace *f = imp->ftrace;
    if (r->cpu < f->cpus.n && r->cpu < 4096) /* as trak__fa_switch_compact takes prev's pid */
      trak__fsched_switch_prefetch(imp, f->cpus.v[r->cpu].pid, r->a);
  }
}
/* The same for a sched_waking row of `vals` (comm, pid, prio, target_cpu). */
uint32_t trak__fsched_waking_get(trak_importer *imp, const int64_t *vals);
void trak__fsched_waking_put(trak_importer *imp, const int64_t *vals, uint32_t set);
/* Frees f->sched_sets (trak__ftrace_sets_free calls it). */
void trak__fsched_free(trak_ftrace *f);
/* The sequence that holds the sink's event records (counters, marker slices): not one of the
** trace's sequences; the parse phase merges it with them (ftrace_queue.c). */
trak_sequence *trak__ftrace_seq(trak_importer *imp);
/* Pushes a record of `type` (TRAK_EV_*) on `track` to that sequence. */
void trak__ftrace_ev(trak_importer *imp, int64_t ts, uint32_t type, uint32_t track, uint32_t name,
                     double value);
/* Pushes a counter value on `track` with an arg set (TRAK_NULL_U32: none) to that sequence. */
void trak__ftrace_counter_ev(trak_importer *imp, int64_t ts, uint32_t track, double value,
                             uint32_t set);
/* Pushes a slice record (TRAK_EV_BEGIN, _END, _INSTANT) with a category and an arg set
** (TRAK_NULL_U32: none; an end's args join its slice's) to that sequence. */
void trak__ftrace_slice_ev(trak_importer *imp, int64_t ts, uint32_t type, uint32_t track,
                           uint32_t name, uint32_t cat, uint32_t set);
/* The same for a TRAK_EV_BEGIN or _INSTANT whose slice a flow leaves (flow id `out`, 0: none)
** and one enters (`in`, a flow begun by an earlier slice's `out`; 0: none). */
void trak__ftrace_slice_flow_ev(trak_importer *imp, int64_t ts, uint32_t type, uint32_t track,
                                uint32_t name, uint32_t cat, uint32_t set, uint64_t out,
                                uint64_t in);
/* The per-CPU track of `kind` for `cpu` on the current machine, made on first use with the
** name Perfetto gives it (a counter track, but for the interrupt and timer-callback slice
** kinds); the CPU gets its cpu row (cpu_counters.c). Can't fail. */
uint32_t trak__ftrace_cpu_track(trak_importer *imp, trak_track_kind_id kind, uint32_t cpu);
/* The global track of `kind` told apart by `n` (0 for a kind of one track) on the current
** machine, named `name` (a string id) and a counter track when `is_counter`, made on first use
** (cpu_counters.c). Can't fail. */
uint32_t trak__ftrace_global_track(trak_importer *imp, trak_track_kind_id kind, uint64_t n,
                                   uint32_t name, int is_counter);
/* A string id interned from a C string. */
uint32_t trak__ftrace_str(trak_importer *imp, const char *s);

#endif /* TRAK_PROCESSOR_IMPORT_FTRACE_FTRACE_INTERNAL_H */
