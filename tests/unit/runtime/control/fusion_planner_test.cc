// SPDX-License-Identifier: Apache-2.0
#include "control/fusion_planner.h"

#include <doctest/doctest.h>

namespace control = hvd::control;

namespace {
control::Response ar(const std::string& name, int64_t count,
                     hvd::DataType dtype = hvd::DataType::kFloat32, int32_t group = -1) {
  control::Response r;
  r.names = {name};
  r.counts = {count};
  r.dtype = dtype;
  r.group = group;
  return r;
}
std::vector<std::vector<std::string>> names(const std::vector<control::Response>& plan) {
  std::vector<std::vector<std::string>> out;
  for (const auto& r : plan) out.push_back(r.names);
  return out;
}
}  // namespace

TEST_CASE("fusion_planner: small compatible allreduces share a buffer up to the threshold") {
  // 4-byte floats: 10 elements = 40 bytes each; threshold 100 bytes fits two.
  const auto plan = control::plan_fusion({ar("a", 10), ar("b", 10), ar("c", 10)}, 100);
  CHECK(names(plan) == std::vector<std::vector<std::string>>{{"a", "b"}, {"c"}});
  CHECK(plan[0].counts == std::vector<int64_t>{10, 10});
  CHECK(control::response_bytes(plan[0]) == 80);
}

TEST_CASE("fusion_planner: incompatible ones stay apart, big ones run alone, order is kept") {
  const auto plan =
      control::plan_fusion({ar("a", 10), ar("h", 10, hvd::DataType::kFloat16), ar("big", 1000),
                            ar("b", 10), ar("h2", 10, hvd::DataType::kFloat16)},
                           100);
  CHECK(names(plan) == std::vector<std::vector<std::string>>{{"a", "b"}, {"h", "h2"}, {"big"}});
  control::Response bcast = ar("x", 1);
  bcast.type = control::OpType::kBroadcast;
  control::Response error = ar("y", 1);
  error.kind = control::Response::Kind::kError;
  CHECK(names(control::plan_fusion({bcast, ar("z", 1), error, ar("w", 1)}, 1 << 20)) ==
        std::vector<std::vector<std::string>>{{"x"}, {"z", "w"}, {"y"}});
}

TEST_CASE("fusion_planner: a group is never split, even over the threshold") {
  const auto plan = control::plan_fusion({ar("g1", 30, hvd::DataType::kFloat32, 4), ar("solo", 5),
                                          ar("g2", 30, hvd::DataType::kFloat32, 4)},
                                         100);
  CHECK(names(plan) == std::vector<std::vector<std::string>>{{"g1", "g2"}, {"solo"}});
  CHECK(control::plan_fusion({}, 100).empty());
  CHECK(names(control::plan_fusion({ar("a", 1), ar("b", 1)}, 0)) ==
        std::vector<std::vector<std::string>>{{"a"}, {"b"}});  // threshold 0: fusion off
}
