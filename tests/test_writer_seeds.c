/*
** Every example of the guide to synthetic traces (tests/data/seed/NN_*.pbtxt) rebuilt through the
** writer API must have the same semantic model (tests/support/trace_model.h) as the seed's own
** text: track hierarchy, ordering fields, slices, counters, flows, interned names.
** With TRAK_WRITER_DUMP_DIR set, the writer's traces are also saved there as <seed>.pb.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include <cmocka.h>

#include "writer_testutil.h"

typedef void (*build_fn)(trak_writer *w);

/* Runs `build` on a writer in memory and compares its model with the seed's. Returns the
** seed's model (caller frees) for extra assertions. */
static char *check_seed(const char *seed, build_fn build) {
  const char *path = tu_source_path(seed);
  size_t seed_len;
  uint8_t *seed_bin = encode_pbtxt_file(path, &seed_len);
  assert_non_null(seed_bin);
  char *expected = trace_model_text(seed_bin, seed_len);
  free(seed_bin);

  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_writer *w;
  assert_int_equal(trak_writer_open_callback(&w, mem_sink, &out, NULL), 0);
  build(w);
  assert_int_equal(w ? trak_writer_last_error(w)->code : 0, 0);
  trak_writer_totals totals;
  assert_int_equal(trak_writer_close(w, &totals, NULL), 0);
  assert_int_equal(totals.bytes, trak_pb_buf_len(&out));
  assert_int_equal(totals.refused, 0);
  const char *dump = getenv("TRAK_WRITER_DUMP_DIR");
  if (dump) { /* for comparing with other importers by hand */
    char file[1024];
    snprintf(file, sizeof file, "%s/%s.pb", dump, strrchr(seed, '/') + 1);
    FILE *f = fopen(file, "wb");
    assert_non_null(f);
    fwrite(out.start, 1, trak_pb_buf_len(&out), f);
    fclose(f);
  }
  assert_true(trace_in_track_order(out.start, trak_pb_buf_len(&out)));
  char *actual = trace_model_text(out.start, trak_pb_buf_len(&out));
  trak_pb_buf_free(&out);
  assert_true(models_equal(seed, expected, actual));
  free(actual);
  return expected;
}

#define OK(call) assert_int_equal((call), 0)

static void build_01(trak_writer *w) {
  trak_writer_track p, t;
  OK(trak_writer_add_process(w, 1234, "My process name", NULL, &p));
  trak_writer_track_info ti = {.parent = p};
  OK(trak_writer_add_thread(w, 1234, 5678, "My thread name", &ti, &t));
  OK(trak_writer_begin(w, t, 200, "My special parent"));
  OK(trak_writer_begin(w, t, 250, "My special child"));
  OK(trak_writer_instant(w, t, 285, NULL));
  OK(trak_writer_end(w, t, 290));
  OK(trak_writer_end(w, t, 300));
}

static void test_seed_01_thread_slices(void **state) {
  char *model = check_seed("tests/data/seed/01_thread_slices.pbtxt", build_01);
  assert_non_null(strstr(model, "slice ts=250 dur=40 depth=1 name=\"My special child\""));
  assert_non_null(strstr(model, "instant ts=285 dur=0 depth=2"));
  free(model);
}

/* Seed 02 written the way its text is ordered: one async operation after the other. The
** second one overlaps the first without nesting, so it lands on a lane. */
static void build_02(trak_writer *w) {
  trak_writer_track p;
  trak_writer_track_info pi = {.name = "My special track", .flags = TRAK_WRITER_AUTO_SIBLINGS};
  OK(trak_writer_add_process(w, 1234, "My process name", &pi, &p));
  trak_writer_event a = {
      .type = TRAK_WRITER_BEGIN, .track = p, .ts = 200, .name = "My special parent A"};
  OK(trak_writer_write(w, &a));
  assert_int_not_equal(a.lane, 0);
  OK(trak_writer_begin(w, a.lane, 250, "My special child"));
  OK(trak_writer_end(w, a.lane, 290));
  OK(trak_writer_end(w, a.lane, 300));
  trak_writer_event b = {
      .type = TRAK_WRITER_BEGIN, .track = p, .ts = 230, .name = "My special parent A"};
  OK(trak_writer_write(w, &b));
  assert_int_not_equal(b.lane, p);
  OK(trak_writer_begin(w, b.lane, 260, "My special child"));
  OK(trak_writer_end(w, b.lane, 270));
  OK(trak_writer_end(w, b.lane, 295));
}

