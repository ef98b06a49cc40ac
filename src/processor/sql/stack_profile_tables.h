/*
** The stack profile tables' SQL side (stack_profile_tables.c): plain SQLite tables copied from
** trak_tables.stack_profile when SQL opens.
*/
#ifndef TRAK_PROCESSOR_STACK_PROFILE_TABLES_H
#define TRAK_PROCESSOR_STACK_PROFILE_TABLES_H

#include <sqlite3.h>

#include "processor/tables/storage.h"

/* Creates __intrinsic_stack_profile_mapping, _frame, _callsite, _symbol, their stack_profile_*
** views and __intrinsic_track_event_callstacks on `db`, filled from `t` (strings are bound
** SQLITE_STATIC: `t` must outlive the statements, which end before return). Returns an SQLite
** code; on error the tables may be partly filled. */
int trak__sql_stack_profile_fill(sqlite3 *db, const trak_tables *t);

#endif /* TRAK_PROCESSOR_STACK_PROFILE_TABLES_H */
