/*
** This file holds JSON values into args: the one flattening both a JSON trace's event args and
** a protobuf trace's legacy_json_value annotations use, and the string interning (a small cache
** in front of the pool, UTF-8 repair) that JSON text goes through.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/importer.h"
#include "processor/import/json/json_args.h"
#include "processor/import/json/json_leaves.h"
#include "processor/import/json/json_scan.h"
#include "processor/tables/arg_value.h"
#include "util/utf8.h"

/* ---- strings ----------------------------------------------------------------------------- */

/* Interns a string into the pool, repairing invalid UTF-8 to U+FFFD (counted): JSON text from
** other tools may hold any bytes, and they would reach protobuf string fields.
** *clean says whether the pooled string is `s` as given (only such strings are cached). */
uint32_t trak__json_pool(trak_importer *imp, const char *s, size_t len, int *clean) {
  trak_strpool *sp = &imp->tables->strings;
  size_t ok = trak__utf8_valid_prefix(s, len);
  *clean = ok == len;
  if (TRAK_LIKELY(ok == len)) return trak__strpool_intern_bytes(sp, s, len); /* checked */
  char *fixed = malloc(3 * len);
  if (!fixed) abort();
  size_t bad, n = trak__utf8_repair(s, len, fixed, &bad);
  trak__report(imp, TRAK_STAT_JSON_INVALID_UTF8,
               "a JSON string holds %zu invalid UTF-8 sequence(s) (the first at its byte %zu); "
               "replaced by U+FFFD",
               bad, ok);
  uint32_t id = trak__strpool_intern(sp, fixed, n);
  free(fixed);
  return id;
}

uint32_t trak__json_intern_miss(trak_importer *imp, trak_json_cache *cache, uint32_t slot,
                                const uint64_t *w, const char *s, size_t len) {
  /* the other slot of its pair, which takes a string when its own slot is taken and it is empty
  ** (a third of the arg values of 1,000 distinct ones took turns in their slots) */
  __typeof__(&cache->slot[0]) c = &cache->slot[slot], other = &cache->slot[slot ^ 1];
  size_t words = (len + 7) / 8, i = 0;
  if (other->len == len) {
    while (i < words && other->w[i] == w[i])
      i++;
    if (i == words) return other->id;
  }
  int clean;
  uint32_t id = trak__json_pool(imp, s, len, &clean);
  if (TRAK_UNLIKELY(!clean)) return id;
  if (c->len && !other->len) c = other;
  c->id = id;
  c->len = (uint32_t)len;
  memcpy(c->w, w, words * 8);
  return id;
}

/* ---- values -------------------------------------------------------------------------------- */

/* Interns a string value, unescaped in full. */
static uint32_t intern_string(const trak_json_args *a, const trak_json_value *v) {
  if (!v->escaped) return trak__json_intern(a->imp, a->cache, v->s, v->len);
  char small[256];
  char *buf = v->len < sizeof small ? small : malloc(v->len + 1);
  if (!buf) abort();
  size_t n = trak__json_unescape(v, buf, v->len + 1);
  uint32_t id = trak__json_intern(a->imp, a->cache, buf, n);
  if (buf != small) free(buf);
  return id;
}

/* Adds a row under the current key (a->node's, interned the first time a row needs it, else
** a->k's), or returns TRAK_NULL_U32 (counted) if the key was cut. */
static inline uint32_t add_row(const trak_json_args *a, trak_arg_type type) {
  trak_json_key_node *node = a->node;
  if (node) {
    if (TRAK_UNLIKELY(!node->id))
      node->id = trak__json_intern(a->imp, a->cache, node->key, node->key_len);
    return trak__arg_add(a->imp->tables, a->set, node->id, node->id, type);
  }
  const trak_arg_key *k = a->k;
  if (TRAK_UNLIKELY(k->cut)) {
    trak__arg_key_too_long(a->imp, k, "JSON arg");
    return TRAK_NULL_U32;
  }
  uint32_t key = trak__json_intern(a->imp, a->cache, k->key, k->key_len);
  uint32_t flat =
      k->flat_len == k->key_len ? key : trak__json_intern(a->imp, a->cache, k->flat, k->flat_len);
  return trak__arg_add(a->imp->tables, a->set, flat, key, type);
}

