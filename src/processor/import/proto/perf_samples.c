/*
** This file holds the Linux perf profiler's samples (PerfSample packets, traced_perf) and what
** they make, as Perfetto's profile module reads them:
**   - each packet sequence is one perf session (perf_session row), made by its first packet;
**   - each (session, CPU) has a counter track for the timebase and one per follower, named as
**     the sequence's PerfSampleDefaults name them when the CPU's first packet is read
**     (perf_cpu_counter tracks: dimensions cpu, perf_session_id, name; source arg is_timebase);
**     a sequence without defaults counts "cpu-clock" in ns;
**   - a sample's timebase_count and follower_counts are counters at its time on those tracks;
**     its row in perf_sample has its thread, CPU, cpu_mode, unwind_error and callsite (resolved
**     when tokenized, interned after the parse phase, in time order);
**   - a packet with kernel_records_lost counts perf_cpu_lost_records and makes no row; one with
**     a producer_event makes no row; a skipped sample is counted by its reason but keeps its row.
** Only traces with these packets get here.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/callstacks.h"
#include "processor/import/ftrace/ftrace.h"
#include "processor/import/proto/proto.h"

/* The counters a (sequence, CPU) samples, as its defaults named them when its first sample was
** tokenized: string ids in trak_perf_samples.names, the timebase's first. */
typedef struct perf_names {
  uint32_t first, n;
  uint32_t shard_count, chosen_shard; /* PerfSampleDefaults' process sharding, 0: none */
  uint8_t unit;                       /* the timebase's unit, TRAK_PERF_UNIT_* */
} perf_names;

/* The counter tracks of a (session, CPU), in trak_perf_samples.tracks, the timebase's first. */
typedef struct perf_stream {
  uint32_t first, n;
} perf_stream;

/* What a PerfSample packet is. */
enum { PERF_SAMPLE, PERF_LOST, PERF_PRODUCER };

/* A PerfSample packet until it is applied in time order (trak__perf_samples_apply). */
typedef struct perf_pending {
  int64_t ts;
  uint32_t order; /* tokenizing order: ties keep it */
  uint8_t kind, guardrail, has_cpu, has_timebase;
  trak_sequence *seq;
  uint32_t names;              /* its (sequence, CPU)'s perf_names */
  uint32_t cpu, pid, tid;
  uint32_t mode, unwind;       /* string ids; unwind 0: none */
  uint32_t stack;              /* trak__callstack_sample's index, TRAK_NULL_U32: none */
  uint32_t utid, session;      /* set when applied */
  uint64_t timebase, lost;
  uint32_t first_count, n_counts; /* its follower counts in trak_perf_samples.counts */
} perf_pending;

/* Perfetto's stats of perf data kept per CPU or per session, in its order. */
static const trak_stat_def indexed_defs[] = {
    {"perf_cpu_lost_records", TRAK_SEVERITY_DATA_LOSS,
     "Perf samples the kernel's ring buffer of this CPU lost: which processes miss samples is "
     "not known. A lower sampling frequency or bigger ring buffers help.",
     0},
    {"perf_process_shard_count", TRAK_SEVERITY_INFO,
     "The number of process shards the perf session's config asked for.", 0},
    {"perf_chosen_process_shard", TRAK_SEVERITY_INFO,
     "The process shard the perf session chose (only its processes were sampled).", 0},
    {"perf_guardrail_stop_ts", TRAK_SEVERITY_DATA_LOSS,
     "The time the perf session stopped itself on a guardrail (its memory or CPU limit): no "
     "samples after it.",
     0}};
enum { LOST_RECORDS, SHARD_COUNT, CHOSEN_SHARD, GUARDRAIL_STOP };

typedef struct trak_perf_samples {
  trak_map names_of;   /* sequence id << 32 | cpu -> index in name_sets */
  TRAK_VEC(perf_names) name_sets;
  TRAK_VEC(uint32_t) names;
  TRAK_VEC(uint64_t) counts;
  TRAK_VEC(perf_pending) pending;
  trak_map sessions;   /* sequence id -> perf session id */
  trak_map stream_of;  /* session << 32 | cpu -> index in streams */
  TRAK_VEC(perf_stream) streams;
  TRAK_VEC(uint32_t) tracks;
  TRAK_VEC(trak_traced_indexed) stats; /* indexed_defs' rows, sorted once applied */
} trak_perf_samples;

