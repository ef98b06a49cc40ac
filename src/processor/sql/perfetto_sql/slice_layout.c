/*
** This file holds experimental_slice_layout(filter_track_ids), Perfetto's packing of the slices
** of several tracks into one set of rows for display: (id, layout_depth) for each slice of the
** tracks listed (comma-separated ids). Each root slice and its descendants form a group that
** keeps its shape; groups, deepest first and then by start, take the lowest run of rows free
** over the group's time span; a slice's layout_depth is its group's first row plus its depth.
*/
#define _GNU_SOURCE /* qsort_r */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"
#include "processor/tables/vtab_tvf.h"

typedef struct span {
  int64_t start, end;
} span;

/* The time spans taken in one layout row, sorted and disjoint. */
typedef struct layout_row {
  span *v;
  size_t n, cap;
} layout_row;

typedef struct group {
  int64_t start, end;
  uint32_t max_depth, row;
} group;

/* Whether [start, end) overlaps nothing in the row. */
static int row_free(const layout_row *r, int64_t start, int64_t end) {
  if (!r->n || start >= r->v[r->n - 1].end) return 1;
  size_t lo = 0, hi = r->n; /* the first span starting at or after start */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (r->v[mid].start < start)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < r->n && r->v[lo].start < end) return 0;
  if (lo > 0 && r->v[lo - 1].end > start) return 0;
  return 1;
}

static int row_mark(layout_row *r, int64_t start, int64_t end) {
  if (r->n == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 8;
    span *v = realloc(r->v, cap * sizeof *v);
    if (!v) return -1;
    r->v = v;
    r->cap = cap;
  }
  size_t at = r->n;
  while (at > 0 && r->v[at - 1].start > start)
    at--;
  memmove(r->v + at + 1, r->v + at, (r->n - at) * sizeof *r->v);
  r->v[at] = (span){start, end};
  r->n++;
  return 0;
}

static int cmp_groups(const void *a, const void *b, void *ctx) {
  const group *g = ctx;
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  if (g[x].max_depth != g[y].max_depth) return g[x].max_depth > g[y].max_depth ? -1 : 1;
  if (g[x].start != g[y].start) return g[x].start < g[y].start ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* Computes (id, layout_depth) for the slices of `tracks` (ntracks ids) into ids/depths
** (malloc'ed). Returns the number of rows, or -1 out of memory. */
static long layout(const trak_tables *t, const int64_t *tracks, size_t ntracks, uint32_t **ids_out,
                   uint32_t **depths_out) {
  uint32_t *ids = NULL, *slice_group = NULL, *order = NULL, *group_of = NULL;
  group *groups = NULL;
  layout_row *rows = NULL;
  size_t n = 0, ngroups = 0, nrows = 0;
  long result = -1;
  ids = malloc((t->slice.n ? t->slice.n : 1) * sizeof *ids);
  group_of = malloc((t->slice.n ? t->slice.n : 1) * sizeof *group_of);
  if (!ids || !group_of) goto done;
  for (size_t i = 0; i < t->slice.n; i++) {
    for (size_t k = 0; k < ntracks; k++)
      if ((int64_t)t->slice.track_id[i] == tracks[k]) {
        ids[n++] = (uint32_t)i;
        break;
      }
  }
  slice_group = malloc((n ? n : 1) * sizeof *slice_group);
  groups = malloc((n ? n : 1) * sizeof *groups);
  if (!slice_group || !groups) goto done;
  for (size_t i = 0; i < n; i++) {
    uint32_t s = ids[i], parent = t->slice.parent_id[s], depth = t->slice.depth[s];
    int64_t start = t->slice.ts[s], dur = t->slice.dur[s];
    int64_t end = dur == -1 ? INT64_MAX : start + dur;
    uint32_t gi;
    if (parent != TRAK_NULL_U32 && group_of[parent] < ngroups) {
      gi = group_of[parent];
      if (depth > groups[gi].max_depth) groups[gi].max_depth = depth;
      if (end > groups[gi].end) groups[gi].end = end;
    } else {
      gi = (uint32_t)ngroups++;
      groups[gi] = (group){start, end, depth, 0};
    }
    group_of[s] = gi;
    slice_group[i] = gi;
  }
  order = malloc((ngroups ? ngroups : 1) * sizeof *order);
  if (!order) goto done;
  for (size_t i = 0; i < ngroups; i++)
    order[i] = (uint32_t)i;
  qsort_r(order, ngroups, sizeof *order, cmp_groups, groups);
  for (size_t o = 0; o < ngroups; o++) {
    group *g = &groups[order[o]];
    uint32_t first = 0, run = 0;
    for (uint32_t r = 0;; r++) {
      if (r >= nrows || row_free(&rows[r], g->start, g->end)) {
        if (!run) first = r;
        if (++run == g->max_depth + 1) break;
      } else {
        run = 0;
      }
    }
    g->row = first;
    size_t top = (size_t)first + g->max_depth;
    if (top >= nrows) {
      layout_row *v = realloc(rows, (top + 1) * sizeof *v);
      if (!v) goto done;
      memset(v + nrows, 0, (top + 1 - nrows) * sizeof *v);
      rows = v;
      nrows = top + 1;
    }
    for (size_t r = first; r <= top; r++)
      if (row_mark(&rows[r], g->start, g->end)) goto done;
  }
  *depths_out = malloc((n ? n : 1) * sizeof **depths_out);
  if (!*depths_out) goto done;
  for (size_t i = 0; i < n; i++)
    (*depths_out)[i] = t->slice.depth[ids[i]] + groups[slice_group[i]].row;
  *ids_out = ids;
  ids = NULL;
  result = (long)n;
done:
  for (size_t r = 0; r < nrows; r++)
    free(rows[r].v);
  free(rows);
  free(ids);
  free(group_of);
  free(slice_group);
  free(groups);
  free(order);
  return result;
}

/* ---- the table function --------------------------------------------------------------------- */

typedef struct sl_vtab {
  sqlite3_vtab base;
  trak_processor *p;
} sl_vtab;

typedef struct sl_cursor {
  sqlite3_vtab_cursor base;
  uint32_t *ids, *depths;
  long n, i;
  sqlite3_value *filter;
} sl_cursor;

static int sl_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                      char **err) {
  (void)argc, (void)argv, (void)err;
  return trak__tvf_connect(db,
                           "CREATE TABLE x(id INTEGER, layout_depth INTEGER, "
                           "filter_track_ids HIDDEN)",
                           sizeof(sl_vtab), offsetof(sl_vtab, p), aux, out);
}

/* The track list (column 2) is required. */
static int sl_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  (void)vt;
  static const trak_tvf_args args = {.first = 2, .n = 1, .required = 1, .cost = 1000};
  return trak__tvf_best_index(info, &args);
}

