/*
** This file holds the SQL functions Perfetto users lean on: extract_arg(arg_set_id, key),
** to_ftrace(id) (an ftrace_event row as tracefs text, export/ftrace_text.h) and
** the table-valued functions ancestor_slice, descendant_slice (rows of `slice`) and
** directly_connected_flow, following_flow, preceding_flow (rows of `flow`). Each table-valued
** function computes a list of row ids and serves the base table's columns for them.
*/
#include <stdio.h>
#include <string.h>

#include "processor/export/ftrace_text.h"
#include "processor/processor_internal.h"
#include "processor/tables/vtab.h"
#include "processor/tables/vtab_tvf.h"

/* ---- to_ftrace ------------------------------------------------------------------------- */

static void to_ftrace(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  trak_processor *p = sqlite3_user_data(ctx);
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) {
    sqlite3_result_error(ctx, "Usage: to_ftrace(id)", -1);
    return;
  }
  sqlite3_int64 id = sqlite3_value_int64(argv[0]);
  trak_textbuf b = {0};
  trak_ftrace_text x;
  trak__ftrace_text_init(&x, &p->tables, &b, 0);
  /* Perfetto's to_ftrace reads no kernel version (v58.2: its SystemInfoTracker instance never
  ** sees the trace's utsname), so prev_state bits and gfp_flags take the 4.4 layout */
  x.major = x.minor = 0;
  if (id < 0 || id > UINT32_MAX || trak__ftrace_line_write(&x, (uint32_t)id) < 0) {
    char msg[80];
    snprintf(msg, sizeof msg, "to_ftrace: Cannot serialize row id %u", (uint32_t)id);
    sqlite3_result_error(ctx, msg, -1);
  } else {
    sqlite3_result_text(ctx, b.s, (int)b.len, SQLITE_TRANSIENT);
  }
  trak__textbuf_free(&b);
}

/* ---- lazily built indexes -------------------------------------------------------------- */

void trak__ensure_children(trak_processor *p) {
  if (p->have_children) return;
  trak_tables *t = &p->tables;
  trak__csr_build(&p->children, t->slice.n, t->slice.n, t->slice.parent_id, NULL);
  p->have_children = 1;
}

void trak__ensure_flow_index(trak_processor *p) {
  if (p->have_flow_index) return;
  trak_tables *t = &p->tables;
  trak__csr_build(&p->flows_out, t->slice.n, t->flow.n, t->flow.slice_out, NULL);
  trak__csr_build(&p->flows_in, t->slice.n, t->flow.n, t->flow.slice_in, NULL);
  p->have_flow_index = 1;
}

/* ---- extract_arg ----------------------------------------------------------------------- */

static void extract_arg(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  trak_processor *p = sqlite3_user_data(ctx);
  const trak_tables *t = &p->tables;
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER || sqlite3_value_type(argv[1]) != SQLITE_TEXT)
    return; /* NULL */
  trak_arg_val v;
  trak__arg_value(t, sqlite3_value_int64(argv[0]),
                  trak__strpool_find(&t->strings, (const char *)sqlite3_value_text(argv[1]),
                                     (size_t)sqlite3_value_bytes(argv[1])),
                  &v);
  if (v.type == SQLITE_TEXT)
    sqlite3_result_text(ctx, v.s, -1, SQLITE_STATIC);
  else if (v.type == SQLITE_FLOAT)
    sqlite3_result_double(ctx, v.d);
  else if (v.type == SQLITE_INTEGER)
    sqlite3_result_int64(ctx, v.i);
}

/* ---- id lists -------------------------------------------------------------------------- */

typedef TRAK_VEC(uint32_t) id_list;

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static void ancestors(trak_processor *p, uint32_t slice, id_list *out) {
  const trak_tables *t = &p->tables;
  for (uint32_t s = t->slice.parent_id[slice]; s != TRAK_NULL_U32 && out->n < t->slice.n;
       s = t->slice.parent_id[s])
    trak_vec_push(*out, s);
  for (size_t i = 0; i < out->n / 2; i++) { /* root first */
    uint32_t tmp = out->v[i];
    out->v[i] = out->v[out->n - 1 - i];
    out->v[out->n - 1 - i] = tmp;
  }
}

