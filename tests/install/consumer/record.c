/*
** A program that depends on an installed (or embedded) trak: records one thread's worth of
** track events with the SDK and writes the trace to the file named by its argument. It uses
** the generated field numbers too (trak/protos.h), which must come with the public headers.
*/
#include <stdio.h>

#include "trak/protos.h"
#include "trak/trak.h"

TRAK_CATEGORY_DEFINE(cat_consumer, "consumer", "The install test's events");

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: record OUT.pb\n");
    return 2;
  }
  trak_session_config cfg = {0};
  trak_session *s;
  trak_error err;
  if (trak_session_new(&cfg, &s, &err) || trak_session_start(s, &err)) {
    fprintf(stderr, "record: %s\n", err.message);
    return 1;
  }
  for (int i = 0; i < 10; i++) {
    TRAK_EVENT(cat_consumer, "Step", TRAK_ARG("i", i));
  }
  int rc = trak_session_stop(s, &err);
  if (!rc) rc = trak_session_write_file(s, argv[1], &err);
  trak_session_free(s);
  if (rc) {
    fprintf(stderr, "record: %s\n", err.message);
    return 1;
  }
  printf("recorded %s (TracePacket.track_event is field %d)\n", argv[1],
         TRAK_PB_TracePacket_track_event);
  return 0;
}
