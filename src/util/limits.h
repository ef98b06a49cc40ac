/*
** The one set of input limits every trace reader and writer in trak shares (the processor's
** readers and importers, `dump`, `convert`, the text format parser and printer). A hostile or
** broken trace cannot make any of them use unbounded memory, time or stack: past a limit the
** reader skips that packet, event or value, counts it in a stats row that names the limit, and
** goes on with the rest of the trace. docs/limits.md lists them with the stat each one feeds.
*/
#ifndef TRAK_UTIL_LIMITS_H
#define TRAK_UTIL_LIMITS_H

/* One binary TracePacket (a length-delimited field of Trace). Perfetto's own cap. */
#define TRAK_LIMIT_PACKET_BYTES (256u << 20)

/* Messages nested inside one another, when printed or parsed as text. */
#define TRAK_LIMIT_MESSAGE_DEPTH 100

/* compressed_packets inside compressed_packets: SDKs and traced never nest them at all. */
#define TRAK_LIMIT_COMPRESSED_DEPTH 4

/* Bytes one compressed_packets field may inflate to, nested levels included: they are held in
** memory while their packets are tokenized. traced compresses about 1 MB at a time. */
#define TRAK_LIMIT_INFLATED_PACKET_BYTES (64u << 20)

/* All compressed_packets of a trace together may inflate to at most this many times the trace's
** bytes plus one packet's worth: a decompression bomb then costs bounded time. */
#define TRAK_LIMIT_INFLATE_RATIO 100
/* and to at most this many bytes in all, whatever the ratio. */
#define TRAK_LIMIT_INFLATED_TRACE_BYTES (16ull << 30)

/* The importer's per-sequence state and event records together may take at most this many
** times the trace's bytes (after gzip, compressed_packets inflated) plus TRAK_LIMIT_RECORD_SLACK:
** a record is 32 bytes and the smallest event that makes one takes a few bytes, so no trace
** reaches it unless its sequences cost memory out of proportion to their events. */
#define TRAK_LIMIT_RECORD_RATIO 32
#define TRAK_LIMIT_RECORD_SLACK (64ull << 20)

/* Ancestors a track descriptor's parent_uuid chain may have: Perfetto walks at most 100 steps
** (kMaxAncestors) and needs one of them to reach the root, so 98. A track with more, or whose
** chain loops, is dropped with its events. */
#define TRAK_LIMIT_TRACK_ANCESTORS 98

/* One top-level field of a text-format trace (a `packet { ... }`), in text bytes. */
#define TRAK_LIMIT_TEXT_PACKET_BYTES (64u << 20)

/* One JSON trace event (an element of traceEvents), in bytes of JSON text. */
#define TRAK_LIMIT_JSON_EVENT_BYTES (64u << 20)

/* JSON objects and arrays nested inside one another in one trace event (or one top-level value):
** the tokenizer validates them recursively. */
#define TRAK_LIMIT_JSON_DEPTH 64

/* Debug annotations (dicts and arrays) nested inside one another. */
#define TRAK_LIMIT_ANNOTATION_DEPTH 32

/* One arg key, e.g. "debug.a.b[3].c", in bytes; a longer key is not stored. */
#define TRAK_LIMIT_KEY_BYTES 1024

/* Packets whose timestamp's clock no snapshot has related to the trace clock yet are kept, as
** copies, to be converted when the whole trace has been read (a later snapshot may relate it);
** past this many bytes of them, further ones are dropped at once (counted). */
#define TRAK_LIMIT_DEFERRED_BYTES (256u << 20)

#endif /* TRAK_UTIL_LIMITS_H */
