/*
** Column descriptions of the columnar tables (generated from table_defs.h), shared by the
** generic virtual table (vtab.c) and the table-valued functions (sql_functions.c). A column
** reads row `i` of an array in trak_tables found by its offset, so one module serves every
** table. This layer sees only the tables: no importer or processor state.
*/
#ifndef TRAK_PROCESSOR_VTAB_H
#define TRAK_PROCESSOR_VTAB_H

#include <sqlite3.h>
#include <stddef.h>

#include "processor/tables/storage.h"

typedef enum vt_kind {
  VT_ID,         /* the row index */
  VT_I64,        /* int64_t[] */
  VT_I64N,       /* int64_t[], INT64_MIN is NULL */
  VT_U32,        /* uint32_t[] */
  VT_U32N,       /* uint32_t[], TRAK_NULL_U32 is NULL */
  VT_STR,        /* uint32_t[] string ids, 0 is NULL */
  VT_F64,        /* double[] */
  VT_BOOLN,      /* uint8_t[], 2 is NULL */
  VT_NUL,        /* always NULL */
  VT_ARG_INT,    /* args.int_value: NULL unless an integer kind */
  VT_ARG_STR,    /* args.string_value: NULL unless string / json */
  VT_ARG_REAL,   /* args.real_value: NULL unless real */
  VT_ARG_TYPE,   /* args.value_type as text */
  VT_ARG_DISPLAY /* args value as text */
} vt_kind;

/* The computed (C) columns of table_defs.h: VT_CALC_<field>, 0 for every other column. */
#define VT_CALC_ENUM(T, store, type, field, sql, sorted, init) VT_CALC_ENUM_##store(field)
#define VT_CALC_ENUM_C(field) VT_CALC_##field,
#define VT_CALC_ENUM_S(field)
#define VT_CALC_ENUM_O(field)
#define VT_CALC_ENUM_H(field)
#define VT_CALC_ENUM_A(field)
#define VT_CALC_ENUM_V(field)
#define VT_CALC_TABLE(T, sql) TRAK_COLUMNS_##T(VT_CALC_ENUM, T)
typedef enum vt_calc { VT_CALC_NONE, TRAK_TABLES(VT_CALC_TABLE) } vt_calc;

typedef struct vt_col {
  const char *name;
  const char *decl; /* declared SQL type */
  vt_kind kind;     /* how the value reads (a computed column's too) */
  size_t off;       /* offset of the array pointer in trak_tables (0: none) */
  int sorted;       /* values ascend with the row index */
  vt_calc calc;     /* a computed column's computation, VT_CALC_NONE for the others */
} vt_col;

typedef struct vt_table {
  const char *name;
  size_t count_off; /* offset of the row count in trak_tables */
  const vt_col *cols;
  int ncols;
} vt_table;

#define VT_MAX_COLS 32 /* the most columns a table may have (its indexes are per column) */

/* trak__vt_slice, trak__vt_track, ...: one per table of table_defs.h. */
#define TRAK_VT_DECL(T, sql) extern const vt_table trak__vt_##T;
TRAK_TABLES(TRAK_VT_DECL)
#undef TRAK_VT_DECL

/* The i-th table of table_defs.h's list, or NULL past the last. */
const vt_table *trak__vt_table(size_t i);

/* The table of SQL name `name` (compared without case), or NULL (also for a NULL name). */
const vt_table *trak__vt_table_named(const char *name);

/* The array of stored column `c` (NULL for an optional column not added). */
static inline const void *trak__vt_array(const trak_tables *t, const vt_col *c) {
  return *(const void *const *)((const char *)t + c->off);
}
/* The number of rows of `tbl`. */
static inline size_t trak__vt_rows(const trak_tables *t, const vt_table *tbl) {
  return *(const size_t *)((const char *)t + tbl->count_off);
}

/* The value of computed column `calc` at `row` in *out (an integer, or a string id for a STR
** column); returns 0 when it is NULL (then *out is unspecified). Can't fail: ids out of range
** read as NULL. */
int trak__vt_calc(const trak_tables *t, vt_calc calc, uint32_t row, int64_t *out);

