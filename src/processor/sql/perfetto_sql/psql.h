/*
** PerfettoSQL on top of SQLite: the interface between its parts. lexer.c cuts text into tokens,
** macros.c keeps CREATE PERFETTO MACRO definitions and expands `name!(...)` invocations,
** functions.c turns CREATE PERFETTO FUNCTION into SQLite scalar functions and eponymous virtual
** tables, modules.c holds the modules embedded at build time and INCLUDE, statements.c
** recognises and runs each PerfettoSQL statement, and engine.c drives a text statement by
** statement for trak_query_open and module bodies.
*/
#ifndef TRAK_PSQL_H
#define TRAK_PSQL_H

#include <sqlite3.h>
#include <stddef.h>

#include "processor/processor_internal.h"

/* ---- lexer.c -------------------------------------------------------------------------------- */

typedef enum psql_tok_kind {
  PSQL_EOF,
  PSQL_ID,     /* identifier or keyword, quoted ones included */
  PSQL_STRING, /* '...' or x'...' */
  PSQL_NUMBER,
  PSQL_VAR,   /* $name, :name, @name, ?NNN */
  PSQL_PUNCT, /* one character: ( ) , ; ! . * = ... or a two-character operator */
} psql_tok_kind;

typedef struct psql_tok {
  psql_tok_kind kind;
  size_t off; /* byte offset of the token in the text */
  size_t len;
} psql_tok;

/* The token starting at or after `pos` (whitespace and comments skipped). At the end of the
** text, or at an unterminated string or comment, returns a PSQL_EOF token at the end. */
psql_tok trak__psql_lex(const char *s, size_t n, size_t pos);
/* Whether token `t` of `s` is the identifier `word`, compared without case. */
int trak__psql_is(const char *s, psql_tok t, const char *word);
/* Whether token `t` of `s` is one of the `n` identifiers `words`, compared without case. */
int trak__psql_is_one_of(const char *s, psql_tok t, const char *const *words, size_t n);
/* Whether token `t` is the single character `c`. */
int trak__psql_is_char(const char *s, psql_tok t, char c);
/* Offset of the end of the statement starting at `pos`: the `;` at parenthesis depth 0 (the
** offset just after it), or `n`. CREATE TRIGGER bodies (BEGIN ... END) count as one statement. */
size_t trak__psql_statement_end(const char *s, size_t n, size_t pos);
/* 1-based line and column of byte `off` in `s`. */
void trak__psql_line_col(const char *s, size_t off, int *line, int *col);

/* ---- macros.c ------------------------------------------------------------------------------- */

typedef struct psql_macros psql_macros;

/* The result of expanding a text: the new text and, for each byte range of it, where it came
** from, so that an error inside can be reported at the user's text. */
typedef struct psql_span {
  size_t out_off; /* first byte of the range in the output */
  size_t src_off; /* the source byte it maps to */
  int verbatim;   /* 1: byte i of the range is source byte src_off + i; 0: a macro's output */
} psql_span;

typedef struct psql_expansion {
  char *text; /* NUL-terminated; malloc'ed */
  size_t len;
  psql_span *spans;
  size_t nspans, cap;
} psql_expansion;

psql_macros *trak__psql_macros_new(void);
void trak__psql_macros_free(psql_macros *m);
/* Defines (or, with replace, redefines) macro `name` with parameters `params` (n names) and
** `body`. Returns 0, or -1 with a message in `msg` (at most msg_len bytes) if it exists. */
int trak__psql_macro_define(psql_macros *m, const char *name, size_t name_len, char **params,
                            size_t nparams, const char *body, size_t body_len, int replace,
                            char *msg, size_t msg_len);
/* A macro whose expansion C computes: writes the text for arguments args[i] (lens[i] bytes,
** as written) into `out`; returns 0, or -1 with a message. */
typedef int (*psql_macro_gen)(const char *const *args, const size_t *lens, size_t nargs,
                              sqlite3_str *out, char *msg, size_t msg_len);
