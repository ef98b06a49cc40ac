/*
** This file holds the Linux event sink's compact_sched runs: a bundle's compact_sched message is
** kept as its bytes (about 9 bytes an event) with a run record in each of its CPU's two queues
** (switches, wakings) instead of a 48-byte record per event, and its events are decoded again,
** one at a time, as the queue's merge reaches them: no record written per event and read back,
** no queue memory to fault in. The copies live in mapped chunks given back as their runs are
** applied. The records decoded are those the per-event path would queue.
*/
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/util/compact_sched.h"

/* The events of one kind a walk of cs gives, and whether their timestamps never go back. */
typedef struct run_count {
  uint32_t n;
  int64_t first, last;
  int sorted;
} run_count;

static void count_add(run_count *c, int64_t ts) {
  if (c->n && ts < c->last) c->sorted = 0;
  if (!c->n) c->first = ts;
  c->last = ts;
  c->n++;
}

/* Queues the run of `n` events of kind `waking` of message `ci` on `cpu`. */
static void run_push(trak_importer *imp, uint32_t cpu, uint32_t ci, int waking,
                     const run_count *c) {
  if (!c->n) return;
  trak_fq_rec r = {c->first, c->last, cpu, ci, c->n, 0, 0, waking, 0, TRAK_FQ_COMPACT_RUN, 0, 0};
  uint32_t q =
      trak__fq_cpu_queue(imp, waking ? TRAK_FQS_COMPACT_WAKING : TRAK_FQS_COMPACT_SWITCH, cpu);
  trak__fq_push_run(imp, q, &r, waking ? TRAK_FQ_WAKING_COMPACT : TRAK_FQ_SWITCH_COMPACT,
                    c->sorted);
}

/* Bytes of copies per chunk (a message larger has a chunk of its own). */
#define CHUNK (1u << 20)

/* `size` bytes (8-aligned) for a message's copy, in the last chunk or a new one (*chunk). */
static uint8_t *chunk_alloc(trak_ftrace *f, size_t size, uint32_t *chunk) {
  size = (size + 7) & ~(size_t)7;
  trak_fchunk *last = f->chunks.n ? &f->chunks.v[f->chunks.n - 1] : NULL;
  if (!last || !last->base || last->size - last->used < size) {
    /* every page present at once, as the queue's blocks (ftrace_queue.c) */
    trak_fchunk c = {NULL, 0, size > CHUNK ? size : CHUNK, 0};
    c.base = mmap(NULL, c.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                  -1, 0);
    if (c.base == MAP_FAILED) abort();
    trak_vec_push(f->chunks, c);
    last = &f->chunks.v[f->chunks.n - 1];
  }
  uint8_t *p = last->base + last->used;
  last->used += size;
  last->live++;
  *chunk = (uint32_t)(f->chunks.n - 1);
  return p;
}

static void chunk_unmap(trak_fchunk *c) {
  if (c->base) munmap(c->base, c->size);
  c->base = NULL;
}

/* Keeps a copy of the message and its ids, and queues its runs (none when it has no events). */
static void runs_push(trak_importer *imp, uint32_t cpu, const trak_compact_sched *cs,
                      const uint8_t *data, size_t len, const uint32_t *ids, size_t n_ids,
                      const run_count *sw, const run_count *wk) {
  if (!sw->n && !wk->n) return;
  trak_ftrace *f = imp->ftrace;
  size_t ids_at = (len + 7) & ~(size_t)7, size = ids_at + n_ids * sizeof *ids;
  uint32_t chunk;
  uint8_t *mem = chunk_alloc(f, size, &chunk);
  memcpy(mem, data, len);
  if (n_ids) memcpy(mem + ids_at, ids, n_ids * sizeof *ids);
  trak_fcompact c = {mem, len, (const uint32_t *)(mem + ids_at), (sw->n != 0) + (wk->n != 0),
                     chunk, {{{0}, {0}, 0}, {{0}, {0}, 0}}};
  trak__compact_cols_of(cs, data, 0, &c.cols[0]);
  trak__compact_cols_of(cs, data, 1, &c.cols[1]);
  trak_vec_push(f->compacts, c);
  uint32_t ci = (uint32_t)(f->compacts.n - 1);
  trak__ftrace_cpu_seen(imp, cpu);
  run_push(imp, cpu, ci, 0, sw); /* switches first: their queue is made first */
  run_push(imp, cpu, ci, 1, wk);
}

