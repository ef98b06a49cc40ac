/*
** This file holds the kernel's memory allocator events as Perfetto's ftrace parser reads them:
** ion_stat and dma_heap_stat (a heap's total on a global counter, the allocating thread's change
** on its own counter, each buffer a slice "<len / 1024> kB" on the lanes of a global track
** while it lives), and the Contiguous Memory Allocator's allocations as "mm_cma_alloc" slices
** on the allocating thread's track, their figures as args, by the kernel's version: 5.10 to
** 6.0 cma_alloc_start to cma_alloc_info, from 6.1 cma_alloc_start to cma_alloc_finish with
** the figures of mm_alloc_contig_migrate_range_info between. Events are queued and applied in
** timestamp order.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "processor/import/ftrace/ftrace_internal.h"

/* Queued kinds (the record's `a`). */
enum { MEM_ION, MEM_DMA_HEAP, MEM_CMA_START, MEM_CMA_MIGRATE, MEM_CMA_FINISH, MEM_CMA_INFO };

/* The figures of a CMA event, kept aside (the record's s1 is their index). */
typedef struct cma_figures {
  uint32_t name; /* string id */
  uint64_t pfn, count, migrated, reclaimed, mapped;
  uint32_t err_iso, err_mig, err_test;
} cma_figures;

struct trak_fmem {
  TRAK_VEC(cma_figures) figures;
  trak_map migrate_at; /* utid -> index in figures + 1 of its last migration's (0: zeroed) */
};

static struct trak_fmem *mem_get(trak_importer *imp) {
  return trak__ftrace_part(imp, (void **)&trak__ftrace_get(imp)->mem, sizeof(struct trak_fmem));
}

void trak__mem_free(trak_ftrace *f) {
  if (!f->mem) return;
  trak_vec_free(f->mem->figures);
  trak__map_free(&f->mem->migrate_at);
  free(f->mem);
  f->mem = NULL;
}

static void push(trak_importer *imp, trak_fq_rec *r) {
  r->type = TRAK_FQ_MEM;
  trak__fq_push_seen(imp, r);
}

void trak__ion_stat(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int dma_heap,
                    uint64_t buffer, int64_t len, uint64_t total) {
  trak_fq_rec r = {ts, len, cpu, tid, dma_heap ? MEM_DMA_HEAP : MEM_ION, 0, 0, 0, 0, 0, 0, 0};
  /* the buffer's id (an ion buffer_id, a dma-buf inode) in s1 and s2, the total in p1 and p2 */
  r.s1 = (uint32_t)buffer, r.s2 = (uint32_t)(buffer >> 32);
  r.p1 = (int32_t)(uint32_t)total, r.p2 = (int32_t)(uint32_t)(total >> 32);
  push(imp, &r);
}

void trak__cma(trak_importer *imp, uint32_t cpu, int64_t ts, uint32_t tid, int kind,
               const trak_cma *c) {
  struct trak_fmem *m = mem_get(imp);
  static const uint32_t kinds[] = {MEM_CMA_START, MEM_CMA_MIGRATE, MEM_CMA_FINISH, MEM_CMA_INFO};
  cma_figures fig = {c->name,      c->pfn,     c->count,   c->migrated, c->reclaimed,
                     c->mapped,    c->err_iso, c->err_mig, c->err_test};
  trak_vec_push(m->figures, fig);
  trak_fq_rec r = {ts, 0, cpu, tid, kinds[kind & 3], (uint32_t)(m->figures.n - 1), 0, 0, 0, 0, 0, 0};
  push(imp, &r);
}

/* The counter track of `kind` of the unnamed heap (ion; dma heaps have none), for thread `utid`
** (TRAK_NULL_U32: the global one), named `name`, made on first use. */
static uint32_t heap_track(trak_importer *imp, trak_track_kind_id kind, uint32_t utid,
                           const char *name) {
  uint32_t heap = kind == TRAK_TK_ION || kind == TRAK_TK_ION_CHANGE ? trak__ftrace_str(imp, "") : 0;
  if (utid == TRAK_NULL_U32)
    return trak__system_counter_track(imp, kind, TRAK_NULL_U32, 0, heap,
                                      trak__ftrace_str(imp, name));
  uint64_t key = trak__track_key(kind, utid, heap);
  uint32_t *known = trak__map_get(&imp->tracks.by_uuid, key | 1ULL << 63);
  if (known) return *known;
  uint32_t track = trak__keyed_track(imp, key, trak__ftrace_str(imp, name), TRAK_NULL_U32, 1, kind);
  trak_track_info *info = &imp->tracks.info.v[track];
  info->is_thread = 1, info->utid = utid, info->dim_key = heap;
  info->machine = imp->tables->thread.machine_id[utid];
  return track;
}

