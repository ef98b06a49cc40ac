/*
** The inline record writer, for an importer that pushes a record per event from fields it holds
** in registers (json_events.c): the packed record of sequence.h written in place, the very bytes
** trak__sequence_push writes, without its trak_ev in memory, its call and its second form's
** field-by-field packing (codes and lengths found at once, each field stored whole). A delta
** past what one word holds or a full block takes trak__sequence_push's own path.
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

/* What follows the packing of a record of `type` on `track`: the sequence's deltas, order and
** counts. */
static inline void trak__sequence_pushed(trak_importer *imp, trak_sequence *seq, int64_t ts,
                                         uint32_t pkt, uint32_t type, uint32_t track) {
  seq->pack_ts = ts;
  seq->pack_pkt = pkt;
  seq->pack_track = track;
  if (TRAK_UNLIKELY(ts < seq->last_ts)) seq->unsorted = 1;
  seq->last_ts = ts;
  seq->n_events++;
  imp->n_events++;
  imp->n_of_type[type]++;
}

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
  /* the common form: name and category (or a value's halves) under 2^16 */
  if (same && !(u & 0xFFFF0000FFFF0000ull) && !(d >> 20) && !has_args && !aux) {
    uint64_t w = type | TRAK_EV_PACKED_COMMON | d << 4 | (uint64_t)pd << 24 |
                 (u & 0xFFFF) << 32 | (u >> 32) << 48;
    memcpy(p, &w, 8);
    q = p + 8;
  } else {
    /* The second form (sequence.h), as trak__sequence_push writes it: the timestamp's delta
    ** (under 2^32 here) and the packet's (under 2^8) in one word, the bytes past a delta's
    ** length being 0; each later field stored whole (the block's slack allows it), the cursor
    ** moved past its length. A held arg set id takes 4 bytes. */
    /* a 4-byte field's size code and length by its bit length */
    static const uint8_t code[33] = {0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2,
                                     3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
    static const uint8_t len[33] = {0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2,
                                    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};
    uint32_t ct = (d > 0xFF) + (d > 0xFFFF), cp = pd != 0;
    uint32_t tf = same ? 0 : track + 1, name = (uint32_t)u, cat = (uint32_t)(u >> 32);
    uint32_t af = held ? UINT32_MAX : args + 1;
    uint32_t b1 = tf ? 32 - __builtin_clz(tf) : 0, b2 = name ? 32 - __builtin_clz(name) : 0;
    uint32_t b3 = cat ? 32 - __builtin_clz(cat) : 0, b4 = af ? 32 - __builtin_clz(af) : 0;
    uint32_t c1 = code[b1], c2 = code[b2], c3 = code[b3], c4 = code[b4];
    uint64_t w = type | ct << 4 | cp << 6 | (uint64_t)(c1 | c2 << 2 | c3 << 4 | c4 << 6) << 8 |
                 (uint64_t)(aux != 0) << 16 | d << 24 | (uint64_t)pd << (24 + (8 << ct));
    memcpy(p, &w, 8);
    q = p + 3 + (1u << ct) + cp;
    memcpy(q, &tf, 4);
    q += len[b1];
    memcpy(q, &name, 4);
    q += len[b2];
    memcpy(q, &cat, 4);
    q += len[b3];
    at = q;
    memcpy(q, &af, 4);
    q += len[b4];
    memcpy(q, &aux, 4);
    q += aux ? 4 : 0;
  }
  b->used += (uint32_t)(q - p);
  trak__sequence_pushed(imp, seq, ts, pkt, type, track);
  return at;
}

#endif /* TRAK_PROCESSOR_IMPORT_SEQUENCE_PUT_H */
