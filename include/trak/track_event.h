/*
** Track event macros: slices, instants, counters, flows and typed debug arguments.
**
**   TRAK_EVENT(cat, "Draw", TRAK_ARG("frame", n));       scoped: ends when the block exits
**   TRAK_EVENT_BEGIN(cat, "Load"); ... TRAK_EVENT_END(cat);
**   TRAK_EVENT_INSTANT(cat, "Click", TRAK_FLOW(id));
**   TRAK_COUNTER(cat, track, value);                     int or double value
**
** `cat` is a `trak_category *` (a TRAK_CATEGORY_DEFINE variable works as one). Names are string
** literals, interned per writer sequence by address; run-time names go through the _DYNAMIC
** forms. After the name come any number of options, each one expression: TRAK_ARG(name, value)
** (bool, signed, unsigned, floating, string or pointer, chosen by _Generic in C and overloads in
** C++), TRAK_TRACK(uuid), TRAK_FLOW(id), TRAK_TERMINATING_FLOW(id), TRAK_TIMESTAMP(boottime_ns)
** and TRAK_CALLBACK(fn, user). When the category is off, a macro costs one load and a branch and
** evaluates none of its arguments.
*/
#ifndef TRAK_TRACK_EVENT_H
#define TRAK_TRACK_EVENT_H

#include <stdint.h>

#include "trak/pb.h"
#include "trak/sdk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values of TrackEvent.Type (generated from protos/). */
#define TRAK__SLICE_BEGIN TRAK_PB_TrackEvent_TYPE_SLICE_BEGIN
#define TRAK__SLICE_END TRAK_PB_TrackEvent_TYPE_SLICE_END
#define TRAK__INSTANT TRAK_PB_TrackEvent_TYPE_INSTANT
#define TRAK__COUNTER TRAK_PB_TrackEvent_TYPE_COUNTER

/* Kinds of options passed to the event macros. */
enum {
  TRAK__OPT_NONE = 0,
  TRAK__OPT_BOOL,
  TRAK__OPT_INT,
  TRAK__OPT_UINT,
  TRAK__OPT_DOUBLE,
  TRAK__OPT_STRING,
  TRAK__OPT_POINTER,
  TRAK__OPT_TRACK,
  TRAK__OPT_FLOW,
  TRAK__OPT_TERMINATING_FLOW,
  TRAK__OPT_TIMESTAMP,
  TRAK__OPT_CALLBACK,
  TRAK__OPT_COUNTER_INT,
  TRAK__OPT_COUNTER_DOUBLE
};

/* The context an event callback gets: write extra TrackEvent fields into trak_event_buf(). */
typedef struct trak_event_ctx trak_event_ctx;
typedef void (*trak_event_fn)(trak_event_ctx *ctx, void *user);

/* One event option. Built by the TRAK_ARG/TRAK_TRACK/... helpers, never by hand. */
typedef struct trak_opt {
  uint32_t kind;    /* TRAK__OPT_* */
  const char *name; /* debug argument name (a string literal) */
  union {
    int64_t i;
    uint64_t u;
    double d;
    const char *s;
    const void *p;
    trak_event_fn fn;
  } v;
  void *user; /* TRAK_CALLBACK's user pointer */
} trak_opt;

/* User-defined interned data: entries go into InternedData field `field`; `write` fills one
** entry's fields (its iid and value) into `entry`. Each type has its own iid space. Define it
** statically: `static trak_interned_type my_type = {TRAK_PB_InternedData_x, write_fn, 0};` */
typedef struct trak_interned_type {
  uint32_t field;
  void (*write)(trak_pb_buf *entry, uint64_t iid, const void *value);
  int index; /* internal: assigned on first use */
} trak_interned_type;

/* The TrackEvent being written (inside an event callback). */
TRAK_API trak_pb_buf *trak_event_buf(trak_event_ctx *ctx);
/* The iid of `key` in `type` on this writer sequence, writing the entry (via type->write with
** `value`) the first time. `key` identifies the value (e.g. its address); returns 0 if the type
** table is full (more than 13 user types). */
TRAK_API uint64_t trak_event_intern(trak_event_ctx *ctx, trak_interned_type *type, uint64_t key,
                                    const void *value);

