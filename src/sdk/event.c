/*
** The event path. trak_event_emit_fast() writes the common events (slice begin and end, instants
** without options) straight into the writer's chunk, byte by byte, when their name and category
** are already interned on the sequence: ~14 bytes, no lock, no allocation. Everything else
** (options, run-time names, groups, first use of a name) is encoded by encode_event() into the
** thread's scratch buffer with interned data collected on the side, then copied in as one
** packet. Each session in the category's mask gets its own copy through its own writer.
*/
#include <string.h>

#include "sdk/internal.h"

struct trak_event_ctx {
  trak_pb_buf *event;
  trak__thread *t;
  trak__writer *w;
};

static _Atomic int next_user_type = TRAK__INTERN_FIRST_USER;

/* Marks the thread as writing and returns the sessions to write to (re-read after the mark,
** see thread.c), or 0. */
static inline uint32_t enter(trak__thread *t, const trak_category *cat) {
  atomic_store_explicit(&t->busy, 1, memory_order_relaxed);
  atomic_signal_fence(memory_order_seq_cst);
  return __atomic_load_n(&cat->mask, __ATOMIC_RELAXED);
}
static inline void leave(trak__thread *t) {
  atomic_store_explicit(&t->busy, 0, memory_order_release);
}

#define ready trak__writer_ready

static inline uint64_t take_delta(trak__writer *w, uint64_t ts) {
  uint64_t delta = ts > w->last_ts ? ts - w->last_ts : 0;
  w->last_ts += delta;
  return delta;
}

/* Options the fast path encodes itself: a few debug arguments with short or no strings, as
** long as the whole packet surely stays under 128 bytes (one-byte lengths). Returns the bound
** on the packet's size, or 0 when the generic path must encode the event. */
#define FAST_MAX_ARGS 4
#define FAST_BASE 29 /* packet and event headers, 10-byte timestamp, 5-byte iids */
#define FAST_MAX_OPTS 6
static inline size_t fast_opts(const trak_opt *opts, size_t n) {
  if (n > FAST_MAX_OPTS) return 0;
  size_t size = FAST_BASE, args = 0;
  for (size_t i = 0; i < n; i++) {
    switch (opts[i].kind) {
    case TRAK__OPT_STRING:
      size += 10 + strnlen(opts[i].v.s, 128);
      args++;
      break;
    case TRAK__OPT_STRING_N:
      size += 10 + (opts[i].len < 128 ? opts[i].len : 128);
      args++;
      break;
    case TRAK__OPT_BOOL:
    case TRAK__OPT_INT:
    case TRAK__OPT_UINT:
    case TRAK__OPT_DOUBLE:
    case TRAK__OPT_POINTER:
      size += 19;
      args++;
      break;
    case TRAK__OPT_TRACK:
    case TRAK__OPT_COUNTER_INT:
      size += 11;
      break;
    case TRAK__OPT_FLOW:
    case TRAK__OPT_TERMINATING_FLOW:
    case TRAK__OPT_COUNTER_DOUBLE:
      size += 9;
      break;
    default:
      return 0; /* timestamps, callbacks */
    }
  }
  return size <= 128 && args <= FAST_MAX_ARGS ? size : 0;
}

/* Has this sequence described `uuid` since its last restart? */
static inline int track_known(const trak__thread *t, const trak__writer *w, uint64_t uuid) {
  if (uuid == t->uuid) return 1;
  for (uint32_t i = 0; i < w->tracks_count; i++)
    if (w->tracks[i] == uuid) return 1;
  return 0;
}

/* True for the options that are plain debug arguments (TRAK_ARG), as opposed to tracks, flows,
** counter values, callbacks and nested arguments. */
static inline int is_arg_kind(uint32_t kind) {
  return (kind >= TRAK__OPT_BOOL && kind <= TRAK__OPT_POINTER) || kind == TRAK__OPT_STRING_N;
}

