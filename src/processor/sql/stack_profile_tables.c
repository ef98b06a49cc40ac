/*
** This file holds the SQL side of the stack profile tables that TrackEvent callstacks and CPU
** profile samples fill (import/proto/callstacks.c, stack_samples.c):
** __intrinsic_stack_profile_mapping, _frame, _callsite, _symbol (shown by the stack_profile_*
** views), __intrinsic_track_event_callstacks, cpu_profile_stack_sample, and the perf profiler's
** perf_sample and its sessions (__intrinsic_profiler_session, shown by perf_session;
** proto/perf_samples.c), and heapprofd's heap_profile and heap_profile_allocation
** (proto/heap_profile.c), with Perfetto's columns. They are small (one row per distinct frame or
** callsite), so they are plain SQLite tables copied from the importer's rows when SQL opens.
*/

#include "processor/sql/stack_profile_tables.h"
#include "processor/sql/fill_rows.h"

static const char schema[] =
    "CREATE TABLE __intrinsic_stack_profile_mapping(id INTEGER PRIMARY KEY, build_id TEXT, "
    "  exact_offset BIGINT, start_offset BIGINT, start BIGINT, end BIGINT, load_bias BIGINT, "
    "  name TEXT);"
    "CREATE TABLE __intrinsic_stack_profile_frame(id INTEGER PRIMARY KEY, name TEXT, "
    "  mapping BIGINT, rel_pc BIGINT, symbol_set_id BIGINT, deobfuscated_name TEXT, type TEXT);"
    "CREATE TABLE __intrinsic_stack_profile_callsite(id INTEGER PRIMARY KEY, depth BIGINT, "
    "  parent_id BIGINT, frame_id BIGINT);"
    "CREATE TABLE __intrinsic_stack_profile_symbol(id INTEGER PRIMARY KEY, symbol_set_id BIGINT, "
    "  name TEXT, source_file TEXT, line_number BIGINT, inlined BIGINT);"
    "CREATE TABLE __intrinsic_track_event_callstacks(id INTEGER PRIMARY KEY, slice_id BIGINT, "
    "  track_id BIGINT, callsite_id BIGINT, end_callsite_id BIGINT, weight DOUBLE);"
    "CREATE TABLE cpu_profile_stack_sample(id INTEGER PRIMARY KEY, ts BIGINT, "
    "  callsite_id BIGINT, utid BIGINT, process_priority BIGINT);"
    "CREATE TABLE perf_sample(id INTEGER PRIMARY KEY, ts BIGINT, utid BIGINT, cpu BIGINT, "
    "  cpu_mode TEXT, callsite_id BIGINT, unwind_error TEXT, perf_session_id BIGINT);"
    "CREATE TABLE __intrinsic_profiler_session(id INTEGER PRIMARY KEY, source TEXT, "
    "  timebase_unit TEXT, cmdline TEXT);"
    "CREATE TABLE __intrinsic_heap_profile_allocation(id INTEGER PRIMARY KEY, ts BIGINT, "
    "  upid BIGINT, heap_name TEXT, callsite_id BIGINT, count BIGINT, size BIGINT);"
    "CREATE TABLE __intrinsic_heap_profile(id INTEGER PRIMARY KEY, ts BIGINT, ts_end BIGINT, "
    "  dur BIGINT, upid BIGINT, heap_name TEXT);"
    "CREATE VIEW heap_profile_allocation AS SELECT * FROM __intrinsic_heap_profile_allocation;"
    "CREATE VIEW heap_profile AS SELECT * FROM __intrinsic_heap_profile;"
    "CREATE VIEW perf_session AS SELECT id, id AS perf_session_id, cmdline "
    "  FROM __intrinsic_profiler_session WHERE source = 'linux.perf';"
    "CREATE VIEW stack_profile_mapping AS SELECT * FROM __intrinsic_stack_profile_mapping;"
    "CREATE VIEW stack_profile_frame AS SELECT * FROM __intrinsic_stack_profile_frame;"
    "CREATE VIEW stack_profile_callsite AS SELECT * FROM __intrinsic_stack_profile_callsite;"
    "CREATE VIEW stack_profile_symbol AS SELECT * FROM __intrinsic_stack_profile_symbol;";

