/*
** What the two files of the JSON importer's apply side share (json_events.c: what each event
** means; json_counters.c: counter events): an event's resolved context and the helpers that
** intern its strings and add its records.
*/
#ifndef TRAK_PROCESSOR_IMPORT_JSON_JSON_EVENTS_H
#define TRAK_PROCESSOR_IMPORT_JSON_JSON_EVENTS_H

#include "processor/import/json/json_import.h"
#include "processor/import/sequence_put.h"

/* An event's context once its thread, name and category are resolved. */
typedef struct jctx {
  int64_t ts, dur; /* dur: of an X event, when it has one */
  int has_pid, has_tid;
  int64_t pid, tid;
  uint32_t utid, upid;
  uint32_t name, cat;
} jctx;

/* event_args' arg set while it waits in j->held: its record's id is set when it is shared. */
#define ARGS_HELD (TRAK_NULL_U32 - 1)

/* A string value's bytes, unescaped into j->str when it has escapes; *len their length. */
static inline const char *str_of(trak_json_import *j, const trak_json_value *v, size_t *len) {
  if (!v->escaped) {
    *len = v->len;
    return v->s;
  }
  *len = trak__json_unescape(v, j->str, sizeof j->str);
  return j->str;
}

/* Interns JSON text through the importer's cache (json_args.h). */
static inline uint32_t intern(trak_json_import *j, const char *s, size_t len) {
  return trak__json_intern(j->imp, &j->cache, s, len);
}

/* Adds a record to the event's thread's sequence (sequence_put.h), noting a same-timestamp
** record that Perfetto's sorter would put before the previous one (the parse phase then sorts
** the sequence): `key` is the record's trak__ev_tie_key. Returns where the arg set id of a
** record pushed with ARGS_HELD goes (NULL: dropped). */
static inline __attribute__((always_inline)) uint8_t *record(trak_json_import *j, int64_t ts,
                                                             uint32_t type, uint32_t track,
                                                             uint64_t u, uint32_t args,
                                                             uint32_t aux, int64_t key) {
  trak_sequence *seq = j->seq;
  if (TRAK_UNLIKELY(ts == seq->last_ts && key < seq->last_tie_key)) seq->tie_unsorted = 1;
  seq->last_tie_key = key;
  return trak__sequence_put(j->imp, seq, ts, type, track, (uint32_t)j->apply_index, u, args,
                            aux, args == ARGS_HELD);
}

/* The held sets shared before the event being applied adds rows or shares a set otherwise than
** through event_args' leaves. */
static inline void release(trak_json_import *j) {
  if (j->held_n) trak__json_release(j);
}

/* trak__json_thread's full lookup, out of line. Never fails. */
void trak__json_thread_resolve(trak_json_import *j, const jevent *e, jctx *x)
    __attribute__((noinline));

/* A pid or tid value that is the usual small decimal number (no sign, fraction or exponent,
** fewer than 10 digits): its value is the one the scan read. */
static inline int trak__json_small_id(const trak_json_value *v) {
  return v->kind == TRAK_JSON_NUMBER && !v->is_float && v->int_digits == v->len && v->len < 10;
}

/* Sets x's pid, tid, has_pid, has_tid, utid and upid and j->seq for event e: the thread of the
** event before when both are small numbers naming it again (the most common case, checked
** first, inline), else trak__json_thread_resolve. Never fails. */
static inline __attribute__((always_inline)) void trak__json_thread(trak_json_import *j,
                                                                   const jevent *e, jctx *x) {
  const trak_json_value *p = &e->pid, *t = &e->tid;
  if (TRAK_LIKELY(p->s && trak__json_small_id(p) && (!t->s || trak__json_small_id(t)))) {
    uint32_t pid = (uint32_t)p->ival, tid = t->s ? (uint32_t)t->ival : 0;
    if (!tid) tid = pid; /* no tid, or tid 0 in a process: its main thread */
    uint64_t key = (uint64_t)pid << 32 | tid;
    if (TRAK_LIKELY(key == j->last_key && j->last_utid != TRAK_NULL_U32)) {
      x->has_pid = 1, x->has_tid = t->s != NULL;
      x->pid = pid, x->tid = tid;
      x->utid = j->last_utid, x->upid = j->last_upid;
      j->seq = j->last_seq;
      return;
    }
  }
  trak__json_thread_resolve(j, e, x);
}

/* Counts a malformed event in json_parser_failure, its index and `why` in the log. */
void trak__json_bad_event(trak_json_import *j, const char *why) __attribute__((cold, noinline));

/* A C event (json_counters.c): one process counter track per member of its args, a value per
** member that is a number or a string holding one (others counted as bad events), read from
** the event's leaves when they say all there is, else from its args text. Never fails. */
void trak__json_counters(trak_json_import *j, const jevent *e, const jctx *x);

#endif /* TRAK_PROCESSOR_IMPORT_JSON_JSON_EVENTS_H */
