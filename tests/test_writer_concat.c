/*
** Writers' traces can be concatenated: each writer draws its own packet sequence id and track
** uuids, so `cat a.pb b.pb` imports into the processor with both writers' tracks, slices and
** interned names intact and apart. Also the reproducible identities: a seed gives the same
** bytes, an explicit sequence id is used on every packet, and both are refused once written.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer_testutil.h"

/* Writes the same shape of trace as another writer would: a process with a thread, and a
** top-level "GPU" track, with nested slices whose names start with `tag`. Names are interned
** in the same order in every writer, so the iids coincide across writers. */
static void write_trace(trak_writer *w, int32_t pid, const char *tag, uint64_t t0) {
  char outer[32], inner[32], gpu_name[32];
  snprintf(outer, sizeof outer, "%s_outer", tag);
  snprintf(inner, sizeof inner, "%s_inner", tag);
  snprintf(gpu_name, sizeof gpu_name, "%s_gpu", tag);
  trak_writer_track process, thread, gpu;
  assert_int_equal(trak_writer_add_process(w, pid, tag, NULL, &process), 0);
  trak_writer_track_info info = {.parent = process};
  assert_int_equal(trak_writer_add_thread(w, pid, pid + 1, "main", &info, &thread), 0);
  assert_int_equal(trak_writer_add_track(w, &(trak_writer_track_info){.name = "GPU"}, &gpu), 0);
  assert_int_equal(trak_writer_begin(w, thread, t0, outer), 0);
  assert_int_equal(trak_writer_complete(w, thread, t0 + 10, 10, inner), 0);
  assert_int_equal(trak_writer_complete(w, gpu, t0 + 15, 20, gpu_name), 0);
  assert_int_equal(trak_writer_end(w, thread, t0 + 100), 0);
}

/* One writer's trace, with its identity set up by `seed` (0: random). */
static uint8_t *trace_of(int32_t pid, const char *tag, uint64_t t0, uint64_t seed, size_t *len) {
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_writer *w;
  assert_int_equal(trak_writer_open_callback(&w, mem_sink, &out, NULL), 0);
  if (seed) assert_int_equal(trak_writer_set_seed(w, seed), 0);
  write_trace(w, pid, tag, t0);
  assert_int_equal(trak_writer_close(w, NULL, NULL), 0);
  return trak_pb_buf_detach(&out, len);
}

static const char SLICES[] =
    "select group_concat(x, ',') from (select s.name || '@' || s.depth || '<' || "
    "coalesce(par.name, '-') || ':' || s.dur as x from slice s left join slice par on "
    "s.parent_id = par.id order by s.name)";

static void test_concatenated_writers_stay_apart(void **state) {
  (void)state;
  size_t a_len, b_len;
  uint8_t *a = trace_of(10, "a", 1000, 0, &a_len);
  uint8_t *b = trace_of(20, "b", 1005, 0, &b_len); /* interleaves with a in time */
  trak_processor *p = import_parts(a, a_len, b, b_len);
  assert_string_equal(query1(p, "select count(*) from track where name = 'GPU'"), "2");
  assert_string_equal(query1(p, SLICES), "a_gpu@0<-:20,a_inner@1<a_outer:10,a_outer@0<-:100,"
                                         "b_gpu@0<-:20,b_inner@1<b_outer:10,b_outer@0<-:100");
  /* Each GPU slice on a GPU track of its own, each thread's slices on that thread. */
  assert_string_equal(query1(p, "select count(distinct track_id) from slice where name like "
                                "'%gpu'"),
                      "2");
  assert_string_equal(query1(p, "select group_concat(x, ',') from (select t.tid || ':' || "
                                "s.name as x from slice s join thread_track tt on s.track_id = "
                                "tt.id join thread t using(utid) order by s.name)"),
                      "11:a_inner,11:a_outer,21:b_inner,21:b_outer");
  trak_processor_free(p);

  /* The same writers given the same seed share their identity: their tracks merge. This is
  ** what random identities prevent (and shows the checks above can fail). */
  free(a);
  free(b);
  a = trace_of(10, "a", 1000, 42, &a_len);
  b = trace_of(20, "b", 1005, 42, &b_len);
  p = import_parts(a, a_len, b, b_len);
  assert_string_equal(query1(p, "select count(*) from track where name = 'GPU'"), "1");
  trak_processor_free(p);
  free(a);
  free(b);
}

