/*
** The kernel's atrace-style events as marker text (kernel_marker.h): the fields of each kind
** and the rules that pick a point's phase, as Perfetto's ftrace parser applies them.
*/
#include "util/kernel_marker.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const trak_kmark_desc trak__kernel_marker_kinds[TRAK_KMARK_KINDS] = {
    [TRAK_KMARK_MDSS] = {"tracing_mark_write", "pid", "trace_name", NULL, "trace_begin", NULL,
                         NULL},
    [TRAK_KMARK_SDE] = {"sde_tracing_mark_write", "pid", "trace_name", "trace_type", "trace_begin",
                        "value", NULL},
    [TRAK_KMARK_SAMSUNG] = {"samsung_tracing_mark_write", "pid", "trace_name", "trace_type", NULL,
                            "value", NULL},
    [TRAK_KMARK_DPU] = {"dpu_tracing_mark_write", "pid", "name", "type", NULL, "value", NULL},
    [TRAK_KMARK_G2D] = {"g2d_tracing_mark_write", "pid", "name", "type", NULL, "value", NULL},
    [TRAK_KMARK_MALI] = {"mali_tracing_mark_write", "pid", "name", "type", NULL, "value", NULL},
    [TRAK_KMARK_LWIS] = {"lwis_tracing_mark_write", "pid", "func_name", "type", NULL, "value",
                         NULL},
    [TRAK_KMARK_PANEL] = {"panel_write_generic", "pid", "name", "type", NULL, "value", NULL},
    [TRAK_KMARK_ZERO] = {"zero", "pid", "name", NULL, NULL, "value", "flag"},
};

int trak__kernel_marker_kind(const char *event) {
  for (int k = 0; k < TRAK_KMARK_KINDS; k++)
    if (!strcmp(event, trak__kernel_marker_kinds[k].event)) return k;
  return -1;
}

/* The point's phase as Perfetto's parser of the kind picks it, or 0 for none. */
static char phase_of(trak_kmark_kind kind, const trak_kmark *m) {
  switch (kind) {
  case TRAK_KMARK_ZERO: /* the msm kernel's flags */
    return m->flag & 1 ? 'B' : m->flag & 2 ? 'E' : m->flag & 4 ? 'C' : 0;
  case TRAK_KMARK_MDSS:
    if (!m->has_begin) return 0;
    break;
  case TRAK_KMARK_SDE:
    if (!m->has_type && !m->has_begin) return 0;
    break;
  case TRAK_KMARK_SAMSUNG:
    if (!m->has_type) return 0;
    break;
  default: /* dpu, g2d, mali, lwis, panel: a type of 0 is none */
    if (!m->type) return 0;
    break;
  }
  char type = (char)m->type; /* the kernel writes the phase letter as a number */
  if (!type) return m->begin ? 'B' : 'E';
  return type == 'B' || type == 'E' || type == 'C' || type == 'I' ? type : 0;
}

int trak__kernel_marker_text(trak_kmark_kind kind, const trak_kmark *m, char *out, size_t cap) {
  char phase = phase_of(kind, m);
  if (!phase) return -1;
  /* The payload's process; dpu's begin, end and instant points name none (drivers write other
  ** processes' pids there), as in Perfetto. */
  uint32_t tgid = (uint32_t)m->pid;
  if (kind == TRAK_KMARK_DPU && phase != 'C') tgid = 0;
  int len = m->name_len > 500 ? 500 : (int)m->name_len;
  const char *name = m->name ? m->name : "";
  int n = phase == 'E' ? snprintf(out, cap, "E|%" PRIu32, tgid)
          : phase == 'C'
              ? snprintf(out, cap, "C|%" PRIu32 "|%.*s|%" PRId64, tgid, len, name, m->value)
              : snprintf(out, cap, "%c|%" PRIu32 "|%.*s", phase, tgid, len, name);
  return n < 0 || (size_t)n >= cap ? -1 : n;
}
