/*
** The JSON importer's private state, shared by json_import.c (the input stream and the outer
** structure of the file: reading each event object into spans) and json_events.c (what each
** event means: tracks, records, args, flows).
*/
#ifndef TRAK_PROCESSOR_JSON_IMPORT_H
#define TRAK_PROCESSOR_JSON_IMPORT_H

#include "processor/import/importer.h"
#include "processor/import/json/json.h"
#include "processor/import/json/json_args.h"
#include "processor/import/json/json_leaves.h"

#define JSON_SEQUENCE 0x80000000u /* | utid: the sequence of one thread's events */
#define STR_MAX 4096              /* longest decoded name or id kept */
#define JSON_HOLD 4               /* arg sets held back while their share map slots load (2^k) */

enum state {
  ST_START,
  ST_TOP_FIRST, /* after the top-level '{' */
  ST_TOP_KEY,
  ST_TOP_NEXT,
  ST_EVENTS_FIRST, /* after the events' '[' */
  ST_EVENT,
  ST_EVENTS_NEXT,
  ST_DONE,
  ST_DEAD
};

/* A key the reader expects next: when the 8 bytes at the cursor equal `word` under `mask`
** (`,"name":`, or `"ph":` as an event's first member), it is field `field` of the event, at
** byte `off` of its jevent, and the value starts `len` bytes on. A mask of ~0 with a word of 0
** never matches (a key longer than the word, or none learnt yet). */
typedef struct trak_json_key_pred {
  uint64_t word, mask;
  uint16_t off;
  uint8_t len, field;
  uint8_t memo; /* in a shape: 1, its member is kept (trak_json_shape_key); 2, the shape's end */
} trak_json_key_pred;
#define JSON_KEY_FIELDS 18                   /* the fields of a jevent */
#define JSON_KEY_START JSON_KEY_FIELDS       /* row of an event's first member */
#define JSON_KEY_OTHER (JSON_KEY_FIELDS + 1) /* row after a key that is no field */
#define JSON_KEY_ROWS (JSON_KEY_FIELDS + 2)

/* The keys a phase's events have after "ph", as its row of predictions chains them (each the
** key that followed the one before it last time), for the reader's loop over an event of the
** usual shape (json_keys.h, trak__json_shape_read): keys[0..n), then keys[n] with `key.memo` 2
** (the loop's end, tested only where a kept member is). Rebuilt from the row when a
** prediction of it changed. A key whose `key.memo` is set (pid, tid: the same from one event to
** the next) also keeps its member as the loop last read it plainly: `text` holds the member's
** `len` bytes (its comma, key and value); when the bytes at the next event's key are the same and
** followed by ',' or '}', the value is the same, bar its position (`at` from the key). `need`: the
** bits of a 16-byte compare's mask that must be set (bit 16: nothing kept, which no compare sets). */
typedef struct trak_json_shape_key {
  trak_json_key_pred key;
  uint8_t text[16];
  uint32_t need;
  uint8_t len, at;
  trak_json_value val;
} trak_json_shape_key;
typedef struct trak_json_shape {
  unsigned n;
  trak_json_shape_key keys[JSON_KEY_FIELDS + 1];
} trak_json_shape;

/* What M events said of one process or thread beyond its name (its sort index). Its args rows
** are added when the import ends, so they form one contiguous arg set whatever order the
** events came in. */
typedef struct trak_json_meta {
  uint32_t row; /* upid or utid */
  uint8_t is_thread, has_sort_index;
  int64_t sort_index;
} trak_json_meta;

