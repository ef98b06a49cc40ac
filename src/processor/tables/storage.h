/*
** The processor's in-memory database: growable arrays, a string pool, integer hash maps and the
** columnar tables (plain C arrays, one per column) that the importer fills and the SQLite virtual
** tables in vtab.c read. Row ids are array indexes, so `id = x` is a direct lookup.
*/
#ifndef TRAK_PROCESSOR_STORAGE_H
#define TRAK_PROCESSOR_STORAGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "processor/tables/table_defs.h"

/* ---- growable arrays ------------------------------------------------------------------- */

/* Grows *ptr (of *cap elements of `size` bytes) to hold at least `need`. Aborts on OOM: the
** importer has no sensible partial state to return when memory runs out mid-table. */
void trak__grow(void **ptr, size_t *cap, size_t need, size_t size);
#define TRAK_VEC(T)                                                                                \
  struct {                                                                                         \
    T *v;                                                                                          \
    size_t n, cap;                                                                                 \
  }
#define trak_vec_push(vec, x)                                                                      \
  do {                                                                                             \
    if ((vec).n == (vec).cap)                                                                      \
      trak__grow((void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof *(vec).v);                     \
    (vec).v[(vec).n++] = (x);                                                                      \
  } while (0)
#define trak_vec_free(vec) (free((vec).v), (vec).v = NULL, (vec).n = (vec).cap = 0)

/* ---- u64 -> u32 hash map (open addressing, linear probing) ----------------------------- */

typedef struct trak_map {
  uint64_t *keys;
  uint32_t *vals;
  uint8_t *used;
  size_t cap; /* power of two, or 0 */
  size_t n;
} trak_map;

/* The hash of a key, 64 bits wide on every target (a 64-bit finaliser: keys are often small
** consecutive integers). trak_slot_map takes its top bits. */
static inline uint64_t trak__slot_hash(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return k;
}
/* The slot hash of a key in a trak_map (its low bits are taken). */
static inline size_t trak__map_hash(uint64_t k) {
  return (size_t)trak__slot_hash(k);
}

/* Returns a pointer to the value for `key`, or NULL. Inline: interned ids, tracks and
** sequences are looked up per event. */
static inline uint32_t *trak__map_get(const trak_map *m, uint64_t key) {
  if (!m->cap) return NULL;
  size_t mask = m->cap - 1;
  for (size_t i = trak__map_hash(key) & mask;; i = (i + 1) & mask) {
    if (!m->used[i]) return NULL;
    if (m->keys[i] == key) return &m->vals[i];
  }
}
/* Returns a pointer to the value for `key`, inserting `init` if absent (*added set to 1). */
uint32_t *trak__map_put(trak_map *m, uint64_t key, uint32_t init, int *added);
void trak__map_clear(trak_map *m);
void trak__map_free(trak_map *m);

/* ---- u64 -> u32 hash map, each slot's key, value and used flag side by side ------------ */

/* The same map as trak_map for a map of many random inserts that outgrows the caches (the
** arg-set share map, about 0.2 inserts a JSON event). What is probed at random is one array of
** 8-byte slots (trak_map's are 13 bytes in three arrays): a slot holds the top 32 bits of the
** key's hash, whose top bits are its home slot, and the entry it points to; the entries (keys
** and values) are two arrays in insertion order, read at random only when a slot's hash bits
** match. The slots are held from 2 MiB on in whole 2 MiB pages with the huge-page hint: a probe
** at random then misses the cache but not the TLB as well (on the 2 M-event JSON trace, perf's
** samples in the map fell by a third; the single array alone, on small pages, gave nothing).
** Growing reads the slots in order and writes the new ones in order (a home doubles), and no
** key is hashed again. Halving the slots (they were 16 bytes, the key beside the value) halves
** the pages zeroed for them and the memory probed: at 50 M JSON events the map was 256 MiB of
** huge pages and a third of the importer's thread's growth in cost per event. */
typedef struct trak_slot {
  uint32_t hash;  /* the top 32 bits of the key's trak__slot_hash */
  uint32_t entry; /* index + 1 of its key and value in `keys` and `vals`; 0: an empty slot */
} trak_slot;
typedef struct trak_slot_map {
  trak_slot *slots;
  size_t cap;     /* slots: a power of two, or 0 */
  unsigned bits;  /* log2(cap) */
  size_t n;       /* entries */
  uint64_t *keys; /* entry -> key, in insertion order (room for 3/4 of cap) */
  uint32_t *vals; /* entry -> value */
} trak_slot_map;

/* The home slot of `key` in a map with slots (m->cap), for a caller to prefetch before the put. */
static inline const trak_slot *trak__slot_map_home(const trak_slot_map *m, uint64_t key) {
  return &m->slots[trak__slot_hash(key) >> (64 - m->bits)];
}
/* Returns a pointer to the value for `key`, inserting `init` if absent (*added set to 1); the
** pointer holds until the next put. */
uint32_t *trak__slot_map_put(trak_slot_map *m, uint64_t key, uint32_t init, int *added);
void trak__slot_map_free(trak_slot_map *m);

/* A mapped region a structure gave up for another array to reuse: the pages it wrote are present
** already (a writer of them takes no page fault, the kernel zeroes nothing), its bytes are
** garbage. The taker owns it and unmaps it (munmap(p, bytes)). */
typedef struct trak_region {
  void *p;
  size_t bytes;
} trak_region;

/* Frees m as trak__slot_map_free does, except that its mapped arrays (the keys and values, and
** the slots from 64 KiB on) go to `out` (room for 3) instead of being unmapped. Returns how many
** regions it gave; m is empty after. */
size_t trak__slot_map_release(trak_slot_map *m, trak_region *out);

/* ---- one-byte dictionary columns ------------------------------------------------------- */

/* The values of a column of few distinct values (states, event names, CPUs, flags) stored as
** one-byte codes: code 0 is the value 0 (every column's new-row value), codes 1 to 254 the
** values in the order first seen, and TRAK_DICT8_WIDE says the row's value is in `wide` (the
** 255th distinct value on: correct for any column, compact for the usual ones). A zeroed
** struct is an empty dictionary. */
#define TRAK_DICT8_WIDE 255
typedef struct trak_dict8 {
  uint32_t vals[TRAK_DICT8_WIDE]; /* code -> value; vals[0] is 0 */
  uint8_t slot[512];              /* a value's hash -> its code (0: empty slot) */
  uint32_t n;                     /* codes given beyond 0 */
  trak_map wide;                  /* row -> value of the rows coded TRAK_DICT8_WIDE */
} trak_dict8;

/* The value of row `row` whose code is in codes[row]. Can't fail. */
static inline uint32_t trak__dict8_get(const trak_dict8 *d, const uint8_t *codes, uint32_t row) {
  uint8_t c = codes[row];
  if (__builtin_expect(c != TRAK_DICT8_WIDE, 1)) return d->vals[c];
  const uint32_t *v = trak__map_get(&d->wide, row);
  return v ? *v : 0;
}
/* Gives `v`, which has no code, the next one at empty slot `slot`; TRAK_DICT8_WIDE when all
** are taken. Can't fail. */
uint8_t trak__dict8_add(trak_dict8 *d, uint32_t v, size_t slot);
/* The code of value `v`, given a new one when it has none and one is left, else
** TRAK_DICT8_WIDE. Can't fail. */
static inline uint8_t trak__dict8_code(trak_dict8 *d, uint32_t v) {
  if (!v) return 0;
  size_t i = (uint32_t)(v * 0x9e3779b1u) >> 23;
  for (; d->slot[i]; i = (i + 1) & 511)
    if (d->vals[d->slot[i]] == v) return d->slot[i];
  return trak__dict8_add(d, v, i);
}
/* Stores `v`, of code `c` (trak__dict8_code's, which a writer may remember: a value's code never
** changes, TRAK_DICT8_WIDE included), as row `row`'s value: codes[row] and, past 254 distinct
** values, d->wide; trak__dict8_set finds the code. Neither can fail (OOM aborts). */
static inline void trak__dict8_put(trak_dict8 *d, uint8_t *codes, uint32_t row, uint8_t c,
                                   uint32_t v) {
  codes[row] = c;
  if (__builtin_expect(c == TRAK_DICT8_WIDE, 0)) {
    int added;
    *trak__map_put(&d->wide, row, v, &added) = v;
  }
}
static inline void trak__dict8_set(trak_dict8 *d, uint8_t *codes, uint32_t row, uint32_t v) {
  trak__dict8_put(d, codes, row, trak__dict8_code(d, v), v);
}

/* ---- string pool ----------------------------------------------------------------------- */

/* Strings are stored once, NUL-terminated, in large blocks that never move; id 0 is NULL. */
typedef struct trak_strpool {
  TRAK_VEC(const char *) str; /* id -> string */
  TRAK_VEC(uint32_t) len;     /* id -> length */
  uint32_t *slots;            /* hash table of ids (0 = empty) */
  size_t slot_cap;
  char *block; /* current block being filled */
  size_t block_used, block_cap;
  TRAK_VEC(char *) blocks; /* every block, for freeing */
  /* Told of each distinct string interned with trak__strpool_intern that is not UTF-8, with
  ** the offset of its first invalid byte; the string is stored as given all the same (as
  ** Perfetto stores it; text outputs repair it). NULL: nothing is checked. The importer sets
  ** it to count such strings. */
  void (*on_invalid_utf8)(void *ctx, size_t first);
  void *ctx; /* on_invalid_utf8's */
} trak_strpool;

void trak__strpool_init(trak_strpool *sp);
void trak__strpool_free(trak_strpool *sp);
/* Interns `len` bytes (which may hold NULs and invalid UTF-8; both are stored as is, the
** latter told to on_invalid_utf8; `s` may be NULL when len is 0, as a protobuf field's empty
** span). Returns the id (>= 1). */
uint32_t trak__strpool_intern(trak_strpool *sp, const char *s, size_t len);
/* Interns `len` bytes without the UTF-8 check: binary values kept as strings (build ids,
** shown in hex). Returns the id (>= 1). */
uint32_t trak__strpool_intern_bytes(trak_strpool *sp, const char *s, size_t len);
/* The id of an interned string, or 0 when it was never interned. */
uint32_t trak__strpool_find(const trak_strpool *sp, const char *s, size_t len);
static inline const char *trak__str(const trak_strpool *sp, uint32_t id) {
  return id ? sp->str.v[id] : NULL;
}

/* ---- tables ---------------------------------------------------------------------------- */

/* Track types, in the words Perfetto uses for track.type. */
typedef enum trak_track_kind {
  TRAK_TRACK_GLOBAL = 0, /* "track" */
  TRAK_TRACK_THREAD,     /* "thread_track" */
  TRAK_TRACK_PROCESS,    /* "process_track" */
  TRAK_TRACK_COUNTER,    /* "counter_track" */
  TRAK_TRACK_THREAD_COUNTER,
  TRAK_TRACK_PROCESS_COUNTER,
  TRAK_TRACK_STATE, /* "state_track": a TrackDescriptor with `state` */
  TRAK_TRACK_THREAD_STATE,
  TRAK_TRACK_PROCESS_STATE
} trak_track_kind;

/* Rows of Perfetto's stack profile tables (stack_profile_mapping, _frame, _callsite, _symbol)
** and of __intrinsic_track_event_callstacks, as TrackEvent callstacks fill them; the SQL
** layer copies them into plain SQLite tables. Ids are vector indexes. */
typedef struct trak_sp_mapping {
  uint32_t build_id, name; /* string ids */
  int64_t exact_offset, start_offset, start, end, load_bias;
} trak_sp_mapping;
typedef struct trak_sp_frame {
  uint32_t name, mapping;
  uint32_t symbol_set_id; /* TRAK_NULL_U32: NULL */
  uint32_t type;          /* string id, 0: NULL */
  int64_t rel_pc;
  uint32_t deobfuscated_name; /* string id, 0: NULL (proto/deobfuscation.c) */
} trak_sp_frame;
typedef struct trak_sp_callsite {
  uint32_t depth, parent_id, frame_id; /* parent_id TRAK_NULL_U32: NULL */
} trak_sp_callsite;
typedef struct trak_sp_symbol {
  uint32_t name, source_file; /* source_file 0: NULL */
  int64_t line_number;        /* -1: NULL */
} trak_sp_symbol;
typedef struct trak_sp_cpu_sample { /* cpu_profile_stack_sample */
  int64_t ts;
  uint32_t callsite_id, utid;
  int32_t process_priority;
} trak_sp_cpu_sample;
typedef struct trak_sp_perf_sample { /* perf_sample (proto/perf_samples.c) */
  int64_t ts;
  uint32_t utid, cpu, callsite_id; /* cpu, callsite_id TRAK_NULL_U32: NULL */
  uint32_t cpu_mode, unwind_error; /* string ids; unwind_error 0: NULL */
  uint32_t session;                /* perf_session id */
} trak_sp_perf_sample;
typedef struct trak_sp_heap_alloc { /* heap_profile_allocation (proto/heap_profile.c) */
  int64_t ts, count, size;
  uint32_t upid, heap_name, callsite_id;
} trak_sp_heap_alloc;
typedef struct trak_sp_heap_profile { /* heap_profile: one dump of one heap of a process */
  int64_t ts, ts_end;
  uint32_t upid, heap_name; /* heap_name 0: NULL */
} trak_sp_heap_profile;
typedef struct trak_te_callstack {
  uint32_t slice_id, track_id, callsite_id, end_callsite_id; /* TRAK_NULL_U32: NULL */
  double weight;
  uint8_t has_weight;
} trak_te_callstack;

/* One struct per table (table_defs.h): n rows, cap allocated, then one array per stored
** column, named by its field. */
#define TRAK_MEMBER_S(type, field) TRAK_CTYPE_##type *field;
#define TRAK_MEMBER_O TRAK_MEMBER_S
#define TRAK_MEMBER_H TRAK_MEMBER_S
#define TRAK_MEMBER_A(type, field)
#define TRAK_MEMBER_V(type, field)
#define TRAK_MEMBER_C(type, field)
#define TRAK_MEMBER(T, store, type, field, sql, sorted, init) TRAK_MEMBER_##store(type, field)
#define TRAK_TABLE_STRUCT(T, sql)                                                                  \
  struct {                                                                                         \
    size_t n, cap;                                                                                 \
    struct trak_ahead_job *ahead; /* a page-ahead over the columns, stopped before they move */    \
    TRAK_COLUMNS_##T(TRAK_MEMBER, T)                                                               \
  } T;

/* The unit a perf session's timebase counts in (Perfetto's timebase_unit), none when the
** defaults name no counter or tracepoint. */
enum {
  TRAK_PERF_UNIT_NONE,
  TRAK_PERF_UNIT_NS,
  TRAK_PERF_UNIT_CYCLES,
  TRAK_PERF_UNIT_INSTRUCTIONS,
  TRAK_PERF_UNIT_COUNT
};

typedef struct trak_tables {
  trak_strpool strings;

  TRAK_TABLES(TRAK_TABLE_STRUCT)

  struct {
    TRAK_VEC(trak_sp_mapping) mappings;
    TRAK_VEC(trak_sp_frame) frames;
    TRAK_VEC(trak_sp_callsite) callsites;
    TRAK_VEC(trak_sp_symbol) symbols;
    TRAK_VEC(trak_te_callstack) te_callstacks;
    TRAK_VEC(trak_sp_cpu_sample) cpu_samples;
    TRAK_VEC(trak_sp_perf_sample) perf_samples; /* in time order */
    TRAK_VEC(trak_sp_heap_alloc) heap_allocs;     /* in packet order */
    TRAK_VEC(trak_sp_heap_profile) heap_profiles;
    /* perf_session rows (ids 0 .. n - 1): the unit of the session's timebase, TRAK_PERF_UNIT_* */
    TRAK_VEC(uint8_t) perf_session_units;
  } stack_profile;

  /* thread_state durations past 32 bits (thread_state_cols.h): row -> index in `dur`. */
  struct {
    trak_map index;
    TRAK_VEC(int64_t) dur;
  } ts_wide;

  /* The values behind the one-byte columns of the scheduling tables (table_defs.h). */
  struct {
    trak_dict8 ts_state, ss_end_state, ss_priority, ss_ucpu, fe_name, fe_ucpu, fe_flags;
  } dict;

  /* Bumped each time rows are appended after the import (annotations): from then on only id
  ** columns are known to be sorted, and indexes built before are stale. */
  uint32_t generation;
} trak_tables;

/* ---- rows ------------------------------------------------------------------------------ */

/* Per table (storage.c): trak__<table>_resize grows every stored column to hold `want` rows
** (never shrinks; `small` withdraws the huge-page hint, for tables sized once for the whole
** trace: see storage.c's advise_small; a page-ahead the table names in `ahead` is stopped first,
** tables/prefault.h);
** trak__<table>_optional adds the table's O columns, every row `init`. Neither can fail (OOM
** aborts). trak__<table>_push appends a row holding every column's `init` and returns its id;
** the caller then sets what the row is about. */
/* trak__<table>_col_mem lists the table's column arrays (stored ones, and optional ones once
** made) into `out`, at most `max` of them, and returns how many there are: the memory the rows
** are written to, for whoever makes its pages present ahead of the writes. */
typedef struct trak_col_mem {
  void *p;        /* the array */
  size_t size;    /* bytes of one value */
  uint8_t filled; /* its values past the rows are set too (an O column): they must stay */
} trak_col_mem;
#define TRAK_ROW_DECLS(T, sql)                                                                     \
  void trak__##T##_resize(trak_tables *t, size_t want, int small);                                 \
  void trak__##T##_optional(trak_tables *t);                                                       \
  size_t trak__##T##_col_mem(const trak_tables *t, trak_col_mem *out, size_t max);
TRAK_TABLES(TRAK_ROW_DECLS)

#define TRAK_INIT_S(T, field, init) t->T.field[i] = (init);
#define TRAK_INIT_H TRAK_INIT_S
#define TRAK_INIT_O(T, field, init) /* set when the rows are allocated */
#define TRAK_INIT_A(T, field, init)
#define TRAK_INIT_V(T, field, init)
#define TRAK_INIT_C(T, field, init)
#define TRAK_INIT(T, store, type, field, sql, sorted, init) TRAK_INIT_##store(T, field, init)
/* trak__<table>_push_unset adds a row whose S and H columns the caller sets, every one of them;
** trak__<table>_push one with their defaults. */
#define TRAK_ROW_PUSH(T, sql)                                                                      \
  static inline uint32_t trak__##T##_push_unset(trak_tables *t) {                                  \
    uint32_t i = (uint32_t)t->T.n;                                                                 \
    if (__builtin_expect(i == t->T.cap, 0))                                                        \
      trak__##T##_resize(t, t->T.cap ? t->T.cap + t->T.cap / 2 : 64, 0);                           \
    t->T.n = (size_t)i + 1;                                                                        \
    return i;                                                                                      \
  }                                                                                                \
  static inline uint32_t trak__##T##_push(trak_tables *t) {                                        \
    uint32_t i = trak__##T##_push_unset(t); /* the caller indexes with it: dead stores go */       \
    TRAK_COLUMNS_##T(TRAK_INIT, T) return i;                                                       \
  }
