// SPDX-License-Identifier: Apache-2.0
#pragma once
// GradientExchange: sums each layer's gradient over the ranks, started as soon as backward
// has produced it (Horovod's DistributedOptimizer hooks), finished before the optimizer step.

#include <string>
#include <vector>

#include "hvd/hvd.h"
#include "mlp.h"

namespace hvd::train {

class GradientExchange {
 public:
  /// bucket_bytes = 0: one allreduce per layer, as Horovod does. Larger: adjacent layers are
  /// allreduced together, as one tensor of at least bucket_bytes (DistributedDataParallel's
  /// buckets): fewer collectives per step, each starting later.
  GradientExchange(Mlp& model, size_t bucket_bytes);
  /// Call as soon as layer l's gradient is final (last layer first). Enqueues the allreduce
  /// (sum) of the bucket that layer l closes, as tensor "grad.layer<l>" or "grad.layers<l>-<k>".
  void submit(int layer);
  /// What turns the sums into the average over ranks. The optimizer applies it in the pass it
  /// makes over the gradients anyway; libhvd's kAverage would add one more pass over them all.
  double grad_scale() const { return 1.0 / size(); }
  /// Waits for every submitted allreduce; the model's gradients then hold the sums.
  /// Throws BackendError with libhvd's message when one failed.
  void wait_all();

 private:
  Mlp& model_;
  std::vector<int> bucket_top_;     // per layer: the top layer of the bucket it closes, or -1
  std::vector<std::string> names_;  // per bucket, in submission order
  std::vector<Handle> pending_;
  // GPU gradients are staged through host memory: libhvd moves host tensors today. When its
  // NCCL backend for CUDA tensors lands, submit() can pass the device pointer with
  // Device{gpu} instead and this buffer and the copies go away; nothing else changes.
  std::vector<float> host_staging_;
};

}  // namespace hvd::train
