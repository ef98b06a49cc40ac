/*
** Import benchmark of the trace processor. Generates a realistic trace (several processes and
** threads, one packet sequence per thread written in interleaved chunks as the SDK flushes them,
** nested slices with interned names and categories, debug arguments on a fifth of the slices,
** counters, flows between threads) straight to a file, then imports it with the public API and
** prints import time, events/s, MB/s, peak RSS per event, and the time of typical queries.
**
**   import_bench [EVENTS] [FILE] [import-only]
**   defaults: 10000000 events, /tmp/trak_import_bench.pb; import-only skips the queries.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "trak/pb.h"
#include "trak/processor.h"
#include "trak/protos.h"
#include "bench_util.h"

#define PROCESSES 4
#define THREADS_PER_PROCESS 4
#define THREADS (PROCESSES * THREADS_PER_PROCESS)
#define NAMES 200
#define CATEGORIES 8
#define CHUNK_PACKETS 200 /* packets a thread writes before another thread's chunk */

typedef struct thread_gen {
  uint32_t seq;
  uint64_t uuid;
  int64_t ts;
  int depth; /* open slices */
  uint64_t rng;
  uint64_t events;
} thread_gen;

static uint64_t next_rand(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static double cpu_seconds(const struct rusage *r) {
  return (double)r->ru_utime.tv_sec + r->ru_utime.tv_usec / 1e6 + (double)r->ru_stime.tv_sec +
         r->ru_stime.tv_usec / 1e6;
}

static void flush_if_full(trak_pb_buf *b, FILE *f, int force) {
  if (!force && trak_pb_buf_len(b) < (1u << 20)) return;
  fwrite(b->start, 1, trak_pb_buf_len(b), f);
  b->p = b->start;
}

static void descriptors(trak_pb_buf *b, thread_gen *th) {
  for (int p = 0; p < PROCESSES; p++) {
    trak_pb_nested pkt = trak_pb_begin_nested(b, TRAK_PB_Trace_packet);
    trak_pb_nested td = trak_pb_begin_nested(b, TRAK_PB_TracePacket_track_descriptor);
    trak_pb_put_varint(b, TRAK_PB_TrackDescriptor_uuid, 1000 + (uint64_t)p);
    trak_pb_nested pd = trak_pb_begin_nested(b, TRAK_PB_TrackDescriptor_process);
    trak_pb_put_int32(b, TRAK_PB_ProcessDescriptor_pid, 100 + p);
    char name[32];
    snprintf(name, sizeof name, "process_%d", p);
    trak_pb_put_string(b, TRAK_PB_ProcessDescriptor_process_name, name);
    trak_pb_end_nested(b, pd);
    trak_pb_end_nested(b, td);
    trak_pb_end_nested(b, pkt);
    /* A counter track per process. */
    pkt = trak_pb_begin_nested(b, TRAK_PB_Trace_packet);
    td = trak_pb_begin_nested(b, TRAK_PB_TracePacket_track_descriptor);
    trak_pb_put_varint(b, TRAK_PB_TrackDescriptor_uuid, 2000 + (uint64_t)p);
    trak_pb_put_varint(b, TRAK_PB_TrackDescriptor_parent_uuid, 1000 + (uint64_t)p);
    trak_pb_put_string(b, TRAK_PB_TrackDescriptor_name, "memory");
    trak_pb_nested cd = trak_pb_begin_nested(b, TRAK_PB_TrackDescriptor_counter);
    trak_pb_end_nested(b, cd);
    trak_pb_end_nested(b, td);
    trak_pb_end_nested(b, pkt);
  }
  for (int t = 0; t < THREADS; t++) {
    trak_pb_nested pkt = trak_pb_begin_nested(b, TRAK_PB_Trace_packet);
    trak_pb_nested td = trak_pb_begin_nested(b, TRAK_PB_TracePacket_track_descriptor);
    trak_pb_put_varint(b, TRAK_PB_TrackDescriptor_uuid, th[t].uuid);
    trak_pb_put_varint(b, TRAK_PB_TrackDescriptor_parent_uuid,
                       1000 + (uint64_t)(t / THREADS_PER_PROCESS));
    trak_pb_nested thd = trak_pb_begin_nested(b, TRAK_PB_TrackDescriptor_thread);
    trak_pb_put_int32(b, TRAK_PB_ThreadDescriptor_pid, 100 + t / THREADS_PER_PROCESS);
    trak_pb_put_int64(b, TRAK_PB_ThreadDescriptor_tid, 1000 + t);
    char name[32];
    snprintf(name, sizeof name, "thread_%d", t);
    trak_pb_put_string(b, TRAK_PB_ThreadDescriptor_thread_name, name);
    trak_pb_end_nested(b, thd);
    trak_pb_end_nested(b, td);
    trak_pb_end_nested(b, pkt);
  }
}

/* The first packet of a sequence: clears incremental state, sets the default track and interns
** every name, category and debug annotation name. */
static void sequence_start(trak_pb_buf *b, thread_gen *th) {
  trak_pb_nested pkt = trak_pb_begin_nested(b, TRAK_PB_Trace_packet);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_trusted_packet_sequence_id, th->seq);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_sequence_flags,
                     TRAK_PB_TracePacket_SEQ_INCREMENTAL_STATE_CLEARED);
  trak_pb_nested defs = trak_pb_begin_nested(b, TRAK_PB_TracePacket_trace_packet_defaults);
  trak_pb_nested ted = trak_pb_begin_nested(b, TRAK_PB_TracePacketDefaults_track_event_defaults);
  trak_pb_put_varint(b, TRAK_PB_TrackEventDefaults_track_uuid, th->uuid);
  trak_pb_end_nested(b, ted);
  trak_pb_end_nested(b, defs);
  trak_pb_nested in = trak_pb_begin_nested(b, TRAK_PB_TracePacket_interned_data);
  char s[64];
  for (int i = 1; i <= NAMES; i++) {
    trak_pb_nested e = trak_pb_begin_nested(b, TRAK_PB_InternedData_event_names);
    trak_pb_put_varint(b, TRAK_PB_EventName_iid, (uint64_t)i);
    snprintf(s, sizeof s, "Task::Run_%d", i);
    trak_pb_put_string(b, TRAK_PB_EventName_name, s);
    trak_pb_end_nested(b, e);
  }
  for (int i = 1; i <= CATEGORIES; i++) {
    trak_pb_nested e = trak_pb_begin_nested(b, TRAK_PB_InternedData_event_categories);
    trak_pb_put_varint(b, TRAK_PB_EventCategory_iid, (uint64_t)i);
    snprintf(s, sizeof s, "cat%d", i);
    trak_pb_put_string(b, TRAK_PB_EventCategory_name, s);
    trak_pb_end_nested(b, e);
  }
  static const char *const arg_names[] = {"count", "url"};
  for (int i = 0; i < 2; i++) {
    trak_pb_nested e = trak_pb_begin_nested(b, TRAK_PB_InternedData_debug_annotation_names);
    trak_pb_put_varint(b, TRAK_PB_DebugAnnotationName_iid, (uint64_t)i + 1);
    trak_pb_put_string(b, TRAK_PB_DebugAnnotationName_name, arg_names[i]);
    trak_pb_end_nested(b, e);
  }
  trak_pb_end_nested(b, in);
  trak_pb_end_nested(b, pkt);
}

