/*
** libFuzzer target for PerfettoSQL: the input is SQL text run statement by statement through
** trak_query_open on a small trace (reading at most 100 rows of each result), so the lexer,
** the statement parser, macro expansion, function calls and module includes see arbitrary,
** truncated and malformed text. It must not crash, leak, hang or read out of bounds. Inputs
** asking for unbounded work SQLite itself would do (recursive CTEs) are skipped.
*/
#define _GNU_SOURCE /* strcasestr */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trak/processor.h"

static const char trace[] =
    "packet { track_descriptor { uuid: 1 thread { pid: 5 tid: 6 thread_name: \"main\" } } }\n"
    "packet { timestamp: 10 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_BEGIN "
    "track_uuid: 1 name: \"a\" categories: \"c\" } }\n"
    "packet { timestamp: 20 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_BEGIN "
    "track_uuid: 1 name: \"b\" } }\n"
    "packet { timestamp: 30 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_END "
    "track_uuid: 1 } }\n"
    "packet { timestamp: 40 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_END "
    "track_uuid: 1 } }\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0;
  char *sql = malloc(size + 1);
  if (!sql) return 0;
  memcpy(sql, data, size);
  sql[size] = 0;
  if (strcasestr(sql, "recursive") || strcasestr(sql, "randomblob") ||
      strcasestr(sql, "zeroblob")) {
    free(sql);
    return 0;
  }
  trak_processor *p;
  if (trak_processor_new(NULL, &p, NULL)) abort();
  trak_processor_feed(p, trace, sizeof trace - 1, NULL);
  if (trak_processor_finish(p, NULL)) abort();
  const char *rest = sql;
  for (int statements = 0; rest && *rest && statements < 32; statements++) {
    trak_query *q;
    if (trak_query_open(p, rest, &q, &rest, NULL) || !q) break;
    for (int rows = 0; rows < 100 && trak_query_next(q, NULL) > 0; rows++) {
      for (int c = 0; c < trak_query_column_count(q); c++)
        (void)trak_query_string(q, c);
    }
    trak_query_free(q);
  }
  trak_processor_free(p);
  free(sql);
  return 0;
}
