/*
** This file holds what each JSON trace event means (docs/formats.md): the event's spans, read
** by json_import.c, become threads and processes, tracks (thread, async, instant and counter
** tracks), records of the importer's per-thread sequences, args rows with Perfetto's key
** naming, and flow records for the parse phase.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/ftrace/ftrace.h"
#include "processor/import/hash.h"
#include "processor/import/json/json_events.h"
#include "processor/import/sequence_put.h"
#include "processor/tables/arg_value.h"
#include "util/utf8.h"

/* ---- values ---------------------------------------------------------------------------- */

/* The string id of a string value (0 when absent or not a string, or empty). */
static uint32_t intern_value(trak_json_import *j, const trak_json_value *v) {
  if (!v->s || v->kind != TRAK_JSON_STRING || !v->len) return 0;
  size_t len;
  const char *s = str_of(j, v, &len);
  return intern(j, s, len);
}

/* intern_value inline, for the name and category of every event: a plain string is looked up
** in the cache without a call. */
static inline __attribute__((always_inline)) uint32_t intern_name(trak_json_import *j,
                                                                  const trak_json_value *v) {
  if (!v->s) return 0; /* an E event's: no call */
  if (TRAK_LIKELY(v->kind == TRAK_JSON_STRING && !v->escaped && v->len)) {
    if (TRAK_LIKELY(v->len <= 8)) /* one word: 8 bytes of `{"cat":"` come before it */
      return trak__json_intern_word(j->imp, &j->cache, trak__json_load_word(v->s, v->len, v->s - 8),
                                    v->s, v->len);
    return trak__json_intern(j->imp, &j->cache, v->s, v->len);
  }
  return intern_value(j, v);
}

/* A present number or string value (Perfetto reads "ts": "12" as 12) as nanoseconds from
** microseconds, as trak__json_ts_ns reads it; whole numbers of at most 15 digits straight
** from the value the scan read. */
static inline int ts_of(const trak_json_value *v, int64_t *out) {
  if (TRAK_LIKELY(v->kind == TRAK_JSON_NUMBER && !v->is_float && v->int_digits <= 15)) {
    uint64_t ns = v->ival * 1000;
    *out = v->s[0] == '-' ? -(int64_t)ns : (int64_t)ns;
    return 1;
  }
  /* A fraction of at most 3 digits on at most 12 integer digits: Perfetto's double rounds to
  ** the exact decimal value there (its error is far below half a nanosecond). */
  size_t frac = v->len - (size_t)(v->s[0] == '-') - v->int_digits - 1;
  if (TRAK_LIKELY(v->kind == TRAK_JSON_NUMBER && v->is_float == 1 && v->int_digits <= 12 &&
                  frac <= 3)) {
    uint64_t ns = v->ival * 1000;
    const char *f = v->s + v->len - frac;
    if (frac == 3) /* the usual microseconds to nanoseconds */
      ns += (uint64_t)(f[0] - '0') * 100 + (uint64_t)(f[1] - '0') * 10 + (uint64_t)(f[2] - '0');
    else
      for (uint64_t scale = 100; frac--; scale /= 10)
        ns += (uint64_t)(*f++ - '0') * scale;
    *out = v->s[0] == '-' ? -(int64_t)ns : (int64_t)ns;
    return 1;
  }
  if (v->kind != TRAK_JSON_NUMBER && v->kind != TRAK_JSON_STRING) return 0;
  return trak__json_ts_ns(v->s, v->len, out);
}

static int is_str(const trak_json_value *v, const char *lit) {
  size_t n = strlen(lit);
  return v->s && v->kind == TRAK_JSON_STRING && v->len == n && !memcmp(v->s, lit, n);
}

static uint64_t hash_bytes(uint64_t h, const char *s, size_t len) {
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
  return h;
}

void trak__json_bad_event(trak_json_import *j, const char *why) {
  trak__report(j->imp, TRAK_STAT_JSON_EVENT, "JSON event %llu: %s; skipped",
               (unsigned long long)j->apply_index, why);
}

