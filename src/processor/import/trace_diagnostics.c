/*
** This file holds the trace diagnostics rules (see trace_diagnostics.h): the TraceConfig read
** into its data sources (each field's last occurrence, as protobuf reads it), then each rule
** over every data source, adding a row per finding with Perfetto's key, title, description,
** remediation and confidence.
*/
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/trace_diagnostics.h"
#include "trak/pb.h"
#include "trak/protos.h"

typedef struct span {
  const uint8_t *p;
  size_t n;
} span;

/* A data source's config, as far as the rules read it. */
typedef struct source {
  span name;
  uint32_t target_buffer;
  int has_ftrace, has_heapprofd;
  span ftrace, heapprofd; /* the FtraceConfig and HeapprofdConfig bytes */
} source;

/* An FtraceConfig, as far as the rules read it. */
typedef struct ftrace_cfg {
  int has_buffer_kb, has_drain_ms;
  uint32_t buffer_kb, drain_ms;
  int symbolize_ksyms, function_graph, preserve_buffer, raw_syscalls, syscall_filter;
  span ksym_event; /* the first event that names kernel symbols, n 0: none */
} ftrace_cfg;

typedef struct ctx {
  const trak_diag_facts *facts;
  trak_diag_row **rows;
  size_t *n;
  int oom;
} ctx;

static int span_is(span s, const char *text) {
  return s.n == strlen(text) && !memcmp(s.p, text, s.n);
}

/* Adds a row; the description is printf-formatted. */
__attribute__((format(printf, 5, 7))) static void add(ctx *c, const char *key, const char *title,
                                                      const char *remediation, const char *fmt,
                                                      double confidence, ...) {
  if (c->oom) return;
  va_list ap;
  va_start(ap, confidence);
  char *desc = NULL;
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (len >= 0 && (desc = malloc((size_t)len + 1))) {
    va_start(ap, confidence);
    vsnprintf(desc, (size_t)len + 1, fmt, ap);
    va_end(ap);
  }
  trak_diag_row *rows = desc ? realloc(*c->rows, (*c->n + 1) * sizeof *rows) : NULL;
  if (!rows) {
    free(desc);
    c->oom = 1;
    return;
  }
  rows[(*c->n)++] = (trak_diag_row){key, title, remediation, desc, confidence};
  *c->rows = rows;
}

static source read_source(const trak_pb_field *ds) {
  source s = {0};
  trak_pb_decoder dec, cfg;
  trak_pb_field f;
  trak_pb_decoder_init(&dec, ds->data, ds->len);
  span config = {NULL, 0};
  int has_config = 0;
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_TraceConfig_DataSource_config && f.wire_type == TRAK_PB_WIRE_LEN)
      config = (span){f.data, f.len}, has_config = 1;
  if (!has_config) return s;
  trak_pb_decoder_init(&cfg, config.p, config.n);
  while (trak_pb_decoder_next(&cfg, &f) > 0) {
    int len = f.wire_type == TRAK_PB_WIRE_LEN;
    if (f.number == TRAK_PB_DataSourceConfig_name && len)
      s.name = (span){f.data, f.len};
    else if (f.number == TRAK_PB_DataSourceConfig_target_buffer && !len)
      s.target_buffer = (uint32_t)f.value;
    else if (f.number == TRAK_PB_DataSourceConfig_ftrace_config && len)
      s.ftrace = (span){f.data, f.len}, s.has_ftrace = 1;
    else if (f.number == TRAK_PB_DataSourceConfig_heapprofd_config && len)
      s.heapprofd = (span){f.data, f.len}, s.has_heapprofd = 1;
  }
  return s;
}

