/*
** Interceptor and custom data source benchmarks. Each line reads `SCENARIO: N ns`, the median
** cost of one occurrence over 301 batches of 2,000 (a slice line is per event: half of a begin
** plus its end). Scenarios:
**   noop_instant / noop_slice        track events through an interceptor whose on_packet does
**                                    nothing (what interception itself costs)
**   console_instant / console_slice  the console interceptor writing its lines to /dev/null
**   ds_enabled                       a custom data source's packet (timestamp + a small
**                                    track_event) into a session's buffer
**   ds_disabled                      TRAK_DATA_SOURCE_TRACE with no active instance
**   ds_noop_interceptor              the data source's packet handed to the no-op interceptor
** Run: build/intercept_bench [SCENARIO]   (see docs/performance.md for callgrind)
*/
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trak/trak.h"
#include "bench_util.h"

TRAK_CATEGORY_DEFINE(cat_b, "bench", "recorded");

enum { BATCH = 2000, BATCHES = 301 };

static trak_data_source *ds;

static void noop_packet(const trak_intercepted_packet *p) {
  __asm__ volatile("" ::"r"(p));
}

static void write_packet(trak_ds_ctx *ctx, void *user) {
  trak_pb_buf *p = trak_ds_new_packet(ctx);
  trak_pb_put_varint(p, TRAK_PB_TracePacket_timestamp, 42);
  trak_pb_nested te = trak_pb_begin_nested_short(p, TRAK_PB_TracePacket_track_event);
  trak_pb_put_varint(p, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_INSTANT);
  trak_pb_end_nested_short(p, te);
}

static void run_instant(void) {
  for (int i = 0; i < BATCH; i++) {
    TRAK_EVENT_INSTANT(cat_b, "instant");
    __asm__ volatile("" ::: "memory");
  }
}
static void run_slice(void) {
  for (int i = 0; i < BATCH / 2; i++) { /* BATCH events: half begins, half ends */
    TRAK_EVENT(cat_b, "slice");
    __asm__ volatile("" ::: "memory");
  }
}
static void run_ds(void) {
  for (int i = 0; i < BATCH; i++) {
    TRAK_DATA_SOURCE_TRACE(ds, write_packet, NULL);
    __asm__ volatile("" ::: "memory");
  }
}

/* Median ns per loop iteration of fn. */
static double measure(void (*fn)(void)) {
  static double per[BATCHES];
  fn();
  for (int b = 0; b < BATCHES; b++) {
    uint64_t t0 = bench_now_ns();
    fn();
    per[b] = (double)(bench_now_ns() - t0) / BATCH;
  }
  qsort(per, BATCHES, sizeof per[0], bench_cmp_double);
  return per[BATCHES / 2];
}

typedef struct scenario {
  const char *name;
  const char *config; /* TraceConfig text, or NULL for no session */
  void (*fn)(void);
} scenario;

#define TE(icpt)                                                                                   \
  "data_sources { config { name: \"track_event\" interceptor_config { name: \"" icpt "\" } } }"
#define DS "data_sources { config { name: \"bench.ds\" } }"

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL;
  trak_error err;
  trak_interceptor_desc noop = {"noop", NULL, NULL, NULL, NULL, NULL, NULL, noop_packet};
  trak_data_source_desc dd = {0};
  dd.name = "bench.ds";
  if (trak_interceptor_register(&noop, &err) || trak_data_source_register(&dd, &ds, &err)) {
    fprintf(stderr, "intercept_bench: %s\n", err.message);
    return 1;
  }
  trak_console_options o;
  trak_console_options_init(&o);
  o.fd = open("/dev/null", O_WRONLY);
  o.colors = 0;
  trak_console_set_options(&o);
  static const scenario scenarios[] = {
      {"noop_instant", TE("noop"), run_instant},
      {"noop_slice", TE("noop"), run_slice},
      {"console_instant", TE("console"), run_instant},
      {"console_slice", TE("console"), run_slice},
      {"ds_enabled", "buffers { size_kb: 65536 } " DS, run_ds},
      {"ds_disabled", NULL, run_ds},
      {"ds_noop_interceptor",
       "data_sources { config { name: \"bench.ds\" interceptor_config { name: \"noop\" } } }",
       run_ds},
  };
  for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
    const scenario *sc = &scenarios[i];
    if (only && strcmp(sc->name, only) != 0) continue;
    trak_session *s = NULL;
    if (sc->config &&
        (trak_session_new_from_text(sc->config, &s, &err) || trak_session_start(s, &err))) {
      fprintf(stderr, "intercept_bench: %s\n", err.message);
      return 1;
    }
    printf("%s: %.1f ns\n", sc->name, measure(sc->fn));
    trak_session_free(s);
  }
  close(o.fd);
  return 0;
}