/* The value field of a debug argument (bool, int, uint, double, string or pointer), written
** raw: the caller has made room (arg_room). Both the fast and the generic path encode
** arguments through this one function. */
static inline uint8_t *write_arg_value(uint8_t *q, const trak_opt *o) {
  switch (o->kind) {
  case TRAK__OPT_BOOL: /* built as 0 or 1 */
    return trak_pb_write_varint_field(q, TRAK_PB_DebugAnnotation_bool_value, o->v.u);
  case TRAK__OPT_INT:
    return trak_pb_write_varint_field(q, TRAK_PB_DebugAnnotation_int_value, (uint64_t)o->v.i);
  case TRAK__OPT_UINT:
    return trak_pb_write_varint_field(q, TRAK_PB_DebugAnnotation_uint_value, o->v.u);
  case TRAK__OPT_DOUBLE:
    return trak_pb_write_double_field(q, TRAK_PB_DebugAnnotation_double_value, o->v.d);
  case TRAK__OPT_STRING: {
    size_t n = strlen(o->v.s);
    q = trak_pb_write_tag(q, TRAK_PB_DebugAnnotation_string_value, TRAK_PB_WIRE_LEN);
    q = trak_pb_write_varint(q, n);
    memcpy(q, o->v.s, n);
    return q + n;
  }
  case TRAK__OPT_STRING_N:
    q = trak_pb_write_tag(q, TRAK_PB_DebugAnnotation_string_value, TRAK_PB_WIRE_LEN);
    q = trak_pb_write_varint(q, o->len);
    if (o->len) memcpy(q, o->v.s, o->len);
    return q + o->len;
  default:
    return trak_pb_write_varint_field(q, TRAK_PB_DebugAnnotation_pointer_value,
                                      (uint64_t)(uintptr_t)o->v.p);
  }
}

/* Appends one debug annotation whose name is interned as `iid` (fast path: under 128 bytes). */
static inline uint8_t *fast_arg(uint8_t *q, const trak_opt *o, uint64_t iid) {
  q = trak_pb_write_tag(q, TRAK_PB_TrackEvent_debug_annotations, TRAK_PB_WIRE_LEN);
  uint8_t *len = q++;
  q = trak_pb_write_varint_field(q, TRAK_PB_DebugAnnotation_name_iid, iid);
  q = write_arg_value(q, o);
  *len = (uint8_t)(q - len - 1);
  return q;
}

/* Writes an event with at most FAST_MAX_ARGS simple arguments (fast_opts) directly into the
** chunk; `bound` (from fast_opts) is at most 128, so both one-byte lengths hold. Returns 1 when
** written, 0 when the generic path must do it (something to intern), -1 when lost. */
static inline __attribute__((always_inline)) int write_fast(trak__thread *t, trak__writer *w,
                                                            const trak_category *cat, uint32_t type,
                                                            const char *name, const trak_opt *opts,
                                                            size_t n, size_t bound, uint64_t ts) {
  uint32_t name_iid = 0, cat_iid = 0;
  if (name) { /* begin or instant: name and category, usually from the cache */
    trak__fast_entry *e = &w->fast[((uintptr_t)name >> 3) & (TRAK__FAST_ENTRIES - 1)];
    if (TRAK_LIKELY(e->name == name && e->cat == cat)) {
      name_iid = e->name_iid;
      cat_iid = e->cat_iid;
    } else {
      if (cat->flags & TRAK__CAT_GROUP) return 0;
      name_iid = (uint32_t)trak__intern_find(w, TRAK__INTERN_NAME, (uintptr_t)name);
      cat_iid = (uint32_t)trak__intern_find(w, TRAK__INTERN_CATEGORY, (uintptr_t)cat);
      if (!name_iid || !cat_iid) return 0;
      e->name = name;
      e->cat = cat;
      e->name_iid = name_iid;
      e->cat_iid = cat_iid;
    }
  } else if (type != TRAK__SLICE_END) { /* a counter: category only */
    if (cat->flags & TRAK__CAT_GROUP) return 0;
    if (!(cat_iid = (uint32_t)trak__intern_find(w, TRAK__INTERN_CATEGORY, (uintptr_t)cat)))
      return 0;
  }
  uint64_t arg_iids[FAST_MAX_OPTS];
  for (size_t i = 0; i < n; i++) {
    uint32_t k = opts[i].kind;
    if (k == TRAK__OPT_TRACK) {
      if (!track_known(t, w, opts[i].v.u)) return 0; /* its descriptor comes first */
    } else if (is_arg_kind(k)) {
      arg_iids[i] = trak__intern_find(w, TRAK__INTERN_ANNOTATION, (uintptr_t)opts[i].name);
      if (!arg_iids[i]) return 0;
    }
  }
  uint8_t *p = trak__writer_reserve(t, w, bound);
  if (!p) return -1;
  uint8_t *q = trak_pb_write_tag(p, TRAK_PB_Trace_packet, TRAK_PB_WIRE_LEN);
  uint8_t *pkt_len = q++;
  q = trak_pb_write_varint_field(q, TRAK_PB_TracePacket_timestamp, take_delta(w, ts));
  q = trak_pb_write_tag(q, TRAK_PB_TracePacket_track_event, TRAK_PB_WIRE_LEN);
  uint8_t *ev_len = q++;
  q = trak_pb_write_tag(q, TRAK_PB_TrackEvent_type, TRAK_PB_WIRE_VARINT);
  *q++ = (uint8_t)type;
  if (name_iid) {
    q = trak_pb_write_varint_field(q, TRAK_PB_TrackEvent_name_iid, name_iid);
  }
  if (cat_iid) {
    q = trak_pb_write_varint_field(q, TRAK_PB_TrackEvent_category_iids, cat_iid);
  }
  for (size_t i = 0; i < n; i++) {
    const trak_opt *o = &opts[i];
    switch (o->kind) {
    case TRAK__OPT_TRACK:
      if (o->v.u == t->uuid) break; /* the sequence default */
      q = trak_pb_write_varint_field(q, TRAK_PB_TrackEvent_track_uuid, o->v.u);
      break;
    /* Flows and counter values are also encoded by encode_event(); kept as a direct switch
    ** here because a shared helper measured 2-6% more instructions per counter. */
    case TRAK__OPT_FLOW:
      q = trak_pb_write_fixed64_field(q, TRAK_PB_TrackEvent_flow_ids, o->v.u);
      break;
    case TRAK__OPT_TERMINATING_FLOW:
      q = trak_pb_write_fixed64_field(q, TRAK_PB_TrackEvent_terminating_flow_ids, o->v.u);
      break;
    case TRAK__OPT_COUNTER_INT:
      q = trak_pb_write_varint_field(q, TRAK_PB_TrackEvent_counter_value, (uint64_t)o->v.i);
      break;
    case TRAK__OPT_COUNTER_DOUBLE:
      q = trak_pb_write_double_field(q, TRAK_PB_TrackEvent_double_counter_value, o->v.d);
      break;
    default:
      q = fast_arg(q, o, arg_iids[i]);
    }
  }
  *ev_len = (uint8_t)(q - ev_len - 1);
  *pkt_len = (uint8_t)(q - pkt_len - 1);
  trak__writer_commit(w, q);
  return 1;
}