static ftrace_cfg read_ftrace(span b) {
  ftrace_cfg c = {0};
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_pb_decoder_init(&dec, b.p, b.n);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    int len = f.wire_type == TRAK_PB_WIRE_LEN;
    span v = {len ? f.data : NULL, len ? f.len : 0};
    switch (len ? 0 : f.number) {
    case TRAK_PB_FtraceConfig_buffer_size_kb:
      c.has_buffer_kb = 1, c.buffer_kb = (uint32_t)f.value;
      break;
    case TRAK_PB_FtraceConfig_drain_period_ms:
      c.has_drain_ms = 1, c.drain_ms = (uint32_t)f.value;
      break;
    case TRAK_PB_FtraceConfig_symbolize_ksyms:
      c.symbolize_ksyms = f.value != 0;
      break;
    case TRAK_PB_FtraceConfig_enable_function_graph:
      c.function_graph = f.value != 0;
      break;
    case TRAK_PB_FtraceConfig_preserve_ftrace_buffer:
      c.preserve_buffer = f.value != 0;
      break;
    case 0:
      if (f.number == TRAK_PB_FtraceConfig_syscall_events) c.syscall_filter = 1;
      if (f.number != TRAK_PB_FtraceConfig_ftrace_events) break;
      if (span_is(v, "raw_syscalls/sys_enter") || span_is(v, "raw_syscalls/sys_exit"))
        c.raw_syscalls = 1;
      if (!c.ksym_event.n && (span_is(v, "workqueue/workqueue_execute_start") ||
                              span_is(v, "sched/sched_blocked_reason")))
        c.ksym_event = v;
      break;
    default:
      break;
    }
  }
  return c;
}

/* ---- the rules, over one data source's ftrace config ----------------------------------- */

/* preserve_ftrace_buffer long (5 minutes) after boot: the kept buffer holds old events. */
static void preserve_late(ctx *c, const ftrace_cfg *f) {
  if (!f->preserve_buffer || !c->facts->has_started) return;
  if (c->facts->started_boot_ns <= INT64_C(5) * 60 * 1000 * 1000 * 1000) return;
  add(c, "preserve_ftrace_buffer_late_start", "Unnecessary preserve_ftrace_buffer",
      "Unset preserve_ftrace_buffer, or only use it when starting tracing shortly after boot.",
      "%s", 0.7,
      "preserve_ftrace_buffer is set but tracing started more than a few minutes after boot; "
      "the preserved ftrace buffer may contain very old, misleading events.");
}

/* buffer_size_kb under 1 MB: 0.9 at 64 KB and below, down to 0.2 towards 1 MB. */
static void tiny_buffer(ctx *c, const ftrace_cfg *f) {
  uint32_t kb = f->buffer_kb;
  if (!f->has_buffer_kb || kb == 0 || kb >= 1024) return; /* 0: the default */
  double conf = kb <= 64 ? 0.9 : 0.9 + (double)(kb - 64) / (1024 - 64) * (0.2 - 0.9);
  if (c->facts->ftrace_data_loss) conf = 0.9;
  add(c, "tiny_ftrace_buffer", "Ftrace buffer too small",
      "Avoid setting buffer_size_kb explicitly; leave it unset to use the default, which is "
      "tuned for typical workloads.",
      "ftrace buffer_size_kb is only %" PRIu32 " KB (< 1 MB); the kernel ftrace buffer may "
      "overrun and drop events under load.",
      conf, kb);
}

/* buffer_size_kb / drain_period_ms under 5 MB/s: 0.9 at 1 MB/s and below. */
static void low_bandwidth(ctx *c, const ftrace_cfg *f) {
  if (!f->has_buffer_kb || !f->has_drain_ms || !f->buffer_kb || !f->drain_ms) return;
  double mb_s = ((double)f->buffer_kb / 1024.0) / ((double)f->drain_ms / 1000.0);
  if (mb_s >= 5.0) return;
  double conf = mb_s <= 1.0 ? 0.9 : 0.9 * ((5.0 - mb_s) / (5.0 - 1.0));
  if (c->facts->ftrace_data_loss) conf = 0.9;
  add(c, "low_ftrace_drain_bandwidth", "Low ftrace drain bandwidth",
      "Leave buffer_size_kb and drain_period_ms unset to use the defaults, or raise "
      "buffer_size_kb / lower drain_period_ms to increase the drain bandwidth above 5 MB/s.",
      "ftrace drain bandwidth is low (buffer_size_kb=%" PRIu32 ", drain_period_ms=%" PRIu32
      " gives under 5 MB/s); a burst of events can overflow the buffer before it is drained.",
      conf, f->buffer_kb, f->drain_ms);
}

