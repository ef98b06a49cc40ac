/*
** This file drives PerfettoSQL over a text: statement by statement, PerfettoSQL statements run
** here, plain SQL has its macros expanded and is prepared by SQLite. Errors carry the statement,
** line and column in the text the user wrote (or the module's name and line).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"

/* The first words of the statement at `off`, for messages: "CREATE PERFETTO FUNCTION f",
** "INCLUDE PERFETTO MODULE slices.with_context", "SELECT". */
static void describe(const char *s, size_t n, size_t off, char *out, size_t len) {
  static const char *const keywords[] = {"CREATE",  "OR",   "REPLACE", "PERFETTO",
                                         "INCLUDE", "DROP", "MODULE",  "FUNCTION",
                                         "TABLE",   "VIEW", "MACRO",   "INDEX"};
  size_t w = 0;
  out[0] = 0;
  psql_tok t = trak__psql_lex(s, n, off);
  for (int words = 0; words < 6 && t.kind == PSQL_ID; words++) {
    int keyword = 0;
    for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++)
      keyword |= trak__psql_is(s, t, keywords[k]);
    size_t stop = t.off + t.len;
    if (!keyword) { /* the name: extend over a dotted name written without spaces */
      for (psql_tok u = trak__psql_lex(s, n, stop);
           u.off == stop && u.kind != PSQL_EOF &&
           (u.kind == PSQL_ID || s[u.off] == '.' || s[u.off] == '*');
           u = trak__psql_lex(s, n, stop))
        stop = u.off + u.len;
    }
    int k = snprintf(out + w, len - w, "%s%.*s", w ? " " : "", (int)(stop - t.off), s + t.off);
    if (k < 0 || (size_t)k >= len - w || !keyword) break;
    w += (size_t)k;
    t = trak__psql_lex(s, n, stop);
  }
}

/* Line and column of `off` in the text, continuing the count of the previous call when the
** text is the tail that call returned. */
static void position(trak_psql *st, const char *sql, size_t off, int *line, int *col) {
  trak__psql_line_col(sql, off, line, col);
  if (sql != st->last_tail) return;
  if (*line == 1) *col += st->tail_col - 1;
  *line += st->tail_line - 1;
}

/* Writes "message (statement at line L, column C)" into msg. `user` is the error text. */
static void locate(trak_processor *p, const char *sql, const char *origin, size_t stmt_off,
                   size_t err_off, const char *user, char *msg, size_t msg_len) {
  char what[160];
  int line, col;
  describe(sql, strlen(sql), stmt_off, what, sizeof what);
  if (origin)
    trak__psql_line_col(sql, err_off, &line, &col);
  else
    position(p->psql, sql, err_off, &line, &col);
  char *copy = strdup(user); /* `user` may live in `msg` */
  const char *text = copy ? copy : user;
  if (origin)
    snprintf(msg, msg_len, "%s (module %s, line %d, column %d)", text, origin, line, col);
  else if (what[0])
    snprintf(msg, msg_len, "%s (%s at line %d, column %d)", text, what, line, col);
  else
    snprintf(msg, msg_len, "%s (line %d, column %d)", text, line, col);
  free(copy);
}

/* Writes the statement from `off` to `end` into the set-up's schema batch if there is one and it
** is a CREATE the batch takes (sql/schema_batch.c): 1 if written, 0 if not, -1 on an error. */
static int batch_write(trak_processor *p, const char *sql, size_t off, size_t end) {
  if (!p->schema_batch) return 0;
  while (end > off && strchr(" \t\n;", sql[end - 1]))
    end--;
  int rc = trak__sql_schema_write(p, sql + off, end - off);
  return rc == SQLITE_NOTFOUND ? 0 : rc == SQLITE_OK ? 1 : -1;
}

int trak__psql_prepare_at(trak_processor *p, const char *sql, size_t pos, sqlite3_stmt **out,
                          size_t *next, size_t *stmt_off, size_t *err_off, char *msg,
                          size_t msg_len) {
  trak_psql *st = p->psql;
  size_t n = strlen(sql);
  *out = NULL;
  int rc = 0;
  for (;;) {
    psql_tok t = trak__psql_lex(sql, n, pos);
    if (t.kind == PSQL_EOF) {
      pos = n;
      break;
    }
    size_t end = trak__psql_statement_end(sql, n, t.off);
    *stmt_off = *err_off = t.off;
    int r = trak__psql_run_statement(p, sql, t.off, end, msg, msg_len, err_off);
    if (r < 0) {
      rc = -1;
      pos = end;
      break;
    }
    if (r == 1) {
      pos = end;
      continue;
    }
    *err_off = t.off;
    if (!trak__psql_has_macro_call(sql + t.off, end - t.off)) {
      const char *rest = NULL;
      /* A module's plain CREATE VIEW during the set-up goes into its schema batch. */
      int written = batch_write(p, sql, t.off, end);
      if (written) {
        if (written < 0) snprintf(msg, msg_len, "%s", sqlite3_errmsg(p->db));
        rc = written < 0 ? -1 : 0;
        pos = end;
        if (rc) break;
        continue;
      }
      if (trak__psql_lazy_ensure(p, sql + t.off, end - t.off, msg, msg_len)) {
        rc = -1;
        pos = end;
        break;
      }
      if (trak__psql_column_aggregates(p, sql + t.off, end - t.off, out) ||
          trak__psql_join_aggregates(p, sql + t.off, end - t.off, out)) {
        pos = end;
        break;
      }
      if (trak__psql_window_top(p, sql + t.off, end - t.off, out) ||
          trak__psql_end_bound(p, sql + t.off, end - t.off, out) ||
          trak__psql_count_distinct(p, sql + t.off, end - t.off, out)) {
        pos = end;
        break;
      }
      if (sqlite3_prepare_v2(p->db, sql + t.off, (int)(n - t.off), out, &rest) != SQLITE_OK) {
        int at = sqlite3_error_offset(p->db);
        *err_off = at >= 0 ? t.off + (size_t)at : t.off;
        snprintf(msg, msg_len, "%s", sqlite3_errmsg(p->db));
        rc = -1;
        pos = end;
        break;
      }
      pos = (size_t)(rest - sql);
      if (*out) break;
      continue;
    }
    psql_expansion e;
    size_t at_macro = 0;
    if (trak__psql_expand(st->macros, sql + t.off, end - t.off, &e, msg, msg_len, &at_macro)) {
      *err_off = t.off + at_macro;
      rc = -1;
      pos = end;
      break;
    }
    if (trak__psql_lazy_ensure(p, e.text, e.len, msg, msg_len)) {
      rc = -1;
    } else if (sqlite3_prepare_v2(p->db, e.text, (int)e.len, out, NULL) != SQLITE_OK) {
      int at = sqlite3_error_offset(p->db);
      if (at >= 0) *err_off = t.off + trak__psql_expansion_source(&e, (size_t)at);
      snprintf(msg, msg_len, "%s", sqlite3_errmsg(p->db));
      rc = -1;
    }
    trak__psql_expansion_free(&e);
    pos = end;
    if (rc || *out) break;
  }
  *next = pos;
  return rc;
}

