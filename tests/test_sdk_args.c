/*
** The SDK's nested debug arguments and named counters, checked through the trace processor:
** TRAK_ARG_DICT / TRAK_ARG_ARRAY become DebugAnnotation dict_entries / array_values, which the
** args table shows under flat keys ("pos.x", "ids[0]") as Perfetto's does; TRAK_COUNTER by name
** makes one counter track per name.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sqlcheck.h"
#include "trak/processor.h"
#include "trak/trak.h"

TRAK_CATEGORY_DEFINE(cat_args, "args", "events of the test");

static void nested(void) {
  TRAK_EVENT_INSTANT(cat_args, "nested", TRAK_ARG("plain", 1),
                     TRAK_ARG_DICT("pos", TRAK_ARG("x", 3), TRAK_ARG("y", 2.5),
                                   TRAK_ARG_DICT("inner", TRAK_ARG("name", "deep"))),
                     TRAK_ARG_ARRAY("ids", TRAK_VALUE(7), TRAK_VALUE("eight"),
                                    TRAK_VALUE_DICT(TRAK_ARG("k", (bool)true)),
                                    TRAK_VALUE_ARRAY(TRAK_VALUE(9u))),
                     TRAK_ARG("after", "tail"));
  /* The same event twice: the second one's names come from the interning cache. */
  TRAK_EVENT_INSTANT(cat_args, "nested2", TRAK_ARG_ARRAY("ids", TRAK_VALUE(1)), TRAK_FLOW(5));
}

static void test_nested_args(void **state) {
  (void)state;
  trak_processor *p = sc_record(nested);
  static const sc_check checks[] = {
      {"SELECT key, display_value FROM args JOIN slice USING (arg_set_id) WHERE slice.name = "
       "'nested' ORDER BY key",
       "debug.after|tail\n"
       "debug.ids[0]|7\n"
       "debug.ids[1]|eight\n"
       "debug.ids[2].k|true\n"
       "debug.ids[3][0]|9\n"
       "debug.plain|1\n"
       "debug.pos.inner.name|deep\n"
       "debug.pos.x|3\n"
       "debug.pos.y|2.5"},
      {"SELECT key, display_value FROM args JOIN slice USING (arg_set_id) WHERE slice.name = "
       "'nested2' ORDER BY key",
       "debug.ids[0]|1"},
      {"SELECT count(*) FROM flow", "0"},
  };
  sc_run_checks(p, checks, sizeof checks / sizeof checks[0]);
  trak_processor_free(p);
}

static void counters(void) {
  for (int i = 0; i < 3; i++) {
    TRAK_COUNTER(cat_args, "Queue depth", i);
    TRAK_COUNTER(cat_args, "Load", 0.5 * i);
  }
  TRAK_COUNTER(cat_args, "Queue depth", 10); /* another call site, the same track */
}

static void test_named_counters(void **state) {
  (void)state;
  trak_processor *p = sc_record(counters);
  static const sc_check checks[] = {
      {"SELECT t.name, group_concat(c.value, ',') FROM counter c JOIN counter_track t ON "
       "c.track_id = t.id GROUP BY t.name ORDER BY t.name",
       "Load|0.0,0.5,1.0\n"
       "Queue depth|0.0,1.0,2.0,10.0"},
  };
  sc_run_checks(p, checks, sizeof checks / sizeof checks[0]);
  trak_processor_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nested_args),
      cmocka_unit_test(test_named_counters),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
