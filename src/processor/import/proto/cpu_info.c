/*
** This file holds TracePacket.cpu_info, the CPUs that Perfetto's linux.system_info data source
** describes, imported as Perfetto's system probes parser imports them: each CPU (numbered in
** the packet's order) gets a cpu row with its processor name and capacity, and a cluster id:
** CPUs ranked by capacity when every CPU has one, else by their highest frequency, else all 0.
** Its frequencies become cpu_available_frequencies rows; its ARM identifier and feature bits
** become the args of its cpu row (arm_cpu_*, cpu_features.<name>, cpu_features.raw_bitmap).
*/
#include <stdio.h>
#include <stdlib.h>

#include "processor/import/args.h"
#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/proto/proto.h"
#include "processor/tables/arg_value.h"

/* The names of CpuInfo.Cpu.features' bits, bit 0 first (Perfetto's list: only ever appended to,
** so a bit keeps its name across versions). */
static const char *const feature_names[] = {"mte", "mte3"};
#define N_FEATURES (sizeof feature_names / sizeof *feature_names)

/* The args of an ArmCpuIdentifier's fields 1 to 5, in field order. */
static const char *const arm_keys[] = {"arm_cpu_implementer", "arm_cpu_architecture",
                                       "arm_cpu_variant", "arm_cpu_part", "arm_cpu_revision"};

/* One Cpu message's figures. */
typedef struct cpu_desc {
  uint32_t processor; /* string id, 0: none */
  int64_t capacity;   /* -1: none */
  uint64_t max_khz;   /* 0: no frequency */
  uint32_t cpu;
  int64_t rank;                /* what orders clusters: capacity or highest frequency */
  TRAK_VEC(uint32_t) freqs;    /* kHz, in the packet's order */
  uint64_t features;           /* the feature bitmap, 0: none */
  int has_arm;                 /* an arm_identifier was given (even empty) */
  uint32_t arm[5];             /* its fields, by arm_keys */
} cpu_desc;

static int rank_cmp(const void *a, const void *b) {
  const cpu_desc *x = *(const cpu_desc *const *)a, *y = *(const cpu_desc *const *)b;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  return x->cpu < y->cpu ? -1 : x->cpu > y->cpu; /* ties in the packet's order */
}

static void freq_add(cpu_desc *d, uint64_t khz) {
  trak_vec_push(d->freqs, (uint32_t)khz);
  if ((uint32_t)khz > d->max_khz) d->max_khz = (uint32_t)khz;
}

static void arm_read(trak_importer *imp, const uint8_t *data, size_t len, cpu_desc *d) {
  trak_pb_decoder dec;
  trak_pb_field f;
  d->has_arm = 1;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.wire_type != TRAK_PB_WIRE_LEN && f.number >= 1 && f.number <= 5)
      d->arm[f.number - 1] = (uint32_t)f.value;
}

static void cpu_read(trak_importer *imp, const uint8_t *data, size_t len, cpu_desc *d) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    int is_len = f.wire_type == TRAK_PB_WIRE_LEN;
    if (f.number == TRAK_PB_CpuInfo_Cpu_processor && is_len && f.len)
      d->processor = trak__strpool_intern(&imp->tables->strings, (const char *)f.data, f.len);
    else if (f.number == TRAK_PB_CpuInfo_Cpu_capacity && !is_len)
      d->capacity = (uint32_t)f.value;
    else if (f.number == TRAK_PB_CpuInfo_Cpu_features && !is_len)
      d->features = f.value;
    else if (f.number == TRAK_PB_CpuInfo_Cpu_arm_identifier && is_len)
      arm_read(imp, f.data, f.len, d);
    else if (f.number == TRAK_PB_CpuInfo_Cpu_frequencies && !is_len)
      freq_add(d, f.value);
    else if (f.number == TRAK_PB_CpuInfo_Cpu_frequencies) { /* packed */
      for (const uint8_t *p = f.data, *end = f.data + f.len; p < end;) {
        uint64_t khz;
        const char *why;
        if (trak_pb_read_varint(&p, end, &khz, &why) != 0) break;
        freq_add(d, khz);
      }
    }
  }
}

