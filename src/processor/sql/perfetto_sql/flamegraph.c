/*
** This file holds the SQL side of Perfetto's flamegraph operator:
**
**   CREATE VIRTUAL TABLE fg USING __intrinsic_flamegraph((SELECT id, parent_id, name, value,
**                                                         ...));
**   SELECT * FROM fg(__intrinsic_flamegraph_config('value', 'value', 'view', 'TOP_DOWN', ...));
**
** The source's rows are read once, when the table is made. __intrinsic_flamegraph_config takes
** tagged arguments: 'view' V (TOP_DOWN, BOTTOM_UP, PIVOT, FROM_FRAME), 'view_pattern' regex
** flags (PIVOT and FROM_FRAME need one), 'filter' KIND regex flags (SHOW_STACK, HIDE_STACK,
** HIDE_FRAME), 'grouping' column, 'value' column (one at least; the first sets self_value,
** cumulative_value and the layout), 'aggregate' KIND column column (SUM, ONE_OR_SUMMARY,
** CONCAT_WITH_COMMA). Flags are '' or 'i' (ignore case). Its result is text the table parses
** again. `WHERE __intrinsic_flamegraph_find(_tree_id, 'SUPER_ROOT')` gives one row standing for
** the root of every root, with the source's total value. flamegraph_build.c does the work.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "processor/sql/perfetto_sql/flamegraph.h"
#include "processor/sql/perfetto_sql/psql.h"

/* The config's text form: a marker, then each argument after a separator. */
#define CONFIG_MARK                                                                                \
  "\x1e"                                                                                           \
  "flamegraph"
#define CONFIG_SEP '\x1f'

/* The operator used for __intrinsic_flamegraph_find constraints (see xFindFunction). */
#define FIND_OP (SQLITE_INDEX_CONSTRAINT_FUNCTION + 1)

enum {
  COL_CONFIG,
  COL_TREE_ID,
  COL_TREE_PARENT_ID,
  COL_DEPTH,
  COL_NAME,
  COL_SELF,
  COL_CUMULATIVE,
  COL_PARENT_CUMULATIVE,
  COL_X_START,
  COL_X_END,
  COL_PROPERTIES, /* then the source's columns after value, then self_/cumulative_ of numeric ones
                   */
  SOURCE_FIXED = 4
};

/* ---- the config --------------------------------------------------------------------------- */

static int fail(char *msg, size_t len, const char *fmt, const char *arg) {
  snprintf(msg, len, fmt, arg ? arg : "");
  return -1;
}

/* Index of `word` in the NULL-terminated `words`, or -1. */
static int word_index(const char *word, const char *const *words) {
  for (int i = 0; words[i]; i++)
    if (!strcmp(word, words[i])) return i;
  return -1;
}

static int column_index(const tree_source *src, const char *name, size_t *out, const char *what,
                        char *msg, size_t len) {
  for (size_t c = 0; c < src->ncols; c++)
    if (!strcmp(src->names[c], name)) return *out = c, 0;
  char m[160];
  snprintf(m, sizeof m, "flamegraph: %s column '%%s' does not exist", what);
  return fail(msg, len, m, name);
}

static int compile(regex_t *re, const char *pattern, const char *flags, char *msg, size_t len) {
  if (*flags && strcmp(flags, "i"))
    return fail(msg, len, "flamegraph: unknown regex flags '%s'", flags);
  int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB | (*flags ? REG_ICASE : 0));
  if (rc) return fail(msg, len, "flamegraph: bad regular expression '%s'", pattern);
  return 0;
}

static void config_free(fg_config *cfg) {
  if (cfg->has_view_pattern) regfree(&cfg->view_pattern);
  for (size_t i = 0; i < cfg->nshow; i++)
    regfree(&cfg->show[i]);
  for (size_t i = 0; i < cfg->nhide_stack; i++)
    regfree(&cfg->hide_stack[i]);
  for (size_t i = 0; i < cfg->nhide_frame; i++)
    regfree(&cfg->hide_frame[i]);
  memset(cfg, 0, sizeof *cfg);
}

