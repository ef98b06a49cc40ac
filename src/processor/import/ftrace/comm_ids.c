/*
** This file holds the comms' string ids memo: a kernel trace names its few threads' comms in
** every sched event, so the protobuf front-end interns them through a small table of short
** strings (by their bytes, compared as two words; a few slots probed, the first replaced when
** all are taken) before the string pool's hash.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/ftrace/ftrace_internal.h"

/* One remembered comm: its bytes as two words (see key_of), its length and its string id. */
struct trak_fcomm {
  uint64_t w0, w1;
  uint32_t len, id; /* id 0: empty slot */
};
#define COMM_BITS 11
#define COMMS (1u << COMM_BITS) /* slots */
#define PROBES 4u  /* slots a string may take */

/* The two words that, with its length, tell a string of up to 16 bytes from any other: the
** first and the last eight bytes (four for a shorter one, each byte below four). */
static void key_of(const uint8_t *s, size_t len, uint64_t *w0, uint64_t *w1) {
  uint32_t a, b;
  if (len >= 8) {
    memcpy(w0, s, 8), memcpy(w1, s + len - 8, 8);
  } else if (len >= 4) {
    memcpy(&a, s, 4), memcpy(&b, s + len - 4, 4);
    *w0 = a, *w1 = b;
  } else {
    *w0 = 0, *w1 = 0;
    for (size_t i = 0; i < len; i++)
      *w0 |= (uint64_t)s[i] << (8 * i);
  }
}

/* The memo's miss: interns the string and keeps it in slot c (empty, or the first probed when
** all were taken). Out of line, so the hit path saves no registers. */
__attribute__((noinline)) static uint32_t comm_miss(trak_importer *imp, struct trak_fcomm *c,
                                                    const uint8_t *s, size_t len, uint64_t w0,
                                                    uint64_t w1) {
  /* the pool keeps every string it gave an id: the id stays right for the whole import */
  uint32_t id = trak__strpool_intern(&imp->tables->strings, (const char *)s, len);
  if (id) *c = (struct trak_fcomm){w0, w1, (uint32_t)len, id};
  return id;
}

/* Makes the memo (the first comm of the import). */
__attribute__((noinline, cold)) static struct trak_fcomm *comms_make(trak_importer *imp) {
  trak_ftrace *f = trak__ftrace_get(imp);
  if (!f->comms && !(f->comms = calloc(COMMS, sizeof *f->comms))) abort();
  return f->comms;
}

uint32_t trak__ftrace_comm(trak_importer *imp, const uint8_t *s, size_t len) {
  if (len > 16) return trak__strpool_intern(&imp->tables->strings, (const char *)s, len);
  struct trak_fcomm *comms = imp->ftrace ? imp->ftrace->comms : NULL;
  if (TRAK_UNLIKELY(!comms)) comms = comms_make(imp);
  uint64_t w0, w1;
  key_of(s, len, &w0, &w1);
  /* a product's top bits depend on every bit of the word: comms that differ in their last
  ** bytes (the words' top bytes) land apart */
  uint64_t h = (w0 * 0x9e3779b97f4a7c15ull) ^ ((w1 + len) * 0xc2b2ae3d27d4eb4full);
  uint32_t at = (uint32_t)(h >> (64 - COMM_BITS)), i;
  struct trak_fcomm *c = NULL;
  for (i = 0; i < PROBES; i++) {
    c = &comms[(at + i) & (COMMS - 1)];
    if (!c->id) break;
    if (TRAK_LIKELY(c->w0 == w0 && c->w1 == w1 && c->len == len)) return c->id;
  }
  if (i == PROBES) c = &comms[at & (COMMS - 1)];
  return comm_miss(imp, c, s, len, w0, w1);
}

void trak__ftrace_comms_free(trak_ftrace *f) {
  free(f->comms);
  f->comms = NULL;
}
