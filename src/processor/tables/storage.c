/*
** This file holds the storage primitives of processor/storage.h: growable arrays, the u64 hash
** map (and its variant with slots side by side), the string pool, and the row appenders of the
** columnar tables.
*/
#define _GNU_SOURCE /* mremap */
#include "processor/tables/storage.h"
#include "processor/tables/prefault.h"
#include "util/utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
  size_t i = trak__map_hash(key) & mask;
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

/* ---- u64 map, slots side by side ------------------------------------------------------ */

#ifndef SLOT_HUGE /* a test build may set it and SLOT_MAPPED lower, to take every path soon */
#define SLOT_HUGE ((size_t)2 << 20)
#endif

#ifndef SLOT_MAPPED
#define SLOT_MAPPED ((size_t)64 << 10)
#endif
/* Entries whose pages a put makes present at once when it reaches them (ENTRY_AHEAD keys are
** 64 KiB, their values 32 KiB): one call instead of a fault a page (16 and 8 of them). */
#define ENTRY_AHEAD 8192
/* Up to 2^SLOT_KEPT_BITS slots a growth places each slot by the 32 hash bits it keeps; past
** that it hashes the key again (a test build may set 0 to take that path always). */
#ifndef SLOT_KEPT_BITS
#define SLOT_KEPT_BITS 32
#endif