trak_arg_type trak__json_number_wide(const trak_json_value *v, double *r) {
  char buf[24];
  memcpy(buf, v->s, v->len);
  buf[v->len] = 0;
  char *end;
  errno = 0;
  unsigned long long u = strtoull(buf, &end, 10);
  *r = errno ? trak__json_real(v->s, v->len) : (double)(int64_t)u;
  return TRAK_ARG_REAL;
}

static inline __attribute__((always_inline)) void leaf(const trak_json_args *a,
                                                       const trak_json_value *v) {
  trak_tables *t = a->imp->tables;
  int64_t iv = 0;
  double rv = 0;
  uint32_t row;
  switch (v->kind) {
  case TRAK_JSON_NUMBER:
    if (trak__json_number_arg(v, &iv, &rv) == TRAK_ARG_REAL) {
      row = add_row(a, TRAK_ARG_REAL);
      if (row != TRAK_NULL_U32) trak__arg_set_real(t, row, rv);
    } else {
      row = add_row(a, TRAK_ARG_INT);
      if (row != TRAK_NULL_U32) trak__arg_set_int(t, row, iv);
    }
    break;
  case TRAK_JSON_TRUE:
  case TRAK_JSON_FALSE:
    row = add_row(a, TRAK_ARG_BOOL);
    if (row != TRAK_NULL_U32) trak__arg_set_int(t, row, v->kind == TRAK_JSON_TRUE);
    break;
  case TRAK_JSON_STRING: {
    row = add_row(a, TRAK_ARG_STRING); /* the key is interned before the value */
    if (row != TRAK_NULL_U32) trak__arg_set_str(t, row, intern_string(a, v));
    break;
  }
  default: /* null: no row, as in Perfetto */
    break;
  }
}

__attribute__((cold, noinline)) static void too_deep(const trak_json_args *a) {
  trak__report(a->imp, TRAK_STAT_JSON_TOO_DEEP,
               "JSON arg '%.*s' nests deeper than %d levels; the deeper values were dropped",
               (int)(a->k->key_len < 60 ? a->k->key_len : 60), a->k->key, TRAK_LIMIT_JSON_DEPTH);
}

/* Reads an object member's name and its ':' at the cursor (`ch`: the byte there). The value was
** validated by the tokenizer: a name that is not a string is read as a value, never met. */
static inline void member_name(trak_json_cur *c, int ch, trak_json_value *name) {
  if (TRAK_LIKELY(ch == '"'))
    trak__json_string_at(c, name);
  else
    trak__json_value(c, name);
  if (TRAK_LIKELY(c->p < c->end && *c->p == ':'))
    c->p++;
  else
    trak__json_expect(c, ':', "");
}

/* Appends "." and a member's name, unescaped, to the key and the flat key. */
static void name_push(trak_arg_key *k, const trak_json_value *name) {
  trak__arg_key_push(k, ".", 1, 1);
  if (!name->escaped) {
    trak__arg_key_push(k, name->s, name->len, 1);
  } else {
    char buf[TRAK_LIMIT_KEY_BYTES + 1]; /* a longer name cuts the key anyway */
    size_t n = trak__json_unescape(name, buf, sizeof buf);
    trak__arg_key_push(k, buf, n, 1);
  }
}