/* An event the tokenizer rejects (no phase, no valid ts, a dur / tts / tdur that is not a
** number), counted where Perfetto's tokenizer counts it. */
__attribute__((cold, noinline)) static void bad_token(trak_json_import *j, const char *why) {
  trak__report(j->imp, TRAK_STAT_JSON_SYNTAX, "JSON event %llu: %s; skipped",
               (unsigned long long)j->apply_index, why);
}

/* ---- threads, tracks, records ---------------------------------------------------------- */

/* Shares the oldest held set and sets its record's arg set id. */
static void release_one(trak_json_import *j) {
  __typeof__(&j->held[0]) h = &j->held[j->held_at];
  j->held_at = (j->held_at + 1) % JSON_HOLD;
  j->held_n--;
  trak_tables *t = j->imp->tables;
  size_t before = t->args.n;
  int stable;
  uint32_t id = trak__args_share_finish(j->imp, h->set, h->n, h->hash, &stable);
  if (h->at) trak__sequence_held_args(h->at, id);
  if (t->args.n < before) /* shared: the later held sets' rows moved down over its rows */
    for (uint32_t i = 0; i < j->held_n; i++)
      j->held[(j->held_at + i) % JSON_HOLD].set -= h->n;
}

void trak__json_release(trak_json_import *j) {
  while (j->held_n)
    release_one(j);
}

/* id_number's other cases: a string, a long, negative or fractional number. */
__attribute__((noinline)) static int64_t id_other(trak_json_import *j, const trak_json_value *v,
                                                  int *is_string, uint32_t *name) {
  int64_t n = 0;
  if (v->kind == TRAK_JSON_STRING) {
    *name = intern_value(j, v);
    *is_string = 1;
    return *name;
  }
  if (v->kind == TRAK_JSON_NUMBER) trak__json_int(v->s, v->len, &n);
  return n < 0 || n > UINT32_MAX ? 0 : n; /* out of range reads as 0, as in Perfetto */
}

/* A pid or tid: a number, or a string standing for itself (its string id, named after it). */
static inline __attribute__((always_inline)) int64_t
id_number(trak_json_import *j, const trak_json_value *v, int *is_string, uint32_t *name) {
  *is_string = 0;
  if (TRAK_LIKELY(v->kind == TRAK_JSON_NUMBER && !v->is_float && v->len < 10 && v->s[0] != '-'))
    return (uint32_t)v->ival; /* the usual small decimal pid / tid, read by the scan */
  return id_other(j, v, is_string, name);
}

