/*
** Thread and process identity (threads.c), Perfetto's model: processes by pid, threads by
** (pid, tid), pid and tid reuse, the idle rows, each machine's own ids; and their names by
** priority and the process args collected from descriptors (proto/chrome_descriptors.c).
*/
#ifndef TRAK_PROCESSOR_IMPORT_THREADS_H
#define TRAK_PROCESSOR_IMPORT_THREADS_H

#include <stdint.h>
#include "processor/tables/storage.h"

typedef struct trak_importer trak_importer;

/* A process arg collected from descriptors, written at the end (chrome_descriptors.c). */
typedef struct trak_owner_arg {
  uint32_t upid, flat, key;
  uint8_t type;          /* trak_arg_type */
  int64_t int_value, ts; /* ts: of the descriptor's packet, which orders the values */
  uint32_t str;
} trak_owner_arg;

/* What named a process or thread row: the name's priority and its packet's timestamp. */
typedef struct trak_name_mark {
  uint32_t prio;
  int64_t ts;
} trak_name_mark;

typedef TRAK_VEC(trak_name_mark) trak_name_marks;

/* Whether a name of priority `p` from a packet at `ts` replaces the name mark `m` stands for (it
** has a lower priority, or the same from a packet not later): then `m` becomes the new name's. */
static inline int trak__name_mark_take(trak_name_mark *m, uint32_t p, int64_t ts) {
  if (p < m->prio || (p == m->prio && ts < m->ts)) return 0;
  m->prio = p;
  m->ts = ts;
  return 1;
}

/* The earliest event (timestamp, then file order) that names a thread (JSON traces). */
typedef struct trak_first_use {
  int64_t ts;
  uint64_t index; /* UINT64_MAX: none */
} trak_first_use;

/* A remembered answer of trak__thread_for_tid(tid, -1) (threads.c): valid while `gen` is the
** import's (every change to the tid and pid indexes or a thread's process makes a new one). */
typedef struct trak_tid_memo {
  uint64_t gen; /* 0: empty */
  int64_t tid;
  uint32_t machine, utid;
} trak_tid_memo;

/* The threads and processes of one import (threads.c owns them; imp->threads). */
typedef struct trak_threads {
  trak_map tid_index, pid_index; /* machine-keyed tid -> newest utid, pid -> live upid */
  TRAK_VEC(uint32_t) prev;       /* utid -> the previous utid with its tid */
  uint32_t machine;              /* machine table row of the packet being tokenized (0: host) */
  TRAK_VEC(trak_first_use) first_use;           /* JSON: utid -> its earliest event */
  /* upid / utid -> what named the row ({0, INT64_MIN} for rows not named yet) */
  trak_name_marks process_marks, thread_marks;
  uint64_t gen;         /* counts changes to who a tid finds (threads.c) */
  trak_tid_memo *memo;  /* TRAK_TID_MEMO entries by tid, made on first use */
  TRAK_VEC(trak_owner_arg) process_args;        /* process args collected, written at the end */
  TRAK_VEC(uint32_t) process_commit; /* the upids with args, in the order Perfetto commits them */
  trak_map
      tree_seen; /* upid, or utid | 1 << 32 -> 1 + index in tree_ts: the first tree naming it */
  TRAK_VEC(int64_t) tree_ts; /* the time of each process tree that named a row */
  /* Bindings waiting for a process: two threads of one process (a clone), and a forked
  ** process's parent thread (pairs of utid, utid / utid, upid). */
  TRAK_VEC(uint64_t) pending_threads, pending_parents;
} trak_threads;

/* Entries of trak_threads.memo (a power of two). */
#define TRAK_TID_MEMO 1024

/* The memo's answer of trak__thread_for_tid(tid, -1), or TRAK_NULL_U32 when it has none (ask
** trak__thread_for_tid): inline for the kernel's records, which ask it several times each. */
static inline uint32_t trak__tid_memo_get(const trak_threads *th, int64_t tid) {
  const trak_tid_memo *m = th->memo ? &th->memo[(uint64_t)tid & (TRAK_TID_MEMO - 1)] : NULL;
  return m && m->gen == th->gen + 1 && m->tid == tid && m->machine == th->machine ? m->utid
                                                                                  : TRAK_NULL_U32;
}

