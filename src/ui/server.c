/*
** This file holds `trak ui`'s HTTP server, on libmicrohttpd: it serves the embedded viewer files
** and answers the viewer's /api/ requests from the processor. It binds to 127.0.0.1 unless told
** otherwise, answers one request at a time (a processor is single-threaded; SQL runs on the
** runner's thread, runner.c, so that it can be cancelled), and refuses what a
** web page elsewhere could send it: a Host that is not this machine (DNS rebinding) and a SQL
** POST without the viewer's own header (a cross-site form cannot add one). Its SQL runs
** restricted (trak_processor_restrict_sql): no file access, no change to trak's tables.
** POST /api/open imports another trace, streamed in as its body, and serves it instead.
** Its own thread runs libmicrohttpd's loop and, between turns, the connection guard (guard.c):
** fixed deadlines for a request's head, body and answer, and a cap that closes the longest idle
** connection first, so that slow or silent clients cannot keep others out.
*/
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "ui/guard.h"
#include "ui/peer.h"
#include "ui/ui.h"

#define MAX_BODY (1u << 20)  /* bytes of SQL a POST may carry */
#define MAX_TRACKS 4096      /* track ids in one slices/counters request */
#define MAX_ROWS 10000       /* rows of a search or SQL answer */
#define MAX_FLOWS 5000       /* flow arrows on one screen */
#define MAX_OPEN_MB 1024     /* default size of a trace opened from the page */
#define MAX_CONNS 64         /* connections kept open; above, the longest idle is closed */
#define HEAD_S 10            /* seconds to send a request's head (or wait for the next one) */
#define BODY_S 10            /* seconds to send a request's body ... */
#define OPEN_RATE (1u << 20) /* ... plus one per MiB of a trace opened from the page */
#define WRITE_S 30           /* seconds to take an answer */
#define TICK_MS 250          /* the longest the loop waits before it sweeps */

struct trak_ui_server {
  struct MHD_Daemon *daemon;
  trak_processor *p;
  int owns_p;        /* p is freed by the server (when replaced, at stop) */
  char *name;        /* the trace's name, for /api/info; NULL: none */
  uint64_t max_open; /* bytes a trace opened from the page may have */
  int loopback;      /* bound to loopback: only local Host headers are accepted */
  uint16_t port;
  trak_ui_cache *cache;   /* the timeline, read once at start */
  trak_ui_buf tracks;     /* /api/tracks, computed once at start */
  trak_ui_runner *runner; /* SQL on its own thread; who uses the processor */
  trak_ui_guard guard;    /* connections and their deadlines; used on the loop's thread only */
  pthread_t loop;         /* runs libmicrohttpd and the guard */
  int looping;            /* loop was started */
  atomic_int stop;        /* asks the loop to end */
};

/* One request's state across libmicrohttpd's calls: the POST body as it arrives. */
typedef struct request {
  trak_ui_buf body;
  int too_big;
  int started;              /* the SQL runs in the runner; the connection is suspended */
  trak_ui_job job;          /* its answer */
  struct MHD_Connection *c; /* to resume when the job is done */
  trak_processor *open;     /* /api/open: the trace being fed */
  uint64_t open_bytes;
} request;

/* The guard's record of connection `c`. */
static trak_ui_conn *conn_of(struct MHD_Connection *c) {
  const union MHD_ConnectionInfo *i =
      MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return i ? i->socket_context : NULL;
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *mime,
                                 const void *data, size_t len, enum MHD_ResponseMemoryMode mode) {
  trak__ui_guard_phase(conn_of(c), TRAK_UI_WRITE, WRITE_S);
  struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)data, mode);
  if (!r) return MHD_NO;
  MHD_add_response_header(r, "Content-Type", mime);
  MHD_add_response_header(r, "Cache-Control", "no-store");
  MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
  enum MHD_Result ret = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return ret;
}

