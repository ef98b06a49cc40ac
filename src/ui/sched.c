/*
** This file holds the viewer's system tracks from the Linux tables: one track per CPU with its
** scheduling slices (sched) and one thread-state track per thread (thread_state), read into the
** cache as tracks of the same shape as slice tracks (so that the same per-pixel summaries serve
** them), from the processor's sched_slice, thread_state and thread columns, their lines finished
** as the rows come (read back only when they came out of order); the list of those
** tracks and of the CPU counters for the page; the area selection's time per thread state; and
** the SQL of a thread state's or a CPU slice's details.
*/
#define _GNU_SOURCE /* qsort_r */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "processor/processor_internal.h"
#include "processor/tables/sched_cols.h"
#include "processor/tables/thread_state_cols.h"
#include "ui/cache.h"
#include "ui/ui.h"

#define MAX_CPU 65535 /* CPUs above this are not drawn (no machine has them) */

static int oom(trak_error *err) {
  return trak_error_set(err, TRAK_ENOMEM, "out of memory");
}

/* How a track's rows came, appended in row order: the last one's time and end, and whether a
** time (the line is not sorted) or an end (its ends are not nondecreasing) went back. */
typedef struct arrival {
  int64_t ts, end;
  unsigned char seen, unsorted, unmonotonic;
} arrival;

/* Notes a row from `ts` to `end` (trak__ui_slice_end) appended to the track of `a`. */
static void arrive(arrival *a, int64_t ts, int64_t end) {
  if (a->seen) a->unsorted |= ts < a->ts, a->unmonotonic |= end < a->end;
  a->seen = 1, a->ts = ts, a->end = end;
}

/* Appends row `row` of kind `kind` to track `id` (trak__ui_cache_add_row), widens the trace's
** bounds by it and notes it in `a`. 0 or -1 (out of memory). */
static int add_row(trak_ui_cache *c, int64_t id, trak_ui_kind kind, int64_t key, uint32_t row,
                   const char *state, const trak_ui_slice *s, arrival *a) {
  if (trak__ui_cache_add_row(c, id, kind, key, row, state)) return -1;
  int64_t end = trak__ui_slice_end(s);
  trak__ui_cache_widen(c, s->ts, s->dur < 0 ? s->ts : end);
  arrive(a, s->ts, end);
  return 0;
}

/* Every CPU with a sched row gets a track, in CPU order (the idle thread's slices are not drawn
** on it, as in Perfetto, but the CPU's row is still there); then the rows of the threads that
** are not idle, read from the sched_slice columns (sched.cpu is the row's ucpu), noted in
** arrived[cpu]. */
static int load_cpus(const trak_tables *tb, trak_ui_cache *c, int64_t base, arrival *arrived,
                     trak_error *err) {
  uint8_t *seen = calloc(MAX_CPU + 1, 1);
  if (!seen) return oom(err);
  for (size_t i = 0; i < tb->sched_slice.n; i++) {
    uint32_t cpu = trak__ss_ucpu(tb, (uint32_t)i);
    if (cpu <= MAX_CPU) seen[cpu] = 1;
  }
  for (int64_t cpu = 0; cpu <= MAX_CPU; cpu++) {
    if (!seen[cpu]) continue;
    trak_ui_track *t = trak__ui_cache_add_track(c, base + cpu);
    if (!t) {
      free(seen);
      return oom(err);
    }
    t->kind = TRAK_UI_CPU, t->key = cpu;
  }
  free(seen);
  for (size_t i = 0; i < tb->sched_slice.n && i < UINT32_MAX; i++) {
    uint32_t cpu = trak__ss_ucpu(tb, (uint32_t)i), utid = tb->sched_slice.utid[i];
    if (cpu > MAX_CPU || (utid < tb->thread.n && tb->thread.is_idle[utid] == 1)) continue;
    trak_ui_slice s = {.ts = tb->sched_slice.ts[i], .dur = tb->sched_slice.dur[i]};
    if (add_row(c, base + cpu, TRAK_UI_CPU, cpu, (uint32_t)i, NULL, &s, &arrived[cpu]))
      return oom(err);
  }
  return 0;
}

