// The shape of Perfetto's SDK getting-started program, written against <trak/perfetto.h>: init
// with the in-process backend, a TraceConfig enabling only "rendering", scoped and unscoped
// slices with an argument, a counter, instants, a named process, and the trace read back with
// ReadTraceBlocking into the file named by argv[1].
#include <fstream>
#include <memory>
#include <vector>

#include "trace_categories.h"

namespace {

void InitTracing() {
  perfetto::TracingInitArgs args;
  args.backends = perfetto::kInProcessBackend;
  perfetto::Tracing::Initialize(args);
  perfetto::TrackEvent::Register();
}

std::unique_ptr<perfetto::TracingSession> Begin() {
  perfetto::TraceConfig cfg;
  cfg.add_buffers()->set_size_kb(1024);
  auto *ds = cfg.add_data_sources()->mutable_config();
  ds->set_name("track_event");
  perfetto::protos::gen::TrackEventConfig te;
  te.add_disabled_categories("*");
  te.add_enabled_categories("rendering");
  ds->set_track_event_config_raw(te.SerializeAsString());
  auto session = perfetto::Tracing::NewTrace();
  session->Setup(cfg);
  session->StartBlocking();
  return session;
}

void Paint(int player) {
  TRACE_EVENT("rendering", "Paint", "player", player);
}

void Frame() {
  TRACE_EVENT_BEGIN("rendering", "Frame");
  Paint(1);
  Paint(2);
  TRACE_EVENT_END("rendering");
  TRACE_COUNTER("rendering", "FramesPerSecond", 60);
  TRACE_EVENT("io", "NotRecorded"); // "io" is disabled by the config
}

} // namespace

int main(int argc, char **argv) {
  InitTracing();
  auto session = Begin();
  auto process = perfetto::ProcessTrack::Current();
  perfetto::protos::gen::TrackDescriptor desc = process.Serialize();
  desc.mutable_process()->set_process_name("GettingStarted");
  perfetto::TrackEvent::SetTrackDescriptor(process, desc);

  TRACE_EVENT_INSTANT("rendering", "Start");
  Frame();
  Frame();
  TRACE_EVENT_INSTANT("rendering", "Stop");

  perfetto::TrackEvent::Flush();
  session->StopBlocking();
  std::vector<char> trace(session->ReadTraceBlocking());
  std::ofstream out(argc > 1 ? argv[1] : "example.pftrace", std::ios::out | std::ios::binary);
  out.write(trace.data(), std::streamsize(trace.size()));
  return trace.empty() ? 1 : 0;
}
