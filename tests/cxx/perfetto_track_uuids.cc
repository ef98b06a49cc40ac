// The track uuids of <trak/perfetto.h> and of trak's C API are the ones Perfetto's SDK computes
// for the same tracks, so that traces of both SDKs agree: named and counter tracks (FNV-1a 64 of
// the name xor the kind's magic xor the parent's uuid; the expected values were computed
// independently from that definition), the process track (FNV-1a of the process start time and
// the pid) and thread tracks (tid xor the process's uuid). Exits 1 with the failed check.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trace_categories.h"

namespace {

int failures = 0;

void check(bool ok, const char *what, uint64_t got, uint64_t want) {
  if (ok) return;
  std::fprintf(stderr, "FAIL: %s: got 0x%016llx, want 0x%016llx\n", what,
               static_cast<unsigned long long>(got), static_cast<unsigned long long>(want));
  failures++;
}
#define CHECK_EQ(got, want) check((got) == (want), #got, (got), (want))

// Field 22 of /proc/self/stat (the process start time in clock ticks).
uint64_t StartTime() {
  char buf[1024] = {0};
  int fd = open("/proc/self/stat", O_RDONLY);
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  const char *p = std::strrchr(buf, ')') + 2; // field 3
  for (int field = 3; field < 22; field++)
    p = std::strchr(p, ' ') + 1;
  return std::strtoull(p, nullptr, 10);
}

uint64_t Fnv1aBytes(const unsigned char *b, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

} // namespace

int main() {
  perfetto::TracingInitArgs args;
  args.backends = perfetto::kInProcessBackend;
  perfetto::Tracing::Initialize(args);

  // Global tracks: fixed values, the same in every process.
  CHECK_EQ(perfetto::NamedTrack::Global("gpu").uuid, 0x187448dd10328af1ull);
  CHECK_EQ(perfetto::NamedTrack::Global("gpu", 3).uuid, 0x187448dd10328af2ull);
  CHECK_EQ(perfetto::NamedTrack::Global(perfetto::DynamicString{std::string("gpu")}).uuid,
           0x187448dd10328af1ull);
  CHECK_EQ(perfetto::NamedTrack::Global("gpu").parent_uuid, 0ull);
  CHECK_EQ(perfetto::CounterTrack::Global("mem").uuid, 0xb9b9e2646e09c4a0ull);

  // The process track: FNV-1a over the start time (8 bytes) and the pid (4 bytes).
  uint64_t start = StartTime();
  int32_t pid = getpid();
  unsigned char bytes[12];
  std::memcpy(bytes, &start, 8);
  std::memcpy(bytes + 8, &pid, 4);
  uint64_t process = perfetto::ProcessTrack::Current().uuid;
  CHECK_EQ(process, Fnv1aBytes(bytes, sizeof bytes));
  CHECK_EQ(trak_track_process(), process);

  // Tracks under the process and the thread.
  uint64_t tid = static_cast<uint64_t>(syscall(SYS_gettid));
  CHECK_EQ(perfetto::ThreadTrack::Current().uuid, tid ^ process);
  CHECK_EQ(trak_track_thread(), tid ^ process);
  CHECK_EQ(perfetto::NamedTrack("gpu").uuid, 0x187448dd10328af1ull ^ process);
  CHECK_EQ(perfetto::NamedTrack("gpu").parent_uuid, process);
  CHECK_EQ(perfetto::NamedTrack::ThreadScoped("gpu").uuid, 0x187448dd10328af1ull ^ tid ^ process);
  CHECK_EQ(perfetto::CounterTrack("mem").uuid, 0xb9b9e2646e09c4a0ull ^ process);
  CHECK_EQ(perfetto::Track(42).uuid, 42 ^ process);

  // trak's C API names the same tracks: a C program and a C++ one agree.
  CHECK_EQ(trak_track_uuid("gpu", 0), perfetto::NamedTrack("gpu").uuid);
  CHECK_EQ(trak_track_counter_uuid("mem", 0), perfetto::CounterTrack("mem").uuid);
  CHECK_EQ(trak_track_counter("mem", TRAK_UNIT_COUNT, 0), perfetto::CounterTrack("mem").uuid);
  trak_track cache = 0; // TRAK_COUNTER(cat, "mem", v) and TRACE_COUNTER(cat, "mem", v)'s track
  CHECK_EQ(trak_track_counter_cached("mem", &cache), perfetto::CounterTrack("mem").uuid);
  return failures ? 1 : 0;
}
