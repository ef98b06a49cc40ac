/*
** This file holds thread and process identity, Perfetto's model: a process is found by pid and
** a thread by (pid, tid); creating a process creates its main thread (tid == pid) at once; a
** new process for a pid (pid reuse) ends the old one and all its threads; utid 0 / upid 0 are
** the idle rows ("swapper", pid 0 / tid 0), which pid 0 and tid 0 of a trace find.
** Each machine of a multi-machine trace (imp->threads.machine, the current packet's) has its
** own pids and tids and its own idle rows, as in Perfetto: the indexes key ids with the machine.
** Also the rows' names, set by priority (trak_thread_name_prio, trak_process_name_prio), and the
** process args descriptors give, collected and written once per process at the end.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/importer.h"
#include "processor/tables/arg_value.h"
#include "processor/tables/thread_state_cols.h"
#include "processor/util/two_threads.h"

/* The index key of a pid or tid on a machine (the host's keys are the ids themselves). */
static inline uint64_t id_key(uint32_t machine, int64_t id) {
  return (uint64_t)id ^ ((uint64_t)machine << 56);
}

/* Who a tid finds may have changed (a thread or process made or ended, a thread given a
** process): the memo of trak__thread_for_tid's answers no longer holds. */
static inline void changed(trak_importer *imp) {
  imp->threads.gen++;
}

/* Every thread with a given tid, newest first: tid_index holds the newest utid, thread_prev
** links each to the one before it (TRAK_NULL_U32 ends the chain). */
static uint32_t thread_new(trak_importer *imp, int64_t tid) {
  changed(imp);
  uint32_t utid = trak__thread_add(imp->tables, tid);
  imp->tables->thread.machine_id[utid] = imp->threads.machine;
  int added;
  uint32_t *head = trak__map_put(&imp->threads.tid_index, id_key(imp->threads.machine, tid),
                                 TRAK_NULL_U32, &added);
  while (imp->threads.prev.n <= utid)
    trak_vec_push(imp->threads.prev, TRAK_NULL_U32);
  imp->threads.prev.v[utid] = *head;
  *head = utid;
  return utid;
}

/* A thread is alive until a new process takes its process's pid. */
static int thread_alive(const trak_importer *imp, uint32_t utid) {
  const trak_tables *t = imp->tables;
  uint32_t upid = t->thread.upid[utid];
  if (upid == TRAK_NULL_U32) return 1;
  uint32_t *live = trak__map_get(&imp->threads.pid_index,
                                 id_key(t->process.machine_id[upid], t->process.pid[upid]));
  return live && *live == upid;
}

int trak__thread_is_alive(const trak_importer *imp, uint32_t utid) {
  const trak_tables *t = imp->tables;
  if (t->thread.end_ts[utid] != INT64_MIN) return 0;
  uint32_t upid = t->thread.upid[utid];
  if (upid == TRAK_NULL_U32) return 1;
  if (t->process.end_ts[upid] != INT64_MIN) return 0;
  uint32_t *live = trak__map_get(&imp->threads.pid_index,
                                 id_key(t->process.machine_id[upid], t->process.pid[upid]));
  return !live || *live == TRAK_NULL_U32 || *live == upid;
}

/* The newest live thread with `tid` whose process is unknown or has `pid` (any process when
** pid < 0), or TRAK_NULL_U32. */
static uint32_t thread_find(const trak_importer *imp, int64_t tid, int64_t pid) {
  const trak_tables *t = imp->tables;
  uint32_t *head = trak__map_get(&imp->threads.tid_index, id_key(imp->threads.machine, tid));
  for (uint32_t u = head ? *head : TRAK_NULL_U32; u != TRAK_NULL_U32; u = imp->threads.prev.v[u]) {
    if (!thread_alive(imp, u)) continue;
    uint32_t upid = t->thread.upid[u];
    if (pid < 0 || upid == TRAK_NULL_U32 || t->process.pid[upid] == pid) return u;
  }
  return TRAK_NULL_U32;
}

