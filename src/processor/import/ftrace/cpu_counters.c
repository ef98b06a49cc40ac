/*
** This file holds the counters of kernel events: per CPU (cpu_frequency as "cpufreq", cpu_idle
** as "cpuidle", the frequency limits), each a counter track of its kind with a `cpu` dimension,
** and per device (clocks, thermal zones, cooling devices, devfreq devices), each a global track
** of its kind with the device's name as its dimension; their values go through the parse phase
** like any counter's. Also the per-CPU tracks of the sink (counters, interrupt and timer-callback
** slices), each made once and named when made.
*/
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"

/* The name Perfetto gives a track of `kind` for `cpu`, as a string id (asked only when the
** track is made). */
static uint32_t track_name(trak_importer *imp, trak_track_kind_id kind, uint32_t cpu) {
  const char *fmt; /* a name with the CPU's number (%u) */
  switch (kind) {
  case TRAK_TK_CPU_FREQUENCY:
    return trak__ftrace_str(imp, "cpufreq");
  case TRAK_TK_CPU_IDLE:
    return trak__ftrace_str(imp, "cpuidle");
  case TRAK_TK_CPU_MAX_FREQ_LIMIT:
    fmt = "Cpu %u Max Freq Limit";
    break;
  case TRAK_TK_CPU_MIN_FREQ_LIMIT:
    fmt = "Cpu %u Min Freq Limit";
    break;
  case TRAK_TK_CPU_IRQ:
    fmt = "Irq Cpu %u";
    break;
  case TRAK_TK_CPU_SOFTIRQ:
    fmt = "SoftIrq Cpu %u";
    break;
  case TRAK_TK_CPU_HRTIMER:
    fmt = "Hrtimer Cpu %u";
    break;
  case TRAK_TK_CPU_UTILIZATION:
    fmt = "Cpu %u Util";
    break;
  case TRAK_TK_CPU_CAPACITY:
    fmt = "Cpu %u Cap";
    break;
  case TRAK_TK_CPU_NR_RUNNING:
    fmt = "Cpu %u Nr Running";
    break;
  case TRAK_TK_CPU_FUNCGRAPH:
    fmt = "swapper%u -funcgraph";
    break;
  case TRAK_TK_CPU_NAPI_GRO:
    fmt = "Napi Gro Cpu %u";
    break;
  default:
    return trak__ftrace_str(imp, trak__track_kinds[kind].type);
  }
  char buf[48];
  snprintf(buf, sizeof buf, fmt, cpu);
  return trak__ftrace_str(imp, buf);
}

uint32_t trak__ftrace_cpu_track(trak_importer *imp, trak_track_kind_id kind, uint32_t cpu) {
  uint64_t key = trak__track_key(kind, imp->threads.machine, cpu);
  uint32_t *known = trak__map_get(&imp->tracks.by_uuid, key | 1ULL << 63);
  if (known) return *known;
  /* the per-CPU slice tracks (interrupts, timer callbacks) are not counter tracks */
  int slices = kind == TRAK_TK_CPU_IRQ || kind == TRAK_TK_CPU_SOFTIRQ ||
               kind == TRAK_TK_CPU_HRTIMER || kind == TRAK_TK_CPU_FUNCGRAPH ||
               kind == TRAK_TK_CPU_NAPI_GRO;
  uint32_t track =
      trak__keyed_track(imp, key, track_name(imp, kind, cpu), TRAK_NULL_U32, !slices, kind);
  imp->tracks.info.v[track].lane = cpu;
  imp->tracks.info.v[track].machine = imp->threads.machine;
  trak__ftrace_cpu_seen(imp, cpu); /* Perfetto's cpu table has a row for a track's CPU */
  return track;
}

void trak__cpu_counter(trak_importer *imp, trak_track_kind_id kind, uint32_t cpu, int64_t ts,
                       double value) {
  trak__ftrace_ev(imp, ts, TRAK_EV_COUNTER, trak__ftrace_cpu_track(imp, kind, cpu), 0, value);
}