/* One TrackEvent packet of thread `th`: slices nest up to depth 4, a fifth of the begins carry
** two debug arguments, every 40th event is a counter, every 50th begin carries a flow id. */
static void event(trak_pb_buf *b, thread_gen *th, uint64_t *flow_seq, int t) {
  uint64_t r = next_rand(&th->rng);
  th->ts += 100 + (int64_t)(r % 900);
  int is_counter = th->events % 40 == 39;
  int begin = !is_counter && (th->depth == 0 || (th->depth < 4 && (r >> 20) % 2));
  trak_pb_nested pkt = trak_pb_begin_nested_short(b, TRAK_PB_Trace_packet);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_timestamp, (uint64_t)th->ts);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_trusted_packet_sequence_id, th->seq);
  trak_pb_put_varint(b, TRAK_PB_TracePacket_sequence_flags,
                     TRAK_PB_TracePacket_SEQ_NEEDS_INCREMENTAL_STATE);
  trak_pb_nested ev = trak_pb_begin_nested_short(b, TRAK_PB_TracePacket_track_event);
  if (is_counter) {
    trak_pb_put_varint(b, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_COUNTER);
    trak_pb_put_varint(b, TRAK_PB_TrackEvent_track_uuid,
                       2000 + (uint64_t)(t / THREADS_PER_PROCESS));
    trak_pb_put_int64(b, TRAK_PB_TrackEvent_counter_value, (int64_t)(r % 1000000));
  } else if (begin) {
    trak_pb_put_varint(b, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_SLICE_BEGIN);
    trak_pb_put_varint(b, TRAK_PB_TrackEvent_category_iids, 1 + (r >> 8) % CATEGORIES);
    trak_pb_put_varint(b, TRAK_PB_TrackEvent_name_iid, 1 + (r >> 12) % NAMES);
    if ((r >> 32) % 5 == 0) {
      trak_pb_nested a = trak_pb_begin_nested_short(b, TRAK_PB_TrackEvent_debug_annotations);
      trak_pb_put_varint(b, TRAK_PB_DebugAnnotation_name_iid, 1);
      trak_pb_put_int64(b, TRAK_PB_DebugAnnotation_int_value, (int64_t)((r >> 40) % 1000));
      trak_pb_end_nested_short(b, a);
      a = trak_pb_begin_nested_short(b, TRAK_PB_TrackEvent_debug_annotations);
      trak_pb_put_varint(b, TRAK_PB_DebugAnnotation_name_iid, 2);
      trak_pb_put_string(b, TRAK_PB_DebugAnnotation_string_value, "https://example.com/a");
      trak_pb_end_nested_short(b, a);
    }
    if ((r >> 24) % 50 == 0) trak_pb_put_fixed64(b, TRAK_PB_TrackEvent_flow_ids, ++*flow_seq / 2);
    th->depth++;
  } else {
    trak_pb_put_varint(b, TRAK_PB_TrackEvent_type, TRAK_PB_TrackEvent_TYPE_SLICE_END);
    th->depth--;
  }
  trak_pb_end_nested_short(b, ev);
  trak_pb_end_nested_short(b, pkt);
  th->events++;
}

