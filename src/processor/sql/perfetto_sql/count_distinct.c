/*
** This file answers COUNT(DISTINCT column) with a hash set in C: SQLite keeps the distinct values
** of each such aggregate in a temporary B-tree (an ephemeral index insert of ~800 instructions a
** row), which is most of the query set's `span_join` after the join itself. A statement
** `SELECT ... FROM <one relation> ...` whose result columns include `COUNT(DISTINCT c)` is prepared
** with `__intrinsic_count_distinct(c)` there, named as SQLite names the original column.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "processor/sql/perfetto_sql/psql.h"

/* ---- the aggregate ------------------------------------------------------------------------- */

enum { KEY_INT = 1, KEY_REAL, KEY_TEXT, KEY_BLOB };

/* One distinct value: an integer (also a real that holds an integer exactly, which SQLite
** compares equal to it), a real's bits, or a text's or blob's bytes (owned). */
typedef struct cd_key {
  uint64_t hash;
  int64_t v;
  char *bytes;
  uint32_t len;
  uint8_t kind; /* 0: an empty slot */
} cd_key;

/* The distinct values seen. While every value is an integer greater than the one before (ids
** read in order, as a join's sides give them), they are only appended to `run`: a value equal to
** the last is a repeat, and no hashing scatters the writes over a table larger than the caches.
** The first value out of that order moves the run into the hash table. */
typedef struct cd_set {
  cd_key *slots;
  size_t cap, n; /* cap a power of two, at most half full; n: keys in slots */
  int64_t *run;  /* the ascending integers while `ascending` */
  size_t run_n, run_cap;
  int ascending;
} cd_set;

static uint64_t hash_bytes(const unsigned char *p, size_t n, uint64_t seed) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ull;
  return (uint64_t)trak__map_hash(h);
}

/* Places `k` in `slots` (cap a power of two, a free slot left). Returns 1 when it was new, 0
** when an equal key is there (k's bytes are then not taken). */
static int slot_put(cd_key *slots, size_t cap, const cd_key *k) {
  for (size_t i = (size_t)k->hash & (cap - 1);; i = (i + 1) & (cap - 1)) {
    cd_key *s = &slots[i];
    if (!s->kind) {
      *s = *k;
      return 1;
    }
    if (s->hash == k->hash && s->kind == k->kind && s->v == k->v && s->len == k->len &&
        (!k->len || !memcmp(s->bytes, k->bytes, k->len)))
      return 0;
  }
}

/* Adds `k` to the set. Returns 1 when new, 0 when there already, -1 out of memory. */
static int set_add(cd_set *s, const cd_key *k) {
  if (2 * (s->n + 1) > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    cd_key *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < s->cap; i++)
      if (s->slots[i].kind) slot_put(slots, cap, &s->slots[i]);
    free(s->slots);
    s->slots = slots, s->cap = cap;
  }
  int added = slot_put(s->slots, s->cap, k);
  s->n += (size_t)added;
  return added;
}

/* Adds `k` as set_add does, first to the ascending run while the values allow. */
static int set_add_value(cd_set *s, const cd_key *k) {
  if (s->ascending && k->kind == KEY_INT) {
    if (s->run_n && k->v == s->run[s->run_n - 1]) return 0;
    if (!s->run_n || k->v > s->run[s->run_n - 1]) {
      if (s->run_n == s->run_cap) {
        size_t cap = s->run_cap ? s->run_cap * 2 : 256;
        int64_t *run = realloc(s->run, cap * sizeof *run);
        if (!run) return -1;
        s->run = run, s->run_cap = cap;
      }
      s->run[s->run_n++] = k->v;
      return 1;
    }
  }
  if (s->ascending) { /* out of order: the run goes into the table */
    s->ascending = 0;
    for (size_t i = 0; i < s->run_n; i++) {
      cd_key r = {.kind = KEY_INT, .v = s->run[i]};
      r.hash = (uint64_t)trak__map_hash((uint64_t)r.v ^ ((uint64_t)KEY_INT << 60));
      if (set_add(s, &r) < 0) return -1;
    }
    free(s->run);
    s->run = NULL, s->run_n = s->run_cap = 0;
  }
  return set_add(s, k);
}

/* The number of distinct values in `s`. */
static size_t set_count(const cd_set *s) {
  return s->ascending ? s->run_n : s->n;
}

static void set_free(cd_set *s) {
  free(s->run);
  for (size_t i = 0; i < s->cap; i++)
    if (s->slots[i].kind >= KEY_TEXT) free(s->slots[i].bytes);
  free(s->slots);
}

