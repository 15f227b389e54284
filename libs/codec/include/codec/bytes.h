// SPDX-License-Identifier: Apache-2.0
#pragma once
// ByteWriter and ByteReader: the one byte codec under libhvd's control messages
// (control/message.cc), the store's frames (store/kv_protocol.cc) and hvd-train's checkpoints
// (trainer/src/checkpoint.cc). Each format keeps its own layout; this holds what they share:
// appending and bounds-checked reading of fields, in two byte orders.
//   - Host order (put/get): the control messages and the checkpoints. Every rank of a run is
//     the same build on the same kind of machine (little-endian wherever we build), so those
//     formats need only be unambiguous, not portable.
//   - Big-endian, 1 to 8 bytes wide (put_be/get_be): the store's frames, whose layout is
//     written down for other clients.
// A reader never reads past its end: when a field does not fit, it calls the format's own
// `on_short(what, need, left)`, which throws that format's error with its own message.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "hvd/error.h"

namespace hvd::codec {

/// Appends fields to `Bytes` (std::string or std::vector<char>). Not thread-safe.
template <typename Bytes = std::string>
class ByteWriter {
 public:
  /// A trivially copyable value, in host order.
  template <typename T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>, "put() copies the value's bytes");
    put_bytes(&v, sizeof(T));
  }
  void put_bytes(const void* p, size_t n) {
    const size_t at = bytes_.size();
    bytes_.resize(at + n);
    if (n > 0) std::memcpy(&bytes_[at], p, n);
  }
  /// A string as its length (uint32_t, host order) and its bytes.
  void put_string(std::string_view s) {
    put<uint32_t>(static_cast<uint32_t>(s.size()));
    put_bytes(s.data(), s.size());
  }
  /// A vector as its length (uint32_t, host order) and its elements.
  template <typename T>
  void put_vector(const std::vector<T>& v) {
    put<uint32_t>(static_cast<uint32_t>(v.size()));
    for (const T& x : v) put<T>(x);
  }
  /// The low `width` bytes of `value` (1 to 8), most significant first.
  void put_be(uint64_t value, int width) {
    for (int shift = 8 * (width - 1); shift >= 0; shift -= 8) {
      bytes_.push_back(static_cast<char>((value >> shift) & 0xFF));
    }
  }
  /// A string as its length (4 bytes, big-endian) and its bytes.
  void put_be_string(std::string_view s) {
    put_be(s.size(), 4);
    put_bytes(s.data(), s.size());
  }

  Bytes& bytes() { return bytes_; }
  Bytes take() { return std::move(bytes_); }

 private:
  Bytes bytes_;
};

/// Reads fields from a byte string it does not own, front to back. `OnShort` is called as
/// on_short(const char* what, size_t need, size_t left) when a field does not fit, and must
/// throw. Not thread-safe.
template <typename OnShort>
class ByteReader {
 public:
  ByteReader(std::string_view in, OnShort on_short) : in_(in), on_short_(std::move(on_short)) {}

  /// A trivially copyable value, in host order.
  template <typename T>
  T get(const char* what = "") {
    static_assert(std::is_trivially_copyable_v<T>, "get() copies the value's bytes");
    T v;
    get_bytes(&v, sizeof(T), what);
    return v;
  }
  void get_bytes(void* p, size_t n, const char* what = "") {
    need(n, what);
    if (n > 0) std::memcpy(p, in_.data() + pos_, n);
    pos_ += n;
  }
  /// `n` bytes as a string.
  std::string get_text(size_t n, const char* what = "") {
    need(n, what);
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  void skip(size_t n, const char* what = "") {
    need(n, what);
    pos_ += n;
  }
  /// What put_string() wrote.
  std::string get_string(const char* what = "") { return get_text(get<uint32_t>(what), what); }
  /// What put_vector() wrote; the whole vector must be there before any of it is allocated.
  template <typename T>
  std::vector<T> get_vector(const char* what = "") {
    const uint32_t n = get<uint32_t>(what);
    need(static_cast<size_t>(n) * sizeof(T), what);
    std::vector<T> v(n);
    for (T& x : v) x = get<T>(what);
    return v;
  }
  /// A count (uint32_t, host order) of items each at least `min_bytes` long; refuses counts the
  /// rest cannot hold, so that a corrupt input cannot make the caller allocate billions.
  uint32_t get_count(size_t min_bytes, const char* what = "") {
    const uint32_t n = get<uint32_t>(what);
    need(static_cast<size_t>(n) * min_bytes, what);
    return n;
  }
  /// What put_be() wrote.
  uint64_t get_be(int width, const char* what = "") {
    need(static_cast<size_t>(width), what);
    uint64_t value = 0;
    for (int i = 0; i < width; ++i) value = (value << 8) | static_cast<uint8_t>(in_[pos_++]);
    return value;
  }

  size_t left() const { return in_.size() - pos_; }
  bool done() const { return pos_ == in_.size(); }

 private:
  void need(size_t n, const char* what) {
    if (left() < n) {
      on_short_(what, n, left());
      HVD_CHECK(false, "a ByteReader's on_short returned instead of throwing");
    }
  }

  std::string_view in_;
  size_t pos_ = 0;
  OnShort on_short_;
};

}  // namespace hvd::codec
