/*
** This file holds PerfettoSQL's lexer: just enough of SQLite's token rules (strings, quoted
** identifiers, comments, variables) to find statement ends, keywords and macro invocations
** without being fooled by a ';' or '!' inside a string or comment.
*/
#define _GNU_SOURCE /* memmem */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "processor/sql/perfetto_sql/psql.h"

static int is_id_start(unsigned char c) {
  return isalpha(c) || c == '_' || c >= 0x80;
}
static int is_id_char(unsigned char c) {
  return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

/* Offset after the quoted run starting at s[i] (the quote), or n if unterminated. A doubled
** closing quote is an escaped one. */
static size_t skip_quoted(const char *s, size_t n, size_t i, char close) {
  for (i++; i < n; i++) {
    if (s[i] != close) continue;
    if (close != ']' && i + 1 < n && s[i + 1] == close) {
      i++;
      continue;
    }
    return i + 1;
  }
  return n;
}

psql_tok trak__psql_lex(const char *s, size_t n, size_t i) {
  for (;;) {
    while (i < n && isspace((unsigned char)s[i]))
      i++;
    if (i + 1 < n && s[i] == '-' && s[i + 1] == '-') {
      while (i < n && s[i] != '\n')
        i++;
      continue;
    }
    if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
      const char *end = i + 2 < n ? memmem(s + i + 2, n - i - 2, "*/", 2) : NULL;
      i = end ? (size_t)(end - s) + 2 : n;
      continue;
    }
    break;
  }
  psql_tok t = {PSQL_EOF, i, 0};
  if (i >= n) return t;
  unsigned char c = (unsigned char)s[i];
  size_t j = i + 1;
  if ((c == 'x' || c == 'X') && j < n && s[j] == '\'') {
    t.kind = PSQL_STRING;
    j = skip_quoted(s, n, j, '\'');
  } else if (is_id_start(c)) {
    t.kind = PSQL_ID;
    while (j < n && is_id_char((unsigned char)s[j]))
      j++;
  } else if (c == '\'') {
    t.kind = PSQL_STRING;
    j = skip_quoted(s, n, i, '\'');
  } else if (c == '"' || c == '`' || c == '[') {
    t.kind = PSQL_ID;
    j = skip_quoted(s, n, i, c == '[' ? ']' : (char)c);
  } else if (isdigit(c) || (c == '.' && j < n && isdigit((unsigned char)s[j]))) {
    t.kind = PSQL_NUMBER;
    while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '.' ||
                     ((s[j] == '+' || s[j] == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
      j++;
  } else if ((c == '$' || c == ':' || c == '@' || c == '?') && j < n &&
             is_id_char((unsigned char)s[j])) {
    t.kind = PSQL_VAR;
    while (j < n && is_id_char((unsigned char)s[j]))
      j++;
  } else {
    t.kind = PSQL_PUNCT;
    static const char *const two[] = {"!=", "<>", "<=", ">=", "==", "||", "<<", ">>", "->"};
    for (size_t k = 0; k < sizeof two / sizeof *two; k++)
      if (j < n && s[i] == two[k][0] && s[j] == two[k][1]) {
        j++;
        break;
      }
  }
  t.len = j - i;
  return t;
}

int trak__psql_is(const char *s, psql_tok t, const char *word) {
  return t.kind == PSQL_ID && strlen(word) == t.len && !strncasecmp(s + t.off, word, t.len);
}

int trak__psql_is_one_of(const char *s, psql_tok t, const char *const *words, size_t n) {
  for (size_t w = 0; w < n; w++)
    if (trak__psql_is(s, t, words[w])) return 1;
  return 0;
}

int trak__psql_is_char(const char *s, psql_tok t, char c) {
  return t.kind == PSQL_PUNCT && t.len == 1 && s[t.off] == c;
}

size_t trak__psql_statement_end(const char *s, size_t n, size_t pos) {
  int depth = 0, trigger = 0, block = 0;
  psql_tok first = trak__psql_lex(s, n, pos), prev = first;
  for (psql_tok t = first; t.kind != PSQL_EOF; prev = t, t = trak__psql_lex(s, n, t.off + t.len)) {
    if (trak__psql_is(s, t, "TRIGGER") && trak__psql_is(s, first, "CREATE")) trigger = 1;
    if (trigger && trak__psql_is(s, t, "BEGIN")) block++;
    if (trigger && block && trak__psql_is(s, t, "CASE")) block++;
    if (trigger && block && trak__psql_is(s, t, "END") && !trak__psql_is_char(s, prev, '.'))
      block--;
    if (trak__psql_is_char(s, t, '('))
      depth++;
    else if (trak__psql_is_char(s, t, ')') && depth > 0)
      depth--;
    else if (trak__psql_is_char(s, t, ';') && depth == 0 && !block)
      return t.off + 1;
  }
  return n;
}

void trak__psql_line_col(const char *s, size_t off, int *line, int *col) {
  int l = 1, c = 1;
  for (size_t i = 0; i < off && s[i]; i++) {
    if (s[i] == '\n') {
      l++;
      c = 1;
    } else {
      c++;
    }
  }
  *line = l;
  *col = c;
}
