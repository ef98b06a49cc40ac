/*
** Tests of the graphics and video decoders on times at int64's edges (a uint64 timestamp past
** 2^63 is a negative int64, a duration can reach past INT64_MAX): each sum or difference of
** the trace's own times saturates or wraps where the decoder says, never overflows (UBSan's
** fuzz_import found these; the inputs are in tests/fuzz/corpus/fuzz_import/).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sqlcheck.h"

/* A virtio-video command within its 100 us of INT64_MAX ends there: its slice is shorter, and
** its lane is busy until then (a second command goes to a lane of its own). */
static void test_virtio_video_command_at_the_end(void **state) {
  static const sc_check c[] = {
      {"SELECT ts, dur, name FROM slice ORDER BY ts",
       "9223372036854775000|807|QUERY_CAPABILITY\n9223372036854775001|806|STREAM_CREATE"},
      {"SELECT COUNT(DISTINCT track_id) FROM slice", "2"},
  };
  sc_check_trace("packet { ftrace_events { cpu: 1\n"
                 "  event { timestamp: 9223372036854775000 pid: 0 virtio_video_cmd { stream_id: 1 "
                 "type: 256 } }\n"
                 "  event { timestamp: 9223372036854775001 pid: 0 virtio_video_cmd { stream_id: 1 "
                 "type: 257 } }\n"
                 "} }\n",
                 NULL, c, sizeof c / sizeof *c);
  (void)state;
}

/* A virtio-gpu command queued at a negative time and answered at 100: its latency is past
** int64, the difference of the two as doubles. */
static void test_virtio_gpu_latency_past_int64(void **state) {
  static const sc_check c[] = {
      {"SELECT CAST(value AS TEXT) FROM counter JOIN counter_track t ON counter.track_id = t.id "
       "WHERE t.name = 'Virtgpu Control Latency'",
       "9.22337203685478e+18"},
  };
  sc_check_trace("packet { ftrace_events { cpu: 1\n"
                 "  event { timestamp: 9223372036854775809 pid: 0 virtio_gpu_cmd_queue { name: "
                 "\"control\" seqno: 3 type: 257 num_free: 5 } }\n"
                 "  event { timestamp: 100 pid: 0 virtio_gpu_cmd_response { name: \"control\" "
                 "seqno: 3 type: 257 num_free: 6 } }\n"
                 "} }\n",
                 NULL, c, sizeof c / sizeof *c);
  (void)state;
}

/* A render stage whose duration reaches past INT64_MAX keeps its queue's first lane busy to
** the end: the next stage of the queue goes to a second lane (a wrapped end freed the first). */
static void test_gpu_stage_past_int64(void **state) {
  static const sc_check c[] = {
      {"SELECT COUNT(DISTINCT track_id) FROM gpu_slice", "2"},
  };
  sc_check_trace("packet { timestamp: 9223372036854775000 gpu_render_stage_event { event_id: 1 "
                 "duration: 9223372036854775000 hw_queue_id: 1 stage_id: 0 context: 3 } }\n"
                 "packet { timestamp: 9223372036854775001 gpu_render_stage_event { event_id: 2 "
                 "duration: 5 hw_queue_id: 1 stage_id: 0 context: 3 } }\n",
                 NULL, c, sizeof c / sizeof *c);
  (void)state;
}

/* A buffer's times as args wrap as Perfetto's int64 differences do: acquired at INT64_MIN (a
** timestamp of 2^63), latched at 100. */
static void test_graphics_frame_times_wrap(void **state) {
  static const sc_check c[] = {
      {"SELECT int_value FROM args JOIN slice USING (arg_set_id) "
       "WHERE slice.name = 'Latch' AND key = 'acquire_to_latch_time'",
       "-9223372036854775708"},
  };
  sc_check_trace("packet { timestamp: 9223372036854775808 graphics_frame_event { buffer_event { "
                 "buffer_id: 2 layer_name: \"L\" frame_number: 5 type: ACQUIRE_FENCE } } }\n"
                 "packet { timestamp: 100 graphics_frame_event { buffer_event { buffer_id: 2 "
                 "layer_name: \"L\" frame_number: 5 type: LATCH } } }\n",
                 NULL, c, sizeof c / sizeof *c);
  (void)state;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_virtio_video_command_at_the_end),
      cmocka_unit_test(test_virtio_gpu_latency_past_int64),
      cmocka_unit_test(test_gpu_stage_past_int64),
      cmocka_unit_test(test_graphics_frame_times_wrap),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
