// SPDX-License-Identifier: Apache-2.0
// TensorQueue::view(): what a rank tells `hvdrun why` about its collectives.

#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "core/tensor_queue.h"

namespace core = hvd::core;

namespace {

core::TensorEntry entry(const std::string& name, hvd::control::OpType type) {
  core::TensorEntry e;
  e.request.name = name;
  e.request.type = type;
  e.handle = std::make_shared<core::HandleState>();
  return e;
}

}  // namespace

TEST_CASE("queue view: pending tensors in submission order with their numbers, then the last run") {
  core::TensorQueue q;
  CHECK(q.view().pending.empty());
  CHECK_FALSE(q.view().last_done);
  REQUIRE(q.add(entry("grad.a", hvd::control::OpType::kAllreduce)).ok());
  REQUIRE(q.add(entry("grad.b", hvd::control::OpType::kBroadcast)).ok());
  REQUIRE(q.add(entry("grad.c", hvd::control::OpType::kAllreduce)).ok());
  hvd::diag::QueueView v = q.view();
  REQUIRE(v.pending.size() == 3);
  CHECK(v.pending[0].name == "grad.a");
  CHECK(v.pending[0].seq == 1);
  CHECK(v.pending[1].op == "broadcast");
  CHECK(v.pending[2].seq == 3);
  CHECK(v.submitted == 3);
  CHECK(v.completed == 0);

  q.take(0, {"grad.b"});
  v = q.view();
  REQUIRE(v.pending.size() == 2);
  CHECK(v.pending[1].name == "grad.c");
  REQUIRE(v.last_done);
  CHECK(v.last_done->name == "grad.b");
  CHECK(v.last_done->seq == 2);
  CHECK(v.completed == 1);
  SUBCASE("a name in flight is refused and not counted as submitted") {
    CHECK_FALSE(q.add(entry("grad.a", hvd::control::OpType::kAllreduce)).ok());
    CHECK(q.view().submitted == 3);
  }
}

TEST_CASE("queue view: its JSON has the fields hvdrun reads") {
  core::TensorQueue q;
  REQUIRE(q.add(entry("w", hvd::control::OpType::kAllgather)).ok());
  const std::string json = hvd::diag::to_json(q.view());
  CHECK(json.find("\"pending\":[{") != std::string::npos);
  CHECK(json.find("\"name\":\"w\"") != std::string::npos);
  CHECK(json.find("\"op\":\"allgather\"") != std::string::npos);
  CHECK(json.find("\"last_done\":null") != std::string::npos);
}
