/*
** This file holds the table-valued function __intrinsic_top_per_group: the first n rows of each
** group of a columnar table in an order of up to three integer columns, read from the columns.
** sql/perfetto_sql/window_top.c rewrites `row_number() OVER (PARTITION BY p ORDER BY ..., id)`
** filtered to `rn <= n` into it: SQLite's window functions copy every row into a temporary
** B-tree (7,000 instructions a row); here a row costs one comparison with its group's n-th.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/tables/vtab.h"
#include "processor/tables/vtab_tvf.h"

#define TOP_KEYS 3    /* the most ORDER BY columns */
#define TOP_MAX 10000 /* the largest n */

/* A candidate row: its order keys, already flipped so that ascending is the order wanted. */
typedef struct top_row {
  int64_t k[TOP_KEYS];    /* per key: the value (negated for DESC, as ~v to keep INT64_MIN) */
  uint8_t null[TOP_KEYS]; /* per key: 0 first, 1 after (NULL ascending 0, descending 1) */
  uint32_t row;
} top_row;

/* One group: its key and its best rows so far, sorted, at most n. */
typedef struct top_group {
  int64_t key; /* first: trak__vt_key_slot reads the groups' keys at the start of each */
  int is_null;
  top_row *rows;
  uint32_t n, cap;
} top_group;

typedef struct top_vtab {
  sqlite3_vtab base;
  const trak_tables *t;
} top_vtab;

typedef struct top_cursor {
  sqlite3_vtab_cursor base;
  const trak_tables *t;
  top_group *groups; /* sorted by key (NULL first) once built */
  size_t ngroups, gcap;
  size_t g, i; /* the output position: group g, its row i */
} top_cursor;

static int top_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                       sqlite3_vtab **out, char **err) {
  (void)argc, (void)argv, (void)err;
  return trak__tvf_connect(db,
                           "CREATE TABLE x(__top_id, __top_rn, tbl HIDDEN, part HIDDEN, "
                           "ord HIDDEN, n HIDDEN, filter HIDDEN)",
                           sizeof(top_vtab), offsetof(top_vtab, t), aux, out);
}

/* The arguments (columns 2 to 6) are given as equalities, the first four required. */
static int top_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  (void)vt;
  static const trak_tvf_args args = {.first = 2, .n = 5, .required = 15, .cost = 1};
  return trak__tvf_best_index(info, &args);
}

static void top_reset(top_cursor *c) {
  for (size_t i = 0; i < c->ngroups; i++)
    free(c->groups[i].rows);
  free(c->groups);
  c->groups = NULL;
  c->ngroups = c->gcap = c->g = c->i = 0;
}

static int top_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  top_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  c->t = ((top_vtab *)vt)->t;
  *out = &c->base;
  return SQLITE_OK;
}

static int top_close(sqlite3_vtab_cursor *cur) {
  top_reset((top_cursor *)cur);
  free(cur);
  return SQLITE_OK;
}

/* The order of candidate rows: by their keys, then by row. */
static int row_cmp(const top_row *a, const top_row *b, int nkeys) {
  for (int i = 0; i < nkeys; i++) {
    if (a->null[i] != b->null[i]) return a->null[i] < b->null[i] ? -1 : 1;
    if (a->k[i] != b->k[i]) return a->k[i] < b->k[i] ? -1 : 1;
  }
  return a->row < b->row ? -1 : a->row > b->row;
}

/* Adds row `r` to group `g` when it is among its first n. Returns 0, or -1 out of memory. */
static int group_offer(top_group *g, const top_row *r, int nkeys, uint32_t n) {
  if (g->n == n && row_cmp(r, &g->rows[n - 1], nkeys) >= 0) return 0;
  if (g->n == g->cap) {
    uint32_t cap = g->cap ? g->cap * 2 : 4;
    if (cap > n) cap = n;
    top_row *v = realloc(g->rows, cap * sizeof *v);
    if (!v) return -1;
    g->rows = v, g->cap = cap;
  }
  uint32_t i = g->n < n ? g->n++ : n - 1; /* the last one drops out when full */
  while (i > 0 && row_cmp(r, &g->rows[i - 1], nkeys) < 0) {
    g->rows[i] = g->rows[i - 1];
    i--;
  }
  g->rows[i] = *r;
  return 0;
}

