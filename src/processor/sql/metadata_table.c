/*
** This file holds the SQL side of the metadata table: __intrinsic_metadata (which the prelude's
** `metadata` view shows) filled from the importer's rows (import/metadata.c), with Perfetto's
** columns: a key's scope decides which of machine_id (the machine of the packet that set it)
** and trace_id (0) are set and which NULL. Also
** Perfetto's lookup functions: extract_metadata(name), extract_metadata_for_machine(machine_id,
** name), extract_metadata_for_trace(trace_id, name) and extract_exact_metadata(machine_id,
** trace_id, name), each the value (string, else integer) of the first matching row, or NULL.
*/
#include <string.h>

#include "processor/processor_internal.h"

/* The lookup: sqlite3_user_data says which columns the leading arguments filter. */
static void fn_extract(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  static const char *const sql[] = {
      "SELECT str_value, int_value FROM __intrinsic_metadata WHERE name = ?1 ORDER BY id "
      "LIMIT 1",
      "SELECT str_value, int_value FROM __intrinsic_metadata WHERE machine_id = ?1 AND name = "
      "?2 ORDER BY id LIMIT 1",
      "SELECT str_value, int_value FROM __intrinsic_metadata WHERE trace_id = ?1 AND name = ?2 "
      "ORDER BY id LIMIT 1",
      "SELECT str_value, int_value FROM __intrinsic_metadata WHERE machine_id = ?1 AND "
      "trace_id = ?2 AND name = ?3 ORDER BY id LIMIT 1"};
  int which = (int)(intptr_t)sqlite3_user_data(ctx);
  for (int i = 0; i < argc; i++)
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(sqlite3_context_db_handle(ctx), sql[which], -1, &st, NULL) != SQLITE_OK) {
    sqlite3_result_error(ctx, "metadata is not ready", -1);
    return;
  }
  for (int i = 0; i < argc; i++)
    sqlite3_bind_value(st, i + 1, argv[i]);
  if (sqlite3_step(st) == SQLITE_ROW)
    sqlite3_result_value(ctx, sqlite3_column_value(st, sqlite3_column_type(st, 0) == SQLITE_NULL));
  sqlite3_finalize(st);
}

static int register_functions(sqlite3 *db) {
  static const struct {
    const char *name;
    int nargs;
  } fns[] = {{"extract_metadata", 1},
             {"extract_metadata_for_machine", 2},
             {"extract_metadata_for_trace", 2},
             {"extract_exact_metadata", 3}};
  int rc = SQLITE_OK;
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof fns / sizeof *fns; i++)
    rc = sqlite3_create_function(db, fns[i].name, fns[i].nargs, SQLITE_UTF8, (void *)(intptr_t)i,
                                 fn_extract, NULL, NULL);
  return rc;
}

int trak__sql_metadata_fill(trak_processor *p) {
  int rc = sqlite3_exec(p->db,
                        "CREATE TABLE __intrinsic_metadata(id INTEGER PRIMARY KEY, name TEXT, "
                        "  key_type TEXT, int_value BIGINT, str_value TEXT, machine_id BIGINT, "
                        "  trace_id BIGINT);",
                        NULL, NULL, NULL);
  sqlite3_stmt *st = NULL;
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(p->db,
                            "INSERT INTO __intrinsic_metadata(id, name, key_type, int_value, "
                            "str_value, machine_id, trace_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
                            -1, &st, NULL);
  trak_meta_row r;
  for (size_t i = 0; rc == SQLITE_OK && trak__meta_row(&p->imp, i, &r); i++) {
    sqlite3_bind_int64(st, 1, (int64_t)i);
    sqlite3_bind_text(st, 2, r.name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r.multi ? "multi" : "single", -1, SQLITE_STATIC);
    if (r.is_str) {
      sqlite3_bind_null(st, 4);
      if (r.str)
        sqlite3_bind_text(st, 5, r.str, -1, SQLITE_STATIC);
      else
        sqlite3_bind_null(st, 5);
    } else {
      sqlite3_bind_int64(st, 4, r.value);
      sqlite3_bind_null(st, 5);
    }
    if (r.scope == TRAK_META_MACHINE || r.scope == TRAK_META_MACHINE_TRACE)
      sqlite3_bind_int64(st, 6, r.machine);
    else
      sqlite3_bind_null(st, 6);
    if (r.scope == TRAK_META_TRACE || r.scope == TRAK_META_MACHINE_TRACE)
      sqlite3_bind_int64(st, 7, 0);
    else
      sqlite3_bind_null(st, 7);
    rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return rc == SQLITE_OK ? register_functions(p->db) : rc;
}
