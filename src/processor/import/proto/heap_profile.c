/*
** This file holds heapprofd's native heap profiles (ProfilePacket) and the rows they make, as
** Perfetto's ProfileModule and ProfilePacketSequenceState make them:
**   - a packet's strings, mappings, frames and callstacks (in that order) are its sequence's
**     until a packet that is not `continued`; mappings, frames and callsites are stack profile
**     rows at once (equal ones shared, callstacks.c);
**   - each dump of a process's heap (process_dumps, timed in CLOCK_MONOTONIC_COARSE) is a
**     heap_profile row (once per process, time and heap) and its samples, committed with the
**     last packet of the dump, heap_profile_allocation rows: what the callsite allocated since
**     the process's previous dump (count and size > 0) and what it freed (< 0; none for ART's
**     heap, which reports no frees). Samples are cumulative: the previous totals of a
**     (process, callsite) are subtracted, with Perfetto's correction when a new callstack id
**     (or heap) reaches a callsite already seen; a sample whose totals went down is dropped;
**   - a sample's callstack id not in the packet's tables is looked up in the sequence's
**     InternedData (callstacks.c); one with no frames makes no row.
** Unlike Perfetto, packets are read in packet order rather than time order, so processes and
** stack profile rows are numbered as the packets come (the same in a trace of heap profiles
** alone). Everything here is cold: only heap profiles get here.
*/
#include <string.h>

#include "processor/import/callstacks.h"
#include "processor/import/hash.h"
#include "processor/import/proto/proto.h"

/* A callsite's totals at its process's last dump (Perfetto's prev_alloc_ / prev_free_ rows). */
typedef struct totals {
  int64_t alloc_count, alloc_size, free_count, free_size;
} totals;

/* A sample waiting for the last packet of its dump. */
typedef struct pending_alloc {
  int64_t ts;
  uint64_t pid, callstack, allocated, freed, alloc_count, free_count;
  uint32_t heap_name;
} pending_alloc;

/* One sequence's state (Perfetto's ProfilePacketSequenceState). */
typedef struct hp_seq {
  uint32_t seq_id;
  int has_index;
  uint64_t index;
  trak_map strings, mappings, frames, callstacks; /* iid -> string id, mapping, frame, callsite */
  TRAK_VEC(pending_alloc) pending;
  trak_map prev;       /* upid << 32 | callsite -> `sums` index */
  trak_map correction; /* source callstack id -> `sums` index */
  trak_map seen;       /* hash of (upid, source callstack id, heap, callsite) */
  TRAK_VEC(totals) sums;
} hp_seq;

typedef struct trak_heap_profiles {
  TRAK_VEC(hp_seq) seqs;
  trak_map seq_index; /* sequence id -> seqs index */
  trak_map dumps;     /* hash of (upid, ts_end, heap) of each heap_profile row */
} trak_heap_profiles;

static uint32_t intern(trak_importer *imp, const char *s, size_t len) {
  return trak__strpool_intern(&imp->tables->strings, s, len);
}

static hp_seq *seq_state(trak_importer *imp, uint32_t seq_id) {
  trak_heap_profiles *hp = imp->heap_profiles;
  if (!hp) {
    hp = imp->heap_profiles = calloc(1, sizeof *hp);
    if (!hp) abort();
  }
  int added;
  uint32_t *i = trak__map_put(&hp->seq_index, seq_id, (uint32_t)hp->seqs.n, &added);
  if (added) {
    hp_seq s;
    memset(&s, 0, sizeof s);
    s.seq_id = seq_id;
    trak_vec_push(hp->seqs, s);
    /* string 0 is "" until the first profile ends (Perfetto's table clears it then) */
    *trak__map_put(&hp->seqs.v[*i].strings, 0, 0, &added) = intern(imp, "", 0);
  }
  return &hp->seqs.v[*i];
}

