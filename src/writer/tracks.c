/*
** This file holds track declaration: processes, threads, custom tracks and counter tracks get a
** handle and a uuid, and their TrackDescriptor is written at once, so it precedes every event
** on them. Lanes of AUTO_SIBLINGS tracks are declared here too, on demand.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer/writer_internal.h"

/* The parts of a descriptor that differ by kind of track. */
typedef struct descriptor {
  enum { D_CUSTOM, D_PROCESS, D_THREAD, D_COUNTER } kind;
  int32_t pid;
  int64_t tid;
  const char *os_name; /* process_name / thread_name, may be NULL */
  trak_writer_unit unit;
  const char *unit_name;
} descriptor;

static char *dup_or_null(const char *s) {
  return s ? strdup(s) : NULL;
}

/* Checks a declaration. Returns 0 or TRAK_EINVAL with the reason recorded. */
static int check_info(trak_writer *w, const char *call, const trak_writer_track_info *info,
                      const descriptor *d) {
  if (info->parent) {
    const trak__wtrack *p = trak__track(w, info->parent);
    if (!p)
      return trak__wr_fail(w, TRAK_EINVAL, "%s: unknown parent track handle %u", call,
                           info->parent);
    if (p->kind == TRAK__KIND_COUNTER)
      return trak__wr_fail(w, TRAK_EINVAL, "%s: parent track %u (\"%s\") is a counter track", call,
                           info->parent, p->label);
  }
  if ((unsigned)info->child_ordering > TRAK_WRITER_ORDER_EXPLICIT)
    return trak__wr_fail(w, TRAK_EINVAL, "%s: child_ordering %d is not a trak_writer_ordering",
                         call, (int)info->child_ordering);
  if (info->flags & ~(unsigned)(TRAK_WRITER_SIBLING_RANK | TRAK_WRITER_AUTO_SIBLINGS))
    return trak__wr_fail(w, TRAK_EINVAL, "%s: unknown flags 0x%x", call, info->flags);
  if (d->kind == D_COUNTER && !info->name)
    return trak__wr_fail(w, TRAK_EINVAL, "%s: a counter track needs a name", call);
  if (d->kind == D_COUNTER && (info->flags & TRAK_WRITER_AUTO_SIBLINGS))
    return trak__wr_fail(w, TRAK_EINVAL, "%s: counter tracks cannot have AUTO_SIBLINGS", call);
  if (d->kind == D_COUNTER && (unsigned)d->unit > TRAK_WRITER_UNIT_SIZE_BYTES)
    return trak__wr_fail(w, TRAK_EINVAL, "%s: unit %d is not a trak_writer_unit", call,
                         (int)d->unit);
  return 0;
}

