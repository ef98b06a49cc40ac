/*
** Unit tests of flow binding (src/processor/import/flows.c, both formats), one rule per test: JSON v1 flows (s, t, f with and without bp "e") bound to
** enclosing or next slices, the problems Perfetto counts (a second start, a step or end without
** a start, no enclosing slice), protobuf flow_ids / terminating_flow_ids, and protobuf legacy v1
** flows under the same rules as JSON's.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "sqlcheck.h"

#define FLOWS                                                                                      \
  "SELECT o.name, i.name, f.trace_id FROM flow f JOIN slice o ON o.id = f.slice_out "              \
  "JOIN slice i ON i.id = f.slice_in ORDER BY f.id"
#define STATS "SELECT name, value FROM stats WHERE value > 0 ORDER BY name"
/* A complete slice and a flow event of flow 1 on thread `tid`. */
#define X(name, tid, ts)                                                                           \
  "{\"ph\":\"X\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts ",\"dur\":10}"
#define FL(ph, id, tid, ts, extra)                                                                 \
  "{\"ph\":\"" ph "\",\"name\":\"fl\",\"cat\":\"c\",\"id\":" #id ",\"pid\":1,\"tid\":" #tid        \
  ",\"ts\":" #ts extra "}"

static void check(const char *trace, const char *flows, const char *stats) {
  trak_processor *p = sc_open(trace);
  const sc_check c[] = {{FLOWS, flows}, {STATS, stats}};
  sc_run_checks(p, c, sizeof c / sizeof *c);
  trak_processor_free(p);
}

static void check_json(const char *events, const char *flows, const char *stats) {
  char json[4096];
  snprintf(json, sizeof json, "{\"traceEvents\":[%s]}", events);
  check(json, flows, stats);
}

/* s in a, t in b, f (bp "e") in c: a -> b -> c, one flow id (v1 ids count from 0). */
static void test_json_chain(void **state) {
  (void)state;
  check_json(X("a", 1, 0) "," FL("s", 1, 1, 1, "") "," X("b", 2, 20) "," FL(
                 "t", 1, 2, 21, "") "," X("c", 3, 40) "," FL("f", 1, 3, 45, ",\"bp\":\"e\""),
             "a|b|0\nb|c|0", "");
}

/* f without bp "e" binds the next slice to begin on its thread, even one after a gap. */
static void test_json_end_next(void **state) {
  (void)state;
  check_json(X("a", 1, 0) "," FL("s", 1, 1, 1, "") "," FL("f", 1, 3, 35, "") "," X("c", 3, 40),
             "a|c|0", "");
}

/* A second start of an open id is ignored; steps and ends of unknown ids, and flow events
** outside any slice, are ignored: each counted under Perfetto's name. */
static void test_json_problems(void **state) {
  (void)state;
  check_json(
      X("a", 1, 0) "," FL("s", 1, 1, 1, "") "," FL("s", 1, 1, 2, "") "," X("b", 2, 20) "," FL(
          "t", 9, 2, 22, "") "," FL("f", 7, 2, 23, ",\"bp\":\"e\"") "," FL("s", 5, 4, 50,
                                                                           "") "," FL("t", 1, 2, 25,
                                                                                      ""),
      "a|b|0",
      "flow_duplicate_id|1\nflow_end_without_start|1\nflow_no_enclosing_slice|1\n"
      "flow_step_without_start|1");
}

#define PKT "packet { trusted_packet_sequence_id: 1 timestamp: "
#define BEGIN(ts, name, flows)                                                                     \
  PKT #ts " track_event { type: TYPE_SLICE_BEGIN track_uuid: 10 name: \"" name "\" " flows " } "   \
          "}\n"
#define END(ts) PKT #ts " track_event { type: TYPE_SLICE_END track_uuid: 10 } }\n"

/* Protobuf: a flow id begins a flow or goes on with it; a terminating id ends it, so the same id
** after that begins a new flow. */
static void test_proto_flow_ids(void **state) {
  (void)state;
  check(PKT
        "0 track_descriptor { uuid: 10 thread { pid: 1 tid: 1 } } }\n" BEGIN(10, "a", "flow_ids: 7")
            END(20) BEGIN(30, "b", "flow_ids: 7") END(40) BEGIN(50, "c", "terminating_flow_ids: 7")
                END(60) BEGIN(70, "d", "flow_ids: 7") END(80) BEGIN(90, "e", "flow_ids: 7")
                    END(100),
        "a|b|7\nb|c|7\nd|e|7", "");
}

#define SEQ                                                                                        \
  "packet { trusted_packet_sequence_id: 1 sequence_flags: 1 thread_descriptor { pid: 1 tid: 1 } "  \
  "}\n"
#define LEG(ts, name, legacy)                                                                      \
  PKT #ts " sequence_flags: 2 track_event { name: \"" name                                         \
          "\" categories: \"c\" legacy_event { " legacy " } } }\n"

#define LEGE(ts) PKT #ts " sequence_flags: 2 track_event { legacy_event { phase: 69 } } }\n"

/* Protobuf legacy v1 flows follow JSON's rules (one implementation): a second s of an open id is
** counted and ignored, and an f bound to the enclosing slice leaves the flow open for a later
** t. */
static void test_proto_v1_duplicate_and_open_end(void **state) {
  (void)state;
  check(SEQ LEG(10, "a", "phase: 66") LEG(11, "fl", "phase: 115 unscoped_id: 1") LEGE(19)
            LEG(20, "b", "phase: 66") LEG(21, "fl", "phase: 115 unscoped_id: 1")
                LEG(22, "fl", "phase: 102 unscoped_id: 1 bind_to_enclosing: true") LEGE(29)
                    LEG(30, "c", "phase: 66") LEG(31, "fl", "phase: 116 unscoped_id: 1") LEGE(39),
        "a|b|0\na|c|0", "flow_duplicate_id|1");
}

/* Protobuf legacy v1 f events waiting for the next slice queue up per track: both bind. */
static void test_proto_v1_pending_queue(void **state) {
  (void)state;
  check(SEQ LEG(10, "a", "phase: 66") LEG(11, "fl", "phase: 115 unscoped_id: 1")
            LEG(12, "fl", "phase: 115 unscoped_id: 2") LEGE(19)
                LEG(20, "fl", "phase: 102 unscoped_id: 1")
                    LEG(21, "fl", "phase: 102 unscoped_id: 2") LEG(30, "c", "phase: 66") LEGE(39),
        "a|c|0\na|c|1", "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_json_chain),
      cmocka_unit_test(test_json_end_next),
      cmocka_unit_test(test_json_problems),
      cmocka_unit_test(test_proto_flow_ids),
      cmocka_unit_test(test_proto_v1_duplicate_and_open_end),
      cmocka_unit_test(test_proto_v1_pending_queue),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
