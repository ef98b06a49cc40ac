/*
** compact_sched kept encoded until the merge (import/ftrace/compact_runs.c) gives the tables of
** the record per event (TRAK_FTRACE_COMPACT_RECORDS=1): every Linux trace under tests/data and
** generated ones (runs out of order across and within CPUs, a trace concatenated with itself so
** pids are reused and runs go back in time, typed and compact bundles in one trace, lost events,
** malformed messages) are exported both ways to SQLite files, which must be equal byte for byte,
** the import log included.
*/
#define _GNU_SOURCE /* nftw */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bench/gen_sched.h"
#include "testutil.h"
#include "trak/pbtxt.h"
#include "trak/processor.h"

static int compared;

/* Imports `path` (records per event when `records`) and exports its tables and import log to
** `db`; returns the import's code. */
static int export_with(const char *path, int records, const char *db) {
  if (records)
    setenv("TRAK_FTRACE_COMPACT_RECORDS", "1", 1);
  else
    unsetenv("TRAK_FTRACE_COMPACT_RECORDS");
  return tu_import_export(path, db);
}

/* Asserts that both paths import `path` to the same bytes. */
static void same_tables(const char *path) {
  char a[] = "/tmp/trak_runs_a_XXXXXX", b[] = "/tmp/trak_runs_b_XXXXXX";
  tu_temp_file(a);
  tu_temp_file(b);
  int ra = export_with(path, 0, a), rb = export_with(path, 1, b);
  if (ra != rb) fail_msg("%s: import returns %d with runs, %d with records", path, ra, rb);
  size_t na, nb;
  char *da = tu_read_file(a, &na), *db = tu_read_file(b, &nb);
  if (!ra && (na != nb || memcmp(da, db, na)))
    fail_msg("%s: the tables differ between compact runs and records", path);
  free(da);
  free(db);
  unlink(a);
  unlink(b);
  compared++;
  unsetenv("TRAK_FTRACE_COMPACT_RECORDS");
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st, (void)ftw;
  size_t n = strlen(path);
  if (type != FTW_F || n < 6 || strcmp(path + n - 6, ".pbtxt")) return 0;
  size_t len;
  char *text = tu_read_file(path, &len);
  trak_pb_buf out;
  trak_pb_buf_init_heap(&out);
  trak_error err = {0};
  if (!trak_pbtxt_parse("Trace", text, len, &out, &err)) {
    char bin[] = "/tmp/trak_runs_pb_XXXXXX";
    tu_write_temp(bin, out.start, trak_pb_buf_len(&out));
    same_tables(bin);
    unlink(bin);
  }
  trak_pb_buf_free(&out);
  free(text);
  return 0;
}

static void test_linux_traces_of_the_tests(void **state) {
  (void)state;
  compared = 0;
  assert_int_equal(nftw(tu_source_path("tests/data/linux"), visit, 16, FTW_PHYS), 0);
  assert_int_equal(nftw(tu_source_path("tests/data/golden/linux"), visit, 16, FTW_PHYS), 0);
  printf("compared %d traces\n", compared);
  assert_true(compared >= 10);
}

/* Appends the file `src` to `dst`. */
static void append_file(const char *dst, const char *src) {
  size_t len;
  char *data = tu_read_file(src, &len);
  FILE *f = fopen(dst, "ab");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
  free(data);
}

