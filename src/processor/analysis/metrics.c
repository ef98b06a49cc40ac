/*
** Metrics (docs/analysis.md): a metric is a SQL file, built in (analysis_builtins.c) or found
** as DIR/<name>.sql, that creates a `<name>_output` table or view and optionally
** `<name>_annotations`. Two directives, each alone on its line, are handled before SQLite sees
** the text: `INCLUDE other;` runs metric `other` first (once per processor), and
** `PARAM key DEFAULT value;` gives a default to a parameter that the text uses as `{{key}}`
** (callers pass `key=value`). A parameter's value always becomes one SQL literal: a number as
** written, anything else a quoted string, so no value can change the statement around it.
** Directive lines become blank lines, so SQL errors name the file and the line as the author
** sees it. The SQL runs as PerfettoSQL: `INCLUDE PERFETTO MODULE` (not a directive), CREATE
** PERFETTO TABLE / VIEW / FUNCTION / MACRO and macros work as in a query.
**
** Each metric named by the caller runs inside a SAVEPOINT: when it (or a metric it includes,
** or its annotations) fails, the database and the trace model are put back as they were.
*/
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "processor/analysis/analysis.h"
#include "processor/sql/perfetto_sql/psql.h"

typedef struct run_ctx {
  trak_processor *p;
  const trak_metrics_options *opts;
  const char *stack[16]; /* metrics being run, for INCLUDE cycles */
  int depth;
} run_ctx;

typedef TRAK_VEC(char) text_buf;

static void buf_add(text_buf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) trak__grow((void **)&b->v, &b->cap, b->n + n + 1, 1);
  memcpy(b->v + b->n, s, n);
  b->n += n;
  b->v[b->n] = 0;
}

static int valid_name(const char *s, size_t n) {
  if (!n) return 0;
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char)s[i]) && s[i] != '_') return 0;
  return 1;
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  text_buf b = {0};
  char chunk[4096];
  size_t got;
  buf_add(&b, "", 0);
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
    buf_add(&b, chunk, got);
  fclose(f);
  return b.v;
}

/* The metric's text (malloc'ed) and its source name for errors, or NULL. */
static char *metric_text(run_ctx *c, const char *name, char *source, size_t cap) {
  if (c->opts && c->opts->metrics_dir) {
    snprintf(source, cap, "%s/%s.sql", c->opts->metrics_dir, name);
    char *text = read_file(source);
    if (text) return text;
  }
  for (const trak_builtin_metric *m = trak__builtin_metrics; m->name; m++) {
    if (strcmp(m->name, name)) continue;
    snprintf(source, cap, "<built-in>/%s.sql", name);
    return strdup(m->sql);
  }
  return NULL;
}

/* The value of parameter `key` (len bytes): the caller's, else the metric's default. */
static const char *param_value(run_ctx *c, const char *key, size_t len, char **defaults,
                               size_t n_defaults, size_t *vlen) {
  for (size_t pass = 0; pass < 2; pass++) {
    const char *const *list = pass ? (const char *const *)defaults : c->opts ? c->opts->params : 0;
    size_t n = pass ? n_defaults : c->opts ? c->opts->n_params : 0;
    for (size_t i = n; i-- > 0;) {
      const char *eq = strchr(list[i], '=');
      if (eq && (size_t)(eq - list[i]) == len && !memcmp(list[i], key, len)) {
        *vlen = strlen(eq + 1);
        return eq + 1;
      }
    }
  }
  return NULL;
}

static int line_of(const char *text, const char *at) {
  int line = 1;
  for (const char *s = text; s < at; s++)
    line += *s == '\n';
  return line;
}

/* Whether [v, v + n) is a decimal number SQLite reads as one numeric literal: digits with an
** optional sign, fraction and exponent, nothing else. */
static int is_number(const char *v, size_t n) {
  size_t i = 0, digits = 0;
  if (i < n && (v[i] == '-' || v[i] == '+')) i++;
  for (; i < n && isdigit((unsigned char)v[i]); i++)
    digits++;
  if (i < n && v[i] == '.')
    for (i++; i < n && isdigit((unsigned char)v[i]); i++)
      digits++;
  if (!digits) return 0;
  if (i < n && (v[i] == 'e' || v[i] == 'E')) {
    if (++i < n && (v[i] == '-' || v[i] == '+')) i++;
    size_t first = i;
    while (i < n && isdigit((unsigned char)v[i]))
      i++;
    if (i == first) return 0;
  }
  return i == n;
}

