/*
** This file holds the prelude's C parts: functions every query sees without an INCLUDE
** (regexp, str_split, slice_is_ancestor, clock conversions, ...). The prelude's SQL parts
** (trace_bounds, metadata, trace_start(), ...) are modules under stdlib/prelude.
*/
#include "processor/sql/perfetto_sql/psql.h"

int trak__psql_prelude_register(trak_processor *p) {
  return SQLITE_OK;
}