typedef uint32_t u32x4 __attribute__((vector_size(16)));

/* Whether some row s of [s0, s1) has a parent at or after it (parent_id + 1 > s: NULL, all bits
** set, wraps to 0), four rows compared at once. */
static int parent_follows(const uint32_t *parent, uint32_t s0, uint32_t s1) {
  const u32x4 one = {1, 1, 1, 1}, four = {4, 4, 4, 4};
  u32x4 idx = {s0, s0 + 1, s0 + 2, s0 + 3}, bad = {0, 0, 0, 0};
  uint32_t s = s0;
  for (; s1 - s >= 4; s += 4, idx += four) {
    u32x4 p;
    memcpy(&p, parent + s, sizeof p);
    bad |= (u32x4)(p + one > idx);
  }
  uint32_t any = bad[0] | bad[1] | bad[2] | bad[3];
  for (; s < s1; s++)
    any |= parent[s] + 1 > s;
  return any != 0;
}

/* The descendants of `slice`, in id order, by one pass over parent_id without the children
** index: when every slice's parent precedes it (as the importers add slices), a slice descends
** from `slice` exactly when its parent is `slice` or a descendant met earlier in the pass, so
** only the rows after `slice` are followed (those before it are only checked for the order).
** A parent outside [slice, last descendant found] is no descendant: four rows at a time are
** tested for one inside, and only a block holding one is walked row by row (past the subtree's
** rows, which parents near their children leave behind, the pass reads blocks). Returns 0 when
** some parent follows its child, or on no memory (out is then emptied). */
static int descendants_by_scan(const trak_tables *t, uint32_t slice, id_list *out) {
  const uint32_t *parent = t->slice.parent_id;
  uint32_t n = (uint32_t)t->slice.n;
  uint64_t *in = calloc(n / 64 + 1, sizeof *in); /* bit s: s is `slice` or descends from it */
  if (!in) return 0;
  in[slice / 64] |= UINT64_C(1) << (slice % 64);
  int bad = parent_follows(parent, 0, slice + 1); /* the rows after it: checked as they are read */
  const u32x4 base = {slice, slice, slice, slice}, one = {1, 1, 1, 1}, four = {4, 4, 4, 4};
  uint32_t s = slice + 1, span = 1; /* the subtree's rows so far are in [slice, slice + span) */
  u32x4 idx = {s, s + 1, s + 2, s + 3}, later = {0, 0, 0, 0}; /* parents at or after their row */
  for (; n - s >= 4; s += 4, idx += four) {
    u32x4 p;
    memcpy(&p, parent + s, sizeof p);
    later |= (u32x4)(p + one > idx);
    const u32x4 spanv = {span, span, span, span};
    u32x4 near = (u32x4)(p - base < spanv);
    uint64_t q[2];
    memcpy(q, &near, sizeof q);
    if (!(q[0] | q[1])) continue;
    for (uint32_t r = s; r < s + 4; r++) {
      uint32_t par = parent[r];
      if (par - slice < span && (in[par / 64] >> (par % 64) & 1)) {
        in[r / 64] |= UINT64_C(1) << (r % 64);
        trak_vec_push(*out, r);
        span = r - slice + 1;
      }
    }
  }
  for (; s < n; s++) {
    uint32_t par = parent[s];
    bad |= par + 1 > s;
    if (par - slice < span && (in[par / 64] >> (par % 64) & 1)) {
      in[s / 64] |= UINT64_C(1) << (s % 64);
      trak_vec_push(*out, s);
      span = s - slice + 1;
    }
  }
  bad |= (later[0] | later[1] | later[2] | later[3]) != 0;
  free(in);
  if (bad) out->n = 0;
  return !bad;
}

static void descendants(trak_processor *p, uint32_t slice, id_list *out) {
  /* The first calls pass over the column instead of building the children index (a one-off
  ** query would pay the index's two arrays and their page faults), as the scans do. */
  if (!p->have_children && p->descendant_scans < trak__vt_scans_before_index) {
    p->descendant_scans++;
    if (descendants_by_scan(&p->tables, slice, out)) return;
  }
  trak__ensure_children(p);
  const trak_csr *ch = &p->children;
  for (uint32_t k = ch->off[slice]; k < ch->off[slice + 1]; k++)
    trak_vec_push(*out, ch->ids[k]);
  for (size_t i = 0; i < out->n; i++) {
    uint32_t s = out->v[i];
    for (uint32_t k = ch->off[s]; k < ch->off[s + 1]; k++)
      trak_vec_push(*out, ch->ids[k]);
  }
  if (out->n) qsort(out->v, out->n, sizeof *out->v, cmp_u32);
}