/* Appends a parameter's value as one SQL literal: a number as written (in parentheses when
** signed, so `x -{{v}}` cannot turn into a `--` comment), anything else between single
** quotes with its quotes doubled. A newline is spelt char(10), so the statement keeps the
** file's line numbers for error messages. */
static void add_literal(text_buf *out, const char *v, size_t n) {
  if (is_number(v, n)) {
    int sign = v[0] == '-' || v[0] == '+';
    if (sign) buf_add(out, "(", 1);
    buf_add(out, v, n);
    if (sign) buf_add(out, ")", 1);
    return;
  }
  int multiline = memchr(v, '\n', n) != NULL;
  buf_add(out, multiline ? "('" : "'", multiline ? 2 : 1);
  for (size_t i = 0; i < n; i++) {
    if (v[i] == '\'')
      buf_add(out, "''", 2);
    else if (v[i] == '\n')
      buf_add(out, "'||char(10)||'", 14);
    else
      buf_add(out, v + i, 1);
  }
  buf_add(out, multiline ? "')" : "'", multiline ? 2 : 1);
}

/* The end of the `{{key}}` placeholder starting at s when key is a valid name, else NULL. */
static const char *placeholder_end(const char *s) {
  const char *close = strstr(s + 2, "}}");
  return close && valid_name(s + 2, (size_t)(close - s - 2)) ? close + 2 : NULL;
}

/* Copies `body` to `out` with each {{key}} replaced by its value as a literal. Placeholders
** in comments stay as written (they document the metric); one inside a quoted string or
** identifier is an error, since no literal can be spliced there. Returns 0 or an error
** naming source:line. */
static int substitute(run_ctx *c, const char *body, const char *source, char **defaults, size_t nd,
                      text_buf *out, trak_error *err) {
  const char *s = body, *copied = body;
  char quote = 0; /* the closing character while inside '...', "...", `...` or [...] */
  while (*s) {
    if (quote) {
      if (*s == quote)
        quote = 0;
      else if (s[0] == '{' && s[1] == '{' && placeholder_end(s))
        return trak_error_set(err, TRAK_EINVAL,
                              "%s:%d: parameter %.*s inside a quoted string or name (write "
                              "'text' || {{key}})",
                              source, line_of(body, s), (int)(placeholder_end(s) - s), s);
      s++;
    } else if (s[0] == '-' && s[1] == '-') {
      s += strcspn(s, "\n");
    } else if (s[0] == '/' && s[1] == '*') {
      const char *e = strstr(s + 2, "*/");
      s = e ? e + 2 : s + strlen(s);
    } else if (*s == '\'' || *s == '"' || *s == '`' || *s == '[') {
      quote = *s == '[' ? ']' : *s;
      s++;
    } else if (s[0] == '{' && s[1] == '{') {
      const char *close = strstr(s, "}}");
      size_t vlen = 0;
      const char *v =
          close ? param_value(c, s + 2, (size_t)(close - s - 2), defaults, nd, &vlen) : NULL;
      if (!v)
        return trak_error_set(err, TRAK_EINVAL, "%s:%d: unknown parameter %.*s", source,
                              line_of(body, s), close ? (int)(close - s + 2) : 2, s);
      buf_add(out, copied, (size_t)(s - copied));
      add_literal(out, v, vlen);
      s = copied = close + 2;
    } else {
      s++;
    }
  }
  buf_add(out, copied, (size_t)(s - copied));
  return 0;
}

static int run_metric(run_ctx *c, const char *name, trak_error *err);

