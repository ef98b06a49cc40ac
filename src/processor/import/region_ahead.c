/*
** This file holds the page-ahead of regions written front to back (region_ahead.h): the
** record blocks of the import's sequences, made present past the importer's write position by
** the decoding thread. The importer's thread keeps its list of regions (`own`), copied with the
** write positions into the shared list (`pub`) after each batch; the other thread makes pages
** present from `pub` with trak__ahead_to (tables/prefault.c), which writes no byte. Each side
** only tries the mutex, and the lists hold the slots in use only: a call costs the regions
** tracked, not TRAK_REGION_SLOTS.
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/region_ahead.h"
#include "processor/tables/prefault.h"

#define STEP (16u << 10) /* madvise calls of 16 KiB or more, but for a region's end */

typedef struct own_slot { /* the writer's thread's */
  void *base;
  size_t bytes, skip;
  const uint32_t *used; /* the write position: skip + *used bytes, or *words 8-byte words */
  const size_t *words;
} own_slot;

typedef struct pub_slot { /* under mu */
  void *base;
  size_t pos;     /* the write position as last told, bytes from base */
  trak_ahead a;   /* one "column" of bytes: the region */
} pub_slot;

struct trak_region_ahead {
  own_slot own[TRAK_REGION_SLOTS];
  size_t n_own;
  pthread_mutex_t mu;
  pub_slot pub[TRAK_REGION_SLOTS]; /* under mu, as the rest */
  size_t n_pub;
  int on;
  size_t lead;
};

static _Atomic uint64_t total;

trak_region_ahead *trak__region_ahead_new(size_t lead) {
  const char *env = getenv("TRAK_BLOCKS_AHEAD");
  if (env && !strcmp(env, "0")) return NULL;
  trak_region_ahead *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  pthread_mutex_init(&r->mu, NULL);
  r->on = 1;
  r->lead = lead;
  return r;
}

void trak__region_ahead_track(trak_region_ahead *r, const void *old, void *base, size_t bytes,
                              size_t skip, const uint32_t *used) {
  if (!r) return;
  size_t k = 0;
  while (k < r->n_own && (!old || r->own[k].base != old))
    k++;
  if (k == r->n_own) { /* old is not tracked: base takes a free slot, if any */
    if (!base || k == TRAK_REGION_SLOTS) return;
    r->n_own++;
  } else if (!base) { /* old is done with and nothing replaces it: the last slot moves in */
    r->own[k] = r->own[--r->n_own];
    return;
  }
  r->own[k] = (own_slot){base, bytes, skip, used, NULL};
}

void trak__region_ahead_track_words(trak_region_ahead *r, void *base, size_t bytes,
                                    const size_t *words) {
  if (!r || r->n_own == TRAK_REGION_SLOTS) return;
  r->own[r->n_own++] = (own_slot){base, bytes, 0, NULL, words};
}

void trak__region_ahead_drop(trak_region_ahead *r, const void *base) {
  if (!r) return;
  trak__region_ahead_track(r, base, NULL, 0, 0, NULL);
  pthread_mutex_lock(&r->mu);
  for (size_t k = 0; k < r->n_pub; k++)
    if (r->pub[k].base == base) r->pub[k] = r->pub[--r->n_pub];
  pthread_mutex_unlock(&r->mu);
}

void trak__region_ahead_tell(trak_region_ahead *r) {
  if (!r || pthread_mutex_trylock(&r->mu)) return;
  for (size_t k = 0; k < r->n_own; k++) {
    const own_slot *o = &r->own[k];
    pub_slot *s = &r->pub[k];
    if (k >= r->n_pub || s->base != o->base) { /* a new region in this slot: nothing present */
      s->base = o->base;
      trak__ahead_init(&s->a, &(trak_col_mem){o->base, 1, 0}, 1, o->bytes);
    }
    s->pos = o->used ? o->skip + *o->used : *o->words * 8;
  }
  r->n_pub = r->n_own;
  pthread_mutex_unlock(&r->mu);
}

size_t trak__region_ahead_idle(trak_region_ahead *r) {
  if (pthread_mutex_trylock(&r->mu)) return 0;
  size_t made = 0;
  for (size_t k = 0; r->on && k < r->n_pub; k++) {
    pub_slot *s = &r->pub[k];
    size_t before = s->a.done[0];
    if (trak__ahead_to(&s->a, s->pos + r->lead, STEP)) {
      r->on = 0; /* the kernel refused: the writes fault as without this */
      break;
    }
    made += s->a.done[0] - before;
  }
  pthread_mutex_unlock(&r->mu);
  if (made) atomic_fetch_add_explicit(&total, made, memory_order_relaxed);
  return made;
}

uint64_t trak__region_ahead_total(void) {
  return atomic_load_explicit(&total, memory_order_relaxed);
}

void trak__region_ahead_stop(trak_region_ahead *r) {
  if (!r) return;
  pthread_mutex_lock(&r->mu);
  r->on = 0;
  r->n_pub = 0; /* nothing is left to make present */
  pthread_mutex_unlock(&r->mu);
}

void trak__region_ahead_free(trak_region_ahead *r) {
  if (!r) return;
  pthread_mutex_destroy(&r->mu);
  free(r);
}
