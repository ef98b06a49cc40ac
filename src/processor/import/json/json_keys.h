/*
** The JSON reader's trace-event keys (json_import.c's event loop): the word compares that match a
** key written plainly, the field a key names, and the keys predicted from the events before
** (each phase's row of j->key_pred and the shape it chains, json_import.h), learnt in
** json_keys.c.
*/
#ifndef TRAK_PROCESSOR_IMPORT_JSON_JSON_KEYS_H
#define TRAK_PROCESSOR_IMPORT_JSON_JSON_KEYS_H

#include <stdint.h>
#include <string.h>

#include "processor/import/json/json_import.h"
#include "processor/import/json/json_scan.h"

/* The 8 bytes at p as a little-endian word (json_scan.h refuses other byte orders). */
static inline uint64_t trak__json_word_at(const char *p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
}

/* Whether word w begins with the n bytes of lit (1 <= n <= 8); the literal's word folds to a
** constant. */
static inline int trak__json_word_is(uint64_t w, const char *lit, unsigned n) {
  uint64_t k = 0;
  memcpy(&k, lit, n);
  uint64_t mask = n == 8 ? ~0ULL : (1ULL << (8 * n)) - 1;
  return ((w ^ k) & mask) == 0;
}

/* The field of a trace-event key written plainly at c->p ('"', with at least 16 bytes left):
** its quotes and the ':' right after them matched in one or two word compares, chosen by the
** key's first letter. On a match, c->p steps past the ':' and the field is returned; NULL
** (c->p unchanged) for any other key or spelling (escapes, whitespace before ':'), which
** trak__json_key_ch and trak__json_field_for then read as before: either way the same field. */
static inline __attribute__((always_inline)) trak_json_value *
trak__json_key_fast(trak_json_cur *c, jevent *e) {
  const char *p = c->p;
  uint64_t w = trak__json_word_at(p);
  /* KEY: keys of up to 8 bytes with their quotes and ':'; LONG_KEY: 9 to 16. */
#define KEY_MATCH(lit, f, match)                                                                   \
  do {                                                                                             \
    if (match) {                                                                                   \
      c->p = p + sizeof lit - 1;                                                                   \
      return &e->f;                                                                                \
    }                                                                                              \
  } while (0)
#define KEY(lit, f) KEY_MATCH(lit, f, trak__json_word_is(w, lit, sizeof lit - 1))
#define LONG_KEY(lit, f)                                                                           \
  KEY_MATCH(lit, f, w == trak__json_word_at(lit) && trak__json_word_is(trak__json_word_at(p + 8), &(lit)[8], sizeof lit - 9))
  switch (p[1]) {
  case 'p':
    KEY("\"ph\":", ph);
    KEY("\"pid\":", pid);
    break;
  case 't':
    KEY("\"ts\":", ts);
    KEY("\"tid\":", tid);
    KEY("\"tts\":", tts);
    KEY("\"tdur\":", tdur);
    break;
  case 'n':
    KEY("\"name\":", name);
    break;
  case 'c':
    KEY("\"cat\":", cat);
    break;
  case 'd':
    KEY("\"dur\":", dur);
    break;
  case 'a':
    KEY("\"args\":", args);
    break;
  case 'i':
    KEY("\"id\":", id);
    KEY("\"id2\":", id2);
    break;
  case 's':
    KEY("\"s\":", s);
    KEY("\"scope\":", scope);
    break;
  case 'b':
    KEY("\"bp\":", bp);
    LONG_KEY("\"bind_id\":", bind_id);
    break;
  case 'f':
    LONG_KEY("\"flow_in\":", flow_in);
    LONG_KEY("\"flow_out\":", flow_out);
    break;
  default:
    break;
  }
#undef LONG_KEY
#undef KEY
#undef KEY_MATCH
  return NULL;
}

/* The field the key of n bytes at k names (its text unescaped), NULL for any other key. */
trak_json_value *trak__json_field_for(jevent *e, const char *k, size_t n);

/* Learns that the key of field `slot` of e (NULL: no field) followed row `prev` of `row` (one
** of j->key_pred, whose phase's shape is then stale): written `"key":`, after a comma unless it
** is the event's first member. Rare (a key not predicted): not inlined. */
__attribute__((noinline)) void trak__json_key_learn(trak_json_import *j, trak_json_key_pred *row,
                                                    unsigned prev, const jevent *e,
                                                    const trak_json_value *slot);

