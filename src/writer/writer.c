/*
** This file holds the writer's lifecycle and output: opening on a file, fd or callback, the
** output buffer handed to the sink in large pieces, TracePacket framing with the sequence
** fields, refusal messages, and close with its totals.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "writer/writer_internal.h"

/* The fd sink: writes everything, retrying short writes and EINTR. */
static int fd_sink(void *user, const void *data, size_t len) {
  trak_writer *w = user;
  const uint8_t *p = data;
  while (len) {
    ssize_t n = write(w->fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return TRAK_EIO;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

static int writer_new(trak_writer **out, trak_writer_sink_fn sink, void *user, int fd,
                      trak_error *err) {
  trak_writer *w = calloc(1, sizeof *w);
  if (!w) return trak_error_set(err, TRAK_ENOMEM, "trak_writer_open: out of memory");
  trak_pb_buf_init_heap(&w->out);
  trak_pb_buf_init_heap(&w->pending_interned);
  w->sink = sink;
  w->sink_user = sink == fd_sink ? w : user;
  w->fd = fd;
  trak__wr_intern_init(&w->names, TRAK_PB_InternedData_event_names);
  trak__wr_intern_init(&w->categories, TRAK_PB_InternedData_event_categories);
  trak__wr_intern_init(&w->arg_names, TRAK_PB_InternedData_debug_annotation_names);
  trak__wr_ids_init(w);
  *out = w;
  return 0;
}

int trak_writer_open_callback(trak_writer **out, trak_writer_sink_fn sink, void *user,
                              trak_error *err) {
  if (!out || !sink)
    return trak_error_set(err, TRAK_EINVAL, "trak_writer_open_callback: NULL argument");
  return writer_new(out, sink, user, -1, err);
}

int trak_writer_open_fd(trak_writer **out, int fd, trak_error *err) {
  if (!out || fd < 0) return trak_error_set(err, TRAK_EINVAL, "trak_writer_open_fd: bad fd %d", fd);
  return writer_new(out, fd_sink, NULL, fd, err);
}

int trak_writer_open_file(trak_writer **out, const char *path, trak_error *err) {
  if (!out || !path)
    return trak_error_set(err, TRAK_EINVAL, "trak_writer_open_file: NULL argument");
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return trak_error_set(err, TRAK_EIO, "%s: %s", path, strerror(errno));
  int rc = writer_new(out, fd_sink, NULL, fd, err);
  if (rc)
    close(fd);
  else
    (*out)->own_fd = 1;
  return rc;
}

int trak__wr_fail(trak_writer *w, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  trak_error_setv(&w->last_error, code, fmt, ap);
  va_end(ap);
  w->totals.refused++;
  return code;
}

const trak_error *trak_writer_last_error(const trak_writer *w) {
  return &w->last_error;
}

int trak_writer_flush(trak_writer *w) {
  if (w->out.error) return w->out.error;
  size_t len = trak_pb_buf_len(&w->out);
  if (len && !w->sink_error) {
    int rc = w->sink(w->sink_user, w->out.start, len);
    if (rc)
      w->sink_error = rc < 0 ? rc : TRAK_EIO;
    else
      w->totals.bytes += len;
  }
  w->out.p = w->out.start;
  return w->sink_error;
}

trak_pb_nested trak__wr_packet_begin(trak_writer *w, int needs_state) {
  trak_pb_buf *b = &w->out;
  trak_pb_nested packet = trak_pb_begin_nested_short(b, TRAK_PB_Trace_packet);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_trusted_packet_sequence_id, w->seq_id);
  if (TRAK_UNLIKELY(!w->started)) {
    /* The first packet resets the sequence's incremental state, as the Perfetto SDK does. */
    w->started = 1;
    trak_pb_put_varint(b, TRAK_PB_TracePacket_sequence_flags,
                       TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED |
                           TRAK_PB_TracePacket_SEQ_NEEDS_INCREMENTAL_STATE);
    trak_pb_put_bool(b, TRAK_PB_TracePacket_first_packet_on_sequence, 1);
    trak_pb_put_varint(b, TRAK_PB_TracePacket_previous_packet_dropped, 1);
  } else if (needs_state || w->default_track) {
    /* Once the sequence has a default track, every packet says it needs the incremental state,
    ** as Perfetto's trace_packet.proto asks of packets after trace_packet_defaults. */
    trak_pb_put_varint(b, TRAK_PB_TracePacket_sequence_flags,
                       TRAK_PB_TracePacket_SEQ_NEEDS_INCREMENTAL_STATE);
  }
  size_t pending = trak_pb_buf_len(&w->pending_interned);
  if (TRAK_UNLIKELY(pending)) {
    trak_pb_put_bytes(b, TRAK_PB_TracePacket_interned_data, w->pending_interned.start, pending);
    w->pending_interned.p = w->pending_interned.start;
  }
  return packet;
}

int trak__wr_packet_end(trak_writer *w, trak_pb_nested packet) {
  trak_pb_end_nested_short(&w->out, packet);
  w->totals.packets++;
  if (TRAK_UNLIKELY(w->out.error)) return w->out.error;
  if (TRAK_UNLIKELY(trak_pb_buf_len(&w->out) >= TRAK__FLUSH_BYTES)) return trak_writer_flush(w);
  return 0;
}

int trak_writer_close(trak_writer *w, trak_writer_totals *totals, trak_error *err) {
  if (!w) return trak_error_set(err, TRAK_EINVAL, "trak_writer_close: NULL writer");
  int rc = trak__wr_slices_finish(w);
  /* Interned strings nobody used yet still get defined, so every iid handed out is valid. */
  if (!rc && trak_pb_buf_len(&w->pending_interned))
    rc = trak__wr_packet_end(w, trak__wr_packet_begin(w, 1));
  int frc = trak_writer_flush(w);
  if (!rc) rc = frc;
  if (w->own_fd && close(w->fd) && !rc) rc = TRAK_EIO;
  const uint64_t *n = w->type_counts;
  w->totals.interned = w->names.count + w->categories.count + w->arg_names.count;
  w->totals.events = n[TRAK_WRITER_BEGIN] + n[TRAK_WRITER_END] + n[TRAK_WRITER_COMPLETE] +
                     n[TRAK_WRITER_INSTANT] + n[TRAK_WRITER_COUNTER_INT] +
                     n[TRAK_WRITER_COUNTER_DOUBLE];
  w->totals.slices = n[TRAK_WRITER_BEGIN] + n[TRAK_WRITER_COMPLETE];
  w->totals.instants = n[TRAK_WRITER_INSTANT];
  w->totals.counter_values = n[TRAK_WRITER_COUNTER_INT] + n[TRAK_WRITER_COUNTER_DOUBLE];
  if (totals) *totals = w->totals;
  if (rc)
    trak_error_set(err, rc, "trak_writer_close: %s",
                   w->last_error.code ? w->last_error.message
                   : rc == TRAK_EIO   ? "writing the trace failed"
                                      : trak_strerror(rc));
  trak__wr_tracks_free(w);
  trak__wr_ids_free(w);
  trak__wr_intern_free(&w->names);
  trak__wr_intern_free(&w->categories);
  trak__wr_intern_free(&w->arg_names);
  trak_pb_buf_free(&w->out);
  trak_pb_buf_free(&w->pending_interned);
  free(w);
  return rc;
}