size_t trak__json_args_flatten(const trak_json_args *a, trak_json_cur *c, int depth) {
  trak_json_value v;
  int ch = trak__json_peek(c);
  if (ch != '{' && ch != '[') {
    trak__json_value_fast(c, &v, 0);
    size_t before = a->imp->tables->args.n;
    leaf(a, &v);
    return a->imp->tables->args.n - before;
  }
  if (TRAK_UNLIKELY(depth >= TRAK_LIMIT_JSON_DEPTH)) { /* the tokenizer let it through: not */
    trak__json_value(c, &v);                           /* expected, but never silent */
    too_deep(a);
    return 0;
  }
  int is_obj = ch == '{';
  c->p++;
  trak_arg_key *k = a->k;
  trak_arg_key_mark mark = trak__arg_key_save(k);
  size_t added = 0, index = 0;
  for (;;) {
    ch = trak__json_peek(c);
    if (ch == ',') c->p++, ch = trak__json_peek(c);
    if (ch < 0 || ch == '}' || ch == ']') break;
    if (is_obj) {
      trak_json_value name;
      member_name(c, ch, &name);
      name_push(k, &name);
    } else {
      char idx[24];
      int n = snprintf(idx, sizeof idx, "[%zu]", index);
      trak__arg_key_push(k, idx, (size_t)n, 0);
    }
    size_t rows = trak__json_args_flatten(a, c, depth + 1);
    if (rows && !is_obj) index++; /* only entries that added rows count */
    added += rows;
    trak__arg_key_restore(k, mark);
  }
  if (ch >= 0) c->p++;
  return added;
}

/* ---- event args through the key memo ------------------------------------------------------ */

/* The node of member `name` (plain, 1..TRAK_JSON_CACHED_MAX bytes, its key shorter than
** TRAK_JSON_KEY_INLINE) of the object whose key is `path` (node `parent`): found, or made in its
** slot; NULL when its name is not valid UTF-8 (such a key is repaired and reported at each
** row, as trak__json_intern does) or the node numbers ran out. */
static inline trak_json_key_node *key_node(trak_json_keys *keys, uint32_t parent, const char *path,
                                           size_t path_len, const trak_json_value *name) {
  uint64_t w[TRAK_JSON_CACHED_MAX / 8];
  size_t len = name->len, words = (len + 7) / 8;
  trak__json_load_words(w, name->s, len);
  uint64_t h = trak__json_words_hash(parent ^ len << 32, w, words);
  trak_json_key_node *n = &keys->slot[h >> (64 - TRAK_JSON_KEYS_BITS)];
  if (TRAK_LIKELY(n->uid && n->parent == parent && n->name_len == len &&
                  trak__json_words_equal(n->name, w, words)))
    return n;
  if (trak__utf8_valid_prefix(name->s, len) != len || keys->uids == UINT32_MAX) return NULL;
  n->uid = ++keys->uids;
  n->parent = parent;
  n->name_len = (uint32_t)len;
  memcpy(n->name, w, words * 8);
  memcpy(n->key, path, path_len);
  n->key[path_len] = '.';
  memcpy(n->key + path_len + 1, name->s, len);
  n->key_len = (uint32_t)(path_len + 1 + len);
  n->id = 0;
  return n;
}

/* A member the memo does not take (an escaped, empty or long name, a long key, an array value,
** a value past the nesting limit): flattened by trak__json_args_flatten under `path` + "." +
** its name, the value at `depth`. Returns the rows added. */
static size_t member_plain(const trak_json_args *a, trak_json_cur *c, const char *path,
                           size_t path_len, const trak_json_value *name, int depth) {
  trak_arg_key *k = a->k;
  k->key_len = k->flat_len = k->cut = 0;
  trak__arg_key_push(k, path, path_len, 1);
  name_push(k, name);
  trak_json_args plain = *a;
  plain.node = NULL;
  return trak__json_args_flatten(&plain, c, depth);
}

