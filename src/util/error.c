/*
** trak_error: filling, prefixing and naming the error values that fallible functions return.
*/
#include <stdio.h>
#include <string.h>

#include "trak/error.h"

const char *trak_strerror(int code) {
  switch (code) {
  case TRAK_OK:
    return "success";
  case TRAK_EINVAL:
    return "invalid argument";
  case TRAK_ENOMEM:
    return "out of memory";
  case TRAK_EIO:
    return "input/output error";
  case TRAK_EFORMAT:
    return "malformed input";
  case TRAK_ENOTFOUND:
    return "not found";
  case TRAK_ESTATE:
    return "invalid state";
  case TRAK_ENOSPC:
    return "no space left";
  case TRAK_EUNSUPPORTED:
    return "unsupported";
  default:
    return "unknown error";
  }
}

int trak_error_setv(trak_error *err, int code, const char *fmt, va_list ap) {
  if (err) {
    err->code = code;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
  }
  return code;
}

int trak_error_set(trak_error *err, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  trak_error_setv(err, code, fmt, ap);
  va_end(ap);
  return code;
}

void trak_error_prefix(trak_error *err, const char *fmt, ...) {
  if (!err) return;
  char joined[2 * TRAK_ERROR_MESSAGE_MAX];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(joined, TRAK_ERROR_MESSAGE_MAX, fmt, ap);
  va_end(ap);
  if (n < 0) n = 0;
  if (n >= TRAK_ERROR_MESSAGE_MAX) n = TRAK_ERROR_MESSAGE_MAX - 1;
  memcpy(joined + n, ": ", 2);
  memcpy(joined + n + 2, err->message, sizeof err->message);
  joined[sizeof joined - 1] = 0;
  memcpy(err->message, joined, sizeof err->message - 1);
  err->message[sizeof err->message - 1] = 0;
}
