/*
** This file holds the server's SQL runner: a page of a SQL query's rows computed on a thread of
** its own, so that the HTTP thread keeps answering the timeline (from the cache) while it runs
** and can cancel it through trak_processor_interrupt (and the job's own flag, which a progress
** handler checks, so that a cancel that comes before the statement starts is not lost: SQLite
** forgets an interrupt made while no statement runs). The processor is used by one thing at a
** time: the runner's thread, or the HTTP thread for a short query (details, search), which asks
** first and gets "busy" instead of waiting.
*/
#include <inttypes.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "processor/processor_internal.h"
#include "ui/ui.h"

struct trak_ui_runner {
  trak_processor *p;
  pthread_mutex_t lock; /* guards busy and joinable */
  int busy;             /* the processor is in use */
  int joinable;         /* thread was started and is not joined yet */
  atomic_int cancel;    /* the running job was cancelled (cleared when a job starts) */
  pthread_t thread;
  trak_ui_job *job;
  void (*done)(void *);
  void *arg;
};

int trak__ui_runner_new(trak_processor *p, trak_ui_runner **out) {
  trak_ui_runner *r = calloc(1, sizeof *r);
  *out = r;
  if (!r) return TRAK_ENOMEM;
  r->p = p;
  pthread_mutex_init(&r->lock, NULL);
  return 0;
}

/* Joins a finished thread so that a new one may start. Called with the lock not held. */
static void join_finished(trak_ui_runner *r) {
  pthread_mutex_lock(&r->lock);
  int join = r->joinable && !r->busy;
  if (join) r->joinable = 0;
  pthread_mutex_unlock(&r->lock);
  if (join) pthread_join(r->thread, NULL);
}

int trak__ui_runner_acquire(trak_ui_runner *r) {
  join_finished(r);
  pthread_mutex_lock(&r->lock);
  int got = !r->busy;
  if (got) r->busy = 1;
  pthread_mutex_unlock(&r->lock);
  return got ? 0 : TRAK_ESTATE;
}

void trak__ui_runner_release(trak_ui_runner *r) {
  pthread_mutex_lock(&r->lock);
  r->busy = 0;
  pthread_mutex_unlock(&r->lock);
}

/* SQLite's progress handler while a job runs: non-zero stops the statement ("interrupted"). */
static int job_cancelled(void *arg) {
  return atomic_load_explicit(&((trak_ui_runner *)arg)->cancel, memory_order_relaxed);
}

static void *run(void *arg) {
  trak_ui_runner *r = arg;
  trak_ui_job *j = r->job;
  /* SQL set up before the handler is on: a cancel must not make the set-up fail for good */
  j->rc = trak__sql_ready(r->p, &j->err);
  if (!j->rc) {
    sqlite3_progress_handler(r->p->db, 1000, job_cancelled, r);
    j->rc = trak__ui_query_page(r->p, j->sql, j->offset, j->limit, &j->out, &j->err);
    sqlite3_progress_handler(r->p->db, 0, NULL, NULL);
  }
  j->done = 1;
  void (*done)(void *) = r->done;
  void *done_arg = r->arg;
  trak__ui_runner_release(r);
  done(done_arg);
  return NULL;
}

int trak__ui_runner_start(trak_ui_runner *r, trak_ui_job *job, void (*done)(void *), void *arg) {
  int rc = trak__ui_runner_acquire(r);
  if (rc) return rc;
  r->job = job, r->done = done, r->arg = arg;
  atomic_store(&r->cancel, 0);
  pthread_mutex_lock(&r->lock);
  if (pthread_create(&r->thread, NULL, run, r)) {
    r->busy = 0;
    pthread_mutex_unlock(&r->lock);
    return TRAK_ENOMEM;
  }
  r->joinable = 1;
  pthread_mutex_unlock(&r->lock);
  return 0;
}

int trak__ui_runner_cancel(trak_ui_runner *r) {
  pthread_mutex_lock(&r->lock);
  int running = r->busy && r->joinable;
  if (running) {
    atomic_store(&r->cancel, 1);
    trak_processor_interrupt(r->p);
  }
  pthread_mutex_unlock(&r->lock);
  return running;
}

void trak__ui_runner_close(trak_ui_runner *r) {
  if (!r) return;
  trak__ui_runner_cancel(r);
  pthread_mutex_lock(&r->lock);
  int join = r->joinable;
  r->joinable = 0;
  r->busy = 1; /* closed: nothing starts any more */
  pthread_mutex_unlock(&r->lock);
  if (join) pthread_join(r->thread, NULL);
}

void trak__ui_runner_free(trak_ui_runner *r) {
  if (!r) return;
  trak__ui_runner_close(r);
  pthread_mutex_destroy(&r->lock);
  free(r);
}
