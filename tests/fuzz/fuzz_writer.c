/*
** libFuzzer target for the writer API: the input is a program of calls (declare tracks, begin,
** end, complete, instant, counter, with timestamps that may go backwards and durations that may
** outlast parents). Whatever is accepted must import, under the processor's rules
** (tests/support/trace_model.h), into exactly the slices accepted, each on its track (or a lane
** of it); whatever is refused must write nothing; every track's events (named by uuid or the
** sequence's default track) must be in time order in the file, and every packet from the first
** defaults on must say it needs the sequence's incremental state.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/trace_model.h"
#include "trak/writer.h"

enum { MAX_TRACKS = 16, MAX_SLICES = 4096, MAX_HANDLES = 2048, MAX_DEPTH = 64 };

typedef struct shadow {
  uint64_t ts;
  int64_t dur; /* -1 while open */
  int track;   /* index of the declared track, named "t<index>" (its lanes too); -1: unknown */
} shadow;

static int sink(void *user, const void *data, size_t len) {
  trak_pb_put_raw((trak_pb_buf *)user, data, len);
  return ((trak_pb_buf *)user)->error;
}

static shadow sh[MAX_SLICES];
static int open_stack[MAX_HANDLES][MAX_DEPTH];
static int n_open[MAX_HANDLES];
static int owner[MAX_HANDLES]; /* handle -> index of the declared track it belongs to, or -1 */

/* Checks the model's "name=\"s<i>\"" slices against what the writer accepted, each on the
** track it was written to (or a lane of it, which has its name). */
static void check(const char *model, int n) {
  int seen = 0;
  const char *cursor = NULL;
  model_s_slice sl;
  while (model_next_s_slice(model, &cursor, &sl)) {
    int i = sl.index;
    if (i < 0 || i >= n || sl.ts != sh[i].ts || (sh[i].dur >= 0 && sl.dur != sh[i].dur)) abort();
    char name[16];
    snprintf(name, sizeof name, "\"t%d\"", sh[i].track);
    if (sh[i].track >= 0 && strncmp(sl.track, name, strlen(name))) abort();
    seen++;
  }
  if (seen != n) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_writer *w;
  if (trak_writer_open_callback(&w, sink, &out, NULL)) return 0;
  trak_writer_track tracks[MAX_TRACKS];
  uint64_t now[MAX_TRACKS];
  int n_tracks = 0, n = 0, checkable = 1;
  memset(n_open, 0, sizeof n_open);
  memset(owner, 0xff, sizeof owner);
  for (size_t i = 0; i + 3 < size && n < MAX_SLICES; i += 4) {
    uint8_t op = data[i], which = data[i + 1], dt = data[i + 2], dur = data[i + 3];
    if (op % 8 == 7 || n_tracks == 0) { /* declare a track */
      if (n_tracks == MAX_TRACKS) continue;
      char name[16];
      snprintf(name, sizeof name, "t%d", n_tracks);
      trak_writer_track_info info = {.name = name,
                                     .flags = (op & 16) ? TRAK_WRITER_AUTO_SIBLINGS : 0};
      if (n_tracks && (op & 32)) info.parent = tracks[which % n_tracks];
      int counter = (op & 64) && !(op & 16);
      int rc = counter ? trak_writer_add_counter_track(w, &info, TRAK_WRITER_UNIT_COUNT, NULL,
                                                       &tracks[n_tracks])
                       : trak_writer_add_track(w, &info, &tracks[n_tracks]);
      if (rc) continue;
      /* The track, and the alias handle of its lane 0, belong to it. */
      for (trak_writer_track h = tracks[n_tracks]; h < MAX_HANDLES && h <= tracks[n_tracks] + 1;
           h++)
        if (h == tracks[n_tracks] || (info.flags & TRAK_WRITER_AUTO_SIBLINGS)) owner[h] = n_tracks;
      now[n_tracks++] = 0;
      continue;
    }
    int k = which % n_tracks;
    uint64_t ts = (int64_t)now[k] + (int8_t)dt < 0 ? 0 : (uint64_t)((int64_t)now[k] + (int8_t)dt);
    char name[16];
    snprintf(name, sizeof name, "s%d", n);
    trak_writer_event ev = {.track = tracks[k], .ts = ts, .name = name};
    static const trak_writer_event_type types[] = {
        TRAK_WRITER_BEGIN,       TRAK_WRITER_END,   TRAK_WRITER_COMPLETE, TRAK_WRITER_INSTANT,
        TRAK_WRITER_COUNTER_INT, TRAK_WRITER_BEGIN, TRAK_WRITER_END};
    ev.type = types[op % 7];
    ev.dur = dur;
    ev.int_value = dur;
    if (ev.type == TRAK_WRITER_END) ev.name = (op & 128) ? NULL : name;
    if ((op & 8) && ev.type != TRAK_WRITER_END) ev.track = tracks[k] + 1; /* maybe a lane handle */
    trak_writer_flush(w);
    size_t before = trak_pb_buf_len(&out);
    if (trak_writer_write(w, &ev)) {
      trak_writer_flush(w);
      if (trak_pb_buf_len(&out) != before) abort(); /* a refusal wrote something */
      continue;
    }
    if (ts > now[k]) now[k] = ts;
    if (ev.lane >= MAX_HANDLES) {
      checkable = 0; /* past what the harness tracks: stop, check only the trace's shape */
      break;
    }
    /* A lane first seen here belongs to the track whose handle placed the event on it. */
    if (owner[ev.lane] < 0 && ev.track < MAX_HANDLES) owner[ev.lane] = owner[ev.track];
    if (ev.type == TRAK_WRITER_END) {
      if (n_open[ev.lane] == 0) abort(); /* closed something the caller never opened there */
      int j = open_stack[ev.lane][--n_open[ev.lane]];
      sh[j].dur = (int64_t)(ts - sh[j].ts);
      continue;
    }
    if (ev.type == TRAK_WRITER_COUNTER_INT) continue;
    sh[n] = (shadow){ts,
                     ev.type == TRAK_WRITER_BEGIN     ? -1
                     : ev.type == TRAK_WRITER_INSTANT ? 0
                                                      : (int64_t)ev.dur,
                     owner[ev.lane]};
    n++;
    if (ev.type == TRAK_WRITER_BEGIN) {
      if (n_open[ev.lane] == MAX_DEPTH) {
        checkable = 0;
        break;
      }
      open_stack[ev.lane][n_open[ev.lane]++] = n - 1;
    }
  }
  if (trak_writer_close(w, NULL, NULL)) abort();
  size_t len = trak_pb_buf_len(&out);
  if (out.start) {
    if (!trace_in_track_order(out.start, len) || !trace_defaults_flagged(out.start, len)) abort();
    char *model = trace_model_text(out.start, len);
    /* Every track is named "t<k>": an unnamed one holds events that named no track and had no
    ** default track to fall back on. */
    if (strstr(model, "MALFORMED") || strstr(model, "<unnamed>")) abort();
    if (checkable) check(model, n);
    free(model);
  }
  trak_pb_buf_free(&out);
  return 0;
}
