/*
** This file holds V4L2 buffer events as Perfetto's v4l2 tracker reads them: each of
** v4l2_qbuf, v4l2_dqbuf and the vb2_v4l2_* events is an instant of category "Video 4 Linux 2"
** on its thread named after the event and the buffer, with the buffer's fields as args, and a
** flow runs from a VIDIOC_QBUF to the VIDIOC_DQBUF of the same buffer (minor, sequence, type,
** index). The events wait in a list of their own, their records in the queue for timestamp
** order.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/hash.h"
#include "processor/import/tracks.h"

struct trak_fv4l2 {
  TRAK_VEC(trak_v4l2_buf) bufs; /* the events queued, by the index their records hold */
  trak_map queued;              /* a VIDIOC_QBUF's buffer key -> its flow number (0: none) */
  uint32_t flows;               /* flow numbers given */
};

static struct trak_fv4l2 *v4l2_get(trak_importer *imp) {
  return trak__ftrace_part(imp, (void **)&trak__ftrace_get(imp)->v4l2, sizeof(struct trak_fv4l2));
}

void trak__v4l2_free(trak_ftrace *f) {
  struct trak_fv4l2 *v = f->v4l2;
  if (!v) return;
  trak_vec_free(v->bufs);
  trak__map_free(&v->queued);
  free(v);
  f->v4l2 = NULL;
}

void trak__v4l2_event(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                      const trak_v4l2_buf *b) {
  struct trak_fv4l2 *v = v4l2_get(imp);
  trak_vec_push(v->bufs, *b);
  trak_fq_rec r = {ts, (int64_t)(v->bufs.n - 1), cpu, tid, 0, 0, 0, 0, 0, TRAK_FQ_V4L2, 0, 0};
  trak__fq_push_seen(imp, &r);
}

/* The flow id of flow number n (a space of its own among flow ids). */
static uint64_t flow_id(uint32_t n) {
  return trak__mix(0x4e121f10u, n) | 1;
}

/* Name `v` of a table of names by value, NULL for others. */
typedef struct named {
  uint32_t v;
  const char *name;
} named;
static const char *name_of(const named *t, size_t n, uint32_t v) {
  for (size_t i = 0; i < n; i++)
    if (t[i].v == v) return t[i].name;
  return NULL;
}
static const named buf_types[] = {
    {1, "VIDEO_CAPTURE"},        {2, "VIDEO_OUTPUT"},          {3, "VIDEO_OVERLAY"},
    {4, "VBI_CAPTURE"},          {5, "VBI_OUTPUT"},            {6, "SLICED_VBI_CAPTURE"},
    {7, "SLICED_VBI_OUTPUT"},    {8, "VIDEO_OUTPUT_OVERLAY"},  {9, "VIDEO_CAPTURE_MPLANE"},
    {10, "VIDEO_OUTPUT_MPLANE"}, {11, "SDR_CAPTURE"},          {12, "SDR_OUTPUT"},
    {13, "META_CAPTURE"},        {14, "META_OUTPUT"},          {0x80, "PRIVATE"}};
static const named buf_fields[] = {{0, "ANY"},        {1, "NONE"},         {2, "TOP"},
                                   {3, "BOTTOM"},     {4, "INTERLACED"},   {5, "SEQ_TB"},
                                   {6, "SEQ_BT"},     {7, "ALTERNATE"},    {8, "INTERLACED_TB"},
                                   {9, "INTERLACED_BT"}};
static const named tc_types[] = {
    {1, "24FPS"}, {2, "25FPS"}, {3, "30FPS"}, {4, "50FPS"}, {5, "60FPS"}};

/* Appends `s` to buf (of cap bytes, used *n), "|" before all but the first. */
static void join(char *buf, size_t cap, size_t *n, const char *s) {
  int w = snprintf(buf + *n, cap - *n, "%s%s", *n ? "|" : "", s);
  if (w > 0) *n += (size_t)w < cap - *n ? (size_t)w : cap - *n - 1;
}

/* The names of a buffer's flags, as Perfetto joins them. */
static void buf_flags(uint32_t f, char *buf, size_t cap) {
  static const named bits[] = {
      {0x1, "MAPPED"},          {0x2, "QUEUED"},         {0x4, "DONE"},
      {0x8, "KEYFRAME"},        {0x10, "PFRAME"},        {0x20, "BFRAME"},
      {0x40, "ERROR"},          {0x80, "IN_REQUEST"},    {0x100, "TIMECODE"},
      {0x200, "M2M_HOLD_CAPTURE_BUF"}, {0x400, "PREPARED"}, {0x800, "NO_CACHE_INVALIDATE"},
      {0x1000, "NO_CACHE_CLEAN"}, {0xe000, "TIMESTAMP_MASK"}, {0, "TIMESTAMP_UNKNOWN"},
      {0x2000, "TIMESTAMP_MONOTONIC"}, {0x4000, "TIMESTAMP_COPY"}, {0x70000, "TSTAMP_SRC_MASK"},
      {0, "TSTAMP_SRC_EOF"},    {0x10000, "TSTAMP_SRC_SOE"}, {0x100000, "LAST"},
      {0x800000, "REQUEST_FD"}};
  size_t n = 0;
  buf[0] = 0;
  for (size_t i = 0; i < sizeof bits / sizeof *bits; i++)
    if (bits[i].v ? (f & bits[i].v) != 0 : f == 0) join(buf, cap, &n, bits[i].name);
}

