/*
** This file holds the C halves of two slices.* modules, walks over the slice table that SQL
** would do with recursion or correlated subqueries (seconds on millions of slices):
** - __trak_slice_flat_pieces (slices.flat_slices): each slice cut into the pieces its timed
**   children (dur > 0) do not cover, as (slice_id, ts, dur, depth, name, root_id, track_id),
**   ordered by slice_id then ts. A slice's pieces are [ts, first child's ts) and, after each
**   child, [child's end, next child's ts or the slice's end); empty or negative ones are left
**   out, and a slice with dur -1 gives only the pieces between its children. As Perfetto's
**   (which flattens each root's tree with _intervals_flatten!), a root's first and last pieces
**   are given even when empty, and the trees of roots without a positive dur give nothing.
** - __trak_slice_stack_ids (slices.stack): (id, stack_hash) for every slice, Perfetto's stack id:
**   hash() of the text "F(s)|F(root)|...|F(parent)", F(x) being the decimal hash() of
**   "category|name" (category '' when NULL).
** Both are eponymous table functions without arguments, streamed in slice id order.
*/
#define _GNU_SOURCE /* qsort_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"

typedef enum walk_kind { WALK_FLAT, WALK_STACK } walk_kind;

/* What a table function was registered with (owned by SQLite, freed with the module). */
typedef struct walk_aux {
  trak_processor *p;
  walk_kind kind;
} walk_aux;

typedef struct walk_vtab {
  sqlite3_vtab base;
  trak_processor *p;
  walk_kind kind;
} walk_vtab;

typedef struct walk_cursor {
  sqlite3_vtab_cursor base;
  const trak_tables *t;
  walk_kind kind;
  uint32_t s; /* the current slice */
  /* WALK_FLAT: children with dur > 0 of slice x are kids[first[x]..first[x + 1]), by ts. */
  uint32_t *first, *kids, *root;
  long piece; /* -1: the piece before the first child; k: the piece after child k */
  int64_t ts, end;
  /* WALK_STACK: each slice's frame hash, and the current slice's stack hash. */
  int64_t *frame, hash;
  uint32_t *chain; /* ancestors of the current slice, scratch */
} walk_cursor;

static int walk_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err) {
  const walk_aux *a = aux;
  walk_kind kind = a->kind;
  int rc = sqlite3_declare_vtab(
      db, kind == WALK_FLAT ? "CREATE TABLE x(slice_id INTEGER, ts INTEGER, dur INTEGER, "
                              "depth INTEGER, name TEXT, root_id INTEGER, track_id INTEGER)"
                            : "CREATE TABLE x(id INTEGER, stack_hash INTEGER)");
  if (rc != SQLITE_OK) return rc;
  walk_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->kind = kind;
  v->p = a->p;
  *out = &v->base;
  return SQLITE_OK;
}

static int walk_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

/* Rows come in slice id order (then ts): an ORDER BY on that needs no sort. */
static int walk_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  int ordered = info->nOrderBy > 0;
  for (int i = 0; i < info->nOrderBy; i++)
    if (info->aOrderBy[i].desc || info->aOrderBy[i].iColumn != i) ordered = 0;
  if (((walk_vtab *)vt)->kind == WALK_STACK && info->nOrderBy > 1) ordered = 0;
  info->orderByConsumed = ordered;
  info->estimatedCost = 1e6;
  return SQLITE_OK;
}

static int walk_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  walk_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *out = &c->base;
  return SQLITE_OK;
}

static void walk_reset(walk_cursor *c) {
  free(c->first);
  free(c->kids);
  free(c->root);
  free(c->frame);
  free(c->chain);
  c->first = c->kids = c->root = c->chain = NULL;
  c->frame = NULL;
}

static int walk_close(sqlite3_vtab_cursor *cur) {
  walk_reset((walk_cursor *)cur);
  free(cur);
  return SQLITE_OK;
}

/* ---- flat pieces ---------------------------------------------------------------------------- */

