/*
** This file holds tracks, threads and processes: TrackDescriptor packets (thread, process,
** custom tracks nested to any depth, counter tracks), deduplication of threads by tid and
** processes by pid, and the final track table with each track's type and scope.
*/
#include <string.h>

#include "processor/import/import.h"

uint32_t trak__process_for_pid(trak_importer *imp, int64_t pid) {
  int added;
  uint32_t *slot = trak__map_put(&imp->pid_index, (uint64_t)pid, 0, &added);
  if (added) *slot = trak__process_add(imp->tables, pid);
  return *slot;
}

uint32_t trak__thread_for_tid(trak_importer *imp, int64_t tid, int64_t pid) {
  int added;
  uint32_t *slot = trak__map_put(&imp->tid_index, (uint64_t)tid, 0, &added);
  if (added) *slot = trak__thread_add(imp->tables, tid);
  uint32_t utid = *slot;
  if (pid >= 0) {
    imp->tables->thread.upid[utid] = trak__process_for_pid(imp, pid);
    imp->tables->thread.is_main[utid] = tid == pid;
  }
  return utid;
}

static uint32_t track_new(trak_importer *imp, uint64_t uuid) {
  trak_track_info info;
  memset(&info, 0, sizeof info);
  info.uuid = uuid;
  info.utid = info.upid = TRAK_NULL_U32;
  info.multiplier = 1;
  info.last_file_ts = INT64_MIN;
  info.first_pkt = imp->packet_index;
  trak_vec_push(imp->tracks, info);
  return (uint32_t)(imp->tracks.n - 1);
}

uint32_t trak__track_for_uuid(trak_importer *imp, uint64_t uuid) {
  int added;
  uint32_t *slot = trak__map_put(&imp->track_index, uuid, 0, &added);
  if (added) *slot = track_new(imp, uuid);
  return *slot;
}

uint32_t trak__legacy_thread_track(trak_importer *imp, uint32_t utid) {
  int added;
  uint32_t *slot = trak__map_put(&imp->thread_track_index, utid, 0, &added);
  if (added) {
    uint32_t t = track_new(imp, 0);
    *slot = t;
    trak_track_info *info = &imp->tracks.v[t];
    info->described = info->is_thread = info->is_legacy_thread = 1;
    info->utid = utid;
  }
  return *slot;
}

uint32_t trak__keyed_track(trak_importer *imp, uint64_t key, uint32_t name, uint32_t upid,
                           int is_counter) {
  uint32_t track = trak__track_for_uuid(imp, key | 1ULL << 63);
  trak_track_info *info = &imp->tracks.v[track];
  if (!info->described) {
    info->described = 1;
    info->name = name;
    info->is_counter = (uint8_t)is_counter;
    if (upid != TRAK_NULL_U32) info->is_process = 1, info->upid = upid;
  } else if (!info->name) {
    info->name = name; /* made by an unnamed event (an end): the first name names it */
  }
  return track;
}

static uint32_t intern_field(trak_importer *imp, const trak_pb_field *f) {
  return trak__strpool_intern(&imp->tables->strings, (const char *)f->data, f->len);
}

/* Decodes a ProcessDescriptor into the process table; returns the upid. */
static uint32_t process_descriptor(trak_importer *imp, const trak_pb_field *outer) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, outer->data, outer->len);
  int64_t pid = 0;
  uint32_t name = 0;
  char cmdline[1024];
  size_t cmd_len = 0;
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_ProcessDescriptor_pid && f.wire_type == TRAK_PB_WIRE_VARINT)
      pid = trak_pb_as_int32(&f);
    else if (f.number == TRAK_PB_ProcessDescriptor_process_name && f.wire_type == TRAK_PB_WIRE_LEN)
      name = intern_field(imp, &f);
    else if (f.number == TRAK_PB_ProcessDescriptor_cmdline && f.wire_type == TRAK_PB_WIRE_LEN &&
             cmd_len + f.len + 1 < sizeof cmdline) {
      if (cmd_len) cmdline[cmd_len++] = ' ';
      memcpy(cmdline + cmd_len, f.data, f.len);
      cmd_len += f.len;
    }
  }
  trak_tables *t = imp->tables;
  uint32_t upid = trak__process_for_pid(imp, pid);
  if (cmd_len) t->process.cmdline[upid] = trak__strpool_intern(&t->strings, cmdline, cmd_len);
  if (!name && cmd_len) {
    size_t first = 0;
    while (first < cmd_len && cmdline[first] != ' ')
      first++;
    name = trak__strpool_intern(&t->strings, cmdline, first);
  }
  if (name) t->process.name[upid] = name;
  return upid;
}