/* The same trace written in timestamp order, ending the operations by name on the auto track. */
static void build_02_interleaved(trak_writer *w) {
  trak_writer_track p;
  trak_writer_track_info pi = {.name = "My special track", .flags = TRAK_WRITER_AUTO_SIBLINGS};
  OK(trak_writer_add_process(w, 1234, "My process name", &pi, &p));
  trak_writer_event a = {
      .type = TRAK_WRITER_BEGIN, .track = p, .ts = 200, .name = "My special parent A"};
  trak_writer_event b = {
      .type = TRAK_WRITER_BEGIN, .track = p, .ts = 230, .name = "My special parent A"};
  OK(trak_writer_write(w, &a));
  OK(trak_writer_write(w, &b));
  OK(trak_writer_begin(w, a.lane, 250, "My special child"));
  OK(trak_writer_begin(w, b.lane, 260, "My special child"));
  OK(trak_writer_end(w, b.lane, 270));
  OK(trak_writer_end(w, a.lane, 290));
  OK(trak_writer_end(w, b.lane, 295));
  OK(trak_writer_end(w, a.lane, 300));
}

static void test_seed_02_process_slices(void **state) {
  char *model = check_seed("tests/data/seed/02_process_slices.pbtxt", build_02);
  assert_non_null(strstr(model, "/ \"My special track\"\n  slice ts=230 dur=65 depth=0"));
  free(model);
  free(check_seed("tests/data/seed/02_process_slices.pbtxt", build_02_interleaved));
}

static void build_03(trak_writer *w) {
  trak_writer_track root, pa, pb, a1, a2, b1;
  OK(trak_writer_add_track(w, &(trak_writer_track_info){.name = "Root"}, &root));
  OK(trak_writer_add_track(w, &(trak_writer_track_info){.parent = root, .name = "Parent B"}, &pb));
  OK(trak_writer_add_track(w, &(trak_writer_track_info){.parent = root, .name = "Parent A"}, &pa));
  OK(trak_writer_add_track(w, &(trak_writer_track_info){.parent = pa, .name = "Child A1"}, &a1));
  OK(trak_writer_add_track(w, &(trak_writer_track_info){.parent = pa, .name = "Child A2"}, &a2));
  OK(trak_writer_add_track(w, &(trak_writer_track_info){.parent = pb, .name = "Child B1"}, &b1));
  OK(trak_writer_complete(w, a1, 200, 50, "A1"));
  OK(trak_writer_complete(w, a2, 220, 20, "A2"));
  OK(trak_writer_complete(w, b1, 210, 20, "B1"));
}

static void test_seed_03_custom_tracks(void **state) {
  char *model = check_seed("tests/data/seed/03_custom_tracks.pbtxt", build_03);
  assert_non_null(
      strstr(model, "track \"Root\" / \"Parent A\" / \"Child A1\"\n  slice ts=200 dur=50"));
  free(model);
}

/* Root with `ordering` and children named by `names`, ranked by `ranks` when not NULL. */
static void build_ordered(trak_writer *w, trak_writer_ordering ordering, const char *const *names,
                          const int32_t *ranks, int n, trak_writer_track *children) {
  trak_writer_track root;
  OK(trak_writer_add_track(w, &(trak_writer_track_info){.name = "Root", .child_ordering = ordering},
                           &root));
  for (int i = 0; i < n; i++) {
    trak_writer_track_info info = {.parent = root, .name = names[i]};
    if (ranks) {
      info.sibling_rank = ranks[i];
      info.flags = TRAK_WRITER_SIBLING_RANK;
    }
    OK(trak_writer_add_track(w, &info, &children[i]));
  }
}

static void build_04(trak_writer *w) {
  static const char *const names[] = {"B", "A"};
  trak_writer_track c[2];
  build_ordered(w, TRAK_WRITER_ORDER_LEXICOGRAPHIC, names, NULL, 2, c);
}

static void build_05(trak_writer *w) {
  static const char *const names[] = {"A", "B"};
  trak_writer_track c[2];
  build_ordered(w, TRAK_WRITER_ORDER_CHRONOLOGICAL, names, NULL, 2, c);
  /* The seed ends A1 on an undeclared track (60000): the processor gives that uuid an unnamed
  ** track of its own, where the END has nothing to close, and A1 stays open. The writer refuses
  ** such an END, so it declares the empty unnamed track and leaves A1 open. */
  OK(trak_writer_begin(w, c[0], 220, "A1"));
  trak_writer_track unnamed;
  OK(trak_writer_add_track(w, &(trak_writer_track_info){0}, &unnamed));
  OK(trak_writer_complete(w, c[1], 210, 30, "B1"));
}

