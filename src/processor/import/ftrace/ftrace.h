/*
** The Linux event sink: format-independent functions that every kernel-data front-end (ftrace
** in protobuf, systrace text, ...) calls with decoded values. Events are queued while the trace
** is tokenized and applied in timestamp order when it ends (ftrace_queue.c), as Perfetto's
** sorter orders them, to the trackers: sched slices per CPU (sched_tracker.c), thread states
** (thread_state.c), process tracking (process_events.c), generic ftrace_event rows
** (ftrace_events.c); CPU counters and atrace markers become ordinary event records at once
** (cpu_counters.c, atrace.c). The rules are docs/design/linux-import.md's.
**
** Conventions of every function below: `ts` is in the trace clock (ns); pids and tids are the
** kernel's (Perfetto reads them as uint32); strings are string-pool ids (intern them with
** trak__strpool_intern(&imp->tables->strings, ...); 0 means absent); `cpu` is the CPU the event
** was recorded on. None of them can fail: problems are counted as stats.
*/
#ifndef TRAK_PROCESSOR_IMPORT_FTRACE_FTRACE_H
#define TRAK_PROCESSOR_IMPORT_FTRACE_FTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "processor/import/track_kinds.h"
#include "processor/tables/storage.h"

typedef struct trak_importer trak_importer;

/* common_flags of an event when the front-end does not know them (thread_state.irq_context is
** then NULL). */
#define TRAK_FTRACE_NO_FLAGS (-1)

/* The string id of a comm (or any string) `s` of `len` bytes, as trak__strpool_intern gives it,
** remembered for short strings: front-ends intern the comms of their sched events with it
** (comm_ids.c). */
uint32_t trak__ftrace_comm(trak_importer *imp, const uint8_t *s, size_t len);

/* ---- scheduling ------------------------------------------------------------------------- */

/* sched_switch on `cpu`: prev (the thread leaving the CPU) with its comm, priority and raw
** prev_state bits (util/task_state.h; systrace letters go through
** trak__task_state_from_systrace first), next (the thread entering) with its comm and priority.
** Names both threads; ends the CPU's sched slice and opens next's; closes prev's Running state
** and opens its blocked state, opens next's Running; adds the sched_switch ftrace_event row with
** its args. `common_flags` as for trak__sched_waking. */
void trak__sched_switch(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t common_flags,
                        uint32_t prev_pid, uint32_t prev_comm, int32_t prev_prio,
                        int64_t prev_state, uint32_t next_pid, uint32_t next_comm,
                        int32_t next_prio);

/* A sched_switch of the compact encoding (FtraceEventBundle.compact_sched): the previous
** thread is the one the CPU's last switch brought in; a CPU's first compact switch only tells
** which thread runs (stat compact_sched_switch_skipped). */
void trak__sched_switch_compact(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t prev_state,
                                uint32_t next_pid, uint32_t next_comm, int32_t next_prio);
/* A sched_waking of the compact encoding: the waker is the thread running on `cpu` (before
** any switch on the CPU: dropped, stat compact_sched_waking_skipped). Adds its ftrace_event row
** (args comm, pid, prio, target_cpu). */
void trak__sched_waking_compact(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t common_flags,
                                uint32_t pid, uint32_t comm, int32_t prio, uint32_t target_cpu);

/* The compact_sched message [data, data + len) of the bundle of `cpu`, opened as *cs, its
** intern_table entries' string ids `ids` (n_ids of them, interned in order by the caller), its
** timestamps already in the trace clock: its events queued as at most two runs (switches, then
** wakings) kept encoded and decoded when the queue is merged, into the very records that
** trak__sched_switch_compact and trak__sched_waking_compact, called for each event in turn,
** would have queued (compact_runs.c); `counted` (NULL: counted here) its switches' and wakings'
** trak__compact_count when both were plain. Returns 1 when the message has the parse errors Perfetto
** counts as compact_sched_has_parse_errors (the caller reports them), else 0; or -1, queueing
** nothing, when the runs are turned off (environment variable TRAK_FTRACE_COMPACT_RECORDS
** set: the caller queues each event itself). */
struct trak_compact_sched;
struct trak_compact_count;
int trak__sched_compact_runs(trak_importer *imp, uint32_t cpu, const struct trak_compact_sched *cs,
                             const uint8_t *data, size_t len, const uint32_t *ids, size_t n_ids,
                             const struct trak_compact_count *counted);

/* sched_waking (and sched_wakeup / sched_wakeup_new, which Perfetto treats alike when they are
** the wakeup of the trace) run by thread `waker_tid` on `cpu`: wakee `pid` (named `comm`) becomes
** runnable (R) with its waker; a wakee already runnable or running gives a
** spurious_sched_wakeup row. `common_flags`: the event's (bits 0x08 hardirq, 0x10 softirq give
** irq_context 1), or TRAK_FTRACE_NO_FLAGS. `name` is the event's name for its ftrace_event row
** ("sched_waking", ...), 0 to add no row (the front-end adds its own). */
void trak__sched_waking(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t common_flags,
                        uint32_t waker_tid, uint32_t pid, uint32_t comm, int32_t prio,
                        uint32_t target_cpu, uint32_t name);
/* The same with name 0, after its generic ftrace_event row (trak__ftrace_generic's `name`, `set`
** and `ksyms`, the event's cpu, ts, tid `waker_tid` and flags): what those two calls queue, as one
** record instead of two (the protobuf front-end's sched_waking). */
void trak__sched_waking_raw(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t common_flags,
                            uint32_t waker_tid, uint32_t pid, uint32_t comm, int32_t prio,
                            uint32_t target_cpu, uint32_t name, uint32_t set, uint32_t ksyms);

/* sched_blocked_reason: the last blocked state of thread `pid` gets io_wait (0, 1; -1: unknown)
** and blocked_function (`caller`, a string id, 0: none). */
void trak__sched_blocked_reason(trak_importer *imp, int64_t ts, uint32_t pid, int64_t io_wait,
                                uint32_t caller);