/* Parses the config's arguments. Without a source, only checks their shape; with one, also
** resolves the columns and compiles the patterns into `cfg` (config_free it). */
static int config_parse(const tree_source *src, char **tok, size_t n, fg_config *cfg, char *msg,
                        size_t len) {
  static const char *const tags[] = {"view",  "view_pattern", "filter", "grouping",
                                     "value", "aggregate",    NULL};
  static const int widths[] = {1, 2, 3, 1, 1, 3};
  static const char *const views[] = {"TOP_DOWN", "BOTTOM_UP", "PIVOT", "FROM_FRAME", NULL};
  static const char *const filters[] = {"SHOW_STACK", "HIDE_STACK", "HIDE_FRAME", NULL};
  static const char *const aggs[] = {"SUM", "ONE_OR_SUMMARY", "CONCAT_WITH_COMMA", NULL};
  memset(cfg, 0, sizeof *cfg);
  int has_pattern = 0;
  for (size_t i = 0; i < n;) {
    int tag = word_index(tok[i], tags);
    if (tag < 0) return fail(msg, len, "flamegraph_config: unknown argument '%s'", tok[i]);
    if (i + (size_t)widths[tag] >= n)
      return fail(msg, len, "flamegraph_config: '%s' lacks its values", tok[i]);
    char **v = tok + i + 1;
    i += 1 + (size_t)widths[tag];
    int kind = 0;
    if (tag == 0 && (kind = word_index(v[0], views)) < 0)
      return fail(msg, len, "flamegraph_config: view: unknown value '%s'", v[0]);
    if (tag == 2 && (kind = word_index(v[0], filters)) < 0)
      return fail(msg, len, "flamegraph_config: filter: unknown value '%s'", v[0]);
    if (tag == 5 && (kind = word_index(v[0], aggs)) < 0)
      return fail(msg, len, "flamegraph_config: aggregate: unknown value '%s'", v[0]);
    if (tag == 0) cfg->view = (fg_view)kind;
    if (tag == 1) has_pattern = 1;
    if ((tag == 3 || tag == 4 || tag == 5) &&
        cfg->ngrouping + cfg->nvalues + cfg->naggs >= FG_MAX_COLS)
      return fail(msg, len, "flamegraph_config: too many columns%s", NULL);
    if (tag == 2 && cfg->nshow + cfg->nhide_stack + cfg->nhide_frame >= FG_MAX_FILTERS)
      return fail(msg, len, "flamegraph_config: too many filters%s", NULL);
    if (tag == 5 && strcmp(v[1], v[2]))
      return fail(msg, len, "flamegraph: aggregate output must match its source column%s", NULL);
    if (!src) {
      if (tag == 2 && kind == 0 && ++cfg->nshow > FG_MAX_SHOW_STACK)
        return fail(msg, len, "flamegraph: too many SHOW_STACK filters%s", NULL);
      continue;
    }
    int rc = 0;
    if (tag == 1) {
      if (cfg->has_view_pattern) regfree(&cfg->view_pattern), cfg->has_view_pattern = 0;
      rc = compile(&cfg->view_pattern, v[0], v[1], msg, len);
      cfg->has_view_pattern = !rc;
    } else if (tag == 2) {
      if (kind == 0 && cfg->nshow == FG_MAX_SHOW_STACK)
        return fail(msg, len, "flamegraph: too many SHOW_STACK filters%s", NULL);
      regex_t *re = kind == 0   ? &cfg->show[cfg->nshow]
                    : kind == 1 ? &cfg->hide_stack[cfg->nhide_stack]
                                : &cfg->hide_frame[cfg->nhide_frame];
      rc = compile(re, v[1], v[2], msg, len);
      if (!rc) kind == 0 ? cfg->nshow++ : kind == 1 ? cfg->nhide_stack++ : cfg->nhide_frame++;
    } else if (tag == 3) {
      rc = column_index(src, v[0], &cfg->grouping[cfg->ngrouping], "grouping", msg, len);
      if (!rc) cfg->ngrouping++;
    } else if (tag == 4) {
      size_t c = 0;
      rc = column_index(src, v[0], &c, "value", msg, len);
      if (!rc && src->rows && src->types[c] != TREE_INT && src->types[c] != TREE_REAL)
        rc = fail(msg, len, "flamegraph: value columns must be numeric%s", NULL);
      if (!rc) cfg->values[cfg->nvalues++] = c;
    } else if (tag == 5) {
      size_t c = 0;
      rc = column_index(src, v[1], &c, "aggregate", msg, len);
      if (!rc && kind == FG_SUM && src->types[c] != TREE_INT && src->types[c] != TREE_REAL &&
          src->types[c] != TREE_NULL)
        rc = fail(msg, len, "flamegraph: SUM aggregate columns must be numeric%s", NULL);
      if (!rc) cfg->aggs[cfg->naggs].kind = (fg_agg)kind, cfg->aggs[cfg->naggs++].col = c;
    }
    if (rc) return config_free(cfg), -1;
  }
  int pattern_view = cfg->view == FG_PIVOT || cfg->view == FG_FROM_FRAME;
  if (pattern_view != has_pattern) {
    config_free(cfg);
    return fail(msg, len, "flamegraph_config: PIVOT and FROM_FRAME require a view pattern%s", NULL);
  }
  if (src && src->rows && src->types[2] != TREE_TEXT && src->types[2] != TREE_NULL) {
    config_free(cfg);
    return fail(msg, len, "flamegraph: name column must be a string%s", NULL);
  }
  return 0;
}