static enum MHD_Result send_error(struct MHD_Connection *c, unsigned status, const char *msg) {
  trak_ui_buf b = {0};
  trak__ui_puts(&b, "{\"error\":");
  trak__ui_json_str(&b, msg);
  trak__ui_puts(&b, "}");
  if (b.oom) return MHD_NO;
  enum MHD_Result ret = send_text(c, status, "application/json", b.s, b.len, MHD_RESPMEM_MUST_FREE);
  if (ret == MHD_NO) free(b.s);
  return ret;
}

/* Sends a built answer, or the error it ended with (400 for bad input, 404, 500). */
static enum MHD_Result send_answer(struct MHD_Connection *c, trak_ui_buf *b, int rc,
                                   const trak_error *err) {
  if (rc || b->oom) {
    trak__ui_buf_free(b);
    unsigned status = rc == TRAK_ENOTFOUND ? MHD_HTTP_NOT_FOUND
                      : rc == TRAK_EINVAL  ? MHD_HTTP_BAD_REQUEST
                                           : MHD_HTTP_INTERNAL_SERVER_ERROR;
    return send_error(c, status, err->message[0] ? err->message : trak_strerror(rc));
  }
  enum MHD_Result ret =
      send_text(c, MHD_HTTP_OK, "application/json", b->s, b->len, MHD_RESPMEM_MUST_FREE);
  if (ret == MHD_NO) trak__ui_buf_free(b);
  return ret;
}

/* Parses query argument `name` as a decimal int64. Returns 0, or TRAK_EINVAL naming it. */
static int int_arg(struct MHD_Connection *c, const char *name, int64_t *out, trak_error *err) {
  const char *s = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
  if (!s || !*s) return trak_error_set(err, TRAK_EINVAL, "missing argument '%s'", name);
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (*end || errno)
    return trak_error_set(err, TRAK_EINVAL, "argument '%s' is not an integer", name);
  *out = v;
  return 0;
}

/* Parses `NAME=1,2,3` (tracks, utids) into a malloc'ed array. Returns 0 or TRAK_EINVAL. */
static int id_list(struct MHD_Connection *c, const char *name, int64_t **ids, size_t *n,
                   trak_error *err) {
  const char *s = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
  *ids = NULL, *n = 0;
  if (!s) return trak_error_set(err, TRAK_EINVAL, "missing argument '%s'", name);
  if (!*s) return 0;
  int64_t *v = malloc(MAX_TRACKS * sizeof *v);
  if (!v) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  for (;;) {
    char *end;
    errno = 0;
    long long id = strtoll(s, &end, 10);
    if (end == s || errno || (*end && *end != ',')) {
      free(v);
      return trak_error_set(err, TRAK_EINVAL, "argument '%s' is not a list of %s", name,
                            strcmp(name, "tracks") ? "ids" : "track ids");
    }
    if (*n == MAX_TRACKS) {
      free(v);
      return trak_error_set(err, TRAK_EINVAL, "more than %d %s in one request", MAX_TRACKS, name);
    }
    v[(*n)++] = id;
    if (!*end) break;
    s = end + 1;
  }
  *ids = v;
  return 0;
}