/* nparams PSQL_VARIADIC: any number of arguments. */
#define PSQL_VARIADIC ((size_t)-1)
int trak__psql_macro_define_builtin(psql_macros *m, const char *name, size_t nparams,
                                    psql_macro_gen gen);
/* Splits a parenthesised list "(a, (b, c), 'd,e')" into its items (offsets into s, trimmed).
** Returns the number of items (0 for "()"), or -1 if s is not a parenthesised list or has more
** than `max` items. */
int trak__psql_split_list(const char *s, size_t n, size_t *off, size_t *len, size_t max);
/* Registers the built-in macros written in C (builtin_macros.c). */
/* Registers the __trak_graph table function (graphs.c). */
/* Registers experimental_slice_layout (slice_layout.c). */
int trak__psql_slice_layout_register(trak_processor *p);
/* Registers __trak_intervals and __trak_interval_intersect (interval_intersect.c). */
int trak__psql_interval_intersect_register(trak_processor *p);
/* Registers __trak_slice_flat_pieces and __trak_slice_stack_ids (slice_walks.c). */
int trak__psql_slice_walks_register(trak_processor *p);
/* qsort_r comparator of row numbers (uint32_t) by the timestamps `ctx` (const int64_t *)
** holds, ties by row number (slice_walks.c). */
int trak__rows_by_ts_cmp(const void *a, const void *b, void *ctx);
/* Registers __trak_thread_slice_time_in_state and __trak_thread_slice_cpu_time
** (slice_thread_time.c). */
int trak__psql_slice_thread_time_register(trak_processor *p);
/* Registers __trak_thread_state_time and __trak_previous_runnable, the C cores of
** sched.time_in_state and sched.runnable (thread_state_scans.c). */
int trak__psql_thread_state_scans_register(trak_processor *p);
/* Registers __trak_overlap_count, sched.thread_level_parallelism's counts (overlap_count.c). */
int trak__psql_overlap_count_register(trak_processor *p);

/* One (state, io_wait, blocked_function[, CPU]) of a thread slice and its time there. */
typedef struct trak_thread_time_group {
  uint32_t state, blocked; /* thread_state's string ids, 0: NULL (both 0 for sched) */
  uint32_t ucpu;           /* thread_state's ucpu when summed by CPU, else TRAK_NULL_U32 */
  uint8_t io_wait;         /* 0, 1, 2: NULL */
  int64_t dur;
} trak_thread_time_group;
typedef struct trak_thread_time trak_thread_time;
/* An index of the thread_state rows (sched: the sched rows) with dur > 0 of the threads that
** have thread slices, by thread. Reads `t` while it lives: rebuild it when rows are appended.
** NULL out of memory; free with trak__thread_time_free. */
trak_thread_time *trak__thread_time_new(const trak_tables *t, int sched);
void trak__thread_time_free(trak_thread_time *tt);
/* Slice s's time per group, the groups in SQLite's GROUP BY order of (state, io_wait,
** blocked_function, ucpu), ucpu kept only when by_cpu: *out points into tt (valid until the
** next call), *n is 0 when s is no thread slice (dur > 0, thread track, utid > 0) or nothing
** overlaps it. Returns 0, or -1 out of memory. */
int trak__thread_time_slice(trak_thread_time *tt, uint32_t s, int by_cpu,
                            const trak_thread_time_group **out, size_t *n);

/* 64-bit FNV-1a, Perfetto's hash(): feeds n bytes into state h (start from the basis). */
#define TRAK_PSQL_FNV1A_BASIS 14695981039346656037ull
static inline uint64_t trak__psql_fnv1a(uint64_t h, const void *data, size_t n) {
  const unsigned char *s = data;
  for (size_t i = 0; i < n; i++)
    h = (h ^ s[i]) * 1099511628211ull;
  return h;
}
int trak__psql_graphs_register(trak_processor *p);

