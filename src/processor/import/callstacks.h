/*
** TrackEvent callstacks (implemented in proto/callstacks.c), as Perfetto's importer fills its
** stack profile tables. The tokenizing half is proto/'s own (proto.h); the parse phase and the
** importer's lifetime call the two functions here.
*/
#ifndef TRAK_PROCESSOR_IMPORT_CALLSTACKS_H
#define TRAK_PROCESSOR_IMPORT_CALLSTACKS_H

#include <stdint.h>

typedef struct trak_importer trak_importer;

/* Parsing: the slice `slice` that the event of callstack `index` (TRAK_AUX_CALLSTACK) began or
** ended gets its callsite (frames, mappings, callsites and symbols interned in parse order, so
** ids are Perfetto's) in __intrinsic_track_event_callstacks. Can't fail. */
void trak__callstack_slice(trak_importer *imp, uint32_t index, uint32_t slice)
    __attribute__((cold));
/* Parsing: the leaf callsite of callstack `index`, its frames, mappings, callsites and symbols
** interned now (in Perfetto's order when called in parse order). Can't fail. */
uint32_t trak__callstack_callsite(trak_importer *imp, uint32_t index);
/* Frees imp->callstacks (NULL is fine). */
void trak__callstacks_free(trak_importer *imp);

#endif /* TRAK_PROCESSOR_IMPORT_CALLSTACKS_H */
