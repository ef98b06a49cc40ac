/* Text format parser: placeholder until the implementation lands. */
#include "trak/pbtxt.h"
int trak_pbtxt_parse(const char *message_name, const char *text, size_t len, trak_pb_buf *out,
                     trak_error *err) {
  return trak_error_set(err, TRAK_EUNSUPPORTED, "text format parsing is not implemented yet");
}
