/*
** This file holds a JSON trace's "systemTraceEvents" member: its string is systrace text
** (tracefs' trace file format), read by import/systrace/ line by line as Perfetto reads it.
*/
#include <stdlib.h>

#include "processor/import/json/json_import.h"
#include "processor/import/systrace/systrace.h"

void trak__json_system_trace(trak_json_import *j, const trak_json_value *v) {
  if (v->kind != TRAK_JSON_STRING) {
    trak__report(j->imp, TRAK_STAT_JSON_EVENT, "systemTraceEvents is not a string; skipped it");
    return;
  }
  trak_systrace_import *s = trak__systrace_import_new(j->imp, TRAK_SYSTRACE_JSON);
  if (!v->escaped) {
    trak__systrace_import_feed(s, v->s, v->len);
  } else {
    /* Decoding grows a text by at most half (a bad "\u" of 2 bytes becomes U+FFFD's 3). */
    size_t cap = (size_t)v->len + v->len / 2 + 4;
    char *text = malloc(cap);
    if (!text) abort();
    trak__systrace_import_feed(s, text, trak__json_unescape(v, text, cap));
    free(text);
  }
  trak__systrace_import_finish(s);
  trak__systrace_import_free(s);
}
