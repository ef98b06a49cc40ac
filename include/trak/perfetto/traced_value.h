// Perfetto-compatible debug annotation values for <trak/perfetto.h>: perfetto::TracedValue,
// TracedDictionary and TracedArray write one DebugAnnotation's value (scalars, dict_entries,
// array_values) into the event being written; WriteIntoTracedValue turns any supported C++ value
// into one (scalars, strings, pointers, enums, types with WriteIntoTrace or a TraceFormatTraits
// specialization, containers, smart pointers). Include <trak/perfetto.h>, not this file.
#ifndef TRAK_PERFETTO_TRACED_VALUE_H
#define TRAK_PERFETTO_TRACED_VALUE_H

#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "trak/trak.h"

namespace perfetto {

class TracedValue;
class TracedDictionary;
class TracedArray;

// Specialize for a type you cannot add a WriteIntoTrace method to:
//   template <> struct TraceFormatTraits<Point> {
//     static void WriteIntoTrace(TracedValue context, const Point& p); };
template <typename T, typename = void> struct TraceFormatTraits;

template <typename T> void WriteIntoTracedValue(TracedValue context, T &&value);

namespace trak_internal {
// An open nested message that ends when its owner goes away (move-only).
struct OpenMessage {
  trak_pb_buf *buf = nullptr;
  trak_pb_nested token = 0;
  bool open = false;
  OpenMessage() = default;
  OpenMessage(trak_pb_buf *b, uint32_t field)
      : buf(b), token(trak_pb_begin_nested(b, field)), open(true) {}
  OpenMessage(OpenMessage &&o) noexcept : buf(o.buf), token(o.token), open(o.open) {
    o.open = false;
  }
  OpenMessage &operator=(OpenMessage &&) = delete;
  ~OpenMessage() {
    if (open) trak_pb_end_nested(buf, token);
  }
};
} // namespace trak_internal

// The value of one debug annotation: write it once, with one of the Write* calls.
class TracedValue {
public:
  explicit TracedValue(trak_pb_buf *buf) : buf_(buf) {}
  TracedValue(TracedValue &&) = default;

