/*
** Error codes and the error value every fallible trak function can fill.
**
** Functions that can fail return int: 0 on success or a negative TRAK_E* code. Most also take
** an optional `trak_error *` (NULL allowed) that receives a one-line message with the context
** a user needs: which file, which byte offset or line:column, what was expected.
*/
#ifndef TRAK_ERROR_H
#define TRAK_ERROR_H

#include <stdarg.h>

#include "trak/export.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  TRAK_OK = 0,
  TRAK_EINVAL = -1,      /* bad argument or bad usage */
  TRAK_ENOMEM = -2,      /* allocation failed */
  TRAK_EIO = -3,         /* read or write failed; the message names the file */
  TRAK_EFORMAT = -4,     /* malformed input; the message names the offset or line */
  TRAK_ENOTFOUND = -5,   /* no such name, file, field or object */
  TRAK_ESTATE = -6,      /* call not valid in the object's current state */
  TRAK_ENOSPC = -7,      /* a fixed-size buffer or limit is full */
  TRAK_EUNSUPPORTED = -8 /* valid input using a feature trak does not implement */
};

#define TRAK_ERROR_MESSAGE_MAX 512

typedef struct trak_error {
  int code;                             /* one of TRAK_E*, 0 when no error */
  char message[TRAK_ERROR_MESSAGE_MAX]; /* NUL-terminated, no trailing newline */
} trak_error;

/* Returns a short static description of a TRAK_E* code ("malformed input", ...). */
TRAK_API const char *trak_strerror(int code);

/* Fills `err` (if not NULL) with `code` and a printf-style message; returns `code`, so a
** caller can write `return trak_error_set(err, TRAK_EINVAL, "...")`. */
TRAK_API int trak_error_set(trak_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
TRAK_API int trak_error_setv(trak_error *err, int code, const char *fmt, va_list ap);

/* Prepends "prefix: " to an existing message (for adding a file name at an outer layer). */
TRAK_API void trak_error_prefix(trak_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif
#endif /* TRAK_ERROR_H */
