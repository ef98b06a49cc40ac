/*
** libFuzzer target for trak_interning, the dictionaries interceptors keep per sequence: the
** first byte picks the sequence flags, the rest is a TracePacket whose interned_data is
** recorded; every lookup of the standard kinds must then answer or say "unknown".
*/
#include <stdint.h>
#include <stdlib.h>

#include "trak/trak.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const uint32_t kinds[] = {
      TRAK_PB_InternedData_event_categories, TRAK_PB_InternedData_event_names,
      TRAK_PB_InternedData_debug_annotation_names,
      TRAK_PB_InternedData_debug_annotation_string_values, TRAK_PB_InternedData_source_locations};
  if (size < 1) return 0;
  trak_interning *in = trak_interning_new();
  if (!in) return 0;
  trak_interning_update(in, data + 1, size - 1, data[0] & 3);
  trak_interning_update(in, data + 1, size - 1, 0); /* entries replaced in place */
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    for (uint64_t iid = 0; iid < 64; iid++) {
      size_t len = 0;
      const char *s = trak_interning_get(in, kinds[k], iid, &len);
      if (s && s[len] != 0) abort(); /* entries are NUL-terminated copies */
    }
  }
  trak_interning_free(in);
  return 0;
}
