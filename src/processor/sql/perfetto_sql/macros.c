/*
** This file holds PerfettoSQL macros: the registry filled by CREATE PERFETTO MACRO (and the
** built-in cast_int!, cast_double!, cast_string!) and the textual expansion of `name!(a, b)`
** before SQLite sees a statement. Arguments are split at top-level commas (parentheses, strings
** and comments respected), substituted for `$param` in the body, and the result is expanded
** again so macros may call macros. The expansion records which output bytes are the user's own,
** so errors can point at the user's text rather than at generated SQL.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "processor/sql/perfetto_sql/psql.h"

/* Limits that keep a runaway macro (one calling itself, or itself twice per level) an error
** rather than a hang or an exhausted memory. */
enum { MAX_DEPTH = 64, MAX_OUTPUT = 16 << 20 };

typedef struct macro {
  char *name;
  char **params;
  size_t nparams;
  char *body;
  psql_macro_gen gen; /* built-in macros written in C; NULL for SQL bodies */
  int variadic;       /* takes any number of arguments (C macros only) */
} macro;

struct psql_macros {
  macro *v;
  size_t n, cap;
};

typedef struct sbuf {
  char *v;
  size_t n, cap;
} sbuf;

static int sb_add(sbuf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->n + n + 1)
      cap *= 2;
    char *v = realloc(b->v, cap);
    if (!v) return -1;
    b->v = v;
    b->cap = cap;
  }
  memcpy(b->v + b->n, s, n);
  b->n += n;
  b->v[b->n] = 0;
  return 0;
}

static void set_msg(char *msg, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, len, fmt, ap);
  va_end(ap);
}

static void macro_clear(macro *mc) {
  free(mc->name);
  for (size_t i = 0; i < mc->nparams; i++)
    free(mc->params[i]);
  free(mc->params);
  free(mc->body);
}

psql_macros *trak__psql_macros_new(void) {
  return calloc(1, sizeof(psql_macros));
}

void trak__psql_macros_free(psql_macros *m) {
  if (!m) return;
  for (size_t i = 0; i < m->n; i++)
    macro_clear(&m->v[i]);
  free(m->v);
  free(m);
}

static macro *find(const psql_macros *m, const char *name, size_t len) {
  for (size_t i = 0; i < m->n; i++)
    if (strlen(m->v[i].name) == len && !strncasecmp(m->v[i].name, name, len)) return &m->v[i];
  return NULL;
}

int trak__psql_macro_define(psql_macros *m, const char *name, size_t name_len, char **params,
                            size_t nparams, const char *body, size_t body_len, int replace,
                            char *msg, size_t msg_len) {
  macro *mc = find(m, name, name_len);
  if (mc && !replace) {
    set_msg(msg, msg_len, "macro '%.*s' already exists (use CREATE OR REPLACE)", (int)name_len,
            name);
    return -1;
  }
  if (!mc) {
    if (m->n == m->cap) {
      size_t cap = m->cap ? m->cap * 2 : 16;
      macro *v = realloc(m->v, cap * sizeof *v);
      if (!v) return set_msg(msg, msg_len, "out of memory"), -1;
      m->v = v;
      m->cap = cap;
    }
    mc = &m->v[m->n++];
  } else {
    macro_clear(mc);
  }
  memset(mc, 0, sizeof *mc);
  mc->name = strndup(name, name_len);
  mc->body = strndup(body, body_len);
  mc->params = calloc(nparams ? nparams : 1, sizeof *mc->params);
  for (size_t i = 0; mc->params && i < nparams; i++)
    mc->params[i] = strdup(params[i]);
  mc->nparams = nparams;
  if (!mc->name || !mc->body || !mc->params) return set_msg(msg, msg_len, "out of memory"), -1;
  return 0;
}

int trak__psql_macro_define_builtin(psql_macros *m, const char *name, size_t nparams,
                                    psql_macro_gen gen) {
  char msg[128];
  size_t count = nparams == PSQL_VARIADIC ? 1 : nparams ? nparams : 1;
  char **params = calloc(count, sizeof *params);
  char none[] = "";
  for (size_t i = 0; params && i < count; i++)
    params[i] = none;
  size_t n = nparams == PSQL_VARIADIC ? 0 : nparams;
  int rc =
      params ? trak__psql_macro_define(m, name, strlen(name), params, n, "", 0, 0, msg, sizeof msg)
             : -1;
  free(params);
  if (!rc) find(m, name, strlen(name))->gen = gen;
  if (!rc) find(m, name, strlen(name))->variadic = nparams == PSQL_VARIADIC;
  return rc;
}

/* An invocation `name!(args)` starting at token `t`: its name, argument ranges and end. */
typedef struct invocation {
  psql_tok name;
  size_t arg_off[64], arg_len[64];
  size_t nargs;
  size_t end; /* offset after the closing ')' */
} invocation;

