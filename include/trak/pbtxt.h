/*
** The protobuf text format, driven by the schema generated from protos/.
**
** trak_pbtxt_parse() turns text such as `packet { track_descriptor { uuid: 1 } }` into the
** binary encoding of any message in the schema (Trace, TraceConfig, TracePacket, ...).
** trak_pbtxt_print() does the reverse; fields the schema does not know are printed by number,
** so nothing is lost. Text -> binary -> text -> binary is byte-identical.
**
** Accepted syntax: `name: value`, `name { ... }` and `name: { ... }` (also `< ... >`), `#`
** comments, enum values by name or number, strings in double or single quotes with C escapes
** (adjacent strings concatenate), `name: [a, b]` lists, decimal / hex / octal integers with a
** sign, floats with exponents and inf/nan, true/false (also t/f, True/False), and `,` or `;`
** between fields. Unknown fields may be written by number (`1234: 5`, `1234: "bytes"`,
** `1234 { ... }`). Errors read "line L, column C: what went wrong (near 'token')".
*/
#ifndef TRAK_PBTXT_H
#define TRAK_PBTXT_H

#include <stddef.h>

#include "trak/error.h"
#include "trak/export.h"
#include "trak/pb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses `len` bytes of text as message `message_name` ("Trace", "TraceConfig" or a full
** name like "perfetto.protos.Trace") and appends its binary encoding to `out`. Returns 0, or
** TRAK_ENOTFOUND for an unknown message name, TRAK_EFORMAT with line and column for bad text,
** TRAK_ENOMEM / TRAK_ENOSPC when `out` cannot grow. On error `out` holds a partial encoding. */
TRAK_API int trak_pbtxt_parse(const char *message_name, const char *text, size_t len,
                              trak_pb_buf *out, trak_error *err);

/* trak_pbtxt_parse() for a piece of a larger text that starts at 1-based `line`:`column` of
** it: errors name positions in the larger text. Used to parse a big trace field by field. */
TRAK_API int trak_pbtxt_parse_at(const char *message_name, const char *text, size_t len, int line,
                                 int column, trak_pb_buf *out, trak_error *err);

/* Told about one name trak_pbtxt_parse_lenient() skipped, at 1-based `line`:`column` of the
** text: `what` reads "TrackEvent has no field 'foo'" or "perfetto.protos.TrackEvent.Type has no
** value 'TYPE_NEW' (field 'type')". */
typedef void trak_pbtxt_skip_fn(void *user, int line, int column, const char *what);

/* trak_pbtxt_parse_at() that skips what the schema lacks instead of failing: a field name
** unknown in its message is skipped with its whole value (scalar, string, identifier, message,
** list), an enum value name unknown to its enum is skipped with its field (one list element),
** and each is passed to `skip` (not NULL). Nothing of a skipped field is written. Other errors
** are those of trak_pbtxt_parse_at(). */
TRAK_API int trak_pbtxt_parse_lenient(const char *message_name, const char *text, size_t len,
                                      int line, int column, trak_pbtxt_skip_fn *skip, void *user,
                                      trak_pb_buf *out, trak_error *err);

/* Appends the text format of the binary message `data` to `out` (used as a byte buffer; it is
** not NUL-terminated). Returns 0, TRAK_ENOTFOUND for an unknown message name, or TRAK_EFORMAT
** (with the byte offset) when the binary is malformed: everything before the bad byte has
** been printed. */
TRAK_API int trak_pbtxt_print(const char *message_name, const void *data, size_t len,
                              trak_pb_buf *out, trak_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TRAK_PBTXT_H */
