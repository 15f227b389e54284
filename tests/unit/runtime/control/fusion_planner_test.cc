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

TEST_CASE("fusion_planner: a planner reuses the plan's responses, names and all") {
  // Long names have memory of their own; a name assigned over a longer one keeps its memory
  // (its capacity), where a fresh copy would get just enough.
  const std::string long_a(100, 'a'), long_b(100, 'b');
  std::vector<control::Response> ready{ar(long_a, 10), ar(long_b, 10, hvd::DataType::kFloat16)};
  ready[0].with_joined = true;
  ready[0].prescale = 0.5;
  std::vector<const control::Response*> refs{&ready[0], &ready[1]};
  control::FusionPlanner planner;
  std::vector<control::Response> plan;
  planner.plan(refs, 1 << 20, plan);
  REQUIRE(names(plan) == std::vector<std::vector<std::string>>{{long_a}, {long_b}});
  CHECK(plan[0].with_joined);  // a fused response carries its first tensor's fields
  CHECK(plan[0].prescale == 0.5);

  // The next cycle: other tensors, other fields; nothing left of the last but memory.
  const std::string short_c(40, 'c');
  std::vector<control::Response> next{ar(short_c, 3), ar("h", 1, hvd::DataType::kFloat16),
                                      ar("d", 2)};
  refs = {&next[0], &next[1], &next[2]};
  planner.plan(refs, 1 << 20, plan);
  REQUIRE(names(plan) == std::vector<std::vector<std::string>>{{short_c, "d"}, {"h"}});
  CHECK(plan[0].names[0].capacity() >= 100);
  CHECK(plan[0].counts == std::vector<int64_t>{3, 2});
  CHECK_FALSE(plan[0].with_joined);
  CHECK(plan[0].prescale == 1.0);
  CHECK(plan[1].dtype == hvd::DataType::kFloat16);
  CHECK(plan[1].counts == std::vector<int64_t>{1});

  planner.plan({}, 1 << 20, plan);
  CHECK(plan.empty());
}
