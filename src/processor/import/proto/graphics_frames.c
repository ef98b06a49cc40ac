/*
** This file reads Android's GraphicsFrameEvent packets (SurfaceFlinger's buffer events) as
** Perfetto's graphics frame event parser does: each event is an instant (or a slice of its
** duration) named by its type on "Buffer: <id> <layer>" with the buffer's queue, acquire,
** latch and present times as args, and the buffer's phases are slices on "APP_", "GPU_", "SF_"
** and "Display_" tracks (type graphics_frame_event) that later events end, rename and give a
** frame number. Those later changes are why the events are kept until the end of the
** tokenizing and replayed in timestamp order (trak__graphics_frames_finish): the records pushed
** then carry each slice's final name and args.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/proto/proto.h"
#include "processor/import/tracks.h"
#include "processor/tables/arg_value.h"

/* A buffer event, as read. */
typedef struct frame_ev {
  int64_t ts;
  trak_sequence *seq;
  uint64_t dur;
  uint32_t pkt, buffer, frame, layer; /* layer: string id of its layer name, 0: none or "" */
  int32_t type;
  uint8_t has_type, has_layer, has_frame;
  size_t order;
} frame_ev;

/* A phase slice: its track, start, name and frame number, as they end up. */
typedef struct phase_slice {
  uint32_t track, name, layer;
  int64_t frame;
} phase_slice;

/* A record to push once the replay is done: a phase slice's begin (`slice`), an end, or a
** buffer event's slice (`ev`). */
enum { OP_BEGIN, OP_END, OP_BUFFER };
typedef struct frame_op {
  uint8_t kind;
  uint32_t track, slice, set;
  size_t ev;
} frame_op;

/* A buffer (event key): its times, and the phase its last event left open. */
enum { PHASE_NONE, PHASE_DEQUEUE, PHASE_QUEUE, PHASE_LATCH };
typedef struct buffer_state {
  int64_t acquire_ts, queue_ts, latch_ts, dequeue_ts, last_acquire_ts;
  uint8_t recent_dequeue, phase, has_last_acquire;
  uint32_t phase_track, phase_slice;
} buffer_state;

/* A phase track's open slices (stack of phase slice indexes). */
typedef struct open_stack {
  uint32_t track;
  TRAK_VEC(uint32_t) open;
} open_stack;

struct trak_graphics_frames {
  TRAK_VEC(frame_ev) evs;
};

static struct trak_graphics_frames *frames_state(trak_importer *imp) {
  trak_packet_state *s = trak__packet_state(imp);
  if (!s->graphics_frames) {
    s->graphics_frames = calloc(1, sizeof *s->graphics_frames);
    if (!s->graphics_frames) abort();
  }
  return s->graphics_frames;
}

void trak__graphics_frames_free(struct trak_graphics_frames *st) {
  if (!st) return;
  trak_vec_free(st->evs);
  free(st);
}

static uint32_t str(trak_importer *imp, const char *s, size_t n) {
  return n ? trak__strpool_intern(&imp->tables->strings, s, n) : 0;
}
static uint32_t cstr(trak_importer *imp, const char *s) {
  return str(imp, s, strlen(s));
}

void trak__graphics_frame_packet(trak_importer *imp, const trak_packet_ctx *ctx,
                                 const uint8_t *data, size_t len) {
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  int has_buffer = 0;
  frame_ev e;
  memset(&e, 0, sizeof e);
  uint8_t has_id = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_GraphicsFrameEvent_buffer_event || f.wire_type != TRAK_PB_WIRE_LEN)
      continue;
    has_buffer = 1; /* the last one, as Perfetto's getter reads it */
    memset(&e, 0, sizeof e), has_id = 0;
    trak__dec_init(imp, &sub, f.data, f.len);
    while (trak_pb_decoder_next(&sub, &g) > 0) {
      int varint = g.wire_type == TRAK_PB_WIRE_VARINT;
      switch (g.number) {
      case TRAK_PB_GraphicsFrameEvent_BufferEvent_frame_number:
        if (varint) e.frame = (uint32_t)g.value, e.has_frame = 1;
        break;
      case TRAK_PB_GraphicsFrameEvent_BufferEvent_type:
        if (varint) e.type = (int32_t)g.value, e.has_type = 1;
        break;
      case TRAK_PB_GraphicsFrameEvent_BufferEvent_layer_name:
        if (g.wire_type == TRAK_PB_WIRE_LEN)
          e.layer = str(imp, (const char *)g.data, g.len), e.has_layer = 1;
        break;
      case TRAK_PB_GraphicsFrameEvent_BufferEvent_duration_ns:
        if (varint) e.dur = g.value;
        break;
      case TRAK_PB_GraphicsFrameEvent_BufferEvent_buffer_id:
        if (varint) e.buffer = (uint32_t)g.value, has_id = 1;
        break;
      default: break;
      }
    }
  }
  if (!has_buffer) return;
  if (!has_id) {
    trak__report(imp, TRAK_STAT_GRAPHICS_FRAME_EVENT_PARSER_ERRORS,
                 "GraphicsFrameEvent without a buffer_id: dropped");
    return;
  }
  struct trak_graphics_frames *st = frames_state(imp);
  trak_packet_ctx timed = trak__packet_ctx_timed(imp, ctx);
  e.ts = timed.ts;
  e.seq = ctx->seq;
  e.pkt = (uint32_t)imp->packet_index;
  e.order = st->evs.n;
  trak_vec_push(st->evs, e);
}