/* Thread and process identity (threads.c), Perfetto's model. None of these can fail. */
/* Adds utid 0 / upid 0, the idle rows (pid 0, tid 0, "swapper"), as Perfetto's are. */
void trak__threads_init(trak_importer *imp);
/* The live process with `pid`, made on first use together with its main thread (tid == pid). */
uint32_t trak__process_for_pid(trak_importer *imp, int64_t pid);
/* The live process with `pid`, made on first use without a main thread (a kernel's process tree
** that says which thread is main: generic_kernel.c). */
uint32_t trak__process_for_pid_bare(trak_importer *imp, int64_t pid);
/* The live thread `tid` of process `upid` (or of none yet: it joins `upid`), made on first use;
** its is_main_thread is left to the caller. */
uint32_t trak__thread_in_process(trak_importer *imp, int64_t tid, uint32_t upid);
/* A new process for `pid` (the pid was reused): the old one and its threads end. */
uint32_t trak__process_start_new(trak_importer *imp, int64_t pid);
/* Threads `a` and `b` are of one process (one cloned the other): if one has a process the other
** joins it, else the pair waits until one of them gets a process, and then both (and every
** thread waiting on them) join it. Threads of two different processes stay as they are and
** count process_tracker_errors. Perfetto's rule. */
void trak__threads_associate(trak_importer *imp, uint32_t a, uint32_t b);
/* Process `upid` was forked by thread `parent_utid`: its parent is that thread's process, now
** or once the thread gets one. */
void trak__process_parent_thread(trak_importer *imp, uint32_t upid, uint32_t parent_utid);
/* A process tree at `ts` (its packet's time) names process `upid` / thread `utid`. A tree read
** before the trace's first kernel event is applied at once, not in time order with the kernel
** events (ftrace/process_events.c queues later ones): see trak__process_fork. */
void trak__process_in_tree(trak_importer *imp, uint32_t upid, int64_t ts);
void trak__thread_in_tree(trak_importer *imp, uint32_t utid, int64_t ts);
/* The process a fork of `pid` at `ts` starts: a new one (trak__process_start_new), unless the
** live process with `pid` was first named by a process tree later than `ts` and no event has
** started it. In Perfetto's time order the fork comes first and that tree then finds the
** process the fork made, so the fork takes that row (its start_ts is set by the caller). */
uint32_t trak__process_fork(trak_importer *imp, int64_t pid, int64_t ts);
/* The thread a clone of thread `tid` into process `pid` at `ts` starts: as trak__process_fork
** for threads (trak__thread_start_new, or the live thread a later tree named). */
uint32_t trak__thread_clone(trak_importer *imp, int64_t tid, int64_t pid, int64_t ts);
/* The live thread (pid, tid), made on first use (with its process); with pid < 0 (unknown),
** the newest live thread with `tid` in any process, or a new one with no process. */
uint32_t trak__thread_for_tid(trak_importer *imp, int64_t tid, int64_t pid);
/* 1 when thread `utid` may still run, by Perfetto's rule (IsThreadAlive): it has no end_ts,
** and it has no process, or its process has no end_ts and still owns its pid. */
int trak__thread_is_alive(const trak_importer *imp, uint32_t utid);
/* The newest live thread with `tid`, or TRAK_NULL_U32 (nothing is made). */
uint32_t trak__thread_lookup(const trak_importer *imp, int64_t tid);
/* The live thread with `tid` ended at `ts` (sched_process_free): its end_ts is set and a later
** use of the tid finds a new thread; when it is its process's main thread, the process ends
** too (end_ts; its pid then finds a new process). Returns the utid, or TRAK_NULL_U32 when no
** thread with the tid is live (nothing is made). */
uint32_t trak__thread_end(trak_importer *imp, int64_t tid, int64_t ts);
/* A new thread (pid, tid) even if one is live (the tid was reused). */
uint32_t trak__thread_start_new(trak_importer *imp, int64_t tid, int64_t pid);

