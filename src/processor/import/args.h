/*
** Args (arg_sets.c, arg_order.c): arg sets built row by row in tables->args, shared when
** identical, merged when a slice's end adds to its begin's; the keys being built; the order
** Perfetto numbers sets in. The formats flatten their values into rows (protobuf's debug
** annotations and reflection: proto/debug_annotations.c; JSON values: json/json_args.c).
*/
#ifndef TRAK_PROCESSOR_IMPORT_ARGS_H
#define TRAK_PROCESSOR_IMPORT_ARGS_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "processor/import/hash.h"
#include "processor/import/sequence.h"
#include "processor/tables/arg_value.h"
#include "processor/tables/storage.h"
#include "trak/pb.h"
#include "util/limits.h"

typedef struct trak_importer trak_importer;

/* ---- keys being built ------------------------------------------------------------------- */

/* An arg's key and flat key as a nested value's walk builds them ("debug.a.b[0]" and
** "debug.a.b"). A key past TRAK_LIMIT_KEY_BYTES is cut and `cut` counts the bytes that did not
** fit: a cut key could collide with another, so no row is made under it (KEY_TOO_LONG). */
typedef struct trak_arg_key {
  char key[TRAK_LIMIT_KEY_BYTES], flat[TRAK_LIMIT_KEY_BYTES];
  size_t key_len, flat_len;
  size_t cut;
} trak_arg_key;
/* Where a key stood before a nested part was pushed, to go back there. */
typedef struct trak_arg_key_mark {
  size_t key_len, flat_len, cut;
} trak_arg_key_mark;

/* The key's current length (a mark); trak__arg_key_restore cuts the key back to a mark taken
** from the same key. Neither can fail. */
static inline trak_arg_key_mark trak__arg_key_save(const trak_arg_key *k) {
  return (trak_arg_key_mark){k->key_len, k->flat_len, k->cut};
}
static inline void trak__arg_key_restore(trak_arg_key *k, trak_arg_key_mark m) {
  assert(m.key_len <= k->key_len && m.flat_len <= k->flat_len); /* a mark of this key */
  k->key_len = m.key_len, k->flat_len = m.flat_len, k->cut = m.cut;
}
/* Appends `len` bytes to the key, and to the flat key unless it is an array index
** (!flat_too). Can't fail: what does not fit is counted in k->cut. */
static inline void trak__arg_key_push(trak_arg_key *k, const char *s, size_t len, int flat_too) {
  size_t n = len;
  if (k->key_len + n >= TRAK_LIMIT_KEY_BYTES) {
    k->cut += k->key_len + n - (TRAK_LIMIT_KEY_BYTES - 1);
    n = TRAK_LIMIT_KEY_BYTES - 1 - k->key_len;
  }
  memcpy(k->key + k->key_len, s, n);
  k->key_len += n;
  if (!flat_too) return;
  n = len;
  if (k->flat_len + n >= TRAK_LIMIT_KEY_BYTES) n = TRAK_LIMIT_KEY_BYTES - 1 - k->flat_len;
  memcpy(k->flat + k->flat_len, s, n);
  k->flat_len += n;
}
/* Counts a value dropped because its key was cut (KEY_TOO_LONG), naming `what` holds it
** ("debug annotation", "JSON arg"). Can't fail. */
void trak__arg_key_too_long(trak_importer *imp, const trak_arg_key *k, const char *what)
    __attribute__((cold));

/* ---- typed arguments -------------------------------------------------------------------- */

/* An interned SourceLocation (imp->source_locs; the sequence's map holds its index). */
typedef struct trak_source_loc {
  uint32_t file, function; /* string ids (0: absent) */
  uint32_t line;
  uint8_t has_line;
} trak_source_loc;

/* Arg keys the importer writes itself, interned on first use (typed_args.c). */
enum trak_key {
  TRAK_KEY_SOURCE_FILE,
  TRAK_KEY_SOURCE_FUNCTION,
  TRAK_KEY_SOURCE_LINE,
  TRAK_KEY_SOURCE_IID,
  TRAK_KEY_INLINE_FILE,
  TRAK_KEY_INLINE_FUNCTION,
  TRAK_KEY_INLINE_LINE,
  TRAK_KEY_LOG_BODY,
  TRAK_KEY_LOG_FILE,
  TRAK_KEY_LOG_FUNCTION,
  TRAK_KEY_LOG_LINE,
  TRAK_KEY_LOG_PRIORITY,
  TRAK_KEY_CORRELATION,
  TRAK_KEY_LEGACY_SOURCE_ID,
  TRAK_KEY_LEGACY_PASSTHROUGH_UTID,
  TRAK_KEY_LEGACY_PHASE,
  TRAK_KEY_TASK_FILE,
  TRAK_KEY_TASK_FUNCTION,
  TRAK_KEY_TASK_LINE,
  TRAK_KEY_HISTOGRAM_NAME,
  TRAK_KEY_COUNT
};

