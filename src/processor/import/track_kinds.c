/*
** This file holds the table of track kinds (track_kinds.h) and the one key space of implied
** tracks.
*/
#include "processor/import/track_kinds.h"

#include "processor/import/hash.h"

const trak_track_blueprint trak__track_kinds[TRAK_TK_COUNT] = {
#define TRAK_TRACK_KIND_ROW(id, type, scope, dims, source, te)                                     \
  [TRAK_TK_##id] = {type, TRAK_SCOPE_##scope, (uint32_t)(dims), TRAK_SOURCE_##source, te},
    TRAK_TRACK_KINDS(TRAK_TRACK_KIND_ROW)
#undef TRAK_TRACK_KIND_ROW
};

uint64_t trak__track_key(trak_track_kind_id kind, uint64_t a, uint64_t b) {
  return trak__mix(trak__mix((uint64_t)kind << 56, a), b) | 1ULL << 63;
}

const char *trak__track_kind_key(trak_track_kind_id kind) {
  switch (kind) {
  case TRAK_TK_MEMINFO:
    return "meminfo_key";
  case TRAK_TK_VMSTAT:
    return "vmstat_key";
  case TRAK_TK_CPUSTAT:
    return "cpustat_key";
  case TRAK_TK_PSI:
    return "psi_resource";
  case TRAK_TK_THERMAL_TEMPERATURE_SYS:
  case TRAK_TK_THERMAL_TEMPERATURE:
  case TRAK_TK_ACPM_THERMAL_TEMPERATURE:
  case TRAK_TK_ACPM_COOLING_DEVICE_COUNTER:
    return "thermal_zone";
  case TRAK_TK_ION:
  case TRAK_TK_ION_CHANGE:
    return "heap_name";
  case TRAK_TK_NET_RECEIVE:
  case TRAK_TK_NET_TRANSMIT:
    return "network_interface";
  case TRAK_TK_VIRTGPU_NUM_FREE:
  case TRAK_TK_VIRTGPU_LATENCY:
    return "virtgpu_name";
  case TRAK_TK_CLOCK_FREQUENCY:
  case TRAK_TK_CLOCK_STATE:
  case TRAK_TK_COOLING_DEVICE_COUNTER:
  case TRAK_TK_LINUX_DEVICE_FREQUENCY:
    return "linux_device";
  case TRAK_TK_CPU_IDLE_STATE:
    return "state";
  case TRAK_TK_PROCESS_MEMORY:
  case TRAK_TK_PROCESS_MEMORY_THREAD_FALLBACK:
    return "process_memory_key";
  case TRAK_TK_SMAPS:
    return "smaps_key";
  case TRAK_TK_PROC_STAT_RUNTIME:
    return "proc_stat_runtime_key";
  case TRAK_TK_BATTERY_COUNTER:
    return "battery_name";
  case TRAK_TK_DISKSTAT:
    return "device_name";
  case TRAK_TK_BATTERY_STATS:
    return "counter_key";
  case TRAK_TK_WAKESOURCE_WAKELOCK:
    return "wakelock_event";
  case TRAK_TK_SYSPROP_COUNTER:
    return "sysprop_name";
  case TRAK_TK_DRM_SCHED_RING:
    return "name";
  default:
    return NULL;
  }
}
