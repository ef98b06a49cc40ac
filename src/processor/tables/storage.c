/*
** This file holds the storage primitives of processor/storage.h: growable arrays, the u64 hash
** map, the string pool, and the row appenders of the columnar tables.
*/
#include "processor/tables/storage.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

__attribute__((noinline, cold)) static void out_of_memory(void) {
  fputs("trak: out of memory\n", stderr);
  abort();
}

void trak__grow(void **ptr, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return;
  size_t n = *cap ? *cap : 16;
  while (n < need)
    n += n / 2 + 16; /* 1.5x keeps the peak of a realloc copy lower than 2x */
  void *p = realloc(*ptr, n * size);
  if (!p) out_of_memory();
  *ptr = p;
  *cap = n;
}

/* ---- u64 map --------------------------------------------------------------------------- */

static inline size_t hash64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return (size_t)k;
}

uint32_t *trak__map_get(const trak_map *m, uint64_t key) {
  if (!m->cap) return NULL;
  size_t mask = m->cap - 1;
  for (size_t i = hash64(key) & mask;; i = (i + 1) & mask) {
    if (!m->used[i]) return NULL;
    if (m->keys[i] == key) return &m->vals[i];
  }
}

static void map_rehash(trak_map *m, size_t cap) {
  trak_map bigger = {calloc(cap, 8), calloc(cap, 4), calloc(cap, 1), cap, 0};
  if (!bigger.keys || !bigger.vals || !bigger.used) out_of_memory();
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->used[i]) continue;
    int added;
    *trak__map_put(&bigger, m->keys[i], 0, &added) = m->vals[i];
  }
  trak__map_free(m);
  *m = bigger;
}

uint32_t *trak__map_put(trak_map *m, uint64_t key, uint32_t init, int *added) {
  if ((m->n + 1) * 4 > m->cap * 3) map_rehash(m, m->cap ? m->cap * 2 : 16);
  size_t mask = m->cap - 1;
  size_t i = hash64(key) & mask;
  for (; m->used[i]; i = (i + 1) & mask) {
    if (m->keys[i] == key) {
      *added = 0;
      return &m->vals[i];
    }
  }
  m->used[i] = 1;
  m->keys[i] = key;
  m->vals[i] = init;
  m->n++;
  *added = 1;
  return &m->vals[i];
}

void trak__map_clear(trak_map *m) {
  if (m->cap) memset(m->used, 0, m->cap);
  m->n = 0;
}

void trak__map_free(trak_map *m) {
  free(m->keys);
  free(m->vals);
  free(m->used);
  memset(m, 0, sizeof *m);
}

/* ---- string pool ----------------------------------------------------------------------- */

#define STRPOOL_BLOCK (1u << 20)

/* Hashes eight bytes per step (names and argument strings are mostly 8-40 bytes). */
static inline size_t hash_bytes(const char *s, size_t len) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;
  while (len >= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
    s += 8, len -= 8;
  }
  uint64_t tail = 0;
  if (len) memcpy(&tail, s, len);
  h = (h ^ tail) * 0xc4ceb9fe1a85ec53ULL;
  /* Fold the high half down: the table index takes low bits, and bytes late in the tail
  ** (the digits ending "https://example.com/123") only reach high bits of the product. */
  h ^= h >> 32;
  return (size_t)(h ^ (h >> 29));
}

void trak__strpool_init(trak_strpool *sp) {
  memset(sp, 0, sizeof *sp);
  trak_vec_push(sp->str, NULL); /* id 0 is NULL */
  trak_vec_push(sp->len, 0);
}

void trak__strpool_free(trak_strpool *sp) {
  for (size_t i = 0; i < sp->blocks.n; i++)
    free(sp->blocks.v[i]);
  trak_vec_free(sp->blocks);
  trak_vec_free(sp->str);
  trak_vec_free(sp->len);
  free(sp->slots);
  memset(sp, 0, sizeof *sp);
}