/* A computed column stored as one-byte codes of a dictionary (storage.h's trak_dict8): the
** dictionary, the codes, and how a stored value reads in SQL (sign-extended from 32 bits, or NULL
** when 0: a string column). */
typedef struct vt_dict {
  const trak_dict8 *dict;
  const uint8_t *codes;
  unsigned char sign32, zero_null;
} vt_dict;

/* Fills *out for computed column `calc` when it is a dictionary column; returns 0 (*out
** untouched) for every other column. Can't fail. */
int trak__vt_dict(const trak_tables *t, vt_calc calc, vt_dict *out);

/* Dictionary value `raw` of `d` as the column reads it in *out; returns 0 when it is NULL. The
** same as trak__vt_calc on a row holding `raw`. Can't fail. */
static inline int trak__vt_dict_value(const vt_dict *d, uint32_t raw, int64_t *out) {
  *out = d->sign32 ? (int64_t)(int32_t)raw : (int64_t)raw;
  return !(d->zero_null && !raw);
}

/* Column `c` (its array `a`, trak__vt_array's) at `row` as an integer in *out (a string id for
** text; reals are not read); returns 0 when it is NULL. Can't fail. */
static inline int trak__vt_int(const trak_tables *t, const vt_col *c, const void *a, uint32_t row,
                               int64_t *out) {
  if (c->calc) return trak__vt_calc(t, c->calc, row, out);
  switch (c->kind) {
  case VT_ID:
    return *out = row, 1;
  case VT_I64:
    return *out = ((const int64_t *)a)[row], 1;
  case VT_I64N:
    return a && (*out = ((const int64_t *)a)[row]) != INT64_MIN;
  case VT_U32:
    return *out = ((const uint32_t *)a)[row], 1;
  case VT_U32N:
    return (*out = ((const uint32_t *)a)[row]) != TRAK_NULL_U32;
  case VT_STR:
    return (*out = ((const uint32_t *)a)[row]) != 0;
  case VT_BOOLN:
    return (*out = ((const uint8_t *)a)[row]) != 2;
  case VT_F64:
    return *out = 0, 1;
  default: /* VT_NUL; the args columns are not read as integers */
    return 0;
  }
}

/* The value extract_arg(set, key) gives: the first arg of arg set `set` (its rows start at row
** `set` of the args table) with key string id `key` (0: none), typed as SQLite would see it. */
typedef struct trak_arg_val {
  int type; /* SQLITE_NULL, SQLITE_INTEGER (i), SQLITE_FLOAT (d) or SQLITE_TEXT (s) */
  int64_t i;
  double d;
  const char *s; /* NUL-terminated, the string pool's */
} trak_arg_val;
void trak__arg_value(const trak_tables *t, int64_t set, uint32_t key, trak_arg_val *out);

/* Column `name` of `tbl` (compared without case), or NULL (also for a NULL table or name). */
static inline const vt_col *trak__vt_col_named(const vt_table *tbl, const char *name) {
  for (int i = 0; tbl && name && i < tbl->ncols; i++)
    if (!sqlite3_stricmp(tbl->cols[i].name, name)) return &tbl->cols[i];
  return NULL;
}

/* The slot of key `k` in an open-addressing map from integer keys to groups (`slots` entries, a
** power of two, each a group's index + 1, 0 empty), where group g's key is the int64_t at
** `keys + g * stride`: the slot holding k's group, or the empty one where it goes. */
static inline uint32_t *trak__vt_key_slot(uint32_t *map, size_t slots, int64_t k, const void *keys,
                                          size_t stride) {
  size_t h = (size_t)((uint64_t)k * 0x9E3779B97F4A7C15ull >> 20) & (slots - 1);
  while (map[h] && *(const int64_t *)((const char *)keys + (map[h] - 1) * stride) != k)
    h = (h + 1) & (slots - 1);
  return &map[h];
}