/* Walks flows from `slice`: forward (slice_out -> slice_in) or backward, optionally also to
** children (forward) or parents (backward) of every reached slice. Collects flow ids. */
static void flow_walk(trak_processor *p, uint32_t slice, int forward, int relatives, id_list *out) {
  trak__ensure_flow_index(p);
  if (relatives && forward) trak__ensure_children(p);
  const trak_tables *t = &p->tables;
  const trak_csr *idx = forward ? &p->flows_out : &p->flows_in;
  const uint32_t *other = forward ? t->flow.slice_in : t->flow.slice_out;
  trak_map seen = {0};
  id_list queue = {0};
  int added;
  trak__map_put(&seen, slice, 0, &added);
  trak_vec_push(queue, slice);
  for (size_t qi = 0; qi < queue.n; qi++) {
    uint32_t s = queue.v[qi];
    for (uint32_t k = idx->off[s]; k < idx->off[s + 1]; k++) {
      uint32_t flow = idx->ids[k];
      trak_vec_push(*out, flow);
      trak__map_put(&seen, other[flow], 0, &added);
      if (added) trak_vec_push(queue, other[flow]);
    }
    if (!relatives) continue;
    if (forward) {
      for (uint32_t k = p->children.off[s]; k < p->children.off[s + 1]; k++) {
        trak__map_put(&seen, p->children.ids[k], 0, &added);
        if (added) trak_vec_push(queue, p->children.ids[k]);
      }
    } else if (t->slice.parent_id[s] != TRAK_NULL_U32) {
      trak__map_put(&seen, t->slice.parent_id[s], 0, &added);
      if (added) trak_vec_push(queue, t->slice.parent_id[s]);
    }
  }
  trak_vec_free(queue);
  trak__map_free(&seen);
}

static void sort_unique(id_list *out) {
  if (!out->n) return;
  qsort(out->v, out->n, sizeof *out->v, cmp_u32);
  size_t w = 0;
  for (size_t i = 0; i < out->n; i++)
    if (!w || out->v[w - 1] != out->v[i]) out->v[w++] = out->v[i];
  out->n = w;
}

static void fn_ancestor(trak_processor *p, uint32_t s, id_list *out) {
  ancestors(p, s, out);
}
static void fn_descendant(trak_processor *p, uint32_t s, id_list *out) {
  descendants(p, s, out);
}
static void fn_connected(trak_processor *p, uint32_t s, id_list *out) {
  flow_walk(p, s, 1, 0, out);
  flow_walk(p, s, 0, 0, out);
  sort_unique(out);
}
static void fn_following(trak_processor *p, uint32_t s, id_list *out) {
  flow_walk(p, s, 1, 1, out);
  sort_unique(out);
}
static void fn_preceding(trak_processor *p, uint32_t s, id_list *out) {
  flow_walk(p, s, 0, 1, out);
  sort_unique(out);
}

typedef struct tvf_def {
  const char *name;
  const vt_table *base;
  void (*compute)(trak_processor *p, uint32_t slice, id_list *out);
} tvf_def;

static const tvf_def tvfs[] = {
    {"ancestor_slice", &trak__vt_slice, fn_ancestor},
    {"descendant_slice", &trak__vt_slice, fn_descendant},
    {"directly_connected_flow", &trak__vt_flow, fn_connected},
    {"following_flow", &trak__vt_flow, fn_following},
    {"preceding_flow", &trak__vt_flow, fn_preceding},
};

/* ---- the table-valued function module -------------------------------------------------- */

typedef struct tvf_vtab {
  sqlite3_vtab base;
  trak_processor *p;
  const tvf_def *def;
} tvf_vtab;

typedef struct tvf_cursor {
  sqlite3_vtab_cursor base;
  id_list ids;
  size_t i;
  int64_t arg;
} tvf_cursor;