/* The live process with `pid`, made on first use (*made = 1) without any thread. */
static uint32_t process_get(trak_importer *imp, int64_t pid, int *made) {
  int added;
  uint32_t *slot =
      trak__map_put(&imp->threads.pid_index, id_key(imp->threads.machine, pid), 0, &added);
  *made = added || *slot == TRAK_NULL_U32;
  if (!*made) return *slot;
  changed(imp);
  uint32_t upid = trak__process_add(imp->tables, pid);
  imp->tables->process.machine_id[upid] = imp->threads.machine;
  *slot = upid;
  return upid;
}

uint32_t trak__process_for_pid(trak_importer *imp, int64_t pid) {
  int made;
  uint32_t upid = process_get(imp, pid, &made);
  if (made) trak__thread_for_tid(imp, pid, pid); /* the main thread, right after its process */
  return upid;
}

uint32_t trak__process_for_pid_bare(trak_importer *imp, int64_t pid) {
  int made;
  return process_get(imp, pid, &made);
}

uint32_t trak__process_start_new(trak_importer *imp, int64_t pid) {
  int added;
  uint32_t *slot =
      trak__map_put(&imp->threads.pid_index, id_key(imp->threads.machine, pid), 0, &added);
  /* The old process and its threads end: its pid no longer finds it (so its threads are no
  ** longer alive), and no thread with tid == pid survives, as the pid is the new main's. */
  changed(imp);
  *slot = trak__process_add(imp->tables, pid);
  uint32_t upid = *slot;
  imp->tables->process.machine_id[upid] = imp->threads.machine;
  uint32_t *head = trak__map_get(&imp->threads.tid_index, id_key(imp->threads.machine, pid));
  if (head) *head = TRAK_NULL_U32;
  uint32_t main = thread_new(imp, pid);
  imp->tables->thread.upid[main] = upid;
  imp->tables->thread.is_main[main] = 1;
  return upid;
}

/* Process-tree marks: keys are upids, and utids with this bit. */
#define TREE_THREAD (1ull << 32)

static void tree_mark(trak_importer *imp, uint64_t key, int64_t ts) {
  int added;
  uint32_t *slot = trak__map_put(&imp->threads.tree_seen, key, 0, &added);
  if (!added) return; /* the first tree is the one time order meets first */
  trak_vec_push(imp->threads.tree_ts, ts);
  *slot = (uint32_t)imp->threads.tree_ts.n;
}

/* Was live row `row` (or TRAK_NULL_U32), marked under `key`, first named by a tree later than
** `ts`, with no start_ts from an event (`start` is INT64_MIN)? */
static int tree_made_later(const trak_importer *imp, uint32_t row, uint64_t key, int64_t start,
                           int64_t ts) {
  if (row == TRAK_NULL_U32 || start != INT64_MIN) return 0;
  const uint32_t *tree = trak__map_get(&imp->threads.tree_seen, key);
  return tree && imp->threads.tree_ts.v[*tree - 1] > ts;
}

void trak__process_in_tree(trak_importer *imp, uint32_t upid, int64_t ts) {
  tree_mark(imp, upid, ts);
}

void trak__thread_in_tree(trak_importer *imp, uint32_t utid, int64_t ts) {
  tree_mark(imp, utid | TREE_THREAD, ts);
}

uint32_t trak__process_fork(trak_importer *imp, int64_t pid, int64_t ts) {
  uint32_t *live = trak__map_get(&imp->threads.pid_index, id_key(imp->threads.machine, pid));
  uint32_t upid = live ? *live : TRAK_NULL_U32;
  int64_t start = upid != TRAK_NULL_U32 ? imp->tables->process.start_ts[upid] : 0;
  return tree_made_later(imp, upid, upid, start, ts) ? upid : trak__process_start_new(imp, pid);
}

