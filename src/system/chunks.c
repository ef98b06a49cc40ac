/*
** The daemon's side of chunk ownership: copying a producer's chunks out of the shared memory
** it can scribble on into a session's central buffer, without trusting a byte of it. Each copy
** reads the chunk's fill word once, copies the bytes it claims (straight into the central
** buffer) and checks only the copy, so a producer changing the chunk meanwhile changes
** nothing. See docs/system-tracing.md, "Shared memory and chunk ownership".
*/
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "system/daemon.h"

/* The daemon-wide sequence id of producer sequence `local` in attachment `a`, registering the
** producer's credentials with the central buffer on first sight. 0 when out of memory. */
static uint32_t global_seq(trak__copier *cp, trak__attach *a, trak_session *central,
                           uint32_t local) {
  for (size_t i = 0; i < a->nseqs; i++)
    if (a->seqs[i].local == local) return a->seqs[i].global;
  trak__seqmap *grown = realloc(a->seqs, (a->nseqs + 1) * sizeof *grown);
  if (!grown) return 0;
  a->seqs = grown;
  uint32_t g = ++cp->last_seq;
  a->seqs[a->nseqs++] = (trak__seqmap){local, g};
  return trak__session_trust(central, g, a->uid, a->pid) == 0 ? g : 0;
}

/* Does the packet [p, p + len) carry a field only the service may write? */
static int has_trusted_field(const uint8_t *p, size_t len) {
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, p, len);
  while (trak_pb_decoder_next(&d, &f) == 1)
    if (f.number == TRAK_PB_TracePacket_trusted_packet_sequence_id ||
        f.number == TRAK_PB_TracePacket_trusted_uid || f.number == TRAK_PB_TracePacket_trusted_pid)
      return 1;
  return 0;
}

/* Checks that [p, p + bytes) is exactly `packets` Trace.packet fields; sets *untrusted when
** one carries trusted fields (readout then strips them). */
static int framed(const uint8_t *p, uint32_t bytes, uint32_t packets, int *untrusted) {
  trak_pb_decoder d;
  trak_pb_field f;
  trak_pb_decoder_init(&d, p, bytes);
  uint32_t count = 0;
  int rc;
  *untrusted = 0;
  while ((rc = trak_pb_decoder_next(&d, &f)) == 1 && f.number == TRAK_PB_Trace_packet &&
         f.wire_type == TRAK_PB_WIRE_LEN) {
    count++;
    *untrusted |= has_trusted_field(f.data, f.len);
  }
  return rc == 0 && count == packets;
}

/* Copies `add` bytes (`add_packets` packets) of chunk (writer, cindex) from `src` into the
** central buffer, joining the part scraped before when there is one, and checks the copy
** there. The fill word is read with acquire: the writer publishes packets with release.
** Returns 0, or -1 when the copy is not framed packets. */
static int copy_in(trak__copier *cp, trak__attach *a, trak_session *central,
                   const trak__scraped *before, uint32_t writer, uint32_t cindex,
                   const uint8_t *src, uint32_t add, uint32_t add_packets, uint32_t *at) {
  uint32_t g = global_seq(cp, a, central, writer);
  *at = before->central;
  pthread_mutex_lock(&central->lock);
  uint8_t *room =
      g ? trak__session_import_reserve(central, g, cindex, add, before->bytes != 0, at) : NULL;
  uint8_t *dst = room ? room : cp->scratch;
  memcpy(dst, src, add);
  int untrusted, ok = framed(dst, add, add_packets, &untrusted);
  if (room) trak__session_import_commit(central, *at, add, add_packets, untrusted, ok);
  pthread_mutex_unlock(&central->lock);
  if (ok && !room) trak__session_lost(central, add_packets); /* the central buffer is full */
  return ok ? 0 : -1;
}

int trak__attach_take(trak__copier *cp, trak__attach *a, trak_session *central, uint32_t i, int how,
                      char *why, size_t n) {
  uint32_t cs = central->chunk_size;
  if (i >= a->nchunks) {
    snprintf(why, n, "chunk index %u out of range (%u chunks)", i, a->nchunks);
    return -1;
  }
  trak__chunk *shared = (trak__chunk *)(a->mem + (size_t)i * cs);
  uint64_t fill = atomic_load_explicit(&shared->fill, memory_order_acquire);
  uint32_t bytes = trak__fill_bytes(fill), packets = trak__fill_packets(fill);
  uint32_t writer = shared->writer_id, cindex = shared->chunk_index;
  if (bytes > cs - TRAK__CHUNK_HEADER) {
    snprintf(why, n, "chunk %u claims %u bytes in a %u-byte chunk", i, bytes, cs);
    return -1;
  }
  trak__scraped *sc = &a->scr[i], before = *sc;
  if (before.bytes && (writer != before.writer || cindex != before.cindex || bytes < before.bytes ||
                       packets < before.packets)) {
    snprintf(why, n, "chunk %u changed under the daemon (%u bytes copied, now %u)", i, before.bytes,
             bytes);
    return -1;
  }
  if (how == TRAK__TAKE_ALL) { /* copied: a later salvage must not take it again */
    atomic_store_explicit(&shared->fill, 0, memory_order_relaxed);
    memset(sc, 0, sizeof *sc);
  }
  uint32_t add = bytes - before.bytes, at;
  if (!add) return 0;
  if (copy_in(cp, a, central, &before, writer, cindex,
              (uint8_t *)shared + TRAK__CHUNK_HEADER + before.bytes, add, packets - before.packets,
              &at) != 0) {
    snprintf(why, n, "chunk %u: payload is not %u framed packets", i, packets);
    return -1;
  }
  if (how == TRAK__TAKE_SCRAPE) *sc = (trak__scraped){writer, cindex, bytes, packets, at};
  a->copied += packets - before.packets;
  return 1;
}

void trak__attach_free(trak__attach *a) {
  if (a->mem) munmap(a->mem, a->size);
  free(a->scr);
  free(a->seqs);
  memset(a, 0, sizeof *a);
}