/* Every thread_state row into its thread's track (base + utid), from the columns, noted in
** arrived[utid] (`n_arrived` of them; a utid past them in *stray). */
static int load_states(const trak_tables *tb, trak_ui_cache *c, int64_t base, arrival *arrived,
                       size_t n_arrived, arrival *stray, trak_error *err) {
  for (size_t i = 0; i < tb->thread_state.n && i < UINT32_MAX; i++) {
    int64_t utid = tb->thread_state.utid[i];
    if (utid > (int64_t)UINT32_MAX - base - 1) continue;
    const char *state = trak__str(&tb->strings, trak__ts_state(tb, (uint32_t)i));
    trak_ui_slice s = {.ts = tb->thread_state.ts[i], .dur = trak__ts_dur(tb, (uint32_t)i)};
    arrival *a = (uint64_t)utid < n_arrived ? &arrived[utid] : stray;
    if (add_row(c, base + utid, TRAK_UI_STATE, utid, (uint32_t)i, state, &s, a)) return oom(err);
  }
  return 0;
}

/* The context of by_row_ts: the table the rows are of. */
typedef struct row_order {
  const trak_tables *tb;
  trak_ui_kind kind;
} row_order;

static int64_t row_ts(const trak_tables *tb, trak_ui_kind kind, uint32_t row) {
  return kind == TRAK_UI_CPU ? tb->sched_slice.ts[row] : tb->thread_state.ts[row];
}

static int by_row_ts(const void *a, const void *b, void *arg) {
  const row_order *o = arg;
  int64_t x = row_ts(o->tb, o->kind, *(const uint32_t *)a),
          y = row_ts(o->tb, o->kind, *(const uint32_t *)b);
  return (x > y) - (x < y);
}

static int64_t row_end(const trak_ui_cache *c, const trak_ui_track *t, size_t i) {
  trak_ui_slice s = trak__ui_line_row(c, t, &t->lines[0], i, NULL);
  return trak__ui_slice_end(&s);
}

/* Finishes the line of CPU or thread-state track `t` whose rows came as `a` says (NULL: not
** known): sorts it by time when it is not and gives it a max_end when
** its ends are not nondecreasing (most lines need none, 8 bytes a row saved). A line known to
** have come in order is not read again: reading each row back by its number was most of the
** server's start at 10M sched events. Returns 0 or -1 (out of memory). */
static int finish_rows(const trak_ui_cache *c, trak_ui_track *t, const arrival *a) {
  trak_ui_line *l = &t->lines[0];
  int unmonotonic = a && a->unmonotonic;
  if (!a || a->unsorted) { /* (its ends as they came say nothing then) */
    int sorted = 1;
    for (size_t i = 1; i < l->n && sorted; i++)
      sorted = row_ts(c->tables, t->kind, l->rows[i - 1]) <= row_ts(c->tables, t->kind, l->rows[i]);
    if (!sorted) {
      row_order o = {c->tables, t->kind};
      qsort_r(l->rows, l->n, sizeof *l->rows, by_row_ts, &o);
    }
    int64_t last = INT64_MIN;
    unmonotonic = 0;
    for (size_t i = 0; i < l->n && !unmonotonic; i++) {
      int64_t end = row_end(c, t, i);
      unmonotonic = end < last, last = end;
    }
  }
  if (!unmonotonic) return 0;
  if (!(l->max_end = trak__ui_alloc_big(l->n * sizeof *l->max_end))) return -1;
  int64_t m = INT64_MIN;
  for (size_t i = 0; i < l->n; i++) {
    int64_t end = row_end(c, t, i);
    l->max_end[i] = m = end > m ? end : m;
  }
  return 0;
}

/* Finishes the lines of the CPU and thread-state tracks (finish_rows), as they came: CPU
** `cpus[key]`, thread `threads[key]` (`n_threads` of them; past them not known). 0 or -1. */
static int finish_tracks(trak_ui_cache *c, const arrival *cpus, const arrival *threads,
                         size_t n_threads) {
  for (size_t i = 0; i < c->n_tracks; i++) {
    trak_ui_track *t = &c->tracks[i];
    if ((t->kind != TRAK_UI_CPU && t->kind != TRAK_UI_STATE) || !t->n_lines) continue;
    const arrival *a = NULL;
    if (t->kind == TRAK_UI_CPU) /* (a CPU track's key is at most the largest CPU) */
      a = &cpus[t->key];
    else if ((uint64_t)t->key < n_threads)
      a = &threads[t->key];
    if (finish_rows(c, t, a)) return -1;
  }
  return 0;
}