/* An event's debug annotations whose arg set is known (proto/debug_annotations.c): the same
** bytes on the same sequence, its interned state unchanged since (`epoch`), make the same set. */
#define TRAK_ARG_MEMO_INLINE 40 /* key bytes kept in the memo itself (one 64-byte line in all) */
typedef struct trak_arg_memo {
  const trak_sequence *seq;
  uint32_t epoch;   /* seq->intern_epoch then */
  uint32_t set;     /* the arg set the annotations made */
  uint32_t at, len; /* their key (lengths and bytes): in `key` up to TRAK_ARG_MEMO_INLINE bytes,
                    ** else at `at` in the memo's bytes */
  uint8_t key[TRAK_ARG_MEMO_INLINE];
} trak_arg_memo;

/* The arg state of one import (arg_sets.c, arg_order.c and proto/debug_annotations.c own it;
** imp->args). */
typedef struct trak_args {
  trak_slot_map shared;          /* content hash -> arg_set_id, to share identical sets */
  trak_map memo_by_hash;         /* hash of a memo's sequence, epoch and key -> its index */
  TRAK_VEC(trak_arg_memo) memos; /* bounded: emptied when full (TRAK_ARG_MEMOS) */
  TRAK_VEC(uint8_t) memo_bytes;
  TRAK_VEC(uint64_t) order;      /* parse phase: when Perfetto makes arg sets (arg_order.c) */
  /* With ftrace data (trak__arg_order_timed_*): the times of the AT entries of `order`, the
  ** time of what is being parsed (trak__arg_order_at), whether the next entry needs an AT entry
  ** before it, and where the ftrace merge's entries begin and end in `order`. */
  TRAK_VEC(int64_t) order_ts;
  int64_t cur_ts;
  uint8_t timed, need_mark;
  size_t merge_from, merge_to;
  /* Ties of time: the AT entries' places among the kernel sequence's records (order_ord, one per
  ** order_ts), the current one (cur_ord: the records the kernel sequence had when the merge
  ** began the event being applied; the index of the record being parsed), and that sequence. */
  TRAK_VEC(uint32_t) order_ord;
  uint32_t cur_ord;
  const struct trak_sequence *ord_seq;
  uint32_t ord_pkt_base; /* the packet index of its records that are the merge's first event */
  trak_map debug_keys;           /* annotation name id -> id of "debug.<name>" */
  uint32_t keys[TRAK_KEY_COUNT]; /* string ids of enum trak_key, 0 until used */
} trak_args;

/* Arg set `set` (TRAK_NULL_U32: none) with legacy_event.passthrough_utid `utid` added last,
** shared as trak__args_share does (implemented in proto/typed_args.c; tracks.c adds it to
** records whose scope was not known when they were read). */
uint32_t trak__te_args_passthrough(trak_importer *imp, uint32_t set, uint32_t utid);

/* The content hash trak__args_share gives a set of `n` rows (the count after repeated keys were
** dropped): h = n, then h = trak__arg_hash_row(h, ...) for each row in order, over the columns
** a share compares but flat_key (a row's flat key follows from its key). Two mixes a row: its
** key and type, then its value word `w` (tables/arg_value.h), multiplied unless an integer (the
** hash the three value columns gave before they were one word; it only finds candidates, the
** share compares the rows). Can't fail. */
static inline uint64_t trak__arg_hash_row(uint64_t h, uint32_t key, uint32_t type, uint64_t w) {
  h = trak__mix(h, (uint64_t)type << 32 | key);
  return trak__mix(h, trak__arg_type_int(type) ? w : w * 0x9e3779b97f4a7c15ULL);
}
/* Starts loading the share map's slot for a set of hash `h` (a set is nearly always new, and
** the map outgrows the caches), as trak__args_share_prepare does. Can't fail. */
static inline __attribute__((always_inline)) void trak__args_share_prefetch(const trak_args *a,
                                                                        uint64_t h) {
  const trak_slot_map *m = &a->shared;
  if (m->cap) __builtin_prefetch(trak__slot_map_home(m, h), 1);
}