/* Whether token t starts an invocation: an identifier, '!', then '(' (Perfetto's own modules
** sometimes put a space before the '!'; a lone '!' is no SQLite operator, so this is safe). */
static int starts_invocation(const char *s, size_t n, psql_tok t, psql_tok *paren) {
  if (t.kind != PSQL_ID || s[t.off] == '"' || s[t.off] == '`' || s[t.off] == '[') return 0;
  psql_tok bang = trak__psql_lex(s, n, t.off + t.len);
  if (!trak__psql_is_char(s, bang, '!')) return 0;
  *paren = trak__psql_lex(s, n, bang.off + 1);
  return trak__psql_is_char(s, *paren, '(');
}

int trak__psql_has_macro_call(const char *s, size_t n) {
  psql_tok paren;
  for (psql_tok t = trak__psql_lex(s, n, 0); t.kind != PSQL_EOF;
       t = trak__psql_lex(s, n, t.off + t.len))
    if (starts_invocation(s, n, t, &paren)) return 1;
  return 0;
}

static void trim(const char *s, size_t *off, size_t *len) {
  while (*len && (s[*off] == ' ' || s[*off] == '\n' || s[*off] == '\t' || s[*off] == '\r'))
    (*off)++, (*len)--;
  while (*len && (s[*off + *len - 1] == ' ' || s[*off + *len - 1] == '\n' ||
                  s[*off + *len - 1] == '\t' || s[*off + *len - 1] == '\r'))
    (*len)--;
}

/* Parses the arguments after `paren`. Returns 0, or -1 if the parentheses do not close. */
static int parse_args(const char *s, size_t n, psql_tok paren, invocation *inv, char *msg,
                      size_t msg_len) {
  int depth = 0;
  size_t start = paren.off + 1;
  inv->nargs = 0;
  for (psql_tok t = trak__psql_lex(s, n, start); t.kind != PSQL_EOF;
       t = trak__psql_lex(s, n, t.off + t.len)) {
    int close = trak__psql_is_char(s, t, ')');
    if (trak__psql_is_char(s, t, '(')) {
      depth++;
    } else if (close && depth > 0) {
      depth--;
    } else if ((close || trak__psql_is_char(s, t, ',')) && depth == 0) {
      size_t off = start, len = t.off - start;
      trim(s, &off, &len);
      if (inv->nargs == 64) return set_msg(msg, msg_len, "too many macro arguments"), -1;
      if (len || !close || inv->nargs) {
        inv->arg_off[inv->nargs] = off;
        inv->arg_len[inv->nargs++] = len;
      }
      start = t.off + 1;
      if (close) {
        inv->end = t.off + 1;
        return 0;
      }
    }
  }
  set_msg(msg, msg_len, "macro invocation '%.*s!(' is not closed", (int)inv->name.len,
          s + inv->name.off);
  return -1;
}

/* Writes the body of `mc` with its parameters replaced by the invocation's arguments. */
static int substitute(const macro *mc, const char *s, const invocation *inv, sbuf *out) {
  const char *b = mc->body;
  size_t n = strlen(b), copied = 0;
  for (psql_tok t = trak__psql_lex(b, n, 0); t.kind != PSQL_EOF;
       t = trak__psql_lex(b, n, t.off + t.len)) {
    if (t.kind != PSQL_VAR || b[t.off] != '$') continue;
    for (size_t i = 0; i < mc->nparams; i++) {
      if (strlen(mc->params[i]) != t.len - 1 ||
          strncasecmp(mc->params[i], b + t.off + 1, t.len - 1))
        continue;
      if (sb_add(out, b + copied, t.off - copied) ||
          sb_add(out, s + inv->arg_off[i], inv->arg_len[i]))
        return -1;
      copied = t.off + t.len;
      break;
    }
  }
  return sb_add(out, b + copied, n - copied);
}

