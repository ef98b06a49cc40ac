// Typed fields inside an EventContext lambda for <trak/perfetto.h>: ctx.event() returns a
// perfetto::protos::pbzero::TrackEvent writer over the event being written, as in Perfetto
// (set_name, add_debug_annotations with typed values, add_flow_ids, add_terminating_flow_ids,
// and the generic AppendVarInt / AppendString / AppendBytes for any other field, extensions
// included). A nested message returned by add_*() stays valid until the next field of the
// event is written or the lambda returns, as with Perfetto's pbzero. Include <trak/perfetto.h>,
// not this file.
#ifndef TRAK_PERFETTO_PBZERO_H
#define TRAK_PERFETTO_PBZERO_H

#include <cstring>
#include <string>
#include <type_traits>

#include "trak/perfetto/traced_value.h"
#include "trak/trak.h"

namespace perfetto {
namespace protos {
namespace pbzero {

// The fields every message writer has: raw fields by number.
class Message {
public:
  explicit Message(trak_pb_buf *buf) : buf_(buf) {}
  virtual ~Message() = default;
  Message(const Message &) = delete;
  Message &operator=(const Message &) = delete;
  template <typename T> void AppendVarInt(uint32_t field, T value) {
    static_assert(std::is_integral<T>::value || std::is_enum<T>::value,
                  "perfetto (trak): AppendVarInt takes an integer or an enum");
    Prepare();
    trak_pb_put_varint(buf_, field, static_cast<uint64_t>(value));
  }
  void AppendString(uint32_t field, const char *s) { AppendBytes(field, s, std::strlen(s)); }
  void AppendString(uint32_t field, const std::string &s) {
    AppendBytes(field, s.data(), s.size());
  }
  void AppendBytes(uint32_t field, const void *data, size_t len) {
    Prepare();
    trak_pb_put_bytes(buf_, field, data, len);
  }

protected:
  virtual void Prepare() {} // ends an open child message before a field of this one
  trak_pb_buf *buf_;
};

// One DebugAnnotation: a name and one typed value.
class DebugAnnotation : public Message {
public:
  using Message::Message;
  void set_name(const char *n) { AppendString(TRAK_PB_DebugAnnotation_name, n); }
  void set_name(const std::string &n) { AppendString(TRAK_PB_DebugAnnotation_name, n); }
  void set_string_value(const char *v) { AppendString(TRAK_PB_DebugAnnotation_string_value, v); }
  void set_string_value(const std::string &v) {
    AppendString(TRAK_PB_DebugAnnotation_string_value, v);
  }
  void set_string_value(const char *v, size_t len) {
    AppendBytes(TRAK_PB_DebugAnnotation_string_value, v, len);
  }
  void set_int_value(int64_t v) { AppendVarInt(TRAK_PB_DebugAnnotation_int_value, v); }
  void set_uint_value(uint64_t v) { AppendVarInt(TRAK_PB_DebugAnnotation_uint_value, v); }
  void set_bool_value(bool v) { AppendVarInt(TRAK_PB_DebugAnnotation_bool_value, v ? 1 : 0); }
  void set_pointer_value(uint64_t v) { AppendVarInt(TRAK_PB_DebugAnnotation_pointer_value, v); }
  void set_double_value(double v) {
    Prepare();
    trak_pb_put_double(buf_, TRAK_PB_DebugAnnotation_double_value, v);
  }
  void set_legacy_json_value(const std::string &v) {
    AppendString(TRAK_PB_DebugAnnotation_legacy_json_value, v);
  }
  // A nested value (dictionary, array, any C++ value) written through TracedValue.
  template <typename T> void set_value(T &&value) {
    Prepare();
    WriteIntoTracedValue(TracedValue(buf_), std::forward<T>(value));
  }
};

// The TrackEvent being written: its typed fields. Owned by the EventContext.
class TrackEvent : public Message {
public:
  explicit TrackEvent(trak_pb_buf *buf) : Message(buf), child_(buf) {}
  ~TrackEvent() override { EndChild(); }
  void set_name(const char *n) { AppendString(TRAK_PB_TrackEvent_name, n); }
  void set_name(const std::string &n) { AppendString(TRAK_PB_TrackEvent_name, n); }
  void add_flow_ids(uint64_t id) { AppendVarInt(TRAK_PB_TrackEvent_flow_ids, id); }
  void add_terminating_flow_ids(uint64_t id) {
    AppendVarInt(TRAK_PB_TrackEvent_terminating_flow_ids, id);
  }
  void set_correlation_id(uint64_t id) { AppendVarInt(TRAK_PB_TrackEvent_correlation_id, id); }
  // A new debug annotation; valid until the next field of the event.
  DebugAnnotation *add_debug_annotations() {
    EndChild();
    token_ = trak_pb_begin_nested(buf_, TRAK_PB_TrackEvent_debug_annotations);
    open_ = true;
    return &child_;
  }
  // Ends the open child message, if any (also done before any other field is written).
  void EndChild() {
    if (open_) trak_pb_end_nested(buf_, token_);
    open_ = false;
  }

private:
  void Prepare() override { EndChild(); }
  DebugAnnotation child_; // writes into the same buffer; its own fields never end it

  trak_pb_nested token_ = 0;
  bool open_ = false;
};

} // namespace pbzero
} // namespace protos
} // namespace perfetto

#endif // TRAK_PERFETTO_PBZERO_H