  void WriteInt64(int64_t v) && { trak_pb_put_int64(buf_, TRAK_PB_DebugAnnotation_int_value, v); }
  void WriteUInt64(uint64_t v) && {
    trak_pb_put_varint(buf_, TRAK_PB_DebugAnnotation_uint_value, v);
  }
  void WriteDouble(double v) && {
    trak_pb_put_double(buf_, TRAK_PB_DebugAnnotation_double_value, v);
  }
  void WriteBoolean(bool v) && { trak_pb_put_bool(buf_, TRAK_PB_DebugAnnotation_bool_value, v); }
  void WriteString(const char *v) && {
    trak_pb_put_string(buf_, TRAK_PB_DebugAnnotation_string_value, v ? v : "NULL");
  }
  void WriteString(const char *v, size_t len) && {
    trak_pb_put_bytes(buf_, TRAK_PB_DebugAnnotation_string_value, v, len);
  }
  void WriteString(const std::string &v) && { std::move(*this).WriteString(v.data(), v.size()); }
  void WritePointer(const void *v) && {
    trak_pb_put_varint(buf_, TRAK_PB_DebugAnnotation_pointer_value, (uint64_t)(uintptr_t)v);
  }
  TracedDictionary WriteDictionary() &&;
  TracedArray WriteArray() &&;

private:
  friend class TracedDictionary;
  friend class TracedArray;
  TracedValue(trak_pb_buf *buf, trak_internal::OpenMessage msg) : buf_(buf), msg_(std::move(msg)) {}
  trak_pb_buf *buf_;
  trak_internal::OpenMessage msg_; // the dict entry or array item this value ends
};

// The entries of a dictionary value: each is a nested DebugAnnotation with a name.
class TracedDictionary {
public:
  explicit TracedDictionary(trak_pb_buf *buf) : buf_(buf) {}
  TracedDictionary(TracedDictionary &&) = default;
  // A value for `key`; it is complete when the returned object goes away.
  TracedValue AddItem(const char *key) {
    trak_internal::OpenMessage m(buf_, TRAK_PB_DebugAnnotation_dict_entries);
    trak_pb_put_string(buf_, TRAK_PB_DebugAnnotation_name, key);
    return TracedValue(buf_, std::move(m));
  }
  TracedValue AddItem(const std::string &key) { return AddItem(key.c_str()); }
  template <typename T> void Add(const char *key, T &&value) {
    WriteIntoTracedValue(AddItem(key), std::forward<T>(value));
  }
  template <typename T> void Add(const std::string &key, T &&value) {
    Add(key.c_str(), std::forward<T>(value));
  }
  TracedDictionary AddDictionary(const char *key);
  TracedArray AddArray(const char *key);

private:
  friend class TracedValue;
  TracedDictionary(trak_pb_buf *buf, trak_internal::OpenMessage msg)
      : buf_(buf), msg_(std::move(msg)) {}
  trak_pb_buf *buf_;
  trak_internal::OpenMessage msg_; // the entry holding this dictionary, ended after it
};

// The items of an array value: each is a nested DebugAnnotation without a name.
class TracedArray {
public:
  explicit TracedArray(trak_pb_buf *buf) : buf_(buf) {}
  TracedArray(TracedArray &&) = default;
  TracedValue AppendItem() {
    return TracedValue(buf_,
                       trak_internal::OpenMessage(buf_, TRAK_PB_DebugAnnotation_array_values));
  }
  template <typename T> void Append(T &&value) {
    WriteIntoTracedValue(AppendItem(), std::forward<T>(value));
  }
  TracedDictionary AppendDictionary() { return AppendItem().WriteDictionary(); }
  TracedArray AppendArray();

private:
  friend class TracedValue;
  TracedArray(trak_pb_buf *buf, trak_internal::OpenMessage msg) : buf_(buf), msg_(std::move(msg)) {}
  trak_pb_buf *buf_;
  trak_internal::OpenMessage msg_; // the entry holding this array, ended after it
};

// A dictionary or array keeps the entry that holds it open until it goes away (the entry's
// OpenMessage moves along with the value it was made for).
inline TracedDictionary TracedValue::WriteDictionary() && {
  return TracedDictionary(buf_, std::move(msg_));
}
inline TracedArray TracedValue::WriteArray() && {
  return TracedArray(buf_, std::move(msg_));
}
inline TracedDictionary TracedDictionary::AddDictionary(const char *key) {
  return AddItem(key).WriteDictionary();
}
inline TracedArray TracedDictionary::AddArray(const char *key) {
  return AddItem(key).WriteArray();
}
inline TracedArray TracedArray::AppendArray() {
  return AppendItem().WriteArray();
}

namespace trak_internal {
template <typename...> using void_t = void;
template <typename T, typename = void> struct HasWriteIntoTrace : std::false_type {};
template <typename T>
struct HasWriteIntoTrace<
    T, void_t<decltype(std::declval<const T &>().WriteIntoTrace(std::declval<TracedValue>()))>>
    : std::true_type {};
template <typename T, typename = void> struct HasTraits : std::false_type {};
template <typename T>
struct HasTraits<T, void_t<decltype(TraceFormatTraits<T>::WriteIntoTrace(
                        std::declval<TracedValue>(), std::declval<const T &>()))>>
    : std::true_type {};
template <typename T, typename = void> struct IsContainer : std::false_type {};
template <typename T>
struct IsContainer<T, void_t<decltype(std::begin(std::declval<const T &>())),
                             decltype(std::end(std::declval<const T &>()))>> : std::true_type {};
template <typename T, typename = void> struct IsMap : std::false_type {};
template <typename T>
struct IsMap<T, void_t<typename T::key_type, typename T::mapped_type>> : std::true_type {};
template <typename T> struct IsSmartPointer : std::false_type {};
template <typename T, typename D> struct IsSmartPointer<std::unique_ptr<T, D>> : std::true_type {};
template <typename T> struct IsSmartPointer<std::shared_ptr<T>> : std::true_type {};
template <typename T> struct DependentFalse : std::false_type {};
} // namespace trak_internal

// Writes `value` as the debug annotation value `context`.
template <typename T> void WriteIntoTracedValue(TracedValue context, T &&value) {
  using D = typename std::decay<T>::type;
  using namespace trak_internal;
  if constexpr (std::is_same<D, bool>::value) {
    std::move(context).WriteBoolean(value);
  } else if constexpr (std::is_enum<D>::value) {
    std::move(context).WriteInt64(static_cast<int64_t>(value));
  } else if constexpr (std::is_integral<D>::value && std::is_signed<D>::value) {
    std::move(context).WriteInt64(static_cast<int64_t>(value));
  } else if constexpr (std::is_integral<D>::value) {
    std::move(context).WriteUInt64(static_cast<uint64_t>(value));
  } else if constexpr (std::is_floating_point<D>::value) {
    std::move(context).WriteDouble(static_cast<double>(value));
  } else if constexpr (std::is_same<D, const char *>::value || std::is_same<D, char *>::value) {
    std::move(context).WriteString(value);
  } else if constexpr (std::is_same<D, std::string>::value ||
                       std::is_same<D, std::string_view>::value) {
    std::move(context).WriteString(value.data(), value.size());
  } else if constexpr (std::is_same<D, std::nullptr_t>::value) {
    std::move(context).WriteString("NULL");
  } else if constexpr (HasWriteIntoTrace<D>::value) {
    value.WriteIntoTrace(std::move(context));
  } else if constexpr (HasTraits<D>::value) {
    TraceFormatTraits<D>::WriteIntoTrace(std::move(context), value);
  } else if constexpr (IsSmartPointer<D>::value) {
    if (value)
      WriteIntoTracedValue(std::move(context), *value);
    else
      std::move(context).WriteString("NULL");
  } else if constexpr (std::is_pointer<D>::value) {
    std::move(context).WritePointer(static_cast<const void *>(value));
  } else if constexpr (IsMap<D>::value) {
    TracedDictionary dict = std::move(context).WriteDictionary();
    for (const auto &kv : value)
      dict.Add(kv.first, kv.second);
  } else if constexpr (IsContainer<D>::value) {
    TracedArray array = std::move(context).WriteArray();
    for (const auto &item : value)
      array.Append(item);
  } else {
    static_assert(DependentFalse<D>::value,
                  "perfetto (trak): this type cannot be a debug annotation; give it a "
                  "`void WriteIntoTrace(perfetto::TracedValue) const` method or specialize "
                  "perfetto::TraceFormatTraits");
  }
}

} // namespace perfetto

#endif // TRAK_PERFETTO_TRACED_VALUE_H
