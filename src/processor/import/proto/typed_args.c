/*
** This file holds the typed arguments of a TrackEvent, the rows its arg set takes besides its
** debug annotations, with the keys and types of Perfetto's track event parser:
**   source_location_iid    source.file_name (string, '\' made '/'), source.function_name,
**                          source.line_number (uint);
**   source_location        source_location.file_name, .function_name, .line_number (uint):
**                          Perfetto reflects the inline message field by field;
**   log_message            track_event.log_message (the body), and with a source location
**                          track_event.log_message.file_name, .function_name, .line_number
**                          (int), track_event.priority (int) when prio is set;
**   correlation_id(_str)   correlation_id (string; a number n becomes "tp:#n");
**   legacy events          legacy_trace_source_id (int), legacy_event.passthrough_utid (uint),
**                          legacy_event.phase (string).
** Rows come in Perfetto's order: the typed ones, then debug.*, then the legacy passthrough.
*/
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "pb/schema.h"
#include "processor/import/proto/track_event.h"
#include "processor/tables/arg_value.h"

static const char *const key_names[TRAK_KEY_COUNT] = {
    [TRAK_KEY_SOURCE_FILE] = "source.file_name",
    [TRAK_KEY_SOURCE_FUNCTION] = "source.function_name",
    [TRAK_KEY_SOURCE_LINE] = "source.line_number",
    [TRAK_KEY_SOURCE_IID] = "source_location_iid",
    [TRAK_KEY_INLINE_FILE] = "source_location.file_name",
    [TRAK_KEY_INLINE_FUNCTION] = "source_location.function_name",
    [TRAK_KEY_INLINE_LINE] = "source_location.line_number",
    [TRAK_KEY_LOG_BODY] = "track_event.log_message.message",
    [TRAK_KEY_LOG_FILE] = "track_event.log_message.file_name",
    [TRAK_KEY_LOG_FUNCTION] = "track_event.log_message.function_name",
    [TRAK_KEY_LOG_LINE] = "track_event.log_message.line_number",
    [TRAK_KEY_LOG_PRIORITY] = "track_event.priority",
    [TRAK_KEY_CORRELATION] = "correlation_id",
    [TRAK_KEY_LEGACY_SOURCE_ID] = "legacy_trace_source_id",
    [TRAK_KEY_LEGACY_PASSTHROUGH_UTID] = "legacy_event.passthrough_utid",
    [TRAK_KEY_LEGACY_PHASE] = "legacy_event.phase",
    [TRAK_KEY_TASK_FILE] = "task.posted_from.file_name",
    [TRAK_KEY_TASK_FUNCTION] = "task.posted_from.function_name",
    [TRAK_KEY_TASK_LINE] = "task.posted_from.line_number",
    [TRAK_KEY_HISTOGRAM_NAME] = "chrome_histogram_sample.name",
};

static uint32_t intern(trak_importer *imp, const void *s, size_t len) {
  return trak__strpool_intern(&imp->tables->strings, (const char *)s, len);
}

/* Adds a row with a fixed key to the set being built; returns the row. */
static uint32_t row(trak_importer *imp, uint32_t set, int key, trak_arg_type type) {
  if (!imp->args.keys[key])
    imp->args.keys[key] = intern(imp, key_names[key], strlen(key_names[key]));
  return trak__arg_add(imp->tables, set, imp->args.keys[key], imp->args.keys[key], type);
}
static void add_string(trak_importer *imp, uint32_t set, int key, uint32_t str) {
  uint32_t r = row(imp, set, key, TRAK_ARG_STRING); /* before reading the column: it may move */
  trak__arg_set_str(imp->tables, r, str);
}
static void add_int(trak_importer *imp, uint32_t set, int key, trak_arg_type type, int64_t v) {
  uint32_t r = row(imp, set, key, type);
  trak__arg_set_int(imp->tables, r, v);
}

uint32_t trak__te_args_passthrough(trak_importer *imp, uint32_t set, uint32_t utid) {
  uint32_t out = (uint32_t)imp->tables->args.n;
  if (set != TRAK_NULL_U32) trak__args_copy(imp->tables, set, out);
  add_int(imp, out, TRAK_KEY_LEGACY_PASSTHROUGH_UTID, TRAK_ARG_UINT, utid);
  return trak__args_share(imp, out);
}

