/*
** The sink's fast paths give the tables of its plain ones: compact_sched kept encoded until the
** merge (import/ftrace/compact_runs.c) those of the record per event
** (TRAK_FTRACE_COMPACT_RECORDS=1), and the sched rows' arg sets found in sched_sets.c's tables
** those of the byte-keyed cache (TRAK_FTRACE_SCHED_SETS=0). Every Linux trace under tests/data
** and generated ones (runs out of order across and within CPUs, a trace concatenated with itself
** so pids are reused and runs go back in time, typed and compact bundles in one trace, lost
** events, malformed messages, thousands of distinct switch and waking values) are exported each
** way to SQLite files, which must be equal byte for byte, the import log included.
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

/* Imports `path` with environment variable `var` set to `value` (unset when NULL) and exports
** its tables and import log to `db`; returns the import's code. */
static int export_with(const char *path, const char *var, const char *value, const char *db) {
  if (value)
    setenv(var, value, 1);
  else
    unsetenv(var);
  int rc = tu_import_export(path, db);
  unsetenv(var);
  return rc;
}

/* Asserts that the fast path and the plain one (`var` = `plain`) import `path` to the same
** bytes. */
static void same_tables_with(const char *path, const char *var, const char *plain) {
  char a[] = "/tmp/trak_runs_a_XXXXXX", b[] = "/tmp/trak_runs_b_XXXXXX";
  tu_temp_file(a);
  tu_temp_file(b);
  int ra = export_with(path, var, NULL, a), rb = export_with(path, var, plain, b);
  if (ra != rb) fail_msg("%s: import returns %d, with %s=%s %d", path, ra, var, plain, rb);
  size_t na, nb;
  char *da = tu_read_file(a, &na), *db = tu_read_file(b, &nb);
  if (!ra && (na != nb || memcmp(da, db, na)))
    fail_msg("%s: the tables differ with %s=%s", path, var, plain);
  free(da);
  free(db);
  unlink(a);
  unlink(b);
}

/* Asserts that both fast paths give the tables of the plain ones on `path`. */
static void same_tables(const char *path) {
  same_tables_with(path, "TRAK_FTRACE_COMPACT_RECORDS", "1");
  same_tables_with(path, "TRAK_FTRACE_SCHED_SETS", "0");
  same_tables_with(path, "TRAK_FTRACE_WIDE_QUEUES", "1");
  compared++;
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

/* Appends one typed event of `cpu` at *ts: a sched_switch of values chosen by `v`, or a
** sched_waking when `waking`. The threads' values repeat every 4,000 `v` and spread over
** thousands of pids, every prio from -5 to 139 and 500 comms; each thread's switches have two
** prev_states (past 32 bits, negative, small) and its wakings two target CPUs. */
static void distinct_event(trak_pb_buf *b, int64_t *ts, uint32_t v, int waking) {
  uint32_t c = v % 4000;
  char comm[16], next_comm[16];
  snprintf(comm, sizeof comm, "c%u", c % 500);
  snprintf(next_comm, sizeof next_comm, "n%u", (c * 7) % 500);
  trak_pb_nested ev = trak_pb_begin_nested(b, TRAK_PB_FtraceEventBundle_event);
  trak_pb_put_varint(b, TRAK_PB_FtraceEvent_timestamp, (uint64_t)(*ts += 10));
  trak_pb_put_varint(b, TRAK_PB_FtraceEvent_pid, 1 + c % 3001);
  int32_t prio = (int32_t)(c % 145) - 5;
  if (waking) {
    trak_pb_nested w = trak_pb_begin_nested(b, TRAK_PB_FtraceEvent_sched_waking);
    trak_pb_put_string(b, TRAK_PB_SchedWakingFtraceEvent_comm, comm);
    trak_pb_put_int32(b, TRAK_PB_SchedWakingFtraceEvent_pid, (int32_t)(1 + (c * 13) % 2999));
    trak_pb_put_int32(b, TRAK_PB_SchedWakingFtraceEvent_prio, prio);
    trak_pb_put_int32(b, TRAK_PB_SchedWakingFtraceEvent_target_cpu, (int32_t)(v / 4000 % 2));
    trak_pb_end_nested(b, w);
  } else {
    int64_t state = v / 4000 % 2 ? ((int64_t)1 << 40) + c : c % 7 == 0 ? -(int64_t)c : c % 3;
    trak_pb_nested s = trak_pb_begin_nested(b, TRAK_PB_FtraceEvent_sched_switch);
    trak_pb_put_string(b, TRAK_PB_SchedSwitchFtraceEvent_prev_comm, comm);
    trak_pb_put_int32(b, TRAK_PB_SchedSwitchFtraceEvent_prev_pid, (int32_t)(1 + c % 3001));
    trak_pb_put_int32(b, TRAK_PB_SchedSwitchFtraceEvent_prev_prio, prio);
    trak_pb_put_int64(b, TRAK_PB_SchedSwitchFtraceEvent_prev_state, state);
    trak_pb_put_string(b, TRAK_PB_SchedSwitchFtraceEvent_next_comm, next_comm);
    trak_pb_put_int32(b, TRAK_PB_SchedSwitchFtraceEvent_next_pid, (int32_t)(1 + (c * 7) % 2999));
    trak_pb_put_int32(b, TRAK_PB_SchedSwitchFtraceEvent_next_prio, (int32_t)(139 - c % 145));
    trak_pb_end_nested(b, s);
  }
  trak_pb_end_nested(b, ev);
}

/* A bundle being written: its packet's and its own nested messages. */
typedef struct bundle {
  trak_pb_nested pkt, bun;
} bundle;

/* Begins a packet of sequence 1 holding an ftrace bundle of `cpu`. */
static bundle bundle_begin(trak_pb_buf *b, uint32_t cpu) {
  bundle w;
  w.pkt = trak_pb_begin_nested(b, TRAK_PB_Trace_packet);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_trusted_packet_sequence_id, 1);
  w.bun = trak_pb_begin_nested(b, TRAK_PB_TracePacket_ftrace_events);
  trak_pb_put_varint(b, TRAK_PB_FtraceEventBundle_cpu, cpu);
  return w;
}

