/*
** This file holds the decoding thread's reading of a JSON trace event's args into leaves
** (json_leaves.h): the key dictionary (keys numbered once, read by both threads) and the walk of
** an args object of the common shape, which validates it as the tokenizer would and types each
** value as an args row holds it.
*/
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/json/json_args.h"
#include "processor/import/json/json_leaves.h"
#include "processor/import/json/json_scan.h"
#include "util/utf8.h"

void trak__json_dict_init(trak_json_dict *d) {
  memset(d, 0, sizeof *d);
  d->entry = calloc(TRAK_JSON_DICT_MAX + 1, sizeof *d->entry);
  d->shape = malloc(TRAK_JSON_DICT_STARTS * sizeof *d->shape);
  if (!d->entry || !d->shape) abort();
  for (size_t i = 0; i < TRAK_JSON_DICT_STARTS; i++)
    d->shape[i].n = UINT32_MAX;
  const char *env = getenv("TRAK_JSON_SHAPES");
  d->shapes_off = env && !strcmp(env, "0");
}

void trak__json_dict_free(trak_json_dict *d) {
  free(d->entry);
  free(d->shape);
  d->entry = NULL;
  d->shape = NULL;
}

/* Whether entry `e` is member `name` (its words `w`) of key `parent`. */
static inline int entry_is(const trak_json_dict_entry *e, uint32_t parent, size_t len,
                           const uint64_t *w) {
  return e->parent == parent && e->name_len == len &&
         trak__json_words_equal(e->name, w, (len + 7) / 8);
}

