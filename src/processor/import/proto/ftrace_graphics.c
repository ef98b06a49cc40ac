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

/* The timecode fields of a v4l2_qbuf or vb2 event, which both number alike from their
** timecode_flags field `flags` on: flags, frames, hours, minutes, seconds, type, userbits0-3. */
#define TC_LAYOUT(m)                                                                               \
  (TRAK_PB_##m##_timecode_frames == TRAK_PB_##m##_timecode_flags + 1 &&                            \
   TRAK_PB_##m##_timecode_seconds == TRAK_PB_##m##_timecode_flags + 4 &&                           \
   TRAK_PB_##m##_timecode_type == TRAK_PB_##m##_timecode_flags + 5 &&                              \
   TRAK_PB_##m##_timecode_userbits3 == TRAK_PB_##m##_timecode_flags + 9)
_Static_assert(TC_LAYOUT(V4l2QbufFtraceEvent) && TC_LAYOUT(Vb2V4l2BufQueueFtraceEvent),
               "the timecode fields are numbered alike from timecode_flags");
static void timecode(const gfx_fields *e, int flags, trak_v4l2_buf *b) {
  enum { FLAGS, FRAMES, HOURS, MINUTES, SECONDS, TYPE, USERBITS0 };
  b->tc[TRAK_V4L2_TC_TYPE] = (uint32_t)val(e, flags + TYPE);
  b->tc[TRAK_V4L2_TC_FLAGS] = (uint32_t)val(e, flags + FLAGS);
  b->tc[TRAK_V4L2_TC_FRAMES] = (uint32_t)val(e, flags + FRAMES);
  b->tc[TRAK_V4L2_TC_FRAMES + 1] = (uint32_t)val(e, flags + SECONDS);
  b->tc[TRAK_V4L2_TC_FRAMES + 2] = (uint32_t)val(e, flags + MINUTES);
  b->tc[TRAK_V4L2_TC_FRAMES + 3] = (uint32_t)val(e, flags + HOURS);
  for (int k = 0; k < 4; k++)
    b->tc[TRAK_V4L2_TC_FRAMES + 4 + k] = (uint32_t)val(e, flags + USERBITS0 + k);
}

/* V4L2 buffer events: 1 when `ev` is one (its values sent), else 0. The vb2 events share
** their field numbers, as do v4l2_qbuf and v4l2_dqbuf. */
static int v4l2(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t pid, const trak_pb_field *ev,
                gfx_fields *e) {
  trak_v4l2_buf b = {0};
  switch (ev->number) {
  case TRAK_PB_FtraceEvent_v4l2_qbuf:
  case TRAK_PB_FtraceEvent_v4l2_dqbuf:
    b.kind = ev->number == TRAK_PB_FtraceEvent_v4l2_qbuf ? TRAK_V4L2_QBUF : TRAK_V4L2_DQBUF;
    b.vidioc = 1;
    e->has = trak__ftrace_event_fields(imp, ev, e->f, 32);
#define F(name) val(e, TRAK_PB_V4l2QbufFtraceEvent_##name)
    b.minor = (int32_t)F(minor), b.index = (uint32_t)F(index), b.type = (uint32_t)F(type);
    b.bytesused = (uint32_t)F(bytesused), b.flags = (uint32_t)F(flags);
    b.field = (uint32_t)F(field), b.timestamp = (int64_t)F(timestamp);
    b.sequence = (uint32_t)F(sequence);
    timecode(e, TRAK_PB_V4l2QbufFtraceEvent_timecode_flags, &b);
#undef F
    break;
  case TRAK_PB_FtraceEvent_vb2_v4l2_buf_queue:
  case TRAK_PB_FtraceEvent_vb2_v4l2_buf_done:
  case TRAK_PB_FtraceEvent_vb2_v4l2_qbuf:
  case TRAK_PB_FtraceEvent_vb2_v4l2_dqbuf:
    b.kind = ev->number == TRAK_PB_FtraceEvent_vb2_v4l2_buf_queue  ? TRAK_V4L2_VB2_BUF_QUEUE
             : ev->number == TRAK_PB_FtraceEvent_vb2_v4l2_buf_done ? TRAK_V4L2_VB2_BUF_DONE
             : ev->number == TRAK_PB_FtraceEvent_vb2_v4l2_qbuf     ? TRAK_V4L2_VB2_QBUF
                                                                   : TRAK_V4L2_VB2_DQBUF;
    e->has = trak__ftrace_event_fields(imp, ev, e->f, 32);
#define F(name) val(e, TRAK_PB_Vb2V4l2BufQueueFtraceEvent_##name)
    b.minor = (int32_t)F(minor), b.flags = (uint32_t)F(flags), b.field = (uint32_t)F(field);
    b.timestamp = (int64_t)F(timestamp), b.sequence = (uint32_t)F(sequence);
    timecode(e, TRAK_PB_Vb2V4l2BufQueueFtraceEvent_timecode_flags, &b);
#undef F
    break;
  default:
    return 0;
  }
  trak__v4l2_event(imp, cpu, ts, pid, &b);
  return 1;
}

/* virtio-video events: 1 when `ev` is one (its values sent), else 0. The two command events
** share their field numbers, as do the two resource events. */
static int virtio_video(trak_importer *imp, uint32_t cpu, int64_t ts, const trak_pb_field *ev,
                        gfx_fields *e) {
  trak_vvideo_ev v = {0};
  switch (ev->number) {
  case TRAK_PB_FtraceEvent_virtio_video_cmd:
  case TRAK_PB_FtraceEvent_virtio_video_cmd_done:
    v.kind =
        ev->number == TRAK_PB_FtraceEvent_virtio_video_cmd ? TRAK_VVIDEO_CMD : TRAK_VVIDEO_CMD_DONE;
    e->has = trak__ftrace_event_fields(imp, ev, e->f, 32);
    v.stream_id = (uint32_t)val(e, TRAK_PB_VirtioVideoCmdFtraceEvent_stream_id);
    v.type = (uint32_t)val(e, TRAK_PB_VirtioVideoCmdFtraceEvent_type);
    break;
  case TRAK_PB_FtraceEvent_virtio_video_resource_queue:
  case TRAK_PB_FtraceEvent_virtio_video_resource_queue_done:
    v.kind = ev->number == TRAK_PB_FtraceEvent_virtio_video_resource_queue
                 ? TRAK_VVIDEO_RESOURCE_QUEUE
                 : TRAK_VVIDEO_RESOURCE_QUEUE_DONE;
    e->has = trak__ftrace_event_fields(imp, ev, e->f, 32);
#define F(name) val(e, TRAK_PB_VirtioVideoResourceQueueFtraceEvent_##name)
    v.stream_id = (uint32_t)F(stream_id), v.queue_type = (uint32_t)F(queue_type);
    v.resource_id = (int32_t)F(resource_id), v.timestamp = F(timestamp);
    v.data_size[0] = (uint32_t)F(data_size0), v.data_size[1] = (uint32_t)F(data_size1);
    v.data_size[2] = (uint32_t)F(data_size2), v.data_size[3] = (uint32_t)F(data_size3);
#undef F
    break;
  default:
    return 0;
  }
  trak__virtio_video_event(imp, cpu, ts, &v);
  return 1;
}

int trak__ftrace_graphics_event(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t pid,
                                const trak_pb_field *ev) {
  gfx_fields e;
  e.has = 0;
  if (ev->number == TRAK_PB_FtraceEvent_gpu_mem_total) {
    e.has = trak__ftrace_event_fields(imp, ev, e.f, 32);
    uint32_t gpu = (uint32_t)val(&e, TRAK_PB_GpuMemTotalFtraceEvent_gpu_id);
    trak__gpu_mem_total(imp, cpu, ts, trak__gpu_row(imp, gpu), gpu,
                        (uint32_t)val(&e, TRAK_PB_GpuMemTotalFtraceEvent_pid),
                        val(&e, TRAK_PB_GpuMemTotalFtraceEvent_size));
    return 1;
  }
  return drm(imp, cpu, ts, pid, ev, &e) || v4l2(imp, cpu, ts, pid, ev, &e) ||
         virtio_video(imp, cpu, ts, ev, &e);
}
