/*
** This file holds the built-in macros whose SQL depends on how many items a list has, so they
** are written in C: _interval_intersect!((t0, t1, ...), (partition columns)) intersects tables
** of (id, ts, dur) intervals, giving each non-empty overlap of one interval from every table as
** (ts, dur, id_0, id_1, ..., partition columns); metasql_unparenthesize_exprlist!((a, b))
** gives `a, b`; __intrinsic_stringify!(any text) gives that text, expanded, between single
** quotes as Perfetto does, without doubling the quotes inside (stringify!(foo'') is 'foo'''
** which reads foo'); __trak_quote!(any text) gives it as a proper SQL string literal, which is
** what trak's modules use to hand a query to a C table function; __intrinsic_token_apply!(m,
** (a, b), (c, d)) gives `m!(a, c), m!(b, d)` (one call per item, as many as the shortest list).
*/
#include <stdio.h>

#include "processor/sql/perfetto_sql/psql.h"

enum { MAX_TABLES = 15, MAX_PARTITIONS = 8 }; /* as interval_intersect.c's columns */

/* Expands to a query of __trak_interval_intersect (interval_intersect.c), which meets the
** tables' intervals in C; each table is handed over as a BLOB its rows are packed into by the
** __trak_intervals aggregate, in the statement itself, so a table may be one of its CTEs. */
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
  sqlite3_str_appendall(out, "(SELECT ts, dur");
  for (int i = 0; i < nt; i++)
    sqlite3_str_appendf(out, ", id_%d", i);
  for (int k = 0; k < np; k++)
    sqlite3_str_appendf(out, ", p_%d AS %.*s", k, (int)plen[k], args[1] + poff[k]);
  sqlite3_str_appendall(out, " FROM __trak_interval_intersect(");
  for (int i = 0; i < nt; i++) {
    sqlite3_str_appendf(out, "%s(SELECT __trak_intervals(id, ts, dur", i ? ", " : "");
    for (int k = 0; k < np; k++)
      sqlite3_str_appendf(out, ", %.*s", (int)plen[k], args[1] + poff[k]);
    sqlite3_str_appendf(out, ") FROM %.*s)", (int)tlen[i], args[0] + toff[i]);
  }
  sqlite3_str_appendall(out, "))");
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
static void quote_args(const char *const *args, const size_t *lens, size_t nargs, sqlite3_str *out,
                       int escape) {
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

static int token_apply(const char *const *args, const size_t *lens, size_t nargs, sqlite3_str *out,
                       char *msg, size_t msg_len) {
  enum { MAX_LISTS = 8, MAX_ITEMS = 64 };
  size_t off[MAX_LISTS][MAX_ITEMS], len[MAX_LISTS][MAX_ITEMS];
  int items = MAX_ITEMS;
  if (nargs < 2 || nargs - 1 > MAX_LISTS) {
    snprintf(msg, msg_len, "__intrinsic_token_apply: expected a macro name and 1 to %d lists",
             MAX_LISTS);
    return -1;
  }
  for (size_t l = 1; l < nargs; l++) {
    int k = trak__psql_split_list(args[l], lens[l], off[l - 1], len[l - 1], MAX_ITEMS);
    if (k < 0) {
      snprintf(msg, msg_len,
               "__intrinsic_token_apply: argument %zu must be a list of at most %d items in "
               "parentheses",
               l + 1, MAX_ITEMS);
      return -1;
    }
    if (k < items) items = k;
  }
  for (int i = 0; i < items; i++) {
    sqlite3_str_appendf(out, "%s%.*s!(", i ? ", " : "", (int)lens[0], args[0]);
    for (size_t l = 1; l < nargs; l++)
      sqlite3_str_appendf(out, "%s%.*s", l > 1 ? ", " : "", (int)len[l - 1][i],
                          args[l] + off[l - 1][i]);
    sqlite3_str_appendall(out, ")");
  }
  return 0;
}

int trak__psql_builtin_macros_register(psql_macros *m) {
  int rc = trak__psql_macro_define_builtin(m, "_interval_intersect", 2, interval_intersect);
  if (!rc)
    rc = trak__psql_macro_define_builtin(m, "metasql_unparenthesize_exprlist", 1, unparenthesize);
  if (!rc)
    rc = trak__psql_macro_define_builtin(m, "__intrinsic_stringify", PSQL_VARIADIC, stringify);
  if (!rc)
    rc = trak__psql_macro_define_builtin(m, "__intrinsic_token_apply", PSQL_VARIADIC, token_apply);
  if (!rc) rc = trak__psql_macro_define_builtin(m, "__trak_quote", PSQL_VARIADIC, quote);
  return rc;
}
