/*
** This file holds the C cores of sched modules, each one pass over thread_state's columns (the
** importer's table, as slices.time_in_state's core reads it):
** - __trak_thread_state_time(utid, state, time_in_state), sched.time_in_state's: a row per
**   thread and state with the sum of the rows' dur, what `SELECT utid, state, sum(dur) FROM
**   thread_state GROUP BY utid, state` answers, in that GROUP BY's order (utid, then state: NULL
**   first, text by bytes). SQLite sorted every row for it (3.4 s of CPU at 1.48 M rows); here the
**   rows sum into a hash of (utid, state) and only the groups are sorted.
** - __trak_previous_runnable(id, prev_runnable_id, prev_wakeup_runnable_id), sched.runnable's:
**   per Running row with dur != -1, in id order, the latest row up to it of its thread whose
**   state GLOBs 'R*' (not Running) with dur != -1, and the latest such row or Running row that
**   was woken (waker_utid not NULL, irq_context not 1); NULL when none. SQLite sorted the R*
**   rows by thread for its window (2.4 s at 1 M events); here each thread's latest two are kept.
** Both are computed at each scan (the tables may grow).
*/
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"
#include "processor/tables/thread_state_cols.h"

/* One group: its thread, state (string id, 0: NULL) and summed dur. */
typedef struct st_group {
  uint32_t utid, state;
  int64_t dur;
} st_group;

/* One row of __trak_previous_runnable (TRAK_NULL_U32: NULL). */
typedef struct pr_row {
  uint32_t id, prev, prev_woken;
} pr_row;

typedef enum scan_kind { SCAN_TIME, SCAN_RUNNABLE } scan_kind;

typedef struct st_cursor {
  sqlite3_vtab_cursor base;
  st_group *g;  /* SCAN_TIME's rows */
  pr_row *rows; /* SCAN_RUNNABLE's */
  size_t n, pos;
} st_cursor;

typedef struct st_vtab {
  sqlite3_vtab base;
  trak_processor *p;
  scan_kind kind;
} st_vtab;

/* The module's client data: the processor and which table. */
typedef struct st_aux {
  trak_processor *p;
  scan_kind kind;
} st_aux;

static int st_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                      char **err) {
  (void)argc, (void)argv, (void)err;
  const st_aux *a = aux;
  int rc = sqlite3_declare_vtab(db, a->kind == SCAN_TIME
                                        ? "CREATE TABLE x(utid INTEGER, state TEXT, "
                                          "time_in_state INTEGER)"
                                        : "CREATE TABLE x(id INTEGER, prev_runnable_id INTEGER, "
                                          "prev_wakeup_runnable_id INTEGER)");
  if (rc != SQLITE_OK) return rc;
  st_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->p = a->p;
  v->kind = a->kind;
  *out = &v->base;
  return SQLITE_OK;
}

static int st_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

/* Rows come ordered by (utid, state), or by id: an ORDER BY on a prefix of that needs no sort. */
static int st_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  int nkeys = ((st_vtab *)vt)->kind == SCAN_TIME ? 2 : 1;
  int ordered = info->nOrderBy > 0 && info->nOrderBy <= nkeys;
  for (int i = 0; ordered && i < info->nOrderBy; i++)
    if (info->aOrderBy[i].desc || info->aOrderBy[i].iColumn != i) ordered = 0;
  info->orderByConsumed = ordered;
  info->estimatedCost = 1e5;
  info->estimatedRows = 10000;
  return SQLITE_OK;
}

static int st_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  (void)vt;
  st_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *out = &c->base;
  return SQLITE_OK;
}

static int st_close(sqlite3_vtab_cursor *cur) {
  free(((st_cursor *)cur)->g);
  free(((st_cursor *)cur)->rows);
  free(cur);
  return SQLITE_OK;
}

static size_t st_hash(uint32_t utid, uint32_t state) {
  uint64_t h = ((uint64_t)utid << 32 | state) * 0x9e3779b97f4a7c15ull;
  return (size_t)(h ^ h >> 31);
}

/* Comparison of groups in GROUP BY order: utid, then state (NULL first, bytes, shorter first). */
static int st_cmp(const void *a, const void *b, void *pool) {
  const st_group *x = a, *y = b;
  const trak_strpool *st_pool = pool;
  if (x->utid != y->utid) return x->utid < y->utid ? -1 : 1;
  if (x->state == y->state) return 0;
  if (!x->state || !y->state) return x->state ? 1 : -1;
  size_t lx = st_pool->len.v[x->state], ly = st_pool->len.v[y->state];
  int c = memcmp(trak__str(st_pool, x->state), trak__str(st_pool, y->state), lx < ly ? lx : ly);
  return c ? c : lx < ly ? -1 : lx > ly;
}

