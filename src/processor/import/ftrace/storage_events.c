/*
** This file holds the kernel's storage events as Perfetto's ftrace parser reads them: UFS
** commands (ufshcd_command: the commands in flight on "io.ufs.command.count", each command a
** slice named by its SCSI opcode on its tag's "io.ufs.command.tag[NNN]" track), UFS clock
** gating on "io.ufs.clkgating (OFF:0/REQ_OFF/REQ_ON/ON:3)", and android_fs data reads as
** "android_fs_data_read" slices on the lanes of "android_fs", a start paired with the end of
** the same inode and offset (queued: the pairs follow timestamp order); f2fs_iostat and
** f2fs_iostat_latency's figures, each on its "f2fs_iostat[_latency].[<major>:<minor>].<name>".
*/
#include <stdio.h>
#include <stdlib.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/hash.h"

/* SCSI opcodes by number, as Perfetto names UFS commands. */
static const char *scsi_op(uint32_t op) {
  switch (op) {
  case 4: return "FORMAT UNIT";
  case 18: return "INQUIRY";
  case 85: return "MODE SELECT (10)";
  case 90: return "MODE SENSE (10)";
  case 52: return "PRE-FETCH (10)";
  case 144: return "PRE-FETCH (16)";
  case 8: return "READ (6)";
  case 40: return "READ (10)";
  case 136: return "READ (16)";
  case 60: return "READ BUFFER";
  case 37: return "READ CAPACITY (10)";
  case 158: return "READ CAPACITY (16)";
  case 160: return "REPORT LUNS";
  case 3: return "REQUEST SENSE";
  case 162: return "SECURITY PROTOCOL IN";
  case 181: return "SECURITY PROTOCOL OUT";
  case 29: return "SEND DIAGNOSTIC";
  case 27: return "START STOP UNIT";
  case 53: return "SYNCHRONIZE CACHE (10)";
  case 145: return "SYNCHRONIZE CACHE (16)";
  case 0: return "TEST UNIT READY";
  case 66: return "UNMAP";
  case 47: return "VERIFY";
  case 10: return "WRITE (6)";
  case 42: return "WRITE (10)";
  case 138: return "WRITE (16)";
  case 59: return "WRITE BUFFER";
  default: return "UNDEFINED";
  }
}

void trak__ufs_command(trak_importer *imp, int64_t ts, uint32_t doorbell, uint32_t str_t,
                       uint32_t tag, uint32_t opcode, uint32_t group_id) {
  uint32_t n = doorbell ? (uint32_t)__builtin_popcount(doorbell) : str_t == 1 ? 0 : 1;
  trak__ftrace_ev(imp, ts, TRAK_EV_COUNTER,
                  trak__ftrace_global_track(imp, TRAK_TK_UFS_COMMAND_COUNT, 0,
                                            trak__ftrace_str(imp, "io.ufs.command.count"), 1),
                  0, (double)n);
  char name[64];
  snprintf(name, sizeof name, "io.ufs.command.tag[%03u]", tag);
  uint32_t track =
      trak__ftrace_global_track(imp, TRAK_TK_UFS_COMMAND_TAG, tag, trak__ftrace_str(imp, name), 0);
  if (str_t != 0) {
    trak__ftrace_slice_ev(imp, ts, TRAK_EV_END, track, 0, 0, TRAK_NULL_U32);
    return;
  }
  if (group_id > 0)
    snprintf(name, sizeof name, "%s (GID=0x%x)", scsi_op(opcode), group_id);
  else
    snprintf(name, sizeof name, "%s", scsi_op(opcode));
  trak__ftrace_slice_ev(imp, ts, TRAK_EV_BEGIN, track, trak__ftrace_str(imp, name), 0,
                        TRAK_NULL_U32);
}

void trak__ufs_clk_gating(trak_importer *imp, int64_t ts, int64_t state) {
  /* OFF 0, ON 1, REQ_OFF 2, REQ_ON 3 become 0, 3, 1, 2 */
  double v = state == 1 ? 3 : state == 2 ? 1 : state == 3 ? 2 : 0;
  trak__ftrace_ev(imp, ts, TRAK_EV_COUNTER,
                  trak__ftrace_global_track(
                      imp, TRAK_TK_UFS_CLKGATING, 0,
                      trak__ftrace_str(imp, "io.ufs.clkgating (OFF:0/REQ_OFF/REQ_ON/ON:3)"), 1),
                  0, v);
}