uint32_t trak__strpool_find(const trak_strpool *sp, const char *s, size_t len) {
  if (!sp->slot_cap) return 0;
  size_t mask = sp->slot_cap - 1;
  for (size_t i = hash_bytes(s, len) & mask;; i = (i + 1) & mask) {
    uint32_t id = sp->slots[i];
    if (!id) return 0;
    if (sp->len.v[id] == len && !memcmp(sp->str.v[id], s, len)) return id;
  }
}

static void strpool_rehash(trak_strpool *sp) {
  size_t cap = sp->slot_cap ? sp->slot_cap * 2 : 1024;
  uint32_t *slots = calloc(cap, sizeof *slots);
  if (!slots) out_of_memory();
  for (uint32_t id = 1; id < sp->str.n; id++) {
    size_t i = hash_bytes(sp->str.v[id], sp->len.v[id]) & (cap - 1);
    while (slots[i])
      i = (i + 1) & (cap - 1);
    slots[i] = id;
  }
  free(sp->slots);
  sp->slots = slots;
  sp->slot_cap = cap;
}

static char *strpool_alloc(trak_strpool *sp, size_t n) {
  if (sp->block_used + n > sp->block_cap) {
    size_t cap = n > STRPOOL_BLOCK ? n : STRPOOL_BLOCK;
    char *block = malloc(cap);
    if (!block) out_of_memory();
    trak_vec_push(sp->blocks, block);
    sp->block = block;
    sp->block_used = 0;
    sp->block_cap = cap;
  }
  char *p = sp->block + sp->block_used;
  sp->block_used += n;
  return p;
}

uint32_t trak__strpool_intern(trak_strpool *sp, const char *s, size_t len) {
  if ((sp->str.n + 1) * 2 > sp->slot_cap) strpool_rehash(sp);
  size_t mask = sp->slot_cap - 1;
  size_t i = hash_bytes(s, len) & mask;
  for (; sp->slots[i]; i = (i + 1) & mask) {
    uint32_t id = sp->slots[i];
    if (sp->len.v[id] == len && !memcmp(sp->str.v[id], s, len)) return id;
  }
  char *copy = strpool_alloc(sp, len + 1);
  memcpy(copy, s, len);
  copy[len] = 0;
  uint32_t id = (uint32_t)sp->str.n;
  trak_vec_push(sp->str, copy);
  trak_vec_push(sp->len, (uint32_t)len);
  sp->slots[i] = id;
  return id;
}

/* ---- tables ---------------------------------------------------------------------------- */

const char *const trak__arg_type_names[] = {"int",     "uint", "string", "real",
                                            "pointer", "bool", "json",   "null"};

void trak__tables_init(trak_tables *t) {
  memset(t, 0, sizeof *t);
  trak__strpool_init(&t->strings);
}

/* Frees every column array of a table struct: they are the pointer members after n and cap. */
#define FREE_COLS(table, ...)                                                                      \
  do {                                                                                             \
    void *cols_[] = {__VA_ARGS__};                                                                 \
    for (size_t i_ = 0; i_ < sizeof cols_ / sizeof *cols_; i_++)                                   \
      free(cols_[i_]);                                                                             \
  } while (0)

