/*
** This file holds the engine behind _interval_intersect!: the aggregate
** __trak_intervals(id, ts, dur, partition values...) packs a table's intervals into a BLOB, and
** the table function __trak_interval_intersect(blob0, blob1, ...) intersects the tables given,
** one interval from each, within equal partition values, giving (ts, dur, id_0, ..., id_14,
** p_0, ..., p_7) with the partition values of the first table. BLOBs rather than a query text,
** so that the tables may be a statement's CTEs.
**
** The rule is Perfetto's interval tree's: intervals are half-open, [ts, ts + dur); an instant
** (dur 0) at t meets [s, e) when s <= t < e, and two instants meet when at the same t. Each
** table is sorted by (partition, start) and met with the running result by a sweep: every
** interval, as it starts, meets the other side's intervals still open, so the cost is the sort
** plus the output. As Perfetto, an interval with a negative dur is an error and NULL partition
** values are equal to each other.
*/
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"

enum { MAX_TABLES = 15, MAX_PARTS = 8 };

/* ---- the aggregate: one BLOB per table -------------------------------------------------------
** Each row: id, ts, dur (8 bytes each, native order), then the partition key: a byte count
** (4 bytes) and, per value, a type byte and its bytes (8 for INTEGER/REAL, 4-byte length and the
** bytes for TEXT/BLOB, none for NULL). */

typedef struct agg_buf {
  unsigned char *v;
  size_t n, cap;
  int failed;
} agg_buf;

static void buf_add(agg_buf *b, const void *data, size_t n) {
  if (b->failed) return;
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 4096;
    while (cap < b->n + n)
      cap *= 2;
    unsigned char *v = realloc(b->v, cap);
    if (!v) {
      b->failed = 1;
      return;
    }
    b->v = v;
    b->cap = cap;
  }
  memcpy(b->v + b->n, data, n);
  b->n += n;
}

static void agg_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  agg_buf *b = sqlite3_aggregate_context(ctx, sizeof *b);
  if (!b) return sqlite3_result_error_nomem(ctx);
  if (argc < 3 || argc > 3 + MAX_PARTS) return;
  int64_t head[3];
  for (int i = 0; i < 3; i++)
    head[i] = sqlite3_value_int64(argv[i]);
  buf_add(b, head, sizeof head);
  size_t len_at = b->n;
  uint32_t key_len = 0;
  buf_add(b, &key_len, sizeof key_len);
  for (int i = 3; i < argc; i++) {
    unsigned char type = (unsigned char)sqlite3_value_type(argv[i]);
    buf_add(b, &type, 1);
    key_len++;
    if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
      int64_t v = sqlite3_value_int64(argv[i]);
      double d = sqlite3_value_double(argv[i]);
      if (type == SQLITE_FLOAT) memcpy(&v, &d, sizeof v);
      buf_add(b, &v, sizeof v);
      key_len += sizeof v;
    } else if (type != SQLITE_NULL) {
      const void *p = type == SQLITE_TEXT ? (const void *)sqlite3_value_text(argv[i])
                                          : sqlite3_value_blob(argv[i]);
      uint32_t n = (uint32_t)sqlite3_value_bytes(argv[i]);
      buf_add(b, &n, sizeof n);
      buf_add(b, p, n);
      key_len += (uint32_t)sizeof n + n;
    }
  }
  if (!b->failed) memcpy(b->v + len_at, &key_len, sizeof key_len);
}

static void agg_final(sqlite3_context *ctx) {
  agg_buf *b = sqlite3_aggregate_context(ctx, 0);
  if (!b || !b->n) {
    sqlite3_result_zeroblob(ctx, 0);
  } else if (b->failed) {
    sqlite3_result_error_nomem(ctx);
  } else {
    sqlite3_result_blob64(ctx, b->v, b->n, free);
    b->v = NULL;
  }
  if (b) free(b->v);
}

/* ---- interval lists ----------------------------------------------------------------------- */

typedef struct ivl {
  int64_t start, end;
  const unsigned char *key; /* the partition key's bytes (in a table's BLOB) */
  uint32_t key_len;
  uint32_t row; /* index of its ids in the list's ids */
} ivl;

typedef struct ivl_list {
  ivl *v;
  size_t n, cap;
  int64_t *ids; /* `width` ids per row */
  size_t width, ids_cap;
} ivl_list;

static void list_free(ivl_list *l) {
  free(l->v);
  free(l->ids);
  memset(l, 0, sizeof *l);
}

