/*
** This file holds the C halves of slices.time_in_state and slices.cpu_time: each thread slice's
** time per state of its thread, met straight from the columns instead of through
** _interval_intersect! and joins back to thread_slice (seconds on 100 k slices).
** - __trak_thread_slice_time_in_state: (id, name, utid, thread_name, upid, process_name, state,
**   io_wait, blocked_function, dur), a row per thread slice and (state, io_wait,
**   blocked_function) of the thread_state rows it overlaps, dur the overlap's total.
** - __trak_thread_slice_cpu_time: (id, name, utid, thread_name, upid, process_name, cpu_time),
**   a row per thread slice that overlaps its thread's sched slices, cpu_time the overlap.
** A thread slice is one with dur > 0 on a thread track whose thread exists and has utid > 0
** (slices.with_context's _thread_slice_intervals!); only intervals with dur > 0 count, and
** intervals are half-open, so what is summed is what the SQL intersection summed. Rows come in
** slice id order, a slice's rows ordered as SQLite's GROUP BY orders (state, io_wait,
** blocked_function): NULL first, text by bytes. The tables read the whole answer computed at
** their first scan (slice_thread_time_all.c) and kept while the tables do not change, so the
** modules' views cost a scan of it; `id = x` reads one slice's rows. The per-slice index below
** is describe_slice's (analysis/describe.c), through trak__thread_time_*.
*/
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"
#include "processor/sql/perfetto_sql/slice_thread_time.h"
#include "processor/tables/thread_state_cols.h"

typedef enum time_kind { TIME_IN_STATE, TIME_CPU } time_kind;

/* The module's client data, for the connection's life: the last table computed. */
typedef struct time_aux {
  trak_processor *p;
  time_kind kind;
  time_all *all;
} time_aux;

typedef struct time_vtab {
  sqlite3_vtab base;
  time_aux *aux;
} time_vtab;

/* The intervals (thread_state or sched rows with dur > 0) of each thread that has thread
** slices: rows[first[u]..first[u + 1]) are thread u's, by ts; reach[k] is the latest end of
** rows[first[u]..k], so the first interval that can reach past a time is found by bisection
** even if a thread's intervals overlap. groups: the last slice's sums. */
struct trak_thread_time {
  const trak_tables *t;
  int sched;
  uint32_t *first, *rows;
  int64_t *reach;
  trak_thread_time_group *groups;
  size_t ngroups, cap;
};

typedef struct time_cursor {
  sqlite3_vtab_cursor base;
  const trak_tables *t;
  time_kind kind;
  time_all *all;
  uint32_t s, end; /* the current slice, the end of the slices read */
  uint32_t g;      /* the current group of slice s */
} time_cursor;

static int time_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err) {
  time_aux *a = aux;
  int rc = sqlite3_declare_vtab(
      db, a->kind == TIME_IN_STATE
              ? "CREATE TABLE x(id INTEGER, name TEXT, utid INTEGER, thread_name TEXT, "
                "upid INTEGER, process_name TEXT, state TEXT, io_wait INTEGER, "
                "blocked_function TEXT, dur INTEGER)"
              : "CREATE TABLE x(id INTEGER, name TEXT, utid INTEGER, thread_name TEXT, "
                "upid INTEGER, process_name TEXT, cpu_time INTEGER)");
  if (rc != SQLITE_OK) return rc;
  time_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->aux = a;
  *out = &v->base;
  return SQLITE_OK;
}

static int time_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

/* Rows come ordered by id (then state, io_wait, blocked_function): an ORDER BY on a prefix of
** that needs no sort. `id = x` reads that slice's rows only (idxNum 1). */
static int time_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  static const int in_state[] = {0, 6, 7, 8}, cpu[] = {0};
  int kind_state = ((time_vtab *)vt)->aux->kind == TIME_IN_STATE;
  const int *order = kind_state ? in_state : cpu;
  int n = kind_state ? 4 : 1, ordered = info->nOrderBy > 0 && info->nOrderBy <= n;
  for (int i = 0; ordered && i < info->nOrderBy; i++)
    if (info->aOrderBy[i].desc || info->aOrderBy[i].iColumn != order[i]) ordered = 0;
  info->orderByConsumed = ordered;
  info->estimatedCost = 1e6;
  info->estimatedRows = 1000000;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *k = &info->aConstraint[i];
    if (k->usable && k->iColumn == 0 && k->op == SQLITE_INDEX_CONSTRAINT_EQ) {
      info->aConstraintUsage[i].argvIndex = 1;
      info->aConstraintUsage[i].omit = 1;
      info->idxNum = 1;
      info->estimatedCost = 10;
      info->estimatedRows = 4;
      break;
    }
  }
  return SQLITE_OK;
}

