/*
** This file holds the writer's identity in the trace: the packet sequence id of its packets and
** the uuids of its tracks. Both are drawn at random per writer, so that the traces of different
** writers can be concatenated into one file without their tracks merging; a seed or an
** explicit sequence id makes the output reproducible. docs/writer.md explains the ranges:
**   sequence ids in [2^14, 2^21): three varint bytes on every packet; sequence 1 is the tracing
**     service's and small ids are the SDK's, so neither collides with them;
**   uuids in blocks of 4096 consecutive values starting at a random multiple of 4096 in
**     [2^28, 2^35): five varint bytes in the track_uuid of events off the sequence's default
**     track (default_track.c), and two writers' first blocks coincide with odds of 1 in 8.3
**     million.
*/
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "writer/writer_internal.h"

#define SEQ_MIN (1u << 14)
#define SEQ_MAX (1u << 21) /* exclusive */
#define BLOCK_MIN (1ull << (28 - TRAK__UUID_BLOCK_BITS))
#define BLOCK_MAX (1ull << (35 - TRAK__UUID_BLOCK_BITS)) /* exclusive */

/* splitmix64: a small generator whose every seed, 0 included, gives a good sequence. */
static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A value in [lo, hi) from the generator (the modulo bias is far below what matters here). */
static uint64_t draw(trak_writer *w, uint64_t lo, uint64_t hi) {
  return lo + next_random(&w->rng) % (hi - lo);
}

/* Starts the generator at `seed`: the sequence id (unless set explicitly) and every uuid block
** follow from it. */
static void reseed(trak_writer *w, uint64_t seed) {
  w->rng = seed;
  uint32_t seq = (uint32_t)draw(w, SEQ_MIN, SEQ_MAX);
  if (!w->seq_explicit) w->seq_id = seq;
  w->n_uuid_blocks = 0;
}

void trak__wr_ids_init(trak_writer *w) {
  uint64_t seed;
  if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed) {
    /* No entropy yet (early boot) or no syscall: mix what differs between writers. */
    static _Atomic uint64_t opened;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t mix = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    mix ^= (uint64_t)getpid() << 40 ^ (uint64_t)(uintptr_t)w ^ ++opened << 20;
    seed = next_random(&mix);
  }
  reseed(w, seed);
}

/* Refuses a change of identity once something carries the old one. */
static int check_unused(trak_writer *w, const char *call) {
  if (w->started || w->n_tracks)
    return trak__wr_fail(w, TRAK_ESTATE, "%s: must be called before the first track or packet",
                         call);
  return 0;
}

int trak_writer_set_seed(trak_writer *w, uint64_t seed) {
  int rc = check_unused(w, "set_seed");
  if (!rc) reseed(w, seed);
  return rc;
}

int trak_writer_set_sequence_id(trak_writer *w, uint32_t sequence_id) {
  int rc = check_unused(w, "set_sequence_id");
  if (rc) return rc;
  if (sequence_id < 2)
    return trak__wr_fail(w, TRAK_EINVAL,
                         "set_sequence_id: %u is reserved (0 is no sequence, 1 the tracing "
                         "service's)",
                         sequence_id);
  w->seq_id = sequence_id;
  w->seq_explicit = 1;
  return 0;
}

uint64_t trak__wr_uuid(trak_writer *w, uint32_t i) {
  uint32_t k = i >> TRAK__UUID_BLOCK_BITS;
  while (k >= w->n_uuid_blocks) {
    /* Blocks are drawn in order, so the same seed gives the same uuids. */
    uint64_t *blocks = realloc(w->uuid_blocks, (w->n_uuid_blocks + 1) * sizeof *blocks);
    if (!blocks) return 0;
    w->uuid_blocks = blocks;
    uint64_t base;
    int taken;
    do {
      base = draw(w, BLOCK_MIN, BLOCK_MAX) << TRAK__UUID_BLOCK_BITS;
      taken = 0;
      for (uint32_t j = 0; j < w->n_uuid_blocks; j++)
        taken |= blocks[j] == base;
    } while (taken);
    blocks[w->n_uuid_blocks++] = base;
  }
  return w->uuid_blocks[k] + (i & ((1u << TRAK__UUID_BLOCK_BITS) - 1));
}

void trak__wr_ids_free(trak_writer *w) {
  free(w->uuid_blocks);
  w->uuid_blocks = NULL;
  w->n_uuid_blocks = 0;
}
