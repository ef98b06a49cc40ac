/*
** This file holds tracks: which thread, process and track a described track is (its uuid
** claims a thread or process row; the TrackDescriptor itself is decoded by
** proto/track_descriptor.c), the implied tracks of legacy events, and the final track table
** with each track's type, scope, parent and source args.
*/
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/importer.h"
#include "processor/import/memory_descriptions.h"
#include "processor/tables/arg_value.h"
#include "util/limits.h"

static uint32_t str_id(trak_importer *imp, const char *s) {
  return trak__strpool_intern(&imp->tables->strings, s, strlen(s));
}

uint32_t trak__track_new(trak_importer *imp, uint64_t uuid) {
  trak_track_info info;
  memset(&info, 0, sizeof info);
  info.uuid = uuid;
  info.utid = info.upid = info.src_upid = TRAK_NULL_U32;
  info.multiplier = 1;
  info.last_file_ts = INT64_MIN;
  info.first_ts = INT64_MAX;
  info.first_pkt = imp->packet_index;
  info.machine = imp->threads.machine;
  trak_vec_push(imp->tracks.info, info);
  return (uint32_t)(imp->tracks.info.n - 1);
}

uint32_t trak__track_for_uuid(trak_importer *imp, uint64_t uuid) {
  int added;
  uint32_t *slot = trak__map_put(&imp->tracks.by_uuid, uuid, 0, &added);
  if (added) *slot = trak__track_new(imp, uuid);
  return *slot;
}

uint32_t trak__default_track(trak_importer *imp) {
  uint32_t track = trak__track_for_uuid(imp, 0);
  trak_track_info *info = &imp->tracks.info.v[track];
  if (!info->described) {
    info->described = 1;
    if (!info->name) info->name = str_id(imp, "Default Track");
  }
  return track;
}

uint32_t trak__legacy_thread_track(trak_importer *imp, uint32_t utid) {
  int added;
  uint32_t *slot = trak__map_put(&imp->tracks.legacy_thread, utid, 0, &added);
  if (added) {
    uint32_t t = trak__track_new(imp, 0);
    *slot = t;
    trak_track_info *info = &imp->tracks.info.v[t];
    info->described = info->is_thread = info->is_legacy_thread = 1;
    info->utid = utid;
  }
  return *slot;
}

uint32_t trak__keyed_track(trak_importer *imp, uint64_t key, uint32_t name, uint32_t upid,
                           int is_counter, trak_track_kind_id kind) {
  uint32_t track = trak__track_for_uuid(imp, key | 1ULL << 63);
  trak_track_info *info = &imp->tracks.info.v[track];
  if (!info->described) {
    info->described = 1;
    info->kind = (uint8_t)kind;
    info->name = name;
    info->is_counter = (uint8_t)is_counter;
    if (upid != TRAK_NULL_U32) info->is_process = 1, info->upid = upid;
  } else if (!info->name) {
    info->name = name; /* made by an unnamed event (an end): the first name names it */
  }
  return track;
}

/* Claims a thread or process row for descriptor `uuid`; returns 0 when another uuid claimed it
** first, which means its tid / pid was reused. */
static int claim(trak_map *claims, uint32_t row, uint64_t uuid) {
  int added;
  uint32_t *slot = trak__map_put(claims, row, 0, &added);
  if (added) *slot = (uint32_t)(uuid ^ uuid >> 32); /* for debugging only: the map is u32 */
  return added;
}

/* The thread of a thread descriptor: the descriptor's track uuid owns one (pid, tid) thread; a
** second uuid for a live (pid, tid) means the tid was reused, and starts a new thread. */
static uint32_t descriptor_thread(trak_importer *imp, const trak_thread_desc *td,
                                  const uint32_t *existing) {
  if (existing && imp->tracks.info.v[*existing].is_thread)
    return imp->tracks.info.v[*existing].utid;
  int64_t tid = td->tid;
  if (td->sandboxed) tid = (int64_t)((uint64_t)td->pid << 32 | (uint64_t)td->tid);
  uint32_t utid = trak__thread_for_tid(imp, tid, td->pid);
  if (!claim(&imp->tracks.thread_uuid, utid, td->uuid)) {
    utid = trak__thread_start_new(imp, tid, td->pid);
    claim(&imp->tracks.thread_uuid, utid, td->uuid);
  }
  return utid;
}

/* Whether thread `utid` is (pid, tid). */
static int thread_is(const trak_importer *imp, uint32_t utid, int64_t pid, int64_t tid) {
  const trak_tables *t = imp->tables;
  uint32_t upid = t->thread.upid[utid];
  return t->thread.tid[utid] == tid && upid != TRAK_NULL_U32 && t->process.pid[upid] == pid;
}

/* The process of a process descriptor, by the same rule as descriptor_thread. */
uint32_t trak__descriptor_process(trak_importer *imp, uint64_t uuid, int64_t pid, uint32_t name) {
  const uint32_t *existing = trak__map_get(&imp->tracks.by_uuid, uuid);
  uint32_t upid;
  if (existing && imp->tracks.info.v[*existing].is_process) {
    upid = imp->tracks.info.v[*existing].upid;
  } else {
    upid = trak__process_for_pid(imp, pid);
    if (!claim(&imp->tracks.process_uuid, upid, uuid)) {
      upid = trak__process_start_new(imp, pid);
      claim(&imp->tracks.process_uuid, upid, uuid);
    }
  }
  /* Perfetto's track event importer leaves cmdline (and names from it) to system process
  ** data, so trak does too. */
  trak__process_name_set(imp, upid, name, TRAK_PROCESS_NAME_DESCRIPTOR);
  return upid;
}

