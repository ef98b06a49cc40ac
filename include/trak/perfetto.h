// Perfetto's track-event SDK API on trak: a program instrumented with Perfetto's TRACE_EVENT
// macros builds against trak by including <trak/perfetto.h> instead of <perfetto.h> and linking
// libtrak instead of libperfetto. C++17. The supported subset (docs/sdk.md, "Coming from
// Perfetto"): PERFETTO_DEFINE_CATEGORIES / PERFETTO_TRACK_EVENT_STATIC_STORAGE, TRACE_EVENT,
// TRACE_EVENT_BEGIN / _END / _INSTANT, TRACE_COUNTER, TRACE_EVENT_CATEGORY_ENABLED; tracks
// (Track, ThreadTrack, ProcessTrack, NamedTrack, CounterTrack), Flow / TerminatingFlow,
// StaticString / DynamicString, DynamicCategory, debug annotations of any C++ value
// (traced_value.h), lambdas taking an EventContext (typed fields through ctx.event(): pbzero.h),
// explicit timestamps, startup tracing; Tracing::Initialize,
// TrackEvent::Register, TraceConfig and TracingSession (session.h).
//
// Events go through trak's C event path (trak_event_emit): the same bytes and cost per event
// as the TRAK_* macros.
#ifndef TRAK_PERFETTO_H
#define TRAK_PERFETTO_H

#if __cplusplus < 201703L
#error "<trak/perfetto.h> needs C++17 (as Perfetto's SDK does); for C++11 use <trak/trak.h>"
#endif

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "trak/perfetto/pbzero.h"
#include "trak/perfetto/session.h"
#include "trak/perfetto/traced_value.h"
#include "trak/trak.h"

namespace perfetto {

namespace protos {
namespace gen {
class TrackDescriptor;
} // namespace gen
} // namespace protos

// A category of PERFETTO_DEFINE_CATEGORIES: a name (or a "a,b" group), a description, tags.
struct Category {
  const char *name = nullptr;
  const char *description = nullptr;
  const char *tags[TRAK_MAX_TAGS] = {};
  constexpr explicit Category(const char *n) : name(n) {}
  constexpr Category SetDescription(const char *d) const {
    Category c = *this;
    c.description = d;
    return c;
  }
  template <typename... Tags> constexpr Category SetTags(Tags... t) const {
    static_assert(sizeof...(Tags) <= TRAK_MAX_TAGS, "perfetto (trak): at most 4 tags a category");
    Category c = *this;
    const char *list[] = {t..., nullptr};
    for (size_t i = 0; i < sizeof...(Tags); i++)
      c.tags[i] = list[i];
    return c;
  }
  static constexpr Category Group(const char *names) { return Category(names); }
};

// A category named at run time: TRACE_EVENT_BEGIN(DynamicCategory{"x"}, "Name").
struct DynamicCategory {
  std::string name;
  explicit DynamicCategory(const std::string &n) : name(n) {}
  explicit DynamicCategory(const char *n) : name(n) {}
};

// Event names: a literal, StaticString{ptr} (a pointer to a string that never changes) or
// DynamicString{...} (copied into the trace as is, not interned).
struct StaticString {
  const char *value;
  template <size_t N> constexpr StaticString(const char (&s)[N]) : value(s) {}
  constexpr explicit StaticString(const char *s) : value(s) {}
};
struct DynamicString {
  std::string storage; // only for the (pointer, length) form
  const char *value;
  explicit DynamicString(const std::string &s) : value(s.c_str()) {}
  explicit DynamicString(const char *s) : value(s) {}
  DynamicString(const char *s, size_t len) : storage(s, len), value(storage.c_str()) {}
};

namespace trak_internal {
// FNV-1a 64, the hash Perfetto's SDK derives named tracks' uuids from.
constexpr uint64_t Fnv1a(const char *s, uint64_t h = 0xcbf29ce484222325ull) {
  return *s ? Fnv1a(s + 1, (h ^ static_cast<uint8_t>(*s)) * 0x100000001b3ull) : h;
}
inline uint64_t Fnv1aN(const char *s, size_t len) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < len; i++)
    h = (h ^ static_cast<uint8_t>(s[i])) * 0x100000001b3ull;
  return h;
}
// A category's compile-time index in PERFETTO_DEFINE_CATEGORIES: kInvalidCategory for a literal
// that is not there (a compile error in the event macros), kDynamicCategory for a
// DynamicCategory or a literal with a test prefix (PERFETTO_DEFINE_TEST_CATEGORY_PREFIXES).
#define TRAK__PF_UNKNOWN_CATEGORY                                                                  \
  "perfetto (trak): unknown category: add it to PERFETTO_DEFINE_CATEGORIES, or name it at run "    \
  "time with perfetto::DynamicCategory"
