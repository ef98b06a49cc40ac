/*
** This file holds TracePacket.sys_stats, the system's counters that Perfetto's linux.sys_stats
** data source samples, imported as Perfetto's system probes parser imports them: each value a
** counter at the packet's time on a global track of its kind (track_kinds.h) told apart by a key:
** /proc/meminfo lines in bytes ("MemFree", kind meminfo), /proc/vmstat lines ("nr_free_pages",
** vmstat), each CPU's /proc/stat times ("cpu.times.user_ns", cpustat, a cpu counter track), the
** fork and interrupt counts (num_forks, num_irq_total, "num_irq (id: 5)", ...), pressure stalls
** ("psi.cpu.some"), thermal zones (named by their type), devfreq clocks ("<device> Frequency")
** and each CPU's frequency (the cpufreq track ftrace's cpu_frequency also feeds). Keys the trace
** names but the schema does not count meminfo_unknown_keys / vmstat_unknown_keys; CPU times
** without a CPU count invalid_cpu_times; each CPU's idle-state residencies ("cpuidle0.C1", type
** cpu_idle_state), each disk's figures (disk_stats.c), the GPU's frequency ("gpufreq") and the
** buddy allocator's free chunks of each node, zone and order ("mem.buddyinfo[0][Normal][8 kB]").
** Slab figures are not imported (counted in sys_stats_unimported).
*/
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "pb/schema.h"
#include "processor/import/ftrace/ftrace.h"
#include "processor/import/proto/proto.h"
#include "processor/import/proto/track_event.h"

/* The /proc/meminfo key of each MeminfoCounters value (the enum's names are not the file's). */
static const char *const meminfo_keys[] = {
    "MemUnspecified", "MemTotal",     "MemFree",        "MemAvailable", "Buffers",
    "Cached",         "SwapCached",   "Active",         "Inactive",     "Active(anon)",
    "Inactive(anon)", "Active(file)", "Inactive(file)", "Unevictable",  "Mlocked",
    "SwapTotal",      "SwapFree",     "Dirty",          "Writeback",    "AnonPages",
    "Mapped",         "Shmem",        "Slab",           "SReclaimable", "SUnreclaim",
    "KernelStack",    "PageTables",   "CommitLimit",    "Committed_AS", "VmallocTotal",
    "VmallocUsed",    "VmallocChunk", "CmaTotal",       "CmaFree",      "Gpu",
    "Zram",           "Misc",         "ION_heap",       "ION_heap_pool"};

static uint32_t intern(trak_importer *imp, const char *s, size_t n) {
  return trak__strpool_intern(&imp->tables->strings, s, n);
}

void trak__system_counter(trak_importer *imp, trak_packet_ctx *ctx, uint32_t track, double value) {
  trak_ev ev = {ctx->ts,
                (uint32_t)TRAK_EV_COUNTER << TRAK_EV_TYPE_SHIFT | track,
                (uint32_t)imp->packet_index,
                {{0, 0}},
                TRAK_NULL_U32,
                0};
  ev.u.value = value;
  trak__te_push(imp, ctx->seq, &ev);
}

/* A counter on the global track of `kind` whose key is `key` (a string id) and whose name is
** printf(fmt, key text); `lane` is its CPU or interrupt number. Returns the track. */
static uint32_t keyed(trak_importer *imp, trak_packet_ctx *ctx, trak_track_kind_id kind,
                      uint32_t lane, const char *key, size_t key_len, const char *fmt,
                      double value) {
  uint32_t key_id = intern(imp, key, key_len);
  char name[256];
  int n = snprintf(name, sizeof name, fmt, (int)key_len, key);
  size_t len = n < 0 ? 0 : (size_t)n < sizeof name ? (size_t)n : sizeof name - 1;
  uint32_t track =
      trak__system_counter_track(imp, kind, TRAK_NULL_U32, lane, key_id, intern(imp, name, len));
  trak__system_counter(imp, ctx, track, value);
  return track;
}

