/*
** This file holds Chrome's sampling profiler packets (StreamingProfilePacket) and the rows they
** make in cpu_profile_stack_sample, as Perfetto's profile module reads them:
**   - a packet's samples are timed from its sequence's TrackEvent time base (the thread
**     descriptor's reference_timestamp_us, moved by TrackEvent.timestamp_delta_us): the
**     packet's time is that base converted from CLOCK_MONOTONIC, each sample adds its delta
**     (microseconds, saturating in nanoseconds) to it and moves the base as well, so a track
**     event after the packet is timed from the last sample; deltas beyond the callstacks still
**     move the base;
**   - a base that is or goes negative ends the packet (streaming_profile_invalid_timestamp);
**     callstacks without a delta end it too (stackprofile_parser_error);
**   - a sample's callstack is resolved when tokenized (interned data changes later) and its
**     callsite interned after the parse phase, in time order, so callsite ids continue those of
**     the track events' callstacks; its thread is the sequence's thread_descriptor's.
** Only traces with these packets get here.
*/
#include <stdlib.h>

#include "processor/import/callstacks.h"
#include "processor/import/proto/proto.h"

typedef struct stack_sample {
  int64_t ts;
  uint32_t order;   /* tokenizing order: ties keep it */
  uint32_t stack;   /* trak__callstack_sample's index */
  uint32_t utid;    /* the sequence's thread */
  int32_t priority; /* process_priority */
} stack_sample;

typedef struct trak_stack_samples {
  TRAK_VEC(stack_sample) v;
} trak_stack_samples;

/* The thread of the sequence's thread_descriptor (utid 0, the idle thread, without one). */
static uint32_t sequence_utid(trak_importer *imp, const trak_sequence *seq) {
  if (seq->thread_track == TRAK_NULL_U32) return 0;
  return imp->tracks.info.v[seq->thread_track].utid;
}

/* Moves the sequence's time base by `delta_us`; returns the new base, negative ones counted. */
static int64_t advance(trak_importer *imp, trak_sequence *seq, int64_t delta_us) {
  seq->last_event_ns = trak__sat_add(seq->last_event_ns, trak__sat_mul(delta_us, 1000));
  if (seq->last_event_ns < 0)
    trak__report(imp, TRAK_STAT_STREAMING_PROFILE_INVALID_TS,
                 "streaming_profile_packet time %lld ns on sequence %u is negative; "
                 "the packet's later samples are dropped",
                 (long long)seq->last_event_ns, seq->id);
  return seq->last_event_ns;
}

static void sample_add(trak_importer *imp, trak_sequence *seq, uint32_t utid, int64_t ts,
                       uint64_t iid, int32_t priority) {
  uint32_t upid = imp->tables->thread.upid[utid];
  uint32_t stack = trak__callstack_sample(imp, seq, upid, iid, NULL);
  if (stack == TRAK_NULL_U32) {
    int known = trak__map_get(&seq->interned[TRAK_INTERN_CALLSTACK], iid) != NULL;
    imp->stats[known ? TRAK_STAT_STACKPROFILE_INVALID_FRAME
                     : TRAK_STAT_STACKPROFILE_INVALID_CALLSTACK]++;
    trak__report(imp, TRAK_STAT_STACKPROFILE_PARSER_ERROR,
                 "streaming_profile_packet callstack_iid %llu cannot be resolved on sequence %u",
                 (unsigned long long)iid, seq->id);
    return;
  }
  if (!imp->stack_samples) {
    imp->stack_samples = calloc(1, sizeof *imp->stack_samples);
    if (!imp->stack_samples) abort();
  }
  trak_stack_samples *s = imp->stack_samples;
  trak_vec_push(s->v, ((stack_sample){ts, (uint32_t)s->v.n, stack, utid, priority}));
}

void trak__streaming_profile_packet(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                                    size_t len) {
  trak_u64_vec iids = {0}, deltas = {0};
  int32_t priority = 0;
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  int rc, bad = 0;
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    if (f.number == TRAK_PB_StreamingProfilePacket_callstack_iid)
      bad |= trak__pb_push_varints(&f, &iids) < 0;
    else if (f.number == TRAK_PB_StreamingProfilePacket_timestamp_delta_us)
      bad |= trak__pb_push_varints(&f, &deltas) < 0;
    else if (f.number == TRAK_PB_StreamingProfilePacket_process_priority &&
             f.wire_type == TRAK_PB_WIRE_VARINT)
      priority = (int32_t)f.value;
  }
  if (rc < 0 || bad) {
    trak__report(imp, TRAK_STAT_PACKET_MALFORMED, "streaming_profile_packet is malformed; skipped");
    goto done;
  }
  int64_t ts = advance(imp, seq, 0);
  if (ts < 0) goto done;
  ts = trak__clock_try_convert(imp, seq, TRAK_PB_BUILTIN_CLOCK_MONOTONIC, ts);
  uint32_t utid = sequence_utid(imp, seq);
  size_t i = 0;
  for (; i < iids.n; i++) {
    if (i >= deltas.n) {
      trak__report(imp, TRAK_STAT_STACKPROFILE_PARSER_ERROR,
                   "streaming_profile_packet has %zu callstacks but %zu timestamps", iids.n,
                   deltas.n);
      goto done;
    }
    if (advance(imp, seq, (int64_t)deltas.v[i]) < 0) goto done;
    ts = trak__sat_add(ts, trak__sat_mul((int64_t)deltas.v[i], 1000));
    sample_add(imp, seq, utid, ts, iids.v[i], priority);
  }
  for (; i < deltas.n; i++)
    if (advance(imp, seq, (int64_t)deltas.v[i]) < 0) break;
done:
  trak_vec_free(iids);
  trak_vec_free(deltas);
}

static int sample_cmp(const void *a, const void *b) {
  const stack_sample *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

void trak__stack_samples_finish(trak_importer *imp) {
  trak_stack_samples *s = imp->stack_samples;
  if (!s) return;
  qsort(s->v.v, s->v.n, sizeof *s->v.v, sample_cmp);
  for (size_t i = 0; i < s->v.n; i++) {
    const stack_sample *x = &s->v.v[i];
    trak_sp_cpu_sample row = {x->ts, trak__callstack_callsite(imp, x->stack), x->utid,
                              x->priority};
    trak_vec_push(imp->tables->stack_profile.cpu_samples, row);
  }
  trak__stack_samples_free(imp);
}

void trak__stack_samples_free(trak_importer *imp) {
  if (!imp->stack_samples) return;
  trak_vec_free(imp->stack_samples->v);
  free(imp->stack_samples);
  imp->stack_samples = NULL;
}
