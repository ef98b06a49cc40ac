/*
** This file holds a GPU's memory totals as Perfetto reads them: the gpu_mem_total kernel event
** and the GpuMemTotalEvent packet are values of "GPU Memory" (bytes), the GPU's own total on a
** global track, a process's on a track of the process. The kernel event is queued: whether its
** process's thread is still alive follows timestamp order.
*/
#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/tracks.h"

uint32_t trak__gpu_memory_track(trak_importer *imp, uint32_t ugpu, uint32_t gpu, uint32_t upid) {
  trak_track_kind_id kind = upid == TRAK_NULL_U32 ? TRAK_TK_GPU_MEMORY : TRAK_TK_PROCESS_GPU_MEMORY;
  uint64_t key = trak__track_key(kind, (uint64_t)imp->threads.machine << 32 | ugpu, upid);
  uint32_t *known = trak__map_get(&imp->tracks.by_uuid, key);
  if (known) return *known;
  uint32_t track = trak__keyed_track(imp, key, trak__ftrace_str(imp, "GPU Memory"), upid, 1, kind);
  trak_track_info *info = &imp->tracks.info.v[track];
  info->lane = ugpu;
  info->dim_int = gpu;
  info->unit = trak__ftrace_str(imp, "bytes");
  info->machine = imp->threads.machine;
  return track;
}

void trak__gpu_mem_total(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t ugpu,
                         uint32_t gpu, uint32_t pid, uint64_t size) {
  trak_fq_rec r = {ts, (int64_t)size, cpu, 0, pid, ugpu, gpu, 0, 0, TRAK_FQ_GPU_MEM, 0, 0};
  trak__fq_push_seen(imp, &r);
}

void trak__fa_gpu_mem(trak_importer *imp, const trak_fq_rec *r) {
  uint32_t upid = TRAK_NULL_U32;
  if (r->a) {
    if (trak__thread_lookup(imp, r->a) == TRAK_NULL_U32) return; /* no such thread (now) */
    upid = imp->tables->thread.upid[trak__thread_for_tid(imp, r->a, r->a)];
  }
  trak__ftrace_counter_ev(imp, r->ts, trak__gpu_memory_track(imp, r->s1, r->s2, upid),
                          (double)(uint64_t)r->x, TRAK_NULL_U32);
}
