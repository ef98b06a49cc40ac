/*
** The processor object shared by the API (processor.c), the input stream (read/stream.c), the
** SQL layer (sql/), analysis/ and export/. It includes no importer header: the layers above
** import/ read the import's outcome through `tables` and `result` only.
*/
#ifndef TRAK_PROCESSOR_INTERNAL_H
#define TRAK_PROCESSOR_INTERNAL_H

#include <stdatomic.h>
#include <stdio.h>

#include <sqlite3.h>
#include <zlib.h>

#include "processor/tables/import_result.h"
#include "processor/tables/storage.h"
#include "processor/read/text_split.h"
#include "processor/read/trace_file.h"
#include "processor/util/phase_clock.h"
#include "trak/pb.h"
#include "trak/processor.h"

typedef TRAK_VEC(uint8_t) trak_bytes;
typedef struct trak_analysis trak_analysis;   /* analysis.h */
typedef struct trak_psql trak_psql;           /* sql/perfetto_sql/psql.h */
typedef struct trak_sql_guard trak_sql_guard; /* sql/sql_guard.c */

/* A gzip stream's inflate and where it stands, one loop for either thread (read/stream_gzip.c): the
** decoding thread uses the processor's while it runs (read/pipeline.h), the importer's otherwise. */
typedef struct trak_inflate {
  z_stream z;
  int live;           /* z is initialised and chunk allocated */
  int ended;          /* 0 inside a gzip member, 1 after one (another may follow), 2 done */
  uint64_t member_in; /* compressed bytes read over every member (offsets in messages) */
  uint8_t *chunk;     /* the inflated output being filled, TRAK_INFLATE_CHUNK bytes */
  size_t fill;        /* bytes of it filled (0 between feed calls) */
} trak_inflate;

/* Inflated bytes handed on at a time: where the inflated stream is cut for framing, on either
** thread. */
#define TRAK_INFLATE_CHUNK (1u << 16)

struct trak_processor {
  trak_tables tables;
  struct trak_importer *imp; /* import/importer.h: the import's state, owned; only processor.c
                             ** and read/ look inside it */
  trak_import_result result; /* what the import left for queries (tables/import_result.h); made
                             ** when the import is done, before the SQL layer opens */
  trak_processor_options opts;
  trak_phase_clock clock; /* the import's phases, printed with TRAK_IMPORT_PROFILE=1 */
  int finished;
  /* The connection, opened by trak_processor_finish; its tables, views, functions and
  ** PerfettoSQL prelude are set up on first use, by trak__sql_ready. */
  sqlite3 *db;
  int sql_state;        /* 0: not set up yet, 1: set up, else the TRAK_E* code it failed with */
  trak_error sql_error; /* that failure, repeated to every later use */
  atomic_int sql_live;  /* 1 once set up: trak_processor_interrupt (any thread, a signal
                         ** handler) leaves the set-up's own statements alone */
  /* In the set-up: its INSERT into sqlite_schema and the rows it wrote (schema_batch.c). */
  sqlite3_stmt *schema_batch;
  int schema_batch_n;

  /* input stream */
  int raw_state; /* 0 sniffing, 1 plain, 2 gzip */
  trak_bytes raw_sniff;
  trak_inflate inf;         /* a gzip-compressed trace's inflate (read/stream_gzip.c) */
  trak_trace_format format; /* of the uncompressed bytes; UNKNOWN while sniffing */
  trak_bytes plain_sniff;
  trak_text_split text;  /* a text trace, cut into top-level fields as it arrives */
  trak_pb_buf text_out;  /* the binary of one piece of such fields */
  int text_live;         /* text and text_out are initialised */
  trak_bytes text_skips; /* unknown names met in the piece being parsed: "line L, column C: what"
                          ** strings, each NUL-ended, reported once the piece parses */
  trak_bytes pending;    /* bytes of a packet that straddles feed calls */
  uint64_t plain_offset; /* uncompressed bytes framed so far (start of pending) */
  uint64_t fed;          /* raw bytes fed */
  uint64_t skip_left;    /* bytes still to skip of a packet over the size limit */
  int dead;              /* malformed framing: the rest of the input is ignored */
  int import_threads;    /* 2: a binary trace is framed and decoded on a second thread */
  struct trak_pipeline *pipe;    /* that thread (read/pipeline.h) while it runs, else NULL */
  struct trak_json_import *json; /* the JSON trace importer (import/json/json.h), when the
                                 ** trace is JSON */
  struct trak_systrace_import *systrace; /* the systrace text importer, when the trace is one */
  trak__field_sink sink; /* reader mode (trak__read_packets): fields go here, not imported */
  void *sink_user;

