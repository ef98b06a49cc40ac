/*
** Track kinds as data (track_kinds.c): every kind of track the importers make, as one entry of
** TRAK_TRACK_KINDS with Perfetto's type name, its scope, the dimension args that tell it from
** its siblings, and the source args it carries. tracks.c writes each track's row from its
** kind's entry; adding a kind (a Linux counter, a thread-state track, ...) is one entry here.
** Implied tracks (those the format implies rather than describes) are found by a key made
** from their kind and dimensions (trak__track_key).
*/
#ifndef TRAK_PROCESSOR_IMPORT_TRACK_KINDS_H
#define TRAK_PROCESSOR_IMPORT_TRACK_KINDS_H

#include <stdint.h>

/* The scope of a kind: the table column that holds its owner (none, upid, utid). */
enum trak_track_scope { TRAK_SCOPE_GLOBAL, TRAK_SCOPE_PROCESS, TRAK_SCOPE_THREAD };

/* Dimension args, in the order they are written: the owner (utid when the track has a
** thread, else upid when it has a process), then what tells the track from its siblings. */
enum trak_track_dim {
  TRAK_DIM_UTID = 1 << 0,       /* "utid", when the track has a thread */
  TRAK_DIM_UPID = 1 << 1,       /* "upid", when it has a process (and no utid dimension) */
  TRAK_DIM_TRACK_UUID = 1 << 2, /* "track_uuid": a descriptor's uuid */
  TRAK_DIM_MERGE = 1 << 3,      /* "parent_track_uuid", "merge_key_type", "merge_key_value" */
  TRAK_DIM_ASYNC_ID = 1 << 4,   /* "scope", "name": a legacy async id's scope and first name */
  TRAK_DIM_NAME = 1 << 5,       /* "name" */
  TRAK_DIM_SESSION = 1 << 6,    /* "session_id" of a concurrent tracing session */
  TRAK_DIM_LANE = 1 << 7,       /* "track_compressor_idx": the lane of a set of tracks */
  TRAK_DIM_CPU = 1 << 8,        /* "cpu": the CPU of a per-CPU track (held in its info's lane) */
  TRAK_DIM_KEY = 1 << 9,  /* a string naming one of the kind's counters ("meminfo_key": "MemFree";
                         ** trak__track_kind_key names the arg; held in its info's dim_key) */
  TRAK_DIM_IRQ = 1 << 10, /* "irq": an interrupt's number (held in its info's lane) */
  TRAK_DIM_BLOCK_DEVICE = 1 << 11, /* "block_device": a block device's dev_t (held in its info's
                                   ** dim_int) */
  TRAK_DIM_SCOPE = 1 << 12,        /* "scope": a kernel track event's scope number (dim_int) */
  TRAK_DIM_TRACEPOINT = 1 << 13,   /* "tracepoint" (dim_key) then "name" (the track's name), after
                                 ** the owner (utid, upid, cpu or scope): kernel track events */
  TRAK_DIM_NAMED_COUNTER = 1 << 14, /* trak__track_kind_key's name ("battery_name",
                                  ** "device_name": a string id held in lane, 0: NULL), then
                                  ** "counter_name" (dim_key): one of a device's gauges */
  TRAK_DIM_GPU = 1 << 15,          /* "ugpu" (lane) and "gpu" (dim_int): a GPU's counters */
  TRAK_DIM_POWER_RAIL = 1 << 16,   /* "name" (dim_key: the rail's name) and "session_uuid"
                                   ** (dim_int): a power rail of a power HAL session */
  TRAK_DIM_ENERGY_CONSUMER = 1 << 17, /* "energy_consumer_id" (dim_int) */
  TRAK_DIM_UID = 1 << 18,             /* "uid" (lane): an Android app */
  TRAK_DIM_ENTITY_STATE = 1 << 19,    /* "entity_name" (lane), "state_name" (dim_key) */
  TRAK_DIM_GPU_NAME = 1 << 20,        /* after TRAK_DIM_GPU: "name" (the track's name) */
  TRAK_DIM_RENDER_STAGE = 1 << 21,    /* "ugpu" (lane), "gpu" (its gpu row's), "render_stage_source"
                                      ** (scope), "hwqueue_id" (dim_int), "hwqueue_name" (dim_key),
                                      ** "track_compressor_idx" (rank: its lane) */
  TRAK_DIM_PERF = 1 << 22, /* "cpu" (lane), "perf_session_id" (dim_int), "name": a perf counter */
  TRAK_DIM_DRM_CRTC = 1 << 23, /* "drm_crtc" (lane): a display controller's vblanks */
  TRAK_DIM_DRM_FENCE = 1 << 24, /* "name" (dim_key) and "context" (lane): a dma fence timeline */
  TRAK_DIM_VIRTIO_VIDEO = 1 << 25, /* before TRAK_DIM_LANE: "virtio_stream_id" (dim_int's high
                                   ** half), then "virtio_queue_type" (queue events) or
                                   ** "is_response" (commands) (its low half) */
  TRAK_DIM_GPU_UPID = 1 << 26,     /* after TRAK_DIM_GPU: "upid" (a process's GPU figures) */
  TRAK_DIM_BUDDYINFO = 1 << 27     /* "buddyinfo_node" (lane: a string id), "buddyinfo_zone"
                                   ** (dim_key), "buddyinfo_chunk_size_kb" (dim_int) */
};
#define TRAK_DIM_OWNER (TRAK_DIM_UTID | TRAK_DIM_UPID)