/* Expands s[0..n) into `out` (plain text). On error sets *err_off to the offset in `s` of the
** invocation at fault. */
static int expand_text(const psql_macros *m, const char *s, size_t n, int depth, sbuf *out,
                       char *msg, size_t msg_len, size_t *err_off) {
  size_t copied = 0;
  psql_tok paren;
  for (psql_tok t = trak__psql_lex(s, n, 0); t.kind != PSQL_EOF;
       t = trak__psql_lex(s, n, t.off + t.len)) {
    if (!starts_invocation(s, n, t, &paren)) continue;
    *err_off = t.off;
    if (depth >= MAX_DEPTH)
      return set_msg(msg, msg_len, "macro expansion deeper than %d levels", MAX_DEPTH), -1;
    if (out->n > MAX_OUTPUT)
      return set_msg(msg, msg_len, "macro expansion larger than %d MB", MAX_OUTPUT >> 20), -1;
    invocation inv = {.name = t};
    if (parse_args(s, n, paren, &inv, msg, msg_len)) return -1;
    const macro *mc = find(m, s + t.off, t.len);
    if (!mc) return set_msg(msg, msg_len, "unknown macro '%.*s'", (int)t.len, s + t.off), -1;
    if (!mc->variadic && inv.nargs != mc->nparams)
      return set_msg(msg, msg_len, "macro '%s' takes %zu argument%s, got %zu", mc->name,
                     mc->nparams, mc->nparams == 1 ? "" : "s", inv.nargs),
             -1;
    sbuf body = {0};
    size_t inner_off;
    int rc = 0;
    if (mc->gen) {
      /* A C macro sees its arguments expanded, since it may quote them into a string where
      ** a later expansion would not look. */
      sbuf expanded[64] = {{0}};
      const char *args[64];
      size_t lens[64];
      for (size_t i = 0; !rc && i < inv.nargs; i++) {
        size_t at;
        rc = expand_text(m, s + inv.arg_off[i], inv.arg_len[i], depth + 1, &expanded[i], msg,
                         msg_len, &at);
        args[i] = expanded[i].v ? expanded[i].v : "";
        lens[i] = expanded[i].n;
      }
      sqlite3_str *gen = sqlite3_str_new(NULL);
      if (!rc && mc->gen(args, lens, inv.nargs, gen, msg, msg_len)) rc = -1;
      for (size_t i = 0; i < inv.nargs; i++)
        free(expanded[i].v);
      int len = sqlite3_str_length(gen);
      char *text = sqlite3_str_finish(gen);
      if (!rc && sb_add(&body, text ? text : "", (size_t)len))
        rc = (set_msg(msg, msg_len, "out of memory"), -1);
      sqlite3_free(text);
    } else if (substitute(mc, s, &inv, &body)) {
      rc = (set_msg(msg, msg_len, "out of memory"), -1);
    }
    if (!rc && sb_add(out, s + copied, t.off - copied)) rc = -1;
    if (!rc)
      rc = expand_text(m, body.v ? body.v : "", body.n, depth + 1, out, msg, msg_len, &inner_off);
    free(body.v);
    if (rc) return -1;
    copied = inv.end;
    t.len = inv.end - t.off; /* continue after the invocation */
  }
  if (sb_add(out, s + copied, n - copied)) return set_msg(msg, msg_len, "out of memory"), -1;
  return 0;
}

static int add_span(psql_expansion *e, size_t out_off, size_t src_off, int verbatim) {
  if (e->nspans == e->cap) {
    size_t cap = e->cap ? e->cap * 2 : 8;
    psql_span *v = realloc(e->spans, cap * sizeof *v);
    if (!v) return -1;
    e->spans = v;
    e->cap = cap;
  }
  e->spans[e->nspans++] = (psql_span){out_off, src_off, verbatim};
  return 0;
}

int trak__psql_expand(const psql_macros *m, const char *s, size_t n, psql_expansion *out, char *msg,
                      size_t msg_len, size_t *err_off) {
  memset(out, 0, sizeof *out);
  sbuf b = {0};
  size_t copied = 0;
  int rc = 0;
  psql_tok paren;
  for (psql_tok t = trak__psql_lex(s, n, 0); !rc && t.kind != PSQL_EOF;
       t = trak__psql_lex(s, n, t.off + t.len)) {
    if (!starts_invocation(s, n, t, &paren)) continue;
    invocation inv = {.name = t};
    *err_off = t.off;
    if (parse_args(s, n, paren, &inv, msg, msg_len)) {
      rc = -1;
      break;
    }
    if (add_span(out, b.n, copied, 1) || sb_add(&b, s + copied, t.off - copied) ||
        add_span(out, b.n, t.off, 0)) {
      set_msg(msg, msg_len, "out of memory");
      rc = -1;
      break;
    }
    size_t inner;
    rc = expand_text(m, s + t.off, inv.end - t.off, 0, &b, msg, msg_len, &inner);
    copied = inv.end;
    t.len = inv.end - t.off;
  }
  if (!rc && (add_span(out, b.n, copied, 1) || sb_add(&b, s + copied, n - copied))) {
    set_msg(msg, msg_len, "out of memory");
    rc = -1;
  }
  if (rc) {
    free(b.v);
    free(out->spans);
    memset(out, 0, sizeof *out);
    return -1;
  }
  out->text = b.v;
  out->len = b.n;
  return 0;
}

void trak__psql_expansion_free(psql_expansion *e) {
  free(e->text);
  free(e->spans);
  memset(e, 0, sizeof *e);
}

size_t trak__psql_expansion_source(const psql_expansion *e, size_t off) {
  size_t src = 0;
  for (size_t i = 0; i < e->nspans && e->spans[i].out_off <= off; i++)
    src = e->spans[i].verbatim ? e->spans[i].src_off + (off - e->spans[i].out_off)
                               : e->spans[i].src_off;
  return src;
}

int trak__psql_split_list(const char *s, size_t n, size_t *off, size_t *len, size_t max) {
  size_t o = 0, l = n;
  trim(s, &o, &l);
  if (l < 2 || s[o] != '(' || s[o + l - 1] != ')') return -1;
  psql_tok paren = trak__psql_lex(s, o + l, o);
  invocation inv = {0};
  char msg[64];
  if (parse_args(s, o + l, paren, &inv, msg, sizeof msg) || inv.end != o + l || inv.nargs > max)
    return -1;
  for (size_t i = 0; i < inv.nargs; i++) {
    off[i] = inv.arg_off[i];
    len[i] = inv.arg_len[i];
  }
  return (int)inv.nargs;
}
