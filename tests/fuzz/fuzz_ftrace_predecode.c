/*
** libFuzzer target for the decoding thread's reading of ftrace bundles
** (trak__ftrace_predecode, src/processor/import/proto/ftrace_predecode.c): the input is one
** FtraceEventBundle, put in a TracePacket's ftrace_events and decoded as the decoding thread does.
** Every byte span it returns must lie inside the input, every entry be of a known kind, a
** switch or waking hold only the fields a plain one may, a compact_sched's counts be those
** trak__compact_count gives, its header be what the importer's thread reads, and nothing may
** crash, leak or read out of bounds. The input read as one FtraceEvent must decode the same by
** the reader specialised for plain sched events as by the generic one, wherever the specialised
** one takes it.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/proto/proto.h"
#include "processor/util/compact_sched.h"
#include "trak/protos.h"

static void check_inside(const uint8_t *p, size_t len, const uint8_t *data, size_t size) {
  if (len && (p < data || p + len > data + size)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* TracePacket { ftrace_events: data } */
  uint8_t *pkt = malloc(size + 32);
  if (!pkt) return 0;
  size_t n = 0;
  pkt[n++] = (uint8_t)(TRAK_PB_TracePacket_ftrace_events << 3 | TRAK_PB_WIRE_LEN);
  uint64_t v = size;
  do {
    pkt[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  memcpy(pkt + n, data, size);
  const uint8_t *bundle = pkt + n;
  n += size;
  memset(pkt + n, 0, 16); /* readable after the packet, as in a read buffer: the fast reader runs */
  trak_fpre_ev fast, generic;
  trak__ftrace_predecode_event(pkt + n + 16, bundle, size, &generic);
  if (trak__ftrace_predecode_fast(pkt + n + 16, bundle, size, &fast) &&
      !trak__fpre_ev_same(&fast, &generic))
    abort();
  trak_packet_fields pf;
  trak__packet_decode(pkt, pkt + n, pkt, n, &pf);
  trak_fpre_set set;
  memset(&set, 0, sizeof set);
  uint32_t b = trak__ftrace_predecode(pkt + n + 16, &pf, &set);
  trak__ftrace_predecode_done(&set);
  if (b) {
    const trak_fpre *fp = &set.bundles.v[b - 1];
    if (fp->data != bundle || fp->len != size || fp->first + fp->n != set.evs.n) abort();
    trak_fhead head = {0}; /* the header as the importer's thread reads it */
    trak_pb_decoder dec;
    trak_pb_field f;
    trak_pb_decoder_init(&dec, bundle, size);
    while (trak_pb_decoder_next(&dec, &f) > 0)
      trak__ftrace_head_field(&head, &f);
    if (memcmp(&head, &fp->head, sizeof head)) abort();
    for (size_t i = 0; i < fp->n; i++) {
      const trak_fpre_ev *e = &fp->evs[i];
      switch (e->kind) {
      case TRAK_FPRE_LOST:
        break;
      case TRAK_FPRE_EVENT:
        check_inside(e->data, e->len, bundle, size);
        break;
      case TRAK_FPRE_COMPACT: {
        check_inside(e->data, e->len, bundle, size);
        if (e->has > 1) abort();
        trak_compact_sched cs;
        trak_compact_count c[2];
        if (!e->has || trak__compact_sched_open(&cs, e->data, e->len)) break;
        if (!trak__compact_count(&cs, 0, &c[0]) || !trak__compact_count(&cs, 1, &c[1])) abort();
        for (int k = 0; k < 2; k++)
          if ((int64_t)c[k].n != e->v[4 * k] || c[k].first != e->v[4 * k + 1] ||
              c[k].last != e->v[4 * k + 2] || c[k].sorted != e->v[4 * k + 3])
            abort();
        trak__compact_sched_close(&cs);
        break;
      }
      case TRAK_FPRE_SWITCH:
      case TRAK_FPRE_WAKING: {
        unsigned allowed = e->kind == TRAK_FPRE_SWITCH ? 0xfeu : 0x3eu;
        if (e->has & ~allowed) abort();
        check_inside(e->data, e->len, bundle, size);
        if (e->has >> 1 & 1) check_inside(e->s[0], e->s_len[0], e->data, e->len);
        if (e->kind == TRAK_FPRE_SWITCH && e->has >> 5 & 1)
          check_inside(e->s[1], e->s_len[1], e->data, e->len);
        break;
      }
      default:
        abort();
      }
    }
  } else if (set.bundles.n || set.evs.n) {
    abort(); /* a bundle left to the importer's thread leaves nothing behind */
  }
  trak_vec_free(set.bundles);
  trak_vec_free(set.evs);
  free(pkt);
  return 0;
}