/* ---- process tracking ------------------------------------------------------------------- */

/* task_newtask run by `source_tid`: thread `pid` named `comm` is created (clone_flags without
** CLONE_THREAD 0x10000: a new process whose parent is the source's process; with it: a thread
** of the source's process); it becomes runnable, woken by its creator. pid 0 is ignored. */
void trak__task_newtask(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t source_tid,
                        uint32_t pid, uint32_t comm, uint64_t clone_flags);
/* task_rename: thread `pid` is named `comm` (and its process, when it is the main thread). */
void trak__task_rename(trak_importer *imp, int64_t ts, uint32_t pid, uint32_t comm);
/* sched_process_free: thread `pid` ended at ts (end_ts); a later use of the tid is a new
** thread. */
void trak__process_free(trak_importer *imp, int64_t ts, uint32_t pid);
/* The thread `tid` is named `comm` by the kernel (a systrace line's task name, a typed event's
** comm field): lowest-priority name, never replacing a descriptor's or the process tree's. A
** `tgid` >= 0 ties the thread to that process; -1: unknown. */
void trak__ftrace_thread_name(trak_importer *imp, int64_t ts, uint32_t tid, int64_t tgid,
                              uint32_t comm);

/* A ProcessTree or ProcessStats packet (`field`: its TracePacket field number) read while the
** queue holds kernel events: copied and queued, to be applied (trak__process_tree,
** trak__process_stats) in timestamp order with those events, as Perfetto's sorter orders them
** (an on-demand scan of a process that task_newtask created then joins that process instead of
** making a second one; a process's counters go to the process of its pid at that time).
** Returns 1 when queued; 0 when the caller applies it now (no kernel events yet, no timestamp,
** or the queue is being applied). Can't fail. */
struct trak_packet_ctx;
int trak__ftrace_defer_packet(trak_importer *imp, const struct trak_packet_ctx *ctx, uint32_t field,
                              const uint8_t *data, size_t len);

/* A generic kernel event packet (`field`: generic_kernel_task_state_event, _task_rename_event,
** _cpu_freq_event or _process_tree; generic_kernel.c): task states and renames are queued and
** applied in timestamp order with the kernel's other events, frequencies become cpufreq counter
** values, a process tree is applied now or, once kernel events are queued, in timestamp order
** with them. An event without a timestamp counts packet_malformed. Can't fail. */
void trak__generic_kernel_packet(trak_importer *imp, const struct trak_packet_ctx *ctx,
                                 uint32_t field, const uint8_t *data, size_t len);

/* A thread state a JSON trace gives (a "T" event: json/json_events.c): thread `utid` in
** `state` (a string id) from `ts` for `dur`, with io_wait 0 or 1 (-1: not said), a
** blocked_function (string id, 0: none) and a cpu (-1: not said), queued and applied in
** timestamp order (json_states.c): its thread_state row, and for a Running state with a cpu
** a sched_slice row on that CPU too, as Perfetto's JSON parser makes them. Can't fail. */
void trak__ftrace_json_state(trak_importer *imp, int64_t ts, int64_t dur, uint32_t utid,
                             uint32_t state, int io_wait, uint32_t blocked, int64_t cpu);

/* ---- a process's counters from its threads (process_counters.c) ------------------------ */

/* rss_stat / rss_stat_throttled run by thread `pid`: the process memory counter `member` (0
** rss.file, 1 rss.anon, 2 swap, 3 rss.shmem, 4 unreclaimable, else "unknown") is `size` bytes
** (negative: dropped, stat rss_stat_negative_size). `curr` -1: the event has no mm_id (the
** counter is `pid`'s process's); 1: the mm `mm_id` is `pid`'s own (remembered); 0: the mm of
** another thread, the one that last had `mm_id` as its own, if it is alive (else stat
** rss_stat_unknown_thread_for_mm_id). Each value becomes a counter of the thread's process
** (arg utid), on its "mem.<key>" track of type process_memory; a thread that has no process
** when the trace ends gets a "process_memory_thread_fallback" track of its own, as Perfetto's. */
void trak__rss_stat(trak_importer *imp, int64_t ts, uint32_t pid, uint32_t member, int64_t size,
                    int curr, int64_t mm_id);
/* oom_score_adj_update: thread `pid`'s process has oom_score_adj `value` (read as int16, as
** Perfetto does for old recorders' encoding), on its "oom_score_adj" track (fallback
** "oom_score_adj_thread_fallback"), as trak__rss_stat. */
void trak__oom_score_adj(trak_importer *imp, int64_t ts, uint32_t pid, int64_t value);

/* ---- counters --------------------------------------------------------------------------- */

/* A value of a per-CPU counter track of `kind` (TRAK_TK_CPU_FREQUENCY "cpufreq",
** TRAK_TK_CPU_IDLE "cpuidle", TRAK_TK_CPU_MAX_FREQ_LIMIT, TRAK_TK_CPU_MIN_FREQ_LIMIT,
** sched_cpu_util_cfs' TRAK_TK_CPU_UTILIZATION "Cpu N Util", TRAK_TK_CPU_CAPACITY "Cpu N Cap",
** TRAK_TK_CPU_NR_RUNNING "Cpu N Nr Running") for CPU
** `cpu` (the event's field, not the CPU that recorded it). */
void trak__cpu_counter(trak_importer *imp, trak_track_kind_id kind, uint32_t cpu, int64_t ts,
                       double value);
/* The global counter track of `kind` for the device (a clock, a thermal zone, a cooling
** device) named [device, device + len), made on first use, named as Perfetto names
** it: TRAK_TK_CLOCK_FREQUENCY "<device> Frequency" (the track SysStats' devfreq also feeds),
** TRAK_TK_CLOCK_STATE "<device> State", TRAK_TK_THERMAL_TEMPERATURE "<device> Temperature",
** TRAK_TK_COOLING_DEVICE_COUNTER "<device> Cooling Device". */
uint32_t trak__device_counter_track(trak_importer *imp, trak_track_kind_id kind, const char *device,
                                    size_t len);