uint32_t trak__thread_clone(trak_importer *imp, int64_t tid, int64_t pid, int64_t ts) {
  uint32_t utid = trak__thread_lookup(imp, tid);
  int64_t start = utid != TRAK_NULL_U32 ? imp->tables->thread.start_ts[utid] : 0;
  if (tree_made_later(imp, utid, utid | TREE_THREAD, start, ts))
    return trak__thread_for_tid(imp, tid, pid);
  return trak__thread_start_new(imp, tid, pid);
}

static uint64_t pair(uint32_t a, uint32_t b) {
  return (uint64_t)a << 32 | b;
}

/* Thread `utid`, now of process `upid`, takes with it every binding waiting on it: the
** threads paired with it join the process (and in turn theirs), and the processes it forked
** get their parent. */
static void pending_resolve(trak_importer *imp, uint32_t utid, uint32_t upid) {
  trak_threads *th = &imp->threads;
  trak_tables *t = imp->tables;
  if (!th->pending_threads.n && !th->pending_parents.n) return;
  TRAK_VEC(uint32_t) todo = {0};
  trak_vec_push(todo, utid);
  while (todo.n) {
    uint32_t u = todo.v[--todo.n];
    for (size_t i = 0; i < th->pending_parents.n;) {
      uint64_t e = th->pending_parents.v[i];
      if ((uint32_t)(e >> 32) != u) {
        i++;
        continue;
      }
      t->process.parent_upid[(uint32_t)e] = upid;
      th->pending_parents.v[i] = th->pending_parents.v[--th->pending_parents.n];
    }
    for (size_t i = 0; i < th->pending_threads.n;) {
      uint64_t e = th->pending_threads.v[i];
      uint32_t a = (uint32_t)(e >> 32), b = (uint32_t)e;
      if (a != u && b != u) {
        i++;
        continue;
      }
      uint32_t other = a == u ? b : a;
      changed(imp);
      t->thread.upid[other] = upid;
      t->thread.is_main[other] = t->thread.tid[other] == t->process.pid[upid];
      th->pending_threads.v[i] = th->pending_threads.v[--th->pending_threads.n];
      trak_vec_push(todo, other);
    }
  }
  free(todo.v);
}

void trak__threads_associate(trak_importer *imp, uint32_t a, uint32_t b) {
  trak_tables *t = imp->tables;
  uint32_t pa = t->thread.upid[a], pb = t->thread.upid[b];
  if (pa != TRAK_NULL_U32 && pb == TRAK_NULL_U32) {
    changed(imp);
    t->thread.upid[b] = pa;
    t->thread.is_main[b] = t->thread.tid[b] == t->process.pid[pa];
    pending_resolve(imp, b, pa);
  } else if (pb != TRAK_NULL_U32 && pa == TRAK_NULL_U32) {
    changed(imp);
    t->thread.upid[a] = pb;
    t->thread.is_main[a] = t->thread.tid[a] == t->process.pid[pb];
    pending_resolve(imp, a, pb);
  } else if (pa != pb) {
    trak__report(imp, TRAK_STAT_PROCESS_TRACKER_ERRORS,
                 "threads %lld and %lld cloned one another but are of different processes",
                 (long long)t->thread.tid[a], (long long)t->thread.tid[b]);
  } else if (pa == TRAK_NULL_U32) {
    trak_vec_push(imp->threads.pending_threads, pair(a, b));
  }
}

void trak__process_parent_thread(trak_importer *imp, uint32_t upid, uint32_t parent_utid) {
  trak_tables *t = imp->tables;
  uint32_t parent = t->thread.upid[parent_utid];
  if (parent != TRAK_NULL_U32)
    t->process.parent_upid[upid] = parent;
  else
    trak_vec_push(imp->threads.pending_parents, pair(parent_utid, upid));
}

