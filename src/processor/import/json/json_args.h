/*
** JSON values into args (json_args.c), one set of rules for a JSON trace's event args and for a
** protobuf trace's legacy_json_value annotations (as Perfetto has one json::AddJsonValueToArgs):
** keys, numbers, strings and limits, and the string interning with UTF-8 repair both use.
*/
#ifndef TRAK_PROCESSOR_IMPORT_JSON_JSON_ARGS_H
#define TRAK_PROCESSOR_IMPORT_JSON_JSON_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "processor/import/args.h"
#include "processor/import/importer.h"
#include "processor/import/json/json.h"
#include "processor/tables/storage.h"

#define TRAK_JSON_CACHE_BITS 12 /* direct-mapped cache of short interned strings: 4096 slots */
#define TRAK_JSON_CACHED_MAX 32 /* longest string the cache holds */

/* Strings met again and again (names, categories, arg keys, short string values) and their
** string ids, two ways a slot pair (trak__json_intern_miss). A slot keeps the string's words (trak__json_load_words: zero-padded), so a hit
** compares words with no load of the pooled copy. */
typedef struct trak_json_cache {
  struct {
    uint64_t w[TRAK_JSON_CACHED_MAX / 8]; /* the string's words, the last zero-padded */
    uint32_t id, len;                     /* len 0: an empty slot */
  } slot[1u << TRAK_JSON_CACHE_BITS];
} trak_json_cache;

/* Interns `len` bytes of JSON text into imp->tables->strings, invalid UTF-8 repaired to U+FFFD
** and counted (JSON_INVALID_UTF8). Returns the string id; *clean says whether the pooled string
** is `s` as given. Can't fail (aborts on out of memory, as the pool does). */
uint32_t trak__json_pool(trak_importer *imp, const char *s, size_t len, int *clean);

/* Copies `len` (1..TRAK_JSON_CACHED_MAX) bytes into whole words, the last one zero-padded,
** never reading past the string: a string of 8 bytes or more has its last word's bytes read
** as the 8 bytes ending the string, shifted down; a shorter one as 4-, 2- and 1-byte pieces. */
static inline void trak__json_load_words(uint64_t *w, const char *s, size_t len) {
  size_t i = 0;
  for (; i + 8 <= len; i += 8)
    memcpy(&w[i / 8], s + i, 8);
  size_t rest = len - i;
  if (!rest) return;
  uint64_t last = 0;
  if (len >= 8) {
    memcpy(&last, s + len - 8, 8);
    w[i / 8] = last >> (8 * (8 - rest));
    return;
  }
  const char *t = s;
  unsigned shift = 0;
  if (rest & 4) {
    uint32_t a;
    memcpy(&a, t, 4);
    last = a, t += 4, shift = 32;
  }
  if (rest & 2) {
    uint16_t b;
    memcpy(&b, t, 2);
    last |= (uint64_t)b << shift, t += 2, shift += 16;
  }
  if (rest & 1) last |= (uint64_t)(unsigned char)*t << shift;
  w[0] = last;
}

/* The `len` (0..8) bytes at `s` as one word, zero-padded: trak__json_load_words' first word (0
** for len 0). Read as the 8 bytes that end at s + len, shifted down, when they start at or after
** `lo` (the first byte that may be read); else piece by piece from `s`. Never reads past s + len.
** A string value of an event member has its key, colon and quotes before it: 8 bytes of them
** for "cat" and "name" (`{"cat":"`), so `lo` may be s - 8 there and the word is one load. */
static inline uint64_t trak__json_load_word(const char *s, size_t len, const char *lo) {
  if (TRAK_LIKELY(len && (uintptr_t)(s + len) - (uintptr_t)lo >= 8)) {
    uint64_t w;
    memcpy(&w, s + len - 8, 8);
    return w >> (8 * (8 - len));
  }
  uint64_t w = 0;
  if (len) trak__json_load_words(&w, s, len);
  return w;
}

