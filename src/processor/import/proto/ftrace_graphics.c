/*
** This file reads the kernel's graphics and video events from their protobuf fields: DRM
** vblanks, the GPU scheduler's jobs (the old drm_sched_job / drm_run_job / drm_sched_process_job
** and the 6.17 kernel's drm_sched_job_queue / _run / _done), dma fences, V4L2 buffers and
** virtio-video commands, and hands their values to the Linux event sink (import/ftrace/ftrace.h).
** Each event is also its ftrace_event row, made by the caller (ftrace_bundle.c).
*/
#include "processor/import/ftrace/ftrace.h"
#include "processor/import/importer.h"
#include "processor/import/proto/proto.h"

/* An event's fields by number (below 32). */
typedef struct gfx_fields {
  trak_pb_field f[32];
  uint32_t has;
} gfx_fields;

/* Field n's value (0: absent, or a length-delimited field). */
static uint64_t val(const gfx_fields *e, int n) {
  return e->has >> n & 1 && e->f[n].wire_type != TRAK_PB_WIRE_LEN ? e->f[n].value : 0;
}

/* Field n's string id ("" when absent or not length-delimited). */
static uint32_t text(trak_importer *imp, const gfx_fields *e, int n) {
  int ok = e->has >> n & 1 && e->f[n].wire_type == TRAK_PB_WIRE_LEN;
  return trak__strpool_intern(&imp->tables->strings, ok ? (const char *)e->f[n].data : "",
                              ok ? e->f[n].len : 0);
}

/* A DRM scheduler event's job: by fence (context, seqno fields given), else by the global
** and local ids of fields `global` and `local` (0: not known by that id). */
static void job(const gfx_fields *e, trak_drm_ev *d, int context, int seqno, int global,
                int local) {
  if (context) {
    d->job = TRAK_DRM_JOB_FENCE, d->id0 = val(e, context), d->id1 = val(e, seqno);
    return;
  }
  d->job = (uint8_t)((global ? TRAK_DRM_JOB_GLOBAL : 0) | (local ? TRAK_DRM_JOB_LOCAL : 0));
  d->id0 = global ? val(e, global) : 0, d->id1 = local ? val(e, local) : 0;
}

/* DRM events: 1 when `ev` is one (its values sent), else 0. */
static int drm(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t pid, const trak_pb_field *ev,
               gfx_fields *e) {
  trak_drm_ev d = {0};
  switch (ev->number) {
  case TRAK_PB_FtraceEvent_drm_vblank_event:
  case TRAK_PB_FtraceEvent_drm_vblank_event_delivered:
    d.kind = ev->number == TRAK_PB_FtraceEvent_drm_vblank_event ? TRAK_DRM_VBLANK
                                                                : TRAK_DRM_VBLANK_DELIVERED;
    e->has = trak__ftrace_event_fields(imp, ev, e->f, 32);
    /* both events number crtc and seq alike */
    d.id0 = (uint32_t)(int32_t)val(e, TRAK_PB_DrmVblankEventFtraceEvent_crtc);
    d.id1 = (uint32_t)val(e, TRAK_PB_DrmVblankEventFtraceEvent_seq);
    break;
  case TRAK_PB_FtraceEvent_drm_sched_job:
    d.kind = TRAK_DRM_SCHED_QUEUE;
    e->has = trak__ftrace_event_fields(imp, ev, e->f, 32);
    d.name = text(imp, e, TRAK_PB_DrmSchedJobFtraceEvent_name);
    job(e, &d, 0, 0, 0, TRAK_PB_DrmSchedJobFtraceEvent_id);
    break;
  case TRAK_PB_FtraceEvent_drm_run_job:
    d.kind = TRAK_DRM_SCHED_RUN;
    e->has = trak__ftrace_event_fields(imp, ev, e->f, 32);
    d.name = text(imp, e, TRAK_PB_DrmRunJobFtraceEvent_name);
    job(e, &d, 0, 0, TRAK_PB_DrmRunJobFtraceEvent_fence, TRAK_PB_DrmRunJobFtraceEvent_id);
    break;
  case TRAK_PB_FtraceEvent_drm_sched_process_job:
    d.kind = TRAK_DRM_SCHED_DONE;
    e->has = trak__ftrace_event_fields(imp, ev, e->f, 32);
    job(e, &d, 0, 0, TRAK_PB_DrmSchedProcessJobFtraceEvent_fence, 0);
    break;
  case TRAK_PB_FtraceEvent_drm_sched_job_queue:
  case TRAK_PB_FtraceEvent_drm_sched_job_run: /* the two share their fields */
    d.kind = ev->number == TRAK_PB_FtraceEvent_drm_sched_job_queue ? TRAK_DRM_SCHED_QUEUE
                                                                   : TRAK_DRM_SCHED_RUN;
    e->has = trak__ftrace_event_fields(imp, ev, e->f, 32);
    d.name = text(imp, e, TRAK_PB_DrmSchedJobQueueFtraceEvent_name);
    job(e, &d, TRAK_PB_DrmSchedJobQueueFtraceEvent_fence_context,
        TRAK_PB_DrmSchedJobQueueFtraceEvent_fence_seqno, 0, 0);
    break;
  case TRAK_PB_FtraceEvent_drm_sched_job_done:
    d.kind = TRAK_DRM_SCHED_DONE;
    e->has = trak__ftrace_event_fields(imp, ev, e->f, 32);
    job(e, &d, TRAK_PB_DrmSchedJobDoneFtraceEvent_fence_context,
        TRAK_PB_DrmSchedJobDoneFtraceEvent_fence_seqno, 0, 0);
    break;
  case TRAK_PB_FtraceEvent_dma_fence_init: /* the fence events share their fields */
  case TRAK_PB_FtraceEvent_dma_fence_emit:
  case TRAK_PB_FtraceEvent_dma_fence_signaled:
  case TRAK_PB_FtraceEvent_dma_fence_wait_start:
    d.kind = ev->number == TRAK_PB_FtraceEvent_dma_fence_init       ? TRAK_DMA_FENCE_INIT
             : ev->number == TRAK_PB_FtraceEvent_dma_fence_emit     ? TRAK_DMA_FENCE_EMIT
             : ev->number == TRAK_PB_FtraceEvent_dma_fence_signaled ? TRAK_DMA_FENCE_SIGNALED
                                                                    : TRAK_DMA_FENCE_WAIT_START;
    e->has = trak__ftrace_event_fields(imp, ev, e->f, 32);
    if (d.kind != TRAK_DMA_FENCE_WAIT_START)
      d.name = text(imp, e, TRAK_PB_DmaFenceInitFtraceEvent_timeline);
    d.id0 = (uint32_t)val(e, TRAK_PB_DmaFenceInitFtraceEvent_context);
    d.id1 = (uint32_t)val(e, TRAK_PB_DmaFenceInitFtraceEvent_seqno);
    break;
  case TRAK_PB_FtraceEvent_dma_fence_wait_end:
    d.kind = TRAK_DMA_FENCE_WAIT_END;
    break;
  default:
    return 0;
  }
  trak__drm_event(imp, cpu, ts, pid, &d);
  return 1;
}

int trak__ftrace_graphics_event(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t pid,
                                const trak_pb_field *ev) {
  gfx_fields e;
  e.has = 0;
  return drm(imp, cpu, ts, pid, ev, &e);
}