/* A value at ts on such a track (trak__device_counter_track). */
void trak__device_counter(trak_importer *imp, uint32_t track, int64_t ts, double value);
/* Track `track` is a row of the track table from ts on, with no event on it: Perfetto made it
** before it found the event's value missing. */
void trak__ftrace_track_made(trak_importer *imp, uint32_t track, int64_t ts);

/* Exynos ACPM's thermal_exynos_acpm_bulk / _high_overhead for thermal zone `tz_id` (0 BIG, 1
** MID, 2 LITTLE, 3 GPU, 4 ISP, 5 TPU, 6 AUR; another counts
** ftrace_thermal_exynos_acpm_unknown_tz_id): `temp` on "<zone> Temperature" (type
** acpm_thermal_temperature) and `cdev_state` on "Tj-<zone> Cooling Device" (type
** acpm_cooling_device_counter), each value with arg thermal_zone_id (cpu_counters.c). */
void trak__acpm_thermal(trak_importer *imp, int64_t ts, uint32_t tz_id, double temp,
                        double cdev_state);

/* ---- memory allocators (mem_events.c) -------------------------------------------------- */

/* ion_stat (`dma_heap` 0) or dma_heap_stat (1) run by thread `tid` on `cpu`: `total` on the
** global "mem.ion" (type ion) / "mem.dma_heap" (android_dma_heap) counter, `len` on the thread's
** "mem.ion_change" (ion_change) / "mem.dma_heap_change" (android_dma_heap_change, arg inode),
** and the slice "<len / 1024> kB" of buffer `buffer` (buffer_id, inode) begins (len > 0) or
** ends on its lane of "mem.ion_buffer" (android_ion_allocations) / "mem.dma_buffer"
** (android_dma_allocations). Queued, applied in timestamp order. */
void trak__ion_stat(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int dma_heap,
                    uint64_t buffer, int64_t len, uint64_t total);
/* A CMA event's figures (0 where the event has none). */
typedef struct trak_cma {
  uint32_t name; /* string id */
  uint64_t pfn, count, migrated, reclaimed, mapped;
  uint32_t err_iso, err_mig, err_test;
} trak_cma;
/* A Contiguous Memory Allocator event of `kind` (0 cma_alloc_start, 1
** mm_alloc_contig_migrate_range_info, 2 cma_alloc_finish, 3 cma_alloc_info) run by thread `tid`:
** queued, and in timestamp order, by the kernel's version (the trace's system info; unknown:
** nothing), a start begins a slice "mm_cma_alloc" on the thread's track (from 5.10), an info
** ends it with args cma_name, cma_pfn, cma_req_pages, cma_nr_migrated, cma_nr_reclaimed,
** cma_nr_mapped, cma_nr_isolate_fail, cma_nr_migrate_fail, cma_nr_test_fail (5.10 to 6.0); from
** 6.1 a finish ends it with the first six, the migration figures those of the thread's last
** migrate_range_info since its start (else 0). */
void trak__cma(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int kind,
               const trak_cma *c);

/* ---- GPU command batches (gpu_cmdbatch.c) ---------------------------------------------- */

/* kgsl_adreno_cmdbatch_queued by thread `tid` of context `id`: the context's process, from then
** on, is the thread's (queued, applied in timestamp order). */
void trak__cmdbatch_queued(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, uint32_t id);
/* kgsl_adreno_cmdbatch_sync at `ts` of the batch of `timestamp` (the event's field): the GPU's
** clock read `ticks` then. Read in trace order with the retired events. */
void trak__cmdbatch_sync(trak_importer *imp, int64_t ts, uint32_t timestamp, uint64_t ticks);
/* An event's generic ftrace_event row, as trak__ftrace_generic takes it. */
typedef struct trak_fraw {
  uint32_t tid, name, set;
  int64_t flags;
} trak_fraw;
/* kgsl_adreno_cmdbatch_retired on `cpu` at `ts` of the batch of `timestamp` of context `id` and
** priority `prio`, run on the GPU from tick `start` to `retire`: once the batch's sync event is
** read (before or after), a slice "GPU" on a lane of the track "GPU <process> (Ctx=<id>,
** Prio=<prio>)" (type adreno_gpu_cmdbatch; "GPU (Ctx=...)" when the context's process has no
** name) from its start on the GPU, queued and applied in timestamp order; retire < start: none.
** A sync read after it makes the event's raw row (`raw`, the caller made it once) again, as
** Perfetto's tokenizer does. */
void trak__cmdbatch_retired(trak_importer *imp, uint32_t cpu, int64_t ts, const trak_fraw *raw,
                            uint32_t timestamp, uint32_t id, uint32_t prio, uint64_t start,
                            uint64_t retire);

/* ---- networking (net_events.c) --------------------------------------------------------- */

/* netif_receive_skb (`xmit` 0) or net_dev_xmit (1; with rc != 0 the caller calls nothing) of
** `len` bytes on interface [dev, dev + dev_len) on `cpu`: the interface's bytes so far, in KB
** (rounded down), on "<dev> Received KB" (type net_receive) or "<dev> Transmitted KB"
** (net_transmit), each value with args cpu and len; queued, summed in timestamp order. */
void trak__net_bytes(trak_importer *imp, uint32_t cpu, int64_t ts, int xmit, const char *dev,
                     size_t dev_len, uint32_t len);
/* inet_sock_set_state run by thread `pid` on `cpu` of socket `skaddr`: a TCP (protocol 6) socket
** of family AF_INET (2) or AF_INET6 (10) whose states are known (0 to 12) enters `newstate`: on
** its stream's track "TCP stream#<n>" (type net_socket_set_state, streams numbered as first
** seen) the open slice ends and one of category tcp_state begins, named by the state
** ("TCP_SYN_SENT(pid=<pid>)", "TCP_ESTABLISHED(sport=..,dport=..)", else the state's name);
** others make nothing. Queued, applied in timestamp order. */
void trak__inet_sock_state(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t pid,
                           uint64_t skaddr, int64_t protocol, int64_t family, int64_t newstate,
                           int64_t oldstate, uint32_t sport, uint32_t dport);
