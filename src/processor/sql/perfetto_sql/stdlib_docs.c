/*
** This file holds __intrinsic_stdlib_objects, Perfetto's catalogue of the standard library: a
** row per module trak ships and per table, view, function, table function and macro they
** define, with the documentation their .sql files carry. It reads the embedded module texts
** when queried. The documentation format is Perfetto's: `--` comment lines directly above a
** CREATE PERFETTO statement describe the object, above a column or argument describe it, and
** above RETURNS describe the result. Objects whose name starts with '_' are internal.
**
** Columns: package, module, name, qualified_name, object_type (MODULE, TABLE, VIEW, FUNCTION,
** TABLE_FUNCTION, MACRO), exposed, short_description (the first 160 bytes), summary (all of it
** as text, for searching), description, return_type, return_description, and args and cols as
** JSON arrays of {"name", "type", "description"}.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"

enum {
  C_PACKAGE,
  C_MODULE,
  C_NAME,
  C_QUALIFIED,
  C_TYPE,
  C_EXPOSED,
  C_SHORT,
  C_SUMMARY,
  C_DESCRIPTION,
  C_RETURN_TYPE,
  C_RETURN_DESCRIPTION,
  C_ARGS,
  C_COLS,
  NCOLS
};

enum { SHORT_DESCRIPTION_BYTES = 160, MAX_ENTRIES = 128 };

/* A column or an argument. */
typedef struct entry {
  char *name, *type, *description;
} entry;

typedef struct object {
  char *name, *description, *return_type, *return_description;
  const char *kind;
  entry args[MAX_ENTRIES], cols[MAX_ENTRIES];
  size_t nargs, ncols;
} object;

/* ---- parsing ------------------------------------------------------------------------------- */

/* The `--` comment lines in s[from..to) after its last blank or code line, joined by spaces.
** `from` is the end of the previous token and `to` the start of the next, so the first and last
** pieces are the rests of those tokens' lines. */
static char *comment_before(const char *s, size_t from, size_t to) {
  sqlite3_str *out = sqlite3_str_new(NULL);
  for (size_t i = from; i < to;) {
    size_t eol = i;
    while (eol < to && s[eol] != '\n')
      eol++;
    size_t a = i, b = eol;
    while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r'))
      a++;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r'))
      b--;
    int whole_line = i != from && eol < to;
    if (b - a >= 2 && s[a] == '-' && s[a + 1] == '-') {
      for (a += 2; a < b && s[a] == ' '; a++) {
      }
      if (b > a) {
        if (sqlite3_str_length(out)) sqlite3_str_appendchar(out, 1, ' ');
        sqlite3_str_append(out, s + a, (int)(b - a));
      }
    } else if (whole_line || a < b) {
      sqlite3_str_reset(out); /* a blank line or code: what came before is not ours */
    }
    i = eol + 1;
  }
  char *text = sqlite3_str_finish(out);
  char *copy = strdup(text ? text : "");
  sqlite3_free(text);
  return copy;
}

typedef struct scan {
  const char *s;
  size_t n;
  psql_tok t;
  size_t prev_end; /* end of the token before t */
} scan;

static void next(scan *sc) {
  sc->prev_end = sc->t.off + sc->t.len;
  sc->t = trak__psql_lex(sc->s, sc->n, sc->prev_end);
}

static int is(scan *sc, const char *word) {
  return trak__psql_is(sc->s, sc->t, word);
}

static char *token_text(scan *sc) {
  const char *v = sc->s + sc->t.off;
  size_t n = sc->t.len;
  if (sc->t.kind == PSQL_VAR && n > 1) v++, n--;
  if (n >= 2 && (*v == '"' || *v == '`' || *v == '[')) v++, n -= 2;
  return strndup(v, n);
}