uint32_t trak__descriptor_thread(trak_importer *imp, const trak_thread_desc *td, int *other) {
  const uint32_t *existing = trak__map_get(&imp->tracks.by_uuid, td->uuid);
  uint32_t utid = descriptor_thread(imp, td, existing);
  *other = existing && !td->has_chrome_thread && !thread_is(imp, utid, td->pid, td->tid);
  if (!*other) trak__thread_name_set(imp, utid, td->name, TRAK_THREAD_NAME_DESCRIPTOR);
  return utid;
}

/* The track of a thread descriptor without a counter is the thread's own track (the one events
** without a track_uuid use), as Perfetto interns it: a second uuid for the thread shares it. */
static uint32_t thread_own_track(trak_importer *imp, uint64_t uuid, uint32_t utid) {
  const uint32_t *slot = trak__map_get(&imp->tracks.by_uuid, uuid);
  if (slot) return *slot;
  uint32_t track = trak__legacy_thread_track(imp, utid);
  trak_track_info *info = &imp->tracks.info.v[track];
  if (!info->uuid) info->uuid = uuid; /* the first uuid is its trace_id */
  int added;
  *trak__map_put(&imp->tracks.by_uuid, uuid, 0, &added) = track;
  return track;
}

uint32_t trak__descriptor_thread_track(trak_importer *imp, trak_sequence *seq,
                                       const trak_thread_desc *td, uint32_t utid, int other,
                                       int own_track) {
  /* The sequence's thread, for its events without a track (kept across clears): the
  ** descriptor's pid and tid, even when its uuid names another thread already, as Perfetto
  ** takes them. */
  uint32_t seq_utid = utid;
  if (other) {
    seq_utid = trak__thread_for_tid(imp, td->tid, td->pid);
    trak__thread_name_set(imp, seq_utid, td->name, TRAK_THREAD_NAME_DESCRIPTOR);
  }
  if (seq && seq->state_valid) seq->thread_track = trak__legacy_thread_track(imp, seq_utid);
  return own_track ? thread_own_track(imp, td->uuid, utid) : trak__track_for_uuid(imp, td->uuid);
}

trak_track_info *trak__track_described(trak_importer *imp, uint32_t index, uint32_t utid,
                                       uint32_t upid) {
  assert(index < imp->tracks.info.n);
  trak_track_info *info = &imp->tracks.info.v[index];
  if (!info->described) info->first_pkt = imp->packet_index;
  info->described = 1;
  info->n_descriptors++;
  if (utid != TRAK_NULL_U32) info->is_thread = 1, info->utid = utid, info->upid = upid;
  if (upid != TRAK_NULL_U32 && utid == TRAK_NULL_U32) info->is_process = 1, info->upid = upid;
  return info;
}

/* The nearest thread or process scope among `i` and its ancestors (cycles are cut off).
** Returns 0 when an ancestor is not described (yet): the scope is not known. */
static int track_scope(trak_importer *imp, uint32_t i, uint32_t *utid, uint32_t *upid) {
  *utid = *upid = TRAK_NULL_U32;
  for (int hops = 0; hops < 256; hops++) {
    trak_track_info *info = &imp->tracks.info.v[i];
    if (info->is_thread) {
      *utid = info->utid;
      *upid = info->upid;
      return 1;
    }
    if (info->is_process) {
      *upid = info->upid;
      return 1;
    }
    if (!info->has_parent) return 1;
    uint32_t *parent = trak__map_get(&imp->tracks.by_uuid, info->parent_uuid);
    if (!parent) return 0;
    i = *parent;
  }
  return 1;
}

/* A track's kind: the one the format gave it, else (a descriptor's) the one of its family
** for its scope, as Perfetto's track_event tracker types them. */
static trak_track_kind_id track_kind(const trak_track_info *info, uint32_t utid, uint32_t upid) {
  if (info->kind) return (trak_track_kind_id)info->kind;
  if (info->is_legacy_thread) return TRAK_TK_THREAD_EXECUTION;
  enum trak_track_scope scope = utid != TRAK_NULL_U32   ? TRAK_SCOPE_THREAD
                                : upid != TRAK_NULL_U32 ? TRAK_SCOPE_PROCESS
                                                        : TRAK_SCOPE_GLOBAL;
  if (info->is_counter) return trak__track_kind_scoped(TRAK_TK_GLOBAL_COUNTER_TRACK_EVENT, scope);
  if (info->is_state) return trak__track_kind_scoped(TRAK_TK_GLOBAL_STATE_TRACK_EVENT, scope);
  /* Root thread / process descriptor tracks, and tracks that never merge with siblings, are
  ** Perfetto's plain *_track_event; other tracks are merged by name with their siblings. */
  int plain = info->is_thread || info->is_process || info->merge_none;
  return trak__track_kind_scoped(
      plain ? TRAK_TK_GLOBAL_TRACK_EVENT : TRAK_TK_GLOBAL_MERGED_TRACK_EVENT, scope);
}