/* tcp_retransmit_skb: a zero-length slice "sport=<sport>,dport=<dport>" of category tcp_event
** on the global "TCP Retransmit Skb" (type net_tcp_retransmit_skb). */
void trak__tcp_retransmit(trak_importer *imp, int64_t ts, uint32_t sport, uint32_t dport);
/* napi_gro_receive_entry on `cpu` of the device [name, name + len) with `bytes` (arg len): a
** slice of category napi_gro named by the device begins on "Napi Gro Cpu N" (type cpu_napi_gro);
** napi_gro_receive_exit ends it, arg ret. */
void trak__napi_gro_entry(trak_importer *imp, uint32_t cpu, int64_t ts, const char *name,
                          size_t len, int64_t bytes);
void trak__napi_gro_exit(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t ret);
/* kfree_skb of an IP (0x800) or IPv6 (0x86dd) packet: the count of such frees so far on the
** global "Kfree Skb IP Prot" (type net_kfree_skb), arg protocol "IP" / "IPV6"; queued. Other
** protocols: nothing. */
void trak__kfree_skb(trak_importer *imp, uint32_t cpu, int64_t ts, uint64_t protocol);

/* ---- storage (storage_events.c) -------------------------------------------------------- */

/* ufshcd_command: the commands in flight (the bits of `doorbell`; without it 0 for a completion,
** str_t 1, else 1) on the global "io.ufs.command.count" (type ufs_command_count), and on the
** tag's "io.ufs.command.tag[NNN]" (ufs_command_tag) a slice named by the SCSI opcode (with "
** (GID=0x..)" for a group id) begins (str_t 0) or ends. */
void trak__ufs_command(trak_importer *imp, int64_t ts, uint32_t doorbell, uint32_t str_t,
                       uint32_t tag, uint32_t opcode, uint32_t group_id);
/* ufshcd_clk_gating: the state (OFF 0, ON 1, REQ_OFF 2, REQ_ON 3) as 0, 3, 1, 2 on "io.ufs.clkgating
** (OFF:0/REQ_OFF/REQ_ON/ON:3)" (type ufs_clkgating). */
void trak__ufs_clk_gating(trak_importer *imp, int64_t ts, int64_t state);
/* f2fs_iostat (`latency` 0) or f2fs_iostat_latency (1) of device `dev` (a dev_t): value i of
** `values` (n of them) on the global counter "f2fs_iostat.[<major>:<minor>].<names[i]>" (or
** "f2fs_iostat_latency...", types f2fs_iostat, f2fs_iostat_latency; the device's numbers its
** low 16 bits', as Perfetto reads them). */
void trak__f2fs_iostat(trak_importer *imp, int64_t ts, int latency, uint64_t dev,
                       const char *const *names, const uint64_t *values, size_t n);
/* android_fs_dataread_start (`end` 0; thread `tid`, file `path`, a string id) or _end (1) of
** `bytes` at `offset` of inode `ino`: a start begins "android_fs_data_read" (args file_path,
** offset_start, bytes_read_start) on the lane of the global "android_fs" (type android_fs) of its
** thread, the end of the same inode and offset ends it (args offset_end, bytes_read_end); an end
** without a start makes nothing. Queued, applied in timestamp order. */
void trak__android_fs_read(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int end,
                           uint64_t ino, int64_t offset, int32_t bytes, uint32_t path);

/* ---- virtio-gpu (virtio_gpu.c) --------------------------------------------------------- */

/* virtio_gpu_cmd_queue (`response` 0) or virtio_gpu_cmd_response (1) on queue [queue, queue +
** len) ("control" or "cursor"; another: nothing) of command `seqno` of `type` with `fence_id`,
** the queue having `num_free` free slots: queued, then in timestamp order num_free on "Virtgpu
** <Queue> Free" (type virtgpu_num_free), the command a slice named by its type (CTX_CREATE,
** SUBMIT_3D, ...; "" for others) from queueing to response on a lane (by seqno) of "Virtgpu
** <Queue> Queue" (virtgpu_queue_event), and for a command without a fence the time to its
** response on "Virtgpu <Queue> Latency" (virtgpu_latency). */
void trak__virtgpu_cmd(trak_importer *imp, uint32_t cpu, int64_t ts, int response,
                       const char *queue, size_t len, uint32_t seqno, uint32_t type,
                       uint64_t fence_id, uint32_t num_free);

/* ---- DRM: vblanks, the GPU scheduler, dma fences (drm.c) ------------------------------- */

