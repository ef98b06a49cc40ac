/*
** A custom data source: "example.frame_stats" writes one packet per rendered frame with the
** frame time as a counter sample on a counter track of its own. It shows the data-source
** layer's pieces:
**   setup    reads the instance's DataSourceConfig (here its legacy_config string, a label);
**   state    the label, per instance, read under the instance lock;
**   incremental state  whether this sequence has written its track descriptor since its last
**            clear (a packet written then carries SEQ_INCREMENTAL_STATE_CLEARED);
**   trace    TRAK_DATA_SOURCE_TRACE: one load and a branch when no session enables it.
**   example_custom_data_source out.pftrace      (then: trak dump out.pftrace)
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trak/trak.h"

static trak_data_source *frame_stats;

typedef struct instance {
  char label[64];
} instance;

typedef struct sequence {
  int described; /* the counter track's descriptor was written on this sequence */
} sequence;

static int setup(void *user, uint32_t index, const uint8_t *config, size_t len, void **state) {
  instance *in = calloc(1, sizeof *in);
  if (!in) return -1;
  strcpy(in->label, "frame time");
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, config, len);
  while (trak_pb_decoder_next(&d, &f) == 1)
    if (f.number == TRAK_PB_DataSourceConfig_legacy_config)
      snprintf(in->label, sizeof in->label, "%.*s", (int)f.len, f.data);
  *state = in;
  return 0;
}
static void stop(void *user, uint32_t index, void *state) {
  free(state);
}
static void *seq_new(void *user) {
  return calloc(1, sizeof(sequence));
}
static void seq_free(void *user, void *state) {
  free(state);
}

#define TRACK_UUID 0x5eed

/* Writes the frame's packet (and, first on a fresh sequence, the track's descriptor). */
static void write_frame(trak_ds_ctx *ctx, void *user) {
  double ms = *(const double *)user;
  sequence *seq = trak_ds_incremental_state(ctx);
  if (!seq) return;
  if (!seq->described) {
    trak_pb_buf *p = trak_ds_new_packet(ctx);
    if (trak_ds_incremental_state_cleared(ctx))
      trak_pb_put_varint(p, TRAK_PB_TracePacket_sequence_flags,
                         TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED);
    trak_pb_nested td = trak_pb_begin_nested_short(p, TRAK_PB_TracePacket_track_descriptor);
    trak_pb_put_varint(p, TRAK_PB_TrackDescriptor_uuid, TRACK_UUID);
    instance *in = trak_ds_lock_instance(ctx);
    trak_pb_put_string(p, TRAK_PB_TrackDescriptor_name, in->label);
    trak_ds_unlock_instance(ctx);
    trak_pb_nested c = trak_pb_begin_nested_short(p, TRAK_PB_TrackDescriptor_counter);
    trak_pb_end_nested_short(p, c);
    trak_pb_end_nested_short(p, td);
    seq->described = 1;
  }
  trak_pb_buf *p = trak_ds_new_packet(ctx);
  trak_pb_put_varint(p, TRAK_PB_TracePacket_timestamp, trak_clock_now());
  trak_pb_put_varint(p, TRAK_PB_TracePacket_timestamp_clock_id, TRAK_PB_BUILTIN_CLOCK_BOOTTIME);
  trak_pb_nested te = trak_pb_begin_nested_short(p, TRAK_PB_TracePacket_track_event);
  trak_pb_put_varint(p, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_COUNTER);
  trak_pb_put_varint(p, TRAK_PB_TrackEvent_track_uuid, TRACK_UUID);
  trak_pb_put_double(p, TRAK_PB_TrackEvent_double_counter_value, ms);
  trak_pb_end_nested_short(p, te);
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "custom_data_source.pftrace";
  trak_data_source_desc d = {0};
  d.name = "example.frame_stats";
  d.setup = setup;
  d.stop = stop;
  d.incremental_state_new = seq_new;
  d.incremental_state_free = seq_free;
  trak_error err;
  if (trak_data_source_register(&d, &frame_stats, &err) != 0) {
    fprintf(stderr, "custom_data_source: %s\n", err.message);
    return 1;
  }
  double ms = 16.7;
  TRAK_DATA_SOURCE_TRACE(frame_stats, write_frame, &ms); /* no session yet: nothing happens */

  trak_session *session;
  if (trak_session_new_from_text("data_sources { config { name: \"example.frame_stats\""
                                 " legacy_config: \"frame time (ms)\" } }",
                                 &session, &err) ||
      trak_session_start(session, &err)) {
    fprintf(stderr, "custom_data_source: %s\n", err.message);
    return 1;
  }
  for (int frame = 0; frame < 10; frame++) {
    ms = 16.0 + (frame % 3) * 0.5;
    TRAK_DATA_SOURCE_TRACE(frame_stats, write_frame, &ms);
  }
  trak_session_stop(session, NULL);
  if (trak_session_write_file(session, path, &err) != 0) {
    fprintf(stderr, "custom_data_source: %s\n", err.message);
    return 1;
  }
  trak_session_free(session);
  printf("custom_data_source: wrote %s\n", path);
  return 0;
}