void trak__tables_free(trak_tables *t) {
  FREE_COLS(slice, t->slice.thread_ts, t->slice.thread_dur, t->slice.thread_ic,
            t->slice.thread_icd);
  FREE_COLS(slice, t->slice.ts, t->slice.dur, t->slice.track_id, t->slice.name, t->slice.category,
            t->slice.depth, t->slice.parent_id, t->slice.arg_set_id);
  FREE_COLS(track, t->track.name, t->track.type, t->track.parent_id, t->track.source_arg_set_id,
            t->track.dimension_arg_set_id, t->track.utid, t->track.upid, t->track.unit,
            t->track.description, t->track.kind, t->track.classification, t->track.machine_id);
  FREE_COLS(thread, t->thread.tid, t->thread.name, t->thread.upid, t->thread.is_main,
            t->thread.is_idle, t->thread.arg_set_id, t->thread.machine_id);
  FREE_COLS(process, t->process.pid, t->process.start_ts, t->process.name, t->process.cmdline,
            t->process.arg_set_id, t->process.machine_id, t->process.parent_upid, t->process.uid,
            t->process.android_appid, t->process.android_user_id);
  FREE_COLS(machine, t->machine.raw_id, t->machine.label_index, t->machine.name, t->machine.sysname,
            t->machine.release, t->machine.version, t->machine.arch, t->machine.fingerprint,
            t->machine.manufacturer, t->machine.num_cpus, t->machine.sdk_version,
            t->machine.ram_bytes, t->machine.ram_gb);
  FREE_COLS(counter, t->counter.ts, t->counter.value, t->counter.track_id, t->counter.arg_set_id);
  FREE_COLS(state, t->state.ts, t->state.dur, t->state.track_id, t->state.category, t->state.value,
            t->state.arg_set_id);
  FREE_COLS(flow, t->flow.slice_out, t->flow.slice_in, t->flow.trace_id, t->flow.arg_set_id);
  FREE_COLS(args, t->args.arg_set_id, t->args.flat_key, t->args.key, t->args.string_value,
            t->args.int_value, t->args.real_value, t->args.value_type);
  trak_vec_free(t->stack_profile.mappings);
  trak_vec_free(t->stack_profile.frames);
  trak_vec_free(t->stack_profile.callsites);
  trak_vec_free(t->stack_profile.symbols);
  trak_vec_free(t->stack_profile.te_callstacks);
  trak__strpool_free(&t->strings);
  memset(t, 0, sizeof *t);
}

/* Grows every column of a table together when its row count reaches the shared capacity. */
static void grow_cols(size_t n, size_t *cap, void **cols[], const size_t sizes[], size_t ncols) {
  if (n < *cap) return;
  size_t newcap = *cap ? *cap + *cap / 2 : 64;
  for (size_t i = 0; i < ncols; i++) {
    void *p = realloc(*cols[i], newcap * sizes[i]);
    if (!p) out_of_memory();
    *cols[i] = p;
  }
  *cap = newcap;
}
/* Asks for huge pages on the 2 MiB-aligned interior of a large array: a hint that cuts the
** page faults of filling it. */
static void advise_huge(void *p, size_t size) {
  const uintptr_t huge = 2u << 20;
  uintptr_t start = ((uintptr_t)p + huge - 1) & ~(huge - 1),
            end = ((uintptr_t)p + size) & ~(huge - 1);
  if (end > start) madvise((void *)start, end - start, MADV_HUGEPAGE);
}

/* Grows every column to exactly `cap` rows (when larger than now). */
static void reserve_cols(size_t *cap, size_t want, void **cols[], const size_t sizes[],
                         size_t ncols) {
  if (want <= *cap) return;
  for (size_t i = 0; i < ncols; i++) {
    void *p = realloc(*cols[i], want * sizes[i]);
    if (!p) out_of_memory();
    *cols[i] = p;
    advise_huge(p, want * sizes[i]);
  }
  *cap = want;
}

/* Keeps the optional thread-time columns as large as the others, new rows NULL. */
static void grow_thread_cols(trak_tables *t, size_t old_cap) {
  int64_t **cols[] = {&t->slice.thread_ts, &t->slice.thread_dur, &t->slice.thread_ic,
                      &t->slice.thread_icd};
  for (size_t i = 0; i < 4; i++) {
    int64_t *p = realloc(*cols[i], t->slice.cap * sizeof *p);
    if (!p) out_of_memory();
    for (size_t r = old_cap; r < t->slice.cap; r++)
      p[r] = INT64_MIN;
    *cols[i] = p;
  }
}

void trak__tables_thread_time(trak_tables *t) {
  if (!t->slice.thread_ts) grow_thread_cols(t, 0);
}