/* dict_key's miss of the key that followed the last one: looked up by hash, or made. */
static uint32_t dict_find(trak_json_dict *d, uint32_t parent, const trak_json_value *name,
                          const uint64_t *w) {
  size_t len = name->len, words = (len + 7) / 8;
  uint64_t h = trak__json_words_hash(parent ^ (uint64_t)len << 32, w, words);
  const uint32_t mask = 2 * TRAK_JSON_DICT_MAX - 1;
  uint32_t s = (uint32_t)(h >> 32) & mask;
  for (;; s = (s + 1) & mask) {
    uint32_t k = d->slot[s];
    if (!k) break;
    if (entry_is(&d->entry[k], parent, len, w)) return k;
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
  char *q = (char *)e->quoted;
  q[0] = '"';
  memcpy(q + 1, name->s, len);
  q[len + 1] = '"', q[len + 2] = ':';
  e->qmask = len + 3 < 8 ? (1ULL << (8 * (len + 3))) - 1 : len + 3 == 8 ? ~0ULL : 0;
  d->slot[s] = (uint16_t)k;
  return k;
}

/* The number of key `name` (plain, 1..32 bytes) under key `parent`: the key that followed the
** last one looked up, if it is that, else found or made (dict_find); 0 when the key would be
** TRAK_JSON_DICT_KEY bytes or more, the name is not valid UTF-8 (such a key is repaired and
** reported at each row) or the dictionary is full. */
static inline uint32_t dict_key(trak_json_dict *d, uint32_t parent, const trak_json_value *name) {
  uint64_t w[TRAK_JSON_CACHED_MAX / 8];
  trak__json_load_words(w, name->s, name->len);
  uint32_t k = d->next[d->last];
  if (TRAK_UNLIKELY(!k || !entry_is(&d->entry[k], parent, name->len, w))) {
    k = dict_find(d, parent, name, w);
    if (!k) return 0;
    d->next[d->last] = (uint16_t)k;
  }
  return d->last = k;
}

/* The 8 bytes at p as a word. */
static inline uint64_t word8(const char *p) {
  uint64_t x;
  memcpy(&x, p, 8);
  return x;
}

/* Whether the bytes at p (at least sizeof e->quoted of them) are entry e's name quoted and ':'. */
static inline int quoted_at(const trak_json_dict_entry *e, const char *p) {
  if (TRAK_LIKELY(e->qmask)) return !((word8(p) ^ e->quoted[0]) & e->qmask);
  size_t n = (size_t)e->name_len + 3, i = 0;
  for (; i + 8 <= n; i += 8)
    if (word8(p + i) != e->quoted[i / 8]) return 0;
  return i == n || !((word8(p + i) ^ e->quoted[i / 8]) & ((1ULL << (8 * (n - i))) - 1));
}

/* Leaves being made: the vector's fields (put back at the end) and the args object's first byte,
** which string offsets count from. */
typedef struct leafvec {
  trak_json_leaf *v;
  size_t n, cap;
  const char *base;
} leafvec;

/* Room in lv for `need` leaves (through copies of its fields, so that lv itself may stay in
** registers). */
static inline void leaves_room(leafvec *lv, size_t need) {
  void *v = lv->v;
  size_t cap = lv->cap;
  trak__grow(&v, &cap, need, sizeof *lv->v);
  lv->v = v, lv->cap = cap;
}

/* The walk of one args object: the dictionary and the leaves. */
typedef struct walk {
  trak_json_dict *d;
  leafvec lv;
  /* the values read member by member, in order (for keep_shape): their spans from lv.base and
  ** keys; rec_n counts past TRAK_JSON_SHAPE_VALUES, rec holds the first ones */
  uint32_t rec_n;
  struct {
    uint32_t start, end, key;
  } rec[TRAK_JSON_SHAPE_VALUES];
} walk;

/* The 4 bytes at p as a word. */
static inline uint32_t word4(const char *p) {
  uint32_t x;
  memcpy(&x, p, 4);
  return x;
}

/* Past the whitespace at p (as trak__json_peek skips it). */
static inline const char *skip_space(const char *p, const char *end) {
  if (TRAK_LIKELY(p < end && (unsigned char)*p > ' ')) return p;
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
    p++;
  return p;
}

/* The closing quote of the string whose bytes start at p (past its opening quote), as
** trak__json_string_at finds it (*escaped: it holds a backslash); NULL when it is not in the
** buffer. */
static inline const char *string_end(const char *p, const char *end, uint8_t *escaped) {
  *escaped = 0;
  for (;;) {
    p = trak__json_plain_run(p, end);
    if (p >= end) return NULL;
    if (*p == '"') return p;
    *escaped = 1;
    if (end - p < 2) return NULL;
    p += 2;
  }
}

/* The value at p (after whitespace) under key `k` when it is a string, a number, true, false or
** null: its leaf (none for null) appended to lv (`room`: the caller made room for it). Returns
** the end of the value, or NULL for another value (objects: the caller's; arrays) or one not
** valid or cut by the buffer's end. */
static inline __attribute__((always_inline)) const char *
scalar(leafvec *lv, trak_json_cur *c, const char *p, uint32_t k, int room) {
  const char *end = c->end, *q;
  if (!room && TRAK_UNLIKELY(lv->n == lv->cap)) leaves_room(lv, lv->n + 1);
  trak_json_leaf *l = &lv->v[lv->n];
  if (*p == '"') {
    uint8_t escaped;
    if (!(q = string_end(p + 1, end, &escaped))) return NULL;
    l->type = TRAK_ARG_STRING;
    l->escaped = escaped;
    l->len = (uint32_t)(q - (p + 1));
    l->v.off = (uint64_t)(p + 1 - lv->base);
    p = q + 1;
  } else if (*p == '-' || (unsigned)(*p - '0') < 10) {
    trak_json_value v;
    if (TRAK_JSON_NUMBER_BLOCK && end - p >= 17 && (q = trak__json_number_span(p, &v))) {
      /* the common number: its row as trak__json_number_arg makes it (at most 8 integer
      ** digits, no exponent: an integer is an INT, a fraction a REAL) */
      p = q;
      if (!v.is_float) {
        l->type = TRAK_ARG_INT;
        l->v.i = v.s[0] == '-' ? -(int64_t)v.ival : (int64_t)v.ival;
      } else {
        l->type = TRAK_ARG_REAL;
        l->v.r = trak__json_real_of(&v);
      }
    } else {
      trak_json_value u; /* apart from v, which then stays in registers */
      c->p = p;
      if (trak__json_number_at(c, &u)) return NULL;
      p = c->p;
      int64_t i = 0;
      double r = 0;
      l->type = (uint8_t)trak__json_number_arg(&u, &i, &r);
      if (l->type == TRAK_ARG_INT)
        l->v.i = i;
      else
        l->v.r = r;
    }
  } else {
    if (end - p < 5) return NULL; /* a literal, and the byte after it */
    uint32_t x = word4(p);
    if (x == word4("null")) return p + 4; /* no row, as in Perfetto */
    if (x != word4("true") && (x != word4("fals") || p[4] != 'e'))
      return NULL; /* objects, arrays, and what is not valid */
    p += x == word4("true") ? 4 : 5;
    l->type = TRAK_ARG_BOOL;
    l->v.i = x == word4("true");
  }
  l->key = (uint16_t)k;
  lv->n++;
  return p;
}

/* The members of the object at c->p (its '{') under key `parent`, at nesting `depth`, into
** leaves (read with a cursor of its own, c->p set only around the calls that take it), each
** value's span and key recorded in w->rec. Returns 0 with c->p past the object, or -1 at
** anything trak__json_leaves_read leaves to the tokenizer. */
static int object(walk *w, trak_json_cur *c, uint32_t parent, int depth) {
  const char *p = skip_space(c->p + 1, c->end), *end = c->end;
  if (p < end && *p == '}') {
    c->p = p + 1;
    return 0;
  }
  trak_json_dict *d = w->d;
  for (;;) {
    /* the key that followed the last one, spelled as usual: matched in place */
    uint32_t k = d->next[d->last];
    const trak_json_dict_entry *e = &d->entry[k];
    if (TRAK_LIKELY(k && e->parent == parent && end - p >= (ptrdiff_t)sizeof e->quoted &&
                    quoted_at(e, p))) {
      p += e->name_len + 3;
      d->last = k;
    } else {
      trak_json_value name;
      if (p >= end || *p != '"') return -1;
      c->p = p;
      if (trak__json_string_at(c, &name) || name.escaped || !name.len ||
          name.len > TRAK_JSON_CACHED_MAX || c->p >= end || *c->p != ':')
        return -1;
      p = c->p + 1;
      if (!(k = dict_key(d, parent, &name))) return -1;
    }
    p = skip_space(p, end);
    if (p >= end) return -1;
    if (*p == '{') {
      c->p = p;
      if (depth + 1 >= TRAK_JSON_DICT_DEPTH || object(w, c, k, depth + 1)) return -1;
      p = c->p;
    } else {
      const char *q = scalar(&w->lv, c, p, k, 0);
      if (!q) return -1;
      if (TRAK_LIKELY(w->rec_n < TRAK_JSON_SHAPE_VALUES))
        w->rec[w->rec_n].start = (uint32_t)(p - w->lv.base),
        w->rec[w->rec_n].end = (uint32_t)(q - w->lv.base), w->rec[w->rec_n].key = k;
      w->rec_n++;
      p = q;
    }
    p = skip_space(p, end);
    if (TRAK_LIKELY(p < end && *p == ',')) {
      p = skip_space(p + 1, end);
      continue;
    }
    if (p >= end || *p != '}') return -1;
    c->p = p + 1;
    return 0;
  }
}

/* Keeps the object just read member by member (len bytes at w->lv.base, its values in w->rec) as
** shape `s`, when it is short enough and has few enough values; else keeps nothing. */
static void keep_shape(trak_json_args_shape *s, const walk *w, size_t len, uint32_t last) {
  if (len > TRAK_JSON_SHAPE_TEXT || w->rec_n > TRAK_JSON_SHAPE_VALUES) {
    s->n = UINT32_MAX;
    return;
  }
  memcpy(s->text, w->lv.base, len);
  memset(s->text + len, 0, 16);
  uint32_t at = 0;
  for (uint32_t i = 0; i <= w->rec_n; i++) {
    trak_json_args_step *t = &s->step[i];
    uint32_t to = i < w->rec_n ? w->rec[i].start : (uint32_t)len;
    t->at = (uint16_t)at, t->len = (uint16_t)(to - at);
    t->key = i < w->rec_n ? w->rec[i].key : 0;
    t->w[0] = word8(s->text + at), t->w[1] = word8(s->text + at + 8);
    for (int h = 0; h < 2; h++) {
      size_t b = t->len > 8 * h ? t->len - 8 * h : 0; /* bytes of the text in word h */
      t->m[h] = b >= 8 ? ~0ULL : (1ULL << (8 * b)) - 1;
    }
    if (i < w->rec_n) at = w->rec[i].end;
  }
  s->n = w->rec_n;
  s->last = last;
}

/* Whether the text at p (before `end`) starts with step t's text of shape s, and a byte follows
** it (the next value's first, or one the caller does not read after the tail). */
static inline int step_is(const trak_json_args_shape *s, const trak_json_args_step *t,
                          const char *p, const char *end) {
  if (TRAK_LIKELY(end - p > 16)) {
    if (((word8(p) ^ t->w[0]) & t->m[0]) | ((word8(p + 8) ^ t->w[1]) & t->m[1])) return 0;
    return TRAK_LIKELY(t->len <= 16) ||
           (end - p > t->len && !memcmp(p + 16, s->text + t->at + 16, t->len - 16u));
  }
  return end - p > t->len && !memcmp(p, s->text + t->at, t->len); /* near the buffer's end */
}

/* The object at c->p read as shape s into out: its text before each value matched, each value
** read as object() reads it. Returns 0 with c->p past the object, or -1 at the first difference
** (the leaves then to be dropped by the caller). */
static inline int shape_read(leafvec *out, trak_json_cur *c, const trak_json_args_shape *s) {
  leafvec lv = *out;
  if (TRAK_UNLIKELY(lv.cap - lv.n < s->n)) leaves_room(&lv, lv.n + s->n); /* one per value */
  const char *p = c->p, *end = c->end;
  const trak_json_args_step *t = s->step, *last = s->step + s->n;
  int rc = -1;
  for (; t < last; t++)
    if (!step_is(s, t, p, end) || !(p = scalar(&lv, c, p + t->len, t->key, 1))) goto out;
  if (step_is(s, t, p, end)) c->p = p + t->len, rc = 0;
out:
  *out = lv;
  return rc;
}

int trak__json_leaves_read(trak_json_dict *d, trak_json_leaves *out, trak_json_cur *c,
                           trak_json_value *v) {
  const char *start = c->p;
  leafvec lv = {*out->v, *out->n, *out->cap, start};
  uint32_t ctx = d->last > TRAK_JSON_DICT_MAX ? d->last - (TRAK_JSON_DICT_MAX + 1) : 0;
  trak_json_args_shape *s = &d->shape[ctx];
  const char *err_at = c->err_at, *err_msg = c->err_msg;
  int rc;
  if (s->n != UINT32_MAX && !shape_read(&lv, c, s)) { /* none kept when shapes_off */
    d->last = s->last;
    rc = 0;
  } else {
    /* a shape read that failed may have made leaves or set an error: both dropped */
    walk w; /* w.rec is written before it is read */
    w.d = d, w.lv = lv, w.lv.n = *out->n, w.rec_n = 0;
    c->p = start, c->err_at = err_at, c->err_msg = err_msg;
    rc = object(&w, c, 0, 0);
    if (!rc && !d->shapes_off) keep_shape(s, &w, (size_t)(c->p - start), d->last);
    lv = w.lv;
  }
  *out->v = lv.v, *out->cap = lv.cap; /* it may have grown */
  if (rc) {
    c->p = start;
    return 0;
  }
  *out->n = lv.n;
  v->kind = TRAK_JSON_OBJECT;
  v->s = start;
  v->len = (uint32_t)(c->p - start);
  return 1;
}