static void build_06(trak_writer *w) {
  static const char *const names[] = {"B", "A", "C"};
  static const int32_t ranks[] = {1, 100, -100};
  trak_writer_track c[3];
  build_ordered(w, TRAK_WRITER_ORDER_EXPLICIT, names, ranks, 3, c);
}

static void test_seed_04_06_ordering(void **state) {
  char *m = check_seed("tests/data/seed/04_order_lexicographic.pbtxt", build_04);
  assert_non_null(strstr(m, "track \"Root\" child_ordering=1\n"));
  free(m);
  m = check_seed("tests/data/seed/05_order_chronological.pbtxt", build_05);
  assert_non_null(strstr(m, "slice ts=220 dur=-1 depth=0 name=\"A1\""));
  free(m);
  m = check_seed("tests/data/seed/06_order_explicit.pbtxt", build_06);
  assert_non_null(strstr(m, "track \"Root\" / \"C\" rank=-100\n"));
  free(m);
}

static void build_07(trak_writer *w) {
  static const uint64_t flow[] = {1055895987};
  trak_writer_track main_t, bg;
  OK(trak_writer_add_thread(w, 100, 100, "Main thread", NULL, &main_t));
  trak_writer_event ev = {.type = TRAK_WRITER_BEGIN,
                          .track = main_t,
                          .ts = 200,
                          .name = "Request generation",
                          .flow_ids = flow,
                          .n_flow_ids = 1};
  OK(trak_writer_write(w, &ev));
  OK(trak_writer_end(w, main_t, 300));
  ev.ts = 400;
  ev.name = "Process background result";
  OK(trak_writer_write(w, &ev));
  OK(trak_writer_end(w, main_t, 500));
  OK(trak_writer_add_thread(w, 100, 101, "Background thread", NULL, &bg));
  ev = (trak_writer_event){.type = TRAK_WRITER_COMPLETE,
                           .track = bg,
                           .ts = 310,
                           .dur = 75,
                           .name = "Background work",
                           .flow_ids = flow,
                           .n_flow_ids = 1};
  OK(trak_writer_write(w, &ev));
}

static void test_seed_07_flows(void **state) {
  char *m = check_seed("tests/data/seed/07_flows.pbtxt", build_07);
  assert_non_null(strstr(m, "flow thread 100/100 \"Main thread\" @200 \"Request generation\" -> "
                            "thread 100/101 \"Background thread\" @310 \"Background work\""));
  free(m);
}

static void build_08(trak_writer *w) {
  trak_writer_track p, c;
  OK(trak_writer_add_process(w, 1024, "MySpecialProcess", NULL, &p));
  OK(trak_writer_add_counter_track(
      w, &(trak_writer_track_info){.parent = p, .name = "My special counter"},
      TRAK_WRITER_UNIT_UNSPECIFIED, NULL, &c));
  OK(trak_writer_counter(w, c, 200, 34567));
  OK(trak_writer_counter(w, c, 250, 67890));
  OK(trak_writer_counter(w, c, 300, 12345));
  OK(trak_writer_counter(w, c, 400, 12345));
}

static void test_seed_08_counters(void **state) {
  char *m = check_seed("tests/data/seed/08_counters.pbtxt", build_08);
  assert_non_null(strstr(m, "counter ts=250 value=67890"));
  free(m);
}

static void build_09(trak_writer *w) {
  static const char name[] = "A very very very long slice name which we don't want to repeat";
  trak_writer_track p;
  OK(trak_writer_add_process(w, 1234, "My process name",
                             &(trak_writer_track_info){.name = "My special track"}, &p));
  trak_writer_name id = trak_writer_intern_name(w, name);
  assert_int_equal(id, 1);
  trak_writer_event ev = {
      .type = TRAK_WRITER_COMPLETE, .track = p, .ts = 200, .dur = 1, .name_id = id};
  OK(trak_writer_write(w, &ev));
  ev.ts = 202;
  OK(trak_writer_write(w, &ev));
}

static void test_seed_09_interning(void **state) {
  char *m = check_seed("tests/data/seed/09_interning.pbtxt", build_09);
  assert_non_null(strstr(m, "slice ts=202 dur=1 depth=0 name=\"A very very"));
  free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_seed_01_thread_slices), cmocka_unit_test(test_seed_02_process_slices),
      cmocka_unit_test(test_seed_03_custom_tracks), cmocka_unit_test(test_seed_04_06_ordering),
      cmocka_unit_test(test_seed_07_flows),         cmocka_unit_test(test_seed_08_counters),
      cmocka_unit_test(test_seed_09_interning),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