static trak_perf_samples *state(trak_importer *imp) {
  if (!imp->perf_samples) {
    imp->perf_samples = calloc(1, sizeof *imp->perf_samples);
    if (!imp->perf_samples) abort();
  }
  return imp->perf_samples;
}

static uint32_t intern(trak_importer *imp, const char *s, size_t n) {
  return trak__strpool_intern(&imp->tables->strings, s, n);
}

/* perf's names of PerfEvents.Counter values (Perfetto's), "unknown" past them. */
static const char *counter_text(uint64_t counter) {
  static const char *const names[] = {
      [1] = "cpu-clock",       [2] = "page-faults",         [3] = "task-clock",
      [4] = "context-switches", [5] = "cpu-migrations",     [6] = "minor-faults",
      [7] = "major-faults",    [8] = "alignment-faults",    [9] = "emulation-faults",
      [10] = "cpu-cycles",     [11] = "instructions",       [12] = "cache-references",
      [13] = "cache-misses",   [14] = "branch-instructions", [15] = "branch-misses",
      [16] = "bus-cycles",     [17] = "stalled-cycles-frontend",
      [18] = "stalled-cycles-backend", [19] = "ref-cycles", [20] = "dummy"};
  return counter < sizeof names / sizeof *names && names[counter] ? names[counter] : "unknown";
}

/* The unit a timebase counting PerfEvents.Counter `counter` counts in. */
static uint8_t counter_unit(uint64_t counter) {
  switch (counter) {
  case TRAK_PB_PerfEvents_SW_CPU_CLOCK:
  case TRAK_PB_PerfEvents_SW_TASK_CLOCK: return TRAK_PERF_UNIT_NS;
  case TRAK_PB_PerfEvents_HW_CPU_CYCLES:
  case TRAK_PB_PerfEvents_HW_BUS_CYCLES:
  case TRAK_PB_PerfEvents_HW_REF_CPU_CYCLES: return TRAK_PERF_UNIT_CYCLES;
  case TRAK_PB_PerfEvents_HW_INSTRUCTIONS: return TRAK_PERF_UNIT_INSTRUCTIONS;
  default: return TRAK_PERF_UNIT_COUNT;
  }
}

/* The field numbers of a Timebase or a FollowerEvent, which describe an event alike. */
typedef struct event_fields {
  uint32_t name, counter, tracepoint, raw_event, modifiers;
} event_fields;

static const event_fields timebase_fields = {
    TRAK_PB_PerfEvents_Timebase_name, TRAK_PB_PerfEvents_Timebase_counter,
    TRAK_PB_PerfEvents_Timebase_tracepoint, TRAK_PB_PerfEvents_Timebase_raw_event,
    TRAK_PB_PerfEvents_Timebase_modifiers};
static const event_fields follower_fields = {
    TRAK_PB_FollowerEvent_name, TRAK_PB_FollowerEvent_counter, TRAK_PB_FollowerEvent_tracepoint,
    TRAK_PB_FollowerEvent_raw_event, TRAK_PB_FollowerEvent_modifiers};

/* Appends the privilege modifiers ('u', 'k', 'h') of field `f` (packed or not) to `mods`. */
static void add_modifiers(const trak_pb_field *f, char *mods, size_t *n) {
  trak_u64_vec v = {0};
  if (trak__pb_push_varints(f, &v) == 0)
    for (size_t i = 0; i < v.n && *n < 15; i++)
      if (v.v[i] >= TRAK_PB_PerfEvents_EVENT_MODIFIER_COUNT_USERSPACE &&
          v.v[i] <= TRAK_PB_PerfEvents_EVENT_MODIFIER_COUNT_HYPERVISOR)
        mods[(*n)++] = "?ukh"[v.v[i]];
  trak_vec_free(v);
}

