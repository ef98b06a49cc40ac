// The calls of Perfetto's track-event guide, written against <trak/perfetto.h>: debug arguments
// of every kind (scalars, enums, strings, pointers, nested TracedValue dictionaries and arrays,
// containers, a type with WriteIntoTrace), lambdas with EventContext (typed fields included), counters with units,
// flows, custom, named and thread tracks, dynamic and static names, a dynamic category and
// explicit timestamps. The trace goes to argv[1] (through Setup's file descriptor).
#include <fcntl.h>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <unistd.h>
#include <vector>

#include "trace_categories.h"

namespace {

enum class Mode { kFast = 3, kSlow = 7 };

struct Point {
  int x, y;
  void WriteIntoTrace(perfetto::TracedValue context) const {
    auto dict = std::move(context).WriteDictionary();
    dict.Add("x", x);
    dict.Add("y", y);
  }
};

struct Size {
  int w, h;
};

} // namespace

namespace perfetto {
template <> struct TraceFormatTraits<Size> {
  static void WriteIntoTrace(TracedValue context, const Size &s) {
    auto array = std::move(context).WriteArray();
    array.Append(s.w);
    array.Append(s.h);
  }
};
} // namespace perfetto

int main(int argc, char **argv) {
  perfetto::TracingInitArgs args;
  args.backends = perfetto::kInProcessBackend;
  perfetto::Tracing::Initialize(args);
  perfetto::TrackEvent::Register();

  perfetto::TraceConfig cfg;
  cfg.add_buffers()->set_size_kb(4096);
  auto *ds = cfg.add_data_sources()->mutable_config();
  ds->set_name("track_event");
  perfetto::protos::gen::TrackEventConfig te;
  te.add_disabled_categories("off");
  te.add_enabled_tags("debug"); // network.debug: tagged "debug", off by default
  ds->set_track_event_config_raw(te.SerializeAsString());
  int fd = open(argc > 1 ? argv[1] : "track_events.pftrace", O_RDWR | O_CREAT | O_TRUNC, 0600);
  auto session = perfetto::Tracing::NewTrace();
  session->Setup(cfg, fd);
  session->StartBlocking();

  int enabled = TRACE_EVENT_CATEGORY_ENABLED("rendering") && !TRACE_EVENT_CATEGORY_ENABLED("off");
  TRACE_EVENT_INSTANT("off", "Never");

  // Debug arguments of every kind.
  std::string owner = "std::string value";
  std::string_view view = "string_view value";
  const char *cstr = "const char* value";
  Point point{3, 4};
  std::vector<int> list = {1, 2, 3};
  std::map<std::string, double> weights = {{"a", 0.5}, {"b", 1.5}};
  std::unique_ptr<Point> owned(new Point{5, 6});
  std::unique_ptr<Point> none;
  {
    TRACE_EVENT("rendering", "Args", "int", -5, "uint", 7u, "int64", int64_t{1} << 40, "bool", true,
                "double", 2.5, "float", 0.25f, "enum", Mode::kSlow, "cstr", cstr, "literal",
                "literal value", "string", owner, "view", view, "temp",
                std::string("temporary value"), "pointer", static_cast<void *>(&point));
  }
  TRACE_EVENT_INSTANT("rendering", "Nested", "point", point, "size", Size{640, 480}, "list", list,
                      "weights", weights, "owned", owned, "none", none);

  // A lambda with EventContext, alone and after arguments.
  int lambda_runs = 0;
  TRACE_EVENT_INSTANT("rendering", "Lambda", [&](perfetto::EventContext ctx) {
    lambda_runs++;
    ctx.AddDebugAnnotation("from_lambda", 42);
    ctx.AddDebugAnnotation("lambda_point", point);
    ctx.AddDebugAnnotation(perfetto::DynamicString{std::string("dyn_key")}, "dyn");
  });
  TRACE_EVENT_INSTANT("rendering", "ArgsAndLambda", "first", 1,
                      [&](perfetto::EventContext ctx) { ctx.AddDebugAnnotation("second", 2); });

  // Typed fields through ctx.event(), as in Perfetto's guide: debug annotations written field by
  // field (each ends when the next field of the event starts), a name set by the lambda, flows.
  TRACE_EVENT_INSTANT("rendering", "Typed", [&](perfetto::EventContext ctx) {
    auto *a = ctx.event()->add_debug_annotations();
    a->set_name("key");
    a->set_string_value("value");
    auto *b = ctx.event()->add_debug_annotations();
    b->set_name(std::string("num"));
    b->set_int_value(-3);
    ctx.AddDebugAnnotation("after", 1);
    auto *c = ctx.event()->add_debug_annotations();
    c->set_name("real");
    c->set_double_value(1.5);
    auto *d = ctx.event()->add_debug_annotations();
    d->set_name("nested");
    d->set_value(std::vector<int>{4, 5});
  });
  std::string lambda_name = "NamedInLambda";
  {
    TRACE_EVENT("rendering", nullptr,
                [&](perfetto::EventContext ctx) { ctx.event()->set_name(lambda_name); });
  }
  TRACE_EVENT_INSTANT("rendering", "TypedFlowOut",
                      [&](perfetto::EventContext ctx) { ctx.event()->add_flow_ids(4242); });
  TRACE_EVENT_INSTANT("rendering", "TypedFlowIn", [&](perfetto::EventContext ctx) {
    ctx.event()->add_terminating_flow_ids(4242);
  });

  // Names: dynamic, static through a pointer; a dynamic category.
  std::string dyn_name = "Dynamic" + std::to_string(7);
  { TRACE_EVENT("rendering", perfetto::DynamicString{dyn_name}); }
  const char *static_name = lambda_runs ? "StaticA" : "StaticB";
  { TRACE_EVENT("rendering", perfetto::StaticString{static_name}); }
  perfetto::DynamicCategory dyn_cat{"dynamic.cat"};
  TRACE_EVENT_BEGIN(dyn_cat, "InDynamicCategory");
  TRACE_EVENT_END(dyn_cat);
  TRACE_EVENT_INSTANT("network.debug", "DebugTagged");
  TRACE_EVENT_INSTANT("rendering,io", "InGroup");

  // Counters: by name (int and double), with a unit, with a timestamp.
  uint64_t then = perfetto::TrackEvent::GetTraceTimeNs();
  for (int i = 1; i <= 3; i++) {
    TRACE_COUNTER("rendering", "Queue", i);
    TRACE_COUNTER("rendering", perfetto::CounterTrack("Framerate", "fps"), 59.5 + i);
  }
  perfetto::CounterTrack memory = perfetto::CounterTrack("Memory")
                                      .set_unit(perfetto::CounterTrack::UNIT_SIZE_BYTES)
                                      .set_multiplier(1024);
  TRACE_COUNTER("rendering", memory, 4);
  TRACE_COUNTER("rendering", "Earlier", then, 11);

  // Tracks: an async slice on Track(id) ended from another thread; a named track; the thread's.
  // The end follows the begin by microseconds on the other CPU: the two sequences' clock
  // snapshots must agree that closely (tests/test_sdk_clock.c).
  uint64_t request = 77;
  TRACE_EVENT_BEGIN("rendering", "Request", perfetto::Track(request));
  std::thread worker([&] { TRACE_EVENT_END("rendering", perfetto::Track(request)); });
  worker.join();
  TRACE_EVENT_INSTANT("rendering", "OnNamed", perfetto::NamedTrack("Uploads"));
  TRACE_EVENT_INSTANT("rendering", "OnNamed", perfetto::NamedTrack("Uploads", 2));
  TRACE_EVENT_INSTANT("rendering", "OnThread", perfetto::ThreadTrack::Current());
  { TRACE_EVENT("rendering", "ScopedOnTrack", perfetto::Track(request + 1), "k", 1); }

  // Explicit timestamps (with a track, and alone), 1 ms ahead: a track's events must still
  // come in time order, and the SDK's TSC clock may differ from BOOTTIME by a microsecond.
  uint64_t now = perfetto::TrackEvent::GetTraceTimeNs();
  TRACE_EVENT_BEGIN("rendering", "Timed", perfetto::Track(99), now + 1000000);
  TRACE_EVENT_END("rendering", perfetto::Track(99), now + 2000000);
  TRACE_EVENT_INSTANT("rendering", "TimedInstant", perfetto::Track(100),
                      perfetto::TraceTimestamp{6, now + 1500000});

  // Flows: from a slice to one on another thread.
  { TRACE_EVENT("rendering", "FlowStart", perfetto::Flow::ProcessScoped(5)); }
  std::thread consumer(
      [] { TRACE_EVENT("rendering", "FlowEnd", perfetto::TerminatingFlow::ProcessScoped(5)); });
  consumer.join();

  session->StopBlocking();
  close(fd);
  return enabled && lambda_runs == 1 ? 0 : 1;
}
