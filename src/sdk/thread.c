/*
** Threads and process state: the per-thread state behind the event path (created on a
** thread's first event, released by a TLS destructor so an exiting thread hands its chunks
** back complete), the global lock, trak_init(), fork handling (a child starts with tracing off)
** and the grace period a stopping session waits for so no thread still writes into it.
**
** Grace period. An event sets its thread's `busy` flag with a plain store, then reads category
** masks. trak_session_stop() clears the masks, runs membarrier() (a full fence on every thread
** of the process) and then waits for busy flags to drop: either the writer saw the cleared mask
** or the stopper sees it busy. Without membarrier it falls back to a short sleep.
*/
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/membarrier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sdk/backend.h"
#include "trak/system.h"

__thread trak__thread *trak__tls __attribute__((tls_model("initial-exec")));
pthread_mutex_t trak__lock = PTHREAD_MUTEX_INITIALIZER;
pid_t trak__pid;

static trak__thread *threads; /* registered threads, under trak__lock */
static pthread_key_t thread_key;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int have_membarrier;
static uint64_t process_uuid;

static uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

/* The process's start time in clock ticks since boot (/proc/self/stat field 22), or 0. */
static uint64_t process_start_time(void) {
  char buf[1024];
  int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC); /* no stdio: also runs after fork */
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  char *p = strrchr(buf, ')');      /* the command name may hold spaces and parentheses */
  for (int i = 0; i < 20 && p; i++) /* to the space before field 3, 4, ..., 22 */
    p = strchr(p + 1, ' ');
  return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* The process track's uuid as Perfetto's SDK computes it, so that trak and Perfetto in one
** process put their events on the same process and thread tracks: FNV-1a over the start time
** (8 bytes, little-endian) then the pid (4 bytes). Without /proc, a value unique to this run. */
static uint64_t perfetto_process_uuid(pid_t pid) {
  uint64_t start = process_start_time();
  if (!start) start = mix64(((uint64_t)pid << 32) ^ trak__boottime() ^ 0x7472616bull);
  uint8_t bytes[12];
  uint32_t upid = (uint32_t)pid;
  for (int i = 0; i < 8; i++)
    bytes[i] = (uint8_t)(start >> (8 * i));
  for (int i = 0; i < 4; i++)
    bytes[8 + i] = (uint8_t)(upid >> (8 * i));
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < sizeof bytes; i++)
    h = (h ^ bytes[i]) * 0x100000001b3ull;
  return h;
}

static void new_process_identity(void) {
  trak__pid = getpid();
  process_uuid = perfetto_process_uuid(trak__pid);
}

/* A thread track's uuid, as Perfetto's ThreadTrack: the tid xor the process track's uuid. */
static uint64_t thread_uuid(pid_t tid) {
  return (uint64_t)(uint32_t)tid ^ process_uuid;
}

uint64_t trak__process_uuid(void) {
  return process_uuid;
}

static void thread_destroy(void *arg) {
  trak__thread *t = arg;
  pthread_mutex_lock(&trak__lock);
  for (int i = 0; i < TRAK_MAX_SESSIONS; i++)
    trak__writer_release(&t->w[i]);
  for (int d = 0; d < TRAK__MAX_DS; d++) {
    for (int i = 0; t->dsw[d] && i < TRAK_MAX_SESSIONS; i++)
      trak__writer_release(&t->dsw[d][i]);
    free(t->dsw[d]);
  }
  if (t->prev)
    t->prev->next = t->next;
  else
    threads = t->next;
  if (t->next) t->next->prev = t->prev;
  pthread_mutex_unlock(&trak__lock);
  trak_pb_buf_free(&t->scratch);
  trak_pb_buf_free(&t->interned);
  trak__tls = NULL;
  free(t);
}

static void register_membarrier(void) {
  have_membarrier = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) == 0;
}