/* The GET answers that run SQL: only when the runner has no query going (else 503). */
static enum MHD_Result sql_get(trak_ui_server *s, struct MHD_Connection *c, const char *what) {
  trak_ui_buf out = {0};
  trak_error err = {0};
  int rc;
  int64_t a;
  int known = !strcmp(what, "alerts") || !strcmp(what, "slice") || !strcmp(what, "search") ||
              !strcmp(what, "row");
  if (!known) return send_error(c, MHD_HTTP_NOT_FOUND, "no such endpoint");
  if (trak__ui_runner_acquire(s->runner))
    return send_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "a query is running (cancel it or wait)");
  if (!strcmp(what, "alerts")) {
    rc = trak__ui_alerts(s->p, &out, &err);
  } else if (!strcmp(what, "slice")) {
    rc = int_arg(c, "id", &a, &err);
    if (!rc) rc = trak__ui_slice_details(s->p, a, &out, &err);
  } else if (!strcmp(what, "row")) { /* a thread state's or CPU slice's details */
    const char *kind = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "what");
    rc = int_arg(c, "id", &a, &err);
    if (!rc) rc = trak__ui_row(s->p, kind ? kind : "", a, &out, &err);
  } else {
    const char *q = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "q");
    rc = q && *q ? trak__ui_search(s->p, q, MAX_ROWS, &out, &err)
                 : trak_error_set(&err, TRAK_EINVAL, "missing argument 'q'");
  }
  trak__ui_runner_release(s->runner);
  return send_answer(c, &out, rc, &err);
}

typedef int (*tracks_answer)(const trak_ui_cache *, const int64_t *, size_t, const trak_ui_range *,
                             trak_ui_buf *, trak_error *);

/* /api/slices and /api/counters (tracks, start, end and px arguments), /api/aggregate and
** /api/flamegraph (no px). */
static int per_track(trak_ui_server *s, struct MHD_Connection *c, tracks_answer fn, int with_px,
                     trak_ui_buf *out, trak_error *err) {
  trak_ui_range r = {.px = 1};
  int64_t *ids;
  size_t n;
  int rc = int_arg(c, "start", &r.start, err);
  if (!rc) rc = int_arg(c, "end", &r.end, err);
  if (!rc && with_px) rc = int_arg(c, "px", &r.px, err);
  if (!rc) rc = id_list(c, "tracks", &ids, &n, err);
  if (rc) return rc;
  rc = fn(s->cache, ids, n, &r, out, err);
  free(ids);
  return rc;
}

/* /api/sched: a process's scheduling (tracks: CPU tracks, utids: its threads, start, end, px). */
static int sched_answer(trak_ui_server *s, struct MHD_Connection *c, trak_ui_buf *out,
                        trak_error *err) {
  trak_ui_range r = {.px = 1};
  int64_t *ids = NULL, *utids = NULL;
  size_t n = 0, n_utids = 0;
  int rc = int_arg(c, "start", &r.start, err);
  if (!rc) rc = int_arg(c, "end", &r.end, err);
  if (!rc) rc = int_arg(c, "px", &r.px, err);
  if (!rc) rc = id_list(c, "tracks", &ids, &n, err);
  if (!rc) rc = id_list(c, "utids", &utids, &n_utids, err);
  if (!rc) rc = trak__ui_sched_slices(s->cache, ids, n, utids, n_utids, &r, out, err);
  free(ids);
  free(utids);
  return rc;
}

static enum MHD_Result api_get(trak_ui_server *s, struct MHD_Connection *c, const char *what) {
  trak_ui_buf out = {0};
  trak_error err = {0};
  int rc;
  int64_t a, b;
  if (!strcmp(what, "tracks")) {
    return send_text(c, MHD_HTTP_OK, "application/json", s->tracks.s, s->tracks.len,
                     MHD_RESPMEM_PERSISTENT);
  } else if (!strcmp(what, "info")) {
    trak__ui_puts(&out, "{\"name\":");
    trak__ui_json_str(&out, s->name);
    trak__ui_printf(&out, ",\"events\":%" PRIu64 ",\"max_open\":%" PRIu64 "}",
                    trak_processor_event_count(s->p), s->max_open);
    rc = 0;
  } else if (!strcmp(what, "slices")) {
    rc = per_track(s, c, trak__ui_slices, 1, &out, &err);
  } else if (!strcmp(what, "sched")) {
    rc = sched_answer(s, c, &out, &err);
  } else if (!strcmp(what, "counters")) {
    rc = per_track(s, c, trak__ui_counters, 1, &out, &err);
  } else if (!strcmp(what, "aggregate")) {
    rc = per_track(s, c, trak__ui_aggregate, 0, &out, &err);
  } else if (!strcmp(what, "flamegraph")) {
    rc = per_track(s, c, trak__ui_flamegraph, 0, &out, &err);
  } else if (!strcmp(what, "density")) {
    trak_ui_range r = {0};
    rc = int_arg(c, "start", &r.start, &err);
    if (!rc) rc = int_arg(c, "end", &r.end, &err);
    if (!rc) rc = int_arg(c, "px", &r.px, &err);
    if (!rc) rc = trak__ui_density(s->cache, &r, &out, &err);
  } else if (!strcmp(what, "flows")) {
    rc = int_arg(c, "start", &a, &err);
    if (!rc) rc = int_arg(c, "end", &b, &err);
    if (!rc) rc = trak__ui_flows(s->cache, a, b, MAX_FLOWS, &out, &err);
  } else {
    return sql_get(s, c, what);
  }
  return send_answer(c, &out, rc, &err);
}

