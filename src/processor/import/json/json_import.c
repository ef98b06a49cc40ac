/*
** This file holds the streaming importer of the legacy JSON trace-event format (JSON Object
** Format {"traceEvents": [...]} and JSON Array Format [...], unterminated arrays included). The
** outer structure is read with a small state machine that resumes at value boundaries as bytes
** arrive; each event object is read in one pass into spans (no DOM) and handed to
** json_events.c, which makes records of the importer's per-thread sequences, sorted and turned
** into slices, counters and flows by the parse phase exactly like protobuf events.
** Memory: the unconsumed tail of the input (at most one event plus one feed) and the tables.
*/
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor/import/json/json_import.h"
#include "processor/import/json/json_keys.h"
#include "processor/import/json/json_scan.h"
#include "util/limits.h"

#define TRAK_JSON_PAUSE 2 /* step: stopped at a resumable position (c.p) */

trak_json_import *trak__json_import_new(trak_importer *imp) {
  /* Aligned as its members are, so that the reader's and the importer's lines are apart. */
  trak_json_import *j = aligned_alloc(_Alignof(trak_json_import), sizeof *j);
  if (!j) abort();
  memset(j, 0, sizeof *j);
  j->imp = imp;
  imp->json = 1;
  imp->tables->thread.name[0] = 0; /* the idle thread is unnamed in a JSON trace's tables */
  j->last_track = TRAK_NULL_U32;
  j->last_utid = TRAK_NULL_U32;
  const char *memo = getenv("TRAK_JSON_KEY_MEMO"); /* "0": the tests' path without it */
  if (!memo || strcmp(memo, "0")) {
    j->keys = calloc(1, sizeof *j->keys);
    j->dict_ids = calloc(TRAK_JSON_DICT_MAX + 1, sizeof *j->dict_ids);
    if (!j->keys || !j->dict_ids) abort();
    j->leaves_on = 1;
    trak__json_dict_init(&j->dict);
  }
  j->lv = (trak_json_leaves){&j->own.v, &j->own.n, &j->own.cap};
  for (size_t ph = 0; ph < 32; ph++)
    for (size_t f = 0; f < JSON_KEY_ROWS; f++)
      j->key_pred[ph][f] = (trak_json_key_pred){0, ~0ULL, 0, 0, JSON_KEY_OTHER, 0};
  j->shape_stale = ~0u;
  return j;
}

void trak__json_import_free(trak_json_import *j) {
  if (!j) return;
  free(j->buf);
  free(j->keys);
  free(j->dict_ids);
  free(j->own.v);
  trak__json_dict_free(&j->dict);
  trak__map_free(&j->threads);
  trak_vec_free(j->thread_seqs);
  trak_vec_free(j->utid_args);
  trak_vec_free(j->meta);
  free(j);
}

/* ---- diagnostics ----------------------------------------------------------------------- */

/* Line and column (from 1) of buffer position `at`. */
void trak__json_line_col(const trak_json_import *j, const char *at, uint64_t *line, uint64_t *col) {
  uint64_t lines = j->lines, start = j->line_offset;
  for (const char *p = j->base; p < at; p++)
    if (*p == '\n') lines++, start = j->buf_offset + (uint64_t)(p - j->base) + 1;
  *line = lines + 1;
  *col = j->buf_offset + (uint64_t)(at - j->base) - start + 1;
}

/* The slot of the next op (two threads), not yet pushed: an event is read straight into it. */
static inline trak_json_op *op_next(trak_json_import *j) {
  trak_json_ops *ops = j->ops;
  if (ops->n == ops->cap) trak__grow((void **)&ops->v, &ops->cap, ops->n + 1, sizeof *ops->v);
  return &ops->v[ops->n];
}

/* The next op of the reader's side effects (two threads), cleared but for its event. */
static trak_json_op *op_push(trak_json_import *j, int kind) {
  trak_json_op *op = op_next(j);
  j->ops->n++;
  op->kind = (uint8_t)kind;
  op->at = 0;
  op->owned = NULL;
  return op;
}

/* A problem the reader met, reported (`at`: with the import's position set to event `index`,
** byte `offset` first) at once or, on the decoding thread, kept as an op with its message
** formatted as trak__report formats it. */
__attribute__((cold, noinline, format(printf, 6, 7))) void
trak__json_reader_report(trak_json_import *j, trak_stat_id stat, int at, uint64_t index,
                         uint64_t offset, const char *fmt, ...) {
  char msg[512]; /* trak__report's own bound */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!j->ops) {
    if (at) j->imp->packet_index = index, j->imp->packet_offset = offset;
    trak__report(j->imp, stat, "%s", msg);
    return;
  }
  trak_json_op *op = op_push(j, JSON_OP_REPORT);
  op->at = (uint8_t)at, op->stat = (uint16_t)stat, op->index = index, op->offset = offset;
  op->owned = strdup(msg);
  if (!op->owned) abort();
}

