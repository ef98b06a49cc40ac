/*
** Track event macros: slices, instants, counters, flows and typed debug arguments.
**
**   TRAK_EVENT(cat, "Draw", TRAK_ARG("frame", n));       scoped: ends when the block exits
**   TRAK_EVENT_BEGIN(cat, "Load"); ... TRAK_EVENT_END(cat);
**   TRAK_EVENT_INSTANT(cat, "Click", TRAK_FLOW(id));
**   TRAK_COUNTER(cat, track, value);                     int or double value
**   TRAK_COUNTER(cat, "Queue depth", value);             on a counter track named once
**
** `cat` is a `trak_category *` (a TRAK_CATEGORY_DEFINE variable works as one). Names are string
** literals, interned per writer sequence by address; run-time names go through the _DYNAMIC
** forms. After the name come any number of options, each one expression: TRAK_ARG(name, value)
** (bool, signed, unsigned, floating, string or pointer, chosen by _Generic in C and overloads in
** C++, where std::string and std::string_view work too), TRAK_ARG_DICT(name, entries...) and
** TRAK_ARG_ARRAY(name, TRAK_VALUE(v)...) (nested arguments, shown as `name.key` and
** `name[0]`), TRAK_TRACK(uuid), TRAK_FLOW(id), TRAK_TERMINATING_FLOW(id),
** TRAK_TIMESTAMP(boottime_ns) and TRAK_CALLBACK(fn, user) (in C++ also TRAK_CALLBACK(lambda)).
** When the category is off, a macro costs one load and a branch and evaluates none of its
** arguments. The macros compile clean under -std=c11 -Wpedantic and -std=c++11 -Wpedantic; the
** scoped forms need GCC or Clang in C (the cleanup attribute), any C++ compiler in C++.
*/
#ifndef TRAK_TRACK_EVENT_H
#define TRAK_TRACK_EVENT_H

#include <stdint.h>
#ifdef __cplusplus
#include <initializer_list>
#include <string>
#include <type_traits>
#if __cplusplus >= 201703L
#include <string_view>
#endif
#endif

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
  TRAK__OPT_COUNTER_DOUBLE,
  TRAK__OPT_STRING_N, /* v.s with length len (std::string_view) */
  TRAK__OPT_DICT,     /* a nested dictionary: the options up to its TRAK__OPT_NEST_END */
  TRAK__OPT_ARRAY,    /* a nested array: same, entries unnamed */
  TRAK__OPT_NEST_END,
  TRAK__OPT_ARG_FN /* a debug argument whose value fields v.fn writes (C++ TracedValue) */
};

/* The context an event callback gets: write extra TrackEvent fields into trak_event_buf(). */
typedef struct trak_event_ctx trak_event_ctx;
typedef void (*trak_event_fn)(trak_event_ctx *ctx, void *user);