static void bundle_end(trak_pb_buf *b, bundle w) {
  trak_pb_end_nested(b, w.bun);
  trak_pb_end_nested(b, w.pkt);
}

/* sched_sets.c's tables (64 slots at first) grown through collisions to thousands of values,
** each value seen again after others: the same arg sets as the byte-keyed cache's. */
static void test_many_distinct_sched_values(void **state) {
  (void)state;
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  uint64_t rng = 7;
  int64_t ts = 1000;
  for (uint32_t n = 0; n < 400; n++) {
    bundle w = bundle_begin(&b, n % 4);
    for (int i = 0; i < 100; i++) {
      rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
      distinct_event(&b, &ts, (uint32_t)(rng >> 33), i & 1);
    }
    bundle_end(&b, w);
  }
  char path[] = "/tmp/trak_sets_XXXXXX";
  tu_write_temp(path, b.start, trak_pb_buf_len(&b));
  trak_pb_buf_free(&b);
  same_tables(path);
  /* thousands of distinct sets, most rows a set seen before */
  int64_t sets = tu_query_int(path, "SELECT count(DISTINCT arg_set_id) FROM ftrace_event"),
          rows = tu_query_int(path, "SELECT count(*) FROM ftrace_event");
  assert_true(sets > 12000 && sets <= 16000);
  assert_int_equal(rows, 40000);
  unlink(path);
}