__attribute__((cold, noinline)) static void syntax_error(trak_json_import *j, const char *at,
                                                         const char *msg) {
  uint64_t line, col;
  trak__json_line_col(j, at, &line, &col);
  trak__json_reader_report(
      j, TRAK_STAT_JSON_SYNTAX, 1, j->event_index, j->buf_offset + (uint64_t)(at - j->base),
      "JSON syntax error at line %llu, column %llu: %s; the events before it were "
      "imported, the rest of the trace was skipped",
      (unsigned long long)line, (unsigned long long)col, msg);
  j->state = ST_DEAD;
}

/* Marks every field absent but ph and saw_field, which event_read sets first (only the pointers:
** clearing the whole struct costs more than reading a small event; plain stores, as a loop over
** their addresses is not unrolled). */
static inline void jevent_clear(jevent *e) {
  e->name.s = e->cat.s = e->ts.s = e->dur.s = e->tts.s = NULL;
  e->tdur.s = e->pid.s = e->tid.s = e->id.s = e->id2.s = e->scope.s = NULL;
  e->s.s = e->bp.s = e->args.s = e->bind_id.s = e->flow_in.s = e->flow_out.s = NULL;
  e->leaf_n = UINT32_MAX;
}

/* Reads the event's "args" value at the cursor: an object of the common shape into leaves (from
** e->leaf_at on: a second "args" member replaces the first's), its first key predicted by the
** phase (`ph`: its row of j->key_pred), else with the tokenizer. */
static inline __attribute__((always_inline)) int args_read(trak_json_import *j, trak_json_cur *c,
                                                           jevent *e, unsigned ph) {
  *j->lv.n = e->leaf_at;
  e->leaf_n = UINT32_MAX;
  j->dict.last = TRAK_JSON_DICT_MAX + 1 + ph;
  if (trak__json_peek(c) == '{' && trak__json_leaves_read(&j->dict, &j->lv, c, &e->args)) {
    e->leaf_n = (uint32_t)(*j->lv.n - e->leaf_at);
    return TRAK_JSON_OK;
  }
  return trak__json_value_fast(c, &e->args, 1);
}