/* True if `h` (a Host header, or an Origin's host) names this machine, with any port. */
static int local_name(const char *h) {
  static const char *const names[] = {"127.0.0.1", "localhost", "[::1]"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    size_t n = strlen(names[i]);
    if (!strncasecmp(h, names[i], n) && (h[n] == 0 || h[n] == ':')) return 1;
  }
  return 0;
}

/* True if the Host header names this machine (any port: the URL printed is what users open). */
static int local_host(struct MHD_Connection *c) {
  const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
  return h && local_name(h);
}

/* Resumes the connection whose query the runner finished (called on the runner's thread). */
static void query_done(void *arg) {
  request *req = arg;
  MHD_resume_connection(req->c);
}

/* POST /api/query: starts the SQL on the runner and suspends the connection; once resumed,
** sends the answer. `offset` (a GET argument, default 0) skips that many rows: a page. */
static enum MHD_Result query_post(trak_ui_server *s, struct MHD_Connection *c, request *req) {
  if (req->started) {
    enum MHD_Result ret = send_answer(c, &req->job.out, req->job.rc, &req->job.err);
    req->job.out = (trak_ui_buf){0}; /* sent or freed by send_answer */
    return ret;
  }
  if (!req->body.s || memchr(req->body.s, 0, req->body.len))
    return send_error(c, MHD_HTTP_BAD_REQUEST, "the body must be SQL text");
  trak_error err = {0};
  int64_t offset = 0;
  if (MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "offset") &&
      (int_arg(c, "offset", &offset, &err) || offset < 0))
    return send_error(c, MHD_HTTP_BAD_REQUEST, "argument 'offset' must be a row count");
  req->job = (trak_ui_job){.sql = req->body.s, .offset = offset, .limit = MAX_ROWS};
  req->c = c;
  req->started = 1;
  trak__ui_guard_phase(conn_of(c), TRAK_UI_BUSY, 0);
  MHD_suspend_connection(c);
  int rc = trak__ui_runner_start(s->runner, &req->job, query_done, req);
  if (rc) {
    MHD_resume_connection(c);
    req->started = 0;
    return send_error(
        c, rc == TRAK_ESTATE ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_INTERNAL_SERVER_ERROR,
        rc == TRAK_ESTATE ? "a query is running (cancel it or wait)" : "cannot start the query");
  }
  return MHD_YES;
}

/* True if the request has no Origin header or names this machine (a page of the viewer's own). */
static int local_origin(struct MHD_Connection *c) {
  const char *o = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
  return !o || (!strncasecmp(o, "http://", 7) && local_name(o + 7));
}

