/*
** A process that traces in system mode: it connects to `trak daemon` (socket from
** $TRAK_SOCKET or the default path) and emits a few events a millisecond for the given
** number of seconds, in categories "app" and "net". `trak record` run meanwhile captures
** them beside those of every other connected process (with TRAK_BACKEND=system in the
** environment it leaves connecting to the SDK):
**   trak daemon &  example_system_producer server 5 &  trak record -o out.pb --time 3s
*/
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "trak/trak.h"

TRAK_CATEGORY_DEFINE(cat_app, "app", "Application work");
TRAK_CATEGORY_DEFINE(cat_net, "net", "Network requests");

int main(int argc, char **argv) {
  const char *name = argc > 1 ? argv[1] : "producer";
  double seconds = argc > 2 ? atof(argv[2]) : 5;
  trak_process_set_name(name);
  if (!getenv("TRAK_BACKEND")) trak_system_connect(NULL); /* else TRAK_BACKEND=system does it */
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0;; i++) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    if ((double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 >= seconds) break;
    {
      TRAK_EVENT(cat_app, "handle", TRAK_ARG("i", i));
      TRAK_EVENT_INSTANT(cat_net, "packet", TRAK_ARG("bytes", (int)(i % 1500)));
    }
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  trak_system_disconnect(); /* finishes any session's data first */
  return 0;
}