/* Reads one event object in one pass into e (cleared by jevent_clear); its members' values stay
** spans into the buffer, its args are read into leaves when they can be (j->leaves_on). The key
** that followed the last field read, in the last event of the same phase, is tried first
** (j->key_pred): its comma, quotes and ':' in one word compare. `room16`: c->end - 16, as an
** address. */
static inline __attribute__((always_inline)) int event_read(trak_json_import *restrict j,
                                                            trak_json_cur *restrict c,
                                                            jevent *restrict e, uintptr_t room16) {
  int rc;
  trak_json_key_pred *row;
  unsigned prev, ph;
  trak_json_value *slot;
  const char *at = c->p;
  /* `{"ph":"X"`, the common start, in one word compare: as the steps below read it */
  if (TRAK_LIKELY((uintptr_t)at <= room16 &&
                  (trak__json_word_at(at) << 8) == trak__json_word_at("\0{\"ph\":\"") &&
                  at[8] == '"' && at[7] != '"' && at[7] != '\\')) {
    e->saw_field = 1;
    e->ph.kind = TRAK_JSON_STRING, e->ph.escaped = 0, e->ph.s = at + 7, e->ph.len = 1;
    c->p = at + 9;
    prev = 0; /* the "ph" field */
    ph = (unsigned char)at[7] & 31;
    goto phase_read;
  }
  e->ph.s = NULL, e->saw_field = 0;
  if (TRAK_LIKELY(c->p < c->end && *c->p == '{'))
    c->p++;
  else if ((rc = trak__json_expect(c, '{', "expected an event object")))
    return rc;
  int ch = trak__json_peek(c);
  if (ch < 0) return trak__json_expect(c, '}', "unexpected end");
  if (ch == '}') {
    c->p++;
    return TRAK_JSON_OK;
  }
  e->saw_field = 1; /* a member follows (or an error) */
  row = j->key_pred[0];
  prev = JSON_KEY_START;
  const trak_json_key_pred *k = &row[prev];
  if (TRAK_LIKELY(c->end - c->p >= 16) && ((trak__json_word_at(c->p) ^ k->word) & k->mask) == 0) {
    slot = (trak_json_value *)(void *)((char *)e + k->off);
    c->p += k->len;
    prev = k->field;
    if (TRAK_LIKELY(slot == &e->ph)) goto phase;
    goto value;
  }
  for (;;) {
    /* The value is read straight into its field (a value cut by the buffer's end leaves the
    ** field half written: the event is read again from its start, its fields cleared). `ch`
    ** is the byte at the key. */
    trak_json_value key, other;
    slot = NULL;
    if (TRAK_LIKELY(ch == '"' && c->end - c->p >= 16)) slot = trak__json_key_fast(c, e);
    if (!slot) {
      key.s = NULL, key.len = 0, key.escaped = 0; /* set on success (gcc cannot tell) */
      if ((rc = trak__json_key_ch(c, ch, &key))) return rc;
      slot = key.escaped ? NULL : trak__json_field_for(e, key.s, key.len);
    }
    trak__json_key_learn(j, row, prev, e, slot);
    prev = row[prev].field;
    if (slot == &e->ph) {
    phase: /* the phase's row predicts the keys after it */
      if (TRAK_LIKELY(c->end - c->p >= 3 && c->p[0] == '"' && c->p[2] == '"' && c->p[1] != '"' &&
                      c->p[1] != '\\')) { /* one letter, as trak__json_string_at reads it */
        e->ph.kind = TRAK_JSON_STRING, e->ph.escaped = 0, e->ph.s = c->p + 1, e->ph.len = 1;
        c->p += 3;
      } else if ((rc = trak__json_value_fast(c, &e->ph, 1))) {
        return rc;
      }
      ph = (unsigned char)e->ph.s[0] & 31;
    phase_read:;
      if (TRAK_UNLIKELY(j->shape_stale >> ph & 1)) trak__json_shape_build(j, ph);
      /* The phase's keys in their usual order and spelling, with their strings and numbers of
      ** the usual form, read in one loop; at the first other key the loop below goes on from
      ** there, at any other value it reads that value. */
      trak_json_shape *sh = &j->shape[ph];
      trak_json_shape_key *sk;
      int keyed;
      const char *p = trak__json_shape_read(sh, e, c->p, c->end, &sk, &keyed);
      if (TRAK_LIKELY(!keyed && p < c->end && *p == '}')) {
        c->p = p + 1;
        return TRAK_JSON_OK;
      }
      c->p = p;
      row = j->key_pred[ph];
      if (keyed) { /* the key of sk is read: its value is not of the usual form */
        prev = sk->key.field;
        slot = (trak_json_value *)(void *)((char *)e + sk->key.off);
        goto value;
      }
      if (sk != sh->keys) prev = sk[-1].key.field;
      goto next;
    }
    if (!slot) slot = &other;
  value:
    if (slot == &e->args && j->leaves_on)
      rc = args_read(j, c, e, (unsigned)((row - j->key_pred[0]) / JSON_KEY_ROWS));
    else
      rc = trak__json_value_fast(c, slot, 1);
    if (rc) return rc;
  next:
    k = &row[prev];
    if (TRAK_LIKELY(c->end - c->p >= 16) && ((trak__json_word_at(c->p) ^ k->word) & k->mask) == 0) {
      slot = (trak_json_value *)(void *)((char *)e + k->off);
      c->p += k->len;
      prev = k->field;
      goto value;
    }
    if (TRAK_LIKELY(c->end - c->p >= 2 && c->p[0] == ',' && c->p[1] == '"')) {
      c->p++; /* the next key right after the comma (the common spelling) */
      ch = '"';
      continue;
    }
    ch = trak__json_peek(c);
    if (ch == ',') {
      c->p++;
      if ((ch = trak__json_peek(c)) != '}') continue; /* a trailing comma is forgiven */
    }
    if (ch == '}') {
      c->p++;
      return TRAK_JSON_OK;
    }
    return trak__json_expect(c, '}', "expected ',' or '}'");
  }
}

/* The value's text copied, for an op that outlives the bytes it was read from; `v` then points
** into the copy, which is returned (the op owns it). */
static char *own_value(trak_json_value *v) {
  char *copy = malloc(v->len ? v->len : 1);
  if (!copy) abort();
  memcpy(copy, v->s, v->len);
  v->s = copy;
  return copy;
}

/* An event read from the reader's buffer, whose bytes the next input overwrites: copied for its
** op, its spans moved into the copy. */
__attribute__((cold, noinline)) static char *own_event(jevent *e, const char *start, size_t len) {
  char *copy = malloc(len ? len : 1);
  if (!copy) abort();
  memcpy(copy, start, len);
  trak_json_value *f[] = {&e->ph,   &e->name, &e->cat,  &e->ts,      &e->dur,     &e->tts,
                          &e->tdur, &e->pid,  &e->tid,  &e->id,      &e->id2,     &e->scope,
                          &e->s,    &e->bp,   &e->args, &e->bind_id, &e->flow_in, &e->flow_out};
  for (size_t i = 0; i < sizeof f / sizeof *f; i++)
    if (f[i]->s) f[i]->s = copy + (f[i]->s - start);
  return copy;
}

