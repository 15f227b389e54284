// SPDX-License-Identifier: Apache-2.0
#pragma once
// Executor: carries out one planned Response on its tensors and completes their handles.
// Each response runs on the lane (backend + memory operations) of its tensors' device, picked
// by the LaneSelector: host tensors on the host backend with memcpy, CUDA tensors on NCCL with
// CUDA kernels. Fused allreduces go through the lane's persistent fusion buffer (copy in, one
// backend call, copy out), except on a backend that reduces the tensors where they lie (the
// ring: Backend::reduces_pieces()); kAverage is a sum followed by a division by the number of
// ranks, after Horovod; pre- and post-scale factors are applied around the reduction.

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/lane.h"
#include "backends/memory_ops.h"
#include "control/message.h"
#include "core/lane_selector.h"
#include "core/tensor_queue.h"
#include "timeline/timeline.h"

namespace hvd::core {

class Executor {
 public:
  Executor(LaneSelector& lanes, int rank, int size) : lanes_(lanes), rank_(rank), size_(size) {}

  /// Runs `response` on `entries` (in the response's names order) and completes every handle:
  /// with an error Status for an error response or for tensors no lane of this build can take
  /// (a CUDA tensor without the GPU backend), which leaves the other tensors running. A backend
  /// failure is thrown after failing these handles, so that the loop can stop.
  /// `group`: the response's tensors on the timeline (TimelineWriter::group()), recorded once
  /// per response by the caller; made here from the entries when not given.
  /// `entries` stay with the caller (completed), which reuses the vector.
  void run(const control::Response& response, std::vector<TensorEntry>& entries,
           TimelineGroup group = {});

  /// A small cached allreduce riding on the cache vote (control/vote_fold.h): writes this
  /// rank's contribution, `input` prescaled, to `dst`, as run() would reduce it. False when the
  /// tensor cannot ride there: not in host memory, or not one the host lane takes (whose
  /// error run() then reports).
  bool fold_input(const control::Response& r, const BufferView& input, void* dst);
  /// Completes a folded tensor (one entry) from `reduced`, the vote's result: copied to the
  /// output, then averaged and postscaled as run() does.
  void complete_folded(const control::Response& r, const std::vector<TensorEntry>& entries,
                       const void* reduced);

  /// Records the fusion copies and backend calls of every tensor on `timeline` (may be null).
  void set_timeline(TimelineWriter* timeline) { timeline_ = timeline; }

 private:
  void run_on(backends::Lane& lane, const control::Response& r, std::vector<TensorEntry>& entries);
  void allreduce(backends::Lane& lane, const control::Response& r,
                 std::vector<TensorEntry>& entries);
  // op=Adasum: one contiguous buffer with each tensor's bounds (Backend::adasum()).
  void adasum(backends::Lane& lane, const control::Response& r, std::vector<TensorEntry>& entries);
  void allreduce_pieces(backends::Lane& lane, const control::Response& r,
                        std::vector<TensorEntry>& entries);
  void allreduce_fused(backends::Lane& lane, const control::Response& r,
                       std::vector<TensorEntry>& entries);
  void run_other(backends::Lane& lane, const control::Response& r,
                 std::vector<TensorEntry>& entries);
  void allgather(backends::Lane& lane, const control::Response& r, TensorEntry& entry);
  void reducescatter(backends::Lane& lane, const control::Response& r, TensorEntry& entry);
  void alltoall(backends::Lane& lane, const control::Response& r, TensorEntry& entry);
  // Runs `step` as `phase` on the timeline track of every entry.
  template <typename Step>
  void phase(const std::vector<TensorEntry>& entries, std::string_view phase, Step step);
  // Copies the entries into the fusion buffer (each tensor starting at a multiple of
  // `alignment` bytes), calls reduce(the fused view), and copies the results back out.
  template <typename Reduce>
  void through_fusion_buffer(backends::Lane& lane, const control::Response& r,
                             const std::vector<TensorEntry>& entries, size_t alignment,
                             Reduce reduce);
  const std::string& op_phase(const backends::Backend& backend, control::OpType type);
  void scale_before(backends::Lane& lane, const control::Response& r, BufferView buf);
  void scale_after(backends::Lane& lane, const control::Response& r, BufferView buf);

  LaneSelector& lanes_;
  int rank_;
  int size_;
  TimelineWriter* timeline_ = nullptr;
  TimelineGroup group_;  // the running response's tensors on timeline_
  // "RING/SHM_ALLREDUCE", "NCCL_ALLREDUCE": built once per backend and operation.
  std::map<std::pair<const backends::Backend*, control::OpType>, std::string> op_phases_;
  // A fused response's per-tensor lists, kept for their memory: fresh ones of hundreds of
  // tensors per response are large allocations, and each makes malloc consolidate its bins.
  std::vector<size_t> sizes_;
  std::vector<BufferView> inputs_, outputs_;
  std::vector<backends::CopySegment> apart_;
};

}  // namespace hvd::core
