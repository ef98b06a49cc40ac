/*
** This file holds virtio-video events as Perfetto's virtio-video tracker reads them: commands
** and their responses are slices of a fixed 100 us on the lanes of "virtio_video stream #<id>
** Requests" / "Responses" (a lane free once its last slice is over), a queued resource a slice
** "Resource #<id>" on the resource's lane of "virtio_video stream #<id> <queue>" until its done,
** which gives it the done's fields as args. The events wait in a list of their own, their
** records in the queue for timestamp order.
*/
#include <stdio.h>
#include <stdlib.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/tracks.h"

#define CMD_DUR 100000 /* the duration Perfetto gives a command */

/* The lanes of a stream's requests or responses: each lane's track and the end of its last
** slice. */
typedef struct cmd_lanes {
  uint64_t key; /* stream << 1 | response */
  TRAK_VEC(uint32_t) tracks;
  TRAK_VEC(int64_t) ends;
} cmd_lanes;

struct trak_fvvideo {
  TRAK_VEC(trak_vvideo_ev) evs; /* the events queued, by the index their records hold */
  TRAK_VEC(cmd_lanes) sets;
};

static struct trak_fvvideo *vvideo_get(trak_importer *imp) {
  return trak__ftrace_part(imp, (void **)&trak__ftrace_get(imp)->vvideo,
                           sizeof(struct trak_fvvideo));
}

void trak__virtio_video_free(trak_ftrace *f) {
  struct trak_fvvideo *v = f->vvideo;
  if (!v) return;
  for (size_t i = 0; i < v->sets.n; i++)
    trak_vec_free(v->sets.v[i].tracks), trak_vec_free(v->sets.v[i].ends);
  trak_vec_free(v->sets), trak_vec_free(v->evs);
  free(v);
  f->vvideo = NULL;
}

void trak__virtio_video_event(trak_importer *imp, uint32_t cpu, int64_t ts,
                              const trak_vvideo_ev *e) {
  struct trak_fvvideo *v = vvideo_get(imp);
  trak_vec_push(v->evs, *e);
  trak_fq_rec r = {ts, (int64_t)(v->evs.n - 1), cpu, 0, 0, 0, 0, 0, 0, TRAK_FQ_VIRTIO_VIDEO, 0, 0};
  trak__fq_push_seen(imp, &r);
}

/* A command's name by its type. */
static const char *cmd_name(uint32_t type) {
  static const char *const names[] = {
      "QUERY_CAPABILITY", "STREAM_CREATE",    "STREAM_DESTROY", "STREAM_DRAIN",
      "RESOURCE_CREATE",  "RESOURCE_QUEUE",   "RESOURCE_DESTROY_ALL", "QUEUE_CLEAR",
      "GET_PARAMS",       "SET_PARAMS",       "QUERY_CONTROL",  "GET_CONTROL",
      "SET_CONTROL",      "GET_PARAMS_EXT",   "SET_PARAMS_EXT"};
  if (type >= 0x100 && type - 0x100 < sizeof names / sizeof *names) return names[type - 0x100];
  return "Unknown";
}

/* A queue's name by its type. */
static const char *queue_name(uint32_t type) {
  return type == 0x100 ? "INPUT" : type == 0x101 ? "OUTPUT" : "Unknown";
}