/* Decodes a ThreadDescriptor into the thread table; returns the utid. */
static uint32_t thread_descriptor(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  int64_t pid = -1, tid = 0;
  uint32_t name = 0;
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_ThreadDescriptor_pid && f.wire_type == TRAK_PB_WIRE_VARINT)
      pid = trak_pb_as_int32(&f);
    else if (f.number == TRAK_PB_ThreadDescriptor_tid && f.wire_type == TRAK_PB_WIRE_VARINT)
      tid = trak_pb_as_int64(&f);
    else if (f.number == TRAK_PB_ThreadDescriptor_thread_name && f.wire_type == TRAK_PB_WIRE_LEN)
      name = intern_field(imp, &f);
  }
  uint32_t utid = trak__thread_for_tid(imp, tid, pid);
  if (name) imp->tables->thread.name[utid] = name;
  return utid;
}

uint32_t trak__thread_descriptor_add(trak_importer *imp, const uint8_t *data, size_t len) {
  return thread_descriptor(imp, data, len);
}

static void counter_descriptor(trak_importer *imp, trak_track_info *info,
                               const trak_pb_field *outer) {
  static const char *const units[] = {NULL, "ns", "count", "bytes"};
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, outer->data, outer->len);
  info->is_counter = 1;
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_CounterDescriptor_unit && f.wire_type == TRAK_PB_WIRE_VARINT) {
      if (f.value < 4 && units[f.value] && !info->unit)
        info->unit =
            trak__strpool_intern(&imp->tables->strings, units[f.value], strlen(units[f.value]));
    } else if (f.number == TRAK_PB_CounterDescriptor_type && f.wire_type == TRAK_PB_WIRE_VARINT) {
      info->counter_type = (uint8_t)f.value;
      if (f.value == TRAK_PB_CounterDescriptor_COUNTER_THREAD_TIME_NS ||
          f.value == TRAK_PB_CounterDescriptor_COUNTER_THREAD_INSTRUCTION_COUNT)
        trak__tables_thread_time(imp->tables);
    } else if (f.number == TRAK_PB_CounterDescriptor_unit_name && f.wire_type == TRAK_PB_WIRE_LEN) {
      info->unit = intern_field(imp, &f);
    } else if (f.number == TRAK_PB_CounterDescriptor_unit_multiplier &&
               f.wire_type == TRAK_PB_WIRE_VARINT) {
      info->multiplier = trak_pb_as_int64(&f) ? trak_pb_as_int64(&f) : 1;
    } else if (f.number == TRAK_PB_CounterDescriptor_is_incremental &&
               f.wire_type == TRAK_PB_WIRE_VARINT) {
      info->is_incremental = trak_pb_as_bool(&f);
    }
  }
}

void trak__track_descriptor_add(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  uint64_t uuid = 0;
  int rc;
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0)
    if (f.number == TRAK_PB_TrackDescriptor_uuid && f.wire_type == TRAK_PB_WIRE_VARINT)
      uuid = f.value;
  if (rc < 0 || uuid == 0) {
    trak__report(imp, TRAK_STAT_PACKET_MALFORMED, "track_descriptor %s",
                 rc < 0 ? "is malformed" : "has no uuid");
    return;
  }
  uint32_t index = trak__track_for_uuid(imp, uuid);
  trak_track_info *info = &imp->tracks.v[index];
  if (!info->described) info->first_pkt = imp->packet_index;
  info->described = 1;
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    switch (f.number) {
    case TRAK_PB_TrackDescriptor_parent_uuid:
      info->parent_uuid = f.value;
      info->has_parent = f.value != 0;
      break;
    case TRAK_PB_TrackDescriptor_name:
    case TRAK_PB_TrackDescriptor_static_name:
    case TRAK_PB_TrackDescriptor_atrace_name:
      if (f.wire_type == TRAK_PB_WIRE_LEN) info->name = intern_field(imp, &f);
      break;
    case TRAK_PB_TrackDescriptor_description:
      if (f.wire_type == TRAK_PB_WIRE_LEN) info->description = intern_field(imp, &f);
      break;
    case TRAK_PB_TrackDescriptor_process:
      if (f.wire_type == TRAK_PB_WIRE_LEN) {
        info->upid = process_descriptor(imp, &f);
        info->is_process = 1;
      }
      break;
    case TRAK_PB_TrackDescriptor_thread:
      if (f.wire_type == TRAK_PB_WIRE_LEN) {
        info->utid = thread_descriptor(imp, f.data, f.len);
        info->upid = imp->tables->thread.upid[info->utid];
        info->is_thread = 1;
      }
      break;
    case TRAK_PB_TrackDescriptor_counter:
      if (f.wire_type == TRAK_PB_WIRE_LEN) counter_descriptor(imp, info, &f);
      break;
    case TRAK_PB_TrackDescriptor_child_ordering:
      info->child_ordering = (uint8_t)f.value;
      break;
    case TRAK_PB_TrackDescriptor_sibling_order_rank:
      info->rank = trak_pb_as_int32(&f);
      info->has_rank = 1;
      break;
    default:
      break;
    }
  }
}