/* Perfetto's rule, once the track's scope is known: a thread track's event names no thread;
** a process track's names the sequence's thread when it is of that process; a global one's
** always does. */
static uint32_t passthrough_for(trak_importer *imp, uint32_t utid, uint32_t upid,
                                uint32_t seq_utid) {
  if (utid != TRAK_NULL_U32 || seq_utid == TRAK_NULL_U32) return TRAK_NULL_U32;
  if (upid != TRAK_NULL_U32 && imp->tables->thread.upid[seq_utid] != upid) return TRAK_NULL_U32;
  return seq_utid;
}

uint32_t trak__passthrough_utid(trak_importer *imp, const trak_sequence *seq, uint32_t track) {
  /* Perfetto resolves no scope for the default track (uuid 0), so its events name no thread. */
  if (!imp->tracks.info.v[track].uuid) return TRAK_NULL_U32;
  uint32_t utid, upid;
  uint32_t seq_utid = imp->tracks.info.v[seq->thread_track].utid;
  if (!track_scope(imp, track, &utid, &upid))
    return seq_utid == TRAK_NULL_U32 ? TRAK_NULL_U32 : TRAK_PASSTHROUGH_PENDING;
  return passthrough_for(imp, utid, upid, seq_utid);
}

void trak__passthrough_defer(trak_importer *imp, trak_sequence *seq, uint32_t track) {
  trak_pending_passthrough p = {seq, seq->n_events - 1, track,
                                imp->tracks.info.v[seq->thread_track].utid};
  seq->unpack = 1;
  trak_vec_push(imp->tracks.pending_passthrough, p);
}

void trak__passthrough_resolve(trak_importer *imp) {
  for (size_t i = 0; i < imp->tracks.pending_passthrough.n; i++) {
    const trak_pending_passthrough *p = &imp->tracks.pending_passthrough.v[i];
    uint32_t utid, upid;
    if (!track_scope(imp, p->track, &utid, &upid)) continue; /* an orphan: dropped anyway */
    uint32_t pass = passthrough_for(imp, utid, upid, p->utid);
    trak_ev *ev = &p->seq->all[p->index];
    if (pass != TRAK_NULL_U32)
      ev->arg_set_id = trak__te_args_passthrough(imp, ev->arg_set_id, pass);
  }
  trak_vec_free(imp->tracks.pending_passthrough);
}

/* Appends one row to arg set `set` (the last one of args): a string (string id) or an
** integer-like value. The args columns may move, so the row is written after it is added. */
static void arg_str(trak_importer *imp, uint32_t set, const char *key, uint32_t value) {
  uint32_t k = str_id(imp, key);
  uint32_t row = trak__arg_add(imp->tables, set, k, k, TRAK_ARG_STRING);
  trak__arg_set_str(imp->tables, row, value);
}
static void arg_int(trak_importer *imp, uint32_t set, const char *key, trak_arg_type type,
                    int64_t value) {
  uint32_t k = str_id(imp, key);
  uint32_t row = trak__arg_add(imp->tables, set, k, k, type);
  trak__arg_set_int(imp->tables, row, value);
}

/* A descriptor track's source args, as Perfetto's: source, trace_id (its uuid),
** is_root_in_scope, has_first_packet_on_sequence, the viewer hints (child_ordering,
*sibling_order_rank) and description. */
static void track_source_args(trak_importer *imp, const trak_track_info *info, uint32_t id) {
  static const char *const orderings[] = {"unknown", "lexicographic", "chronological", "explicit"};
  trak_tables *t = imp->tables;
  uint32_t set = (uint32_t)t->args.n;
  arg_str(imp, set, "source", str_id(imp, "descriptor"));
  arg_int(imp, set, "trace_id", TRAK_ARG_INT, (int64_t)info->uuid);
  arg_int(imp, set, "is_root_in_scope", TRAK_ARG_BOOL,
          info->is_thread || info->is_process || info->uuid == 0);
  /* The sequence of the event that made the track a row said it wrote from its first packet
  ** (not said of the default track, uuid 0, which belongs to no sequence). */
  if (info->first_seq_flagged && info->uuid)
    arg_int(imp, set, "has_first_packet_on_sequence", TRAK_ARG_BOOL, 1);
  if (info->child_ordering && info->child_ordering < 4)
    arg_str(imp, set, "child_ordering", str_id(imp, orderings[info->child_ordering]));
  if (info->counter_type == TRAK_PB_CounterDescriptor_COUNTER_THREAD_TIME_NS)
    arg_str(imp, set, "builtin_counter_type", str_id(imp, "thread_time"));
  else if (info->counter_type == TRAK_PB_CounterDescriptor_COUNTER_THREAD_INSTRUCTION_COUNT)
    arg_str(imp, set, "builtin_counter_type", str_id(imp, "thread_instruction_count"));
  if (info->has_rank) arg_int(imp, set, "sibling_order_rank", TRAK_ARG_INT, info->rank);
  if (info->description) arg_str(imp, set, "description", info->description);
  t->track.source_arg_set_id[id] = set;
}

