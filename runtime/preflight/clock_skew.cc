// SPDX-License-Identifier: Apache-2.0
#include "preflight/clock_skew.h"

#include <chrono>

#include "hvd/error.h"
#include "hvd/hvd.h"
#include "hvd/str_cat.h"

namespace hvd::preflight {
namespace {

double wall_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(system_clock::now().time_since_epoch()).count();
}

void check(const Status& status, const char* what) {
  if (!status.ok()) throw BackendError(str_cat("clock skew ", what, ": ", status.message()));
}

}  // namespace

ClockSkew measure_clock_skew(int rounds) {
  ClockSkew best{0, 1e300};
  double sync = 0, stamp = 0;
  TensorView sync_view{&sync, DataType::kFloat64, {1}, {}};
  TensorView stamp_view{&stamp, DataType::kFloat64, {1}, {}};
  for (int i = 0; i < rounds; ++i) {
    const double t1 = wall_ms();
    check(allreduce_async("preflight.clock.sync", sync_view, sync_view, ReduceOp::kSum).wait(),
          "allreduce");
    if (rank() == 0) stamp = wall_ms();
    check(broadcast_async("preflight.clock.stamp", stamp_view, stamp_view, 0).wait(), "broadcast");
    const double t2 = wall_ms();
    if (t2 - t1 < best.rtt_ms) best = {(t1 + t2) / 2 - stamp, t2 - t1};
  }
  if (rank() == 0) best.offset_ms = 0;
  return best;
}

}  // namespace hvd::preflight