/* Appends a typed sched_switch (prev `pid` at `prio` in `state`, to pid + 1 at `next_prio`) or,
** when `waking`, a sched_waking of pid + 1 at `prio` to `target_cpu`, at *ts + 10. */
static void boundary_event(trak_pb_buf *b, int64_t *ts, uint32_t pid, int32_t prio, int64_t state,
                           int32_t next_prio, int waking, int32_t target_cpu) {
  trak_pb_nested ev = trak_pb_begin_nested(b, TRAK_PB_FtraceEventBundle_event);
  trak_pb_put_varint(b, TRAK_PB_FtraceEvent_timestamp, (uint64_t)(*ts += 10));
  trak_pb_put_varint(b, TRAK_PB_FtraceEvent_pid, pid);
  if (waking) {
    trak_pb_nested w = trak_pb_begin_nested(b, TRAK_PB_FtraceEvent_sched_waking);
    trak_pb_put_string(b, TRAK_PB_SchedWakingFtraceEvent_comm, "wakee");
    trak_pb_put_int32(b, TRAK_PB_SchedWakingFtraceEvent_pid, (int32_t)(pid + 1));
    trak_pb_put_int32(b, TRAK_PB_SchedWakingFtraceEvent_prio, prio);
    trak_pb_put_int32(b, TRAK_PB_SchedWakingFtraceEvent_target_cpu, target_cpu);
    trak_pb_end_nested(b, w);
  } else {
    trak_pb_nested sw = trak_pb_begin_nested(b, TRAK_PB_FtraceEvent_sched_switch);
    trak_pb_put_string(b, TRAK_PB_SchedSwitchFtraceEvent_prev_comm, "prev");
    trak_pb_put_int32(b, TRAK_PB_SchedSwitchFtraceEvent_prev_pid, (int32_t)pid);
    trak_pb_put_int32(b, TRAK_PB_SchedSwitchFtraceEvent_prev_prio, prio);
    trak_pb_put_int64(b, TRAK_PB_SchedSwitchFtraceEvent_prev_state, state);
    trak_pb_put_string(b, TRAK_PB_SchedSwitchFtraceEvent_next_comm, "next");
    trak_pb_put_int32(b, TRAK_PB_SchedSwitchFtraceEvent_next_pid, (int32_t)(pid + 1));
    trak_pb_put_int32(b, TRAK_PB_SchedSwitchFtraceEvent_next_prio, next_prio);
    trak_pb_end_nested(b, sw);
  }
  trak_pb_end_nested(b, ev);
}

/* The queues keep a record in 32 bytes only when it fits (import/ftrace/fq_slot.h): events at
** either side of each bound (CPUs 255 and 256, prios -1, 254, -2 and 255, prev_states 65535,
** 65536 and negative, target CPU 255 and 256, pids past 2^31), one in sixteen among usual ones
** so that the queues stay narrow and keep the few whole, give the tables of wide queues, and
** the values come through. */
static void test_records_past_the_narrow_bounds(void **state) {
  (void)state;
  static const struct {
    int32_t prio, next_prio, target_cpu;
    int64_t state;
  } odd[] = {{-1, 254, 255, 65535},
             {-2, 120, 256, 65536},
             {255, -1, 0, -1},
             {254, 255, 1, 1 << 20},
             {120, -2, 255, INT64_MIN}};
  static const uint32_t cpus[] = {0, 255, 256};
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  int64_t ts = 1000;
  uint32_t k = 0;
  for (uint32_t n = 0; n < 60; n++) {
    bundle w = bundle_begin(&b, cpus[n % 3]);
    for (int i = 0; i < 80; i++, k++) {
      uint32_t pid = k % 5 ? 100 + k % 40 : 0x7ffffff0u + k % 8;
      if (k % 16 == 0) {
        uint32_t o = k / 16 % (sizeof odd / sizeof *odd);
        boundary_event(&b, &ts, pid, odd[o].prio, odd[o].state, odd[o].next_prio, i & 1,
                       odd[o].target_cpu);
      } else {
        boundary_event(&b, &ts, pid, 120, k % 3, 120, i & 1, (int32_t)(k % 2));
      }
    }
    bundle_end(&b, w);
  }
  char path[] = "/tmp/trak_slots_XXXXXX";
  tu_write_temp(path, b.start, trak_pb_buf_len(&b));
  trak_pb_buf_free(&b);
  same_tables(path);
  assert_true(tu_query_int(path, "SELECT count(*) FROM sched WHERE cpu = 256") > 0);
  assert_true(tu_query_int(path, "SELECT count(*) FROM sched WHERE priority = 255") > 0);
  assert_true(tu_query_int(path, "SELECT count(*) FROM sched WHERE priority = 254") > 0);
  assert_true(tu_query_int(path, "SELECT count(*) FROM sched WHERE priority = -2") > 0);
  assert_true(tu_query_int(path, "SELECT count(*) FROM sched WHERE priority = -1") > 0);
  assert_true(tu_query_int(path, "SELECT count(*) FROM thread WHERE tid > 2147483632") == 8);
  assert_int_equal(tu_query_int(path, "SELECT count(*) FROM ftrace_event"), 60 * 80);
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_linux_traces_of_the_tests),
      cmocka_unit_test(test_generated_traces),
      cmocka_unit_test(test_many_distinct_sched_values),
      cmocka_unit_test(test_records_past_the_narrow_bounds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
