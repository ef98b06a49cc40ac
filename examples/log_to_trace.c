/*
** Example: converting a small application log into a Perfetto trace with the synthetic trace
** writer (docs/writer.md walks through it). Each log line is
**     <milliseconds> <thread> start|stop|mark <name...>    or    <milliseconds> queue <depth>
** and becomes a slice begin / end, an instant, or a counter value.
**   usage: example_log_to_trace OUT.pb [LOG]   (without LOG, a built-in sample is used)
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trak/writer.h"

static const char SAMPLE[] = "0.000 main start startup\n"
                             "0.120 main start load config\n"
                             "0.450 main stop\n"
                             "0.460 io start read file\n"
                             "0.500 queue 3\n"
                             "0.900 main mark config ready\n"
                             "1.200 io stop\n"
                             "1.250 queue 0\n"
                             "1.300 main stop\n";

/* The thread track of a log thread name, declared on first sight (tids 1, 2, ...). */
static trak_writer_track thread_track(trak_writer *w, trak_writer_track process, const char *name) {
  static char names[16][32];
  static trak_writer_track tracks[16];
  static int n;
  for (int i = 0; i < n; i++)
    if (!strcmp(names[i], name)) return tracks[i];
  if (n == 16) return 0;
  snprintf(names[n], sizeof names[n], "%s", name);
  trak_writer_track_info info = {.parent = process};
  if (trak_writer_add_thread(w, 42, n + 1, name, &info, &tracks[n])) return 0;
  return tracks[n++];
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s OUT.pb [LOG]\n", argv[0]);
    return 2;
  }
  FILE *log = argc > 2 ? fopen(argv[2], "r") : fmemopen((void *)SAMPLE, sizeof SAMPLE - 1, "r");
  if (!log) {
    perror(argc > 2 ? argv[2] : "sample");
    return 1;
  }

  trak_writer *w;
  trak_error err = {0};
  if (trak_writer_open_file(&w, argv[1], &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  trak_writer_track process, queue;
  trak_writer_add_process(w, 42, "my app", NULL, &process);
  trak_writer_track_info qi = {.parent = process, .name = "queue depth"};
  trak_writer_add_counter_track(w, &qi, TRAK_WRITER_UNIT_COUNT, NULL, &queue);

  char line[256];
  int lineno = 0, bad = 0;
  while (fgets(line, sizeof line, log)) {
    lineno++;
    double ms;
    char who[32], what[16], name[128] = "";
    int n = sscanf(line, "%lf %31s %15s %127[^\n]", &ms, who, what, name);
    uint64_t ts = (uint64_t)(ms * 1e6 + 0.5); /* the writer takes nanoseconds */
    int rc;
    if (n >= 3 && !strcmp(who, "queue")) {
      rc = trak_writer_counter(w, queue, ts, atoll(what));
    } else if (n >= 3) {
      trak_writer_track t = thread_track(w, process, who);
      if (!strcmp(what, "start"))
        rc = trak_writer_begin(w, t, ts, name);
      else if (!strcmp(what, "stop"))
        rc = trak_writer_end(w, t, ts);
      else
        rc = trak_writer_instant(w, t, ts, name);
    } else {
      continue; /* not a log line */
    }
    /* A refused call wrote nothing and says why; the trace stays valid. */
    if (rc) {
      fprintf(stderr, "line %d: %s\n", lineno, trak_writer_last_error(w)->message);
      bad++;
    }
  }
  fclose(log);

  trak_writer_totals totals;
  if (trak_writer_close(w, &totals, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  printf("%s: %llu events, %llu bytes, %d bad lines\n", argv[1], (unsigned long long)totals.events,
         (unsigned long long)totals.bytes, bad);
  return bad ? 1 : 0;
}
