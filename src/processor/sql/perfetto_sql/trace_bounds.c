/*
** The trace's bounds behind the prelude's _trace_bounds: a view over __intrinsic_trace_bound(0)
** (start_ts) and (1) (end_ts), which scan the imported tables the first time either is asked
** for, not when the SQL layer opens (a 10 M-event sched trace's scan is tens of milliseconds
** that a query not reading the bounds need not wait for).
*/
#include <stdint.h>
#include <stdlib.h>

#include "processor/sql/perfetto_sql/psql.h"
#include "processor/tables/thread_state_cols.h"

/* The bounds and the row counts of the tables they are taken over, counted when the SQL layer
** opened: rows appended later (annotations, docs/analysis.md) do not move them, as they did not
** when the bounds were a table filled at that moment. */
typedef struct {
  const trak_tables *t;
  uint32_t ftrace_event, sched_slice, thread_state, counter, slice, state;
  size_t cpu_samples, perf_samples, heap_allocs;
  int made;
  int64_t start, end;
} bounds_memo;

/* A row's end, ts + max(dur, 0), wrapping past INT64_MAX as Perfetto's sum does (a slice that
** ends past it leaves the trace's end where the other rows put it; no undefined overflow). */
static int64_t row_end(int64_t ts, int64_t dur) {
  return dur > 0 ? (int64_t)((uint64_t)ts + (uint64_t)dur) : ts;
}

/* Widens [*lo, *hi] to the timestamps ts[0..n) (instants). */
static void widen_instants(const int64_t *ts, size_t n, int64_t *lo, int64_t *hi) {
  int64_t l = *lo, h = *hi;
  for (size_t i = 0; i < n; i++) {
    l = ts[i] < l ? ts[i] : l;
    h = ts[i] > h ? ts[i] : h;
  }
  *lo = l, *hi = h;
}

/* Widens [*lo, *hi] to the rows (ts, row_end(ts, dur)) of one table's first n rows. */
static void widen_spans_scalar(const int64_t *ts, const int64_t *dur, size_t n, int64_t *lo,
                               int64_t *hi) {
  int64_t l = *lo, h = *hi;
  for (size_t i = 0; i < n; i++) {
    int64_t e = row_end(ts[i], dur[i]);
    l = ts[i] < l ? ts[i] : l;
    h = e > h ? e : h;
  }
  *lo = l, *hi = h;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* widen_spans_scalar four rows at a time (the slice table's pass is most of a cold query that
** reads the bounds: about 3 instructions a row instead of 12); the ends wrap as row_end's. */
__attribute__((target("avx2"))) static void widen_spans_avx2(const int64_t *ts, const int64_t *dur,
                                                            size_t n, int64_t *lo, int64_t *hi) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i l = _mm256_set1_epi64x(*lo), h = _mm256_set1_epi64x(*hi);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256i t = _mm256_loadu_si256((const __m256i *)(const void *)(ts + i));
    __m256i d = _mm256_loadu_si256((const __m256i *)(const void *)(dur + i));
    __m256i e = _mm256_add_epi64(t, _mm256_and_si256(d, _mm256_cmpgt_epi64(d, zero)));
    l = _mm256_blendv_epi8(l, t, _mm256_cmpgt_epi64(l, t));
    h = _mm256_blendv_epi8(h, e, _mm256_cmpgt_epi64(e, h));
  }
  int64_t lv[4], hv[4];
  _mm256_storeu_si256((__m256i *)(void *)lv, l);
  _mm256_storeu_si256((__m256i *)(void *)hv, h);
  for (int k = 0; k < 4; k++) {
    *lo = lv[k] < *lo ? lv[k] : *lo;
    *hi = hv[k] > *hi ? hv[k] : *hi;
  }
  widen_spans_scalar(ts + i, dur + i, n - i, lo, hi);
}
#endif

static void widen_spans(const int64_t *ts, const int64_t *dur, size_t n, int64_t *lo,
                        int64_t *hi) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx2")) {
    widen_spans_avx2(ts, dur, n, lo, hi);
    return;
  }