/* Reads an INCLUDE line [s, e): 0 when it is none; 1 with the metric's name in `inc` for
** `INCLUDE other;` (or 'other.sql'); 2 with the module's name for `INCLUDE PERFETTO MODULE
** a.b;`; -1 when the name is malformed. */
static int include_line(const char *s, const char *e, char *inc, size_t cap) {
  while (s < e && isspace((unsigned char)*s))
    s++;
  if (e - s < 8 || strncasecmp(s, "INCLUDE ", 8)) return 0;
  const char *a = s + 8, *z = e;
  while (a < e && isspace((unsigned char)*a))
    a++;
  while (z > a && (isspace((unsigned char)z[-1]) || z[-1] == ';'))
    z--;
  int module = z - a > 9 && !strncasecmp(a, "PERFETTO", 8) && isspace((unsigned char)a[8]);
  if (module) {
    for (a += 8; a < z && isspace((unsigned char)*a);)
      a++;
    if (z - a < 7 || strncasecmp(a, "MODULE", 6) || !isspace((unsigned char)a[6])) return -1;
    for (a += 6; a < z && isspace((unsigned char)*a);)
      a++;
    for (const char *k = a; k < z; k++)
      if (!isalnum((unsigned char)*k) && *k != '_' && *k != '.' && *k != '*') return -1;
  } else {
    if (z > a && (*a == '\'' || *a == '"')) a++, z--; /* INCLUDE 'name.sql'; */
    if (z - a > 4 && !memcmp(z - 4, ".sql", 4)) z -= 4;
    if (!valid_name(a, (size_t)(z - a))) return -1;
  }
  if (z <= a || (size_t)(z - a) >= cap) return -1;
  memcpy(inc, a, (size_t)(z - a));
  inc[z - a] = 0;
  return module ? 2 : 1;
}

/* Handles a directive line [s, e) if it is one (blanking it in `out`); 1 if it was. INCLUDE
** PERFETTO MODULE is left in the SQL, which runs as PerfettoSQL. */
static int directive(run_ctx *c, const char *s, const char *e, const char *source, int line,
                     text_buf *defaults_text, trak_error *err, int *rc) {
  char inc[128];
  int include = include_line(s, e, inc, sizeof inc);
  if (include == 2) return 0;
  if (include) {
    *rc = include < 0 ? trak_error_set(err, TRAK_EINVAL, "%s:%d: bad INCLUDE", source, line)
                      : run_metric(c, inc, err);
    return 1;
  }
  while (s < e && isspace((unsigned char)*s))
    s++;
  if (strncasecmp(s, "PARAM ", 6)) return 0;
  const char *a = s + 6;
  while (a < e && isspace((unsigned char)*a))
    a++;
  const char *z = e;
  while (z > a && (isspace((unsigned char)z[-1]) || z[-1] == ';'))
    z--;
  /* PARAM key DEFAULT value */
  const char *k = a;
  while (a < z && !isspace((unsigned char)*a))
    a++;
  const char *ke = a;
  while (a < z && isspace((unsigned char)*a))
    a++;
  if (z - a < 8 || strncasecmp(a, "DEFAULT ", 8) || !valid_name(k, (size_t)(ke - k))) {
    *rc = trak_error_set(err, TRAK_EINVAL, "%s:%d: expected PARAM key DEFAULT value", source, line);
    return 1;
  }
  a += 8;
  while (a < z && isspace((unsigned char)*a))
    a++;
  buf_add(defaults_text, k, (size_t)(ke - k));
  buf_add(defaults_text, "=", 1);
  buf_add(defaults_text, a, (size_t)(z - a));
  buf_add(defaults_text, "\n", 1);
  return 1;
}

/* Runs INCLUDEs, collects PARAM defaults and substitutes {{key}}: the SQL to execute, with
** the line structure of the file. Returns 0 or an error naming source:line. */
static int preprocess(run_ctx *c, const char *text, const char *source, text_buf *out,
                      trak_error *err) {
  text_buf defaults_text = {0};
  buf_add(&defaults_text, "", 0);
  int rc = 0, line = 1;
  const char *s = text;
  text_buf body = {0};
  buf_add(&body, "", 0);
  while (*s && !rc) {
    const char *e = strchr(s, '\n');
    if (!e) e = s + strlen(s);
    if (!directive(c, s, e, source, line, &defaults_text, err, &rc))
      buf_add(&body, s, (size_t)(e - s));
    if (*e) buf_add(&body, "\n", 1), e++;
    s = e;
    line++;
  }
  /* defaults: "k=v\n" lines, split in place */
  char *defaults[64];
  size_t nd = 0;
  for (char *d = defaults_text.v; d && *d && nd < 64;) {
    char *nl = strchr(d, '\n');
    *nl = 0;
    defaults[nd++] = d;
    d = nl + 1;
  }
  if (!rc) rc = substitute(c, body.v, source, defaults, nd, out, err);
  trak_vec_free(defaults_text);
  trak_vec_free(body);
  return rc;
}

