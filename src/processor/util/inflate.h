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
** frees. On error returns TRAK_ENOMEM or TRAK_EFORMAT (naming the compressed byte) and leaves
** *out untouched. */
int trak__gunzip(const uint8_t *in, size_t in_len, int zlib_header, uint8_t **out,
                 size_t *out_len, trak_error *err);

#endif /* TRAK_PROCESSOR_UTIL_INFLATE_H */