/* Appends an interval with ids a[0..wa) then b[0..wb); returns -1 out of memory. */
static int list_add(ivl_list *l, int64_t start, int64_t end, const unsigned char *key,
                    uint32_t key_len, const int64_t *a, size_t wa, const int64_t *b, size_t wb) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 256;
    ivl *v = realloc(l->v, cap * sizeof *v);
    if (!v) return -1;
    l->v = v;
    l->cap = cap;
  }
  if ((l->n + 1) * l->width > l->ids_cap) {
    size_t cap = l->ids_cap ? l->ids_cap * 2 : 256 * l->width;
    int64_t *v = realloc(l->ids, cap * sizeof *v);
    if (!v) return -1;
    l->ids = v;
    l->ids_cap = cap;
  }
  memcpy(l->ids + l->n * l->width, a, wa * sizeof *a);
  if (wb) memcpy(l->ids + l->n * l->width + wa, b, wb * sizeof *b);
  l->v[l->n] = (ivl){start, end, key, key_len, (uint32_t)l->n};
  l->n++;
  return 0;
}

static int key_cmp(const ivl *x, const ivl *y) {
  uint32_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
  int c = memcmp(x->key, y->key, n);
  if (c) return c;
  return x->key_len < y->key_len ? -1 : x->key_len > y->key_len;
}

/* By partition, then start, intervals before instants at the same start. */
static int ivl_cmp(const void *a, const void *b) {
  const ivl *x = a, *y = b;
  int c = key_cmp(x, y);
  if (c) return c;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  int xi = x->end == x->start, yi = y->end == y->start;
  if (xi != yi) return xi - yi;
  return x->row < y->row ? -1 : x->row > y->row;
}

/* Reads a table's BLOB into a list of width 1. Returns 0, -1 on a malformed BLOB or out of
** memory, or -2 for an interval with a negative dur (which Perfetto rejects). */
static int list_read(ivl_list *l, const unsigned char *p, size_t n) {
  memset(l, 0, sizeof *l);
  l->width = 1;
  size_t at = 0;
  while (at < n) {
    int64_t head[3];
    uint32_t key_len;
    if (n - at < sizeof head + sizeof key_len) return -1;
    memcpy(head, p + at, sizeof head);
    memcpy(&key_len, p + at + sizeof head, sizeof key_len);
    at += sizeof head + sizeof key_len;
    if (n - at < key_len) return -1;
    if (head[2] < 0) return -2;
    if (list_add(l, head[1], head[1] + head[2], p + at, key_len, &head[0], 1, NULL, 0)) return -1;
    at += key_len;
  }
  return 0;
}

/* An open interval of one side during the sweep. */
typedef struct open_set {
  const ivl **v;
  size_t n, cap;
} open_set;

/* Whether open interval o (started at or before t) still meets an interval starting at t: an
** instant only at its own time, [s, e) while t < e. */
static int still_open(const ivl *o, int64_t t) {
  return o->end == o->start ? o->start == t : o->end > t;
}

/* Meets `x` (starting now) with the other side's open intervals, dropping the ones that ended;
** appends each meeting to `out` (ids: the left side's then the right side's). */
static int meet_open(open_set *other, const ivl *x, int x_left, const ivl_list *left,
                     const ivl_list *right, ivl_list *out) {
  for (size_t i = 0; i < other->n;) {
    const ivl *o = other->v[i];
    if (!still_open(o, x->start)) {
      other->v[i] = other->v[--other->n];
      continue;
    }
    const ivl *l = x_left ? x : o, *r = x_left ? o : x;
    int64_t end = l->end < r->end ? l->end : r->end;
    if (list_add(out, x->start, end, l->key, l->key_len, left->ids + l->row * left->width,
                 left->width, right->ids + r->row * right->width, right->width))
      return -1;
    i++;
  }
  return 0;
}

static int open_add(open_set *s, const ivl *x) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    const ivl **v = realloc(s->v, cap * sizeof *v);
    if (!v) return -1;
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n++] = x;
  return 0;
}

/* out = the meetings of a and b (both sorted by ivl_cmp), width a's + b's. Returns -1 out of
** memory. */
static int intersect_two(const ivl_list *a, const ivl_list *b, ivl_list *out) {
  memset(out, 0, sizeof *out);
  out->width = a->width + b->width;
  open_set oa = {0}, ob = {0};
  int rc = 0;
  size_t i = 0, j = 0;
  while (!rc && i < a->n && j < b->n) {
    int c = key_cmp(&a->v[i], &b->v[j]);
    if (c) { /* a partition only one side has */
      if (c < 0)
        i++;
      else
        j++;
      continue;
    }
    size_t ie = i, je = j;
    while (ie < a->n && !key_cmp(&a->v[ie], &a->v[i]))
      ie++;
    while (je < b->n && !key_cmp(&b->v[je], &b->v[j]))
      je++;
    oa.n = ob.n = 0;
    while (!rc && (i < ie || j < je)) {
      /* The next to start; at the same start, intervals before instants (so an instant sees
      ** every interval open at its time), then the left side. */
      int take_a = j >= je || (i < ie && ivl_cmp(&a->v[i], &b->v[j]) <= 0);
      if (take_a) {
        rc = meet_open(&ob, &a->v[i], 1, a, b, out);
        if (!rc) rc = open_add(&oa, &a->v[i]);
        i++;
      } else {
        rc = meet_open(&oa, &b->v[j], 0, a, b, out);
        if (!rc) rc = open_add(&ob, &b->v[j]);
        j++;
      }
    }
    i = ie;
    j = je;
  }
  free(oa.v);
  free(ob.v);
  return rc;
}