/* trak__thread_for_tid(tid, -1): the memo's answer while nothing it depends on changed (the
** kernel's events look the same few tids up again and again), else found (or made) and kept. */
static uint32_t thread_for_tid_any(trak_importer *imp, int64_t tid) {
  trak_threads *th = &imp->threads;
  if (TRAK_UNLIKELY(!th->memo) && !(th->memo = calloc(TRAK_TID_MEMO, sizeof *th->memo))) abort();
  uint32_t utid = trak__tid_memo_get(th, tid);
  if (utid != TRAK_NULL_U32) return utid;
  trak_tid_memo *m = &th->memo[(uint64_t)tid & (TRAK_TID_MEMO - 1)];
  utid = thread_find(imp, tid, -1);
  if (utid == TRAK_NULL_U32) utid = thread_new(imp, tid);
  *m = (trak_tid_memo){th->gen + 1, tid, th->machine, utid};
  return utid;
}

uint32_t trak__thread_for_tid(trak_importer *imp, int64_t tid, int64_t pid) {
  if (pid < 0) return thread_for_tid_any(imp, tid);
  uint32_t upid = trak__process_for_pid(imp, pid);
  uint32_t utid = thread_find(imp, tid, pid);
  if (utid == TRAK_NULL_U32) utid = thread_new(imp, tid);
  trak_tables *t = imp->tables;
  if (t->thread.upid[utid] == TRAK_NULL_U32) {
    changed(imp);
    t->thread.upid[utid] = upid;
    t->thread.is_main[utid] = tid == pid;
  }
  pending_resolve(imp, utid, t->thread.upid[utid]);
  return utid;
}

uint32_t trak__thread_in_process(trak_importer *imp, int64_t tid, uint32_t upid) {
  trak_tables *t = imp->tables;
  uint32_t utid = thread_find(imp, tid, t->process.pid[upid]);
  if (utid == TRAK_NULL_U32) utid = thread_new(imp, tid);
  if (t->thread.upid[utid] == TRAK_NULL_U32) {
    changed(imp);
    t->thread.upid[utid] = upid;
  }
  pending_resolve(imp, utid, t->thread.upid[utid]);
  return utid;
}

uint32_t trak__thread_lookup(const trak_importer *imp, int64_t tid) {
  return thread_find(imp, tid, -1);
}

uint32_t trak__thread_end(trak_importer *imp, int64_t tid, int64_t ts) {
  uint32_t utid = thread_find(imp, tid, -1);
  if (utid == TRAK_NULL_U32) return utid;
  changed(imp);
  trak_tables *t = imp->tables;
  t->thread.end_ts[utid] = ts;
  uint32_t *head = trak__map_get(&imp->threads.tid_index, id_key(imp->threads.machine, tid));
  if (head && *head == utid) *head = imp->threads.prev.v[utid];
  uint32_t upid = t->thread.upid[utid];
  if (upid == TRAK_NULL_U32 || t->process.pid[upid] != tid) return utid;
  /* the main thread ends last (the kernel keeps the leader until the group is dead) */
  t->process.end_ts[upid] = ts;
  uint64_t key = id_key(imp->threads.machine, tid);
  uint32_t *live = trak__map_get(&imp->threads.pid_index, key);
  if (live && *live == upid) *live = TRAK_NULL_U32; /* no live process has the pid */
  return utid;
}

uint32_t trak__thread_start_new(trak_importer *imp, int64_t tid, int64_t pid) {
  thread_new(imp, tid);
  return trak__thread_for_tid(imp, tid, pid);
}

/* The idle process and thread ("swapper", pid 0 / tid 0) of the current machine. */
static void idle_rows(trak_importer *imp) {
  changed(imp);
  trak_tables *t = imp->tables;
  uint32_t upid = trak__process_add(t, 0);
  uint32_t utid = trak__thread_add(t, 0);
  t->process.machine_id[upid] = t->thread.machine_id[utid] = imp->threads.machine;
  while (imp->threads.prev.n <= utid)
    trak_vec_push(imp->threads.prev, TRAK_NULL_U32);
  t->thread.upid[utid] = upid;
  t->thread.is_main[utid] = 1;
  t->thread.is_idle[utid] = 1;
  trak__thread_name_set(imp, utid, trak__strpool_intern(&t->strings, "swapper", 7),
                        TRAK_THREAD_NAME_CONSTANT);
  int added;
  *trak__map_put(&imp->threads.pid_index, id_key(imp->threads.machine, 0), 0, &added) = upid;
  *trak__map_put(&imp->threads.tid_index, id_key(imp->threads.machine, 0), 0, &added) = utid;
}