/* A track's dimension args, as Perfetto's track blueprints list them: the thread or process,
** then what tells the track from its siblings (its uuid; for merged tracks the parent's uuid
** and the merge key, a name; for async and overflow tracks the lane), so that
** dimension_arg_set_id is Perfetto's. Tracks of no dimension keep NULL. */
static void dimension_args(trak_importer *imp, const trak_track_info *info, uint32_t id,
                           const trak_track_blueprint *k, uint32_t utid, uint32_t upid) {
  trak_tables *t = imp->tables;
  uint32_t set = (uint32_t)t->args.n;
  if ((k->dims & TRAK_DIM_UTID) && utid != TRAK_NULL_U32)
    arg_int(imp, set, "utid", TRAK_ARG_INT, utid);
  else if ((k->dims & TRAK_DIM_UPID) && upid != TRAK_NULL_U32)
    arg_int(imp, set, "upid", TRAK_ARG_INT, upid);
  if (k->dims & TRAK_DIM_TRACEPOINT) { /* the owner first: cpu or scope, as utid and upid */
    if (k->dims & TRAK_DIM_CPU) arg_int(imp, set, "cpu", TRAK_ARG_INT, info->lane);
    if (k->dims & TRAK_DIM_SCOPE) arg_int(imp, set, "scope", TRAK_ARG_INT, info->dim_int);
    arg_str(imp, set, "tracepoint", info->dim_key);
    arg_str(imp, set, "name", info->name);
  }
  if (k->dims & TRAK_DIM_TRACK_UUID)
    arg_int(imp, set, "track_uuid", TRAK_ARG_INT, (int64_t)info->uuid);
  if (k->dims & TRAK_DIM_MERGE) {
    arg_int(imp, set, "parent_track_uuid", TRAK_ARG_INT,
            info->has_parent ? (int64_t)info->parent_uuid : 0);
    /* Perfetto's merge kinds: 0 by name, 2 by sibling_merge_key. */
    arg_int(imp, set, "merge_key_type", TRAK_ARG_INT, info->merge_key ? 2 : 0);
    arg_str(imp, set, "merge_key_value", info->merge_key ? info->merge_key : t->track.name[id]);
  }
  if (k->dims & TRAK_DIM_ASYNC_ID) {
    arg_str(imp, set, "scope", info->scope);
    arg_str(imp, set, "name", info->root_name ? info->root_name : info->name);
  }
  if (k->dims & TRAK_DIM_NAME) arg_str(imp, set, "name", info->name);
  if (k->dims & TRAK_DIM_SESSION)
    arg_int(imp, set, "session_id", TRAK_ARG_INT, trak__concurrent_session_id(info->uuid));
  if (k->dims & TRAK_DIM_VIRTIO_VIDEO) {
    arg_int(imp, set, "virtio_stream_id", TRAK_ARG_INT, (uint32_t)((uint64_t)info->dim_int >> 32));
    arg_int(imp, set, info->kind == TRAK_TK_VIRTIO_VIDEO_COMMAND ? "is_response" : "virtio_queue_type",
            TRAK_ARG_INT, (uint32_t)info->dim_int);
  }
  if (k->dims & TRAK_DIM_LANE) arg_int(imp, set, "track_compressor_idx", TRAK_ARG_INT, info->lane);
  /* Perfetto's track tracker writes every integer dimension as a signed int */
  if ((k->dims & TRAK_DIM_CPU) && !(k->dims & TRAK_DIM_TRACEPOINT))
    arg_int(imp, set, "cpu", TRAK_ARG_INT, info->lane);
  if (k->dims & TRAK_DIM_IRQ) arg_int(imp, set, "irq", TRAK_ARG_INT, info->lane);
  if (k->dims & TRAK_DIM_BLOCK_DEVICE)
    arg_int(imp, set, "block_device", TRAK_ARG_INT, info->dim_int);
  if (k->dims & TRAK_DIM_KEY)
    arg_str(imp, set, trak__track_kind_key((trak_track_kind_id)info->kind), info->dim_key);
  if (k->dims & TRAK_DIM_NAMED_COUNTER) {
    arg_str(imp, set, trak__track_kind_key((trak_track_kind_id)info->kind), info->lane);
    arg_str(imp, set, "counter_name", info->dim_key);
  }
  if (k->dims & TRAK_DIM_BUDDYINFO) {
    arg_str(imp, set, "buddyinfo_node", info->lane);
    arg_str(imp, set, "buddyinfo_zone", info->dim_key);
    arg_int(imp, set, "buddyinfo_chunk_size_kb", TRAK_ARG_INT, info->dim_int);
  }
  if (k->dims & TRAK_DIM_GPU) {
    arg_int(imp, set, "ugpu", TRAK_ARG_INT, info->lane);
    arg_int(imp, set, "gpu", TRAK_ARG_INT, info->dim_int);
    if (k->dims & TRAK_DIM_GPU_NAME) arg_str(imp, set, "name", info->name);
    if ((k->dims & TRAK_DIM_GPU_UPID) && upid != TRAK_NULL_U32)
      arg_int(imp, set, "upid", TRAK_ARG_INT, upid);
  }
  if (k->dims & TRAK_DIM_RENDER_STAGE) {
    arg_int(imp, set, "ugpu", TRAK_ARG_INT, info->lane);
    arg_int(imp, set, "gpu", TRAK_ARG_INT, t->gpu.gpu[info->lane]);
    arg_str(imp, set, "render_stage_source", info->scope);
    arg_int(imp, set, "hwqueue_id", TRAK_ARG_INT, info->dim_int);
    arg_str(imp, set, "hwqueue_name", info->dim_key);
    arg_int(imp, set, "track_compressor_idx", TRAK_ARG_INT, info->rank);
  }
  if (k->dims & TRAK_DIM_POWER_RAIL) {
    arg_str(imp, set, "name", info->dim_key);
    arg_int(imp, set, "session_uuid", TRAK_ARG_INT, info->dim_int);
  }
  if (k->dims & TRAK_DIM_ENERGY_CONSUMER)
    arg_int(imp, set, "energy_consumer_id", TRAK_ARG_INT, info->dim_int);
  if (k->dims & TRAK_DIM_UID) arg_int(imp, set, "uid", TRAK_ARG_INT, info->lane);
  if (k->dims & TRAK_DIM_ENTITY_STATE) {
    arg_str(imp, set, "entity_name", info->lane);
    arg_str(imp, set, "state_name", info->dim_key);
  }
  if (k->dims & TRAK_DIM_PERF) {
    arg_int(imp, set, "cpu", TRAK_ARG_INT, info->lane);
    arg_int(imp, set, "perf_session_id", TRAK_ARG_INT, info->dim_int);
    arg_str(imp, set, "name", info->name);
  }
  if (k->dims & TRAK_DIM_DRM_CRTC) arg_int(imp, set, "drm_crtc", TRAK_ARG_INT, info->lane);
  if (k->dims & TRAK_DIM_DRM_FENCE) {
    arg_str(imp, set, "name", info->dim_key);
    arg_int(imp, set, "context", TRAK_ARG_INT, info->lane);
  }
  t->track.dimension_arg_set_id[id] = trak__args_share(imp, set);
}