/* The name of the counter a Timebase or FollowerEvent (`data`, fields `ef`) describes, as
** Perfetto names it: its own name, else the counter's perf name, the tracepoint's name, or
** "raw.0x<type>.0x<config>.0x<config1>.0x<config2>"; then ":" and its modifiers. *counter is
** its PerfEvents.Counter (0: none) and *unit the unit it counts in (TRAK_PERF_UNIT_*: by
** its counter, a tracepoint's a count, none otherwise). Returns a string id. */
static uint32_t event_name(trak_importer *imp, const uint8_t *data, size_t len,
                           const event_fields *ef, uint64_t *counter, uint8_t *unit) {
  trak_pb_decoder dec, sub;
  trak_pb_field f, g;
  trak_span name = {NULL, 0}, tracepoint = {NULL, 0};
  uint64_t raw[4] = {0, 0, 0, 0};
  int has_counter = 0, has_tracepoint = 0, has_raw = 0;
  char mods[16];
  size_t n_mods = 0;
  *counter = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == ef->name && f.wire_type == TRAK_PB_WIRE_LEN) {
      name = (trak_span){f.data, f.len};
    } else if (f.number == ef->counter && f.wire_type == TRAK_PB_WIRE_VARINT) {
      *counter = f.value, has_counter = 1;
    } else if (f.number == ef->tracepoint && f.wire_type == TRAK_PB_WIRE_LEN) {
      has_tracepoint = 1;
      tracepoint = (trak_span){(const uint8_t *)"", 0};
      trak__dec_init(imp, &sub, f.data, f.len);
      while (trak_pb_decoder_next(&sub, &g) > 0)
        if (g.number == TRAK_PB_PerfEvents_Tracepoint_name && g.wire_type == TRAK_PB_WIRE_LEN)
          tracepoint = (trak_span){g.data, g.len};
    } else if (f.number == ef->raw_event && f.wire_type == TRAK_PB_WIRE_LEN) {
      has_raw = 1;
      trak__dec_init(imp, &sub, f.data, f.len);
      while (trak_pb_decoder_next(&sub, &g) > 0)
        if (g.wire_type == TRAK_PB_WIRE_VARINT && g.number >= TRAK_PB_PerfEvents_RawEvent_type &&
            g.number <= TRAK_PB_PerfEvents_RawEvent_config2)
          raw[g.number - TRAK_PB_PerfEvents_RawEvent_type] = g.value;
    } else if (f.number == ef->modifiers) {
      add_modifiers(&f, mods, &n_mods);
    }
  }
  *unit = has_counter      ? counter_unit(*counter)
          : has_tracepoint ? TRAK_PERF_UNIT_COUNT
                           : TRAK_PERF_UNIT_NONE;
  char buf[256];
  int n;
  if (name.len)
    n = snprintf(buf, sizeof buf, "%.*s", (int)(name.len > 200 ? 200 : name.len), name.data);
  else if (has_counter)
    n = snprintf(buf, sizeof buf, "%s", counter_text(*counter));
  else if (has_tracepoint)
    n = snprintf(buf, sizeof buf, "%.*s", (int)(tracepoint.len > 200 ? 200 : tracepoint.len),
                 tracepoint.data);
  else if (has_raw)
    n = snprintf(buf, sizeof buf, "raw.0x%x.0x%llx.0x%llx.0x%llx", (unsigned)raw[0],
                 (unsigned long long)raw[1], (unsigned long long)raw[2],
                 (unsigned long long)raw[3]);
  else
    n = snprintf(buf, sizeof buf, "unknown");
  size_t at = n < 0 ? 0 : (size_t)n;
  if (n_mods && at + 1 + n_mods < sizeof buf) {
    buf[at++] = ':';
    memcpy(buf + at, mods, n_mods);
    at += n_mods;
  }
  return intern(imp, buf, at);
}

/* The counter track of (session, cpu) named `name`, a row now: the timebase's when
** is_timebase. */
static uint32_t counter_track(trak_importer *imp, uint32_t session, uint32_t cpu, uint32_t name,
                              int is_timebase) {
  int made;
  uint32_t track = trak__dim_counter_track(imp, TRAK_TK_PERF_CPU_COUNTER,
                                           (uint64_t)session << 32 | cpu, name, name, &made);
  if (made) {
    trak_track_info *info = &imp->tracks.info.v[track];
    info->lane = cpu;
    info->dim_int = session;
    info->rank = is_timebase;
  }
  trak__track_made_now(imp, track);
  return track;
}