/* ---- row_blobs.c: a table's rows in a BLOB, made by the aggregate __trak_rows -------------- */

enum { TRAK_ROWS_MAX_COLS = 64 };

/* One value of a __trak_rows BLOB: its SQLite type and payload (bytes point into the BLOB). */
typedef struct trak_cell {
  int type; /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL */
  int64_t i;
  double d;
  const unsigned char *bytes; /* TEXT (not NUL-ended) and BLOB */
  uint32_t len;
} trak_cell;

/* A reading position in a __trak_rows BLOB. */
typedef struct trak_rows_reader {
  const unsigned char *p;
  size_t n, at;
  uint32_t ncols; /* 0 for NULL (the aggregate of no rows) */
} trak_rows_reader;

/* Starts reading `blob` (which must outlive the reader). NULL reads as no rows. Returns 0, or
** -1 when the value is neither NULL nor a __trak_rows BLOB. */
int trak__rows_open(sqlite3_value *blob, trak_rows_reader *r);
/* Reads the next row into cells[0..r->ncols). Returns 1 for a row, 0 at the end, -1 when the
** BLOB is malformed (the cells are then partly filled). */
int trak__rows_next(trak_rows_reader *r, trak_cell *cells);
/* The cell as SQLite's CAST to INTEGER would give it (NULL and BLOB: 0). This function can't
** fail. */
int64_t trak__cell_int(const trak_cell *c);
/* Sets the cell as the result of ctx (TEXT and BLOB copied). */
void trak__cell_result(sqlite3_context *ctx, const trak_cell *c);
/* Registers the aggregate __trak_rows(v0, ..., up to 64 values): NULL for no rows. */
int trak__psql_row_blobs_register(trak_processor *p);
/* Registers __trak_graph_scan and __trak_graph_scan_step (graph_scan.c). */
int trak__psql_graph_scan_register(trak_processor *p);

/* ---- graphs.c, critical_path.c: rows of __trak_graph ---------------------------------------- */

enum { TRAK_GRAPH_COLS = 7 };

/* Rows of TRAK_GRAPH_COLS nullable integers (v and null row after row). */
typedef struct trak_graph_rows {
  int64_t *v;
  uint8_t *null;
  size_t n, cap;
} trak_graph_rows;

/* Appends the row v[0..TRAK_GRAPH_COLS), column i NULL when bit i of null_mask is set. Out of
** memory drops the row. */
void trak__graph_row(trak_graph_rows *o, const int64_t *v, unsigned null_mask);
/* Perfetto's critical path walk (critical_path.c): `nodes` is a BLOB of __trak_int_rows(id,
** utid, ts, dur, idle_dur, waker_id, prev_id), `roots` one of __trak_int_rows(root id) (NULL or
** other values: no rows); appends rows (root_id, depth, ts, dur, blocker_id, blocker_utid,
** parent_id). Returns 0, or -1 out of memory. */
int trak__critical_path_walk(sqlite3_value *nodes, sqlite3_value *roots, trak_graph_rows *o);
/* Registers the aggregate __trak_int_rows(v0, ...): its rows of up to 16 integers or NULLs in
** a BLOB (NULL for no rows). */
int trak__psql_critical_path_register(trak_processor *p);
int trak__psql_builtin_macros_register(psql_macros *m);

/* Whether s[0..n) contains a macro invocation `name!(`. */
int trak__psql_has_macro_call(const char *s, size_t n);
/* Expands every macro invocation in s[0..n). Returns 0 and fills `out` (free with
** trak__psql_expansion_free), or -1 with a message and `*err_off` the offset in `s` of the
** invocation at fault. */
int trak__psql_expand(const psql_macros *m, const char *s, size_t n, psql_expansion *out, char *msg,
                      size_t msg_len, size_t *err_off);
void trak__psql_expansion_free(psql_expansion *e);
/* The source offset for output offset `off` of an expansion. */
size_t trak__psql_expansion_source(const psql_expansion *e, size_t off);