/* The source args of the tracks legacy Chrome events imply, as Perfetto writes them. */
static void chrome_source_args(trak_importer *imp, const trak_track_info *info, uint32_t id,
                               const trak_track_blueprint *k) {
  trak_tables *t = imp->tables;
  uint32_t set = (uint32_t)t->args.n;
  arg_str(imp, set, "source", str_id(imp, "chrome"));
  if (k->source == TRAK_SOURCE_CHROME_ASYNC) {
    arg_int(imp, set, "trace_id_is_process_scoped", TRAK_ARG_BOOL, info->is_process);
    arg_int(imp, set, "upid", TRAK_ARG_UINT, info->src_upid == TRAK_NULL_U32 ? 0 : info->src_upid);
    arg_str(imp, set, "source_scope", info->scope);
  }
  t->track.source_arg_set_id[id] = trak__args_share(imp, set);
}

/* The source args of the power HAL's tracks (proto/power_rails.c, proto/android_energy.c) and
** the perf profiler's counters (proto/perf_samples.c). */
static void device_source_args(trak_importer *imp, const trak_track_info *info, uint32_t id,
                               const trak_track_blueprint *k) {
  trak_tables *t = imp->tables;
  uint32_t set = (uint32_t)t->args.n;
  if (k->source == TRAK_SOURCE_POWER_RAIL) {
    arg_str(imp, set, "raw_name", info->dim_key);
    arg_str(imp, set, "subsystem_name", info->scope);
  } else if (k->source == TRAK_SOURCE_PERF) {
    arg_int(imp, set, "is_timebase", TRAK_ARG_BOOL, info->rank);
  } else {
    arg_str(imp, set, "consumer_type", info->scope);
    arg_int(imp, set, "ordinal", TRAK_ARG_INT, info->rank);
  }
  t->track.source_arg_set_id[id] = trak__args_share(imp, set);
}

/* A track's source arg description (its info's; none when it has none). */
static void description_source_args(trak_importer *imp, const trak_track_info *info,
                                    uint32_t id) {
  uint32_t set = (uint32_t)imp->tables->args.n;
  /* a GPU counter's, even NULL (Perfetto adds it whatever the spec says) */
  if (info->description || info->kind == TRAK_TK_GPU_COUNTER)
    arg_str(imp, set, "description", info->description);
  imp->tables->track.source_arg_set_id[id] = trak__args_share(imp, set);
}

/* The track infos' final ids: only tracks that events use become rows (as in Perfetto, which
** makes a track when an event first uses it), in the order the parse phase first used them,
** each after its parents. */
typedef struct track_order {
  int64_t first_ts;    /* INT64_MAX: unused */
  uint32_t first_name; /* name of its first event */
  uint32_t final;      /* row id, TRAK_NULL_U32 until assigned */
} track_order;

static uint32_t parent_index(trak_importer *imp, const trak_track_info *info) {
  if (!info->has_parent) return TRAK_NULL_U32;
  uint32_t *parent = trak__map_get(&imp->tracks.by_uuid, info->parent_uuid);
  return parent && imp->tracks.info.v[*parent].described ? *parent : TRAK_NULL_U32;
}

