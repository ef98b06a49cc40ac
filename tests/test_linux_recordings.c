/*
** Tests of what real Linux recordings of this machine type showed (tracebox with
** linux.ftrace, linux.process_stats, linux.sys_stats and linux.system_info; the comparisons are
** in docs/processor.md): each expected answer is Perfetto v58.2's trace_processor_shell's on
** tests/data/linux/recording_parity.pbtxt (encoded with protoc against Perfetto's trace.proto),
** written down.
**
** The story: process 10 is a linker whose command line has 70 arguments and 7069 bytes; 20
** and 10 write their own rss.anon at 100 and 110; a softirq at 150 on CPU 0; CPU 1 runs at
** 1000 kHz three times from 170; a ProcessStats packet at 200 gives 10's mem.virt and
** mem.rss.anon; a SysStats packet at 250 lists vmstat, cpu_stat, meminfo, cpufreq_khz and
** num_forks in that order; CPU 0 goes idle at 260 and stays in state 1 from 280 to the end.
** A CpuInfo packet names CPU 0 "big" (capacity 1024) and CPUs 1 and 2 "little" (512).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sqlcheck.h"
#include "trak/processor.h"

#define TRACE "tests/data/linux/recording_parity.pbtxt"

/* Tracks are numbered as Perfetto makes them: a process counter track by the ProcessStats
** packet that made it, not by the earlier rss_stat values it also holds (Perfetto resolves
** those when the trace ends, and makes 20's track only then); a SysStats packet's tracks in the
** order Perfetto reads its kinds of values (meminfo, cpufreq, vmstat, cpu_stat, num_forks). */
static void test_track_order(void **state) {
  sc_check c[] = {
      {"SELECT id, name, type FROM track ORDER BY id",
       "0|SoftIrq Cpu 0|cpu_softirq\n1|cpufreq|cpu_frequency\n2|mem.virt|process_memory\n"
       "3|mem.rss.anon|process_memory\n4|MemFree|meminfo\n5|cpufreq|cpu_frequency\n"
       "6|nr_free_pages|vmstat\n7|cpu.times.user_ns|cpustat\n8|cpu.times.user_nice_ns|cpustat\n"
       "9|cpu.times.system_mode_ns|cpustat\n10|cpu.times.idle_ns|cpustat\n"
       "11|cpu.times.io_wait_ns|cpustat\n12|cpu.times.irq_ns|cpustat\n"
       "13|cpu.times.softirq_ns|cpustat\n14|cpu.times.steal_ns|cpustat\n15|num_forks|num_forks\n"
       "16|cpuidle|cpu_idle\n17|mem.rss.anon|process_memory"},
      {"SELECT id, ts, track_id, value FROM counter WHERE ts IN (100, 110, 200, 250) "
       "ORDER BY id",
       "0|100|17|4096.0\n1|110|3|8192.0\n5|200|2|102400.0\n6|200|3|8192.0\n7|250|4|9216.0\n"
       "8|250|5|2000.0\n9|250|1|3000.0\n10|250|6|5.0\n11|250|7|7.0\n12|250|8|0.0\n"
       "13|250|9|0.0\n14|250|10|0.0\n15|250|11|0.0\n16|250|12|0.0\n17|250|13|0.0\n"
       "18|250|14|0.0\n19|250|15|4.0"},
  };
  sc_run_checks(*state, c, sizeof c / sizeof *c);
}

/* Perfetto writes every integer dimension of a track as a signed int, a cpu too. */
static void test_cpu_dimension_type(void **state) {
  sc_check c[] = {
      {"SELECT t.name, a.int_value, a.value_type FROM track t JOIN args a ON a.arg_set_id = "
       "t.dimension_arg_set_id WHERE a.key = 'cpu' AND t.type IN ('cpu_frequency', "
       "'cpu_idle', 'cpu_softirq') ORDER BY t.id",
       "SoftIrq Cpu 0|0|int\ncpufreq|1|int\ncpufreq|0|int\ncpuidle|0|int"},
  };
  sc_run_checks(*state, c, sizeof c / sizeof *c);
}

/* CpuInfo: processor names, capacities, clusters by capacity (CPU 2 has no event: its row is
** the packet's). */
static void test_cpu_info(void **state) {
  sc_check c[] = {
      {"SELECT id, cpu, cluster_id, processor, capacity FROM cpu ORDER BY id",
       "0|0|1|big|1024\n1|1|0|little|512\n2|2|0|little|512"},
  };
  sc_run_checks(*state, c, sizeof c / sizeof *c);
}

/* A command line is every argument, however many and however long. */
static void test_long_cmdline(void **state) {
  sc_check c[] = {
      {"SELECT pid, length(cmdline), substr(cmdline, 1, 10), substr(cmdline, -8), name FROM "
       "process WHERE pid = 10",
       "10|7069|a000a000a0|a069a069|"
       "a000a000a000a000a000a000a000a000a000a000a000a000a000a000a000a000a000a000a000a000a000a000"
       "a000a000a000"},
  };
  sc_run_checks(*state, c, sizeof c / sizeof *c);
}

/* counter_leading_intervals! keeps a run's last sample only when a different value follows:
** the last run of a track keeps its first two samples, the second lasting to the end. */
static void test_leading_intervals(void **state) {
  sc_check c[] = {
      {"INCLUDE PERFETTO MODULE linux.cpu.frequency; SELECT * FROM cpu_frequency_counters",
       "2|1|170|10|1000|1|1\n3|1|180|10|1000|1|1\n4|1|190|60|1000|1|1\n9|1|250|60|3000|1|1\n"
       "8|5|250|60|2000|0|0"},
      {"INCLUDE PERFETTO MODULE linux.cpu.idle; SELECT * FROM cpu_idle_counters",
       "20|16|260|10|1|0\n21|16|270|10|-1|0\n22|16|280|10|1|0\n23|16|290|20|1|0"},
  };
  sc_run_checks(*state, c, sizeof c / sizeof *c);
}

static int setup(void **state) {
  *state = sc_open_file(TRACE);
  return *state ? 0 : -1;
}

static int teardown(void **state) {
  trak_processor_free(*state);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_track_order),       cmocka_unit_test(test_cpu_dimension_type),
      cmocka_unit_test(test_cpu_info),          cmocka_unit_test(test_long_cmdline),
      cmocka_unit_test(test_leading_intervals),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
