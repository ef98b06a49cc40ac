/*
** libFuzzer target for the trace importer: arbitrary bytes are fed in two chunks (split where the
** first byte says, so packet straddling is exercised), the import is finished, and queries touch
** every table and the SQL functions. Nothing may crash, leak or read out of bounds.
*/
#include <stdint.h>
#include <stdlib.h>

#include "trak/processor.h"

static void run(trak_processor *p, const char *sql) {
  trak_query *q;
  if (trak_query_open(p, sql, &q, NULL, NULL) || !q) return;
  while (trak_query_next(q, NULL) > 0) {
  }
  trak_query_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  trak_processor *p;
  if (trak_processor_new(NULL, &p, NULL)) return 0;
  size_t split = size ? data[0] % (size + 1) : 0;
  trak_processor_feed(p, data, split, NULL);
  trak_processor_feed(p, data + split, size - split, NULL);
  if (trak_processor_finish(p, NULL) == 0) {
    run(p, "SELECT * FROM slice JOIN track ON slice.track_id = track.id");
    run(p,
        "SELECT * FROM args; SELECT * FROM counter; SELECT * FROM thread; SELECT * FROM process");
    run(p, "SELECT extract_arg(arg_set_id, 'debug.x') FROM slice");
    run(p, "SELECT (SELECT COUNT(*) FROM ancestor_slice(id)) + (SELECT COUNT(*) FROM "
           "descendant_slice(id)) + (SELECT COUNT(*) FROM following_flow(id)) + "
           "(SELECT COUNT(*) FROM preceding_flow(id)) FROM slice LIMIT 50");
  }
  trak_processor_free(p);
  return 0;
}