/* A custom packet writer (the C form of DataSource::Trace): for every session recording `cat`,
** calls fn(packet, user) to write TracePacket fields; trak adds the framing, timestamp and
** sequence fields. */
TRAK_API void trak_packet_write(const trak_category *cat,
                                void (*fn)(trak_pb_buf *packet, void *user), void *user);

/* Library entry points of the macros (not for direct use). */
TRAK_API void trak_event_emit_fast(const trak_category *cat, uint32_t type, const char *name);
TRAK_API trak_track trak_event_emit(const trak_category *cat, uint32_t type, const char *name,
                                    int dynamic_name, const trak_opt *opts, size_t n);

static inline trak_opt trak__opt(uint32_t kind, const char *name) {
  trak_opt o;
  o.kind = kind;
  o.name = name;
  o.v.u = 0;
  o.user = 0;
  return o;
}
static inline trak_opt trak__opt_none(void) {
  return trak__opt(TRAK__OPT_NONE, 0);
}
static inline trak_opt trak__arg_bool(const char *n, int v) {
  trak_opt o = trak__opt(TRAK__OPT_BOOL, n);
  o.v.u = v != 0;
  return o;
}
static inline trak_opt trak__arg_int(const char *n, int64_t v) {
  trak_opt o = trak__opt(TRAK__OPT_INT, n);
  o.v.i = v;
  return o;
}
static inline trak_opt trak__arg_uint(const char *n, uint64_t v) {
  trak_opt o = trak__opt(TRAK__OPT_UINT, n);
  o.v.u = v;
  return o;
}
static inline trak_opt trak__arg_double(const char *n, double v) {
  trak_opt o = trak__opt(TRAK__OPT_DOUBLE, n);
  o.v.d = v;
  return o;
}
static inline trak_opt trak__arg_string(const char *n, const char *v) {
  trak_opt o = trak__opt(TRAK__OPT_STRING, n);
  o.v.s = v ? v : "(null)";
  return o;
}
static inline trak_opt trak__arg_pointer(const char *n, const void *v) {
  trak_opt o = trak__opt(TRAK__OPT_POINTER, n);
  o.v.p = v;
  return o;
}
static inline trak_opt trak__opt_u64(uint32_t kind, uint64_t v) {
  trak_opt o = trak__opt(kind, 0);
  o.v.u = v;
  return o;
}
static inline trak_opt trak__opt_callback(trak_event_fn fn, void *user) {
  trak_opt o = trak__opt(TRAK__OPT_CALLBACK, 0);
  o.v.fn = fn;
  o.user = user;
  return o;
}
static inline trak_opt trak__counter_int(int64_t v) {
  trak_opt o = trak__opt(TRAK__OPT_COUNTER_INT, 0);
  o.v.i = v;
  return o;
}
static inline trak_opt trak__counter_double(double v) {
  trak_opt o = trak__opt(TRAK__OPT_COUNTER_DOUBLE, 0);
  o.v.d = v;
  return o;
}

#ifdef __cplusplus
} /* extern "C" */

