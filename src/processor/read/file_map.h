/*
** A trace file read through a read-only mapping (file_map.c): the importer reads its bytes in
** place instead of copying them with fread, pages are made present ahead of the reader and
** released behind it, so memory does not grow by the file's size.
*/
#ifndef TRAK_PROCESSOR_READ_FILE_MAP_H
#define TRAK_PROCESSOR_READ_FILE_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct trak_file_map {
  const uint8_t *data; /* the mapping of the file's first `size` bytes */
  size_t size;         /* the size fstat gave at open */
  size_t end;          /* the bytes readable: size, or less once the file was found shorter */
  size_t ready;        /* the reader's: bytes from data made present (a multiple of the step) */
  size_t dropped;      /* the releaser's: bytes from data released (page multiple) */
  int fd;              /* the file, open while mapped: its length once it is found shorter */
} trak_file_map;

/* Maps the regular file open as `fd` (kept open by the caller until the close), `size` bytes long (fstat's), read-only. Returns 0, or
** -1 when it can't be mapped (not a regular file, empty, a kernel without MADV_POPULATE_READ,
** TRAK_IMPORT_MMAP=0): the caller reads it with fread. *m is zeroed then. */
int trak__file_map_open(trak_file_map *m, int fd, uint64_t size);
/* Makes the bytes [0, upto) present (ahead of the reader: a few MiB at a time), on the
** reader's thread. Returns the bytes readable from data, at most upto: fewer when the file has
** shrunk since it was mapped (then m->end is its new length, maybe below what an earlier call
** returned, and bytes past it must not be read: that raises SIGBUS). Can't fail otherwise. */
size_t trak__file_map_ready(trak_file_map *m, size_t upto);
/* Releases the pages wholly before byte `before` (the reader is past them), at most one thread
** at a time, which may differ from the reader's. Can't fail. */
void trak__file_map_drop(trak_file_map *m, size_t before);
/* Unmaps the file (nothing mapped: nothing done); *m is zeroed. */
void trak__file_map_close(trak_file_map *m);

#endif /* TRAK_PROCESSOR_READ_FILE_MAP_H */