/* An event read from [start, end) (at trace offset `offset`): applied at once, or kept as an op
** (two threads: `e` is then the event of op_next's slot, `ops` is j->ops and `in_buf` says the
** bytes are j->buf's). */
static inline void event_emit(trak_json_import *j, trak_json_ops *ops, int in_buf, jevent *e,
                              const char *start, const char *end, uint64_t offset) {
  if (TRAK_LIKELY(!ops)) {
    j->imp->packet_index = j->apply_index = j->event_index;
    j->imp->packet_offset = offset;
    j->apply_leaves = j->own.v;
    trak__json_event_apply(j, e);
    j->own.n = j->leaves_kept = 0;
    return;
  }
  j->leaves_kept = *j->lv.n;
  trak_json_op *op = (trak_json_op *)(void *)((char *)e - offsetof(trak_json_op, e)); /* op_next's */
  ops->n++;
  op->kind = JSON_OP_EVENT, op->at = 0, op->owned = NULL;
  op->offset = offset; /* its index set before it was read (events_read) */
  if (in_buf) op->owned = own_event(&op->e, start, (size_t)(end - start));
}

/* The ST_EVENT state: events one after another without going back through the state machine;
** an event cut by the buffer's end is read again from its start with more bytes. What stays the
** same for the step is read once (stores through the event's bytes would make them reloaded).
** Returns as step does. (A copy of the loop for each of one and two threads cost more than the
** tests of `ops` it saves: gcc then kept the event's address on the stack.) */
static inline __attribute__((always_inline)) int events_read(trak_json_import *j,
                                                             trak_json_cur *c) {
  int ch, rc;
  trak_json_ops *const ops = j->ops;
  const int in_buf = j->base == j->buf;
  const uint64_t offset0 = j->buf_offset - (uint64_t)(uintptr_t)j->base; /* + an address */
  /* an event read before and not handed over left its leaves; each event handed over sets
  ** leaves_kept to the leaves' count, so this holds at every event's start */
  *j->lv.n = j->leaves_kept;
  /* The op slots from op to op_end are there to be read into (ops->v moves only in op_next). As
  ** addresses, the bytes' end less 16 and 8 (no buffer ends in the first bytes of the address
  ** space). */
  trak_json_op *op = ops ? ops->v + ops->n : NULL, *op_end = ops ? ops->v + ops->cap : NULL;
  const uintptr_t room16 = (uintptr_t)c->end - 16, room8 = (uintptr_t)c->end - 8;
  for (int n = 0;; n++) {
    jevent local, *e = &local;
    if (ops) {
      if (TRAK_UNLIKELY(op == op_end)) op = op_next(j), op_end = ops->v + ops->cap;
      e = &op->e;
      op->index = j->event_index; /* here, not beside the offset: gcc paired the two in a vector */
    }
    jevent_clear(e);
    e->leaf_at = (uint32_t)j->leaves_kept;
    const char *start = c->p;
    if ((rc = event_read(j, c, e, room16))) {
      if (rc == TRAK_JSON_MORE && n) {
        c->p = start;
        return TRAK_JSON_PAUSE;
      }
      if (rc == TRAK_JSON_TOO_DEEP) c->p = start;
      return rc;
    }
    event_emit(j, ops, in_buf, e, start, c->p, offset0 + (uint64_t)(uintptr_t)start);
    if (ops) op++;
    j->event_index++;
    if (c->p >= j->stop) break; /* the buffered bytes are read: the rest is read in place */
    const char *q = c->p; /* "," then "{" or a newline and "{": the common spellings */
    if (TRAK_LIKELY((uintptr_t)q <= room8)) {
      uint64_t w = trak__json_word_at(q);
      if (TRAK_LIKELY((w & 0xffffff) == (trak__json_word_at(",\n{\0\0\0\0\0") & 0xffffff))) {
        c->p = q + 2;
        continue;
      }
      if ((w & 0xffff) == (trak__json_word_at(",{\0\0\0\0\0\0") & 0xffff)) {
        c->p = q + 1;
        continue;
      }
    } else if (c->end - q >= 3 && q[0] == ',' && (q[1] == '{' || (q[1] == '\n' && q[2] == '{'))) {
      c->p = q + 1 + (q[1] == '\n');
      continue;
    }
    ch = trak__json_peek(c);
    if (ch != ',') break;
    const char *comma = c->p++;
    ch = trak__json_peek(c);
    if (ch != '{') { /* the end of the buffer, a trailing comma, or an error: the slow path */
      c->p = comma;
      break;
    }
  }
  j->state = ST_EVENTS_NEXT;
  return TRAK_JSON_OK;
}

