/*
** This file holds the SQL database of a finished import: an in-memory SQLite connection with the
** columnar virtual tables, the views that give Perfetto's table names (track, thread_track,
** counter_track, instant, ...), the stats table and the functions.
*/
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "util/sanitized.h"

#include "processor/processor_internal.h"
#include "processor/sql/fill_rows.h"
#include "processor/sql/perfetto_sql/psql.h"
#include "processor/tables/vtab.h"

static const char *const views_sql =
    "CREATE VIEW track AS SELECT id, name, type, dimension_arg_set_id, parent_id, "
    "  source_arg_set_id, machine_id, track_group_id FROM __intrinsic_track;"
    "CREATE VIEW thread_track AS SELECT id, name, type, parent_id, source_arg_set_id, "
    "  machine_id, utid FROM __intrinsic_track WHERE classification = 'thread_track';"
    "CREATE VIEW process_track AS SELECT id, name, type, parent_id, source_arg_set_id, "
    "  machine_id, upid FROM __intrinsic_track WHERE classification = 'process_track';"
    "CREATE VIEW cpu_track AS SELECT t.id, t.name, t.type, t.parent_id, t.source_arg_set_id, "
    "  t.machine_id, a.int_value AS cpu FROM __intrinsic_track AS t "
    "  JOIN args AS a ON t.dimension_arg_set_id = a.arg_set_id "
    "  WHERE t.classification = 'track' AND a.key = 'cpu';"
    "CREATE VIEW counter_track AS SELECT id, name, parent_id, type, dimension_arg_set_id, "
    "  source_arg_set_id, machine_id, unit, description FROM __intrinsic_track "
    "  WHERE classification IN ('counter_track', 'thread_counter_track', 'process_counter_track');"
    "CREATE VIEW thread_counter_track AS SELECT id, name, type, parent_id, source_arg_set_id, "
    "  machine_id, unit, description, utid FROM __intrinsic_track "
    "  WHERE classification = 'thread_counter_track';"
    "CREATE VIEW process_counter_track AS SELECT id, name, type, parent_id, "
    "  source_arg_set_id, machine_id, unit, description, upid FROM __intrinsic_track "
    "  WHERE classification = 'process_counter_track';"
    "CREATE VIEW state_track AS SELECT id, name, parent_id, type, dimension_arg_set_id, "
    "  source_arg_set_id, machine_id FROM __intrinsic_track "
    "  WHERE classification IN ('state_track', 'thread_state_track', 'process_state_track');"
    "CREATE VIEW thread_state_track AS SELECT id, name, type, parent_id, source_arg_set_id, "
    "  machine_id, utid FROM __intrinsic_track WHERE classification = 'thread_state_track';"
    "CREATE VIEW process_state_track AS SELECT id, name, type, parent_id, source_arg_set_id, "
    "  machine_id, upid FROM __intrinsic_track WHERE classification = 'process_state_track';"
    "CREATE VIEW instant AS SELECT ts, track_id, name, arg_set_id FROM slice WHERE dur = 0;"
    "CREATE TABLE __intrinsic_stats(id INTEGER PRIMARY KEY, name TEXT, key BIGINT, idx BIGINT, "
    "  severity TEXT, source TEXT, value BIGINT, description TEXT, machine_id BIGINT, "
    "  trace_id BIGINT);"
    "CREATE VIEW stats AS SELECT id, name, key, idx, severity, source, value, description, "
    "  machine_id, trace_id FROM __intrinsic_stats;"
    "CREATE TABLE __intrinsic_trace_import_logs(id INTEGER PRIMARY KEY, trace_id BIGINT, "
    "  ts BIGINT, byte_offset BIGINT, stat_key BIGINT, arg_set_id BIGINT);"
    "CREATE TABLE __intrinsic_logs(id INTEGER PRIMARY KEY, ts BIGINT, utid BIGINT, prio BIGINT, "
    "  log_source TEXT, tag TEXT, msg TEXT, arg_set_id BIGINT);"
    "CREATE VIEW logs AS SELECT id, ts, utid, prio, log_source, tag, msg, arg_set_id "
    "  FROM __intrinsic_logs;"
    "CREATE TABLE __intrinsic_package_list(id INTEGER PRIMARY KEY, package_name TEXT, "
    "  uid BIGINT, debuggable BIGINT, profileable_from_shell BIGINT, version_code BIGINT);"
    "CREATE VIEW package_list AS SELECT id, package_name, uid, debuggable, "
    "  profileable_from_shell, version_code FROM __intrinsic_package_list;"
    "CREATE VIEW android_logs AS SELECT id, ts, utid, prio, tag, msg FROM __intrinsic_logs "
    "  WHERE log_source = 'android_logcat';"
    "CREATE TABLE __intrinsic_trace_diagnostics(id INTEGER PRIMARY KEY, key TEXT, title TEXT, "
    "  description TEXT, remediation TEXT, confidence DOUBLE, trace_id BIGINT);";

