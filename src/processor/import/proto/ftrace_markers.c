/*
** This file reads the kernel's own atrace-style events (util/kernel_marker.h: the display and
** GPU drivers' tracing_mark_write kinds and the systrace "zero" event) from their protobuf
** fields. Perfetto reads each as an atrace point, as if a program had written it to
** trace_marker; trak writes the point as marker text and queues it with print's markers
** (trak__atrace_marker), so that both kinds become slices, instants and counters one way. Each
** event is also its ftrace_event row (ftrace_bundle.c).
*/
#include <inttypes.h>
#include <string.h>

#include "pb/schema.h"
#include "processor/import/ftrace/ftrace.h"
#include "processor/import/proto/proto.h"
#include "util/kernel_marker.h"

/* The kind of FtraceEvent member `event`, or -1. */
static int kind_of(uint32_t event) {
  switch (event) {
  case TRAK_PB_FtraceEvent_tracing_mark_write:
    return TRAK_KMARK_MDSS;
  case TRAK_PB_FtraceEvent_sde_tracing_mark_write:
    return TRAK_KMARK_SDE;
  case TRAK_PB_FtraceEvent_samsung_tracing_mark_write:
    return TRAK_KMARK_SAMSUNG;
  case TRAK_PB_FtraceEvent_dpu_tracing_mark_write:
    return TRAK_KMARK_DPU;
  case TRAK_PB_FtraceEvent_g2d_tracing_mark_write:
    return TRAK_KMARK_G2D;
  case TRAK_PB_FtraceEvent_mali_tracing_mark_write:
    return TRAK_KMARK_MALI;
  case TRAK_PB_FtraceEvent_lwis_tracing_mark_write:
    return TRAK_KMARK_LWIS;
  case TRAK_PB_FtraceEvent_panel_write_generic:
    return TRAK_KMARK_PANEL;
  case TRAK_PB_FtraceEvent_zero:
    return TRAK_KMARK_ZERO;
  default:
    return -1;
  }
}

/* Field `f` of the event is the one named `want` (NULL: the kind has none) in its message. */
static int is(const trak_pb_message_desc *md, const trak_pb_field *f, const char *want) {
  if (!want || !md) return 0;
  const trak_pb_field_desc *d = trak__schema_field_by_number(md, f->number);
  return d && !strcmp(d->name, want);
}

int trak__ftrace_kernel_marker(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t pid,
                               const trak_pb_field *ev) {
  int kind = kind_of(ev->number);
  if (kind < 0) return 0;
  /* the event's message, to name its fields (these events are rare: looked up each time) */
  const trak_pb_message_desc *fe = trak__schema_message("perfetto.protos.FtraceEvent");
  const trak_pb_field_desc *fd = fe ? trak__schema_field_by_number(fe, ev->number) : NULL;
  const trak_pb_message_desc *md = fd ? trak__schema_field_message(fd) : NULL;
  const trak_kmark_desc *k = &trak__kernel_marker_kinds[kind];
  trak_kmark m = {0};
  if (ev->wire_type == TRAK_PB_WIRE_LEN) {
    trak_pb_decoder dec;
    trak_pb_field f;
    trak__dec_init(imp, &dec, ev->data, ev->len);
    while (trak_pb_decoder_next(&dec, &f) > 0) { /* the last of a repeated field, as getters */
      if (f.wire_type == TRAK_PB_WIRE_LEN) {
        if (is(md, &f, k->name)) m.name = (const char *)f.data, m.name_len = f.len;
      } else if (f.wire_type != TRAK_PB_WIRE_VARINT) {
        continue;
      } else if (is(md, &f, k->pid)) {
        m.pid = (int32_t)f.value;
      } else if (is(md, &f, k->type)) {
        m.type = (uint32_t)f.value, m.has_type = 1;
      } else if (is(md, &f, k->begin)) {
        m.begin = (uint32_t)f.value, m.has_begin = 1;
      } else if (is(md, &f, k->value)) { /* int32, but lwis's and zero's int64 */
        m.value = kind == TRAK_KMARK_LWIS || kind == TRAK_KMARK_ZERO ? (int64_t)f.value
                                                                     : (int32_t)f.value;
      } else if (is(md, &f, k->flag)) {
        m.flag = (int32_t)f.value;
      }
    }
  }
  char text[600];
  int n = trak__kernel_marker_text((trak_kmark_kind)kind, &m, text, sizeof text);
  if (n < 0)
    trak__report(imp, TRAK_STAT_SYSTRACE_PARSE_FAILURE, "%s at %" PRId64 " names no atrace point",
                 k->event, ts);
  else
    trak__atrace_marker(imp, cpu, ts, pid, -1, text, (size_t)n);
  return 1;
}
