/*
** The importer's one hash mixer, for keys built from several values (implied tracks, arg sets,
** JSON ids). Not for anything an attacker must not collide: a collision merges two keys, as
** any 64-bit hash may.
*/
#ifndef TRAK_PROCESSOR_IMPORT_HASH_H
#define TRAK_PROCESSOR_IMPORT_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Mixes `v` into hash `h`. Can't fail. */
static inline uint64_t trak__mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

#endif /* TRAK_PROCESSOR_IMPORT_HASH_H */
