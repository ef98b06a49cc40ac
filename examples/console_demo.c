/*
** The console interceptor at work: a session whose track events go to the built-in "console"
** interceptor instead of a trace buffer, so every event prints as one line on stdout as it
** happens (colored per thread on a terminal). A "render" thread draws two frames with nested
** slices and arguments, a "loader" thread reports a counter and an instant.
**   example_console_demo
*/
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "trak/trak.h"

TRAK_CATEGORY_DEFINE(cat_render, "render", "Frame rendering");
TRAK_CATEGORY_DEFINE(cat_io, "io", "Asset loading");

static trak_track bytes_track;

static void nap_us(long us) {
  struct timespec t = {0, us * 1000};
  nanosleep(&t, NULL);
}

static void *loader(void *arg) {
  trak_thread_set_name("loader");
  for (int i = 1; i <= 3; i++) {
    TRAK_EVENT(cat_io, "LoadTexture", TRAK_ARG("file", i == 2 ? "sky.png" : "wall.png"));
    nap_us(300);
    TRAK_COUNTER(cat_io, bytes_track, 65536 * i);
  }
  TRAK_EVENT_INSTANT(cat_io, "AllLoaded");
  return NULL;
}

int main(void) {
  trak_process_set_name("console_demo");
  trak_thread_set_name("render");
  bytes_track = trak_track_counter("bytes loaded", TRAK_UNIT_SIZE_BYTES, 0);

  trak_console_options opt;
  trak_console_options_init(&opt);
  opt.fd = 1; /* stdout; colors stay automatic (on for a terminal) */
  trak_console_set_options(&opt);

  trak_session_config cfg = {0};
  cfg.track_event_interceptor = "console";
  trak_session *session;
  trak_error err;
  if (trak_session_new(&cfg, &session, &err) || trak_session_start(session, &err)) {
    fprintf(stderr, "console_demo: %s\n", err.message);
    return 1;
  }
  pthread_t th;
  pthread_create(&th, NULL, loader, NULL);
  for (int frame = 1; frame <= 2; frame++) {
    TRAK_EVENT(cat_render, "DrawFrame", TRAK_ARG("frame", frame));
    {
      TRAK_EVENT(cat_render, "Layout", TRAK_ARG("nodes", 120 * frame));
      nap_us(200);
    }
    {
      TRAK_EVENT(cat_render, "Paint", TRAK_ARG("scale", 1.5), TRAK_ARG("vsync", frame == 2));
      nap_us(400);
    }
  }
  pthread_join(th, NULL);
  trak_session_free(session);
  return 0;
}
