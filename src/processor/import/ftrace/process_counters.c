/*
** This file holds the process counters that kernel events give per thread: rss_stat (and
** rss_stat_throttled) memory figures and oom_score_adj_update. Each value is applied in
** timestamp order with the thread known then (rss_stat's mm_id names the thread whose memory it
** is), and gets its process's counter track only when the queue is done, as Perfetto's event
** tracker resolves them at the end of the trace: a thread still without a process then gets a
** thread fallback track instead.
*/
#include <stdio.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/sequence.h"

/* The counters of TRAK_FQ_PROC_COUNTER records (its `a`): rss_stat's members 0 to 4, then
** "unknown" for any other member, then oom_score_adj. */
#define PC_RSS_UNKNOWN 5u
#define PC_OOM_SCORE_ADJ 6u
static const char *const rss_keys[] = {"rss.file",  "rss.anon",      "swap",
                                       "rss.shmem", "unreclaimable", "unknown"};

void trak__rss_stat(trak_importer *imp, int64_t ts, uint32_t pid, uint32_t member, int64_t size,
                    int curr, int64_t mm_id) {
  trak_fq_rec r = {ts,
                   size,
                   0,
                   pid,
                   member < PC_RSS_UNKNOWN ? member : PC_RSS_UNKNOWN,
                   (uint32_t)(uint64_t)mm_id,
                   (uint32_t)((uint64_t)mm_id >> 32),
                   curr < 0 ? -1 : curr != 0,
                   0,
                   TRAK_FQ_PROC_COUNTER,
                   0,
                   0};
  trak__fq_push(imp, &r);
}

void trak__oom_score_adj(trak_importer *imp, int64_t ts, uint32_t pid, int64_t value) {
  trak_fq_rec r = {ts, (int16_t)value,       0, pid, PC_OOM_SCORE_ADJ, 0, 0, -1,
                   0,  TRAK_FQ_PROC_COUNTER, 0, 0};
  trak__fq_push(imp, &r);
}

/* The thread whose memory an rss_stat record tells of, as Perfetto's rss_stat tracker finds it;
** TRAK_NULL_U32 when it is not known (counted). */
static uint32_t rss_thread(trak_importer *imp, const trak_fq_rec *r) {
  trak_ftrace *f = imp->ftrace;
  if (r->p1 < 0) return trak__ftrace_utid(imp, r->pid);
  uint64_t mm_id = (uint64_t)r->s2 << 32 | r->s1;
  int added;
  if (r->p1) { /* the thread's own mm */
    uint32_t utid = trak__ftrace_utid(imp, r->pid);
    *trak__map_put(&f->mm_owner, mm_id, utid, &added) = utid;
    return utid;
  }
  uint32_t *owner = trak__map_get(&f->mm_owner, mm_id);
  if (owner && *owner != TRAK_NULL_U32 && !trak__thread_is_alive(imp, *owner))
    *owner = TRAK_NULL_U32; /* the mm may be reused by a process not known yet */
  if (owner && *owner != TRAK_NULL_U32) return *owner;
  trak__report(imp, TRAK_STAT_RSS_STAT_UNKNOWN_THREAD_FOR_MM_ID,
               "rss_stat at %lld changes mm %llu of no live thread known; dropped",
               (long long)r->ts, (unsigned long long)mm_id);
  return TRAK_NULL_U32;
}

void trak__fa_proc_counter(trak_importer *imp, const trak_fq_rec *r) {
  trak_ftrace *f = imp->ftrace;
  if (r->a != PC_OOM_SCORE_ADJ && r->x < 0) {
    trak__report(imp, TRAK_STAT_RSS_STAT_NEGATIVE_SIZE, "rss_stat at %lld has size %lld; dropped",
                 (long long)r->ts, (long long)r->x);
    return;
  }
  uint32_t utid = r->a == PC_OOM_SCORE_ADJ ? trak__ftrace_utid(imp, r->pid) : rss_thread(imp, r);
  if (utid == TRAK_NULL_U32) return;
  /* the counter's arg set is made now, in the order Perfetto adds it */
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "utid"), utid);
  set = trak__args_share(imp, set);
  trak__ftrace_set_used(imp, r->ts, set);
  trak_fpending p = {r->ts, (double)r->x, utid, r->a, set};
  trak_vec_push(f->pending, p);
}

/* The counter track of `counter` for thread `utid`: its process's, else the thread's own. */
static uint32_t counter_track(trak_importer *imp, uint32_t counter, uint32_t utid) {
  uint32_t upid = imp->tables->thread.upid[utid];
  int oom = counter == PC_OOM_SCORE_ADJ;
  trak_track_kind_id kind =
      upid != TRAK_NULL_U32
          ? (oom ? TRAK_TK_OOM_SCORE_ADJ : TRAK_TK_PROCESS_MEMORY)
          : (oom ? TRAK_TK_OOM_SCORE_ADJ_THREAD_FALLBACK : TRAK_TK_PROCESS_MEMORY_THREAD_FALLBACK);
  uint32_t key = oom ? 0 : trak__ftrace_str(imp, rss_keys[counter]);
  /* the process's tracks are ProcessStats packets' too (proto/sys_stats.c keys them alike) */
  uint64_t track_key = trak__track_key(kind, upid != TRAK_NULL_U32 ? upid : utid, key);
  uint32_t *known = trak__map_get(&imp->tracks.by_uuid, track_key);
  if (known) {
    trak_track_info *made = &imp->tracks.info.v[*known];
    /* Perfetto made it with the ProcessStats packet, not with these values: the packet's
    ** value makes it a row (event_parser.c) */
    if (!made->made_at_end) made->made_early = 1;
    return *known;
  }
  char name[32] = "oom_score_adj";
  if (!oom) snprintf(name, sizeof name, "mem.%s", rss_keys[counter]);
  uint32_t track = trak__keyed_track(imp, track_key, trak__ftrace_str(imp, name), upid, 1, kind);
  trak_track_info *info = &imp->tracks.info.v[track];
  info->made_at_end = 1; /* no ProcessStats packet made it: Perfetto makes it now, after all */
  info->dim_key = key;
  info->machine = imp->tables->thread.machine_id[utid];
  if (upid == TRAK_NULL_U32) info->is_thread = 1, info->utid = utid;
  return track;
}

void trak__ftrace_proc_counters_flush(trak_importer *imp) {
  trak_ftrace *f = imp->ftrace;
  for (size_t i = 0; i < f->pending.n; i++) {
    const trak_fpending *p = &f->pending.v[i];
    trak__ftrace_counter_ev(imp, p->ts, counter_track(imp, p->counter, p->utid), p->value, p->set);
  }
  trak_vec_free(f->pending);
  trak__map_free(&f->mm_owner);
}