/* The nearest thread or process scope among `i` and its ancestors (cycles are cut off). */
static void track_scope(trak_importer *imp, uint32_t i, uint32_t *utid, uint32_t *upid) {
  *utid = *upid = TRAK_NULL_U32;
  for (int hops = 0; hops < 256; hops++) {
    trak_track_info *info = &imp->tracks.v[i];
    if (info->is_thread) {
      *utid = info->utid;
      *upid = info->upid;
      return;
    }
    if (info->is_process) {
      *upid = info->upid;
      return;
    }
    uint32_t *parent =
        info->has_parent ? trak__map_get(&imp->track_index, info->parent_uuid) : NULL;
    if (!parent) return;
    i = *parent;
  }
}

static uint32_t str_id(trak_importer *imp, const char *s) {
  return trak__strpool_intern(&imp->tables->strings, s, strlen(s));
}

/* The viewer hints of a track (child_ordering, sibling_order_rank) as its source arg set. */
static void track_hint_args(trak_importer *imp, const trak_track_info *info, uint32_t id) {
  static const char *const orderings[] = {"unknown", "lexicographic", "chronological", "explicit"};
  trak_tables *t = imp->tables;
  if (!info->child_ordering && !info->has_rank) return;
  uint32_t set = (uint32_t)t->args.n;
  if (info->child_ordering) {
    uint32_t key = str_id(imp, "child_ordering");
    uint32_t row = trak__arg_add(t, set, key, key, TRAK_ARG_STRING);
    t->args.string_value[row] =
        str_id(imp, info->child_ordering < 4 ? orderings[info->child_ordering] : "unknown");
  }
  if (info->has_rank) {
    uint32_t key = str_id(imp, "sibling_order_rank");
    uint32_t row = trak__arg_add(t, set, key, key, TRAK_ARG_INT);
    t->args.int_value[row] = info->rank;
  }
  t->track.source_arg_set_id[id] = set;
}

void trak__tracks_finish(trak_importer *imp) {
  trak_tables *t = imp->tables;
  for (uint32_t i = 0; i < imp->tracks.n; i++) {
    trak_track_info *info = &imp->tracks.v[i];
    uint32_t utid, upid;
    track_scope(imp, i, &utid, &upid);
    trak_track_kind kind;
    if (info->is_counter)
      kind = utid != TRAK_NULL_U32   ? TRAK_TRACK_THREAD_COUNTER
             : upid != TRAK_NULL_U32 ? TRAK_TRACK_PROCESS_COUNTER
                                     : TRAK_TRACK_COUNTER;
    else
      kind = utid != TRAK_NULL_U32   ? TRAK_TRACK_THREAD
             : upid != TRAK_NULL_U32 ? TRAK_TRACK_PROCESS
                                     : TRAK_TRACK_GLOBAL;
    uint32_t id = trak__track_add(t, kind);
    t->track.type[id] = info->type ? info->type : str_id(imp, trak__track_type_name(kind));
    t->track.name[id] = info->name;
    /* Unnamed thread-time counters get Perfetto's names for them. */
    if (!info->name && info->counter_type == TRAK_PB_CounterDescriptor_COUNTER_THREAD_TIME_NS)
      t->track.name[id] = str_id(imp, "thread_time");
    if (!info->name &&
        info->counter_type == TRAK_PB_CounterDescriptor_COUNTER_THREAD_INSTRUCTION_COUNT)
      t->track.name[id] = str_id(imp, "thread_instruction_count");
    t->track.description[id] = info->description;
    t->track.unit[id] = info->unit;
    t->track.utid[id] = utid;
    t->track.upid[id] = upid;
    if (info->has_parent) {
      uint32_t *parent = trak__map_get(&imp->track_index, info->parent_uuid);
      if (parent && imp->tracks.v[*parent].described)
        t->track.parent_id[id] = *parent;
      else
        trak__report_at(imp, TRAK_STAT_TRACK_PARENT_UNKNOWN, info->first_pkt,
                        "track uuid %llu names parent_uuid %llu, which is never described",
                        (unsigned long long)info->uuid, (unsigned long long)info->parent_uuid);
    }
    if (!info->described)
      trak__report_at(imp, TRAK_STAT_UNKNOWN_TRACK, info->first_pkt,
                      "events use track uuid %llu, which no track_descriptor describes",
                      (unsigned long long)info->uuid);
    track_hint_args(imp, info, id);
  }
}
