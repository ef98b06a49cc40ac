/*
** Metrics (docs/analysis.md): a metric is a SQL file, built in (analysis_builtins.c) or found
** as DIR/<name>.sql, that creates a `<name>_output` table or view and optionally
** `<name>_annotations`. Two directives, each alone on its line, are handled before SQLite sees
** the text: `INCLUDE other;` runs metric `other` first (once per processor), and
** `PARAM key DEFAULT value;` gives a default to a parameter that the text uses as `{{key}}`
** (replaced textually; callers pass `key=value`). Directive lines become blank lines, so SQL
** errors name the file and the line as the author sees it.
*/
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "processor/analysis.h"

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

static int run_metric(run_ctx *c, const char *name, trak_error *err);

/* Handles a directive line [s, e) if it is one (blanking it in `out`); 1 if it was. */
static int directive(run_ctx *c, const char *s, const char *e, const char *source, int line,
                     text_buf *defaults_text, trak_error *err, int *rc) {
  while (s < e && isspace((unsigned char)*s))
    s++;
  int include = !strncasecmp(s, "INCLUDE ", 8), param = !strncasecmp(s, "PARAM ", 6);
  if (!include && !param) return 0;
  const char *a = s + (include ? 8 : 6);
  while (a < e && isspace((unsigned char)*a))
    a++;
  const char *z = e;
  while (z > a && (isspace((unsigned char)z[-1]) || z[-1] == ';'))
    z--;
  if (include) {
    if (z > a && (*a == '\'' || *a == '"')) a++, z--; /* INCLUDE 'name.sql'; */
    if (z - a > 4 && !memcmp(z - 4, ".sql", 4)) z -= 4;
    char inc[128];
    if (!valid_name(a, (size_t)(z - a)) || (size_t)(z - a) >= sizeof inc) {
      *rc = trak_error_set(err, TRAK_EINVAL, "%s:%d: bad INCLUDE", source, line);
      return 1;
    }
    memcpy(inc, a, (size_t)(z - a));
    inc[z - a] = 0;
    *rc = run_metric(c, inc, err);
    return 1;
  }
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
  for (const char *b = body.v; !rc && *b;) {
    const char *open = strstr(b, "{{");
    if (!open) {
      buf_add(out, b, strlen(b));
      break;
    }
    const char *close = strstr(open, "}}");
    buf_add(out, b, (size_t)(open - b));
    size_t vlen = 0;
    const char *v =
        close ? param_value(c, open + 2, (size_t)(close - open - 2), defaults, nd, &vlen) : NULL;
    if (!v) {
      rc = trak_error_set(err, TRAK_EINVAL, "%s:%d: unknown parameter %.*s", source,
                          line_of(body.v, open), close ? (int)(close - open + 2) : 2, open);
      break;
    }
    buf_add(out, v, vlen);
    b = close + 2;
  }
  trak_vec_free(defaults_text);
  trak_vec_free(body);
  return rc;
}

/* Runs every statement of `sql`; an error names source:line (of the failing token when SQLite
** says where it is, else of the statement's first token). */
static int exec_sql(trak_processor *p, const char *sql, const char *source, trak_error *err) {
  const char *rest = sql;
  while (*rest) {
    sqlite3_stmt *st = NULL;
    const char *prev = rest, *start = rest;
    while (*start && isspace((unsigned char)*start))
      start++;
    int rc = sqlite3_prepare_v2(p->db, rest, -1, &st, &rest);
    if (rc == SQLITE_OK && st) {
      while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      }
      rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    if (rc != SQLITE_OK) {
      int off = sqlite3_error_offset(p->db);
      const char *at = off >= 0 && (size_t)off <= strlen(prev) ? prev + off : start;
      int line = line_of(sql, at);
      trak_error_set(err, TRAK_EINVAL, "%s:%d: %s", source, line, sqlite3_errmsg(p->db));
      sqlite3_finalize(st);
      return TRAK_EINVAL;
    }
    sqlite3_finalize(st);
    if (!st && rest == prev) break;
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

int trak_processor_compute_metrics(trak_processor *p, const char *const *names, size_t n,
                                   const trak_metrics_options *opts, trak_error *err) {
  if (!p->db) return trak_error_set(err, TRAK_ESTATE, "the trace is not finished");
  run_ctx c = {p, opts, {0}, 0};
  for (size_t i = 0; i < n; i++) {
    if (!valid_name(names[i], strlen(names[i])))
      return trak_error_set(err, TRAK_EINVAL, "bad metric name '%s' (letters, digits, _)",
                            names[i]);
    int rc = run_metric(&c, names[i], err);
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
