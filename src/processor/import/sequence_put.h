/*
** The inline record writer, for an importer that pushes a record per event from fields it holds
** in registers (json_events.c): the packed record of sequence.h written in place, in the common
** form when it fits, else in the second form with size codes fixed by what the fields are
** (a 4-byte timestamp delta, a 1-byte packet delta, the track in 4 bytes when it changes, name
** and category in 2 bytes each or a counter value in 8, the arg set id and aux in 4 bytes when
** present), so that no field's size is measured. Anything else (a delta too large, a block
** full) takes trak__sequence_push's generic packing. The records read back alike either way.
*/
#ifndef TRAK_PROCESSOR_IMPORT_SEQUENCE_PUT_H
#define TRAK_PROCESSOR_IMPORT_SEQUENCE_PUT_H

#include <stdint.h>
#include <string.h>

#include "processor/import/importer.h"

/* trak__sequence_put's other records (sequence.c): trak__sequence_push_held of `ev` when
** `held`, else trak__sequence_push (returning NULL). */
uint8_t *trak__sequence_put_any(trak_importer *imp, trak_sequence *seq, const trak_ev *ev,
                                int held);

/* trak__sequence_push of the record {ts, type << TRAK_EV_TYPE_SHIFT | track, pkt, u (name |
** category << 32, or a counter value's bits), args, aux}; with `held`, trak__sequence_push_held
** of it (args is not read), returning where its arg set id goes. Never aborts. */
static inline __attribute__((always_inline)) uint8_t *
trak__sequence_put(trak_importer *imp, trak_sequence *seq, int64_t ts, uint32_t type,
                   uint32_t track, uint32_t pkt, uint64_t u, uint32_t args, uint32_t aux,
                   int held) {
  trak_ev_block *b = seq->tail;
  uint64_t d = (uint64_t)ts - (uint64_t)seq->pack_ts;
  uint32_t pd = pkt - seq->pack_pkt;
  if (TRAK_UNLIKELY(!b || b->cap - b->used < TRAK_EV_BLOCK_SLACK || ((d >> 32) | (pd >> 8)))) {
    trak_ev ev;
    ev.ts = ts;
    ev.track = type << TRAK_EV_TYPE_SHIFT | track;
    ev.pkt = pkt;
    memcpy(&ev.u, &u, 8);
    ev.arg_set_id = args;
    ev.aux = aux;
    return trak__sequence_put_any(imp, seq, &ev, held);
  }
  uint8_t *p = b->data + b->used, *q, *at = NULL;
  int same = track == seq->pack_track, has_args = held || args != TRAK_NULL_U32;
  int small = !(u & 0xFFFF0000FFFF0000ull); /* name and category (or value halves) < 2^16 */
  if (same && small && !(d >> 20) && !has_args && !aux) { /* the common form */
    uint64_t w = type | TRAK_EV_PACKED_COMMON | d << 4 | (uint64_t)pd << 24 |
                 (u & 0xFFFF) << 32 | (u >> 32) << 48;
    memcpy(p, &w, 8);
    q = p + 8;
  } else {
    /* The second form: 3 header bytes (timestamp code 2, packet code 1; track code 0 or 3;
    ** name and category codes 2 or 3; arg set code 0 or 3; aux present), the timestamp's 4
    ** bytes and the packet's byte in one word; each later field stored whole (the block's
    ** slack allows it), the cursor moved past it when it is there. */
    uint64_t h1 = (same ? 0 : 3) | (small ? 2 << 2 | 2 << 4 : 3 << 2 | 3 << 4) |
                  (has_args ? 3 << 6 : 0);
    uint64_t w = type | 2 << 4 | 1 << 6 | h1 << 8 | (uint64_t)(aux != 0) << 16 | d << 24 |
                 (uint64_t)pd << 56;
    memcpy(p, &w, 8);
    q = p + 8;
    uint32_t tf = track + 1;
    memcpy(q, &tf, 4);
    q += same ? 0 : 4;
    uint64_t uw = small ? (uint32_t)u | (uint32_t)(u >> 16) : u;
    memcpy(q, &uw, 8);
    q += small ? 4 : 8;
    at = q;
    uint32_t af = args + 1;
    memcpy(q, &af, 4);
    q += has_args ? 4 : 0;
    memcpy(q, &aux, 4);
    q += aux ? 4 : 0;
  }
  b->used += (uint32_t)(q - p);
  seq->pack_ts = ts;
  seq->pack_pkt = pkt;
  seq->pack_track = track;
  if (TRAK_UNLIKELY(ts < seq->last_ts)) seq->unsorted = 1;
  seq->last_ts = ts;
  seq->n_events++;
  imp->n_events++;
  imp->n_of_type[type]++;
  return at;
}

#endif /* TRAK_PROCESSOR_IMPORT_SEQUENCE_PUT_H */