/* Fills c->g with the groups of `t`'s thread_state in order. Returns SQLITE_OK, SQLITE_NOMEM or
** SQLITE_ERROR with *err set ("integer overflow", as SQLite's sum()). */
static int st_build(st_cursor *c, const trak_tables *t, const char **err) {
  size_t nslots = 64, n = 0, cap = 16;
  uint32_t *slots = calloc(nslots, sizeof *slots); /* group + 1 */
  st_group *g = malloc(cap * sizeof *g);
  /* the slot of the last (utid, one-byte state code) pair, by code: rows of a thread repeat */
  uint32_t last_utid[TRAK_DICT8_WIDE + 1], last_group[TRAK_DICT8_WIDE + 1];
  memset(last_group, 0, sizeof last_group);
  if (!slots || !g) return free(slots), free(g), SQLITE_NOMEM;
  for (uint32_t r = 0; r < t->thread_state.n; r++) {
    uint32_t utid = t->thread_state.utid[r];
    uint8_t code = t->thread_state.state8[r];
    int64_t dur = trak__ts_dur(t, r);
    uint32_t k;
    if (code != TRAK_DICT8_WIDE && last_group[code] && last_utid[code] == utid) {
      k = last_group[code] - 1;
    } else {
      uint32_t state = trak__ts_state(t, r);
      if (2 * (n + 1) > nslots) { /* grow and rehash */
        size_t m = nslots * 2;
        uint32_t *s = calloc(m, sizeof *s);
        if (!s) return free(slots), free(g), SQLITE_NOMEM;
        for (size_t j = 0; j < n; j++) {
          size_t i = st_hash(g[j].utid, g[j].state) & (m - 1);
          while (s[i])
            i = (i + 1) & (m - 1);
          s[i] = (uint32_t)j + 1;
        }
        free(slots);
        slots = s, nslots = m;
      }
      size_t i = st_hash(utid, state) & (nslots - 1);
      while (slots[i] && (g[slots[i] - 1].utid != utid || g[slots[i] - 1].state != state))
        i = (i + 1) & (nslots - 1);
      if (!slots[i]) {
        if (n == cap) {
          st_group *v = realloc(g, cap * 2 * sizeof *v);
          if (!v) return free(slots), free(g), SQLITE_NOMEM;
          g = v, cap *= 2;
        }
        g[n] = (st_group){utid, state, 0};
        slots[i] = (uint32_t)++n;
      }
      k = slots[i] - 1;
      if (code != TRAK_DICT8_WIDE) last_utid[code] = utid, last_group[code] = k + 1;
    }
    if (__builtin_add_overflow(g[k].dur, dur, &g[k].dur)) {
      *err = "integer overflow";
      return free(slots), free(g), SQLITE_ERROR;
    }
  }
  free(slots);
  qsort_r(g, n, sizeof *g, st_cmp, (void *)&t->strings);
  c->g = g, c->n = n, c->pos = 0;
  return SQLITE_OK;
}

/* 2 when string `id` is "Running", 1 when it otherwise starts with 'R' (GLOB 'R*'), else 0. */
static int runnable_class(const trak_strpool *sp, uint32_t id) {
  if (!id || !sp->len.v[id] || trak__str(sp, id)[0] != 'R') return 0;
  return sp->len.v[id] == 7 && !memcmp(trak__str(sp, id), "Running", 7) ? 2 : 1;
}