/* The DRM events Perfetto's drm tracker reads. */
enum trak_drm_kind {
  TRAK_DRM_VBLANK,           /* drm_vblank_event: id0 crtc, id1 seq */
  TRAK_DRM_VBLANK_DELIVERED, /* drm_vblank_event_delivered: the same */
  TRAK_DRM_SCHED_QUEUE,      /* drm_sched_job, drm_sched_job_queue: name the ring, the job */
  TRAK_DRM_SCHED_RUN,        /* drm_run_job, drm_sched_job_run: the same */
  TRAK_DRM_SCHED_DONE,       /* drm_sched_process_job, drm_sched_job_done: the job */
  TRAK_DMA_FENCE_INIT,       /* dma_fence_init: name the timeline, id0 context, id1 seqno */
  TRAK_DMA_FENCE_EMIT,       /* dma_fence_emit: the same */
  TRAK_DMA_FENCE_SIGNALED,   /* dma_fence_signaled: the same */
  TRAK_DMA_FENCE_WAIT_START, /* dma_fence_wait_start: id0 context, id1 seqno */
  TRAK_DMA_FENCE_WAIT_END    /* dma_fence_wait_end */
};
/* The ids a scheduler job is known by (bits of trak_drm_ev.job): its fence (id0 context, id1
** seqno: the 6.17 kernel's events), else a global id (id0: the fence) and a local one (id1). */
enum { TRAK_DRM_JOB_FENCE = 1, TRAK_DRM_JOB_GLOBAL = 2, TRAK_DRM_JOB_LOCAL = 4 };
typedef struct trak_drm_ev {
  uint8_t kind;  /* enum trak_drm_kind */
  uint8_t job;   /* scheduler events: TRAK_DRM_JOB_* bits */
  uint32_t name; /* the ring's or the timeline's name (string id) */
  uint64_t id0, id1;
} trak_drm_ev;
/* A DRM event of thread `tid` at `ts`, queued and applied in timestamp order as Perfetto's drm
** tracker applies it: vblanks are instants "signal" / "deliver" (arg "vblank seqno") on
** "vblank-<crtc>" (type drm_vblank); a queued job an instant "drm_sched_job_queue" on its
** thread (args "gpu sched ring", then "fence context" and "fence seqno", or "gpu sched job"),
** its run a slice "job" on "sched-<ring>" (drm_sched_ring) while it is the ring's first running
** job, with a flow from its queueing; a fence a slice "fence" (arg "fence seqno") on
** "fence-<timeline>-<context>" (drm_fence) from its init (or emit, once the timeline has emits)
** while first pending, to its signal; a wait a slice "dma_fence_wait" on the thread. Timelines
** named "unbound" are ignored; a done of no running job, a signal of no pending fence make
** nothing. */
void trak__drm_event(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                     const trak_drm_ev *e);

/* ---- V4L2 buffers (v4l2.c) ------------------------------------------------------------- */

enum trak_v4l2_kind {
  TRAK_V4L2_QBUF,          /* v4l2_qbuf */
  TRAK_V4L2_DQBUF,         /* v4l2_dqbuf */
  TRAK_V4L2_VB2_BUF_QUEUE, /* vb2_v4l2_buf_queue */
  TRAK_V4L2_VB2_BUF_DONE,  /* vb2_v4l2_buf_done */
  TRAK_V4L2_VB2_QBUF,      /* vb2_v4l2_qbuf */
  TRAK_V4L2_VB2_DQBUF      /* vb2_v4l2_dqbuf */
};
/* A buffer's timecode, by index in trak_v4l2_buf.tc. */
enum {
  TRAK_V4L2_TC_TYPE,
  TRAK_V4L2_TC_FLAGS,
  TRAK_V4L2_TC_FRAMES, /* then seconds, minutes, hours, userbits0 to 3 */
  TRAK_V4L2_TC_COUNT = TRAK_V4L2_TC_FRAMES + 8
};
typedef struct trak_v4l2_buf {
  uint8_t kind;   /* enum trak_v4l2_kind */
  uint8_t vidioc; /* v4l2_qbuf / v4l2_dqbuf: index, type and bytesused are known */
  int32_t minor;
  uint32_t index, type, bytesused, flags, field, sequence;
  int64_t timestamp;
  uint32_t tc[TRAK_V4L2_TC_COUNT];
} trak_v4l2_buf;
/* A V4L2 buffer event of thread `tid` at `ts`: queued, then in timestamp order an instant of
** category "Video 4 Linux 2" on the thread ("VIDIOC_QBUF minor=.. seq=.. type=.. index=..",
** the vb2 events by their event's name, type and index 0) with the buffer's fields as args, and
** a flow from a VIDIOC_QBUF to the next VIDIOC_DQBUF of the same minor, sequence, type and
** index. */
void trak__v4l2_event(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                      const trak_v4l2_buf *b);

/* ---- virtio-video (virtio_video.c) ----------------------------------------------------- */

enum trak_vvideo_kind {
  TRAK_VVIDEO_CMD,                /* virtio_video_cmd */
  TRAK_VVIDEO_CMD_DONE,           /* virtio_video_cmd_done */
  TRAK_VVIDEO_RESOURCE_QUEUE,     /* virtio_video_resource_queue */
  TRAK_VVIDEO_RESOURCE_QUEUE_DONE /* virtio_video_resource_queue_done */
};
typedef struct trak_vvideo_ev {
  uint8_t kind;        /* enum trak_vvideo_kind */
  uint32_t stream_id;  /* the stream */
  uint32_t type;       /* commands: the command's type */
  uint32_t queue_type; /* resources: the queue's type (0x100 INPUT, 0x101 OUTPUT) */
  int32_t resource_id;
  uint32_t data_size[4];
  uint64_t timestamp;
} trak_vvideo_ev;
/* A virtio-video event at `ts`: queued, then in timestamp order a command is a slice of 100 us
** named by its type on a lane of "virtio_video stream #<id> Requests" (or "Responses"; type
** virtio_video_command); a queued resource begins "Resource #<id>" on the resource's lane of
** "virtio_video stream #<id> <INPUT|OUTPUT|Unknown>" (virtio_video_queue_event), its done ends
** it with the done's fields as args. */
void trak__virtio_video_event(trak_importer *imp, uint32_t cpu, int64_t ts,
                              const trak_vvideo_ev *e);

/* ---- GPU memory (gpu_mem.c) ------------------------------------------------------------ */

/* The "GPU Memory" counter track (unit bytes) of GPU `gpu` (its gpu row `ugpu`): the GPU's
** total (type gpu_memory) for upid TRAK_NULL_U32, else process `upid`'s (process_gpu_memory),
** made on first use. Can't fail. */
uint32_t trak__gpu_memory_track(trak_importer *imp, uint32_t ugpu, uint32_t gpu, uint32_t upid);
/* gpu_mem_total at `ts`: `size` bytes of GPU `gpu` (gpu row `ugpu`) used by process `pid` (0:
** the GPU's total). Queued, then in timestamp order a value of the track above; an event of a
** pid no live thread has is dropped (a kworker's after the process died), as Perfetto drops
** it, and the thread of a pid that has one becomes its process's main thread. */
void trak__gpu_mem_total(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t ugpu,
                         uint32_t gpu, uint32_t pid, uint64_t size);

