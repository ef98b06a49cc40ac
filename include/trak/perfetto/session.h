// Perfetto-compatible tracing setup for <trak/perfetto.h>: perfetto::Tracing::Initialize with
// TracingInitArgs, perfetto::TraceConfig and protos::gen::TrackEventConfig (serialized as real
// TraceConfig bytes), and perfetto::TracingSession (Setup, Start, Stop, ReadTraceBlocking) on
// trak's in-process sessions; Tracing::SetupStartupTracing (startup tracing). Include <trak/perfetto.h>, not this file.
#ifndef TRAK_PERFETTO_SESSION_H
#define TRAK_PERFETTO_SESSION_H

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include "trak/trak.h"

namespace perfetto {

namespace trak_internal {
// Protobuf encoding of the few config messages (field numbers from trak/protos.h).
inline void PutVarint(std::string &out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
inline void PutVarintField(std::string &out, uint32_t field, uint64_t v) {
  PutVarint(out, (uint64_t)field << 3);
  PutVarint(out, v);
}
inline void PutBytesField(std::string &out, uint32_t field, const std::string &bytes) {
  PutVarint(out, ((uint64_t)field << 3) | 2);
  PutVarint(out, bytes.size());
  out += bytes;
}
} // namespace trak_internal

enum BackendType : uint32_t {
  kUnspecifiedBackend = 0,
  kInProcessBackend = 1 << 0,
  kSystemBackend = 1 << 1,
  kCustomBackend = 1 << 2,
};

struct TracingInitArgs {
  uint32_t backends = 0;           // kInProcessBackend and/or kSystemBackend
  uint32_t shmem_size_hint_kb = 0; // accepted, not used
  uint32_t shmem_page_size_hint_kb = 0;
  bool enable_system_consumer = true;
};

namespace protos {
namespace gen {
// TrackEventConfig: the category globs a session enables and disables.
class TrackEventConfig {
public:
  void add_enabled_categories(const std::string &c) { enabled_categories_.push_back(c); }
  void add_disabled_categories(const std::string &c) { disabled_categories_.push_back(c); }
  void add_enabled_tags(const std::string &t) { enabled_tags_.push_back(t); }
  void add_disabled_tags(const std::string &t) { disabled_tags_.push_back(t); }
  std::string SerializeAsString() const {
    std::string out;
    for (const std::string &c : disabled_categories_)
      trak_internal::PutBytesField(out, TRAK_PB_TrackEventConfig_disabled_categories, c);
    for (const std::string &c : enabled_categories_)
      trak_internal::PutBytesField(out, TRAK_PB_TrackEventConfig_enabled_categories, c);
    for (const std::string &t : disabled_tags_)
      trak_internal::PutBytesField(out, TRAK_PB_TrackEventConfig_disabled_tags, t);
    for (const std::string &t : enabled_tags_)
      trak_internal::PutBytesField(out, TRAK_PB_TrackEventConfig_enabled_tags, t);
    return out;
  }

private:
  std::vector<std::string> enabled_categories_, disabled_categories_, enabled_tags_, disabled_tags_;
};
} // namespace gen
} // namespace protos

class DataSourceConfig {
public:
  void set_name(const std::string &name) { name_ = name; }
  const std::string &name() const { return name_; }
  void set_track_event_config_raw(const std::string &raw) { track_event_config_raw_ = raw; }
  std::string SerializeAsString() const {
    std::string out;
    trak_internal::PutBytesField(out, TRAK_PB_DataSourceConfig_name, name_);
    if (!track_event_config_raw_.empty())
      trak_internal::PutBytesField(out, TRAK_PB_DataSourceConfig_track_event_config,
                                   track_event_config_raw_);
    return out;
  }

private:
  std::string name_, track_event_config_raw_;
};

class TraceConfig {
public:
  class BufferConfig {
  public:
    enum FillPolicy { UNSPECIFIED = 0, RING_BUFFER = 1, DISCARD = 2 };
    void set_size_kb(uint32_t kb) { size_kb_ = kb; }
    void set_fill_policy(FillPolicy p) { fill_policy_ = p; }
    std::string SerializeAsString() const {
      std::string out;
      trak_internal::PutVarintField(out, TRAK_PB_TraceConfig_BufferConfig_size_kb, size_kb_);
      if (fill_policy_)
        trak_internal::PutVarintField(out, TRAK_PB_TraceConfig_BufferConfig_fill_policy,
                                      fill_policy_);
      return out;
    }