/* Writes the row of track `i` (its parents' first); returns its id. */
static uint32_t track_row(trak_importer *imp, track_order *ord, uint32_t i, int hops) {
  if (ord[i].final != TRAK_NULL_U32) return ord[i].final;
  trak_tables *t = imp->tables;
  trak_track_info *info = &imp->tracks.info.v[i];
  uint32_t parent = parent_index(imp, info);
  uint32_t parent_id = TRAK_NULL_U32;
  if (parent != TRAK_NULL_U32 && hops < 100) {
    trak_track_info *p = &imp->tracks.info.v[parent];
    /* A parent made for its child is made on the child's sequence, as Perfetto resolves it. */
    if (p->first_ts == INT64_MAX && ord[parent].final == TRAK_NULL_U32)
      p->first_seq_flagged = info->first_seq_flagged;
    uint32_t pid = track_row(imp, ord, parent, hops + 1);
    /* Children of root thread / process descriptors have no parent, for compatibility. */
    if (!p->is_thread && !p->is_process) parent_id = pid;
  }
  if (ord[i].final != TRAK_NULL_U32) return ord[i].final; /* a cycle made it already */
  uint32_t utid, upid;
  track_scope(imp, i, &utid, &upid);
  trak_track_kind kind;
  if (info->is_counter)
    kind = utid != TRAK_NULL_U32   ? TRAK_TRACK_THREAD_COUNTER
           : upid != TRAK_NULL_U32 ? TRAK_TRACK_PROCESS_COUNTER
                                   : TRAK_TRACK_COUNTER;
  else if (info->is_state)
    kind = utid != TRAK_NULL_U32   ? TRAK_TRACK_THREAD_STATE
           : upid != TRAK_NULL_U32 ? TRAK_TRACK_PROCESS_STATE
                                   : TRAK_TRACK_STATE;
  else
    kind = utid != TRAK_NULL_U32   ? TRAK_TRACK_THREAD
           : upid != TRAK_NULL_U32 ? TRAK_TRACK_PROCESS
                                   : TRAK_TRACK_GLOBAL;
  uint32_t id = trak__track_add(t, kind);
  ord[i].final = id;
  const trak_track_blueprint *k = &trak__track_kinds[track_kind(info, utid, upid)];
  t->track.type[id] = str_id(imp, k->type);
  t->track.name[id] = info->name;
  /* A track of events with no name of its own takes its first event's (not root thread or
  ** process tracks, nor counters), as Perfetto names it. */
  if (!info->name && !info->is_counter && !info->is_thread && !info->is_process && !info->kind)
    t->track.name[id] = ord[i].first_name;
  /* Unnamed thread-time counters get Perfetto's names for them. */
  if (!info->name && info->counter_type == TRAK_PB_CounterDescriptor_COUNTER_THREAD_TIME_NS)
    t->track.name[id] = str_id(imp, "thread_time");
  if (!info->name &&
      info->counter_type == TRAK_PB_CounterDescriptor_COUNTER_THREAD_INSTRUCTION_COUNT)
    t->track.name[id] = str_id(imp, "thread_instruction_count");
  /* process memory tracks carry Perfetto's description of their key */
  if (!info->description && info->kind == TRAK_TK_PROCESS_MEMORY && info->dim_key) {
    const char *text = trak__process_memory_description(trak__str(&t->strings, info->dim_key));
    if (text) info->description = str_id(imp, text);
  }
  t->track.description[id] = info->description;
  t->track.unit[id] = info->unit;
  /* Builtin thread-time and instruction-count counters have Perfetto's units. */
  if (!info->unit && !info->kind &&
      info->counter_type == TRAK_PB_CounterDescriptor_COUNTER_THREAD_TIME_NS)
    t->track.unit[id] = str_id(imp, "ns");
  if (!info->unit && !info->kind &&
      info->counter_type == TRAK_PB_CounterDescriptor_COUNTER_THREAD_INSTRUCTION_COUNT)
    t->track.unit[id] = str_id(imp, "count");
  t->track.utid[id] = utid;
  t->track.upid[id] = upid;
  t->track.machine_id[id] = info->machine;
  t->track.parent_id[id] = parent_id;
  t->track.track_group_id[id] = info->group ? info->group - 1 : TRAK_NULL_U32;
  if (!info->described)
    trak__report_at(imp, TRAK_STAT_UNKNOWN_TRACK, info->first_pkt,
                    "events use track uuid %llu, which no track_descriptor describes",
                    (unsigned long long)info->uuid);
  /* dimensions first: Perfetto makes them before it makes the track and its source args */
  dimension_args(imp, info, id, k, utid, upid);
  if (k->source == TRAK_SOURCE_DESCRIPTOR)
    track_source_args(imp, info, id);
  else if (k->source == TRAK_SOURCE_POWER_RAIL || k->source == TRAK_SOURCE_ENERGY_CONSUMER ||
           k->source == TRAK_SOURCE_PERF)
    device_source_args(imp, info, id, k);
  else if (k->source == TRAK_SOURCE_DESCRIPTION)
    description_source_args(imp, info, id);
  else if (k->source != TRAK_SOURCE_NONE)
    chrome_source_args(imp, info, id, k);
  return id;
}