/* Sets *out to the value of `key` in `m`; returns 0, or -1 (counting `stat`) if absent. */
static int find(trak_importer *imp, trak_map *m, uint64_t key, trak_stat_id stat, uint32_t *out) {
  const uint32_t *v = trak__map_get(m, key);
  if (!v) {
    trak__report(imp, stat, "ProfilePacket names id %llu that its profile never gave",
                 (unsigned long long)key);
    return -1;
  }
  *out = *v;
  return 0;
}

/* The value of `key` in `m` if present; else `value` is put there. */
static void keep_first(trak_map *m, uint64_t key, uint32_t value) {
  int added;
  trak__map_put(m, key, value, &added);
}

static void add_string(trak_importer *imp, hp_seq *s, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  uint64_t iid = 0;
  const char *str = "";
  size_t n = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_InternedString_iid && f.wire_type == TRAK_PB_WIRE_VARINT)
      iid = f.value;
    else if (f.number == TRAK_PB_InternedString_str && f.wire_type == TRAK_PB_WIRE_LEN)
      str = (const char *)f.data, n = f.len;
  }
  /* as bytes, unchecked: build ids are binary (a bad name is not counted either) */
  if (iid || !n)
    keep_first(&s->strings, iid, trak__strpool_intern_bytes(&imp->tables->strings, str, n));
}

static void add_mapping(trak_importer *imp, hp_seq *s, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_u64_vec paths = {0};
  uint64_t iid = 0, build_id = 0;
  trak_sp_mapping m;
  memset(&m, 0, sizeof m);
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_Mapping_path_string_ids) trak__pb_push_varints(&f, &paths);
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    if (f.number == TRAK_PB_Mapping_iid) iid = f.value;
    if (f.number == TRAK_PB_Mapping_build_id) build_id = f.value;
    if (f.number == TRAK_PB_Mapping_exact_offset) m.exact_offset = (int64_t)f.value;
    if (f.number == TRAK_PB_Mapping_start_offset) m.start_offset = (int64_t)f.value;
    if (f.number == TRAK_PB_Mapping_start) m.start = (int64_t)f.value;
    if (f.number == TRAK_PB_Mapping_end) m.end = (int64_t)f.value;
    if (f.number == TRAK_PB_Mapping_load_bias) m.load_bias = (int64_t)f.value;
  }
  uint32_t raw;
  if (!find(imp, &s->strings, build_id, TRAK_STAT_STACKPROFILE_INVALID_STRING, &raw)) {
    m.build_id = trak__callstack_build_id(imp, raw);
    /* the path components up to one the profile never gave (counted) */
    size_t n = 0;
    for (; n < paths.n; n++) {
      uint32_t id;
      if (find(imp, &s->strings, paths.v[n], TRAK_STAT_STACKPROFILE_INVALID_STRING, &id)) break;
      paths.v[n] = id;
    }
    m.name = trak__callstack_path(imp, paths.v, n);
    keep_first(&s->mappings, iid, trak__callstack_mapping(imp, &m));
  }
  trak_vec_free(paths);
}

static void add_frame(trak_importer *imp, hp_seq *s, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  uint64_t iid = 0, name_iid = 0, mapping_iid = 0, rel_pc = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    if (f.number == TRAK_PB_Frame_iid) iid = f.value;
    if (f.number == TRAK_PB_Frame_function_name_id) name_iid = f.value;
    if (f.number == TRAK_PB_Frame_mapping_id) mapping_iid = f.value;
    if (f.number == TRAK_PB_Frame_rel_pc) rel_pc = f.value;
  }
  uint32_t mapping, name;
  if (find(imp, &s->mappings, mapping_iid, TRAK_STAT_STACKPROFILE_INVALID_MAPPING, &mapping) ||
      find(imp, &s->strings, name_iid, TRAK_STAT_STACKPROFILE_INVALID_STRING, &name))
    return;
  keep_first(&s->frames, iid, trak__callstack_frame(imp, mapping, name, (int64_t)rel_pc));
}