void trak__tables_reserve(trak_tables *t, size_t slices, size_t counters) {
  size_t old_cap = t->slice.cap;
  void **scols[] = {(void **)&t->slice.ts,        (void **)&t->slice.dur,
                    (void **)&t->slice.track_id,  (void **)&t->slice.name,
                    (void **)&t->slice.category,  (void **)&t->slice.depth,
                    (void **)&t->slice.parent_id, (void **)&t->slice.arg_set_id};
  static const size_t ssizes[] = {8, 8, 4, 4, 4, 4, 4, 4};
  reserve_cols(&t->slice.cap, slices, scols, ssizes, 8);
  if (t->slice.thread_ts && t->slice.cap != old_cap) grow_thread_cols(t, old_cap);
  void **ccols[] = {(void **)&t->counter.ts, (void **)&t->counter.value,
                    (void **)&t->counter.track_id, (void **)&t->counter.arg_set_id};
  static const size_t csizes[] = {8, 8, 4, 4};
  reserve_cols(&t->counter.cap, counters, ccols, csizes, 4);
}

uint32_t trak__slice_add(trak_tables *t, int64_t ts, uint32_t track, uint32_t cat, uint32_t name,
                         uint32_t depth, uint32_t parent, uint32_t arg_set_id) {
  if (t->slice.n == t->slice.cap) {
    void **cols[] = {(void **)&t->slice.ts,        (void **)&t->slice.dur,
                     (void **)&t->slice.track_id,  (void **)&t->slice.name,
                     (void **)&t->slice.category,  (void **)&t->slice.depth,
                     (void **)&t->slice.parent_id, (void **)&t->slice.arg_set_id};
    static const size_t sizes[] = {8, 8, 4, 4, 4, 4, 4, 4};
    size_t old_cap = t->slice.cap;
    grow_cols(t->slice.n, &t->slice.cap, cols, sizes, 8);
    if (t->slice.thread_ts) grow_thread_cols(t, old_cap);
  }
  size_t i = t->slice.n++;
  t->slice.ts[i] = ts;
  t->slice.dur[i] = -1;
  t->slice.track_id[i] = track;
  t->slice.name[i] = name;
  t->slice.category[i] = cat;
  t->slice.depth[i] = depth;
  t->slice.parent_id[i] = parent;
  t->slice.arg_set_id[i] = arg_set_id;
  return (uint32_t)i;
}

uint32_t trak__track_add(trak_tables *t, trak_track_kind kind) {
  if (t->track.n == t->track.cap) {
    void **cols[] = {(void **)&t->track.name,
                     (void **)&t->track.type,
                     (void **)&t->track.parent_id,
                     (void **)&t->track.source_arg_set_id,
                     (void **)&t->track.utid,
                     (void **)&t->track.upid,
                     (void **)&t->track.unit,
                     (void **)&t->track.description,
                     (void **)&t->track.kind,
                     (void **)&t->track.classification,
                     (void **)&t->track.dimension_arg_set_id,
                     (void **)&t->track.machine_id};
    static const size_t sizes[] = {4, 4, 4, 4, 4, 4, 4, 4, 1, 4, 4, 4};
    grow_cols(t->track.n, &t->track.cap, cols, sizes, 12);
  }
  size_t i = t->track.n++;
  t->track.name[i] = 0;
  t->track.type[i] = 0;
  t->track.parent_id[i] = TRAK_NULL_U32;
  t->track.source_arg_set_id[i] = TRAK_NULL_U32;
  t->track.dimension_arg_set_id[i] = TRAK_NULL_U32;
  t->track.utid[i] = TRAK_NULL_U32;
  t->track.upid[i] = TRAK_NULL_U32;
  t->track.unit[i] = 0;
  t->track.description[i] = 0;
  t->track.kind[i] = (uint8_t)kind;
  t->track.machine_id[i] = 0;
  const char *cls = trak__track_type_name(kind);
  t->track.classification[i] = trak__strpool_intern(&t->strings, cls, strlen(cls));
  return (uint32_t)i;
}

uint32_t trak__thread_add(trak_tables *t, int64_t tid) {
  if (t->thread.n == t->thread.cap) {
    void **cols[] = {(void **)&t->thread.tid,       (void **)&t->thread.name,
                     (void **)&t->thread.upid,      (void **)&t->thread.is_main,
                     (void **)&t->thread.is_idle,   (void **)&t->thread.arg_set_id,
                     (void **)&t->thread.machine_id};
    static const size_t sizes[] = {8, 4, 4, 1, 1, 4, 4};
    grow_cols(t->thread.n, &t->thread.cap, cols, sizes, 7);
  }
  size_t i = t->thread.n++;
  t->thread.tid[i] = tid;
  t->thread.name[i] = 0;
  t->thread.upid[i] = TRAK_NULL_U32;
  t->thread.is_main[i] = 2;
  t->thread.is_idle[i] = 0;
  t->thread.arg_set_id[i] = TRAK_NULL_U32;
  t->thread.machine_id[i] = 0;
  return (uint32_t)i;
}

