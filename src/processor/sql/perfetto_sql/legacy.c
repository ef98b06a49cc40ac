/*
** This file holds the function-call forms older PerfettoSQL used before it had statements for
** them, still found in published queries: SELECT create_function('f(x INT)', 'INT', 'body'),
** create_view_function('f(x INT)', 'col INT, ...', 'body'), IMPORT('a.b') and
** EXPERIMENTAL_MEMOIZE('f'). Each is recognised as a whole statement and run as its modern form,
** so that, as in Perfetto, it prints nothing. RUN_METRIC('file.sql', ...) is recognised to say
** plainly that trak has no metrics.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"

enum { MAX_ARGS = 16 };

/* The value of SQL string literal token `t` ('it''s' -> it's), malloc'ed, or NULL. */
static char *unquote(const char *s, psql_tok t) {
  if (t.kind != PSQL_STRING || s[t.off] != '\'' || t.len < 2) return NULL;
  char *out = malloc(t.len);
  if (!out) return NULL;
  size_t w = 0;
  for (size_t i = t.off + 1; i + 1 < t.off + t.len; i++) {
    out[w++] = s[i];
    if (s[i] == '\'') i++; /* '' stands for one quote */
  }
  out[w] = 0;
  return out;
}

/* Runs the modern statement `sql`, reporting its errors at `off` of the user's text. */
static int run(trak_processor *p, const char *sql, size_t off, char *msg, size_t msg_len,
               size_t *err_off) {
  size_t inner = 0;
  int rc = sql ? trak__psql_run_statement(p, sql, 0, strlen(sql), msg, msg_len, &inner) : -1;
  if (!sql) snprintf(msg, msg_len, "out of memory");
  if (rc < 0) *err_off = off;
  return rc < 0 ? -1 : 0;
}

int trak__psql_run_legacy(trak_processor *p, const char *s, size_t start, size_t end, char *msg,
                          size_t msg_len, size_t *err_off) {
  static const struct {
    const char *name;
    size_t nargs;
  } forms[] = {{"create_function", 3},
               {"create_view_function", 3},
               {"IMPORT", 1},
               {"EXPERIMENTAL_MEMOIZE", 1},
               {"RUN_METRIC", 0}};            /* 0: any number */
  psql_tok t = trak__psql_lex(s, end, start); /* SELECT */
  psql_tok fn = trak__psql_lex(s, end, t.off + t.len);
  size_t form = sizeof forms / sizeof *forms;
  for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
    if (trak__psql_is(s, fn, forms[i].name)) form = i;
  if (form == sizeof forms / sizeof *forms) return 0;
  t = trak__psql_lex(s, end, fn.off + fn.len);
  if (!trak__psql_is_char(s, t, '(')) return 0;
  /* Only the exact shape name('...', ...) [;] is the legacy statement; anything else (another
  ** column, a non-literal argument) stays plain SQL and fails there as an unknown function. */
  psql_tok args[MAX_ARGS];
  size_t n = 0;
  for (;;) {
    t = trak__psql_lex(s, end, t.off + t.len);
    if (t.kind != PSQL_STRING || n == MAX_ARGS) return 0;
    args[n++] = t;
    t = trak__psql_lex(s, end, t.off + t.len);
    if (trak__psql_is_char(s, t, ')')) break;
    if (!trak__psql_is_char(s, t, ',')) return 0;
  }
  t = trak__psql_lex(s, end, t.off + t.len);
  if (trak__psql_is_char(s, t, ';')) t = trak__psql_lex(s, end, t.off + t.len);
  if (t.kind != PSQL_EOF) return 0;
  if (forms[form].nargs && n != forms[form].nargs) {
    snprintf(msg, msg_len, "%s takes %zu string arguments, not %zu", forms[form].name,
             forms[form].nargs, n);
    *err_off = fn.off;
    return -1;
  }
  char *a[MAX_ARGS] = {0};
  int rc = 0;
  for (size_t i = 0; i < n; i++)
    if (!(a[i] = unquote(s, args[i]))) {
      snprintf(msg, msg_len, "%s: argument %zu must be a string in single quotes", forms[form].name,
               i + 1);
      *err_off = args[i].off;
      rc = -1;
    }
  if (!rc) {
    char *sql = NULL;
    switch (form) {
    case 0:
      sql = sqlite3_mprintf("CREATE OR REPLACE PERFETTO FUNCTION %s RETURNS %s AS %s", a[0], a[1],
                            a[2]);
      rc = run(p, sql, fn.off, msg, msg_len, err_off);
      break;
    case 1:
      sql = sqlite3_mprintf("CREATE OR REPLACE PERFETTO FUNCTION %s RETURNS TABLE(%s) AS %s", a[0],
                            a[1], a[2]);
      rc = run(p, sql, fn.off, msg, msg_len, err_off);
      break;
    case 2:
      if (trak__psql_include(p, a[0], msg, msg_len)) rc = -1, *err_off = args[0].off;
      break;
    case 3:
      if (trak__psql_function_memoize(p, a[0], msg, msg_len)) rc = -1, *err_off = args[0].off;
      break;
    default:
      snprintf(msg, msg_len,
               "RUN_METRIC: trak has no metrics to run ('%s'); its standard modules "
               "(INCLUDE PERFETTO MODULE) hold what it offers",
               a[0]);
      *err_off = fn.off;
      rc = -1;
      break;
    }
    sqlite3_free(sql);
  }
  for (size_t i = 0; i < n; i++)
    free(a[i]);
  return rc ? -1 : 1;
}