int trak__source_loc_decode(trak_importer *imp, const uint8_t *data, size_t len,
                            trak_source_loc *out, uint64_t *iid) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, data, len);
  memset(out, 0, sizeof *out);
  *iid = 0;
  int rc;
  while ((rc = trak_pb_decoder_next(&dec, &f)) > 0) {
    int is_len = f.wire_type == TRAK_PB_WIRE_LEN;
    if (f.number == TRAK_PB_SourceLocation_iid && !is_len)
      *iid = f.value;
    else if (f.number == TRAK_PB_SourceLocation_file_name && is_len)
      out->file = intern(imp, f.data, f.len);
    else if (f.number == TRAK_PB_SourceLocation_function_name && is_len)
      out->function = intern(imp, f.data, f.len);
    else if (f.number == TRAK_PB_SourceLocation_line_number && !is_len)
      out->line = (uint32_t)f.value, out->has_line = 1;
  }
  return rc;
}

/* An absent file name is an empty one, as Perfetto copies it into a std::string before
** interning it; absent names it interns directly (function names, a log message's file) are
** NULL (string id 0). */
static uint32_t str_or_empty(trak_importer *imp, uint32_t str) {
  return str ? str : intern(imp, "", 0);
}

uint32_t trak__source_path(trak_importer *imp, uint32_t file) {
  const trak_strpool *sp = &imp->tables->strings;
  if (!file || !memchr(sp->str.v[file], '\\', sp->len.v[file])) return str_or_empty(imp, file);
  char buf[4096];
  size_t n = sp->len.v[file] < sizeof buf ? sp->len.v[file] : sizeof buf;
  memcpy(buf, sp->str.v[file], n);
  for (size_t i = 0; i < n; i++)
    if (buf[i] == '\\') buf[i] = '/';
  return intern(imp, buf, n);
}

const trak_source_loc *trak__source_loc_get(trak_importer *imp, trak_sequence *seq, uint64_t iid) {
  uint32_t i = trak__interned_get(imp, seq, TRAK_INTERN_SOURCE_LOCATION, iid);
  return i && i < imp->source_locs.n ? &imp->source_locs.v[i] : NULL;
}

/* source.* from the interned location (the iid itself comes with the reflected fields, also
** when it is unknown, which Perfetto counts as a parser error; iid 0 is not even looked up, so
** no interned_data_tokenizer_errors). */
static void source_iid_args(trak_importer *imp, trak_sequence *seq, uint32_t set, uint64_t iid) {
  const trak_source_loc *loc = iid ? trak__source_loc_get(imp, seq, iid) : NULL;
  if (loc) {
    trak_source_loc l = *loc;
    add_string(imp, set, TRAK_KEY_SOURCE_FILE, trak__source_path(imp, l.file));
    add_string(imp, set, TRAK_KEY_SOURCE_FUNCTION, l.function);
    add_int(imp, set, TRAK_KEY_SOURCE_LINE, TRAK_ARG_UINT, l.line);
  } else {
    trak__report(imp, TRAK_STAT_BAD_TYPE, "source_location_iid %llu is not interned",
                 (unsigned long long)iid);
  }
}

/* The inline SourceLocation, field by field in wire order, as Perfetto's reflection does. */
static void source_inline_args(trak_importer *imp, uint32_t set, const trak_span *msg) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, msg->data, msg->len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    int is_len = f.wire_type == TRAK_PB_WIRE_LEN;
    if (f.number == TRAK_PB_SourceLocation_file_name && is_len)
      add_string(imp, set, TRAK_KEY_INLINE_FILE, intern(imp, f.data, f.len));
    else if (f.number == TRAK_PB_SourceLocation_function_name && is_len)
      add_string(imp, set, TRAK_KEY_INLINE_FUNCTION, intern(imp, f.data, f.len));
    else if (f.number == TRAK_PB_SourceLocation_line_number && !is_len)
      add_int(imp, set, TRAK_KEY_INLINE_LINE, TRAK_ARG_UINT, (uint32_t)f.value);
  }
}