/* The varint fields 1 and 2 of a two-number message (MeminfoValue, VmstatValue,
** InterruptCount: a key and its value); 0 when absent. */
static void number_pair(trak_importer *imp, const uint8_t *data, size_t len, uint64_t *first,
                        uint64_t *second) {
  trak_pb_decoder dec;
  trak_pb_field f;
  *first = *second = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    if (f.number == 1) *first = f.value;
    if (f.number == 2) *second = f.value;
  }
}

/* One (key, value) pair of meminfo or vmstat. The vmstat key is its enum name without
** "VMSTAT_", in lower case (the file's own key). */
static void key_value(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data, size_t len,
                      int is_meminfo) {
  uint64_t raw_key, value;
  number_pair(imp, data, len, &raw_key, &value);
  int64_t key = (int64_t)raw_key;
  if (is_meminfo) {
    if (key < 0 || key >= (int64_t)(sizeof meminfo_keys / sizeof *meminfo_keys)) {
      trak__report(imp, TRAK_STAT_MEMINFO_UNKNOWN_KEYS, "meminfo key %lld is not known; dropped",
                   (long long)key);
      return;
    }
    const char *k = meminfo_keys[key];
    uint32_t track =
        keyed(imp, ctx, TRAK_TK_MEMINFO, 0, k, strlen(k), "%.*s", (double)value * 1024);
    imp->tracks.info.v[track].unit = intern(imp, "bytes", 5); /* Perfetto's meminfo unit */
    return;
  }
  static const trak_pb_enum_desc *vmstat;
  if (!vmstat) vmstat = trak__schema_enum("perfetto.protos.VmstatCounters");
  const char *name =
      key > 0 && key <= INT32_MAX ? trak__schema_enum_name(vmstat, (int32_t)key) : NULL;
  if (!name || strncmp(name, "VMSTAT_", 7)) {
    trak__report(imp, TRAK_STAT_VMSTAT_UNKNOWN_KEYS, "vmstat key %lld is not known; dropped",
                 (long long)key);
    return;
  }
  char lower[96];
  size_t n = 0;
  for (const char *p = name + 7; *p && n < sizeof lower; p++)
    lower[n++] = (char)tolower((unsigned char)*p);
  keyed(imp, ctx, TRAK_TK_VMSTAT, 0, lower, n, "%.*s", (double)value);
}

/* A CPU's /proc/stat times: eight counters named cpu.times.<field>. */
static void cpu_times(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data, size_t len) {
  static const char *const keys[] = {"user_ns",    "user_nice_ns", "system_mode_ns", "idle_ns",
                                     "io_wait_ns", "irq_ns",       "softirq_ns",     "steal_ns"};
  uint64_t v[8] = {0};
  int has_cpu = 0;
  uint32_t cpu = 0;
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    if (f.number == TRAK_PB_SysStats_CpuTimes_cpu_id)
      cpu = (uint32_t)f.value, has_cpu = 1;
    else if (f.number >= TRAK_PB_SysStats_CpuTimes_user_ns &&
             f.number <= TRAK_PB_SysStats_CpuTimes_steal_ns)
      v[f.number - TRAK_PB_SysStats_CpuTimes_user_ns] = f.value;
  }
  if (!has_cpu) {
    trak__report(imp, TRAK_STAT_INVALID_CPU_TIMES, "CPU times without a cpu_id; dropped");
    return;
  }
  trak__ftrace_cpu_seen(imp, cpu); /* Perfetto's cpu table has a row for a track's CPU */
  for (size_t i = 0; i < 8; i++)
    keyed(imp, ctx, TRAK_TK_CPUSTAT, cpu, keys[i], strlen(keys[i]), "cpu.times.%.*s", (double)v[i]);
}

/* An interrupt's count since boot, on the num_irq or num_softirq track of its number. */
static void interrupt_count(trak_importer *imp, trak_packet_ctx *ctx, trak_track_kind_id kind,
                            const uint8_t *data, size_t len) {
  uint64_t raw_irq, count;
  number_pair(imp, data, len, &raw_irq, &count);
  uint32_t irq = (uint32_t)raw_irq;
  char name[48];
  int n = snprintf(name, sizeof name, "%s (id: %u)", trak__track_kinds[kind].type, irq);
  uint32_t track =
      trak__system_counter_track(imp, kind, TRAK_NULL_U32, irq, 0, intern(imp, name, (size_t)n));
  trak__system_counter(imp, ctx, track, (double)count);
}

