/*
** This file holds the analysis state of a processor (analysis.h), its SQL objects (the
** describe_slice function, the `alert` table, the `annotation_track` view) and the public
** description API of include/trak/processor.h.
*/
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "processor/analysis/analysis.h"
#include "processor/sql/perfetto_sql/psql.h"

trak_analysis *trak__analysis(trak_processor *p) {
  if (!p->analysis) {
    p->analysis = calloc(1, sizeof *p->analysis);
    if (!p->analysis) abort();
  }
  return p->analysis;
}

void trak__analysis_free(trak_processor *p) {
  trak_analysis *a = p->analysis;
  if (!a) return;
  trak__rules_free(a->rules);
  trak__thread_time_free(a->thread_time);
  for (size_t i = 0; i < a->n_done; i++)
    free(a->done[i]);
  free(a->done);
  free(a);
  p->analysis = NULL;
}

static const char *const analysis_sql =
    "CREATE TABLE alert(id INTEGER PRIMARY KEY, ts BIGINT, dur BIGINT, alert_type TEXT, "
    "  message TEXT, metric TEXT, track_id BIGINT, track_name TEXT, slice_id BIGINT, "
    "  source_slice_id BIGINT);"
    "CREATE VIEW annotation_track AS SELECT id, name, type, utid, upid, description AS metric "
    "  FROM __intrinsic_track "
    "  WHERE type IN ('annotation_track', 'annotation_counter_track');";

int trak__analysis_register(trak_processor *p) {
  int rc = trak__describe_register(p);
  if (rc == SQLITE_OK) rc = trak__sql_schema_exec(p, analysis_sql);
  return rc;
}

int trak_processor_add_descriptions(trak_processor *p, const char *text, size_t len,
                                    const char *source, trak_error *err) {
  return trak__rules_add(p, text, len, source ? source : "descriptions", err);
}

int trak_processor_load_descriptions(trak_processor *p, const char *path, trak_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return trak_error_set(err, TRAK_EIO, "%s: %s", path, strerror(errno));
  TRAK_VEC(char) b = {0};
  char chunk[4096];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if (b.n + got > b.cap) trak__grow((void **)&b.v, &b.cap, b.n + got, 1);
    memcpy(b.v + b.n, chunk, got);
    b.n += got;
  }
  int bad = ferror(f);
  fclose(f);
  int rc = bad ? trak_error_set(err, TRAK_EIO, "%s: read failed", path)
               : trak_processor_add_descriptions(p, b.v ? b.v : "", b.n, path, err);
  free(b.v);
  return rc;
}

int trak_processor_describe_slice(trak_processor *p, int64_t slice_id, const char **description,
                                  const char **doc_link) {
  *description = *doc_link = NULL;
  if (!p->finished || slice_id < 0 || (uint64_t)slice_id >= p->tables.slice.n) return 0;
  return trak__describe(p, (uint32_t)slice_id, description, doc_link);
}