/* An event's parts, gathered from the macro's options. */
typedef struct event {
  const trak_category *cat;
  uint32_t type;
  const char *name;
  int dynamic_name;
  const trak_opt *opts;
  size_t n;
  trak_track track;     /* 0: the sequence default (thread) */
  uint64_t explicit_ts; /* 0: now */
  int has_callback;     /* callbacks run once: such events are never encoded twice */
} event;

/* trak__intern with the lookup inline: only a miss leaves the function. */
static inline uint64_t intern_str(trak__thread *t, trak__writer *w, uint32_t type, uint32_t field,
                                  const char *str, const void *key) {
  uint64_t iid = trak__intern_find(w, type, (uintptr_t)key);
  return TRAK_LIKELY(iid != 0) ? iid
                               : trak__intern(t, w, type, field, (uintptr_t)key, str, NULL, NULL);
}

static void put_categories(trak__thread *t, trak__writer *w, trak_pb_buf *b,
                           const trak_category *cat) {
  if (!(cat->flags & TRAK__CAT_GROUP)) {
    uint64_t iid = intern_str(t, w, TRAK__INTERN_CATEGORY, TRAK_PB_InternedData_event_categories,
                              cat->name, cat);
    if (iid)
      trak_pb_put_varint(b, TRAK_PB_TrackEvent_category_iids, iid);
    else
      trak_pb_put_string(b, TRAK_PB_TrackEvent_categories, cat->name);
    return;
  }
  for (const char *p = cat->name;;) { /* a group lists its members */
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    trak_pb_put_bytes(b, TRAK_PB_TrackEvent_categories, p, len);
    if (!comma) break;
    p = comma + 1;
  }
}

/* Bytes write_arg_value may write for `o`. */
static size_t arg_room(const trak_opt *o) {
  if (o->kind == TRAK__OPT_STRING) return 16 + strlen(o->v.s);
  return 16 + (o->kind == TRAK__OPT_STRING_N ? o->len : 0);
}