/* trak__json_thread's other cases: the event's process and thread resolved from its pid and tid
** values whatever they are (threads are told apart by pid and tid). */
void trak__json_thread_resolve(trak_json_import *j, const jevent *e, jctx *x) {
  trak_tables *t = j->imp->tables;
  int pid_str = 0, tid_str = 0;
  uint32_t pid_name = 0, tid_name = 0;
  x->has_pid = e->pid.s != NULL, x->has_tid = e->tid.s != NULL;
  x->pid = x->has_pid ? id_number(j, &e->pid, &pid_str, &pid_name) : 0;
  x->tid = x->has_tid ? id_number(j, &e->tid, &tid_str, &tid_name) : 0;
  if (!x->tid && !tid_str) x->tid = x->pid; /* no tid, or tid 0 in a process: its main thread */
  uint64_t key = (uint64_t)(uint32_t)x->pid << 32 | (uint32_t)x->tid;
  if (TRAK_LIKELY(key == j->last_key && j->last_utid != TRAK_NULL_U32)) {
    x->utid = j->last_utid, x->upid = j->last_upid;
    j->seq = j->last_seq;
    return;
  }
  /* The threads of a trace take turns: the lookups last_key held before are memoized (a key's
  ** process and thread never change while events are applied; see value_apply). */
  size_t m = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 58);
  int memo = !pid_str && !tid_str;
  if (memo && j->thread_memo[m].seq && j->thread_memo[m].key == key) {
    x->utid = j->thread_memo[m].utid, x->upid = j->thread_memo[m].upid;
    j->seq = j->thread_memo[m].seq;
    j->last_key = key, j->last_utid = x->utid, j->last_upid = x->upid, j->last_seq = j->seq;
    return;
  }
  release(j); /* processes, threads and sequences may be made */
  if (TRAK_UNLIKELY(x->pid == 0 && !j->pid0_seen)) {
    /* pid 0 of a JSON trace is a process of its own, not the idle row, as in Perfetto */
    j->pid0_seen = 1;
    trak__process_start_new(j->imp, 0);
  }
  x->upid = trak__process_for_pid(j->imp, x->pid);
  if (pid_str && pid_name) t->process.name[x->upid] = pid_name;
  int added;
  uint32_t *slot = trak__map_put(&j->threads, key, 0, &added);
  if (added) *slot = trak__thread_for_tid(j->imp, x->tid, x->pid);
  x->utid = *slot;
  if (tid_str && tid_name) t->thread.name[x->utid] = tid_name;
  /* One sequence per thread: a thread's events mostly come in order, so the parse phase
  ** merges sorted runs instead of sorting the whole trace. */
  while (j->thread_seqs.n <= x->utid)
    trak_vec_push(j->thread_seqs, NULL);
  if (!j->thread_seqs.v[x->utid])
    j->thread_seqs.v[x->utid] = trak__sequence_get(j->imp, JSON_SEQUENCE | x->utid);
  j->seq = j->thread_seqs.v[x->utid];
  if (memo) {
    j->last_key = key, j->last_utid = x->utid, j->last_upid = x->upid, j->last_seq = j->seq;
    j->thread_memo[m].key = key, j->thread_memo[m].utid = x->utid;
    j->thread_memo[m].upid = x->upid, j->thread_memo[m].seq = j->seq;
  }
}

static uint32_t thread_track(trak_json_import *j, const jctx *x) {
  uint64_t key = (uint64_t)(uint32_t)x->pid << 32 | (uint32_t)x->tid;
  if (j->last_track != TRAK_NULL_U32 && key == j->last_thread_key) return j->last_track;
  j->last_thread_key = key;
  return j->last_track = trak__legacy_thread_track(j->imp, x->utid);
}

/* A slice, instant or flow record of the event (x: its ts, name and category; an X event's
** dur). */
static inline __attribute__((always_inline)) void push(trak_json_import *j, const jctx *x,
                                                       uint32_t type, uint32_t track, uint32_t args,
                                                       uint32_t aux) {
  /* the tie key from the event: an X's dur is also its aux entry's first word */
  uint8_t *at = record(j, x->ts, type, track, (uint64_t)x->cat << 32 | x->name, args, aux,
                       trak__tie_key(j->imp, type, track, x->dur));
  if (args == ARGS_HELD) /* the last set held: its id is written into the record when shared */
    j->held[(j->held_at + j->held_n - 1) % JSON_HOLD].at = at;
}

/* ---- args ------------------------------------------------------------------------------ */

/* The args object of an event as a new (or shared) arg set, ARGS_HELD (its sharing held in
** j->held, from leaves with two threads) or TRAK_NULL_U32: from its leaves when the reader made
** them, else from its text through the key memo, or the plain flattening. */
static uint32_t args_rows(trak_json_import *j, const jevent *e) {
  uint32_t set = (uint32_t)j->imp->tables->args.n;
  trak_arg_key *k = &j->arg_key;
  trak_json_cur c = {e->args.s, e->args.s + e->args.len, 1, NULL, NULL};
  trak_json_args a = {j->imp, &j->cache, set, k, NULL};
  if (TRAK_LIKELY(e->leaf_n != UINT32_MAX)) { /* read into leaves on the decoding thread */
    uint64_t h;
    uint32_t n = e->leaf_n;
    if (TRAK_LIKELY(trak__json_leaves_rows(&a, j->dict.entry, j->dict_ids,
                                           j->apply_leaves + e->leaf_at, n, e->args.s, &h)))
      trak__args_share_prefetch(&j->imp->args, h); /* prepared as the rows were written */
    else
      n = trak__args_share_prepare(j->imp, set, &h);
    if (!n) return TRAK_NULL_U32;
    if (j->hold) { /* shared JSON_HOLD sets later, the map's slot loaded by then */
      if (j->held_n == JSON_HOLD) {
        size_t before = j->imp->tables->args.n;
        release_one(j);
        set -= (uint32_t)(before - j->imp->tables->args.n); /* its rows moved down with it */
      }
      __typeof__(&j->held[0]) held = &j->held[(j->held_at + j->held_n++) % JSON_HOLD];
      held->set = set, held->n = n, held->hash = h, held->at = NULL;
      return ARGS_HELD;
    }
    int stable;
    return trak__args_share_finish(j->imp, set, n, h, &stable);
  }
  release(j); /* the held sets' rows come first, and they are shared first */
  set = (uint32_t)j->imp->tables->args.n;
  a.set = set;
  if (j->keys != NULL) {
    trak__json_args_flatten_event(&a, j->keys, &c);
  } else {
    k->key_len = k->flat_len = k->cut = 0;
    trak__arg_key_push(k, "args", 4, 1);
    trak__json_args_flatten(&a, &c, 0);
  }
  return trak__args_share(j->imp, set);
}