constexpr size_t kInvalidCategory = static_cast<size_t>(-1);
constexpr size_t kDynamicCategory = static_cast<size_t>(-2);
constexpr bool StrEq(const char *a, const char *b) {
  return *a != *b ? false : *a ? StrEq(a + 1, b + 1) : true;
}
constexpr bool HasPrefix(const char *name, const char *prefix) {
  return !*prefix ? true : *name != *prefix ? false : HasPrefix(name + 1, prefix + 1);
}
constexpr bool HasAnyPrefix(const char *) {
  return false;
}
template <typename... P> constexpr bool HasAnyPrefix(const char *name, const char *p, P... rest) {
  return HasPrefix(name, p) || HasAnyPrefix(name, rest...);
}
} // namespace trak_internal

// A track: where events go (uuid) and the track it belongs to (parent_uuid, 0 for a global
// track). Every uuid below is the one Perfetto's SDK computes for the same track, so traces
// from both SDKs agree (and a process using both writes to the same tracks).
struct Track {
  uint64_t uuid = 0;
  uint64_t parent_uuid = 0;
  constexpr Track() = default;
  explicit Track(uint64_t id, Track parent = MakeProcessTrack())
      : uuid(id ^ parent.uuid), parent_uuid(parent.uuid) {}
  explicit operator bool() const { return uuid != 0; }
  static Track Global(uint64_t id) { return Track(id, Track()); }
  static Track FromPointer(const void *p, Track parent = MakeProcessTrack()) {
    return Track(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)), parent);
  }
  static Track ThreadScoped(const void *p);
  static Track ThreadScoped(const void *p, Track parent);
  static Track MakeProcessTrack() {
    Track t;
    t.uuid = trak_track_process();
    return t;
  }
  // The descriptor written for this track (see TrackEvent::SetTrackDescriptor).
  inline protos::gen::TrackDescriptor Serialize() const;

protected:
  constexpr Track(uint64_t u, uint64_t p, int) : uuid(u), parent_uuid(p) {}
};

struct ProcessTrack : Track {
  static ProcessTrack Current() { return ProcessTrack(); }

private:
  ProcessTrack() : Track(trak_track_process(), 0, 0) {}
};

struct ThreadTrack : Track {
  static ThreadTrack Current() { return ThreadTrack(); }

private:
  ThreadTrack() : Track(trak_track_thread(), trak_track_process(), 0) {}
};

inline Track Track::ThreadScoped(const void *p) {
  return FromPointer(p, ThreadTrack::Current());
}
inline Track Track::ThreadScoped(const void *p, Track parent) {
  return FromPointer(p, parent.uuid ? parent : ThreadTrack::Current());
}

// A track with a name (and an id, to have several of one name) under `parent`.
struct NamedTrack : Track {
  const char *name;
  std::string dynamic_name; // a DynamicString's copy (name points into it when set)
  NamedTrack(StaticString n, uint64_t id = 0, Track parent = MakeProcessTrack())
      : Track(id ^ trak_internal::Fnv1a(n.value) ^ TRAK_TRACK_NAMED_MAGIC ^ parent.uuid,
              parent.uuid, 0),
        name(n.value) {}
  NamedTrack(const DynamicString &n, uint64_t id = 0, Track parent = MakeProcessTrack())
      : Track(id ^ trak_internal::Fnv1aN(n.value, std::strlen(n.value)) ^ TRAK_TRACK_NAMED_MAGIC ^
                  parent.uuid,
              parent.uuid, 0),
        name(nullptr), dynamic_name(n.value) {}
  const char *Name() const { return name ? name : dynamic_name.c_str(); }
  template <typename N> static NamedTrack Global(N &&n, uint64_t id = 0) {
    return NamedTrack(std::forward<N>(n), id, Track());
  }
  template <typename N>
  static NamedTrack FromPointer(N &&n, const void *p, Track parent = MakeProcessTrack()) {
    return NamedTrack(std::forward<N>(n), static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)),
                      parent);
  }
  template <typename N>
  static NamedTrack ThreadScoped(N &&n, uint64_t id = 0, Track parent = Track()) {
    return NamedTrack(std::forward<N>(n), id, parent.uuid ? parent : ThreadTrack::Current());
  }
};