/* Marks the counter tracks drawn as deltas: the /proc/stat times (`cpustat`), cumulative in
** the trace, which Perfetto's CoarseCpu plugin draws with yMode 'delta'. The one place that
** decides: the counters answer sends these tracks' deltas and the tracks answer lists them
** ("delta_tracks"), which the page follows. */
static int mark_delta(trak_processor *p, trak_ui_cache *c, trak_error *err) {
  trak_query *q;
  int rc = trak_query_open(p, "SELECT id FROM counter_track WHERE type = 'cpustat'", &q, NULL, err);
  if (rc) return rc;
  while (q && (rc = trak_query_next(q, err)) == 1) {
    const trak_ui_track *t = trak__ui_cache_track(c, trak_query_int(q, 0));
    if (t) c->tracks[t - c->tracks].delta = 1;
  }
  trak_query_free(q);
  return rc < 0 ? rc : 0;
}

int trak__ui_sched_load(trak_processor *p, trak_ui_cache *c, trak_error *err) {
  const trak_tables *tb = &p->tables;
  int rc = mark_delta(p, c, err);
  if (rc) return rc;
  /* What SELECT max(id) + 1 FROM track, max(cpu) FROM sched and max(utid) FROM thread say. */
  int64_t base = (int64_t)tb->track.n, max_cpu = -1, max_utid = (int64_t)tb->thread.n - 1;
  for (size_t i = 0; i < tb->sched_slice.n; i++) {
    int64_t cpu = trak__ss_ucpu(tb, (uint32_t)i);
    if (cpu > max_cpu) max_cpu = cpu;
  }
  if (max_cpu > MAX_CPU) max_cpu = MAX_CPU;
  /* The CPUs' tracks, then the threads' by utid, then the Scheduler group's counters: ids no
  ** track of the trace has. */
  size_t n_threads = tb->thread.n, n_cpus = max_cpu >= 0 ? (size_t)max_cpu + 1 : 1;
  arrival *cpus = calloc(n_cpus, sizeof *cpus), stray = {0};
  arrival *threads = calloc(n_threads ? n_threads : 1, sizeof *threads);
  if (!cpus || !threads) rc = oom(err);
  if (!rc) rc = load_cpus(tb, c, base, cpus, err);
  if (!rc) rc = load_states(tb, c, base + max_cpu + 1, threads, n_threads, &stray, err);
  if (!rc && finish_tracks(c, cpus, threads, n_threads)) rc = oom(err);
  free(cpus), free(threads);
  if (!rc && trak__ui_sched_counts_load(c, base + max_cpu + 1 + max_utid + 1)) rc = oom(err);
  return rc;
}

int trak__ui_sched_tracks(trak_processor *p, const trak_ui_cache *c, trak_ui_buf *out,
                          trak_error *err) {
  for (int kind = TRAK_UI_CPU; kind <= TRAK_UI_STATE; kind++) {
    trak__ui_puts(out, kind == TRAK_UI_CPU ? ",\"cpus\":[" : ",\"thread_states\":[");
    int first = 1;
    for (size_t i = 0; i < c->n_tracks; i++) {
      const trak_ui_track *t = &c->tracks[i];
      if ((int)t->kind != kind) continue;
      trak__ui_printf(out, "%s[%" PRId64 ",%" PRId64 ",%" PRId64 "]", first ? "" : ",", t->id,
                      t->key, t->count);
      first = 0;
    }
    trak__ui_put(out, "]", 1);
  }
  /* The counter tracks drawn as deltas: decided here alone (mark_delta), the page follows. */
  trak__ui_puts(out, ",\"delta_tracks\":[");
  for (size_t i = 0, first = 1; i < c->n_tracks; i++) {
    if (!c->tracks[i].delta) continue;
    if (!first) trak__ui_put(out, ",", 1);
    trak__ui_int(out, c->tracks[i].id);
    first = 0;
  }
  trak__ui_put(out, "]", 1);
  /* The Scheduler group: [[id, name, values]...] (none without sched rows). */
  trak__ui_puts(out, ",\"sched_counts\":[");
  for (int k = 0, first = 1; k < TRAK_UI_SCHED_COUNTS; k++) {
    const trak_ui_track *t = trak__ui_cache_track(c, c->sched_count[k]);
    if (!t) continue;
    trak__ui_printf(out, "%s[%" PRId64 ",", first ? "" : ",", t->id);
    trak__ui_json_str(out, trak__ui_sched_count_names[k]);
    trak__ui_printf(out, ",%" PRId64 "]", t->count);
    first = 0;
  }
  /* The active CPU count per CPU type: [id, name, values, the active CPU count's id]. */
  for (int k = 0; k < TRAK_UI_CPU_TYPES; k++) {
    const trak_ui_track *t = trak__ui_cache_track(c, c->cpu_type_count[k]);
    if (!t) continue;
    trak__ui_printf(out, ",[%" PRId64 ",", t->id);
    trak__ui_json_str(out, trak__ui_cpu_type_count_names[k]);
    trak__ui_printf(out, ",%" PRId64 ",%" PRId64 "]", t->count, c->sched_count[0]);
  }
  trak__ui_put(out, "]", 1);
  trak__ui_puts(out, ",\"cpu_counters\":");
  int rc =
      trak__ui_rows(p, "SELECT id, cpu FROM cpu_counter_track ORDER BY cpu, id", 0, out, NULL, err);
  /* Interrupts: the slice tracks the importer makes per CPU ("Irq Cpu N", "SoftIrq Cpu N"). */
  trak__ui_puts(out, ",\"cpu_slices\":");
  if (!rc)
    rc = trak__ui_rows(p,
                       "SELECT id, extract_arg(dimension_arg_set_id, 'cpu') AS cpu FROM track "
                       "WHERE type IN ('cpu_irq', 'cpu_softirq') AND cpu IS NOT NULL "
                       "ORDER BY cpu, type, id",
                       0, out, NULL, err);
  return rc;
}

