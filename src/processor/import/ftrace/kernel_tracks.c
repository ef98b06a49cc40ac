/*
** This file holds Perfetto's kernel track events: self-describing ftrace events whose fields
** follow its convention (proto/ftrace_generic.c reads them) become slices and counters on
** tracks of their own, one per scope (the writing thread, a process, a CPU or a number),
** tracepoint and track name, made and filled in timestamp order as Perfetto's ftrace parser
** makes them.
*/
#include "processor/import/ftrace/ftrace_internal.h"

void trak__kernel_track_event(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid,
                              const trak_kte *e) {
  uint64_t scope = (uint64_t)e->scope_value;
  int64_t x = e->counter ? e->value : (int64_t)e->slice_name;
  uint32_t bits =
      (uint32_t)(e->what & 0xfff) | (uint32_t)e->scope << 12 | (uint32_t)e->counter << 15;
  trak_fq_rec r = {ts,
                   x,
                   cpu,
                   tid,
                   (uint32_t)scope,
                   e->tracepoint,
                   e->track_name,
                   (int32_t)(uint32_t)(scope >> 32),
                   (int32_t)bits,
                   TRAK_FQ_KERNEL_TE,
                   0,
                   0};
  trak__ftrace_cpu_seen(imp, cpu);
  trak__fq_push(imp, &r);
}

/* The track of kind `kind` (KTE_*) for owner `owner` (a utid, upid, CPU or scope number), the
** tracepoint and the track's name, made on first use. */
static uint32_t kte_track(trak_importer *imp, trak_track_kind_id kind, uint64_t owner,
                          uint32_t tracepoint, uint32_t name) {
  int scope = trak__track_kinds[kind].scope;
  uint64_t key = trak__track_key(
      kind, scope == TRAK_SCOPE_GLOBAL ? owner ^ (uint64_t)imp->threads.machine << 48 : owner,
      (uint64_t)tracepoint << 32 | name);
  uint32_t *known = trak__map_get(&imp->tracks.by_uuid, key | 1ULL << 63);
  if (known) return *known;
  int counter = (kind - TRAK_TK_KTE_THREAD_SLICE) & 1;
  uint32_t track = trak__keyed_track(
      imp, key, name, scope == TRAK_SCOPE_PROCESS ? (uint32_t)owner : TRAK_NULL_U32, counter, kind);
  trak_track_info *info = &imp->tracks.info.v[track];
  if (scope == TRAK_SCOPE_THREAD) info->is_thread = 1, info->utid = (uint32_t)owner;
  info->lane = (uint32_t)owner; /* the CPU of a CPU's track */
  info->dim_int = (int64_t)owner;
  info->dim_key = tracepoint;
  info->machine = imp->threads.machine;
  return track;
}

void trak__fa_kernel_te(trak_importer *imp, const trak_fq_rec *r) {
  uint32_t bits = (uint32_t)r->p2;
  int what = (int)(bits & 0xfff), scope = (int)(bits >> 12 & 7), counter = (int)(bits >> 15 & 1);
  if (what >= 0x800) what -= 0x1000; /* a negative char */
  if (what == TRAK_KTE_NO_TRACK) {
    trak__report(imp, TRAK_STAT_KERNEL_TRACKEVENT_FORMAT_ERROR,
                 "kernel track event at %lld without the fields its track needs; skipped",
                 (long long)r->ts);
    return;
  }
  uint64_t value = (uint64_t)(uint32_t)r->p1 << 32 | r->a;
  uint64_t owner = scope == TRAK_KTE_THREAD    ? trak__ftrace_utid(imp, r->pid)
                   : scope == TRAK_KTE_PROCESS ? trak__process_for_pid(imp, (int64_t)value)
                   : scope == TRAK_KTE_CPU     ? (uint32_t)value
                                               : value;
  trak_track_kind_id kind = (trak_track_kind_id)(TRAK_TK_KTE_THREAD_SLICE + scope * 2 + counter);
  uint32_t track = kte_track(imp, kind, owner, r->s1, r->s2);
  switch (what) {
  case 'B':
  case 'E':
  case 'I':
    if (counter) break;
    trak__ftrace_slice_ev(imp, r->ts,
                          what == 'B'   ? TRAK_EV_BEGIN
                          : what == 'E' ? TRAK_EV_END
                                        : TRAK_EV_INSTANT,
                          track, what == 'E' ? 0 : (uint32_t)r->x, 0, TRAK_NULL_U32);
    return;
  case TRAK_KTE_COUNTER:
    trak__ftrace_counter_ev(imp, r->ts, track, (double)r->x, TRAK_NULL_U32);
    return;
  default:
    break;
  }
  trak__ftrace_track_made(imp, track, r->ts);
  trak__report(imp, TRAK_STAT_KERNEL_TRACKEVENT_FORMAT_ERROR,
               "kernel track event at %lld without a slice type B, E or I, or its name or "
               "value; its track is made, the event skipped",
               (long long)r->ts);
}