// A counter track: a name, an optional unit, under `parent` (the process by default).
struct CounterTrack : Track {
  enum Unit {
    UNIT_UNSPECIFIED = TRAK_UNIT_UNSPECIFIED,
    UNIT_TIME_NS = TRAK_UNIT_TIME_NS,
    UNIT_COUNT = TRAK_UNIT_COUNT,
    UNIT_SIZE_BYTES = TRAK_UNIT_SIZE_BYTES
  };
  const char *name;
  const char *unit_name = nullptr;
  Unit unit = UNIT_UNSPECIFIED;
  int64_t multiplier = 1;
  bool is_incremental = false;
  explicit CounterTrack(StaticString n, Track parent = MakeProcessTrack())
      : CounterTrack(n, uint64_t{0}, parent) {}
  CounterTrack(StaticString n, uint64_t id, Track parent = MakeProcessTrack())
      : Track(id ^ trak_internal::Fnv1a(n.value) ^ TRAK_TRACK_COUNTER_MAGIC ^ parent.uuid,
              parent.uuid, 0),
        name(n.value) {}
  CounterTrack(StaticString n, const char *unit_name_, Track parent = MakeProcessTrack())
      : CounterTrack(n, parent) {
    unit_name = unit_name_;
  }
  CounterTrack set_unit(Unit u) const {
    CounterTrack t = *this;
    t.unit = u;
    return t;
  }
  CounterTrack set_unit_name(const char *u) const {
    CounterTrack t = *this;
    t.unit_name = u;
    return t;
  }
  CounterTrack set_multiplier(int64_t m) const {
    CounterTrack t = *this;
    t.multiplier = m;
    return t;
  }
  CounterTrack set_is_incremental(bool on = true) const {
    CounterTrack t = *this;
    t.is_incremental = on;
    return t;
  }
  static CounterTrack Global(StaticString n, uint64_t id = 0) {
    return CounterTrack(n, id, Track());
  }
};

// Flow ids: a flow links the events that carry the same id (ProcessScoped: within this
// process; Global: across processes).
struct Flow {
  uint64_t id;
  static Flow ProcessScoped(uint64_t flow_id) { return Flow{flow_id ^ trak_track_process()}; }
  static Flow Global(uint64_t flow_id) { return Flow{flow_id}; }
  static Flow FromPointer(const void *p) {
    return ProcessScoped(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)));
  }
};
struct TerminatingFlow {
  uint64_t id;
  static TerminatingFlow ProcessScoped(uint64_t flow_id) {
    return TerminatingFlow{flow_id ^ trak_track_process()};
  }
  static TerminatingFlow Global(uint64_t flow_id) { return TerminatingFlow{flow_id}; }
  static TerminatingFlow FromPointer(const void *p) {
    return ProcessScoped(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)));
  }
};

// A timestamp on a given clock (BuiltinClock ids; trak's default is BOOTTIME).
struct TraceTimestamp {
  uint32_t clock_id;
  uint64_t value;
};

namespace protos {
namespace gen {
// The parts of a TrackDescriptor a program sets through TrackEvent::SetTrackDescriptor.
class TrackDescriptor {
public:
  struct ProcessDescriptor {
    std::string process_name;
    void set_process_name(const std::string &n) { process_name = n; }
  };
  struct ThreadDescriptor {
    std::string thread_name;
    void set_thread_name(const std::string &n) { thread_name = n; }
  };
  uint64_t uuid = 0, parent_uuid = 0;
  std::string name;
  ProcessDescriptor process;
  ThreadDescriptor thread;
  void set_name(const std::string &n) { name = n; }
  void set_uuid(uint64_t u) { uuid = u; }
  void set_parent_uuid(uint64_t u) { parent_uuid = u; }
  ProcessDescriptor *mutable_process() { return &process; }
  ThreadDescriptor *mutable_thread() { return &thread; }
};
} // namespace gen
} // namespace protos

inline protos::gen::TrackDescriptor Track::Serialize() const {
  protos::gen::TrackDescriptor d;
  d.uuid = uuid;
  d.parent_uuid = parent_uuid;
  return d;
}

