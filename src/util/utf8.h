/*
** UTF-8 validation and repair for text that comes from a trace (JSON strings, protobuf string
** fields): invalid bytes would otherwise be stored into tables and written into protobuf string
** fields or text outputs that other tools then reject. Shared by the processor and pb/.
*/
#ifndef TRAK_UTIL_UTF8_H
#define TRAK_UTIL_UTF8_H

#include <stddef.h>

/* Returns the length of the valid UTF-8 prefix of [s, s + len) (len if all of it is valid).
** Overlong forms, surrogates and code points past U+10FFFF are invalid. */
size_t trak__utf8_valid_prefix(const char *s, size_t len);

/* Returns the length (1 to 4) of the well-formed UTF-8 sequence at s[0] within `len` (> 0)
** bytes, or 0 when it is not one (a stray continuation, an overlong form, a surrogate, past
** U+10FFFF, or cut short). */
size_t trak__utf8_sequence_len(const char *s, size_t len);

/* Writes [s, s + len) to `out` with each maximal invalid subsequence replaced by U+FFFD (EF BF
** BD), as the Unicode standard recommends. `out` must hold 3 * len bytes. Returns the bytes
** written; *bad receives the number of replacements. This function can't fail. */
size_t trak__utf8_repair(const char *s, size_t len, char *out, size_t *bad);

#endif /* TRAK_UTIL_UTF8_H */
