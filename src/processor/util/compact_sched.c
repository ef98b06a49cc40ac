/*
** This file holds the CompactSched decoder of compact_sched.h: the message's arrays located once,
** then walked in step per event kind.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/util/compact_sched.h"
#include "trak/protos.h"

int trak__compact_sched_open(trak_compact_sched *cs, const uint8_t *data, size_t len) {
  memset(cs, 0, sizeof *cs);
  trak_pb_decoder dec;
  trak_pb_field f;
  size_t cap = 0;
  static const uint8_t none[1];
  trak_pb_decoder_init(&dec, data ? data : none, data ? len : 0);
  while (trak_pb_decoder_next(&dec, &f) == 1) {
    if (f.number == TRAK_PB_FtraceEventBundle_CompactSched_intern_table) {
      if (f.wire_type != TRAK_PB_WIRE_LEN) continue;
      if (cs->n_intern == cap) {
        size_t ncap = cap ? cap * 2 : 64;
        trak_strv *grown = realloc(cs->intern, ncap * sizeof *grown);
        if (!grown) {
          trak__compact_sched_close(cs);
          return -1;
        }
        cs->intern = grown;
        cap = ncap;
      }
      cs->intern[cs->n_intern].s = (const char *)f.data;
      cs->intern[cs->n_intern++].len = f.len;
    } else if (f.number < sizeof cs->arrays / sizeof *cs->arrays) {
      cs->arrays[f.number] = f; /* the last occurrence wins */
    }
  }
  return 0;
}

void trak__compact_sched_close(trak_compact_sched *cs) {
  free(cs->intern);
  memset(cs, 0, sizeof *cs);
}

static void col_advance(trak_compact_iter *it, int c) {
  int rc = trak_pb_packed_next(&it->it[c], &it->cur[c]);
  it->valid[c] = rc == 1;
  if (rc < 0) it->error = 1;
}

/* Starts the walk over the arrays with the given field numbers (ncols of them). */
static void iter_begin(trak_compact_iter *it, const trak_compact_sched *cs, const uint32_t *fields,
                       int ncols) {
  memset(it, 0, sizeof *it);
  it->cs = cs;
  it->ncols = ncols;
  for (int c = 0; c < ncols; c++) {
    static const uint8_t none[1];
    trak_pb_field f = cs->arrays[fields[c]];
    if (f.wire_type != TRAK_PB_WIRE_LEN || !f.data) f.data = none, f.len = 0; /* no NULL + 0 */
    trak_pb_packed_init(&it->it[c], &f, TRAK_PB_WIRE_VARINT);
    col_advance(it, c);
  }
}

/* Takes the current row if the first five arrays all have one and its comm index (column 4)
** is in range: returns 1 with it->ts advanced; else ends the walk. */
static int iter_row(trak_compact_iter *it, trak_strv *comm) {
  if (it->stopped) return 0;
  for (int c = 0; c < 5; c++)
    if (!it->valid[c]) {
      it->stopped = 1;
      return 0;
    }
  it->ts += (int64_t)it->cur[0];
  uint32_t idx = (uint32_t)it->cur[4];
  if (idx >= it->cs->n_intern) {
    it->error = 1;
    it->stopped = 1;
    return 0;
  }
  *comm = it->cs->intern[idx];
  return 1;
}

static void iter_advance(trak_compact_iter *it) {
  for (int c = 0; c < 5; c++)
    col_advance(it, c);
}

void trak__compact_switch_begin(trak_compact_iter *it, const trak_compact_sched *cs) {
  static const uint32_t fields[] = {TRAK_PB_FtraceEventBundle_CompactSched_switch_timestamp,
                                    TRAK_PB_FtraceEventBundle_CompactSched_switch_prev_state,
                                    TRAK_PB_FtraceEventBundle_CompactSched_switch_next_pid,
                                    TRAK_PB_FtraceEventBundle_CompactSched_switch_next_prio,
                                    TRAK_PB_FtraceEventBundle_CompactSched_switch_next_comm_index};
  iter_begin(it, cs, fields, 5);
}

void trak__compact_waking_begin(trak_compact_iter *it, const trak_compact_sched *cs) {
  static const uint32_t fields[] = {TRAK_PB_FtraceEventBundle_CompactSched_waking_timestamp,
                                    TRAK_PB_FtraceEventBundle_CompactSched_waking_pid,
                                    TRAK_PB_FtraceEventBundle_CompactSched_waking_target_cpu,
                                    TRAK_PB_FtraceEventBundle_CompactSched_waking_prio,
                                    TRAK_PB_FtraceEventBundle_CompactSched_waking_comm_index,
                                    TRAK_PB_FtraceEventBundle_CompactSched_waking_common_flags};
  iter_begin(it, cs, fields, 6);
}

int trak__compact_switch_next(trak_compact_iter *it, trak_compact_switch *ev) {
  if (!iter_row(it, &ev->next_comm)) return 0;
  ev->ts = it->ts;
  ev->prev_state = (int64_t)it->cur[1];
  ev->next_pid = (int32_t)it->cur[2];
  ev->next_prio = (int32_t)it->cur[3];
  ev->next_comm_index = (uint32_t)it->cur[4];
  iter_advance(it);
  return 1;
}

int trak__compact_waking_next(trak_compact_iter *it, trak_compact_waking *ev) {
  if (!iter_row(it, &ev->comm)) return 0;
  ev->ts = it->ts;
  ev->pid = (int32_t)it->cur[1];
  ev->target_cpu = (uint16_t)(int32_t)it->cur[2];
  ev->prio = (uint16_t)(int32_t)it->cur[3];
  ev->comm_index = (uint32_t)it->cur[4];
  ev->has_common_flags = it->valid[5];
  ev->common_flags = it->valid[5] ? (uint16_t)it->cur[5] : 0;
  iter_advance(it);
  if (ev->has_common_flags) col_advance(it, 5);
  return 1;
}

int trak__compact_iter_bad(const trak_compact_iter *it) {
  if (it->error) return 1;
  for (int c = 0; c < 5; c++)
    if (it->valid[c]) return 1;
  return 0;
}
