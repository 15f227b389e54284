// SPDX-License-Identifier: Apache-2.0
#include "bench/gloo_peer.h"

#include <gloo/allgather_ring.h>
#include <gloo/allreduce_bcube.h>
#include <gloo/allreduce_halving_doubling.h>
#include <gloo/allreduce_ring.h>
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/barrier_all_to_all.h>
#include <gloo/broadcast_one_to_all.h>
#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/device.h>

#include <chrono>

#include "bench/gloo_store.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::bench {
namespace {

using AlgorithmPtr = std::shared_ptr<gloo::Algorithm>;
using ContextPtr = std::shared_ptr<gloo::Context>;

template <typename T>
const gloo::ReductionFunction<T>* reduction(ReduceOp op) {
  switch (op) {
    case ReduceOp::kMin:
      return gloo::ReductionFunction<T>::min;
    case ReduceOp::kMax:
      return gloo::ReductionFunction<T>::max;
    case ReduceOp::kProduct:
      return gloo::ReductionFunction<T>::product;
    default:
      return gloo::ReductionFunction<T>::sum;
  }
}

template <typename T>
AlgorithmPtr make_typed(const ContextPtr& ctx, Op op, const std::string& algorithm, Buffers& b,
                        ReduceOp redop, int root) {
  T* out = reinterpret_cast<T*>(b.out.data());
  const int count = static_cast<int>(b.count);
  if (op == Op::kBroadcast) {
    return std::make_shared<gloo::BroadcastOneToAll<T>>(ctx, std::vector<T*>{out}, b.count, root);
  }
  if (op == Op::kAllgather) {
    const std::vector<const T*> in{reinterpret_cast<const T*>(b.in.data())};
    return std::make_shared<gloo::AllgatherRing<T>>(ctx, in, out, count);
  }
  const std::vector<T*> ptrs{out};
  const auto* fn = reduction<T>(redop);
  if (algorithm == "ring") return std::make_shared<gloo::AllreduceRing<T>>(ctx, ptrs, count, fn);
  if (algorithm == "ring_chunked") {
    return std::make_shared<gloo::AllreduceRingChunked<T>>(ctx, ptrs, count, fn);
  }
  if (algorithm == "halving_doubling") {
    return std::make_shared<gloo::AllreduceHalvingDoubling<T>>(ctx, ptrs, count, fn);
  }
  if (algorithm == "bcube") return std::make_shared<gloo::AllreduceBcube<T>>(ctx, ptrs, count, fn);
  throw InternalError(str_cat("hvd-bench: no Gloo allreduce algorithm '", algorithm, "'"));
}

AlgorithmPtr make_algorithm(const ContextPtr& ctx, Op op, const std::string& algorithm, Buffers& b,
                            ReduceOp redop, int root) {
  switch (b.dtype) {
    case DataType::kFloat64:
      return make_typed<double>(ctx, op, algorithm, b, redop, root);
    case DataType::kInt32:
      return make_typed<int32_t>(ctx, op, algorithm, b, redop, root);
    case DataType::kInt64:
      return make_typed<int64_t>(ctx, op, algorithm, b, redop, root);
    default:
      return make_typed<float>(ctx, op, algorithm, b, redop, root);
  }
}

class GlooPeer final : public Impl {
 public:
  explicit GlooPeer(ContextPtr context) : context_(std::move(context)) {}

  std::string name() const override { return "gloo"; }
  std::vector<std::string> algorithms(Op op) const override {
    if (op == Op::kAllreduce) return {"ring", "ring_chunked", "halving_doubling", "bcube"};
    return {op == Op::kBroadcast ? "one_to_all" : "ring"};
  }
  RunOnce prepare(Op op, const std::string& algorithm, Buffers& bufs, ReduceOp redop,
                  int root) override {
    AlgorithmPtr a = make_algorithm(context_, op, algorithm, bufs, redop, root);
    return [a] { a->run(); };
  }
  void reduce(std::vector<double>& values, ReduceOp op) override {
    const std::vector<double*> ptrs{values.data()};
    gloo::AllreduceRing<double>(context_, ptrs, static_cast<int>(values.size()),
                                reduction<double>(op))
        .run();
  }
  void barrier() override { gloo::BarrierAllToAll(context_).run(); }

 private:
  ContextPtr context_;
};

}  // namespace

std::unique_ptr<Impl> make_gloo_peer(bootstrap::KvStore& kv, const bootstrap::WorldInfo& world) {
  gloo::transport::tcp::attr attr;
  // Loopback on one host (the comparison the targets mean); otherwise the address the other
  // ranks reached hvdrun's store from, or the host name.
  if (world.cross_size == 1) {
    attr.hostname = "127.0.0.1";
  } else {
    attr.hostname = kv.reachable_address().empty() ? world.hostname : kv.reachable_address();
  }
  // Rank 0's address is what every rank needs to reach its rendezvous server.
  std::string server_host = attr.hostname;
  if (world.cross_size > 1) {
    if (world.rank == 0) kv.set("hvd-bench/gloo-host", attr.hostname);
    kv.barrier("hvd-bench/gloo-host", std::chrono::seconds(120));
    server_host = kv.get("hvd-bench/gloo-host", std::chrono::seconds(120));
  }
  GlooStore store(kv, world, server_host, std::chrono::seconds(120));
  auto device = gloo::transport::tcp::CreateDevice(attr);
  auto context = std::make_shared<gloo::rendezvous::Context>(world.rank, world.size);
  context->connectFullMesh(store, device);
  // Every rank has read what it needed before rank 0's server goes with `store`.
  kv.barrier("hvd-bench/gloo-connected", std::chrono::seconds(120));
  return std::make_unique<GlooPeer>(std::move(context));
}
}  // namespace hvd::bench