  private:
    uint32_t size_kb_ = 0;
    FillPolicy fill_policy_ = UNSPECIFIED;
  };
  class DataSource {
  public:
    DataSourceConfig *mutable_config() { return &config_; }
    const DataSourceConfig &config() const { return config_; }

  private:
    DataSourceConfig config_;
  };

  // Pointers stay valid while the config lives (std::unique_ptr elements).
  BufferConfig *add_buffers() {
    buffers_.emplace_back(new BufferConfig());
    return buffers_.back().get();
  }
  DataSource *add_data_sources() {
    data_sources_.emplace_back(new DataSource());
    return data_sources_.back().get();
  }
  void set_duration_ms(uint32_t ms) { duration_ms_ = ms; }
  uint32_t duration_ms() const { return duration_ms_; }
  std::string SerializeAsString() const {
    std::string out;
    for (const auto &b : buffers_)
      trak_internal::PutBytesField(out, TRAK_PB_TraceConfig_buffers, b->SerializeAsString());
    for (const auto &d : data_sources_) {
      std::string ds;
      trak_internal::PutBytesField(ds, TRAK_PB_TraceConfig_DataSource_config,
                                   d->config().SerializeAsString());
      trak_internal::PutBytesField(out, TRAK_PB_TraceConfig_data_sources, ds);
    }
    if (duration_ms_)
      trak_internal::PutVarintField(out, TRAK_PB_TraceConfig_duration_ms, duration_ms_);
    return out;
  }

private:
  std::vector<std::unique_ptr<BufferConfig>> buffers_;
  std::vector<std::unique_ptr<DataSource>> data_sources_;
  uint32_t duration_ms_ = 0;
};

// One tracing session of the in-process backend. Errors are printed on stderr (Perfetto logs
// them too); a session that failed to set up records nothing and reads as an empty trace.
class TracingSession {
public:
  TracingSession() = default;
  TracingSession(const TracingSession &) = delete;
  TracingSession &operator=(const TracingSession &) = delete;
  ~TracingSession() { trak_session_free(session_); }