/* `(name TYPE, ...)` with the comment above each item; the scan ends after ')'. */
static void parse_entries(scan *sc, entry *out, size_t *n) {
  if (!trak__psql_is_char(sc->s, sc->t, '(')) return;
  next(sc);
  while (sc->t.kind != PSQL_EOF && !trak__psql_is_char(sc->s, sc->t, ')')) {
    entry e = {0};
    e.description = comment_before(sc->s, sc->prev_end, sc->t.off);
    e.name = token_text(sc);
    next(sc);
    size_t start = sc->t.off, stop = start;
    int depth = 0;
    while (sc->t.kind != PSQL_EOF) {
      if (depth == 0 &&
          (trak__psql_is_char(sc->s, sc->t, ',') || trak__psql_is_char(sc->s, sc->t, ')')))
        break;
      if (trak__psql_is_char(sc->s, sc->t, '(')) depth++;
      if (trak__psql_is_char(sc->s, sc->t, ')')) depth--;
      stop = sc->t.off + sc->t.len;
      next(sc);
    }
    e.type = strndup(sc->s + start, stop - start);
    if (*n < MAX_ENTRIES) {
      out[(*n)++] = e;
    } else {
      free(e.name), free(e.type), free(e.description);
    }
    if (trak__psql_is_char(sc->s, sc->t, ',')) next(sc);
  }
  if (trak__psql_is_char(sc->s, sc->t, ')')) next(sc);
}

/* Parses the CREATE PERFETTO statement at sc->t, if it is one. Returns 1 with `o` filled. */
static int parse_object(scan *sc, object *o) {
  memset(o, 0, sizeof *o);
  size_t stmt_gap = sc->prev_end, stmt_off = sc->t.off;
  if (!is(sc, "CREATE")) return 0;
  next(sc);
  if (is(sc, "OR")) {
    next(sc);
    next(sc); /* REPLACE */
  }
  if (!is(sc, "PERFETTO")) return 0;
  next(sc);
  int table = is(sc, "TABLE"), view = is(sc, "VIEW"), fn = is(sc, "FUNCTION"),
      macro = is(sc, "MACRO");
  if (!table && !view && !fn && !macro) return 0;
  next(sc);
  o->description = comment_before(sc->s, stmt_gap, stmt_off);
  o->name = token_text(sc);
  next(sc);
  if (table || view) {
    o->kind = table ? "TABLE" : "VIEW";
    parse_entries(sc, o->cols, &o->ncols);
    return 1;
  }
  o->kind = fn ? "FUNCTION" : "MACRO";
  parse_entries(sc, o->args, &o->nargs);
  if (!is(sc, "RETURNS")) return 1;
  o->return_description = comment_before(sc->s, sc->prev_end, sc->t.off);
  next(sc);
  if (fn && is(sc, "TABLE")) {
    o->kind = "TABLE_FUNCTION";
    o->return_type = strdup("TABLE");
    next(sc);
    parse_entries(sc, o->cols, &o->ncols);
    return 1;
  }
  size_t start = sc->t.off, stop = start;
  while (sc->t.kind != PSQL_EOF && !is(sc, "AS") && !is(sc, "DELEGATES")) {
    stop = sc->t.off + sc->t.len;
    next(sc);
  }
  o->return_type = strndup(sc->s + start, stop - start);
  return 1;
}

static void object_free(object *o) {
  free(o->name), free(o->description), free(o->return_type), free(o->return_description);
  for (size_t i = 0; i < o->nargs; i++)
    free(o->args[i].name), free(o->args[i].type), free(o->args[i].description);
  for (size_t i = 0; i < o->ncols; i++)
    free(o->cols[i].name), free(o->cols[i].type), free(o->cols[i].description);
}

/* ---- the rows ------------------------------------------------------------------------------ */

static void json_string(sqlite3_str *out, const char *v) {
  sqlite3_str_appendchar(out, 1, '"');
  for (const unsigned char *p = (const unsigned char *)(v ? v : ""); *p; p++) {
    if (*p == '"' || *p == '\\')
      sqlite3_str_appendf(out, "\\%c", *p);
    else if (*p < 0x20)
      sqlite3_str_appendf(out, "\\u%04x", *p);
    else
      sqlite3_str_appendchar(out, 1, (char)*p);
  }
  sqlite3_str_appendchar(out, 1, '"');
}

static char *entries_json(const entry *e, size_t n) {
  sqlite3_str *out = sqlite3_str_new(NULL);
  sqlite3_str_appendchar(out, 1, '[');
  for (size_t i = 0; i < n; i++) {
    sqlite3_str_appendall(out, i ? ",{\"name\":" : "{\"name\":");
    json_string(out, e[i].name);
    sqlite3_str_appendall(out, ",\"type\":");
    json_string(out, e[i].type);
    sqlite3_str_appendall(out, ",\"description\":");
    json_string(out, e[i].description);
    sqlite3_str_appendchar(out, 1, '}');
  }
  sqlite3_str_appendchar(out, 1, ']');
  return sqlite3_str_finish(out);
}

