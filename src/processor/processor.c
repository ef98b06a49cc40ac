/*
** This file holds the public processor API of include/trak/processor.h: lifetime, feeding,
** finishing (sort + tables + the SQL connection; SQL's set-up on first use, trak__sql_ready),
** statistics, and queries with typed row access.
*/
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "processor/analysis/analysis.h"
#include "processor/sql/column_fetch.h"
#include "processor/import/ftrace/ftrace.h"
#include "processor/import/import_result.h"
#include "processor/import/proto/proto.h"
#include "processor/processor_internal.h"
#include "processor/read/file_map.h"
#include "processor/read/pipeline.h"
#include "processor/sql/perfetto_sql/psql.h"

struct trak_query {
  trak_processor *p;
  sqlite3_stmt *stmt;
  trak__columns *columns; /* NULL until the first trak_query_fetch_columns */
};

/* The importer's format parts (import/importer.h), in the order of their stats rows: protobuf's
** (the service's trace_stats figures), the Linux event sink's (ftrace), the perf profiler's. */
static const trak_format_part format_parts[] = {
    {trak__trace_stats_row, trak__proto_free},
    {trak__ftrace_stats_row, trak__ftrace_free},
    {trak__perf_stats_row, trak__perf_samples_free},
};

int trak_processor_new(const trak_processor_options *options, trak_processor **out,
                       trak_error *err) {
  trak_processor *p = calloc(1, sizeof *p);
  if (p) p->imp = calloc(1, sizeof *p->imp);
  if (!p || !p->imp) {
    free(p);
    return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  }
  if (options) p->opts = *options;
  trak__phase_clock_start(&p->clock);
  trak__tables_init(&p->tables);
  trak__importer_init(p->imp, &p->tables, options, format_parts,
                      sizeof format_parts / sizeof *format_parts);
  *out = p;
  return 0;
}

int trak_processor_feed(trak_processor *p, const void *data, size_t len, trak_error *err) {
  if (p->finished) return trak_error_set(err, TRAK_ESTATE, "trace already finished");
  trak__stream_feed(p, data, len);
  return 0;
}

int trak_processor_finish(trak_processor *p, trak_error *err) {
  if (p->finished) return trak_error_set(err, TRAK_ESTATE, "trace already finished");
  p->finished = 1;
  trak__phase_clock_mark(&p->clock, "read");
  int rc = trak__stream_finish(p, err);
  trak__stream_free(p);
  if (rc) return rc;
  trak__phase_clock_mark(&p->clock, "stream end");
  trak__packets_retry_deferred(p->imp);
  trak__power_rails_finish(p->imp);
  trak__perf_samples_apply(p->imp);
  trak__gpu_finish(p->imp);
  trak__gpu_stages_finish(p->imp);
  trak__graphics_frames_finish(p->imp);
  trak__frame_timeline_finish(p->imp);
  trak__ftrace_finish(p->imp);
  trak__phase_clock_mark(&p->clock, "ftrace end");
  p->imp->prefault = p->import_threads > 1; /* the decoding thread's core is idle now */
  trak__events_parse(p->imp);
  trak__phase_clock_mark(&p->clock, "parse");
  trak__tracks_finish(p->imp);
  trak__proto_finish(p->imp);
  trak__phase_clock_mark(&p->clock, "tracks end");
  const char *trace_type = p->format == TRAK_FORMAT_JSON       ? "json"
                           : p->format == TRAK_FORMAT_SYSTRACE ? "systrace"
                                                               : "proto";
  if (trak__import_result_make(p->imp, trace_type, (int64_t)p->fed, &p->result))
    return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  trak__phase_clock_mark(&p->clock, "result");
  rc = trak__sql_open(p, err);
  if (rc) return rc;
  /* The rest of the SQL set-up waits for the first query (trak__sql_ready); restricting SQL
  ** needs it at once. */
  if (p->opts.flags & TRAK_PROCESSOR_RESTRICT_SQL) return trak_processor_restrict_sql(p, err);
  return 0;
}