/* The source args a kind's tracks carry. */
enum trak_track_source {
  TRAK_SOURCE_NONE,
  TRAK_SOURCE_DESCRIPTOR,  /* source "descriptor", trace_id, is_root_in_scope, viewer hints */
  TRAK_SOURCE_CHROME,      /* source "chrome" */
  TRAK_SOURCE_CHROME_ASYNC, /* source "chrome" and the async id's scope and process */
  TRAK_SOURCE_POWER_RAIL,   /* raw_name (dim_key), subsystem_name (scope) */
  TRAK_SOURCE_ENERGY_CONSUMER, /* consumer_type (scope), ordinal (rank) */
  TRAK_SOURCE_PERF,            /* is_timebase (rank) */
  TRAK_SOURCE_DESCRIPTION      /* description (its info's description) */
};

/* X(ID, Perfetto's type, scope, dimensions, source, te): te is 1 when the kind's events are
** TrackEvents (which the range of interest crops). Descriptor kinds come in GLOBAL, PROCESS,
** THREAD triples (trak__track_kind_scoped relies on the order). */
#define TRAK_TRACK_KINDS(X)                                                                        \
  X(NONE, "", GLOBAL, 0, NONE, 1) /* not set: a descriptor track, whose kind its scope decides */  \
  X(GLOBAL_TRACK_EVENT, "global_track_event", GLOBAL, TRAK_DIM_OWNER | TRAK_DIM_TRACK_UUID,        \
    DESCRIPTOR, 1)                                                                                 \
  X(PROCESS_TRACK_EVENT, "process_track_event", PROCESS, TRAK_DIM_OWNER | TRAK_DIM_TRACK_UUID,     \
    DESCRIPTOR, 1)                                                                                 \
  X(THREAD_TRACK_EVENT, "thread_track_event", THREAD, TRAK_DIM_OWNER | TRAK_DIM_TRACK_UUID,        \
    DESCRIPTOR, 1)                                                                                 \
  X(GLOBAL_MERGED_TRACK_EVENT, "global_merged_track_event", GLOBAL,                                \
    TRAK_DIM_OWNER | TRAK_DIM_MERGE | TRAK_DIM_LANE, DESCRIPTOR, 1)                                \
  X(PROCESS_MERGED_TRACK_EVENT, "process_merged_track_event", PROCESS,                             \
    TRAK_DIM_OWNER | TRAK_DIM_MERGE | TRAK_DIM_LANE, DESCRIPTOR, 1)                                \
  X(THREAD_MERGED_TRACK_EVENT, "thread_merged_track_event", THREAD,                                \
    TRAK_DIM_OWNER | TRAK_DIM_MERGE | TRAK_DIM_LANE, DESCRIPTOR, 1)                                \
  X(GLOBAL_COUNTER_TRACK_EVENT, "global_counter_track_event", GLOBAL,                              \
    TRAK_DIM_OWNER | TRAK_DIM_TRACK_UUID, DESCRIPTOR, 1)                                           \
  X(PROCESS_COUNTER_TRACK_EVENT, "process_counter_track_event", PROCESS,                           \
    TRAK_DIM_OWNER | TRAK_DIM_TRACK_UUID, DESCRIPTOR, 1)                                           \
  X(THREAD_COUNTER_TRACK_EVENT, "thread_counter_track_event", THREAD,                              \
    TRAK_DIM_OWNER | TRAK_DIM_TRACK_UUID, DESCRIPTOR, 1)                                           \
  X(GLOBAL_STATE_TRACK_EVENT, "global_state_track_event", GLOBAL,                                  \
    TRAK_DIM_OWNER | TRAK_DIM_TRACK_UUID, DESCRIPTOR, 1)                                           \
  X(PROCESS_STATE_TRACK_EVENT, "process_state_track_event", PROCESS,                               \
    TRAK_DIM_OWNER | TRAK_DIM_TRACK_UUID, DESCRIPTOR, 1)                                           \
  X(THREAD_STATE_TRACK_EVENT, "thread_state_track_event", THREAD,                                  \
    TRAK_DIM_OWNER | TRAK_DIM_TRACK_UUID, DESCRIPTOR, 1)                                           \
  /* a legacy thread_descriptor's (and a JSON thread's) track */                                   \
  X(THREAD_EXECUTION, "thread_execution", THREAD, TRAK_DIM_OWNER, NONE, 1)                         \
  /* implied by the formats */                                                                     \
  X(THREAD_OVERLAPPING_SLICE, "thread_overlapping_slice", THREAD, TRAK_DIM_OWNER | TRAK_DIM_LANE,  \
    NONE, 1)                                                                                       \
  X(THREAD_TIME, "thread_time", THREAD, TRAK_DIM_OWNER, NONE, 1)                                   \
  X(THREAD_INSTRUCTIONS, "thread_instructions", THREAD, TRAK_DIM_OWNER, NONE, 1)                   \
  X(LEGACY_ASYNC_PROCESS_SLICE, "legacy_async_process_slice", PROCESS,                             \
    TRAK_DIM_UPID | TRAK_DIM_ASYNC_ID | TRAK_DIM_LANE, CHROME_ASYNC, 1)                            \
  X(LEGACY_ASYNC_GLOBAL_SLICE, "legacy_async_global_slice", GLOBAL,                                \
    TRAK_DIM_UPID | TRAK_DIM_ASYNC_ID | TRAK_DIM_LANE, CHROME_ASYNC, 1)                            \
  X(CHROME_PROCESS_INSTANT, "chrome_process_instant", PROCESS, TRAK_DIM_OWNER, CHROME, 1)          \
  X(LEGACY_CHROME_GLOBAL_INSTANTS, "legacy_chrome_global_instants", GLOBAL, 0, CHROME, 1)          \
  X(CHROME_PROCESS_STATS, "chrome_process_stats", PROCESS, TRAK_DIM_OWNER, CHROME, 0)              \
  X(JSON_COUNTER, "json_counter", PROCESS, TRAK_DIM_OWNER | TRAK_DIM_NAME, NONE, 1)                \
  X(TRIGGERS, "triggers", GLOBAL, TRAK_DIM_OWNER, NONE, 0)                                         \
  X(CONCURRENT_TRACING_SESSIONS, "concurrent_tracing_sessions", GLOBAL,                            \
    TRAK_DIM_OWNER | TRAK_DIM_SESSION, NONE, 0)                                                    \
  /* per-CPU counters of ftrace (import/ftrace/cpu_counters.c names them) */                       \
  X(CPU_FREQUENCY, "cpu_frequency", GLOBAL, TRAK_DIM_CPU, NONE, 0)                                 \
  X(CPU_IDLE, "cpu_idle", GLOBAL, TRAK_DIM_CPU, NONE, 0)                                           \
  X(CPU_MAX_FREQ_LIMIT, "cpu_max_frequency_limit", GLOBAL, TRAK_DIM_CPU, NONE, 0)                  \
  X(CPU_MIN_FREQ_LIMIT, "cpu_min_frequency_limit", GLOBAL, TRAK_DIM_CPU, NONE, 0)                  \
  /* per-CPU slices of interrupts (import/ftrace/irq.c) */                                         \
  X(CPU_IRQ, "cpu_irq", GLOBAL, TRAK_DIM_CPU, NONE, 0)                                             \
  X(CPU_SOFTIRQ, "cpu_softirq", GLOBAL, TRAK_DIM_CPU, NONE, 0)                                     \
  X(CPU_HRTIMER, "cpu_hrtimer", GLOBAL, TRAK_DIM_CPU, NONE, 0)                                     \
  /* block device requests' slices, per device (import/ftrace/block_io.c) */                       \
  X(BLOCK_IO, "block_io", GLOBAL, TRAK_DIM_BLOCK_DEVICE, NONE, 0)                                  \
  /* atrace markers' counters (C|pid|name|value): per process and name */                          \
  X(ATRACE_COUNTER, "atrace_counter", PROCESS, TRAK_DIM_UPID | TRAK_DIM_NAME, NONE, 0)             \
  /* async atrace markers (ftrace/atrace_async.c): S/F per process and name, G/H/N per process   \
  ** and track name, each in lanes; N on DeviceStateChanged on a global track */ \
  X(ATRACE_ASYNC_SLICE, "atrace_async_slice", PROCESS,                                             \
    TRAK_DIM_UPID | TRAK_DIM_NAME | TRAK_DIM_LANE, NONE, 0)                                        \
  X(ATRACE_ASYNC_SLICE_FOR_TRACK, "atrace_async_slice_for_track", PROCESS,                         \
    TRAK_DIM_UPID | TRAK_DIM_NAME | TRAK_DIM_LANE, NONE, 0)                                        \
  X(ANDROID_DEVICE_STATE, "android_device_state", GLOBAL, 0, NONE, 0)                              \
  /* Android counters promoted to global tracks: ScreenState (atrace C markers and the           \
  ** InitialDisplayState packet), battery_stats.* atrace counters */                               \
  X(SCREEN_STATE, "screen_state", GLOBAL, 0, NONE, 0)                                              \
  X(BATTERY_STATS, "battery_stats", GLOBAL, TRAK_DIM_KEY, NONE, 0)                                 \
  X(SYSPROP_COUNTER, "sysprop_counter", GLOBAL, TRAK_DIM_KEY, NONE, 0)                             \
  /* wakeup sources held (ftrace/wakesource.c) */                                                 \
  X(WAKESOURCE_WAKELOCK, "wakesource_wakelock", GLOBAL, TRAK_DIM_KEY, NONE, 0)                     \
  /* suspend_resume slices, in lanes (ftrace/suspend_resume.c) */                                  \
  X(SUSPEND_RESUME, "suspend_resume", GLOBAL, TRAK_DIM_LANE, NONE, 0)                              \
  /* the system's counters (SysStats packets of linux.sys_stats: proto/sys_stats.c) */             \
  X(MEMINFO, "meminfo", GLOBAL, TRAK_DIM_KEY, NONE, 0)                                             \
  X(VMSTAT, "vmstat", GLOBAL, TRAK_DIM_KEY, NONE, 0)                                               \
  X(CPUSTAT, "cpustat", GLOBAL, TRAK_DIM_CPU | TRAK_DIM_KEY, NONE, 0)                              \
  X(NUM_FORKS, "num_forks", GLOBAL, 0, NONE, 0)                                                    \
  X(NUM_IRQ_TOTAL, "num_irq_total", GLOBAL, 0, NONE, 0)                                            \
  X(NUM_SOFTIRQ_TOTAL, "num_softirq_total", GLOBAL, 0, NONE, 0)                                    \
  X(NUM_IRQ, "num_irq", GLOBAL, TRAK_DIM_IRQ, NONE, 0)                                             \
  X(NUM_SOFTIRQ, "num_softirq", GLOBAL, TRAK_DIM_IRQ, NONE, 0)                                     \
  X(PSI, "psi", GLOBAL, TRAK_DIM_KEY, NONE, 0)                                                     \
  X(THERMAL_TEMPERATURE_SYS, "thermal_temperature_sys", GLOBAL, TRAK_DIM_KEY, NONE, 0)             \
  X(CLOCK_FREQUENCY, "clock_frequency", GLOBAL, TRAK_DIM_KEY, NONE, 0)                             \
  /* the same from systrace text lines (systrace/events.c): clock_enable / clock_disable,      \
  ** thermal_temperature, cdev_update (clock_set_rate shares clock_frequency) */   \
  X(CLOCK_STATE, "clock_state", GLOBAL, TRAK_DIM_KEY, NONE, 0)                                     \
  X(THERMAL_TEMPERATURE, "thermal_temperature", GLOBAL, TRAK_DIM_KEY, NONE, 0)                     \
  X(COOLING_DEVICE_COUNTER, "cooling_device_counter", GLOBAL, TRAK_DIM_KEY, NONE, 0)               \
  /* devfreq_frequency: a devfreq device's frequency ("devfreq_<device>") */                      \
  X(LINUX_DEVICE_FREQUENCY, "linux_device_frequency", GLOBAL, TRAK_DIM_KEY, NONE, 0)               \
  X(CPU_IDLE_STATE, "cpu_idle_state", GLOBAL, TRAK_DIM_CPU | TRAK_DIM_KEY, NONE, 0)                \
  /* a battery's gauges (BatteryCounters packets: proto/power.c) */                              \
  X(BATTERY_COUNTER, "battery_counter", GLOBAL, TRAK_DIM_NAMED_COUNTER, NONE, 0)                   \
  /* power rails' energy, energy estimates per consumer and app, entities' state residency    \
  ** (proto/power_rails.c, proto/android_energy.c) */                                             \
  X(POWER_RAILS, "power_rails", GLOBAL, TRAK_DIM_POWER_RAIL, POWER_RAIL, 0)                        \
  X(ENERGY_BREAKDOWN, "android_energy_estimation_breakdown", GLOBAL, TRAK_DIM_ENERGY_CONSUMER,     \
    ENERGY_CONSUMER, 0)                                                                            \
  X(ENERGY_BREAKDOWN_PER_UID, "android_energy_estimation_breakdown_per_uid", GLOBAL,               \
    TRAK_DIM_ENERGY_CONSUMER | TRAK_DIM_UID, NONE, 0)                                              \
  X(ENTITY_STATE, "entity_state", GLOBAL, TRAK_DIM_ENTITY_STATE, NONE, 0)                          \
  /* SysStats' disks (proto/disk_stats.c), buddy allocator, GPU frequency (sys_stats.c) */      \
  X(DISKSTAT, "diskstat", GLOBAL, TRAK_DIM_NAMED_COUNTER, NONE, 0)                                 \
  X(BUDDYINFO, "buddyinfo", GLOBAL, TRAK_DIM_BUDDYINFO, NONE, 0)                                   \
  X(GPU_FREQUENCY, "gpu_frequency", GLOBAL, TRAK_DIM_GPU, NONE, 0)                                 \
  /* a GPU's counters by name (GpuCounterEvent: proto/gpu.c) */                                   \
  X(GPU_COUNTER, "gpu_counter", GLOBAL, TRAK_DIM_GPU | TRAK_DIM_GPU_NAME, DESCRIPTION, 0)          \
  /* a GPU hardware queue's render stages, in lanes (GpuRenderStageEvent: proto/gpu_stages.c) */  \
  X(GPU_RENDER_STAGE, "gpu_render_stage", GLOBAL, TRAK_DIM_RENDER_STAGE, DESCRIPTION, 0)          \
  /* Vulkan calls, a GPU driver's log (proto/gpu_api.c), GPU memory (ftrace/gpu_mem.c) */         \
  X(VULKAN_EVENTS, "vulkan_events", GLOBAL, 0, NONE, 0)                                            \
  X(GPU_LOG, "gpu_log", GLOBAL, 0, NONE, 0)                                                        \
  /* Android's buffer and frame phases (GraphicsFrameEvent: proto/graphics_frames.c) */          \
  X(GRAPHICS_FRAME_EVENT, "graphics_frame_event", GLOBAL, TRAK_DIM_NAME, NONE, 0)                 \
  /* SurfaceFlinger's frame timelines per process, in lanes (proto/frame_timeline.c) */          \
  X(ANDROID_EXPECTED_FRAME_TIMELINE, "android_expected_frame_timeline", PROCESS,                  \
    TRAK_DIM_UPID | TRAK_DIM_LANE, NONE, 0)                                                        \
  X(ANDROID_ACTUAL_FRAME_TIMELINE, "android_actual_frame_timeline", PROCESS,                      \
    TRAK_DIM_UPID | TRAK_DIM_LANE, NONE, 0)                 \
  X(GPU_MEMORY, "gpu_memory", GLOBAL, TRAK_DIM_GPU, NONE, 0)                                       \
  X(PROCESS_GPU_MEMORY, "process_gpu_memory", PROCESS, TRAK_DIM_GPU | TRAK_DIM_GPU_UPID, NONE, 0) \
  /* a process's counters (ProcessStats packets of linux.process_stats: proto/process_stats.c) */  \
  X(PROCESS_MEMORY, "process_memory", PROCESS, TRAK_DIM_UPID | TRAK_DIM_KEY, DESCRIPTION, 0)       \
  X(SMAPS, "smaps", PROCESS, TRAK_DIM_UPID | TRAK_DIM_KEY, NONE, 0)                                \
  X(PROC_STAT_RUNTIME, "proc_stat_runtime", PROCESS, TRAK_DIM_UPID | TRAK_DIM_KEY, NONE, 0)        \
  X(OOM_SCORE_ADJ, "oom_score_adj", PROCESS, TRAK_DIM_UPID, NONE, 0)                               \
  /* the same from kernel events of a thread with no process (ftrace/process_counters.c) */        \
  X(PROCESS_MEMORY_THREAD_FALLBACK, "process_memory_thread_fallback", THREAD,                      \
    TRAK_DIM_UTID | TRAK_DIM_KEY, NONE, 0)                                                         \
  X(OOM_SCORE_ADJ_THREAD_FALLBACK, "oom_score_adj_thread_fallback", THREAD, TRAK_DIM_UTID, NONE,   \
    0)                                                                                             \
  /* kernel track events (ftrace/kernel_tracks.c), in trak_kte_scope order, slice then counter */  \
  X(KTE_THREAD_SLICE, "kernel_trackevent_thread_slice", THREAD,                                    \
    TRAK_DIM_UTID | TRAK_DIM_TRACEPOINT, NONE, 0)                                                  \
  X(KTE_THREAD_COUNTER, "kernel_trackevent_thread_counter", THREAD,                                \
    TRAK_DIM_UTID | TRAK_DIM_TRACEPOINT, NONE, 0)                                                  \
  X(KTE_PROCESS_SLICE, "kernel_trackevent_process_slice", PROCESS,                                 \
    TRAK_DIM_UPID | TRAK_DIM_TRACEPOINT, NONE, 0)                                                  \
  X(KTE_PROCESS_COUNTER, "kernel_trackevent_process_counter", PROCESS,                             \
    TRAK_DIM_UPID | TRAK_DIM_TRACEPOINT, NONE, 0)                                                  \
  X(KTE_CPU_SLICE, "kernel_trackevent_cpu_slice", GLOBAL, TRAK_DIM_CPU | TRAK_DIM_TRACEPOINT,      \
    NONE, 0)                                                                                       \
  X(KTE_CPU_COUNTER, "kernel_trackevent_cpu_counter", GLOBAL, TRAK_DIM_CPU | TRAK_DIM_TRACEPOINT,  \
    NONE, 0)                                                                                       \
  X(KTE_CUSTOM_SLICE, "kernel_trackevent_custom_slice", GLOBAL,                                    \
    TRAK_DIM_SCOPE | TRAK_DIM_TRACEPOINT, NONE, 0)                                                 \
  X(KTE_CUSTOM_COUNTER, "kernel_trackevent_custom_counter", GLOBAL,                                \
    TRAK_DIM_SCOPE | TRAK_DIM_TRACEPOINT, NONE, 0)                                                 \
  /* the scheduler's per-CPU figures of sched_cpu_util_cfs (ftrace/cpu_counters.c) */              \
  X(CPU_UTILIZATION, "cpu_utilization", GLOBAL, TRAK_DIM_CPU, NONE, 0)                             \
  X(CPU_CAPACITY, "cpu_capacity", GLOBAL, TRAK_DIM_CPU, NONE, 0)                                   \
  X(CPU_NR_RUNNING, "cpu_nr_running", GLOBAL, TRAK_DIM_CPU, NONE, 0)                               \
  /* funcgraph_entry/exit slices: a thread's, the idle task's per CPU (ftrace/funcgraph.c) */       \
  X(THREAD_FUNCGRAPH, "thread_funcgraph", THREAD, TRAK_DIM_UTID, NONE, 0)                          \
  X(CPU_FUNCGRAPH, "cpu_funcgraph", GLOBAL, TRAK_DIM_CPU, NONE, 0)                                 \
  /* ION and DMA heaps (ftrace/mem_events.c): totals, a thread's changes, buffers in lanes */              \
  X(ION, "ion", GLOBAL, TRAK_DIM_KEY, NONE, 0)                                                     \
  X(ION_CHANGE, "ion_change", THREAD, TRAK_DIM_KEY | TRAK_DIM_UTID, NONE, 0)                       \
  X(ANDROID_ION_ALLOCATIONS, "android_ion_allocations", GLOBAL, TRAK_DIM_LANE, NONE, 0)            \
  X(ANDROID_DMA_HEAP, "android_dma_heap", GLOBAL, 0, NONE, 0)                                      \
  X(ANDROID_DMA_HEAP_CHANGE, "android_dma_heap_change", THREAD, TRAK_DIM_UTID, NONE, 0)            \
  X(ANDROID_DMA_ALLOCATIONS, "android_dma_allocations", GLOBAL, TRAK_DIM_LANE, NONE, 0)            \
  /* Adreno GPU command batches, in lanes per context and priority (ftrace/gpu_cmdbatch.c) */      \
  X(ADRENO_GPU_CMDBATCH, "adreno_gpu_cmdbatch", GLOBAL, TRAK_DIM_LANE, NONE, 0)                    \
  /* Exynos ACPM thermal zones (ftrace/cpu_counters.c) */                                          \
  X(ACPM_THERMAL_TEMPERATURE, "acpm_thermal_temperature", GLOBAL, TRAK_DIM_KEY, NONE, 0)           \
  X(ACPM_COOLING_DEVICE_COUNTER, "acpm_cooling_device_counter", GLOBAL, TRAK_DIM_KEY, NONE, 0)   \
  /* networking (ftrace/net_events.c) */                                                          \
  X(NET_RECEIVE, "net_receive", GLOBAL, TRAK_DIM_KEY, NONE, 0)                                     \
  X(NET_TRANSMIT, "net_transmit", GLOBAL, TRAK_DIM_KEY, NONE, 0)                                   \
  X(NET_SOCKET_SET_STATE, "net_socket_set_state", GLOBAL, 0, NONE, 0)                              \
  X(NET_TCP_RETRANSMIT_SKB, "net_tcp_retransmit_skb", GLOBAL, 0, NONE, 0)                          \
  X(CPU_NAPI_GRO, "cpu_napi_gro", GLOBAL, TRAK_DIM_CPU, NONE, 0)                                   \
  X(NET_KFREE_SKB, "net_kfree_skb", GLOBAL, 0, NONE, 0)                                           \
  /* storage (ftrace/storage_events.c) */                                                         \
  X(UFS_COMMAND_COUNT, "ufs_command_count", GLOBAL, 0, NONE, 0)                                    \
  X(UFS_COMMAND_TAG, "ufs_command_tag", GLOBAL, 0, NONE, 0)                                        \
  X(UFS_CLKGATING, "ufs_clkgating", GLOBAL, 0, NONE, 0)                                            \
  X(ANDROID_FS, "android_fs", GLOBAL, TRAK_DIM_LANE, NONE, 0)                                     \
  X(F2FS_IOSTAT, "f2fs_iostat", GLOBAL, 0, NONE, 0)                                                \
  X(F2FS_IOSTAT_LATENCY, "f2fs_iostat_latency", GLOBAL, 0, NONE, 0)                                \
  /* virtio-gpu's queues (ftrace/virtio_gpu.c) */                                                 \
  X(VIRTGPU_NUM_FREE, "virtgpu_num_free", GLOBAL, TRAK_DIM_KEY, NONE, 0)                           \
  X(VIRTGPU_LATENCY, "virtgpu_latency", GLOBAL, TRAK_DIM_KEY, NONE, 0)                             \
  X(VIRTGPU_QUEUE_EVENT, "virtgpu_queue_event", GLOBAL, TRAK_DIM_LANE, NONE, 0)                   \
  /* DRM vblanks per CRTC, GPU scheduler rings by name, dma fence timelines (ftrace/drm.c) */      \
  X(DRM_VBLANK, "drm_vblank", GLOBAL, TRAK_DIM_DRM_CRTC, NONE, 0)                                  \
  X(DRM_SCHED_RING, "drm_sched_ring", GLOBAL, TRAK_DIM_KEY, NONE, 0)                               \
  X(DRM_FENCE, "drm_fence", GLOBAL, TRAK_DIM_DRM_FENCE, NONE, 0)                                   \
  /* virtio-video's commands and queued resources, in lanes (ftrace/virtio_video.c) */            \
  X(VIRTIO_VIDEO_COMMAND, "virtio_video_command", GLOBAL, TRAK_DIM_VIRTIO_VIDEO | TRAK_DIM_LANE,  \
    NONE, 0)                                                                                       \
  X(VIRTIO_VIDEO_QUEUE_EVENT, "virtio_video_queue_event", GLOBAL,                                  \
    TRAK_DIM_VIRTIO_VIDEO | TRAK_DIM_LANE, NONE, 0)                                                \
  /* the perf profiler's counters, per session and CPU (proto/perf_samples.c) */                  \
  X(PERF_CPU_COUNTER, "perf_cpu_counter", GLOBAL, TRAK_DIM_PERF, PERF, 0)

