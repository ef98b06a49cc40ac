/*
** An interceptor that exports track events to another format: one JSON object per line
** (Chrome's trace-event fields: name, cat, ph, ts in microseconds, pid, tid, args), written to
** stdout as the program runs. It shows the three kinds of interceptor state:
**   global        the output stream and a lock around it (json_out below);
**   per instance  the session's start time, set in start() and read under the library's lock;
**   per sequence  an interning dictionary (trak_interning) and the sequence's thread ids and
**                 incremental clock, created per writer and freed with it.
**   example_json_interceptor
*/
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trak/trak.h"

TRAK_CATEGORY_DEFINE(cat_app, "app", "Application events");

typedef struct json_out { /* global state */
  FILE *f;
  pthread_mutex_t lock;
} json_out;
static json_out out = {NULL, PTHREAD_MUTEX_INITIALIZER};

typedef struct instance {
  uint64_t start_ns;
} instance;

typedef struct sequence {
  trak_interning *strings;
  uint64_t clock; /* the sequence's incremental clock (clock id 64 in trak's packets) */
  int64_t pid, tid;
} sequence;

static int setup(void *user, const uint8_t *config, size_t len, void **state, trak_error *err) {
  *state = calloc(1, sizeof(instance));
  return *state ? 0 : trak_error_set(err, TRAK_ENOMEM, "out of memory");
}
static void start(void *user, void *state) {
  ((instance *)state)->start_ns = trak_clock_now();
}
static void stop(void *user, void *state) {
  free(state);
}

static void *seq_new(void *user) {
  sequence *s = calloc(1, sizeof *s);
  if (s) s->strings = trak_interning_new();
  return s;
}
static void seq_free(void *user, void *state) {
  sequence *s = state;
  trak_interning_free(s->strings);
  free(s);
}

/* Prints `len` bytes as a JSON string (names here are plain; quotes and backslashes escaped). */
static void json_string(FILE *f, const char *s, size_t len) {
  fputc('"', f);
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '"' || s[i] == '\\') fputc('\\', f);
    fputc(s[i], f);
  }
  fputc('"', f);
}

/* The thread identity a restart packet's thread descriptor gives. */
static void take_thread(sequence *s, const uint8_t *data, size_t len) {
  trak_pb_decoder d, t;
  trak_pb_field f, g;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number != TRAK_PB_TrackDescriptor_thread || trak_pb_decoder_init_nested(&t, &d, &f))
      continue;
    while (trak_pb_decoder_next(&t, &g) == 1) {
      if (g.number == TRAK_PB_ThreadDescriptor_pid) s->pid = (int64_t)g.value;
      if (g.number == TRAK_PB_ThreadDescriptor_tid) s->tid = (int64_t)g.value;
    }
  }
}

/* The incremental clock's value in a restart packet's clock snapshot. */
static void take_clock(sequence *s, const uint8_t *data, size_t len) {
  trak_pb_decoder d, c;
  trak_pb_field f, g;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number != TRAK_PB_ClockSnapshot_clocks || trak_pb_decoder_init_nested(&c, &d, &f))
      continue;
    uint64_t id = 0, ts = 0;
    while (trak_pb_decoder_next(&c, &g) == 1) {
      if (g.number == TRAK_PB_ClockSnapshot_Clock_clock_id) id = g.value;
      if (g.number == TRAK_PB_ClockSnapshot_Clock_timestamp) ts = g.value;
    }
    if (id == 64) s->clock = ts;
  }
}