/* One event option. Built by the TRAK_ARG/TRAK_TRACK/... helpers, never by hand. */
typedef struct trak_opt {
  uint32_t kind;    /* TRAK__OPT_* */
  const char *name; /* debug argument name (a string literal; NULL in an array) */
  union {
    int64_t i;
    uint64_t u;
    double d;
    const char *s;
    const void *p;
    trak_event_fn fn;
  } v;
  union {
    void *user; /* TRAK_CALLBACK's and TRAK__OPT_ARG_FN's user pointer */
    size_t len; /* TRAK__OPT_STRING_N's length */
  };
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

/* The counter track named `name` under the process track, created on first use and cached in
** *cache (may be NULL) by TRAK_COUNTER(cat, "name", value). Returns its uuid. */
TRAK_API trak_track trak_track_counter_cached(const char *name, trak_track *cache);

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
static inline trak_opt trak__arg_string_n(const char *n, const char *v, size_t len) {
  trak_opt o = trak__opt(TRAK__OPT_STRING_N, n);
  o.v.s = v;
  o.len = len;
  return o;
}
static inline trak_opt trak__arg(const char *n, const std::string &v) {
  return trak__arg_string_n(n, v.data(), v.size());
}
#if __cplusplus >= 201703L
static inline trak_opt trak__arg(const char *n, std::string_view v) {
  return trak__arg_string_n(n, v.data(), v.size());
}
#endif
static inline trak_opt trak__callback(trak_event_fn fn, void *user) {
  return trak__opt_callback(fn, user);
}
/* A lambda (or any callable taking trak_event_ctx *): it lives until the end of the event
** macro's full expression, which is when it runs. */
template <typename F> static inline trak_opt trak__callback(F &&fn) {
  typedef typename std::remove_reference<F>::type fn_type;
  return trak__opt_callback(
      [](trak_event_ctx *ctx, void *user) { (*static_cast<fn_type *>(user))(ctx); },
      const_cast<void *>(static_cast<const void *>(&fn)));
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
#define TRAK_VALUE(value) trak__arg((const char *)0, (value))
#define TRAK__COUNTER_OPT(value) trak__counter(value)
#define TRAK_CALLBACK(...) trak__callback(__VA_ARGS__)
extern "C" {
#else
/* C: _Generic picks the argument type. */
#define TRAK__ARG_FN(value)                                                                        \
  _Generic((value),                                                                       \
      _Bool: trak__arg_bool,                                                              \
      char: trak__arg_int, signed char: trak__arg_int, short: trak__arg_int,              \
      int: trak__arg_int, long: trak__arg_int, long long: trak__arg_int,                  \
      unsigned char: trak__arg_uint, unsigned short: trak__arg_uint,                      \
      unsigned int: trak__arg_uint, unsigned long: trak__arg_uint,                        \
      unsigned long long: trak__arg_uint,                                                 \
      float: trak__arg_double, double: trak__arg_double,                                  \
      char *: trak__arg_string, const char *: trak__arg_string,                           \
      default: trak__arg_pointer)
#define TRAK_ARG(name, value) TRAK__ARG_FN(value)("" name "", (value))
#define TRAK_VALUE(value) TRAK__ARG_FN(value)((const char *)0, (value))
#define TRAK_CALLBACK(fn, user) trak__opt_callback((fn), (user))
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

/* Nested arguments: TRAK_ARG_DICT("pos", TRAK_ARG("x", 1), TRAK_ARG("y", 2)) and
** TRAK_ARG_ARRAY("ids", TRAK_VALUE(3), TRAK_VALUE(4)); they nest in each other. */
#define TRAK_ARG_DICT(name, ...)                                                                   \
  trak__opt(TRAK__OPT_DICT, "" name ""), __VA_ARGS__, trak__opt(TRAK__OPT_NEST_END, 0)
#define TRAK_ARG_ARRAY(name, ...)                                                                  \
  trak__opt(TRAK__OPT_ARRAY, "" name ""), __VA_ARGS__, trak__opt(TRAK__OPT_NEST_END, 0)
/* Inside TRAK_ARG_ARRAY: a nested dictionary or array without a name. */
#define TRAK_VALUE_DICT(...)                                                                       \
  trak__opt(TRAK__OPT_DICT, 0), __VA_ARGS__, trak__opt(TRAK__OPT_NEST_END, 0)
#define TRAK_VALUE_ARRAY(...)                                                                      \
  trak__opt(TRAK__OPT_ARRAY, 0), __VA_ARGS__, trak__opt(TRAK__OPT_NEST_END, 0)

#define TRAK__CAT2(a, b) a##b
#define TRAK__CAT(a, b) TRAK__CAT2(a, b)

/* The first of a macro's variable arguments, and the rest followed by an empty option: the
** event macros take their name inside `...` so that none is ever called with an empty `...`
** (which ISO C before C23 and C++ before C++20 do not allow). */
#define TRAK__HEAD(...) TRAK__HEAD_(__VA_ARGS__, 0)
#define TRAK__HEAD_(first, ...) first
#define TRAK__TAIL(...) TRAK__TAIL_(__VA_ARGS__, trak__opt_none())
#define TRAK__TAIL_(first, ...) __VA_ARGS__

#define TRAK__LITERAL_MSG                                                                          \
  "trak: the event name must be a string literal; for a name computed at run time use the "        \
  "_DYNAMIC form of the macro (TRAK_EVENT_DYNAMIC, TRAK_EVENT_BEGIN_DYNAMIC, "                     \
  "TRAK_EVENT_INSTANT_DYNAMIC)"

/* Picks the fast path (no options, a literal name) or the general one. `n` is a constant. */
static inline trak_track trak__emit_n(const trak_category *cat, uint32_t type, const char *name,
                                      int dyn, const trak_opt *opts, size_t n) {
  if (n == 0 && !dyn) {
    trak_event_emit_fast(cat, type, name);
    return 0;
  }
  return trak_event_emit(cat, type, name, dyn, opts, n);
}

typedef struct trak__scope {
  const trak_category *cat; /* NULL when the begin was not recorded */
  trak_track track;         /* where the begin went */
} trak__scope;

static inline trak__scope trak__scope_make(const trak_category *cat, trak_track track) {
  trak__scope s;
  s.cat = cat;
  s.track = track;
  return s;
}

/* Ends a scoped slice: the end event goes where the begin went. */
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

#ifdef __cplusplus
} /* extern "C" */
/* C++: the options are one initializer list, so temporaries in them (a std::string, a lambda)
** live until the event is written. */
static inline trak_track trak__emit(const trak_category *cat, uint32_t type, const char *name,
                                    int dyn, std::initializer_list<trak_opt> opts) {
  return trak__emit_n(cat, type, name, dyn, opts.begin(), opts.size() - 1);
}
#define TRAK__EMIT_OPTS(cat, type, name, dyn, ...) trak__emit(cat, type, name, dyn, {__VA_ARGS__})

template <typename T> struct trak__is_literal : std::false_type {};
template <size_t N> struct trak__is_literal<const char (&)[N]> : std::true_type {};
template <typename T> static inline const char *trak__literal(const char *name) {
  static_assert(trak__is_literal<T>::value, TRAK__LITERAL_MSG);
  return name;
}
#define TRAK__LITERAL(name) trak__literal<decltype(name)>(name)

/* The end of a scoped slice runs in the destructor. */
struct trak__scope_guard {
  trak__scope s;
  ~trak__scope_guard() { trak__scope_end(&s); }
};
#define TRAK__SCOPE(category, name, dyn, ...)                                                      \
  trak__scope_guard TRAK__CAT(trak__scope_, __COUNTER__) {                                         \
    TRAK_UNLIKELY(TRAK_CATEGORY_ENABLED(category))                                                 \
    ? trak__scope_make((category),                                                                 \
                       TRAK__EMIT_OPTS((category), TRAK__SLICE_BEGIN, (name), (dyn), __VA_ARGS__)) \
    : trak__scope_make(0, 0)                                                                       \
  }
/* A per-call-site cache for the counter track of TRAK_COUNTER(cat, "name", v). */
#define TRAK__COUNTER_CACHE()                                                                      \
  ([]() -> trak_track * {                                                                          \
    static trak_track c;                                                                           \
    return &c;                                                                                     \
  }())
static inline trak_track trak__counter_track(const char *name, trak_track *cache) {
  trak_track t = __atomic_load_n(cache, __ATOMIC_RELAXED);
  return TRAK_LIKELY(t != 0) ? t : trak_track_counter_cached(name, cache);
}
static inline trak_track trak__counter_track(trak_track uuid, trak_track *) {
  return uuid;
}
#define TRAK__COUNTER_TRACK(track) trak__counter_track((track), TRAK__COUNTER_CACHE())
extern "C" {
#else
/* C: the options are a compound literal; its size counts them at compile time. */
#define TRAK__EMIT_OPTS(cat, type, name, dyn, ...)                                                 \
  trak__emit_n(cat, type, name, dyn, (const trak_opt[]){__VA_ARGS__},                              \
               sizeof((const trak_opt[]){__VA_ARGS__}) / sizeof(trak_opt) - 1)

#if defined(__GNUC__)
/* A readable error for a name that is not a literal (GCC and Clang fold the test for one). */
#define TRAK__LITERAL(name)                                                                        \
  ((void)sizeof(struct {                                                                           \
     _Static_assert(__builtin_constant_p(name), TRAK__LITERAL_MSG);                                \
     char trak__c;                                                                                 \
   }),                                                                                             \
   (name))
/* The end of a scoped slice runs by the cleanup attribute when the block exits. */
#define TRAK__SCOPE(category, name, dyn, ...)                                                      \
  trak__scope TRAK__CAT(trak__scope_, __COUNTER__)                                                 \
      __attribute__((cleanup(trak__scope_end), unused)) =                                          \
          TRAK_UNLIKELY(TRAK_CATEGORY_ENABLED(category))                                           \
              ? trak__scope_make((category), TRAK__EMIT_OPTS((category), TRAK__SLICE_BEGIN,        \
                                                             (name), (dyn), __VA_ARGS__))          \
              : trak__scope_make(0, 0)
/* A per-call-site cache for the counter track of TRAK_COUNTER(cat, "name", v). */
#define TRAK__COUNTER_CACHE()                                                                      \
  (__extension__({                                                                                 \
    static trak_track trak__c_;                                                                    \
    &trak__c_;                                                                                     \
  }))
#else
#define TRAK__LITERAL(name) ("" name "")
#define TRAK__SCOPE(category, name, dyn, ...)                                                      \
  _Static_assert(0, "trak: the scoped TRAK_EVENT needs GCC or Clang in C; use "                    \
                    "TRAK_EVENT_BEGIN and TRAK_EVENT_END")
#define TRAK__COUNTER_CACHE() ((trak_track *)0)
#endif
static inline trak_track trak__counter_named(const char *name, trak_track *cache) {
  trak_track t = cache ? *(volatile trak_track *)cache : 0;
  return TRAK_LIKELY(t != 0) ? t : trak_track_counter_cached(name, cache);
}
static inline trak_track trak__counter_uuid(trak_track uuid, trak_track *cache) {
  (void)cache;
  return uuid;
}
#define TRAK__COUNTER_TRACK(track)                                                                 \
  _Generic((track), char *: trak__counter_named, const char *: trak__counter_named,                \
           default: trak__counter_uuid)((track), TRAK__COUNTER_CACHE())
#endif

/* Writes an event when `cat` is enabled; evaluates to the track the event went to (0: the
** thread's). `...` ends with trak__opt_none() (TRAK__TAIL adds it). */
#define TRAK__EMIT(cat, type, name, dyn, ...)                                                      \
  (TRAK_UNLIKELY(TRAK_CATEGORY_ENABLED(cat))                                                       \
       ? TRAK__EMIT_OPTS((cat), (type), (name), (dyn), __VA_ARGS__)                                \
       : (trak_track)0)

/* The event macros. Each takes the category, then the name (except _END), then options. */
#define TRAK_EVENT_BEGIN(cat, ...)                                                                 \
  ((void)TRAK__EMIT(cat, TRAK__SLICE_BEGIN, TRAK__LITERAL(TRAK__HEAD(__VA_ARGS__)), 0,             \
                    TRAK__TAIL(__VA_ARGS__)))
#define TRAK_EVENT_BEGIN_DYNAMIC(cat, ...)                                                         \
  ((void)TRAK__EMIT(cat, TRAK__SLICE_BEGIN, (TRAK__HEAD(__VA_ARGS__)), 1, TRAK__TAIL(__VA_ARGS__)))
#define TRAK_EVENT_END(...)                                                                        \
  ((void)TRAK__EMIT(TRAK__HEAD(__VA_ARGS__), TRAK__SLICE_END, (const char *)0, 0,                  \
                    TRAK__TAIL(__VA_ARGS__)))
#define TRAK_EVENT_INSTANT(cat, ...)                                                               \
  ((void)TRAK__EMIT(cat, TRAK__INSTANT, TRAK__LITERAL(TRAK__HEAD(__VA_ARGS__)), 0,                 \
                    TRAK__TAIL(__VA_ARGS__)))
#define TRAK_EVENT_INSTANT_DYNAMIC(cat, ...)                                                       \
  ((void)TRAK__EMIT(cat, TRAK__INSTANT, (TRAK__HEAD(__VA_ARGS__)), 1, TRAK__TAIL(__VA_ARGS__)))
/* A counter sample: `track` is a counter track (trak_track_counter) or a name, for a counter
** track of that name under the process track, made on first use. */
#define TRAK_COUNTER(cat, ...) TRAK__COUNTER_AT(cat, __VA_ARGS__, trak__opt_none())
#define TRAK__COUNTER_AT(cat, track, value, ...)                                                   \
  ((void)TRAK__EMIT(cat, TRAK__COUNTER, (const char *)0, 0, TRAK__COUNTER_OPT(value),              \
                    TRAK_TRACK(TRAK__COUNTER_TRACK(track)), __VA_ARGS__))

/* Scoped slices: the end event is written when the enclosing block exits, by any path. */
#define TRAK_EVENT(cat, ...)                                                                       \
  TRAK__SCOPE(cat, TRAK__LITERAL(TRAK__HEAD(__VA_ARGS__)), 0, TRAK__TAIL(__VA_ARGS__))
#define TRAK_EVENT_DYNAMIC(cat, ...)                                                               \
  TRAK__SCOPE(cat, (TRAK__HEAD(__VA_ARGS__)), 1, TRAK__TAIL(__VA_ARGS__))

#ifdef __cplusplus
}
#endif
#endif /* TRAK_TRACK_EVENT_H */