  // With a file descriptor, the trace is written to it when the session stops.
  void Setup(const TraceConfig &cfg, int fd = -1) {
    std::string bytes = cfg.SerializeAsString();
    trak_error err;
    if (trak_session_new_from_proto(bytes.data(), bytes.size(), &session_, &err) != 0) {
      std::fprintf(stderr, "perfetto (trak): TracingSession::Setup: %s\n", err.message);
      session_ = nullptr;
    }
    fd_ = fd;
  }
  void Start() { StartBlocking(); }
  void StartBlocking() {
    trak_error err;
    if (session_ && trak_session_start(session_, &err) != 0)
      std::fprintf(stderr, "perfetto (trak): TracingSession::Start: %s\n", err.message);
  }
  void FlushBlocking(uint32_t timeout_ms = 0) {
    (void)timeout_ms;
    if (session_) trak_session_flush(session_, nullptr);
  }
  void Stop() { StopBlocking(); }
  void StopBlocking() {
    if (!session_) return;
    trak_session_stop(session_, nullptr);
    if (fd_ >= 0) {
      std::vector<char> data = ReadTraceBlocking();
      size_t done = 0;
      while (done < data.size()) {
        ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
    }
  }
  // The trace recorded so far (each byte is returned once).
  std::vector<char> ReadTraceBlocking() {
    std::vector<char> out;
    uint8_t *data = nullptr;
    size_t len = 0;
    if (session_ && trak_session_read(session_, &data, &len, nullptr) == 0) {
      out.assign(reinterpret_cast<char *>(data), reinterpret_cast<char *>(data) + len);
      std::free(data);
    }
    return out;
  }
  // trak's session, for trak's own calls (stats, write_file).
  trak_session *trak_handle() { return session_; }

private:
  trak_session *session_ = nullptr;
  int fd_ = -1;
};

// The handle of a startup tracing session (Tracing::SetupStartupTracing).
class StartupTracingSession {
public:
  virtual ~StartupTracingSession() = default;
  // Drops what the startup session recorded (counted in trak_startup_tracing_get_stats).
  void Abort() { trak_startup_tracing_abort(); }
  void AbortBlocking() { trak_startup_tracing_abort(); }
};

class Tracing {
public:
  struct OnStartupTracingSetupCallbackArgs {
    int num_data_sources_started;
  };
  // Perfetto's options: the timeout and callbacks (run on the adopting, timer or aborting
  // thread). Unlike Perfetto's, trak's startup tracing also works with the in-process
  // backend: the first session started with track events adopts the data.
  struct SetupStartupTracingOpts {
    BackendType backend = kUnspecifiedBackend;
    uint32_t timeout_ms = 10000;
    std::function<void(OnStartupTracingSetupCallbackArgs)> on_setup;
    std::function<void()> on_aborted;
    std::function<void()> on_adopted;
  };
  // Records the categories `config` enables into a buffer of its size until a session
  // starts (which adopts the data) or the timeout passes (the data is dropped, counted).
  // Errors are printed on stderr; the returned handle is valid either way.
  static std::unique_ptr<StartupTracingSession>
  SetupStartupTracingBlocking(const TraceConfig &config, SetupStartupTracingOpts opts) {
    struct Callbacks {
      std::function<void()> on_aborted, on_adopted;
    };
    std::string bytes = config.SerializeAsString();
    trak_session *s = nullptr;
    trak_error err;
    trak_startup_opts o = {};
    o.timeout_ms = opts.timeout_ms;
    Callbacks *cb = new Callbacks{opts.on_aborted, opts.on_adopted};
    o.on_end = [](int outcome, void *user) {
      Callbacks *c = static_cast<Callbacks *>(user);
      if (outcome == TRAK_STARTUP_ADOPTED && c->on_adopted) c->on_adopted();
      if (outcome != TRAK_STARTUP_ADOPTED && c->on_aborted) c->on_aborted();
      delete c;
    };
    o.user = cb;
    if (trak_session_new_from_proto(bytes.data(), bytes.size(), &s, &err) != 0 ||
        trak_startup_tracing_begin(s, &o, &err) != 0) {
      std::fprintf(stderr, "perfetto (trak): SetupStartupTracing: %s\n", err.message);
      delete cb;
    } else if (opts.on_setup) {
      opts.on_setup(OnStartupTracingSetupCallbackArgs{1});
    }
    return std::unique_ptr<StartupTracingSession>(new StartupTracingSession());
  }
  static std::unique_ptr<StartupTracingSession> SetupStartupTracing(const TraceConfig &config,
                                                                    SetupStartupTracingOpts opts) {
    return SetupStartupTracingBlocking(config, std::move(opts));
  }
  // Initializes the SDK; with kSystemBackend, connects to trak's daemon (its default socket)
  // when it runs.
  static void Initialize(const TracingInitArgs &args) {
    trak_init();
    if (args.backends & kSystemBackend) trak_system_connect(nullptr);
  }
  static bool IsInitialized() { return true; }
  // A new session of the in-process backend (trak records the system backend's sessions through
  // its daemon: `trak record`).
  static std::unique_ptr<TracingSession> NewTrace(BackendType backend = kUnspecifiedBackend) {
    (void)backend;
    return std::unique_ptr<TracingSession>(new TracingSession());
  }
};

} // namespace perfetto

#endif // TRAK_PERFETTO_SESSION_H