/* A CPU's frequency in kHz, on the cpufreq track that ftrace's cpu_frequency events use. */
static void cpu_frequency(trak_importer *imp, trak_packet_ctx *ctx, uint32_t cpu, uint64_t khz) {
  trak__ftrace_cpu_seen(imp, cpu);
  uint32_t track = trak__system_counter_track(imp, TRAK_TK_CPU_FREQUENCY, TRAK_NULL_U32, cpu, 0,
                                              intern(imp, "cpufreq", 7));
  trak__system_counter(imp, ctx, track, (double)khz);
}

/* The GPU's frequency, on GPU 0's "gpufreq" track (type gpu_frequency, unit kHz, as Perfetto
** names it, though the value is the sample's MHz); GPU 0 gets its gpu row, as in Perfetto. */
static void gpu_frequency(trak_importer *imp, trak_packet_ctx *ctx, uint64_t mhz) {
  uint32_t track = trak__system_counter_track(imp, TRAK_TK_GPU_FREQUENCY, TRAK_NULL_U32,
                                              trak__gpu_row(imp, 0), 0, intern(imp, "gpufreq", 7));
  imp->tracks.info.v[track].unit = intern(imp, "kHz", 3);
  trak__system_counter(imp, ctx, track, (double)mhz);
}

/* One CpuIdleState: each state's cumulative residency (us) on the CPU's "cpuidle<cpu>.<state>"
** track (type cpu_idle_state, unit "us"). */
static void cpu_idle_states(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                            size_t len) {
  trak_pb_decoder dec, sub;
  trak_pb_field f, e;
  uint32_t cpu = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_SysStats_CpuIdleState_cpu_id && f.wire_type == TRAK_PB_WIRE_VARINT)
      cpu = (uint32_t)f.value;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_SysStats_CpuIdleState_cpuidle_state_entry ||
        f.wire_type != TRAK_PB_WIRE_LEN)
      continue;
    trak__ftrace_cpu_seen(imp, cpu); /* Perfetto's cpu table has a row for a track's CPU */
    trak_span state = {(const uint8_t *)"", 0};
    uint64_t us = 0;
    trak__dec_init(imp, &sub, f.data, f.len);
    while (trak_pb_decoder_next(&sub, &e) > 0) {
      if (e.number == TRAK_PB_SysStats_CpuIdleStateEntry_state && e.wire_type == TRAK_PB_WIRE_LEN)
        state = (trak_span){e.data, e.len};
      if (e.number == TRAK_PB_SysStats_CpuIdleStateEntry_duration_us &&
          e.wire_type == TRAK_PB_WIRE_VARINT)
        us = e.value;
    }
    char name[256];
    int n = snprintf(name, sizeof name, "cpuidle%u.%.*s", cpu, (int)state.len,
                     (const char *)state.data);
    size_t name_len = n < 0 ? 0 : (size_t)n < sizeof name ? (size_t)n : sizeof name - 1;
    uint32_t track = trak__system_counter_track(imp, TRAK_TK_CPU_IDLE_STATE, TRAK_NULL_U32, cpu,
                                                intern(imp, (const char *)state.data, state.len),
                                                intern(imp, name, name_len));
    imp->tracks.info.v[track].unit = intern(imp, "us", 2);
    trak__system_counter(imp, ctx, track, (double)us);
  }
}