int trak__sched_compact_runs(trak_importer *imp, uint32_t cpu, const trak_compact_sched *cs,
                             const uint8_t *data, size_t len, const uint32_t *ids, size_t n_ids,
                             const trak_compact_count *counted) {
  trak_ftrace *f = trak__ftrace_get(imp);
  /* a run counts its events in 32 bits: an event takes a byte of the message at least */
  if (f->compact_records || len > UINT32_MAX) return -1;
  run_count sw = {0, 0, 0, 1}, wk = {0, 0, 0, 1};
  trak_compact_count cs_sw, cs_wk;
  if (counted) cs_sw = counted[0], cs_wk = counted[1];
  if (counted || (trak__compact_count(cs, 0, &cs_sw) && trak__compact_count(cs, 1, &cs_wk))) {
    /* plain arrays (nearly every message): counted without decoding every field */
    sw = (run_count){(uint32_t)cs_sw.n, cs_sw.first, cs_sw.last, cs_sw.sorted};
    wk = (run_count){(uint32_t)cs_wk.n, cs_wk.first, cs_wk.last, cs_wk.sorted};
    runs_push(imp, cpu, cs, data, len, ids, n_ids, &sw, &wk);
    return 0;
  }
  /* Else the walks of the per-event path, to count what each gives (and its errors). */
  trak_compact_iter it;
  trak_compact_switch s;
  trak__compact_switch_begin(&it, cs);
  while (trak__compact_switch_next(&it, &s))
    count_add(&sw, s.ts);
  int bad = trak__compact_iter_bad(&it);
  trak_compact_waking w;
  trak__compact_waking_begin(&it, cs);
  while (!bad && trak__compact_waking_next(&it, &w))
    count_add(&wk, w.ts);
  bad = bad || trak__compact_iter_bad(&it);
  runs_push(imp, cpu, cs, data, len, ids, n_ids, &sw, &wk);
  return bad;
}

trak_frun *trak__frun_open(trak_importer *imp, const trak_fq_rec *run) {
  trak_fcompact *c = &imp->ftrace->compacts.v[run->pid];
  trak_frun *r = malloc(sizeof *r);
  if (!r) abort();
  r->compact = run->pid;
  r->cpu = run->cpu;
  r->waking = (uint8_t)run->p1;
  r->left = run->a;
  trak__compact_batch_begin(&r->walk, c->bytes, &c->cols[r->waking], r->waking);
  if (!trak__frun_refill(imp, r)) abort(); /* the walk at queueing time gave run->a >= 1 events */
  return r;
}

/* The run's next events decoded into r->buf: the records trak__sched_switch_compact and
** trak__sched_waking_compact make of them. */
static void records(trak_frun *r, const uint32_t *ids, const trak_compact_rows *rows, size_t n) {
  const uint64_t(*v)[TRAK_COMPACT_BATCH] = rows->v;
  if (!r->waking) {
    for (size_t i = 0; i < n; i++) {
      trak_compact_switch s;
      trak__compact_switch_set(&s, v[0][i], v[1][i], v[2][i], v[3][i], v[4][i]);
      r->buf[i] = trak__fq_switch_compact_rec(r->cpu, s.ts, s.prev_state, (uint32_t)s.next_pid,
                                              ids[s.next_comm_index], s.next_prio);
    }
    return;
  }
  for (size_t i = 0; i < n; i++) {
    trak_compact_waking w;
    trak__compact_waking_set(&w, v[0][i], v[1][i], v[2][i], v[3][i], v[4][i], i < rows->n_flags,
                             v[5][i]);
    /* without waking_common_flags (older recorders) Perfetto takes flags 0: irq_context 0 */
    r->buf[i] = trak__fq_waking_compact_rec(r->cpu, w.ts, w.common_flags, (uint32_t)w.pid,
                                            ids[w.comm_index], w.prio, w.target_cpu);
  }
}

int trak__frun_refill(trak_importer *imp, trak_frun *r) {
  trak_ftrace *f = imp->ftrace;
  trak_fcompact *c = &f->compacts.v[r->compact];
  if (r->left) {
    size_t n = r->left < TRAK_COMPACT_BATCH ? r->left : TRAK_COMPACT_BATCH;
    trak_compact_rows rows;
    /* the same bytes walked the same way: the run's events are there */
    if (trak__compact_batch_next(&r->walk, &rows, n) != n) abort();
    records(r, c->ids, &rows, n);
    r->left -= (uint32_t)n;
    r->at = r->buf;
    r->end = r->buf + n;
    return 1;
  }
  /* the chunk goes once its messages are applied (a chunk still being filled: at the end) */
  if (!--c->refs && !--f->chunks.v[c->chunk].live && c->chunk + 1 < f->chunks.n)
    chunk_unmap(&f->chunks.v[c->chunk]);
  free(r);
  return 0;
}

void trak__fcompacts_free(trak_ftrace *f) {
  for (size_t i = 0; i < f->chunks.n; i++)
    chunk_unmap(&f->chunks.v[i]);
  trak_vec_free(f->chunks);
  trak_vec_free(f->compacts);
}
