/*
** The writer's default track: events on the sequence's default track omit track_uuid
** (src/writer/default_track.c). These tests check that a trace mixing events on the default
** track and on other tracks imports with every event on its right track, alone, concatenated
** with another writer's trace and interleaved packet by packet with it (defaults are per
** sequence); that the trace really mixes the two forms and marks every packet from the first
** defaults on as needing incremental state; and that the trace model resolves defaults per
** sequence as the processor does.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer_testutil.h"

/* Two sequences with defaults of their own, set in the packet of the event they first apply
** to, switched without clearing, and overridden by an explicit track_uuid. */
static const char TWO_SEQUENCES[] =
    "packet { trusted_packet_sequence_id: 7 sequence_flags: 1 track_descriptor { uuid: 1 name: "
    "\"A\" } }\n"
    "packet { trusted_packet_sequence_id: 7 track_descriptor { uuid: 2 name: \"B\" } }\n"
    "packet { trusted_packet_sequence_id: 7 track_descriptor { uuid: 3 name: \"C\" } }\n"
    "packet { trusted_packet_sequence_id: 7 sequence_flags: 2 timestamp: 10\n"
    "  trace_packet_defaults { track_event_defaults { track_uuid: 1 } }\n"
    "  track_event { type: TYPE_SLICE_BEGIN name: \"a1\" } }\n"
    "packet { trusted_packet_sequence_id: 9 sequence_flags: 3 timestamp: 20\n"
    "  trace_packet_defaults { track_event_defaults { track_uuid: 2 } }\n"
    "  track_event { type: TYPE_INSTANT name: \"b1\" } }\n"
    "packet { trusted_packet_sequence_id: 7 sequence_flags: 2 timestamp: 30\n"
    "  track_event { type: TYPE_INSTANT name: \"a2\" } }\n"
    "packet { trusted_packet_sequence_id: 9 sequence_flags: 2 timestamp: 40\n"
    "  track_event { type: TYPE_INSTANT name: \"b2\" } }\n"
    "packet { trusted_packet_sequence_id: 7 sequence_flags: 2 timestamp: 50\n"
    "  track_event { type: TYPE_INSTANT track_uuid: 3 name: \"c1\" } }\n"
    "packet { trusted_packet_sequence_id: 7 sequence_flags: 2 timestamp: 60\n"
    "  trace_packet_defaults { track_event_defaults { track_uuid: 3 } }\n"
    "  track_event { type: TYPE_INSTANT name: \"c2\" } }\n"
    "packet { trusted_packet_sequence_id: 7 sequence_flags: 2 timestamp: 70\n"
    "  track_event { type: TYPE_SLICE_END track_uuid: 1 } }\n"
    "packet { trusted_packet_sequence_id: 9 sequence_flags: 2 timestamp: 80\n"
    "  track_event { type: TYPE_INSTANT name: \"b3\" } }\n";

static void test_model_and_processor_agree_on_defaults(void **state) {
  (void)state;
  trak_pb_buf bin;
  tu_pbtxt_to_binary("Trace", TWO_SEQUENCES, &bin);
  size_t len;
  uint8_t *data = trak_pb_buf_detach(&bin, &len);
  char *model = trace_model_text(data, len);
  assert_true(models_equal("two sequences",
                           "track \"A\"\n"
                           "  slice ts=10 dur=60 depth=0 name=\"a1\"\n"
                           "  instant ts=30 dur=0 depth=1 name=\"a2\"\n"
                           "track \"B\"\n"
                           "  instant ts=20 dur=0 depth=0 name=\"b1\"\n"
                           "  instant ts=40 dur=0 depth=0 name=\"b2\"\n"
                           "  instant ts=80 dur=0 depth=0 name=\"b3\"\n"
                           "track \"C\"\n"
                           "  instant ts=50 dur=0 depth=0 name=\"c1\"\n"
                           "  instant ts=60 dur=0 depth=0 name=\"c2\"\n",
                           model));
  assert_true(trace_in_track_order(data, len));
  trak_processor *p = import_parts(data, len, NULL, 0);
  assert_string_equal(query1(p, "select group_concat(x, ',') from (select s.name || ':' || "
                                "t.name || ':' || s.dur as x from slice s join track t on "
                                "s.track_id = t.id order by s.ts)"),
                      "a1:A:60,b1:B:0,a2:A:0,b2:B:0,c1:C:0,c2:C:0,b3:B:0");
  trak_processor_free(p);
  free(model);
  free(data);
}

/* splitmix64, for reproducible scripts of events. */
static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* One writer's trace and what it should import to. Slices are named "<key>/<n>", where key is
** the tid of a thread track or the name of another track. */
typedef struct script_result {
  uint8_t *data;
  size_t len;
  int slices;    /* accepted slices and instants */
  int counters;  /* accepted counter values */
  long long sum; /* of the counter values */
} script_result;

enum { K_THREAD1, K_THREAD2, K_GPU, K_ASYNC, K_MEM, N_KEYS };

