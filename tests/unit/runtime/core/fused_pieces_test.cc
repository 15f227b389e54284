// SPDX-License-Identifier: Apache-2.0
// The executor's fused allreduce on a backend that reduces the tensors where they lie
// (Backend::reduces_pieces(), the ring): one backend call over every output, no fusion buffer,
// and inputs that are not their outputs, scaling and averaging as on the fusion buffer path.
// The ring's own reduction over pieces is tested in tests/unit/runtime/ring/.

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/runtime.h"
#include "fakes/fake_backend.h"
#include "fakes/fake_channel.h"
#include "fakes/thread_world.h"

namespace control = hvd::control;
namespace core = hvd::core;
using hvd::BufferView;
using hvd::DataType;
using hvd::ReduceOp;

namespace {

// What one rank's backend was asked to do.
struct CallLog {
  int contiguous = 0;       // allreduce()
  int pieces = 0;           // allreduce_pieces()
  size_t most_tensors = 0;  // in one allreduce_pieces()
};

// The fake backend's reduction, reached through the pieces entry point: packs the tensors into
// a private buffer, reduces that, and unpacks (standing in for the ring, which does not pack).
class PieceBackend : public hvd::test::FakeBackend {
 public:
  PieceBackend(hvd::test::FakeChannelHub& hub, int rank, CallLog& log)
      : FakeBackend(hub, rank), log_(log) {}
  void allreduce(BufferView buf, ReduceOp op) override {
    ++log_.contiguous;
    FakeBackend::allreduce(buf, op);
  }
  bool reduces_pieces() const override { return true; }
  void allreduce_pieces(const std::vector<BufferView>& tensors, ReduceOp op) override {
    ++log_.pieces;
    log_.most_tensors = std::max(log_.most_tensors, tensors.size());
    std::vector<char> packed;
    size_t count = 0;
    for (const BufferView& t : tensors) {
      const char* p = static_cast<const char*>(t.data);
      packed.insert(packed.end(), p, p + t.bytes());
      count += t.count;
    }
    FakeBackend::allreduce({packed.data(), count, tensors.at(0).dtype, {}}, op);
    size_t at = 0;
    for (const BufferView& t : tensors) {
      if (t.bytes() > 0) std::memcpy(t.data, packed.data() + at, t.bytes());
      at += t.bytes();
    }
  }

 private:
  CallLog& log_;
};

control::Request req(const std::string& name, int64_t count, DataType dtype, ReduceOp op) {
  control::Request r;
  r.name = name;
  r.type = control::OpType::kAllreduce;
  r.dtype = dtype;
  r.shape = {count};
  r.op = op;
  r.group = 3;  // one group: one fused response
  return r;
}

}  // namespace

TEST_CASE("fused allreduce over pieces: one backend call, separate outputs, scaling, average") {
  const int size = 3;
  hvd::test::FakeChannelHub channel_hub(size), host_hub(size);
  std::vector<CallLog> logs(size);
  hvd::test::spawn(size, [&](int rank) {
    hvd::bootstrap::WorldInfo world;
    world.rank = rank;
    world.size = size;
    core::RuntimeOptions options;
    options.cycle_time = std::chrono::microseconds(200);
    CallLog& log = logs[static_cast<size_t>(rank)];
    core::Runtime rt(world, std::make_unique<hvd::test::FakeChannel>(channel_hub, rank),
                     std::make_unique<PieceBackend>(host_hub, rank, log), options);

    // Float sums with pre- and postscale: tensors of odd sizes, one empty, the even ones
    // reduced in place and the odd ones into separate outputs (the inputs must not change).
    const std::vector<size_t> sizes = {5, 0, 1, 33, 7};
    std::vector<std::vector<float>> in(sizes.size()), out(sizes.size());
    std::vector<control::Request> requests;
    std::vector<BufferView> inputs, outputs;
    for (size_t i = 0; i < sizes.size(); ++i) {
      in[i].assign(sizes[i], static_cast<float>(rank + 1) * static_cast<float>(i + 1));
      out[i].assign(sizes[i], -1.0f);
      control::Request r = req("f" + std::to_string(i), static_cast<int64_t>(sizes[i]),
                               DataType::kFloat32, ReduceOp::kSum);
      r.prescale = 0.5;
      r.postscale = 4.0;
      requests.push_back(r);
      inputs.push_back({in[i].data(), sizes[i], DataType::kFloat32, {}});
      outputs.push_back(i % 2 == 0 ? inputs.back()
                                   : BufferView{out[i].data(), sizes[i], DataType::kFloat32, {}});
    }
    for (auto& h : rt.enqueue_group(requests, inputs, outputs)) {
      const hvd::Status s = h->wait();
      REQUIRE_MESSAGE(s.ok(), s.message());
    }
    for (size_t i = 0; i < sizes.size(); ++i) {
      // sum over ranks of 0.5 * (r + 1) * (i + 1), times 4: 12 * (i + 1)
      const float want = 12.0f * static_cast<float>(i + 1);
      const std::vector<float>& got = i % 2 == 0 ? in[i] : out[i];
      CHECK(got == std::vector<float>(sizes[i], want));
      if (i % 2 == 1) {
        CHECK(in[i] == std::vector<float>(
                           sizes[i], static_cast<float>(rank + 1) * static_cast<float>(i + 1)));
      }
    }
    CHECK(log.pieces == 1);
    CHECK(log.most_tensors == sizes.size());
    CHECK(log.contiguous == 0);

    // An integer average: a sum over the pieces, then each times 1/3 in double, truncated
    // (Horovod averages through the postscale).
    std::vector<std::vector<int64_t>> avg = {std::vector<int64_t>(3, rank * 10),
                                             std::vector<int64_t>(1, rank + 5)};
    std::vector<control::Request> avg_requests;
    std::vector<BufferView> avg_views;
    for (size_t i = 0; i < avg.size(); ++i) {
      avg_requests.push_back(req("a" + std::to_string(i), static_cast<int64_t>(avg[i].size()),
                                 DataType::kInt64, ReduceOp::kAverage));
      avg_requests.back().group = 4;
      avg_views.push_back({avg[i].data(), avg[i].size(), DataType::kInt64, {}});
    }
    for (auto& h : rt.enqueue_group(avg_requests, avg_views, avg_views)) {
      REQUIRE(h->wait().ok());
    }
    CHECK(avg[0] == std::vector<int64_t>(3, 10));  // (0 + 10 + 20) / 3
    CHECK(avg[1] == std::vector<int64_t>(1, 6));   // (5 + 6 + 7) / 3
    CHECK(log.pieces == 2);
    CHECK(log.contiguous == 0);
  });
}
