// The SDK's public headers used from C++: every event macro and option compiles with a C++
// compiler, debug arguments pick their type by overloading, and the events reach the trace.
// Exits non-zero on failure.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "trak/trak.h"

TRAK_CATEGORY_DEFINE(cat_cxx, "cxx", "C++ events", "custom");
TRAK_CATEGORY_GROUP_DEFINE(cat_cxx_group, "cxx,other");

static void extra(trak_event_ctx *ctx, void *user) {
  trak_pb_put_varint(trak_event_buf(ctx), 1001, *static_cast<int *>(user));
}

static int check(bool ok, const char *what) {
  if (!ok) std::fprintf(stderr, "test_sdk_cxx: %s\n", what);
  return ok ? 0 : 1;
}

// Counts occurrences of `needle` in the trace bytes (names are written once per sequence).
static int count(const uint8_t *data, size_t len, const char *needle) {
  int n = 0;
  size_t k = std::strlen(needle);
  for (size_t i = 0; i + k <= len; i++)
    n += std::memcmp(data + i, needle, k) == 0;
  return n;
}

int main() {
  trak_session_config cfg;
  std::memset(&cfg, 0, sizeof cfg);
  trak_session *s = nullptr;
  trak_error err;
  if (trak_session_new(&cfg, &s, &err) != 0 || trak_session_start(s, &err) != 0) {
    std::fprintf(stderr, "test_sdk_cxx: %s\n", err.message);
    return 1;
  }
  int failures = check(TRAK_CATEGORY_ENABLED(cat_cxx), "category enabled");
  int value = 7;
  trak_track counter = trak_track_counter("cxx counter", TRAK_UNIT_COUNT, 0);
  trak_track custom = trak_track_named("cxx track", 0);
  {
    TRAK_EVENT(cat_cxx, "cxx_scoped", TRAK_ARG("b", true), TRAK_ARG("i", -1), TRAK_ARG("u", 2u),
               TRAK_ARG("l", 3L), TRAK_ARG("ull", 4ULL), TRAK_ARG("d", 0.5), TRAK_ARG("s", "str"),
               TRAK_ARG("p", static_cast<void *>(&value)));
    TRAK_EVENT_INSTANT(cat_cxx, "cxx_instant", TRAK_FLOW(1), TRAK_CALLBACK(extra, &value));
    TRAK_EVENT_BEGIN(cat_cxx, "cxx_begin", TRAK_TRACK(custom), TRAK_TIMESTAMP(trak_clock_now()));
    TRAK_EVENT_END(cat_cxx, TRAK_TRACK(custom), TRAK_TERMINATING_FLOW(1));
    TRAK_COUNTER(cat_cxx, counter, 42);
    TRAK_COUNTER(cat_cxx, counter, 4.5);
    // std::string arguments (temporaries too), a lambda where TRAK_CALLBACK takes a function,
    // a counter by name and nested arguments.
    std::string who = "cxx_string_value";
    int lambda_calls = 0;
    TRAK_EVENT_INSTANT(cat_cxx, "cxx_strings", TRAK_ARG("who", who),
                       TRAK_ARG("tmp", std::string("cxx_temporary_value")),
                       TRAK_CALLBACK([&](trak_event_ctx *ctx) {
                         lambda_calls++;
                         trak_pb_put_string(trak_event_buf(ctx), 1002, "cxx_lambda_field");
                       }));
    TRAK_COUNTER(cat_cxx, "cxx named counter", 3);
    TRAK_EVENT_INSTANT(cat_cxx, "cxx_nested",
                       TRAK_ARG_DICT("cxx_dict", TRAK_ARG("k", 1), TRAK_ARG("s", who)),
                       TRAK_ARG_ARRAY("cxx_array", TRAK_VALUE(1.5), TRAK_VALUE("v")));
    failures += check(lambda_calls == 1, "the lambda runs once");
    const char *dyn = "cxx_dynamic";
    TRAK_EVENT_DYNAMIC(cat_cxx_group, dyn);
    TRAK_EVENT_INSTANT_DYNAMIC(cat_cxx, dyn);
  }
  trak_session_stop(s, nullptr);
  uint8_t *data = nullptr;
  size_t len = 0;
  failures += check(trak_session_read(s, &data, &len, &err) == 0, "read");
  static const char *const names[] = {"cxx_scoped",
                                      "cxx_instant",
                                      "cxx_begin",
                                      "cxx_dynamic",
                                      "cxx track",
                                      "cxx_string_value",
                                      "cxx_temporary_value",
                                      "cxx_lambda_field",
                                      "cxx named counter",
                                      "cxx_dict",
                                      "cxx_array"};
  for (const char *name : names)
    failures += check(count(data, len, name) >= 1, name);
  trak_session_stats st;
  trak_session_get_stats(s, &st);
  failures += check(st.packets_written >= 10 && st.packets_lost == 0, "stats");
  std::free(data);
  trak_session_free(s);
  return failures ? 1 : 0;
}
