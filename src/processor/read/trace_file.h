/*
** Telling binary protobuf, protobuf text format and JSON traces apart by their content, and
** streaming a trace's packets out without importing them (for `dump` and `convert`).
*/
#ifndef TRAK_PROCESSOR_TRACE_FILE_H
#define TRAK_PROCESSOR_TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "processor/util/inflate.h"
#include "trak/error.h"

typedef enum trak_trace_format {
  TRAK_FORMAT_UNKNOWN = 0,
  TRAK_FORMAT_PROTO,   /* binary perfetto.protos.Trace */
  TRAK_FORMAT_PBTXT,   /* text format of perfetto.protos.Trace */
  TRAK_FORMAT_JSON,    /* legacy JSON trace-event format */
  TRAK_FORMAT_SYSTRACE /* systrace text: tracefs' trace file, trace-cmd report, HTML systrace */
} trak_trace_format;

/* 1 for the formats trak__read_packets does not stream (JSON, systrace text): they are imported
** whole, and commands that copy packets (dump, convert) export what was imported instead. */
static inline int trak__format_imported(trak_trace_format format) {
  return format == TRAK_FORMAT_JSON || format == TRAK_FORMAT_SYSTRACE;
}

/* Guesses the format of (decompressed) trace bytes. An empty buffer is an empty binary trace.
** Systrace text is recognised by Perfetto's sniff (util/systrace_text.h) before the other
** formats, except that text starting with a space is systrace only when its first non-blank
** line reads as an event line (protobuf text may be indented too). */
trak_trace_format trak__detect_format(const uint8_t *data, size_t len);

/* The format an output file name asks for (.pb .pftrace .perfetto-trace -> PROTO, .pbtxt
** .textproto .txt -> PBTXT, .json -> JSON), or UNKNOWN. */
trak_trace_format trak__format_from_name(const char *path);
const char *trak__format_name(trak_trace_format format);

/* Receives one whole top-level field of a Trace (tag and length included), in order. */
typedef void (*trak__field_sink)(void *user, const uint8_t *field, size_t len);

struct trak_processor_options;
/* Reads the binary or text trace `path` ("-" for stdin; gzip or not) in bounded memory and
** hands each top-level field, as binary, to `sink`, without importing anything: `dump` and
** `convert` stream through here. The fields are checked as the importer checks them (same
** limits, util/limits.h): a packet that does not decode or passes a limit is reported through
** opts->diag as a stat and not handed on. *format receives the input's format; for a JSON or
** systrace text trace nothing is read and the caller imports it instead. *bytes receives the number of trace bytes
** (uncompressed) read. Returns 0, or TRAK_EIO / TRAK_ENOMEM naming the file. */
int trak__read_packets(const char *path, const struct trak_processor_options *opts,
                       trak__field_sink sink, void *user, trak_trace_format *format,
                       uint64_t *bytes, trak_error *err);
#endif /* TRAK_PROCESSOR_TRACE_FILE_H */