void trak__threads_init(trak_importer *imp) {
  imp->threads.machine = trak__machine_add(imp->tables, 0); /* the host */
  idle_rows(imp);
}

void trak__machine_switch(trak_importer *imp, int has_id, uint64_t raw_id) {
  trak_tables *t = imp->tables;
  /* The host row takes the first packet's machine_id (a trace recorded on a guest only). */
  if (has_id && imp->packet_index == 0 && t->machine.n == 1 && raw_id)
    t->machine.raw_id[0] = (int64_t)raw_id, t->machine.label_index[0] = 1;
  uint32_t m = 0;
  if (has_id && (int64_t)raw_id != t->machine.raw_id[0]) {
    for (m = 1; m < t->machine.n && t->machine.raw_id[m] != (int64_t)raw_id; m++)
      ;
    if (m == t->machine.n) {
      imp->threads.machine = trak__machine_add(t, (int64_t)raw_id);
      idle_rows(imp);
    }
  }
  imp->threads.machine = m;
}

void trak__thread_seen_slow(trak_importer *imp, uint32_t utid, int64_t ts, uint64_t index) {
  while (imp->threads.first_use.n <= utid)
    trak_vec_push(imp->threads.first_use, ((trak_first_use){INT64_MAX, UINT64_MAX}));
  trak_first_use *f = &imp->threads.first_use.v[utid];
  if (ts < f->ts || (ts == f->ts && index < f->index)) *f = (trak_first_use){ts, index};
}

/* A row's place in the new numbering: its creating event, then (for a process's main thread,
** made with the process) rank 0 before the process's other threads, then its old id. */
typedef struct row_key {
  trak_first_use at;
  uint32_t rank, old;
} row_key;

static int row_key_cmp(const void *pa, const void *pb) {
  const row_key *a = pa, *b = pb;
  if (a->at.ts != b->at.ts) return a->at.ts < b->at.ts ? -1 : 1;
  if (a->at.index != b->at.index) return a->at.index < b->at.index ? -1 : 1;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return a->old < b->old ? -1 : a->old > b->old;
}

static int first_before(trak_first_use a, trak_first_use b) {
  return a.ts < b.ts || (a.ts == b.ts && a.index < b.index);
}

/* Sorts `keys` and returns old id -> new id (malloc'd). */
static uint32_t *new_ids(row_key *keys, size_t n) {
  qsort(keys, n, sizeof *keys, row_key_cmp);
  uint32_t *map = malloc((n ? n : 1) * sizeof *map);
  if (!map) abort();
  for (size_t i = 0; i < n; i++)
    map[keys[i].old] = (uint32_t)i;
  return map;
}

/* Moves the rows of each column (`sizes`: element sizes) so that row i goes to map[i]. */
static void permute(void *const cols[], const size_t sizes[], size_t ncols, size_t n,
                    const uint32_t *map, char *tmp) {
  for (size_t c = 0; c < ncols; c++) {
    char *col = cols[c];
    for (size_t i = 0; i < n; i++)
      memcpy(tmp + (size_t)map[i] * sizes[c], col + i * sizes[c], sizes[c]);
    memcpy(col, tmp, n * sizes[c]);
  }
}

static uint32_t remap_id(const uint32_t *map, uint32_t id);

