/*
** This file holds the details answer of one slice (what the viewer's panel shows on a click):
** the slice's row with its track, thread and process, its args, its description from the
** analysis layer, its ancestors and the flows in and out of it.
*/
#include <inttypes.h>
#include <stdio.h>

#include "ui/ui.h"

int trak__ui_slice_details(trak_processor *p, int64_t id, trak_ui_buf *out, trak_error *err) {
  char sql[768];
  snprintf(sql, sizeof sql,
           "SELECT s.id, s.ts, s.dur, s.name, s.category, s.depth, s.track_id, t.name, "
           "s.parent_id, s.arg_set_id, th.tid, th.name, pr.pid, pr.name, s.thread_dur "
           "FROM slice s JOIN track t ON t.id = s.track_id "
           "LEFT JOIN thread_track tt ON tt.id = s.track_id "
           "LEFT JOIN thread th ON th.utid = tt.utid "
           "LEFT JOIN process_track pt ON pt.id = s.track_id "
           "LEFT JOIN process pr ON pr.upid = coalesce(th.upid, pt.upid) "
           "WHERE s.id = %" PRId64,
           id);
  trak_ui_buf row = {0};
  int rc = trak__ui_rows(p, sql, 1, &row, NULL, err);
  if (!rc && row.len <= 2) rc = trak_error_set(err, TRAK_ENOTFOUND, "no slice %" PRId64, id);
  if (rc) {
    trak__ui_buf_free(&row);
    return rc;
  }
  /* row is "[[...]]": the slice is its inner array, positional as the SELECT above. */
  trak__ui_puts(out, "{\"slice\":");
  trak__ui_put(out, row.s + 1, row.len - 2);
  trak__ui_buf_free(&row);

  trak__ui_puts(out, ",\"args\":");
  snprintf(sql, sizeof sql,
           "SELECT a.key, a.display_value FROM slice s JOIN args a ON a.arg_set_id = "
           "s.arg_set_id WHERE s.id = %" PRId64 " ORDER BY a.id",
           id);
  rc = trak__ui_rows(p, sql, 1000, out, NULL, err);

  const char *description = NULL, *link = NULL;
  trak_processor_describe_slice(p, id, &description, &link);
  trak__ui_puts(out, ",\"description\":");
  trak__ui_json_str(out, description);
  trak__ui_puts(out, ",\"doc_link\":");
  trak__ui_json_str(out, link);

  /* Ancestors, innermost first, by walking parent_id. */
  trak__ui_puts(out, ",\"ancestors\":");
  snprintf(sql, sizeof sql,
           "WITH RECURSIVE a(id, n) AS (SELECT parent_id, 1 FROM slice WHERE id = %" PRId64
           " UNION ALL SELECT s.parent_id, a.n + 1 FROM slice s JOIN a ON s.id = a.id "
           "WHERE a.n < 1000) SELECT s.id, s.name, s.ts, s.dur, s.depth FROM a JOIN slice s "
           "ON s.id = a.id ORDER BY a.n",
           id);
  if (!rc) rc = trak__ui_rows(p, sql, 0, out, NULL, err);

  static const char *const flow_sql[] = {
      "SELECT f.id, s.id, s.name, s.ts, s.track_id, s.depth FROM flow f JOIN slice s ON s.id = "
      "f.slice_in WHERE f.slice_out = %" PRId64 " ORDER BY s.ts",
      "SELECT f.id, s.id, s.name, s.ts, s.track_id, s.depth FROM flow f JOIN slice s ON s.id = "
      "f.slice_out WHERE f.slice_in = %" PRId64 " ORDER BY s.ts"};
  for (int dir = 0; dir < 2 && !rc; dir++) {
    trak__ui_puts(out, dir ? ",\"flows_in\":" : ",\"flows_out\":");
    snprintf(sql, sizeof sql, flow_sql[dir], id);
    rc = trak__ui_rows(p, sql, 1000, out, NULL, err);
  }
  trak__ui_put(out, "}", 1);
  return rc;
}