/* Writes `n` events in runs of 1 to 8 on random tracks: instants, COMPLETE slices (whose ENDs
** come later, often in another track's run), BEGIN / END pairs, lane-placed overlapping slices
** and counter values. Events the writer refuses (a BEGIN's END before its COMPLETE child ends)
** are left out of the expectations, since a refusal writes nothing. `pid` picks the tids;
** `seq_id`, if not 0, is the writer's sequence id. */
static script_result write_script(uint64_t seed, int32_t pid, int n, uint32_t seq_id) {
  script_result r = {0};
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_writer *w;
  assert_int_equal(trak_writer_open_callback(&w, mem_sink, &out, NULL), 0);
  assert_int_equal(trak_writer_set_seed(w, seed), 0);
  if (seq_id) assert_int_equal(trak_writer_set_sequence_id(w, seq_id), 0);
  trak_writer_track process, tracks[N_KEYS];
  char keys[N_KEYS][16];
  assert_int_equal(trak_writer_add_process(w, pid, "app", NULL, &process), 0);
  trak_writer_track_info info = {.parent = process};
  for (int k = K_THREAD1; k <= K_THREAD2; k++) {
    snprintf(keys[k], sizeof keys[k], "%d", pid + 1 + k);
    assert_int_equal(trak_writer_add_thread(w, pid, pid + 1 + k, "t", &info, &tracks[k]), 0);
  }
  /* The other tracks' names carry the pid too, so that two writers' tracks differ. */
  snprintf(keys[K_GPU], sizeof keys[K_GPU], "gpu%d", pid);
  snprintf(keys[K_ASYNC], sizeof keys[K_ASYNC], "async%d", pid);
  snprintf(keys[K_MEM], sizeof keys[K_MEM], "mem%d", pid);
  assert_int_equal(
      trak_writer_add_track(w, &(trak_writer_track_info){.name = keys[K_GPU]}, &tracks[K_GPU]), 0);
  trak_writer_track_info async = {.name = keys[K_ASYNC], .flags = TRAK_WRITER_AUTO_SIBLINGS};
  assert_int_equal(trak_writer_add_track(w, &async, &tracks[K_ASYNC]), 0);
  assert_int_equal(trak_writer_add_counter_track(w, &(trak_writer_track_info){.name = keys[K_MEM]},
                                                 TRAK_WRITER_UNIT_SIZE_BYTES, NULL, &tracks[K_MEM]),
                   0);
  uint64_t rng = seed, ts = 1000;
  int depth[N_KEYS] = {0};
  for (int i = 0; i < n;) {
    static const int RUNS[] = {1, 1, 1, 2, 3, 5, 8};
    int key = (int)(next_random(&rng) % N_KEYS);
    int run = RUNS[next_random(&rng) % (sizeof RUNS / sizeof *RUNS)];
    for (int j = 0; j < run && i < n; j++, i++) {
      uint64_t x = next_random(&rng);
      ts += 1 + x % 3;
      char name[32];
      snprintf(name, sizeof name, "%s/%d", keys[key], i);
      trak_writer_event ev = {.track = tracks[key], .ts = ts, .name = name};
      if (key == K_MEM) {
        ev.type = TRAK_WRITER_COUNTER_INT;
        ev.int_value = i;
      } else if (key == K_ASYNC || x % 4 == 0) {
        ev.type = TRAK_WRITER_COMPLETE;
        ev.dur = (x >> 8) % (key == K_ASYNC ? 20 : 3); /* overlapping on lanes, nested elsewhere */
      } else if (x % 4 == 1) {
        ev.type = TRAK_WRITER_INSTANT;
      } else {
        ev.type =
            depth[key] && (x % 4 == 3 || depth[key] == 3) ? TRAK_WRITER_END : TRAK_WRITER_BEGIN;
      }
      if (trak_writer_write(w, &ev)) continue;
      if (ev.type == TRAK_WRITER_COUNTER_INT) {
        r.counters++;
        r.sum += i;
      } else if (ev.type == TRAK_WRITER_END) {
        depth[key]--;
      } else {
        r.slices++;
        depth[key] += ev.type == TRAK_WRITER_BEGIN;
      }
    }
  }
  assert_int_equal(trak_writer_close(w, NULL, NULL), 0);
  r.data = trak_pb_buf_detach(&out, &r.len);
  return r;
}

/* How a trace names the tracks of its events. */
typedef struct track_forms {
  int by_uuid, by_default, switches;
} track_forms;

static track_forms count_forms(const uint8_t *data, size_t len) {
  track_forms c = {0};
  trak_pb_decoder d, p, e;
  trak_pb_field f, g, h;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) > 0) {
    int event = 0, uuid = 0, defaults = 0;
    trak_pb_decoder_init_nested(&p, &d, &f);
    while (trak_pb_decoder_next(&p, &g) > 0) {
      defaults |= g.number == TRAK_PB_TracePacket_trace_packet_defaults;
      if (g.number != TRAK_PB_TracePacket_track_event) continue;
      event = 1;
      trak_pb_decoder_init_nested(&e, &p, &g);
      while (trak_pb_decoder_next(&e, &h) > 0)
        uuid |= h.number == TRAK_PB_TrackEvent_track_uuid;
    }
    c.switches += defaults;
    c.by_uuid += event && uuid;
    c.by_default += event && !uuid;
  }
  return c;
}