/* ---- the table function ------------------------------------------------------------------- */

/* Columns: ts, dur, id_0..id_14, p_0..p_7, then the hidden arguments t_0..t_14. */
enum { COL_IDS = 2, COL_PARTS = COL_IDS + MAX_TABLES, COL_ARGS = COL_PARTS + MAX_PARTS };

typedef struct ii_cursor {
  sqlite3_vtab_cursor base;
  ivl_list result;
  size_t i;
  sqlite3_value *args[MAX_TABLES]; /* the BLOBs the intervals' keys point into */
} ii_cursor;

static int ii_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                      char **err) {
  sqlite3_str *s = sqlite3_str_new(NULL);
  sqlite3_str_appendall(s, "CREATE TABLE x(ts INTEGER, dur INTEGER");
  for (int i = 0; i < MAX_TABLES; i++)
    sqlite3_str_appendf(s, ", id_%d INTEGER", i);
  for (int i = 0; i < MAX_PARTS; i++)
    sqlite3_str_appendf(s, ", p_%d", i);
  for (int i = 0; i < MAX_TABLES; i++)
    sqlite3_str_appendf(s, ", t_%d HIDDEN", i);
  sqlite3_str_appendall(s, ")");
  char *sql = sqlite3_str_finish(s);
  if (!sql) return SQLITE_NOMEM;
  int rc = sqlite3_declare_vtab(db, sql);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  *out = v;
  return SQLITE_OK;
}

static int ii_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

/* The tables are the equality constraints on t_0, t_1, ...: they must start at t_0 with no
** gap. idxNum is how many there are. */
static int ii_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  int slot[MAX_TABLES];
  for (int i = 0; i < MAX_TABLES; i++)
    slot[i] = -1;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->iColumn < COL_ARGS || c->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!c->usable) return SQLITE_CONSTRAINT;
    slot[c->iColumn - COL_ARGS] = i;
  }
  int n = 0;
  while (n < MAX_TABLES && slot[n] >= 0)
    n++;
  if (!n) return SQLITE_CONSTRAINT;
  for (int k = 0; k < n; k++) {
    info->aConstraintUsage[slot[k]].argvIndex = k + 1;
    info->aConstraintUsage[slot[k]].omit = 1;
  }
  info->idxNum = n;
  info->estimatedCost = 1000;
  /* Many rows: a join on the output's ids then looks its tables up through an (automatic) index
  ** instead of scanning them once per row (SQLite's default guess is 25 rows). */
  info->estimatedRows = 1000000;
  return SQLITE_OK;
}

static int ii_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  ii_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *out = &c->base;
  return SQLITE_OK;
}

static void ii_reset(ii_cursor *c) {
  list_free(&c->result);
  for (int i = 0; i < MAX_TABLES; i++) {
    sqlite3_value_free(c->args[i]);
    c->args[i] = NULL;
  }
  c->i = 0;
}

static int ii_close(sqlite3_vtab_cursor *cur) {
  ii_reset((ii_cursor *)cur);
  free(cur);
  return SQLITE_OK;
}

static int ii_error(sqlite3_vtab_cursor *cur, const char *msg) {
  sqlite3_free(cur->pVtab->zErrMsg);
  cur->pVtab->zErrMsg = sqlite3_mprintf("%s", msg);
  return SQLITE_ERROR;
}