/* Splits the config's text form into its arguments (pointers into `text`, which it changes).
** Returns the count, or -1 if `text` is not a config. */
static int config_split(char *text, char **tok, size_t max) {
  size_t mark = strlen(CONFIG_MARK);
  if (!text || strncmp(text, CONFIG_MARK, mark)) return -1;
  size_t n = 0;
  char *p = text + mark;
  while (*p == CONFIG_SEP) {
    if (n == max) return -1;
    *p++ = 0;
    tok[n++] = p;
    p += strcspn(p, "\x1f");
  }
  return *p ? -1 : (int)n;
}

enum { MAX_CONFIG_ARGS = 3 * FG_MAX_FILTERS + 4 * FG_MAX_COLS + 8 };

static void config_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  char *tok[MAX_CONFIG_ARGS];
  if (argc > MAX_CONFIG_ARGS) {
    sqlite3_result_error(ctx, "flamegraph_config: too many arguments", -1);
    return;
  }
  sqlite3_str *s = sqlite3_str_new(NULL);
  sqlite3_str_appendall(s, CONFIG_MARK);
  for (int i = 0; i < argc; i++) {
    const char *t = (const char *)sqlite3_value_text(argv[i]);
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL || strchr(t, CONFIG_SEP)) {
      sqlite3_free(sqlite3_str_finish(s));
      char *m = sqlite3_mprintf("flamegraph_config: argument %d must be text", i + 1);
      sqlite3_result_error(ctx, m, -1);
      sqlite3_free(m);
      return;
    }
    sqlite3_str_appendchar(s, 1, CONFIG_SEP);
    sqlite3_str_appendall(s, t);
  }
  int len = sqlite3_str_length(s);
  char *text = sqlite3_str_finish(s);
  char *copy = text ? strdup(text) : NULL;
  char msg[256];
  fg_config cfg;
  int n = copy ? config_split(copy, tok, MAX_CONFIG_ARGS) : -1;
  if (n < 0) {
    sqlite3_result_error_nomem(ctx);
  } else if (config_parse(NULL, tok, (size_t)n, &cfg, msg, sizeof msg)) {
    sqlite3_result_error(ctx, msg, -1);
  } else {
    sqlite3_result_text(ctx, text, len, sqlite3_free);
    text = NULL;
  }
  free(copy);
  sqlite3_free(text);
}

static void find_function(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc, (void)argv;
  sqlite3_result_error(ctx, "__intrinsic_flamegraph_find must constrain a flamegraph", -1);
}

/* ---- the source --------------------------------------------------------------------------- */

static int is_reserved(const char *name) {
  static const char *const reserved[] = {
      "in_config",  "_tree_id",         "_tree_parent_id",         "depth",   "name",
      "self_value", "cumulative_value", "parent_cumulative_value", "x_start", "x_end",
      NULL};
  return word_index(name, reserved) >= 0;
}

