/*
** libFuzzer target for the systrace text import (src/processor/import/systrace/ and the Linux
** event sink it feeds): the input's first byte picks a layout that makes the rest a systrace
** trace whatever its bytes (plain with a "# tracer" header, inside an HTML trace-data section,
** (whose first line says what it holds: "# TASK-PID" events or "PROCESS DUMP"),
** after adb's "TRACE:" banner, after trace-cmd's "cpus=N" line, or as a JSON trace's
** systemTraceEvents string), the whole is fed to a processor in two chunks (split where the
** second byte says, so lines cut across reads are exercised), the import is finished and every
** table the text fills is queried. Nothing may crash, leak or read out of bounds.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trak/processor.h"

static void run(trak_processor *p, const char *sql) {
  trak_query *q;
  if (trak_query_open(p, sql, &q, NULL, NULL) || !q) return;
  while (trak_query_next(q, NULL) > 0) {
  }
  trak_query_free(q);
}

/* Appends [s, s + n) to out at *len; for JSON (`json`), as the inside of a string. */
static void put(char *out, size_t *len, const char *s, size_t n, int json) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (json && (c == '"' || c == '\\')) {
      out[(*len)++] = '\\';
      out[(*len)++] = (char)c;
    } else if (json && c < 0x20) {
      static const char hex[] = "0123456789abcdef";
      memcpy(out + *len, "\\u00", 4);
      out[*len + 4] = hex[c >> 4];
      out[*len + 5] = hex[c & 15];
      *len += 6;
    } else {
      out[(*len)++] = (char)c;
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const heads[] = {
      "# tracer: nop\n",
      "<!DOCTYPE html>\n<script class=\"trace-data\" type=\"application/text\">\n",
      "adb banner\nTRACE:\n", "cpus=4\n", "{\"systemTraceEvents\":\""};
  static const char *const tails[] = {"", "\n</script>\n", "", "", "\"}"};
  if (size < 2) return 0;
  unsigned form = data[0] % 5, json = form == 4;
  const char *body = (const char *)data + 2;
  size_t body_len = size - 2;
  size_t cap = strlen(heads[form]) + 6 * body_len + strlen(tails[form]), len = 0;
  char *text = malloc(cap ? cap : 1);
  if (!text) return 0;
  put(text, &len, heads[form], strlen(heads[form]), 0);
  put(text, &len, body, body_len, (int)json);
  put(text, &len, tails[form], strlen(tails[form]), 0);

  trak_processor *p;
  if (trak_processor_new(NULL, &p, NULL)) {
    free(text);
    return 0;
  }
  size_t split = data[1] % (len + 1);
  trak_processor_feed(p, (const uint8_t *)text, split, NULL);
  trak_processor_feed(p, (const uint8_t *)text + split, len - split, NULL);
  if (trak_processor_finish(p, NULL) == 0) {
    run(p, "SELECT * FROM sched JOIN thread USING (utid); SELECT * FROM thread_state");
    run(p, "SELECT * FROM slice JOIN track ON slice.track_id = track.id; SELECT * FROM args");
    run(p, "SELECT * FROM counter JOIN counter_track ON counter.track_id = counter_track.id");
    run(p, "SELECT * FROM thread; SELECT * FROM process; SELECT * FROM cpu; SELECT * FROM stats");
    run(p, "SELECT * FROM ftrace_event; SELECT * FROM spurious_sched_wakeup");
  }
  trak_processor_free(p);
  free(text);
  return 0;
}