static const char *const table_names[] = {"slice",
                                          "instant",
                                          "track",
                                          "thread_track",
                                          "process_track",
                                          "cpu_track",
                                          "counter_track",
                                          "thread_counter_track",
                                          "process_counter_track",
                                          "counter",
                                          "state",
                                          "machine",
                                          "state_track",
                                          "thread_state_track",
                                          "process_state_track",
                                          "thread",
                                          "process",
                                          "flow",
                                          "args",
                                          "sched",
                                          "thread_state",
                                          "cpu",
                                          "ftrace_event",
                                          "logs",
                                          "android_logs",
                                          "package_list",
                                          "stats",
                                          "alert",
                                          "annotation_track",
                                          NULL};

const char *const *trak_processor_table_names(void) {
  return table_names;
}

static const char *const severities[] = {"info", "data_loss", "error", "notice"};

/* Whether Perfetto's scope of the stat is global (machine_id and trace_id NULL) rather than
** one machine and trace (both 0): the few of its global stats trak has. */
static int stat_is_global(const char *name) {
  static const char *const global[] = {"parse_trace_duration_ns", "clock_sync_cache_miss",
                                       "trace_sorter_negative_timestamp_dropped"};
  for (size_t i = 0; i < sizeof global / sizeof *global; i++)
    if (!strcmp(name, global[i])) return 1;
  return 0;
}

/* Inserts stats row `r`, numbered by *id (then incremented); idx < 0 is NULL. Its key numbers
** the stat (as Perfetto's enum does); its machine is machine_id unless the stat is global. */
static int insert_stat(sqlite3_stmt *st, int64_t *id, const trak_stat_row *r) {
  const trak_stat_def *def = r->def;
  sqlite3_bind_int64(st, 10, (*id)++);
  sqlite3_bind_text(st, 1, def->name, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 2, r->key);
  if (r->idx < 0)
    sqlite3_bind_null(st, 3);
  else
    sqlite3_bind_int64(st, 3, r->idx);
  sqlite3_bind_text(st, 4, severities[def->severity], -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 5, def->analysis ? "analysis" : "trace", -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 6, r->value);
  sqlite3_bind_text(st, 7, def->description, -1, SQLITE_STATIC);
  if (stat_is_global(def->name)) {
    sqlite3_bind_null(st, 8);
    sqlite3_bind_null(st, 9);
  } else {
    sqlite3_bind_int64(st, 8, r->machine);
    sqlite3_bind_int64(st, 9, 0);
  }
  int rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
  sqlite3_reset(st);
  return rc;
}

/* The stats rows the import left (import/import_result.c: the importer's own counts, then the
** figures trace_stats packets carried, ftrace's, then parse_trace_duration_ns). */
static int fill_stats(trak_processor *p) {
  int64_t id = 0;
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(p->db,
                              "INSERT INTO __intrinsic_stats(id, name, key, idx, severity, source, "
                              "value, description, machine_id, trace_id) VALUES (?10, ?1, ?2, ?3, "
                              "?4, ?5, ?6, ?7, ?8, ?9)",
                              -1, &st, NULL);
  for (size_t i = 0; rc == SQLITE_OK && i < p->result.n_stats; i++) {
    rc = insert_stat(st, &id, &p->result.stats[i]);
  }
  sqlite3_finalize(st);
  return rc;
}