/* drain_period_ms outside [100, 60000]. */
static void extreme_drain(ctx *c, const ftrace_cfg *f) {
  if (!f->has_drain_ms || (f->drain_ms >= 100 && f->drain_ms <= 60000)) return;
  add(c, "extreme_ftrace_drain_period", "Extreme ftrace drain period",
      "Set drain_period_ms within the advised range or, better, leave it unset to the default "
      "values.",
      "ftrace drain_period_ms is %" PRIu32 " ms, outside the sane range [100, 60000]; this can "
      "cause excessive CPU wakeups or buffer overruns.",
      0.6, f->drain_ms);
}

/* raw_syscalls enabled without syscall_events. */
static void syscalls_unfiltered(ctx *c, const ftrace_cfg *f) {
  if (!f->raw_syscalls || f->syscall_filter) return;
  add(c, "syscalls_without_filter", "Unfiltered syscall tracing",
      "Restrict syscall_events to the specific syscalls you need (e.g. \"sys_read\", "
      "\"sys_write\") to cut trace size and overhead.",
      "%s", c->facts->ftrace_data_loss ? 0.9 : 0.3,
      "raw_syscalls (sys_enter/sys_exit) are enabled without any syscall_events filter; every "
      "syscall is recorded, which can produce huge, expensive traces.");
}

/* Function graph or kernel-symbol events without symbolize_ksyms. */
static void needs_ksyms(ctx *c, const ftrace_cfg *f) {
  if (f->symbolize_ksyms) return;
  if (f->function_graph)
    add(c, "function_graph_requires_symbolize_ksyms", "Function graph needs symbolize_ksyms",
        "Set symbolize_ksyms: true in the ftrace config.", "%s", 1.0,
        "enable_function_graph is set but symbolize_ksyms is not; function graph tracing "
        "records kernel symbol addresses that are unusable without symbolization and cannot be "
        "resolved after the fact.");
  if (!f->ksym_event.n) return;
  add(c, "events_require_symbolize_ksyms", "Events need symbolize_ksyms",
      "Set symbolize_ksyms: true in the ftrace config.",
      "ftrace event %.*s is enabled but symbolize_ksyms is not set; its kernel symbol fields "
      "will be raw addresses that cannot be resolved after the fact.",
      0.6, (int)f->ksym_event.n, (const char *)f->ksym_event.p);
}

typedef void (*ftrace_rule)(ctx *, const ftrace_cfg *);

/* Runs `rule` over the ftrace config of every data source of the TraceConfig `config`. */
static void each_ftrace(ctx *c, span config, ftrace_rule rule) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_pb_decoder_init(&dec, config.p, config.n);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_TraceConfig_data_sources || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    source s = read_source(&f);
    if (!s.has_ftrace) continue;
    ftrace_cfg fc = read_ftrace(s.ftrace);
    rule(c, &fc);
  }
}

/* ---- the rules over the whole config ------------------------------------------------------ */

/* An ftrace or track_event source on a DISCARD buffer of a trace written to a file now and
** then (a period under 7 days, 604800000 ms, what Traceur sets for "never"; unset: 5 s). */
static void discard_streaming(ctx *c, span config) {
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  int into_file = 0;
  uint32_t period = 0;
  uint8_t discard[64] = {0};
  size_t nbuf = 0;
  trak_pb_decoder_init(&dec, config.p, config.n);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_TraceConfig_write_into_file && f.wire_type == TRAK_PB_WIRE_VARINT)
      into_file = f.value != 0;
    else if (f.number == TRAK_PB_TraceConfig_file_write_period_ms &&
             f.wire_type == TRAK_PB_WIRE_VARINT)
      period = (uint32_t)f.value;
    else if (f.number == TRAK_PB_TraceConfig_buffers && f.wire_type == TRAK_PB_WIRE_LEN) {
      uint64_t policy = 0;
      trak_pb_decoder_init(&sub, f.data, f.len);
      while (trak_pb_decoder_next(&sub, &g) > 0)
        if (g.number == TRAK_PB_TraceConfig_BufferConfig_fill_policy) policy = g.value;
      if (nbuf < sizeof discard) discard[nbuf] = policy == TRAK_PB_TraceConfig_BufferConfig_DISCARD;
      nbuf++;
    }
  }
  if (!into_file || period >= 604800000u) return;
  trak_pb_decoder_init(&dec, config.p, config.n);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_TraceConfig_data_sources || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    source s = read_source(&f);
    if (!span_is(s.name, "linux.ftrace") && !span_is(s.name, "track_event")) continue;
    if (s.target_buffer >= nbuf || s.target_buffer >= sizeof discard || !discard[s.target_buffer])
      continue;
    add(c, "discard_buffer_for_streaming", "DISCARD buffer for streaming",
        "Use the default RING_BUFFER fill_policy for buffers backing ftrace or track_event in "
        "long/streaming traces.",
        "data source \"%.*s\" targets a DISCARD buffer while the trace streams into a file; "
        "DISCARD stops recording once the buffer first fills, silently truncating long traces.",
        0.8, (int)s.name.n, (const char *)s.name.p);
  }
}

