/*
** The stack profile tables' SQL side (stack_profile_tables.c): plain SQLite tables copied from
** trak_tables.stack_profile when SQL opens.
*/
#ifndef TRAK_PROCESSOR_STACK_PROFILE_TABLES_H
#define TRAK_PROCESSOR_STACK_PROFILE_TABLES_H

#include "processor/processor_internal.h"

/* Creates __intrinsic_stack_profile_mapping, _frame, _callsite, _symbol, their stack_profile_*
** views and __intrinsic_track_event_callstacks on p->db (the views through the set-up's schema
** batch, trak__sql_schema_exec), filled from p->tables (strings are bound SQLITE_STATIC: the
** tables must outlive the statements, which end before return). Returns an SQLite code; on error
** the tables may be partly filled. */
int trak__sql_stack_profile_fill(trak_processor *p);

#endif /* TRAK_PROCESSOR_STACK_PROFILE_TABLES_H */