/* With two threads the reader's fields and the fields the importer's thread writes for each
** event are kept on cache lines apart (the _Alignas(64)): a line that one thread writes and
** the other reads for every event would move between cores each time. */
struct trak_json_import {
  trak_importer *imp;
  trak_sequence *seq;            /* of the event being read: its thread's */
  _Alignas(64) enum state state; /* the reader's, from here to apply_index */
  int array_format;
  char *buf; /* unconsumed input: what an event cut by a chunk's end left */
  size_t n, cap;
  size_t retry_at; /* buf is read again once it holds this many bytes: doubling keeps one long
                      event linear, not read from its start at every chunk */
  struct {
    int on;         /* an event over a limit (size, nesting) is being skipped */
    uint64_t depth; /* of its braces and brackets */
    uint8_t in_string, escape;
    uint8_t event;    /* it is a trace event (counted in event_index), not a top-level value */
    enum state after; /* the state once it is skipped */
  } skip;
  const char *base;     /* the bytes being read: buf, or the fed chunk read in place */
  const char *stop;     /* reading pauses after the event or step that ends at or past it */
  uint64_t buf_offset;  /* trace offset of base[0] (the reading position) */
  uint64_t lines;       /* newlines before base[0] */
  uint64_t line_offset; /* trace offset where the line holding base[0] starts */
  uint64_t event_index; /* the reader's: events read so far */
  trak_json_ops *ops;   /* two threads: the reader's side effects kept here, in file order, for
                         ** trak__json_import_apply; NULL: done at once */
  /* The event being applied (json_events.c): event_index when it was read. The importer's,
  ** from here to key_pred. */
  _Alignas(64) uint64_t apply_index;
  int pid0_seen;    /* an event had pid 0 (made a process apart from the idle row) */
  trak_map threads; /* (uint32 pid << 32 | uint32 tid) -> utid */
  uint64_t last_thread_key;
  uint32_t last_track; /* thread track of last_thread_key, TRAK_NULL_U32 at first */
  uint64_t last_key;   /* one-entry cache of the thread lookup */
  uint32_t last_utid, last_upid;
  trak_sequence *last_seq;
  struct {
    uint64_t key;
    uint32_t utid, upid;
    trak_sequence *seq; /* NULL: an empty slot */
  } thread_memo[64];    /* the thread lookups of keys last_key took before, by key; emptied
                        ** when a top-level value (systrace text) is taken in */
  /* The reader's key prediction (json_import.c, event_read): for each phase (ph's first byte
  ** & 31; 0 before ph is read) and each field just read (JSON_KEY_START: none yet,
  ** JSON_KEY_OTHER: an unknown key), the key that followed it last time, with its comma. */
  _Alignas(64) trak_json_key_pred key_pred[32][JSON_KEY_ROWS];
  trak_json_shape shape[32]; /* each phase's keys after "ph" (its row's chain) */
  uint32_t shape_stale;      /* bit ph: shape[ph] is to be built again from its row */
  _Alignas(64) TRAK_VEC(trak_sequence *) thread_seqs; /* utid -> the sequence of its events */
  TRAK_VEC(trak_json_meta) meta;                      /* sort indexes, made into args at the end */
  char str[STR_MAX];
  trak_arg_key arg_key;  /* the key of the arg being flattened (json_args.h) */
  trak_json_cache cache; /* names, categories, arg keys */
  trak_json_keys *keys;  /* the event args' key memo; NULL with TRAK_JSON_KEY_MEMO=0 (tests) */
  struct {
    uint64_t key[TRAK_JSON_CACHED_MAX / 8]; /* the arg key's words (trak__json_load_words) */
    uint32_t upid, name, len, track;        /* len 0: an empty slot */
  } counter_memo[64];           /* C events' tracks by process, event name and arg key */
  TRAK_VEC(uint32_t) utid_args; /* utid -> the arg set of its counter values + 1, 0: not made */
  /* Event args read into leaves (json_leaves.h). The reader's: the dictionary's table, where
  ** leaves go (`lv`: the ops' leaves, or `own` when events are applied at once), how many of
  ** them belong to events handed over. Both threads read the dictionary's entries. The reader's
  ** from here to dict_ids. leaves_on is 0 with TRAK_JSON_KEY_MEMO=0: every args object is read
  ** from its text. */
  _Alignas(64) int leaves_on;
  trak_json_dict dict;
  trak_json_leaves lv;
  struct {
    trak_json_leaf *v;
    size_t n, cap;
  } own;
  size_t leaves_kept;
  /* The applier's: string ids of the dictionary's keys (0: not interned yet), the leaves of the
  ** events being applied. */
  _Alignas(64) uint32_t *dict_ids;
  const trak_json_leaf *apply_leaves;
  /* The applier's, with two threads (`hold`, set by trak__json_import_apply): the arg sets that
  ** events' leaves made, not shared yet (a ring of JSON_HOLD from `held_at`, oldest first), so
  ** that each set's share map slot loads while the next events are applied (json_events.c). */
  uint8_t hold;
  uint32_t held_at, held_n;
  struct {
    uint32_t set, n; /* its first row and row count (trak__args_share_prepare) */
    uint64_t hash;
    uint8_t *at; /* its record's arg set id (trak__sequence_push_held), NULL: none */
  } held[JSON_HOLD];
};