/* Builds phase `ph`'s shape (j->shape[ph]): the chain of its row's predictions from the "ph"
** field on, up to a key not predicted (too long, or none learnt) or a field met before. */
__attribute__((noinline)) void trak__json_shape_build(trak_json_import *j, unsigned ph);

/* Whether the bytes at p (at least 17 of them) are shape key k's member as kept, followed by ','
** or '}' or one of the few other bytes that share their bits: none is a digit, '.', 'e' or 'E',
** so a number's value ends at the same byte. */
static inline int trak__json_kept_at(const trak_json_shape_key *k, const char *p) {
#if defined(__SSE2__)
  __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
  __m128i t = _mm_loadu_si128((const __m128i *)(const void *)k->text);
  if (((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, t)) & k->need) != k->need) return 0;
#else
  if ((k->need >> 16) || memcmp(p, k->text, k->len)) return 0;
#endif
  return ((unsigned char)p[k->len] | 0x51) == 0x7d; /* ',' or '}' (or '-', '<', '=', 'l', 'm', '|') */
}

/* Keeps the member read plainly from `at` to `end` (its value in `slot`, 32 bytes or more from
** `at` in the buffer) in shape key k, when it has at most 16 bytes. */
static inline void trak__json_keep(trak_json_shape_key *k, const char *at, const char *end,
                                   const trak_json_value *slot) {
  size_t n = (size_t)(end - at);
  if (n > 16) return;
  memcpy(k->text, at, 16);
  k->need = (uint32_t)((1ull << n) - 1);
  k->len = (uint8_t)n;
  k->at = (uint8_t)(slot->s - at);
  k->val = *slot;
}

/* Reads the members of shape sh at p (past the "ph" member's value; end: the buffer's end) into
** e while their keys are the shape's keys[0], keys[1], ... in turn and their values strings
** without escapes or numbers of the usual form (trak__json_number_span), with 32 bytes or more
** left at each key; a kept member (trak_json_shape_key) is taken as it was. Returns where it
** stopped, at *stop, the key of sh->keys not read whole (or sh->keys + sh->n), with *keyed 1 when
** its key was read but not its value, which is at the returned position. */
static inline __attribute__((always_inline)) const char *
trak__json_shape_read(trak_json_shape *sh, jevent *e, const char *p, const char *end,
                      trak_json_shape_key **stop, int *keyed) {
  trak_json_shape_key *sk = sh->keys; /* up to the one of key.memo 2 */
  /* 32 bytes or more left at p: p at or below `room`, one compare a key (as addresses: no
  ** buffer ends in the first 32 bytes of the address space) */
  const uintptr_t room = (uintptr_t)end - 32;
  for (;; sk++) {
    if ((uintptr_t)p > room) break;
    trak_json_value *slot = (trak_json_value *)(void *)((char *)e + sk->key.off);
    if (sk->key.memo) {
      if (TRAK_UNLIKELY(sk->key.memo > 1)) break; /* the shape's end */
      if (trak__json_kept_at(sk, p)) {
        *slot = sk->val;
        slot->s = p + sk->at;
        p += sk->len;
        continue;
      }
    }
    if ((trak__json_word_at(p) ^ sk->key.word) & sk->key.mask) break;
    const char *at = p, *q;
    p += sk->key.len;
    if (*p == '"') {
      q = trak__json_plain_run16(p + 1, end); /* p + 17 <= end: keys have 8 bytes or fewer */
      if (TRAK_LIKELY(q < end && *q == '"')) {
        slot->kind = TRAK_JSON_STRING, slot->escaped = 0;
        slot->s = p + 1, slot->len = (uint32_t)(q - (p + 1));
        p = q + 1;
        if (sk->key.memo) trak__json_keep(sk, at, p, slot);
        continue;
      }
    } else if (TRAK_JSON_NUMBER_BLOCK && (q = trak__json_number_span(p, slot))) {
      p = q;
      if (sk->key.memo) trak__json_keep(sk, at, p, slot);
      continue;
    }
    *stop = sk, *keyed = 1;
    return p;
  }
  *stop = sk, *keyed = 0;
  return p;
}

#endif /* TRAK_PROCESSOR_IMPORT_JSON_JSON_KEYS_H */