  /* built on first use by the SQL functions */
  trak_csr children, flows_out, flows_in;
  int have_children, have_flow_index;
  uint32_t descendant_scans; /* descendant_slice calls answered without `children` */

  trak_psql *psql;         /* PerfettoSQL macros, functions and included modules; NULL before SQL */
  trak_analysis *analysis; /* descriptions, metrics, annotations (analysis.h); NULL until used */
  trak_sql_guard *guard;   /* the authorizer of trak_processor_restrict_sql; NULL: full SQLite */
};

/* Input stream (read/stream.c and its stream_*.c). */
void trak__stream_feed(trak_processor *p, const uint8_t *data, size_t len);
/* Feeding from file `f` (`total` bytes, 0: unknown; mapped as `m` when m->data is set, see
** read/file_map.h) with a decoding thread that can read (read/pipeline.h): it reads and decodes
** the rest of the file, tokenized here; returns 1 at the end of the file (p->fed counts it),
** else 0 (the caller feeds it). */
struct trak_file_map;
int trak__stream_read_rest(trak_processor *p, FILE *f, struct trak_file_map *m, uint64_t total);
/* Flushes the stream at end of input. Returns 0 (problems in the trace are reported as stats). */
int trak__stream_finish(trak_processor *p, trak_error *err);
void trak__stream_free(trak_processor *p);

/* SQL (sql.c). trak__sql_open opens the in-memory database (p->db), after giving the heap the
** import freed back to the system; trak_processor_finish calls it. trak__sql_init then registers
** tables, views and functions, fills the stats, import log and logs tables from p->result,
** which must be made, and includes the PerfettoSQL prelude, all inside the transaction
** trak__sql_ready opens. Each returns 0, or a negative TRAK_E* code with err set; p->db may
** then be open, for trak_processor_free. */
int trak__sql_open(trak_processor *p, trak_error *err);
int trak__sql_init(trak_processor *p, trak_error *err);
/* The set-up's schema batch (schema_batch.c). trak__sql_schema_begin starts it (writable_schema
** on, p->schema_batch prepared); until trak__sql_schema_end, trak__sql_create writes a
** `CREATE VIEW name ...` or `CREATE VIRTUAL TABLE name ...` of `len` bytes (no `;`), spelt with
** single spaces, straight into sqlite_schema, and runs any other statement (outside a batch, every
** statement); trak__sql_schema_write only writes, returning SQLITE_NOTFOUND for a statement it
** cannot. trak__sql_schema_exec does trak__sql_create for each statement of a `;`-separated
** text. With `ok`, trak__sql_schema_end counts the written rows into the schema version, as
** their CREATEs would have, turns writable_schema off and has SQLite read the schema again;
** without, it only ends the batch. Each returns an SQLite code. */
int trak__sql_schema_begin(trak_processor *p);
int trak__sql_create(trak_processor *p, const char *sql, size_t len);
int trak__sql_schema_write(trak_processor *p, const char *sql, size_t len);
int trak__sql_schema_exec(trak_processor *p, const char *sql);
int trak__sql_schema_end(trak_processor *p, int ok);
/* Sets up SQL on p the first time it is needed (trak__sql_init, then the analysis layer's
** tables and functions) so that an import that is never queried (trak convert, exports) does
** not pay for it: every entry point that runs SQL calls it first (processor.c). Returns 0 once
** set up; TRAK_ESTATE "the trace is not finished" before trak_processor_finish; else the set-up's
** failure, the same one at every later call. */
int trak__sql_ready(trak_processor *p, trak_error *err);
/* Creates and fills __intrinsic_metadata from p->result.metadata (metadata_table.c). Returns
** SQLITE_OK or SQLite's error code. */
int trak__sql_metadata_fill(trak_processor *p);
/* Registers the functions (sql_functions.c); the tables' module is tables/vtab.h's. */
int trak__functions_register(trak_processor *p);
/* Registers demangle() and __intrinsic_demangle() (sql/demangle.c). */
int trak__demangle_register(trak_processor *p);
/* The SQL guard (sql_guard.c). trak__sql_guard_trust(p, +1) lets the statements trak runs for
** itself (a module's table filled on first use) past the guard until the matching -1; it does
** nothing on an unrestricted processor. trak__sql_guard_free accepts NULL. */
void trak__sql_guard_trust(trak_processor *p, int delta);
void trak__sql_guard_free(trak_sql_guard *g);
/* Lazily built indexes for the functions. */
void trak__ensure_children(trak_processor *p);
void trak__ensure_flow_index(trak_processor *p);

#endif /* TRAK_PROCESSOR_INTERNAL_H */
