/*
** This file holds the SQL side of the metadata table: __intrinsic_metadata (which the prelude's
** `metadata` view shows) filled from the rows the import left (tables/import_result.h), with Perfetto's
** columns: a key's scope decides which of machine_id (the machine of the packet that set it)
** and trace_id (0) are set and which NULL. The extract_metadata family that reads it is
** prelude/metadata_helpers.sql.
*/

#include "processor/processor_internal.h"

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
  for (size_t i = 0; rc == SQLITE_OK && i < p->result.n_metadata; i++) {
    trak_meta_row r = p->result.metadata[i];
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
  return rc;
}