// What a lambda passed to TRACE_EVENT gets: ctx.AddDebugAnnotation(name, value) adds an
// argument of any type WriteIntoTracedValue takes.
class EventContext {
public:
  explicit EventContext(trak_event_ctx *ctx) : ctx_(ctx), event_(trak_event_buf(ctx)) {}
  EventContext(EventContext &&o) : ctx_(o.ctx_), event_(trak_event_buf(o.ctx_)) {
    o.event_.EndChild();
  }
  EventContext(const EventContext &) = delete;
  EventContext &operator=(const EventContext &) = delete;
  // The event's typed fields (trak/perfetto/pbzero.h).
  protos::pbzero::TrackEvent *event() { return &event_; }
  template <typename T> void AddDebugAnnotation(const char *name, T &&value) {
    event_.EndChild();
    trak_pb_buf *b = trak_event_buf(ctx_);
    trak_internal::OpenMessage m(b, TRAK_PB_TrackEvent_debug_annotations);
    trak_pb_put_string(b, TRAK_PB_DebugAnnotation_name, name);
    WriteIntoTracedValue(TracedValue(b), std::forward<T>(value));
  }
  template <typename T> void AddDebugAnnotation(const DynamicString &name, T &&value) {
    AddDebugAnnotation(name.value, std::forward<T>(value));
  }
  // trak's context: raw TrackEvent fields through trak_event_buf().
  trak_event_ctx *trak_context() {
    event_.EndChild();
    return ctx_;
  }

private:
  trak_event_ctx *ctx_;
  protos::pbzero::TrackEvent event_;
};