/* ---- interrupts (irq.c) ---------------------------------------------------------------- */

/* irq_handler_entry on `cpu`: a slice "IRQ (<name>)" (name [s, s + len)) of category "irq"
** begins on the CPU's "Irq Cpu N" track (type cpu_irq). */
void trak__irq_entry(trak_importer *imp, uint32_t cpu, int64_t ts, const char *name, size_t len);
/* irq_handler_exit on `cpu`: the CPU's open irq slice ends, with arg ret "handled" (ret 1) or
** "unhandled". An exit without an entry counts end_unmatched. */
void trak__irq_exit(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t ret);
/* softirq_entry on `cpu`: a slice named by the action `vec` (HI, TIMER, NET_TX, NET_RX, BLOCK,
** IRQ_POLL, TASKLET, SCHED, HRTIMER, RCU) begins on "SoftIrq Cpu N" (type cpu_softirq); another
** vec is ignored (Perfetto's too). softirq_exit ends it with arg vec. */
void trak__softirq_entry(trak_importer *imp, uint32_t cpu, int64_t ts, uint64_t vec);
void trak__softirq_exit(trak_importer *imp, uint32_t cpu, int64_t ts, int64_t vec);
/* hrtimer_expire_entry on `cpu` of the timer callback named `name` (a string id: its kernel
** symbol, or its address as "0xffff..." when the trace has none): a slice of category
** "hrtimer" of that name begins on "Hrtimer Cpu N" (type cpu_hrtimer); hrtimer_expire_exit ends
** it. */
void trak__hrtimer_entry(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t name);
void trak__hrtimer_exit(trak_importer *imp, uint32_t cpu, int64_t ts);

/* local_timer_entry on `cpu`: a slice "IRQ (LocalTimer)" of category "irq" begins on the CPU's
** irq track; local_timer_exit ends it. */
void trak__local_timer_entry(trak_importer *imp, uint32_t cpu, int64_t ts);
void trak__local_timer_exit(trak_importer *imp, uint32_t cpu, int64_t ts);

/* ---- page reclaim (vmscan.c) ----------------------------------------------------------- */

/* mm_vmscan_direct_reclaim_begin run by thread `tid`: a slice "mm_vmscan_direct_reclaim" begins
** on its track, args direct_reclaim_order, direct_reclaim_may_writepage (int) and
** direct_reclaim_gfp_flags (uint); mm_vmscan_direct_reclaim_end ends the thread's innermost open
** slice with arg direct_reclaim_nr_reclaimed (uint). Queued, applied in timestamp order. */
void trak__direct_reclaim_begin(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                                int64_t order, int64_t may_writepage, uint64_t gfp_flags);
void trak__direct_reclaim_end(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                              uint64_t nr_reclaimed);
/* mm_shrink_slab_start of the shrinker named `shrink_name` (a string id: its kernel symbol, or
** its address as "0xffff...") run by thread `tid`: a slice "mm_vmscan_shrink_slab" begins on its
** track, args shrink_name, total_scan (uint), priority (int);
** mm_shrink_slab_end ends the innermost open slice with arg freed (int, its retval). */
void trak__shrink_slab_start(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                             uint32_t shrink_name, uint64_t total_scan, int64_t priority);
void trak__shrink_slab_end(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                           int64_t retval);

/* ---- block device requests (block_io.c) ------------------------------------------------ */

/* block_io_start of a request to block device `dev` (the kernel's dev_t) at `sector`: a slice
** "block_io" (no category) begins on the device's track (type block_io, dimension
** block_device, no name; a counter track, as Perfetto's blueprint declares it), with arg
** sector (uint). block_io_done ends the device's innermost open slice (whatever its sector:
** Perfetto pairs them last in, first out), its sector replacing the begin's; a done with none
** open still makes the track. */
void trak__block_io_start(trak_importer *imp, int64_t ts, uint64_t dev, uint64_t sector);
void trak__block_io_done(trak_importer *imp, int64_t ts, uint64_t dev, uint64_t sector);

/* ---- slices on thread tracks (thread_slices.c) ----------------------------------------- */

/* signal_generate (`deliver` 0; `tid` the thread signalled) or signal_deliver (1; `tid` the
** thread receiving, the event's writer) of signal `sig` on `cpu`: an instant of that name on the
** thread's track with arg signal.sig, queued and applied in timestamp order. */
void trak__signal(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int deliver,
                  int32_t sig);
/* workqueue_execute_start of the work function named `name` (a string id: its kernel symbol, or
** its address as "0xffff...") run by thread `tid` on `cpu`: a slice of category "workqueue" of
** that name begins on the thread's track, with arg cpu when `cpu_arg` (Perfetto's text path
** gives none); workqueue_execute_end ends it. Queued and applied in timestamp order. */
void trak__workqueue_start(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                           uint32_t name, int cpu_arg);
void trak__workqueue_end(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid);
/* A kprobe_event of KprobeEvent.type `type` (1 begin, 2 end, 3 instant; anything else: nothing)
** named `name` (a string id) written by thread `tid` on `cpu`: a slice begins or ends, or a
** zero-length slice is made, on the thread's track, as Perfetto's parser makes them. Queued and
** applied in timestamp order. */
void trak__kprobe(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int64_t type,
                  uint32_t name);
/* funcgraph_entry (`entry` 1) or funcgraph_exit (0) of the kernel function named `name` (a
** string id: its symbol, or its address as "0xffff...") run by thread `tid` on `cpu`: a slice
** begins or ends on the thread's "Funcgraph" track (type thread_funcgraph), queued and applied
** in timestamp order; the idle tasks' (tid 0) on "swapper<cpu> -funcgraph" (type
** cpu_funcgraph), as Perfetto's parser makes them. */
void trak__funcgraph(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int entry,
                     uint32_t name);