/* The problems the import logged with details; the prelude's _trace_import_logs view names them
** through `stat_key`, the stat's key in `stats` (an importer stat's key is its index). */
static void import_log_row(sqlite3_stmt *st, const void *ctx, size_t i) {
  const trak_import_log *l = &((const trak_import_log *)ctx)[i];
  if (l->ts == INT64_MIN)
    sqlite3_bind_null(st, 2);
  else
    sqlite3_bind_int64(st, 2, l->ts);
  if (l->byte_offset < 0)
    sqlite3_bind_null(st, 3);
  else
    sqlite3_bind_int64(st, 3, l->byte_offset);
  sqlite3_bind_int64(st, 4, (int64_t)l->stat);
  trak__sql_bind_u32(st, 5, l->arg_set_id);
}

static int fill_import_logs(trak_processor *p) {
  return trak__sql_fill_rows(p->db,
                             "INSERT INTO __intrinsic_trace_import_logs(id, trace_id, ts, "
                             "byte_offset, stat_key, arg_set_id) VALUES (?, 0, ?, ?, ?, ?)",
                             p->result.n_import_logs, import_log_row, p->result.import_logs);
}

/* The trace diagnostics the import found (import/trace_diagnostics.h), of trace 0. */
static void diagnostic_row(sqlite3_stmt *st, const void *ctx, size_t i) {
  const trak_diag_row *d = &((const trak_diag_row *)ctx)[i];
  sqlite3_bind_text(st, 2, d->key, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, d->title, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 4, d->description, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 5, d->remediation, -1, SQLITE_STATIC);
  sqlite3_bind_double(st, 6, d->confidence);
}

static int fill_diagnostics(trak_processor *p) {
  return trak__sql_fill_rows(p->db,
                             "INSERT INTO __intrinsic_trace_diagnostics(id, key, title, "
                             "description, remediation, confidence, trace_id) "
                             "VALUES (?, ?, ?, ?, ?, ?, 0)",
                             p->result.n_diagnostics, diagnostic_row, p->result.diagnostics);
}

/* logs: the log messages of every source, in the timestamp order the import left them in. */
static void log_row(sqlite3_stmt *st, const void *ctx, size_t i) {
  static const char *const sources[] = {[TRAK_LOG_ANDROID_LOGCAT] = "android_logcat",
                                        [TRAK_LOG_SYSTEMD_JOURNALD] = "systemd_journald"};
  const trak_processor *p = ctx;
  const trak_log_row *l = &p->result.logs[i];
  sqlite3_bind_int64(st, 2, l->ts);
  trak__sql_bind_u32(st, 3, l->utid);
  sqlite3_bind_int64(st, 4, l->prio);
  sqlite3_bind_text(st, 5, sources[l->source], -1, SQLITE_STATIC);
  trak__sql_bind_str(st, 6, &p->tables.strings, l->tag);
  trak__sql_bind_str(st, 7, &p->tables.strings, l->msg);
  trak__sql_bind_u32(st, 8, l->arg_set_id);
}