/* The statement [s, e) on one line for an error message: runs of white space become one
** space, and past `cap` - 4 bytes it is cut with "...". */
static void statement_excerpt(const char *s, const char *e, char *out, size_t cap) {
  size_t n = 0;
  for (; s < e && n + 4 < cap; s++) {
    if (!isspace((unsigned char)*s))
      out[n++] = *s;
    else if (n && out[n - 1] != ' ')
      out[n++] = ' ';
  }
  while (n && out[n - 1] == ' ')
    n--;
  if (s < e) memcpy(out + n, "...", 3), n += 3;
  out[n] = 0;
}

/* Runs every statement of `sql` as PerfettoSQL (INCLUDE PERFETTO MODULE, CREATE PERFETTO
** TABLE, macros, ...); an error names source:line (of the failing token when SQLite or
** PerfettoSQL says where it is, else of the statement's first token), the statement and the
** message. */
static int exec_sql(trak_processor *p, const char *sql, const char *source, trak_error *err) {
  size_t pos = 0, n = strlen(sql);
  while (pos < n) {
    sqlite3_stmt *st = NULL;
    size_t next = pos, stmt_off = pos, err_off = pos;
    char msg[1024];
    int rc = trak__psql_prepare_at(p, sql, pos, &st, &next, &stmt_off, &err_off, msg, sizeof msg)
                 ? SQLITE_ERROR
                 : SQLITE_OK;
    if (rc == SQLITE_OK && st) {
      while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      }
      rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
      if (rc != SQLITE_OK) {
        int off = sqlite3_error_offset(p->db);
        err_off = off >= 0 ? stmt_off + (size_t)off : stmt_off;
        snprintf(msg, sizeof msg, "%s", sqlite3_errmsg(p->db));
      }
    }
    if (rc != SQLITE_OK) {
      const char *start = sql + stmt_off;
      const char *end = st ? sql + next : start + strcspn(start, ";");
      char stmt[160];
      statement_excerpt(start, end, stmt, sizeof stmt);
      trak_error_set(err, TRAK_EINVAL, "%s:%d: %s (in: %s)", source, line_of(sql, sql + err_off),
                     msg, stmt);
      sqlite3_finalize(st);
      return TRAK_EINVAL;
    }
    sqlite3_finalize(st);
    if (!st) break;
    pos = next;
  }
  return 0;
}

static int metric_done(trak_analysis *a, const char *name) {
  for (size_t i = 0; i < a->n_done; i++)
    if (!strcmp(a->done[i], name)) return 1;
  return 0;
}

static int run_metric(run_ctx *c, const char *name, trak_error *err) {
  trak_analysis *a = trak__analysis(c->p);
  if (metric_done(a, name)) return 0;
  for (int i = 0; i < c->depth; i++)
    if (!strcmp(c->stack[i], name))
      return trak_error_set(err, TRAK_EINVAL, "metric %s INCLUDEs itself", name);
  if (c->depth == (int)(sizeof c->stack / sizeof *c->stack))
    return trak_error_set(err, TRAK_EINVAL, "metric %s: INCLUDEs nest too deeply", name);
  char source[4096];
  char *text = metric_text(c, name, source, sizeof source);
  if (!text) return trak_error_set(err, TRAK_ENOTFOUND, "no metric named %s", name);
  c->stack[c->depth++] = name;
  text_buf sql = {0};
  buf_add(&sql, "", 0);
  int rc = preprocess(c, text, source, &sql, err);
  if (!rc) rc = exec_sql(c->p, sql.v, source, err);
  c->depth--;
  free(text);
  trak_vec_free(sql);
  if (rc) return rc;
  a->done = realloc(a->done, (a->n_done + 1) * sizeof *a->done);
  if (!a->done || !(a->done[a->n_done++] = strdup(name))) abort();
  return trak__annotations_import(c->p, name, err);
}

/* What a metric may add to the trace model, measured before it runs. */
typedef struct model_mark {
  size_t slices, tracks, counters, args, done;
} model_mark;

static model_mark model_mark_take(trak_processor *p) {
  const trak_tables *t = &p->tables;
  return (model_mark){t->slice.n, t->track.n, t->counter.n, t->args.n, trak__analysis(p)->n_done};
}

/* Drops what a failed metric appended to the trace model (annotation tracks, slices,
** counters, args) and forgets the metrics it ran; strings it interned stay, unreferenced.
** Indexes built meanwhile are stale, as after any append. */
static void model_rollback(trak_processor *p, const model_mark *m) {
  trak_tables *t = &p->tables;
  trak_analysis *a = trak__analysis(p);
  if (t->slice.n == m->slices && t->track.n == m->tracks && t->counter.n == m->counters &&
      t->args.n == m->args && a->n_done == m->done)
    return;
  t->slice.n = m->slices, t->track.n = m->tracks, t->counter.n = m->counters;
  t->args.n = m->args;
  while (a->n_done > m->done)
    free(a->done[--a->n_done]);
  t->generation++;
  trak__csr_free(&p->children);
  p->have_children = 0;
}

