/*
** The JSON importer's counter events (C, docs/formats.md): each member of an event's args a value
** on a process counter track named after the event and the member, with Perfetto's naming.
** The arg sets json_events.c holds back (not shared yet) stay held through a counter event
** that adds no args row, track or report (its tracks and its thread's set known): release()
** comes just before anything that does, so the sets' ids and the log are the same.
*/
#include <stdlib.h>
#include <string.h>

#include "processor/import/json/json_events.h"
#include "processor/tables/arg_value.h"

/* A JSON counter value's arg set: the thread of its event, as Perfetto gives it; the same set
** for every value of the thread once it was found stable (not kept beside a colliding one). */
static uint32_t counter_args(trak_json_import *j, uint32_t utid) {
  if (utid < j->utid_args.n && j->utid_args.v[utid]) return j->utid_args.v[utid] - 1;
  release(j); /* rows added and a set shared */
  trak_tables *t = j->imp->tables;
  uint32_t set = (uint32_t)t->args.n;
  uint32_t k = intern(j, "utid", 4);
  uint32_t row = trak__arg_add(t, set, k, k, TRAK_ARG_UINT);
  trak__arg_set_int(t, row, utid);
  int stable;
  set = trak__args_share_stable(j->imp, set, &stable);
  if (stable && set != TRAK_NULL_U32) {
    while (j->utid_args.n <= utid)
      trak_vec_push(j->utid_args, 0);
    j->utid_args.v[utid] = set + 1;
  }
  return set;
}

/* The start of a counter track's name: the event's name, then " id: <id>" with an id. Returns
** its length. */
static size_t counter_prefix(trak_json_import *j, const jevent *e, const jctx *x, char *prefix) {
  size_t n = 0;
  if (x->name) {
    const trak_strpool *sp = &j->imp->tables->strings;
    n = sp->len.v[x->name] < STR_MAX / 2 ? sp->len.v[x->name] : STR_MAX / 2;
    memcpy(prefix, sp->str.v[x->name], n);
  }
  if (e->id.s) {
    size_t len;
    const char *s = e->id.kind == TRAK_JSON_STRING ? str_of(j, &e->id, &len) : e->id.s;
    if (e->id.kind != TRAK_JSON_STRING) len = e->id.len;
    if (len > STR_MAX / 4) len = STR_MAX / 4;
    memcpy(prefix + n, " id: ", 5);
    memcpy(prefix + n + 5, s, len);
    n += 5 + len;
  }
  return n;
}

/* The process counter track of arg `key` of a C event, named "<name> <key>" ("<name> id: <id>
** <key>" with an id), as Perfetto names them; `prefix` holds the name's start once *n is not
** SIZE_MAX (built here at first need). Tracks of events without an id under short plain keys
** are memoized (the name interned and the track made the first time only). */
static uint32_t counter_track(trak_json_import *j, const jevent *e, const jctx *x,
                              const trak_json_value *key, const uint64_t *kw, char *prefix,
                              size_t *n) {
  size_t klen = key->len;
  uint64_t w[TRAK_JSON_CACHED_MAX / 8];
  __typeof__(&j->counter_memo[0]) m = NULL;
  if (!e->id.s && !key->escaped && klen && klen <= TRAK_JSON_CACHED_MAX) {
    size_t words = (klen + 7) / 8;
    if (!kw) trak__json_load_words(w, key->s, klen), kw = w;
    m = &j->counter_memo[trak__json_words_hash((uint64_t)x->upid << 32 | x->name, kw, words) >> 58];
    if (m->len == klen && m->upid == x->upid && m->name == x->name &&
        trak__json_words_equal(m->key, kw, words))
      return m->track;
  }
  release(j); /* a track may be made */
  if (*n == SIZE_MAX) *n = counter_prefix(j, e, x, prefix);
  size_t ks_len;
  const char *ks = str_of(j, key, &ks_len);
  char name[STR_MAX];
  size_t len = *n;
  memcpy(name, prefix, len);
  if (ks_len > STR_MAX - len - 2) ks_len = STR_MAX - len - 2;
  name[len++] = ' ';
  memcpy(name + len, ks, ks_len);
  len += ks_len;
  uint32_t name_id = intern(j, name, len);
  uint32_t track =
      trak__keyed_track(j->imp, trak__track_key(TRAK_TK_JSON_COUNTER, x->upid, name_id), name_id,
                        x->upid, 1, TRAK_TK_JSON_COUNTER);
  if (m) {
    memcpy(m->key, kw, (klen + 7) / 8 * 8);
    m->len = (uint32_t)klen, m->upid = x->upid, m->name = x->name, m->track = track;
  }
  return track;
}