#endif
  widen_spans_scalar(ts, dur, n, lo, hi);
}

/* The first and last instants of the trace's data, as Perfetto takes them: the timestamps of
** kernel events, sched slices, thread states, counters, slices, states (with the ends of those
** with durations), CPU profile samples and heap profile allocations; the end is never below
** 0, and a trace of one instant lasts 1 ns. (0, 0) without data. */
static void bounds_make(bounds_memo *m) {
  const trak_tables *t = m->t;
  int64_t lo = INT64_MAX, hi = 0;
  widen_instants(t->ftrace_event.ts, m->ftrace_event, &lo, &hi);
  widen_spans(t->sched_slice.ts, t->sched_slice.dur, m->sched_slice, &lo, &hi);
  widen_instants(t->counter.ts, m->counter, &lo, &hi);
  widen_spans(t->slice.ts, t->slice.dur, m->slice, &lo, &hi);
  /* thread_state's dur is packed (thread_state_cols.h): 32 bits, or wide / open past them */
  for (uint32_t i = 0; i < m->thread_state; i++) {
    int64_t ts = t->thread_state.ts[i];
    uint32_t d = t->thread_state.dur32[i];
    int64_t e = row_end(ts, d < TRAK_TS_DUR_WIDE ? (int64_t)d : trak__ts_dur(t, i));
    lo = ts < lo ? ts : lo;
    hi = e > hi ? e : hi;
  }
  widen_spans(t->state.ts, t->state.dur, m->state, &lo, &hi);
  if (m->cpu_samples) { /* in time order */
    const trak_sp_cpu_sample *s = t->stack_profile.cpu_samples.v;
    widen_instants(&s[0].ts, 1, &lo, &hi);
    widen_instants(&s[m->cpu_samples - 1].ts, 1, &lo, &hi);
  }
  if (m->perf_samples) { /* in time order */
    const trak_sp_perf_sample *s = t->stack_profile.perf_samples.v;
    widen_instants(&s[0].ts, 1, &lo, &hi);
    widen_instants(&s[m->perf_samples - 1].ts, 1, &lo, &hi);
  }
  for (size_t i = 0; i < m->heap_allocs; i++) /* in packet order */
    widen_instants(&t->stack_profile.heap_allocs.v[i].ts, 1, &lo, &hi);
  m->made = 1;
  if (lo == INT64_MAX) {
    m->start = m->end = 0;
    return;
  }
  m->start = lo;
  m->end = hi == lo ? hi + 1 : hi;
}

/* __intrinsic_trace_bound(0): the trace's start; (1): its end. */
static void fn_trace_bound(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  bounds_memo *m = sqlite3_user_data(ctx);
  if (!m->made) bounds_make(m);
  sqlite3_result_int64(ctx, sqlite3_value_int64(argv[0]) ? m->end : m->start);
}

int trak__psql_trace_bounds_register(trak_processor *p) {
  bounds_memo *m = calloc(1, sizeof *m);
  if (!m) return SQLITE_NOMEM;
  const trak_tables *t = &p->tables;
  m->t = t;
  m->ftrace_event = t->ftrace_event.n;
  m->sched_slice = t->sched_slice.n;
  m->thread_state = t->thread_state.n;
  m->counter = t->counter.n;
  m->slice = t->slice.n;
  m->state = t->state.n;
  m->cpu_samples = t->stack_profile.cpu_samples.n;
  m->perf_samples = t->stack_profile.perf_samples.n;
  m->heap_allocs = t->stack_profile.heap_allocs.n;
  int rc = sqlite3_create_function_v2(p->db, "__intrinsic_trace_bound", 1,
                                      SQLITE_UTF8 | SQLITE_DETERMINISTIC, m, fn_trace_bound, NULL,
                                      NULL, free);
  if (rc != SQLITE_OK) return rc; /* SQLite calls free(m) when it fails */
  return trak__sql_schema_exec(p, "CREATE VIEW _trace_bounds AS SELECT __intrinsic_trace_bound(0) "
                                  "AS start_ts, __intrinsic_trace_bound(1) AS end_ts;");
}