/* The hash of `words` words `w` (trak__json_load_words' words of a string) from `seed`: the
** seed times one odd constant, then each word xored in and multiplied by another. Every cache of
** short strings and keys in the JSON importer hashes this way, each with its own seed (the
** length, the parent key, the counter's process and name); read its top bits. Can't fail. */
static inline uint64_t trak__json_words_hash(uint64_t seed, const uint64_t *w, size_t words) {
  uint64_t h = seed * 0x9e3779b97f4a7c15ULL;
  for (size_t i = 0; i < words; i++)
    h = (h ^ w[i]) * 0xff51afd7ed558ccdULL;
  return h;
}

/* Whether the first `words` words of a and b are equal. */
static inline int trak__json_words_equal(const uint64_t *a, const uint64_t *b, size_t words) {
  size_t i = 0;
  while (i < words && a[i] == b[i])
    i++;
  return i == words;
}

/* trak__json_intern's miss of `slot`: the string is looked up in the other slot of its pair
** (slot ^ 1), else pooled and, if it was clean, put in `slot`, or in the other if that is empty
** and `slot` is not (w: its words as trak__json_load_words made them). Returns the string id.
** Can't fail. */
uint32_t trak__json_intern_miss(trak_importer *imp, trak_json_cache *cache, uint32_t slot,
                                const uint64_t *w, const char *s, size_t len);

/* trak__json_pool's string id for `len` bytes of JSON text; short strings are looked up in
** `cache` first (NULL: no cache), hashed and compared a word at a time inline (names,
** categories and arg keys repeat from event to event and are a few words long at most); a miss
** and longer strings go out of line. */
static inline __attribute__((always_inline)) uint32_t
trak__json_intern(trak_importer *imp, trak_json_cache *cache, const char *s, size_t len) {
  int clean;
  if (len > TRAK_JSON_CACHED_MAX || !len || !cache) return trak__json_pool(imp, s, len, &clean);
  uint64_t w[TRAK_JSON_CACHED_MAX / 8];
  size_t words = (len + 7) / 8;
  trak__json_load_words(w, s, len);
  uint64_t h = trak__json_words_hash(len, w, words);
  /* The top bits: a product's high bits depend on all of its factor's bits, its middle ones
  ** not on the last word's top bytes (strings ending in a counter all fell in a few slots). */
  uint32_t slot = (uint32_t)(h >> (64 - TRAK_JSON_CACHE_BITS));
  const uint64_t *c = cache->slot[slot].w;
  if (cache->slot[slot].len == len && trak__json_words_equal(c, w, words))
    return cache->slot[slot].id;
  return trak__json_intern_miss(imp, cache, slot, w, s, len);
}

/* trak__json_intern of 1..8 bytes, their word `w` (trak__json_load_word): hashed and compared as
** that one word, in the slot trak__json_intern picks. Names and categories are mostly this short. */
static inline __attribute__((always_inline)) uint32_t
trak__json_intern_word(trak_importer *imp, trak_json_cache *cache, uint64_t w, const char *s,
                       size_t len) {
  uint64_t h = trak__json_words_hash(len, &w, 1);
  uint32_t slot = (uint32_t)(h >> (64 - TRAK_JSON_CACHE_BITS));
  if (cache->slot[slot].len == len && cache->slot[slot].w[0] == w) return cache->slot[slot].id;
  return trak__json_intern_miss(imp, cache, slot, &w, s, len);
}

/* trak__json_number_arg's rare case: a number past int64 but within 20 digits, as Perfetto
** reads it (its bits as an int64 stored as a real: 18446744073709551615 is -1.0; past uint64, the
** number as a double). Returns TRAK_ARG_REAL with *r set. Can't fail. */
trak_arg_type trak__json_number_wide(const trak_json_value *v, double *r)
    __attribute__((cold, noinline));

/* A JSON number as an args row holds it: TRAK_ARG_INT with *i (an integer within int64), else
** TRAK_ARG_REAL with *r (fractions, exponents, integers past int64). Can't fail; depends on the
** value's text only, so either thread may call it. */
static inline trak_arg_type trak__json_number_arg(const trak_json_value *v, int64_t *i, double *r) {
  if (TRAK_UNLIKELY(!v->is_float && v->s[0] != '-' && v->len <= 20 && !trak__json_int_of(v, i)))
    return trak__json_number_wide(v, r);
  if (v->is_float || !trak__json_int_of(v, i)) {
    *r = trak__json_real_of(v);
    return TRAK_ARG_REAL;
  }
  return TRAK_ARG_INT;
}

