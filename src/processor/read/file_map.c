/*
** This file holds the read-only mapping of a trace file: made present ahead of the reader with
** MADV_POPULATE_READ (which also tells a file that shrank since it was mapped: populating past
** its new end fails instead of raising SIGBUS later), and released behind it.
*/
#define _GNU_SOURCE /* MADV_POPULATE_READ */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "processor/read/file_map.h"

#define AHEAD (4u << 20)  /* bytes made present at a time */
#define BEHIND (4u << 20) /* bytes released at a time, at least */

int trak__file_map_open(trak_file_map *m, int fd, uint64_t size) {
  memset(m, 0, sizeof *m);
  const char *env = getenv("TRAK_IMPORT_MMAP"); /* "0": fread, the tests' other path */
  struct stat st;
  if ((env && !strcmp(env, "0")) || !size || size > SIZE_MAX || fstat(fd, &st) ||
      !S_ISREG(st.st_mode))
    return -1;
  void *data = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (data == MAP_FAILED) return -1;
  /* a kernel before 5.14 lacks MADV_POPULATE_READ: without it a shrunk file would raise SIGBUS */
  if (madvise(data, 1, MADV_POPULATE_READ) && errno == EINVAL) {
    munmap(data, (size_t)size);
    return -1;
  }
  madvise(data, (size_t)size, MADV_SEQUENTIAL);
  m->data = data;
  m->size = m->end = (size_t)size;
  m->fd = fd;
  return 0;
}

/* The file is shorter than mapped (populating failed with EFAULT): its length now. Pages past
** it are gone from the mapping even where they were present (truncation unmaps them). */
static void shrank(trak_file_map *m) {
  struct stat st;
  size_t now = !fstat(m->fd, &st) && st.st_size >= 0 ? (size_t)st.st_size : 0;
  m->end = now < m->end ? now : m->end;
  if (m->ready > m->end) m->ready = m->end;
}

size_t trak__file_map_ready(trak_file_map *m, size_t upto) {
  if (upto > m->end) upto = m->end;
  int tries = 0;
  while (m->ready < upto) {
    size_t to = m->ready + AHEAD < m->end ? m->ready + AHEAD : m->end;
    if (madvise((void *)(m->data + m->ready), to - m->ready, MADV_POPULATE_READ)) {
      if (errno == EINTR || errno == EAGAIN) continue;
      if (errno == EFAULT) { /* past the file's end now */
        size_t end = m->end;
        shrank(m);
        if (m->end == end || ++tries > 2) m->end = m->ready; /* still failing: stop here */
        if (upto > m->end) upto = m->end;
        continue;
      }
      /* anything else (out of memory): the pages come in as they are read */
    }
    m->ready = to;
  }
  return upto;
}

void trak__file_map_drop(trak_file_map *m, size_t before) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  before = (before < m->end ? before : m->end) & ~(page - 1);
  if (before < m->dropped + BEHIND) return;
  madvise((void *)(m->data + m->dropped), before - m->dropped, MADV_DONTNEED);
  m->dropped = before;
}

void trak__file_map_close(trak_file_map *m) {
  if (m->data) munmap((void *)m->data, m->size);
  memset(m, 0, sizeof *m);
}