/* A mark_victim event on `cpu`: the OOM killer chose thread `tid`, a zero-length slice
** "mem.oom_kill" on that thread's track, as Perfetto's parser makes it. Queued and applied in
** timestamp order. */
void trak__oom_victim(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid);

/* raw_syscalls' sys_enter of call `id` by thread `tid` on `cpu` (`data`, `len`: the event's
** bytes, for its args): a slice named by the call begins on the thread's track (an instant for
** sys_rt_sigreturn); sys_exit ends it, with arg ret when `has_ret`. Queued and applied in
** timestamp order (syscalls.c). */
void trak__sys_enter(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int64_t id,
                     const uint8_t *data, size_t len);
void trak__sys_exit(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int64_t id,
                    int has_ret, int64_t ret);

/* ---- kernel track events (kernel_tracks.c) --------------------------------------------- */

/* Whose track a kernel track event goes on: the thread that wrote it, the process of its
** scope_tgid field, the CPU of its scope_cpu field, or the number of another scope_* field. */
enum trak_kte_scope { TRAK_KTE_THREAD, TRAK_KTE_PROCESS, TRAK_KTE_CPU, TRAK_KTE_CUSTOM };
/* What it does, besides a slice's type letter ('B' begin, 'E' end, 'I' instant; any other
** char makes its track and counts kernel_trackevent_format_error). */
enum {
  TRAK_KTE_COUNTER = 0x100,  /* a counter value */
  TRAK_KTE_NO_TRACK = 0x101, /* a field it needs for its track is missing: the stat only */
  TRAK_KTE_BAD = 0x102       /* a field it needs past its track is missing: track and stat */
};
/* A self-describing event following Perfetto's kernel track event convention, as read. */
typedef struct trak_kte {
  int what;            /* a type letter or TRAK_KTE_* above */
  uint8_t scope;       /* enum trak_kte_scope */
  uint8_t counter;     /* its track is a counter track (the event has counter_value) */
  int64_t scope_value; /* the scope field's value (a tgid, a CPU, a number) */
  uint32_t tracepoint; /* the event's name (string id) */
  uint32_t track_name; /* its track_name field, else the event's name (string id) */
  uint32_t slice_name; /* slices: slice_name (string id) */
  int64_t value;       /* counters: counter_value */
} trak_kte;
/* Kernel track event `e` written by thread `tid` on `cpu`: queued, then in timestamp order its
** track (by scope, tracepoint and track name, named by the track name; types
** kernel_trackevent_{thread,process,cpu,custom}_{slice,counter}) gets a slice without category
** (begin, end of the innermost, instant of dur 0) or a counter value, as Perfetto makes them.
** Before the trace's data is complete on every CPU it is dropped (Perfetto parses it only then). */
void trak__kernel_track_event(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                              const trak_kte *e);

/* ---- power (suspend_resume.c, wakesource.c) ----------------------------------------------------------- */

/* suspend_resume run by thread `tid` on `cpu`: the phase `action` ([s, s + len)) with `val`
** begins (start != 0) or ends, as a slice "action(val)" on the lanes of the global track
** "Suspend/Resume Latency" (type suspend_resume), queued and applied in timestamp order. */
void trak__suspend_resume(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                          const char *action, size_t len, int32_t val, int start);

/* wakeup_source_activate (activate != 0) or _deactivate of the source named [name, name + len)
** on `cpu`: queued, then a "Wakelock(<name>)" slice on the source's wakesource_wakelock track
** from its first activation to its balancing deactivation (wakesource.c). */
void trak__wakesource(trak_importer *imp, uint32_t cpu, int64_t ts, const char *name, size_t len,
                      int activate);

/* ---- atrace markers (print, tracing_mark_write, systrace "0" events) -------------------- */

/* The marker text [s, s + len) written by thread `tid` (of process `tgid`, -1: unknown) on
** `cpu`: copied and queued (its threads are looked up in timestamp order with the kernel's
** events, as Perfetto's), then parsed by util/atrace_marker.c and turned into thread slices (B/E), process counters
** (C), async slices (S/F, G/H), instants (I/N), as Perfetto does. Unparsable text counts
** systrace_parse_failure. */
void trak__atrace_marker(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int64_t tgid,
                         const char *s, size_t len);

/* ---- generic rows ----------------------------------------------------------------------- */

/* An arg set for a generic event is built with these, then handed to trak__ftrace_generic:
**   uint32_t set = trak__ftrace_args_begin(imp);
**   trak__ftrace_arg_int(imp, set, key, v); trak__ftrace_arg_str(imp, set, key, str); ...
** `key` is a string id (the field's name). The set is the args rows appended since begin. */
uint32_t trak__ftrace_args_begin(trak_importer *imp);
void trak__ftrace_arg_int(trak_importer *imp, uint32_t set, uint32_t key, int64_t v);
void trak__ftrace_arg_uint(trak_importer *imp, uint32_t set, uint32_t key, uint64_t v);
void trak__ftrace_arg_str(trak_importer *imp, uint32_t set, uint32_t key, uint32_t str);
void trak__ftrace_arg_real(trak_importer *imp, uint32_t set, uint32_t key, double v);

/* An arg set built as Perfetto builds an ftrace event's: a key given again replaces the value
** of its row (which keeps its place), so each key has one row. */
typedef struct trak_fargs {
  uint32_t begin; /* the set's first row */
  trak_map index; /* key -> row, once the set is large */
} trak_fargs;
void trak__ftrace_fargs_begin(trak_importer *imp, trak_fargs *a);
/* Adds (or replaces) key `key` (string id) of `type`: `i` for an integer, `str` for a string,
** `real` for a real (the others 0). */
void trak__ftrace_fargs_add(trak_importer *imp, trak_fargs *a, uint32_t key, trak_arg_type type,
                            int64_t i, uint32_t str, double real);
