/*
** This file answers `SELECT COUNT(*) FROM <table>` on a columnar table from the table's row
** count. SQLite counts a virtual table's rows one xNext at a time (about 145 instructions a row:
** 140 ms of CPU for 1 M slices on this project's machine) and offers a virtual table no way to
** answer an aggregate; the statement is replaced by `SELECT __intrinsic_row_count('<table>')`
** with the column named as SQLite names the original's.
*/
#include <ctype.h>

#include "processor/sql/perfetto_sql/psql.h"

/* Whether `name` (n bytes) names, as the statement's FROM would resolve it, one of the columnar
** virtual tables: a table of the main schema made by the trak_columnar module and no temporary
** object of that name in front of it. */
static int names_columnar_table(sqlite3 *db, const char *name, size_t n) {
  static const char sql[] =
      "SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND name = ?1 COLLATE NOCASE"
      " AND sql = 'CREATE VIRTUAL TABLE ' || name || ' USING trak_columnar'"
      " AND NOT EXISTS (SELECT 1 FROM temp.sqlite_schema WHERE name = ?1 COLLATE NOCASE)";
  sqlite3_stmt *st = NULL;
  int found = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
              sqlite3_bind_text(st, 1, name, (int)n, SQLITE_STATIC) == SQLITE_OK &&
              sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return found;
}

int trak__psql_count_rows(trak_processor *p, const char *s, size_t n, sqlite3_stmt **out) {
  static const char *const shape[] = {"SELECT", "COUNT", "(", "*", ")", "FROM"};
  psql_tok t = {PSQL_EOF, 0, 0}, count = t;
  size_t pos = 0;
  for (size_t i = 0; i < sizeof shape / sizeof *shape; i++, pos = t.off + t.len) {
    t = trak__psql_lex(s, n, pos);
    if (isalpha((unsigned char)shape[i][0]) ? !trak__psql_is(s, t, shape[i])
                                            : !trak__psql_is_char(s, t, shape[i][0]))
      return 0;
    if (i == 1) count = t;
    if (i == 4) count.len = t.off + t.len - count.off; /* the span SQLite names the column by */
  }
  psql_tok name = trak__psql_lex(s, n, pos);
  if (name.kind != PSQL_ID || !(isalpha((unsigned char)s[name.off]) || s[name.off] == '_'))
    return 0; /* a quoted name: left to SQLite */
  t = trak__psql_lex(s, n, name.off + name.len);
  if (trak__psql_is_char(s, t, ';')) t = trak__psql_lex(s, n, t.off + t.len);
  if (t.kind != PSQL_EOF || !names_columnar_table(p->db, s + name.off, name.len)) return 0;
  char *sql = sqlite3_mprintf("SELECT __intrinsic_row_count(%.*Q) AS \"%.*w\"", (int)name.len,
                              s + name.off, (int)count.len, s + count.off);
  int rc = sql ? sqlite3_prepare_v2(p->db, sql, -1, out, NULL) : SQLITE_NOMEM;
  sqlite3_free(sql);
  if (rc == SQLITE_OK) return 1;
  sqlite3_finalize(*out);
  *out = NULL;
  return 0;
}