/* The scheduling tables' thread columns (filled before the renumbering: systrace text inside
** a JSON trace) follow it. */
static void sched_utids_remap(trak_tables *t, const uint32_t *umap) {
  for (size_t i = 0; i < t->sched_slice.n; i++)
    t->sched_slice.utid[i] = remap_id(umap, t->sched_slice.utid[i]);
  for (size_t i = 0; i < t->thread_state.n; i++) {
    t->thread_state.utid[i] = remap_id(umap, t->thread_state.utid[i]);
    if (trak__ts_aux_kind(t, (uint32_t)i) == TRAK_TS_AUX_WAKER_UTID) /* a waker row's follows */
      t->thread_state.aux[i] = remap_id(umap, t->thread_state.aux[i]);
  }
  for (size_t i = 0; i < t->spurious_wakeup.n; i++) {
    t->spurious_wakeup.utid[i] = remap_id(umap, t->spurious_wakeup.utid[i]);
    t->spurious_wakeup.waker_utid[i] = remap_id(umap, t->spurious_wakeup.waker_utid[i]);
  }
  for (size_t i = 0; i < t->ftrace_event.n; i++)
    t->ftrace_event.utid[i] = remap_id(umap, t->ftrace_event.utid[i]);
}

static uint32_t remap_id(const uint32_t *map, uint32_t id) {
  return id == TRAK_NULL_U32 ? id : map[id];
}

/* The args rows [lo, hi) whose key is "utid" or "upid" (k_utid, k_upid), renumbered. */
typedef struct ids_args {
  trak_tables *t;
  const uint32_t *umap, *pmap;
  size_t nt, np;
  uint32_t k_utid, k_upid;
  size_t lo, hi;
} ids_args;
#define IDS_ARGS_TWO_THREADS ((size_t)1 << 16) /* rows from which the other core takes half */

static void *ids_args_remap(void *arg) {
  const ids_args *a = arg;
  uint64_t *value = a->t->args.value;
  const uint32_t *keys = a->t->args.key;
  const uint8_t *types = a->t->args.value_type;
  for (size_t r = a->lo; r < a->hi; r++) {
    uint64_t *v = &value[r]; /* an integer's word (tables/arg_value.h) is its bits */
    uint32_t key = keys[r];
    if (!key || (key != a->k_utid && key != a->k_upid) || !trak__arg_type_int(types[r])) continue;
    if (key == a->k_utid && *v < a->nt)
      *v = a->umap[*v];
    else if (key == a->k_upid && *v < a->np)
      *v = a->pmap[*v];
  }
  return NULL;
}