/* The key of a value as SQLite's DISTINCT compares it (BINARY collation): 1 and 1.0 are one
** value, text and blob bytes never equal each other or a number. */
static void value_key(sqlite3_value *v, cd_key *k) {
  memset(k, 0, sizeof *k);
  int type = sqlite3_value_type(v);
  if (type == SQLITE_INTEGER) {
    k->kind = KEY_INT, k->v = sqlite3_value_int64(v);
  } else if (type == SQLITE_FLOAT) {
    double d = sqlite3_value_double(v);
    if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && (double)(int64_t)d == d) {
      k->kind = KEY_INT, k->v = (int64_t)d; /* -0.0 too: equal to 0 */
    } else {
      k->kind = KEY_REAL;
      memcpy(&k->v, &d, sizeof d);
    }
  } else {
    k->kind = type == SQLITE_TEXT ? KEY_TEXT : KEY_BLOB;
    const void *p =
        type == SQLITE_TEXT ? (const void *)sqlite3_value_text(v) : sqlite3_value_blob(v);
    k->len = (uint32_t)sqlite3_value_bytes(v);
    k->bytes = (char *)p;
  }
  k->hash = k->kind >= KEY_TEXT
                ? hash_bytes((const unsigned char *)k->bytes, k->len, k->kind)
                : (uint64_t)trak__map_hash((uint64_t)k->v ^ ((uint64_t)k->kind << 60));
}

static void cd_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  cd_set **set = sqlite3_aggregate_context(ctx, sizeof *set);
  if (set && !*set && (*set = calloc(1, sizeof **set))) (*set)->ascending = 1;
  if (!set || !*set) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  cd_key k;
  value_key(argv[0], &k);
  char *copy = NULL;
  if (k.kind >= KEY_TEXT && k.len) { /* owned by the set once added */
    if (!(copy = malloc(k.len))) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    memcpy(copy, k.bytes, k.len);
    k.bytes = copy;
  } else if (k.kind >= KEY_TEXT) {
    k.bytes = NULL;
  }
  int added = set_add_value(*set, &k);
  if (added <= 0) free(copy);
  if (added < 0) sqlite3_result_error_nomem(ctx);
}

static void cd_final(sqlite3_context *ctx) {
  cd_set **set = sqlite3_aggregate_context(ctx, 0);
  sqlite3_result_int64(ctx, set && *set ? (sqlite3_int64)set_count(*set) : 0);
  if (set && *set) {
    set_free(*set);
    free(*set);
    *set = NULL;
  }
}

int trak__psql_count_distinct_register(sqlite3 *db) {
  return sqlite3_create_function(db, "__intrinsic_count_distinct", 1,
                                 SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL, cd_step, cd_final);
}

/* ---- the rewrite --------------------------------------------------------------------------- */

#define MAX_CD 16 /* the most COUNT(DISTINCT) of one statement rewritten */

/* One `COUNT(DISTINCT c)` of the statement, a whole result column: where it starts and ends,
** its column, and whether it has an alias (if not, it is given its original text as its name,
** as SQLite names it). */
typedef struct cd_site {
  size_t off, end; /* `COUNT` .. `)` */
  psql_tok col;    /* c */
  int named;
} cd_site;

/* Whether column `col` of relation `rel` is one whose values DISTINCT compares with BINARY (the
** relation a table or virtual table, not a view: SQLite says so for those). */
static int binary_column(sqlite3 *db, const char *s, psql_tok rel, psql_tok col) {
  if (rel.len > 200 || col.len > 200 || s[rel.off] == '"' || s[rel.off] == '`' ||
      s[rel.off] == '[' || s[col.off] == '"' || s[col.off] == '`' || s[col.off] == '[')
    return 0;
  char r[256], c[256];
  memcpy(r, s + rel.off, rel.len), r[rel.len] = 0;
  memcpy(c, s + col.off, col.len), c[col.len] = 0;
  const char *coll = NULL;
  if (sqlite3_table_column_metadata(db, NULL, r, c, NULL, &coll, NULL, NULL, NULL) != SQLITE_OK) {
    /* A virtual table has no columns until SQLite connects to it, which the set-up's, read from
    ** sqlite_schema (sql/schema_batch.c), wait for a statement that names them to do. */
    if (sqlite3_table_column_metadata(db, NULL, r, NULL, NULL, NULL, NULL, NULL, NULL) != SQLITE_OK)
      return 0;
    char *sql = sqlite3_mprintf("SELECT 1 FROM \"%w\"", r);
    sqlite3_stmt *st = NULL;
    if (sql) sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    sqlite3_finalize(st);
    sqlite3_free(sql);
    if (sqlite3_table_column_metadata(db, NULL, r, c, NULL, &coll, NULL, NULL, NULL) != SQLITE_OK)
      return 0;
  }
  return !coll || !strcasecmp(coll, "BINARY");
}

/* Whether token t starts a clause that may follow `FROM relation [alias]`. */
static int clause_word(const char *s, psql_tok t) {
  static const char *const words[] = {"WHERE", "GROUP", "HAVING", "ORDER", "LIMIT"};
  return trak__psql_is_one_of(s, t, words, sizeof words / sizeof *words);
}