void trak__f2fs_iostat(trak_importer *imp, int64_t ts, int latency, uint64_t dev,
                       const char *const *names, const uint64_t *values, size_t n) {
  trak_track_kind_id kind = latency ? TRAK_TK_F2FS_IOSTAT_LATENCY : TRAK_TK_F2FS_IOSTAT;
  for (size_t i = 0; i < n; i++) {
    char name[128];
    snprintf(name, sizeof name, "%s.[%u:%u].%s", latency ? "f2fs_iostat_latency" : "f2fs_iostat",
             (unsigned)((dev & 0xff00) >> 8), (unsigned)(dev & 0xff), names[i]);
    uint32_t id = trak__ftrace_str(imp, name);
    trak__ftrace_ev(imp, ts, TRAK_EV_COUNTER, trak__ftrace_global_track(imp, kind, id, id, 1), 0,
                    (double)values[i]);
  }
}

/* A read started and not yet ended. */
typedef struct fs_read {
  uint64_t ino;
  int64_t offset;
  uint32_t tid;
  uint8_t live;
} fs_read;

struct trak_ffs {
  trak_map at; /* mix(inode, offset) -> index in reads + 1 */
  TRAK_VEC(fs_read) reads;
};

void trak__fs_free(trak_ftrace *f) {
  if (!f->fs) return;
  trak__map_free(&f->fs->at);
  trak_vec_free(f->fs->reads);
  free(f->fs);
  f->fs = NULL;
}

void trak__android_fs_read(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int end,
                           uint64_t ino, int64_t offset, int32_t bytes, uint32_t path) {
  trak_fq_rec r = {ts, offset, cpu, tid, end != 0, path, (uint32_t)ino, bytes,
                   (int32_t)(uint32_t)(ino >> 32), TRAK_FQ_FS, 0, 0};
  trak__fq_push_seen(imp, &r);
}

void trak__fa_fs(trak_importer *imp, const trak_fq_rec *r) {
  struct trak_ffs *fs = trak__ftrace_part(imp, (void **)&imp->ftrace->fs, sizeof *fs);
  uint64_t ino = (uint64_t)(uint32_t)r->p2 << 32 | r->s2;
  uint64_t key = trak__mix(ino, (uint64_t)r->x);
  int added;
  uint32_t *at = trak__map_put(&fs->at, key, 0, &added);
  fs_read *rd = *at ? &fs->reads.v[*at - 1] : NULL;
  uint32_t s = trak__lane_set(imp, TRAK_TK_ANDROID_FS, TRAK_NULL_U32,
                              trak__ftrace_str(imp, "android_fs"));
  uint32_t set = trak__ftrace_args_begin(imp);
  if (r->a == 0) { /* a start: the pair's reader is its thread */
    if (!rd) {
      trak_vec_push(fs->reads, ((fs_read){0}));
      *at = (uint32_t)fs->reads.n;
      rd = &fs->reads.v[fs->reads.n - 1];
    }
    *rd = (fs_read){ino, r->x, r->pid, 1};
    trak__ftrace_arg_str(imp, set, trak__ftrace_str(imp, "file_path"), r->s1);
    trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "offset_start"), r->x);
    trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "bytes_read_start"), r->p1);
    trak_clane *ln = trak__lane_for_cookie(imp, s, r->pid);
    trak__lane_nest(imp, ln, 1, 0);
    trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_BEGIN, ln->track,
                          trak__ftrace_str(imp, "android_fs_data_read"), 0,
                          trak__args_share(imp, set));
    return;
  }
  if (!rd || !rd->live || rd->ino != ino || rd->offset != r->x) return; /* no start: nothing */
  rd->live = 0;
  trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "offset_end"), r->x);
  trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "bytes_read_end"), r->p1);
  trak_clane *ln = trak__lane_for_cookie(imp, s, rd->tid);
  trak__lane_nest(imp, ln, -1, 0);
  trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_END, ln->track, 0, 0, trak__args_share(imp, set));
}
