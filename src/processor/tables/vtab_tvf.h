/*
** The planning shared by trak's table-valued functions (eponymous virtual tables whose arguments
** are hidden columns): connecting with a declared schema, disconnecting, and xBestIndex for
** "the hidden argument columns are given as equalities".
*/
#ifndef TRAK_PROCESSOR_VTAB_TVF_H
#define TRAK_PROCESSOR_VTAB_TVF_H

#include <sqlite3.h>
#include <stddef.h>

/* A function's arguments: `n` hidden columns from column `first` on, in argument order. */
typedef struct trak_tvf_args {
  int first;          /* the column of the first argument */
  int n;              /* how many arguments (1 to 16) */
  unsigned required;  /* bit i set: argument i must be given, or the plan is refused */
  double cost;        /* the plan's estimatedCost when an argument is given */
  sqlite3_int64 rows; /* its estimatedRows then (0: SQLite's default) */
  int unique;         /* 1: at most one row then (SQLITE_INDEX_SCAN_UNIQUE) */
} trak_tvf_args;

/* xConnect's common part: declares `schema` on `db`, then allocates the table (`size` bytes,
** at least a sqlite3_vtab, which must come first; zeroed; sqlite3_malloc'd, freed by
** trak__tvf_disconnect) into *out and, when `field` is not 0, stores `ptr` in the pointer member
** at byte offset `field` (what the cursors read: the processor, tables or connection). Returns
** an SQLite code; on error *out is unchanged. */
int trak__tvf_connect(sqlite3 *db, const char *schema, size_t size, size_t field, const void *ptr,
                      sqlite3_vtab **out);

/* xDisconnect (and xDestroy) for a table made by trak__tvf_connect. Can't fail. */
int trak__tvf_disconnect(sqlite3_vtab *vt);

/* xBestIndex's common part: the first equality on each argument column becomes an argument
** of xFilter (argv in argument order, skipping those not given) that SQLite does not check
** again; later equalities on the same column are left to SQLite. idxNum is the set of arguments
** given (bit i: argument i). Returns SQLITE_CONSTRAINT, refusing the plan, when an argument's
** equality is not usable in it or a required argument is not given; SQLITE_OK otherwise, with
** `a`'s cost when some argument is given and a cost of 1e12 (a full listing) when none is. */
int trak__tvf_best_index(sqlite3_index_info *info, const trak_tvf_args *a);

#endif /* TRAK_PROCESSOR_VTAB_TVF_H */