static void summary_entries(sqlite3_str *out, const char *heading, const entry *e, size_t n) {
  if (!n) return;
  sqlite3_str_appendf(out, "\n%s:", heading);
  for (size_t i = 0; i < n; i++) {
    sqlite3_str_appendf(out, "\n- %s (%s)", e[i].name, e[i].type);
    if (e[i].description && *e[i].description) sqlite3_str_appendf(out, ": %s", e[i].description);
  }
}

/* "package module name" with dots and underscores as spaces, for word searches. */
static void aliases(sqlite3_str *out, const char *package, const char *module, const char *name) {
  sqlite3_str *a = sqlite3_str_new(NULL);
  sqlite3_str_appendf(a, "%s %s", package, module);
  if (*name && strcmp(name, module)) sqlite3_str_appendf(a, " %s", name);
  char *text = sqlite3_str_finish(a);
  for (char *p = text; p && *p; p++)
    if (*p == '.' || *p == '_') *p = ' ';
  sqlite3_str_appendall(out, text ? text : "");
  sqlite3_free(text);
}

typedef struct docs_cursor {
  sqlite3_vtab_cursor base;
  char **cells; /* rows * NCOLS, sqlite3_malloc'ed strings; C_EXPOSED as "0"/"1" */
  size_t rows, cap, row;
} docs_cursor;

static int add_row(docs_cursor *c, const char *package, const char *module, const object *o) {
  if (c->rows == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 128;
    char **cells = realloc(c->cells, cap * NCOLS * sizeof *cells);
    if (!cells) return SQLITE_NOMEM;
    c->cells = cells;
    c->cap = cap;
  }
  char **r = &c->cells[c->rows * NCOLS];
  int is_module = !strcmp(o->kind, "MODULE");
  int exposed = o->name[0] != '_';
  const char *description = o->description ? o->description : "";
  r[C_PACKAGE] = sqlite3_mprintf("%s", package);
  r[C_MODULE] = sqlite3_mprintf("%s", module);
  r[C_NAME] = sqlite3_mprintf("%s", o->name);
  r[C_QUALIFIED] =
      is_module ? sqlite3_mprintf("%s", module) : sqlite3_mprintf("%s.%s", module, o->name);
  r[C_TYPE] = sqlite3_mprintf("%s", o->kind);
  r[C_EXPOSED] = sqlite3_mprintf("%d", exposed);
  size_t short_len = strlen(description);
  if (short_len > SHORT_DESCRIPTION_BYTES) {
    short_len = SHORT_DESCRIPTION_BYTES;
    while (short_len > 0 && ((unsigned char)description[short_len] & 0xc0) == 0x80)
      short_len--; /* not inside a UTF-8 sequence */
  }
  r[C_SHORT] = sqlite3_mprintf("%.*s", (int)short_len, description);
  sqlite3_str *s = sqlite3_str_new(NULL);
  sqlite3_str_appendf(s, "Package: %s\nModule: %s", package, module);
  if (!is_module) sqlite3_str_appendf(s, "\nName: %s", o->name);
  sqlite3_str_appendf(s, "\nQualified name: %s\nSearch aliases: ", r[C_QUALIFIED]);
  aliases(s, package, module, o->name);
  sqlite3_str_appendf(s, "\nKind: %s %s", exposed ? "public" : "internal", o->kind);
  if (*description) sqlite3_str_appendf(s, "\nDescription: %s", description);
  summary_entries(s, "Arguments", o->args, o->nargs);
  if (o->return_type && *o->return_type) {
    sqlite3_str_appendf(s, "\nReturns: %s", o->return_type);
    if (o->return_description && *o->return_description)
      sqlite3_str_appendf(s, ": %s", o->return_description);
  }
  summary_entries(s, "Columns", o->cols, o->ncols);
  r[C_SUMMARY] = sqlite3_str_finish(s);
  r[C_DESCRIPTION] = sqlite3_mprintf("%s", description);
  r[C_RETURN_TYPE] = sqlite3_mprintf("%s", o->return_type ? o->return_type : "");
  r[C_RETURN_DESCRIPTION] =
      sqlite3_mprintf("%s", o->return_description ? o->return_description : "");
  r[C_ARGS] = entries_json(o->args, o->nargs);
  r[C_COLS] = entries_json(o->cols, o->ncols);
  c->rows++;
  for (int k = 0; k < NCOLS; k++)
    if (!r[k]) return SQLITE_NOMEM;
  return SQLITE_OK;
}

