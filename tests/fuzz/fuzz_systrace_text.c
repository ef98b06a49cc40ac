/*
** libFuzzer target for the systrace text parsers (src/processor/util): the input's start goes
** through trak__systrace_text_sniff and _start, then each '\n'-separated line through
** trak__systrace_text_line, trak__systrace_line_parse, its arguments through
** trak__systrace_args_find (each value also read as a task state) and
** trak__atrace_marker_parse, and the whole line through the marker
** parser too. Every field returned must lie inside the line it came from (or be the marker's
** "[empty slice name]"); nothing may crash or read out of bounds.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "processor/util/atrace_marker.h"
#include "processor/util/systrace_line.h"
#include "processor/util/systrace_text.h"
#include "processor/util/task_state.h"

static void check_inside(trak_strv v, const char *s, size_t len) {
  if (v.len && (v.s < s || v.s + v.len > s + len)) abort();
}

static void check_marker(const char *s, size_t len) {
  trak_atrace_marker m;
  int rc = trak__atrace_marker_parse(s, len, &m);
  if (rc != TRAK_ATRACE_OK) {
    if (rc != TRAK_ATRACE_FAILURE && rc != TRAK_ATRACE_UNSUPPORTED) abort();
    return;
  }
  if (strchr("BECSFINGH", m.phase) == NULL) abort();
  if (!(m.phase == 'B' && m.name.len == 18 && memcmp(m.name.s, "[empty slice name]", 18) == 0))
    check_inside(m.name, s, len);
  check_inside(m.track, s, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *keys[] = {"prev_pid", "next_comm", "name", "pid", "", "cpu_id", "state"};
  const char *text = (const char *)data;
  trak_systrace_section section;
  trak__systrace_text_sniff(text, size);
  size_t start = trak__systrace_text_start(text, size, &section);
  if (start > size) abort();
  while (start <= size) {
    const char *nl = memchr(text + start, '\n', size - start);
    size_t end = nl ? (size_t)(nl - text) : size;
    const char *line = text + start;
    size_t len = end - start;
    trak_systrace_line_kind kind = trak__systrace_text_line(&section, line, len);
    if (kind > TRAK_SYSTRACE_PS_ROW_SHORT || section > TRAK_SYSTRACE_DONE) abort();
    trak_systrace_line l;
    int rc = trak__systrace_line_parse(line, len, &l);
    if (rc == 0) {
      check_inside(l.task, line, len);
      check_inside(l.tgid, line, len);
      check_inside(l.event, line, len);
      check_inside(l.args, line, len);
      if (!l.event.len) abort();
      for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        trak_strv v;
        if (!trak__systrace_args_find(l.args, keys[k], &v)) continue;
        check_inside(v, l.args.s, l.args.len);
        /* Any value read as a prev_state must decode to at most three letters. */
        char letters[4];
        uint16_t raw = trak__task_state_from_systrace(v.s, v.len);
        if (trak__task_state_letters(raw, 0, 0, letters) == 0 && strlen(letters) > 3) abort();
        trak__task_state_letters(raw, 5, 15, letters);
      }
      check_marker(l.args.s, l.args.len);
    } else if (rc != TRAK_SYSTRACE_LINE_NO_MATCH && rc != TRAK_SYSTRACE_LINE_BAD_TS) {
      abort();
    }
    check_marker(line, len);
    if (!nl) break;
    start = end + 1;
  }
  return 0;
}
