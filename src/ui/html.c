/*
** This file holds the viewer's files as the binary embeds them (lookup) and `trak html`'s
** self-contained report: index.html with its stylesheet and scripts inlined and the trace's
** data (tracks, slices and counters summarised when large, flows, details of the longest
** slices) as one JSON value the page reads instead of asking a server.
*/
#define _GNU_SOURCE /* memmem */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui.h"

const trak_ui_asset *trak__ui_asset_find(const char *name) {
  for (size_t i = 0; i < trak__ui_asset_count; i++)
    if (!strcmp(trak__ui_assets[i].name, name)) return &trak__ui_assets[i];
  return NULL;
}

/* Runs a one-integer query. Returns the value, or -1 after setting *rc on error. */
static int64_t count_of(trak_processor *p, const char *sql, int *rc, trak_error *err) {
  trak_query *q;
  int64_t v = -1;
  if (*rc) return v;
  *rc = trak_query_open(p, sql, &q, NULL, err);
  if (*rc) return v;
  int step = trak_query_next(q, err);
  if (step == 1) v = trak_query_int(q, 0);
  if (step < 0) *rc = step;
  trak_query_free(q);
  return v;
}

/* The first column of `sql`'s rows as a malloc'ed array of *n integers. Nothing is done, and
** NULL returned, when *rc is already an error; on failure *rc is set. */
static int64_t *ids_of(trak_processor *p, const char *sql, size_t *n, int *rc, trak_error *err) {
  *n = 0;
  if (*rc) return NULL;
  trak_query *q;
  *rc = trak_query_open(p, sql, &q, NULL, err);
  if (*rc) return NULL;
  size_t cap = 64;
  int64_t *v = malloc(cap * sizeof *v);
  int step;
  while (v && (step = trak_query_next(q, err)) == 1) {
    if (*n == cap) {
      int64_t *w = realloc(v, (cap *= 2) * sizeof *v);
      if (!w) free(v);
      v = w;
      if (!v) break;
    }
    v[(*n)++] = trak_query_int(q, 0);
  }
  trak_query_free(q);
  if (!v)
    *rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
  else if (step < 0)
    *rc = step, free(v), v = NULL;
  return v;
}

/* The resolution that keeps at most `cap` entries: `rows` lines (track and depth) of `span` ns
** each hold one entry per column. 1 (every value kept) when `count` fits. */
static int64_t resolution(int64_t count, int64_t rows, double span, size_t cap) {
  if (count <= (int64_t)cap || rows <= 0) return 1;
  double px = span * (double)rows / (double)cap + 1;
  return px >= 9e18 ? INT64_MAX : px > 1 ? (int64_t)px : 1;
}

static const char *format_ns(int64_t ns, char *buf, size_t n) {
  if (ns >= 1000000)
    snprintf(buf, n, "%.3g ms", ns / 1e6);
  else if (ns >= 1000)
    snprintf(buf, n, "%.3g us", ns / 1e3);
  else
    snprintf(buf, n, "%" PRId64 " ns", ns);
  return buf;
}