/* Runs SELECT * FROM `from` and keeps its rows. */
static int source_load(sqlite3 *db, const char *from, tree_source *src, char *msg, size_t len) {
  static const char *const fixed[] = {"id", "parent_id", "name", "value", NULL};
  char *sql = sqlite3_mprintf("SELECT * FROM %s", from);
  if (!sql) return fail(msg, len, "flamegraph: out of memory%s", NULL);
  int rc = trak__tree_source_load(db, sql, "flamegraph", fixed, src, msg, len);
  sqlite3_free(sql);
  if (rc) return -1;
  for (size_t c = SOURCE_FIXED; !rc && c < src->ncols; c++)
    if (is_reserved(src->names[c]))
      rc = fail(msg, len, "flamegraph: reserved property column '%s'", src->names[c]);
  if (!rc && src->rows && src->types[3] != TREE_INT && src->types[3] != TREE_REAL)
    rc = fail(msg, len, "flamegraph: value column must be numeric%s", NULL);
  if (rc) trak__tree_source_free(src);
  return rc;
}

/* ---- the virtual table -------------------------------------------------------------------- */

typedef struct fg_vtab {
  sqlite3_vtab base;
  tree_source src;
  size_t *numeric; /* property columns that are numbers: the self_/cumulative_ pairs */
  size_t nnumeric;
  double value_sum; /* the super root's cumulative value */
} fg_vtab;

typedef struct fg_cursor {
  sqlite3_vtab_cursor base;
  fg_config cfg;
  int has_cfg;
  fg_result res;
  size_t row;
  int super_root;
} fg_cursor;

static int vtab_error(fg_vtab *v, const char *msg) {
  sqlite3_free(v->base.zErrMsg);
  v->base.zErrMsg = sqlite3_mprintf("%s", msg);
  return SQLITE_ERROR;
}

static int fg_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
                      char **err) {
  (void)aux;
  char msg[512];
  if (argc != 4) {
    *err = sqlite3_mprintf("flamegraph: expected one argument, the source in parentheses");
    return SQLITE_ERROR;
  }
  fg_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  if (source_load(db, argv[3], &v->src, msg, sizeof msg)) {
    sqlite3_free(v);
    *err = sqlite3_mprintf("%s", msg);
    return SQLITE_ERROR;
  }
  v->numeric = calloc(v->src.ncols + 1, sizeof *v->numeric);
  sqlite3_str *s = sqlite3_str_new(db);
  sqlite3_str_appendall(s, "CREATE TABLE x(in_config HIDDEN, _tree_id INTEGER, _tree_parent_id "
                           "INTEGER, depth INTEGER, name TEXT, self_value, cumulative_value, "
                           "parent_cumulative_value, x_start, x_end");
  for (size_t c = SOURCE_FIXED; c < v->src.ncols; c++) {
    sqlite3_str_appendf(s, ", \"%w\"", v->src.names[c]);
    if (v->numeric && (v->src.types[c] == TREE_INT || v->src.types[c] == TREE_REAL))
      v->numeric[v->nnumeric++] = c;
  }
  for (size_t k = 0; k < v->nnumeric; k++)
    sqlite3_str_appendf(s, ", \"self_%w\", \"cumulative_%w\"", v->src.names[v->numeric[k]],
                        v->src.names[v->numeric[k]]);
  sqlite3_str_appendall(s, ")");
  for (size_t r = 0; r < v->src.rows; r++)
    v->value_sum += sqlite3_value_double(TREE_CELL(&v->src, r, 3));
  char *schema = sqlite3_str_finish(s);
  int rc = v->numeric && schema ? sqlite3_declare_vtab(db, schema) : SQLITE_NOMEM;
  sqlite3_free(schema);
  if (rc != SQLITE_OK) {
    trak__tree_source_free(&v->src);
    free(v->numeric);
    sqlite3_free(v);
    *err = sqlite3_mprintf("flamegraph: cannot declare the table");
    return rc;
  }
  *out = &v->base;
  return SQLITE_OK;
}

static int fg_disconnect(sqlite3_vtab *vt) {
  fg_vtab *v = (fg_vtab *)vt;
  trak__tree_source_free(&v->src);
  free(v->numeric);
  sqlite3_free(v);
  return SQLITE_OK;
}

/* The config is required (argument 1); a SUPER_ROOT find on _tree_id is argument 2. */
static int fg_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  (void)vt;
  int config = -1, find = -1;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->iColumn == COL_CONFIG && c->op == SQLITE_INDEX_CONSTRAINT_EQ) {
      if (!c->usable) return SQLITE_CONSTRAINT;
      config = i;
    } else if (c->iColumn == COL_TREE_ID && c->op == FIND_OP && c->usable) {
      find = i;
    }
  }
  if (config < 0) return SQLITE_CONSTRAINT;
  info->aConstraintUsage[config].argvIndex = 1;
  info->aConstraintUsage[config].omit = 1;
  if (find >= 0) {
    info->aConstraintUsage[find].argvIndex = 2;
    info->aConstraintUsage[find].omit = 1;
    info->idxNum = 1;
  }
  info->estimatedCost = 1000;
  return SQLITE_OK;
}