/* ---- the area selection's thread states ------------------------------------------------ */

typedef struct state_sum {
  uint32_t name; /* the state, in the cache's names */
  int io;        /* io_wait: -1 unknown, 0, 1 */
  int64_t count, total;
} state_sum;

/* Most time first; ties by state name, then io_wait (as the page's report orders them). */
static int by_total(const void *a, const void *b, void *cache) {
  const state_sum *x = a, *y = b;
  if (x->total != y->total) return x->total < y->total ? 1 : -1;
  const char *p = trak__ui_cache_name(cache, x->name), *q = trak__ui_cache_name(cache, y->name);
  int c = strcmp(p ? p : "", q ? q : "");
  return c ? c : x->io - y->io;
}

/* The part of interval `s` inside [start, end] (one that did not end runs to `end`), or 0. */
static int64_t clipped(const trak_ui_slice *s, int64_t start, int64_t end) {
  int64_t e = s->dur < 0 ? end : trak__ui_slice_end(s);
  if (e <= start || s->ts >= end) return 0;
  return (e < end ? e : end) - (s->ts > start ? s->ts : start);
}

int trak__ui_state_sums(const trak_ui_cache *c, const int64_t *tracks, size_t n, int64_t start,
                        int64_t end, trak_ui_buf *out) {
  /* By state and io_wait: three slots per name (unknown, 0, 1), the last three for no name. */
  state_sum *sums = calloc(3 * ((size_t)c->n_names + 1), sizeof *sums);
  if (!sums) return -1;
  for (size_t k = 0; k < n; k++) {
    const trak_ui_track *t = trak__ui_cache_track(c, tracks[k]);
    if (!t || t->kind != TRAK_UI_STATE || !t->n_lines) continue;
    const trak_ui_line *l = &t->lines[0];
    for (size_t i = trak__ui_line_first_ending(c, t, l, start); i < l->n; i++) {
      uint32_t aux;
      const trak_ui_slice s = trak__ui_line_row(c, t, l, i, &aux);
      if (s.ts >= end) break;
      int64_t part = clipped(&s, start, end);
      if (!part) continue;
      int io = TRAK_UI_STATE_IO(aux);
      state_sum *a =
          &sums[3 * (size_t)(s.name == UINT32_MAX ? c->n_names : s.name) + (size_t)(io + 1)];
      a->name = s.name;
      a->io = io;
      a->count++;
      a->total += part;
    }
  }
  size_t used = 0;
  for (size_t i = 0; i < 3 * ((size_t)c->n_names + 1); i++)
    if (sums[i].count) sums[used++] = sums[i];
  qsort_r(sums, used, sizeof *sums, by_total, (void *)c);
  trak__ui_puts(out, "\"thread_states\":[");
  for (size_t i = 0; i < used; i++) {
    trak__ui_puts(out, i ? ",[" : "[");
    trak__ui_json_str(out, trak__ui_cache_name(c, sums[i].name));
    trak__ui_printf(out, ",%" PRId64 ",%" PRId64 ",", sums[i].count, sums[i].total);
    if (sums[i].io < 0)
      trak__ui_puts(out, "null]");
    else
      trak__ui_printf(out, "%d]", sums[i].io);
  }
  trak__ui_put(out, "]", 1);
  free(sums);
  return 0;
}