static void add_callstack(trak_importer *imp, hp_seq *s, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak_u64_vec ids = {0};
  uint64_t iid = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_Callstack_iid && f.wire_type == TRAK_PB_WIRE_VARINT) iid = f.value;
    if (f.number == TRAK_PB_Callstack_frame_ids) trak__pb_push_varints(&f, &ids);
  }
  uint32_t callsite = TRAK_NULL_U32, frame;
  for (size_t i = 0; i < ids.n; i++) {
    if (find(imp, &s->frames, ids.v[i], TRAK_STAT_STACKPROFILE_INVALID_FRAME, &frame)) goto done;
    callsite = trak__callstack_site(imp, callsite, frame, (uint32_t)i);
  }
  if (callsite == TRAK_NULL_U32)
    trak__report(imp, TRAK_STAT_STACKPROFILE_EMPTY_CALLSTACK,
                 "ProfilePacket callstack %llu has no frames", (unsigned long long)iid);
  else
    keep_first(&s->callstacks, iid, callsite);
done:
  trak_vec_free(ids);
}

/* The totals in `sums` that `key` of `m` names, zero ones made if absent. */
static totals *sums_of(hp_seq *s, trak_map *m, uint64_t key) {
  int added;
  uint32_t *i = trak__map_put(m, key, (uint32_t)s->sums.n, &added);
  if (added) {
    totals z = {0, 0, 0, 0};
    trak_vec_push(s->sums, z);
  }
  return &s->sums.v[*i];
}

static void alloc_row(trak_importer *imp, const pending_alloc *a, uint32_t upid, uint32_t callsite,
                      int64_t count, int64_t size) {
  trak_sp_heap_alloc row = {a->ts, count, size, upid, a->heap_name, callsite};
  trak_vec_push(imp->tables->stack_profile.heap_allocs, row);
  imp->n_events++; /* a trace of heap profiles only is not empty */
}

/* One sample's rows (Perfetto's AddAllocation). */
static void add_allocation(trak_importer *imp, trak_sequence *seq, hp_seq *s,
                           const pending_alloc *a) {
  uint32_t upid = trak__process_for_pid(imp, (int64_t)a->pid);
  const uint32_t *own = trak__map_get(&s->callstacks, a->callstack);
  uint32_t callsite = own ? *own : TRAK_NULL_U32;
  if (!own) {
    uint32_t stack = trak__callstack_sample(imp, seq, upid, a->callstack, NULL);
    if (stack == TRAK_NULL_U32) return;
    callsite = trak__callstack_callsite(imp, stack);
  }
  uint64_t pair = (uint64_t)upid << 32 | callsite;
  uint64_t seen = trak__mix(trak__mix(trak__mix(upid, a->callstack), a->heap_name), callsite);
  int added;
  trak__map_put(&s->seen, seen, 0, &added);
  if (added) {
    totals before = *sums_of(s, &s->prev, pair);
    *sums_of(s, &s->correction, a->callstack) = before;
  }
  totals now = {(int64_t)a->alloc_count, (int64_t)a->allocated, -(int64_t)a->free_count,
                -(int64_t)a->freed};
  const uint32_t *c = trak__map_get(&s->correction, a->callstack);
  if (c) {
    const totals *k = &s->sums.v[*c];
    now.alloc_count += k->alloc_count, now.alloc_size += k->alloc_size;
    now.free_count += k->free_count, now.free_size += k->free_size;
  }
  totals *prev = sums_of(s, &s->prev, pair);
  totals d = {now.alloc_count - prev->alloc_count, now.alloc_size - prev->alloc_size,
              now.free_count - prev->free_count, now.free_size - prev->free_size};
  if (d.alloc_count < 0 || d.alloc_size < 0 || d.free_count > 0 || d.free_size > 0) {
    trak__report(imp, TRAK_STAT_HEAPPROFD_MALFORMED_PACKET,
                 "heap profile of pid %llu: callstack %llu's totals went down",
                 (unsigned long long)a->pid, (unsigned long long)a->callstack);
    return;
  }
  if (d.alloc_count || d.alloc_size) alloc_row(imp, a, upid, callsite, d.alloc_count, d.alloc_size);
  const trak_strpool *sp = &imp->tables->strings;
  int art = sp->len.v[a->heap_name] == 15 && !memcmp(sp->str.v[a->heap_name], "com.android.art", 15);
  if (!art && (d.free_count || d.free_size))
    alloc_row(imp, a, upid, callsite, d.free_count, d.free_size);
  *sums_of(s, &s->prev, pair) = now;
}

