// SPDX-License-Identifier: Apache-2.0
// runtime_probe: a rank that uses libhvd's public API end to end: init (bootstrap under
// hvdrun, PMIx or MPI), allreduce of every dtype and op with exact checks, fused small
// tensors submitted in a rank-specific order, Adasum against its formula, a grouped allreduce,
// broadcast, allgather with uneven first dimensions, reducescatter, alltoall, barrier, and
// shutdown. Prints one summary line from rank 0 and exits non-zero on the first wrong value.
//
//   runtime_probe                 all of the above, plus every dtype and op (with scale
//                                 factors) and one 64 MiB tensor (runtime_probe_typed.cc)
//   runtime_probe kill-rank R     rank R SIGKILLs itself after the first collectives; the
//                                 others print the error their next collective fails with
//                                 ("rank N: survivor error: ...") and exit 4
//   runtime_probe stall R S       rank R enqueues "late.tensor" S seconds after the others,
//                                 so that a short HOROVOD_STALL_CHECK_TIME_SECONDS makes
//                                 the coordinator log a stall warning naming it and rank R

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <chrono>
#include <thread>

#include "hvd/hvd.h"
#include "runtime_probe.h"

namespace {

template <typename T>
hvd::TensorView view(std::vector<T>& v, hvd::DataType dtype, std::vector<int64_t> shape) {
  return hvd::TensorView{v.data(), dtype, std::move(shape), {}};
}

void allreduce_ops(int rank, int size) {
  // Integers: exact for every op; sizes 0, 1, a prime.
  for (size_t n : {size_t{0}, size_t{1}, size_t{1009}}) {
    for (hvd::ReduceOp op : {hvd::ReduceOp::kSum, hvd::ReduceOp::kMin, hvd::ReduceOp::kMax}) {
      std::vector<int64_t> v(n, rank + 1);
      const std::string name = "i64." + std::to_string(n) + "." + std::string(hvd::op_name(op));
      must(hvd::allreduce_async(name, view(v, hvd::DataType::kInt64, {static_cast<int64_t>(n)}),
                                view(v, hvd::DataType::kInt64, {static_cast<int64_t>(n)}), op)
               .wait(),
           name);
      const int64_t want = op == hvd::ReduceOp::kSum   ? int64_t{size} * (size + 1) / 2
                           : op == hvd::ReduceOp::kMin ? 1
                                                       : size;
      expect(std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == want; }), name);
    }
  }
  std::vector<float> avg(257, static_cast<float>(rank));
  must(hvd::allreduce_async("f32.avg", view(avg, hvd::DataType::kFloat32, {257}),
                            view(avg, hvd::DataType::kFloat32, {257}))
           .wait(),
       "f32.avg");
  expect(avg[0] == static_cast<float>(size - 1) / 2, "average of ranks");
}

void many_small_fused(int rank, int size) {
  constexpr int kTensors = 150;
  std::vector<std::vector<int32_t>> data(kTensors);
  std::vector<int> order(kTensors);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(static_cast<unsigned>(rank)));
  std::vector<hvd::Handle> handles(kTensors);
  for (int i : order) {
    auto& d = data[static_cast<size_t>(i)];
    d.assign(static_cast<size_t>(1 + i % 13), i + rank);
    const auto v = view(d, hvd::DataType::kInt32, {static_cast<int64_t>(d.size())});
    handles[static_cast<size_t>(i)] =
        hvd::allreduce_async("small." + std::to_string(i), v, v, hvd::ReduceOp::kSum);
  }
  for (int i = 0; i < kTensors; ++i) {
    must(handles[static_cast<size_t>(i)].wait(), "small tensor");
    expect(data[static_cast<size_t>(i)][0] == i * size + size * (size - 1) / 2, "fused sum");
  }
}

void grouped(int rank, int size) {
  std::vector<std::vector<float>> data;
  std::vector<std::string> names;
  std::vector<hvd::TensorView> views;
  for (int i = 0; i < 6; ++i)
    data.emplace_back(static_cast<size_t>(50 + i), static_cast<float>(rank + i));
  for (int i = 0; i < 6; ++i) {
    names.push_back("group." + std::to_string(i));
    views.push_back(view(data[static_cast<size_t>(i)], hvd::DataType::kFloat32,
                         {static_cast<int64_t>(data[static_cast<size_t>(i)].size())}));
  }
  for (hvd::Handle& h : hvd::grouped_allreduce_async(names, views, views, hvd::ReduceOp::kSum)) {
    must(h.wait(), "grouped allreduce");
  }
  for (int i = 0; i < 6; ++i) {
    expect(
        data[static_cast<size_t>(i)].back() == static_cast<float>(size * (size - 1) / 2 + size * i),
        "grouped sum");
  }
}

