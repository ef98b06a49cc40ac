/*
** Reading trace files whole: gzip detection and decompression (zlib), and telling binary
** protobuf, protobuf text format and JSON traces apart by their content.
*/
#ifndef TRAK_PROCESSOR_TRACE_FILE_H
#define TRAK_PROCESSOR_TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "processor/util/inflate.h"
#include "trak/error.h"

typedef enum trak_trace_format {
  TRAK_FORMAT_UNKNOWN = 0,
  TRAK_FORMAT_PROTO,  /* binary perfetto.protos.Trace */
  TRAK_FORMAT_PBTXT,  /* text format of perfetto.protos.Trace */
  TRAK_FORMAT_JSON    /* legacy JSON trace-event format */
} trak_trace_format;

/* Reads `path` ("-" for stdin) into a malloc'ed buffer the caller frees; gzip input (by its
** magic bytes, not its name) is decompressed. On error returns TRAK_EIO / TRAK_EFORMAT /
** TRAK_ENOMEM with a message naming the file. */
int trak__read_trace_file(const char *path, uint8_t **data, size_t *len, trak_error *err);

/* Guesses the format of (decompressed) trace bytes. An empty buffer is an empty binary trace. */
trak_trace_format trak__detect_format(const uint8_t *data, size_t len);

/* The format an output file name asks for (.pb .pftrace .perfetto-trace -> PROTO, .pbtxt
** .textproto .txt -> PBTXT, .json -> JSON), or UNKNOWN. */
trak_trace_format trak__format_from_name(const char *path);
const char *trak__format_name(trak_trace_format format);

/* Reads any trace file trak can convert (binary or text, gzip or not) as binary
** perfetto.protos.Trace bytes (malloc'ed, caller frees). *format receives the input format.
** Errors name the file and the byte or line:column. */
int trak__load_trace_binary(const char *path, uint8_t **data, size_t *len,
                            trak_trace_format *format, trak_error *err);
#endif /* TRAK_PROCESSOR_TRACE_FILE_H */