/* Checks that the imported trace has `slices` slices, each on the track its name says, and
** `counters` values summing to `sum` on the "mem<pid>" counter tracks. */
static void check_import(trak_processor *p, int slices, int counters, long long sum) {
  char want[64];
  snprintf(want, sizeof want, "%d", slices);
  assert_string_equal(query1(p, "select count(*) from slice"), want);
  const char *misplaced = query1(
      p, "select count(*) || ' ' || coalesce(min(s.name), '') from slice s join track tr on "
         "tr.id = s.track_id left join thread_track tt on tt.id = s.track_id left join thread th "
         "on th.utid = tt.utid where substr(s.name, 1, instr(s.name, '/') - 1) != "
         "coalesce(cast(th.tid as text), tr.name)");
  assert_string_equal(misplaced, "0 ");
  snprintf(want, sizeof want, "%d", counters);
  assert_string_equal(query1(p, "select count(*) from counter c join counter_track ct on "
                                "c.track_id = ct.id where ct.name like 'mem%'"),
                      want);
  snprintf(want, sizeof want, "%lld", sum);
  assert_string_equal(query1(p, "select cast(sum(c.value) as int) from counter c join "
                                "counter_track ct on c.track_id = ct.id where ct.name like 'mem%'"),
                      want);
}

static void test_mixed_tracks_import_on_their_tracks(void **state) {
  (void)state;
  script_result r = write_script(1, 10, 3000, 0);
  track_forms c = count_forms(r.data, r.len);
  /* The script mixes both forms, switching the default many times. */
  assert_true(c.by_default > 1000);
  assert_true(c.by_uuid > 50);
  assert_true(c.switches > 100);
  assert_true(trace_defaults_flagged(r.data, r.len));
  assert_true(r.slices > 800 && r.counters > 300);

  trak_processor *p = import_parts(r.data, r.len, NULL, 0);
  check_import(p, r.slices, r.counters, r.sum);
  trak_processor_free(p);

  /* The model sees the same: no event on a track it cannot name, each track in time order. */
  char *model = trace_model_text(r.data, r.len);
  assert_null(strstr(model, "<unnamed>"));
  assert_null(strstr(model, "MALFORMED"));
  assert_true(trace_in_track_order(r.data, r.len));
  free(model);
  free(r.data);
}

/* Splits two traces into packets and interleaves them, one packet of each in turn. */
static uint8_t *interleave(const script_result *a, const script_result *b, size_t *len) {
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_pb_decoder da, db;
  trak_pb_field fa, fb;
  trak_pb_decoder_init(&da, a->data, a->len);
  trak_pb_decoder_init(&db, b->data, b->len);
  int more_a = 1, more_b = 1;
  while (more_a || more_b) {
    if (more_a && (more_a = trak_pb_decoder_next(&da, &fa) > 0))
      trak_pb_put_bytes(&out, TRAK_PB_Trace_packet, fa.data, fa.len);
    if (more_b && (more_b = trak_pb_decoder_next(&db, &fb) > 0))
      trak_pb_put_bytes(&out, TRAK_PB_Trace_packet, fb.data, fb.len);
  }
  assert_int_equal(out.error, 0);
  return trak_pb_buf_detach(&out, len);
}

static void test_writers_keep_their_defaults_apart(void **state) {
  (void)state;
  script_result a = write_script(2, 10, 2000, 0), b = write_script(3, 20, 2000, 0);
  int slices = a.slices + b.slices, counters = a.counters + b.counters;
  /* `cat a b`, `cat b a`, and packets mixed as a tracing service would. */
  trak_processor *p = import_parts(a.data, a.len, b.data, b.len);
  check_import(p, slices, counters, a.sum + b.sum);
  trak_processor_free(p);
  p = import_parts(b.data, b.len, a.data, a.len);
  check_import(p, slices, counters, a.sum + b.sum);
  trak_processor_free(p);
  size_t len;
  uint8_t *mixed = interleave(&a, &b, &len);
  assert_int_equal(len, a.len + b.len);
  p = import_parts(mixed, len, NULL, 0);
  check_import(p, slices, counters, a.sum + b.sum);
  trak_processor_free(p);
  assert_true(trace_in_track_order(mixed, len));
  assert_true(trace_defaults_flagged(mixed, len));
  free(mixed);
  free(a.data);
  free(b.data);

  /* Concatenated writers that share a sequence id: each one's first packet clears the
  ** sequence's incremental state, and each relies only on defaults it set after that. */
  a = write_script(4, 10, 2000, 77), b = write_script(5, 20, 2000, 77);
  p = import_parts(a.data, a.len, b.data, b.len);
  check_import(p, a.slices + b.slices, a.counters + b.counters, a.sum + b.sum);
  trak_processor_free(p);
  free(a.data);
  free(b.data);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_model_and_processor_agree_on_defaults),
      cmocka_unit_test(test_mixed_tracks_import_on_their_tracks),
      cmocka_unit_test(test_writers_keep_their_defaults_apart),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
