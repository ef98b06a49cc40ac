/*
** This file holds the decoding thread's reading of a JSON trace event's args into leaves
** (json_leaves.h): the key dictionary (keys numbered once, read by both threads) and the walk of
** an args object of the common shape, which validates it as the tokenizer would and types each
** value as an args row holds it.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/json/json_args.h"
#include "processor/import/json/json_leaves.h"
#include "processor/import/json/json_scan.h"
#include "util/utf8.h"

void trak__json_dict_init(trak_json_dict *d) {
  memset(d, 0, sizeof *d);
  d->entry = calloc(TRAK_JSON_DICT_MAX + 1, sizeof *d->entry);
  if (!d->entry) abort();
}

void trak__json_dict_free(trak_json_dict *d) {
  free(d->entry);
  d->entry = NULL;
}

/* The number of key `name` (plain, 1..32 bytes) under key `parent`: found, or made; 0 when the
** key would be TRAK_JSON_DICT_KEY bytes or more, the name is not valid UTF-8 (such a key is
** repaired and reported at each row) or the dictionary is full. */
static inline uint32_t dict_key(trak_json_dict *d, uint32_t parent, const trak_json_value *name) {
  uint64_t w[TRAK_JSON_CACHED_MAX / 8];
  size_t len = name->len, words = (len + 7) / 8;
  trak__json_load_words(w, name->s, len);
  uint64_t h = (parent ^ (uint64_t)len << 32) * 0x9e3779b97f4a7c15ULL;
  for (size_t i = 0; i < words; i++)
    h = (h ^ w[i]) * 0xff51afd7ed558ccdULL;
  const uint32_t mask = 2 * TRAK_JSON_DICT_MAX - 1;
  uint32_t s = (uint32_t)(h >> 32) & mask;
  for (;; s = (s + 1) & mask) {
    uint32_t k = d->slot[s];
    if (!k) break;
    const trak_json_dict_entry *e = &d->entry[k];
    if (e->parent == parent && e->name_len == len) {
      size_t i = 0;
      while (i < words && e->name[i] == w[i])
        i++;
      if (i == words) return k;
    }
  }
  /* a new key: the table is at most half full, so the probe above ended */
  const char *path = parent ? d->entry[parent].key : "args";
  size_t path_len = parent ? d->entry[parent].key_len : 4;
  if (path_len + 1 + len >= TRAK_JSON_DICT_KEY || d->n == TRAK_JSON_DICT_MAX ||
      trak__utf8_valid_prefix(name->s, len) != len)
    return 0;
  uint32_t k = ++d->n;
  trak_json_dict_entry *e = &d->entry[k];
  memcpy(e->name, w, words * 8);
  e->parent = parent;
  e->name_len = (uint16_t)len;
  memcpy(e->key, path, path_len);
  e->key[path_len] = '.';
  memcpy(e->key + path_len + 1, name->s, len);
  e->key_len = (uint16_t)(path_len + 1 + len);
  d->slot[s] = (uint16_t)k;
  return k;
}

/* The next leaf's slot. */
static inline trak_json_leaf *leaf_next(trak_json_leaves *out) {
  if (*out->n == *out->cap) trak__grow((void **)out->v, out->cap, *out->n + 1, sizeof **out->v);
  return &(*out->v)[(*out->n)++];
}

/* The members of the object at c->p (its '{') under key `parent`, at nesting `depth`, into
** leaves (string offsets from `base`). Returns 0, or -1 at anything trak__json_leaves_read
** leaves to the tokenizer. */
static int object(trak_json_dict *d, trak_json_leaves *out, trak_json_cur *c, const char *base,
                  uint32_t parent, int depth) {
  c->p++;
  int ch = trak__json_peek(c);
  if (ch == '}') {
    c->p++;
    return 0;
  }
  for (;;) {
    trak_json_value name, v;
    if (ch != '"' || trak__json_string_at(c, &name) || name.escaped || !name.len ||
        name.len > TRAK_JSON_CACHED_MAX || c->p >= c->end || *c->p != ':')
      return -1;
    c->p++;
    uint32_t k = dict_key(d, parent, &name);
    if (!k) return -1;
    ch = trak__json_peek(c);
    trak_json_leaf *l;
    switch (ch) {
    case '"':
      if (trak__json_string_at(c, &v)) return -1;
      l = leaf_next(out);
      l->type = TRAK_ARG_STRING;
      l->escaped = v.escaped;
      l->len = v.len;
      l->v.off = (uint64_t)(v.s - base);
      break;
    case 't':
    case 'f': {
      size_t n = ch == 't' ? 4 : 5;
      if ((size_t)(c->end - c->p) < n || memcmp(c->p, ch == 't' ? "true" : "false", n)) return -1;
      c->p += n;
      l = leaf_next(out);
      l->type = TRAK_ARG_BOOL;
      l->v.i = ch == 't';
      break;
    }
    case 'n':
      if (c->end - c->p < 4 || memcmp(c->p, "null", 4)) return -1;
      c->p += 4;
      l = NULL; /* no row, as in Perfetto */
      break;
    case '{':
      if (depth + 1 >= TRAK_JSON_DICT_DEPTH || object(d, out, c, base, k, depth + 1)) return -1;
      l = NULL;
      break;
    default: {
      if (ch != '-' && (ch < '0' || ch > '9')) return -1; /* arrays, and what is not valid */
      if (trak__json_number_at(c, &v)) return -1;
      int64_t i = 0;
      double r = 0;
      l = leaf_next(out);
      l->type = (uint8_t)trak__json_number_arg(&v, &i, &r);
      if (l->type == TRAK_ARG_INT)
        l->v.i = i;
      else
        l->v.r = r;
      break;
    }
    }
    if (l) l->key = (uint16_t)k;
    ch = trak__json_peek(c);
    if (ch == ',') {
      c->p++;
      ch = trak__json_peek(c);
      continue;
    }
    if (ch != '}') return -1;
    c->p++;
    return 0;
  }
}

int trak__json_leaves_read(trak_json_dict *d, trak_json_leaves *out, trak_json_cur *c,
                           trak_json_value *v) {
  const char *start = c->p;
  size_t mark = *out->n;
  if (object(d, out, c, start, 0, 0)) {
    c->p = start;
    *out->n = mark;
    return 0;
  }
  v->kind = TRAK_JSON_OBJECT;
  v->s = start;
  v->len = (uint32_t)(c->p - start);
  return 1;
}