static int fg_find_function(sqlite3_vtab *vt, int nargs, const char *name,
                            void (**fn)(sqlite3_context *, int, sqlite3_value **), void **arg) {
  (void)vt;
  if (nargs != 2 || strcasecmp(name, "__intrinsic_flamegraph_find")) return 0;
  *fn = find_function;
  *arg = NULL;
  return FIND_OP;
}

static int fg_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  (void)vt;
  fg_cursor *c = calloc(1, sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *out = &c->base;
  return SQLITE_OK;
}

static void cursor_reset(fg_cursor *c) {
  if (c->has_cfg) {
    trak__fg_result_free(&c->res, &c->cfg);
    config_free(&c->cfg);
  }
  c->has_cfg = 0;
  c->row = 0;
  c->super_root = 0;
}

static int fg_close(sqlite3_vtab_cursor *cur) {
  cursor_reset((fg_cursor *)cur);
  free(cur);
  return SQLITE_OK;
}

static int fg_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc,
                     sqlite3_value **argv) {
  (void)idx_str;
  fg_cursor *c = (fg_cursor *)cur;
  fg_vtab *v = (fg_vtab *)cur->pVtab;
  char msg[512], *tok[MAX_CONFIG_ARGS];
  cursor_reset(c);
  if (idx == 1) {
    const char *sel = argc > 1 ? (const char *)sqlite3_value_text(argv[1]) : NULL;
    if (!sel || strcmp(sel, "SUPER_ROOT"))
      return vtab_error(v, "flamegraph: unknown find selector");
    c->super_root = 1;
  }
  char *text = argc > 0 && sqlite3_value_type(argv[0]) == SQLITE_TEXT
                   ? strdup((const char *)sqlite3_value_text(argv[0]))
                   : NULL;
  int n = text ? config_split(text, tok, MAX_CONFIG_ARGS) : -1;
  if (n < 0) {
    free(text);
    return vtab_error(v, "flamegraph: the argument must be __intrinsic_flamegraph_config(...)");
  }
  int rc = config_parse(&v->src, tok, (size_t)n, &c->cfg, msg, sizeof msg);
  free(text);
  if (rc) return vtab_error(v, msg);
  c->has_cfg = 1;
  if (!c->cfg.nvalues) return vtab_error(v, "flamegraph: at least one value column is required");
  if (c->super_root || !v->src.rows) return SQLITE_OK;
  if (trak__fg_build(&v->src, &c->cfg, &c->res, msg, sizeof msg)) return vtab_error(v, msg);
  return SQLITE_OK;
}

static int fg_next(sqlite3_vtab_cursor *cur) {
  ((fg_cursor *)cur)->row++;
  return SQLITE_OK;
}

static int fg_eof(sqlite3_vtab_cursor *cur) {
  fg_cursor *c = (fg_cursor *)cur;
  return c->super_root ? c->row > 0 : c->row >= c->res.nrows;
}

static void result_num(sqlite3_context *ctx, int is_int, const fg_num *n) {
  if (is_int)
    sqlite3_result_int64(ctx, n->i);
  else
    sqlite3_result_double(ctx, n->d);
}

static void result_val(sqlite3_context *ctx, const fg_val *val) {
  if (val->type == SQLITE_INTEGER) sqlite3_result_int64(ctx, val->i);
  if (val->type == SQLITE_FLOAT) sqlite3_result_double(ctx, val->d);
  if (val->type == SQLITE_TEXT) sqlite3_result_text(ctx, val->s, -1, SQLITE_TRANSIENT);
}