/* ---- the outer structure --------------------------------------------------------------- */

/* The top-level "metadata" object (its text) as json_metadata.* metadata rows: a boolean or an
** integral number an int, another number its %g text, a string unescaped, an object or array
** its text; null no row. A malformed member ends the object (the rows before it stay). */
static void metadata_object(trak_importer *imp, const char *text, size_t len) {
  trak_json_cur c = {text, text + len, 1, NULL, NULL};
  if (trak__json_peek(&c) != '{') return;
  c.p++;
  if (trak__json_peek(&c) == '}') return;
  for (;;) {
    trak_json_value key, val;
    if (trak__json_member(&c, &key, &val)) return; /* keep what was read, as Perfetto does */
    char name[256];
    size_t kn = trak__json_unescape(&key, name + 14, sizeof name - 15);
    memcpy(name, "json_metadata.", 14);
    name[14 + kn] = 0;
    switch (val.kind) {
    case TRAK_JSON_TRUE:
    case TRAK_JSON_FALSE:
      trak__meta_set_int(imp, name, TRAK_META_MACHINE_TRACE, val.kind == TRAK_JSON_TRUE);
      break;
    case TRAK_JSON_NUMBER: {
      char num[64];
      size_t n = val.len < sizeof num - 1 ? val.len : sizeof num - 1;
      memcpy(num, val.s, n);
      num[n] = 0;
      double d = strtod(num, NULL);
      if (d == trunc(d) && fabs(d) < 9.2e18) {
        trak__meta_set_int(imp, name, TRAK_META_MACHINE_TRACE, (int64_t)d);
      } else {
        char g[32];
        int gn = snprintf(g, sizeof g, "%g", d);
        trak__meta_set_str(imp, name, TRAK_META_MACHINE_TRACE, g, (size_t)gn);
      }
      break;
    }
    case TRAK_JSON_STRING: {
      char *s = malloc(val.len + 1);
      if (!s) abort();
      size_t n = trak__json_unescape(&val, s, val.len + 1);
      trak__meta_set_str(imp, name, TRAK_META_MACHINE_TRACE, s, n);
      free(s);
      break;
    }
    case TRAK_JSON_OBJECT:
    case TRAK_JSON_ARRAY: /* its text, brackets included */
      trak__meta_set_str(imp, name, TRAK_META_MACHINE_TRACE, val.s, val.len);
      break;
    default: /* null: no row */
      break;
    }
    int ch = trak__json_peek(&c);
    if (ch != ',') return;
    c.p++;
  }
}

/* A top-level value the reader met, taken in: the "metadata" object (kind JSON_OP_METADATA) as
** metadata rows, or "systemTraceEvents" (JSON_OP_SYSTEM_TRACE) as systrace text. */
static void value_apply(trak_json_import *j, int kind, trak_json_value *v) {
  /* Systrace text may start processes anew: the thread memo's keys are looked up again. */
  memset(j->thread_memo, 0, sizeof j->thread_memo);
  if (kind == JSON_OP_METADATA)
    metadata_object(j->imp, v->s, v->len);
  else
    trak__json_system_trace(j, v);
}

/* A top-level value of `kind` (value_apply's): taken in at once, or kept as an op owning a copy of
** its text (two threads). */
static void value_emit(trak_json_import *j, int kind, trak_json_value *v) {
  if (!j->ops) {
    value_apply(j, kind, v);
    return;
  }
  trak_json_op *op = op_push(j, kind);
  op->e.args = *v;
  op->owned = own_value(&op->e.args);
}

