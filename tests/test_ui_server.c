/*
** Tests of `trak ui`'s server and data answers (src/ui/): every endpoint answers a known trace
** with what it holds; slices and counters are summarised to one entry per pixel column; bad
** requests (malformed, huge, path traversal, wrong method, foreign Host, cross-site SQL) get an
** error status and leave the server answering; the server listens on loopback only by default.
*/
#include <arpa/inet.h>
#include <inttypes.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "trak/processor.h"
#include "ui/ui.h"

/* 1000 back-to-back 1 us slices on one thread, each with a 0.5 us child, a counter stepping
** every 10 us, and a flow from the first slice to a slice on another thread. */
static char *make_trace(void) {
  trak_ui_buf b = {0};
  trak__ui_puts(&b,
                "{\"traceEvents\":[\n"
                "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"app\"}},\n"
                "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":"
                "\"main\"}},\n");
  for (int i = 0; i < 1000; i++) {
    trak__ui_printf(
        &b,
        "{\"ph\":\"X\",\"name\":\"step\",\"ts\":%d,\"dur\":1,\"pid\":1,\"tid\":2,"
        "\"args\":{\"i\":%d}},\n"
        "{\"ph\":\"X\",\"name\":\"inner\",\"ts\":%d,\"dur\":0.5,\"pid\":1,\"tid\":2},\n",
        i, i, i);
    if (i % 10 == 0)
      trak__ui_printf(&b,
                      "{\"ph\":\"C\",\"name\":\"load\",\"ts\":%d,\"pid\":1,\"args\":{\"v\":%d}},\n",
                      i, i / 10);
  }
  trak__ui_puts(
      &b, "{\"ph\":\"s\",\"name\":\"f\",\"id\":7,\"ts\":0.2,\"pid\":1,\"tid\":2},\n"
          "{\"ph\":\"X\",\"name\":\"done\",\"ts\":2000,\"dur\":5,\"pid\":1,\"tid\":3},\n"
          "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"f\",\"id\":7,\"ts\":2000,\"pid\":1,\"tid\":3}\n"
          "]}\n");
  assert_false(b.oom);
  return b.s;
}

typedef struct fixture {
  trak_processor *p;
  trak_ui_server *s;
  uint16_t port;
  int64_t main_track, counter_track;
} fixture;

static int64_t one_int(trak_processor *p, const char *sql) {
  trak_query *q;
  assert_int_equal(trak_query_open(p, sql, &q, NULL, NULL), 0);
  assert_int_equal(trak_query_next(q, NULL), 1);
  int64_t v = trak_query_int(q, 0);
  trak_query_free(q);
  return v;
}

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  char *json = make_trace();
  assert_int_equal(trak_processor_new(NULL, &f->p, NULL), 0);
  assert_int_equal(trak_processor_feed(f->p, json, strlen(json), NULL), 0);
  assert_int_equal(trak_processor_finish(f->p, NULL), 0);
  free(json);
  f->main_track = one_int(f->p, "SELECT track_id FROM slice WHERE name = 'step' LIMIT 1");
  f->counter_track = one_int(f->p, "SELECT track_id FROM counter LIMIT 1");
  trak_error err = {0};
  assert_int_equal(trak__ui_server_start(f->p, NULL, &f->s, &err), 0);
  f->port = trak__ui_server_port(f->s);
  assert_true(f->port > 0);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  trak__ui_server_stop(f->s);
  trak_processor_free(f->p);
  free(f);
  return 0;
}

typedef struct reply {
  int status; /* 0: the connection closed without a status line */
  char *body; /* malloc'ed, NUL-terminated */
} reply;