/* A LogMessage: args, and a row of logs (its priority INFO unless it has one, its tag
** "<file>:<line>" of its source location), as Perfetto's importer writes them. Like Perfetto,
** it needs the event's thread. */
static void log_args(trak_importer *imp, trak_sequence *seq, uint32_t set, const trak_span *msg,
                     uint32_t utid, int64_t ts) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, msg->data, msg->len);
  uint64_t body_iid = 0, loc_iid = 0, prio = 0;
  int has_loc = 0, has_prio = 0;
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type == TRAK_PB_WIRE_LEN) continue;
    if (f.number == TRAK_PB_LogMessage_body_iid) body_iid = f.value;
    if (f.number == TRAK_PB_LogMessage_source_location_iid) loc_iid = f.value, has_loc = 1;
    if (f.number == TRAK_PB_LogMessage_prio) prio = f.value, has_prio = 1;
  }
  if (utid == TRAK_NULL_U32) {
    trak__report(imp, TRAK_STAT_BAD_TYPE,
                 "log_message on an event without a thread; left out of its args");
    return;
  }
  uint32_t body = trak__interned_get(imp, seq, TRAK_INTERN_LOG_BODY, body_iid);
  if (!body) { /* Perfetto also counts the message as a parser error */
    trak__report(imp, TRAK_STAT_BAD_TYPE, "log_message body iid %llu is not interned",
                 (unsigned long long)body_iid);
    return;
  }
  add_string(imp, set, TRAK_KEY_LOG_BODY, body);
  trak_log_row row = {ts,   utid,          has_prio ? (uint32_t)(prio <= 7 ? prio : 0) : 4,
                      0,    body,          TRAK_NULL_U32,
                      TRAK_LOG_ANDROID_LOGCAT};
  if (has_loc) {
    const trak_source_loc *loc = trak__source_loc_get(imp, seq, loc_iid);
    if (!loc) return;
    trak_source_loc l = *loc;
    const trak_strpool *sp = &imp->tables->strings;
    char tag[1024];
    int n = snprintf(tag, sizeof tag, "%.*s:%u", l.file ? (int)sp->len.v[l.file] : 0,
                     l.file ? sp->str.v[l.file] : "", l.line);
    row.tag = intern(imp, tag, (size_t)n < sizeof tag ? (size_t)n : sizeof tag - 1);
    add_string(imp, set, TRAK_KEY_LOG_FILE, l.file);
    add_string(imp, set, TRAK_KEY_LOG_FUNCTION, l.function);
    add_int(imp, set, TRAK_KEY_LOG_LINE, TRAK_ARG_INT, l.line);
  }
  /* LogMessage priorities have the values of Android's. */
  if (has_prio)
    add_int(imp, set, TRAK_KEY_LOG_PRIORITY, TRAK_ARG_INT, prio <= 7 ? (int64_t)prio : 0);
  trak_vec_push(imp->logs, row);
}

static void correlation_args(trak_importer *imp, trak_sequence *seq, uint32_t set,
                             const trak_te_fields *ef) {
  if (ef->extras & TRAK_TE_CORRELATION) {
    char buf[32];
    int n = snprintf(buf, sizeof buf, "tp:#%" PRIu64, ef->correlation_id);
    add_string(imp, set, TRAK_KEY_CORRELATION, intern(imp, buf, (size_t)n));
  }
  if (ef->extras & TRAK_TE_CORRELATION_STR)
    add_string(imp, set, TRAK_KEY_CORRELATION,
               intern(imp, ef->correlation_str.data, ef->correlation_str.len));
  if (ef->extras & TRAK_TE_CORRELATION_IID) {
    uint32_t s = trak__interned_get(imp, seq, TRAK_INTERN_CORRELATION, ef->correlation_iid);
    if (s) add_string(imp, set, TRAK_KEY_CORRELATION, s);
  }
}

/* task.posted_from.* from the interned location the task was posted from. */
static void task_args(trak_importer *imp, trak_sequence *seq, uint32_t set, const trak_span *msg) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, msg->data, msg->len);
  uint64_t iid = 0;
  while (trak_pb_decoder_next(&dec, &f) > 0)
    if (f.number == TRAK_PB_TaskExecution_posted_from_iid && f.wire_type == TRAK_PB_WIRE_VARINT)
      iid = f.value;
  const trak_source_loc *loc = iid ? trak__source_loc_get(imp, seq, iid) : NULL;
  if (!loc) { /* Perfetto counts it as a parser error too */
    if (!iid) trak__report(imp, TRAK_STAT_BAD_TYPE, "task_execution without posted_from_iid");
    return;
  }
  trak_source_loc l = *loc;
  add_string(imp, set, TRAK_KEY_TASK_FILE, trak__source_path(imp, l.file));
  add_string(imp, set, TRAK_KEY_TASK_FUNCTION, l.function);
  add_int(imp, set, TRAK_KEY_TASK_LINE, TRAK_ARG_UINT, l.line);
}

/* chrome_histogram_sample.name from the interned histogram name (name_iid without a name). */
static void histogram_args(trak_importer *imp, trak_sequence *seq, uint32_t set,
                           const trak_span *msg) {
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, msg->data, msg->len);
  uint64_t iid = 0;
  int has_iid = 0, has_name = 0;
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.number == TRAK_PB_ChromeHistogramSample_name_iid && f.wire_type == TRAK_PB_WIRE_VARINT)
      iid = f.value, has_iid = 1;
    if (f.number == TRAK_PB_ChromeHistogramSample_name && f.wire_type == TRAK_PB_WIRE_LEN)
      has_name = 1;
  }
  if (!has_iid) return;
  if (has_name) {
    trak__report(imp, TRAK_STAT_BAD_TYPE,
                 "chrome_histogram_sample has both name and name_iid; only one may be set");
    return;
  }
  uint32_t name = trak__interned_get(imp, seq, TRAK_INTERN_HISTOGRAM, iid);
  if (name) add_string(imp, set, TRAK_KEY_HISTOGRAM_NAME, name);
}

