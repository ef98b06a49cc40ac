/*
** This file holds the C core of sched.time_in_state: __trak_thread_state_time(utid, state,
** time_in_state), a row per thread and state of thread_state with the sum of the rows' dur,
** what `SELECT utid, state, sum(dur) FROM thread_state GROUP BY utid, state` answers, in that
** GROUP BY's order (utid, then state: NULL first, text by bytes). SQLite sorted every row for
** that GROUP BY (3.4 s of CPU at 1.48 M rows); here one pass over the columns sums into a hash
** of (utid, state) and only the groups are sorted. Computed at each scan (the tables may grow).
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

typedef struct st_cursor {
  sqlite3_vtab_cursor base;
  st_group *g;
  size_t n, pos;
} st_cursor;

typedef struct st_vtab {
  sqlite3_vtab base;
  trak_processor *p;
} st_vtab;

static int st_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                      char **err) {
  (void)argc, (void)argv, (void)err;
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(utid INTEGER, state TEXT, "
                                    "time_in_state INTEGER)");
  if (rc != SQLITE_OK) return rc;
  st_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->p = aux;
  *out = &v->base;
  return SQLITE_OK;
}

static int st_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

/* Rows come ordered by (utid, state): an ORDER BY on a prefix of that needs no sort. */
static int st_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  (void)vt;
  int ordered = info->nOrderBy > 0 && info->nOrderBy <= 2;
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

static int st_filter(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                     sqlite3_value **argv) {
  (void)idx, (void)plan, (void)argc, (void)argv;
  st_cursor *c = (st_cursor *)cur;
  free(c->g);
  c->g = NULL, c->n = c->pos = 0;
  const char *err = NULL;
  int rc = st_build(c, &((st_vtab *)cur->pVtab)->p->tables, &err);
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

int trak__psql_thread_state_time_register(trak_processor *p) {
  return sqlite3_create_module(p->db, "__trak_thread_state_time", &st_module, p);
}