/* The counters of the sequence's `cpu`, named from its defaults on its first sample. */
static uint32_t names_for(trak_importer *imp, trak_sequence *seq, uint32_t cpu) {
  trak_perf_samples *ps = state(imp);
  int added;
  uint32_t *at = trak__map_put(&ps->names_of, (uint64_t)seq->id << 32 | cpu,
                               (uint32_t)ps->name_sets.n, &added);
  if (!added) return *at;
  perf_names set = {(uint32_t)ps->names.n, 1, 0, 0, TRAK_PERF_UNIT_NS};
  uint64_t counter;
  uint8_t unit;
  uint32_t timebase = intern(imp, "cpu-clock", 9);
  trak_vec_push(ps->names, timebase);
  if (seq->has_perf_defaults) {
    trak_pb_decoder dec;
    trak_pb_field f;
    /* defaults without a timebase name it "unknown" */
    ps->names.v[set.first] = event_name(imp, NULL, 0, &timebase_fields, &counter, &set.unit);
    trak__dec_init(imp, &dec, seq->perf_defaults.v, seq->perf_defaults.n);
    while (trak_pb_decoder_next(&dec, &f) > 0) {
      int len = f.wire_type == TRAK_PB_WIRE_LEN, v = f.wire_type == TRAK_PB_WIRE_VARINT;
      if (f.number == TRAK_PB_PerfSampleDefaults_timebase && len) {
        ps->names.v[set.first] =
            event_name(imp, f.data, f.len, &timebase_fields, &counter, &set.unit);
      } else if (f.number == TRAK_PB_PerfSampleDefaults_followers && len) {
        uint32_t name = event_name(imp, f.data, f.len, &follower_fields, &counter, &unit);
        trak_vec_push(ps->names, name);
        set.n++;
      } else if (f.number == TRAK_PB_PerfSampleDefaults_process_shard_count && v) {
        set.shard_count = (uint32_t)f.value;
      } else if (f.number == TRAK_PB_PerfSampleDefaults_chosen_process_shard && v) {
        set.chosen_shard = (uint32_t)f.value;
      }
    }
  }
  trak_vec_push(ps->name_sets, set);
  return *at;
}

/* Stat `def` of index `idx`, made (0) on first use. */
static int64_t *indexed(trak_perf_samples *ps, uint32_t def, int64_t idx) {
  for (size_t i = 0; i < ps->stats.n; i++)
    if (ps->stats.v[i].def == def && ps->stats.v[i].idx == idx) return &ps->stats.v[i].value;
  trak_vec_push(ps->stats, ((trak_traced_indexed){def, idx, 0, 0}));
  return &ps->stats.v[ps->stats.n - 1].value;
}

/* The tracks of (session, cpu), made (timebase first) from `names` on first use. */
static const perf_stream *stream(trak_importer *imp, uint32_t session, uint32_t cpu,
                                 const perf_names *names) {
  trak_perf_samples *ps = state(imp);
  int added;
  uint32_t *at = trak__map_put(&ps->stream_of, (uint64_t)session << 32 | cpu,
                               (uint32_t)ps->streams.n, &added);
  if (!added) return &ps->streams.v[*at];
  perf_stream s = {(uint32_t)ps->tracks.n, names->n};
  /* the session's unit is its first stream's that has one */
  uint8_t *unit = &imp->tables->stack_profile.perf_session_units.v[session];
  if (*unit == TRAK_PERF_UNIT_NONE) *unit = names->unit;
  for (uint32_t i = 0; i < names->n; i++)
    trak_vec_push(ps->tracks, counter_track(imp, session, cpu, ps->names.v[names->first + i], !i));
  if (names->shard_count) {
    *indexed(ps, SHARD_COUNT, session) = names->shard_count;
    *indexed(ps, CHOSEN_SHARD, session) = names->chosen_shard;
  }
  trak_vec_push(ps->streams, s);
  return &ps->streams.v[ps->streams.n - 1];
}

/* Perfetto's texts of Profiling.CpuMode and Profiling.StackUnwindError. */
static const char *const cpu_modes[] = {"unknown",    "kernel",       "user",
                                        "hypervisor", "guest_kernel", "guest_user"};