namespace trak_internal {

// Registers a track's descriptor the first time this thread uses it (a small per-thread cache
// keeps the lock out of the event path).
template <typename F> inline void DescribeTrack(uint64_t uuid, F fields) {
  thread_local uint64_t seen[64];
  uint64_t &slot = seen[(uuid * 0x9E3779B97F4A7C15ull) >> 58];
  if (TRAK_LIKELY(slot == uuid)) return;
  std::string f = fields();
  trak_track_describe_once(uuid, f.data(), f.size());
  slot = uuid;
}
inline std::string TrackFields(const Track &t, const char *name) {
  std::string f;
  if (t.parent_uuid) PutVarintField(f, TRAK_PB_TrackDescriptor_parent_uuid, t.parent_uuid);
  if (name) PutBytesField(f, TRAK_PB_TrackDescriptor_name, name);
  return f;
}
inline uint64_t TrackOf(const Track &t) {
  if (t.uuid != trak_track_thread() && t.uuid != trak_track_process())
    DescribeTrack(t.uuid, [&] { return TrackFields(t, nullptr); });
  return t.uuid;
}
inline uint64_t TrackOf(const ThreadTrack &t) {
  return t.uuid;
}
inline uint64_t TrackOf(const ProcessTrack &t) {
  return t.uuid;
}
inline uint64_t TrackOf(const NamedTrack &t) {
  DescribeTrack(t.uuid, [&] { return TrackFields(t, t.Name()); });
  return t.uuid;
}
inline std::string CounterFields(const CounterTrack &t) {
  std::string f = TrackFields(t, t.name), c;
  if (t.unit) PutVarintField(c, TRAK_PB_CounterDescriptor_unit, t.unit);
  if (t.unit_name) PutBytesField(c, TRAK_PB_CounterDescriptor_unit_name, t.unit_name);
  if (t.multiplier != 1)
    PutVarintField(c, TRAK_PB_CounterDescriptor_unit_multiplier, (uint64_t)t.multiplier);
  if (t.is_incremental) PutVarintField(c, TRAK_PB_CounterDescriptor_is_incremental, 1);
  PutBytesField(f, TRAK_PB_TrackDescriptor_counter, c);
  return f;
}
inline uint64_t TrackOf(const CounterTrack &t) {
  DescribeTrack(t.uuid, [&] { return CounterFields(t); });
  return t.uuid;
}

// The event name and whether it is dynamic.
struct Name {
  const char *ptr;
  int dynamic;
};
template <size_t N> inline Name NameOf(const char (&s)[N]) {
  return Name{s, 0};
}
inline Name NameOf(StaticString s) {
  return Name{s.value, 0};
}
inline Name NameOf(const DynamicString &s) {
  return Name{s.value, 1};
}
// TRACE_EVENT_END's: no name; NoOption ends its option list.
struct EndName {};
struct NoOption {};
inline Name NameOf(std::nullptr_t) { // TRACE_EVENT(cat, nullptr, lambda): the lambda names it
  return Name{nullptr, 0};
}
inline Name NameOf(EndName) {
  return Name{nullptr, 0};
}
template <typename T> inline Name NameOf(const T &) {
  static_assert(DependentFalse<T>::value,
                "perfetto (trak): the event name must be a string literal; for a name computed "
                "at run time use perfetto::DynamicString{name}, for a pointer to a constant "
                "string perfetto::StaticString{name}");
  return Name{nullptr, 0};
}

// Category lookup: a literal resolves once per call site (cached), a DynamicCategory per event.
template <typename F> inline trak_category *CategoryOf(const char *name, F cached) {
  return cached(name);
}
template <typename F> inline trak_category *CategoryOf(const DynamicCategory &c, F) {
  return trak_category_dynamic(c.name.c_str());
}

// The options of an event: tracks, timestamps, flows, ("name", value) pairs and lambdas.
struct Opts {
  trak_opt *o;
  size_t n;
  uint64_t track;
};

template <typename T> struct IsName : std::false_type {};
template <size_t N> struct IsName<char[N]> : std::true_type {};
template <> struct IsName<const char *> : std::true_type {};
template <> struct IsName<char *> : std::true_type {};

// A simple value becomes a trak_opt argument (interned name, fast path); others are written by
// WriteIntoTracedValue from inside the event.
template <typename V> inline trak_opt ArgOf(const char *name, V &&v) {
  using D = typename std::decay<V>::type;
  if constexpr (std::is_same<D, bool>::value) {
    return trak__arg_bool(name, v);
  } else if constexpr (std::is_enum<D>::value) {
    return trak__arg_int(name, static_cast<int64_t>(v));
  } else if constexpr (std::is_integral<D>::value && std::is_signed<D>::value) {
    return trak__arg_int(name, v);
  } else if constexpr (std::is_integral<D>::value) {
    return trak__arg_uint(name, v);
  } else if constexpr (std::is_floating_point<D>::value) {
    return trak__arg_double(name, v);
  } else if constexpr (std::is_same<D, const char *>::value || std::is_same<D, char *>::value) {
    return trak__arg_string(name, v);
  } else if constexpr (std::is_same<D, std::string>::value ||
                       std::is_same<D, std::string_view>::value) {
    return trak__arg_string_n(name, v.data(), v.size());
  } else if constexpr (std::is_pointer<D>::value &&
                       !HasWriteIntoTrace<typename std::remove_pointer<D>::type>::value) {
    return trak__arg_pointer(name, static_cast<const void *>(v));
  } else {
    using R = typename std::remove_reference<V>::type;
    trak_opt o = trak__opt(TRAK__OPT_ARG_FN, name);
    o.v.fn = [](trak_event_ctx *ctx, void *user) {
      WriteIntoTracedValue(TracedValue(trak_event_buf(ctx)), *static_cast<R *>(user));
    };
    o.user = const_cast<void *>(static_cast<const void *>(&v));
    return o;
  }
}

inline void Collect(Opts &) {}
template <typename... Rest> inline void Collect(Opts &l, NoOption, Rest &&...rest) {
  Collect(l, std::forward<Rest>(rest)...);
}
template <typename T, typename... Rest> inline void Collect(Opts &l, T &&head, Rest &&...rest) {
  using D = typename std::decay<T>::type;
  using H = typename std::remove_cv<typename std::remove_reference<T>::type>::type;
  if constexpr (IsName<H>::value) {
    static_assert(sizeof...(Rest) > 0, "perfetto (trak): a debug annotation name needs a value");
    CollectArg(l, head, std::forward<Rest>(rest)...);
    return;
  } else {
    if constexpr (std::is_base_of<Track, D>::value) {
      l.track = TrackOf(head);
      l.o[l.n++] = trak__opt_u64(TRAK__OPT_TRACK, l.track);
    } else if constexpr (std::is_same<D, Flow>::value) {
      l.o[l.n++] = trak__opt_u64(TRAK__OPT_FLOW, head.id);
    } else if constexpr (std::is_same<D, TerminatingFlow>::value) {
      l.o[l.n++] = trak__opt_u64(TRAK__OPT_TERMINATING_FLOW, head.id);
    } else if constexpr (std::is_same<D, TraceTimestamp>::value) {
      l.o[l.n++] = trak__opt_u64(TRAK__OPT_TIMESTAMP, head.value);
    } else if constexpr (std::is_integral<D>::value) {
      l.o[l.n++] = trak__opt_u64(TRAK__OPT_TIMESTAMP, static_cast<uint64_t>(head));
    } else if constexpr (std::is_invocable<T, EventContext>::value) {
      using R = typename std::remove_reference<T>::type;
      l.o[l.n++] = trak__opt_callback(
          [](trak_event_ctx *ctx, void *user) { (*static_cast<R *>(user))(EventContext(ctx)); },
          const_cast<void *>(static_cast<const void *>(&head)));
    } else {
      static_assert(DependentFalse<D>::value,
                    "perfetto (trak): unsupported TRACE_EVENT argument (expected a track, a "
                    "timestamp, a flow, \"name\", value pairs or a lambda taking EventContext)");
    }
    Collect(l, std::forward<Rest>(rest)...);
  }
}
template <typename V, typename... Rest>
inline void CollectArg(Opts &l, const char *name, V &&value, Rest &&...rest) {
  l.o[l.n++] = ArgOf(name, std::forward<V>(value));
  Collect(l, std::forward<Rest>(rest)...);
}

// Writes one event; returns the track it went to (0: the thread's).
template <typename N, typename... Args>
inline uint64_t Emit(trak_category *cat, uint32_t type, const N &name, Args &&...args) {
  Name nm = NameOf(name);
  if constexpr (sizeof...(Args) == 0) {
    return trak__emit_n(cat, type, nm.ptr, nm.dynamic, nullptr, 0);
  } else {
    trak_opt o[sizeof...(Args)];
    Opts l{o, 0, 0};
    Collect(l, std::forward<Args>(args)...);
    return trak__emit_n(cat, type, nm.ptr, nm.dynamic, o, l.n);
  }
}

// The end of a TRACE_EVENT's slice, on the track its begin went to.
// The category's compile-time index is part of the type, so TRACE_EVENT stays one declaration.
template <size_t CategoryIndex> struct ScopedEnd {
  static_assert(CategoryIndex != kInvalidCategory, TRAK__PF_UNKNOWN_CATEGORY);
  static constexpr size_t kCategoryIndex = CategoryIndex;
  trak__scope s;
  ~ScopedEnd() { trak__scope_end(&s); }
};

// TRACE_COUNTER's value (and optional timestamp first).
template <typename V> inline trak_opt CounterValue(V v) {
  if constexpr (std::is_floating_point<V>::value)
    return trak__counter_double(static_cast<double>(v));
  else
    return trak__counter_int(static_cast<int64_t>(v));
}
inline uint64_t CounterTrackOf(const char *name, trak_track *cache) {
  return trak__counter_track(name, cache);
}
inline uint64_t CounterTrackOf(const CounterTrack &t, trak_track *) {
  return TrackOf(t);
}
template <typename V> inline void Counter(trak_category *cat, uint64_t track, V value) {
  trak_opt o[2] = {CounterValue(value), trak__opt_u64(TRAK__OPT_TRACK, track)};
  trak_event_emit(cat, TRAK__COUNTER, nullptr, 0, o, 2);
}
template <typename T, typename V>
inline void Counter(trak_category *cat, uint64_t track, T timestamp, V value) {
  trak_opt o[3] = {CounterValue(value), trak__opt_u64(TRAK__OPT_TRACK, track),
                   trak__opt_u64(TRAK__OPT_TIMESTAMP, static_cast<uint64_t>(timestamp))};
  trak_event_emit(cat, TRAK__COUNTER, nullptr, 0, o, 3);
}

} // namespace trak_internal