/* Appends {"title",...,"details":{...}}: everything the page shows, from one pass of queries. */
static int data_json(trak_processor *p, const trak_ui_html_options *o, trak_ui_buf *out,
                     const char **summary, trak_error *err) {
  static char message[256];
  size_t max_slices = o && o->max_slices ? o->max_slices : 200000;
  size_t max_details = o && o->max_details ? o->max_details : 2000;
  int rc = 0;
  int64_t n_values = count_of(p, "SELECT count(*) FROM counter", &rc, err);
  int64_t counter_rows = count_of(p, "SELECT count(DISTINCT track_id) FROM counter", &rc, err);
  size_t n_slice_tracks = 0, n_counter_tracks;
  int64_t *slice_tracks = NULL;
  int64_t n_slices = 0, slice_rows = 0;
  int64_t *counter_tracks =
      ids_of(p, "SELECT DISTINCT track_id FROM counter ORDER BY 1", &n_counter_tracks, &rc, err);
  int64_t *detail_ids = NULL;
  trak_ui_cache *cache = NULL;
  if (!rc) rc = trak__ui_cache_new(p, &cache, err);
  /* The tracks with lines (slices, CPUs, thread states), their rows and entries. */
  if (!rc && !(slice_tracks = malloc((cache->n_tracks + 1) * sizeof *slice_tracks)))
    rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
  for (size_t i = 0; !rc && i < cache->n_tracks; i++) {
    const trak_ui_track *t = &cache->tracks[i];
    if (t->n_lines) slice_tracks[n_slice_tracks++] = t->id;
    slice_rows += (int64_t)t->n_lines;
    n_slices += t->count - (int64_t)t->n_values;
  }
  /* The Scheduler group's counters are the cache's, not the counter table's. */
  for (int k = 0; !rc && k < TRAK_UI_SCHED_COUNTS + TRAK_UI_CPU_TYPES; k++) {
    const trak_ui_track *t = trak__ui_cache_track(
        cache, k < TRAK_UI_SCHED_COUNTS ? cache->sched_count[k]
                                        : cache->cpu_type_count[k - TRAK_UI_SCHED_COUNTS]);
    if (!t) continue;
    int64_t *more = realloc(counter_tracks, (n_counter_tracks + 1) * sizeof *counter_tracks);
    if (!more) {
      rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
      break;
    }
    counter_tracks = more;
    counter_tracks[n_counter_tracks++] = t->id;
    n_values += (int64_t)t->n_values, counter_rows++;
  }
  if (rc) goto done;
  int64_t start = cache->start, end = cache->end;
  trak_ui_range r = {start, end,
                     resolution(n_slices, slice_rows, (double)end - (double)start, max_slices)};
  trak_ui_range rc_range = {
      start, end, resolution(n_values, counter_rows, (double)end - (double)start, max_slices)};
  *summary = NULL;
  if (r.px > 1 || rc_range.px > 1) {
    char a[32];
    snprintf(message, sizeof message,
             "%" PRId64 " slices and %" PRId64 " counter values summarised to one per %s per "
             "track row (cap %zu); `trak ui` shows every one",
             n_slices, n_values, format_ns(r.px > rc_range.px ? r.px : rc_range.px, a, sizeof a),
             max_slices);
    *summary = message;
  }
  trak__ui_puts(out, "{\"title\":");
  trak__ui_json_str(out, o && o->title ? o->title : "trace");
  trak__ui_puts(out, ",\"summary\":");
  trak__ui_json_str(out, *summary);
  trak__ui_printf(out, ",\"px\":%" PRId64 ",\"counter_px\":%" PRId64 ",\"tracks\":", r.px,
                  rc_range.px);
  rc = trak__ui_tracks(p, cache, out, err);
  trak__ui_puts(out, ",\"slices\":");
  if (!rc) rc = trak__ui_slices(cache, slice_tracks, n_slice_tracks, &r, out, err);
  trak__ui_puts(out, ",\"counters\":");
  if (!rc) rc = trak__ui_counters(cache, counter_tracks, n_counter_tracks, &rc_range, out, err);
  trak__ui_puts(out, ",\"queries\":{\"thread_state\":");
  trak__ui_json_str(out, trak__ui_row_sql("thread_state"));
  trak__ui_puts(out, ",\"sched\":");
  trak__ui_json_str(out, trak__ui_row_sql("sched"));
  trak__ui_puts(out, "},\"alerts\":");
  if (!rc) rc = trak__ui_alerts(p, out, err);
  /* The minimap's density at a fixed resolution, which the page sums to its width. */
  trak_ui_range dr = {start, end, (int64_t)(((uint64_t)end - (uint64_t)start) / 2048) + 1};
  trak__ui_printf(out, ",\"density\":{\"start\":%" PRId64 ",\"px\":%" PRId64 ",\"counts\":", start,
                  dr.px);
  if (!rc) rc = trak__ui_density(cache, &dr, out, err);
  trak__ui_puts(out, "}");
  trak__ui_puts(out, ",\"flows\":");
  if (!rc) rc = trak__ui_flows(cache, start, end, 100000, out, err);

  /* Details of the longest slices: ids first (one query at a time), then each answer. */
  trak__ui_puts(out, ",\"details\":{");
  char sql[96];
  snprintf(sql, sizeof sql, "SELECT id FROM slice ORDER BY dur DESC, id LIMIT %zu", max_details);
  size_t n_details;
  detail_ids = ids_of(p, sql, &n_details, &rc, err);
  for (size_t i = 0; i < n_details && !rc; i++) {
    trak__ui_printf(out, "%s\"%" PRId64 "\":", i ? "," : "", detail_ids[i]);
    rc = trak__ui_slice_details(p, detail_ids[i], out, err);
  }
  trak__ui_puts(out, "}}");
done:
  trak__ui_cache_free(cache);
  free(detail_ids);
  free(slice_tracks);
  free(counter_tracks);
  if (!rc && out->oom) rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
  return rc;
}