static const char *const unwind_errors[] = {
    "unknown",        "none",           "memory_invalid",        "unwind_info",
    "unsupported",    "invalid_map",    "max_frames_exceeded",   "repeated_frame",
    "invalid_elf",    "system_call",    "thread_timeout",        "thread_does_not_exist",
    "bad_arch",       "maps_parse",     "invalid_parameter",     "ptrace_call"};

/* The text of enum value `v` in `names` (n of them), "unknown" past them, as a string id. */
static uint32_t enum_text(trak_importer *imp, const char *const *names, size_t n, uint64_t v) {
  const char *s = v < n ? names[v] : "unknown";
  return intern(imp, s, strlen(s));
}

/* A PerfSample's fields. */
typedef struct perf_fields {
  uint64_t cpu, pid, tid, mode, timebase, iid, unwind, lost, skipped;
  uint8_t has_cpu, has_timebase, has_iid, has_unwind, has_skipped, has_producer, guardrail;
  trak_u64_vec followers;
} perf_fields;

/* Decodes a PerfSample into `pf` (whose followers the caller frees). Returns 0, or -1 when the
** message does not decode. */
static int perf_decode(trak_importer *imp, const uint8_t *data, size_t len, perf_fields *pf) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int rc, bad = 0;
  trak__dec_init(imp, &dec, data, len);
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    int v = f.wire_type == TRAK_PB_WIRE_VARINT;
    switch (f.number) {
    case TRAK_PB_PerfSample_cpu:
      if (v) pf->cpu = (uint32_t)f.value, pf->has_cpu = 1;
      break;
    case TRAK_PB_PerfSample_pid:
      if (v) pf->pid = (uint32_t)f.value;
      break;
    case TRAK_PB_PerfSample_tid:
      if (v) pf->tid = (uint32_t)f.value;
      break;
    case TRAK_PB_PerfSample_cpu_mode:
      if (v) pf->mode = f.value;
      break;
    case TRAK_PB_PerfSample_timebase_count:
      if (v) pf->timebase = f.value, pf->has_timebase = 1;
      break;
    case TRAK_PB_PerfSample_follower_counts:
      bad |= trak__pb_push_varints(&f, &pf->followers) < 0;
      break;
    case TRAK_PB_PerfSample_callstack_iid:
      if (v) pf->iid = f.value, pf->has_iid = 1;
      break;
    case TRAK_PB_PerfSample_unwind_error:
      if (v) pf->unwind = f.value, pf->has_unwind = 1;
      break;
    case TRAK_PB_PerfSample_kernel_records_lost:
      if (v) pf->lost = f.value;
      break;
    case TRAK_PB_PerfSample_sample_skipped_reason:
      if (v) pf->skipped = f.value, pf->has_skipped = 1;
      break;
    case TRAK_PB_PerfSample_producer_event:
      if (f.wire_type == TRAK_PB_WIRE_LEN) {
        pf->has_producer = 1;
        pf->guardrail =
            trak__dec_varint(imp, f.data, f.len,
                             TRAK_PB_PerfSample_ProducerEvent_source_stop_reason, 0) ==
            TRAK_PB_PerfSample_ProducerEvent_PROFILER_STOP_GUARDRAIL;
      }
      break;
    default:
      break;
    }
  }
  return rc < 0 || bad ? -1 : 0;
}

/* The sample's callstack (its index for trak__callstack_callsite, or TRAK_NULL_U32), its
** problems counted as Perfetto counts them: the sample keeps its row either way. */
static uint32_t sample_stack(trak_importer *imp, trak_sequence *seq, uint32_t upid,
                             uint64_t iid) {
  int unresolved;
  uint32_t stack = trak__callstack_sample(imp, seq, upid, iid, &unresolved);
  if (stack != TRAK_NULL_U32) return stack;
  if (!unresolved) {
    trak__report(imp, TRAK_STAT_STACKPROFILE_EMPTY_CALLSTACK,
                 "perf_sample callstack_iid %llu on sequence %u has no frames",
                 (unsigned long long)iid, seq->id);
  } else {
    int known = trak__map_get(&seq->interned[TRAK_INTERN_CALLSTACK], iid) != NULL;
    trak__report(imp,
                 known ? TRAK_STAT_STACKPROFILE_INVALID_FRAME
                       : TRAK_STAT_STACKPROFILE_INVALID_CALLSTACK,
                 "perf_sample callstack_iid %llu cannot be resolved on sequence %u",
                 (unsigned long long)iid, seq->id);
  }
  return TRAK_NULL_U32;
}

