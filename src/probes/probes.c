/*
** This file holds `trak probes`' data sources, registered under Perfetto's names in a process
** connected to `trak daemon`: linux.ftrace (a thread per instance drains the kernel buffers
** every drain_period_ms and on each flush; one instance records at a time, a second one gets
** an FtraceStats saying why it has nothing), linux.process_stats (a ProcessTree of /proc when it
** starts) and linux.system_info (SystemInfo and CpuInfo when it starts).
*/
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probes/probes.h"
#include "system/system.h"
#include "trak/data_source.h"
#include "trak/protos.h"

static trak_data_source *ds_ftrace, *ds_process, *ds_sysinfo;
static pthread_mutex_t owner_lock = PTHREAD_MUTEX_INITIALIZER;
static int ftrace_owned; /* an instance holds tracefs */

/* ---- room in the shared buffer ---- */

/* A writer that waits for room in the shared buffer before each packet rather than lose it,
** as Perfetto's traced_probes stalls: ftrace's drains may fill the buffer while the daemon is
** slow to take chunks (a loaded machine). Waits up to ROOM_WAIT_MS in all per writer, then
** writes anyway (a packet lost then is counted); not at all once the session stops. */
#define ROOM_WAIT_MS 10000
typedef struct room_writer {
  trak_ds_ctx *ctx;
  int waited_ms;
} room_writer;

/* The next packet of `w`'s context once `want` chunks are free (see room_writer). */
static trak_pb_buf *packet_with_room(room_writer *w, uint32_t want) {
  uint32_t total;
  while (w->waited_ms < ROOM_WAIT_MS && trak__ds_free_chunks(w->ctx, &total) < want && total) {
    nanosleep(&(struct timespec){0, 1000000}, NULL);
    w->waited_ms++;
  }
  return trak_ds_new_packet(w->ctx);
}

/* The process tree's packets: each may fill a chunk, and one more is kept for the stats. */
static trak_pb_buf *next_tree_packet(void *user) {
  return packet_with_room(user, 2);
}

/* ---- linux.ftrace ---- */

typedef struct ftrace_inst {
  uint32_t instance;
  trak__ftrace_opts opts;
  uint32_t drain_ms;
  trak__ftrace_reader r;
  int opened, started, owner;
  char refusal[512]; /* why this instance records nothing ("" when it records) */
  pthread_t thread;
  int has_thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int stop;
  uint64_t flush_req, flush_done;
  int wrote_start; /* the START_OF_TRACE stats (or the refusal) is in the trace */
  int end_stats;   /* this drain answers a flush: write END_OF_TRACE stats */
  int ran;         /* the trace callback ran for this instance */
} ftrace_inst;

/* The FtraceConfig fields trak probes acts on, from a serialized DataSourceConfig. */
static void parse_ftrace_config(ftrace_inst *in, const uint8_t *cfg, size_t len) {
  trak_pb_decoder d, f;
  trak_pb_field x, y;
  trak_pb_decoder_init(&d, cfg, len);
  while (trak_pb_decoder_next(&d, &x) == 1) {
    if (x.number != TRAK_PB_DataSourceConfig_ftrace_config ||
        trak_pb_decoder_init_nested(&f, &d, &x))
      continue;
    while (trak_pb_decoder_next(&f, &y) == 1) {
      switch (y.number) {
      case TRAK_PB_FtraceConfig_ftrace_events:
        if (y.wire_type == TRAK_PB_WIRE_LEN) trak__names_add(&in->opts.events, y.data, y.len);
        break;
      case TRAK_PB_FtraceConfig_buffer_size_kb:
        in->opts.buffer_kb = (uint32_t)y.value;
        break;
      case TRAK_PB_FtraceConfig_drain_period_ms:
        in->drain_ms = (uint32_t)y.value;
        break;
      case TRAK_PB_FtraceConfig_disable_generic_events:
        in->opts.no_generic = y.value != 0;
        break;
      case TRAK_PB_FtraceConfig_use_monotonic_raw_clock:
        in->opts.mono_raw = y.value != 0;
        break;
      case TRAK_PB_FtraceConfig_compact_sched: {
        trak_pb_decoder c;
        trak_pb_field z;
        if (trak_pb_decoder_init_nested(&c, &f, &y)) break;
        while (trak_pb_decoder_next(&c, &z) == 1)
          if (z.number == TRAK_PB_FtraceConfig_CompactSchedConfig_enabled)
            in->opts.compact_sched = z.value != 0;
        break;
      }
      default:
        break;
      }
    }
  }
}