/* Shares the arg set just built at `set` (the last rows of args) with an identical earlier
** one, dropping its rows; returns the id to use (TRAK_NULL_U32 for an empty set). */
uint32_t trak__args_share(trak_importer *imp, uint32_t set);
/* trak__args_share, and *stable = 0 when the set was kept beside an earlier one of the same
** hash (a collision: the same rows again would make yet another set), else 1. */
uint32_t trak__args_share_stable(trak_importer *imp, uint32_t set, int *stable);
/* trak__args_share_stable in two halves, for a caller with other work to do while the share
** map's slot comes into the cache: _prepare drops the set's repeated keys (as the share does),
** hashes its rows, starts loading the map's slot, and returns its row count (0: empty; *hash
** set otherwise); _finish shares it. Rows added in between must belong to sets prepared since,
** whose rows move down by n when this one is shared (their ids with them; their hashes do not
** change). Neither can fail. */
uint32_t trak__args_share_prepare(trak_importer *imp, uint32_t set, uint64_t *hash);
uint32_t trak__args_share_finish(trak_importer *imp, uint32_t set, uint32_t n, uint64_t hash,
                                 int *stable);
/* A new arg set holding the rows of `a` then those of `b` (either may be TRAK_NULL_U32): how
** a slice end's arguments join its begin's, as arg sets never change once made. As in Perfetto,
** a key `a` has takes `b`'s value, and an array `a` has continues its indices in `b`. */
uint32_t trak__args_merge(trak_importer *imp, uint32_t a, uint32_t b);
/* Appends copies of the rows of arg set `from` to the set being built at `set`. */
void trak__args_copy(trak_tables *t, uint32_t from, uint32_t set);

/* Arg set numbering (arg_order.c): the parse phase logs the moments Perfetto makes sets, a
** kind << 32 | value entry each, and trak__arg_order_apply lays the args table out in that
** order when the import ends. */
enum {
  TRAK_ARG_ORDER_SLICE,       /* slice id: its set, which it has when it leaves its track's stack */
  TRAK_ARG_ORDER_TRACK,       /* track index first used: the sets of its row (and its parents') */
  TRAK_ARG_ORDER_TRACK_SLICE, /* the same, by an event that starts a slice */
  TRAK_ARG_ORDER_SET,         /* an arg set id */
  TRAK_ARG_ORDER_FLUSH,       /* slice id: still on its track's stack when the import ends */
  TRAK_ARG_ORDER_COUNTER,     /* counter row with args: its set (renumbered from this entry only) */
  TRAK_ARG_ORDER_AT           /* index into order_ts: the time of the entries that follow */
};
/* Logs one entry (kind: the enum above); trak__arg_order_slice (importer.h) is the common one. */
void trak__arg_order_log(trak_importer *imp, uint32_t kind, uint32_t value);
/* The ftrace merge (trak__ftrace_finish) logs its events' sets in time order before the event
** parse logs what its slices, counters and tracks make, where Perfetto makes both as it parses
** each event, in one time order. Between trak__arg_order_timed_begin and _end (the merge) and
** after (the parse), entries carry the time trak__arg_order_at last gave, and the two runs are
** interleaved by it before the sets are numbered. Can't fail. */
void trak__arg_order_timed_begin(trak_importer *imp);
void trak__arg_order_timed_end(trak_importer *imp);
static inline void trak__arg_order_at(trak_args *a, int64_t ts) {
  if (a->cur_ts != ts) a->cur_ts = ts, a->need_mark = 1;
}
/* The place among the kernel sequence's records of what is logged next (see order_ord): at one
** time, the merge's entries come before the parse's of a record at or after their place, as
** Perfetto makes an event's raw row, then what its parser makes of it, then the next event's. */
static inline void trak__arg_order_ord(trak_args *a, uint32_t ord) {
  if (a->cur_ord != ord) a->cur_ord = ord, a->need_mark = 1;
}
/* The `n` distinct keys `keys` (upids, in the order they were first given args) in the order
** of the slots of Perfetto's FlatHashMap of them (Murmur-mixed, quadratic probing, 1,024 slots
** grown 8-fold at 75% load), whose clearing commits each process's args: written to `out`
** (room for n). Can't fail. */
void trak__arg_order_owner_slots(const uint32_t *keys, size_t n, uint32_t *out);
/* Renumbers every arg set in the logged order; `track_row` maps track indexes to rows, of
** which those from `n_early` on are made at the end (after all logged sets). `beside(beside_arg)`
** (may be NULL: none) is the caller's work that the second core does while the sets are placed
** (on this thread when the relayout has one), done before the placing reads the slices'
** track_id column: it may write that column and what the relayout does not read. */
void trak__arg_order_apply(trak_importer *imp, const uint32_t *track_row, uint32_t n_early,
                           void *(*beside)(void *), void *beside_arg);

/* Frees what imp->args holds (arg_order.c). */
void trak__args_free(trak_args *a);

#endif /* TRAK_PROCESSOR_IMPORT_ARGS_H */
