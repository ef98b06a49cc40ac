/*
** This file holds atrace markers (the text of print events and systrace tracing_mark_write
** lines) turned into trace model records as Perfetto's systrace parser makes them: B/E slices
** and I instants on the writer's thread track, C counters on a process counter track named by
** the marker (with the writer's utid as arg); async markers (S/F, G/H, N) go to
** atrace_async.c.
*/
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/util/atrace_marker.h"

uint32_t trak__atrace_writer(trak_importer *imp, uint32_t tid, int64_t tgid, uint32_t marker_tgid) {
  if (marker_tgid) return trak__thread_for_tid(imp, tid, marker_tgid);
  if (tgid >= 0) return trak__thread_for_tid(imp, tid, tgid);
  return tid ? trak__thread_for_tid(imp, tid, -1) : 0;
}

static uint32_t intern_view(trak_importer *imp, trak_strv v) {
  return trak__strpool_intern(&imp->tables->strings, v.s, v.len);
}

void trak__atrace_marker(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int64_t tgid,
                         const char *s, size_t len) {
  trak_ftrace *f = trak__ftrace_get(imp);
  if (len > UINT32_MAX) len = UINT32_MAX; /* a marker is at most a page */
  size_t off = f->text.n;
  trak__grow((void **)&f->text.v, &f->text.cap, off + len + 1, 1);
  memcpy(f->text.v + off, s, len);
  f->text.n = off + len;
  trak_fq_rec r = {ts, (int64_t)off,   cpu, tid, (uint32_t)len, 0, 0, (int32_t)tgid,
                   0,  TRAK_FQ_MARKER, 0,   0};
  trak__fq_push(imp, &r); /* counted here, as when it became records at once */
}

/* A marker's queued record, applied: the text parsed and turned into records. */
/* ScreenState and battery_stats.* counters, which Perfetto promotes to global tracks of their
** own (an InitialDisplayState packet feeds ScreenState's too): 1 when `m` was one of them. */
static int promoted_counter(trak_importer *imp, int64_t ts, const trak_atrace_marker *m,
                            uint32_t name) {
  uint32_t track;
  if (m->name.len == 11 && !memcmp(m->name.s, "ScreenState", 11))
    track = trak__system_counter_track(imp, TRAK_TK_SCREEN_STATE, TRAK_NULL_U32, 0, 0, name);
  else if (m->name.len >= 14 && !memcmp(m->name.s, "battery_stats.", 14))
    track = trak__system_counter_track(imp, TRAK_TK_BATTERY_STATS, TRAK_NULL_U32, 0, name, name);
  else
    return 0;
  trak__ftrace_counter_ev(imp, ts, track, (double)m->value, TRAK_NULL_U32);
  return 1;
}

static void marker(trak_importer *imp, int64_t ts, uint32_t tid, int64_t tgid, const char *s,
                   size_t len) {
  trak_atrace_marker m;
  int rc = trak__atrace_marker_parse(s, len, &m);
  if (rc == TRAK_ATRACE_UNSUPPORTED) return;
  if (rc != TRAK_ATRACE_OK) {
    trak__report(imp, TRAK_STAT_SYSTRACE_PARSE_FAILURE,
                 "atrace marker \"%.*s\" is not one trak reads", (int)(len > 80 ? 80 : len), s);
    return;
  }
  switch (m.phase) {
  case 'B':
  case 'I': {
    uint32_t utid = trak__atrace_writer(imp, tid, tgid, m.tgid);
    uint32_t track = trak__legacy_thread_track(imp, utid);
    trak__ftrace_ev(imp, ts, m.phase == 'B' ? TRAK_EV_BEGIN : TRAK_EV_INSTANT, track,
                    intern_view(imp, m.name), 0);
    return;
  }
  case 'E': {
    /* an end of an unknown thread with no process says nothing: ignored */
    if (!m.tgid && tgid < 0 && trak__thread_lookup(imp, tid) == TRAK_NULL_U32) return;
    uint32_t utid = trak__atrace_writer(imp, tid, tgid, m.tgid);
    trak__ftrace_ev(imp, ts, TRAK_EV_END, trak__legacy_thread_track(imp, utid), 0, 0);
    return;
  }
  case 'C': {
    uint32_t name = intern_view(imp, m.name);
    if (promoted_counter(imp, ts, &m, name)) return;
    /* per process (the marker's: a kernel counter's writer may be any thread), with the
    ** writer's utid, when the thread is known, as arg */
    uint32_t upid = trak__process_for_pid(imp, m.tgid);
    uint32_t utid = tid ? trak__thread_lookup(imp, tid) : 0;
    uint64_t key = trak__track_key(TRAK_TK_ATRACE_COUNTER, upid, name);
    uint32_t track = trak__keyed_track(imp, key, name, upid, 1, TRAK_TK_ATRACE_COUNTER);
    uint32_t set = TRAK_NULL_U32;
    if (utid != TRAK_NULL_U32) {
      set = trak__ftrace_args_begin(imp);
      trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "utid"), utid);
      set = trak__args_share(imp, set);
    }
    trak__ftrace_counter_ev(imp, ts, track, (double)m.value, set);
    return;
  }
  default: /* S, F, G, H, N: the parser knows no other phase */
    trak__atrace_async(imp, ts, tid, tgid, &m);
    return;
  }
}

void trak__fa_marker(trak_importer *imp, const trak_fq_rec *r) {
  uint64_t n_events = imp->n_events; /* the marker was counted when queued */
  trak__syscall_write_cut(imp, r->ts, r->pid);
  marker(imp, r->ts, r->pid, r->p1, imp->ftrace->text.v + r->x, r->a);
  imp->n_events = n_events;
}
