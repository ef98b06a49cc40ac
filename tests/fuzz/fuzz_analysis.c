/*
** libFuzzer target for trace analysis over a fixed small trace: the input's first byte splits
** it into slice description rules (text, possibly malformed) and annotation rows (12 bytes
** each: kind, track, ts, dur, name, scope, alert), which a metric turns into annotation tracks.
** Describing every slice, nesting the annotations and querying the tables after rows were
** appended out of time order must not crash, leak or read out of bounds.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trak/processor.h"

static const char trace[] =
    "packet { track_descriptor { uuid: 1 thread { pid: 5 tid: 6 thread_name: \"main\" } } }\n"
    "packet { timestamp: 10 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_BEGIN "
    "track_uuid: 1 name: \"a\" categories: \"c\" } }\n"
    "packet { timestamp: 20 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_BEGIN "
    "track_uuid: 1 name: \"inflate\" } }\n"
    "packet { timestamp: 30 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_END "
    "track_uuid: 1 } }\n"
    "packet { timestamp: 40 trusted_packet_sequence_id: 1 track_event { type: TYPE_SLICE_END "
    "track_uuid: 1 } }\n";

static char dir[64];

static void run(trak_processor *p, const char *sql) {
  trak_query *q;
  if (trak_query_open(p, sql, &q, NULL, NULL) || !q) return;
  while (trak_query_next(q, NULL) > 0) {
  }
  trak_query_free(q);
}

/* The metric `fz` shows the table fz_input as its annotations. */
static void make_metric_dir(void) {
  if (dir[0]) return;
  strcpy(dir, "/tmp/trak_fuzz_analysis_XXXXXX");
  if (!mkdtemp(dir)) abort();
  char path[96];
  snprintf(path, sizeof path, "%s/fz.sql", dir);
  FILE *f = fopen(path, "w");
  if (!f) abort();
  fputs("CREATE TABLE fz_output AS SELECT count(*) AS n FROM fz_input;\n"
        "CREATE VIEW fz_annotations AS SELECT * FROM fz_input;\n",
        f);
  fclose(f);
}

/* Inserts one annotation row decoded from 12 bytes: kind, track, ts (2 bytes), dur (0 or up to
** 127), value, utid (NULL, valid or not), upid, alert type (valid or not). */
static void add_row(trak_processor *p, const uint8_t *b) {
  static const char *const alerts[] = {"NULL", "'warning'", "'error'", "'bogus'"};
  static const char *const utids[] = {"NULL", "1", "7"};
  int counter = b[0] & 1;
  char dur[16] = "NULL";
  if (!counter) snprintf(dur, sizeof dur, "%d", (b[4] & 0x80) ? 0 : b[4] & 0x7f);
  char sql[512];
  snprintf(sql, sizeof sql,
           "INSERT INTO fz_input VALUES ('%s', 'track %d', %d, %s, %s, %d, %s, %s, %s, 'm')",
           counter ? "counter" : "slice", b[1] % 4, (int)(b[2] | b[3] << 8) - 100, dur,
           counter ? "NULL" : "'n'", b[5], utids[b[6] % 3], (b[7] & 1) ? "2" : "NULL",
           alerts[b[8] % 4]);
  trak_processor_exec(p, sql, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  make_metric_dir();
  trak_processor *p;
  if (trak_processor_new(NULL, &p, NULL)) return 0;
  trak_processor_feed(p, trace, sizeof trace - 1, NULL);
  if (trak_processor_finish(p, NULL)) abort();
  size_t split = size ? data[0] % (size + 1) : 0;
  if (split) trak_processor_add_descriptions(p, (const char *)data + 1, split - 1, "fuzz", NULL);
  trak_processor_exec(p,
                      "CREATE TABLE fz_input(track_type, track_name, ts, dur, slice_name, value, "
                      "utid, upid, alert_type, alert_message)",
                      NULL);
  for (size_t i = split; i + 12 <= size; i += 12)
    add_row(p, data + i);
  const char *names[] = {"fz"};
  trak_metrics_options opts = {dir, NULL, 0};
  trak_processor_compute_metrics(p, names, 1, &opts, NULL);
  run(p, "SELECT * FROM slice s JOIN describe_slice d ON s.id = d.slice_id");
  run(p, "SELECT * FROM slice WHERE ts > 15 AND ts < 35; SELECT * FROM alert");
  run(p, "SELECT (SELECT count(*) FROM ancestor_slice(id)) + (SELECT count(*) FROM "
         "descendant_slice(id)) FROM slice");
  const char *d, *l;
  for (int64_t id = 0; id < 40; id++)
    trak_processor_describe_slice(p, id, &d, &l);
  trak_processor_free(p);
  return 0;
}