/* A counter value written as a string: its bytes all a number as strtod reads them (1, *v set),
** else 0. */
static int string_value(const char *s, size_t len, double *v) {
  char buf[128], *end;
  if (len > sizeof buf - 1) len = sizeof buf - 1;
  memcpy(buf, s, len);
  buf[len] = 0;
  *v = strtod(buf, &end);
  return !*end;
}

/* One member of a C event, under `key` (kw: its words, trak__json_load_words', or NULL): its
** value `v` on its track when `ok`, else counted. */
static void member(trak_json_import *j, const jevent *e, const jctx *x, const trak_json_value *key,
                   const uint64_t *kw, int ok, double v, char *prefix, size_t *n) {
  if (!ok) {
    release(j);
    trak__json_bad_event(j, "counter value is not a number");
    return;
  }
  uint32_t track = counter_track(j, e, x, key, kw, prefix, n);
  uint64_t bits;
  memcpy(&bits, &v, 8);
  record(j, x->ts, TRAK_EV_COUNTER, track, bits, counter_args(j, x->utid), 0, INT64_MAX);
}

/* Whether an args text whose leaves are all top-level members holds nothing the leaves leave out
** or read otherwise than trak__json_real_of: a null member or an object (no leaf), or "-0" (an
** INT leaf of 0, where the text's value is -0.0). Strings holding these only cost the text path. */
static int leaves_say_all(const char *s, size_t len) {
  for (size_t i = 1; i < len; i++) {
    char c = s[i];
    if (TRAK_UNLIKELY(c == '{' || c == 'n' || c == '-') &&
        (c == '{' || (c == '-' && i + 1 < len && s[i + 1] == '0') ||
         (c == 'n' && len - i >= 4 && !memcmp(s + i, "null", 4))))
      return 0;
  }
  return 1;
}

/* The members of a C event from its leaves (json_leaves.h), as the text path reads them: 0 when
** they can't say (nested objects, nulls, "-0", an integer past int64 that was read as its bits),
** nothing done then. */
static int from_leaves(trak_json_import *j, const jevent *e, const jctx *x, char *prefix,
                       size_t *n) {
  if (e->leaf_n == UINT32_MAX || !e->leaf_n) return 0; /* none: the text says why (or no leaves) */
  const trak_json_leaf *l = j->apply_leaves + e->leaf_at, *end = l + e->leaf_n;
  const trak_json_dict_entry *entry = j->dict.entry;
  for (const trak_json_leaf *p = l; p < end; p++) {
    if (entry[p->key].parent) return 0;
    double r = p->v.r; /* trak__json_number_wide's bits of a wide integer: negative, whole */
    if (p->type == TRAK_ARG_REAL && r < 0 && r >= -0x1p63 && r == (double)(int64_t)r) return 0;
  }
  if (!leaves_say_all(e->args.s, e->args.len)) return 0;
  for (; l < end; l++) {
    const trak_json_dict_entry *k = &entry[l->key];
    trak_json_value key = {.s = k->key + 5, .len = k->name_len, .kind = TRAK_JSON_STRING};
    double v = 0;
    int ok = l->type == TRAK_ARG_INT || l->type == TRAK_ARG_REAL;
    if (l->type == TRAK_ARG_INT)
      v = (double)l->v.i;
    else if (l->type == TRAK_ARG_REAL)
      v = l->v.r;
    else if (l->type == TRAK_ARG_STRING && l->len && !l->escaped)
      ok = string_value(e->args.s + l->v.off, l->len, &v);
    member(j, e, x, &key, k->name, ok, v, prefix, n);
  }
  return 1;
}

void trak__json_counters(trak_json_import *j, const jevent *e, const jctx *x) {
  if (!e->args.s || e->args.kind != TRAK_JSON_OBJECT) {
    release(j);
    trak__json_bad_event(j, "counter event without an args object");
    return;
  }
  char prefix[STR_MAX];
  size_t n = SIZE_MAX;
  if (from_leaves(j, e, x, prefix, &n)) return;
  release(j); /* the text path: read as before, the held sets shared first */
  size_t state = 0;
  trak_json_value key, val;
  while (trak__json_next(&e->args, &state, &key, &val)) {
    double v = 0;
    int ok = val.kind == TRAK_JSON_NUMBER;
    if (ok)
      v = trak__json_real_of(&val);
    else if (val.kind == TRAK_JSON_STRING && val.len && !val.escaped)
      ok = string_value(val.s, val.len, &v);
    member(j, e, x, &key, NULL, ok, v, prefix, &n);
  }
}