/* The arg set of a CPU's row: its ARM identifier, its known feature bits as booleans and the
** whole bitmap (TRAK_NULL_U32: none). Bits past the known ones count a stat. */
static uint32_t cpu_args(trak_importer *imp, const cpu_desc *d) {
  trak_tables *t = imp->tables;
  uint32_t set = trak__ftrace_args_begin(imp);
  for (size_t k = 0; d->has_arm && k < 5; k++)
    trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, arm_keys[k]), d->arm[k]);
  for (size_t b = 0; b < N_FEATURES; b++) {
    if (!(d->features >> b & 1)) continue;
    char key[64];
    snprintf(key, sizeof key, "cpu_features.%s", feature_names[b]);
    uint32_t k = trak__ftrace_str(imp, key);
    uint32_t row = trak__arg_add(t, set, k, k, TRAK_ARG_BOOL); /* may move the columns */
    trak__arg_set_int(t, row, 1);
  }
  if (d->features)
    trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "cpu_features.raw_bitmap"),
                          d->features);
  if (d->features >> N_FEATURES) {
    trak__report(imp, TRAK_STAT_CPU_INFO_UNKNOWN_FEATURES,
                 "CpuInfo: cpu %u has feature bits 0x%llx past the %zu known", d->cpu,
                 (unsigned long long)(d->features >> N_FEATURES << N_FEATURES), N_FEATURES);
    trak_vec_push(imp->import_logs, ((trak_import_log){INT64_MIN,
                                                      TRAK_STAT_CPU_INFO_UNKNOWN_FEATURES,
                                                      TRAK_NULL_U32, -1}));
  }
  set = trak__args_share(imp, set);
  if (set != TRAK_NULL_U32) trak__arg_order_log(imp, TRAK_ARG_ORDER_SET, set);
  return set;
}

/* Writes the cpu row figures, frequencies and args of CPU `d`, in cluster `cluster`. */
static void cpu_write(trak_importer *imp, const cpu_desc *d, uint32_t cluster) {
  trak_ftrace *ft = trak__ftrace_get(imp);
  trak__ftrace_cpu_seen(imp, d->cpu);
  uint32_t ucpu = trak__ftrace_ucpu(imp, d->cpu);
  while (ft->cpu_info.n <= ucpu) {
    trak_fcpu_info none = {0, 0, TRAK_NULL_U32, TRAK_NULL_U32};
    trak_vec_push(ft->cpu_info, none);
  }
  trak_fcpu_info *info = &ft->cpu_info.v[ucpu];
  if (d->processor) info->processor = d->processor;
  info->cluster_id = cluster;
  if (d->capacity >= 0) info->capacity = (uint32_t)d->capacity;
  trak_tables *t = imp->tables;
  for (size_t i = 0; i < d->freqs.n; i++) {
    uint32_t row = trak__cpu_freq_push(t);
    t->cpu_freq.ucpu[row] = ucpu;
    t->cpu_freq.freq[row] = d->freqs.v[i];
  }
  uint32_t set = cpu_args(imp, d);
  if (set != TRAK_NULL_U32) info->arg_set_id = set;
}

void trak__cpu_info_packet(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  size_t n = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    n += f.number == TRAK_PB_CpuInfo_cpus && f.wire_type == TRAK_PB_WIRE_LEN;
  if (!n) {
    trak__report(imp, TRAK_STAT_CPU_INFO_EMPTY, "CpuInfo packet lists no CPU");
    trak_vec_push(imp->import_logs,
                  ((trak_import_log){INT64_MIN, TRAK_STAT_CPU_INFO_EMPTY, TRAK_NULL_U32, -1}));
    return;
  }
  if (n > 4096) { /* not a real machine: more CPUs than a ucpu can number */
    trak__report(imp, TRAK_STAT_PACKET_MALFORMED, "CpuInfo packet lists %zu CPUs (over 4096)", n);
    return;
  }
  cpu_desc *d = calloc(n, sizeof *d);
  cpu_desc **by_rank = calloc(n, sizeof *by_rank);
  uint32_t *cluster = calloc(n, sizeof *cluster);
  if (!d || !by_rank || !cluster) abort();
  size_t i = 0;
  int all_capacity = 1, all_freq = 1;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0 && i < n) {
    if (f.number != TRAK_PB_CpuInfo_cpus || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    d[i].capacity = -1;
    d[i].cpu = (uint32_t)i;
    cpu_read(imp, f.data, f.len, &d[i]);
    all_capacity &= d[i].capacity >= 0;
    all_freq &= d[i].max_khz > 0;
    by_rank[i] = &d[i];
    i++;
  }
  for (i = 0; i < n; i++)
    d[i].rank = all_capacity ? d[i].capacity : all_freq ? (int64_t)d[i].max_khz : 0;
  qsort(by_rank, n, sizeof *by_rank, rank_cmp);
  for (i = 1; i < n; i++) /* CPUs of one rank share their cluster */
    cluster[by_rank[i]->cpu] =
        cluster[by_rank[i - 1]->cpu] + (by_rank[i]->rank > by_rank[i - 1]->rank);
  /* Perfetto writes the rows in capacity order when it ranked by capacity, else in CPU order. */
  for (i = 0; i < n; i++) {
    const cpu_desc *c = all_capacity ? by_rank[i] : &d[i];
    cpu_write(imp, c, cluster[c->cpu]);
  }
  for (i = 0; i < n; i++)
    trak_vec_free(d[i].freqs);
  free(cluster);
  free(by_rank);
  free(d);
}