/* The names of a timecode's flags, as Perfetto joins them. */
static void tc_flags(uint32_t f, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = 0;
  if (f == 0) join(buf, cap, &n, "USERBITS_USERDEFINED");
  if (f & 1) join(buf, cap, &n, "FLAG_DROPFRAME");
  if (f & 2) join(buf, cap, &n, "FLAG_COLORFRAME");
  if ((f & 0xc) == 0x4) join(buf, cap, &n, "USERBITS_field(01)");
  if ((f & 0xc) == 0x8) join(buf, cap, &n, "USERBITS_field(10)");
  if ((f & 0xc) == 0xc) join(buf, cap, &n, "USERBITS_field(11)");
  if (f & 8) join(buf, cap, &n, "USERBITS_8BITCHARS");
}

/* The string id of a name (NULL: the NULL string, 0). */
static uint32_t str_or_null(trak_importer *imp, const char *s) {
  return s ? trak__ftrace_str(imp, s) : 0;
}

/* The args of buffer event `b`, in Perfetto's order. */
static uint32_t buf_args(trak_importer *imp, const trak_v4l2_buf *b) {
  char flags[512];
  uint32_t set = trak__ftrace_args_begin(imp);
#define KEY(k) trak__ftrace_str(imp, k)
  trak__ftrace_arg_int(imp, set, KEY("minor"), b->minor);
  if (b->vidioc) {
    trak__ftrace_arg_int(imp, set, KEY("index"), b->index);
    trak__ftrace_arg_str(imp, set, KEY("type"),
                         str_or_null(imp, name_of(buf_types, sizeof buf_types / sizeof *buf_types,
                                                  b->type)));
    trak__ftrace_arg_int(imp, set, KEY("bytesused"), b->bytesused);
  }
  buf_flags(b->flags, flags, sizeof flags);
  trak__ftrace_arg_str(imp, set, KEY("flags"), trak__ftrace_str(imp, flags));
  trak__ftrace_arg_str(imp, set, KEY("field"),
                       str_or_null(imp, name_of(buf_fields, sizeof buf_fields / sizeof *buf_fields,
                                                b->field)));
  trak__ftrace_arg_int(imp, set, KEY("timestamp"), b->timestamp);
  trak__ftrace_arg_str(imp, set, KEY("timecode_type"),
                       str_or_null(imp, name_of(tc_types, sizeof tc_types / sizeof *tc_types,
                                                b->tc[TRAK_V4L2_TC_TYPE])));
  tc_flags(b->tc[TRAK_V4L2_TC_FLAGS], flags, sizeof flags);
  trak__ftrace_arg_str(imp, set, KEY("timecode_flags"), trak__ftrace_str(imp, flags));
  static const char *const tc_keys[] = {"timecode_frames",    "timecode_seconds",
                                        "timecode_minutes",   "timecode_hours",
                                        "timecode_userbits0", "timecode_userbits1",
                                        "timecode_userbits2", "timecode_userbits3"};
  for (int i = 0; i < 8; i++)
    trak__ftrace_arg_int(imp, set, KEY(tc_keys[i]), b->tc[TRAK_V4L2_TC_FRAMES + i]);
  trak__ftrace_arg_int(imp, set, KEY("sequence"), b->sequence);
#undef KEY
  return trak__args_share(imp, set);
}

void trak__fa_v4l2(trak_importer *imp, const trak_fq_rec *r) {
  struct trak_fv4l2 *v = v4l2_get(imp);
  const trak_v4l2_buf *b = &v->bufs.v[r->x];
  static const char *const names[] = {"VIDIOC_QBUF", "VIDIOC_DQBUF", "vb2_v4l2_buf_queue",
                                      "vb2_v4l2_buf_done", "vb2_v4l2_qbuf",
                                      "vb2_v4l2_qbuf"}; /* sic: Perfetto's name of dqbuf */
  char name[160];
  snprintf(name, sizeof name, "%s minor=%d seq=%u type=%u index=%u", names[b->kind], b->minor,
           b->sequence, b->vidioc ? b->type : 0, b->vidioc ? b->index : 0);
  uint32_t track = trak__legacy_thread_track(imp, trak__ftrace_utid(imp, r->pid));
  uint32_t set = buf_args(imp, b);
  uint64_t key = trak__mix(trak__mix(trak__mix((uint32_t)b->minor, b->sequence), b->type), b->index);
  uint64_t out = 0, in = 0;
  int added;
  if (b->kind == TRAK_V4L2_QBUF) {
    uint32_t *q = trak__map_put(&v->queued, key, 0, &added);
    if (!*q) *q = ++v->flows, out = flow_id(*q); /* a buffer queued again keeps its first */
  } else if (b->kind == TRAK_V4L2_DQBUF) {
    uint32_t *q = trak__map_get(&v->queued, key);
    if (q && *q) in = flow_id(*q), *q = 0;
  }
  trak__ftrace_slice_flow_ev(imp, r->ts, TRAK_EV_INSTANT, track, trak__ftrace_str(imp, name),
                             trak__ftrace_str(imp, "Video 4 Linux 2"), set, out, in);
}
