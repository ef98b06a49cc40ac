/*
** The parse phase's merge (event_merge.c): the sequences' event records in the order they are
** parsed (timestamp, then packet, then sequence; JSON ties as Perfetto's sorter orders them),
** in batches, made on a thread of its own when the import has two (util/batch_thread.h) while
** the importer's thread parses the batches before. The merge reads only the records and frees
** their blocks as it goes; parsing reads no state the merge changes, so the tables are those
** of one thread.
*/
#ifndef TRAK_PROCESSOR_IMPORT_EVENT_MERGE_H
#define TRAK_PROCESSOR_IMPORT_EVENT_MERGE_H

#include <stddef.h>

#include "processor/import/importer.h"

/* A record and the sequence it is from. */
typedef struct trak_ev_rec {
  trak_ev ev;
  const trak_sequence *seq;
} trak_ev_rec;

typedef struct trak_ev_merge trak_ev_merge;

/* Readies the sequences for the merge: unpacks those that must be merged unpacked (out of
** order, cropped, or with records to change), resolves the deferred records' args
** (trak__passthrough_resolve) and sorts the unpacked sequences out of order (ties: see
** trak__ev_tie_key when imp->json_tie_order), each step on both threads when imp->prefault
** (the import has two) and the records are many. Can't fail (out of memory aborts). */
void trak__ev_merge_prepare(trak_importer *imp);
/* Crops the unpacked sequences (sorted by trak__ev_merge_prepare) as they need and starts the merge of every sequence's
** records, on a second thread when trak__import_threads gives two for the records' size (that
** thread also makes the slice columns' pages present ahead of the parse, tables/prefault.h,
** when imp->prefault and the table is large). The sequences' records belong to the merge until
** it is closed. Can't fail (out of memory aborts; a thread that does not start leaves the merge
** on the caller's thread). */
trak_ev_merge *trak__ev_merge_open(trak_importer *imp);
/* The next batch of records in merge order: sets *recs (valid until the next call) and returns
** how many, 0 when every record has been given. `slices`: the slice table's rows now (how far
** the parse is, for the page-ahead). */
size_t trak__ev_merge_next(trak_ev_merge *m, size_t slices, const trak_ev_rec **recs);
/* Ends the merge (after trak__ev_merge_next returned 0) and frees it. */
void trak__ev_merge_close(trak_ev_merge *m);

#endif /* TRAK_PROCESSOR_IMPORT_EVENT_MERGE_H */
