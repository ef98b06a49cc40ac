/*
** A JSON trace event's args read into leaves on the decoding thread (json_leaves.c): each value
** that makes an args row, typed, under a numbered key of a dictionary the decoding thread fills
** and the importer's thread only reads, so that thread adds the rows without reading the args
** text again (json_args.c: trak__json_leaves_rows).
*/
#ifndef TRAK_PROCESSOR_IMPORT_JSON_JSON_LEAVES_H
#define TRAK_PROCESSOR_IMPORT_JSON_JSON_LEAVES_H

#include <stddef.h>
#include <stdint.h>

#include "processor/import/json/json.h"

#define TRAK_JSON_DICT_MAX 8192 /* keys numbered; an object with a key past them takes the text */
#define TRAK_JSON_DICT_KEY 64   /* a numbered key is shorter than this */
#define TRAK_JSON_DICT_DEPTH 8  /* objects nested deeper are read from the text */
#define TRAK_JSON_DICT_STARTS 32 /* contexts an args object starts in (the caller's: its phase) */

/* One numbered key: member `name` of the object whose key is number `parent` (0: the event's
** "args"), with its full key ("args.info.ok"). Written once by the decoding thread before any
** op that uses it is handed over, never changed: the importer's thread reads it freely. */
typedef struct trak_json_dict_entry {
  uint64_t name[4];   /* the name's words (trak__json_load_words) */
  uint64_t quoted[5]; /* '"', the name, '"' and ':', zero-padded: the member's usual spelling */
  uint64_t qmask;     /* the bytes of quoted[0] that are the spelling when all of it fits (names
                      ** of up to 5 bytes), else 0 */
  uint32_t parent;
  uint16_t name_len, key_len;
  char key[TRAK_JSON_DICT_KEY];
} trak_json_dict_entry;

#define TRAK_JSON_SHAPE_TEXT 512  /* an args object longer than this is not kept (below) */
#define TRAK_JSON_SHAPE_VALUES 32 /* nor one with more values than this */

/* The text a kept args object has before one of its values (or after its last: its tail):
** `len` bytes at `at` of the kept text, the first 16 of them (zero-padded) as words `w` with
** the masks `m` of the bytes they hold; the value is key `key`'s. */
typedef struct trak_json_args_step {
  uint64_t w[2], m[2];
  uint16_t at, len;
  uint32_t key;
} trak_json_args_step;

/* The args object read last in one start context (the caller's: its phase), kept as text
** between its values (strings, numbers, true, false, null): members' names, ':', commas,
** whitespace and nested objects' braces. A later object whose text is the same outside its
** values has the same keys (the values' keys in `step`) and is read value by value. */
typedef struct trak_json_args_shape {
  uint32_t n;    /* values; UINT32_MAX: nothing kept */
  uint32_t last; /* the key looked up last in the object: the dictionary's `last` after it */
  trak_json_args_step step[TRAK_JSON_SHAPE_VALUES + 1]; /* n before values, then the tail */
  char text[TRAK_JSON_SHAPE_TEXT + 16];                   /* zero-padded for word loads */
} trak_json_args_shape;

/* The key dictionary: entries 1..n in `entry` (allocated once, never moved), found by an open
** addressing table of entry numbers (the decoding thread's). */
typedef struct trak_json_dict {
  trak_json_dict_entry *entry; /* TRAK_JSON_DICT_MAX + 1 of them; entry 0 unused */
  trak_json_args_shape *shape;      /* TRAK_JSON_DICT_STARTS of them: each context's kept object */
  int shapes_off;              /* tests: read every object member by member (TRAK_JSON_SHAPES=0) */
  uint32_t n;
  uint32_t last;                         /* the key looked up last, or a start (below) */
  uint16_t slot[2 * TRAK_JSON_DICT_MAX]; /* entry numbers; 0: empty */
  /* key -> the key looked up after it last time: tried first, as args come with the same keys
  ** in order; past the keys, TRAK_JSON_DICT_MAX + 1 + context -> the first key of the last
  ** object read that started in that context (the caller sets `last` to it first). */
  uint16_t next[TRAK_JSON_DICT_MAX + 1 + TRAK_JSON_DICT_STARTS];
} trak_json_dict;

/* One args row to be: a value of kind `type` (a trak_arg_type: INT, REAL, BOOL, STRING) under
** dictionary key `key`. A string's bytes are `len` bytes at offset `v.off` of the event's args
** text (an offset, so the op's copy of an event moves them along). */
struct trak_json_leaf {
  uint16_t key;
  uint8_t type;
  uint8_t escaped; /* STRING: holds backslash escapes */
  uint32_t len;    /* STRING */
  union {
    int64_t i; /* INT, BOOL */
    double r;  /* REAL */
    uint64_t off;
  } v;
};

/* Where leaves go while the decoding thread reads. */
typedef struct trak_json_leaves {
  trak_json_leaf **v;
  size_t *n, *cap;
} trak_json_leaves;

/* Allocates the dictionary's entries and kept shapes (none kept; all off when the environment
** has TRAK_JSON_SHAPES=0). Can't fail (aborts on out of memory). */
void trak__json_dict_init(trak_json_dict *d);
void trak__json_dict_free(trak_json_dict *d);

/* Reads the args object at c->p (its '{') into leaves appended to `out`, with the rules of
** trak__json_args_flatten for what makes a row and under which key, when it is of the common
** shape: members with plain names of 1 to 32 bytes, followed at once by ':', whose values are
** strings, numbers, true, false, null or such objects (at most TRAK_JSON_DICT_DEPTH deep), keys
** shorter than TRAK_JSON_DICT_KEY bytes, no trailing comma, all in the buffer. Returns 1 with
** c->p past the object and *v its value (as the tokenizer spans it); 0 when the object is of
** another shape or not valid, with c->p and the leaves as they were (the caller then reads it
** with the tokenizer, which says what is wrong). Can't fail otherwise. Its first key is predicted
** from d->last, which the caller may set to TRAK_JSON_DICT_MAX + 1 + a context (below
** TRAK_JSON_DICT_STARTS): the first key read last time in that context. The object read last
** in the context (context 0 when d->last is a key) is kept (trak_json_args_shape): an object
** whose text matches it outside its values is read value by value, with the same leaves. */
int trak__json_leaves_read(trak_json_dict *d, trak_json_leaves *out, trak_json_cur *c,
                           trak_json_value *v);

#endif /* TRAK_PROCESSOR_IMPORT_JSON_JSON_LEAVES_H */
