// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reads a per-rank timeline file (timeline_format.h) back into names, groups and events, for
// the merge. The input is whatever a rank left behind, possibly killed mid-write or damaged:
// decoding keeps every complete record up to the first torn or invalid one and says where it
// stopped; it never trusts an id or a length it has not checked.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "timeline_merge/timeline_format.h"

namespace hvd::core {

/// One event as recorded. A group event is expanded by the Chrome writer, except one with
/// args (EventBody::args_from), which arrives here as one event per tensor, each with its own.
struct DecodedEvent {
  int64_t ts_ns = 0;
  char ph = 'i';
  timeline_format::Subject subject = timeline_format::Subject::kMarks;
  uint32_t subject_id = 0;
  uint32_t name = 0;
  int32_t meta = -1;  // index into DecodedTimeline::metas, or -1
};

struct DecodedMeta {
  uint8_t dtype = 0;
  bool has_shape = false;
  uint64_t num_elements = 0;
  std::vector<int64_t> dims;
};

struct DecodedDrop {
  int64_t ts_ns = 0;
  uint64_t total = 0;
};

struct DecodedTimeline {
  enum class End { kComplete, kTorn, kInvalid };
  uint32_t rank = 0;
  std::unordered_map<uint32_t, std::string> tensors;           // by tensor id (its track is id + 1)
  std::unordered_map<uint32_t, std::string> names;             // phases and marks, by name id
  std::unordered_map<uint32_t, std::vector<uint32_t>> groups;  // tensor ids, by group id
  std::vector<DecodedEvent> events;                            // in file order
  std::vector<DecodedMeta> metas;
  std::vector<DecodedDrop> drops;
  End end = End::kComplete;
  /// For kTorn and kInvalid: what was found, and at which byte offset.
  std::string problem;
};

/// Decodes `bytes`, the whole content of a rank's file. Throws ConfigError when they do not
/// start with a timeline file header (not a timeline, or another format version); past the
/// header, damage ends the decoding (see DecodedTimeline::end) instead of throwing.
DecodedTimeline decode_timeline(std::string_view bytes);

}  // namespace hvd::core
