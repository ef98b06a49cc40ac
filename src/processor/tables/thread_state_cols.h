/*
** thread_state's packed columns: how the stored `aux` and `bits` of a row read as Perfetto's
** ucpu, waker_utid, waker_id, blocked_function, io_wait and irq_context (the table's computed
** columns, vtab.c), and how the importer writes them (import/ftrace/thread_state.c). A row is
** Running (aux: its ucpu), woken (aux: the waker's Running row, or the waker's utid when it had
** none), blocked (aux: its blocked_function) or none of these (aux unused). Its dur is stored
** in 32 bits: UINT32_MAX is -1 (open), UINT32_MAX - 1 says it is in t->ts_wide.
*/
#ifndef TRAK_PROCESSOR_TABLES_THREAD_STATE_COLS_H
#define TRAK_PROCESSOR_TABLES_THREAD_STATE_COLS_H

#include "processor/tables/storage.h"

/* What thread_state.aux holds (bits 4-6 of thread_state.bits). */
typedef enum trak_ts_aux {
  TRAK_TS_AUX_NONE,       /* nothing: ucpu, waker NULL, blocked_function NULL */
  TRAK_TS_AUX_UCPU,       /* the ucpu of a Running row */
  TRAK_TS_AUX_WAKER_ROW,  /* waker_id; waker_utid is that row's utid */
  TRAK_TS_AUX_WAKER_UTID, /* waker_utid (TRAK_NULL_U32: none), waker_id NULL */
  TRAK_TS_AUX_BLOCKED     /* blocked_function's string id */
} trak_ts_aux;

static inline trak_ts_aux trak__ts_aux_kind(const trak_tables *t, uint32_t row) {
  return (trak_ts_aux)(t->thread_state.bits[row] >> 4 & 7);
}
/* Sets what row's aux holds, and its value. */
static inline void trak__ts_aux_set(trak_tables *t, uint32_t row, trak_ts_aux kind, uint32_t v) {
  t->thread_state.bits[row] = (uint8_t)((t->thread_state.bits[row] & 15) | kind << 4);
  t->thread_state.aux[row] = v;
}
/* The value of aux when it holds `kind`, else `none`. */
static inline uint32_t trak__ts_aux_get(const trak_tables *t, uint32_t row, trak_ts_aux kind,
                                        uint32_t none) {
  return trak__ts_aux_kind(t, row) == kind ? t->thread_state.aux[row] : none;
}

#define TRAK_TS_DUR_OPEN UINT32_MAX
#define TRAK_TS_DUR_WIDE (UINT32_MAX - 1)

/* The dur of row `row` (-1: the state is open). */
static inline int64_t trak__ts_dur(const trak_tables *t, uint32_t row) {
  uint32_t d = t->thread_state.dur32[row];
  if (d < TRAK_TS_DUR_WIDE) return d;
  if (d == TRAK_TS_DUR_OPEN) return -1;
  const uint32_t *i = trak__map_get(&t->ts_wide.index, row);
  return i ? t->ts_wide.dur.v[*i] : -1;
}
/* Sets the dur of row `row`: in 32 bits when it fits, else in t->ts_wide. */
static inline void trak__ts_dur_set(trak_tables *t, uint32_t row, int64_t dur) {
  if (dur >= 0 && dur < TRAK_TS_DUR_WIDE) {
    t->thread_state.dur32[row] = (uint32_t)dur;
    return;
  }
  t->thread_state.dur32[row] = TRAK_TS_DUR_WIDE;
  int added;
  uint32_t *i = trak__map_put(&t->ts_wide.index, row, (uint32_t)t->ts_wide.dur.n, &added);
  if (added) trak_vec_push(t->ts_wide.dur, dur);
  t->ts_wide.dur.v[*i] = dur;
}

/* The state of row `row` (a string id) and its setter. */
static inline uint32_t trak__ts_state(const trak_tables *t, uint32_t row) {
  return trak__dict8_get(&t->dict.ts_state, t->thread_state.state8, row);
}
static inline void trak__ts_state_set(trak_tables *t, uint32_t row, uint32_t state) {
  trak__dict8_set(&t->dict.ts_state, t->thread_state.state8, row, state);
}