static int fill_logs(trak_processor *p) {
  return trak__sql_fill_rows(p->db,
                             "INSERT INTO __intrinsic_logs(id, ts, utid, prio, log_source, tag, "
                             "msg, arg_set_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                             p->result.n_logs, log_row, p);
}

/* package_list: the installed Android packages, in the order the lists gave them. */
static void package_row(sqlite3_stmt *st, const void *ctx, size_t i) {
  const trak_processor *p = ctx;
  const trak_package_row *r = &p->result.packages[i];
  trak__sql_bind_str(st, 2, &p->tables.strings, r->name);
  sqlite3_bind_int64(st, 3, r->uid);
  sqlite3_bind_int64(st, 4, r->debuggable);
  sqlite3_bind_int64(st, 5, r->profileable_from_shell);
  sqlite3_bind_int64(st, 6, r->version_code);
}

static int fill_packages(trak_processor *p) {
  return trak__sql_fill_rows(p->db,
                             "INSERT INTO __intrinsic_package_list(id, package_name, uid, "
                             "debuggable, profileable_from_shell, version_code) VALUES (?, ?, ?, "
                             "?, ?, ?)",
                             p->result.n_packages, package_row, p);
}

int trak__sql_open(trak_processor *p, trak_error *err) {
#ifdef __GLIBC__
  /* The import is done: the heap it freed (record blocks trimmed to their rows, stream
  ** buffers) goes back to the system instead of staying resident while the trace is queried
  ** (2 M events: 78 MB resident after the import, 45 MB after this). */
  /* Not under a sanitizer: its allocator replaces glibc's, whose untouched arena malloc_trim
  ** then walks (and crashes on, with threads: test_mt_processors under ASan). */
#ifndef TRAK_SANITIZED_HEAP
  if (!(p->opts.flags & TRAK_PROCESSOR_KEEP_HEAP)) malloc_trim(0);
#endif
#endif
  /* NOMUTEX: a processor is used by one thread at a time (processor.h), so every sqlite3_*
  ** call need not lock the connection (15% of fetching a whole table through Python). */
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(":memory:", &p->db, flags, NULL);
  /* The database lives in memory; so do the sorts and temporary tables of big queries. */
  if (rc == SQLITE_OK) rc = sqlite3_exec(p->db, "PRAGMA temp_store = MEMORY", NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    return trak_error_set(err, TRAK_ENOMEM, "cannot set up SQL: %s",
                          p->db ? sqlite3_errmsg(p->db) : "sqlite3_open failed");
  return 0;
}

/* The virtual tables' CREATE, through the set-up's schema batch. */
static int create_vtab(void *p, const char *sql) {
  return trak__sql_create(p, sql, strlen(sql));
}

int trak__sql_init(trak_processor *p, trak_error *err) {
  int rc = trak__vtab_register(p->db, &p->tables, create_vtab, p);
  if (rc == SQLITE_OK) rc = trak__functions_register(p);
  if (rc == SQLITE_OK) rc = trak__sql_schema_exec(p, views_sql);
  /* The rows are inside the set-up's transaction (trak__sql_ready): each INSERT alone would be
  ** a transaction of its own, its commit costing more than the row (10 K instructions a row of
  ** _trace_import_logs). */
  if (rc == SQLITE_OK) rc = fill_stats(p);
  if (rc == SQLITE_OK) rc = fill_import_logs(p);
  if (rc == SQLITE_OK) rc = fill_logs(p);
  if (rc == SQLITE_OK) rc = fill_packages(p);
  if (rc == SQLITE_OK) rc = fill_diagnostics(p);
  if (rc != SQLITE_OK)
    return trak_error_set(err, TRAK_ENOMEM, "cannot set up SQL: %s", sqlite3_errmsg(p->db));
  return trak__psql_init(p, err);
}

int trak_processor_export(trak_processor *p, const char *path, trak_error *err) {
  int ready = trak__sql_ready(p, err);
  if (ready) return ready;
  remove(path);
  char *sql = sqlite3_mprintf("ATTACH DATABASE %Q AS export_db", path);
  int rc = sqlite3_exec(p->db, sql, NULL, NULL, NULL);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return trak_error_set(err, TRAK_EIO, "%s: %s", path, sqlite3_errmsg(p->db));
  rc = sqlite3_exec(p->db, "BEGIN", NULL, NULL, NULL);
  for (size_t i = 0; rc == SQLITE_OK && table_names[i]; i++) {
    sql = sqlite3_mprintf("CREATE TABLE export_db.%s AS SELECT * FROM main.%s", table_names[i],
                          table_names[i]);
    rc = sqlite3_exec(p->db, sql, NULL, NULL, NULL);
    sqlite3_free(sql);
  }
  if (rc == SQLITE_OK) rc = sqlite3_exec(p->db, "COMMIT", NULL, NULL, NULL);
  int result =
      rc == SQLITE_OK ? 0 : trak_error_set(err, TRAK_EIO, "%s: %s", path, sqlite3_errmsg(p->db));
  if (rc != SQLITE_OK) sqlite3_exec(p->db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_exec(p->db, "DETACH DATABASE export_db", NULL, NULL, NULL);
  return result;
}