/* Counts a skipped sample by its reason (not in scope is by design: not counted). */
static void count_skipped(trak_importer *imp, uint64_t reason) {
  if (reason == TRAK_PB_PerfSample_PROFILER_SKIP_READ_STAGE ||
      reason == TRAK_PB_PerfSample_PROFILER_SKIP_UNWIND_STAGE)
    imp->stats[TRAK_STAT_PERF_SAMPLES_SKIPPED]++;
  else if (reason == TRAK_PB_PerfSample_PROFILER_SKIP_UNWIND_ENQUEUE)
    imp->stats[TRAK_STAT_PERF_SAMPLES_SKIPPED_DATALOSS]++;
}

void trak__perf_sample_packet(trak_importer *imp, trak_packet_ctx *ctx, const uint8_t *data,
                              size_t len) {
  trak_sequence *seq = ctx->seq;
  trak_perf_samples *ps = state(imp);
  perf_fields pf;
  memset(&pf, 0, sizeof pf);
  if (perf_decode(imp, data, len, &pf)) {
    trak__report(imp, TRAK_STAT_PACKET_MALFORMED, "perf_sample is malformed; skipped");
    goto done;
  }
  perf_pending p;
  memset(&p, 0, sizeof p);
  p.ts = ctx->has_ts ? ctx->ts : imp->latest_ts;
  p.order = (uint32_t)ps->pending.n;
  p.kind = pf.lost ? PERF_LOST : pf.has_producer ? PERF_PRODUCER : PERF_SAMPLE;
  p.guardrail = pf.guardrail;
  p.seq = seq;
  p.names = names_for(imp, seq, (uint32_t)pf.cpu);
  p.cpu = (uint32_t)pf.cpu, p.has_cpu = pf.has_cpu;
  p.pid = (uint32_t)pf.pid, p.tid = (uint32_t)pf.tid;
  p.lost = pf.lost;
  p.stack = TRAK_NULL_U32;
  if (p.kind == PERF_SAMPLE) {
    if (pf.has_skipped) count_skipped(imp, pf.skipped);
    p.has_timebase = pf.has_timebase, p.timebase = pf.timebase;
    p.first_count = (uint32_t)ps->counts.n, p.n_counts = (uint32_t)pf.followers.n;
    for (size_t i = 0; i < pf.followers.n; i++)
      trak_vec_push(ps->counts, pf.followers.v[i]);
    p.mode = enum_text(imp, cpu_modes, sizeof cpu_modes / sizeof *cpu_modes, pf.mode);
    if (pf.has_unwind)
      p.unwind =
          enum_text(imp, unwind_errors, sizeof unwind_errors / sizeof *unwind_errors, pf.unwind);
    /* resolved now (interned data changes); a sequence's mappings are told apart per process
    ** by the pid, as the process rows are only made when the samples are applied in time
    ** order */
    if (pf.has_iid) p.stack = sample_stack(imp, seq, (uint32_t)pf.pid, pf.iid);
  }
  trak_vec_push(ps->pending, p);
done:
  trak_vec_free(pf.followers);
}