/* Zeroed room for `cap` slots: calloc'd under 64 KiB, mapped from then on (zero already: calloc
** would clear memory malloc had used) and made present at once (the growth that asks reads and
** writes slots on every page: a read fault mapped the zero page, then the write copied it, two
** faults a page); from 2 MiB on, whole 2 MiB pages aligned to them with the huge-page hint: the
** slots are probed at random, and with 4 KiB pages nearly every probe of a map larger than the
** caches missed the TLB as well. */
static trak_slot *slots_alloc(size_t cap) {
  size_t bytes = cap * sizeof(trak_slot);
  if (bytes < SLOT_MAPPED) return calloc(cap, sizeof(trak_slot));
  size_t align = bytes < SLOT_HUGE ? 0 : SLOT_HUGE;
  uint8_t *p =
      mmap(NULL, bytes + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  if (!align) {
    madvise(p, bytes, MADV_POPULATE_WRITE); /* (a failure leaves the faults) */
    return (trak_slot *)p;
  }
  uintptr_t start = ((uintptr_t)p + SLOT_HUGE - 1) & ~(uintptr_t)(SLOT_HUGE - 1);
  size_t head = start - (uintptr_t)p, tail = SLOT_HUGE - head;
  if (head) munmap(p, head);
  if (tail) munmap((uint8_t *)start + bytes, tail);
  madvise((void *)start, bytes, MADV_HUGEPAGE);
  madvise((void *)start, bytes, MADV_POPULATE_WRITE);
  return (trak_slot *)start;
}

static void slots_free(trak_slot *slots, size_t cap) {
  if (!slots) return;
  size_t bytes = cap * sizeof(trak_slot);
  if (bytes < SLOT_MAPPED)
    free(slots);
  else
    munmap(slots, bytes);
}

/* Moves `p` (`from` bytes; NULL when 0) to room for `to` bytes, its bytes kept: mapped memory,
** grown with mremap, which copies no byte (a realloc copied them). NULL when out of memory (`p`
** is then still there). */
static void *entries_grow(void *p, size_t from, size_t to) {
  void *q = from ? mremap(p, from, to, MREMAP_MAYMOVE)
                 : mmap(NULL, to, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return q == MAP_FAILED ? NULL : q;
}

static void entries_free(void *p, size_t bytes) {
  if (p) munmap(p, bytes);
}

/* Entries the map holds room for with `cap` slots (3/4 of them: it grows past that). */
static size_t entries_room(size_t cap) {
  return cap / 4 * 3;
}

/* Makes the pages of entries [e, e + ENTRY_AHEAD) present, within the room (e: a multiple of
** ENTRY_AHEAD, so both arrays' ranges start on a page). */
static void entries_ahead(const trak_slot_map *m, size_t e) {
  size_t n = entries_room(m->cap) - e;
  if (n > ENTRY_AHEAD) n = ENTRY_AHEAD;
  madvise(m->keys + e, n * sizeof *m->keys, MADV_POPULATE_WRITE);
  madvise(m->vals + e, n * sizeof *m->vals, MADV_POPULATE_WRITE);
}

/* Doubles m's slots (16 at first) and the room of its entries. The old slots are read in order
** and each goes to twice its home or one past it: the new slots are written nearly in order,
** from the hash bits kept (a key is hashed again only past 2^32 slots). */
static void slot_map_grow(trak_slot_map *m) {
  size_t cap = m->cap ? m->cap * 2 : 16, room = entries_room(m->cap), more = entries_room(cap);
  unsigned bits = m->cap ? m->bits + 1 : 4;
  trak_slot *slots = slots_alloc(cap);
  uint64_t *keys = entries_grow(m->keys, room * sizeof *keys, more * sizeof *keys);
  if (keys) m->keys = keys;
  uint32_t *vals = keys ? entries_grow(m->vals, room * sizeof *vals, more * sizeof *vals) : NULL;
  if (!slots || !vals) out_of_memory();
  m->vals = vals;
  size_t mask = cap - 1;
  for (size_t i = 0; i < m->cap; i++) {
    const trak_slot s = m->slots[i];
    if (!s.entry) continue;
    size_t j = bits <= SLOT_KEPT_BITS
                   ? s.hash >> (32 - bits)
                   : (size_t)(trak__slot_hash(m->keys[s.entry - 1]) >> (64 - bits));
    while (slots[j].entry) /* keys are distinct: no compare */
      j = (j + 1) & mask;
    slots[j] = s;
  }
  slots_free(m->slots, m->cap);
  m->slots = slots, m->cap = cap, m->bits = bits;
}

uint32_t *trak__slot_map_put(trak_slot_map *m, uint64_t key, uint32_t init, int *added) {
  if ((m->n + 1) * 4 > m->cap * 3) slot_map_grow(m);
  const uint64_t h = trak__slot_hash(key);
  const uint32_t hash = (uint32_t)(h >> 32);
  const size_t mask = m->cap - 1;
  size_t i = (size_t)(h >> (64 - m->bits));
  for (; m->slots[i].entry; i = (i + 1) & mask) {
    const trak_slot s = m->slots[i];
    if (s.hash == hash && m->keys[s.entry - 1] == key) {
      *added = 0;
      return &m->vals[s.entry - 1];
    }
  }
  size_t e = m->n++;
  if (e >= UINT32_MAX) out_of_memory(); /* entry + 1 is 32 bits */
  if (!(e % ENTRY_AHEAD) && e) entries_ahead(m, e); /* (the first ones: a small map's) */
  m->keys[e] = key;
  m->vals[e] = init;
  m->slots[i] = (trak_slot){hash, (uint32_t)(e + 1)};
  *added = 1;
  return &m->vals[e];
}

void trak__slot_map_free(trak_slot_map *m) {
  slots_free(m->slots, m->cap);
  entries_free(m->keys, entries_room(m->cap) * sizeof *m->keys);
  entries_free(m->vals, entries_room(m->cap) * sizeof *m->vals);
  memset(m, 0, sizeof *m);
}

size_t trak__slot_map_release(trak_slot_map *m, trak_region *out) {
  size_t n = 0, slot_bytes = m->cap * sizeof(trak_slot);
  if (m->keys) out[n++] = (trak_region){m->keys, entries_room(m->cap) * sizeof *m->keys};
  if (m->vals) out[n++] = (trak_region){m->vals, entries_room(m->cap) * sizeof *m->vals};
  if (m->slots && slot_bytes >= SLOT_MAPPED) /* (calloc'd below that: freed) */
    out[n++] = (trak_region){m->slots, slot_bytes};
  else
    slots_free(m->slots, m->cap);
  memset(m, 0, sizeof *m);
  return n;
}

/* ---- one-byte dictionary columns ------------------------------------------------------- */

uint8_t trak__dict8_add(trak_dict8 *d, uint32_t v, size_t slot) {
  if (d->n == TRAK_DICT8_WIDE - 1) return TRAK_DICT8_WIDE;
  d->vals[++d->n] = v;
  return d->slot[slot] = (uint8_t)d->n;
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
  if (!len) s = ""; /* an empty span may have no data: memcmp takes no NULL */
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

/* Interns [s, s + len); `check`: tell the pool's hook when the string is not UTF-8. */
static uint32_t strpool_put(trak_strpool *sp, const char *s, size_t len, int check) {
  if (!len) s = ""; /* an empty span may have no data: memcmp and memcpy take no NULL */
  if ((sp->str.n + 1) * 2 > sp->slot_cap) strpool_rehash(sp);
  size_t mask = sp->slot_cap - 1;
  size_t i = hash_bytes(s, len) & mask;
  for (; sp->slots[i]; i = (i + 1) & mask) {
    uint32_t id = sp->slots[i];
    if (sp->len.v[id] == len && !memcmp(sp->str.v[id], s, len)) return id;
  }
  /* Only a miss is checked: each distinct string is told once. It is kept as read, as
  ** Perfetto keeps it; text outputs repair it. */
  if (check && sp->on_invalid_utf8) {
    size_t ok = trak__utf8_valid_prefix(s, len);
    if (__builtin_expect(ok != len, 0)) sp->on_invalid_utf8(sp->ctx, ok);
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

uint32_t trak__strpool_intern(trak_strpool *sp, const char *s, size_t len) {
  return strpool_put(sp, s, len, 1);
}

uint32_t trak__strpool_intern_bytes(trak_strpool *sp, const char *s, size_t len) {
  return strpool_put(sp, s, len, 0);
}

/* ---- tables ---------------------------------------------------------------------------- */

const char *const trak__arg_type_names[] = {"int",     "uint", "string", "real",
                                            "pointer", "bool", "json",   "null"};

void trak__tables_init(trak_tables *t) {
  memset(t, 0, sizeof *t);
  trak__strpool_init(&t->strings);
}

/* ---- per-table growth and freeing, from table_defs.h ----------------------------------- */

/* Withdraws the huge-page hint (MADV_NOHUGEPAGE) from the whole pages of a large array: with
** transparent huge pages on, the kernel would otherwise zero a 2 MiB page whole at its first
** write, which on the virtual machines measured costs about twelve times more per byte than
** small pages (docs/performance.md, "Small pages for the track-event import"), and the parse's
** page-ahead moves blocks of small pages onto the slice columns (tables/prefault.h). */
static void advise_small(void *p, size_t size) {
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1),
            end = ((uintptr_t)p + size) & ~(page - 1);
  if (end > start) madvise((void *)start, end - start, MADV_NOHUGEPAGE);
}

/* Reallocates one column array to `cap` elements of `size` bytes, of small pages if `small`. */
static void *col_resize(void *p, size_t cap, size_t size, int small) {
  p = realloc(p, cap * size);
  if (!p) out_of_memory();
  if (small) advise_small(p, cap * size);
  return p;
}

#define RESIZE_S(T, type, field, init)                                                             \
  t->T.field = col_resize(t->T.field, want, sizeof *t->T.field, small);
#define RESIZE_H RESIZE_S
#define RESIZE_O(T, type, field, init)                                                             \
  if (t->T.field) {                                                                                \
    t->T.field = col_resize(t->T.field, want, sizeof *t->T.field, 0);                              \
    for (size_t r = old; r < want; r++)                                                            \
      t->T.field[r] = (init);                                                                      \
  }
#define RESIZE_A(T, type, field, init)
#define RESIZE_V(T, type, field, init)
#define RESIZE_C(T, type, field, init)
#define RESIZE(T, store, type, field, sql, sorted, init) RESIZE_##store(T, type, field, init)

#define OPTIONAL_O(T, type, field, init)                                                           \
  if (!t->T.field) {                                                                               \
    t->T.field = col_resize(NULL, t->T.cap ? t->T.cap : 1, sizeof *t->T.field, 0);                 \
    for (size_t r = 0; r < t->T.cap; r++)                                                          \
      t->T.field[r] = (init);                                                                      \
  }
#define OPTIONAL_S(T, type, field, init)
#define OPTIONAL_H OPTIONAL_S
#define OPTIONAL_A OPTIONAL_S
#define OPTIONAL_V OPTIONAL_S
#define OPTIONAL_C OPTIONAL_S
#define OPTIONAL(T, store, type, field, sql, sorted, init) OPTIONAL_##store(T, type, field, init)

#define COLMEM_FILLED(T, field, filled)                                                            \
  if (t->T.field) {                                                                                \
    if (n < max) out[n] = (trak_col_mem){t->T.field, sizeof *t->T.field, filled};                  \
    n++;                                                                                           \
  }
#define COLMEM_S(T, type, field, init) COLMEM_FILLED(T, field, 0)
#define COLMEM_H COLMEM_S
#define COLMEM_O(T, type, field, init) COLMEM_FILLED(T, field, 1)
#define COLMEM_A(T, type, field, init)
#define COLMEM_V(T, type, field, init)
#define COLMEM_C(T, type, field, init)
#define COLMEM(T, store, type, field, sql, sorted, init) COLMEM_##store(T, type, field, init)

#define TABLE_FNS(T, sql)                                                                          \
  size_t trak__##T##_col_mem(const trak_tables *t, trak_col_mem *out, size_t max) {                \
    size_t n = 0;                                                                                  \
    TRAK_COLUMNS_##T(COLMEM, T) return n;                                                          \
  }                                                                                                \
  void trak__##T##_resize(trak_tables *t, size_t want, int small) {                                \
    size_t old = t->T.cap;                                                                         \
    if (want <= old) return;                                                                       \
    (void)old;                                                                                     \
    trak__ahead_job_stop(t->T.ahead); /* the columns may move */                                   \
    TRAK_COLUMNS_##T(RESIZE, T) t->T.cap = want;                                                   \
  }                                                                                                \
  void trak__##T##_optional(trak_tables *t) {                                                      \
    (void)t;                                                                                       \
    TRAK_COLUMNS_##T(OPTIONAL, T)                                                                  \
  }
TRAK_TABLES(TABLE_FNS)

#define FREE_S(T, field) free(t->T.field);
#define FREE_O FREE_S
#define FREE_H FREE_S
#define FREE_A(T, field)
#define FREE_V(T, field)
#define FREE_C(T, field)
#define FREE_COL(T, store, type, field, sql, sorted, init) FREE_##store(T, field)
#define FREE_TABLE(T, sql) TRAK_COLUMNS_##T(FREE_COL, T)

void trak__tables_free(trak_tables *t) {
  TRAK_TABLES(FREE_TABLE)
  trak_vec_free(t->stack_profile.mappings);
  trak_vec_free(t->stack_profile.frames);
  trak_vec_free(t->stack_profile.callsites);
  trak_vec_free(t->stack_profile.symbols);
  trak_vec_free(t->stack_profile.te_callstacks);
  trak_vec_free(t->stack_profile.cpu_samples);
  trak_vec_free(t->stack_profile.perf_samples);
  trak_vec_free(t->stack_profile.heap_allocs);
  trak_vec_free(t->stack_profile.heap_profiles);
  trak_vec_free(t->stack_profile.perf_session_units);
  trak__map_free(&t->ts_wide.index);
  trak_vec_free(t->ts_wide.dur);
  trak_dict8 *dicts[] = {&t->dict.ts_state, &t->dict.ss_end_state, &t->dict.ss_priority,
                         &t->dict.ss_ucpu,  &t->dict.fe_name,      &t->dict.fe_ucpu,
                         &t->dict.fe_flags};
  for (size_t i = 0; i < sizeof dicts / sizeof *dicts; i++)
    trak__map_free(&dicts[i]->wide);
  trak__strpool_free(&t->strings);
  memset(t, 0, sizeof *t);
}

void trak__tables_thread_time(trak_tables *t) {
  trak__slice_optional(t);
}

/* Grows one column array to `bytes` without aborting: NULL when out of memory (*p unchanged). */
static int col_reserve(void **p, size_t bytes) {
  void *q = realloc(*p, bytes);
  if (!q) return -1;
  advise_small(q, bytes);
  *p = q;
  return 0;
}

/* Only tables of S, H and V columns are reserved: an O column's values past the rows are set. */
#define RESERVE_S(T, type, field, init)                                                            \
  if (col_reserve((void **)&t->T.field, rows * sizeof *t->T.field)) return -1;
#define RESERVE_H RESERVE_S
#define RESERVE_V(T, type, field, init)
#define RESERVE(T, store, type, field, sql, sorted, init) RESERVE_##store(T, type, field, init)

int trak__args_reserve(trak_tables *t, size_t rows) {
  if (rows <= t->args.cap) return 0;
  trak__ahead_job_stop(t->args.ahead); /* the columns may move */
  TRAK_COLUMNS_args(RESERVE, args) t->args.cap = rows;
  return 0;
}

void trak__tables_reserve(trak_tables *t, size_t slices, size_t counters) {
  trak__slice_resize(t, slices, 1);
  trak__counter_resize(t, counters, 1);
}

/* ---- appenders: the row's defaults come from trak__<table>_push ------------------------ */

uint32_t trak__track_add(trak_tables *t, trak_track_kind kind) {
  uint32_t i = trak__track_push(t);
  t->track.kind[i] = (uint8_t)kind;
  const char *cls = trak__track_type_name(kind);
  t->track.classification[i] = trak__strpool_intern(&t->strings, cls, strlen(cls));
  return i;
}

uint32_t trak__thread_add(trak_tables *t, int64_t tid) {
  uint32_t i = trak__thread_push(t);
  t->thread.tid[i] = tid;
  return i;
}

uint32_t trak__process_add(trak_tables *t, int64_t pid) {
  uint32_t i = trak__process_push(t);
  t->process.pid[i] = pid;
  return i;
}

uint32_t trak__machine_add(trak_tables *t, int64_t raw_id) {
  uint32_t i = trak__machine_push(t);
  t->machine.raw_id[i] = raw_id;
  t->machine.label_index[i] = (int64_t)i + (t->machine.raw_id[0] != 0);
  return i;
}

uint32_t trak__state_add(trak_tables *t, int64_t ts, uint32_t track, uint32_t category,
                         uint32_t value, uint32_t arg_set_id) {
  uint32_t i = trak__state_push(t);
  t->state.ts[i] = ts;
  t->state.track_id[i] = track;
  t->state.category[i] = category;
  t->state.value[i] = value;
  t->state.arg_set_id[i] = arg_set_id;
  return i;
}

uint32_t trak__flow_add(trak_tables *t, uint32_t out, uint32_t in, int64_t trace_id) {
  uint32_t i = trak__flow_push(t);
  t->flow.slice_out[i] = out;
  t->flow.slice_in[i] = in;
  t->flow.trace_id[i] = trace_id;
  return i;
}

uint32_t trak__arg_add(trak_tables *t, uint32_t arg_set_id, uint32_t flat_key, uint32_t key,
                       trak_arg_type type) {
  uint32_t i = trak__args_push(t);
  t->args.arg_set_id[i] = arg_set_id;
  t->args.flat_key[i] = flat_key;
  t->args.key[i] = key;
  t->args.value_type[i] = (uint8_t)type;
  return i;
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