int trak__sql_ready(trak_processor *p, trak_error *err) {
  if (p->sql_state == 1) return 0;
  if (!p->db) return trak_error_set(err, TRAK_ESTATE, "the trace is not finished");
  if (p->sql_state) return trak_error_set(err, p->sql_error.code, "%s", p->sql_error.message);
  trak_error e = {0};
  /* The whole set-up is one transaction: each of its ~100 statements alone would be a
  ** transaction of its own, begun and committed. (A failure leaves it open, the message kept:
  ** the processor is freed, its connection closed, which rolls it back.) */
  /* Its views and virtual tables go through the schema batch (sql/schema_batch.c), read by
  ** SQLite once at the end instead of at each CREATE. */
  int rc = sqlite3_exec(p->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK &&
                   trak__sql_schema_begin(p) == SQLITE_OK
               ? 0
               : trak_error_set(&e, TRAK_ENOMEM, "cannot set up SQL: %s", sqlite3_errmsg(p->db));
  if (!rc) rc = trak__sql_init(p, &e);
  /* The analysis layer (describe_slice, alert, annotation_track) is built on the SQL layer, so
  ** it is registered here, after it, rather than by sql/ calling up into analysis/. */
  if (!rc && (trak__analysis_register(p) != SQLITE_OK || trak__sql_schema_end(p, 1) != SQLITE_OK ||
              sqlite3_exec(p->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK))
    rc = trak_error_set(&e, TRAK_ENOMEM, "cannot set up SQL: %s", sqlite3_errmsg(p->db));
  trak__sql_schema_end(p, 0); /* after a failure: the batch's statement finalized */
  trak__phase_clock_mark(&p->clock, "sql init"); /* with the time since finish, if any */
  if (rc) {
    p->sql_state = rc;
    p->sql_error = e;
    return trak_error_set(err, rc, "%s", e.message);
  }
  p->sql_state = 1;
  atomic_store_explicit(&p->sql_live, 1, memory_order_release);
  return 0;
}

/* The next read of feed_file, `chunk` bytes or fewer at the end, after `done` bytes: in place
** from the mapped file (m->data set), else with fread into `buf`. Returns its length, 0 at the
** end, and points *data at it. */
static size_t next_read(FILE *f, trak_file_map *m, uint8_t *buf, size_t chunk, uint64_t done,
                        const uint8_t **data) {
  if (!m->data) {
    *data = buf;
    return fread(buf, 1, chunk, f);
  }
  trak__file_map_drop(m, (size_t)done); /* the stream keeps copies of what it holds on to */
  *data = m->data + done;
  size_t end = trak__file_map_ready(m, (size_t)done + chunk);
  return end > done ? end - (size_t)done : 0; /* the file may have shrunk */
}

/* Feeds the file `f` to the stream in 1 MiB reads, reporting progress: a regular file through
** a read-only mapping (read/file_map.h) where it can be, so that nothing copies its bytes.
** Returns 0 or TRAK_EIO / TRAK_ENOMEM naming `path`. */
static int feed_file(trak_processor *p, FILE *f, const char *path, uint64_t total,
                     trak_error *err) {
  size_t chunk = 1 << 20;
  trak_file_map m = {0};
  uint8_t *buf = NULL;
  if (f == stdin || trak__file_map_open(&m, fileno(f), total)) {
    buf = malloc(chunk);
    if (!buf) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  }
  uint64_t done = 0, next_report = 0;
  for (;;) {
    const uint8_t *data;
    size_t got = next_read(f, &m, buf, chunk, done, &data);
    if (!got) break;
    trak__stream_feed(p, data, got);
    done += got;
    if (p->opts.progress && done >= next_report) {
      p->opts.progress(p->opts.user, done, total);
      next_report = done + (16u << 20);
    }
    /* with a decoding thread, it reads the rest (after a whole first read: its first 4 KiB
    ** hashed here) */
    if (got == chunk && trak__stream_read_rest(p, f, &m, total)) done = p->fed;
  }
  trak__file_map_close(&m);
  free(buf);
  if (ferror(f)) return trak_error_set(err, TRAK_EIO, "%s: read failed", path);
  if (p->opts.progress) p->opts.progress(p->opts.user, total ? total : done, total ? total : done);
  return 0;
}

static FILE *open_input(const char *path, uint64_t *total, trak_error *err) {
  int is_stdin = !strcmp(path, "-");
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  if (!f) {
    trak_error_set(err, TRAK_EIO, "%s: %s", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  int have = !is_stdin && fstat(fileno(f), &st) == 0;
  if (have && S_ISDIR(st.st_mode)) { /* fopen opens one; the first read would fail unclearly */
    fclose(f);
    trak_error_set(err, TRAK_EIO, "%s: is a directory, not a trace file", path);
    return NULL;
  }
  *total = have ? (uint64_t)st.st_size : 0;
  return f;
}

int trak_processor_open_file(const char *path, const trak_processor_options *options,
                             trak_processor **out, trak_error *err) {
  *out = NULL;
  uint64_t total;
  FILE *f = open_input(path, &total, err);
  if (!f) return TRAK_EIO;
  trak_processor *p;
  int rc = trak_processor_new(options, &p, err);
  if (!rc) {
    p->import_threads = trak__import_threads(total);
    rc = feed_file(p, f, path, total, err);
  }
  if (f != stdin) fclose(f);
  if (rc) {
    trak_processor_free(p);
    return rc;
  }
  rc = trak_processor_finish(p, err);
  if (rc) {
    trak_error_prefix(err, "%s", path);
    trak_processor_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

int trak__read_packets(const char *path, const trak_processor_options *opts, trak__field_sink sink,
                       void *user, trak_trace_format *format, uint64_t *bytes, trak_error *err) {
  *format = TRAK_FORMAT_UNKNOWN;
  *bytes = 0;
  uint64_t total;
  FILE *f = open_input(path, &total, err);
  if (!f) return TRAK_EIO;
  trak_processor *p;
  int rc = trak_processor_new(opts, &p, err);
  if (!rc) {
    p->sink = sink, p->sink_user = user;
    rc = feed_file(p, f, path, total, err);
  }
  if (f != stdin) fclose(f);
  if (!rc) {
    p->finished = 1;
    rc = trak__stream_finish(p, err);
    *format = p->format;
    *bytes = p->plain_offset;
  }
  trak_processor_free(p);
  return rc;
}

void trak_processor_free(trak_processor *p) {
  if (!p) return;
  trak__phase_clock_mark(&p->clock, "queries"); /* since the import or the last mark */
  trak__psql_free(p);
  if (p->db) sqlite3_close_v2(p->db);
  trak__sql_guard_free(p->guard); /* after the connection: it is the authorizer's data */
  trak__analysis_free(p);
  trak__stream_free(p);
  trak__import_result_free(&p->result); /* before the importer: it borrows from it */
  if (p->imp) trak__importer_free(p->imp);
  free(p->imp);
  trak__tables_free(&p->tables);
  trak__csr_free(&p->children);
  trak__csr_free(&p->flows_out);
  trak__csr_free(&p->flows_in);
  trak__phase_clock_mark(&p->clock, "free");
  free(p);
}

uint64_t trak_processor_event_count(const trak_processor *p) {
  return p->imp->n_events;
}
uint64_t trak_processor_byte_count(const trak_processor *p) {
  return p->plain_offset + p->pending.n;
}

size_t trak_processor_stat_count(const trak_processor *p) {
  return TRAK_STAT_COUNT + 1; /* and ftrace_cpu_has_data_loss over every CPU */
}

int trak_processor_stat_get(const trak_processor *p, size_t i, trak_stat *out) {
  if (i == TRAK_STAT_COUNT) {
    out->name = "ftrace_cpu_has_data_loss";
    out->severity = TRAK_SEVERITY_DATA_LOSS;
    out->description = "CPUs whose ftrace bundles said lost_events: the kernel buffer overwrote "
                       "events between reads, so those CPUs' scheduling data is unreliable (a "
                       "bigger buffer helps). The stats table has a row per such CPU (idx).";
    out->value = trak__ftrace_loss_total(p->imp);
    return 0;
  }
  if (i >= TRAK_STAT_COUNT) return TRAK_EINVAL;
  out->name = trak__stat_defs[i].name;
  out->severity = trak__stat_defs[i].severity;
  out->description = trak__stat_defs[i].description;
  out->value = p->imp->stats[i];
  return 0;
}

int64_t trak_processor_stat_value(const trak_processor *p, const char *name) {
  for (size_t i = 0; i < TRAK_STAT_COUNT; i++)
    if (!strcmp(trak__stat_defs[i].name, name)) return p->imp->stats[i];
  return -1;
}

/* ---- queries --------------------------------------------------------------------------- */

/* SQLite's refusal by the authorizer of restricted SQL (sql_guard.c), saying what that means. */
static int auth_error(const char *msg, trak_error *err) {
  return trak_error_set(err, TRAK_EINVAL,
                        "%s: restricted SQL may read every table and make tables, views and "
                        "functions of its own, but not attach databases, write files or change "
                        "trak's tables",
                        msg);
}

int trak_query_open(trak_processor *p, const char *sql, trak_query **out, const char **tail,
                    trak_error *err) {
  *out = NULL;
  int ready = trak__sql_ready(p, err);
  if (ready) return ready;
  sqlite3_stmt *stmt = NULL;
  const char *rest = sql;
  /* PerfettoSQL statements run on the way; comments and stray semicolons are skipped. */
  char msg[1200];
  if (trak__psql_prepare(p, sql, NULL, &stmt, &rest, msg, sizeof msg)) {
    if (tail) *tail = rest;
    if (sqlite3_errcode(p->db) == SQLITE_AUTH) return auth_error(msg, err);
    return trak_error_set(err, TRAK_EINVAL, "%s", msg);
  }
  if (tail) *tail = rest;
  if (!stmt) return 0;
  trak_query *q = malloc(sizeof *q);
  if (!q) {
    sqlite3_finalize(stmt);
    return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  }
  q->p = p;
  q->stmt = stmt;
  q->columns = NULL;
  *out = q;
  return 0;
}

int trak_query_next(trak_query *q, trak_error *err) {
  int rc = sqlite3_step(q->stmt);
  if (rc == SQLITE_ROW) return 1;
  if (rc == SQLITE_DONE) return 0;
  if (rc == SQLITE_AUTH) return auth_error(sqlite3_errmsg(q->p->db), err);
  return trak_error_set(err, TRAK_EINVAL, "%s", sqlite3_errmsg(q->p->db));
}

int trak_query_column_count(const trak_query *q) {
  return sqlite3_column_count(q->stmt);
}
const char *trak_query_column_name(const trak_query *q, int col) {
  return sqlite3_column_name(q->stmt, col);
}

trak_value_type trak_query_type(trak_query *q, int col) {
  switch (sqlite3_column_type(q->stmt, col)) {
  case SQLITE_INTEGER:
    return TRAK_VALUE_INT;
  case SQLITE_FLOAT:
    return TRAK_VALUE_DOUBLE;
  case SQLITE_NULL:
    return TRAK_VALUE_NULL;
  case SQLITE_BLOB:
    return TRAK_VALUE_BLOB;
  default:
    return TRAK_VALUE_STRING;
  }
}
int64_t trak_query_int(trak_query *q, int col) {
  return sqlite3_column_int64(q->stmt, col);
}
double trak_query_double(trak_query *q, int col) {
  return sqlite3_column_double(q->stmt, col);
}
const char *trak_query_string(trak_query *q, int col) {
  return (const char *)sqlite3_column_text(q->stmt, col);
}

const void *trak_query_blob(trak_query *q, int col, size_t *len) {
  const void *v = sqlite3_column_blob(q->stmt, col); /* before _bytes, as SQLite advises */
  *len = (size_t)sqlite3_column_bytes(q->stmt, col);
  return v;
}

int64_t trak_query_fetch_columns(trak_query *q, size_t max_rows, trak_column_batch *cols,
                                 trak_error *err) {
  return trak__columns_fetch(q->p->db, q->stmt, &q->columns, max_rows, cols, err);
}

void trak_query_free(trak_query *q) {
  if (!q) return;
  trak__columns_free(q->columns);
  sqlite3_finalize(q->stmt);
  free(q);
}

void trak_processor_interrupt(trak_processor *p) {
  /* Not before SQL is set up: an interrupted set-up would fail for good. An interrupt then is
  ** lost, as one made while no statement runs is. */
  if (p->db && atomic_load_explicit(&p->sql_live, memory_order_acquire)) sqlite3_interrupt(p->db);
}

int trak_processor_exec(trak_processor *p, const char *sql, trak_error *err) {
  int ready = trak__sql_ready(p, err);
  if (ready) return ready;
  char msg[1200];
  if (trak__psql_exec(p, sql, NULL, msg, sizeof msg))
    return trak_error_set(err, TRAK_EINVAL, "%s", msg);
  return 0;
}
