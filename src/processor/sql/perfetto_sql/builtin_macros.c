/*
** This file holds the built-in macros whose SQL depends on how many items a list has, so they
** are written in C: _interval_intersect!((t0, t1, ...), (partition columns)) intersects tables
** of (id, ts, dur) intervals, giving each non-empty overlap of one interval from every table as
** (ts, dur, id_0, id_1, ..., partition columns); metasql_unparenthesize_exprlist!((a, b))
** gives `a, b`; __intrinsic_stringify!(any text) gives that text, expanded, between single
** quotes as Perfetto does, without doubling the quotes inside (stringify!(foo'') is 'foo'''
** which reads foo'); __trak_quote!(any text) gives it as a proper SQL string literal, which is
** what trak's modules use to hand a query to a C table function.
*/
#include <stdio.h>

#include "processor/sql/perfetto_sql/psql.h"

enum { MAX_TABLES = 15, MAX_PARTITIONS = 8 };

/* The latest start (or earliest end) of tables t0..t{n-1}; one table needs no MAX. */
static void extreme(sqlite3_str *out, const char *fn, size_t n, int ends) {
  if (n > 1) sqlite3_str_appendf(out, "%s(", fn);
  for (size_t i = 0; i < n; i++)
    sqlite3_str_appendf(out, ends ? "%st%d.ts + t%d.dur" : "%st%d.ts", i ? ", " : "", (int)i,
                        (int)i);
  if (n > 1) sqlite3_str_appendall(out, ")");
}

static int interval_intersect(const char *const *args, const size_t *lens, size_t nargs,
                              sqlite3_str *out, char *msg, size_t msg_len) {
  size_t toff[MAX_TABLES], tlen[MAX_TABLES], poff[MAX_PARTITIONS], plen[MAX_PARTITIONS];
  int nt = trak__psql_split_list(args[0], lens[0], toff, tlen, MAX_TABLES);
  int np = trak__psql_split_list(args[1], lens[1], poff, plen, MAX_PARTITIONS);
  if (nt < 1) {
    snprintf(msg, msg_len,
             "_interval_intersect: the first argument must be a list of 1 to %d "
             "tables in parentheses",
             MAX_TABLES);
    return -1;
  }
  if (np < 0) {
    snprintf(msg, msg_len,
             "_interval_intersect: the second argument must be a list of at most "
             "%d partition columns in parentheses, () for none",
             MAX_PARTITIONS);
    return -1;
  }
  size_t n = (size_t)nt;
  sqlite3_str_appendall(out, "(SELECT ");
  extreme(out, "MAX", n, 0);
  sqlite3_str_appendall(out, " AS ts, ");
  extreme(out, "MIN", n, 1);
  sqlite3_str_appendall(out, " - ");
  extreme(out, "MAX", n, 0);
  sqlite3_str_appendall(out, " AS dur");
  for (size_t i = 0; i < n; i++)
    sqlite3_str_appendf(out, ", t%d.id AS id_%d", (int)i, (int)i);
  for (int k = 0; k < np; k++)
    sqlite3_str_appendf(out, ", t0.%.*s AS %.*s", (int)plen[k], args[1] + poff[k], (int)plen[k],
                        args[1] + poff[k]);
  for (size_t i = 0; i < n; i++) {
    sqlite3_str_appendf(out, i ? " JOIN %.*s AS t%d ON " : " FROM %.*s AS t%d", (int)tlen[i],
                        args[0] + toff[i], (int)i);
    if (!i) continue;
    for (int k = 0; k < np; k++)
      sqlite3_str_appendf(out, "t%d.%.*s = t0.%.*s AND ", (int)i, (int)plen[k], args[1] + poff[k],
                          (int)plen[k], args[1] + poff[k]);
    /* Overlaps every earlier table's interval (and so their common part). */
    sqlite3_str_appendf(out, "t%d.ts < ", (int)i);
    extreme(out, "MIN", i, 1);
    sqlite3_str_appendf(out, " AND ");
    extreme(out, "MAX", i, 0);
    sqlite3_str_appendf(out, " < t%d.ts + t%d.dur", (int)i, (int)i);
  }
  sqlite3_str_appendall(out, ")");
  return sqlite3_str_errcode(out) == SQLITE_OK ? 0 : (snprintf(msg, msg_len, "out of memory"), -1);
}

static int unparenthesize(const char *const *args, const size_t *lens, size_t nargs,
                          sqlite3_str *out, char *msg, size_t msg_len) {
  size_t off[64], len[64];
  int n = trak__psql_split_list(args[0], lens[0], off, len, 64);
  if (n < 0) {
    snprintf(msg, msg_len, "metasql_unparenthesize_exprlist: expected a list in parentheses");
    return -1;
  }
  for (int i = 0; i < n; i++)
    sqlite3_str_appendf(out, "%s%.*s", i ? ", " : "", (int)len[i], args[0] + off[i]);
  return 0;
}

/* The arguments joined by ", " into `out`, in quotes, escaped or as they are. */
static void quote_args(const char *const *args, const size_t *lens, size_t nargs,
                       sqlite3_str *out, int escape) {
  sqlite3_str *text = sqlite3_str_new(NULL);
  for (size_t i = 0; i < nargs; i++)
    sqlite3_str_appendf(text, "%s%.*s", i ? ", " : "", (int)lens[i], args[i]);
  char *joined = sqlite3_str_finish(text);
  sqlite3_str_appendf(out, escape ? "%Q" : "'%s'", joined ? joined : "");
  sqlite3_free(joined);
}

static int stringify(const char *const *args, const size_t *lens, size_t nargs, sqlite3_str *out,
                     char *msg, size_t msg_len) {
  (void)msg, (void)msg_len;
  quote_args(args, lens, nargs, out, 0);
  return 0;
}

static int quote(const char *const *args, const size_t *lens, size_t nargs, sqlite3_str *out,
                 char *msg, size_t msg_len) {
  (void)msg, (void)msg_len;
  quote_args(args, lens, nargs, out, 1);
  return 0;
}

int trak__psql_builtin_macros_register(psql_macros *m) {
  int rc = trak__psql_macro_define_builtin(m, "_interval_intersect", 2, interval_intersect);
  if (!rc)
    rc = trak__psql_macro_define_builtin(m, "metasql_unparenthesize_exprlist", 1, unparenthesize);
  if (!rc)
    rc = trak__psql_macro_define_builtin(m, "__intrinsic_stringify", PSQL_VARIADIC, stringify);
  if (!rc) rc = trak__psql_macro_define_builtin(m, "__trak_quote", PSQL_VARIADIC, quote);
  return rc;
}