/* The free chunks `pages` of order `order` of a node's zone (string ids, and their text), on
** the buddyinfo track of the node, zone and chunk size in kB: the order's pages times the last
** SystemInfo's page size, in Perfetto's 32-bit arithmetic (0 before any SystemInfo, so every
** order shares one track). */
static void buddy_order(trak_importer *imp, trak_packet_ctx *ctx, const uint32_t ids[2],
                        const trak_span text[2], uint32_t order, uint64_t pages) {
  uint32_t kb = (uint32_t)(1u << (order & 31)) * trak__packet_state(imp)->page_size / 1024;
  char name[1024]; /* Perfetto's StackString<1024> */
  /* the name holds 1,023 bytes: longer texts end the same, and their lengths fit an int */
  int node_len = text[0].len < sizeof name ? (int)text[0].len : (int)sizeof name;
  int zone_len = text[1].len < sizeof name ? (int)text[1].len : (int)sizeof name;
  int n = snprintf(name, sizeof name, "mem.buddyinfo[%.*s][%.*s][%u kB]", node_len,
                   (const char *)text[0].data, zone_len, (const char *)text[1].data, kb);
  size_t name_len = n < 0 ? 0 : (size_t)n < sizeof name ? (size_t)n : sizeof name - 1;
  int made;
  uint32_t track = trak__dim_counter_track(imp, TRAK_TK_BUDDYINFO, (uint64_t)ids[0] << 32 | ids[1],
                                           kb, intern(imp, name, name_len), &made);
  if (made) {
    trak_track_info *info = &imp->tracks.info.v[track];
    info->lane = ids[0], info->dim_key = ids[1], info->dim_int = kb;
  }
  trak__system_counter(imp, ctx, track, (double)(uint32_t)pages);
}

/* One BuddyInfo: a node's zone and its free chunks of each order (order_pages, one after
** another or packed). */
static void buddy_info(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_span text[2] = {{(const uint8_t *)"", 0}, {(const uint8_t *)"", 0}}; /* node, zone */
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.wire_type == TRAK_PB_WIRE_LEN && (f.number == TRAK_PB_SysStats_BuddyInfo_node ||
                                            f.number == TRAK_PB_SysStats_BuddyInfo_zone))
      text[f.number - TRAK_PB_SysStats_BuddyInfo_node] = (trak_span){f.data, f.len};
  uint32_t ids[2] = {intern(imp, (const char *)text[0].data, text[0].len),
                     intern(imp, (const char *)text[1].data, text[1].len)};
  uint32_t order = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_SysStats_BuddyInfo_order_pages) continue;
    if (f.wire_type == TRAK_PB_WIRE_VARINT) {
      buddy_order(imp, ctx, ids, text, order++, f.value);
      continue;
    }
    if (f.wire_type != TRAK_PB_WIRE_LEN) continue;
    uint64_t pages;
    const char *why;
    for (const uint8_t *p = f.data, *end = f.data + f.len;
         p < end && trak_pb_read_varint(&p, end, &pages, &why) == 0;)
      buddy_order(imp, ctx, ids, text, order++, pages);
  }
}

/* A total without dimensions: num_forks, num_irq_total, num_softirq_total. */
static void total(trak_importer *imp, trak_packet_ctx *ctx, trak_track_kind_id kind,
                  uint64_t value) {
  const char *type = trak__track_kinds[kind].type;
  uint32_t track =
      trak__system_counter_track(imp, kind, TRAK_NULL_U32, 0, 0, intern(imp, type, strlen(type)));
  trak__system_counter(imp, ctx, track, (double)value);
}