// A group spanning host and device memory is refused on every rank before anything moves (the
// "device" tensor is never touched).
void grouped_across_devices() {
  std::vector<float> a(4), b(4);
  const hvd::TensorView host{a.data(), hvd::DataType::kFloat32, {4}, {}};
  const hvd::TensorView gpu{b.data(), hvd::DataType::kFloat32, {4}, hvd::Device{0}};
  for (const hvd::Handle& h : hvd::grouped_allreduce_async({"mixed.0", "mixed.1"}, {host, gpu},
                                                           {host, gpu}, hvd::ReduceOp::kSum)) {
    const hvd::Status s = h.wait();
    expect(!s.ok() &&
               s.message().find("put the tensors of one group on one device") != std::string::npos,
           "mixed-device group refused: " + s.message());
  }
}

void other_collectives(int rank, int size) {
  std::vector<double> b(10, rank);
  must(hvd::broadcast_async("bcast", view(b, hvd::DataType::kFloat64, {10}),
                            view(b, hvd::DataType::kFloat64, {10}), size - 1)
           .wait(),
       "broadcast");
  expect(b[9] == size - 1, "broadcast from the last rank");
  std::vector<int32_t> g(static_cast<size_t>(3 * (rank + 1)), rank);
  hvd::Handle h = hvd::allgather_async("gather", view(g, hvd::DataType::kInt32, {rank + 1, 3}));
  must(h.wait(), "allgather");
  expect(h.output_shape().at(0) == size * (size + 1) / 2, "allgather rows");
  std::vector<int32_t> rs(static_cast<size_t>(size) * 2, 1), block(2);
  must(hvd::reducescatter_async("rs", view(rs, hvd::DataType::kInt32, {size, 2}),
                                view(block, hvd::DataType::kInt32, {1, 2}))
           .wait(),
       "reducescatter");
  expect(block[0] == size && block[1] == size, "reducescatter block");
  // Scaled: Horovod's sum(pre * x) * (post / size), x = rank + 1, the caller's input unchanged.
  std::vector<double> rs_in(static_cast<size_t>(size) * 2, rank + 1.0), rs_block(2);
  must(hvd::reducescatter_async("rs.scaled", view(rs_in, hvd::DataType::kFloat64, {size, 2}),
                                view(rs_block, hvd::DataType::kFloat64, {1, 2}),
                                hvd::ReduceOp::kAverage, 0.5, 3.0)
           .wait(),
       "scaled reducescatter");
  double sum = 0;
  for (int r = 0; r < size; ++r) sum += 0.5 * (r + 1.0);
  expect(rs_block[0] == sum * (3.0 / size) && rs_block[1] == rs_block[0],
         "scaled reducescatter block");
  expect(rs_in[0] == rank + 1.0, "reducescatter leaves its input");
  std::vector<int32_t> send(static_cast<size_t>(size)), recv(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) send[static_cast<size_t>(r)] = rank * 100 + r;
  must(hvd::alltoall_async("a2a", view(send, hvd::DataType::kInt32, {size}),
                           view(recv, hvd::DataType::kInt32, {size}))
           .wait(),
       "alltoall");
  for (int r = 0; r < size; ++r)
    expect(recv[static_cast<size_t>(r)] == r * 100 + rank, "alltoall block");
  // Uneven splits: rank j sends (j + k) % 3 rows of 2 to rank k, each row holding 100 j + k.
  std::vector<int64_t> splits;
  std::vector<int64_t> rows;
  for (int k = 0; k < size; ++k) {
    splits.push_back((rank + k) % 3);
    for (int i = 0; i < 2 * ((rank + k) % 3); ++i) rows.push_back(100 * rank + k);
  }
  const hvd::Handle v = hvd::alltoallv_async(
      "a2av", view(rows, hvd::DataType::kInt64, {static_cast<int64_t>(rows.size() / 2), 2}),
      splits);
  must(v.wait(), "alltoallv");
  std::vector<int64_t> want_rows, want_splits;
  for (int j = 0; j < size; ++j) {
    want_splits.push_back((j + rank) % 3);
    for (int i = 0; i < 2 * ((j + rank) % 3); ++i) want_rows.push_back(100 * j + rank);
  }
  std::vector<int64_t> got(v.output().size() / sizeof(int64_t));
  if (!got.empty()) std::memcpy(got.data(), v.output().data(), v.output().size());
  expect(got == want_rows, "alltoallv rows");
  expect(v.received_splits() == want_splits, "alltoallv received splits");
  expect(v.output_shape() == std::vector<int64_t>{static_cast<int64_t>(want_rows.size() / 2), 2},
         "alltoallv output shape");
  must(hvd::barrier(), "barrier");
}

}  // namespace