static int time_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  time_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *out = &c->base;
  return SQLITE_OK;
}

static int time_close(sqlite3_vtab_cursor *cur) {
  trak__thread_time_all_release(((time_cursor *)cur)->all);
  free(cur);
  return SQLITE_OK;
}

/* ---- the index of intervals ------------------------------------------------------------------ */


void trak__thread_time_free(trak_thread_time *tt) {
  if (!tt) return;
  free(tt->first);
  free(tt->rows);
  free(tt->reach);
  free(tt->groups);
  free(tt);
}

/* Fills tt's index. Returns 0 or -1 out of memory. */
static int index_build(trak_thread_time *tt) {
  const trak_tables *t = tt->t;
  time_source src = source_of(t, tt->sched);
  size_t nthreads = t->thread.n;
  tt->first = calloc(nthreads + 2, sizeof *tt->first);
  /* The threads with thread slices; first[u + 2] counts thread u's intervals. */
  uint8_t *wanted = calloc(nthreads ? nthreads : 1, 1);
  if (!tt->first || !wanted) {
    free(wanted);
    return -1;
  }
  for (uint32_t s = 0; s < t->slice.n; s++)
    wanted[slice_utid(t, s)] = 1;
  wanted[0] = 0;
  size_t total = 0;
  for (size_t i = 0; i < src.n; i++) {
    uint32_t u = src.utid[i];
    if (src_dur(&src, i) > 0 && u < nthreads && wanted[u]) {
      tt->first[u + 2]++;
      total++;
    }
  }
  for (size_t u = 0; u < nthreads; u++)
    tt->first[u + 2] += tt->first[u + 1];
  tt->rows = malloc((total ? total : 1) * sizeof *tt->rows);
  tt->reach = malloc((total ? total : 1) * sizeof *tt->reach);
  if (!tt->rows || !tt->reach) {
    free(wanted);
    return -1;
  }
  for (size_t i = 0; i < src.n; i++) {
    uint32_t u = src.utid[i];
    if (src_dur(&src, i) > 0 && u < nthreads && wanted[u])
      tt->rows[tt->first[u + 1]++] = (uint32_t)i;
  }
  free(wanted);
  /* first[u + 1] is now the end of u's intervals, first[u] their start. Rows are in id order,
  ** which is ts order unless rows were appended after the import; sort where it is not. */
  for (size_t u = 0; u < nthreads; u++) {
    uint32_t a = tt->first[u], b = tt->first[u + 1];
    int64_t reach = INT64_MIN;
    for (uint32_t k = a; k + 1 < b; k++)
      if (src.ts[tt->rows[k]] > src.ts[tt->rows[k + 1]]) {
        qsort_r(tt->rows + a, b - a, sizeof *tt->rows, trak__rows_by_ts_cmp, (void *)src.ts);
        break;
      }
    for (uint32_t k = a; k < b; k++) {
      uint32_t r = tt->rows[k];
      int64_t end = src.ts[r] + src_dur(&src, r);
      reach = end > reach ? end : reach;
      tt->reach[k] = reach;
    }
  }
  return 0;
}

trak_thread_time *trak__thread_time_new(const trak_tables *t, int sched) {
  trak_thread_time *tt = calloc(1, sizeof *tt);
  if (!tt) return NULL;
  tt->t = t;
  tt->sched = sched;
  if (!index_build(tt)) return tt;
  trak__thread_time_free(tt);
  return NULL;
}

/* ---- one slice's groups --------------------------------------------------------------------- */

/* SQLite's order of two TEXT-or-NULL values held as string ids: NULL first, then by bytes. */
static int str_cmp(const trak_strpool *sp, uint32_t x, uint32_t y) {
  if (x == y) return 0;
  if (!x || !y) return x ? 1 : -1;
  uint32_t nx = sp->len.v[x], ny = sp->len.v[y];
  int c = memcmp(trak__str(sp, x), trak__str(sp, y), nx < ny ? nx : ny);
  if (c) return c;
  return nx < ny ? -1 : nx > ny;
}

/* The order of an integer-or-NULL value held as `null`-for-NULL: NULL first. */
static int num_cmp(uint32_t x, uint32_t y, uint32_t null) {
  if (x == y) return 0;
  if (x == null || y == null) return x == null ? -1 : 1;
  return x < y ? -1 : 1;
}