/* Makes the trace `p` (finished) the one served: its cache, track list and runner replace the
** old ones, which are freed (the old processor too when the server owns it). On error nothing
** changes and `p` is not taken. Called with the runner acquired (no query running). */
static int serve_trace(trak_ui_server *s, trak_processor *p, trak_error *err) {
  trak_ui_cache *cache = NULL;
  trak_ui_buf tracks = {0};
  trak_ui_runner *runner = NULL;
  int rc = trak__ui_cache_new(p, &cache, err);
  if (!rc) rc = trak__ui_tracks(p, cache, &tracks, err);
  if (!rc && tracks.oom) rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
  if (!rc) rc = trak_processor_restrict_sql(p, err);
  if (!rc && trak__ui_runner_new(p, &runner))
    rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
  if (rc) {
    trak__ui_cache_free(cache);
    trak__ui_buf_free(&tracks);
    return rc;
  }
  trak__ui_runner_free(s->runner);
  trak__ui_cache_free(s->cache);
  trak__ui_buf_free(&s->tracks);
  if (s->owns_p) trak_processor_free(s->p);
  s->p = p, s->owns_p = 1, s->cache = cache, s->tracks = tracks, s->runner = runner;
  return 0;
}

/* POST /api/open: the body (streamed into req->open as it came) is a trace; once finished it
** replaces the one served. 400 when it does not parse, 503 while a query runs. */
static enum MHD_Result open_post(trak_ui_server *s, struct MHD_Connection *c, request *req) {
  trak_error err = {0};
  if (req->too_big)
    return send_error(c, MHD_HTTP_CONTENT_TOO_LARGE, "the trace is larger than --max-open-mb");
  if (!req->open_bytes) return send_error(c, MHD_HTTP_BAD_REQUEST, "the body must be a trace");
  int rc = trak_processor_finish(req->open, &err);
  if (!rc && !trak_processor_event_count(req->open)) /* not a trace: keep the one served */
    rc = trak_error_set(&err, TRAK_EINVAL, "no events found in the file: is it a trace?");
  if (rc) return send_answer(c, &(trak_ui_buf){0}, rc == TRAK_ENOMEM ? rc : TRAK_EINVAL, &err);
  if (trak__ui_runner_acquire(s->runner))
    return send_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "a query is running (cancel it or wait)");
  rc = serve_trace(s, req->open, &err);
  if (rc) {
    trak__ui_runner_release(s->runner);
    return send_answer(c, &(trak_ui_buf){0}, rc, &err);
  }
  req->open = NULL; /* the server's now; the new runner is free */
  const char *name = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "name");
  free(s->name);
  s->name = name ? strdup(name) : NULL;
  return api_get(s, c, "info");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state) {
  trak_ui_server *s = cls;
  int is_get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
  int is_post = !strcmp(method, "POST");
  int is_open = !strcmp(url, "/api/open");
  int is_query = !strcmp(url, "/api/query") || !strcmp(url, "/api/cancel") || is_open;
  request *req = *state;
  if (!req) { /* first call: headers only; refuse early what will never be answered */
    if (s->loopback && !local_host(c))
      return send_error(c, MHD_HTTP_FORBIDDEN, "Host must be 127.0.0.1 or localhost");
    if (is_query ? !is_post : !is_get)
      return send_error(c, MHD_HTTP_METHOD_NOT_ALLOWED,
                        is_query ? "use POST for /api/query, /api/cancel and /api/open"
                                 : "use GET");
    /* A body announced too long is refused now, not after waiting for it. */
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    uint64_t limit = is_open ? s->max_open : MAX_BODY;
    if (cl && (strlen(cl) > 19 || strtoull(cl, NULL, 10) > limit))
      return send_error(c, MHD_HTTP_CONTENT_TOO_LARGE,
                        is_open ? "the trace is larger than --max-open-mb"
                                : "SQL longer than 1 MiB");
    /* A trace is imported as it arrives: only from the viewer's own page. */
    if (is_open && (!MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Trak-Request") ||
                    (s->loopback && !local_origin(c))))
      return send_error(c, MHD_HTTP_FORBIDDEN, "missing X-Trak-Request header or foreign Origin");
    req = calloc(1, sizeof *req);
    if (!req || (is_open && trak_processor_new(NULL, &req->open, NULL))) {
      free(req);
      return MHD_NO;
    }
    *state = req;
    trak__ui_guard_phase(conn_of(c), TRAK_UI_BODY, BODY_S);
    return MHD_YES;
  }
  if (*upload_size && req->open) { /* a piece of a trace */
    req->open_bytes += *upload_size;
    trak__ui_guard_extend(conn_of(c), *upload_size, OPEN_RATE);
    if (req->open_bytes > s->max_open)
      req->too_big = 1;
    else if (trak_processor_feed(req->open, upload, *upload_size, NULL))
      return MHD_NO; /* out of memory: the connection is closed */
    *upload_size = 0;
    return MHD_YES;
  }
  if (*upload_size) { /* a piece of the POST body */
    if (req->body.len + *upload_size > MAX_BODY)
      req->too_big = 1;
    else
      trak__ui_put(&req->body, upload, *upload_size);
    *upload_size = 0;
    return MHD_YES;
  }
  if (is_query) {
    if (is_open) return open_post(s, c, req);
    if (req->too_big) return send_error(c, MHD_HTTP_CONTENT_TOO_LARGE, "SQL longer than 1 MiB");
    const char *mark = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Trak-Request");
    if (!mark) return send_error(c, MHD_HTTP_FORBIDDEN, "missing X-Trak-Request header");
    if (!strcmp(url, "/api/cancel")) {
      int was = trak__ui_runner_cancel(s->runner);
      static const char yes[] = "{\"cancelled\":true}", no[] = "{\"cancelled\":false}";
      return send_text(c, MHD_HTTP_OK, "application/json", was ? yes : no,
                       was ? sizeof yes - 1 : sizeof no - 1, MHD_RESPMEM_PERSISTENT);
    }
    return query_post(s, c, req);
  }
  if (!strncmp(url, "/api/", 5)) return api_get(s, c, url + 5);
  const trak_ui_asset *a = trak__ui_asset_find(!strcmp(url, "/") ? "index.html" : url + 1);
  if (!a) return send_error(c, MHD_HTTP_NOT_FOUND, "not found");
  return send_text(c, MHD_HTTP_OK, a->mime, a->data, a->len, MHD_RESPMEM_PERSISTENT);
}