/* The modules users include: the prelude is always there, not a module in Perfetto's sense. */
static int listed(const char *module) {
  return strncmp(module, "prelude.", 8) != 0;
}

static int fill(docs_cursor *c) {
  for (size_t m = 0; m < trak__psql_stdlib_count; m++) {
    const char *module = trak__psql_stdlib[m].name, *sql = trak__psql_stdlib[m].sql;
    if (!listed(module)) continue;
    char package[64];
    size_t plen = strcspn(module, ".");
    snprintf(package, sizeof package, "%.*s", (int)plen, module);
    object o = {.name = (char *)module, .kind = "MODULE"};
    int rc = add_row(c, package, module, &o);
    scan sc = {sql, strlen(sql), {PSQL_EOF, 0, 0}, 0};
    sc.t = trak__psql_lex(sc.s, sc.n, 0);
    while (rc == SQLITE_OK && sc.t.kind != PSQL_EOF) {
      size_t end = trak__psql_statement_end(sc.s, sc.n, sc.t.off);
      if (parse_object(&sc, &o)) rc = add_row(c, package, module, &o);
      object_free(&o);
      sc.prev_end = end;
      sc.t = trak__psql_lex(sc.s, sc.n, end);
    }
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

/* ---- the virtual table --------------------------------------------------------------------- */

static int docs_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err) {
  (void)aux, (void)argc, (void)argv, (void)err;
  int rc = sqlite3_declare_vtab(
      db, "CREATE TABLE x(package TEXT, module TEXT, name TEXT, qualified_name TEXT, "
          "object_type TEXT, exposed INTEGER, short_description TEXT, summary TEXT, "
          "description TEXT, return_type TEXT, return_description TEXT, args TEXT, cols TEXT)");
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  *out = v;
  return SQLITE_OK;
}

static int docs_disconnect(sqlite3_vtab *v) {
  sqlite3_free(v);
  return SQLITE_OK;
}

static int docs_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  (void)v;
  info->estimatedCost = 10000;
  return SQLITE_OK;
}

static void docs_clear(docs_cursor *c) {
  for (size_t i = 0; c->cells && i < c->rows * NCOLS; i++)
    sqlite3_free(c->cells[i]);
  free(c->cells);
  c->cells = NULL;
  c->rows = c->cap = c->row = 0;
}

static int docs_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
  (void)v;
  docs_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *out = &c->base;
  return SQLITE_OK;
}

static int docs_close(sqlite3_vtab_cursor *cur) {
  docs_clear((docs_cursor *)cur);
  free(cur);
  return SQLITE_OK;
}

static int docs_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc,
                       sqlite3_value **argv) {
  (void)idx, (void)idx_str, (void)argc, (void)argv;
  docs_cursor *c = (docs_cursor *)cur;
  docs_clear(c);
  return fill(c);
}

static int docs_next(sqlite3_vtab_cursor *cur) {
  ((docs_cursor *)cur)->row++;
  return SQLITE_OK;
}

static int docs_eof(sqlite3_vtab_cursor *cur) {
  docs_cursor *c = (docs_cursor *)cur;
  return c->row >= c->rows;
}

static int docs_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  docs_cursor *c = (docs_cursor *)cur;
  const char *v = c->cells[c->row * NCOLS + (size_t)col];
  if (col == C_EXPOSED)
    sqlite3_result_int(ctx, v[0] == '1');
  else
    sqlite3_result_text(ctx, v, -1, SQLITE_TRANSIENT);
  return SQLITE_OK;
}

static int docs_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out) {
  *out = (sqlite3_int64)((docs_cursor *)cur)->row;
  return SQLITE_OK;
}

static const sqlite3_module docs_module = {
    .iVersion = 1,
    .xConnect = docs_connect, /* no xCreate: eponymous only */
    .xBestIndex = docs_best_index,
    .xDisconnect = docs_disconnect,
    .xOpen = docs_open,
    .xClose = docs_close,
    .xFilter = docs_filter,
    .xNext = docs_next,
    .xEof = docs_eof,
    .xColumn = docs_column,
    .xRowid = docs_rowid,
};

int trak__psql_stdlib_docs_register(sqlite3 *db) {
  return sqlite3_create_module(db, "__intrinsic_stdlib_objects", &docs_module, NULL);
}