/* C++: overloads pick the argument type. */
static inline trak_opt trak__arg(const char *n, bool v) {
  return trak__arg_bool(n, v);
}
static inline trak_opt trak__arg(const char *n, char v) {
  return trak__arg_int(n, v);
}
static inline trak_opt trak__arg(const char *n, signed char v) {
  return trak__arg_int(n, v);
}
static inline trak_opt trak__arg(const char *n, short v) {
  return trak__arg_int(n, v);
}
static inline trak_opt trak__arg(const char *n, int v) {
  return trak__arg_int(n, v);
}
static inline trak_opt trak__arg(const char *n, long v) {
  return trak__arg_int(n, v);
}
static inline trak_opt trak__arg(const char *n, long long v) {
  return trak__arg_int(n, v);
}
static inline trak_opt trak__arg(const char *n, unsigned char v) {
  return trak__arg_uint(n, v);
}
static inline trak_opt trak__arg(const char *n, unsigned short v) {
  return trak__arg_uint(n, v);
}
static inline trak_opt trak__arg(const char *n, unsigned v) {
  return trak__arg_uint(n, v);
}
static inline trak_opt trak__arg(const char *n, unsigned long v) {
  return trak__arg_uint(n, v);
}
static inline trak_opt trak__arg(const char *n, unsigned long long v) {
  return trak__arg_uint(n, v);
}
static inline trak_opt trak__arg(const char *n, float v) {
  return trak__arg_double(n, v);
}
static inline trak_opt trak__arg(const char *n, double v) {
  return trak__arg_double(n, v);
}
static inline trak_opt trak__arg(const char *n, const char *v) {
  return trak__arg_string(n, v);
}
static inline trak_opt trak__arg(const char *n, const void *v) {
  return trak__arg_pointer(n, v);
}
static inline trak_opt trak__counter(long long v) {
  return trak__counter_int(v);
}
static inline trak_opt trak__counter(long v) {
  return trak__counter_int(v);
}
static inline trak_opt trak__counter(int v) {
  return trak__counter_int(v);
}
static inline trak_opt trak__counter(unsigned v) {
  return trak__counter_int(v);
}
static inline trak_opt trak__counter(unsigned long v) {
  return trak__counter_int((int64_t)v);
}
static inline trak_opt trak__counter(unsigned long long v) {
  return trak__counter_int((int64_t)v);
}
static inline trak_opt trak__counter(double v) {
  return trak__counter_double(v);
}
static inline trak_opt trak__counter(float v) {
  return trak__counter_double(v);
}
#define TRAK_ARG(name, value) trak__arg("" name "", (value))
#define TRAK__COUNTER_OPT(value) trak__counter(value)
extern "C" {
#else
/* C: _Generic picks the argument type. */
#define TRAK_ARG(name, value)                                                                      \
  _Generic((value),                                                                       \
      _Bool: trak__arg_bool,                                                              \
      char: trak__arg_int, signed char: trak__arg_int, short: trak__arg_int,              \
      int: trak__arg_int, long: trak__arg_int, long long: trak__arg_int,                  \
      unsigned char: trak__arg_uint, unsigned short: trak__arg_uint,                      \
      unsigned int: trak__arg_uint, unsigned long: trak__arg_uint,                        \
      unsigned long long: trak__arg_uint,                                                 \
      float: trak__arg_double, double: trak__arg_double,                                  \
      char *: trak__arg_string, const char *: trak__arg_string,                           \
      default: trak__arg_pointer)("" name "", (value))
#define TRAK__COUNTER_OPT(value)                                                                   \
  _Generic((value), float                                                                          \
           : trak__counter_double, double                                                          \
           : trak__counter_double, default                                                         \
           : trak__counter_int)(value)
#endif

#define TRAK_TRACK(uuid) trak__opt_u64(TRAK__OPT_TRACK, (uuid))
#define TRAK_FLOW(id) trak__opt_u64(TRAK__OPT_FLOW, (id))
#define TRAK_TERMINATING_FLOW(id) trak__opt_u64(TRAK__OPT_TERMINATING_FLOW, (id))
#define TRAK_TIMESTAMP(boottime_ns) trak__opt_u64(TRAK__OPT_TIMESTAMP, (boottime_ns))
#define TRAK_CALLBACK(fn, user) trak__opt_callback((fn), (user))

#define TRAK__CAT2(a, b) a##b
#define TRAK__CAT(a, b) TRAK__CAT2(a, b)

/* Writes an event when `cat` is enabled; evaluates to the track the event went to (0: the
** thread's). Without options it takes the library's fast path. */
#define TRAK__EMIT(cat, type, name, dyn, ...)                                                      \
  ({                                                                                               \
    trak_track trak__t_ = 0;                                                                       \
    if (TRAK_UNLIKELY(TRAK_CATEGORY_ENABLED(cat))) {                                               \
      const trak_opt trak__o_[] = {trak__opt_none(), ##__VA_ARGS__};                               \
      if (sizeof(trak__o_) == sizeof(trak_opt) && !(dyn))                                          \
        trak_event_emit_fast((cat), (type), (name));                                               \
      else                                                                                         \
        trak__t_ = trak_event_emit((cat), (type), (name), (dyn), trak__o_ + 1,                     \
                                   sizeof(trak__o_) / sizeof(trak_opt) - 1);                       \
    }                                                                                              \
    trak__t_;                                                                                      \
  })

#define TRAK_EVENT_BEGIN(cat, name, ...)                                                           \
  ((void)TRAK__EMIT(cat, TRAK__SLICE_BEGIN, "" name "", 0, ##__VA_ARGS__))
#define TRAK_EVENT_BEGIN_DYNAMIC(cat, name, ...)                                                   \
  ((void)TRAK__EMIT(cat, TRAK__SLICE_BEGIN, (name), 1, ##__VA_ARGS__))
#define TRAK_EVENT_END(cat, ...)                                                                   \
  ((void)TRAK__EMIT(cat, TRAK__SLICE_END, (const char *)0, 0, ##__VA_ARGS__))
#define TRAK_EVENT_INSTANT(cat, name, ...)                                                         \
  ((void)TRAK__EMIT(cat, TRAK__INSTANT, "" name "", 0, ##__VA_ARGS__))
#define TRAK_EVENT_INSTANT_DYNAMIC(cat, name, ...)                                                 \
  ((void)TRAK__EMIT(cat, TRAK__INSTANT, (name), 1, ##__VA_ARGS__))
/* A counter sample on counter track `track` (see trak_track_counter). */
#define TRAK_COUNTER(cat, track, value, ...)                                                       \
  ((void)TRAK__EMIT(cat, TRAK__COUNTER, (const char *)0, 0, TRAK__COUNTER_OPT(value),              \
                    TRAK_TRACK(track), ##__VA_ARGS__))

/* Scoped slices: the end event is written when the enclosing block exits, by any path. */
typedef struct trak__scope {
  const trak_category *cat; /* NULL when the begin was not recorded */
  trak_track track;         /* where the begin went */
} trak__scope;

static inline void trak__scope_end(trak__scope *s) {
  if (TRAK_UNLIKELY(s->cat != 0) && TRAK_CATEGORY_ENABLED(s->cat)) {
    if (s->track) {
      trak_opt o = trak__opt_u64(TRAK__OPT_TRACK, s->track);
      trak_event_emit(s->cat, TRAK__SLICE_END, 0, 0, &o, 1);
    } else {
      trak_event_emit_fast(s->cat, TRAK__SLICE_END, 0);
    }
  }
}

#define TRAK__SCOPE(category, name, dyn, ...)                                                      \
  trak__scope TRAK__CAT(trak__scope_, __COUNTER__)                                                 \
      __attribute__((cleanup(trak__scope_end), unused)) = ({                                       \
        trak__scope trak__s_ = {0, 0};                                                             \
        if (TRAK_UNLIKELY(TRAK_CATEGORY_ENABLED(category))) {                                      \
          trak__s_.cat = (category);                                                               \
          trak__s_.track = TRAK__EMIT(category, TRAK__SLICE_BEGIN, name, dyn, ##__VA_ARGS__);      \
        }                                                                                          \
        trak__s_;                                                                                  \
      })

#define TRAK_EVENT(cat, name, ...) TRAK__SCOPE(cat, "" name "", 0, ##__VA_ARGS__)
#define TRAK_EVENT_DYNAMIC(cat, name, ...) TRAK__SCOPE(cat, (name), 1, ##__VA_ARGS__)

#ifdef __cplusplus
}
#endif
#endif /* TRAK_TRACK_EVENT_H */