/* Per thread: its scheduling slices in the range and their time there (cpu_threads). */
typedef struct thread_sum {
  int64_t utid, count, total;
} thread_sum;

/* Most time first, then by utid. */
static int by_thread_total(const void *a, const void *b) {
  const thread_sum *x = a, *y = b;
  if (x->total != y->total) return x->total < y->total ? 1 : -1;
  return (x->utid > y->utid) - (x->utid < y->utid);
}

/* Calls visit(t, utid, part, arg) for each scheduling slice of the CPU tracks among `tracks` that
** has a part inside [start, end] (clipped: one that did not end runs to `end`); `t` is its track,
** `utid` its thread. */
static void
each_cpu_slice(const trak_ui_cache *c, const int64_t *tracks, size_t n, int64_t start, int64_t end,
               void (*visit)(const trak_ui_track *t, uint32_t utid, int64_t part, void *arg),
               void *arg) {
  for (size_t k = 0; k < n; k++) {
    const trak_ui_track *t = trak__ui_cache_track(c, tracks[k]);
    if (!t || t->kind != TRAK_UI_CPU || !t->n_lines) continue;
    const trak_ui_line *l = &t->lines[0];
    for (size_t i = trak__ui_line_first_ending(c, t, l, start); i < l->n; i++) {
      uint32_t utid;
      const trak_ui_slice s = trak__ui_line_row(c, t, l, i, &utid);
      if (s.ts >= end) break;
      int64_t part = clipped(&s, start, end);
      if (part > 0) visit(t, utid, part, arg);
    }
  }
}

typedef struct cpu_acc {
  thread_sum *by_utid; /* indexed by utid, or NULL while finding max_utid */
  int64_t max_utid;
} cpu_acc;

static void max_utid_of(const trak_ui_track *t, uint32_t utid, int64_t part, void *arg) {
  cpu_acc *a = arg;
  (void)t, (void)part;
  if ((int64_t)utid > a->max_utid) a->max_utid = utid;
}

static void add_to_thread(const trak_ui_track *t, uint32_t utid, int64_t part, void *arg) {
  thread_sum *x = &((cpu_acc *)arg)->by_utid[utid];
  (void)t;
  x->utid = utid, x->count++, x->total += part;
}

int trak__ui_cpu_sums(const trak_ui_cache *c, const int64_t *tracks, size_t n, int64_t start,
                      int64_t end, trak_ui_buf *out) {
  int first = 1;
  trak__ui_puts(out, "\"cpus\":[");
  for (size_t k = 0; k < n; k++) {
    const trak_ui_track *t = trak__ui_cache_track(c, tracks[k]);
    if (!t || t->kind != TRAK_UI_CPU || !t->n_lines) continue;
    const trak_ui_line *l = &t->lines[0];
    int64_t count = 0, busy = 0;
    for (size_t i = trak__ui_line_first_ending(c, t, l, start); i < l->n; i++) {
      const trak_ui_slice s = trak__ui_line_row(c, t, l, i, NULL);
      if (s.ts >= end) break;
      int64_t part = clipped(&s, start, end);
      count += part > 0, busy += part;
    }
    trak__ui_printf(out, "%s[%" PRId64 ",%" PRId64 ",%" PRId64 "]", first ? "" : ",", t->key, count,
                    busy);
    first = 0;
  }
  /* By thread (Perfetto's "CPU by thread"): a pass for the largest utid, one to sum. */
  cpu_acc acc = {NULL, -1};
  each_cpu_slice(c, tracks, n, start, end, max_utid_of, &acc);
  size_t used = 0;
  if (acc.max_utid >= 0) {
    if (!(acc.by_utid = calloc((size_t)acc.max_utid + 1, sizeof *acc.by_utid))) return -1;
    each_cpu_slice(c, tracks, n, start, end, add_to_thread, &acc);
    for (int64_t u = 0; u <= acc.max_utid; u++)
      if (acc.by_utid[u].count) acc.by_utid[used++] = acc.by_utid[u];
    qsort(acc.by_utid, used, sizeof *acc.by_utid, by_thread_total);
  }
  trak__ui_puts(out, "],\"cpu_threads\":[");
  for (size_t i = 0; i < used; i++)
    trak__ui_printf(out, "%s[%" PRId64 ",%" PRId64 ",%" PRId64 "]", i ? "," : "",
                    acc.by_utid[i].utid, acc.by_utid[i].count, acc.by_utid[i].total);
  trak__ui_put(out, "]", 1);
  free(acc.by_utid);
  return 0;
}

