/*
** The args table's value: one 8-byte word per row (args.value, table_defs.h) holds whichever of
** the integer, real or string id value_type says the row has; these read and write it. SQL still
** shows it as the int_value, string_value and real_value columns (tables/vtab.c).
*/
#ifndef TRAK_PROCESSOR_ARG_VALUE_H
#define TRAK_PROCESSOR_ARG_VALUE_H

#include <stdint.h>
#include <string.h>

#include "processor/tables/storage.h"

/* Whether rows of `type` (a trak_arg_type) hold an integer (SQL's int_value). */
static inline int trak__arg_type_int(unsigned type) {
  _Static_assert(TRAK_ARG_INT == 0 && TRAK_ARG_UINT == 1 && TRAK_ARG_POINTER == 4 &&
                     TRAK_ARG_BOOL == 5,
                 "the bits of the integer kinds");
  return type < 8 && (0x33u >> type) & 1;
}
/* Whether rows of `type` hold a string id (SQL's string_value). */
static inline int trak__arg_type_str(unsigned type) {
  return type == TRAK_ARG_STRING || type == TRAK_ARG_JSON;
}

/* The word holding an integer, a real (its bits) or a string id (zero-extended). */
static inline uint64_t trak__arg_word_int(int64_t i) {
  return (uint64_t)i;
}
static inline uint64_t trak__arg_word_real(double r) {
  uint64_t w;
  memcpy(&w, &r, sizeof w);
  return w;
}
static inline uint64_t trak__arg_word_str(uint32_t s) {
  return s;
}

/* Row `row`'s integer, real or string id as the separate columns held it: the value when
** value_type says the row has one of that kind, else 0 (a NULL in SQL). Can't fail. */
static inline int64_t trak__arg_int(const trak_tables *t, size_t row) {
  return trak__arg_type_int(t->args.value_type[row]) ? (int64_t)t->args.value[row] : 0;
}
static inline double trak__arg_real(const trak_tables *t, size_t row) {
  double r = 0;
  if (t->args.value_type[row] == TRAK_ARG_REAL) memcpy(&r, &t->args.value[row], sizeof r);
  return r;
}
static inline uint32_t trak__arg_str(const trak_tables *t, size_t row) {
  return trak__arg_type_str(t->args.value_type[row]) ? (uint32_t)t->args.value[row] : 0;
}

/* Sets row `row`'s value (its value_type says which kind it is; set it to match). */
static inline void trak__arg_set_int(trak_tables *t, size_t row, int64_t i) {
  t->args.value[row] = trak__arg_word_int(i);
}
static inline void trak__arg_set_real(trak_tables *t, size_t row, double r) {
  t->args.value[row] = trak__arg_word_real(r);
}
static inline void trak__arg_set_str(trak_tables *t, size_t row, uint32_t s) {
  t->args.value[row] = trak__arg_word_str(s);
}
/* The word of a value of `type` given as all three kinds (only type's is kept: real for
** TRAK_ARG_REAL, s for a string or JSON, i for an integer kind, 0 for TRAK_ARG_NULL). */
static inline uint64_t trak__arg_word(unsigned type, int64_t i, double r, uint32_t s) {
  return type == TRAK_ARG_REAL      ? trak__arg_word_real(r)
         : trak__arg_type_str(type) ? trak__arg_word_str(s)
         : type == TRAK_ARG_NULL    ? 0
                                    : trak__arg_word_int(i);
}

#endif /* TRAK_PROCESSOR_ARG_VALUE_H */