/* The members of the object at the cursor (its '{', at nesting `depth`) whose key is `path`
** (node `uid`), in trak__json_args_flatten's order and with its rules. Returns the rows added. */
static size_t keyed_object(const trak_json_args *a, trak_json_keys *keys, trak_json_cur *c,
                           const char *path, size_t path_len, uint32_t uid, int depth) {
  trak_tables *t = a->imp->tables;
  size_t added = 0;
  int ch;
  c->p++;
  for (;;) {
    ch = trak__json_peek(c);
    if (ch == ',') c->p++, ch = trak__json_peek(c);
    if (ch < 0 || ch == '}' || ch == ']') break;
    trak_json_value name;
    member_name(c, ch, &name);
    trak_json_key_node *n = NULL;
    if (TRAK_LIKELY(ch == '"' && !name.escaped && name.len && name.len <= TRAK_JSON_CACHED_MAX &&
                    path_len + 1 + name.len < TRAK_JSON_KEY_INLINE))
      n = key_node(keys, uid, path, path_len, &name);
    ch = trak__json_peek(c);
    if (TRAK_UNLIKELY(!n || ch == '[' || (ch == '{' && depth + 1 >= TRAK_LIMIT_JSON_DEPTH))) {
      added += member_plain(a, c, path, path_len, &name, depth + 1);
    } else if (ch == '{') {
      char sub[TRAK_JSON_KEY_INLINE]; /* the node's slot may be taken by a member's */
      size_t sub_len = n->key_len;
      memcpy(sub, n->key, sub_len);
      added += keyed_object(a, keys, c, sub, sub_len, n->uid, depth + 1);
    } else {
      trak_json_value v;
      trak__json_value_fast(c, &v, 0);
      trak_json_args at = *a;
      at.node = n;
      size_t before = t->args.n;
      leaf(&at, &v);
      added += t->args.n - before;
    }
  }
  if (ch >= 0) c->p++;
  return added;
}

size_t trak__json_args_flatten_event(const trak_json_args *a, trak_json_keys *keys,
                                     trak_json_cur *c) {
  trak__json_peek(c);
  return keyed_object(a, keys, c, "args", 4, 0, 0);
}

/* ---- event args from leaves --------------------------------------------------------------- */

int trak__json_leaves_rows(const trak_json_args *a, const trak_json_dict_entry *entry,
                           uint32_t *ids, const trak_json_leaf *l, size_t n, const char *text,
                           uint64_t *hash) {
  trak_tables *t = a->imp->tables;
  uint64_t h = n, seen = 0; /* seen: a bit per key id's low 6 bits, for repeated keys */
  int alone = 1;
  for (const trak_json_leaf *end = l + n; l < end; l++) {
    uint32_t key = ids[l->key];
    if (TRAK_UNLIKELY(!key)) { /* interned at its first row, as add_row interns a node's key */
      const trak_json_dict_entry *e = &entry[l->key];
      key = ids[l->key] = trak__json_intern(a->imp, a->cache, e->key, e->key_len);
    }
    uint64_t bit = 1ULL << (key & 63);
    if (TRAK_UNLIKELY(seen & bit)) /* maybe a key again (names with dots, or repeated) */
      for (uint32_t r = a->set; r < t->args.n; r++)
        alone &= t->args.key[r] != key;
    seen |= bit;
    uint64_t w; /* the row's value word (tables/arg_value.h) */
    if (l->type == TRAK_ARG_STRING) {
      if (TRAK_LIKELY(!l->escaped)) { /* the usual plain value: its cache lookup inline */
        w = trak__arg_word_str(trak__json_intern(a->imp, a->cache, text + l->v.off, l->len));
      } else {
        trak_json_value v = {
            .s = text + l->v.off, .len = l->len, .kind = TRAK_JSON_STRING, .escaped = 1};
        w = trak__arg_word_str(intern_string(a, &v));
      }
    } else if (l->type == TRAK_ARG_REAL) {
      w = trak__arg_word_real(l->v.r);
    } else {
      w = trak__arg_word_int(l->v.i);
    }
    /* trak__args_push's row without its defaults: every column is written here (the byte
    ** column last, as a byte store may alias the column pointers) */
    size_t row = t->args.n;
    if (TRAK_UNLIKELY(row == t->args.cap)) trak__args_resize(t, row ? row + row / 2 : 64, 0);
    t->args.n = row + 1;
    t->args.arg_set_id[row] = a->set;
    t->args.flat_key[row] = key;
    t->args.key[row] = key;
    t->args.value[row] = w;
    t->args.value_type[row] = l->type;
    h = trak__arg_hash_row(h, key, l->type, w);
  }
  *hash = h;
  return alone;
}