static int ftrace_setup(void *user, uint32_t instance, const uint8_t *config, size_t len,
                        void **state) {
  (void)user;
  ftrace_inst *in = calloc(1, sizeof *in);
  if (!in) return -1;
  in->instance = instance;
  pthread_mutex_init(&in->mu, NULL);
  pthread_cond_init(&in->cv, NULL);
  in->opts.compact_sched = 1; /* Perfetto's default since v42 when the config says nothing */
  parse_ftrace_config(in, config, len);
  if (!in->drain_ms) in->drain_ms = 100;
  if (in->drain_ms < 10) in->drain_ms = 10;
  pthread_mutex_lock(&owner_lock);
  if (ftrace_owned) {
    snprintf(in->refusal, sizeof in->refusal,
             "linux.ftrace is already recording for another session (one at a time)");
  } else {
    ftrace_owned = in->owner = 1;
  }
  pthread_mutex_unlock(&owner_lock);
  trak_error err = {0};
  if (in->owner) {
    if (trak__ftrace_reader_open(&in->r, &in->opts, &err) == 0)
      in->opened = 1;
    else
      snprintf(in->refusal, sizeof in->refusal, "%s", err.message);
  }
  if (in->refusal[0]) fprintf(stderr, "trak probes: linux.ftrace: %s\n", in->refusal);
  for (char **u = in->r.unknown; u && *u; u++)
    fprintf(stderr, "trak probes: linux.ftrace: unknown event '%s' (no format file in tracefs)\n",
            *u);
  *state = in;
  return 0;
}

static void on_packet(void *user, const uint8_t *data, size_t len) {
  trak_pb_put_raw(trak_ds_new_packet(user), data, len);
}

/* The shared buffer's room, as Perfetto's traced_probes stalls rather than drops: the reader
** takes another page only while a quarter of the chunks are free, which leaves room for the
** other data sources' packets (the process tree) and the stats; the kernel keeps the rest. */
static int ftrace_room(void *ctx) {
  uint32_t total, free = trak__ds_free_chunks(ctx, &total);
  return free >= 2 && free > total / 4;
}

/* What the reader thread writes, on this instance's sequence. */
static void ftrace_write(trak_ds_ctx *ctx, void *user) {
  ftrace_inst *in = user;
  if (trak_ds_instance_index(ctx) != in->instance) return;
  in->ran = 1;
  room_writer w = {ctx, 0};
  if (!in->wrote_start) {
    trak_pb_buf *p = packet_with_room(&w, 1);
    if (in->refusal[0]) {
      trak_pb_nested s = trak_pb_begin_nested(p, TRAK_PB_TracePacket_ftrace_stats);
      trak_pb_put_varint(p, TRAK_PB_FtraceStats_phase, TRAK_PB_FtraceStats_START_OF_TRACE);
      trak_pb_put_string(p, TRAK_PB_FtraceStats_exclusive_feature_error, in->refusal);
      trak_pb_end_nested(p, s);
    } else {
      trak__ftrace_reader_stats(&in->r, TRAK_PB_FtraceStats_START_OF_TRACE, p);
    }
    in->wrote_start = 1;
  }
  /* At most a buffer's worth per CPU: a drain ends even when the kernel refills as fast. */
  if (in->started)
    trak__ftrace_reader_drain(&in->r, on_packet, ctx, in->r.buffer_pages, ftrace_room);
  if (in->end_stats && in->started)
    trak__ftrace_reader_stats(&in->r, TRAK_PB_FtraceStats_END_OF_TRACE, packet_with_room(&w, 1));
}

static void *ftrace_thread(void *arg) {
  ftrace_inst *in = arg;
  pthread_mutex_lock(&in->mu);
  while (!in->stop) {
    uint64_t req = in->flush_req;
    in->end_stats = req != in->flush_done;
    in->ran = 0;
    pthread_mutex_unlock(&in->mu);
    trak_data_source_trace(ds_ftrace, ftrace_write, in);
    pthread_mutex_lock(&in->mu);
    if (in->ran) in->flush_done = req; /* a flush before the instance was enabled waits */
    pthread_cond_broadcast(&in->cv);
    if (in->stop || in->flush_req != in->flush_done) continue;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    /* Soon again when not enabled yet, or when the last drain left pages for lack of room. */
    uint32_t ms = in->ran && !in->r.held_back ? in->drain_ms : 5;
    uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)ms * 1000000u;
    ts.tv_sec += (time_t)(ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    pthread_cond_timedwait(&in->cv, &in->mu, &ts);
  }
  pthread_mutex_unlock(&in->mu);
  return NULL;
}

static void ftrace_start(void *user, uint32_t instance, void *state) {
  (void)user, (void)instance;
  ftrace_inst *in = state;
  trak_error err = {0};
  if (in->opened && !in->refusal[0]) {
    if (trak__ftrace_reader_start(&in->r, &in->opts, &err) == 0) {
      in->started = 1;
      for (char **u = in->r.failed; u && *u; u++)
        fprintf(stderr, "trak probes: linux.ftrace: cannot enable '%s'\n", *u);
    } else {
      snprintf(in->refusal, sizeof in->refusal, "%s", err.message);
      fprintf(stderr, "trak probes: linux.ftrace: %s\n", in->refusal);
    }
  }
  in->has_thread = pthread_create(&in->thread, NULL, ftrace_thread, in) == 0;
}