// The track event data source: registration, descriptors, time.
struct TrackEvent {
  // Categories register before main() (PERFETTO_TRACK_EVENT_STATIC_STORAGE); kept for the call.
  static bool Register() { return true; }
  static void Flush() {}
  static uint64_t GetTraceTimeNs() { return trak_clock_now(); }
  static uint32_t GetTraceClockId() { return 6; } // BUILTIN_CLOCK_BOOTTIME
  static void SetTrackDescriptor(const Track &track, const protos::gen::TrackDescriptor &d) {
    if (track.uuid == trak_track_process()) {
      if (!d.process.process_name.empty()) trak_process_set_name(d.process.process_name.c_str());
      return;
    }
    if (track.uuid == trak_track_thread()) {
      if (!d.thread.thread_name.empty()) trak_thread_set_name(d.thread.thread_name.c_str());
      return;
    }
    std::string f = trak_internal::TrackFields(track, d.name.empty() ? nullptr : d.name.c_str());
    trak_track_set_descriptor_raw(track.uuid, f.data(), f.size());
  }
  static void EraseTrackDescriptor(const Track &track) { trak_track_erase_descriptor(track.uuid); }
};

} // namespace perfetto

// PERFETTO_DEFINE_CATEGORIES(perfetto::Category("a").SetDescription("..."), ...): in a header.
// An event macro naming a literal category that is not listed here does not compile (as with
// Perfetto); the listed ones resolve at compile time, costing the event path no lookup.
#define PERFETTO_DEFINE_CATEGORIES(...)                                                            \
  namespace perfetto {                                                                             \
  namespace trak_registry {                                                                        \
  constexpr ::perfetto::Category kCategories[] = {__VA_ARGS__};                                    \
  constexpr size_t kCount = sizeof(kCategories) / sizeof(kCategories[0]);                          \
  extern trak_category categories[kCount];                                                         \
  /* Specialized by PERFETTO_DEFINE_TEST_CATEGORY_PREFIXES. */                                     \
  template <typename T = void> constexpr bool IsTestCategory(const char *) {                       \
    return false;                                                                                  \
  }                                                                                                \
  /* The index of the literal category `name` (trak_internal::kInvalidCategory, ...); a template \
     so that IsTestCategory is looked at where an event macro calls it. */ \
  template <typename T = void> constexpr size_t Index(const char *name, size_t i = 0) {            \
    return IsTestCategory<T>(name)                           ? trak_internal::kDynamicCategory     \
           : i == kCount                                     ? trak_internal::kInvalidCategory     \
           : trak_internal::StrEq(kCategories[i].name, name) ? i                                   \
                                                             : Index<T>(name, i + 1);              \
  }                                                                                                \
  constexpr size_t Index(const ::perfetto::DynamicCategory &) {                                    \
    return trak_internal::kDynamicCategory;                                                        \
  }                                                                                                \
  /* The static category named `name`, else a dynamic one of that name. */                         \
  inline trak_category *Find(const char *name) {                                                   \
    for (size_t i = 0; i < kCount; i++)                                                            \
      if (std::strcmp(kCategories[i].name, name) == 0) return &categories[i];                      \
    return trak_category_dynamic(name);                                                            \
  }                                                                                                \
  /* The category at compile-time index I: a static one's address, else looked up. */              \
  template <size_t I, typename F> inline trak_category *At(const char *name, F cached) {           \
    if constexpr (I < kCount)                                                                      \
      return &categories[I];                                                                       \
    else                                                                                           \
      return cached(name);                                                                         \
  }                                                                                                \
  template <size_t I, typename F>                                                                  \
  inline trak_category *At(const ::perfetto::DynamicCategory &c, F) {                              \
    return trak_category_dynamic(c.name.c_str());                                                  \
  }                                                                                                \
  }                                                                                                \
  }                                                                                                \
  static_assert(true, "")