/* A sample of a dump: kept until the dump's last packet. */
static void add_sample(trak_importer *imp, hp_seq *s, pending_alloc a, int trust_max_count,
                       const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int has_max = 0;
  uint64_t max = 0, max_count = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    uint64_t v = f.value;
    if (f.number == TRAK_PB_ProfilePacket_HeapSample_callstack_id) a.callstack = v;
    if (f.number == TRAK_PB_ProfilePacket_HeapSample_self_allocated) a.allocated = v;
    if (f.number == TRAK_PB_ProfilePacket_HeapSample_self_freed) a.freed = v;
    if (f.number == TRAK_PB_ProfilePacket_HeapSample_alloc_count) a.alloc_count = v;
    if (f.number == TRAK_PB_ProfilePacket_HeapSample_free_count) a.free_count = v;
    if (f.number == TRAK_PB_ProfilePacket_HeapSample_self_max) has_max = 1, max = v;
    if (f.number == TRAK_PB_ProfilePacket_HeapSample_self_max_count) max_count = v;
  }
  if (has_max) { /* a dump of the peak: what was live then */
    a.allocated = max, a.freed = a.free_count = 0;
    a.alloc_count = trust_max_count ? max_count : 0;
  }
  trak_vec_push(s->pending, a);
}

/* One process's dump: its heap_profile row and its samples, kept. */
static void add_dump(trak_importer *imp, trak_sequence *seq, hp_seq *s, const uint8_t *data,
                     size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  uint64_t pid = 0, end = 0, start = 0, orig_interval = 0;
  int has_start = 0;
  const char *heap = NULL;
  size_t heap_len = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_ProfilePacket_ProcessHeapSamples_heap_name &&
        f.wire_type == TRAK_PB_WIRE_LEN)
      heap = (const char *)f.data, heap_len = f.len;
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    if (f.number == TRAK_PB_ProfilePacket_ProcessHeapSamples_pid) pid = f.value;
    if (f.number == TRAK_PB_ProfilePacket_ProcessHeapSamples_timestamp) end = f.value;
    if (f.number == TRAK_PB_ProfilePacket_ProcessHeapSamples_start_timestamp)
      start = f.value, has_start = 1;
    if (f.number == TRAK_PB_ProfilePacket_ProcessHeapSamples_orig_sampling_interval_bytes)
      orig_interval = f.value;
  }
  int64_t ts_end, ts_start;
  if (trak__clock_convert(imp, seq, TRAK_PB_BUILTIN_CLOCK_MONOTONIC_COARSE, (int64_t)end, &ts_end))
    return;
  if (!has_start || trak__clock_convert(imp, seq, TRAK_PB_BUILTIN_CLOCK_MONOTONIC_COARSE,
                                        (int64_t)start, &ts_start))
    ts_start = ts_end;
  uint32_t heap_name = heap_len ? intern(imp, heap, heap_len) : 0;
  uint32_t upid = trak__process_for_pid(imp, (int64_t)pid);
  int added;
  trak__map_put(&imp->heap_profiles->dumps,
                trak__mix(trak__mix(upid, (uint64_t)ts_end), heap_name), 0, &added);
  if (added) {
    trak_sp_heap_profile row = {ts_start, ts_end, upid, heap_name};
    trak_vec_push(imp->tables->stack_profile.heap_profiles, row);
  }
  pending_alloc a;
  memset(&a, 0, sizeof a);
  a.ts = ts_end, a.pid = pid;
  a.heap_name = heap_name ? heap_name : intern(imp, "unknown", 7);
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_ProfilePacket_ProcessHeapSamples_samples &&
        f.wire_type == TRAK_PB_WIRE_LEN)
      add_sample(imp, s, a, orig_interval > 0, f.data, f.len);
}