/* args_rows for an event with args (most have none: no call). */
static inline uint32_t event_args(trak_json_import *j, const jevent *e) {
  if (!e->args.s || e->args.kind != TRAK_JSON_OBJECT || e->args.len <= 2) return TRAK_NULL_U32;
  return args_rows(j, e);
}

/* ---- flows ----------------------------------------------------------------------------- */

/* A flow id from a number, or a string read as hex (as Perfetto does). */
static int flow_number(const trak_json_value *v, uint64_t *out) {
  if (!v->s) return 0;
  if (v->kind == TRAK_JSON_NUMBER) {
    int64_t n;
    if (!trak__json_int(v->s, v->len, &n)) return 0;
    *out = (uint64_t)n;
    return 1;
  }
  if (v->kind != TRAK_JSON_STRING || !v->len) return 0;
  uint64_t n = 0;
  size_t i = v->len > 2 && v->s[0] == '0' && (v->s[1] == 'x' || v->s[1] == 'X') ? 2 : 0;
  for (; i < v->len; i++) {
    char ch = v->s[i];
    int d = ch >= '0' && ch <= '9'   ? ch - '0'
            : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
            : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                     : -1;
    if (d < 0) return 0;
    n = n << 4 | (uint64_t)d;
  }
  *out = n;
  return 1;
}

static int is_true(const trak_json_value *v) {
  return v->s && v->kind == TRAK_JSON_TRUE;
}

/* Flows v2 (bind_id with flow_in / flow_out on a slice event) as the importer's aux block:
** flow_out starts the flow at this slice, flow_in alone ends it here (without closing it),
** both step it on (flows.c). */
static uint32_t flow_v2_aux(trak_json_import *j, const jevent *e) {
  uint64_t id;
  if (!e->bind_id.s || !(is_true(&e->flow_in) || is_true(&e->flow_out)) ||
      !flow_number(&e->bind_id, &id))
    return 0;
  trak_importer *imp = j->imp;
  uint32_t at = (uint32_t)imp->aux.n;
  int out = is_true(&e->flow_out), in = is_true(&e->flow_in);
  trak_vec_push(imp->aux, (uint64_t)out);
  trak_vec_push(imp->aux, (uint64_t)!out);
  trak_vec_push(imp->aux, out && in ? TRAK_AUX_JSON_FLOW_STEP : 0);
  trak_vec_push(imp->aux, id); /* the flow id, as Perfetto's: the bind_id itself */
  return at;
}