/* Writes opts[i] (a value, a TRAK__OPT_ARG_FN, or a dictionary or array through its NEST_END)
** as one DebugAnnotation in field `field` of the message being written: the top level
** (`top`) names it by interned iid, nested entries by name. Returns the index after it. */
static size_t put_arg(trak__thread *t, trak__writer *w, trak_pb_buf *b, const trak_opt *opts,
                      size_t i, size_t n, uint32_t field, int top) {
  const trak_opt *o = &opts[i++];
  trak_pb_nested a = trak_pb_begin_nested_short(b, field);
  uint64_t iid = top ? intern_str(t, w, TRAK__INTERN_ANNOTATION,
                                  TRAK_PB_InternedData_debug_annotation_names, o->name, o->name)
                     : 0;
  if (iid)
    trak_pb_put_varint(b, TRAK_PB_DebugAnnotation_name_iid, iid);
  else if (o->name)
    trak_pb_put_string(b, TRAK_PB_DebugAnnotation_name, o->name);
  if (o->kind == TRAK__OPT_DICT || o->kind == TRAK__OPT_ARRAY) {
    uint32_t child = o->kind == TRAK__OPT_DICT ? TRAK_PB_DebugAnnotation_dict_entries
                                               : TRAK_PB_DebugAnnotation_array_values;
    while (i < n && opts[i].kind != TRAK__OPT_NEST_END) {
      if (is_arg_kind(opts[i].kind) || opts[i].kind >= TRAK__OPT_DICT)
        i = put_arg(t, w, b, opts, i, n, child, 0);
      else
        i++; /* tracks, flows and the like mean nothing inside an argument */
    }
    i += i < n; /* the NEST_END */
  } else if (o->kind == TRAK__OPT_ARG_FN) {
    struct trak_event_ctx ctx = {b, t, w};
    o->v.fn(&ctx, o->user);
  } else if (trak_pb_buf_ensure(b, arg_room(o))) {
    b->p = write_arg_value(b->p, o);
  }
  trak_pb_end_nested_short(b, a);
  return i;
}

/* Encodes one event packet (with its interned data) into `b`. Interned entries created on the
** way collect in t->interned; `keep_interned` keeps those of a failed earlier attempt. */
static void encode_event(trak__thread *t, trak__writer *w, const event *ev, uint64_t now,
                         trak_pb_buf *b, int keep_interned) {
  if (!keep_interned) {
    t->interned.p = t->interned.start;
    t->interned.error = 0;
  }
  trak_pb_nested pkt = trak_pb_begin_nested_short(b, TRAK_PB_Trace_packet);
  if (ev->explicit_ts) {
    trak_pb_put_varint(b, TRAK_PB_TracePacket_timestamp, ev->explicit_ts);
    trak_pb_put_varint(b, TRAK_PB_TracePacket_timestamp_clock_id, TRAK_PB_BUILTIN_CLOCK_BOOTTIME);
  } else {
    trak_pb_put_varint(b, TRAK_PB_TracePacket_timestamp, take_delta(w, now));
  }
  trak_pb_nested te = trak_pb_begin_nested_short(b, TRAK_PB_TracePacket_track_event);
  trak_pb_put_varint(b, TRAK_PB_TrackEvent_type, ev->type);
  if (ev->track && ev->track != t->uuid)
    trak_pb_put_varint(b, TRAK_PB_TrackEvent_track_uuid, ev->track);
  if (ev->type != TRAK__SLICE_END) put_categories(t, w, b, ev->cat);
  if (ev->name && ev->dynamic_name) {
    trak_pb_put_string(b, TRAK_PB_TrackEvent_name, ev->name);
  } else if (ev->name) {
    uint64_t iid =
        intern_str(t, w, TRAK__INTERN_NAME, TRAK_PB_InternedData_event_names, ev->name, ev->name);
    if (iid)
      trak_pb_put_varint(b, TRAK_PB_TrackEvent_name_iid, iid);
    else
      trak_pb_put_string(b, TRAK_PB_TrackEvent_name, ev->name);
  }
  for (size_t i = 0; i < ev->n;) {
    const trak_opt *o = &ev->opts[i];
    if (is_arg_kind(o->kind) || o->kind == TRAK__OPT_DICT || o->kind == TRAK__OPT_ARRAY ||
        o->kind == TRAK__OPT_ARG_FN) {
      i = put_arg(t, w, b, ev->opts, i, ev->n, TRAK_PB_TrackEvent_debug_annotations, 1);
      continue;
    }
    switch (o->kind) {
    case TRAK__OPT_FLOW:
      trak_pb_put_fixed64(b, TRAK_PB_TrackEvent_flow_ids, o->v.u);
      break;
    case TRAK__OPT_TERMINATING_FLOW:
      trak_pb_put_fixed64(b, TRAK_PB_TrackEvent_terminating_flow_ids, o->v.u);
      break;
    case TRAK__OPT_COUNTER_INT:
      trak_pb_put_int64(b, TRAK_PB_TrackEvent_counter_value, o->v.i);
      break;
    case TRAK__OPT_COUNTER_DOUBLE:
      trak_pb_put_double(b, TRAK_PB_TrackEvent_double_counter_value, o->v.d);
      break;
    default:
      break;
    }
    i++;
  }
  for (size_t i = 0; i < ev->n; i++) { /* callbacks last: they may add any field */
    if (ev->opts[i].kind != TRAK__OPT_CALLBACK) continue;
    struct trak_event_ctx ctx = {b, t, w};
    ev->opts[i].v.fn(&ctx, ev->opts[i].user);
  }
  trak_pb_end_nested_short(b, te);
  size_t ilen = trak_pb_buf_len(&t->interned);
  if (ilen) trak_pb_put_bytes(b, TRAK_PB_TracePacket_interned_data, t->interned.start, ilen);
  trak_pb_end_nested_short(b, pkt);
}