/* GROUP BY state, io_wait, blocked_function (, ucpu)'s order. */
int trak__thread_time_group_cmp(const trak_strpool *sp, const trak_thread_time_group *x,
                     const trak_thread_time_group *y) {
  int c = str_cmp(sp, x->state, y->state);
  if (!c) c = num_cmp(x->io_wait, y->io_wait, 2);
  if (!c) c = str_cmp(sp, x->blocked, y->blocked);
  return c ? c : num_cmp(x->ucpu, y->ucpu, TRAK_NULL_U32);
}

/* Adds group g's time to tt's groups, inserted in order if new. Returns 0 or -1. */
static int group_add(trak_thread_time *tt, trak_thread_time_group g) {
  const trak_strpool *sp = &tt->t->strings;
  size_t i = 0;
  int cmp = 1;
  while (i < tt->ngroups && (cmp = trak__thread_time_group_cmp(sp, &tt->groups[i], &g)) < 0)
    i++;
  if (i < tt->ngroups && cmp == 0) {
    tt->groups[i].dur += g.dur;
    return 0;
  }
  if (tt->ngroups == tt->cap) {
    size_t cap = tt->cap ? tt->cap * 2 : 8;
    trak_thread_time_group *v = realloc(tt->groups, cap * sizeof *v);
    if (!v) return -1;
    tt->groups = v;
    tt->cap = cap;
  }
  memmove(tt->groups + i + 1, tt->groups + i, (tt->ngroups - i) * sizeof *tt->groups);
  tt->groups[i] = g;
  tt->ngroups++;
  return 0;
}

int trak__thread_time_slice(trak_thread_time *tt, uint32_t s, int by_cpu,
                            const trak_thread_time_group **out, size_t *n) {
  const trak_tables *t = tt->t;
  tt->ngroups = 0;
  *out = tt->groups;
  *n = 0;
  uint32_t utid = s < t->slice.n ? slice_utid(t, s) : 0;
  if (!utid) return 0;
  time_source src = source_of(t, tt->sched);
  int64_t start = t->slice.ts[s], end = start + t->slice.dur[s];
  /* The first interval whose thread's intervals so far reach past the slice's start. */
  uint32_t lo = tt->first[utid], hi = tt->first[utid + 1];
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (tt->reach[mid] > start)
      hi = mid;
    else
      lo = mid + 1;
  }
  for (uint32_t k = lo; k < tt->first[utid + 1]; k++) {
    uint32_t r = tt->rows[k];
    int64_t a = src.ts[r], b = a + src_dur(&src, r);
    if (a >= end) break;
    if (b <= start) continue;
    trak_thread_time_group g = {0, 0, TRAK_NULL_U32, 2,
                                (b < end ? b : end) - (a > start ? a : start)};
    if (!tt->sched) {
      g.state = trak__ts_state(t, r);
      g.io_wait = trak__ts_io_wait(t, r);
      g.blocked = trak__ts_blocked_function(t, r);
      if (by_cpu) g.ucpu = trak__ts_ucpu(t, r);
    }
    if (group_add(tt, g)) return -1;
  }
  *out = tt->groups;
  *n = tt->ngroups;
  return 0;
}

/* The table of `a`'s kind for the tables as they are now: the kept one, or computed. NULL out
** of memory; the caller holds a reference. */
static time_all *all_get(time_aux *a) {
  const trak_tables *t = &a->p->tables;
  int sched = a->kind == TIME_CPU;
  time_all *all = a->all;
  if (all && (all->generation != t->generation || all->slices != t->slice.n ||
              all->intervals != source_of(t, sched).n)) {
    trak__thread_time_all_release(all);
    a->all = all = NULL;
  }
  if (!all && !(a->all = all = trak__thread_time_all_new(t, sched))) return NULL;
  all->refs++;
  return all;
}

/* ---- the cursor ----------------------------------------------------------------------------- */

/* Moves to the first slice from c->s on that has groups. */
static void slice_seek(time_cursor *c) {
  while (c->s < c->end && !c->all->cnt[c->s]) c->s++;
  c->g = 0;
}