/* Sets the SQLite result to column `c` of row `row`. */
void trak__vt_result(const trak_tables *t, const vt_col *c, uint32_t row, sqlite3_context *ctx);
/* The number of `tbl`'s columns before its computed ones (which come last in table_defs.h). */
int trak__vt_plain_cols(const vt_table *tbl);
/* The CREATE TABLE text declaring `tbl`'s columns, or, with `hidden` (a table-valued function's
** arguments, which bind to the first hidden columns), its columns up to the computed ones and
** then `hidden`. */
char *trak__vt_schema(const vt_table *tbl, const char *hidden);
/* Registers on `db` the SQL function __intrinsic_row_count(name): the number of rows of the
** columnar table of that SQL name (compared without case) in `t`, read when called; an error
** for any other name. Also registers trak__vt_aggregates_register's. Returns an SQLite code. */
int trak__vt_row_count_register(sqlite3 *db, const trak_tables *t);
/* Registers on `db` (vtab_aggregate.c, vtab_group.c) the SQL function __intrinsic_col_agg(name,
** fn, column): SQLite's count, sum, min, max or avg (fn, in lower case) of one column of
** columnar table `name` over every row, and the table-valued function
** __intrinsic_col_group(name, key, spec[, filter]):
** one row per value of column `key` in SQLite's GROUP BY order (key '': one row, also over no
** rows), its value (column k) and the aggregates of `spec` ("fn:column,...", "count:" for
** COUNT(*); up to 8, columns a0 to a7) over the rows where `filter` ("column>=integer", an
** integer column) holds, or every row. Both read `t`
** when run and answer what SQLite 3.40's scan of every row would: sum, min, max and avg of
** integer and real columns (count also of text), reals added in row order (a text key's groups
** of one text are folded, adding their real sums in another order), NaN read as NULL, SQLite's
** "integer overflow" error for an integer sum past 64 bits. column_aggregates.c rewrites
** statements to them. Returns an SQLite code. */
int trak__vt_aggregates_register(sqlite3 *db, const trak_tables *t);
/* Parses a rows' filter "column>=integer" of `tbl` (NULL `where`: none, *col NULL) into *col and
** *lo. Returns 0, or -1 for anything else (an unknown column, a real or args column, another
** operator). */
int trak__vt_filter_parse(const vt_table *tbl, const char *where, const vt_col **col, int64_t *lo);
/* Registers on `db` (vtab_top.c) the table-valued function __intrinsic_top_per_group(name,
** part, order, n[, filter]): for each value of integer column `part` of columnar table `name`
** (NULL one group), the first `n` rows in `order` ("column [DESC],...", up to 3 integer columns,
** NULL first ascending and last descending, ties by row), as columns __top_id (the row) and
** __top_rn (1 to n), groups in ascending order (NULL first); only rows where `filter`
** ("column>=integer") holds. It answers SQLite's row_number() OVER (PARTITION BY part ORDER BY
** order) <= n when the order ends in the id. Reads `t` when run. Returns an SQLite code. */
int trak__vt_top_register(sqlite3 *db, const trak_tables *t);
/* Registers (vtab_scan.c) the module trak_columnar on `db`, reading `t` (which must outlive the
** connection), and creates one virtual table per table of table_defs.h: passes each
** `CREATE VIRTUAL TABLE name USING trak_columnar` to `create` with `ctx` (NULL: runs it on
** `db`), which returns an SQLite code. Returns an SQLite code. */
typedef int (*trak_vtab_create_fn)(void *ctx, const char *sql);
int trak__vtab_register(sqlite3 *db, trak_tables *t, trak_vtab_create_fn create, void *ctx);

/* How many equality (or IS NULL) scans of a 32-bit column a table answers by reading the column
** before it builds the column's equality index (3; tests set 0 for the index at once, or
** UINT32_MAX for never). Process-wide; set it before queries run. */
extern uint32_t trak__vt_scans_before_index;

#endif /* TRAK_PROCESSOR_VTAB_H */