/* ---- functions.c ---------------------------------------------------------------------------- */

typedef struct psql_arg {
  char *name; /* without the $ */
  char *type; /* as written: INT, STRING, JOINID(slice.id), ... */
} psql_arg;

/* Defines a PerfettoSQL function: scalar when ncols == 0, otherwise a table function whose rows
** have columns `cols`. `body` is the (expanded) SELECT, prepared at the first call. Returns 0 or
** -1 with a message. */
int trak__psql_function_define(trak_processor *p, const char *name, const psql_arg *args,
                               size_t nargs, const psql_arg *cols, size_t ncols, const char *body,
                               int replace, char *msg, size_t msg_len);
/* Defines scalar function `name` taking any number of arguments and returning what function
** `target` returns for them (CREATE PERFETTO FUNCTION f(args ANY...) ... DELEGATES TO target). */
int trak__psql_function_define_variadic(trak_processor *p, const char *name, const char *target,
                                        int replace, char *msg, size_t msg_len);
/* Whether a CREATE PERFETTO FUNCTION has defined `name` (which then stands in front of a built-in
** function of that name). */
int trak__psql_function_defined(trak_processor *p, const char *name);
/* EXPERIMENTAL_MEMOIZE(name): caches the non-NULL results of a one-argument function by its
** integer argument. Returns 0 or -1 with a message. */
int trak__psql_function_memoize(trak_processor *p, const char *name, char *msg, size_t msg_len);
/* Removes function `name` (after its body failed to compile). */
void trak__psql_function_drop(trak_processor *p, const char *name);
void trak__psql_functions_free(trak_processor *p);

/* The SQLite column type for a PerfettoSQL type name (INT -> INTEGER, STRING -> TEXT, ...), or
** NULL if the type is unknown. */
const char *trak__psql_sqlite_type(const char *type);

/* ---- modules.c ------------------------------------------------------------------------------ */

typedef struct psql_module_src {
  const char *name; /* a.b.c */
  const char *sql;
} psql_module_src;

/* The embedded modules (generated at build time from src/processor/sql/stdlib), sorted by name. */
extern const psql_module_src trak__psql_stdlib[];
extern const size_t trak__psql_stdlib_count;
/* The same names, NULL-terminated. */
extern const char *const trak__psql_module_names[];

/* Runs INCLUDE PERFETTO MODULE `pattern` (a.b.c or a.b.*). Returns 0 or -1 with a message. */
int trak__psql_include(trak_processor *p, const char *pattern, char *msg, size_t msg_len);

/* ---- statements.c --------------------------------------------------------------------------- */

/* If the statement s[start..end) is a PerfettoSQL statement, runs it and returns 1 (0 if it is
** plain SQL). On failure returns -1 with a message and `*err_off` the offset of the fault. */
int trak__psql_run_statement(trak_processor *p, const char *s, size_t start, size_t end, char *msg,
                             size_t msg_len, size_t *err_off);

/* ---- legacy.c ------------------------------------------------------------------------------ */

/* If s[start..end) is one of the function-call forms older PerfettoSQL used for statements,
** `SELECT create_function(...)`, `create_view_function(...)`, `IMPORT(...)` or
** `EXPERIMENTAL_MEMOIZE(...)` with string literal arguments, runs it and returns 1 (0 if not).
** On failure returns -1 with a message and `*err_off` the offset of the fault. */
int trak__psql_run_legacy(trak_processor *p, const char *s, size_t start, size_t end, char *msg,
                          size_t msg_len, size_t *err_off);

/* ---- prelude.c ----------------------------------------------------------------------------- */

