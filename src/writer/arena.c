/*
** This file holds the bump allocator the tabular converter uses for one row at a time: cells,
** unescaped strings and argument trees are allocated here and dropped together.
*/
#include <stdlib.h>

#include "writer/events_internal.h"

struct trak__arena_chunk {
  trak__arena_chunk *next;
  size_t used, size;
  _Alignas(16) unsigned char data[];
};

void *trak__wr_arena_alloc(trak__arena *a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  trak__arena_chunk *c = a->head;
  if (!c || c->size - c->used < size) {
    size_t want = size > 16384 ? size : 16384;
    c = malloc(sizeof *c + want);
    if (!c) return NULL;
    c->next = a->head;
    c->used = 0;
    c->size = want;
    a->head = c;
  }
  void *p = c->data + c->used;
  c->used += size;
  return p;
}

void trak__wr_arena_reset(trak__arena *a) {
  trak__arena_chunk *c = a->head;
  if (!c) return;
  /* Keep the newest chunk (the largest working set) and free the rest. */
  trak__arena_chunk *rest = c->next;
  c->next = NULL;
  c->used = 0;
  while (rest) {
    trak__arena_chunk *next = rest->next;
    free(rest);
    rest = next;
  }
}

void trak__wr_arena_free(trak__arena *a) {
  trak__wr_arena_reset(a);
  free(a->head);
  a->head = NULL;
}