static int step(trak_json_import *j, trak_json_cur *c) {
  int ch, rc;
  trak_json_value v;
  switch (j->state) {
  case ST_START:
    /* A UTF-8 byte order mark, or the start of one still to come. */
    if (c->end - c->p < 3 && !memcmp(c->p, "\xef\xbb\xbf", (size_t)(c->end - c->p)))
      return TRAK_JSON_MORE;
    if (c->end - c->p >= 3 && !memcmp(c->p, "\xef\xbb\xbf", 3)) c->p += 3;
    ch = trak__json_peek(c);
    if (ch < 0) return TRAK_JSON_MORE;
    if (ch != '[' && ch != '{') return trak__json_expect(c, '{', "a JSON trace starts with { or [");
    c->p++;
    j->array_format = ch == '[';
    j->state = ch == '[' ? ST_EVENTS_FIRST : ST_TOP_FIRST;
    return TRAK_JSON_OK;
  case ST_TOP_FIRST:
    ch = trak__json_peek(c);
    if (ch < 0) return TRAK_JSON_MORE;
    if (ch == '}') {
      c->p++;
      j->state = ST_DONE;
      return TRAK_JSON_OK;
    }
    j->state = ST_TOP_KEY;
    return TRAK_JSON_OK;
  case ST_TOP_KEY: {
    ch = trak__json_peek(c);
    if (ch >= 0 && ch != '"') return trak__json_expect(c, '"', "expected a string key");
    if ((rc = trak__json_value(c, &v))) return rc;
    if ((rc = trak__json_expect(c, ':', "expected ':' after a key"))) return rc;
    if (v.len == 11 && !memcmp(v.s, "traceEvents", 11)) {
      if ((rc = trak__json_expect(c, '[', "traceEvents must be an array"))) return rc;
      j->state = ST_EVENTS_FIRST;
      return TRAK_JSON_OK;
    }
    /* systemTraceEvents is systrace text; other keys are skipped; displayTimeUnit is counted,
    ** as Perfetto counts it; the "metadata" object becomes json_metadata.* metadata rows. */
    if (v.len == 17 && !memcmp(v.s, "systemTraceEvents", 17)) {
      if ((rc = trak__json_value(c, &v))) return rc;
      value_emit(j, JSON_OP_SYSTEM_TRACE, &v);
      j->state = ST_TOP_NEXT;
      return TRAK_JSON_OK;
    }
    if (v.len == 15 && !memcmp(v.s, "displayTimeUnit", 15))
      trak__json_reader_report(j, TRAK_STAT_JSON_DISPLAY_TIME_UNIT, 0, 0, 0,
                               "displayTimeUnit is a viewer hint; timestamps stay microseconds");
    int is_metadata = v.len == 8 && !memcmp(v.s, "metadata", 8);
    if ((rc = trak__json_value(c, &v))) return rc;
    if (is_metadata && v.kind == TRAK_JSON_OBJECT) value_emit(j, JSON_OP_METADATA, &v);
    j->state = ST_TOP_NEXT;
    return TRAK_JSON_OK;
  }
  case ST_TOP_NEXT:
    ch = trak__json_peek(c);
    if (ch < 0) return TRAK_JSON_MORE;
    if (ch != ',' && ch != '}') return trak__json_expect(c, '}', "expected ',' or '}'");
    c->p++;
    j->state = ch == ',' ? ST_TOP_KEY : ST_DONE;
    return TRAK_JSON_OK;
  case ST_EVENTS_FIRST:
    ch = trak__json_peek(c);
    if (ch < 0) return TRAK_JSON_MORE;
    if (ch == ']') {
      c->p++;
      j->state = j->array_format ? ST_DONE : ST_TOP_NEXT;
      return TRAK_JSON_OK;
    }
    j->state = ST_EVENT;
    return TRAK_JSON_OK;
  case ST_EVENT:
    return events_read(j, c);
  case ST_EVENTS_NEXT:
    ch = trak__json_peek(c);
    if (ch < 0) return TRAK_JSON_MORE;
    if (ch == ',') {
      c->p++;
      ch = trak__json_peek(c);
      if (ch < 0) return TRAK_JSON_MORE;
      if (ch != ']') { /* a trailing comma before ']' is forgiven */
        j->state = ST_EVENT;
        return TRAK_JSON_OK;
      }
    }
    if (ch != ']') return trak__json_expect(c, ']', "expected ',' or ']' after an event");
    c->p++;
    j->state = j->array_format ? ST_DONE : ST_TOP_NEXT;
    return TRAK_JSON_OK;
  case ST_DONE:
    ch = trak__json_peek(c);
    if (ch < 0) return TRAK_JSON_MORE;
    return trak__json_expect(c, ' ', "data after the end of the trace");
  default:
    return TRAK_JSON_MORE;
  }
}

/* Steps past the first `used` bytes of the input being read (at j->base), keeping the line
** accounting that diagnostics need. */
void trak__json_advance(trak_json_import *j, size_t used) {
  size_t last = 0, lines = trak__json_newlines(j->base, used, &last);
  j->lines += lines;
  if (lines) j->line_offset = j->buf_offset + last + 1;
  j->buf_offset += used;
}