static uint64_t generate(const char *path, uint64_t events) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    perror(path);
    exit(1);
  }
  trak_pb_buf b;
  trak_pb_buf_init_heap(&b);
  thread_gen th[THREADS];
  for (int t = 0; t < THREADS; t++)
    th[t] = (thread_gen){(uint32_t)(t + 1),
                         5000 + (uint64_t)t,
                         1000000000,
                         0,
                         0x9E3779B97F4A7C15ULL * (uint64_t)(t + 1),
                         0};
  descriptors(&b, th);
  for (int t = 0; t < THREADS; t++)
    sequence_start(&b, &th[t]);
  uint64_t written = 0, flow_seq = 0;
  while (written < events) {
    for (int t = 0; t < THREADS && written < events; t++) {
      for (int i = 0; i < CHUNK_PACKETS && written < events; i++, written++)
        event(&b, &th[t], &flow_seq, t);
      flush_if_full(&b, f, 0);
    }
  }
  flush_if_full(&b, f, 1);
  trak_pb_buf_free(&b);
  long size = ftell(f);
  fclose(f);
  return (uint64_t)size;
}

static void timed_query(trak_processor *p, const char *label, const char *sql) {
  double t0 = bench_now_sec();
  trak_query *q;
  trak_error err = {0};
  uint64_t rows = 0;
  if (trak_query_open(p, sql, &q, NULL, &err) || !q) {
    printf("  %-28s error: %s\n", label, err.message);
    return;
  }
  while (trak_query_next(q, &err) > 0)
    rows++;
  trak_query_free(q);
  printf("  %-28s %8.1f ms  (%llu rows)\n", label, (bench_now_sec() - t0) * 1e3,
         (unsigned long long)rows);
}