/* The fields of one event that the importer reads (s == NULL: absent); those most events have
** first. With two threads the reader reads it straight into its op's slot: handing over only
** the fields present, packed, cost more than the slot's lines crossing cores (docs/
** performance.md, "The JSON op handed over compact"). */
typedef struct jevent {
  trak_json_value ph, name, cat, ts, pid, tid, args, dur, s, bind_id, flow_in, flow_out, tts, tdur,
      id, id2, scope, bp;
  int saw_field;            /* the object had any member at all */
  uint32_t leaf_at, leaf_n; /* its args' leaves; leaf_n UINT32_MAX: none (read args' text) */
} jevent;

/* What the reader met, kept for the importer's thread when it reads on the decoding thread
** (read/pipeline.c). Its spans point into the batch's bytes, or into `owned` (freed once
** applied) for what was read from the reader's own buffer. */
enum { JSON_OP_EVENT, JSON_OP_REPORT, JSON_OP_METADATA, JSON_OP_SYSTEM_TRACE };
struct trak_json_op {
  uint8_t kind;
  uint8_t at;      /* REPORT: index and offset set the import's position first */
  uint16_t stat;   /* REPORT: the stat counted */
  uint64_t index;  /* the event index (EVENT; REPORT with at) */
  uint64_t offset; /* the byte offset (EVENT; REPORT with at) */
  char *owned;     /* REPORT: its message; else NULL or the copied text the spans point into */
  jevent e;        /* EVENT; METADATA and SYSTEM_TRACE: e.args is the member's value */
};

/* Turns one event read into spans into threads, tracks and records (json_events.c). Never
** fails: an event that cannot be imported is counted in json_parser_failure. */
void trak__json_event_apply(trak_json_import *j, const jevent *e);
/* Shares the held arg sets, oldest first, and sets their records' ids: before anything but
** trak__json_event_apply adds args rows or shares a set. Never fails. */
void trak__json_release(trak_json_import *j);
/* Adds the args of the processes and threads that had sort indexes (at the end of
** the import, once: json_events.c). */
void trak__json_meta_args(trak_json_import *j);
/* A "systemTraceEvents" member's value: its string's systrace lines go to the Linux event sink
** (system_trace.c); any other value is counted in json_parser_failure. Never fails. */
void trak__json_system_trace(trak_json_import *j, const trak_json_value *v);

/* The reader's diagnostics (json_import.c). Line and column (from 1) of buffer position `at`. */
void trak__json_line_col(const trak_json_import *j, const char *at, uint64_t *line, uint64_t *col);
/* A problem the reader met, reported (`at`: with the import's position set to event `index`,
** byte `offset` first) at once or, on the decoding thread, kept as an op with its message. */
__attribute__((format(printf, 6, 7))) void trak__json_reader_report(trak_json_import *j,
                                                                    trak_stat_id stat, int at,
                                                                    uint64_t index, uint64_t offset,
                                                                    const char *fmt, ...);
/* Steps past the first `used` bytes of the input being read (at j->base), keeping the line
** accounting that diagnostics need. */
void trak__json_advance(trak_json_import *j, size_t used);

/* Skipping what passes the reader's limits (json_skip.c). Steps over the `n` bytes at `p` of
** the event being skipped (j->skip.on); returns how many it took (all of them while it goes on). */
size_t trak__json_skip_bytes(trak_json_import *j, const char *p, size_t n);
/* The event at `from` (or the top-level member whose key is there) nests past the limit: reported
** and skipped. Returns 1 when its end is in c's bytes (c->p is then past it), 0 when the skip goes
** on into the next bytes fed. */
int trak__json_too_deep(trak_json_import *j, trak_json_cur *c, const char *from);
/* The buffered, unfinished event passed the event size limit: reported and skipped, its bytes
** scanned for its end without keeping them. */
void trak__json_event_too_large(trak_json_import *j);

#endif /* TRAK_PROCESSOR_JSON_IMPORT_H */