void trak__profile_packet(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                          size_t len) {
  hp_seq *s = seq_state(imp, ctx->seq->id);
  trak_pb_decoder dec;
  trak_pb_field f;
  uint64_t index = 0;
  int continued = 0;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type != TRAK_PB_WIRE_VARINT) continue;
    if (f.number == TRAK_PB_ProfilePacket_index) index = f.value;
    if (f.number == TRAK_PB_ProfilePacket_continued) continued = f.value != 0;
  }
  /* heapprofd numbers a profile's packets from 0 */
  if (s->has_index ? s->index + 1 != index : index != 0)
    trak__report(imp, TRAK_STAT_HEAPPROFD_MISSING_PACKET,
                 "ProfilePacket index %llu on sequence %u follows a lost packet",
                 (unsigned long long)index, ctx->seq->id);
  s->has_index = 1, s->index = index;
  /* the tables first, each kind in turn, then the dumps (Perfetto's order) */
  static const uint32_t order[] = {TRAK_PB_ProfilePacket_strings, TRAK_PB_ProfilePacket_mappings,
                                   TRAK_PB_ProfilePacket_frames, TRAK_PB_ProfilePacket_callstacks,
                                   TRAK_PB_ProfilePacket_process_dumps};
  for (size_t k = 0; k < sizeof order / sizeof *order; k++) {
    trak__dec_init(imp, &dec, data, len);
    while (trak_pb_decoder_next(&dec, &f) > 0) {
      if (f.number != order[k] || f.wire_type != TRAK_PB_WIRE_LEN) continue;
      s = seq_state(imp, ctx->seq->id); /* the vector may have moved */
      if (k == 0) add_string(imp, s, f.data, f.len);
      if (k == 1) add_mapping(imp, s, f.data, f.len);
      if (k == 2) add_frame(imp, s, f.data, f.len);
      if (k == 3) add_callstack(imp, s, f.data, f.len);
      if (k == 4) add_dump(imp, ctx->seq, s, f.data, f.len);
    }
  }
  if (continued) return;
  s = seq_state(imp, ctx->seq->id);
  for (size_t i = 0; i < s->pending.n; i++)
    add_allocation(imp, ctx->seq, s, &s->pending.v[i]);
  s->pending.n = 0;
  trak__map_clear(&s->strings);
  trak__map_clear(&s->mappings);
  trak__map_clear(&s->frames);
  trak__map_clear(&s->callstacks);
}

void trak__heap_profiles_free(trak_importer *imp) {
  trak_heap_profiles *hp = imp->heap_profiles;
  if (!hp) return;
  for (size_t i = 0; i < hp->seqs.n; i++) {
    hp_seq *s = &hp->seqs.v[i];
    trak__map_free(&s->strings);
    trak__map_free(&s->mappings);
    trak__map_free(&s->frames);
    trak__map_free(&s->callstacks);
    trak_vec_free(s->pending);
    trak__map_free(&s->prev);
    trak__map_free(&s->correction);
    trak__map_free(&s->seen);
    trak_vec_free(s->sums);
  }
  trak_vec_free(hp->seqs);
  trak__map_free(&hp->seq_index);
  trak__map_free(&hp->dumps);
  free(hp);
  imp->heap_profiles = NULL;
}
