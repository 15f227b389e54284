// SPDX-License-Identifier: Apache-2.0
#pragma once
// Builds timeline records (timeline_format.h) on the stack of the recording thread: no
// allocation, a header word and a zero-padded body, ready to be copied into a ring.

#include <cstring>
#include <string>
#include <string_view>

#include "timeline_merge/timeline_format.h"

namespace hvd::core::timeline_format {

/// The first word of every record.
inline uint64_t header_word(RecordKind kind, size_t words, uint32_t aux) {
  const RecordHeader h{kind, kRecordMarker, static_cast<uint16_t>(words), aux};
  uint64_t w;
  std::memcpy(&w, &h, sizeof(w));
  return w;
}

/// A record of at most kMaxWords words being built: a header word, then the body's bytes.
template <size_t kMaxWords>
class RecordBuilder {
 public:
  explicit RecordBuilder(RecordKind kind, uint32_t aux) : kind_(kind), aux_(aux) {}
  template <typename T>
  void put(const T& value) {
    std::memcpy(reinterpret_cast<char*>(words_ + 1) + bytes_, &value, sizeof(T));
    bytes_ += sizeof(T);
  }
  void put_bytes(const char* data, size_t n) {
    std::memcpy(reinterpret_cast<char*>(words_ + 1) + bytes_, data, n);
    bytes_ += n;
  }
  // The finished record: header filled in, padding zeroed.
  const uint64_t* words() {
    const size_t n = size();
    std::memset(reinterpret_cast<char*>(words_ + 1) + bytes_, 0, (n - 1) * 8 - bytes_);
    words_[0] = header_word(kind_, n, aux_);
    return words_;
  }
  size_t size() const { return record_words(bytes_); }

 private:
  RecordKind kind_;
  uint32_t aux_;
  size_t bytes_ = 0;
  uint64_t words_[kMaxWords];
};

/// A name record for `name` (cut to kMaxNameBytes), appended to `out`.
inline void encode_name(RecordKind kind, uint32_t id, std::string_view name, std::string& out) {
  const bool cut = name.size() > kMaxNameBytes;
  const std::string_view kept = name.substr(0, kMaxNameBytes);
  RecordBuilder<record_words(sizeof(NameBody) + kMaxNameBytes)> r(kind, id);
  r.put(NameBody{static_cast<uint32_t>(kept.size()), cut ? 1u : 0u});
  r.put_bytes(kept.data(), kept.size());
  out.append(reinterpret_cast<const char*>(r.words()), r.size() * kWordBytes);
}

}  // namespace hvd::core::timeline_format
