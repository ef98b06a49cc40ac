/*
** Tests of the trace diagnostics rules (src/processor/import/trace_diagnostics.c) on TraceConfig
** bytes made here: recorded ftrace data loss raises the buffer rules' confidence to 0.9 (the
** golden metadata/trace_diagnostics shows the ramps without it), every ftrace data source is
** checked, a field given twice counts once (its last value), and the build type of Android
** fingerprints.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "processor/import/trace_diagnostics.h"
#include "trak/pb.h"
#include "trak/protos.h"

/* Appends a linux.ftrace data source with the FtraceConfig bytes [ftrace, + len) to cfg. */
static void add_ftrace_source(trak_pb_buf *cfg, const uint8_t *ftrace, size_t len) {
  trak_pb_buf ds_cfg, ds;
  trak_pb_buf_init_heap(&ds_cfg);
  trak_pb_buf_init_heap(&ds);
  trak_pb_put_string(&ds_cfg, TRAK_PB_DataSourceConfig_name, "linux.ftrace");
  trak_pb_put_bytes(&ds_cfg, TRAK_PB_DataSourceConfig_ftrace_config, ftrace, len);
  trak_pb_put_bytes(&ds, TRAK_PB_TraceConfig_DataSource_config, ds_cfg.start,
                    trak_pb_buf_len(&ds_cfg));
  trak_pb_put_bytes(cfg, TRAK_PB_TraceConfig_data_sources, ds.start, trak_pb_buf_len(&ds));
  trak_pb_buf_free(&ds_cfg);
  trak_pb_buf_free(&ds);
}

/* An FtraceConfig with buffer_size_kb `kb` (0: unset) and raw_syscalls/sys_enter when
** `syscalls`, appended as a data source to cfg. */
static void add_ftrace(trak_pb_buf *cfg, uint32_t kb, int syscalls) {
  trak_pb_buf f;
  trak_pb_buf_init_heap(&f);
  if (syscalls)
    trak_pb_put_string(&f, TRAK_PB_FtraceConfig_ftrace_events, "raw_syscalls/sys_enter");
  if (kb) trak_pb_put_varint(&f, TRAK_PB_FtraceConfig_buffer_size_kb, kb);
  add_ftrace_source(cfg, f.start, trak_pb_buf_len(&f));
  trak_pb_buf_free(&f);
}

static void run(const trak_pb_buf *cfg, const trak_diag_facts *facts, trak_diag_row **rows,
                size_t *n) {
  *rows = NULL;
  *n = 0;
  assert_int_equal(trak__trace_diagnostics_run(cfg->start, trak_pb_buf_len(cfg), facts, rows, n),
                   0);
}

static void data_loss_raises_confidence(void **state) {
  (void)state;
  trak_pb_buf cfg;
  trak_pb_buf_init_heap(&cfg);
  add_ftrace(&cfg, 544, 1);
  trak_diag_row *rows;
  size_t n;
  trak_diag_facts facts = {0};
  run(&cfg, &facts, &rows, &n);
  assert_int_equal(n, 2);
  assert_string_equal(rows[0].key, "tiny_ftrace_buffer");
  assert_true(rows[0].confidence > 0.5499 && rows[0].confidence < 0.5501); /* 0.9 - 0.7 / 2 */
  assert_string_equal(rows[1].key, "syscalls_without_filter");
  assert_true(rows[1].confidence == 0.3);
  trak__trace_diagnostics_free(rows, n);
  facts.ftrace_data_loss = 1;
  run(&cfg, &facts, &rows, &n);
  assert_int_equal(n, 2);
  assert_true(rows[0].confidence == 0.9);
  assert_true(rows[1].confidence == 0.9);
  assert_string_equal(rows[0].description, "ftrace buffer_size_kb is only 544 KB (< 1 MB); the "
                                           "kernel ftrace buffer may overrun and drop events "
                                           "under load.");
  trak__trace_diagnostics_free(rows, n);
  trak_pb_buf_free(&cfg);
}

static void every_ftrace_source(void **state) {
  (void)state;
  trak_pb_buf cfg;
  trak_pb_buf_init_heap(&cfg);
  add_ftrace(&cfg, 8192, 0);
  add_ftrace(&cfg, 16, 0);
  add_ftrace(&cfg, 0, 0); /* unset: the default, fine */
  trak_diag_row *rows;
  size_t n;
  trak_diag_facts facts = {0};
  run(&cfg, &facts, &rows, &n);
  assert_int_equal(n, 1);
  assert_string_equal(rows[0].key, "tiny_ftrace_buffer");
  assert_true(rows[0].confidence == 0.9);
  trak__trace_diagnostics_free(rows, n);
  trak_pb_buf_free(&cfg);
}

static void last_value_counts(void **state) {
  (void)state;
  trak_pb_buf f, cfg;
  trak_pb_buf_init_heap(&f);
  trak_pb_buf_init_heap(&cfg);
  trak_pb_put_varint(&f, TRAK_PB_FtraceConfig_buffer_size_kb, 16);
  trak_pb_put_varint(&f, TRAK_PB_FtraceConfig_buffer_size_kb, 4096);
  trak_pb_put_varint(&f, TRAK_PB_FtraceConfig_drain_period_ms, 50);
  trak_pb_put_varint(&f, TRAK_PB_FtraceConfig_drain_period_ms, 100);
  add_ftrace_source(&cfg, f.start, trak_pb_buf_len(&f));
  trak_diag_row *rows;
  size_t n;
  trak_diag_facts facts = {0};
  run(&cfg, &facts, &rows, &n);
  assert_int_equal(n, 0); /* 4 MB drained every 100 ms: 40 MB/s */
  trak__trace_diagnostics_free(rows, n);
  assert_int_equal(trak__trace_diagnostics_run(NULL, 0, &facts, &rows, &n), 0);
  assert_int_equal(n, 0);
  trak_pb_buf_free(&f);
  trak_pb_buf_free(&cfg);
}

static void user_builds(void **state) {
  (void)state;
  assert_true(trak__diag_user_build("google/x/x:14/AB/1:user/release-keys"));
  assert_true(trak__diag_user_build("a:user"));
  assert_false(trak__diag_user_build("google/x/x:14/AB/1:userdebug/dev-keys"));
  assert_false(trak__diag_user_build("google/x/x:14/AB/1:eng/test-keys"));
  assert_false(trak__diag_user_build("user/release-keys"));
  assert_false(trak__diag_user_build(NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(data_loss_raises_confidence),
      cmocka_unit_test(every_ftrace_source),
      cmocka_unit_test(last_value_counts),
      cmocka_unit_test(user_builds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