/* A new group of key `k`; its index + 1 in *slot. Returns 0, or -1 out of memory. */
static int group_add(top_cursor *c, uint32_t *slot, int64_t k, int is_null) {
  if (c->ngroups == c->gcap) {
    size_t cap = c->gcap ? c->gcap * 2 : 16;
    top_group *v = realloc(c->groups, cap * sizeof *v);
    if (!v) return -1;
    c->groups = v, c->gcap = cap;
  }
  c->groups[c->ngroups] = (top_group){.key = k, .is_null = is_null};
  *slot = (uint32_t)++c->ngroups;
  return 0;
}

static int group_cmp(const void *x, const void *y) {
  const top_group *a = x, *b = y;
  if (a->is_null || b->is_null) return b->is_null - a->is_null;
  return (a->key > b->key) - (a->key < b->key);
}

/* The build's inputs: the group column, the order's columns and directions, the rows' filter. */
typedef struct top_spec {
  const vt_col *part, *keys[TOP_KEYS], *fcol;
  const void *pa, *ka[TOP_KEYS], *fa;
  int desc[TOP_KEYS], nkeys;
  int64_t flo;
  uint32_t n;
} top_spec;

/* Groups every row of `tbl` (those the filter keeps) and keeps each group's first n. Returns
** an SQLite code. */
static int top_build(top_cursor *c, const vt_table *tbl, const top_spec *s) {
  const trak_tables *t = c->t;
  size_t slots = 64;
  uint32_t *map = calloc(slots, sizeof *map), null_group = 0;
  int rc = map ? SQLITE_OK : SQLITE_NOMEM;
  for (uint32_t row = 0, rows = (uint32_t)trak__vt_rows(t, tbl); !rc && row < rows; row++) {
    int64_t k = 0;
    int nonnull;
    if (s->fcol == s->part) { /* thread_slice's `__utid >= 0` grouped by __utid: read once */
      nonnull = trak__vt_int(t, s->part, s->pa, row, &k);
      if (s->fcol && (!nonnull || k < s->flo)) continue;
    } else {
      if (s->fcol && (!trak__vt_int(t, s->fcol, s->fa, row, &k) || k < s->flo)) continue;
      nonnull = trak__vt_int(t, s->part, s->pa, row, &k);
    }
    if (nonnull && (c->ngroups + 1) * 2 > slots) { /* rehash into twice the slots */
      uint32_t *m = calloc(slots * 2, sizeof *m);
      if (!m) {
        rc = SQLITE_NOMEM;
        break;
      }
      free(map);
      map = m, slots *= 2;
      for (uint32_t i = 0; i < c->ngroups; i++)
        if (!c->groups[i].is_null)
          *trak__vt_key_slot(map, slots, c->groups[i].key, c->groups, sizeof *c->groups) = i + 1;
    }
    uint32_t *g =
        nonnull ? trak__vt_key_slot(map, slots, k, c->groups, sizeof *c->groups) : &null_group;
    if (!*g && group_add(c, g, k, !nonnull)) {
      rc = SQLITE_NOMEM;
      break;
    }
    top_row r = {.row = row};
    const top_group *grp = &c->groups[*g - 1];
    if (grp->n == s->n) { /* full: a row after the n-th by its first key alone stays out */
      int64_t v = 0;
      int is_null = !trak__vt_int(t, s->keys[0], s->ka[0], row, &v);
      uint8_t nl = (uint8_t)(is_null ? s->desc[0] : !s->desc[0]);
      int64_t k0 = is_null ? 0 : s->desc[0] ? ~v : v;
      const top_row *last = &grp->rows[s->n - 1];
      if (nl > last->null[0] || (nl == last->null[0] && k0 > last->k[0])) continue;
    }
    for (int i = 0; i < s->nkeys; i++) {
      int64_t v = 0;
      int is_null = !trak__vt_int(t, s->keys[i], s->ka[i], row, &v);
      r.null[i] = (uint8_t)(is_null ? s->desc[i] : !s->desc[i]);
      r.k[i] = is_null ? 0 : s->desc[i] ? ~v : v;
    }
    if (group_offer(&c->groups[*g - 1], &r, s->nkeys, s->n)) rc = SQLITE_NOMEM;
  }
  free(map);
  if (!rc) qsort(c->groups, c->ngroups, sizeof *c->groups, group_cmp);
  return rc;
}

