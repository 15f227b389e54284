// SPDX-License-Identifier: Apache-2.0
#pragma once
// Executor: carries out one planned Response on its tensors and completes their handles.
// Fused allreduces go through one persistent fusion buffer (copy in, one backend call, copy
// out); kAverage is a sum followed by a division by the number of ranks, after Horovod; pre-
// and post-scale factors are applied around the reduction.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"
#include "control/message.h"
#include "core/tensor_queue.h"
#include "core/timeline.h"

namespace hvd::core {

class Executor {
 public:
  Executor(backends::Backend& backend, int rank, int size)
      : backend_(backend), rank_(rank), size_(size) {}

  /// Runs `response` on `entries` (in the response's names order) and completes every handle:
  /// with an error Status for an error response or a tensor this build cannot handle. A
  /// backend failure is thrown after failing these handles, so that the loop can stop.
  void run(const control::Response& response, std::vector<TensorEntry> entries);

  /// Records the fusion copies and backend calls of every tensor on `timeline` (may be null).
  void set_timeline(TimelineWriter* timeline) { timeline_ = timeline; }

  /// Bytes the fusion buffer holds now (it grows to the largest fused response and stays).
  size_t fusion_buffer_bytes() const { return fusion_.size(); }

 private:
  void allreduce(const control::Response& r, std::vector<TensorEntry>& entries);
  void run_other(const control::Response& r, std::vector<TensorEntry>& entries);
  void allreduce_fused(const control::Response& r, std::vector<TensorEntry>& entries);
  void allgather(const control::Response& r, TensorEntry& entry);
  void reducescatter(const control::Response& r, TensorEntry& entry);
  void alltoall(TensorEntry& entry);
  // Runs `step` as `phase` on the timeline track of every entry.
  template <typename Step>
  void phase(const std::vector<TensorEntry>& entries, std::string_view phase, Step step);
  const std::string& op_phase(control::OpType type);
  void scale_before(const control::Response& r, BufferView buf);
  void scale_after(const control::Response& r, BufferView buf);

  backends::Backend& backend_;
  int rank_;
  int size_;
  std::vector<char> fusion_;
  TimelineWriter* timeline_ = nullptr;
  std::map<control::OpType, std::string> op_phases_;  // "RING/SHM_ALLREDUCE", built once
};

}  // namespace hvd::core