void trak__track_orphan_report(trak_importer *imp, uint32_t track, uint64_t packet) {
  trak_tables *t = imp->tables;
  const trak_track_info *info = &imp->tracks.info.v[track];
  trak_stat_id stat = TRAK_STAT_TRACK_PARENT_UNKNOWN;
  if (info->orphan == TRAK_ORPHAN_LOOP) {
    stat = TRAK_STAT_TRACK_HIERARCHY_LOOP;
    trak__report_at(imp, stat, packet,
                    "track uuid %llu: its parent chain loops back to uuid %llu, which is its "
                    "own ancestor; dropped",
                    (unsigned long long)info->uuid, (unsigned long long)info->orphan_uuid);
  } else if (info->orphan == TRAK_ORPHAN_TOO_DEEP) {
    stat = TRAK_STAT_TRACK_HIERARCHY_TOO_DEEP;
    trak__report_at(imp, stat, packet,
                    "track uuid %llu has more than %d ancestors (the limit); dropped",
                    (unsigned long long)info->uuid, TRAK_LIMIT_TRACK_ANCESTORS);
  } else {
    trak__report_at(imp, stat, packet,
                    "track uuid %llu: its ancestor uuid %llu is never described; dropped",
                    (unsigned long long)info->uuid, (unsigned long long)info->orphan_uuid);
  }
  imp->stats[TRAK_STAT_BAD_TYPE]++; /* Perfetto's track_event_parser_errors */
  uint32_t set = (uint32_t)t->args.n;
  arg_int(imp, set, "track_uuid", TRAK_ARG_UINT, (int64_t)info->uuid);
  trak_vec_push(imp->import_logs,
                ((trak_import_log){INT64_MIN, stat, trak__args_share(imp, set), -1}));
}

/* Why track `i`'s ancestors cannot be resolved (TRAK_ORPHAN_*, 0: they can), walking at most
** TRAK_LIMIT_TRACK_ANCESTORS parents as Perfetto does, in a loop (never recursion). A track met
** twice on the walk is a loop; `mark` (one entry per track) remembers the walk (stamp) that met
** each track, so a loop is found in the walk's own length. *culprit is the uuid at fault. */
static int orphaned(trak_importer *imp, uint32_t i, uint32_t *mark, uint32_t stamp,
                    uint64_t *culprit) {
  for (int hops = 0; hops <= TRAK_LIMIT_TRACK_ANCESTORS; hops++) {
    const trak_track_info *info = &imp->tracks.info.v[i];
    if (!info->has_parent) return 0;
    if (mark[i] == stamp) {
      *culprit = info->uuid;
      return TRAK_ORPHAN_LOOP;
    }
    mark[i] = stamp;
    const uint32_t *parent = trak__map_get(&imp->tracks.by_uuid, info->parent_uuid);
    if (!parent || !imp->tracks.info.v[*parent].described) {
      *culprit = info->parent_uuid;
      return TRAK_ORPHAN_MISSING;
    }
    i = *parent;
  }
  return TRAK_ORPHAN_TOO_DEEP;
}

void trak__tracks_check_hierarchy(trak_importer *imp) {
  uint32_t *mark = calloc(imp->tracks.info.n ? imp->tracks.info.n : 1, sizeof *mark);
  if (!mark) abort();
  for (uint32_t i = 0; i < imp->tracks.info.n; i++) {
    trak_track_info *info = &imp->tracks.info.v[i];
    info->parse_plain = 0; /* the parse phase's tests of the track start over (orphan set here) */
    /* A named descriptor track that merges by name with its siblings is a cookie of Perfetto's
    ** track compressor: siblings of one name share tracks while they do not overlap. */
    if (!info->kind && !info->is_legacy_thread && !info->is_counter && !info->is_state &&
        !info->is_thread && !info->is_process && !info->merge_none && info->name)
      info->compressed = 1;
    if (!info->has_parent) continue;
    uint64_t culprit = 0;
    int why = orphaned(imp, i, mark, i + 1, &culprit);
    if (!why) continue;
    info->orphan = (uint8_t)why;
    info->orphan_uuid = culprit;
    for (uint32_t d = 0; d < info->n_descriptors; d++)
      trak__track_orphan_report(imp, i, info->first_pkt);
  }
  free(mark);
}

/* With the root descriptor's process_ordering / thread_ordering EXPLICIT, a process or thread
** descriptor's sibling_order_rank becomes its process_sort_index_hint / thread_sort_index_hint
** arg, as Perfetto writes them when the import ends. */
static void sort_index_hints(trak_importer *imp) {
  trak_tables *t = imp->tables;
  for (uint32_t i = 0; i < imp->tracks.info.n; i++) {
    const trak_track_info *info = &imp->tracks.info.v[i];
    if (!info->has_rank) continue;
    int thread = info->is_thread && imp->tracks.thread_ordering_explicit;
    int process = info->is_process && imp->tracks.process_ordering_explicit;
    if (!thread && !process) continue;
    uint32_t *slot =
        thread ? &t->thread.arg_set_id[info->utid] : &t->process.arg_set_id[info->upid];
    uint32_t set = (uint32_t)t->args.n;
    arg_int(imp, set, thread ? "thread_sort_index_hint" : "process_sort_index_hint", TRAK_ARG_INT,
            info->rank);
    set = trak__args_share(imp, set);
    *slot = trak__args_merge(imp, *slot, set);
  }
}