/* A source property column: its value at the representative row when it groups, its aggregate
** when it is aggregated, NULL otherwise. */
static void property(sqlite3_context *ctx, const fg_vtab *v, const fg_cursor *c, size_t col,
                     const fg_out *o) {
  for (size_t k = 0; k < c->cfg.ngrouping; k++)
    if (c->cfg.grouping[k] == col) {
      sqlite3_result_value(ctx, TREE_CELL(&v->src, o->source_row, col));
      return;
    }
  for (size_t a = 0; a < c->cfg.naggs; a++)
    if (c->cfg.aggs[a].col == col) {
      result_val(ctx, &c->res.agg[a][o->node]);
      return;
    }
}

static int fg_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  fg_cursor *c = (fg_cursor *)cur;
  fg_vtab *v = (fg_vtab *)cur->pVtab;
  if (c->super_root) {
    if (col == COL_TREE_ID || col == COL_DEPTH) sqlite3_result_int64(ctx, 0);
    if (col == COL_CUMULATIVE) sqlite3_result_double(ctx, v->value_sum);
    return SQLITE_OK;
  }
  const fg_out *o = &c->res.rows[c->row];
  int primary_int = v->src.types[c->cfg.values[0]] == TREE_INT;
  const fg_num *cum = c->res.cumulative[0];
  switch (col) {
  case COL_CONFIG:
    return SQLITE_OK;
  case COL_TREE_ID:
    sqlite3_result_int64(ctx, (sqlite3_int64)c->row);
    return SQLITE_OK;
  case COL_TREE_PARENT_ID:
    if (o->parent >= 0) sqlite3_result_int64(ctx, o->parent);
    return SQLITE_OK;
  case COL_DEPTH:
    sqlite3_result_int64(ctx, o->depth);
    return SQLITE_OK;
  case COL_NAME:
    sqlite3_result_value(ctx, TREE_CELL(&v->src, o->source_row, 2));
    return SQLITE_OK;
  case COL_SELF:
    result_num(ctx, primary_int, &c->res.self[0][o->node]);
    return SQLITE_OK;
  case COL_CUMULATIVE:
    result_num(ctx, primary_int, &cum[o->node]);
    return SQLITE_OK;
  case COL_PARENT_CUMULATIVE:
    if (o->parent >= 0) result_num(ctx, primary_int, &cum[c->res.rows[o->parent].node]);
    return SQLITE_OK;
  case COL_X_START:
  case COL_X_END: {
    double x = o->x_start;
    if (col == COL_X_END) {
      double w = primary_int ? (double)cum[o->node].i : cum[o->node].d;
      x += w > 0 ? w : 0;
    }
    if (primary_int)
      sqlite3_result_int64(ctx, (sqlite3_int64)x);
    else
      sqlite3_result_double(ctx, x);
    return SQLITE_OK;
  }
  default:
    break;
  }
  size_t k = (size_t)col - COL_PROPERTIES, nprops = v->src.ncols - SOURCE_FIXED;
  if (k < nprops) {
    property(ctx, v, c, SOURCE_FIXED + k, o);
    return SQLITE_OK;
  }
  k -= nprops;
  size_t source_col = v->numeric[k / 2];
  for (size_t m = 0; m < c->cfg.nvalues; m++)
    if (c->cfg.values[m] == source_col) {
      const fg_num *arr = k % 2 ? c->res.cumulative[m] : c->res.self[m];
      result_num(ctx, v->src.types[source_col] == TREE_INT, &arr[o->node]);
      break;
    }
  return SQLITE_OK;
}

static int fg_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out) {
  *out = (sqlite3_int64)((fg_cursor *)cur)->row;
  return SQLITE_OK;
}

static const sqlite3_module fg_module = {
    .iVersion = 1,
    .xCreate = fg_connect,
    .xConnect = fg_connect,
    .xBestIndex = fg_best_index,
    .xDisconnect = fg_disconnect,
    .xDestroy = fg_disconnect,
    .xOpen = fg_open,
    .xClose = fg_close,
    .xFilter = fg_filter,
    .xNext = fg_next,
    .xEof = fg_eof,
    .xColumn = fg_column,
    .xRowid = fg_rowid,
    .xFindFunction = fg_find_function,
};

int trak__psql_flamegraph_register(sqlite3 *db) {
  int rc = sqlite3_create_module(db, "__intrinsic_flamegraph", &fg_module, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "__intrinsic_flamegraph_config", -1, SQLITE_UTF8, NULL,
                                 config_function, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "__intrinsic_flamegraph_find", 2, SQLITE_UTF8, NULL,
                                 find_function, NULL, NULL);
  return rc;
}