TRAK_TABLES(TRAK_ROW_PUSH)

typedef enum trak_arg_type {
  TRAK_ARG_INT = 0,
  TRAK_ARG_UINT,
  TRAK_ARG_STRING,
  TRAK_ARG_REAL,
  TRAK_ARG_POINTER,
  TRAK_ARG_BOOL,
  TRAK_ARG_JSON,
  TRAK_ARG_NULL
} trak_arg_type;

extern const char *const trak__arg_type_names[];

void trak__tables_init(trak_tables *t);
void trak__tables_free(trak_tables *t);

/* Grows the args table's columns to `rows` rows (small pages) unless they hold as many already,
** so that a page-ahead over them (tables/prefault.h) can run until the rows reach `rows`: their
** pages are only made present as they are written or made present. Returns 0, or -1 when out of
** memory (the table is as it was, some columns larger: still valid). */
int trak__args_reserve(trak_tables *t, size_t rows);
/* Sizes the slice and counter tables for their final row counts, so that filling them does
** not copy them as they grow, their columns of small pages. Can't fail (OOM aborts). */
void trak__tables_reserve(trak_tables *t, size_t slices, size_t counters);
/* Adds the slice table's thread_ts / thread_dur / thread_instruction_* columns (all NULL). */
void trak__tables_thread_time(trak_tables *t);

