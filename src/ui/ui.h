/*
** The timeline viewer's internal interface (`trak ui`, `trak html`): a growable text buffer with
** JSON helpers, the data answers the viewer asks for (read through the public query API only),
** the HTTP server around them, the self-contained HTML report, and the viewer's embedded files.
*/
#ifndef TRAK_UI_H
#define TRAK_UI_H

#include <stddef.h>
#include <stdint.h>

#include "trak/error.h"
#include "trak/processor.h"
#include "ui/cache.h"

/* ---- text buffer (json_buf.c) -------------------------------------------------------- */

typedef struct trak_ui_buf {
  char *s;    /* NUL-terminated once anything is written; NULL while empty */
  size_t len; /* bytes used, excluding the NUL */
  size_t cap; /* bytes allocated */
  int oom;    /* an allocation failed: the text is incomplete */
} trak_ui_buf;

void trak__ui_put(trak_ui_buf *b, const char *s, size_t n);
void trak__ui_puts(trak_ui_buf *b, const char *s);
void trak__ui_printf(trak_ui_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* `v` in decimal, as printf's PRId64 writes it, without printf's cost (a screen's answer is
** megabytes of numbers). */
void trak__ui_int(trak_ui_buf *b, int64_t v);
/* `s` as a JSON string literal (NULL as null). '<' is written as \u003c so that the text can sit
** inside an HTML <script> element. */
void trak__ui_json_str(trak_ui_buf *b, const char *s);
/* A double as JSON: NaN and infinities (which JSON lacks) become null. */
void trak__ui_json_double(trak_ui_buf *b, double v);
/* `s` as one SQL string literal, quotes doubled. */
void trak__ui_sql_str(trak_ui_buf *b, const char *s);
void trak__ui_buf_free(trak_ui_buf *b);

/* ---- data answers (data.c, details.c) ------------------------------------------------- */
/* The timeline answers (slices, counters, flows) come from the cache (cache.h), read once from
** the tables; the others run SQL. */
/* Each appends one JSON value to `out` and returns 0, or a negative TRAK_E* code with `err`
** set (TRAK_EINVAL for a bad argument or SQL, TRAK_ENOMEM). On error `out` may hold a partial
** answer: callers send the error instead. */

/* A range of the timeline at a resolution: [start, end] in trace nanoseconds, `px` nanoseconds
** per pixel column (at least 1). */
typedef struct trak_ui_range {
  int64_t start, end, px;
} trak_ui_range;

/* The trace's bounds, processes, threads and tracks with what the viewer needs to lay them out:
** {"start","end","processes":[[upid,pid,name,sort_index]...],"threads":[[utid,tid,name,upid,
** sort_index,is_main]...],"tracks":[[id,name,type,utid,upid,parent_id,child_ordering,rank,
** unit,max_depth,first_ts,is_counter,metric,count]...] (type: a counter's or annotation
** track's `type`, e.g. meminfo; other tracks' classification),"cpus":[[track,cpu,count]...],
** "thread_states":[[track,utid,count]...],"delta_tracks":[track...],"sched_counts":[[track,
** name,count]...] (the Scheduler group's counters; then the active CPU count per CPU type,
** [track,name,count,parent]: parent the active CPU count's track),"cpu_counters":[[track,cpu]...],
** "cpu_slices":[[track,cpu]...]} (the last six from trak__ui_sched_tracks; delta_tracks: the
** counter tracks whose values trak__ui_counters answers as deltas, which the page draws and
** reads as such). */
int trak__ui_tracks(trak_processor *p, const trak_ui_cache *c, trak_ui_buf *out, trak_error *err);

/* Slices of each track in `tracks` overlapping `r`, summarised to one entry per pixel column and
** depth: the longest slice starting in that column stands for all of them.
** {"<track>":[[depth,ts,dur,id,name,count]...],...}; a CPU track's entries add the utid
** ([0,ts,dur,sched_id,null,count,utid]), a thread-state track's the CPU and io_wait
** ([0,ts,dur,thread_state_id,state,count,cpu,io_wait], null when unknown). */
int trak__ui_slices(const trak_ui_cache *c, const int64_t *tracks, size_t n, const trak_ui_range *r,
                    trak_ui_buf *out, trak_error *err);

/* trak__ui_slices of the CPU tracks among `tracks` counting only the scheduling slices of the
** threads `utids` (sorted in place): a process's scheduling, a lane per CPU. Another kind of
** track answers []. Returns 0, TRAK_EINVAL (bad range) or TRAK_ENOMEM. */
int trak__ui_sched_slices(const trak_ui_cache *c, const int64_t *tracks, size_t n, int64_t *utids,
                          size_t n_utids, const trak_ui_range *r, trak_ui_buf *out,
                          trak_error *err);

/* Counter values of each track in `tracks` within `r` (plus the value in force at `r.start` and
** the next one after `r.end`), one entry per pixel column: {"<track>":[[ts,min,max,last]...]}.
** A delta track's (cpustat: trak_ui_track.delta) values are each sample's change to the next,
** 0 at the last (Perfetto's yMode 'delta'). */
int trak__ui_counters(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                      const trak_ui_range *r, trak_ui_buf *out, trak_error *err);

/* Flows whose arrow crosses [start, end], at most `limit`:
** [[out_id,out_track,out_ts,out_dur,out_depth,in_id,in_track,in_ts,in_dur,in_depth]...]. */
int trak__ui_flows(const trak_ui_cache *c, int64_t start, int64_t end, size_t limit,
                   trak_ui_buf *out, trak_error *err);

/* The minimap's density (density.c): how many events begin in each bucket of `r` (bucket j holds
** ts in [start + j * px, start + (j + 1) * px), up to `end`): the slice table's rows and the sched
** rows of threads that are not idle, as `SELECT (ts - start) / px, count(*) FROM (SELECT ts FROM
** slice UNION ALL SELECT ts FROM sched WHERE utid NOT IN (SELECT utid FROM thread WHERE
** is_idle)) WHERE ts BETWEEN start AND end GROUP BY 1` has them: [count...], (end - start) / px +
** 1 of them. TRAK_EINVAL past 65536 buckets. */
int trak__ui_density(const trak_ui_cache *c, const trak_ui_range *r, trak_ui_buf *out,
                     trak_error *err);

/* Slices whose name or an arg's value contains `text` (ASCII case-insensitive), or whose id is
** `text` when it is a number (that slice first), in time order, at most `limit`:
** {"rows":[[id,ts,dur,track_id,depth]...],"truncated":bool}. */
int trak__ui_search(trak_processor *p, const char *text, size_t limit, trak_ui_buf *out,
                    trak_error *err);

/* The area selection (aggregate.c): slices of `tracks` that ended and whose [ts, ts + dur] meets
** [start, end], and counter values with ts in [start, end].
** Aggregates: {"slices":[[name,count,wall,avg,self]...] (by wall, longest first),
** "counters":[[track,count,min,max,avg,delta]...],"thread_states":[...] (trak__ui_state_sums),
** "cpus":[...],"cpu_threads":[...] (trak__ui_cpu_sums)}.
** CPU and thread-state tracks count in thread_states only.
** (`r.px` is not used.) Flame graph: [[parent,name,total,count]...], one node per name stack, the
*node's index its
** position, parent -1 for a root, parents before children; at most about 20000 nodes, the
** largest (a parent is never smaller than its child, so every kept node's parent is kept). */
int trak__ui_aggregate(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                       const trak_ui_range *r, trak_ui_buf *out, trak_error *err);
int trak__ui_flamegraph(const trak_ui_cache *c, const int64_t *tracks, size_t n,
                        const trak_ui_range *r, trak_ui_buf *out, trak_error *err);

/* ---- system tracks (sched.c) ---------------------------------------------------------- */

/* Appends the "cpus", "thread_states", "delta_tracks", "sched_counts", "cpu_counters" and
** "cpu_slices" (interrupt slice tracks: [id, cpu]) members of the tracks answer (each preceded
** by a comma). 0 or a query's error. */
int trak__ui_sched_tracks(trak_processor *p, const trak_ui_cache *c, trak_ui_buf *out,
                          trak_error *err);
/* Appends "thread_states":[[state,count,total,io_wait]...]: time in each state (split by
** io_wait: null, 0 or 1, as Perfetto tells Uninterruptible Sleep (IO) from non-IO) of the thread-state
** tracks among `tracks` within [start, end] (an interval counts the part of it inside the
** range, when that is more than nothing; one that did not end runs to `end`), most time first.
** Returns 0, or -1 when out of memory. */
int trak__ui_state_sums(const trak_ui_cache *c, const int64_t *tracks, size_t n, int64_t start,
                        int64_t end, trak_ui_buf *out);
/* Appends "cpus":[[cpu,count,busy]...]: per CPU track among `tracks` (in their order), the
** scheduling slices (the idle thread's are not in the cache) that meet [start, end] and the time
** they cover inside it, clipped as trak__ui_state_sums clips; then "cpu_threads":[[utid,count,
** busy]...]: the same per thread over all those CPUs (Perfetto's "CPU by thread"), most time
** first, then by utid. Returns 0, or -1 when out of memory. */
int trak__ui_cpu_sums(const trak_ui_cache *c, const int64_t *tracks, size_t n, int64_t start,
                      int64_t end, trak_ui_buf *out);
/* The SQL of the details of `what` ("thread_state", "sched"): one statement whose one `?` is the
** row's id (the report runs it with sql.js); NULL for another `what`. */
const char *trak__ui_row_sql(const char *what);
/* Runs trak__ui_row_sql(what) for row `id`: trak__ui_query_page's answer (at most one row).
** TRAK_EINVAL for an unknown `what`. */
int trak__ui_row(trak_processor *p, const char *what, int64_t id, trak_ui_buf *out,
                 trak_error *err);

/* The analysis layer's alerts, in time order: [[slice_id,alert_type,message]...]. */
int trak__ui_alerts(trak_processor *p, trak_ui_buf *out, trak_error *err);

/* Runs one SQL statement and answers a page of its rows, the `offset` first ones skipped:
** {"columns":[...],"rows":[[...]...],"truncated":bool,"offset":N}, at most `limit` rows;
** truncated says more rows follow. An interrupted statement fails with TRAK_EINVAL. */
int trak__ui_query_page(trak_processor *p, const char *sql, int64_t offset, size_t limit,
                        trak_ui_buf *out, trak_error *err);

/* ---- SQL runner (runner.c): one statement at a time on a thread of its own ---------------- */

/* One query's page, as the runner computes it; the caller owns it and its fields. */
typedef struct trak_ui_job {
  const char *sql;
  int64_t offset;
  size_t limit;
  trak_ui_buf out; /* the answer (trak__ui_query_page's) */
  trak_error err;
  int rc;   /* trak__ui_query_page's result */
  int done; /* set by the runner before calling back */
} trak_ui_job;

typedef struct trak_ui_runner trak_ui_runner;
/* Returns 0 or TRAK_ENOMEM (*out NULL). */
int trak__ui_runner_new(trak_processor *p, trak_ui_runner **out);
/* Takes the processor for the caller's own short use: 0, or TRAK_ESTATE when it is busy (never
** waits). trak__ui_runner_release gives it back. */
int trak__ui_runner_acquire(trak_ui_runner *r);
void trak__ui_runner_release(trak_ui_runner *r);
/* Runs `job` on the runner's thread, then calls done(arg) from that thread (the processor is
** free again by then). Returns 0, TRAK_ESTATE when busy, TRAK_ENOMEM when no thread starts
** (done is then never called). */
int trak__ui_runner_start(trak_ui_runner *r, trak_ui_job *job, void (*done)(void *), void *arg);
/* Interrupts the running job, if any (it ends with "interrupted"). Returns 1 if one ran. */
int trak__ui_runner_cancel(trak_ui_runner *r);
/* Cancels and waits for the running job; afterwards the runner is always busy. NULL is allowed. */
void trak__ui_runner_close(trak_ui_runner *r);
/* Closes, then frees. NULL is allowed. */
void trak__ui_runner_free(trak_ui_runner *r);

/* Everything the details panel shows about slice `id`: {"slice":{...},"args":[[key,value]...],
** "description","doc_link","ancestors":[[id,name,ts,dur,depth]...],"flows_out":[[flow_id,
** slice_id,name,ts]...],"flows_in":[...]}. TRAK_ENOTFOUND when there is no such slice. */
int trak__ui_slice_details(trak_processor *p, int64_t id, trak_ui_buf *out, trak_error *err);

/* Appends the rows of `sql` as a JSON array of arrays, at most `limit` rows (0: no limit);
** *truncated (may be NULL) says whether rows were left out. */
int trak__ui_rows(trak_processor *p, const char *sql, size_t limit, trak_ui_buf *out,
                  int *truncated, trak_error *err);

/* ---- embedded viewer files (generated from ui/ by the build) -------------------------- */

typedef struct trak_ui_asset {
  const char *name; /* "index.html", "viewer.js", ... */
  const char *mime;
  const unsigned char *data;
  size_t len;
} trak_ui_asset;
extern const trak_ui_asset trak__ui_assets[];
extern const size_t trak__ui_asset_count;
/* The asset called `name`, or NULL. */
const trak_ui_asset *trak__ui_asset_find(const char *name);

/* ---- HTTP server (server.c) ------------------------------------------------------------ */

typedef struct trak_ui_server trak_ui_server;
typedef struct trak_ui_server_options {
  const char *bind;     /* an IPv4 address; NULL: 127.0.0.1 (loopback only) */
  uint16_t port;        /* 0: any free port */
  const char *name;     /* the trace's name, shown by the page; NULL: none */
  uint64_t max_open_mb; /* size of a trace the page may open (POST /api/open); 0: 1024 */
  int owns_processor;   /* the server frees `p` (at stop, or when the page opens another) */
} trak_ui_server_options;

/* Serves the viewer and its data answers for `p` (finished) on a thread of its own; `p` must not
** be used by the caller until trak__ui_server_stop. Requests are answered one at a time, except
** SQL (/api/query), which runs on a thread of its own and can be cancelled (/api/cancel).
** POST /api/open (a trace as the body, with the X-Trak-Request header) replaces the trace
** served; `p` is then no longer used (freed at once if the server owns it, else left to the
** caller after stop). Returns 0, TRAK_EINVAL for a bad bind address, TRAK_EIO when the port
** cannot be bound; on error `p` stays the caller's, whatever owns_processor says. */
int trak__ui_server_start(trak_processor *p, const trak_ui_server_options *o, trak_ui_server **out,
                          trak_error *err);
uint16_t trak__ui_server_port(const trak_ui_server *s);
/* Stops serving and frees the server (not the processor). NULL is allowed. */
void trak__ui_server_stop(trak_ui_server *s);

/* ---- self-contained report (html.c) ---------------------------------------------------- */

typedef struct trak_ui_html_options {
  size_t max_slices;  /* above this many slices (0: 200000) the slices are summarised */
  size_t max_details; /* details embedded for at most this many slices, longest first (0: 5000) */
  const char *title;  /* shown in the page; NULL: "trace" */
  /* The trace's tables are exported into the page for its SQL panel (sql.js) when the database
  ** is at most this many bytes, and so is the trace (0: 32 MiB); no_sql leaves SQL out whatever the size. */
  size_t max_sql_bytes;
  int no_sql;
} trak_ui_html_options;

/* Writes the viewer with the trace's data inlined. *summary (may be NULL) receives a one-line
** message (static storage until the next call) when the data was summarised or the tables were
** too large for the page's SQL, else NULL. */
int trak__ui_html(trak_processor *p, const trak_ui_html_options *o, trak_ui_buf *out,
                  const char **summary, trak_error *err);

/* The report's SQL (html_sql.c): appends <script> elements holding window.TRAK_SQL =
** {"wasm": base64 gzip'ed sql.js module, "bytes", "db": base64 gzip'ed SQLite database of every
** table} and sql.js's loader; when the database is over `max_bytes` (or `max_bytes` is 0),
** TRAK_SQL = {"error": why} alone, and *note a one-line message (static storage) saying so.
** Returns 0, TRAK_EIO (temporary file), TRAK_ENOMEM. */
int trak__ui_html_sql(trak_processor *p, size_t max_bytes, trak_ui_buf *out, const char **note,
                      trak_error *err);

#endif /* TRAK_UI_H */
