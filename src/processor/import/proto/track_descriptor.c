/*
** This file holds TrackDescriptor decoding: its identity fields (uuid, thread, process, their
** Chrome extensions, counter, state, merge behaviour) first, then its names, description,
** ordering and counter details into the track's info. Which thread, process and track the
** descriptor names is import/tracks.c's (trak__descriptor_thread, ...), names' priorities
** import/threads.c's.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/proto/proto.h"

static uint32_t intern_field(trak_importer *imp, const trak_pb_field *f) {
  return trak__strpool_intern(&imp->tables->strings, (const char *)f->data, f->len);
}

/* A sibling_merge_key as Perfetto keeps it: the string, or "sibling_merge_key_int:N". */
static uint32_t merge_key(trak_importer *imp, const trak_pb_field *f) {
  if (f->wire_type == TRAK_PB_WIRE_LEN) return intern_field(imp, f);
  char buf[48];
  int n = snprintf(buf, sizeof buf, "sibling_merge_key_int:%llu", (unsigned long long)f->value);
  return trak__strpool_intern(&imp->tables->strings, buf, (size_t)n);
}

/* A ProcessDescriptor's fields. */
typedef struct process_fields {
  int64_t pid;
  uint8_t has_pid;
  uint32_t name; /* string id, 0: none */
  uint32_t cmdline;
  uint32_t cmd0; /* the command line's first word, 0: none */
} process_fields;

static void process_fields_decode(trak_importer *imp, const trak_span *span, process_fields *pf) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, span->data, span->len);
  char cmdline[1024];
  size_t cmd_len = 0, first = 0;
  memset(pf, 0, sizeof *pf);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_ProcessDescriptor_pid && f.wire_type == TRAK_PB_WIRE_VARINT)
      pf->pid = trak_pb_as_int32(&f), pf->has_pid = 1;
    else if (f.number == TRAK_PB_ProcessDescriptor_process_name &&
             f.wire_type == TRAK_PB_WIRE_LEN && f.len)
      pf->name = intern_field(imp, &f);
    else if (f.number == TRAK_PB_ProcessDescriptor_cmdline && f.wire_type == TRAK_PB_WIRE_LEN &&
             cmd_len + f.len + 1 < sizeof cmdline) {
      if (cmd_len)
        cmdline[cmd_len++] = ' ';
      else
        first = f.len;
      memcpy(cmdline + cmd_len, f.data, f.len);
      cmd_len += f.len;
    }
  }
  trak_strpool *sp = &imp->tables->strings;
  if (cmd_len) pf->cmdline = trak__strpool_intern(sp, cmdline, cmd_len);
  if (first) pf->cmd0 = trak__strpool_intern(sp, cmdline, first);
}

/* A ThreadDescriptor's fields. */
typedef struct thread_fields {
  int64_t pid, tid;
  uint8_t has_pid, has_tid;
  uint32_t name; /* string id, 0: none */
} thread_fields;

static void thread_fields_decode(trak_importer *imp, const trak_span *span, thread_fields *tf) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, span->data, span->len);
  memset(tf, 0, sizeof *tf);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_ThreadDescriptor_pid && f.wire_type == TRAK_PB_WIRE_VARINT)
      tf->pid = trak_pb_as_int32(&f), tf->has_pid = 1;
    else if (f.number == TRAK_PB_ThreadDescriptor_tid && f.wire_type == TRAK_PB_WIRE_VARINT)
      tf->tid = trak_pb_as_int64(&f), tf->has_tid = 1;
    else if (f.number == TRAK_PB_ThreadDescriptor_thread_name && f.wire_type == TRAK_PB_WIRE_LEN &&
             f.len)
      tf->name = intern_field(imp, &f);
  }
}

uint32_t trak__thread_descriptor_add(trak_importer *imp, const uint8_t *data, size_t len) {
  trak_span span = {data, len};
  thread_fields tf;
  thread_fields_decode(imp, &span, &tf);
  uint32_t utid = trak__thread_for_tid(imp, tf.tid, tf.has_pid ? tf.pid : -1);
  if (tf.name) imp->tables->thread.name[utid] = tf.name;
  return utid;
}

static void counter_descriptor(trak_importer *imp, trak_track_info *info, const trak_span *outer) {
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

/* The fields of a TrackDescriptor that decide its identity, read before the rest. */
typedef struct descriptor_fields {
  uint64_t uuid;
  trak_span thread, process, chrome_thread, chrome_process, counter;
  uint32_t merge;   /* sibling_merge_behavior */
  uint8_t separate; /* disallow_merging_with_system_tracks */
  uint8_t state;    /* a state track */
} descriptor_fields;

/* Whether a ChromeThreadDescriptor says the tid was read in a sandbox. */
static int chrome_thread_sandboxed(trak_importer *imp, const trak_span *span) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int sandboxed = 0;
  trak__dec_init(imp, &dec, span->data, span->len);
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_ChromeThreadDescriptor_is_sandboxed_tid &&
        f.wire_type == TRAK_PB_WIRE_VARINT)
      sandboxed = f.value != 0;
  return sandboxed;
}