/* Registers the prelude's C functions and virtual tables (the SQL part is stdlib/prelude). */
int trak__psql_prelude_register(trak_processor *p);
/* Creates the _trace_bounds view and its function __intrinsic_trace_bound (trace_bounds.c): the
** bounds of the rows imported so far, scanned on first use. Returns SQLITE_OK or an error. */
int trak__psql_trace_bounds_register(trak_processor *p);
/* Registers the __trak_tree table function and the __trak_tree_query!/__trak_tree_table!
** macros behind std.trees (trees.c). */
int trak__psql_trees_register(trak_processor *p);
/* Registers __intrinsic_zstd_compress (zstd_frame.c). */
int trak__psql_zstd_register(sqlite3 *db);
/* Registers perfetto_table_info(name) (table_info.c). */
int trak__psql_table_info_register(trak_processor *p);
/* Records that CREATE PERFETTO TABLE made table `name`, which perfetto_table_info describes.
** Returns 0 or -1 out of memory. */
int trak__psql_table_note(trak_processor *p, const char *name);
void trak__psql_tables_free(trak_processor *p);
/* Registers __intrinsic_stdlib_objects, the catalogue of the modules (stdlib_docs.c). */
int trak__psql_stdlib_docs_register(sqlite3 *db);
/* Registers __intrinsic_flamegraph and its config and find functions (flamegraph.c). */
int trak__psql_flamegraph_register(sqlite3 *db);
/* Registers LAST_NON_NULL, FIRST_NON_NULL and INTERNAL_LAYOUT (window_functions.c). */
int trak__psql_window_functions_register(sqlite3 *db);
/* Registers the SPAN_JOIN, SPAN_LEFT_JOIN and SPAN_OUTER_JOIN modules (span_join.c). */
int trak__psql_span_join_register(trak_processor *p);

/* ---- lazy.c -------------------------------------------------------------------------------- */

typedef struct psql_lazy psql_lazy;

/* Registers table `name`, created empty, to be filled by `fill_sql` when a statement first
** names it; `body` is its SELECT (the names it mentions are filled first). Returns 0 or -1. */
int trak__psql_lazy_table(trak_processor *p, const char *name, const char *fill_sql,
                          const char *body);
/* If `table` is a deferred table not yet filled, runs `sql` (an index on it) right after
** filling it and returns 1; returns 0 when `table` is filled or not deferred, -1 on OOM. */
int trak__psql_lazy_after_fill(trak_processor *p, const char *table, const char *sql);
/* Records that view or function `name` reads what `body` mentions. Returns 0 or -1. */
int trak__psql_lazy_note(trak_processor *p, const char *name, const char *body);
/* Fills the deferred tables text[0..n) needs. Returns 0, or -1 with a message. */
int trak__psql_lazy_ensure(trak_processor *p, const char *text, size_t n, char *msg,
                           size_t msg_len);
void trak__psql_lazy_free(trak_processor *p);

/* ---- column_aggregates.c -------------------------------------------------------------------- */

/* The rows a view keeps: `WHERE col >= lo` on the columnar table it reads (set 0: every row). */
typedef struct psql_row_filter {
  int set;
  char col[64]; /* the table's column */
  long long lo;
} psql_row_filter;

/* The columnar table that relation `rel` (rn bytes) reads, following views that only rename or
** keep a table's columns (`SELECT items FROM source [WHERE column >= integer]`), with in *out
** (cap bytes, NUL-terminated) the name its column `col` (cn bytes; 0: none asked) has there and
** in *f the rows the views keep. Returns NULL when the relation is anything else. */
const struct vt_table *trak__psql_columnar_column(sqlite3 *db, const char *rel, size_t rn,
                                                  const char *col, size_t cn, char *out, size_t cap,
                                                  psql_row_filter *f);

/* When statement `s` (n bytes, its `;` included) is `SELECT agg [[AS] alias], ... FROM <relation>
** [WHERE terms] [GROUP BY a[, b] [ORDER BY ... LIMIT ...]]` (the keys named or by their items'
** positions, bare key columns among the items) with each agg COUNT(*), or COUNT, SUM, MIN or MAX
** of a plain column, over a columnar table or a view that only renames a columnar table's
** columns, prepares in *out a statement giving the same answer from the columns (no row-by-row
** scan in SQLite) and returns 1; otherwise returns 0 with *out untouched. Can't fail: anything
** unexpected (an error preparing the replacement too) returns 0 and leaves the statement to
** SQLite. */
int trak__psql_column_aggregates(trak_processor *p, const char *s, size_t n, sqlite3_stmt **out);