int trak__psql_count_distinct(trak_processor *p, const char *s, size_t n, sqlite3_stmt **out) {
  psql_tok t = trak__psql_lex(s, n, 0);
  if (!trak__psql_is(s, t, "SELECT")) return 0;
  cd_site sites[MAX_CD];
  int nsites = 0, depth = 0;
  size_t col_start = trak__psql_lex(s, n, t.off + t.len).off; /* the result column's start */
  psql_tok rel = {PSQL_EOF, 0, 0};
  int in_results = 1;
  for (t = trak__psql_lex(s, n, t.off + t.len);
       t.kind != PSQL_EOF && !trak__psql_is_char(s, t, ';');
       t = trak__psql_lex(s, n, t.off + t.len)) {
    if (trak__psql_is(s, t, "SELECT") || trak__psql_is(s, t, "DISTINCT") ||
        trak__psql_is(s, t, "JOIN") || trak__psql_is(s, t, "OVER") ||
        trak__psql_is(s, t, "FILTER") || trak__psql_is(s, t, "WINDOW"))
      return 0; /* subqueries, compounds, joins, windows; DISTINCT only as matched below */
    if (!depth && in_results && trak__psql_is(s, t, "FROM")) {
      in_results = 0;
      rel = trak__psql_lex(s, n, t.off + t.len);
      if (rel.kind != PSQL_ID) return 0;
      /* Then [[AS] alias] and the next clause: no other relation, no table-valued function or
      ** schema-qualified name. */
      t = trak__psql_lex(s, n, rel.off + rel.len);
      if (trak__psql_is(s, t, "AS")) t = trak__psql_lex(s, n, t.off + t.len);
      if (t.kind == PSQL_ID && !clause_word(s, t)) t = trak__psql_lex(s, n, t.off + t.len);
      if (!clause_word(s, t) && t.kind != PSQL_EOF && !trak__psql_is_char(s, t, ';')) return 0;
      if (t.kind == PSQL_EOF || trak__psql_is_char(s, t, ';')) break;
    }
    if (!depth && in_results && trak__psql_is_char(s, t, ','))
      col_start = trak__psql_lex(s, n, t.off + t.len).off;
    if (trak__psql_is(s, t, "COUNT")) {
      psql_tok o = trak__psql_lex(s, n, t.off + t.len), d = trak__psql_lex(s, n, o.off + o.len);
      psql_tok c = trak__psql_lex(s, n, d.off + d.len), e = trak__psql_lex(s, n, c.off + c.len);
      if (trak__psql_is_char(s, o, '(') && trak__psql_is(s, d, "DISTINCT")) {
        if (c.kind != PSQL_ID || !trak__psql_is_char(s, e, ')') || nsites == MAX_CD) return 0;
        cd_site *site = &sites[nsites++];
        *site = (cd_site){.off = t.off, .end = e.off + e.len, .col = c};
        /* Only a whole result column: `COUNT(DISTINCT c)` then `,`, FROM or [AS] alias. */
        psql_tok a = trak__psql_lex(s, n, e.off + e.len);
        if (!in_results || depth || col_start != t.off) return 0;
        if (trak__psql_is(s, a, "AS") || (a.kind == PSQL_ID && !trak__psql_is(s, a, "FROM")))
          site->named = 1;
        else if (!trak__psql_is_char(s, a, ',') && !trak__psql_is(s, a, "FROM"))
          return 0;
        t = e;
        continue;
      }
    }
    depth += trak__psql_is_char(s, t, '(') - trak__psql_is_char(s, t, ')');
    if (depth < 0) return 0;
  }
  if (!nsites || rel.kind != PSQL_ID || depth) return 0;
  for (int i = 0; i < nsites; i++)
    if (!binary_column(p->db, s, rel, sites[i].col)) return 0;
  sqlite3_str *q = sqlite3_str_new(p->db);
  size_t at = 0;
  for (int i = 0; i < nsites; i++) {
    const cd_site *site = &sites[i];
    sqlite3_str_appendf(q, "%.*s__intrinsic_count_distinct(%.*s)", (int)(site->off - at), s + at,
                        (int)site->col.len, s + site->col.off);
    if (!site->named) {
      char *name = sqlite3_mprintf("%.*s", (int)(site->end - site->off), s + site->off);
      sqlite3_str_appendf(q, " AS \"%w\"", name ? name : "");
      sqlite3_free(name);
    }
    at = site->end;
  }
  sqlite3_str_appendf(q, "%.*s", (int)(n - at), s + at);
  char *sql = sqlite3_str_finish(q);
  int rc = sql ? sqlite3_prepare_v2(p->db, sql, -1, out, NULL) : SQLITE_NOMEM;
  sqlite3_free(sql);
  if (rc == SQLITE_OK && *out) return 1;
  sqlite3_finalize(*out);
  *out = NULL;
  return 0;
}