static int connect_to(uint32_t addr_host_order, uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  assert_true(fd >= 0);
  struct timeval tv = {10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  struct sockaddr_in a = {
      .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(addr_host_order)};
  if (connect(fd, (struct sockaddr *)&a, sizeof a)) {
    close(fd);
    return -1;
  }
  return fd;
}

/* Sends `len` raw bytes to the server and reads the reply until the server closes. */
static reply raw(fixture *f, const char *req, size_t len) {
  int fd = connect_to(INADDR_LOOPBACK, f->port);
  assert_true(fd >= 0);
  for (size_t sent = 0; sent < len;) {
    ssize_t n = send(fd, req + sent, len - sent, MSG_NOSIGNAL);
    if (n <= 0) break; /* the server may answer and close before reading everything */
    sent += (size_t)n;
  }
  shutdown(fd, SHUT_WR);
  trak_ui_buf in = {0};
  char buf[65536];
  ssize_t n;
  while ((n = recv(fd, buf, sizeof buf, 0)) > 0)
    trak__ui_put(&in, buf, (size_t)n);
  close(fd);
  reply r = {0, NULL};
  if (in.s) sscanf(in.s, "HTTP/1.%*d %d", &r.status);
  const char *body = in.s ? strstr(in.s, "\r\n\r\n") : NULL;
  r.body = strdup(body ? body + 4 : "");
  trak__ui_buf_free(&in);
  return r;
}

/* A request with the given method, path, extra header lines and body. */
static reply request(fixture *f, const char *method, const char *path, const char *headers,
                     const char *body) {
  trak_ui_buf b = {0};
  trak__ui_printf(&b, "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: close\r\n%s", method,
                  path, (unsigned)f->port, headers ? headers : "");
  if (body) trak__ui_printf(&b, "Content-Length: %zu\r\n", strlen(body));
  trak__ui_printf(&b, "\r\n%s", body ? body : "");
  reply r = raw(f, b.s, b.len);
  trak__ui_buf_free(&b);
  return r;
}

static reply get(fixture *f, const char *path) {
  return request(f, "GET", path, NULL, NULL);
}

/* GET of a path made with printf formatting. */
static reply getf(fixture *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static reply getf(fixture *f, const char *fmt, ...) {
  char path[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(path, sizeof path, fmt, ap);
  va_end(ap);
  return get(f, path);
}

/* Occurrences of `needle` in `s`. */
static int count(const char *s, const char *needle) {
  int n = 0;
  for (; (s = strstr(s, needle)); s++)
    n++;
  return n;
}

static void expect(reply r, int status, const char *needle) {
  if (r.status != status || (needle && !strstr(r.body, needle)))
    fail_msg("status %d (wanted %d), body: %.300s (wanted %s)", r.status, status, r.body,
             needle ? needle : "-");
  free(r.body);
}

static void serves_viewer_files(void **state) {
  fixture *f = *state;
  expect(get(f, "/"), 200, "<canvas id=\"timeline\"");
  expect(get(f, "/viewer.js"), 200, "trakViewer");
  expect(get(f, "/backend.js"), 200, "ServerBackend");
  expect(get(f, "/viewer.css"), 200, "#timeline");
  expect(request(f, "HEAD", "/", NULL, NULL), 200, NULL);
}

static void tracks_endpoint(void **state) {
  fixture *f = *state;
  expect(get(f, "/api/tracks"), 200, "\"main\"");
  expect(get(f, "/api/tracks"), 200, "\"load v\"");
  expect(get(f, "/api/tracks"), 200, "\"processes\":[");
  /* The main thread's row ends: max depth 1, first ts 0, not a counter, no metric, 2000 slices. */
  expect(get(f, "/api/tracks"), 200, ",null,1,0,0,null,2000]");
}

/* Counts the entries ("[depth,...]") of a slices answer and checks their counts add up. */
static void slices_endpoint(void **state) {
  fixture *f = *state;
  /* 1000 us of slices at 1 us per pixel: every slice has its own column. */
  reply r = getf(f, "/api/slices?tracks=%" PRId64 "&start=0&end=1000000&px=1000", f->main_track);
  assert_int_equal(r.status, 200);
  assert_non_null(strstr(r.body, "\"step\""));
  assert_non_null(strstr(r.body, "\"inner\""));
  assert_int_equal(count(r.body, ",\"step\",1]"), 1000);
  free(r.body);
  /* 100 pixels over the same range: one entry per column per depth, counts summing to 1000. */
  r = getf(f, "/api/slices?tracks=%" PRId64 "&start=0&end=1000000&px=10000", f->main_track);
  assert_int_equal(r.status, 200);
  int steps = 0, total = 0;
  for (const char *s = r.body; (s = strstr(s, ",\"step\",")); s++) {
    steps++;
    total += atoi(s + 8);
  }
  assert_int_equal(steps, 100);
  assert_int_equal(total, 1000);
  free(r.body);
  /* A range inside the trace: only the slices overlapping it. */
  r = getf(f, "/api/slices?tracks=%" PRId64 "&start=500000&end=502500&px=1", f->main_track);
  assert_int_equal(count(r.body, ",\"step\","),
                   4); /* the slices at 499..500 us (ends at 500 us), 500, 501, 502 us */
  free(r.body);
}

static void counters_endpoint(void **state) {
  fixture *f = *state;
  reply r =
      getf(f, "/api/counters?tracks=%" PRId64 "&start=0&end=1000000&px=100000", f->counter_track);
  assert_int_equal(r.status, 200);
  assert_int_equal(count(r.body, "],[") + 1, 10); /* 100 values in 10 columns */
  assert_non_null(strstr(r.body, "[0,0,9,9]"));   /* first column: min 0, max 9, last 9 */
  free(r.body);
  /* The value in force before the range comes first. */
  expect(getf(f, "/api/counters?tracks=%" PRId64 "&start=15000&end=16000&px=1", f->counter_track),
         200, "[10000,1,1,1]");
  /* A process's scheduling: only CPU tracks answer (none here), utids required. */
  expect(
      getf(f, "/api/sched?tracks=%" PRId64 "&utids=1,2&start=0&end=1000000&px=1000", f->main_track),
      200, "\":[]}");
  expect(getf(f, "/api/sched?tracks=%" PRId64 "&start=0&end=10&px=1", f->main_track), 400,
         "missing argument 'utids'");
  expect(getf(f, "/api/sched?tracks=%" PRId64 "&utids=1;2&start=0&end=10&px=1", f->main_track), 400,
         "argument 'utids' is not a list of ids");
}

static void flows_details_search_query(void **state) {
  fixture *f = *state;
  expect(get(f, "/api/flows?start=0&end=3000000"), 200, "[[");
  expect(get(f, "/api/flows?start=2100000&end=3000000"), 200, "[]");
  int64_t id = one_int(f->p, "SELECT slice_out FROM flow");
  expect(getf(f, "/api/slice?id=%" PRId64, id), 200, "\"flows_out\":[[");
  expect(getf(f, "/api/slice?id=%" PRId64, id), 200, "\"main\"");
  int64_t inner = one_int(f->p, "SELECT id FROM slice WHERE name = 'inner' AND ts = 7000");
  expect(getf(f, "/api/slice?id=%" PRId64, inner), 200,
         ",\"step\",7000,1000,0]]"); /* its ancestor */
  expect(get(f, "/api/slice?id=999999"), 404, "no slice 999999");
  expect(get(f, "/api/alerts"), 200, "[]"); /* no metric ran */
  expect(get(f, "/api/search?q=don"), 200, "\"rows\":[[");
  expect(get(f, "/api/search?q=%25"), 200, "\"rows\":[]"); /* LIKE wildcards match themselves */
  expect(get(f, "/api/search?q=x%27%20OR%201%3D1%20--"), 200, "\"rows\":[]");
  expect(request(f, "POST", "/api/query", "X-Trak-Request: 1\r\n",
                 "select count(*) as n from slice where name = 'step'"),
         200, "{\"columns\":[\"n\"],\"rows\":[[1000]]");
  expect(request(f, "POST", "/api/query", "X-Trak-Request: 1\r\n", "select nope from slice"), 400,
         "no such column");
  expect(request(f, "POST", "/api/query", "X-Trak-Request: 1\r\n", "  "), 400, "no SQL");
}

/* Area selection: the steps from 10 us to 19 us (closed range: the one ending at 10 us too). */
static void aggregate_flamegraph_paging(void **state) {
  fixture *f = *state;
  /* 11 steps of 1000 ns, each with a 500 ns child: self 500 each. */
  expect(getf(f, "/api/aggregate?tracks=%" PRId64 ",%" PRId64 "&start=10000&end=19000",
              f->main_track, f->counter_track),
         200, "{\"slices\":[[\"step\",11,11000,1000,5500],[\"inner\",10,5000,500,5000]]");
  /* load: values 1 at 10 us only (steps every 10 us): count 1, delta 0. */
  expect(getf(f, "/api/aggregate?tracks=%" PRId64 "&start=10000&end=19000", f->counter_track), 200,
         "\"counters\":[[");
  expect(getf(f, "/api/flamegraph?tracks=%" PRId64 "&start=10000&end=19000", f->main_track), 200,
         "[[-1,\"step\",11000,11],[0,\"inner\",5000,10]]");
  expect(getf(f, "/api/aggregate?tracks=%" PRId64 "&start=5&end=1", f->main_track), 400,
         "bad range");
  /* Paging: rows 995.. of 1000. */
  expect(request(f, "POST", "/api/query?offset=995", "X-Trak-Request: 1\r\n",
                 "select ts from slice where name = 'step' order by ts"),
         200,
         "\"rows\":[[995000],[996000],[997000],[998000],[999000]],\"truncated\":false,"
         "\"offset\":995}");
  expect(request(f, "POST", "/api/query?offset=-1", "X-Trak-Request: 1\r\n", "select 1"), 400,
         "offset");
}

static void *long_query(void *arg) {
  reply *r = malloc(sizeof *r);
  *r = request(arg, "POST", "/api/query", "X-Trak-Request: 1\r\n",
               "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
               "SELECT count(*) FROM c");
  return r;
}

/* A query without end: the timeline keeps answering, SQL answers are busy, cancel ends it. */
static void cancel_running_query(void **state) {
  fixture *f = *state;
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, long_query, f), 0);
  int cancelled = 0;
  for (int i = 0; i < 500 && !cancelled; i++) {
    reply busy = get(f, "/api/search?q=step");
    if (busy.status == 503) {
      expect(getf(f, "/api/slices?tracks=%" PRId64 "&start=0&end=10&px=1", f->main_track), 200,
             "step");
      reply c = request(f, "POST", "/api/cancel", "X-Trak-Request: 1\r\n", "");
      cancelled = strstr(c.body, "true") != NULL;
      free(c.body);
    } else {
      usleep(10000);
    }
    free(busy.body);
  }
  assert_true(cancelled);
  reply *r;
  pthread_join(t, (void **)&r);
  expect(*r, 400, "interrupted");
  free(r);
  expect(get(f, "/api/search?q=don"), 200, "\"rows\":[["); /* free again */
  expect(request(f, "POST", "/api/cancel", NULL, ""), 403, "X-Trak-Request");
}

static atomic_int job_done;
static void on_job_done(void *arg) {
  (void)arg;
  atomic_store(&job_done, 1);
}

/* A cancel that comes as the job starts, before its statement runs, still ends it: SQLite
** forgets an interrupt made while no statement runs, so the runner's own flag (checked by a
** progress handler) carries it. Twenty rounds: with the interrupt alone, the first round never
** ended. */
static void cancel_before_the_statement_starts(void **state) {
  fixture *f = *state;
  for (int round = 0; round < 20; round++) {
    trak_ui_runner *r;
    assert_int_equal(trak__ui_runner_new(f->p, &r), 0);
    trak_ui_job job = {.sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                              "SELECT count(*) FROM c",
                       .limit = 10};
    atomic_store(&job_done, 0);
    assert_int_equal(trak__ui_runner_start(r, &job, on_job_done, NULL), 0);
    assert_int_equal(trak__ui_runner_cancel(r), 1);
    for (int i = 0; i < 1000 && !atomic_load(&job_done); i++)
      usleep(10000);
    if (!atomic_load(&job_done)) fail_msg("round %d: the cancelled job still runs after 10 s", round);
    assert_int_not_equal(job.rc, 0);
    assert_non_null(strstr(job.err.message, "interrupted"));
    trak__ui_runner_free(r);
    trak__ui_buf_free(&job.out);
  }
}

static void bad_requests_get_errors(void **state) {
  fixture *f = *state;
  expect(get(f, "/api/slices?tracks=1&start=0&end=10"), 400, "missing argument 'px'");
  expect(get(f, "/api/slices?tracks=1;DROP&start=0&end=10&px=1"), 400, "track ids");
  expect(get(f, "/api/slices?tracks=1&start=x&end=10&px=1"), 400, "not an integer");
  expect(get(f, "/api/slices?tracks=1&start=10&end=0&px=1"), 400, "bad range");
  expect(get(f, "/api/slices?tracks=1&start=0&end=10&px=0"), 400, "bad range");
  expect(get(f, "/api/counters?tracks=1&start=0&end=99999999999999999999&px=1"), 400, NULL);
  /* The widest range there is: no overflow, the whole trace in column 0. */
  expect(get(f, "/api/slices?tracks=0&start=-9223372036854775808&end=9223372036854775807&px=1"),
         200, NULL);
  expect(getf(f,
              "/api/slices?tracks=%" PRId64 "&start=-9223372036854775808&end=%" PRId64
              "&px=9223372036854775807",
              f->main_track, INT64_MAX),
         200, ",\"step\",1000]");
  expect(get(f, "/api/search"), 400, "missing argument 'q'");
  expect(get(f, "/api/nothing"), 404, "no such endpoint");
  /* Path traversal: nothing is read from disk, so anything but a known file is 404. */
  expect(get(f, "/../../../../etc/passwd"), 404, NULL);
  expect(get(f, "/%2e%2e/%2e%2e/etc/passwd"), 404, NULL);
  expect(get(f, "/ui/../CMakeLists.txt"), 404, NULL);
  /* Wrong methods. */
  expect(request(f, "POST", "/api/tracks", NULL, "x"), 405, "use GET");
  expect(request(f, "DELETE", "/", NULL, NULL), 405, NULL);
  expect(get(f, "/api/query"), 405, "use POST");
  /* Requests a web page elsewhere could make. */
  expect(request(f, "POST", "/api/query", NULL, "select 1"), 403, "X-Trak-Request");
  static const char foreign[] = "GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n";
  expect(raw(f, foreign, strlen(foreign)), 403, "Host");
  /* Malformed and huge. */
  reply r = raw(f, "GARBAGE\r\n\r\n", 11);
  assert_true(r.status == 0 || r.status >= 400);
  free(r.body);
  r = raw(f, "\x01\x02\x03\xff\r\n\r\n", 8);
  assert_true(r.status == 0 || r.status >= 400);
  free(r.body);
  size_t big = 1100 * 1024; /* over both the header and the body limits */
  char *huge = malloc(big + 64);
  memcpy(huge, "GET /", 5);
  memset(huge + 5, 'a', big);
  strcpy(huge + 5 + big, " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  r = raw(f, huge, strlen(huge));
  assert_true(r.status == 0 || r.status >= 400);
  free(r.body);
  memset(huge, 'x', big);
  huge[big] = 0;
  r = request(f, "POST", "/api/query", "X-Trak-Request: 1\r\n", huge);
  if (r.status != 0 && r.status != 413) fail_msg("status %d: %s", r.status, r.body);
  free(r.body);
  free(huge);
  /* After all that, the server still answers. */
  expect(get(f, "/api/tracks"), 200, "\"tracks\"");
}

/* The viewer's SQL, which any local user can send, reads the trace and makes its own tables
** but cannot write a file or change trak's tables (issue 32, case 2). */
static void sql_cannot_touch_files(void **state) {
  fixture *f = *state;
  char dir[] = "/tmp/trak_ui_sqlXXXXXX";
  assert_non_null(mkdtemp(dir));
  char sql[256];
  static const char *const attempts[] = {"ATTACH DATABASE '%s/a.db' AS a", "VACUUM INTO '%s/v.db'",
                                         "DROP TABLE slice", "DELETE FROM android_logs",
                                         "PRAGMA writable_schema = 1"};
  for (size_t i = 0; i < sizeof attempts / sizeof *attempts; i++) {
    snprintf(sql, sizeof sql, attempts[i], dir);
    reply r = request(f, "POST", "/api/query", "X-Trak-Request: 1\r\n", sql);
    if (r.status != 400) fail_msg("%s: status %d: %s", sql, r.status, r.body);
    free(r.body);
  }
  assert_int_equal(rmdir(dir), 0); /* still empty: no file was created */
  expect(request(f, "POST", "/api/query", "X-Trak-Request: 1\r\n",
                 "select count(*) as n from slice where name = 'step'"),
         200, "[[1000]]");
  expect(request(f, "POST", "/api/query", "X-Trak-Request: 1\r\n",
                 "CREATE PERFETTO TABLE mine AS SELECT id FROM slice WHERE name = 'done';"
                 "SELECT count(*) AS n FROM mine"),
         200, "{\"columns\":[\"n\"],\"rows\":[[1]]");
}

/* A body announced longer than the limit gets 413 at once, without the server waiting for
** it (the reply would otherwise only come at the 60 s timeout, after the test's 10 s one). */
static void huge_content_length_refused_at_once(void **state) {
  fixture *f = *state;
  int fd = connect_to(INADDR_LOOPBACK, f->port);
  assert_true(fd >= 0);
  char req[256];
  int n = snprintf(req, sizeof req,
                   "POST /api/query HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nX-Trak-Request: 1\r\n"
                   "Content-Length: 9223372036854775808\r\n\r\nselect 1",
                   (unsigned)f->port);
  assert_int_equal(send(fd, req, (size_t)n, MSG_NOSIGNAL), n);
  char buf[512] = {0};
  ssize_t got = recv(fd, buf, sizeof buf - 1, 0); /* SO_RCVTIMEO 10 s: no reply fails */
  close(fd);
  assert_true(got > 0);
  if (!strstr(buf, " 413 ")) fail_msg("wanted 413, got: %s", buf);
}

/* Every statement of a request runs; the last one's rows are the answer (case 7). */
static void every_statement_runs(void **state) {
  fixture *f = *state;
  expect(request(f, "POST", "/api/query", "X-Trak-Request: 1\r\n",
                 "CREATE TABLE n2(v); INSERT INTO n2 VALUES (4); -- note\n"
                 "INSERT INTO n2 VALUES (5); SELECT sum(v) AS s FROM n2; /* end */"),
         200, "\"rows\":[[9]]");
  expect(request(f, "POST", "/api/query", "X-Trak-Request: 1\r\n", "SELECT 1; SELECT nope"), 400,
         "no such column");
  expect(request(f, "POST", "/api/query", "X-Trak-Request: 1\r\n",
                 "SELECT 1/0 + abs(-9223372036854775807 - 1); SELECT 1"),
         400, "statement 1: integer overflow");
}

/* Finds a non-loopback IPv4 address of this machine; 0 if there is none. */
static uint32_t other_address(void) {
  struct ifaddrs *list, *i;
  uint32_t found = 0;
  if (getifaddrs(&list)) return 0;
  for (i = list; i && !found; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    uint32_t a = ntohl(((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr);
    if (a >> 24 != 127) found = a;
  }
  freeifaddrs(list);
  return found;
}

static void loopback_only_by_default(void **state) {
  fixture *f = *state;
  uint32_t other = other_address();
  if (other) {
    int fd = connect_to(other, f->port);
    if (fd >= 0) close(fd);
    assert_true(fd < 0); /* nothing listens there */
  }
  trak_ui_server *s;
  trak_error err = {0};
  trak_ui_server_options o = {.bind = "not-an-address"};
  assert_int_equal(trak__ui_server_start(f->p, &o, &s, &err), TRAK_EINVAL);
  assert_non_null(strstr(err.message, "not-an-address"));
  /* The port in use: a clear error, not a crash. */
  o = (trak_ui_server_options){.port = f->port};
  assert_int_equal(trak__ui_server_start(f->p, &o, &s, &err), TRAK_EIO);
  assert_non_null(strstr(err.message, "cannot listen"));
}

static void html_report_is_self_contained(void **state) {
  fixture *f = *state;
  trak_ui_buf page = {0};
  const char *summary = (const char *)1;
  trak_error err = {0};
  /* The fixture's processor has its SQL restricted by the server: its tables cannot be
  ** exported, so the page has no SQL and says so. */
  assert_int_equal(trak__ui_html(f->p, NULL, &page, &summary, &err), 0);
  assert_non_null(summary);
  assert_non_null(strstr(summary, "could not be exported"));
  assert_non_null(strstr(page.s, "window.TRAK_SQL = {\"error\":"));
  trak__ui_buf_free(&page);
  /* A fresh one: every table, gzip'ed, and sql.js inlined. */
  trak_processor *fresh;
  char *json = make_trace();
  assert_int_equal(trak_processor_new(NULL, &fresh, NULL), 0);
  assert_int_equal(trak_processor_feed(fresh, json, strlen(json), NULL), 0);
  assert_int_equal(trak_processor_finish(fresh, NULL), 0);
  free(json);
  assert_int_equal(trak__ui_html(fresh, NULL, &page, &summary, &err), 0);
  assert_null(summary);                                                  /* 2000 slices fit */
  assert_non_null(strstr(page.s, "window.TRAK_SQL = {\"wasm\":\"H4sI")); /* gzip's magic */
  assert_non_null(strstr(page.s, "\"db\":\"H4sI"));
  assert_non_null(strstr(page.s, "var initSqlJs"));
  trak__ui_buf_free(&page);
  trak_ui_html_options tiny = {.max_sql_bytes = 1000};
  assert_int_equal(trak__ui_html(fresh, &tiny, &page, &summary, &err), 0);
  assert_non_null(summary);
  assert_non_null(strstr(summary, "over --max-sql-mb")); /* the trace, or its tables */
  assert_null(strstr(page.s, "var initSqlJs"));
  trak_processor_free(fresh);
  trak__ui_buf_free(&page);
  assert_int_equal(trak__ui_html(f->p, NULL, &page, &summary, &err), 0);
  assert_non_null(strstr(page.s, "window.TRAK_DATA = {"));
  assert_non_null(strstr(page.s, "class ServerBackend"));
  assert_null(strstr(page.s, "<script src="));
  assert_null(strstr(page.s, "<link rel=\"stylesheet\""));
  trak__ui_buf_free(&page);
  /* Over the cap: summarised, and said so. */
  trak_ui_html_options o = {.max_slices = 100, .max_details = 10, .no_sql = 1};
  assert_int_equal(trak__ui_html(f->p, &o, &page, &summary, &err), 0);
  assert_non_null(summary);
  assert_non_null(strstr(summary, "2001 slices"));
  assert_non_null(strstr(page.s, "summarised"));
  trak__ui_buf_free(&page);
}

/* POST /api/open: a trace sent by the page replaces the one served, only with the viewer's
** header, from its own origin and within the size limit; what is not a trace changes nothing.
** (Last: the server serves another trace afterwards.) */
static void open_replaces_trace(void **state) {
  fixture *f = *state;
  const char *small =
      "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"opened\",\"ts\":1,\"dur\":5,\"pid\":7,"
      "\"tid\":7}]}";
  expect(get(f, "/api/info"), 200, "\"name\":null,\"events\":");
  expect(request(f, "POST", "/api/open", NULL, small), 403, "X-Trak-Request");
  expect(request(f, "POST", "/api/open", "X-Trak-Request: 1\r\nOrigin: http://evil.example\r\n",
                 small),
         403, "Origin");
  expect(get(f, "/api/open"), 405, "POST");
  expect(request(f, "POST", "/api/open", "X-Trak-Request: 1\r\nContent-Length: 1099511627776\r\n",
                 NULL),
         413, "--max-open-mb");
  expect(request(f, "POST", "/api/open", "X-Trak-Request: 1\r\n", "this is not a trace"), 400,
         "no events");
  expect(get(f, "/api/search?q=step"), 200, "\"rows\":[["); /* the old trace still */
  char origin[96];
  snprintf(origin, sizeof origin, "X-Trak-Request: 1\r\nOrigin: http://127.0.0.1:%u\r\n",
           (unsigned)f->port);
  expect(request(f, "POST", "/api/open?name=mine%20.json", origin, small), 200,
         "{\"name\":\"mine .json\",\"events\":1,");
  expect(get(f, "/api/info"), 200, "\"name\":\"mine .json\"");
  expect(get(f, "/api/search?q=step"), 200, "\"rows\":[]");
  expect(request(f, "POST", "/api/query", "X-Trak-Request: 1\r\n", "SELECT name FROM slice"), 200,
         "\"rows\":[[\"opened\"]]");
  reply r = get(f, "/api/tracks");
  assert_non_null(strstr(r.body, "[1,7,null,null]")); /* process 7 */
  free(r.body);
}

static void json_strings_are_escaped(void **state) {
  trak_ui_buf b = {0};
  trak__ui_json_str(&b, "a\"b\\c\n</script>\x01");
  assert_string_equal(b.s, "\"a\\\"b\\\\c\\n\\u003c/script>\\u0001\"");
  trak__ui_buf_free(&b);
  trak__ui_sql_str(&b, "it's");
  assert_string_equal(b.s, "'it''s'");
  trak__ui_buf_free(&b);
}

/* trak__ui_int and trak__ui_json_double write what printf writes (PRId64, %.17g). */
static void json_numbers_as_printf(void **state) {
  (void)state;
  const int64_t ints[] = {0, 7, -7, 10, 99, 100, -100, 123456789, INT64_MAX, INT64_MIN, -1};
  const double doubles[] = {0.0,
                            -0.0,
                            1.0,
                            -2.0,
                            0.5,
                            1e14,
                            999999999999999.0,
                            1e15,
                            1e17,
                            -3.25,
                            1.0 / 3,
                            12345678901234.0};
  char want[64];
  for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
    trak_ui_buf b = {0};
    trak__ui_int(&b, ints[i]);
    snprintf(want, sizeof want, "%" PRId64, ints[i]);
    assert_string_equal(b.s, want);
    trak__ui_buf_free(&b);
  }
  for (size_t i = 0; i < sizeof doubles / sizeof *doubles; i++) {
    trak_ui_buf b = {0};
    trak__ui_json_double(&b, doubles[i]);
    snprintf(want, sizeof want, "%.17g", doubles[i]);
    assert_string_equal(b.s, want);
    trak__ui_buf_free(&b);
  }
  trak_ui_buf b = {0}; /* a text longer than the room printf first tries */
  trak__ui_printf(&b, "%s|%0200d", "x", 5);
  assert_int_equal(b.len, 202);
  assert_string_equal(b.s + 197, "00005");
  trak__ui_buf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(json_numbers_as_printf),
      cmocka_unit_test(serves_viewer_files),
      cmocka_unit_test(tracks_endpoint),
      cmocka_unit_test(slices_endpoint),
      cmocka_unit_test(counters_endpoint),
      cmocka_unit_test(flows_details_search_query),
      cmocka_unit_test(aggregate_flamegraph_paging),
      cmocka_unit_test(cancel_running_query),
      cmocka_unit_test(cancel_before_the_statement_starts),
      cmocka_unit_test(bad_requests_get_errors),
      cmocka_unit_test(sql_cannot_touch_files),
      cmocka_unit_test(every_statement_runs),
      cmocka_unit_test(huge_content_length_refused_at_once),
      cmocka_unit_test(loopback_only_by_default),
      cmocka_unit_test(html_report_is_self_contained),
      cmocka_unit_test(json_strings_are_escaped),
      cmocka_unit_test(open_replaces_trace),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