/* Frees the index and closes the set (trak__ftrace_args_close): returns its id. */
uint32_t trak__ftrace_fargs_close(trak_importer *imp, trak_fargs *a);

/* Closes the set begun at `set` (trak__ftrace_args_begin): returns an identical earlier set
** when there is one (the new rows are dropped), else `set`; TRAK_NULL_U32 when it has no rows.
** Build one set at a time: no other args rows may be added between begin and close. */
uint32_t trak__ftrace_args_close(trak_importer *imp, uint32_t set);
/* The arg set cached for `kind` (a front-end's: below 2^29) and the bytes [key, key + len): a
** set made from the same values before; TRAK_NULL_U32 when none. */
uint32_t trak__ftrace_args_cached(trak_importer *imp, uint32_t kind, const void *key, size_t len);
/* The hash that cache keys (kind, key bytes) by: trak__ftrace_args_cached_h takes it made
** elsewhere (on the decoding thread: it reads nothing but the bytes). */
uint64_t trak__ftrace_args_hash(uint32_t kind, const void *key, size_t len);
uint32_t trak__ftrace_args_cached_h(trak_importer *imp, uint64_t hash, uint32_t kind,
                                    const void *key, size_t len);
/* Caches `set`, which trak__ftrace_args_close returned for the set begun at `begin`, made from
** (kind, key bytes), when it was shared (an earlier set): only values seen twice are kept, and
** only what trak__ftrace_args_close would return again. Make sure making the set reported
** nothing (a hit does not report it again). */
void trak__ftrace_args_cache(trak_importer *imp, uint32_t kind, const void *key, size_t len,
                             uint32_t set, uint32_t begin);
/* The string id of generic event `name`, the event of field `number`, interned once per
** number. */
uint32_t trak__ftrace_event_name(trak_importer *imp, uint32_t number, const char *name);

/* An ftrace_event row (the `raw` table): event `name` (string id) run by thread `tid` on `cpu`,
** with `common_flags` (TRAK_FTRACE_NO_FLAGS: 0) and the closed arg set `set`
** (trak__ftrace_args_close; TRAK_NULL_U32: none). Typed events the sink models add
** their own row (sched_switch, and sched_waking when given a name); a front-end calls this for
** every other event. `ksyms`: the kernel-symbol lookups Perfetto makes for the event, each a
** failure for want of symbols (interned_data_tokenizer_errors): `ksyms & 0xff` for the row's
** args, counted unless the event is dropped (before tracing started), `ksyms >> 8` for its
** parsing, counted unless it is cropped to its row (crop.c). 0 for a front-end without them. */
void trak__ftrace_generic(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, uint32_t name,
                          int64_t common_flags, uint32_t set, uint32_t ksyms);

/* ---- per-CPU bookkeeping ---------------------------------------------------------------- */

/* The protobuf front-end reads the bundle of `cpu` (-1: the bundle ended): the records of its
** typed events go to that CPU's queue, as Perfetto's sorter keeps a stream per CPU (which
** decides the order of events of different CPUs at one timestamp, ftrace_queue.c). Outside a
** bundle (systrace text) every record goes to one queue. */
void trak__ftrace_bundle_cpu(trak_importer *imp, int64_t cpu);

/* The front-end saw data of `cpu` (a bundle, a line): the cpu table gets its row. */
void trak__ftrace_cpu_seen(trak_importer *imp, uint32_t cpu);

/* ---- per-CPU stats (ftrace_stats.c) ---------------------------------------------------- */

/* An FtraceStats packet's figures of `cpu` at the start (end 0) or end (end 1) of the trace, in
** the order entries, overrun, commit_overrun, bytes_read, dropped_events, read_events, now_ts
** and oldest_event_ts (those two in ns): ftrace_cpu_*_begin / _end, and _delta at the end. */
void trak__ftrace_cpu_stats(trak_importer *imp, int end, int64_t cpu, const int64_t figures[8]);
/* An FtraceStats packet at the start of the trace, of sequence `seq_id`, says the recorder could
** not set something up: the message `prefix` followed by [s, s + len) ("Ftrace event failed: "
** and the event's name). Counts ftrace_setup_errors, reports the message and logs it in
** _trace_import_logs (arg "message"), as Perfetto does for the first such packet of a sequence
** only: errors of its later packets are ignored. */
void trak__ftrace_setup_error(trak_importer *imp, uint32_t seq_id, const char *prefix,
                              const uint8_t *s, size_t len);
/* A bundle of `cpu` said lost_events: ftrace_cpu_has_data_loss[cpu] = 1 (a flag per CPU, as
** Perfetto sets it, however many bundles say so). */
void trak__ftrace_cpu_loss(trak_importer *imp, uint32_t cpu);
/* ftrace_cpu_has_data_loss summed over CPUs: how many CPUs lost data. */
int64_t trak__ftrace_loss_total(const trak_importer *imp);
/* Row `i` of those stats, in stat order then by CPU (once trak__ftrace_finish ran); 0 past the
** last. `out`'s def points at a static definition. */
struct trak_traced_row;
int trak__ftrace_stats_row(const trak_importer *imp, size_t i, struct trak_traced_row *out);

/* ---- the importer's lifetime (ftrace_queue.c) ------------------------------------------- */

/* Applies the queued events in timestamp order (ties as Perfetto's sorter orders them: see
** trak__ftrace_bundle_cpu) and fills
** sched_slice, thread_state, spurious_sched_wakeup, ftrace_event and cpu. Called once, after
** tokenizing and before the parse phase (trak__events_parse). Nothing queued: does nothing. */
void trak__ftrace_finish(trak_importer *imp);
/* Frees imp->ftrace (the rows stay in the tables). */
void trak__ftrace_free(trak_importer *imp);

#endif /* TRAK_PROCESSOR_IMPORT_FTRACE_FTRACE_H */