// A peer dies: every pending handle of the survivors must fail with an error, not hang.
int survive_a_dead_peer(int rank, int victim) {
  if (rank == victim) raise(SIGKILL);
  std::vector<float> v(1 << 16, 1.0f);
  const auto t = view(v, hvd::DataType::kFloat32, {1 << 16});
  for (int step = 0;; ++step) {
    const hvd::Status s = hvd::allreduce_async("after." + std::to_string(step), t, t).wait();
    if (!s.ok()) {
      std::fprintf(stderr, "rank %d: survivor error: %s\n", rank, s.message().c_str());
      return 4;
    }
  }
}

// One rank comes late to a tensor: the others wait for it, and the stall inspector reports it.
void late_rank(int rank, int late, double seconds) {
  if (rank == late) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  std::vector<float> v(16, 1.0f);
  const auto t = view(v, hvd::DataType::kFloat32, {16});
  must(hvd::allreduce_async("late.tensor", t, t, hvd::ReduceOp::kSum).wait(), "late.tensor");
  expect(v[0] == static_cast<float>(hvd::size()), "late.tensor sum");
}

// 8- and 16-bit sums that overflow wrap, on every backend (Open MPI's own AVX reductions
// saturate instead; the MPI backend reduces these types with libhvd's kernels).
template <typename T>
void wrapping_sum(hvd::DataType dt, T each, const std::string& name) {
  std::vector<T> v(300, each);  // long enough for vectorised reductions
  const auto t = view(v, dt, {static_cast<int64_t>(v.size())});
  must(hvd::allreduce_async(name, t, t, hvd::ReduceOp::kSum).wait(), name);
  // The sum modulo the type's width, through its unsigned type, where wrapping is defined.
  using U = std::make_unsigned_t<T>;
  const auto want =
      static_cast<T>(static_cast<U>(static_cast<U>(each) * static_cast<U>(hvd::size())));
  expect(std::all_of(v.begin(), v.end(), [&](T x) { return x == want; }), name);
}

void wrapping_sums() {
  wrapping_sum<uint8_t>(hvd::DataType::kUInt8, 200, "wrap.uint8");
  wrapping_sum<int8_t>(hvd::DataType::kInt8, 100, "wrap.int8");
  wrapping_sum<int16_t>(hvd::DataType::kInt16, 30000, "wrap.int16");
}

// init() again after shutdown(), in the same process, several times (Horovod allows it, and
// hvdrun.torch's init does it): each incarnation bootstraps afresh and its collectives work.
int reinit(int rounds) {
  for (int round = 0; round < rounds; ++round) {
    must(hvd::init(), "init");
    std::vector<int64_t> v(5, hvd::rank() + 1);
    const auto t = view(v, hvd::DataType::kInt64, {5});
    must(hvd::allreduce_async("reinit.sum", t, t, hvd::ReduceOp::kSum).wait(), "reinit.sum");
    const int64_t n = hvd::size();
    expect(v[0] == n * (n + 1) / 2, "reinit.sum value");
    must(hvd::barrier(), "barrier");
    must(hvd::shutdown(), "shutdown");
    expect(!hvd::initialized() && hvd::rank() == -1, "not initialized after shutdown");
  }
  if (probe_failures() == 0) std::printf("runtime_probe: reinit %d rounds ok\n", rounds);
  return probe_failures() == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "reinit") return reinit(3);
  const bool kill_mode = argc == 3 && std::string(argv[1]) == "kill-rank";
  const bool stall_mode = argc == 4 && std::string(argv[1]) == "stall";
  // In kill-rank mode, ignore hvdrun's SIGTERM (sent when it sees the victim die), from the
  // start, so that what ends the survivors is the runtime noticing the dead peer.
  if (kill_mode) signal(SIGTERM, SIG_IGN);
  must(hvd::init(), "init");
  const int rank = hvd::rank(), size = hvd::size();
  allreduce_ops(rank, size);
  if (kill_mode) {
    return survive_a_dead_peer(rank, std::atoi(argv[2]));
  }
  if (stall_mode) {
    late_rank(rank, std::atoi(argv[2]), std::atof(argv[3]));
  } else {
    allreduce_every_dtype_and_op();
    wrapping_sums();
    allreduce_adasum(rank, size);
    allreduce_64_mib();
  }
  many_small_fused(rank, size);
  many_small_fused(rank, size);  // the second step runs from the response cache
  grouped(rank, size);
  grouped(rank, size);  // the same group again: its ids repeat, so it runs from the cache
  grouped_across_devices();
  other_collectives(rank, size);
  must(hvd::shutdown(), "shutdown");
  if (rank == 0 && probe_failures() == 0) std::printf("runtime_probe: %d ranks ok\n", size);
  return probe_failures() == 0 ? 0 : 1;
}
