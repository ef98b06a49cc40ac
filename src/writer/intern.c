/*
** This file holds the writer's interning tables: each maps strings to iids for one InternedData
** field (event names, categories, argument names). A new string's definition is queued in
** w->pending_interned and travels with the next packet, so it always precedes its first use.
*/
#include <stdlib.h>
#include <string.h>

#include "writer/writer_internal.h"

void trak__wr_intern_init(trak__intern_table *t, uint32_t field) {
  memset(t, 0, sizeof *t);
  t->field = field;
}

void trak__wr_intern_free(trak__intern_table *t) {
  for (uint64_t i = 0; i < t->count; i++)
    free(t->strings[i]);
  free(t->strings);
  free(t->hashes);
  free(t->slots);
  trak__wr_intern_init(t, t->field);
}

/* FNV-1a: names are short and hashed once per call that passes a string. */
static uint32_t hash_string(const char *s, size_t *len) {
  uint32_t h = 2166136261u;
  const char *p = s;
  for (; *p; p++)
    h = (h ^ (uint8_t)*p) * 16777619u;
  *len = (size_t)(p - s);
  return h ? h : 1;
}

/* Rebuilds the slot array at twice the size. Returns 0 or TRAK_ENOMEM (table unchanged). */
static int rehash(trak__intern_table *t) {
  uint32_t n = t->n_slots ? t->n_slots * 2 : 64;
  uint32_t *slots = calloc(n, sizeof *slots);
  if (!slots) return TRAK_ENOMEM;
  for (uint64_t i = 0; i < t->count; i++) {
    uint32_t s = t->hashes[i] & (n - 1);
    while (slots[s])
      s = (s + 1) & (n - 1);
    slots[s] = (uint32_t)(i + 1);
  }
  free(t->slots);
  t->slots = slots;
  t->n_slots = n;
  return 0;
}

/* Adds a new string as iid count + 1. Returns the iid or 0 on allocation failure. */
static uint64_t add(trak_writer *w, trak__intern_table *t, const char *s, size_t len, uint32_t h) {
  if ((t->count + 1) * 2 > t->n_slots && rehash(t)) return 0;
  if (t->count == t->cap) {
    uint64_t cap = t->cap ? t->cap * 2 : 64;
    char **strings = realloc(t->strings, cap * sizeof *strings);
    if (!strings) return 0;
    t->strings = strings;
    uint32_t *hashes = realloc(t->hashes, cap * sizeof *hashes);
    if (!hashes) return 0;
    t->hashes = hashes;
    t->cap = cap;
  }
  char *copy = malloc(len + 1);
  if (!copy) return 0;
  memcpy(copy, s, len + 1);
  t->strings[t->count] = copy;
  t->hashes[t->count] = h;
  uint64_t iid = ++t->count;
  uint32_t slot = h & (t->n_slots - 1);
  while (t->slots[slot])
    slot = (slot + 1) & (t->n_slots - 1);
  t->slots[slot] = (uint32_t)iid;

  /* EventName, EventCategory and DebugAnnotationName share the layout {iid = 1, name = 2}. */
  trak_pb_buf *p = &w->pending_interned;
  trak_pb_nested entry = trak_pb_begin_nested(p, t->field);
  trak_pb_put_varint(p, TRAK_PB_EventName_iid, iid);
  trak_pb_put_bytes(p, TRAK_PB_EventName_name, s, len);
  trak_pb_end_nested(p, entry);
  return p->error ? 0 : iid;
}

/* The iid of `s` (hash h) or 0. */
static uint64_t find(const trak__intern_table *t, const char *s, uint32_t h) {
  if (!t->n_slots) return 0;
  for (uint32_t slot = h & (t->n_slots - 1); t->slots[slot]; slot = (slot + 1) & (t->n_slots - 1)) {
    uint32_t iid = t->slots[slot];
    if (t->hashes[iid - 1] == h && !strcmp(t->strings[iid - 1], s)) return iid;
  }
  return 0;
}

uint64_t trak__wr_intern(trak_writer *w, trak__intern_table *t, const char *s) {
  size_t len;
  uint32_t h = hash_string(s, &len);
  uint64_t iid = find(t, s, h);
  return iid ? iid : add(w, t, s, len, h);
}

uint64_t trak__wr_intern_find(const trak__intern_table *t, const char *s) {
  size_t len;
  return find(t, s, hash_string(s, &len));
}

const char *trak__wr_intern_string(const trak__intern_table *t, uint64_t iid) {
  return iid && iid <= t->count ? t->strings[iid - 1] : NULL;
}

trak_writer_name trak_writer_intern_name(trak_writer *w, const char *name) {
  return name ? trak__wr_intern(w, &w->names, name) : 0;
}
