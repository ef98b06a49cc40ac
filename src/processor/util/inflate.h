/*
** zlib and gzip inflation shared by the processor's readers (see inflate.c). This folder is the
** processor's lowest layer beside tables/: it calls nothing else in the processor.
*/
#ifndef TRAK_PROCESSOR_UTIL_INFLATE_H
#define TRAK_PROCESSOR_UTIL_INFLATE_H

#include <stddef.h>
#include <stdint.h>

#include "trak/error.h"

/* Returns 1 if the bytes start with the gzip magic. */
int trak__is_gzip(const uint8_t *data, size_t len);

/* Inflates a whole gzip (or zlib, with `zlib_header`) buffer into a malloc'ed one the caller
** frees, of at most `max_out` bytes: memory stays below max_out + 1 whatever the input. On
** error returns TRAK_ENOMEM, TRAK_ENOSPC (the output would pass max_out) or TRAK_EFORMAT
** (naming the compressed byte) and leaves *out untouched. */
int trak__gunzip(const uint8_t *in, size_t in_len, int zlib_header, size_t max_out, uint8_t **out,
                 size_t *out_len, trak_error *err);

#endif /* TRAK_PROCESSOR_UTIL_INFLATE_H */
