/*
** The generated track-event trace of bench/import_bench (and of the two-thread import test,
** tests/test_mt_import_threads.c): 4 processes of 4 threads, one packet sequence per thread
** written in interleaved chunks as the SDK flushes them, nested slices with interned names and
** categories, debug arguments on a fifth of the slices, counters and flows between threads.
*/
#ifndef TRAK_BENCH_GEN_TRACK_EVENTS_H
#define TRAK_BENCH_GEN_TRACK_EVENTS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "trak/pb.h"
#include "trak/protos.h"

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

static inline uint64_t next_rand(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static inline void flush_if_full(trak_pb_buf *b, FILE *f, int force) {
  if (!force && trak_pb_buf_len(b) < (1u << 20)) return;
  fwrite(b->start, 1, trak_pb_buf_len(b), f);
  b->p = b->start;
}

static inline void descriptors(trak_pb_buf *b, thread_gen *th) {
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
static inline void sequence_start(trak_pb_buf *b, thread_gen *th) {
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
static inline void event(trak_pb_buf *b, thread_gen *th, uint64_t *flow_seq, int t) {
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

/* Writes a trace of `events` events to `path`. Returns its size in bytes; exits 1 when the file
** cannot be written. */
static inline uint64_t generate(const char *path, uint64_t events) {
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

#endif /* TRAK_BENCH_GEN_TRACK_EVENTS_H */
