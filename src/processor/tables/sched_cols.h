/*
** sched_slice's and ftrace_event's one-byte columns: how their codes read as Perfetto's
** end_state, ucpu, priority, name and common_flags (the tables' computed columns, vtab.c, and
** the exporters), and how the importer writes them (import/ftrace/). Each column's values are
** a trak_dict8 of t->dict (storage.h).
*/
#ifndef TRAK_PROCESSOR_TABLES_SCHED_COLS_H
#define TRAK_PROCESSOR_TABLES_SCHED_COLS_H

#include "processor/tables/storage.h"

/* Readers: the column's value at `row`. Can't fail. */
static inline uint32_t trak__ss_end_state(const trak_tables *t, uint32_t row) {
  return trak__dict8_get(&t->dict.ss_end_state, t->sched_slice.end_state8, row);
}
static inline uint32_t trak__ss_ucpu(const trak_tables *t, uint32_t row) {
  return trak__dict8_get(&t->dict.ss_ucpu, t->sched_slice.ucpu8, row);
}
static inline int32_t trak__ss_priority(const trak_tables *t, uint32_t row) {
  return (int32_t)trak__dict8_get(&t->dict.ss_priority, t->sched_slice.priority8, row);
}
static inline uint32_t trak__fe_name(const trak_tables *t, uint32_t row) {
  return trak__dict8_get(&t->dict.fe_name, t->ftrace_event.name8, row);
}
static inline uint32_t trak__fe_ucpu(const trak_tables *t, uint32_t row) {
  return trak__dict8_get(&t->dict.fe_ucpu, t->ftrace_event.ucpu8, row);
}
static inline uint16_t trak__fe_common_flags(const trak_tables *t, uint32_t row) {
  return (uint16_t)trak__dict8_get(&t->dict.fe_flags, t->ftrace_event.flags8, row);
}

/* Writers: set the column's value at `row`. Can't fail (OOM aborts). */
static inline void trak__ss_end_state_set(trak_tables *t, uint32_t row, uint32_t state) {
  trak__dict8_set(&t->dict.ss_end_state, t->sched_slice.end_state8, row, state);
}
static inline void trak__ss_ucpu_set(trak_tables *t, uint32_t row, uint32_t ucpu) {
  trak__dict8_set(&t->dict.ss_ucpu, t->sched_slice.ucpu8, row, ucpu);
}
static inline void trak__ss_priority_set(trak_tables *t, uint32_t row, int32_t prio) {
  trak__dict8_set(&t->dict.ss_priority, t->sched_slice.priority8, row, (uint32_t)prio);
}
static inline void trak__fe_name_set(trak_tables *t, uint32_t row, uint32_t name) {
  trak__dict8_set(&t->dict.fe_name, t->ftrace_event.name8, row, name);
}
static inline void trak__fe_ucpu_set(trak_tables *t, uint32_t row, uint32_t ucpu) {
  trak__dict8_set(&t->dict.fe_ucpu, t->ftrace_event.ucpu8, row, ucpu);
}
static inline void trak__fe_common_flags_set(trak_tables *t, uint32_t row, uint16_t flags) {
  trak__dict8_set(&t->dict.fe_flags, t->ftrace_event.flags8, row, flags);
}

#endif /* TRAK_PROCESSOR_TABLES_SCHED_COLS_H */