uint32_t trak__device_counter_track(trak_importer *imp, trak_track_kind_id kind, const char *device,
                                    size_t len) {
  const char *suffix = kind == TRAK_TK_CLOCK_FREQUENCY ? " Frequency"
                       : kind == TRAK_TK_CLOCK_STATE     ? " State"
                       : kind == TRAK_TK_THERMAL_TEMPERATURE || kind == TRAK_TK_ACPM_THERMAL_TEMPERATURE
                           ? " Temperature"
                           : " Cooling Device";
  const char *prefix = kind == TRAK_TK_ACPM_COOLING_DEVICE_COUNTER ? "Tj-" : "";
  trak_strpool *pool = &imp->tables->strings;
  char buf[255]; /* Perfetto's StackString<255>: a longer name is cut at 254 bytes */
  int n;
  if (kind == TRAK_TK_LINUX_DEVICE_FREQUENCY) {
    /* a devfreq name starts with the device's address ("17000000a.devfreq_bci"): the name
    ** is the part from "devfreq_", or "devfreq_" and the whole name without one */
    const char *at = memmem(device, len, "devfreq_", 8);
    size_t from = at ? (size_t)(at - device) : 0;
    n = snprintf(buf, sizeof buf, "%s%.*s", at ? "" : "devfreq_",
                 len - from > 255 ? 255 : (int)(len - from), device + from);
  } else {
    n = snprintf(buf, sizeof buf, "%s%.*s%s", prefix, len > 255 ? 255 : (int)len, device, suffix);
  }
  size_t name_len = n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
  uint32_t name = trak__strpool_intern(pool, buf, name_len);
  return trak__system_counter_track(imp, kind, TRAK_NULL_U32, 0,
                                    trak__strpool_intern(pool, device, len), name);
}

void trak__device_counter(trak_importer *imp, uint32_t track, int64_t ts, double value) {
  trak__ftrace_ev(imp, ts, TRAK_EV_COUNTER, track, 0, value);
}

/* Exynos ACPM's thermal zones by tz_id (Perfetto's kAcpmThermalZones). */
static const char *const acpm_zones[] = {"BIG", "MID", "LITTLE", "GPU", "ISP", "TPU", "AUR"};

void trak__acpm_thermal(trak_importer *imp, int64_t ts, uint32_t tz_id, double temp,
                        double cdev_state) {
  if (tz_id >= sizeof acpm_zones / sizeof *acpm_zones) {
    trak__report(imp, TRAK_STAT_FTRACE_THERMAL_EXYNOS_ACPM_UNKNOWN_TZ_ID,
                 "thermal_exynos_acpm event at %lld has unknown tz_id %u", (long long)ts, tz_id);
    return;
  }
  const char *zone = acpm_zones[tz_id];
  static const trak_track_kind_id kinds[2] = {TRAK_TK_ACPM_THERMAL_TEMPERATURE,
                                              TRAK_TK_ACPM_COOLING_DEVICE_COUNTER};
  for (int i = 0; i < 2; i++) {
    uint32_t set = trak__ftrace_args_begin(imp);
    trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "thermal_zone_id"), tz_id);
    trak__ftrace_counter_ev(imp, ts, trak__device_counter_track(imp, kinds[i], zone, strlen(zone)),
                            i ? cdev_state : temp, trak__args_share(imp, set));
  }
}

uint32_t trak__ftrace_global_track(trak_importer *imp, trak_track_kind_id kind, uint64_t n,
                                   uint32_t name, int is_counter) {
  uint64_t key = trak__track_key(kind, imp->threads.machine, n);
  uint32_t *known = trak__map_get(&imp->tracks.by_uuid, key | 1ULL << 63);
  if (known) return *known;
  uint32_t track = trak__keyed_track(imp, key, name, TRAK_NULL_U32, is_counter, kind);
  imp->tracks.info.v[track].machine = imp->threads.machine;
  return track;
}
