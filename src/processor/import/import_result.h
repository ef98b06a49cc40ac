/*
** The handover of a finished import (import_result.c): the rows the SQL layer reads besides the
** tables, gathered into tables/import_result.h's plain struct so sql/ needs no importer header.
*/
#ifndef TRAK_PROCESSOR_IMPORT_IMPORT_RESULT_H
#define TRAK_PROCESSOR_IMPORT_IMPORT_RESULT_H

#include "processor/tables/import_result.h"

typedef struct trak_importer trak_importer;

/* Called once, after the parse phase: finishes the metadata rows (trace_type, the trace's
** format as Perfetto names it: "proto", "json" or "systrace"; size, its byte count) and fills
** *out with the stats rows (the importer's counts as they are now), the import logs, the
** android logs in timestamp order, the metadata rows and the clocks. *out borrows from `imp`,
** which must outlive it and import nothing more. Returns 0, or TRAK_ENOMEM with *out empty. */
int trak__import_result_make(trak_importer *imp, const char *trace_type, int64_t size,
                             trak_import_result *out);
/* Frees what *out owns (not what it borrows) and zeroes it. Accepts a zeroed result. */
void trak__import_result_free(trak_import_result *r);

#endif /* TRAK_PROCESSOR_IMPORT_IMPORT_RESULT_H */
