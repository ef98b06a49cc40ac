/*
** The JSON exporter (json_export.c): a finished processor's tables written as JSON Object
** Format, for `trak convert trace.pb out.json` (docs/formats.md).
*/
#ifndef TRAK_PROCESSOR_JSON_EXPORT_H
#define TRAK_PROCESSOR_JSON_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "trak/error.h"

struct trak_processor;

/* Writes the finished processor's tables to `out` as JSON Object Format; *dropped_flows (if
** not NULL) receives the number of flows JSON could not express, *dropped_ftrace (if not NULL)
** the number of ftrace events left out of systemTraceEvents (json_systrace.h says which).
** Returns 0 or TRAK_EIO. */
int trak__json_export(struct trak_processor *p, FILE *out, uint64_t *dropped_flows,
                      uint64_t *dropped_ftrace, trak_error *err);

#endif /* TRAK_PROCESSOR_JSON_EXPORT_H */
