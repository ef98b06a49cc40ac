/*
** This file holds INCLUDE PERFETTO MODULE: modules are the .sql files under
** src/processor/sql/stdlib, embedded into the library at build time (cmake/embed_sql.cmake)
** and named by their path with dots (slices/with_context.sql is slices.with_context). Including
** runs a module's statements once per processor; a module may include others; `a.b.*` includes
** every module under a.b, `*` every module.
*/
#include <stdio.h>
#include <string.h>

#include "processor/sql/perfetto_sql/psql.h"

enum { MAX_INCLUDE_DEPTH = 32 };

static int include_one(trak_processor *p, size_t i, char *msg, size_t msg_len) {
  trak_psql *s = p->psql;
  if (s->included[i]) return 0;
  if (s->include_depth >= MAX_INCLUDE_DEPTH) {
    snprintf(msg, msg_len, "modules include each other deeper than %d levels at '%s'",
             MAX_INCLUDE_DEPTH, trak__psql_stdlib[i].name);
    return -1;
  }
  s->included[i] = 1; /* before running it: a cycle ends here instead of looping */
  s->include_depth++;
  int rc = trak__psql_exec(p, trak__psql_stdlib[i].sql, trak__psql_stdlib[i].name, msg, msg_len);
  s->include_depth--;
  if (rc) s->included[i] = 0;
  return rc;
}

int trak__psql_include(trak_processor *p, const char *pattern, char *msg, size_t msg_len) {
  size_t n = strlen(pattern);
  int all = !strcmp(pattern, "*"); /* every module */
  int wildcard = n >= 2 && !strcmp(pattern + n - 2, ".*");
  if (!all && !wildcard && strchr(pattern, '*')) {
    snprintf(msg, msg_len, "module name '%s': '*' may only end it, as in a.b.*", pattern);
    return -1;
  }
  size_t matched = 0;
  for (size_t i = 0; i < trak__psql_stdlib_count; i++) {
    const char *name = trak__psql_stdlib[i].name;
    int hit = all || (wildcard ? !strncmp(name, pattern, n - 1) : !strcmp(name, pattern));
    if (!hit) continue;
    matched++;
    if (include_one(p, i, msg, msg_len)) return -1;
  }
  if (!matched) {
    snprintf(msg, msg_len, wildcard ? "no module matches '%s'" : "unknown module '%s'", pattern);
    return -1;
  }
  return 0;
}

const char *const *trak_perfetto_modules_list(void) {
  return trak__psql_module_names;
}