/* Reads what it can of [base, base + n) (more bytes may follow), stopping after the first step
** that ends at or past base + stop (stop <= n); returns how many bytes were consumed (all of them
** once the trace is dead). */
static size_t run(trak_json_import *j, const char *base, size_t n, size_t stop) {
  j->base = base;
  j->stop = base + stop;
  trak_json_cur c = {base, base + n, 0, NULL, NULL};
  for (;;) {
    const char *save = c.p;
    int rc = step(j, &c);
    if (rc == TRAK_JSON_OK && c.p >= j->stop) break;
    if (rc == TRAK_JSON_MORE) {
      c.p = save;
      break;
    }
    if (rc == TRAK_JSON_PAUSE) break; /* c.p is where to resume */
    if (rc == TRAK_JSON_TOO_DEEP && (j->state == ST_EVENT || j->state == ST_TOP_KEY)) {
      /* The event (its start is c.p) or the top-level member (from its key) is skipped. */
      if (trak__json_too_deep(j, &c, j->state == ST_EVENT ? c.p : save)) continue;
      break; /* the skip goes on past this buffer: all of it is consumed */
    }
    if (rc == TRAK_JSON_ERROR || rc == TRAK_JSON_TOO_DEEP) {
      syntax_error(j, c.err_at, c.err_msg);
      break;
    }
  }
  return j->state == ST_DEAD || j->skip.on ? n : (size_t)(c.p - base);
}

/* Appends bytes to the buffer of unconsumed input. */
static void keep(trak_json_import *j, const uint8_t *data, size_t len) {
  if (!len) return; /* buf may still be NULL */
  if (j->n + len > j->cap) trak__grow((void **)&j->buf, &j->cap, j->n + len, 1);
  memcpy(j->buf + j->n, data, len);
  j->n += len;
}

/* Reads the buffered input (with `len` new bytes appended) up to the end of the first step
** that completes the buffered bytes (the event they began): the events after it are read in
** place, not copied out of the buffer. Returns how many of the new bytes were consumed, 0
** while the buffer's bytes are not all consumed (then they stay). */
static size_t run_buffered(trak_json_import *j, const uint8_t *data, size_t len) {
  size_t old = j->n;
  keep(j, data, len);
  size_t used = run(j, j->buf, j->n, old);
  trak__json_advance(j, used);
  memmove(j->buf, j->buf + used, j->n - used);
  j->n -= used;
  if (used < old) return 0;
  j->n = 0; /* the new bytes past `used` are read again from the caller's chunk */
  return used - old;
}

#define JSON_PIECE_MAX (256u << 20) /* input read at once: with the buffer, under 4 GiB */
#define JSON_BUF_MAX (3ull << 30)   /* a value longer than this is a syntax error */

/* The unfinished value in the buffer passed JSON_BUF_MAX (an event passes the event limit far
** earlier: a top-level member's value): a syntax error there, as a value's length is kept in 32
** bits (json.h). */
__attribute__((cold, noinline)) static void value_too_long(trak_json_import *j) {
  j->base = j->buf;
  syntax_error(j, j->buf, "a value of more than 3 GiB");
  free(j->buf);
  j->buf = NULL, j->n = j->cap = 0;
}

/* Each chunk is read in place; only what an event cut by its end leaves is copied into the
** buffer. That rest is completed from the next chunk's first bytes (or, for an event longer
** than those, the whole next chunk) before the chunk is read in place from where it ended.
** An event longer than a chunk is read again only each time the buffer has doubled. */
static void feed_piece(trak_json_import *j, const uint8_t *data, size_t len) {
  enum { JOIN = 4096 };
  if (j->state == ST_DEAD || !len) return;
  if (j->skip.on) {
    size_t used = trak__json_skip_bytes(j, (const char *)data, len);
    data += used, len -= used;
    if (j->skip.on || !len) return;
  }
  if (j->n) {
    if (j->n + len < j->retry_at) {
      keep(j, data, len);
      if (j->n > TRAK_LIMIT_JSON_EVENT_BYTES && j->state == ST_EVENT) trak__json_event_too_large(j);
      return;
    }
    size_t first = len < JOIN ? len : JOIN, used = run_buffered(j, data, first);
    if (j->n && first < len) { /* still inside the buffered bytes: take the whole chunk */
      data += first, len -= first;
      used = run_buffered(j, data, len);
    }
    if (j->n && j->state != ST_DEAD) {
      j->retry_at = 2 * j->n;
      if (j->n > TRAK_LIMIT_JSON_EVENT_BYTES && j->state == ST_EVENT) trak__json_event_too_large(j);
    }
    if (j->n || j->state == ST_DEAD) return;
    data += used, len -= used;
    if (j->skip.on) { /* a skip begun in the buffered bytes goes on in the rest */
      feed_piece(j, data, len);
      return;
    }
  }
  size_t used = run(j, (const char *)data, len, len);
  trak__json_advance(j, used);
  if (j->state != ST_DEAD) keep(j, data + used, len - used);
}

