/*
** Perfetto's descriptions of per-process memory counter tracks (memory_descriptions.c).
*/
#ifndef TRAK_PROCESSOR_IMPORT_MEMORY_DESCRIPTIONS_H
#define TRAK_PROCESSOR_IMPORT_MEMORY_DESCRIPTIONS_H

/* The description of the process_memory track of `key` ("rss", "swap", "rss.watermark", ...),
** a static string; NULL for a key Perfetto does not describe (or a NULL key). */
const char *trak__process_memory_description(const char *key);

#endif