// PERFETTO_TRACK_EVENT_STATIC_STORAGE(): in one .cc file; registers the categories.
#define PERFETTO_TRACK_EVENT_STATIC_STORAGE()                                                      \
  namespace perfetto {                                                                             \
  namespace trak_registry {                                                                        \
  trak_category categories[kCount];                                                                \
  static const bool registered = [] {                                                              \
    for (size_t i = 0; i < kCount; i++) {                                                          \
      categories[i].name = kCategories[i].name;                                                    \
      categories[i].description = kCategories[i].description;                                      \
      for (size_t k = 0; k < TRAK_MAX_TAGS; k++)                                                   \
        categories[i].tags[k] = kCategories[i].tags[k];                                            \
      trak_category_register(&categories[i]);                                                      \
    }                                                                                              \
    return true;                                                                                   \
  }();                                                                                             \
  }                                                                                                \
  }                                                                                                \
  static_assert(true, "")

// PERFETTO_DEFINE_TEST_CATEGORY_PREFIXES("test", ...): after PERFETTO_DEFINE_CATEGORIES; literal
// categories with these prefixes need not be listed (they are dynamic).
#define PERFETTO_DEFINE_TEST_CATEGORY_PREFIXES(...)                                                \
  namespace perfetto {                                                                             \
  namespace trak_registry {                                                                        \
  template <> constexpr bool IsTestCategory(const char *name) {                                    \
    return trak_internal::HasAnyPrefix(name, __VA_ARGS__);                                         \
  }                                                                                                \
  }                                                                                                \
  }                                                                                                \
  TRAK_TEST_CATEGORY_PREFIXES(__VA_ARGS__)

// The category of an event: checked and resolved at compile time into `id` (a statement), then
// its trak_category (an expression): a listed category's address, a test-prefixed literal looked
// up once per call site, a DynamicCategory per event.
#define TRAK__PF_CATEGORY_INDEX(category, id)                                                      \
  constexpr size_t id = ::perfetto::trak_registry::Index(category);                                \
  static_assert(id != ::perfetto::trak_internal::kInvalidCategory, TRAK__PF_UNKNOWN_CATEGORY)