/* The lane of stream `stream`'s requests (`response` 0) or responses free at `ts`, to be
** busy until ts + CMD_DUR (INT64_MAX past it): its track, made when no lane is free. */
static uint32_t cmd_track(trak_importer *imp, struct trak_fvvideo *v, uint32_t stream,
                          int response, int64_t ts) {
  uint64_t key = (uint64_t)stream << 1 | (uint64_t)response;
  cmd_lanes *set = NULL;
  for (size_t i = 0; i < v->sets.n && !set; i++)
    if (v->sets.v[i].key == key) set = &v->sets.v[i];
  if (!set) {
    cmd_lanes fresh = {key, {NULL, 0, 0}, {NULL, 0, 0}};
    trak_vec_push(v->sets, fresh);
    set = &v->sets.v[v->sets.n - 1];
  }
  size_t l = 0;
  while (l < set->ends.n && set->ends.v[l] > ts)
    l++;
  if (l == set->ends.n) {
    char name[96];
    snprintf(name, sizeof name, "virtio_video stream #%u %s", stream,
             response ? "Responses" : "Requests");
    uint64_t tk = trak__track_key(TRAK_TK_VIRTIO_VIDEO_COMMAND, key, l);
    uint32_t track = trak__keyed_track(imp, tk, trak__ftrace_str(imp, name), TRAK_NULL_U32, 0,
                                       TRAK_TK_VIRTIO_VIDEO_COMMAND);
    imp->tracks.info.v[track].lane = (uint32_t)l;
    imp->tracks.info.v[track].dim_int = (int64_t)((uint64_t)stream << 32 | (uint64_t)response);
    trak_vec_push(set->tracks, track);
    trak_vec_push(set->ends, 0);
  }
  set->ends.v[l] = trak__sat_add(ts, CMD_DUR);
  return set->tracks.v[l];
}

void trak__fa_virtio_video(trak_importer *imp, const trak_fq_rec *r) {
  struct trak_fvvideo *v = vvideo_get(imp);
  const trak_vvideo_ev *e = &v->evs.v[r->x];
  if (e->kind == TRAK_VVIDEO_CMD || e->kind == TRAK_VVIDEO_CMD_DONE) {
    uint32_t track = cmd_track(imp, v, e->stream_id, e->kind == TRAK_VVIDEO_CMD_DONE, r->ts);
    uint32_t name = trak__ftrace_str(imp, cmd_name(e->type));
    trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_BEGIN, track, name, 0, TRAK_NULL_U32);
    /* a command within CMD_DUR of int64's end ends at INT64_MAX: shorter, not wrapped */
    trak__ftrace_slice_ev(imp, trak__sat_add(r->ts, CMD_DUR), TRAK_EV_END, track, 0, 0,
                          TRAK_NULL_U32);
    return;
  }
  char name[96];
  snprintf(name, sizeof name, "virtio_video stream #%u %s", e->stream_id,
           queue_name(e->queue_type));
  uint32_t s = trak__lane_set(imp, TRAK_TK_VIRTIO_VIDEO_QUEUE_EVENT, TRAK_NULL_U32,
                              trak__ftrace_str(imp, name));
  trak_clane *ln = trak__lane_for_cookie(imp, s, e->resource_id);
  imp->tracks.info.v[ln->track].dim_int = (int64_t)((uint64_t)e->stream_id << 32 | e->queue_type);
  if (e->kind == TRAK_VVIDEO_RESOURCE_QUEUE) {
    trak__lane_nest(imp, ln, 1, 0);
    snprintf(name, sizeof name, "Resource #%d", e->resource_id);
    trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_BEGIN, ln->track, trak__ftrace_str(imp, name), 0,
                          TRAK_NULL_U32);
    return;
  }
  uint32_t track = ln->track;
  trak__lane_nest(imp, ln, -1, 0);
  uint32_t set = trak__ftrace_args_begin(imp);
#define KEY(k) trak__ftrace_str(imp, k)
  trak__ftrace_arg_int(imp, set, KEY("stream_id"), (int32_t)e->stream_id);
  trak__ftrace_arg_int(imp, set, KEY("resource_id"), e->resource_id);
  trak__ftrace_arg_str(imp, set, KEY("queue_type"), KEY(queue_name(e->queue_type)));
  static const char *const sizes[] = {"data_size0", "data_size1", "data_size2", "data_size3"};
  for (int i = 0; i < 4; i++)
    trak__ftrace_arg_int(imp, set, KEY(sizes[i]), e->data_size[i]);
  trak__ftrace_arg_uint(imp, set, KEY("timestamp"), e->timestamp);
#undef KEY
  trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_END, track, 0, 0, trak__args_share(imp, set));
}
