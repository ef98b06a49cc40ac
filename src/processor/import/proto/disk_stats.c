/*
** This file holds SysStats.disk_stat, each disk's /proc/diskstats figures that linux.sys_stats
** samples, imported as Perfetto's system probes parser does: the first sample of a disk is only
** remembered; each later one gives, since the previous, the megabytes read, written and
** discarded (512-byte sectors), their throughputs (MB over the seconds the disk spent on them,
** 0 when it spent none), the flushes and the flush time, each on the disk's own counter track
** (type diskstat, dimensions device_name and counter_name, named "diskstat.[<device>].<figure>")
** with its unit.
*/
#include <stdio.h>
#include <string.h>

#include "processor/import/proto/proto.h"

/* A sample's figures, by DiskStat field number - 2 (read_sectors first). */
#define DISK_FIGURES 8

static double throughput(double mb, int64_t ms) {
  return ms == 0 ? 0 : mb * 1000.0 / (double)ms;
}

/* The value of figure `counter` (in `unit`) of disk `device`. */
static void figure(trak_importer *imp, trak_packet_ctx *ctx, uint32_t device, const char *counter,
                   const char *unit, double value) {
  trak_strpool *pool = &imp->tables->strings;
  char name[1024]; /* Perfetto's StackString<1024> */
  int n = snprintf(name, sizeof name, "diskstat.[%s].%s", device ? trak__str(pool, device) : "",
                   counter);
  size_t name_len = n < 0 ? 0 : (size_t)n < sizeof name ? (size_t)n : sizeof name - 1;
  uint32_t track = trak__system_counter_track(
      imp, TRAK_TK_DISKSTAT, TRAK_NULL_U32, device,
      trak__strpool_intern(pool, counter, strlen(counter)),
      trak__strpool_intern(pool, name, name_len));
  imp->tracks.info.v[track].unit = trak__strpool_intern(pool, unit, strlen(unit));
  trak__system_counter(imp, ctx, track, value);
}

void trak__disk_stat(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int64_t cur[DISK_FIGURES] = {0};
  uint32_t device = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_SysStats_DiskStat_device_name && f.wire_type == TRAK_PB_WIRE_LEN)
      device = f.len ? trak__strpool_intern(&imp->tables->strings, (const char *)f.data, f.len) : 0;
    else if (f.number >= 2 && f.number < 2 + DISK_FIGURES && f.wire_type == TRAK_PB_WIRE_VARINT)
      cur[f.number - 2] = (int64_t)f.value;
  }
  trak_packet_state *s = trak__packet_state(imp);
  int added;
  uint32_t *slot =
      trak__map_put(&s->disks, (uint64_t)imp->threads.machine << 32 | device, 0, &added);
  if (added) { /* the first sample: remembered only */
    *slot = (uint32_t)(s->disk_prev.n / DISK_FIGURES) + 1;
    for (int i = 0; i < DISK_FIGURES; i++)
      trak_vec_push(s->disk_prev, cur[i]);
    return;
  }
  int64_t *prev = &s->disk_prev.v[(size_t)(*slot - 1) * DISK_FIGURES];
  int64_t d[DISK_FIGURES]; /* the differences, by field number - 2 */
  for (int i = 0; i < DISK_FIGURES; i++)
    d[i] = (int64_t)((uint64_t)cur[i] - (uint64_t)prev[i]), prev[i] = cur[i];
#define D(field) d[TRAK_PB_SysStats_DiskStat_##field - 2]
  double read = (double)D(read_sectors) / 2048.0, write = (double)D(write_sectors) / 2048.0;
  double discard = (double)D(discard_sectors) / 2048.0;
  figure(imp, ctx, device, "read_amount", "MB", read);
  figure(imp, ctx, device, "read_throughput", "MB/s", throughput(read, D(read_time_ms)));
  figure(imp, ctx, device, "write_amount", "MB", write);
  figure(imp, ctx, device, "write_throughput", "MB/s", throughput(write, D(write_time_ms)));
  figure(imp, ctx, device, "discard_amount", "MB", discard);
  figure(imp, ctx, device, "discard_throughput", "MB/s",
         throughput(discard, D(discard_time_ms)));
  figure(imp, ctx, device, "flush_amount", "count", (double)D(flush_count));
  figure(imp, ctx, device, "flush_time", "ms", (double)D(flush_time_ms));
#undef D
}
