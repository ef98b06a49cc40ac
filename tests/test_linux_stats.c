/*
** Tests of Linux recorder data: SysStats.cpuidle_state (each CPU's idle-state residencies,
** proto/sys_stats.c, and the linux.cpu.idle_time_in_state module over them), the setup errors
** of FtraceStats packets (ftrace_setup_errors, ftrace/ftrace_stats.c) and InterruptInfo's IRQ
** names (_linux_interrupt_mapping, the linux.irqs module). Each
** expected answer is Perfetto v58.2's trace_processor_shell's on the same trace (the text below,
** encoded with protoc against Perfetto's trace.proto), written down.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sqlcheck.h"
#include "trak/processor.h"

/* Two samples, 129023 us apart, of CPU 0 (states C8, C1) and CPU 2 (C1). */
static const char idle_text[] =
    "packet { sys_stats { cpuidle_state { cpu_id: 0 cpuidle_state_entry { state: \"C8\" "
    "duration_us: 486626084 } cpuidle_state_entry { state: \"C1\" duration_us: 100 } } "
    "cpuidle_state { cpu_id: 2 cpuidle_state_entry { state: \"C1\" duration_us: 5 } } } "
    "timestamp: 71625871363623 trusted_packet_sequence_id: 2 }\n"
    "packet { sys_stats { cpuidle_state { cpu_id: 0 cpuidle_state_entry { state: \"C8\" "
    "duration_us: 486636254 } cpuidle_state_entry { state: \"C1\" duration_us: 200 } } "
    "cpuidle_state { cpu_id: 2 cpuidle_state_entry { state: \"C1\" duration_us: 50005 } } } "
    "timestamp: 71626000387166 trusted_packet_sequence_id: 2 }\n";

static void test_cpuidle_tracks(void **state) {
  sc_check c[] = {
      {"SELECT t.id, t.name, t.type, t.machine_id, extract_arg(t.dimension_arg_set_id, 'cpu'), "
       "extract_arg(t.dimension_arg_set_id, 'state'), (SELECT value_type FROM args a WHERE "
       "a.arg_set_id = t.dimension_arg_set_id AND a.key = 'cpu') FROM track t ORDER BY id",
       "0|cpuidle0.C8|cpu_idle_state|0|0|C8|int\n1|cpuidle0.C1|cpu_idle_state|0|0|C1|int\n"
       "2|cpuidle2.C1|cpu_idle_state|0|2|C1|int"},
      {"SELECT id, name, unit, cpu FROM cpu_counter_track ORDER BY id",
       "0|cpuidle0.C8|us|0\n1|cpuidle0.C1|us|0\n2|cpuidle2.C1|us|2"},
      {"SELECT ts, track_id, value FROM counter ORDER BY id",
       "71625871363623|0|486626084.0\n71625871363623|1|100.0\n71625871363623|2|5.0\n"
       "71626000387166|0|486636254.0\n71626000387166|1|200.0\n71626000387166|2|50005.0"},
      {"SELECT id, cpu FROM cpu WHERE cpu IS NOT NULL ORDER BY id", "0|0\n2|2"},
  };
  sc_check_trace(idle_text, NULL, c, sizeof c / sizeof *c);
  (void)state;
}

static void test_cpuidle_module(void **state) {
  sc_check c[] = {
      {"SELECT ts, machine_id, state, cpu, printf('%.6f', idle_percentage), total_residency, "
       "time_slice FROM linux_per_cpu_idle_time_in_state_counters ORDER BY ts, cpu, state",
       "71626000387166|0|C0|0|92.040179|118753.0|129023\n"
       "71626000387166|0|C1|0|0.077506|100.0|129023\n"
       "71626000387166|0|C8|0|7.882316|10170.0|129023\n"
       "71626000387166|0|C0|2|61.247219|79023.0|129023\n"
       "71626000387166|0|C1|2|38.752781|50000.0|129023"},
      {"SELECT ts, machine_id, state, printf('%.6f', idle_percentage), total_residency, "
       "time_slice FROM linux_cpu_idle_time_in_state_counters ORDER BY ts, state",
       "71626000387166|0|C0|76.643699|197776.0|258046\n"
       "71626000387166|0|C1|19.415143|50100.0|258046\n"
       "71626000387166|0|C8|7.882316|10170.0|129023"},
  };
  sc_check_trace(idle_text, "INCLUDE PERFETTO MODULE linux.cpu.idle_time_in_state", c,
                 sizeof c / sizeof *c);
  (void)state;
}