static int sl_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  sl_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *out = &c->base;
  return SQLITE_OK;
}

static void sl_reset(sl_cursor *c) {
  free(c->ids);
  free(c->depths);
  sqlite3_value_free(c->filter);
  c->ids = c->depths = NULL;
  c->filter = NULL;
  c->n = c->i = 0;
}

static int sl_close(sqlite3_vtab_cursor *cur) {
  sl_reset((sl_cursor *)cur);
  free(cur);
  return SQLITE_OK;
}

static int sl_filter(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                     sqlite3_value **argv) {
  sl_cursor *c = (sl_cursor *)cur;
  sl_vtab *v = (sl_vtab *)cur->pVtab;
  sl_reset(c);
  if (argc < 1 || sqlite3_value_type(argv[0]) != SQLITE_TEXT) {
    sqlite3_free(v->base.zErrMsg);
    v->base.zErrMsg = sqlite3_mprintf("experimental_slice_layout: invalid input track id list");
    return SQLITE_ERROR;
  }
  c->filter = sqlite3_value_dup(argv[0]);
  const char *s = (const char *)sqlite3_value_text(argv[0]);
  size_t cap = 1;
  for (const char *q = s; *q; q++)
    cap += *q == ',';
  int64_t *tracks = malloc(cap * sizeof *tracks);
  if (!tracks) return SQLITE_NOMEM;
  size_t ntracks = 0;
  for (const char *q = s; *q;) { /* ids that do not parse are skipped, as Perfetto does */
    char *end;
    long long id = strtoll(q, &end, 10);
    if (end != q && (*end == ',' || !*end) && id >= 0) tracks[ntracks++] = id;
    q = strchr(q, ',');
    if (!q) break;
    q++;
  }
  c->n = layout(&v->p->tables, tracks, ntracks, &c->ids, &c->depths);
  free(tracks);
  if (c->n < 0) {
    c->n = 0;
    return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

static int sl_next(sqlite3_vtab_cursor *cur) {
  ((sl_cursor *)cur)->i++;
  return SQLITE_OK;
}

static int sl_eof(sqlite3_vtab_cursor *cur) {
  sl_cursor *c = (sl_cursor *)cur;
  return c->i >= c->n;
}

static int sl_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  sl_cursor *c = (sl_cursor *)cur;
  if (col == 0)
    sqlite3_result_int64(ctx, c->ids[c->i]);
  else if (col == 1)
    sqlite3_result_int64(ctx, c->depths[c->i]);
  else if (c->filter)
    sqlite3_result_value(ctx, c->filter);
  return SQLITE_OK;
}

static int sl_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = ((sl_cursor *)cur)->i;
  return SQLITE_OK;
}

static const sqlite3_module sl_module = {
    .iVersion = 1,
    .xConnect = sl_connect,
    .xBestIndex = sl_best_index,
    .xDisconnect = trak__tvf_disconnect,
    .xDestroy = trak__tvf_disconnect,
    .xOpen = sl_open,
    .xClose = sl_close,
    .xFilter = sl_filter,
    .xNext = sl_next,
    .xEof = sl_eof,
    .xColumn = sl_column,
    .xRowid = sl_rowid,
};

int trak__psql_slice_layout_register(trak_processor *p) {
  return sqlite3_create_module(p->db, "experimental_slice_layout", &sl_module, p);
}
