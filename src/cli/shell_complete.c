/*
** Tab completion for `trak shell` (libedit): the word before the cursor completes to a dot
** command at the start of a line, else to a table or view name, a column name (also after
** `table.`), or a PerfettoSQL module name. One match is inserted; several insert their common
** prefix, or, when that adds nothing, are listed under the line.
*/
#include <ctype.h>
#include <histedit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/shell.h"

typedef struct words {
  char **v;
  size_t n, cap;
} words;

static void add_word(words *w, const char *s) {
  for (size_t i = 0; i < w->n; i++)
    if (!strcmp(w->v[i], s)) return;
  if (w->n == w->cap) {
    w->cap = w->cap ? w->cap * 2 : 256;
    w->v = realloc(w->v, w->cap * sizeof *w->v);
    if (!w->v) abort();
  }
  w->v[w->n++] = strdup(s);
}

static void free_words(words *w) {
  for (size_t i = 0; i < w->n; i++)
    free(w->v[i]);
  free(w->v);
}

/* The column names of `table` (nothing if it does not compile). */
static void add_columns(words *w, trak_processor *p, const char *table) {
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT * FROM \"%s\" LIMIT 0", table);
  trak_query *q;
  trak_error err = {0};
  if (trak_query_open(p, sql, &q, NULL, &err) || !q) return;
  for (int c = 0; c < trak_query_column_count(q); c++)
    add_word(w, trak_query_column_name(q, c));
  trak_query_free(q);
}

/* Every table and view: the processor's and those created in this session. */
static void add_tables(words *w, trak_processor *p) {
  const char *const *names = trak_processor_table_names();
  for (size_t i = 0; names[i]; i++)
    add_word(w, names[i]);
  trak_query *q;
  trak_error err = {0};
  if (trak_query_open(p, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')", &q, NULL,
                      &err) ||
      !q)
    return;
  while (trak_query_next(q, &err) > 0)
    add_word(w, trak_query_string(q, 0));
  trak_query_free(q);
}

static void candidates(words *w, trak_processor *p, const char *line, size_t word_start,
                       const char *table) {
  if (word_start == 0 && line[0] == '.') {
    for (size_t i = 0; trak_cli_shell_dot_commands[i]; i++)
      add_word(w, trak_cli_shell_dot_commands[i]);
    return;
  }
  if (table) {
    add_columns(w, p, table);
    return;
  }
  words tables = {0};
  add_tables(&tables, p);
  for (size_t i = 0; i < tables.n; i++)
    add_word(w, tables.v[i]);
  for (size_t i = 0; i < tables.n; i++)
    add_columns(w, p, tables.v[i]);
  free_words(&tables);
  const char *const *modules = trak_perfetto_modules_list();
  for (size_t i = 0; modules[i]; i++)
    add_word(w, modules[i]);
}

static int is_word_char(char c) {
  return isalnum((unsigned char)c) || c == '_';
}

/* Whether the word before `cursor`, dots included, follows the keyword MODULE (as in INCLUDE
** PERFETTO MODULE a.b.c); if so sets *start to where that dotted word begins. */
static int after_module_keyword(const char *line, size_t cursor, size_t *start) {
  size_t s = cursor;
  while (s && (is_word_char(line[s - 1]) || line[s - 1] == '.'))
    s--;
  size_t k = s;
  while (k && line[k - 1] == ' ')
    k--;
  if (k == s || k < 6 || strncasecmp(line + k - 6, "module", 6)) return 0;
  if (k > 6 && is_word_char(line[k - 7])) return 0;
  *start = s;
  return 1;
}

size_t trak_cli_shell_complete(trak_processor *p, const char *line, size_t cursor,
                               size_t *word_start, char ***out) {
  size_t start = cursor;
  while (start && is_word_char(line[start - 1]))
    start--;
  if (start == 1 && line[0] == '.') start = 0; /* a dot command */
  char *table = NULL;
  if (after_module_keyword(line, cursor, &start)) {
    /* a dotted module name: completes whole, not as table.column */
  } else if (start && line[start - 1] == '.' && start > 1) { /* table.column */
    size_t t = start - 1;
    while (t && is_word_char(line[t - 1]))
      t--;
    if (t < start - 1) table = strndup(line + t, start - 1 - t);
  }
  words all = {0}, match = {0};
  candidates(&all, p, line, start, table);
  free(table);
  size_t plen = cursor - start;
  *word_start = start;
  for (size_t i = 0; i < all.n; i++)
    if (!strncmp(all.v[i], line + start, plen)) add_word(&match, all.v[i]);
  free_words(&all);
  *out = match.v;
  if (!match.n) {
    free(match.v);
    *out = NULL;
  }
  return match.n;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

unsigned char trak_cli_shell_complete_key(EditLine *el, int ch) {
  (void)ch;
  trak_processor *p = trak_cli_shell_processor(el);
  const LineInfo *li = el_line(el);
  size_t cursor = (size_t)(li->cursor - li->buffer);
  char *line = strndup(li->buffer, (size_t)(li->lastchar - li->buffer));
  char **m;
  size_t start;
  size_t n = trak_cli_shell_complete(p, line, cursor, &start, &m);
  size_t plen = cursor - start;
  free(line);
  if (!n) return CC_ERROR;
  size_t common = strlen(m[0]);
  for (size_t i = 1; i < n; i++) {
    size_t k = 0;
    while (k < common && m[i][k] == m[0][k])
      k++;
    common = k;
  }
  unsigned char rc = CC_REFRESH;
  if (common > plen) {
    char *ins = strndup(m[0] + plen, common - plen);
    el_insertstr(el, ins);
    free(ins);
  } else if (n > 1) {
    qsort(m, n, sizeof *m, cmp_str);
    size_t col = 0;
    fputc('\n', stdout);
    for (size_t i = 0; i < n; i++) {
      size_t len = strlen(m[i]);
      if (col && col + len + 2 > 78) fputc('\n', stdout), col = 0;
      fprintf(stdout, "%s%s", col ? "  " : "", m[i]);
      col += len + (col ? 2 : 0);
    }
    fputc('\n', stdout);
    fflush(stdout);
    rc = CC_REDISPLAY;
  }
  for (size_t i = 0; i < n; i++)
    free(m[i]);
  free(m);
  return rc;
}