void trak__threads_json_order(trak_importer *imp) {
  changed(imp); /* utids and upids are renumbered */
  trak_tables *t = imp->tables;
  size_t nt = t->thread.n, np = t->process.n;
  const trak_first_use none = {INT64_MAX, UINT64_MAX}, idle = {INT64_MIN, 0};
  row_key *tk = malloc((nt ? nt : 1) * sizeof *tk), *pk = malloc((np ? np : 1) * sizeof *pk);
  if (!tk || !pk) abort();
  for (uint32_t p = 0; p < np; p++)
    pk[p] = (row_key){p == 0 ? idle : none, 0, p};
  for (uint32_t u = 0; u < nt; u++) {
    trak_first_use at = u < imp->threads.first_use.n ? imp->threads.first_use.v[u] : none;
    if (t->thread.is_idle[u]) at = idle;
    tk[u] = (row_key){at, 1, u};
    uint32_t p = t->thread.upid[u];
    if (p != TRAK_NULL_U32 && first_before(at, pk[p].at)) pk[p].at = at;
  }
  /* A process's main thread is made with the process, before the thread that made it. */
  for (uint32_t u = 0; u < nt; u++) {
    uint32_t p = t->thread.upid[u];
    if (p != TRAK_NULL_U32 && t->thread.is_main[u] == 1 && !t->thread.is_idle[u])
      tk[u].at = pk[p].at, tk[u].rank = 0;
  }
  uint32_t *umap = new_ids(tk, nt), *pmap = new_ids(pk, np);
  /* Rows no event kept named (those of events dropped for a bad timestamp) sort last and go:
  ** Perfetto never makes them. Unless the trace has kernel data (a systemTraceEvents string):
  ** the Linux event sink's rows name no JSON event, so rows without one are kept, last. */
  size_t kt = nt, kp = np;
  while (!imp->ftrace && kt && tk[kt - 1].at.index == UINT64_MAX)
    kt--;
  while (!imp->ftrace && kp && pk[kp - 1].at.index == UINT64_MAX)
    kp--;
  char *tmp = malloc((nt > np ? nt : np) * 8 + 8);
  if (!tmp) abort();
  for (size_t u = 0; u < nt; u++)
    t->thread.upid[u] = remap_id(pmap, t->thread.upid[u]);
  void *tcols[] = {t->thread.tid,        t->thread.name,     t->thread.upid,
                   t->thread.is_main,    t->thread.is_idle,  t->thread.arg_set_id,
                   t->thread.machine_id, t->thread.start_ts, t->thread.end_ts};
  static const size_t tsizes[] = {8, 4, 4, 1, 1, 4, 4, 8, 8};
  permute(tcols, tsizes, 9, nt, umap, tmp);
  sched_utids_remap(t, umap);
  for (size_t p = 0; p < np; p++)
    t->process.parent_upid[p] = remap_id(pmap, t->process.parent_upid[p]);
  void *pcols[] = {t->process.pid,           t->process.start_ts,
                   t->process.name,          t->process.cmdline,
                   t->process.arg_set_id,    t->process.machine_id,
                   t->process.parent_upid,   t->process.uid,
                   t->process.android_appid, t->process.android_user_id,
                   t->process.end_ts};
  static const size_t psizes[] = {8, 8, 4, 4, 4, 4, 4, 8, 8, 8, 8};
  permute(pcols, psizes, 11, np, pmap, tmp);
  for (size_t r = 0; r < t->track.n; r++) {
    t->track.utid[r] = remap_id(umap, t->track.utid[r]);
    t->track.upid[r] = remap_id(pmap, t->track.upid[r]);
  }
  /* Tracks' dimension and source args name their thread or process by id: half the rows on
  ** each thread when the import has two (the other core is idle now) and they are many. */
  ids_args half[2] = {{t, umap, pmap, nt, np, trak__strpool_find(&t->strings, "utid", 4),
                       trak__strpool_find(&t->strings, "upid", 4), 0, t->args.n / 2}};
  half[1] = half[0], half[1].lo = half[0].hi, half[1].hi = t->args.n;
  trak__run_both(ids_args_remap, &half[0], &half[1],
                 trak__split_threads(imp->prefault ? 2 : 1, t->args.n, IDS_ARGS_TWO_THREADS));
  t->thread.n = kt;
  t->process.n = kp;
  free(tmp);
  free(umap);
  free(pmap);
  free(tk);
  free(pk);
}

/* ---- names and process args ---------------------------------------------------------- */

/* Sets `name` on row `row` of a name column unless the row has a name of higher priority, or
** of the same priority from a later descriptor packet (Perfetto parses them in timestamp
** order). `marks` holds each row's (priority, timestamp); a row not named yet has {0,
** INT64_MIN}, which any name replaces. */
static void set_name(trak_importer *imp, trak_name_marks *marks, uint32_t *names, uint32_t row,
                     uint32_t name, uint32_t p) {
  if (!name) return;
  while (TRAK_UNLIKELY(marks->n <= row))
    trak_vec_push(*marks, ((trak_name_mark){0, INT64_MIN}));
  if (trak__name_mark_take(&marks->v[row], p, imp->descriptor_ts)) names[row] = name;
}

void trak__process_name_set(trak_importer *imp, uint32_t upid, uint32_t name,
                            trak_process_name_prio prio) {
  set_name(imp, &imp->threads.process_marks, imp->tables->process.name, upid, name, prio);
}

void trak__thread_name_set(trak_importer *imp, uint32_t utid, uint32_t name,
                           trak_thread_name_prio prio) {
  set_name(imp, &imp->threads.thread_marks, imp->tables->thread.name, utid, name, prio);
}