/* A message with a string key (field 1 or 3) and a number (field 2): devfreq, psi resources
** (an enum key), thermal zones. */
static void named_value(trak_importer *imp, trak_packet_ctx *ctx, uint32_t field,
                        const uint8_t *data, size_t len) {
  static const char *const psi[] = {
      "resource.unspecified", "cpu.some", "cpu.full", "io.some", "io.full", "mem.some", "mem.full"};
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_span key = {0};
  int64_t resource = 0;
  uint64_t value = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == 2 && f.wire_type == TRAK_PB_WIRE_VARINT) value = f.value;
    if (field == TRAK_PB_SysStats_psi && f.number == 1 && f.wire_type == TRAK_PB_WIRE_VARINT)
      resource = (int64_t)f.value;
    /* devfreq's key is field 1; a thermal zone is named by its type (field 3) */
    uint32_t key_field = field == TRAK_PB_SysStats_thermal_zone ? 3 : 1;
    if (f.number == key_field && f.wire_type == TRAK_PB_WIRE_LEN) key = (trak_span){f.data, f.len};
  }
  if (field == TRAK_PB_SysStats_psi) {
    if (resource < 0 || resource >= (int64_t)(sizeof psi / sizeof *psi)) {
      trak__report(imp, TRAK_STAT_PSI_UNKNOWN_RESOURCE, "psi resource %lld is not known; dropped",
                   (long long)resource);
      return;
    }
    keyed(imp, ctx, TRAK_TK_PSI, 0, psi[resource], strlen(psi[resource]), "psi.%.*s",
          (double)value);
    return;
  }
  const char *k = key.data ? (const char *)key.data : "";
  size_t kn = key.data ? key.len : 0;
  if (field == TRAK_PB_SysStats_thermal_zone) {
    uint32_t track =
        keyed(imp, ctx, TRAK_TK_THERMAL_TEMPERATURE_SYS, 0, k, kn, "%.*s", (double)value);
    imp->tracks.info.v[track].unit = intern(imp, "C", 1); /* Perfetto's thermal unit */
  } else
    keyed(imp, ctx, TRAK_TK_CLOCK_FREQUENCY, 0, k, kn, "%.*s Frequency", (double)value);
}

/* One field of a SysStats packet; *cpu is the next CPU cpufreq_khz tells of. */
static void sys_stats_field(trak_importer *imp, trak_packet_ctx *ctx, const trak_pb_field *fp,
                            uint32_t *cpu) {
  trak_pb_field f = *fp;
  int is_len = f.wire_type == TRAK_PB_WIRE_LEN;
  switch (f.number) {
  case TRAK_PB_SysStats_meminfo:
  case TRAK_PB_SysStats_vmstat:
    if (is_len) key_value(imp, ctx, f.data, f.len, f.number == TRAK_PB_SysStats_meminfo);
    break;
  case TRAK_PB_SysStats_cpu_stat:
    if (is_len) cpu_times(imp, ctx, f.data, f.len);
    break;
  case TRAK_PB_SysStats_num_forks:
    total(imp, ctx, TRAK_TK_NUM_FORKS, f.value);
    break;
  case TRAK_PB_SysStats_num_irq_total:
    total(imp, ctx, TRAK_TK_NUM_IRQ_TOTAL, f.value);
    break;
  case TRAK_PB_SysStats_num_softirq_total:
    total(imp, ctx, TRAK_TK_NUM_SOFTIRQ_TOTAL, f.value);
    break;
  case TRAK_PB_SysStats_num_irq:
  case TRAK_PB_SysStats_num_softirq:
    if (is_len)
      interrupt_count(imp, ctx,
                      f.number == TRAK_PB_SysStats_num_irq ? TRAK_TK_NUM_IRQ : TRAK_TK_NUM_SOFTIRQ,
                      f.data, f.len);
    break;
  case TRAK_PB_SysStats_devfreq:
  case TRAK_PB_SysStats_psi:
  case TRAK_PB_SysStats_thermal_zone:
    if (is_len) named_value(imp, ctx, f.number, f.data, f.len);
    break;
  case TRAK_PB_SysStats_cpufreq_khz:
    if (!is_len) {
      cpu_frequency(imp, ctx, (*cpu)++, f.value);
      break;
    }
    /* packed: each varint is the next CPU's frequency */
    for (const uint8_t *p = f.data, *end = f.data + f.len; p < end;) {
      uint64_t khz;
      const char *why;
      if (trak_pb_read_varint(&p, end, &khz, &why) != 0) {
        imp->stats[TRAK_STAT_SYS_STATS_UNIMPORTED]++;
        break;
      }
      cpu_frequency(imp, ctx, (*cpu)++, khz);
    }
    break;
  case TRAK_PB_SysStats_cpuidle_state:
    if (is_len) cpu_idle_states(imp, ctx, f.data, f.len);
    break;
  case TRAK_PB_SysStats_buddy_info:
    if (is_len) buddy_info(imp, ctx, f.data, f.len);
    break;
  case TRAK_PB_SysStats_disk_stat:
    if (is_len) trak__disk_stat(imp, ctx, f.data, f.len);
    break;
  case TRAK_PB_SysStats_gpufreq_mhz:
    if (!is_len) {
      gpu_frequency(imp, ctx, f.value);
      break;
    }
    for (const uint8_t *p = f.data, *end = f.data + f.len; p < end;) { /* packed */
      uint64_t mhz;
      const char *why;
      if (trak_pb_read_varint(&p, end, &mhz, &why) != 0) {
        imp->stats[TRAK_STAT_SYS_STATS_UNIMPORTED]++;
        break;
      }
      gpu_frequency(imp, ctx, mhz);
    }
    break;
  case TRAK_PB_SysStats_collection_end_timestamp:
    break;
  default: /* slab_info */
    imp->stats[TRAK_STAT_SYS_STATS_UNIMPORTED]++;
    break;
  }
}