static int descriptor_fields_decode(trak_importer *imp, const uint8_t *data, size_t len,
                                    descriptor_fields *df) {
  trak_pb_decoder dec;
  trak_pb_field f;
  int rc;
  memset(df, 0, sizeof *df);
  trak__dec_init(imp, &dec, data, len);
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    trak_span span = {f.data, f.len};
    int is_len = f.wire_type == TRAK_PB_WIRE_LEN;
    switch (f.number) {
    case TRAK_PB_TrackDescriptor_uuid:
      if (f.wire_type == TRAK_PB_WIRE_VARINT) df->uuid = f.value;
      break;
    case TRAK_PB_TrackDescriptor_thread:
      if (is_len) df->thread = span;
      break;
    case TRAK_PB_TrackDescriptor_process:
      if (is_len) df->process = span;
      break;
    case TRAK_PB_TrackDescriptor_chrome_thread:
      if (is_len) df->chrome_thread = span;
      break;
    case TRAK_PB_TrackDescriptor_chrome_process:
      if (is_len) df->chrome_process = span;
      break;
    case TRAK_PB_TrackDescriptor_counter:
      if (is_len) df->counter = span;
      break;
    case TRAK_PB_TrackDescriptor_state:
      df->state = is_len;
      break;
    case TRAK_PB_TrackDescriptor_sibling_merge_behavior:
      df->merge = (uint32_t)f.value;
      break;
    case TRAK_PB_TrackDescriptor_disallow_merging_with_system_tracks:
      df->separate = f.value != 0;
      break;
    default:
      break;
    }
  }
  return rc;
}

void trak__track_descriptor_add(trak_importer *imp, trak_sequence *seq, const uint8_t *data,
                                size_t len) {
  descriptor_fields df;
  if (descriptor_fields_decode(imp, data, len, &df) < 0) {
    trak__report(imp, TRAK_STAT_PACKET_MALFORMED, "track_descriptor is malformed");
    return;
  }
  uint32_t utid = TRAK_NULL_U32, upid = TRAK_NULL_U32, index;
  if (df.thread.data) {
    thread_fields tf;
    thread_fields_decode(imp, &df.thread, &tf);
    if (!tf.has_pid || !tf.has_tid) {
      trak__report(imp, TRAK_STAT_THREAD_MISSING_PID_TID,
                   "track_descriptor uuid %llu has a thread without pid or tid; skipped",
                   (unsigned long long)df.uuid);
      return;
    }
    trak_thread_desc td = {df.uuid, tf.pid, tf.tid, tf.name, df.chrome_thread.data != NULL, 0};
    if (td.has_chrome_thread)
      td.sandboxed = (uint8_t)chrome_thread_sandboxed(imp, &df.chrome_thread);
    int other;
    utid = trak__descriptor_thread(imp, &td, &other);
    if (td.has_chrome_thread)
      trak__chrome_thread_descriptor(imp, utid, df.chrome_thread.data, df.chrome_thread.len);
    upid = imp->tables->thread.upid[utid];
    index =
        trak__descriptor_thread_track(imp, seq, &td, utid, other, !df.counter.data && !df.separate);
  } else if (df.process.data) {
    process_fields pf;
    process_fields_decode(imp, &df.process, &pf);
    if (!pf.has_pid) {
      trak__report(imp, TRAK_STAT_PROCESS_MISSING_PID,
                   "track_descriptor uuid %llu has a process without pid; skipped",
                   (unsigned long long)df.uuid);
      return;
    }
    upid = trak__descriptor_process(imp, df.uuid, pf.pid, pf.name);
    trak__process_labels(imp, upid, df.process.data, df.process.len);
    if (df.chrome_process.data)
      trak__chrome_process_descriptor(imp, upid, df.chrome_process.data, df.chrome_process.len);
    index = trak__track_for_uuid(imp, df.uuid);
  } else {
    index = trak__track_for_uuid(imp, df.uuid);
  }
  trak_track_info *info = trak__track_described(imp, index, utid, upid);
  if (df.counter.data) counter_descriptor(imp, info, &df.counter);
  if (df.state) info->is_state = 1;
  int keep_name = df.merge != TRAK_PB_TrackDescriptor_SIBLING_MERGE_BEHAVIOR_NONE;
  info->merge_none = !keep_name;
  trak_pb_decoder dec;
  trak_pb_field f;
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
      /* The first non-empty name sticks, unless the track never merges with siblings. */
      if (f.wire_type == TRAK_PB_WIRE_LEN && f.len && !(info->name && keep_name))
        info->name = intern_field(imp, &f);
      break;
    case TRAK_PB_TrackDescriptor_description:
      if (f.wire_type == TRAK_PB_WIRE_LEN) info->description = intern_field(imp, &f);
      break;
    case TRAK_PB_TrackDescriptor_sibling_merge_key:
    case TRAK_PB_TrackDescriptor_sibling_merge_key_int:
      if (df.merge == TRAK_PB_TrackDescriptor_SIBLING_MERGE_BEHAVIOR_BY_SIBLING_MERGE_KEY)
        info->merge_key = merge_key(imp, &f);
      break;
    case TRAK_PB_TrackDescriptor_child_ordering:
      info->child_ordering = (uint8_t)f.value;
      break;
    case TRAK_PB_TrackDescriptor_sibling_order_rank:
      info->rank = trak_pb_as_int32(&f);
      info->has_rank = 1;
      break;
    case TRAK_PB_TrackDescriptor_process_ordering:
      if (df.uuid == 0) imp->tracks.process_ordering_explicit = f.value == 1;
      break;
    case TRAK_PB_TrackDescriptor_thread_ordering:
      if (df.uuid == 0) imp->tracks.thread_ordering_explicit = f.value == 1;
      break;
    default:
      break;
    }
  }
}