/* The text form of a writer's trace with its identity from `seed` and `seq_id` (0: random). */
static char *text_of(uint64_t seed, uint32_t seq_id) {
  size_t len;
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_writer *w;
  assert_int_equal(trak_writer_open_callback(&w, mem_sink, &out, NULL), 0);
  if (seed) assert_int_equal(trak_writer_set_seed(w, seed), 0);
  if (seq_id) assert_int_equal(trak_writer_set_sequence_id(w, seq_id), 0);
  write_trace(w, 10, "a", 1000);
  assert_int_equal(trak_writer_close(w, NULL, NULL), 0);
  uint8_t *bin = trak_pb_buf_detach(&out, &len);
  char *text = tu_binary_to_pbtxt("Trace", bin, len);
  free(bin);
  return text;
}

/* Every packet's sequence id in `text` is `want`; returns how many packets there are. */
static int count_sequence(const char *text, unsigned long want) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, "trusted_packet_sequence_id: ")); n++) {
    p += strlen("trusted_packet_sequence_id: ");
    assert_int_equal(strtoul(p, NULL, 10), want);
  }
  return n;
}

static unsigned long first_sequence(const char *text) {
  const char *p = strstr(text, "trusted_packet_sequence_id: ");
  assert_non_null(p);
  return strtoul(p + strlen("trusted_packet_sequence_id: "), NULL, 10);
}

static void test_identity(void **state) {
  (void)state;
  /* A seed reproduces the bytes; another seed gives other ids. */
  char *s1 = text_of(7, 0), *s1_again = text_of(7, 0), *s2 = text_of(8, 0);
  assert_string_equal(s1, s1_again);
  assert_string_not_equal(s1, s2);
  assert_true(count_sequence(s1, first_sequence(s1)) > 5);

  /* Random identities: one sequence per writer, never 1, different between writers (the odds
  ** of a coincidence are 1 in 2 million), and uuids in the documented 5-byte range. */
  char *r1 = text_of(0, 0), *r2 = text_of(0, 0);
  unsigned long q1 = first_sequence(r1), q2 = first_sequence(r2);
  assert_true(q1 >= (1u << 14) && q1 < (1u << 21));
  assert_int_not_equal(q1, q2);
  assert_true(count_sequence(r1, q1) > 5);
  const char *uuid = strstr(r1, "uuid: ");
  assert_non_null(uuid);
  unsigned long long u = strtoull(uuid + strlen("uuid: "), NULL, 10);
  assert_true(u >= (1ull << 28) && u < (1ull << 35));

  /* An explicit sequence id is on every packet, whatever the seed. */
  char *e = text_of(7, 77);
  assert_true(count_sequence(e, 77) > 5);
  free(s1), free(s1_again), free(s2), free(r1), free(r2), free(e);

  /* Refusals: reserved ids, and changes once the identity is in use. */
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_writer *w;
  assert_int_equal(trak_writer_open_callback(&w, mem_sink, &out, NULL), 0);
  assert_int_equal(trak_writer_set_sequence_id(w, 1), TRAK_EINVAL);
  assert_non_null(strstr(trak_writer_last_error(w)->message, "reserved"));
  assert_int_equal(trak_writer_set_sequence_id(w, 0), TRAK_EINVAL);
  trak_writer_track t;
  assert_int_equal(trak_writer_add_track(w, &(trak_writer_track_info){.name = "x"}, &t), 0);
  assert_int_equal(trak_writer_set_seed(w, 1), TRAK_ESTATE);
  assert_int_equal(trak_writer_set_sequence_id(w, 5), TRAK_ESTATE);
  assert_non_null(strstr(trak_writer_last_error(w)->message, "before the first track"));
  assert_int_equal(trak_writer_close(w, NULL, NULL), 0);
  trak_pb_buf_free(&out);
}

/* More than one block of uuids (4096 tracks per block): all distinct, and the trace imports
** with every track. */
static void test_many_tracks(void **state) {
  (void)state;
  enum { N = 9000 };
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_writer *w;
  assert_int_equal(trak_writer_open_callback(&w, mem_sink, &out, NULL), 0);
  for (int i = 0; i < N; i++) {
    char name[16];
    snprintf(name, sizeof name, "t%d", i);
    trak_writer_track t;
    assert_int_equal(trak_writer_add_track(w, &(trak_writer_track_info){.name = name}, &t), 0);
    assert_int_equal(trak_writer_instant(w, t, 10, "x"), 0);
  }
  assert_int_equal(trak_writer_close(w, NULL, NULL), 0);
  size_t len;
  uint8_t *bin = trak_pb_buf_detach(&out, &len);
  trak_processor *p = import_parts(bin, len, NULL, 0);
  assert_string_equal(query1(p, "select count(distinct track_id) from slice"), "9000");
  trak_processor_free(p);
  free(bin);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_concatenated_writers_stay_apart),
                                     cmocka_unit_test(test_identity),
                                     cmocka_unit_test(test_many_tracks)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