/* s / t / f events: a FLOW record whose name field holds the step kind and whose aux entries
** the flow key (id, category and name, as Perfetto keys v1 flows), then name << 32 | category. */
static void flow_v1(trak_json_import *j, const jevent *e, jctx *x, char ph) {
  uint64_t id;
  if (!flow_number(&e->id, &id)) {
    trak__json_bad_event(j, "flow event without a valid id");
    return;
  }
  trak_importer *imp = j->imp;
  uint32_t at = (uint32_t)imp->aux.n;
  trak_vec_push(imp->aux, trak__flow_v1_key(id, x->cat, x->name));
  trak_vec_push(imp->aux, (uint64_t)x->name << 32 | x->cat); /* for the flow's args */
  uint32_t kind = ph == 's'             ? TRAK_FLOW_V1_BEGIN
                  : ph == 't'           ? TRAK_FLOW_V1_STEP
                  : is_str(&e->bp, "e") ? TRAK_FLOW_V1_END_ENCLOSING
                                        : TRAK_FLOW_V1_END_NEXT;
  x->name = kind, x->cat = 0;
  push(j, x, TRAK_EV_FLOW, thread_track(j, x), TRAK_NULL_U32, at);
}

/* ---- events ---------------------------------------------------------------------------- */

static uint32_t no_name(trak_json_import *j, uint32_t name) {
  return name ? name : intern(j, "[No name]", 9);
}

/* The track of an async event: keyed by category, scope and id; an id2.local id is scoped to
** its process (a process track), an id or id2.global one is not (a global track). The track
** is named after the first event on it. */
static int async_track(trak_json_import *j, const jevent *e, const jctx *x, uint32_t *track) {
  trak_json_value key, val, global = {0}, local = {0};
  if (e->id2.s && e->id2.kind == TRAK_JSON_OBJECT) {
    size_t state = 0;
    while (trak__json_next(&e->id2, &state, &key, &val)) {
      if (key.len == 6 && !memcmp(key.s, "global", 6)) global = val;
      if (key.len == 5 && !memcmp(key.s, "local", 5)) local = val;
    }
  }
  const trak_json_value *id = e->id.s ? &e->id : global.s ? &global : local.s ? &local : NULL;
  if (!id || !x->has_pid) return 0;
  int is_local = id == &local;
  /* "scope" is not part of the key: Perfetto's JSON reader ignores it */
  trak_track_kind_id kind =
      is_local ? TRAK_TK_LEGACY_ASYNC_PROCESS_SLICE : TRAK_TK_LEGACY_ASYNC_GLOBAL_SLICE;
  uint64_t k = trak__track_key(kind, hash_bytes(x->cat, id->s, id->len),
                               is_local ? (uint64_t)x->upid + 1 : 0);
  *track = trak__keyed_track(j->imp, k, x->name, is_local ? x->upid : TRAK_NULL_U32, 0, kind);
  trak_track_info *info = &j->imp->tracks.info.v[*track];
  info->compressed = 1;
  if (info->src_upid == TRAK_NULL_U32) info->src_upid = x->upid; /* its first event's process */
  return 1;
}

/* ---- metadata (M) ---------------------------------------------------------------------- */

/* The metadata entry of a process or thread, made on first use. M events are few, so a
** linear search is enough. */
static trak_json_meta *meta_for(trak_json_import *j, int is_thread, uint32_t row) {
  for (size_t i = 0; i < j->meta.n; i++)
    if (j->meta.v[i].row == row && j->meta.v[i].is_thread == is_thread) return &j->meta.v[i];
  trak_vec_push(j->meta, ((trak_json_meta){row, (uint8_t)is_thread, 0, 0}));
  return &j->meta.v[j->meta.n - 1];
}

/* A sort index: a number (a fraction truncated), as Perfetto reads it; not a string. */
static int sort_index_of(const trak_json_value *v, int64_t *out) {
  return v->kind == TRAK_JSON_NUMBER && trak__json_int(v->s, v->len, out);
}

