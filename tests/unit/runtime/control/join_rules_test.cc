// SPDX-License-Identifier: Apache-2.0
// The coordinator's side of hvd.join(): joined ranks count as present, only sums and averages
// of host tensors run with them, and the join completes when the last rank joins.

#include "control/join_rules.h"

#include <doctest/doctest.h>

#include "control/message_table.h"
#include "hvd/error.h"

namespace control = hvd::control;
using control::OpType;

namespace {
control::Request join_rule_request(int rank, const std::string& name,
                                   OpType type = OpType::kAllreduce) {
  control::Request r;
  r.rank = rank;
  r.name = name;
  r.type = type;
  r.shape = {4};
  return r;
}
}  // namespace

TEST_CASE("join_rules: a joined rank completes the tensors it never asked for") {
  control::MessageTable table(3);
  CHECK_FALSE(table.add(join_rule_request(0, "a")));
  CHECK_FALSE(table.add(join_rule_request(1, "a")));
  CHECK(table.completed_by_joins().empty());
  table.join(2);
  CHECK(table.completed_by_joins() == std::vector<std::string>{"a"});
  const control::Response a = table.take_response("a");
  CHECK(a.kind == control::Response::Kind::kRun);
  CHECK(a.with_joined);
  CHECK(a.counts == std::vector<int64_t>{4});
  // Later tensors complete as soon as the active ranks asked.
  CHECK_FALSE(table.add(join_rule_request(1, "b")));
  CHECK(table.add(join_rule_request(0, "b")));
  CHECK(table.take_response("b").with_joined);
  CHECK_FALSE(table.all_joined());
  table.join(0);
  table.join(1);
  CHECK(table.all_joined());
  CHECK(table.last_joined() == 1);
  table.reset_joins();
  CHECK_FALSE(table.all_joined());
  CHECK(table.last_joined() == -1);
  // Active again: a tensor needs every rank.
  CHECK_FALSE(table.add(join_rule_request(0, "c")));
  CHECK_FALSE(table.add(join_rule_request(1, "c")));
  CHECK(table.add(join_rule_request(2, "c")));
  CHECK_FALSE(table.take_response("c").with_joined);
}

TEST_CASE("join_rules: a joined rank that asked anyway contributes its own tensor") {
  control::MessageTable table(2);
  CHECK_FALSE(table.add(join_rule_request(1, "own")));
  table.join(1);
  CHECK(table.completed_by_joins().empty());  // rank 0, active, has not asked
  CHECK(table.add(join_rule_request(0, "own")));
  CHECK_FALSE(table.take_response("own").with_joined);
}

TEST_CASE("join_rules: allreduces of host tensors, every op, run with joined ranks") {
  for (hvd::ReduceOp op : {hvd::ReduceOp::kSum, hvd::ReduceOp::kAverage, hvd::ReduceOp::kMin,
                           hvd::ReduceOp::kMax, hvd::ReduceOp::kProduct, hvd::ReduceOp::kAdasum}) {
    CAPTURE(hvd::op_name(op));
    CHECK(control::can_run_with_joined(OpType::kAllreduce, op, {}));
    CHECK_FALSE(control::can_run_with_joined(OpType::kAllreduce, op, {0}));
  }
  for (OpType type : {OpType::kBroadcast, OpType::kAllgather, OpType::kReducescatter,
                      OpType::kAlltoall, OpType::kBarrier}) {
    CAPTURE(control::op_type_name(type));
    control::MessageTable table(3);
    control::Request r = join_rule_request(0, "x", type);
    r.shape = {3, 2};
    table.add(r);
    table.join(1);
    table.join(2);
    REQUIRE(table.completed_by_joins() == std::vector<std::string>{"x"});
    const control::Response resp = table.take_response("x");
    CHECK(resp.kind == control::Response::Kind::kError);
    CHECK_MESSAGE(resp.error.find("cannot run while rank(s) 1, 2 have joined (hvd.join): only "
                                  "allreduce runs with joined ranks") != std::string::npos,
                  resp.error);
  }
  control::MessageTable table(2);
  control::Request max = join_rule_request(1, "m");
  max.op = hvd::ReduceOp::kMax;
  table.join(0);
  CHECK(table.add(max));
  const control::Response zeros = table.take_response("m");
  CHECK(zeros.kind == control::Response::Kind::kRun);
  CHECK(zeros.with_joined);
  control::Request gpu = join_rule_request(1, "g");
  gpu.device = {0};
  CHECK(table.add(gpu));
  CHECK(table.take_response("g").error ==
        "allreduce 'g' cannot run while rank(s) 0 have joined (hvd.join): a joined rank "
        "contributes zeros in host memory only; join supports CPU tensors so far");
}

TEST_CASE("join_rules: the join fields survive the control codec, and bad joins are refused") {
  control::Response join;
  join.type = OpType::kJoin;
  join.names = {control::kJoinName};
  join.last_joined_rank = 5;
  control::Response zeros;
  zeros.names = {"g"};
  zeros.with_joined = true;
  const auto back = control::decode_responses(control::encode_responses({join, zeros}));
  REQUIRE(back.size() == 2);
  CHECK(back[0].type == OpType::kJoin);
  CHECK(back[0].last_joined_rank == 5);
  CHECK_FALSE(back[0].with_joined);
  CHECK(back[1].with_joined);
  const auto requests = control::decode_requests(
      control::encode_requests({join_rule_request(1, "j", OpType::kJoin)}));
  CHECK(requests.at(0).type == OpType::kJoin);
  control::MessageTable table(2);
  CHECK_THROWS_AS(table.join(2), hvd::BackendError);
}