/* ---- the replay ------------------------------------------------------------------------- */

static int ev_cmp(const void *a, const void *b) {
  const frame_ev *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

typedef struct replay {
  trak_importer *imp;
  const frame_ev *evs;
  trak_map buffers; /* event key (string id) -> index in bufs + 1 */
  TRAK_VEC(buffer_state) bufs;
  trak_map displays; /* layer name (string id) -> its Display_ track + 1 */
  trak_map stack_at; /* phase track -> index in stacks + 1 */
  TRAK_VEC(open_stack) stacks;
  TRAK_VEC(phase_slice) slices;
  TRAK_VEC(frame_op) ops;
} replay;

/* The graphics_frame_event track named `name` (a C string), made on first use. */
static uint32_t frame_track(trak_importer *imp, const char *name) {
  uint32_t id = cstr(imp, name);
  uint32_t track = trak__keyed_track(imp, trak__track_key(TRAK_TK_GRAPHICS_FRAME_EVENT, id, 0), id,
                                     TRAK_NULL_U32, 0, TRAK_TK_GRAPHICS_FRAME_EVENT);
  /* a buffer's last phases stay open by design: no problem (slice_unterminated), as for the
  ** kernel's slices */
  imp->tracks.info.v[track].kernel_slices = 1;
  return track;
}

/* The open slices of phase track `track`. */
static open_stack *stack_of(replay *r, uint32_t track) {
  int added;
  uint32_t *at = trak__map_put(&r->stack_at, track, 0, &added);
  if (!*at) {
    open_stack s = {track, {NULL, 0, 0}};
    trak_vec_push(r->stacks, s);
    at = trak__map_get(&r->stack_at, track);
    *at = (uint32_t)r->stacks.n;
  }
  return &r->stacks.v[*at - 1];
}

/* The name of a number (string id). */
static uint32_t number_name(trak_importer *imp, int64_t v) {
  char text[32];
  int n = snprintf(text, sizeof text, "%lld", (long long)v);
  return str(imp, text, (size_t)n);
}

/* Begins a phase slice of event `e` on `track`; returns its index. */
static uint32_t phase_begin(replay *r, size_t ev, uint32_t track, uint32_t layer) {
  const frame_ev *e = &r->evs[ev];
  phase_slice s = {track, number_name(r->imp, e->frame ? (int64_t)e->frame : e->ts), layer,
                   e->frame};
  trak_vec_push(r->slices, s);
  uint32_t idx = (uint32_t)(r->slices.n - 1);
  frame_op op = {OP_BEGIN, track, idx, 0, ev};
  trak_vec_push(r->ops, op);
  open_stack *st = stack_of(r, track);
  trak_vec_push(st->open, idx);
  return idx;
}

/* Ends the top open slice of `track` (an end with nothing open is pushed all the same). */
static void phase_end(replay *r, size_t ev, uint32_t track) {
  frame_op op = {OP_END, track, 0, 0, ev};
  trak_vec_push(r->ops, op);
  open_stack *st = stack_of(r, track);
  if (st->open.n) st->open.n--;
}

/* Gives the top open slice of `track` frame number `frame` (Perfetto's AddArgs). */
static void top_frame(replay *r, uint32_t track, int64_t frame) {
  open_stack *st = stack_of(r, track);
  if (st->open.n) r->slices.v[st->open.v[st->open.n - 1]].frame = frame;
}

/* The buffer event's instant, with the buffer's times (the buffer's state updated first). */
static void buffer_event(replay *r, size_t ev, buffer_state *b, uint32_t layer, const char *tail) {
  trak_importer *imp = r->imp;
  const frame_ev *e = &r->evs[ev];
  switch (e->type) {
  case 1: break; /* DEQUEUE */
  case 4: b->acquire_ts = e->ts; break;
  case 2: b->queue_ts = e->ts; break;
  case 5: b->latch_ts = e->ts; break;
  default:
    trak__report(imp, TRAK_STAT_GRAPHICS_FRAME_EVENT_PARSER_ERRORS,
                 "GraphicsFrameEvent of type %d: no phase of a buffer", e->type);
    break;
  }
  b->recent_dequeue = e->type == 1;
  char name[300];
  snprintf(name, sizeof name, "Buffer: %u %s", e->buffer, tail);
  uint32_t track = frame_track(imp, name);
  trak_tables *t = imp->tables;
  uint32_t set = (uint32_t)t->args.n;
  static const char *const keys[] = {"frame_number", "queue_to_acquire_time",
                                     "acquire_to_latch_time", "latch_to_present_time"};
  /* differences of the trace's own times: they wrap, as Perfetto's int64 ones do */
  int64_t q2a = trak__wsub(b->acquire_ts, b->queue_ts);
  int64_t values[] = {e->has_frame ? (int64_t)e->frame : 0, q2a > 0 ? q2a : 0,
                      trak__wsub(b->latch_ts, b->acquire_ts), trak__wsub(e->ts, b->latch_ts)};
  for (int i = 0; i < 4; i++) {
    if (i == 1) { /* layer_name after frame_number */
      uint32_t k = cstr(imp, "layer_name");
      uint32_t row = trak__arg_add(t, set, k, k, TRAK_ARG_STRING);
      trak__arg_set_str(t, row, layer);
    }
    uint32_t k = cstr(imp, keys[i]);
    uint32_t row = trak__arg_add(t, set, k, k, TRAK_ARG_INT);
    trak__arg_set_int(t, row, values[i]);
  }
  set = trak__args_share(imp, set);
  frame_op op = {OP_BUFFER, track, 0, set, ev};
  trak_vec_push(r->ops, op);
}

/* The phases of event `ev` of buffer `b`. */
static void phase_event(replay *r, size_t ev, buffer_state *b, uint32_t layer, const char *tail,
                        const char *layer_text) {
  const frame_ev *e = &r->evs[ev];
  trak_importer *imp = r->imp;
  char name[300];
  switch (e->type) {
  case 1: { /* DEQUEUE: a dequeue never queued is frame 0 */
    if (b->phase == PHASE_DEQUEUE) {
      r->slices.v[b->phase_slice].name = cstr(imp, "0");
      top_frame(r, r->slices.v[b->phase_slice].track, 0);
      b->phase = PHASE_NONE;
    }
    snprintf(name, sizeof name, "APP_%u %s", e->buffer, tail);
    uint32_t track = frame_track(imp, name);
    b->phase_slice = phase_begin(r, ev, track, layer);
    b->phase = PHASE_DEQUEUE, b->dequeue_ts = e->ts;
    return;
  }
  case 2: { /* QUEUE */
    if (b->phase == PHASE_DEQUEUE) {
      uint32_t track = r->slices.v[b->phase_slice].track;
      top_frame(r, track, e->frame); /* the slice the end closes takes the queue's number */
      phase_end(r, ev, track);
      r->slices.v[b->phase_slice].name = number_name(imp, e->frame);
      if (b->has_last_acquire && b->last_acquire_ts > b->dequeue_ts) {
        b->phase = PHASE_NONE;
        return;
      }
    }
    snprintf(name, sizeof name, "GPU_%u %s", e->buffer, tail);
    uint32_t track = frame_track(imp, name);
    phase_begin(r, ev, track, layer);
    b->phase = PHASE_QUEUE, b->phase_track = track;
    return;
  }
  case 4: /* ACQUIRE_FENCE */
    if (b->phase == PHASE_QUEUE) {
      phase_end(r, ev, b->phase_track);
      b->phase = PHASE_NONE;
    }
    b->last_acquire_ts = e->ts, b->has_last_acquire = 1;
    return;
  case 5: { /* LATCH */
    if (b->phase == PHASE_DEQUEUE) {
      r->slices.v[b->phase_slice].name = cstr(imp, "0");
      top_frame(r, r->slices.v[b->phase_slice].track, 0);
    }
    snprintf(name, sizeof name, "SF_%u %s", e->buffer, tail);
    uint32_t track = frame_track(imp, name);
    phase_begin(r, ev, track, layer);
    b->phase = PHASE_LATCH, b->phase_track = track;
    return;
  }
  case 8: { /* PRESENT_FENCE */
    if (b->phase == PHASE_LATCH) {
      phase_end(r, ev, b->phase_track);
      b->phase = PHASE_NONE;
    }
    int added;
    uint32_t *display = trak__map_put(&r->displays, layer, 0, &added);
    if (*display) phase_end(r, ev, *display - 1); /* the layer's previous frame is off screen */
    snprintf(name, sizeof name, "Display_%s", layer_text);
    uint32_t track = frame_track(imp, name);
    phase_begin(r, ev, track, layer);
    display = trak__map_get(&r->displays, layer);
    *display = track + 1;
    return;
  }
  default: return;
  }
}

void trak__graphics_frames_finish(trak_importer *imp) {
  trak_packet_state *ps = imp->packet_state;
  struct trak_graphics_frames *st = ps ? ps->graphics_frames : NULL;
  if (!st || !st->evs.n) return;
  qsort(st->evs.v, st->evs.n, sizeof *st->evs.v, ev_cmp);
  replay r;
  memset(&r, 0, sizeof r);
  r.imp = imp, r.evs = st->evs.v;
  for (size_t i = 0; i < st->evs.n; i++) {
    const frame_ev *e = &st->evs.v[i];
    const char *layer_text = e->layer ? trak__str(&imp->tables->strings, e->layer) : "";
    char key[300];
    snprintf(key, sizeof key, "%u%.256s", e->buffer, layer_text);
    int added;
    uint32_t *at = trak__map_put(&r.buffers, cstr(imp, key), 0, &added);
    if (!*at) {
      buffer_state fresh;
      memset(&fresh, 0, sizeof fresh);
      trak_vec_push(r.bufs, fresh);
      *at = (uint32_t)r.bufs.n;
    }
    size_t bi = *at - 1;
    uint32_t layer = e->has_layer ? e->layer : cstr(imp, "no_layer_name");
    char tail[260];
    snprintf(tail, sizeof tail, "%.256s", layer_text);
    buffer_event(&r, i, &r.bufs.v[bi], layer, tail);
    phase_event(&r, i, &r.bufs.v[bi], layer, tail, layer_text);
  }
  /* the records, with each phase slice's final name and args */
  trak_tables *t = imp->tables;
  for (size_t i = 0; i < r.ops.n; i++) {
    const frame_op *op = &r.ops.v[i];
    const frame_ev *e = &st->evs.v[op->ev];
    trak_ev ev = {e->ts, 0, e->pkt, {{0, 0}}, TRAK_NULL_U32, 0};
    if (op->kind == OP_BUFFER) {
      uint32_t aux = (uint32_t)imp->aux.n;
      trak_vec_push(imp->aux, e->dur);
      trak_vec_push(imp->aux, 0);
      static const char *const names[] = {
          "unspecified_event",    "Dequeue",      "Queue",      "Post",
          "AcquireFenceSignaled", "Latch",        "HWCCompositionQueued",
          "FallbackComposition",  "PresentFenceSignaled", "ReleaseFenceSignaled",
          "Modify",               "Detach",       "Attach",     "Cancel"};
      const char *name = e->has_type && e->type >= 0 && e->type < 14 ? names[e->type]
                                                                      : "unknown_event";
      ev.track = (uint32_t)TRAK_EV_COMPLETE << TRAK_EV_TYPE_SHIFT | op->track;
      ev.u.s.name = cstr(imp, name);
      ev.arg_set_id = op->set;
      ev.aux = aux;
    } else if (op->kind == OP_BEGIN) {
      const phase_slice *s = &r.slices.v[op->slice];
      uint32_t set = (uint32_t)t->args.n;
      uint32_t k = cstr(imp, "frame_number");
      uint32_t row = trak__arg_add(t, set, k, k, TRAK_ARG_INT);
      trak__arg_set_int(t, row, s->frame);
      k = cstr(imp, "layer_name");
      row = trak__arg_add(t, set, k, k, TRAK_ARG_STRING);
      trak__arg_set_str(t, row, s->layer);
      ev.track = (uint32_t)TRAK_EV_BEGIN << TRAK_EV_TYPE_SHIFT | op->track;
      ev.u.s.name = s->name;
      ev.arg_set_id = trak__args_share(imp, set);
    } else {
      ev.track = (uint32_t)TRAK_EV_END << TRAK_EV_TYPE_SHIFT | op->track;
    }
    trak__sequence_push(imp, e->seq, &ev);
  }
  for (size_t i = 0; i < r.stacks.n; i++)
    trak_vec_free(r.stacks.v[i].open);
  trak_vec_free(r.stacks), trak_vec_free(r.slices), trak_vec_free(r.ops), trak_vec_free(r.bufs);
  trak__map_free(&r.buffers), trak__map_free(&r.displays), trak__map_free(&r.stack_at);
  trak_vec_free(st->evs);
}
