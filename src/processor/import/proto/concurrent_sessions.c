/*
** This file holds TracePacket.concurrent_session_event: the tracing service's record of
** another session on the machine changing state. As in Perfetto's importer, each session
** (by session_id) gets a global state track of type concurrent_tracing_sessions, named by
** its session_name or "Session <id>", with " (clone)" added when the track's first event is
** CLONED_READ_ONLY; each event becomes the track's new state with consumer_uid and
** num_data_sources as args, and DISABLED, which is terminal, ends at once (a zero-length
** state). The states are records of the parse phase, so they apply in timestamp order. An
** unknown state is dropped, counted and logged with its value. Rare packets: cold code.
*/
#include <stdio.h>
#include <string.h>

#include "processor/import/proto/proto.h"
#include "processor/tables/arg_value.h"

/* Keyed tracks of sessions: key | session id (ids past 2^52 would share tracks). */
#define SESSION_KEY (0xC5ULL << 52)

static uint32_t arg_int(trak_importer *imp, uint32_t set, const char *key, int64_t v) {
  trak_tables *t = imp->tables;
  uint32_t k = trak__strpool_intern(&t->strings, key, strlen(key));
  uint32_t row = trak__arg_add(t, set, k, k, TRAK_ARG_INT);
  trak__arg_set_int(t, row, v);
  return row;
}

int64_t trak__concurrent_session_id(uint64_t uuid) {
  return (int64_t)((uuid & ~(1ULL << 63)) ^ SESSION_KEY);
}

void trak__concurrent_session_event(trak_importer *imp, const trak_packet_ctx *ctx,
                                    const uint8_t *data, size_t len) {
  static const char *const states[] = {
      NULL, "DISABLED", "CONFIGURED", "STARTED", "DISABLING_WAITING_STOP_ACKS", "CLONED_READ_ONLY"};
  trak_tables *t = imp->tables;
  trak_pb_decoder dec;
  trak_pb_field f;
  uint64_t state = 0, id = 0;
  int64_t uid = 0, sources = 0;
  trak_span name = {0};
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type == TRAK_PB_WIRE_LEN) {
      if (f.number == TRAK_PB_ConcurrentSessionEvent_session_name)
        name = (trak_span){f.data, f.len};
      continue;
    }
    if (f.number == TRAK_PB_ConcurrentSessionEvent_state) state = f.value;
    if (f.number == TRAK_PB_ConcurrentSessionEvent_session_id) id = f.value;
    if (f.number == TRAK_PB_ConcurrentSessionEvent_consumer_uid) uid = (int32_t)f.value;
    if (f.number == TRAK_PB_ConcurrentSessionEvent_num_data_sources) sources = (uint32_t)f.value;
  }
  int64_t ts = ctx->has_ts ? ctx->ts : imp->latest_ts;
  if (state >= sizeof states / sizeof *states || !states[state]) {
    trak__report(imp, TRAK_STAT_CONCURRENT_UNKNOWN_STATE,
                 "concurrent_session_event of session %llu has state %llu, which trak does not "
                 "know; dropped",
                 (unsigned long long)id, (unsigned long long)state);
    uint32_t set = (uint32_t)t->args.n;
    arg_int(imp, set, "state", (int64_t)state);
    trak_vec_push(imp->import_logs, ((trak_import_log){ts, TRAK_STAT_CONCURRENT_UNKNOWN_STATE,
                                                       trak__args_share(imp, set), -1}));
    return;
  }
  char buf[512];
  int n = name.len ? snprintf(buf, sizeof buf, "%.*s", (int)(name.len < 400 ? name.len : 400),
                              (const char *)name.data)
                   : snprintf(buf, sizeof buf, "Session %llu", (unsigned long long)id);
  if (state == TRAK_PB_ConcurrentSessionEvent_STATE_CLONED_READ_ONLY)
    n += snprintf(buf + n, sizeof buf - (size_t)n, " (clone)");
  uint32_t track =
      trak__keyed_track(imp, SESSION_KEY ^ id, trak__strpool_intern(&t->strings, buf, (size_t)n),
                        TRAK_NULL_U32, 0, TRAK_TK_CONCURRENT_TRACING_SESSIONS);
  trak_track_info *info = &imp->tracks.info.v[track];
  info->is_state = 1;
  info->terminal_state = trak__strpool_intern(&t->strings, "DISABLED", 8);
  uint32_t set = (uint32_t)t->args.n;
  arg_int(imp, set, "consumer_uid", uid);
  arg_int(imp, set, "num_data_sources", sources);
  trak_ev ev = {0};
  ev.ts = ts;
  ev.track = (uint32_t)TRAK_EV_EXTRA_ONLY << TRAK_EV_TYPE_SHIFT | track;
  ev.pkt = (uint32_t)imp->packet_index;
  ev.u.s.name = trak__strpool_intern(&t->strings, states[state], strlen(states[state]));
  ev.arg_set_id = trak__args_share(imp, set);
  trak__sequence_push(imp, ctx->seq, &ev);
}
