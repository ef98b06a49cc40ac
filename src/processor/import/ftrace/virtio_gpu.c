/*
** This file holds virtio-gpu's command queues as Perfetto's virtio-gpu tracker reads them:
** virtio_gpu_cmd_queue and virtio_gpu_cmd_response of the "control" and "cursor" queues put the
** queue's free slots on "Virtgpu <Queue> Free", make each command a slice named by its type
** from its queueing to its response on the lanes of "Virtgpu <Queue> Queue" (by sequence
** number), and a command without a fence its latency on "Virtgpu <Queue> Latency". Queued:
** lanes and latencies follow timestamp order.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"

/* A command's name by its virtio_gpu_ctrl_type ("" for others). */
static const char *ctrl_name(uint32_t type) {
  static const char *const d2[] = {"GET_DISPLAY_INFO", "RESOURCE_CREATE_2D", "RESOURCE_UNREF",
                                   "SET_SCANOUT", "RESOURCE_FLUSH", "TRANSFER_TO_HOST_2D",
                                   "RESOURCE_ATTACH_BACKING", "RESOURCE_DETACH_BACKING",
                                   "GET_CAPSET_INFO", "GET_CAPSET", "GET_EDID",
                                   "RESOURCE_ASSIGN_UUID", "RESOURCE_CREATE_BLOB",
                                   "SET_SCANOUT_BLOB"};
  static const char *const d3[] = {"CTX_CREATE", "CTX_DESTROY", "CTX_ATTACH_RESOURCE",
                                   "CTX_DETACH_RESOURCE", "RESOURCE_CREATE_3D",
                                   "TRANSFER_TO_HOST_3D", "TRANSFER_FROM_HOST_3D", "SUBMIT_3D",
                                   "RESOURCE_MAP_BLOB", "RESOURCE_UNMAP_BLOB"};
  static const char *const cursor[] = {"UPDATE_CURSOR", "MOVE_CURSOR"};
  uint32_t i = type & 0xff;
  if ((type & ~0xffu) == 0x100 && i < sizeof d2 / sizeof *d2) return d2[i];
  if ((type & ~0xffu) == 0x200 && i < sizeof d3 / sizeof *d3) return d3[i];
  if ((type & ~0xffu) == 0x300 && i < sizeof cursor / sizeof *cursor) return cursor[i];
  return "";
}

/* Per queue (control, cursor): the start of each command awaiting its response, by seqno. */
struct trak_fvirtgpu {
  trak_map start_at[2]; /* seqno -> index in starts + 1 (0: none) */
  TRAK_VEC(int64_t) starts;
};

void trak__virtgpu_free(trak_ftrace *f) {
  if (!f->virtgpu) return;
  trak__map_free(&f->virtgpu->start_at[0]), trak__map_free(&f->virtgpu->start_at[1]);
  trak_vec_free(f->virtgpu->starts);
  free(f->virtgpu);
  f->virtgpu = NULL;
}

void trak__virtgpu_cmd(trak_importer *imp, uint32_t cpu, int64_t ts, int response,
                       const char *queue, size_t len, uint32_t seqno, uint32_t type,
                       uint64_t fence_id, uint32_t num_free) {
  int q = len == 7 && !memcmp(queue, "control", 7) ? 0 : len == 6 && !memcmp(queue, "cursor", 6) ? 1 : -1;
  if (q < 0) return; /* another queue: nothing */
  trak_fq_rec r = {ts,   (int64_t)fence_id, cpu, 0, response != 0, seqno, type, q, (int32_t)num_free,
                   TRAK_FQ_VIRTGPU, 0, 0};
  trak__fq_push_seen(imp, &r);
}

/* The track of queue `q` of `kind`, named "Virtgpu <Queue> <what>". */
static uint32_t queue_counter(trak_importer *imp, trak_track_kind_id kind, int q, const char *what) {
  const char *queue = q ? "Cursor" : "Control";
  char name[64];
  strcpy(name, "Virtgpu ");
  strcat(name, queue), strcat(name, " "), strcat(name, what);
  return trak__system_counter_track(imp, kind, TRAK_NULL_U32, 0, trak__ftrace_str(imp, queue),
                                    trak__ftrace_str(imp, name));
}

void trak__fa_virtgpu(trak_importer *imp, const trak_fq_rec *r) {
  struct trak_fvirtgpu *v = trak__ftrace_part(imp, (void **)&imp->ftrace->virtgpu, sizeof *v);
  int q = r->p1;
  trak__ftrace_ev(imp, r->ts, TRAK_EV_COUNTER,
                  queue_counter(imp, TRAK_TK_VIRTGPU_NUM_FREE, q, "Free"), 0,
                  (double)(uint32_t)r->p2);
  uint32_t s = trak__lane_set(imp, TRAK_TK_VIRTGPU_QUEUE_EVENT, TRAK_NULL_U32,
                              trak__ftrace_str(imp, q ? "Virtgpu Cursor Queue"
                                                      : "Virtgpu Control Queue"));
  trak_clane *ln = trak__lane_for_cookie(imp, s, r->s1);
  uint32_t track = ln->track;
  int added;
  if (r->a == 0) { /* queued */
    trak__lane_nest(imp, ln, 1, 0);
    trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_BEGIN, track, trak__ftrace_str(imp, ctrl_name(r->s2)),
                          0, TRAK_NULL_U32);
    if (!r->x) { /* a command with a fence may wait: no latency of it */
      trak_vec_push(v->starts, r->ts);
      *trak__map_put(&v->start_at[q], r->s1, 0, &added) = (uint32_t)v->starts.n;
    }
    return;
  }
  trak__lane_nest(imp, ln, -1, 0);
  trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_END, track, 0, 0, TRAK_NULL_U32);
  uint32_t *at = trak__map_get(&v->start_at[q], r->s1);
  if (!at || !*at) return;
  /* the records come in time order, so the latency is >= 0; past int64 (a queueing at a
  ** negative time), it is the difference of the two as doubles */
  int64_t start = v->starts.v[*at - 1], latency;
  double value = __builtin_sub_overflow(r->ts, start, &latency) ? (double)r->ts - (double)start
                                                                : (double)latency;
  trak__ftrace_ev(imp, r->ts, TRAK_EV_COUNTER,
                  queue_counter(imp, TRAK_TK_VIRTGPU_LATENCY, q, "Latency"), 0, value);
  *at = 0;
}
