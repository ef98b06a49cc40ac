/*
** This file holds the schema batch of the SQL set-up (trak__sql_ready): the set-up's views and
** virtual tables are written straight into sqlite_schema, each where its CREATE would have put
** it, and SQLite reads them all once at the end, instead of running each CREATE. A CREATE costs
** ~190 K instructions besides its parse (the INSERT into sqlite_schema SQLite nests, then
** OP_ParseSchema, which prepares a SELECT over sqlite_schema, scans every row and parses the new
** one again): ~80 of them were half of the set-up. Tables keep their CREATE (their pages must be
** allocated), so that rowids, root pages and the schema's text come out the same.
*/
#include <string.h>

#include "processor/processor_internal.h"
#include "processor/sql/perfetto_sql/psql.h"

/* The type of `sql` if it is a CREATE the batch can write ("view" or "table" for a virtual
** table), with *name_off and *name_len the name it creates; NULL otherwise. Only the spelling
** the set-up uses counts (one space between the words, a bare or double-quoted name), so that
** the row's text is the statement's own, as SQLite would keep it. */
static const char *batchable(const char *sql, size_t *name_off, size_t *name_len) {
  static const struct {
    const char *prefix, *type;
  } kinds[] = {{"CREATE VIEW ", "view"}, {"CREATE VIRTUAL TABLE ", "table"}};
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    size_t n = strlen(kinds[k].prefix);
    if (strncmp(sql, kinds[k].prefix, n)) continue;
    const char *name = sql + n;
    size_t len;
    if (*name == '"') {
      const char *q = strchr(name + 1, '"');
      if (!q || q[1] == '"') return NULL; /* an escaped quote: leave it to SQLite */
      name++;
      len = (size_t)(q - name);
    } else {
      len = strcspn(name, " \t\n(");
    }
    if (!len) return NULL;
    *name_off = (size_t)(name - sql);
    *name_len = len;
    return kinds[k].type;
  }
  return NULL;
}

int trak__sql_schema_begin(trak_processor *p) {
  int rc = sqlite3_exec(p->db, "PRAGMA writable_schema = ON", NULL, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(p->db,
                            "INSERT INTO sqlite_schema(type, name, tbl_name, rootpage, sql) "
                            "VALUES (?1, ?2, ?2, 0, ?3)",
                            -1, &p->schema_batch, NULL);
  p->schema_batch_n = 0;
  return rc;
}

int trak__sql_schema_write(trak_processor *p, const char *sql, size_t len) {
  size_t name_off, name_len;
  const char *type = p->schema_batch ? batchable(sql, &name_off, &name_len) : NULL;
  if (!type) return SQLITE_NOTFOUND;
  sqlite3_stmt *st = p->schema_batch;
  sqlite3_bind_text(st, 1, type, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, sql + name_off, (int)name_len, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, sql, (int)len, SQLITE_STATIC);
  int rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(p->db);
  sqlite3_reset(st);
  if (rc == SQLITE_OK) p->schema_batch_n++;
  return rc;
}

int trak__sql_create(trak_processor *p, const char *sql, size_t len) {
  int rc = trak__sql_schema_write(p, sql, len);
  if (rc != SQLITE_NOTFOUND) return rc;
  char *copy = sqlite3_mprintf("%.*s", (int)len, sql);
  rc = copy ? sqlite3_exec(p->db, copy, NULL, NULL, NULL) : SQLITE_NOMEM;
  sqlite3_free(copy);
  return rc;
}

int trak__sql_schema_exec(trak_processor *p, const char *sql) {
  size_t n = strlen(sql), pos = 0;
  int rc = SQLITE_OK;
  while (rc == SQLITE_OK) {
    while (pos < n && strchr(" \t\n;", sql[pos]))
      pos++;
    if (pos == n) break;
    size_t end = trak__psql_statement_end(sql, n, pos), stop = end;
    while (stop > pos && strchr(" \t\n;", sql[stop - 1]))
      stop--;
    rc = trak__sql_create(p, sql + pos, stop - pos);
    pos = end;
  }
  return rc;
}

int trak__sql_schema_end(trak_processor *p, int ok) {
  if (!p->schema_batch) return SQLITE_OK;
  sqlite3_finalize(p->schema_batch);
  p->schema_batch = NULL;
  if (!ok) return SQLITE_OK;
  /* Each CREATE would have counted one more schema version. */
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(p->db, "PRAGMA schema_version", -1, &st, NULL);
  int version = rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
  sqlite3_finalize(st);
  char *set = sqlite3_mprintf("PRAGMA schema_version = %d", version + p->schema_batch_n);
  if (rc == SQLITE_OK) rc = set ? sqlite3_exec(p->db, set, NULL, NULL, NULL) : SQLITE_NOMEM;
  sqlite3_free(set);
  /* Off again, and the schema read afresh now, so that a problem in it fails the set-up rather
  ** than the first query. */
  if (rc == SQLITE_OK) rc = sqlite3_exec(p->db, "PRAGMA writable_schema = RESET", NULL, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_exec(p->db, "SELECT 1 FROM sqlite_schema LIMIT 0", NULL, NULL, NULL);
  return rc;
}