void trak__sys_stats_packet(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                            size_t len) {
  /* Perfetto reads the packet one kind of value after another, in this order, whatever the
  ** order on the wire; tracks and counter rows are made in its order. */
  static const uint32_t order[] = {
      TRAK_PB_SysStats_meminfo,       TRAK_PB_SysStats_devfreq,
      TRAK_PB_SysStats_cpufreq_khz,   TRAK_PB_SysStats_vmstat,
      TRAK_PB_SysStats_cpu_stat,      TRAK_PB_SysStats_num_irq,
      TRAK_PB_SysStats_num_softirq,   TRAK_PB_SysStats_num_forks,
      TRAK_PB_SysStats_num_irq_total, TRAK_PB_SysStats_num_softirq_total,
      TRAK_PB_SysStats_buddy_info,    TRAK_PB_SysStats_disk_stat,
      TRAK_PB_SysStats_psi,
      TRAK_PB_SysStats_thermal_zone,  TRAK_PB_SysStats_cpuidle_state,
      TRAK_PB_SysStats_gpufreq_mhz};
  const size_t n_order = sizeof order / sizeof *order;
  trak_pb_decoder dec;
  trak_pb_field f;
  uint32_t cpu = 0;                       /* cpufreq_khz lists the CPUs in order */
  for (size_t k = 0; k <= n_order; k++) { /* the last pass: every other field */
    trak__dec_init(imp, &dec, data, len);
    while (trak_pb_decoder_next(&dec, &f) > 0) {
      int listed = 0;
      for (size_t i = 0; i < n_order && !listed; i++)
        listed = f.number == order[i];
      if (k < n_order ? f.number == order[k] : !listed) sys_stats_field(imp, ctx, &f, &cpu);
    }
  }
}

void trak__interrupt_info_packet(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_pb_decoder dec, sub;
  trak_pb_field f, e;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_InterruptInfo_irq_mapping || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    int has_id = 0, has_name = 0;
    uint32_t irq = 0;
    trak_span name = {0};
    trak__dec_init(imp, &sub, f.data, f.len);
    while (trak_pb_decoder_next(&sub, &e) > 0) {
      if (e.number == TRAK_PB_InterruptInfo_InterruptMapping_irq_id &&
          e.wire_type == TRAK_PB_WIRE_VARINT)
        irq = (uint32_t)e.value, has_id = 1;
      if (e.number == TRAK_PB_InterruptInfo_InterruptMapping_name &&
          e.wire_type == TRAK_PB_WIRE_LEN)
        name = (trak_span){e.data, e.len}, has_name = 1;
    }
    if (!has_id || !has_name) continue;
    int added;
    trak__map_put(&trak__packet_state(imp)->irq_names, (uint64_t)imp->threads.machine << 32 | irq,
                  1, &added);
    if (!added) continue;
    trak_tables *t = imp->tables;
    uint32_t row = trak__interrupt_mapping_push(t);
    t->interrupt_mapping.irq_id[row] = irq;
    t->interrupt_mapping.name[row] = intern(imp, (const char *)name.data, name.len);
    t->interrupt_mapping.machine_id[row] = imp->threads.machine;
  }
}