/* M: process_name and thread_name name the process or thread; process_sort_index and
** thread_sort_index become its args when the import ends (Perfetto's keys:
** process_sort_index_hint, thread_sort_index_hint). The last event of each kind wins; an
** empty name or a sort index that is not a number counts in json_parser_failure. Other M
** events (process_labels, ...) are ignored, as in Perfetto. */
static void metadata(trak_json_import *j, const jevent *e, const jctx *x) {
  enum { NAME, SORT };
  static const struct {
    const char *event, *arg;
    uint8_t what, is_thread;
  } kinds[] = {{"process_name", "name", NAME, 0},
               {"thread_name", "name", NAME, 1},
               {"process_sort_index", "sort_index", SORT, 0},
               {"thread_sort_index", "sort_index", SORT, 1}};
  size_t k = 0;
  while (k < sizeof kinds / sizeof *kinds && !is_str(&e->name, kinds[k].event))
    k++;
  if (k == sizeof kinds / sizeof *kinds || !e->args.s || e->args.kind != TRAK_JSON_OBJECT) return;
  int what = kinds[k].what, is_thread = kinds[k].is_thread;
  size_t klen = strlen(kinds[k].arg), state = 0;
  trak_json_value key, val;
  trak_tables *t = j->imp->tables;
  while (trak__json_next(&e->args, &state, &key, &val)) {
    if (key.len != klen || memcmp(key.s, kinds[k].arg, klen)) continue;
    int64_t index;
    uint32_t str = what == SORT ? 0 : intern_value(j, &val);
    if (what == NAME && str && is_thread)
      t->thread.name[x->utid] = str;
    else if (what == NAME && str)
      t->process.name[x->upid] = str;
    else if (what == NAME)
      trak__json_bad_event(j, "process or thread name that is not a non-empty string");
    else if (sort_index_of(&val, &index)) {
      trak_json_meta *m = meta_for(j, is_thread, is_thread ? x->utid : x->upid);
      m->has_sort_index = 1, m->sort_index = (int32_t)index;
    } else
      trak__json_bad_event(j, "sort index that is not a number");
  }
}

void trak__json_meta_args(trak_json_import *j) {
  trak_tables *t = j->imp->tables;
  for (size_t i = 0; i < j->meta.n; i++) {
    const trak_json_meta *m = &j->meta.v[i];
    uint32_t set = (uint32_t)t->args.n;
    const char *k = m->is_thread ? "thread_sort_index_hint" : "process_sort_index_hint";
    uint32_t key = intern(j, k, strlen(k));
    uint32_t row = trak__arg_add(t, set, key, key, TRAK_ARG_INT);
    trak__arg_set_int(t, row, m->sort_index);
    if (m->is_thread)
      t->thread.arg_set_id[m->row] = set;
    else
      t->process.arg_set_id[m->row] = set;
  }
  j->meta.n = 0;
}

/* ---- thread time (tts, tdur) ----------------------------------------------------------- */

/* The event's tts and tdur (INT64_MIN when absent); 1 if it has either. */
static inline int thread_time_of(const jevent *e, int64_t *tts, int64_t *tdur) {
  *tts = *tdur = INT64_MIN;
  if (TRAK_LIKELY(!e->tts.s && !e->tdur.s)) return 0;
  if (e->tts.s) ts_of(&e->tts, tts);
  if (e->tdur.s) ts_of(&e->tdur, tdur);
  return *tts != INT64_MIN || *tdur != INT64_MIN;
}

/* The aux block of a B, E or thread I event with tts / tdur: its flows block (index
** `flows`, or 0) copied and flagged TRAK_AUX_JSON_THREAD_TIME, with the two values after its
** ids (the parse phase fills thread_ts / thread_dur from them, as Perfetto does); `flows` as
** it is when neither value is a number. */
__attribute__((noinline, cold)) static uint32_t with_thread_time(trak_json_import *j,
                                                                 const jevent *e, uint32_t flows) {
  int64_t tts, tdur;
  if (!thread_time_of(e, &tts, &tdur)) return flows;
  trak_importer *imp = j->imp;
  uint32_t at = (uint32_t)imp->aux.n;
  uint64_t out = flows ? imp->aux.v[flows] : 0, in = flows ? imp->aux.v[flows + 1] : 0;
  trak_vec_push(imp->aux, out);
  trak_vec_push(imp->aux, in);
  trak_vec_push(imp->aux, TRAK_AUX_JSON_THREAD_TIME | (flows ? imp->aux.v[flows + 2] : 0));
  for (uint64_t i = 0; i < out + in; i++)
    trak_vec_push(imp->aux, imp->aux.v[flows + 3 + i]);
  trak_vec_push(imp->aux, (uint64_t)tts);
  trak_vec_push(imp->aux, (uint64_t)tdur);
  trak__tables_thread_time(imp->tables);
  return at;
}