/* Makes the machine of a packet (TracePacket.machine_id, if it has one) the current one,
** adding its machine row and idle thread and process the first time (threads.c). */
void trak__machine_switch(trak_importer *imp, int has_id, uint64_t raw_id) __attribute__((cold));

/* JSON traces (threads.c): event `index` at `ts` names thread `utid`. Perfetto sorts JSON
** events by timestamp before it makes their threads and processes, so when the import ends
** trak__threads_json_order renumbers utids and upids in the order of their earliest events. */
void trak__thread_seen_slow(trak_importer *imp, uint32_t utid, int64_t ts, uint64_t index);
void trak__threads_json_order(trak_importer *imp);

/* Who named a thread (Perfetto's ThreadNamePriority): a name replaces one of lower priority. */
typedef enum trak_thread_name_prio {
  TRAK_THREAD_NAME_OTHER = 0,
  TRAK_THREAD_NAME_KERNEL = 1,       /* ftrace / kernel task names */
  TRAK_THREAD_NAME_PROCESS_TREE = 2, /* ProcessTree, perf comm */
  TRAK_THREAD_NAME_CHROME_TYPE = 3,  /* ChromeThreadDescriptor's thread type */
  TRAK_THREAD_NAME_DESCRIPTOR = 4,   /* ThreadDescriptor.thread_name */
  TRAK_THREAD_NAME_CONSTANT = 5      /* a name the processor gives ("swapper"): above all */
} trak_thread_name_prio;
/* Who named a process (Perfetto's ProcessNamePriority). */
typedef enum trak_process_name_prio {
  TRAK_PROCESS_NAME_OTHER = 0,
  TRAK_PROCESS_NAME_CHROME_LABEL = 1,    /* ChromeProcessDescriptor's process type */
  TRAK_PROCESS_NAME_DESCRIPTOR = 2,      /* ProcessDescriptor.process_name */
  TRAK_PROCESS_NAME_CHROME_RENDERER = 3, /* the same, for a renderer */
  TRAK_PROCESS_NAME_SYSTEM = 4           /* ProcessTree, /proc */
} trak_process_name_prio;

/* Names and process args (threads.c). A name is set by Perfetto's priorities: it replaces one
** of lower priority, or of equal priority from a descriptor packet not later than the current
** one (imp->descriptor_ts); name 0 changes nothing. Process args are collected and written by
** trak__process_args_flush at the end of the import, one arg set per process. None can fail. */
void trak__process_name_set(trak_importer *imp, uint32_t upid, uint32_t name,
                            trak_process_name_prio prio);
void trak__thread_name_set(trak_importer *imp, uint32_t utid, uint32_t name,
                           trak_thread_name_prio prio);
void trak__process_arg(trak_importer *imp, uint32_t upid, uint32_t flat, uint32_t key,
                       trak_arg_type type, int64_t int_value, uint32_t str);
void trak__process_args_flush(trak_importer *imp);

/* The names Perfetto gives Chromium's process and thread types (a string id, 0 for none:
** unspecified or unknown types) (chrome_names.c). */
uint32_t trak__chrome_process_name(trak_importer *imp, int32_t type);
uint32_t trak__chrome_thread_name(trak_importer *imp, int32_t type);

/* TracePacket.process_tree (implemented in proto/process_tree.c): processes (with a command
** line) and their parents, names, command lines and uids; threads, their processes, names. */
void trak__process_tree(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                        size_t len) __attribute__((cold));
/* TracePacket.process_stats (implemented in proto/process_stats.c): each process's /proc figures
** (memory, smaps rollup, oom_score_adj, run time) and Chrome's become counters at the packet's
** time (ctx->ts, ctx->seq takes the records) on the process's tracks, its listed threads join
** it, is_peak_rss_resettable becomes a process arg. Fields without a counter are counted;
** nothing fails. */
void trak__process_stats(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data, size_t len);

/* Frees what imp->threads holds (the rows stay in the tables). */
void trak__threads_free(trak_threads *th);

#endif /* TRAK_PROCESSOR_IMPORT_THREADS_H */
