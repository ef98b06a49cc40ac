// Startup tracing as Perfetto's SDK guide sets it up, written against <trak/perfetto.h>:
// SetupStartupTracingBlocking with a TraceConfig before any session exists, events during
// "startup" (a slice that ends after the session started included), then the session that
// adopts them; the trace goes to argv[1]. Exits 1 unless on_adopted ran and a second startup
// session, never adopted, reported on_aborted when aborted.
#include <fstream>
#include <memory>
#include <vector>

#include "trace_categories.h"

namespace {

perfetto::TraceConfig Config() {
  perfetto::TraceConfig cfg;
  cfg.add_buffers()->set_size_kb(1024);
  auto *ds = cfg.add_data_sources()->mutable_config();
  ds->set_name("track_event");
  perfetto::protos::gen::TrackEventConfig te;
  te.add_disabled_categories("*");
  te.add_enabled_categories("rendering");
  ds->set_track_event_config_raw(te.SerializeAsString());
  return cfg;
}

} // namespace

int main(int argc, char **argv) {
  perfetto::TracingInitArgs args;
  args.backends = perfetto::kInProcessBackend;
  perfetto::Tracing::Initialize(args);
  perfetto::TrackEvent::Register();

  bool adopted = false, setup = false;
  perfetto::Tracing::SetupStartupTracingOpts opts;
  opts.timeout_ms = 60000;
  opts.on_setup = [&](perfetto::Tracing::OnStartupTracingSetupCallbackArgs) { setup = true; };
  opts.on_adopted = [&] { adopted = true; };
  perfetto::Tracing::SetupStartupTracingBlocking(Config(), opts);

  TRACE_EVENT_BEGIN("rendering", "Startup");
  for (int i = 0; i < 3; i++)
    TRACE_EVENT("rendering", "LoadAsset", "index", i);
  TRACE_COUNTER("rendering", "AssetsLoaded", 3);
  TRACE_EVENT("io", "NotRecorded"); // outside the startup config

  auto session = perfetto::Tracing::NewTrace();
  session->Setup(Config());
  session->StartBlocking();
  TRACE_EVENT_END("rendering"); // "Startup" ends in the adopting session
  TRACE_EVENT_INSTANT("rendering", "Running");
  session->StopBlocking();
  std::vector<char> trace(session->ReadTraceBlocking());
  std::ofstream out(argc > 1 ? argv[1] : "startup.pftrace", std::ios::out | std::ios::binary);
  out.write(trace.data(), std::streamsize(trace.size()));

  // A startup session nobody adopts: Abort drops it and on_aborted runs.
  bool aborted = false;
  perfetto::Tracing::SetupStartupTracingOpts opts2;
  opts2.on_aborted = [&] { aborted = true; };
  auto never = perfetto::Tracing::SetupStartupTracingBlocking(Config(), opts2);
  TRACE_EVENT_INSTANT("rendering", "Dropped");
  never->AbortBlocking();
  return setup && adopted && aborted && !trace.empty() ? 0 : 1;
}
