/*
** The protobuf importer's private interface (this folder only, and its two entry points for
** read/ and processor.c): TracePacket dispatch (packet.c), TrackEvent (track_event.c with
** typed_args.c and legacy_event.c, whose own header is track_event.h), interned data, the
** tokenizing half of callstacks and Chromium's process stats.
*/
#ifndef TRAK_PROCESSOR_IMPORT_PROTO_PROTO_H
#define TRAK_PROCESSOR_IMPORT_PROTO_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "processor/import/importer.h"

/* Tokenizes one serialized TracePacket (packet.c). Never fails: problems are reported. */
void trak__packet_tokenize(trak_importer *imp, const uint8_t *data, size_t len);
/* Converts and imports the packets kept because their clock was not known when they were read
** (packet.c), now that the whole trace is; those still unknown are counted. Called once, after
** the last packet and before the parse phase. */
void trak__packets_retry_deferred(trak_importer *imp);
/* Tokenizes a TrackEvent of a packet (track_event.c). */
void trak__track_event_tokenize(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                                size_t len);

/* Applies an InternedData message to the sequence's interning maps (interned_data.c). */
void trak__interned_data_add(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                             size_t len);

/* The tokenizing half of TrackEvent callstacks (callstacks.c): the InternedData messages
** mappings, frames and callstacks (field `field`) of a sequence; an event's callstack (inline
** `inline_stack`, else interned `iid`) and callstack_weight, resolved to frames now (interned
** data changes) and kept under the event's packet index. */
void trak__callstack_interned(trak_importer *imp, trak_sequence *seq, uint32_t field,
                              const uint8_t *data, size_t len) __attribute__((cold));
void trak__callstack_event(trak_importer *imp, trak_sequence *seq, trak_ev *ev, uint32_t upid,
                           const trak_span *inline_stack, uint64_t iid, int has_weight,
                           double weight) __attribute__((cold));

/* ProcessStats' Chrome figures (proto/chrome_process_stats.c): chrome_private_footprint_kb and
** chrome_peak_resident_set_kb become bytes on the process's counter tracks
** "chrome.private_footprint_kb" / "chrome.peak_resident_set_kb" (type chrome_process_stats),
** is_peak_rss_resettable the process arg of that name. */
void trak__chrome_process_stats(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                                size_t len);

/* Decodes a SourceLocation (typed_args.c); returns the decoder's result (<0: malformed). */
int trak__source_loc_decode(trak_importer *imp, const uint8_t *data, size_t len,
                            trak_source_loc *out, uint64_t *iid);

#endif /* TRAK_PROCESSOR_IMPORT_PROTO_PROTO_H */