int main(int argc, char **argv) {
  uint64_t events = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
  const char *path = argc > 2 ? argv[2] : "/tmp/trak_import_bench.pb";
  double t0 = bench_now_sec();
  uint64_t size = generate(path, events);
  printf("generated %llu events, %.1f MB in %.2f s: %s\n", (unsigned long long)events,
         (double)size / 1e6, bench_now_sec() - t0, path);

  struct rusage before;
  getrusage(RUSAGE_SELF, &before);
  t0 = bench_now_sec();
  trak_processor *p;
  trak_error err = {0};
  if (trak_processor_open_file(path, NULL, &p, &err)) {
    fprintf(stderr, "import failed: %s\n", err.message);
    return 1;
  }
  double secs = bench_now_sec() - t0;
  struct rusage after;
  getrusage(RUSAGE_SELF, &after);
  uint64_t n = trak_processor_event_count(p);
  double rss = (double)after.ru_maxrss * 1024;
  /* CPU time is what the import costs; wall time also counts waiting for a shared core. */
  double cpu = cpu_seconds(&after) - cpu_seconds(&before);
  printf("import: %.2f s wall, %.2f M events/s, %.1f MB/s\n", secs, (double)n / secs / 1e6,
         (double)size / secs / 1e6);
  printf("import: %.2f s CPU,  %.2f M events/s, %.1f MB/s\n", cpu, (double)n / cpu / 1e6,
         (double)size / cpu / 1e6);
  printf("peak RSS: %.1f MB = %.1f bytes/event (before import: %.1f MB)\n", rss / 1e6,
         rss / (double)n, (double)before.ru_maxrss * 1024 / 1e6);
  if (argc > 3 && !strcmp(argv[3], "import-only")) {
    trak_processor_free(p);
    if (!getenv("TRAK_BENCH_KEEP")) remove(path);
    return 0;
  }
  timed_query(p, "count slices", "SELECT COUNT(*) FROM slice");
  timed_query(p, "count by name",
              "SELECT name, COUNT(*) AS n FROM slice GROUP BY name ORDER BY n DESC LIMIT 10");
  timed_query(p, "longest slices", "SELECT id, dur FROM slice ORDER BY dur DESC LIMIT 10");
  timed_query(p, "slice x thread x process",
              "SELECT p.name, t.name, COUNT(*), SUM(s.dur) FROM slice s JOIN thread_track tt "
              "ON s.track_id = tt.id JOIN thread t USING (utid) JOIN process p USING (upid) "
              "GROUP BY 1, 2");
  timed_query(p, "extract_arg filter",
              "SELECT COUNT(*) FROM slice WHERE extract_arg(arg_set_id, 'debug.count') > 900");
  timed_query(p, "args of one slice",
              "SELECT a.key, a.display_value FROM slice s JOIN args a USING (arg_set_id) "
              "WHERE s.id = (SELECT MAX(id) FROM slice WHERE arg_set_id IS NOT NULL)");
  timed_query(p, "ts range",
              "SELECT COUNT(*) FROM slice WHERE ts BETWEEN 1500000000 AND 1600000000");
  timed_query(p, "counter by track", "SELECT track_id, AVG(value) FROM counter GROUP BY track_id");
  timed_query(p, "flows", "SELECT COUNT(*) FROM flow");
  trak_processor_free(p);
  if (!getenv("TRAK_BENCH_KEEP")) remove(path);
  return 0;
}