static int ii_filter(sqlite3_vtab_cursor *cur, int idx, const char *plan, int argc,
                     sqlite3_value **argv) {
  ii_cursor *c = (ii_cursor *)cur;
  ii_reset(c);
  ivl_list acc = {0}, next = {0}, both = {0};
  int rc = SQLITE_OK;
  for (int t = 0; rc == SQLITE_OK && t < argc && t < MAX_TABLES; t++) {
    int type = sqlite3_value_type(argv[t]);
    if (type != SQLITE_BLOB && type != SQLITE_NULL) {
      rc = ii_error(cur, "a table argument is not a table of intervals");
      break;
    }
    c->args[t] = sqlite3_value_dup(argv[t]);
    if (!c->args[t]) {
      rc = SQLITE_NOMEM;
      break;
    }
    const unsigned char *p = sqlite3_value_blob(c->args[t]);
    size_t n = (size_t)sqlite3_value_bytes(c->args[t]);
    int read = list_read(t ? &next : &acc, p, n);
    if (read) {
      rc = ii_error(cur, read == -2 ? "Interval intersect only works on intervals with non "
                                      "negative duration."
                                    : "out of memory or malformed intervals");
      break;
    }
    if (!t) {
      if (argc > 1 && acc.n) qsort(acc.v, acc.n, sizeof *acc.v, ivl_cmp);
      continue;
    }
    if (next.n) qsort(next.v, next.n, sizeof *next.v, ivl_cmp); /* an empty list has no array */
    if (intersect_two(&acc, &next, &both)) {
      rc = SQLITE_NOMEM;
      break;
    }
    list_free(&acc);
    list_free(&next);
    acc = both;
    memset(&both, 0, sizeof both);
    if (t + 1 < argc && acc.n) qsort(acc.v, acc.n, sizeof *acc.v, ivl_cmp);
  }
  list_free(&next);
  list_free(&both);
  if (rc != SQLITE_OK) {
    list_free(&acc);
    return rc;
  }
  c->result = acc;
  return SQLITE_OK;
}

static int ii_next(sqlite3_vtab_cursor *cur) {
  ((ii_cursor *)cur)->i++;
  return SQLITE_OK;
}

static int ii_eof(sqlite3_vtab_cursor *cur) {
  ii_cursor *c = (ii_cursor *)cur;
  return c->i >= c->result.n;
}

/* Sets the result to partition value `want` of key bytes k[0..len) (NULL past the last).
** A BLOB not made by __trak_intervals (a user may pass any) gives NULL where it runs short. */
static void key_value(sqlite3_context *ctx, const unsigned char *k, uint32_t len, int want) {
  for (uint32_t i = 0, at = 0; i < len; at++) {
    unsigned char type = k[i++];
    int64_t v = 0;
    uint32_t n = 0;
    if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
      if (len - i < sizeof v) return;
      memcpy(&v, k + i, sizeof v);
      i += 8;
    } else if (type != SQLITE_NULL) {
      if (len - i < sizeof n) return;
      memcpy(&n, k + i, sizeof n);
      i += (uint32_t)sizeof n;
      if (len - i < n) return;
    }
    if ((int)at == want) {
      if (type == SQLITE_INTEGER) {
        sqlite3_result_int64(ctx, v);
      } else if (type == SQLITE_FLOAT) {
        double d;
        memcpy(&d, &v, sizeof d);
        sqlite3_result_double(ctx, d);
      } else if (type == SQLITE_TEXT) {
        sqlite3_result_text(ctx, (const char *)k + i, (int)n, SQLITE_TRANSIENT);
      } else if (type == SQLITE_BLOB) {
        sqlite3_result_blob(ctx, k + i, (int)n, SQLITE_TRANSIENT);
      }
      return;
    }
    if (type == SQLITE_TEXT || type == SQLITE_BLOB) i += n;
  }
}

static int ii_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  ii_cursor *c = (ii_cursor *)cur;
  const ivl *x = &c->result.v[c->i];
  if (col == 0) {
    sqlite3_result_int64(ctx, x->start);
  } else if (col == 1) {
    sqlite3_result_int64(ctx, x->end - x->start);
  } else if (col < COL_PARTS) {
    if ((size_t)(col - COL_IDS) < c->result.width)
      sqlite3_result_int64(ctx, c->result.ids[x->row * c->result.width + (size_t)(col - COL_IDS)]);
  } else if (col < COL_ARGS) {
    key_value(ctx, x->key, x->key_len, col - COL_PARTS);
  }
  return SQLITE_OK;
}

static int ii_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((ii_cursor *)cur)->i;
  return SQLITE_OK;
}

static const sqlite3_module ii_module = {
    .iVersion = 1,
    .xConnect = ii_connect,
    .xBestIndex = ii_best_index,
    .xDisconnect = ii_disconnect,
    .xDestroy = ii_disconnect,
    .xOpen = ii_open,
    .xClose = ii_close,
    .xFilter = ii_filter,
    .xNext = ii_next,
    .xEof = ii_eof,
    .xColumn = ii_column,
    .xRowid = ii_rowid,
};

int trak__psql_interval_intersect_register(trak_processor *p) {
  int rc = sqlite3_create_function(p->db, "__trak_intervals", -1, SQLITE_UTF8, NULL, NULL, agg_step,
                                   agg_final);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_module(p->db, "__trak_interval_intersect", &ii_module, NULL);
  return rc;
}
