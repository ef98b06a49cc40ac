/*
** Import benchmark of JSON trace-event traces. Generates a JSON Object Format trace (several
** processes and threads, nested B/E slices, X slices, instants, counters, args on a fifth of
** the events, M names) straight to a file in /tmp, imports it with the public API (the whole
** file fed in 1 MiB chunks, as `trak query` does), prints MB/s, events/s and peak RSS per
** event, and deletes the file.
**
**   json_bench [MEGABYTES] [FILE] [keep]
**   defaults: 500 MB, /tmp/trak_json_bench.json; "keep" leaves the file in place.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_import.h"
#include "gen_json_events.h"
#include "trak/processor.h"

int main(int argc, char **argv) {
  uint64_t mb = argc > 1 ? strtoull(argv[1], NULL, 10) : 500;
  const char *path = argc > 2 ? argv[2] : "/tmp/trak_json_bench.json";
  int keep = argc > 3 && !strcmp(argv[3], "keep");
  double t0 = bench_now_sec();
  uint64_t events = gen_json_events(path, mb * 1000000);
  printf("generated %s: %llu events in %.1f s\n", path, (unsigned long long)events,
         bench_now_sec() - t0);

  trak_processor *p = bench_import_file(path, events, "events");
  static const char *const labels[] = {"slices", "counter values", "args", NULL};
  bench_import_finish(p,
                      "select (select count(*) from slice), (select count(*) from counter), "
                      "(select count(*) from args)",
                      labels, path, keep);
  return 0;
}