/* Fills c->rows with sched.runnable's rows of `t`'s thread_state. Returns SQLITE_OK or
** SQLITE_NOMEM. */
static int pr_build(st_cursor *c, const trak_tables *t) {
  size_t nthreads = t->thread.n + 1, cap = 1024;
  uint32_t *last = malloc(2 * nthreads * sizeof *last); /* per utid: R*, woken */
  c->rows = malloc(cap * sizeof *c->rows);
  if (!last || !c->rows) return free(last), SQLITE_NOMEM;
  memset(last, 0xff, 2 * nthreads * sizeof *last); /* TRAK_NULL_U32 */
  uint8_t cls[TRAK_DICT8_WIDE]; /* per one-byte state code: runnable_class + 1, 0 unknown */
  memset(cls, 0, sizeof cls);
  for (uint32_t r = 0; r < t->thread_state.n; r++) {
    uint8_t code = t->thread_state.state8[r];
    int k;
    if (code == TRAK_DICT8_WIDE) {
      k = runnable_class(&t->strings, trak__ts_state(t, r));
    } else {
      if (!cls[code]) cls[code] = (uint8_t)(runnable_class(&t->strings, trak__ts_state(t, r)) + 1);
      k = cls[code] - 1;
    }
    if (!k || trak__ts_dur(t, r) == -1) continue;
    uint32_t u = t->thread_state.utid[r];
    if (u >= nthreads) { /* not a thread the table knows: grow the per-thread state */
      size_t m = (size_t)u + 1;
      uint32_t *v = realloc(last, 2 * m * sizeof *v);
      if (!v) return free(last), SQLITE_NOMEM;
      memset(v + 2 * nthreads, 0xff, 2 * (m - nthreads) * sizeof *v);
      last = v, nthreads = m;
    }
    if (k == 1) last[2 * u] = r;
    if (trak__ts_waker_utid(t, r) != TRAK_NULL_U32 && trak__ts_irq_context(t, r) != 1)
      last[2 * u + 1] = r;
    if (k != 2) continue;
    if (c->n == cap) {
      pr_row *v = realloc(c->rows, cap * 2 * sizeof *v);
      if (!v) return free(last), SQLITE_NOMEM;
      c->rows = v, cap *= 2;
    }
    c->rows[c->n++] = (pr_row){r, last[2 * u], last[2 * u + 1]};
  }
  free(last);
  return SQLITE_OK;
}

static int st_filter(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                     sqlite3_value **argv) {
  (void)idx, (void)plan, (void)argc, (void)argv;
  st_cursor *c = (st_cursor *)cur;
  free(c->g), free(c->rows);
  c->g = NULL, c->rows = NULL, c->n = c->pos = 0;
  const char *err = NULL;
  const st_vtab *v = (st_vtab *)cur->pVtab;
  int rc = v->kind == SCAN_TIME ? st_build(c, &v->p->tables, &err) : pr_build(c, &v->p->tables);
  if (err) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf("%s", err);
  }
  return rc;
}

static int st_next(sqlite3_vtab_cursor *cur) {
  ((st_cursor *)cur)->pos++;
  return SQLITE_OK;
}

static int st_eof(sqlite3_vtab_cursor *cur) {
  return ((st_cursor *)cur)->pos >= ((st_cursor *)cur)->n;
}

static int st_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  st_cursor *c = (st_cursor *)cur;
  if (c->rows) {
    const pr_row *row = &c->rows[c->pos];
    uint32_t v = col == 0 ? row->id : col == 1 ? row->prev : row->prev_woken;
    if (v != TRAK_NULL_U32) sqlite3_result_int64(ctx, v);
    return SQLITE_OK;
  }
  const st_group *g = &c->g[c->pos];
  const trak_strpool *sp = &((st_vtab *)cur->pVtab)->p->tables.strings;
  if (col == 0)
    sqlite3_result_int64(ctx, g->utid);
  else if (col == 2)
    sqlite3_result_int64(ctx, g->dur);
  else if (g->state) /* the pool's blocks never move: no copy */
    sqlite3_result_text(ctx, trak__str(sp, g->state), (int)sp->len.v[g->state], SQLITE_STATIC);
  return SQLITE_OK;
}

static int st_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((st_cursor *)cur)->pos;
  return SQLITE_OK;
}

static const sqlite3_module st_module = {
    .iVersion = 1,
    .xConnect = st_connect,
    .xBestIndex = st_best_index,
    .xDisconnect = st_disconnect,
    .xDestroy = st_disconnect,
    .xOpen = st_open,
    .xClose = st_close,
    .xFilter = st_filter,
    .xNext = st_next,
    .xEof = st_eof,
    .xColumn = st_column,
    .xRowid = st_rowid,
};

int trak__psql_thread_state_scans_register(trak_processor *p) {
  static const char *const names[] = {"__trak_thread_state_time", "__trak_previous_runnable"};
  int rc = SQLITE_OK;
  for (int k = 0; rc == SQLITE_OK && k < 2; k++) {
    st_aux *a = malloc(sizeof *a);
    if (!a) return SQLITE_NOMEM;
    *a = (st_aux){p, k ? SCAN_RUNNABLE : SCAN_TIME};
    rc = sqlite3_create_module_v2(p->db, names[k], &st_module, a, free);
  }
  return rc;
}