static void mapping_row(sqlite3_stmt *st, const void *ctx, size_t i) {
  const trak_tables *t = ctx;
  const trak_sp_mapping *m = &t->stack_profile.mappings.v[i];
  trak__sql_bind_str(st, 2, &t->strings, m->build_id);
  sqlite3_bind_int64(st, 3, m->exact_offset);
  sqlite3_bind_int64(st, 4, m->start_offset);
  sqlite3_bind_int64(st, 5, m->start);
  sqlite3_bind_int64(st, 6, m->end);
  sqlite3_bind_int64(st, 7, m->load_bias);
  trak__sql_bind_str(st, 8, &t->strings, m->name);
}

static void frame_row(sqlite3_stmt *st, const void *ctx, size_t i) {
  const trak_tables *t = ctx;
  const trak_sp_frame *f = &t->stack_profile.frames.v[i];
  trak__sql_bind_str(st, 2, &t->strings, f->name);
  sqlite3_bind_int64(st, 3, f->mapping);
  sqlite3_bind_int64(st, 4, f->rel_pc);
  trak__sql_bind_u32(st, 5, f->symbol_set_id);
  trak__sql_bind_str(st, 6, &t->strings, f->deobfuscated_name);
  trak__sql_bind_str(st, 7, &t->strings, f->type);
}

static void callsite_row(sqlite3_stmt *st, const void *ctx, size_t i) {
  const trak_tables *t = ctx;
  const trak_sp_callsite *c = &t->stack_profile.callsites.v[i];
  sqlite3_bind_int64(st, 2, c->depth);
  trak__sql_bind_u32(st, 3, c->parent_id);
  sqlite3_bind_int64(st, 4, c->frame_id);
}

static void symbol_row(sqlite3_stmt *st, const void *ctx, size_t i) {
  const trak_tables *t = ctx;
  const trak_sp_symbol *s = &t->stack_profile.symbols.v[i];
  trak__sql_bind_str(st, 2, &t->strings, s->name);
  trak__sql_bind_str(st, 3, &t->strings, s->source_file);
  if (s->line_number >= 0)
    sqlite3_bind_int64(st, 4, s->line_number);
  else
    sqlite3_bind_null(st, 4);
}

static void callstack_row(sqlite3_stmt *st, const void *ctx, size_t i) {
  const trak_tables *t = ctx;
  const trak_te_callstack *c = &t->stack_profile.te_callstacks.v[i];
  sqlite3_bind_int64(st, 2, c->slice_id);
  sqlite3_bind_int64(st, 3, c->track_id);
  trak__sql_bind_u32(st, 4, c->callsite_id);
  trak__sql_bind_u32(st, 5, c->end_callsite_id);
  if (c->has_weight)
    sqlite3_bind_double(st, 6, c->weight);
  else
    sqlite3_bind_null(st, 6);
}

static void cpu_sample_row(sqlite3_stmt *st, const void *ctx, size_t i) {
  const trak_tables *t = ctx;
  const trak_sp_cpu_sample *c = &t->stack_profile.cpu_samples.v[i];
  sqlite3_bind_int64(st, 2, c->ts);
  sqlite3_bind_int64(st, 3, c->callsite_id);
  sqlite3_bind_int64(st, 4, c->utid);
  sqlite3_bind_int64(st, 5, c->process_priority);
}

static void perf_sample_row(sqlite3_stmt *st, const void *ctx, size_t i) {
  const trak_tables *t = ctx;
  const trak_sp_perf_sample *s = &t->stack_profile.perf_samples.v[i];
  sqlite3_bind_int64(st, 2, s->ts);
  sqlite3_bind_int64(st, 3, s->utid);
  trak__sql_bind_u32(st, 4, s->cpu);
  trak__sql_bind_str(st, 5, &t->strings, s->cpu_mode);
  trak__sql_bind_u32(st, 6, s->callsite_id);
  trak__sql_bind_str(st, 7, &t->strings, s->unwind_error);
  sqlite3_bind_int64(st, 8, s->session);
}