/* Writes `ev` through `w`: the descriptor of its track first if this sequence has not yet
** described it, then the event. A packet that cannot be written counts as lost. */
static void write_event(trak__thread *t, trak__writer *w, const event *ev, uint64_t now) {
  int ok = !ev->track || trak__writer_ensure_track(t, w, ev->track) == 0;
  if (ok && w->need_clear) /* the descriptor was lost: the writer restarts first */
    ok = trak__writer_prepare(t, w, (int)(w - &t->w[0]), now) > 0;
  int keep = 0;
  if (ok && !ev->has_callback && w->end - w->p >= 256) {
    /* Straight into the chunk. If it does not fit, nothing is committed and the scratch
    ** encoding below redoes it with the same timestamp and interned entries. */
    trak_pb_buf direct;
    trak_pb_buf_init_fixed(&direct, w->p, (size_t)(w->end - w->p));
    uint64_t last_ts = w->last_ts;
    encode_event(t, w, ev, now, &direct, 0);
    if (!direct.error && !t->interned.error) {
      trak__writer_commit(w, direct.p);
      return;
    }
    w->last_ts = last_ts;
    keep = 1;
  }
  if (ok) {
    trak_pb_buf *b = &t->scratch;
    b->p = b->start;
    b->error = 0;
    encode_event(t, w, ev, now, b, keep);
    ok = !b->error && !t->interned.error &&
         trak__writer_put_packet(t, w, b->start, trak_pb_buf_len(b)) == 0;
  }
  if (!ok) trak__session_lost(w->session, 1);
}

/* Every session in `mask`, any state: the general form of trak_event_emit_fast. */
static TRAK__COLD void event_fast_all(trak__thread *t, const trak_category *cat, uint32_t type,
                                      const char *name, uint32_t mask, uint64_t now) {
  while (mask) {
    int slot = __builtin_ctz(mask);
    mask &= mask - 1;
    trak__writer *w = &t->w[slot];
    if (!ready(t, w, slot, now)) continue;
    int r = write_fast(t, w, cat, type, name, NULL, 0, FAST_BASE, now);
    if (r == 0) {
      event ev = {cat, type, name, 0, NULL, 0, 0, 0, 0};
      write_event(t, w, &ev, now);
    } else if (r < 0) {
      trak__session_lost(w->session, 1);
    }
    if (TRAK_UNLIKELY(w->icpt != NULL)) trak__icpt_deliver(w);
  }
}

void trak_event_emit_fast(const trak_category *cat, uint32_t type, const char *name) {
  trak__thread *t = trak__thread_get();
  if (TRAK_UNLIKELY(!t)) return;
  uint32_t mask = enter(t, cat);
  uint64_t now = trak__now();
  /* The common case, kept straight: one session, writer ready, names in the cache. */
  if (TRAK_LIKELY(mask && !(mask & (mask - 1)))) {
    int slot = __builtin_ctz(mask);
    trak__writer *w = &t->w[slot];
    if (TRAK_LIKELY(w->gen == atomic_load_explicit(&trak__slots[slot].gen, memory_order_relaxed) &&
                    now < w->next_clear_ts)) {
      int r = write_fast(t, w, cat, type, name, NULL, 0, FAST_BASE, now);
      if (TRAK_LIKELY(r > 0)) {
        leave(t);
        return;
      }
      if (r < 0) {
        trak__session_lost(w->session, 1);
        leave(t);
        return;
      }
    }
  }
  if (mask) event_fast_all(t, cat, type, name, mask, now);
  leave(t);
}