static void completed(void *cls, struct MHD_Connection *c, void **state,
                      enum MHD_RequestTerminationCode code) {
  trak__ui_guard_phase(conn_of(c), TRAK_UI_HEAD, HEAD_S); /* kept alive: the next request's head */
  request *req = *state;
  if (!req) return;
  trak__ui_buf_free(&req->body);
  trak__ui_buf_free(&req->job.out);
  trak_processor_free(req->open);
  free(req);
  *state = NULL;
}

/* Registers each new connection with the guard and forgets each closed one. */
static void notify(void *cls, struct MHD_Connection *c, void **socket_context,
                   enum MHD_ConnectionNotificationCode code) {
  trak_ui_server *s = cls;
  if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
    trak__ui_guard_close(&s->guard, *socket_context);
    *socket_context = NULL;
    return;
  }
  const union MHD_ConnectionInfo *i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
  trak_ui_conn *k =
      i ? trak__ui_guard_open(&s->guard, i->connect_fd, trak__ui_peer_uid(i->connect_fd)) : NULL;
  trak__ui_guard_phase(k, TRAK_UI_HEAD, HEAD_S);
  if (!k && i) shutdown(i->connect_fd, SHUT_RDWR); /* out of memory: not served */
  *socket_context = k;
}

/* The server's thread: libmicrohttpd's turns, and the guard's sweep after each. */
static void *loop(void *arg) {
  trak_ui_server *s = arg;
  while (!atomic_load(&s->stop)) {
    MHD_run_wait(s->daemon, TICK_MS);
    trak__ui_guard_sweep(&s->guard);
  }
  return NULL;
}

