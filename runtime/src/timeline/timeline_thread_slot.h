// SPDX-License-Identifier: Apache-2.0
#pragma once
// One recording thread's part of a TimelineWriter: its ring of records and its copies of the
// writer's name tables. Private to the timeline: timeline.cc records through it and
// timeline_drain.cc drains it.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "timeline/timeline.h"
#include "timeline/timeline_ring.h"

namespace hvd::core {

struct TimelineWriter::ThreadSlot {
  ThreadSlot(size_t words, uint16_t thread_number) : ring(words), number(thread_number) {}
  TimelineRing ring;
  // This thread's number in the file (TensorMetaBody::thread); 0: it records no args.
  const uint16_t number;
  std::thread::id owner = std::this_thread::get_id();
  std::atomic<uint64_t> dropped{0};
  // This thread's copies of the writer's name tables, read without a lock. The keys point
  // into the writer's tables, whose strings never move.
  std::unordered_map<std::string_view, uint32_t> tensor_ids;
  std::unordered_map<std::string_view, uint32_t> name_ids;
  std::string_view last_name;  // the name name_id() found last, and its id
  uint32_t last_name_id = 0;

  // What this thread knows of a tensor, by tensor id (an empty name: nothing yet).
  struct Known {
    std::string_view name;
    uint32_t next = 0;  // id + 1 of the tensor that followed it in this thread's last group
    uint32_t meta = 0;  // index + 1 in metas of the args this thread wrote for it last
  };
  std::vector<Known> known;
  uint32_t first = 0;  // id + 1 of the tensor that began this thread's last group
  std::vector<TimelineTensorMeta> metas;

  // The group being built (TimelineGroupBuilder), and the id + 1 of its last tensor.
  std::vector<uint32_t> building;
  uint32_t building_last = 0;
  // Groups this thread recorded lately: a training loop makes the same ones every step.
  struct RecentGroup {
    std::vector<uint32_t> tensors;
    uint32_t id = 0;
  };
  std::array<RecentGroup, 4> recent;
  size_t next_recent = 0;  // the one to replace next
};

}  // namespace hvd::core