/* Perfetto's columns of row `row` (NULL: TRAK_NULL_U32 for ids, 0 for strings, 2 for flags). */
static inline uint32_t trak__ts_ucpu(const trak_tables *t, uint32_t row) {
  return trak__ts_aux_get(t, row, TRAK_TS_AUX_UCPU, TRAK_NULL_U32);
}
static inline uint32_t trak__ts_waker_id(const trak_tables *t, uint32_t row) {
  return trak__ts_aux_get(t, row, TRAK_TS_AUX_WAKER_ROW, TRAK_NULL_U32);
}
static inline uint32_t trak__ts_waker_utid(const trak_tables *t, uint32_t row) {
  trak_ts_aux k = trak__ts_aux_kind(t, row);
  uint32_t v = t->thread_state.aux[row];
  if (k == TRAK_TS_AUX_WAKER_ROW)
    return v < t->thread_state.n ? t->thread_state.utid[v] : TRAK_NULL_U32;
  return k == TRAK_TS_AUX_WAKER_UTID ? v : TRAK_NULL_U32;
}
static inline uint32_t trak__ts_blocked_function(const trak_tables *t, uint32_t row) {
  return trak__ts_aux_get(t, row, TRAK_TS_AUX_BLOCKED, 0);
}
static inline uint8_t trak__ts_io_wait(const trak_tables *t, uint32_t row) {
  return t->thread_state.bits[row] & 3;
}
static inline uint8_t trak__ts_irq_context(const trak_tables *t, uint32_t row) {
  return t->thread_state.bits[row] >> 2 & 3;
}
/* thread_state's computed columns, in the order table_defs.h declares them (vtab.c checks). */
typedef enum trak_ts_col {
  TRAK_TS_COL_DUR,
  TRAK_TS_COL_IO_WAIT,
  TRAK_TS_COL_BLOCKED_FUNCTION,
  TRAK_TS_COL_WAKER_UTID,
  TRAK_TS_COL_WAKER_ID,
  TRAK_TS_COL_IRQ_CONTEXT,
  TRAK_TS_COL_UCPU
} trak_ts_col;

/* Column `col` of row `row` in *out, as SQL reads it. Returns 1, or 0 when the value is NULL
** (*out then holds the accessor's NULL above; dur is never NULL: -1 when open). Can't fail. */
static inline int trak__ts_col(const trak_tables *t, trak_ts_col col, uint32_t row, int64_t *out) {
  switch (col) {
  case TRAK_TS_COL_DUR:
    return *out = trak__ts_dur(t, row), 1;
  case TRAK_TS_COL_IO_WAIT:
    return (*out = trak__ts_io_wait(t, row)) != 2;
  case TRAK_TS_COL_BLOCKED_FUNCTION:
    return (*out = trak__ts_blocked_function(t, row)) != 0;
  case TRAK_TS_COL_WAKER_UTID:
    return (*out = trak__ts_waker_utid(t, row)) != TRAK_NULL_U32;
  case TRAK_TS_COL_WAKER_ID:
    return (*out = trak__ts_waker_id(t, row)) != TRAK_NULL_U32;
  case TRAK_TS_COL_IRQ_CONTEXT:
    return (*out = trak__ts_irq_context(t, row)) != 2;
  case TRAK_TS_COL_UCPU:
    return (*out = trak__ts_ucpu(t, row)) != TRAK_NULL_U32;
  }
  return 0;
}

/* Sets io_wait (0, 1, 2 for NULL) and irq_context (the same) of row `row`. */
static inline void trak__ts_io_wait_set(trak_tables *t, uint32_t row, uint8_t io_wait) {
  t->thread_state.bits[row] = (uint8_t)((t->thread_state.bits[row] & ~3u) | (io_wait & 3u));
}
static inline void trak__ts_irq_context_set(trak_tables *t, uint32_t row, uint8_t irq) {
  t->thread_state.bits[row] = (uint8_t)((t->thread_state.bits[row] & ~12u) | (irq & 3u) << 2);
}
/* The bits of a new row with io_wait NULL, irq_context `irq` and aux holding `kind`: what
** trak__ts_irq_context_set and trak__ts_aux_set make of TRAK_TS_BITS_INIT. */
static inline uint8_t trak__ts_bits_new(uint8_t irq, trak_ts_aux kind) {
  return (uint8_t)((TRAK_TS_BITS_INIT & 3u) | (irq & 3u) << 2 | (unsigned)kind << 4);
}

#endif /* TRAK_PROCESSOR_TABLES_THREAD_STATE_COLS_H */
