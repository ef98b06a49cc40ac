// sdk_bench's scenarios through the Perfetto-compatible header (<trak/perfetto.h>): the same
// loops as run_slice, run_arg and run_counter of sdk_bench.c, written with Perfetto's macros, so
// the two paths' costs print side by side.
#include <trak/perfetto.h>

PERFETTO_DEFINE_CATEGORIES(perfetto::Category("bench.compat").SetDescription("compat path"));
PERFETTO_TRACK_EVENT_STATIC_STORAGE();

enum { BATCH = 2000 };

extern "C" void run_slice_compat(void) {
  for (int i = 0; i < BATCH; i++) {
    TRACE_EVENT("bench.compat", "slice");
    __asm__ volatile("" ::: "memory");
  }
}

extern "C" void run_arg_compat(void) {
  for (int i = 0; i < BATCH; i++) {
    TRACE_EVENT("bench.compat", "slice_arg", "value", i);
    __asm__ volatile("" ::: "memory");
  }
}

extern "C" void run_counter_compat(void) {
  for (int i = 0; i < BATCH; i++)
    TRACE_COUNTER("bench.compat", "bench counter", i);
}