/* The columnar table `name` (n bytes) names in the main schema: the table itself, not a view,
** and no temporary object of that name in front of it; NULL otherwise. */
const struct vt_table *trak__psql_columnar_table(sqlite3 *db, const char *name, size_t n);

/* ---- join_aggregates.c ---------------------------------------------------------------------- */

/* When statement `s` (n bytes) is `SELECT ... FROM ... <columnar table> [AS] a ... GROUP BY ...`
** (a the first relation or one inner-joined, never after a LEFT JOIN; inner and LEFT joins)
** whose columns of `a` outside COUNT(*) and COUNT, SUM, MIN, MAX([a.]column) and WHERE terms
** `[a.]column op literal` are one column K (the join's), prepares in *out the same statement
** over `a`'s rows that pass the terms, grouped by K first (`__intrinsic_col_group`: one row per
** value of K, its partial aggregates) with the aggregates combined (COUNT as SUM of counts), and
** returns 1; otherwise returns 0 with *out untouched. Can't fail: anything unexpected returns 0
** and leaves the statement to SQLite. */
int trak__psql_join_aggregates(trak_processor *p, const char *s, size_t n, sqlite3_stmt **out);

/* ---- window_top.c --------------------------------------------------------------------------- */

/* When statement `s` (n bytes) is `SELECT a, b, ... FROM (SELECT x, y, ..., row_number() OVER
** (PARTITION BY p ORDER BY k [ASC|DESC], ..., id [ASC|DESC]) AS rn FROM <relation>) WHERE rn <= N
** ORDER BY p [ASC|DESC], rn [ASC|DESC] [LIMIT .. [OFFSET ..]]` over a columnar table (or a view
** of view_source's shape) with integer p and k, prepares in *out the same query reading each
** group's first N rows from __intrinsic_top_per_group and returns 1; otherwise returns 0 with
** *out untouched. Can't fail: anything unexpected leaves the statement to SQLite. */
int trak__psql_window_top(trak_processor *p, const char *s, size_t n, sqlite3_stmt **out);

/* ---- end_bound.c ---------------------------------------------------------------------------- */

/* When statement `s` (n bytes) is `SELECT ... FROM slice WHERE <terms joined by AND>` with a term
** `ts + dur > x` or `ts + dur >= x` (x without parameters or volatile functions), prepares in *out
** the same statement with `AND ts >= __intrinsic_ts_floor('slice', (x))` after that term (the
** same rows: a bound every kept row passes) and returns 1; otherwise returns 0 with *out
** untouched. Can't fail: anything unexpected leaves the statement to SQLite. */
int trak__psql_end_bound(trak_processor *p, const char *s, size_t n, sqlite3_stmt **out);

/* ---- ptable.c ------------------------------------------------------------------------------- */

typedef struct psql_ptable psql_ptable;

/* Registers the virtual table module __intrinsic_ptable (the stored PERFETTO TABLEs). Returns an
** SQLite code. */
int trak__psql_ptable_register(trak_processor *p);
/* Runs `st` (the prepared SELECT of `CREATE PERFETTO TABLE name AS select`, not yet stepped) and,
** when it is read-only and every value it gives is an integer or NULL, stores its rows columnar
** and creates `name` as a virtual table over them with the columns `CREATE TABLE name AS select`
** would declare; returns 1. Otherwise (another value, an error, out of memory) returns 0 with
** nothing created and `st` reset: the caller makes the table SQLite's way. */
int trak__psql_ptable_create(trak_processor *p, const char *name, sqlite3_stmt *st,
                             const char *select);