/* ---- details: one row of SQL, its id in place of the `?` ---------------------------------- */

/* A thread state with its thread and process, and the wakeup that made it runnable (its own, or
** for a Running state the runnable state just before it): the waker thread, its process, the
** waker's own state then (waker_id) and that state's CPU. */
static const char thread_state_sql[] =
    "SELECT s.id, s.ts, s.dur, s.state, s.io_wait, s.blocked_function, s.cpu, s.utid, "
    "t.tid, t.name AS thread, p.pid, p.name AS process, w.id AS wakeup_id, w.ts AS wakeup_ts, "
    "w.waker_utid, wt.tid AS waker_tid, wt.name AS waker_thread, wp.pid AS waker_pid, "
    "wp.name AS waker_process, w.waker_id, ws.cpu AS waker_cpu, w.irq_context "
    "FROM thread_state s JOIN thread t ON t.utid = s.utid "
    "LEFT JOIN process p ON p.upid = t.upid "
    "LEFT JOIN thread_state w ON w.id = CASE WHEN s.waker_utid IS NOT NULL THEN s.id ELSE "
    "(SELECT r.id FROM thread_state r WHERE r.utid = s.utid AND r.ts + r.dur = s.ts AND "
    "s.state = 'Running' AND r.waker_utid IS NOT NULL) END "
    "LEFT JOIN thread wt ON wt.utid = w.waker_utid "
    "LEFT JOIN process wp ON wp.upid = wt.upid "
    "LEFT JOIN thread_state ws ON ws.id = w.waker_id "
    "WHERE s.id = ?";

/* A CPU's scheduling slice with its thread and process, and its wakeup as Perfetto's sched
** details find it (getSchedWakeupInfo): the runnable ('R') state of its thread that ends as the
** slice starts, not in an interrupt, with a waker; the waker thread, its process, and the CPU of
** the waker's own state then (waker_cpu, NULL when that state is not in thread_state). */
static const char sched_sql[] =
    "SELECT s.id, s.ts, s.dur, s.cpu, s.utid, s.end_state, s.priority, t.tid, "
    "t.name AS thread, p.pid, p.name AS process, "
    "(SELECT r.id FROM thread_state r WHERE r.utid = s.utid AND r.ts = s.ts AND "
    "r.state = 'Running') AS thread_state_id, w.ts AS wakeup_ts, w.waker_utid, "
    "wt.tid AS waker_tid, wt.name AS waker_thread, wp.pid AS waker_pid, "
    "wp.name AS waker_process, w.waker_id, ws.cpu AS waker_cpu "
    "FROM sched s JOIN thread t ON t.utid = s.utid LEFT JOIN process p ON p.upid = t.upid "
    "LEFT JOIN thread_state w ON w.id = (SELECT r.id FROM thread_state r WHERE r.utid = s.utid "
    "AND r.ts + r.dur = s.ts AND r.state = 'R' AND (r.irq_context IS NULL OR r.irq_context = 0) "
    "AND r.waker_id IS NOT NULL ORDER BY r.id LIMIT 1) "
    "LEFT JOIN thread_state ws ON ws.id = w.waker_id "
    "LEFT JOIN thread wt ON wt.utid = w.waker_utid "
    "LEFT JOIN process wp ON wp.upid = wt.upid "
    "WHERE s.id = ?";

const char *trak__ui_row_sql(const char *what) {
  if (!strcmp(what, "thread_state")) return thread_state_sql;
  if (!strcmp(what, "sched")) return sched_sql;
  return NULL;
}

int trak__ui_row(trak_processor *p, const char *what, int64_t id, trak_ui_buf *out,
                 trak_error *err) {
  const char *sql = trak__ui_row_sql(what);
  if (!sql) return trak_error_set(err, TRAK_EINVAL, "no details of '%s'", what);
  const char *mark = strchr(sql, '?');
  trak_ui_buf text = {0};
  trak__ui_put(&text, sql, (size_t)(mark - sql));
  trak__ui_printf(&text, "%" PRId64 "%s", id, mark + 1);
  int rc = text.oom ? oom(err) : trak__ui_query_page(p, text.s, 0, 1, out, err);
  trak__ui_buf_free(&text);
  return rc;
}
