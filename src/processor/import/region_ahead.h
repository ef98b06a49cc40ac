/*
** Regions written front to back made present ahead of their writer (region_ahead.c): the
** sequences' record blocks of 64 KiB and more that no other thread made present (sequence.c)
** and the JSON importer's aux words (imp->aux, reserved for the file) have their pages made present (madvise MADV_POPULATE_WRITE, which writes no byte, through
** tables/prefault.c's trak__ahead_to) a bounded distance past the importer's write position, by
** the import's decoding thread after each batch (read/pipeline.c), so that the kernel zeroes
** their fresh pages there and not on the importer's thread. TRAK_BLOCKS_AHEAD=0 turns it off.
**
** The importer's thread tracks the regions (trak__region_ahead_track) and publishes them with
** their write positions after each batch (trak__region_ahead_tell); the other thread runs
** trak__region_ahead_idle. Both sides take the region's mutex, and only try it: neither waits.
** The regions stay mapped until trak__region_ahead_stop returns.
*/
#ifndef TRAK_PROCESSOR_IMPORT_REGION_AHEAD_H
#define TRAK_PROCESSOR_IMPORT_REGION_AHEAD_H

#include <stddef.h>
#include <stdint.h>

#define TRAK_REGION_SLOTS 64 /* regions tracked at most: past them, a region faults as before */

typedef struct trak_region_ahead trak_region_ahead;

/* A page-ahead of up to TRAK_REGION_SLOTS regions, `lead` bytes past each one's write position.
** Returns NULL when turned off (TRAK_BLOCKS_AHEAD=0) or out of memory: callers then do nothing. */
trak_region_ahead *trak__region_ahead_new(size_t lead);

/* The writer's thread: region `old` (its start; NULL: none) is done with and, when `base` is not
** NULL, `base` ([base, base + bytes)) takes its place, its write position `skip` + *used bytes
** from base (*used is read on this thread only, by trak__region_ahead_tell). A region that does
** not fit in the slots is left out. r NULL accepted. Can't fail. */
void trak__region_ahead_track(trak_region_ahead *r, const void *old, void *base, size_t bytes,
                              size_t skip, const uint32_t *used);
/* The writer's thread: as trak__region_ahead_track(r, NULL, base, bytes, 0, NULL) for an array of
** 8-byte words whose write position is *words words from base. Can't fail. */
void trak__region_ahead_track_words(trak_region_ahead *r, void *base, size_t bytes,
                                    const size_t *words);
/* The writer's thread, before region `base` moves or is freed: once it returns (it may wait for
** a call under way), nothing of it is made present any more. r NULL accepted. */
void trak__region_ahead_drop(trak_region_ahead *r, const void *base);
/* The writer's thread, after each batch: publishes the regions and their write positions to the
** other thread, unless it is making pages present just now (the next call will). r NULL
** accepted. Can't fail. */
void trak__region_ahead_tell(trak_region_ahead *r);
/* The other thread: makes the pages of every region present up to `lead` bytes past its
** position as last told, unless stopped or the writer is telling. Returns the bytes it made
** present. */
size_t trak__region_ahead_idle(trak_region_ahead *r);
/* Any thread: once it returns, nothing more is made present (a call under way has ended), and
** the regions may be freed. NULL accepted. */
void trak__region_ahead_stop(trak_region_ahead *r);
/* Frees r (NULL accepted), which the other thread calls no more. */
void trak__region_ahead_free(trak_region_ahead *r);

/* Bytes made present by every region page-ahead of the process so far (for the tests). */
uint64_t trak__region_ahead_total(void);

#endif /* TRAK_PROCESSOR_IMPORT_REGION_AHEAD_H */