/* The schema of message `name`, looked up once into *cache (a race finds the same pointer
** twice). */
static const trak_pb_message_desc *cached_schema(_Atomic(const trak_pb_message_desc *) *cache,
                                                 const char *name) {
  const trak_pb_message_desc *msg = atomic_load_explicit(cache, memory_order_relaxed);
  if (!msg) {
    msg = trak__schema_message(name);
    atomic_store_explicit(cache, msg, memory_order_relaxed);
  }
  return msg;
}

int trak__chrome_extension_known(uint32_t number) {
  static _Atomic(const trak_pb_message_desc *) cache;
  const trak_pb_message_desc *msg = cached_schema(&cache, "ChromeTrackEvent");
  return msg && trak__schema_field_by_number(msg, number);
}

/* The schema of TrackEvent's GPU extensions (protos/gpu_track_event.proto). */
static const trak_pb_message_desc *gpu_te_schema(void) {
  static _Atomic(const trak_pb_message_desc *) cache;
  return cached_schema(&cache, "GpuTrackEvent");
}

/* The fields Perfetto's parser reflects, in wire order: the inline source location, the
** source_location_iid, Chrome's typed payloads (TrackEvent 24..50) and extensions (1000+). */
static void reflected_args(trak_importer *imp, trak_sequence *seq, uint32_t set,
                           const trak_te_fields *ef) {
  trak__schemas_init(imp);
  trak_pb_decoder dec;
  trak_pb_field f;
  trak__dec_init(imp, &dec, ef->blob.data, ef->blob.len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    const trak_pb_field_desc *fd = NULL;
    switch (f.number) {
    case TRAK_PB_TrackEvent_source_location:
      if (f.wire_type == TRAK_PB_WIRE_LEN)
        source_inline_args(imp, set, &(trak_span){f.data, f.len});
      continue;
    case TRAK_PB_TrackEvent_source_location_iid:
      if (f.wire_type == TRAK_PB_WIRE_VARINT)
        add_int(imp, set, TRAK_KEY_SOURCE_IID, TRAK_ARG_UINT, (int64_t)f.value);
      continue;
    default: {
      if (!trak__te_reflected(f.number)) break;
      const trak_pb_message_desc *m = f.number == TRAK_PB_GpuTrackEvent_gpu_correlation ||
                                              f.number == TRAK_PB_GpuTrackEvent_gpu_api
                                          ? gpu_te_schema()
                                      : f.number >= TRAK_PB_ChromeTrackEvent_chrome_app_state
                                          ? imp->chrome_te_schema
                                          : imp->te_schema;
      fd = m ? trak__schema_field_by_number(m, f.number) : NULL;
      break;
    }
    }
    if (fd) trak__reflect_field_args(imp, seq, set, fd, &f);
  }
}

uint32_t trak__te_args(trak_importer *imp, trak_sequence *seq, const trak_te_fields *ef,
                       const trak_te_args_extra *x) {
  uint32_t set = (uint32_t)imp->tables->args.n;
  uint32_t extras = ef->extras;
  if (extras & TRAK_TE_SOURCE_IID) source_iid_args(imp, seq, set, ef->source_location_iid);
  if (extras & TRAK_TE_TASK) task_args(imp, seq, set, &ef->task);
  if (extras & TRAK_TE_LOG) log_args(imp, seq, set, &ef->log_message, x->utid, x->ts);
  if (extras & TRAK_TE_HISTOGRAM) histogram_args(imp, seq, set, &ef->histogram);
  if (extras & (TRAK_TE_CORRELATION | TRAK_TE_CORRELATION_STR | TRAK_TE_CORRELATION_IID))
    correlation_args(imp, seq, set, ef);
  if (x->has_source_id) add_int(imp, set, TRAK_KEY_LEGACY_SOURCE_ID, TRAK_ARG_INT, x->source_id);
  if (extras & (TRAK_TE_SOURCE_INLINE | TRAK_TE_SOURCE_IID | TRAK_TE_REFLECT))
    reflected_args(imp, seq, set, ef);
  if (ef->n_annos) trak__debug_args_append(imp, seq, set, ef->annos, ef->n_annos);
  if (x->passthrough_utid != TRAK_NULL_U32)
    add_int(imp, set, TRAK_KEY_LEGACY_PASSTHROUGH_UTID, TRAK_ARG_UINT, x->passthrough_utid);
  if (x->phase) add_string(imp, set, TRAK_KEY_LEGACY_PHASE, intern(imp, &x->phase, 1));
  return trak__args_share(imp, set);
}