int trak__ui_server_start(trak_processor *p, const trak_ui_server_options *o, trak_ui_server **out,
                          trak_error *err) {
  *out = NULL;
  const char *bind = o && o->bind ? o->bind : "127.0.0.1";
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(o ? o->port : 0)};
  if (inet_pton(AF_INET, bind, &addr.sin_addr) != 1)
    return trak_error_set(err, TRAK_EINVAL, "--bind %s: not an IPv4 address", bind);
  trak_ui_server *s = calloc(1, sizeof *s);
  if (!s) return trak_error_set(err, TRAK_ENOMEM, "out of memory");
  s->p = p;
  s->owns_p = o && o->owns_processor;
  s->name = o && o->name ? strdup(o->name) : NULL;
  s->max_open = (o && o->max_open_mb ? o->max_open_mb : MAX_OPEN_MB) << 20;
  s->loopback = (ntohl(addr.sin_addr.s_addr) >> 24) == 127;
  int rc = trak__ui_runner_new(p, &s->runner) ? trak_error_set(err, TRAK_ENOMEM, "out of memory")
                                              : trak__ui_cache_new(p, &s->cache, err);
  if (!rc) rc = trak__ui_tracks(p, s->cache, &s->tracks, err);
  if (!rc && s->tracks.oom) rc = trak_error_set(err, TRAK_ENOMEM, "out of memory");
  /* Any local user can reach the port: its SQL may read the trace, never touch a file. */
  if (!rc) rc = trak_processor_restrict_sql(p, err);
  if (rc) {
    s->owns_p = 0; /* on error the caller keeps p */
    trak__ui_server_stop(s);
    return rc;
  }
  /* libmicrohttpd's own cap is twice the guard's: connections above the guard's are accepted,
  ** then the longest idle of the client holding the most is closed, so that a newcomer is not
  ** turned away by idle ones, nor one user's connections closed for another's. */
  s->guard.cap = MAX_CONNS;
  s->guard.per_uid = MAX_CONNS / 2; /* another local user can never hold more than half */
  s->daemon = MHD_start_daemon(
      MHD_USE_AUTO | MHD_ALLOW_SUSPEND_RESUME, 0, NULL, NULL, handle, s, MHD_OPTION_SOCK_ADDR,
      (struct sockaddr *)&addr, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024,
      MHD_OPTION_CONNECTION_LIMIT, (unsigned)(2 * MAX_CONNS), MHD_OPTION_CONNECTION_TIMEOUT,
      (unsigned)60, MHD_OPTION_NOTIFY_COMPLETED, completed, s, MHD_OPTION_NOTIFY_CONNECTION, notify,
      s, MHD_OPTION_END);
  if (s->daemon && !pthread_create(&s->loop, NULL, loop, s)) s->looping = 1;
  if (!s->looping) {
    s->owns_p = 0;
    trak__ui_server_stop(s);
    return trak_error_set(err, TRAK_EIO, "cannot listen on %s:%u (port in use?)", bind,
                          (unsigned)ntohs(addr.sin_port));
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
  s->port = info ? info->port : ntohs(addr.sin_port);
  *out = s;
  return 0;
}

uint16_t trak__ui_server_port(const trak_ui_server *s) {
  return s->port;
}

void trak__ui_server_stop(trak_ui_server *s) {
  if (!s) return;
  trak__ui_runner_close(s->runner); /* a running query ends first: it resumes its connection */
  if (s->looping) {
    atomic_store(&s->stop, 1);
    pthread_join(s->loop, NULL);
  }
  if (s->daemon) MHD_stop_daemon(s->daemon);
  trak__ui_runner_free(s->runner);
  trak__ui_buf_free(&s->tracks);
  trak__ui_cache_free(s->cache);
  if (s->owns_p) trak_processor_free(s->p);
  free(s->name);
  free(s);
}