uint32_t trak__process_add(trak_tables *t, int64_t pid) {
  if (t->process.n == t->process.cap) {
    void **cols[] = {(void **)&t->process.pid,           (void **)&t->process.start_ts,
                     (void **)&t->process.name,          (void **)&t->process.cmdline,
                     (void **)&t->process.arg_set_id,    (void **)&t->process.machine_id,
                     (void **)&t->process.parent_upid,   (void **)&t->process.uid,
                     (void **)&t->process.android_appid, (void **)&t->process.android_user_id};
    static const size_t sizes[] = {8, 8, 4, 4, 4, 4, 4, 8, 8, 8};
    grow_cols(t->process.n, &t->process.cap, cols, sizes, 10);
  }
  size_t i = t->process.n++;
  t->process.pid[i] = pid;
  t->process.start_ts[i] = INT64_MIN;
  t->process.name[i] = 0;
  t->process.cmdline[i] = 0;
  t->process.arg_set_id[i] = TRAK_NULL_U32;
  t->process.machine_id[i] = 0;
  t->process.parent_upid[i] = TRAK_NULL_U32;
  t->process.uid[i] = t->process.android_appid[i] = t->process.android_user_id[i] = INT64_MIN;
  return (uint32_t)i;
}

uint32_t trak__machine_add(trak_tables *t, int64_t raw_id) {
  if (t->machine.n == t->machine.cap) {
    void **cols[] = {(void **)&t->machine.raw_id,       (void **)&t->machine.label_index,
                     (void **)&t->machine.name,         (void **)&t->machine.sysname,
                     (void **)&t->machine.release,      (void **)&t->machine.version,
                     (void **)&t->machine.arch,         (void **)&t->machine.fingerprint,
                     (void **)&t->machine.manufacturer, (void **)&t->machine.num_cpus,
                     (void **)&t->machine.sdk_version,  (void **)&t->machine.ram_bytes,
                     (void **)&t->machine.ram_gb};
    static const size_t sizes[] = {8, 8, 4, 4, 4, 4, 4, 4, 4, 8, 8, 8, 8};
    grow_cols(t->machine.n, &t->machine.cap, cols, sizes, 13);
  }
  size_t i = t->machine.n++;
  t->machine.raw_id[i] = raw_id;
  t->machine.label_index[i] = (int64_t)i + (t->machine.raw_id[0] != 0);
  t->machine.name[i] = t->machine.sysname[i] = t->machine.release[i] = 0;
  t->machine.version[i] = t->machine.arch[i] = 0;
  t->machine.fingerprint[i] = t->machine.manufacturer[i] = 0;
  t->machine.num_cpus[i] = t->machine.sdk_version[i] = INT64_MIN;
  t->machine.ram_bytes[i] = t->machine.ram_gb[i] = INT64_MIN;
  return (uint32_t)i;
}

uint32_t trak__counter_add(trak_tables *t, int64_t ts, uint32_t track, double value) {
  if (t->counter.n == t->counter.cap) {
    void **cols[] = {(void **)&t->counter.ts, (void **)&t->counter.value,
                     (void **)&t->counter.track_id, (void **)&t->counter.arg_set_id};
    static const size_t sizes[] = {8, 8, 4, 4};
    grow_cols(t->counter.n, &t->counter.cap, cols, sizes, 4);
  }
  size_t i = t->counter.n++;
  t->counter.ts[i] = ts;
  t->counter.value[i] = value;
  t->counter.track_id[i] = track;
  t->counter.arg_set_id[i] = TRAK_NULL_U32;
  return (uint32_t)i;
}