void trak__process_arg(trak_importer *imp, uint32_t upid, uint32_t flat, uint32_t key,
                       trak_arg_type type, int64_t int_value, uint32_t str) {
  trak_owner_arg a = {upid, flat, key, (uint8_t)type, int_value, imp->descriptor_ts, str};
  trak_vec_push(imp->threads.process_args, a);
}

/* Orders collected args as Perfetto parses descriptors: by their packets' timestamps, then in
** the order they came in. */
static int by_time(const void *a, const void *b) {
  const trak_owner_arg *x = *(trak_owner_arg *const *)a, *y = *(trak_owner_arg *const *)b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x < y ? -1 : x > y;
}
/* The same, by process first. */
static int by_owner(const void *a, const void *b) {
  const trak_owner_arg *x = *(trak_owner_arg *const *)a, *y = *(trak_owner_arg *const *)b;
  if (x->upid != y->upid) return x->upid < y->upid ? -1 : 1;
  return by_time(a, b);
}

/* Perfetto keeps each process's args in a hash map by upid until its events are all extracted,
** then commits them as it clears the map, slot by slot: the upids in that order, replayed from
** the order each first got an arg (`order`, sorted by time here). */
static void commit_order(trak_importer *imp, trak_owner_arg **order, size_t n) {
  qsort(order, n, sizeof *order, by_time);
  size_t n_procs = imp->tables->process.n;
  uint8_t *seen = calloc(n_procs ? n_procs : 1, 1);
  uint32_t *first = malloc(n * sizeof *first);
  if (!seen || !first) abort();
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t upid = order[i]->upid;
    if (upid < n_procs && !seen[upid]) seen[upid] = 1, first[k++] = upid;
  }
  imp->threads.process_commit.n = 0;
  for (size_t i = 0; i < k; i++)
    trak_vec_push(imp->threads.process_commit, 0);
  trak__arg_order_owner_slots(first, k, imp->threads.process_commit.v);
  free(first);
  free(seen);
}

void trak__process_args_flush(trak_importer *imp) {
  size_t n = imp->threads.process_args.n;
  if (!n) return;
  trak_owner_arg **order = malloc(n * sizeof *order);
  if (!order) abort();
  for (size_t i = 0; i < n; i++)
    order[i] = &imp->threads.process_args.v[i];
  commit_order(imp, order, n);
  qsort(order, n, sizeof *order, by_owner);
  trak_tables *t = imp->tables;
  for (size_t i = 0; i < n;) {
    uint32_t upid = order[i]->upid;
    uint32_t set = (uint32_t)t->args.n;
    uint32_t old = t->process.arg_set_id[upid];
    for (uint32_t r = old; old != TRAK_NULL_U32 && r < set && t->args.arg_set_id[r] == old; r++) {
      uint32_t row = trak__arg_add(t, set, t->args.flat_key[r], t->args.key[r],
                                   (trak_arg_type)t->args.value_type[r]);
      t->args.value[row] = t->args.value[r];
    }
    for (; i < n && order[i]->upid == upid; i++) {
      const trak_owner_arg *a = order[i];
      uint32_t row = trak__arg_add(t, set, a->flat, a->key, (trak_arg_type)a->type);
      t->args.value[row] = trak__arg_word(a->type, a->int_value, 0, a->str);
    }
    t->process.arg_set_id[upid] = trak__args_share(imp, set);
  }
  free(order);
  imp->threads.process_args.n = 0;
}

void trak__threads_free(trak_threads *th) {
  trak__map_free(&th->tid_index);
  trak__map_free(&th->pid_index);
  trak_vec_free(th->process_marks);
  trak_vec_free(th->process_commit);
  trak_vec_free(th->thread_marks);
  free(th->memo);
  trak_vec_free(th->prev);
  trak_vec_free(th->first_use);
  trak_vec_free(th->process_args);
  trak_vec_free(th->pending_threads);
  trak_vec_free(th->pending_parents);
  trak__map_free(&th->tree_seen);
  trak_vec_free(th->tree_ts);
}
