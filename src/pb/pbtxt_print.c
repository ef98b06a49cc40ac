/* Text format printer: placeholder until the implementation lands. */
#include "trak/pbtxt.h"
int trak_pbtxt_print(const char *message_name, const void *data, size_t len, trak_pb_buf *out,
                     trak_error *err) {
  return trak_error_set(err, TRAK_EUNSUPPORTED, "text format printing is not implemented yet");
}