/* An ion_stat or dma_heap_stat: the total, the thread's change, the buffer's slice. */
static void heap_apply(trak_importer *imp, const trak_fq_rec *r) {
  int dma = r->a == MEM_DMA_HEAP;
  uint64_t buffer = (uint64_t)r->s2 << 32 | r->s1;
  uint64_t total = (uint64_t)(uint32_t)r->p2 << 32 | (uint32_t)r->p1;
  trak__ftrace_ev(imp, r->ts, TRAK_EV_COUNTER,
                  heap_track(imp, dma ? TRAK_TK_ANDROID_DMA_HEAP : TRAK_TK_ION, TRAK_NULL_U32,
                             dma ? "mem.dma_heap" : "mem.ion"),
                  0, (double)total);
  uint32_t utid = trak__ftrace_utid(imp, r->pid);
  uint32_t change = heap_track(imp, dma ? TRAK_TK_ANDROID_DMA_HEAP_CHANGE : TRAK_TK_ION_CHANGE,
                               utid, dma ? "mem.dma_heap_change" : "mem.ion_change");
  uint32_t set = TRAK_NULL_U32;
  if (dma) {
    set = trak__ftrace_args_begin(imp);
    trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "inode"), buffer);
    set = trak__args_share(imp, set);
  }
  trak__ftrace_counter_ev(imp, r->ts, change, (double)r->x, set);
  uint32_t s = trak__lane_set(
      imp, dma ? TRAK_TK_ANDROID_DMA_ALLOCATIONS : TRAK_TK_ANDROID_ION_ALLOCATIONS, TRAK_NULL_U32,
      trak__ftrace_str(imp, dma ? "mem.dma_buffer" : "mem.ion_buffer"));
  /* Perfetto's ion cookie is the uint32 buffer_id, the dma-buf's its inode as an int64 */
  trak_clane *ln = trak__lane_for_cookie(imp, s, (int64_t)buffer);
  uint32_t track = ln->track;
  if (r->x > 0) {
    char name[32];
    snprintf(name, sizeof name, "%" PRId64 " kB", r->x / 1024);
    trak__lane_nest(imp, ln, 1, 0);
    trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_BEGIN, track, trak__ftrace_str(imp, name), 0,
                          TRAK_NULL_U32);
  } else {
    trak__lane_nest(imp, ln, -1, 0);
    trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_END, track, 0, 0, TRAK_NULL_U32);
  }
}

/* The kernel's version is at least major.minor (unknown: never). */
static int kernel_at_least(const trak_ftrace *f, int major, int minor) {
  return f->kernel_major > major || (f->kernel_major == major && f->kernel_minor >= minor);
}

/* A CMA event, by the kernel's version (cma_alloc_info: 5.10 to 6.0; the rest from 6.1, but
** cma_alloc_start from 5.10). */
static void cma_apply(trak_importer *imp, const trak_fq_rec *r) {
  trak_ftrace *f = imp->ftrace;
  struct trak_fmem *m = mem_get(imp);
  int v5_10 = kernel_at_least(f, 5, 10), v6_1 = kernel_at_least(f, 6, 1);
  if (!v5_10 || (r->a == MEM_CMA_INFO && v6_1) || (r->a != MEM_CMA_INFO && r->a != MEM_CMA_START &&
                                                   !v6_1))
    return;
  uint32_t utid = trak__ftrace_utid(imp, r->pid);
  int added;
  if (r->a == MEM_CMA_START || r->a == MEM_CMA_MIGRATE) {
    /* a start zeroes the thread's migration figures (from 6.1), a migration sets them */
    if (r->a == MEM_CMA_MIGRATE || v6_1)
      *trak__map_put(&m->migrate_at, utid, 0, &added) = r->a == MEM_CMA_MIGRATE ? r->s1 + 1 : 0;
    if (r->a == MEM_CMA_START)
      trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_BEGIN, trak__legacy_thread_track(imp, utid),
                            trak__ftrace_str(imp, "mm_cma_alloc"), 0, TRAK_NULL_U32);
    return;
  }
  const cma_figures *c = &m->figures.v[r->s1];
  cma_figures mig = {0};
  if (r->a == MEM_CMA_INFO) {
    mig = *c;
  } else {
    uint32_t *at = trak__map_get(&m->migrate_at, utid);
    if (at && *at) mig = m->figures.v[*at - 1];
  }
  uint32_t set = trak__ftrace_args_begin(imp);
  trak__ftrace_arg_str(imp, set, trak__ftrace_str(imp, "cma_name"), c->name);
  trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "cma_pfn"), c->pfn);
  trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "cma_req_pages"), c->count);
  trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "cma_nr_migrated"), mig.migrated);
  trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "cma_nr_reclaimed"), mig.reclaimed);
  trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "cma_nr_mapped"), mig.mapped);
  if (r->a == MEM_CMA_INFO) {
    trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "cma_nr_isolate_fail"), c->err_iso);
    trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "cma_nr_migrate_fail"), c->err_mig);
    trak__ftrace_arg_uint(imp, set, trak__ftrace_str(imp, "cma_nr_test_fail"), c->err_test);
  }
  trak__ftrace_slice_ev(imp, r->ts, TRAK_EV_END, trak__legacy_thread_track(imp, utid), 0, 0,
                        trak__args_share(imp, set));
}

void trak__fa_mem(trak_importer *imp, const trak_fq_rec *r) {
  if (r->a == MEM_ION || r->a == MEM_DMA_HEAP)
    heap_apply(imp, r);
  else
    cma_apply(imp, r);
}
