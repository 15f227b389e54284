// SPDX-License-Identifier: Apache-2.0
// Sums each rank's (rank + 1) with libhvd's allreduce and checks the total, so that the
// installed headers, libhvd.so and the rendezvous through hvdrun are all exercised.
#include <cstdio>

#include "hvd/hvd.h"

int main() {
  hvd::Status s = hvd::init();
  if (!s.ok()) {
    std::fprintf(stderr, "hvd_consumer: init failed: %s\n", s.message().c_str());
    return 1;
  }
  double value = hvd::rank() + 1;
  hvd::TensorView t;
  t.data = &value;
  t.dtype = hvd::DataType::kFloat64;
  s = hvd::allreduce_async("consumer.sum", t, t, hvd::ReduceOp::kSum).wait();
  const int n = hvd::size();
  const double want = n * (n + 1) / 2.0;
  if (!s.ok() || value != want) {
    std::fprintf(stderr, "hvd_consumer: rank %d got %g (want %g) %s\n", hvd::rank(), value, want,
                 s.message().c_str());
    return 1;
  }
  std::printf("hvd_consumer: rank %d of %d: sum %g ok\n", hvd::rank(), n, value);
  return hvd::shutdown().ok() ? 0 : 1;
}
