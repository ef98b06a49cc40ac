/*
** This file holds the deferred work of modules: a PERFETTO TABLE a module creates starts as an
** empty table with its columns and is filled when a statement first names it, directly or
** through a view, function or table whose body names it. So INCLUDE costs what parsing costs,
** and a module's tables over millions of slices are only computed for the queries that read
** them. The registry maps each name to the names its body mentions that need filling first.
** Indexes on such a table are built after it is filled, which is much faster than keeping them
** up to date row by row.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "processor/sql/perfetto_sql/psql.h"

typedef struct lazy_entry {
  char *name;
  char *fill_sql; /* INSERT filling the table; NULL for a view or function */
  size_t *deps;   /* indexes of the entries its body mentions */
  size_t ndeps;
  int filled; /* or being filled: a cycle stops here */
} lazy_entry;

struct psql_lazy {
  lazy_entry *v;
  size_t n, cap;
};

static long find(const psql_lazy *l, const char *s, size_t len) {
  if (*s == '"' || *s == '`' || *s == '[') s++, len -= 2;
  for (size_t i = 0; l && i < l->n; i++)
    if (strlen(l->v[i].name) == len && !strncasecmp(l->v[i].name, s, len)) return (long)i;
  return -1;
}

/* The entries text[0..n) mentions, as indexes (malloc'ed; *count of them). */
static size_t *mentions(const psql_lazy *l, const char *text, size_t n, size_t *count) {
  size_t *out = NULL, k = 0;
  *count = 0;
  if (!l || !l->n) return NULL;
  for (psql_tok t = trak__psql_lex(text, n, 0); t.kind != PSQL_EOF;
       t = trak__psql_lex(text, n, t.off + t.len)) {
    if (t.kind != PSQL_ID) continue;
    long i = find(l, text + t.off, t.len);
    if (i < 0) continue;
    int seen = 0;
    for (size_t j = 0; j < k && !seen; j++)
      seen = out[j] == (size_t)i;
    if (seen) continue;
    size_t *v = realloc(out, (k + 1) * sizeof *v);
    if (!v) break;
    out = v;
    out[k++] = (size_t)i;
  }
  *count = k;
  return out;
}

static int add(trak_processor *p, const char *name, char *fill_sql, const char *body) {
  psql_lazy *l = p->psql->lazy;
  if (!l) l = p->psql->lazy = calloc(1, sizeof *l);
  if (!l) return -1;
  size_t ndeps;
  size_t *deps = mentions(l, body, strlen(body), &ndeps);
  long at = find(l, name, strlen(name));
  if (at >= 0) { /* redefined: the new body's needs replace the old */
    lazy_entry *e = &l->v[at];
    free(e->deps);
    free(e->fill_sql);
    e->deps = deps;
    e->ndeps = ndeps;
    e->fill_sql = fill_sql;
    e->filled = !fill_sql;
    return 0;
  }
  if (!ndeps && !fill_sql) return 0; /* needs nothing: no entry */
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    lazy_entry *v = realloc(l->v, cap * sizeof *v);
    if (!v) return free(deps), -1;
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = (lazy_entry){strdup(name), fill_sql, deps, ndeps, !fill_sql};
  return 0;
}

int trak__psql_lazy_table(trak_processor *p, const char *name, const char *fill_sql,
                          const char *body) {
  char *copy = strdup(fill_sql);
  if (!copy || add(p, name, copy, body)) return free(copy), -1;
  return 0;
}

int trak__psql_lazy_note(trak_processor *p, const char *name, const char *body) {
  return add(p, name, NULL, body);
}

static int fill(trak_processor *p, size_t i, char *msg, size_t msg_len, int depth) {
  psql_lazy *l = p->psql->lazy;
  lazy_entry *e = &l->v[i];
  if (e->filled && !e->ndeps) return 0;
  if (depth > 64) return 0;
  int was_filled = e->filled;
  e->filled = 1;
  for (size_t d = 0; d < e->ndeps; d++)
    if (fill(p, l->v[i].deps[d], msg, msg_len, depth + 1)) return -1;
  e = &l->v[i];
  if (was_filled || !e->fill_sql) return 0;
  char *err = NULL;
  trak__sql_guard_trust(p, 1); /* trak's own INSERT into a module's table */
  int rc = sqlite3_exec(p->db, e->fill_sql, NULL, NULL, &err);
  trak__sql_guard_trust(p, -1);
  if (rc != SQLITE_OK) {
    snprintf(msg, msg_len, "filling %s: %s", e->name, err ? err : sqlite3_errmsg(p->db));
    sqlite3_free(err);
    return -1;
  }
  return 0;
}

int trak__psql_lazy_ensure(trak_processor *p, const char *text, size_t n, char *msg,
                           size_t msg_len) {
  size_t count;
  size_t *idx = mentions(p->psql->lazy, text, n, &count);
  int rc = 0;
  for (size_t i = 0; i < count && !rc; i++)
    rc = fill(p, idx[i], msg, msg_len, 0);
  free(idx);
  return rc;
}

int trak__psql_lazy_after_fill(trak_processor *p, const char *table, const char *sql) {
  psql_lazy *l = p->psql->lazy;
  long i = find(l, table, strlen(table));
  if (i < 0 || !l->v[i].fill_sql || l->v[i].filled) return 0;
  char *joined = sqlite3_mprintf("%s; %s", l->v[i].fill_sql, sql);
  char *copy = joined ? strdup(joined) : NULL;
  sqlite3_free(joined);
  if (!copy) return -1;
  free(l->v[i].fill_sql);
  l->v[i].fill_sql = copy;
  return 1;
}

void trak__psql_lazy_free(trak_processor *p) {
  psql_lazy *l = p->psql->lazy;
  for (size_t i = 0; l && i < l->n; i++) {
    free(l->v[i].name);
    free(l->v[i].fill_sql);
    free(l->v[i].deps);
  }
  if (l) free(l->v);
  free(l);
  p->psql->lazy = NULL;
}