/* The aux entry of a slice event: its flows block, with thread time when it has any. Most
** events have neither tts nor tdur: two loads on the hot path. */
static inline uint32_t slice_aux(trak_json_import *j, const jevent *e, uint32_t flows) {
  if (TRAK_LIKELY(!e->tts.s && !e->tdur.s)) return flows;
  return with_thread_time(j, e, flows);
}

/* I / i / R: thread instants (scope t, the default), process (p) or global (g) instants. */
static void instant(trak_json_import *j, const jevent *e, jctx *x) {
  uint32_t track, aux = flow_v2_aux(j, e);
  if (!e->s.s || (!is_str(&e->s, "p") && !is_str(&e->s, "g"))) { /* t, none or unknown */
    x->name = no_name(j, x->name);
    track = thread_track(j, x);
    aux = slice_aux(j, e, aux); /* thread time on thread instants only, as in Perfetto */
  } else if (is_str(&e->s, "p")) {
    track = trak__keyed_track(j->imp, trak__track_key(TRAK_TK_CHROME_PROCESS_INSTANT, x->upid, 0),
                              0, x->upid, 0, TRAK_TK_CHROME_PROCESS_INSTANT);
  } else {
    track = trak__keyed_track(j->imp, trak__track_key(TRAK_TK_LEGACY_CHROME_GLOBAL_INSTANTS, 0, 0),
                              0, TRAK_NULL_U32, 0, TRAK_TK_LEGACY_CHROME_GLOBAL_INSTANTS);
  }
  push(j, x, TRAK_EV_INSTANT, track, event_args(j, e), aux);
}

/* X: a COMPLETE record, its duration in the aux entry (then the flows block, if any). */
static void complete(trak_json_import *j, const jevent *e, jctx *x) {
  int64_t dur = x->dur;
  if (!e->dur.s || dur < 0) {
    trak__json_bad_event(j, "complete event (X) without a valid dur");
    return;
  }
  /* Thread time: tts and tdur become thread_ts and thread_dur. */
  int64_t tts, tdur;
  uint64_t has_thread_time = (uint64_t)thread_time_of(e, &tts, &tdur);
  x->name = no_name(j, x->name);
  uint32_t track = thread_track(j, x);
  uint32_t args = event_args(j, e);
  trak_importer *imp = j->imp;
  uint32_t at = (uint32_t)imp->aux.n;
  trak_vec_push(imp->aux, (uint64_t)dur);
  trak_vec_push(imp->aux, 0);
  if (has_thread_time) {
    trak_vec_push(imp->aux, (uint64_t)tts);
    trak_vec_push(imp->aux, (uint64_t)tdur);
    trak__tables_thread_time(imp->tables);
  }
  imp->aux.v[at + 1] = flow_v2_aux(j, e) | has_thread_time << 63;
  imp->json_tie_order = 1; /* Perfetto's sorter orders ties by kind once it has seen an X */
  push(j, x, TRAK_EV_COMPLETE, track, args, at);
}

/* A thread state (T): the thread's state named by the event, from ts for dur, with "cpu",
** "io_wait" (integers) and "blocked_function" (a string) from its args. */
static void thread_state(trak_json_import *j, const jevent *e, const jctx *x) {
  if (!e->dur.s) {
    trak__json_bad_event(j, "thread state event (T) without dur");
    return;
  }
  int64_t cpu = -1, v;
  int io_wait = -1;
  uint32_t blocked = 0;
  size_t state = 0;
  trak_json_value key, val;
  while (e->args.s && e->args.kind == TRAK_JSON_OBJECT &&
         trak__json_next(&e->args, &state, &key, &val)) {
    int is_int = val.kind == TRAK_JSON_NUMBER && !val.is_float && trak__json_int_of(&val, &v);
    if (key.len == 3 && !memcmp(key.s, "cpu", 3) && is_int)
      cpu = v;
    else if (key.len == 7 && !memcmp(key.s, "io_wait", 7) && is_int)
      io_wait = v != 0;
    else if (key.len == 16 && !memcmp(key.s, "blocked_function", 16) &&
             val.kind == TRAK_JSON_STRING)
      blocked = intern_value(j, &val);
  }
  trak__ftrace_json_state(j->imp, x->ts, x->dur, x->utid, x->name, io_wait, blocked, cpu);
}