// A lambda that looks a category name up once per call site.
#define TRAK__PF_FIND_ONCE                                                                         \
  [](const char *trak__n) {                                                                        \
    static trak_category *trak__c;                                                                 \
    trak_category *trak__r = __atomic_load_n(&trak__c, __ATOMIC_ACQUIRE);                          \
    if (TRAK_UNLIKELY(!trak__r)) {                                                                 \
      trak__r = ::perfetto::trak_registry::Find(trak__n);                                          \
      __atomic_store_n(&trak__c, trak__r, __ATOMIC_RELEASE);                                       \
    }                                                                                              \
    return trak__r;                                                                                \
  }
#define TRAK__PF_CATEGORY_AT(category, id)                                                         \
  ::perfetto::trak_registry::At<id>(category, TRAK__PF_FIND_ONCE)
// An expression form for TRACE_EVENT_CATEGORY_ENABLED, which resolves at run time (an unknown
// literal there is an empty dynamic category, not an error).
#define TRAK__PF_CATEGORY(category)                                                                \
  ::perfetto::trak_internal::CategoryOf(category, TRAK__PF_FIND_ONCE)

#define TRACE_EVENT_CATEGORY_ENABLED(category) TRAK_CATEGORY_ENABLED(TRAK__PF_CATEGORY(category))

// TRACE_EVENT(category, name, [track], [timestamp], ["arg", value]..., [lambda]): a slice that
// ends when the enclosing block exits. The name is the first of `...` so that no macro is ever
// called with an empty `...` (clean under -Wpedantic).
#define TRACE_EVENT(category, ...)                                                                 \
  TRAK__PF_SCOPED(TRAK__CAT(trak__pf_scope_, __COUNTER__), category, __VA_ARGS__)
#define TRAK__PF_SCOPED(id, category, ...)                                                         \
  ::perfetto::trak_internal::ScopedEnd<::perfetto::trak_registry::Index(category)> id {            \
    [&]() -> trak__scope {                                                                         \
      trak_category *trak__cat = TRAK__PF_CATEGORY_AT(category, decltype(id)::kCategoryIndex);     \
      if (TRAK_LIKELY(!TRAK_CATEGORY_ENABLED(trak__cat))) return trak__scope_make(0, 0);           \
      return trak__scope_make(                                                                     \
          trak__cat, ::perfetto::trak_internal::Emit(trak__cat, TRAK__SLICE_BEGIN, __VA_ARGS__));  \
    }()                                                                                            \
  }

#define TRAK__PF_EMIT(type, category, ...)                                                         \
  do {                                                                                             \
    TRAK__PF_CATEGORY_INDEX(category, trak__pf_cat);                                               \
    trak_category *trak__cat = TRAK__PF_CATEGORY_AT(category, trak__pf_cat);                       \
    if (TRAK_UNLIKELY(TRAK_CATEGORY_ENABLED(trak__cat)))                                           \
      ::perfetto::trak_internal::Emit(trak__cat, type, __VA_ARGS__);                               \
  } while (0)
#define TRACE_EVENT_BEGIN(category, ...) TRAK__PF_EMIT(TRAK__SLICE_BEGIN, category, __VA_ARGS__)
#define TRACE_EVENT_INSTANT(category, ...) TRAK__PF_EMIT(TRAK__INSTANT, category, __VA_ARGS__)
// TRACE_EVENT_END(category, [track], [timestamp], ["arg", value]...).
#define TRACE_EVENT_END(...)                                                                       \
  TRAK__PF_EMIT(TRAK__SLICE_END, TRAK__HEAD(__VA_ARGS__), ::perfetto::trak_internal::EndName(),    \
                TRAK__PF_TAIL(__VA_ARGS__))
#define TRAK__PF_TAIL(...) TRAK__TAIL_(__VA_ARGS__, ::perfetto::trak_internal::NoOption())

// TRACE_COUNTER(category, "Name" or CounterTrack, [timestamp,] value).
#define TRACE_COUNTER(category, track, ...)                                                        \
  do {                                                                                             \
    TRAK__PF_CATEGORY_INDEX(category, trak__pf_cat);                                               \
    trak_category *trak__cat = TRAK__PF_CATEGORY_AT(category, trak__pf_cat);                       \
    if (TRAK_UNLIKELY(TRAK_CATEGORY_ENABLED(trak__cat)))                                           \
      ::perfetto::trak_internal::Counter(                                                          \
          trak__cat, ::perfetto::trak_internal::CounterTrackOf(track, TRAK__COUNTER_CACHE()),      \
          __VA_ARGS__);                                                                            \
  } while (0)

#endif // TRAK_PERFETTO_H