/* Writes the TrackDescriptor packet of track `t`. */
static int write_descriptor(trak_writer *w, const trak__wtrack *t,
                            const trak_writer_track_info *info, const descriptor *d) {
  trak_pb_buf *b = &w->out;
  trak_pb_nested packet = trak__wr_packet_begin(w, 0);
  trak_pb_nested td = trak_pb_begin_nested(b, TRAK_PB_TracePacket_track_descriptor);
  trak_pb_put_varint(b, TRAK_PB_TrackDescriptor_uuid, t->uuid);
  if (t->parent)
    trak_pb_put_varint(b, TRAK_PB_TrackDescriptor_parent_uuid, w->tracks[t->parent - 1].uuid);
  if (info->name) trak_pb_put_string(b, TRAK_PB_TrackDescriptor_name, info->name);
  if (d->kind == D_PROCESS) {
    trak_pb_nested pd = trak_pb_begin_nested(b, TRAK_PB_TrackDescriptor_process);
    trak_pb_put_int32(b, TRAK_PB_ProcessDescriptor_pid, d->pid);
    if (d->os_name) trak_pb_put_string(b, TRAK_PB_ProcessDescriptor_process_name, d->os_name);
    trak_pb_end_nested(b, pd);
  } else if (d->kind == D_THREAD) {
    trak_pb_nested th = trak_pb_begin_nested(b, TRAK_PB_TrackDescriptor_thread);
    trak_pb_put_int32(b, TRAK_PB_ThreadDescriptor_pid, d->pid);
    trak_pb_put_int64(b, TRAK_PB_ThreadDescriptor_tid, d->tid);
    if (d->os_name) trak_pb_put_string(b, TRAK_PB_ThreadDescriptor_thread_name, d->os_name);
    trak_pb_end_nested(b, th);
  } else if (d->kind == D_COUNTER) {
    trak_pb_nested cd = trak_pb_begin_nested(b, TRAK_PB_TrackDescriptor_counter);
    if (d->unit) trak_pb_put_varint(b, TRAK_PB_CounterDescriptor_unit, (uint64_t)d->unit);
    if (d->unit_name) trak_pb_put_string(b, TRAK_PB_CounterDescriptor_unit_name, d->unit_name);
    trak_pb_end_nested(b, cd);
  }
  if (info->child_ordering)
    trak_pb_put_varint(b, TRAK_PB_TrackDescriptor_child_ordering, (uint64_t)info->child_ordering);
  if (info->flags & TRAK_WRITER_SIBLING_RANK)
    trak_pb_put_int32(b, TRAK_PB_TrackDescriptor_sibling_order_rank, info->sibling_rank);
  trak_pb_end_nested(b, td);
  return trak__wr_packet_end(w, packet);
}

/* Appends a zeroed track entry. Returns it, or NULL when memory runs out. */
static trak__wtrack *new_entry(trak_writer *w) {
  if (w->n_tracks == w->tracks_cap) {
    uint32_t cap = w->tracks_cap ? w->tracks_cap * 2 : 16;
    trak__wtrack *tracks = realloc(w->tracks, cap * sizeof *tracks);
    if (!tracks) return NULL;
    w->tracks = tracks;
    w->tracks_cap = cap;
  }
  trak__wtrack *t = &w->tracks[w->n_tracks++];
  memset(t, 0, sizeof *t);
  return t;
}

/* Declares a track of any kind: checks, allocates the handle, writes the descriptor. On
** refusal nothing changes; on a sink error the track exists (its descriptor may be lost). */
static int declare(trak_writer *w, const char *call, const trak_writer_track_info *info,
                   const descriptor *d, trak_writer_track *out) {
  static const trak_writer_track_info none;
  if (!info) info = &none;
  int rc = check_info(w, call, info, d);
  if (rc) return rc;
  char label[96];
  if (info->name)
    snprintf(label, sizeof label, "%s", info->name);
  else if (d->kind == D_CUSTOM)
    snprintf(label, sizeof label, "(unnamed)");
  else if (d->kind == D_PROCESS)
    snprintf(label, sizeof label, "process %d \"%s\"", d->pid, d->os_name ? d->os_name : "");
  else
    snprintf(label, sizeof label, "thread %lld \"%s\"", (long long)d->tid,
             d->os_name ? d->os_name : "");
  trak__wtrack *t = new_entry(w);
  if (!t) return trak__wr_fail(w, TRAK_ENOMEM, "%s: out of memory", call);
  t->uuid = trak__wr_uuid(w, w->n_tracks - 1); /* ids.c: unique across writers */
  t->parent = info->parent;
  t->kind = d->kind == D_COUNTER ? TRAK__KIND_COUNTER : TRAK__KIND_SLICES;
  t->os_track = d->kind == D_PROCESS || d->kind == D_THREAD;
  t->flags = info->flags;
  t->label = strdup(label);
  t->name = dup_or_null(info->name);
  if (!t->uuid || !t->label || (info->name && !t->name)) {
    free(t->label);
    free(t->name);
    w->n_tracks--;
    return trak__wr_fail(w, TRAK_ENOMEM, "%s: out of memory", call);
  }
  w->totals.tracks++;
  trak_writer_track h = w->n_tracks;
  if (out) *out = h;
  rc = write_descriptor(w, t, info, d);
  if (!rc && (info->flags & TRAK_WRITER_AUTO_SIBLINGS)) {
    /* The alias handle of lane 0: same uuid, writes skip placement. */
    trak__wtrack *alias = new_entry(w);
    if (!alias) return trak__wr_fail(w, TRAK_ENOMEM, "%s: out of memory", call);
    alias->alias_of = h;
    alias->uuid = w->tracks[h - 1].uuid;
    alias->label = strdup(w->tracks[h - 1].label);
    if (!alias->label) return trak__wr_fail(w, TRAK_ENOMEM, "%s: out of memory", call);
  }
  return rc ? trak__wr_fail(w, rc, "%s: writing the descriptor failed: %s", call, trak_strerror(rc))
            : 0;
}