/* Includes the modules that metric `name`, and the metrics it INCLUDEs, name on `INCLUDE
** PERFETTO MODULE` lines, ahead of its SAVEPOINT: a module's tables and functions belong to the
** processor (PerfettoSQL remembers it as included), so a metric's rollback must not undo them.
** Metrics that are missing or malformed are left for run_metric to report. Returns 0 or an
** error naming source:line. */
static int modules_first(run_ctx *c, const char *name, int depth, trak_error *err) {
  if (depth >= (int)(sizeof c->stack / sizeof *c->stack) || metric_done(trak__analysis(c->p), name))
    return 0;
  char source[4096];
  char *text = metric_text(c, name, source, sizeof source);
  int rc = 0, line = 1;
  for (const char *s = text; s && *s && !rc; line++) {
    const char *e = s + strcspn(s, "\n");
    char inc[128], msg[1024];
    int kind = include_line(s, e, inc, sizeof inc);
    if (kind == 1 && strcmp(inc, name)) rc = modules_first(c, inc, depth + 1, err);
    if (kind == 2 && trak__psql_include(c->p, inc, msg, sizeof msg))
      rc = trak_error_set(err, TRAK_EINVAL, "%s:%d: %s", source, line, msg);
    s = *e ? e + 1 : e;
  }
  free(text);
  return rc;
}

/* Runs one metric named by the caller, all or nothing: inside a SAVEPOINT, rolled back (SQL
** objects, alert rows, the trace model's appended rows) when it fails. */
static int run_atomic(run_ctx *c, const char *name, trak_error *err) {
  trak_processor *p = c->p;
  if (metric_done(trak__analysis(p), name)) return 0;
  int first = modules_first(c, name, 0, err);
  if (first) return first;
  if (sqlite3_exec(p->db, "SAVEPOINT trak_metric", NULL, NULL, NULL) != SQLITE_OK)
    return trak_error_set(err, TRAK_EINVAL, "metric %s: %s", name, sqlite3_errmsg(p->db));
  model_mark mark = model_mark_take(p);
  int rc = run_metric(c, name, err);
  if (rc) {
    sqlite3_exec(p->db, "ROLLBACK TO trak_metric", NULL, NULL, NULL);
    model_rollback(p, &mark);
  }
  if (sqlite3_exec(p->db, "RELEASE trak_metric", NULL, NULL, NULL) != SQLITE_OK && !rc) {
    rc = trak_error_set(err, TRAK_EINVAL, "metric %s: %s", name, sqlite3_errmsg(p->db));
    sqlite3_exec(p->db, "ROLLBACK TO trak_metric; RELEASE trak_metric", NULL, NULL, NULL);
    model_rollback(p, &mark);
  }
  return rc;
}

int trak_processor_compute_metrics(trak_processor *p, const char *const *names, size_t n,
                                   const trak_metrics_options *opts, trak_error *err) {
  int ready = trak__sql_ready(p, err);
  if (ready) return ready;
  run_ctx c = {p, opts, {0}, 0};
  for (size_t i = 0; i < n; i++) {
    if (!valid_name(names[i], strlen(names[i])))
      return trak_error_set(err, TRAK_EINVAL, "bad metric name '%s' (letters, digits, _)",
                            names[i]);
    int rc = run_atomic(&c, names[i], err);
    if (rc) return rc;
  }
  return 0;
}

int trak_processor_metric_output(trak_processor *p, const char *name, trak_query **out,
                                 trak_error *err) {
  *out = NULL;
  if (!valid_name(name, strlen(name)))
    return trak_error_set(err, TRAK_EINVAL, "bad metric name '%s'", name);
  char *sql = sqlite3_mprintf("SELECT * FROM \"%w_output\"", name);
  int rc = trak_query_open(p, sql, out, NULL, err);
  sqlite3_free(sql);
  return rc;
}

const char *trak_metric_builtin_name(size_t i) {
  size_t n = 0;
  while (trak__builtin_metrics[n].name)
    n++;
  return i < n ? trak__builtin_metrics[i].name : NULL;
}