static void print_event(sequence *s, const uint8_t *data, size_t len, double ts_us) {
  static const char phases[] = {'?', 'B', 'E', 'i', 'C'};
  trak_pb_decoder d, a;
  trak_pb_field f, g;
  const char *name = NULL, *cat = NULL;
  size_t name_len = 0, cat_len = 0;
  uint64_t type = 0;
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number == TRAK_PB_TrackEvent_type) type = f.value;
    if (f.number == TRAK_PB_TrackEvent_name_iid)
      name = trak_interning_get(s->strings, TRAK_PB_InternedData_event_names, f.value, &name_len);
    if (f.number == TRAK_PB_TrackEvent_category_iids)
      cat =
          trak_interning_get(s->strings, TRAK_PB_InternedData_event_categories, f.value, &cat_len);
  }
  FILE *o = out.f;
  fprintf(o, "{\"ph\":\"%c\",\"ts\":%.3f,\"pid\":%" PRId64 ",\"tid\":%" PRId64,
          type < sizeof phases - 1 ? phases[type] : '?', ts_us, s->pid, s->tid);
  if (name) fputs(",\"name\":", o), json_string(o, name, name_len);
  if (cat) fputs(",\"cat\":", o), json_string(o, cat, cat_len);
  int args = 0; /* integer debug arguments, by interned name */
  trak_pb_decoder_init(&d, data, len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number != TRAK_PB_TrackEvent_debug_annotations) continue;
    const char *an = NULL;
    size_t an_len = 0;
    int64_t v = 0;
    trak_pb_decoder_init(&a, f.data, f.len);
    while (trak_pb_decoder_next(&a, &g) == 1) {
      if (g.number == TRAK_PB_DebugAnnotation_name_iid)
        an = trak_interning_get(s->strings, TRAK_PB_InternedData_debug_annotation_names, g.value,
                                &an_len);
      if (g.number == TRAK_PB_DebugAnnotation_int_value) v = (int64_t)g.value;
    }
    if (!an) continue;
    fputs(args++ ? "," : ",\"args\":{", o);
    json_string(o, an, an_len);
    fprintf(o, ":%" PRId64, v);
  }
  fputs(args ? "}}\n" : "}\n", o);
}

static void on_packet(const trak_intercepted_packet *p) {
  sequence *s = p->thread_state;
  if (!s || !s->strings) return;
  /* Clears the dictionary on SEQ_INCREMENTAL_STATE_CLEARED, then adds the packet's entries. */
  trak_interning_update(s->strings, p->data, p->len, p->sequence_flags);
  trak_pb_decoder d;
  trak_pb_field f;
  uint64_t ts = 0, clock_id = 0;
  const uint8_t *event = NULL;
  size_t event_len = 0;
  trak_pb_decoder_init(&d, p->data, p->len);
  while (trak_pb_decoder_next(&d, &f) == 1) {
    if (f.number == TRAK_PB_TracePacket_timestamp) ts = f.value;
    if (f.number == TRAK_PB_TracePacket_timestamp_clock_id) clock_id = f.value;
    if (f.number == TRAK_PB_TracePacket_clock_snapshot) take_clock(s, f.data, f.len);
    if (f.number == TRAK_PB_TracePacket_track_descriptor) take_thread(s, f.data, f.len);
    if (f.number == TRAK_PB_TracePacket_track_event) {
      event = f.data;
      event_len = f.len;
    }
  }
  if (clock_id == 0) ts = s->clock += ts; /* a delta on the sequence's incremental clock */
  if (!event) return;
  instance *inst = trak_interceptor_lock(p);
  double ts_us = ((double)ts - (double)inst->start_ns) / 1e3;
  trak_interceptor_unlock(p);
  pthread_mutex_lock(&out.lock);
  print_event(s, event, event_len, ts_us);
  pthread_mutex_unlock(&out.lock);
}

static void *worker(void *arg) {
  for (int i = 0; i < 2; i++) {
    TRAK_EVENT(cat_app, "job", TRAK_ARG("worker", (int)(intptr_t)arg), TRAK_ARG("round", i));
    TRAK_EVENT_INSTANT(cat_app, "tick");
  }
  return NULL;
}

int main(void) {
  out.f = stdout;
  trak_interceptor_desc d = {"json", &out, setup, start, stop, seq_new, seq_free, on_packet};
  trak_error err;
  if (trak_interceptor_register(&d, &err) != 0) {
    fprintf(stderr, "json_interceptor: %s\n", err.message);
    return 1;
  }
  trak_session *session;
  if (trak_session_new_from_text("data_sources { config { name: \"track_event\""
                                 " interceptor_config { name: \"json\" } } }",
                                 &session, &err) ||
      trak_session_start(session, &err)) {
    fprintf(stderr, "json_interceptor: %s\n", err.message);
    return 1;
  }
  pthread_t th[2];
  for (intptr_t i = 0; i < 2; i++)
    pthread_create(&th[i], NULL, worker, (void *)i);
  for (int i = 0; i < 2; i++)
    pthread_join(th[i], NULL);
  trak_session_free(session);
  return 0;
}