trak_track trak_event_emit(const trak_category *cat, uint32_t type, const char *name,
                           int dynamic_name, const trak_opt *opts, size_t n) {
  event ev = {cat, type, name, dynamic_name, opts, n, 0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    ev.has_callback |= opts[i].kind == TRAK__OPT_CALLBACK || opts[i].kind == TRAK__OPT_ARG_FN;
    if (opts[i].kind == TRAK__OPT_TRACK) ev.track = opts[i].v.u;
    if (opts[i].kind == TRAK__OPT_TIMESTAMP) ev.explicit_ts = opts[i].v.u;
  }
  trak__thread *t = trak__thread_get();
  if (TRAK_UNLIKELY(!t)) return ev.track;
  size_t bound = dynamic_name ? 0 : fast_opts(opts, n);
  uint32_t mask = enter(t, cat);
  uint64_t now = trak__now();
  while (mask) {
    int slot = __builtin_ctz(mask);
    mask &= mask - 1;
    trak__writer *w = &t->w[slot];
    if (!ready(t, w, slot, now)) continue;
    int r = bound ? write_fast(t, w, cat, type, name, opts, n, bound, now) : 0;
    if (r == 0)
      write_event(t, w, &ev, now);
    else if (r < 0)
      trak__session_lost(w->session, 1);
    if (TRAK_UNLIKELY(w->icpt != NULL)) trak__icpt_deliver(w);
  }
  leave(t);
  return ev.track;
}

void trak__packet_all(uint32_t mask, void (*fn)(trak_pb_buf *b, void *user), void *user) {
  trak__thread *t = trak__thread_get();
  if (!t) return;
  atomic_store_explicit(&t->busy, 1, memory_order_relaxed);
  atomic_signal_fence(memory_order_seq_cst);
  mask &= trak__started_mask();
  uint64_t now = trak__now();
  while (mask) {
    int slot = __builtin_ctz(mask);
    mask &= mask - 1;
    trak__writer *w = &t->w[slot];
    if (!ready(t, w, slot, now)) continue;
    trak_pb_buf *b = &t->scratch;
    b->p = b->start;
    b->error = 0;
    trak_pb_nested pkt = trak_pb_begin_nested_short(b, TRAK_PB_Trace_packet);
    trak_pb_put_varint(b, TRAK_PB_TracePacket_timestamp, take_delta(w, now));
    fn(b, user);
    trak_pb_end_nested_short(b, pkt);
    if (b->error || trak__writer_put_packet(t, w, b->start, trak_pb_buf_len(b)) != 0)
      trak__session_lost(w->session, 1);
    if (TRAK_UNLIKELY(w->icpt != NULL)) trak__icpt_deliver(w);
  }
  leave(t);
}

void trak_packet_write(const trak_category *cat, void (*fn)(trak_pb_buf *packet, void *user),
                       void *user) {
  uint32_t mask = __atomic_load_n(&cat->mask, __ATOMIC_RELAXED);
  if (mask) trak__packet_all(mask, fn, user);
}

trak_pb_buf *trak_event_buf(trak_event_ctx *ctx) {
  return ctx->event;
}

uint64_t trak_event_intern(trak_event_ctx *ctx, trak_interned_type *type, uint64_t key,
                           const void *value) {
  return trak__intern_user(ctx->t, ctx->w, type, key, value);
}

uint64_t trak__intern_user(trak__thread *t, trak__writer *w, trak_interned_type *type, uint64_t key,
                           const void *value) {
  int index = __atomic_load_n(&type->index, __ATOMIC_ACQUIRE);
  if (!index) {
    int fresh = atomic_fetch_add(&next_user_type, 1);
    int expected = 0;
    if (!__atomic_compare_exchange_n(&type->index, &expected, fresh, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
      fresh = expected; /* another thread won; its index stands */
    index = fresh;
  }
  if (index >= TRAK__INTERN_TYPES) return 0;
  return trak__intern(t, w, (uint32_t)index, type->field, key ? key : ~0ull, NULL, type, value);
}