int trak__rows_by_ts_cmp(const void *a, const void *b, void *ctx) {
  const int64_t *ts = ctx;
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  if (ts[x] != ts[y]) return ts[x] < ts[y] ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* The root of each slice, and its timed children grouped by parent and sorted by ts. */
static int flat_prepare(walk_cursor *c) {
  const trak_tables *t = c->t;
  size_t n = t->slice.n;
  c->first = calloc(n + 2, sizeof *c->first);
  c->root = malloc((n ? n : 1) * sizeof *c->root);
  c->kids = malloc((n ? n : 1) * sizeof *c->kids);
  if (!c->first || !c->root || !c->kids) return SQLITE_NOMEM;
  for (size_t i = 0; i < n; i++) {
    uint32_t par = t->slice.parent_id[i];
    if (par != TRAK_NULL_U32 && par < n && t->slice.dur[i] > 0) c->first[par + 2]++;
    /* Parents come before their children; otherwise walk up. */
    if (par == TRAK_NULL_U32 || par >= n) {
      c->root[i] = (uint32_t)i;
    } else if (par < i) {
      c->root[i] = c->root[par];
    } else {
      uint32_t r = par;
      for (size_t steps = 0; t->slice.parent_id[r] < n && steps < n; steps++)
        r = t->slice.parent_id[r];
      c->root[i] = r;
    }
  }
  for (size_t i = 0; i < n; i++)
    c->first[i + 2] += c->first[i + 1];
  for (size_t i = 0; i < n; i++) {
    uint32_t par = t->slice.parent_id[i];
    if (par != TRAK_NULL_U32 && par < n && t->slice.dur[i] > 0)
      c->kids[c->first[par + 1]++] = (uint32_t)i;
  }
  /* first[x + 1] is now the end of x's children, first[x] their start. */
  for (size_t i = 0; i < n; i++) {
    uint32_t a = c->first[i], b = c->first[i + 1];
    if (b - a > 1) qsort_r(c->kids + a, b - a, sizeof *c->kids, trak__rows_by_ts_cmp, t->slice.ts);
  }
  return SQLITE_OK;
}

/* Sets c->ts/end to the current piece (slice c->s, piece c->piece); returns whether it is one
** to give (non-empty and within a real slice). */
static int flat_piece(walk_cursor *c) {
  const trak_tables *t = c->t;
  uint32_t s = c->s, a = c->first[s], b = c->first[s + 1];
  int64_t ts = t->slice.ts[s], dur = t->slice.dur[s];
  if (t->slice.dur[c->root[s]] <= 0) return 0;
  int edge; /* the piece is a root's first or last */
  if (c->piece < 0) {
    c->ts = ts;
    c->end = a < b ? t->slice.ts[c->kids[a]] : ts + dur;
    edge = 1;
  } else {
    uint32_t k = c->kids[a + (uint32_t)c->piece];
    c->ts = t->slice.ts[k] + t->slice.dur[k];
    edge = a + (uint32_t)c->piece + 1 == b;
    c->end = edge ? ts + dur : t->slice.ts[c->kids[a + (uint32_t)c->piece + 1]];
  }
  if (edge && a < b && c->root[s] == s) return c->end >= c->ts;
  return c->end > c->ts;
}

/* Moves to the next piece to give, from the one after the current position. */
static void flat_advance(walk_cursor *c) {
  const trak_tables *t = c->t;
  for (;;) {
    c->piece++;
    if (c->piece >= (long)(c->first[c->s + 1] - c->first[c->s])) {
      c->s++;
      c->piece = -1;
    }
    if (c->s >= t->slice.n || flat_piece(c)) return;
  }
}

/* ---- stack ids ------------------------------------------------------------------------------ */

static int stack_prepare(walk_cursor *c) {
  const trak_tables *t = c->t;
  size_t n = t->slice.n;
  c->frame = malloc((n ? n : 1) * sizeof *c->frame);
  c->chain = malloc((n ? n : 1) * sizeof *c->chain);
  if (!c->frame || !c->chain) return SQLITE_NOMEM;
  for (size_t i = 0; i < n; i++) {
    const char *cat = trak__str(&t->strings, t->slice.category[i]);
    const char *name = trak__str(&t->strings, t->slice.name[i]);
    uint64_t h = TRAK_PSQL_FNV1A_BASIS;
    if (cat) h = trak__psql_fnv1a(h, cat, t->strings.len.v[t->slice.category[i]]);
    h = trak__psql_fnv1a(h, "|", 1);
    if (name) h = trak__psql_fnv1a(h, name, t->strings.len.v[t->slice.name[i]]);
    c->frame[i] = (int64_t)h;
  }
  return SQLITE_OK;
}

/* The stack id of slice c->s into c->hash. */
static void stack_hash(walk_cursor *c) {
  const trak_tables *t = c->t;
  size_t n = t->slice.n, depth = 0;
  for (uint32_t a = t->slice.parent_id[c->s]; a < n && depth < n; a = t->slice.parent_id[a])
    c->chain[depth++] = a;
  char num[24];
  uint64_t h =
      trak__psql_fnv1a(TRAK_PSQL_FNV1A_BASIS, num,
                       (size_t)snprintf(num, sizeof num, "%lld", (long long)c->frame[c->s]));
  while (depth--) {
    h = trak__psql_fnv1a(h, "|", 1);
    h = trak__psql_fnv1a(
        h, num, (size_t)snprintf(num, sizeof num, "%lld", (long long)c->frame[c->chain[depth]]));
  }
  c->hash = (int64_t)h;
}

/* ---- the cursor ----------------------------------------------------------------------------- */

static int walk_filter(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                       sqlite3_value **argv) {
  walk_cursor *c = (walk_cursor *)cur;
  walk_vtab *v = (walk_vtab *)cur->pVtab;
  walk_reset(c);
  c->t = &v->p->tables;
  c->kind = v->kind;
  c->s = 0;
  int rc = c->kind == WALK_FLAT ? flat_prepare(c) : stack_prepare(c);
  if (rc != SQLITE_OK) return rc;
  if (c->kind == WALK_STACK) {
    if (c->t->slice.n) stack_hash(c);
  } else {
    c->piece = -1;
    if (c->t->slice.n && !flat_piece(c)) flat_advance(c);
  }
  return SQLITE_OK;
}

static int walk_next(sqlite3_vtab_cursor *cur) {
  walk_cursor *c = (walk_cursor *)cur;
  if (c->kind == WALK_FLAT) {
    flat_advance(c);
  } else if (++c->s < c->t->slice.n) {
    stack_hash(c);
  }
  return SQLITE_OK;
}

static int walk_eof(sqlite3_vtab_cursor *cur) {
  walk_cursor *c = (walk_cursor *)cur;
  return c->s >= c->t->slice.n;
}

static int walk_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  walk_cursor *c = (walk_cursor *)cur;
  const trak_tables *t = c->t;
  uint32_t s = c->s;
  if (c->kind == WALK_STACK) {
    sqlite3_result_int64(ctx, col == 0 ? (int64_t)s : c->hash);
    return SQLITE_OK;
  }
  switch (col) {
  case 0:
    sqlite3_result_int64(ctx, s);
    break;
  case 1:
    sqlite3_result_int64(ctx, c->ts);
    break;
  case 2:
    sqlite3_result_int64(ctx, c->end - c->ts);
    break;
  case 3:
    sqlite3_result_int64(ctx, t->slice.depth[s]);
    break;
  case 4: {
    uint32_t id = t->slice.name[s];
    if (id)
      sqlite3_result_text(ctx, trak__str(&t->strings, id), (int)t->strings.len.v[id],
                          SQLITE_STATIC); /* the pool's blocks never move */
    break;
  }
  case 5:
    sqlite3_result_int64(ctx, c->root[s]);
    break;
  default:
    sqlite3_result_int64(ctx, t->slice.track_id[s]);
    break;
  }
  return SQLITE_OK;
}

static int walk_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  walk_cursor *c = (walk_cursor *)cur;
  *rowid = ((int64_t)c->s << 32) + c->piece + 1;
  return SQLITE_OK;
}

static const sqlite3_module walk_module = {
    .iVersion = 1,
    .xConnect = walk_connect,
    .xBestIndex = walk_best_index,
    .xDisconnect = walk_disconnect,
    .xDestroy = walk_disconnect,
    .xOpen = walk_open,
    .xClose = walk_close,
    .xFilter = walk_filter,
    .xNext = walk_next,
    .xEof = walk_eof,
    .xColumn = walk_column,
    .xRowid = walk_rowid,
};

int trak__psql_slice_walks_register(trak_processor *p) {
  static const char *const names[] = {"__trak_slice_flat_pieces", "__trak_slice_stack_ids"};
  int rc = SQLITE_OK;
  for (int k = 0; rc == SQLITE_OK && k < 2; k++) {
    walk_aux *a = malloc(sizeof *a);
    if (!a) return SQLITE_NOMEM;
    *a = (walk_aux){p, k ? WALK_STACK : WALK_FLAT};
    rc = sqlite3_create_module_v2(p->db, names[k], &walk_module, a, free);
  }
  return rc;
}