/* Parses the order "column [DESC|ASC],..." of `tbl` into s. Returns 0 or -1. */
static int order_parse(const trak_tables *t, const vt_table *tbl, const char *ord, top_spec *s) {
  for (s->nkeys = 0; ord && *ord; s->nkeys++) {
    const char *end = strchr(ord, ',');
    size_t len = end ? (size_t)(end - ord) : strlen(ord);
    char name[64];
    if (s->nkeys == TOP_KEYS || len >= sizeof name) return -1;
    memcpy(name, ord, len);
    name[len] = 0;
    char *sp = strchr(name, ' ');
    s->desc[s->nkeys] = sp && !sqlite3_stricmp(sp + 1, "DESC");
    if (sp && !s->desc[s->nkeys] && sqlite3_stricmp(sp + 1, "ASC")) return -1;
    if (sp) *sp = 0;
    const vt_col *col = trak__vt_col_named(tbl, name);
    if (!col || col->kind > VT_BOOLN || col->kind == VT_F64 || col->kind == VT_STR) return -1;
    s->keys[s->nkeys] = col;
    s->ka[s->nkeys] = col->off ? trak__vt_array(t, col) : NULL;
    ord = end ? end + 1 : ord + len;
  }
  return s->nkeys ? 0 : -1;
}

/* argv: the table's name, the group column's, the order, n, maybe the rows' filter. */
static int top_filter(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                      sqlite3_value **argv) {
  (void)idx, (void)plan;
  top_cursor *c = (top_cursor *)cur;
  top_reset(c);
  top_spec s = {0};
  const vt_table *tbl =
      argc >= 4 ? trak__vt_table_named((const char *)sqlite3_value_text(argv[0])) : NULL;
  s.part = tbl ? trak__vt_col_named(tbl, (const char *)sqlite3_value_text(argv[1])) : NULL;
  sqlite3_int64 n = argc >= 4 ? sqlite3_value_int64(argv[3]) : 0;
  int bad = !s.part || s.part->kind > VT_BOOLN || s.part->kind == VT_F64 ||
            s.part->kind == VT_STR || sqlite3_value_type(argv[3]) != SQLITE_INTEGER || n < 1 ||
            n > TOP_MAX || order_parse(c->t, tbl, (const char *)sqlite3_value_text(argv[2]), &s) ||
            trak__vt_filter_parse(tbl, argc == 5 ? (const char *)sqlite3_value_text(argv[4]) : NULL,
                                  &s.fcol, &s.flo);
  if (bad) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf("__intrinsic_top_per_group: no such columnar table, "
                                          "column, order or count");
    return SQLITE_ERROR;
  }
  s.n = (uint32_t)n;
  s.pa = s.part->off ? trak__vt_array(c->t, s.part) : NULL;
  s.fa = s.fcol && s.fcol->off ? trak__vt_array(c->t, s.fcol) : NULL;
  return top_build(c, tbl, &s);
}

static int top_next(sqlite3_vtab_cursor *cur) {
  top_cursor *c = (top_cursor *)cur;
  if (++c->i >= c->groups[c->g].n) c->g++, c->i = 0;
  return SQLITE_OK;
}

static int top_eof(sqlite3_vtab_cursor *cur) {
  const top_cursor *c = (const top_cursor *)cur;
  return c->g >= c->ngroups;
}

static int top_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  const top_cursor *c = (const top_cursor *)cur;
  if (col == 0)
    sqlite3_result_int64(ctx, c->groups[c->g].rows[c->i].row);
  else if (col == 1)
    sqlite3_result_int64(ctx, (sqlite3_int64)c->i + 1);
  else
    sqlite3_result_null(ctx);
  return SQLITE_OK;
}

static int top_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  const top_cursor *c = (const top_cursor *)cur;
  *rowid = c->g < c->ngroups ? c->groups[c->g].rows[c->i].row : 0;
  return SQLITE_OK;
}

static const sqlite3_module top_module = {
    .iVersion = 1,
    .xCreate = NULL, /* eponymous-only */
    .xConnect = top_connect,
    .xBestIndex = top_best_index,
    .xDisconnect = trak__tvf_disconnect,
    .xDestroy = trak__tvf_disconnect,
    .xOpen = top_open,
    .xClose = top_close,
    .xFilter = top_filter,
    .xNext = top_next,
    .xEof = top_eof,
    .xColumn = top_column,
    .xRowid = top_rowid,
};

int trak__vt_top_register(sqlite3 *db, const trak_tables *t) {
  return sqlite3_create_module(db, "__intrinsic_top_per_group", &top_module, (void *)t);
}
