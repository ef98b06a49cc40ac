/*
** This file holds TracePacket.cpu_info, the CPUs that Perfetto's linux.system_info data source
** describes, imported as Perfetto's system probes parser imports them: each CPU (numbered in
** the packet's order) gets a cpu row with its processor name and capacity, and a cluster id:
** CPUs ranked by capacity when every CPU has one, else by their highest frequency, else all 0.
** ARM identifiers, feature bits and the cpu_freq table are not imported.
*/
#include <stdlib.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/proto/proto.h"

/* One Cpu message's figures. */
typedef struct cpu_desc {
  uint32_t processor; /* string id, 0: none */
  int64_t capacity;   /* -1: none */
  uint64_t max_khz;   /* 0: no frequency */
  uint32_t cpu;
  int64_t rank; /* what orders clusters: capacity or highest frequency */
} cpu_desc;

static int rank_cmp(const void *a, const void *b) {
  int64_t x = ((const cpu_desc *)a)->rank, y = ((const cpu_desc *)b)->rank;
  return x < y ? -1 : x > y;
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
    else if (f.number == TRAK_PB_CpuInfo_Cpu_frequencies && !is_len) {
      if ((uint32_t)f.value > d->max_khz) d->max_khz = (uint32_t)f.value;
    } else if (f.number == TRAK_PB_CpuInfo_Cpu_frequencies) { /* packed */
      for (const uint8_t *p = f.data, *end = f.data + f.len; p < end;) {
        uint64_t khz;
        const char *why;
        if (trak_pb_read_varint(&p, end, &khz, &why) != 0) break;
        if ((uint32_t)khz > d->max_khz) d->max_khz = (uint32_t)khz;
      }
    }
  }
}

void trak__cpu_info_packet(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  size_t n = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    n += f.number == TRAK_PB_CpuInfo_cpus && f.wire_type == TRAK_PB_WIRE_LEN;
  if (!n || n > 4096) return; /* no CPU (Perfetto logs cpu_info_empty), or not a real machine */
  cpu_desc *d = calloc(n, sizeof *d);
  if (!d) abort();
  size_t i = 0;
  int all_capacity = 1, all_freq = 1;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0 && i < n) {
    if (f.number != TRAK_PB_CpuInfo_cpus || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    d[i] = (cpu_desc){0, -1, 0, (uint32_t)i, 0};
    cpu_read(imp, f.data, f.len, &d[i]);
    all_capacity &= d[i].capacity >= 0;
    all_freq &= d[i].max_khz > 0;
    i++;
  }
  for (i = 0; i < n; i++)
    d[i].rank = all_capacity ? d[i].capacity : all_freq ? (int64_t)d[i].max_khz : 0;
  qsort(d, n, sizeof *d, rank_cmp); /* ties keep no order, but they share their cluster */
  trak_ftrace *ft = trak__ftrace_get(imp);
  uint32_t cluster = 0;
  for (i = 0; i < n; i++) {
    if (i && d[i].rank > d[i - 1].rank) cluster++;
    trak__ftrace_cpu_seen(imp, d[i].cpu);
    uint32_t ucpu = trak__ftrace_ucpu(imp, d[i].cpu);
    while (ft->cpu_info.n <= ucpu) {
      trak_fcpu_info none = {0, 0, TRAK_NULL_U32};
      trak_vec_push(ft->cpu_info, none);
    }
    trak_fcpu_info *info = &ft->cpu_info.v[ucpu];
    if (d[i].processor) info->processor = d[i].processor;
    info->cluster_id = cluster;
    if (d[i].capacity >= 0) info->capacity = (uint32_t)d[i].capacity;
  }
  free(d);
}
