/*
** The prefaulter (prefault.c): a thread that faults in the pages of large column arrays a little
** ahead of the rows their writer has reached, so that the kernel zeroes them on another core.
*/
#ifndef TRAK_PROCESSOR_TABLES_PREFAULT_H
#define TRAK_PROCESSOR_TABLES_PREFAULT_H

#include <stddef.h>

#define TRAK_PREFAULT_MAX_COLUMNS 16

typedef struct trak_prefault trak_prefault;

/* Starts faulting in `rows` rows of the `n_cols` arrays `cols` (element sizes `width`), never
** more than `ahead` rows past what trak__prefault_written last said. The arrays must stay where
** they are until trak__prefault_stop. Returns NULL (nothing is done: the writer faults the
** pages itself) when a thread cannot start or the arguments are out of range. */
trak_prefault *trak__prefault_start(void *const *cols, const size_t *width, size_t n_cols,
                                    size_t rows, size_t ahead);
/* The writer has written `rows` rows. */
void trak__prefault_written(trak_prefault *pf, size_t rows);
/* Stops and joins the thread; frees `pf`. Accepts NULL. */
void trak__prefault_stop(trak_prefault *pf);

#endif /* TRAK_PROCESSOR_TABLES_PREFAULT_H */