/* Sequence 3 reports five errors at its start (its second packet's are ignored), sequence 4 one
** (its end-of-trace packet's are ignored). */
static const char setup_text[] =
    "packet { trusted_packet_sequence_id: 3 timestamp: 10 ftrace_stats { phase: START_OF_TRACE "
    "unknown_ftrace_events: \"foo/bar\" unknown_ftrace_events: \"x/y\" failed_ftrace_events: "
    "\"sched/sched_blah\" atrace_errors: \"bad cat\" exclusive_feature_error: \"busy\" "
    "cpu_stats { cpu: 0 entries: 1 } } }\n"
    "packet { trusted_packet_sequence_id: 3 timestamp: 20 ftrace_stats { phase: START_OF_TRACE "
    "unknown_ftrace_events: \"again/z\" } }\n"
    "packet { trusted_packet_sequence_id: 4 timestamp: 30 ftrace_stats { phase: START_OF_TRACE "
    "failed_ftrace_events: \"seq4/e\" } }\n"
    "packet { trusted_packet_sequence_id: 4 timestamp: 40 ftrace_stats { phase: END_OF_TRACE "
    "failed_ftrace_events: \"end/e\" } }\n";

static void test_setup_errors(void **state) {
  sc_check c[] = {
      {"SELECT name, idx, severity, source, value FROM stats WHERE name = 'ftrace_setup_errors'",
       "ftrace_setup_errors|NULL|notice|trace|6"},
      {"SELECT id, trace_id, ts, byte_offset, severity, name, arg_set_id FROM _trace_import_logs",
       "0|0|NULL|NULL|notice|ftrace_setup_errors|0\n1|0|NULL|NULL|notice|ftrace_setup_errors|1\n"
       "2|0|NULL|NULL|notice|ftrace_setup_errors|2\n3|0|NULL|NULL|notice|ftrace_setup_errors|3\n"
       "4|0|NULL|NULL|notice|ftrace_setup_errors|4\n5|0|NULL|NULL|notice|ftrace_setup_errors|5"},
      {"SELECT l.id, a.key, a.string_value FROM _trace_import_logs l JOIN args a USING "
       "(arg_set_id) ORDER BY l.id",
       "0|message|Ftrace event failed: sched/sched_blah\n1|message|Ftrace event unknown: foo/bar\n"
       "2|message|Ftrace event unknown: x/y\n3|message|Atrace failures: bad cat\n"
       "4|message|Ftrace exclusive feature error: busy\n5|message|Ftrace event failed: seq4/e"},
  };
  sc_check_trace(setup_text, NULL, c, sizeof c / sizeof *c);
  (void)state;
}

/* IRQ names: the first name of a number wins, a mapping without a number or a name is
** skipped. */
static const char irq_text[] =
    "packet { trusted_packet_sequence_id: 1 timestamp: 5 interrupt_info { irq_mapping { irq_id: "
    "5 name: \"arch_timer\" } irq_mapping { irq_id: 9 name: \"acpi\" } irq_mapping { irq_id: 5 "
    "name: \"dup\" } irq_mapping { irq_id: 7 } irq_mapping { name: \"noid\" } } }\n"
    "packet { trusted_packet_sequence_id: 1 timestamp: 6 interrupt_info { irq_mapping { irq_id: "
    "9 name: \"again\" } irq_mapping { irq_id: 11 name: \"eth0\" } } }\n";

static void test_interrupt_mapping(void **state) {
  sc_check c[] = {
      {"SELECT id, irq_id, name, machine_id FROM linux_interrupt_mapping",
       "0|5|arch_timer|0\n1|9|acpi|0\n2|11|eth0|0"},
      {"SELECT count(*) FROM _linux_interrupt_mapping", "3"},
  };
  sc_check_trace(irq_text, "INCLUDE PERFETTO MODULE linux.irqs", c, sizeof c / sizeof *c);
  (void)state;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cpuidle_tracks),
      cmocka_unit_test(test_cpuidle_module),
      cmocka_unit_test(test_setup_errors),
      cmocka_unit_test(test_interrupt_mapping),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