static int time_filter(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                       sqlite3_value **argv) {
  time_cursor *c = (time_cursor *)cur;
  time_aux *a = ((time_vtab *)cur->pVtab)->aux;
  trak__thread_time_all_release(c->all);
  c->t = &a->p->tables;
  c->kind = a->kind;
  c->all = all_get(a);
  if (!c->all) return SQLITE_NOMEM;
  c->s = 0;
  c->end = (uint32_t)c->all->slices;
  if (idx == 1) {
    int type = sqlite3_value_numeric_type(argv[0]);
    double d = type == SQLITE_FLOAT ? sqlite3_value_double(argv[0]) : -1;
    int64_t id = type == SQLITE_INTEGER             ? sqlite3_value_int64(argv[0])
                 : d >= 0 && d < 4294967296.0 && d == (double)(int64_t)d ? (int64_t)d
                                                                          : -1;
    if (id >= 0 && id < (int64_t)c->end)
      c->s = (uint32_t)id, c->end = (uint32_t)id + 1;
    else
      c->s = c->end;
  }
  slice_seek(c);
  return SQLITE_OK;
}

static int time_next(sqlite3_vtab_cursor *cur) {
  time_cursor *c = (time_cursor *)cur;
  if (++c->g < c->all->cnt[c->s]) return SQLITE_OK;
  c->s++;
  slice_seek(c);
  return SQLITE_OK;
}

static int time_eof(sqlite3_vtab_cursor *cur) {
  time_cursor *c = (time_cursor *)cur;
  return c->s >= c->end;
}

/* A string column's value: NULL for id 0 (the pool's blocks never move: no copy). */
static void result_str(sqlite3_context *ctx, const trak_strpool *sp, uint32_t id) {
  if (id) sqlite3_result_text(ctx, trak__str(sp, id), (int)sp->len.v[id], SQLITE_STATIC);
}

static int time_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  time_cursor *c = (time_cursor *)cur;
  const trak_tables *t = c->t;
  size_t row = c->all->off[c->s] + c->g;
  uint32_t s = c->s;
  if (c->kind == TIME_CPU && col == 6) col = 9; /* cpu_time is the total's column */
  if (col >= 6) { /* the group's columns: no look-up of the thread (the aggregates read these) */
    const trak_thread_time_group *g = &c->all->keys[c->all->key[row]];
    if (col == 6)
      result_str(ctx, &t->strings, g->state);
    else if (col == 7) {
      if (g->io_wait != 2) sqlite3_result_int64(ctx, g->io_wait);
    } else if (col == 8)
      result_str(ctx, &t->strings, g->blocked);
    else
      sqlite3_result_int64(ctx, c->all->dur[row]);
    return SQLITE_OK;
  }
  uint32_t utid = t->track.utid[t->slice.track_id[s]];
  uint32_t upid = t->thread.upid[utid];
  switch (col) {
  case 0:
    sqlite3_result_int64(ctx, s);
    break;
  case 1:
    result_str(ctx, &t->strings, t->slice.name[s]);
    break;
  case 2:
    sqlite3_result_int64(ctx, utid);
    break;
  case 3:
    result_str(ctx, &t->strings, t->thread.name[utid]);
    break;
  case 4:
    if (upid != TRAK_NULL_U32) sqlite3_result_int64(ctx, upid);
    break;
  default:
    if (upid < t->process.n) result_str(ctx, &t->strings, t->process.name[upid]);
    break;
  }
  return SQLITE_OK;
}

static int time_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  time_cursor *c = (time_cursor *)cur;
  *rowid = (int64_t)c->all->off[c->s] + c->g;
  return SQLITE_OK;
}

static const sqlite3_module time_module = {
    .iVersion = 1,
    .xConnect = time_connect,
    .xBestIndex = time_best_index,
    .xDisconnect = time_disconnect,
    .xDestroy = time_disconnect,
    .xOpen = time_open,
    .xClose = time_close,
    .xFilter = time_filter,
    .xNext = time_next,
    .xEof = time_eof,
    .xColumn = time_column,
    .xRowid = time_rowid,
};

static void time_aux_free(void *aux) {
  trak__thread_time_all_release(((time_aux *)aux)->all);
  free(aux);
}

int trak__psql_slice_thread_time_register(trak_processor *p) {
  static const char *const names[] = {"__trak_thread_slice_time_in_state",
                                      "__trak_thread_slice_cpu_time"};
  int rc = SQLITE_OK;
  for (int k = 0; rc == SQLITE_OK && k < 2; k++) {
    time_aux *a = malloc(sizeof *a);
    if (!a) return SQLITE_NOMEM;
    *a = (time_aux){p, k ? TIME_CPU : TIME_IN_STATE, NULL};
    rc = sqlite3_create_module_v2(p->db, names[k], &time_module, a, time_aux_free);
  }
  return rc;
}