uint32_t trak__state_add(trak_tables *t, int64_t ts, uint32_t track, uint32_t category,
                         uint32_t value, uint32_t arg_set_id) {
  if (t->state.n == t->state.cap) {
    void **cols[] = {(void **)&t->state.ts,       (void **)&t->state.dur,
                     (void **)&t->state.track_id, (void **)&t->state.category,
                     (void **)&t->state.value,    (void **)&t->state.arg_set_id};
    static const size_t sizes[] = {8, 8, 4, 4, 4, 4};
    grow_cols(t->state.n, &t->state.cap, cols, sizes, 6);
  }
  size_t i = t->state.n++;
  t->state.ts[i] = ts;
  t->state.dur[i] = -1;
  t->state.track_id[i] = track;
  t->state.category[i] = category;
  t->state.value[i] = value;
  t->state.arg_set_id[i] = arg_set_id;
  return (uint32_t)i;
}

uint32_t trak__flow_add(trak_tables *t, uint32_t out, uint32_t in, int64_t trace_id) {
  if (t->flow.n == t->flow.cap) {
    void **cols[] = {(void **)&t->flow.slice_out, (void **)&t->flow.slice_in,
                     (void **)&t->flow.trace_id, (void **)&t->flow.arg_set_id};
    static const size_t sizes[] = {4, 4, 8, 4};
    grow_cols(t->flow.n, &t->flow.cap, cols, sizes, 4);
  }
  size_t i = t->flow.n++;
  t->flow.slice_out[i] = out;
  t->flow.slice_in[i] = in;
  t->flow.trace_id[i] = trace_id;
  t->flow.arg_set_id[i] = TRAK_NULL_U32;
  return (uint32_t)i;
}

uint32_t trak__arg_add(trak_tables *t, uint32_t arg_set_id, uint32_t flat_key, uint32_t key,
                       trak_arg_type type) {
  if (t->args.n == t->args.cap) {
    void **cols[] = {(void **)&t->args.arg_set_id, (void **)&t->args.flat_key,
                     (void **)&t->args.key,        (void **)&t->args.string_value,
                     (void **)&t->args.int_value,  (void **)&t->args.real_value,
                     (void **)&t->args.value_type};
    static const size_t sizes[] = {4, 4, 4, 4, 8, 8, 1};
    grow_cols(t->args.n, &t->args.cap, cols, sizes, 7);
  }
  size_t i = t->args.n++;
  t->args.arg_set_id[i] = arg_set_id;
  t->args.flat_key[i] = flat_key;
  t->args.key[i] = key;
  t->args.string_value[i] = 0;
  t->args.int_value[i] = 0;
  t->args.real_value[i] = 0;
  t->args.value_type[i] = (uint8_t)type;
  return (uint32_t)i;
}

const char *trak__track_type_name(trak_track_kind kind) {
  static const char *const names[] = {
      "track",         "thread_track",         "process_track",
      "counter_track", "thread_counter_track", "process_counter_track",
      "state_track",   "thread_state_track",   "process_state_track"};
  return names[kind];
}

void trak__csr_build(trak_csr *csr, size_t n, size_t m, const uint32_t *from, const uint32_t *to) {
  csr->off = calloc(n + 1, sizeof *csr->off);
  csr->ids = malloc((m ? m : 1) * sizeof *csr->ids);
  if (!csr->off || !csr->ids) out_of_memory();
  for (size_t i = 0; i < m; i++)
    if (from[i] < n) csr->off[from[i] + 1]++;
  for (size_t i = 0; i < n; i++)
    csr->off[i + 1] += csr->off[i];
  uint32_t *fill = malloc((n + 1) * sizeof *fill);
  if (!fill) out_of_memory();
  memcpy(fill, csr->off, (n + 1) * sizeof *fill);
  for (size_t i = 0; i < m; i++)
    if (from[i] < n) csr->ids[fill[from[i]]++] = to ? to[i] : (uint32_t)i;
  free(fill);
}

void trak__csr_free(trak_csr *csr) {
  free(csr->off);
  free(csr->ids);
  csr->off = csr->ids = NULL;
}
