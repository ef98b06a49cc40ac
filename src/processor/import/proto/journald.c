/*
** This file holds TracePacket.journald_event: entries of the systemd journal (Perfetto's
** linux.systemd_journald data source) become rows of the logs table with log_source
** 'systemd_journald', as Perfetto's importer makes them: the writer's thread, the syslog
** priority (0 when absent), the tag and the message, and the entry's uid, comm, systemd_unit,
** hostname and transport as args. A packet with the data source's counts (num_total,
** num_failed) sets the systemd_journal_num_* stats instead and is no entry.
*/
#include <string.h>

#include "processor/import/args.h"
#include "processor/import/ftrace/ftrace_internal.h"
#include "processor/import/proto/proto.h"

/* The string fields of an entry that become args, by field number, with their arg keys. */
static const struct {
  uint32_t field;
  const char *key;
} string_args[] = {
    {TRAK_PB_SystemdJournaldEvent_comm, "comm"},
    {TRAK_PB_SystemdJournaldEvent_systemd_unit, "systemd_unit"},
    {TRAK_PB_SystemdJournaldEvent_hostname, "hostname"},
    {TRAK_PB_SystemdJournaldEvent_transport, "transport"},
};
enum { N_STRING_ARGS = sizeof string_args / sizeof *string_args };

/* One entry's fields as read. */
typedef struct entry {
  uint64_t pid, tid, uid, prio, num_total, num_failed;
  uint8_t has_pid, has_tid, has_uid, has_total, has_failed;
  uint32_t tag, msg;                /* string ids, 0: absent */
  uint32_t strings[N_STRING_ARGS];  /* string ids of string_args, 0: absent */
  uint8_t has_string[N_STRING_ARGS];
} entry;

static void read_entry(trak_importer *imp, const uint8_t *data, size_t len, entry *e) {
  trak_strpool *sp = &imp->tables->strings;
  trak_pb_decoder dec;
  trak_pb_field f;
  memset(e, 0, sizeof *e);
  trak__dec_init(imp, &dec, data, len);
  while (trak_pb_decoder_next(&dec, &f) > 0) {
    if (f.wire_type == TRAK_PB_WIRE_VARINT) {
      switch (f.number) {
      case TRAK_PB_SystemdJournaldEvent_pid: e->pid = (uint32_t)f.value, e->has_pid = 1; break;
      case TRAK_PB_SystemdJournaldEvent_tid: e->tid = (uint32_t)f.value, e->has_tid = 1; break;
      case TRAK_PB_SystemdJournaldEvent_uid: e->uid = (uint32_t)f.value, e->has_uid = 1; break;
      case TRAK_PB_SystemdJournaldEvent_prio: e->prio = (uint32_t)f.value; break;
      case TRAK_PB_SystemdJournaldEvent_num_total: e->num_total = f.value, e->has_total = 1; break;
      case TRAK_PB_SystemdJournaldEvent_num_failed:
        e->num_failed = f.value, e->has_failed = 1;
        break;
      default: break;
      }
      continue;
    }
    if (f.wire_type != TRAK_PB_WIRE_LEN) continue;
    uint32_t str = trak__strpool_intern(sp, (const char *)f.data, f.len);
    if (f.number == TRAK_PB_SystemdJournaldEvent_tag) e->tag = str;
    if (f.number == TRAK_PB_SystemdJournaldEvent_message) e->msg = str;
    for (size_t i = 0; i < N_STRING_ARGS; i++)
      if (f.number == string_args[i].field) e->strings[i] = str, e->has_string[i] = 1;
  }
}

/* The entry's arg set (TRAK_NULL_U32: none of its args is present), keys in Perfetto's order. */
static uint32_t entry_args(trak_importer *imp, const entry *e) {
  uint32_t set = trak__ftrace_args_begin(imp);
  if (e->has_uid) trak__ftrace_arg_int(imp, set, trak__ftrace_str(imp, "uid"), (int64_t)e->uid);
  for (size_t i = 0; i < N_STRING_ARGS; i++)
    if (e->has_string[i])
      trak__ftrace_arg_str(imp, set, trak__ftrace_str(imp, string_args[i].key), e->strings[i]);
  set = trak__args_share(imp, set);
  if (set != TRAK_NULL_U32) trak__arg_order_log(imp, TRAK_ARG_ORDER_SET, set);
  return set;
}

void trak__journald_packet(trak_importer *imp, const trak_packet_ctx *ctx, const uint8_t *data,
                           size_t len) {
  entry e;
  read_entry(imp, data, len, &e);
  if (e.has_failed) imp->stats[TRAK_STAT_SYSTEMD_JOURNAL_NUM_FAILED] = (int64_t)e.num_failed;
  if (e.has_total) imp->stats[TRAK_STAT_SYSTEMD_JOURNAL_NUM_TOTAL] = (int64_t)e.num_total;
  if (e.has_failed || e.has_total) return;
  /* the thread defaults to the process's main thread; pid 0 (or none) is no thread */
  uint32_t utid = TRAK_NULL_U32;
  if (e.has_pid && e.pid)
    utid = trak__thread_for_tid(imp, (int64_t)(e.has_tid ? e.tid : e.pid), (int64_t)e.pid);
  trak_log_row row = {ctx->has_ts ? ctx->ts : imp->latest_ts,
                      utid,
                      (uint32_t)e.prio,
                      e.tag,
                      e.msg,
                      entry_args(imp, &e),
                      TRAK_LOG_SYSTEMD_JOURNALD};
  trak_vec_push(imp->logs, row);
  imp->n_events++; /* a trace of journal entries only is not empty */
}