typedef enum trak_track_kind_id {
#define TRAK_TRACK_KIND_ENUM(id, type, scope, dims, source, te) TRAK_TK_##id,
  TRAK_TRACK_KINDS(TRAK_TRACK_KIND_ENUM)
#undef TRAK_TRACK_KIND_ENUM
      TRAK_TK_COUNT
} trak_track_kind_id;

typedef struct trak_track_blueprint {
  const char *type;    /* Perfetto's track type (the track table's type column) */
  uint8_t scope;       /* enum trak_track_scope */
  uint32_t dims;       /* enum trak_track_dim bits */
  uint8_t source;      /* enum trak_track_source */
  uint8_t track_event; /* its events are TrackEvents: the range of interest crops them */
} trak_track_blueprint;

extern const trak_track_blueprint trak__track_kinds[TRAK_TK_COUNT];

/* The arg key of the TRAK_DIM_KEY dimension of `kind` ("meminfo_key"), NULL for kinds without
** one. */
const char *trak__track_kind_key(trak_track_kind_id kind);

/* The kind of `base`'s family (a GLOBAL_* descriptor kind) for `scope`. */
static inline trak_track_kind_id trak__track_kind_scoped(trak_track_kind_id base,
                                                         enum trak_track_scope scope) {
  return (trak_track_kind_id)(base + scope);
}

/* The key of an implied track of `kind` told apart by dimensions `a` and `b` (a process, a
** name's string id, a hash of an id, ...): one key space for every kind, so keys of different
** kinds never meet. The track's uuid in imp->tracks is the key (bit 63 set, which descriptor
** uuids of implied tracks never use). Can't fail. */
uint64_t trak__track_key(trak_track_kind_id kind, uint64_t a, uint64_t b);

#endif /* TRAK_PROCESSOR_IMPORT_TRACK_KINDS_H */