/* trak__psql_prepare starting at byte `pos` of `sql`, so that positions count from its start,
** with the error located. *next is where the following statement starts. */
static int prepare_from(trak_processor *p, const char *sql, size_t pos, const char *origin,
                        sqlite3_stmt **out, size_t *next, char *msg, size_t msg_len) {
  size_t stmt_off = 0, err_off = 0;
  char inner[1024];
  if (!trak__psql_prepare_at(p, sql, pos, out, next, &stmt_off, &err_off, inner, sizeof inner))
    return 0;
  locate(p, sql, origin, stmt_off, err_off, inner, msg, msg_len);
  return -1;
}

int trak__psql_prepare(trak_processor *p, const char *sql, const char *origin, sqlite3_stmt **out,
                       const char **tail, char *msg, size_t msg_len) {
  trak_psql *st = p->psql;
  int line, col;
  size_t next;
  /* Where the caller's text started, in case it is the tail of the previous call. */
  const char *prev_tail = st->last_tail;
  int prev_line = st->tail_line, prev_col = st->tail_col;
  int rc = prepare_from(p, sql, 0, origin, out, &next, msg, msg_len);
  if (tail) *tail = sql + next;
  if (!origin) {
    /* Remember where this text's tail sits, for a caller that continues with it. */
    st->last_tail = prev_tail;
    st->tail_line = prev_line;
    st->tail_col = prev_col;
    position(st, sql, next, &line, &col);
    st->last_tail = sql + next;
    st->tail_line = line;
    st->tail_col = col;
  }
  return rc;
}

int trak__psql_exec(trak_processor *p, const char *sql, const char *origin, char *msg,
                    size_t msg_len) {
  size_t pos = 0;
  while (sql[pos]) {
    sqlite3_stmt *st;
    if (prepare_from(p, sql, pos, origin, &st, &pos, msg, msg_len)) return -1;
    if (!st) break;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    }
    if (rc != SQLITE_DONE) {
      snprintf(msg, msg_len, "%s (%s%s)", sqlite3_errmsg(p->db), origin ? "module " : "",
               origin ? origin : "statement");
      sqlite3_finalize(st);
      return -1;
    }
    sqlite3_finalize(st);
  }
  return 0;
}

/* The built-in macros, as if defined by CREATE PERFETTO MACRO. */
static const struct {
  const char *name, *param, *body;
} builtin_macros[] = {
    {"cast_int", "value", "CAST($value AS INT)"},
    {"cast_double", "value", "CAST($value AS REAL)"},
    {"cast_string", "value", "CAST($value AS TEXT)"},
};

int trak__psql_init(trak_processor *p, trak_error *err) {
  trak_psql *st = calloc(1, sizeof *st);
  if (st) st->macros = trak__psql_macros_new();
  if (st) st->included = calloc(trak__psql_stdlib_count + 1, 1);
  p->psql = st;
  if (!st || !st->macros || !st->included) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  char msg[1024];
  for (size_t i = 0; i < sizeof builtin_macros / sizeof *builtin_macros; i++) {
    char *param = (char *)builtin_macros[i].param;
    if (trak__psql_macro_define(st->macros, builtin_macros[i].name, strlen(builtin_macros[i].name),
                                &param, 1, builtin_macros[i].body, strlen(builtin_macros[i].body),
                                0, msg, sizeof msg))
      return trak_error_set(err, TRAK_ENOMEM, "cannot set up PerfettoSQL: %s", msg);
  }
  if (trak__psql_builtin_macros_register(st->macros))
    return trak_error_set(err, TRAK_ENOMEM, "cannot set up PerfettoSQL: out of memory");
  if (trak__psql_prelude_register(p) != SQLITE_OK)
    return trak_error_set(err, TRAK_ENOMEM, "cannot set up the prelude: %s", sqlite3_errmsg(p->db));
  if (trak__psql_include(p, "prelude.*", msg, sizeof msg))
    return trak_error_set(err, TRAK_EINVAL, "cannot set up the prelude: %s", msg);
  return 0;
}

void trak__psql_free(trak_processor *p) {
  if (!p->psql) return;
  trak__psql_functions_free(p);
  trak__psql_tables_free(p);
  trak__psql_ptables_free(p);
  trak__psql_lazy_free(p);
  trak__psql_macros_free(p->psql->macros);
  free(p->psql->included);
  free(p->psql);
  p->psql = NULL;
}