static int pending_cmp(const void *a, const void *b) {
  const perf_pending *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* A counter of `value` at `ts` on `track`, sorted with the other records by its time. */
static void counter_push(trak_importer *imp, trak_sequence *seq, int64_t ts, uint32_t track,
                         double value) {
  trak_ev ev = {ts, (uint32_t)TRAK_EV_COUNTER << TRAK_EV_TYPE_SHIFT | track,
                (uint32_t)imp->packet_index, {{0, 0}}, TRAK_NULL_U32, 0};
  ev.u.value = value;
  trak__sequence_push(imp, seq, &ev);
}

/* One sample, in time order: its counters and its thread; its row waits for its callsite. */
static void sample_apply(trak_importer *imp, perf_pending *p, uint32_t session) {
  trak_perf_samples *ps = imp->perf_samples;
  const perf_stream *st = stream(imp, session, p->cpu, &ps->name_sets.v[p->names]);
  uint32_t first = st->first, n = st->n;
  if (p->has_timebase) counter_push(imp, p->seq, p->ts, ps->tracks.v[first], (double)p->timebase);
  for (uint32_t i = 0; i < p->n_counts && i + 1 < n; i++)
    counter_push(imp, p->seq, p->ts, ps->tracks.v[first + 1 + i],
                 (double)ps->counts.v[p->first_count + i]);
  /* the row's fields, kept in the pending record for trak__perf_samples_finish */
  p->utid = trak__thread_for_tid(imp, (int64_t)p->tid, (int64_t)p->pid);
  p->session = session;
  if (p->has_cpu) trak__ftrace_cpu_seen(imp, p->cpu);
  imp->n_events++; /* a trace of perf samples only is not empty */
}

void trak__perf_samples_apply(trak_importer *imp) {
  trak_perf_samples *ps = imp->perf_samples;
  if (!ps) return;
  /* an empty vector has no array, and qsort of NULL is undefined even for 0 elements */
  if (ps->pending.n) qsort(ps->pending.v, ps->pending.n, sizeof *ps->pending.v, pending_cmp);
  size_t kept = 0;
  for (size_t i = 0; i < ps->pending.n; i++) {
    perf_pending *p = &ps->pending.v[i];
    int added;
    uint32_t *session =
        trak__map_put(&ps->sessions, p->seq->id,
                      (uint32_t)imp->tables->stack_profile.perf_session_units.n, &added);
    if (added) trak_vec_push(imp->tables->stack_profile.perf_session_units, TRAK_PERF_UNIT_NONE);
    if (p->kind == PERF_LOST) {
      /* not a sample: the kernel's ring buffer lost records on this CPU */
      stream(imp, *session, p->cpu, &ps->name_sets.v[p->names]);
      *indexed(ps, LOST_RECORDS, p->cpu) += (int64_t)p->lost;
    } else if (p->kind == PERF_PRODUCER) { /* not a sample: the profiler's own event */
      stream(imp, *session, p->cpu, &ps->name_sets.v[p->names]);
      if (p->guardrail) *indexed(ps, GUARDRAIL_STOP, *session) = p->ts;
    } else {
      sample_apply(imp, p, *session);
      ps->pending.v[kept++] = *p;
    }
  }
  ps->pending.n = kept;
  if (ps->stats.n) qsort(ps->stats.v, ps->stats.n, sizeof *ps->stats.v, trak__traced_indexed_cmp);
}

void trak__perf_samples_finish(trak_importer *imp) {
  trak_perf_samples *ps = imp->perf_samples;
  if (!ps) return;
  for (size_t i = 0; i < ps->pending.n; i++) {
    const perf_pending *p = &ps->pending.v[i];
    trak_sp_perf_sample row = {p->ts,
                               p->utid,
                               p->has_cpu ? p->cpu : TRAK_NULL_U32,
                               p->stack == TRAK_NULL_U32 ? TRAK_NULL_U32
                                                         : trak__callstack_callsite(imp, p->stack),
                               p->mode,
                               p->unwind,
                               p->session};
    trak_vec_push(imp->tables->stack_profile.perf_samples, row);
  }
  trak_vec_free(ps->pending);
}

int trak__perf_stats_row(const trak_importer *imp, size_t i, trak_traced_row *out) {
  const trak_perf_samples *ps = imp->perf_samples;
  if (!ps || i >= ps->stats.n) return 0;
  out->def = &indexed_defs[ps->stats.v[i].def];
  out->idx = ps->stats.v[i].idx;
  out->value = ps->stats.v[i].value;
  return 1;
}

void trak__perf_samples_free(trak_importer *imp) {
  trak_perf_samples *ps = imp->perf_samples;
  if (!ps) return;
  trak__map_free(&ps->names_of);
  trak_vec_free(ps->name_sets);
  trak_vec_free(ps->names);
  trak_vec_free(ps->counts);
  trak_vec_free(ps->pending);
  trak__map_free(&ps->sessions);
  trak__map_free(&ps->stream_of);
  trak_vec_free(ps->streams);
  trak_vec_free(ps->tracks);
  trak_vec_free(ps->stats);
  free(ps);
  imp->perf_samples = NULL;
}