/* The file name inside `line` after `attr` (e.g. `src="`), up to the closing quote, in `name`. */
static int attr_value(const char *line, size_t len, const char *attr, char *name, size_t n) {
  const char *a = memmem(line, len, attr, strlen(attr));
  if (!a) return 0;
  a += strlen(attr);
  const char *q = memchr(a, '"', (size_t)(line + len - a));
  if (!q || (size_t)(q - a) >= n) return 0;
  memcpy(name, a, (size_t)(q - a));
  name[q - a] = 0;
  return 1;
}

int trak__ui_html(trak_processor *p, const trak_ui_html_options *o, trak_ui_buf *out,
                  const char **summary, trak_error *err) {
  const char *dummy;
  if (!summary) summary = &dummy;
  *summary = NULL;
  const trak_ui_asset *index = trak__ui_asset_find("index.html");
  if (!index) return trak_error_set(err, TRAK_ENOTFOUND, "the viewer's index.html is not built in");
  const char *text = (const char *)index->data, *stop = text + index->len;
  const char *sql_note = NULL;
  int rc = 0;
  /* index.html names its stylesheet and scripts one per line; each is inlined where named. */
  while (text < stop && !rc) {
    const char *nl = memchr(text, '\n', (size_t)(stop - text));
    size_t len = nl ? (size_t)(nl - text) + 1 : (size_t)(stop - text);
    char name[64];
    const trak_ui_asset *a = NULL;
    int is_script = memmem(text, len, "<script src=", 12) != NULL;
    int is_style = memmem(text, len, "<link rel=\"stylesheet\"", 22) != NULL;
    if ((is_script && attr_value(text, len, "src=\"", name, sizeof name)) ||
        (is_style && attr_value(text, len, "href=\"", name, sizeof name)))
      a = trak__ui_asset_find(name);
    if (a && is_script && !strcmp(name, "viewer.js")) {
      /* The data comes before the code that reads it. */
      size_t max_sql = o && o->no_sql ? 0 : o && o->max_sql_bytes ? o->max_sql_bytes : 32u << 20;
      rc = trak__ui_html_sql(p, max_sql, out, &sql_note, err);
      trak__ui_puts(out, "<script>window.TRAK_DATA = ");
      if (!rc) rc = data_json(p, o, out, summary, err);
      trak__ui_puts(out, ";</script>\n");
    }
    if (a) {
      trak__ui_puts(out, is_script ? "<script>\n" : "<style>\n");
      trak__ui_put(out, (const char *)a->data, a->len);
      trak__ui_puts(out, is_script ? "</script>\n" : "</style>\n");
    } else {
      trak__ui_put(out, text, len);
    }
    text += len;
  }
  if (!rc && out->oom) rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
  if (sql_note && *summary) {
    static char both[512];
    snprintf(both, sizeof both, "%s; %s", *summary, sql_note);
    *summary = both;
  } else if (sql_note) {
    *summary = sql_note;
  }
  return rc;
}
