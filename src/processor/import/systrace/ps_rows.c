/*
** This file holds the PROCESS DUMP rows of a Catapult HTML trace (ps output): the long form
** ("user pid ppid vsz rss wchan pc s name cmdline...") gives a process, its parent and its
** name; the short form ("user pid tid cmdline...") a thread of a process, named by its command
** line. As Perfetto, they apply when read, so before every event line.
*/
#include <string.h>

#include "processor/import/systrace/systrace_import.h"

/* Splits at runs of spaces; fills at most `max` fields, returns how many there are. */
static size_t fields_split(const char *s, size_t len, trak_strv *out, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < len;) {
    while (i < len && s[i] == ' ')
      i++;
    if (i == len) break;
    size_t start = i;
    while (i < len && s[i] != ' ')
      i++;
    if (n < max) out[n] = (trak_strv){s + start, i - start};
    n++;
  }
  return n;
}

void trak__systrace_ps_row(trak_systrace_import *s, trak_systrace_line_kind kind, const char *line,
                           size_t len) {
  trak_importer *imp = s->imp;
  trak_tables *t = imp->tables;
  trak_strv f[10];
  fields_split(line, len, f, 10);
  uint32_t a, b;
  if (kind == TRAK_SYSTRACE_PS_ROW_LONG) {
    if (trak__systrace_u32(f[1], &a) || trak__systrace_u32(f[2], &b)) {
      trak__systrace_failure(s, s->line_no,
                             "a PROCESS DUMP row whose pid or ppid is not a "
                             "number");
      return;
    }
    uint32_t parent = trak__process_for_pid(imp, b);
    uint32_t upid = trak__process_for_pid(imp, a);
    if (t->process.parent_upid[upid] == TRAK_NULL_U32) t->process.parent_upid[upid] = parent;
    trak__process_name_set(imp, upid, trak__strpool_intern(&t->strings, f[8].s, f[8].len),
                           TRAK_PROCESS_NAME_SYSTEM);
    return;
  }
  if (trak__systrace_u32(f[1], &a) || trak__systrace_u32(f[2], &b)) {
    trak__systrace_failure(s, s->line_no, "a PROCESS DUMP row whose pid or tid is not a number");
    return;
  }
  /* The command line is the rest of the row from the fourth field, spaces included. */
  size_t from = (size_t)(f[3].s - line);
  uint32_t utid = trak__thread_for_tid(imp, b, a);
  trak__thread_name_set(imp, utid, trak__strpool_intern(&t->strings, line + from, len - from),
                        TRAK_THREAD_NAME_OTHER);
}