static void async_event(trak_json_import *j, const jevent *e, jctx *x, uint32_t type) {
  uint32_t track;
  if (!async_track(j, e, x, &track)) {
    trak__json_bad_event(j, "async event without pid or without id / id2");
    return;
  }
  /* tts / tdur are not read on async events: thread_ts / thread_dur stay NULL, as in
  ** Perfetto */
  uint32_t aux = type == TRAK_EV_END ? 0 : flow_v2_aux(j, e);
  push(j, x, type, track, event_args(j, e), aux);
}

void trak__json_event_apply(trak_json_import *j, const jevent *e) {
  /* The phase is the first letter of "ph" (Perfetto reads "ph": "XY" as X). An empty
  ** object is a common filler and skipped silently. */
  if (!e->ph.s || e->ph.kind != TRAK_JSON_STRING || !e->ph.len) {
    if (e->saw_field) bad_token(j, "no \"ph\"");
    return;
  }
  char ph = e->ph.s[0];
  jctx x;
  trak__json_thread(j, e, &x);
  x.name = intern_name(j, &e->name);
  x.cat = intern_name(j, &e->cat);
  if (ph == 'M') {
    int64_t ts = 0; /* Perfetto sorts a metadata event without "ts" at 0 */
    if (e->ts.s && !ts_of(&e->ts, &ts)) ts = 0;
    trak__thread_seen(j->imp, x.utid, ts, j->apply_index);
    metadata(j, e, &x);
    return;
  }
  if (!e->ts.s || !ts_of(&e->ts, &x.ts)) {
    bad_token(j, "no valid \"ts\"");
    return;
  }
  int64_t tt;
  if ((e->dur.s && !ts_of(&e->dur, &x.dur)) || (TRAK_UNLIKELY(e->tts.s) && !ts_of(&e->tts, &tt)) ||
      (TRAK_UNLIKELY(e->tdur.s) && !ts_of(&e->tdur, &tt))) {
    bad_token(j, "a \"dur\", \"tts\" or \"tdur\" that is not a number");
    return;
  }
  if (TRAK_UNLIKELY(x.ts < 0)) {
    trak__report(j->imp, TRAK_STAT_NEGATIVE_TS_DROPPED,
                 "JSON event %llu has a negative timestamp; dropped",
                 (unsigned long long)j->apply_index);
    return;
  }
  trak__thread_seen(j->imp, x.utid, x.ts, j->apply_index);
  if (ph == 'T') release(j); /* it adds rows of its own (a C event releases when it must) */
  switch (ph) {
  case 'B':
    x.name = no_name(j, x.name);
    push(j, &x, TRAK_EV_BEGIN, thread_track(j, &x), event_args(j, e),
         slice_aux(j, e, flow_v2_aux(j, e)));
    break;
  case 'E':
    push(j, &x, TRAK_EV_END, thread_track(j, &x), event_args(j, e), slice_aux(j, e, 0));
    break;
  case 'X':
    complete(j, e, &x);
    break;
  case 'I':
  case 'i':
  case 'R':
    instant(j, e, &x);
    break;
  case 'b':
    async_event(j, e, &x, TRAK_EV_BEGIN);
    break;
  case 'e':
    async_event(j, e, &x, TRAK_EV_END);
    break;
  case 'n':
    async_event(j, e, &x, TRAK_EV_INSTANT);
    break;
  case 'T':
    thread_state(j, e, &x);
    break;
  case 's':
  case 't':
  case 'f':
    flow_v1(j, e, &x, ph);
    break;
  case 'C':
    trak__json_counters(j, e, &x);
    break;
  default: /* S, F, p, P, O, ... are skipped without a count, as Perfetto skips them */
    break;
  }
}