/* Appenders: each returns the new row's id and can't fail (OOM aborts). The slice's is inline:
** the parse phase adds a slice for about every other record (event_parser.c). */
/* Counts a table's S and H columns (those trak__<table>_push sets). */
#define TRAK_SET_BY_PUSH_S 1
#define TRAK_SET_BY_PUSH_H 1
#define TRAK_SET_BY_PUSH_O 0
#define TRAK_SET_BY_PUSH_A 0
#define TRAK_SET_BY_PUSH_V 0
#define TRAK_SET_BY_PUSH_C 0
#define TRAK_COUNT_S(T, store, type, field, sql, sorted, init) +TRAK_SET_BY_PUSH_##store
static inline uint32_t trak__slice_add(trak_tables *t, int64_t ts, uint32_t track, uint32_t cat,
                                       uint32_t name, uint32_t depth, uint32_t parent,
                                       uint32_t arg_set_id) {
  /* Each column stored once (the columns may alias: the compiler keeps a default's store that
  ** a later store overwrites); every column trak__slice_push sets is here, dur's default too. */
  _Static_assert(0 TRAK_COLUMNS_slice(TRAK_COUNT_S, slice) == 8, "a slice column lacks its value");
  uint32_t i = trak__slice_push_unset(t);
  t->slice.ts[i] = ts;
  t->slice.dur[i] = -1;
  t->slice.track_id[i] = track;
  t->slice.name[i] = name;
  t->slice.category[i] = cat;
  t->slice.depth[i] = depth;
  t->slice.parent_id[i] = parent;
  t->slice.arg_set_id[i] = arg_set_id;
  return i;
}
/* (Inline too: a trace's counter values are parsed one a record.) */
static inline uint32_t trak__counter_add(trak_tables *t, int64_t ts, uint32_t track,
                                         double value) {
  _Static_assert(0 TRAK_COLUMNS_counter(TRAK_COUNT_S, counter) == 4,
                 "a counter column lacks its value");
  uint32_t i = trak__counter_push_unset(t);
  t->counter.ts[i] = ts;
  t->counter.track_id[i] = track;
  t->counter.value[i] = value;
  t->counter.arg_set_id[i] = TRAK_NULL_U32;
  return i;
}
uint32_t trak__track_add(trak_tables *t, trak_track_kind kind);
uint32_t trak__thread_add(trak_tables *t, int64_t tid);
uint32_t trak__process_add(trak_tables *t, int64_t pid);
uint32_t trak__machine_add(trak_tables *t, int64_t raw_id);
uint32_t trak__state_add(trak_tables *t, int64_t ts, uint32_t track, uint32_t category,
                         uint32_t value, uint32_t arg_set_id);
/* trace_id: the flow's id in the trace (INT64_MIN: NULL). */
uint32_t trak__flow_add(trak_tables *t, uint32_t out, uint32_t in, int64_t trace_id);
uint32_t trak__arg_add(trak_tables *t, uint32_t arg_set_id, uint32_t flat_key, uint32_t key,
                       trak_arg_type type);
const char *trak__track_type_name(trak_track_kind kind);

/* Built on first use by the SQL functions: children of each slice and flows per slice, as
** CSR arrays (offsets of n+1 entries into a list of ids). */
typedef struct trak_csr {
  uint32_t *off, *ids;
} trak_csr;
void trak__csr_build(trak_csr *csr, size_t n, size_t m, const uint32_t *from, const uint32_t *to);
void trak__csr_free(trak_csr *csr);

#endif /* TRAK_PROCESSOR_STORAGE_H */