/* The track_id column `col` of n rows, from track indexes to the rows `row_of` gives them. */
static void renumber(uint32_t *col, size_t n, const uint32_t *row_of) {
  for (size_t r = 0; r < n; r++)
    col[r] = row_of[col[r]];
}

/* The tables' track_id columns from track indexes to rows (a track_ids job): what the other core
** does while the arg sets are placed (trak__arg_order_apply). */
typedef struct track_ids {
  trak_tables *t;
  const uint32_t *row_of;
} track_ids;

static void *renumber_track_ids(void *arg) {
  const track_ids *j = arg;
  trak_tables *t = j->t;
  renumber(t->slice.track_id, t->slice.n, j->row_of);
  renumber(t->counter.track_id, t->counter.n, j->row_of);
  renumber(t->state.track_id, t->state.n, j->row_of);
  renumber(t->gpu_counter_group.track_id, t->gpu_counter_group.n, j->row_of);
  return NULL;
}

void trak__tracks_finish(trak_importer *imp) {
  trak_tables *t = imp->tables;
  sort_index_hints(imp);
  size_t n = imp->tracks.info.n;
  track_order *ord = malloc((n ? n : 1) * sizeof *ord);
  uint32_t *used = malloc((n ? n : 1) * sizeof *used); /* track index by order of first use */
  if (!ord || !used) abort();
  for (size_t i = 0; i < n; i++)
    ord[i] = (track_order){imp->tracks.info.v[i].first_ts, imp->tracks.info.v[i].first_name,
                           TRAK_NULL_U32};
  for (uint32_t i = 0; i < n; i++)
    if (ord[i].first_ts != INT64_MAX) used[imp->tracks.info.v[i].first_order] = i;
  /* Perfetto keeps JSON counter values and the kernel's process counters until the import ends
  ** (their process may be learnt late), so the tracks they make are made after all others. */
  uint32_t n_early = 0;
  for (int late = 0; late < 2; late++) {
    for (size_t k = 0; k < imp->tracks.n_used; k++) {
      const trak_track_info *info = &imp->tracks.info.v[used[k]];
      int at_end = info->kind == TRAK_TK_JSON_COUNTER || info->made_at_end;
      if (at_end == late) track_row(imp, ord, used[k], 0);
    }
    if (!late) n_early = (uint32_t)t->track.n;
  }
  int same = 1; /* every track's row is its index: the track_id columns hold rows already */
  for (size_t i = 0; i < n; i++) { /* `used` is free to hold the rows of track indexes now */
    used[i] = ord[i].final;
    same &= used[i] == i;
  }
  track_ids ids = {t, used};
  trak__arg_order_apply(imp, used, n_early, same ? NULL : renumber_track_ids, &ids);
  free(ord);
  free(used);
  if (imp->json) trak__threads_json_order(imp);
}

void trak__tracks_free(trak_tracks *tr) {
  for (size_t i = 0; i < tr->info.n; i++)
    free(tr->info.v[i].open);
  trak_vec_free(tr->info);
  trak__map_free(&tr->by_uuid);
  trak__map_free(&tr->legacy_thread);
  trak__map_free(&tr->thread_uuid);
  trak__map_free(&tr->process_uuid);
  trak_vec_free(tr->pending_passthrough);
}

uint32_t trak__system_counter_track(trak_importer *imp, trak_track_kind_id kind, uint32_t upid,
                                    uint32_t lane, uint32_t key, uint32_t name) {
  /* without a key, the key of ftrace's per-CPU tracks (ftrace/cpu_counters.c): one cpufreq
  ** track for both sources */
  uint64_t track_key = upid != TRAK_NULL_U32 ? trak__track_key(kind, upid, key)
                       : key
                           ? trak__track_key(kind, (uint64_t)imp->threads.machine << 32 | lane, key)
                           : trak__track_key(kind, imp->threads.machine, lane);
  uint32_t *known = trak__map_get(&imp->tracks.by_uuid, track_key);
  if (known) return *known;
  uint32_t track = trak__keyed_track(imp, track_key, name, upid, 1, kind);
  trak_track_info *info = &imp->tracks.info.v[track];
  info->lane = lane;
  info->dim_key = key;
  info->machine = imp->threads.machine;
  return track;
}

uint32_t trak__dim_counter_track(trak_importer *imp, trak_track_kind_id kind, uint64_t a,
                                 uint64_t b, uint32_t name, int *made) {
  uint64_t track_key = trak__track_key(kind, trak__mix(imp->threads.machine, a), b);
  uint32_t *known = trak__map_get(&imp->tracks.by_uuid, track_key);
  *made = !known;
  if (known) return *known;
  uint32_t track = trak__keyed_track(imp, track_key, name, TRAK_NULL_U32, 1, kind);
  imp->tracks.info.v[track].machine = imp->threads.machine;
  return track;
}

void trak__track_made_now(trak_importer *imp, uint32_t track) {
  trak_track_info *info = &imp->tracks.info.v[track];
  if (info->first_ts != INT64_MAX) return;
  info->first_ts = imp->latest_ts;
  info->first_order = imp->tracks.n_used++;
  trak__arg_order_log(imp, TRAK_ARG_ORDER_TRACK, track);
}