#define TRAK_JSON_KEYS_BITS 10  /* the key memo's slots: 1024 */
#define TRAK_JSON_KEY_INLINE 64 /* a memoized key is shorter than this */

/* One memoized key: the member `name` of the object whose key is node `parent` (0: the event's
** "args"), with its full key ("args.info.ok") and, once a row has used it, the key's string id. */
typedef struct trak_json_key_node {
  uint64_t name[TRAK_JSON_CACHED_MAX / 8]; /* the name's words (trak__json_load_words) */
  uint32_t uid;                            /* this node's number, never reused; 0: empty slot */
  uint32_t parent, name_len, key_len;
  uint32_t id; /* string id of `key`, 0 until a row needed it */
  char key[TRAK_JSON_KEY_INLINE];
} trak_json_key_node;

/* The keys of a JSON trace's event args, met again and again (the same names under the same
** objects): a direct-mapped memo from (parent node, member name) to the member's node, so a row
** needs neither its key built nor interned. Nodes are numbered from 1 and a number is never
** reused, so a child kept after its parent's slot was taken can't be matched again. */
typedef struct trak_json_keys {
  trak_json_key_node slot[1u << TRAK_JSON_KEYS_BITS];
  uint32_t uids; /* the last node number given */
} trak_json_keys;

/* Where a flattened value's rows go. */
typedef struct trak_json_args {
  trak_importer *imp;
  trak_json_cache *cache;   /* NULL: none */
  uint32_t set;             /* the arg set's first row (trak__arg_add's `set`) */
  trak_arg_key *k;          /* the key the value goes under; left as it was found */
  trak_json_key_node *node; /* non-NULL: the key is this node's (k is not read) */
} trak_json_args;

/* Flattens the value at the cursor, already validated by trak__json_value, into rows of
** a->set under a->k with Perfetto's naming (objects append ".name" to both keys, arrays "[i]" to
** the key only, i counting the entries that added rows), stepping the cursor past it. Rules:
** null adds nothing; an integer past int64 but within uint64 is a real of its bits read as an
** int64 (Perfetto's), past uint64 a real; strings and keys are unescaped in full and UTF-8
** repaired (trak__json_intern); a value whose key passes TRAK_LIMIT_KEY_BYTES is dropped and
** counted (KEY_TOO_LONG); containers nested past TRAK_LIMIT_JSON_DEPTH (the tokenizer's
** limit, `depth` the value's own) are dropped and counted (JSON_TOO_DEEP). Returns the number
** of rows added. Can't fail. */
size_t trak__json_args_flatten(const trak_json_args *a, trak_json_cur *c, int depth);

/* A JSON trace event's args object at the cursor (its '{'), flattened under "args" as
** trak__json_args_flatten flattens it (the same rows, interned strings and reports in the same
** order), the keys of members with plain names under objects looked up in `keys` (a->node and
** a->k's contents are ignored; a->k is used for the other members). Returns the rows added.
** Can't fail. */
size_t trak__json_args_flatten_event(const trak_json_args *a, trak_json_keys *keys,
                                     trak_json_cur *c);

/* Adds the rows of `n` leaves (json_leaves.h) of an event's args, whose text starts at `text`, to
** the set a->set, in order: the key of dictionary entry k is `ids[k]`, interned from `entry` at its
** first row (0 until then), before the row's string value, as trak__json_args_flatten_event
** interns them. a->k and a->node are not read. Returns 1 when no key came twice, with *hash the
** set's content hash as trak__args_share_prepare would give it (the rows then need no
** preparing but the prefetch); 0 when one did (the set must go through
** trak__args_share_prepare). Can't fail. */
struct trak_json_dict_entry;
struct trak_json_leaf;
int trak__json_leaves_rows(const trak_json_args *a, const struct trak_json_dict_entry *entry,
                           uint32_t *ids, const struct trak_json_leaf *l, size_t n,
                           const char *text, uint64_t *hash);

#endif /* TRAK_PROCESSOR_IMPORT_JSON_JSON_ARGS_H */
