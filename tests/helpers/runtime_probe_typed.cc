// SPDX-License-Identifier: Apache-2.0
// runtime_probe's typed checks: allreduce of every dtype and op through the full runtime
// (negotiation, fusion, the chosen backend), with pre- and post-scale, at element counts 0, 1
// and a prime, and one 64 MiB tensor. Inputs and references come from probe_data.h (shared with
// gpu_probe): integers are checked exactly, floats against a float64 reference.

#include <string>
#include <vector>

#include "hvd/hvd.h"
#include "probe_data.h"
#include "runtime_probe.h"

using hvd::DataType;
using hvd::ReduceOp;

namespace {

// Allreduces `count` elements of `dt` with `op` and checks every element; returns whether all
// matched (probe_data::matches prints the first mismatch).
bool check_allreduce(DataType dt, ReduceOp op, size_t count, double pre, double post) {
  const std::string name = std::string(hvd::dtype_name(dt)) + "." + std::string(hvd::op_name(op)) +
                           "." + std::to_string(count) + (pre != 1 || post != 1 ? ".scaled" : "");
  std::vector<char> buf = probe_data::inputs(dt, hvd::rank(), count, op);
  const hvd::TensorView t{buf.data(), dt, {static_cast<int64_t>(count)}, {}};
  must(hvd::allreduce_async(name, t, t, op, pre, post).wait(), name);
  return probe_data::matches(name, dt, buf, probe_data::reference(dt, hvd::size(), op, pre, post));
}

// The same through grouped_allreduce_async: two tensors fused, the factors applied to each.
bool check_grouped_allreduce(DataType dt, ReduceOp op, size_t count, double pre, double post) {
  const std::string name = std::string("grouped.") + std::string(hvd::dtype_name(dt)) + "." +
                           std::string(hvd::op_name(op)) + "." + std::to_string(count);
  std::vector<std::vector<char>> bufs(2, probe_data::inputs(dt, hvd::rank(), count, op));
  std::vector<hvd::TensorView> views;
  for (std::vector<char>& b : bufs)
    views.push_back({b.data(), dt, {static_cast<int64_t>(count)}, {}});
  for (const hvd::Handle& h :
       hvd::grouped_allreduce_async({name + ".0", name + ".1"}, views, views, op, pre, post)) {
    must(h.wait(), name);
  }
  const std::vector<double> want = probe_data::reference(dt, hvd::size(), op, pre, post);
  return probe_data::matches(name + ".0", dt, bufs[0], want) &&
         probe_data::matches(name + ".1", dt, bufs[1], want);
}

}  // namespace

void allreduce_every_dtype_and_op() {
  const DataType dtypes[] = {DataType::kUInt8,    DataType::kInt8,    DataType::kInt16,
                             DataType::kInt32,    DataType::kInt64,   DataType::kFloat16,
                             DataType::kBFloat16, DataType::kFloat32, DataType::kFloat64};
  const ReduceOp ops[] = {ReduceOp::kSum, ReduceOp::kAverage, ReduceOp::kMin, ReduceOp::kMax,
                          ReduceOp::kProduct};
  for (DataType dt : dtypes) {
    for (ReduceOp op : ops) {
      for (size_t n : {size_t{0}, size_t{1}, probe_data::kPeriod}) {
        // Scale factors where a float tolerance covers them; integers are scaled exactly only
        // by factors that keep every value whole, which the MPI and ring paths round alike.
        const bool scaled = !probe_data::is_integer(dt) && n == probe_data::kPeriod;
        const double pre = scaled ? 0.5 : 1.0, post = scaled ? 3.0 : 1.0;
        const std::string what =
            std::string(hvd::dtype_name(dt)) + " " + std::string(hvd::op_name(op));
        expect(check_allreduce(dt, op, n, pre, post), what);
        if (scaled) expect(check_grouped_allreduce(dt, op, n, pre, post), "grouped " + what);
      }
    }
  }
}

void allreduce_64_mib() {
  const size_t n = (size_t{64} << 20) / sizeof(float);
  expect(check_allreduce(DataType::kFloat32, ReduceOp::kSum, n, 1.0, 1.0), "64 MiB float32 sum");
}