/* Appends bundles of CPU 2 to `path`: lost events, a compact_sched whose timestamps go back
** within the message, one with arrays of unequal length, one with a comm index past its intern
** table, and a switch-less one with wakings only. */
static void append_odd_bundles(const char *path) {
  static const struct {
    uint64_t ts[3], n_sw, n_wk, idx;
  } odd[] = {{{5000, (uint64_t)-3000, 100}, 3, 3, 0},
             {{10, 10, 10}, 3, 2, 0},
             {{7, 7, 7}, 3, 3, 5},
             {{1, 2, 3}, 0, 3, 0}};
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  trak_pb_nested pkt = trak_pb_begin_nested(&b, TRAK_PB_Trace_packet);
  trak_pb_nested bun = trak_pb_begin_nested(&b, TRAK_PB_TracePacket_ftrace_events);
  trak_pb_put_varint(&b, TRAK_PB_FtraceEventBundle_cpu, 2);
  trak_pb_put_varint(&b, TRAK_PB_FtraceEventBundle_lost_events, 1);
  trak_pb_end_nested(&b, bun);
  trak_pb_end_nested(&b, pkt);
  for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
    uint64_t pid[3] = {1000, 1001, 1000}, prio[3] = {120, 120, 120}, idx[3] = {0, 1, odd[i].idx};
    uint64_t state[3] = {1, 0, 2}, cpu[3] = {2, 1, 2};
    pkt = trak_pb_begin_nested(&b, TRAK_PB_Trace_packet);
    bun = trak_pb_begin_nested(&b, TRAK_PB_TracePacket_ftrace_events);
    trak_pb_put_varint(&b, TRAK_PB_FtraceEventBundle_cpu, 2);
    trak_pb_nested cs = trak_pb_begin_nested(&b, TRAK_PB_FtraceEventBundle_compact_sched);
    trak_pb_put_string(&b, TRAK_PB_FtraceEventBundle_CompactSched_intern_table, "a");
    trak_pb_put_string(&b, TRAK_PB_FtraceEventBundle_CompactSched_intern_table, "b");
    size_t s = odd[i].n_sw, w = odd[i].n_wk;
    trak_pb_put_packed_varint(&b, TRAK_PB_FtraceEventBundle_CompactSched_switch_timestamp,
                              odd[i].ts, s);
    trak_pb_put_packed_varint(&b, TRAK_PB_FtraceEventBundle_CompactSched_switch_prev_state, state,
                              s);
    trak_pb_put_packed_varint(&b, TRAK_PB_FtraceEventBundle_CompactSched_switch_next_pid, pid, s);
    trak_pb_put_packed_varint(&b, TRAK_PB_FtraceEventBundle_CompactSched_switch_next_prio, prio, s);
    trak_pb_put_packed_varint(&b, TRAK_PB_FtraceEventBundle_CompactSched_switch_next_comm_index,
                              idx, s);
    trak_pb_put_packed_varint(&b, TRAK_PB_FtraceEventBundle_CompactSched_waking_timestamp,
                              odd[i].ts, w);
    trak_pb_put_packed_varint(&b, TRAK_PB_FtraceEventBundle_CompactSched_waking_pid, pid, 3);
    trak_pb_put_packed_varint(&b, TRAK_PB_FtraceEventBundle_CompactSched_waking_target_cpu, cpu, 3);
    trak_pb_put_packed_varint(&b, TRAK_PB_FtraceEventBundle_CompactSched_waking_prio, prio, 3);
    trak_pb_put_packed_varint(&b, TRAK_PB_FtraceEventBundle_CompactSched_waking_comm_index, idx, 3);
    trak_pb_put_packed_varint(&b, TRAK_PB_FtraceEventBundle_CompactSched_waking_common_flags, state,
                              2);
    trak_pb_end_nested(&b, cs);
    trak_pb_end_nested(&b, bun);
    trak_pb_end_nested(&b, pkt);
  }
  FILE *f = fopen(path, "ab");
  assert_non_null(f);
  assert_int_equal(fwrite(b.start, 1, trak_pb_buf_len(&b), f), trak_pb_buf_len(&b));
  assert_int_equal(fclose(f), 0);
  trak_pb_buf_free(&b);
}

static void test_generated_traces(void **state) {
  (void)state;
  char c[] = "/tmp/trak_runs_c_XXXXXX", t[] = "/tmp/trak_runs_t_XXXXXX",
       mix[] = "/tmp/trak_runs_m_XXXXXX";
  tu_temp_file(c);
  tu_temp_file(t);
  tu_temp_file(mix);
  assert_true(gen_sched(c, 20000, 1) > 0);
  assert_true(gen_sched(t, 6000, 0) > 0);
  same_tables(c); /* CPUs' bundles interleaved out of order */
  assert_int_equal(truncate(mix, 0), 0);
  append_file(mix, c);
  append_file(mix, c); /* pids reused, every CPU's runs going back in time */
  same_tables(mix);
  assert_int_equal(truncate(mix, 0), 0);
  append_file(mix, t);
  append_file(mix, c); /* typed and compact bundles of the same CPUs and threads */
  append_odd_bundles(mix);
  same_tables(mix);
  unlink(c);
  unlink(t);
  unlink(mix);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_linux_traces_of_the_tests),
      cmocka_unit_test(test_generated_traces),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