/* Locks other threads might hold across fork() are taken first, so the child inherits them
** in a known state. */
static void fork_prepare(void) {
  pthread_mutex_lock(&trak__lock);
  trak__track_lock(1);
}
static void fork_parent(void) {
  trak__track_lock(0);
  pthread_mutex_unlock(&trak__lock);
}
static void fork_child(void) {
  trak__track_lock(0);
  pthread_mutex_init(&trak__lock, NULL);
  register_membarrier(); /* the registration belongs to the parent's address space */
  new_process_identity();
  trak__sessions_after_fork();
  trak__threads_after_fork();
}

static void init_once_fn(void) {
  new_process_identity();
  trak__clock_init();
  pthread_key_create(&thread_key, thread_destroy);
  pthread_atfork(fork_prepare, fork_parent, fork_child);
  register_membarrier();
}

void trak__init_core(void) {
  pthread_once(&init_once, init_once_fn);
}

int trak__backend_no_autostart;

/* TRAK_BACKEND=system makes this process a producer of the system daemon on first use. The SDK
** asks the backend through its public API, so sdk/ never calls into system/'s internals. */
static void backend_autostart(void) {
  const char *backend = getenv("TRAK_BACKEND");
  if (!trak__backend_no_autostart && backend && !strcmp(backend, "system"))
    trak_system_connect(NULL);
}

int trak_init(void) {
  static pthread_once_t backend_once = PTHREAD_ONCE_INIT;
  pthread_once(&init_once, init_once_fn);
  pthread_once(&backend_once, backend_autostart);
  return 0;
}

trak__thread *trak__thread_get_slow(void) {
  trak_init();
  trak__thread *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->tid = (pid_t)syscall(SYS_gettid);
  t->uuid = thread_uuid(t->tid);
  if (pthread_getname_np(pthread_self(), t->name, sizeof t->name) != 0) t->name[0] = 0;
  trak_pb_buf_init_heap(&t->scratch);
  trak_pb_buf_init_heap(&t->interned);
  pthread_mutex_lock(&trak__lock);
  t->next = threads;
  if (threads) threads->prev = t;
  threads = t;
  pthread_mutex_unlock(&trak__lock);
  pthread_setspecific(thread_key, t);
  trak__tls = t;
  return t;
}

void trak__threads_wait_idle(void) {
  if (!have_membarrier || syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0) != 0)
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  for (trak__thread *t = threads; t; t = t->next)
    while (atomic_load_explicit(&t->busy, memory_order_acquire))
      sched_yield();
}

/* Drops a writer's state without retiring its chunk (a forked child's copy). */
static void forget_writer(trak__writer *w) {
  trak__writer_forget_state(w);
  free(w->tab);
  free(w->tracks);
  uint8_t ds = w->ds;
  memset(w, 0, sizeof *w);
  w->ds = ds;
}

/* In the child only the forking thread survives: forget the others (their memory is the
** parent's copy) and give this one a fresh identity. Writers rebind because every slot's
** generation changed. */
void trak__threads_after_fork(void) {
  threads = NULL;
  trak__thread *t = trak__tls;
  if (!t) return;
  t->next = t->prev = NULL;
  threads = t;
  t->tid = (pid_t)syscall(SYS_gettid);
  t->uuid = thread_uuid(t->tid);
  for (int i = 0; i < TRAK_MAX_SESSIONS; i++)
    forget_writer(&t->w[i]);
  for (int d = 0; d < TRAK__MAX_DS; d++)
    for (int i = 0; t->dsw[d] && i < TRAK_MAX_SESSIONS; i++)
      forget_writer(&t->dsw[d][i]);
}

trak_track trak_track_thread(void) {
  trak__thread *t = trak__thread_get();
  return t ? t->uuid : 0;
}

trak_track trak_track_process(void) {
  trak_init();
  return process_uuid;
}

void trak_thread_set_name(const char *name) {
  trak__thread *t = trak__thread_get();
  if (!t) return;
  snprintf(t->name, sizeof t->name, "%s", name);
  /* Restart every sequence of this thread so its next packet carries the new descriptor. */
  for (int i = 0; i < TRAK_MAX_SESSIONS; i++) {
    t->w[i].need_clear = 1;
    t->w[i].next_clear_ts = 0;
  }
}