int trak_writer_add_process(trak_writer *w, int32_t pid, const char *process_name,
                            const trak_writer_track_info *info, trak_writer_track *out) {
  descriptor d = {.kind = D_PROCESS, .pid = pid, .os_name = process_name};
  return declare(w, "add_process", info, &d, out);
}

int trak_writer_add_thread(trak_writer *w, int32_t pid, int64_t tid, const char *thread_name,
                           const trak_writer_track_info *info, trak_writer_track *out) {
  descriptor d = {.kind = D_THREAD, .pid = pid, .tid = tid, .os_name = thread_name};
  return declare(w, "add_thread", info, &d, out);
}

int trak_writer_add_track(trak_writer *w, const trak_writer_track_info *info,
                          trak_writer_track *out) {
  descriptor d = {.kind = D_CUSTOM};
  if (!info) return trak__wr_fail(w, TRAK_EINVAL, "add_track: info is required");
  return declare(w, "add_track", info, &d, out);
}

int trak_writer_add_counter_track(trak_writer *w, const trak_writer_track_info *info,
                                  trak_writer_unit unit, const char *unit_name,
                                  trak_writer_track *out) {
  descriptor d = {.kind = D_COUNTER, .unit = unit, .unit_name = unit_name};
  if (!info) return trak__wr_fail(w, TRAK_EINVAL, "add_counter_track: info is required");
  return declare(w, "add_counter_track", info, &d, out);
}

trak_writer_track trak__wr_lane_add(trak_writer *w, trak_writer_track h) {
  trak__wtrack *t = trak__track(w, h);
  if (t->n_lanes == t->lanes_cap) {
    uint32_t cap = t->lanes_cap ? t->lanes_cap * 2 : 4;
    trak_writer_track *lanes = realloc(t->lanes, cap * sizeof *lanes);
    if (!lanes) return trak__wr_fail(w, TRAK_ENOMEM, "out of memory adding a lane"), 0;
    t->lanes = lanes;
    t->lanes_cap = cap;
  }
  /* A lane shares the name and hangs below the declared track, as the guide does by hand. */
  /* A process or thread without a track name lends its label ("process 1 \"app\"") instead. */
  const char *shared = t->name ? t->name : t->os_track ? t->label : NULL;
  char *name = shared ? strdup(shared) : NULL; /* `t` may move when the track array grows */
  if (shared && !name) return trak__wr_fail(w, TRAK_ENOMEM, "out of memory adding a lane"), 0;
  trak_writer_track_info info = {.parent = h, .name = name};
  descriptor d = {.kind = D_CUSTOM};
  trak_writer_track lane = 0;
  int rc = declare(w, "lane", &info, &d, &lane);
  free(name);
  if (rc && !lane) return 0;
  t = trak__track(w, h);
  t->lanes[t->n_lanes++] = lane;
  return rc ? 0 : lane;
}

void trak__wr_tracks_free(trak_writer *w) {
  for (uint32_t i = 0; i < w->n_tracks; i++) {
    free(w->tracks[i].stack);
    free(w->tracks[i].lanes);
    free(w->tracks[i].label);
    free(w->tracks[i].name);
  }
  free(w->tracks);
  w->tracks = NULL;
  w->n_tracks = w->tracks_cap = 0;
}
