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
  explicit GradientExchange(Mlp& model);
  /// Enqueues the allreduce (sum) of layer l's gradient, as tensor "grad.layer<l>".
  void submit(int layer);
  /// What turns the sums into the average over ranks. The optimizer applies it in the pass it
  /// makes over the gradients anyway; libhvd's kAverage would add one more pass over them all.
  double grad_scale() const { return 1.0 / size(); }
  /// Waits for every submitted allreduce; the model's gradients then hold the sums.
  /// Throws BackendError with libhvd's message when one failed.
  void wait_all();

 private:
  Mlp& model_;
  std::vector<std::string> names_;
  std::vector<Handle> pending_;
  // GPU gradients are staged through host memory: libhvd moves host tensors today. When its
  // NCCL backend for CUDA tensors lands, submit() can pass the device pointer with
  // Device{gpu} instead and this buffer and the copies go away; nothing else changes.
  std::vector<float> host_staging_;
};

/// Allreduces a hash of the weights (min and max over ranks) and throws DivergedError, naming
/// the step, unless every rank holds bit-identical weights.
void verify_weights_in_sync(Mlp& model, int64_t step);

/// Ranks hold different weights: data-parallel training has gone wrong.
struct DivergedError : Error {
  explicit DivergedError(const std::string& m) : Error(ErrorCode::kInternal, m) {}
};

}  // namespace hvd::train