static void heap_alloc_row(sqlite3_stmt *st, const void *ctx, size_t i) {
  const trak_tables *t = ctx;
  const trak_sp_heap_alloc *a = &t->stack_profile.heap_allocs.v[i];
  sqlite3_bind_int64(st, 2, a->ts);
  sqlite3_bind_int64(st, 3, a->upid);
  trak__sql_bind_str(st, 4, &t->strings, a->heap_name);
  sqlite3_bind_int64(st, 5, a->callsite_id);
  sqlite3_bind_int64(st, 6, a->count);
  sqlite3_bind_int64(st, 7, a->size);
}

static void heap_profile_row(sqlite3_stmt *st, const void *ctx, size_t i) {
  const trak_tables *t = ctx;
  const trak_sp_heap_profile *h = &t->stack_profile.heap_profiles.v[i];
  sqlite3_bind_int64(st, 2, h->ts);
  sqlite3_bind_int64(st, 3, h->ts_end);
  sqlite3_bind_int64(st, 4, h->ts_end - h->ts);
  sqlite3_bind_int64(st, 5, h->upid);
  trak__sql_bind_str(st, 6, &t->strings, h->heap_name);
}

/* A perf_session row is its id alone (no cmdline: traced_perf's packets carry none). */
/* A perf session: source 'linux.perf', its timebase's unit; no command line (trak reads none). */
static void profiler_session_row(sqlite3_stmt *st, const void *ctx, size_t i) {
  static const char *const units[] = {NULL, "ns", "cycles", "instructions", "count"};
  const trak_tables *t = ctx;
  uint8_t u = t->stack_profile.perf_session_units.v[i];
  if (u < sizeof units / sizeof *units && units[u])
    sqlite3_bind_text(st, 2, units[u], -1, SQLITE_STATIC);
}

int trak__sql_stack_profile_fill(trak_processor *p) {
  sqlite3 *db = p->db;
  const trak_tables *t = &p->tables;
  int rc = trak__sql_schema_exec(p, schema);
  if (rc == SQLITE_OK)
    rc = trak__sql_fill_rows(
        db,
        "INSERT INTO __intrinsic_stack_profile_mapping VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
        "?8)",
        t->stack_profile.mappings.n, mapping_row, t);
  if (rc == SQLITE_OK)
    rc = trak__sql_fill_rows(
        db, "INSERT INTO __intrinsic_stack_profile_frame VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        t->stack_profile.frames.n, frame_row, t);
  if (rc == SQLITE_OK)
    rc = trak__sql_fill_rows(
        db, "INSERT INTO __intrinsic_stack_profile_callsite VALUES (?1, ?2, ?3, ?4)",
        t->stack_profile.callsites.n, callsite_row, t);
  /* a symbol's set is the symbol itself: one symbol per frame, no inlining information */
  if (rc == SQLITE_OK)
    rc = trak__sql_fill_rows(
        db, "INSERT INTO __intrinsic_stack_profile_symbol VALUES (?1, ?1, ?2, ?3, ?4, NULL)",
        t->stack_profile.symbols.n, symbol_row, t);
  if (rc == SQLITE_OK)
    rc = trak__sql_fill_rows(
        db, "INSERT INTO __intrinsic_track_event_callstacks VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        t->stack_profile.te_callstacks.n, callstack_row, t);
  if (rc == SQLITE_OK)
    rc = trak__sql_fill_rows(db, "INSERT INTO cpu_profile_stack_sample VALUES (?1, ?2, ?3, ?4, ?5)",
                             t->stack_profile.cpu_samples.n, cpu_sample_row, t);
  if (rc == SQLITE_OK)
    rc = trak__sql_fill_rows(db, "INSERT INTO perf_sample VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                             t->stack_profile.perf_samples.n, perf_sample_row, t);
  if (rc == SQLITE_OK)
    rc = trak__sql_fill_rows(db,
                             "INSERT INTO __intrinsic_profiler_session VALUES (?1, 'linux.perf', "
                             "?2, NULL)",
                             t->stack_profile.perf_session_units.n, profiler_session_row, t);
  if (rc == SQLITE_OK)
    rc = trak__sql_fill_rows(
        db, "INSERT INTO __intrinsic_heap_profile_allocation VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        t->stack_profile.heap_allocs.n, heap_alloc_row, t);
  if (rc == SQLITE_OK)
    rc = trak__sql_fill_rows(db,
                             "INSERT INTO __intrinsic_heap_profile VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                             t->stack_profile.heap_profiles.n, heap_profile_row, t);
  return rc;
}