/* The input in pieces of at most JSON_PIECE_MAX bytes, and the buffer kept under JSON_BUF_MAX
** bytes, so that no cursor spans 4 GiB (any split of the input reads the same). */
void trak__json_import_feed(trak_json_import *j, const uint8_t *data, size_t len) {
  for (;;) {
    size_t n = len < JSON_PIECE_MAX ? len : JSON_PIECE_MAX;
    feed_piece(j, data, n);
    if (TRAK_UNLIKELY(j->n > JSON_BUF_MAX) && j->state != ST_DEAD && !j->skip.on) value_too_long(j);
    if (n == len) return;
    data += n, len -= n;
  }
}

void trak__json_import_read(trak_json_import *j, const uint8_t *data, size_t len,
                            trak_json_ops *ops) {
  j->ops = ops;
  if (!ops->n) ops->leaves_n = 0; /* the caller applied and emptied the ops */
  j->lv = (trak_json_leaves){&ops->leaves, &ops->leaves_n, &ops->leaves_cap};
  j->leaves_kept = ops->leaves_n; /* an event cut at the last piece's end left leaves: unused */
  trak__json_import_feed(j, data, len);
  j->lv = (trak_json_leaves){&j->own.v, &j->own.n, &j->own.cap};
  j->own.n = j->leaves_kept = 0;
  j->ops = NULL;
}

void trak__json_import_apply(trak_json_import *j, trak_json_ops *ops, size_t from, size_t to) {
  trak_importer *imp = j->imp;
  j->apply_leaves = ops->leaves;
  j->hold = 1; /* an event's record may wait for the next event (trak__json_release) */
  for (size_t i = from; i < to; i++) {
    trak_json_op *op = &ops->v[i];
    if (TRAK_LIKELY(op->kind == JSON_OP_EVENT)) {
      imp->packet_index = j->apply_index = op->index;
      imp->packet_offset = op->offset;
      trak__json_event_apply(j, &op->e);
    } else if (op->kind == JSON_OP_REPORT) {
      trak__json_release(j);
      if (op->at) imp->packet_index = op->index, imp->packet_offset = op->offset;
      trak__report(imp, (trak_stat_id)op->stat, "%s", op->owned);
    } else {
      trak__json_release(j);
      value_apply(j, op->kind, &op->e.args);
    }
    if (op->owned) { /* most events point into the batch: no call to free(NULL) */
      free(op->owned);
      op->owned = NULL;
    }
  }
  trak__json_release(j);
  j->hold = 0;
}

void trak__json_ops_free(trak_json_ops *ops) {
  for (size_t i = 0; i < ops->n; i++)
    free(ops->v[i].owned);
  free(ops->leaves);
  ops->leaves = NULL;
  ops->leaves_n = ops->leaves_cap = 0;
  trak_vec_free(*ops);
}

void trak__json_import_finish(trak_json_import *j) {
  if (j->n && j->state != ST_DEAD && !j->skip.on) { /* a last read of what waited for more */
    j->retry_at = 0;
    run_buffered(j, NULL, 0);
  }
  trak__json_meta_args(j);
  if (j->state == ST_DEAD) return;
  if (j->skip.on) {
    j->imp->packet_offset = j->buf_offset;
    trak__report(j->imp, TRAK_STAT_TRACE_TRUNCATED,
                 "the JSON trace ends inside the event being skipped");
    return;
  }
  j->base = j->buf ? j->buf : ""; /* no buffer when no event was ever cut */
  trak_json_cur c = {j->base, j->base + j->n, 1, NULL, NULL};
  int ch = trak__json_peek(&c);
  if (ch < 0 && j->state != ST_START) return; /* complete, or an array cut between events */
  if (j->state == ST_START && ch < 0) {
    syntax_error(j, c.p, "empty JSON trace");
    return;
  }
  uint64_t line, col;
  trak__json_line_col(j, c.p, &line, &col);
  j->imp->packet_offset = j->buf_offset + (uint64_t)(c.p - j->base);
  trak__report(j->imp, TRAK_STAT_TRACE_TRUNCATED,
               "the JSON trace ends inside a value that starts at line %llu, column %llu; "
               "it was dropped",
               (unsigned long long)line, (unsigned long long)col);
}

int trak__json_is_trace(const uint8_t *data, size_t len) {
  size_t i = 0;
  while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
    i++;
  if (len - i >= 3 && !memcmp(data + i, "\xef\xbb\xbf", 3)) i += 3;
  while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
    i++;
  if (i == len) return 0;
  if (data[i] == '[') return 1;
  if (data[i] != '{') return 0;
  static const char key[] = "\"traceEvents\"";
  for (size_t k = i; k + sizeof key - 1 <= len; k++)
    if (!memcmp(data + k, key, sizeof key - 1)) return 1;
  return 0;
}