/* The stored table `name` resolves to in SQL (a table of the main schema made by
** trak__psql_ptable_create, no temporary object of that name), or NULL. */
const psql_ptable *trak__psql_ptable_named(trak_processor *p, const char *name);
/* Its rows; the index of its column `name` (without case), -1 if none; a column's values (0
** where NULL) with in *nulls its NULL flags (NULL: no NULLs). */
size_t trak__psql_ptable_rows(const psql_ptable *t);
int trak__psql_ptable_column(const psql_ptable *t, const char *name);
const int64_t *trak__psql_ptable_values(const psql_ptable *t, int col, const uint8_t **nulls);
/* Frees every stored table (the processor is closing). */
void trak__psql_ptables_free(trak_processor *p);

/* ---- count_distinct.c ----------------------------------------------------------------------- */

/* Registers the aggregate __intrinsic_count_distinct(x): COUNT(DISTINCT x) under BINARY
** collation, counted in a hash set. Returns an SQLite code. */
int trak__psql_count_distinct_register(sqlite3 *db);

/* When statement `s` (n bytes) is `SELECT ... FROM <one table or virtual table> ...` (no join,
** subquery or window) whose result columns include whole `COUNT(DISTINCT c)` of its
** columns of BINARY collation, prepares in *out the same statement with
** __intrinsic_count_distinct(c) there (named as SQLite names the original column) and returns 1;
** otherwise returns 0 with *out untouched. Can't fail: anything unexpected leaves the statement
** to SQLite. */
int trak__psql_count_distinct(trak_processor *p, const char *s, size_t n, sqlite3_stmt **out);

/* ---- engine.c ------------------------------------------------------------------------------- */

/* The PerfettoSQL state of a processor. */
struct trak_psql {
  psql_macros *macros;
  struct psql_fn **fns; /* defined functions (functions.c) */
  size_t nfns;
  unsigned char *included; /* per trak__psql_stdlib entry: included already */
  int include_depth;
  psql_lazy *lazy;      /* deferred module tables (lazy.c) */
  int call_depth;       /* PerfettoSQL function calls running, nested (functions.c) */
  char **tables;        /* made by CREATE PERFETTO TABLE (table_info.c) */
  psql_ptable *ptables; /* the columnar ones (ptable.c) */
  size_t ntables;
  /* Where the last statement of the user's text ended, so that a caller passing that tail back
  ** (trak_query_open's loop) gets line numbers counted from the start of its text. */
  const char *last_tail;
  int tail_line, tail_col;
};

/* Prepares `sql`'s statements in order until one is a SQLite statement: PerfettoSQL statements
** on the way run, macros are expanded. `origin` names the text in errors (NULL for the user's
** text). Returns 0 with *out the statement (NULL at the end) and *tail after it, or -1 with a
** message naming the statement, line and column. */
int trak__psql_prepare(trak_processor *p, const char *sql, const char *origin, sqlite3_stmt **out,
                       const char **tail, char *msg, size_t msg_len);
/* trak__psql_prepare from byte `pos` of `sql`, for a caller that words its own errors (the
** metrics): returns 0 with *out the statement (NULL at the end) and *next the offset after it, or
** -1 with the bare message in `msg`, *stmt_off the offset of the failing statement and *err_off
** that of the fault. */
int trak__psql_prepare_at(trak_processor *p, const char *sql, size_t pos, sqlite3_stmt **out,
                          size_t *next, size_t *stmt_off, size_t *err_off, char *msg,
                          size_t msg_len);
/* Runs every statement of `sql` (a module's text), stepping SQLite ones to completion. */
int trak__psql_exec(trak_processor *p, const char *sql, const char *origin, char *msg,
                    size_t msg_len);
/* Sets up PerfettoSQL on the processor's database: the built-in macros and functions, then the
** prelude. Returns SQLITE_OK or an error code with a message in p->db. */
int trak__psql_init(trak_processor *p, trak_error *err);
void trak__psql_free(trak_processor *p);

#endif /* TRAK_PSQL_H */
