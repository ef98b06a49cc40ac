/*
** The block pool (block_pool.c): blocks of memory mapped with every page present by a thread
** other than the one that takes them, so that the kernel zeroes their fresh pages off the
** taker's thread. The ftrace queue's 192 KiB record blocks and the track-event sequences' 2 MiB
** record blocks come from one.
*/
#ifndef TRAK_PROCESSOR_UTIL_BLOCK_POOL_H
#define TRAK_PROCESSOR_UTIL_BLOCK_POOL_H

#include <stddef.h>

#define TRAK_BLOCK_POOL_MAX 8 /* blocks a pool keeps ready at most */

typedef struct trak_block_pool trak_block_pool;

/* A pool of blocks of `size` bytes (whole pages mapped) keeping up to `keep` (at most
** TRAK_BLOCK_POOL_MAX) blocks ready, of small pages (MADV_NOHUGEPAGE) when `small`. Nothing is
** mapped until the first trak__block_pool_take: a small import that never takes a block maps
** none. The blocks are filled by another thread: the pool's own (trak__block_pool_run) or one
** that calls trak__block_pool_fill. Returns NULL when out of memory. */
trak_block_pool *trak__block_pool_new(size_t size, unsigned keep, int small);
/* Starts the pool's own thread, which refills it after every take. Returns 0, or -1 when no
** thread starts (the pool is then filled by trak__block_pool_fill only, or not at all). */
int trak__block_pool_run(trak_block_pool *bp);
/* Maps blocks on the calling thread until `keep` are ready, once a block has been taken (for a
** pool without a thread of its own). Can't fail: a mapping that fails leaves fewer ready. */
void trak__block_pool_fill(trak_block_pool *bp);
/* A ready block of the pool's size, every page present and zero, now the caller's (munmap
** frees it), or NULL when none is ready or bp is NULL: the caller then maps its own. Any thread. */
void *trak__block_pool_take(trak_block_pool *bp);
/* Stops the pool's thread, unmaps the blocks not taken and frees bp (NULL accepted). The blocks
** taken stay the takers'. */
void trak__block_pool_free(trak_block_pool *bp);

#endif /* TRAK_PROCESSOR_UTIL_BLOCK_POOL_H */