/* heapprofd's sampling_interval_bytes set under 100 KB. */
static void heapprofd_interval(ctx *c, span config) {
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak_pb_decoder_init(&dec, config.p, config.n);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number != TRAK_PB_TraceConfig_data_sources || f.wire_type != TRAK_PB_WIRE_LEN) continue;
    source s = read_source(&f);
    if (!s.has_heapprofd) continue;
    int has = 0;
    uint64_t interval = 0;
    trak_pb_decoder_init(&sub, s.heapprofd.p, s.heapprofd.n);
    while (trak_pb_decoder_next(&sub, &g) > 0)
      if (g.number == TRAK_PB_HeapprofdConfig_sampling_interval_bytes &&
          g.wire_type == TRAK_PB_WIRE_VARINT)
        has = 1, interval = g.value;
    if (!has || interval == 0 || interval >= 100 * 1024) continue;
    add(c, "heapprofd_sampling_interval_too_low", "Heapprofd sampling interval too low",
        "Increase sampling_interval_bytes to at least 100 KB; smaller intervals add overhead "
        "without meaningfully improving accuracy.",
        "heapprofd sampling_interval_bytes is %" PRIu64 " (< 100 KB); such a small sampling "
        "interval rarely improves accuracy and increases profiling overhead.",
        c->facts->heapprofd_errors ? 0.9 : 0.3, interval);
  }
}

/* android.display.video configured on a user build, without frames or a producer error. */
static void display_video(ctx *c, span config) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int video = 0;
  trak_pb_decoder_init(&dec, config.p, config.n);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_TraceConfig_data_sources && f.wire_type == TRAK_PB_WIRE_LEN &&
        span_is(read_source(&f).name, "android.display.video"))
      video = 1;
  const trak_diag_facts *k = c->facts;
  if (!video || !k->android_user_build || k->video_frames || k->video_errors) return;
  add(c, "display_video_not_enabled", "Display video not captured",
      "Enable it over ADB before recording, then record again (re-run after each reboot): adb "
      "shell setprop debug.tracing_video_allowed true",
      "%s", 0.7,
      "The trace config requested android.display.video, but no frames were captured and the "
      "producer reported no errors. On user (production) builds display video is disabled "
      "until the debug.tracing_video_allowed system property is set; it resets on reboot.");
}

int trak__trace_diagnostics_run(const uint8_t *config, size_t len, const trak_diag_facts *facts,
                                trak_diag_row **rows, size_t *n) {
  if (!config || !len) return 0;
  ctx c = {facts, rows, n, 0};
  span cfg = {config, len};
  static const ftrace_rule ftrace_rules[] = {preserve_late, tiny_buffer,         low_bandwidth,
                                             extreme_drain, syscalls_unfiltered, needs_ksyms};
  for (size_t i = 0; i < sizeof ftrace_rules / sizeof *ftrace_rules; i++)
    each_ftrace(&c, cfg, ftrace_rules[i]);
  discard_streaming(&c, cfg);
  heapprofd_interval(&c, cfg);
  display_video(&c, cfg);
  return c.oom ? -1 : 0;
}

int trak__diag_user_build(const char *fingerprint) {
  const char *colon = fingerprint ? strrchr(fingerprint, ':') : NULL;
  if (!colon) return 0;
  const char *type = colon + 1, *slash = strchr(type, '/');
  size_t n = slash ? (size_t)(slash - type) : strlen(type);
  return n == 4 && !memcmp(type, "user", 4);
}

void trak__trace_diagnostics_free(trak_diag_row *rows, size_t n) {
  for (size_t i = 0; rows && i < n; i++)
    free(rows[i].description);
  free(rows);
}