static void ftrace_flush(void *user, uint32_t instance, void *state) {
  (void)user, (void)instance;
  ftrace_inst *in = state;
  if (!in->has_thread) return;
  pthread_mutex_lock(&in->mu);
  uint64_t want = ++in->flush_req;
  pthread_cond_broadcast(&in->cv);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_sec += 3; /* a reader stuck this long is not waited for */
  while (in->flush_done < want && !in->stop)
    if (pthread_cond_timedwait(&in->cv, &in->mu, &ts) == ETIMEDOUT) break;
  pthread_mutex_unlock(&in->mu);
}

static void ftrace_stop(void *user, uint32_t instance, void *state) {
  (void)user, (void)instance;
  ftrace_inst *in = state;
  if (in->has_thread) {
    pthread_mutex_lock(&in->mu);
    in->stop = 1;
    pthread_cond_broadcast(&in->cv);
    pthread_mutex_unlock(&in->mu);
    pthread_join(in->thread, NULL);
  }
  trak__ftrace_reader_close(&in->r); /* restores tracefs when it was started */
  if (in->owner) {
    pthread_mutex_lock(&owner_lock);
    ftrace_owned = 0;
    pthread_mutex_unlock(&owner_lock);
  }
  trak__names_free(in->opts.events);
  pthread_mutex_destroy(&in->mu);
  pthread_cond_destroy(&in->cv);
  free(in);
}

/* ---- linux.process_stats and linux.system_info: one write when the instance is on ---- */

typedef struct oneshot {
  trak_data_source **ds;
  uint32_t instance;
  int thread_names; /* process_stats */
  int done, stop;
  pthread_t thread;
  int has_thread;
} oneshot;

static void oneshot_write(trak_ds_ctx *ctx, void *user) {
  oneshot *o = user;
  if (trak_ds_instance_index(ctx) != o->instance || o->done) return;
  room_writer w = {ctx, 0};
  if (o->ds == &ds_process) {
    trak__probes_process_tree(next_tree_packet, &w, o->thread_names);
  } else {
    trak__probes_system_info(packet_with_room(&w, 1));
    trak__probes_cpu_info(packet_with_room(&w, 1));
  }
  o->done = 1;
}

static void *oneshot_thread(void *arg) {
  oneshot *o = arg;
  /* The instance is enabled right after its start callback returns. */
  for (int i = 0; i < 5000 && !__atomic_load_n(&o->stop, __ATOMIC_ACQUIRE) && !o->done; i++) {
    if (*o->ds && __atomic_load_n(&(*o->ds)->mask, __ATOMIC_ACQUIRE) >> o->instance & 1)
      trak_data_source_trace(*o->ds, oneshot_write, o);
    if (!o->done) nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  return NULL;
}

static int oneshot_setup(void *user, uint32_t instance, const uint8_t *config, size_t len,
                         void **state) {
  oneshot *o = calloc(1, sizeof *o);
  if (!o) return -1;
  o->ds = user;
  o->instance = instance;
  o->thread_names = 1; /* names for every thread: what ftrace's pids need */
  (void)config, (void)len;
  *state = o;
  return 0;
}

static void oneshot_start(void *user, uint32_t instance, void *state) {
  (void)user, (void)instance;
  oneshot *o = state;
  o->has_thread = pthread_create(&o->thread, NULL, oneshot_thread, o) == 0;
}

static void oneshot_stop(void *user, uint32_t instance, void *state) {
  (void)user, (void)instance;
  oneshot *o = state;
  __atomic_store_n(&o->stop, 1, __ATOMIC_RELEASE);
  if (o->has_thread) pthread_join(o->thread, NULL);
  free(o);
}

int trak__probes_register(trak_error *err) {
  trak_data_source_desc d = {0};
  d.name = "linux.ftrace";
  d.setup = ftrace_setup;
  d.start = ftrace_start;
  d.flush = ftrace_flush;
  d.stop = ftrace_stop;
  int rc = trak_data_source_register(&d, &ds_ftrace, err);
  trak_data_source_desc o = {0};
  o.setup = oneshot_setup;
  o.start = oneshot_start;
  o.stop = oneshot_stop;
  o.name = "linux.process_stats";
  o.user = &ds_process;
  if (!rc) rc = trak_data_source_register(&o, &ds_process, err);
  o.name = "linux.system_info";
  o.user = &ds_sysinfo;
  if (!rc) rc = trak_data_source_register(&o, &ds_sysinfo, err);
  return rc;
}
