// SPDX-License-Identifier: Apache-2.0
#pragma once
// The "hvd" column of --layer runtime: libhvd's public API (hvd/hvd.h), so every operation
// goes through the queue, the background loop's negotiation (served from the response cache
// after the first), fusion and the executor. Each row's tensor keeps one name, as a training
// loop's gradients do.

#include <string>

#include "bench/collective_impl.h"
#include "hvd/status.h"

namespace hvd::bench {

class HvdRuntimeImpl final : public Impl {
 public:
  /// hvd::init(); throws the Status's error as an hvd::Error.
  HvdRuntimeImpl();
  /// hvd::shutdown().
  ~HvdRuntimeImpl() override;
  HvdRuntimeImpl(const HvdRuntimeImpl&) = delete;
  HvdRuntimeImpl& operator=(const HvdRuntimeImpl&) = delete;

  std::string name() const override { return "hvd"; }
  RunOnce prepare(Op op, const std::string& algorithm, Buffers& bufs, ReduceOp redop,
                  int root) override;
  void reduce(std::vector<double>& values, ReduceOp op) override;
  void barrier() override;
};

/// Throws the error of a failed Status as an hvd::Error carrying its code.
void throw_if_failed(const Status& status, const std::string& what);

}  // namespace hvd::bench