/* The modules' client data: which function, and the processor whose tables it reads. */
typedef struct tvf_aux {
  const tvf_def *def;
  trak_processor *p;
} tvf_aux;

static int tvf_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                       sqlite3_vtab **out, char **err) {
  const tvf_aux *a = aux;
  char *schema = trak__vt_schema(a->def->base, "start_id BIGINT HIDDEN");
  int rc = trak__tvf_connect(db, schema, sizeof(tvf_vtab), 0, NULL, out);
  sqlite3_free(schema);
  if (rc != SQLITE_OK) return rc;
  tvf_vtab *v = (tvf_vtab *)*out;
  v->def = a->def;
  v->p = a->p;
  return SQLITE_OK;
}

/* start_id, the one argument, follows the plain columns; without it the function lists nothing. */
static int tvf_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  trak_tvf_args args = {
      .first = trak__vt_plain_cols(((tvf_vtab *)vt)->def->base), .n = 1, .cost = 10, .rows = 10};
  return trak__tvf_best_index(info, &args);
}

static int tvf_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  tvf_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *out = &c->base;
  return SQLITE_OK;
}

static int tvf_close(sqlite3_vtab_cursor *cur) {
  tvf_cursor *c = (tvf_cursor *)cur;
  trak_vec_free(c->ids);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int tvf_filter(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                      sqlite3_value **argv) {
  tvf_cursor *c = (tvf_cursor *)cur;
  tvf_vtab *v = (tvf_vtab *)cur->pVtab;
  c->ids.n = 0;
  c->i = 0;
  if (idx != 1 || argc < 1 || sqlite3_value_type(argv[0]) != SQLITE_INTEGER) return SQLITE_OK;
  c->arg = sqlite3_value_int64(argv[0]);
  if (c->arg < 0 || (uint64_t)c->arg >= v->p->tables.slice.n) return SQLITE_OK;
  v->def->compute(v->p, (uint32_t)c->arg, &c->ids);
  return SQLITE_OK;
}

static int tvf_next(sqlite3_vtab_cursor *cur) {
  ((tvf_cursor *)cur)->i++;
  return SQLITE_OK;
}

static int tvf_eof(sqlite3_vtab_cursor *cur) {
  tvf_cursor *c = (tvf_cursor *)cur;
  return c->i >= c->ids.n;
}

static int tvf_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  tvf_cursor *c = (tvf_cursor *)cur;
  tvf_vtab *v = (tvf_vtab *)cur->pVtab;
  if (col == trak__vt_plain_cols(v->def->base))
    sqlite3_result_int64(ctx, c->arg);
  else
    trak__vt_result(&v->p->tables, &v->def->base->cols[col], c->ids.v[c->i], ctx);
  return SQLITE_OK;
}

static int tvf_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  tvf_cursor *c = (tvf_cursor *)cur;
  *rowid = c->ids.v[c->i];
  return SQLITE_OK;
}

static const sqlite3_module tvf_module = {
    .iVersion = 1,
    .xCreate = NULL, /* eponymous-only */
    .xConnect = tvf_connect,
    .xBestIndex = tvf_best_index,
    .xDisconnect = trak__tvf_disconnect,
    .xDestroy = trak__tvf_disconnect,
    .xOpen = tvf_open,
    .xClose = tvf_close,
    .xFilter = tvf_filter,
    .xNext = tvf_next,
    .xEof = tvf_eof,
    .xColumn = tvf_column,
    .xRowid = tvf_rowid,
};

int trak__functions_register(trak_processor *p) {
  int rc = sqlite3_create_function(p->db, "extract_arg", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, p,
                                   extract_arg, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(p->db, "to_ftrace", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, p,
                                 to_ftrace, NULL, NULL);
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof tvfs / sizeof *tvfs; i++) {
    tvf_aux *a = sqlite3_malloc(sizeof *a);
    if (!a) return SQLITE_NOMEM;
    a->def = &tvfs[i];
    a->p = p;
    rc = sqlite3_create_module_v2(p->db, tvfs[i].name, &tvf_module, a, sqlite3_free);
  }
  return rc == SQLITE_OK ? trak__demangle_register(p) : rc;
}
