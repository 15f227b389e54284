// SPDX-License-Identifier: Apache-2.0
#include "control/message_table.h"

#include <doctest/doctest.h>

#include "hvd/error.h"

namespace control = hvd::control;

namespace {
control::Request req(int rank, const std::string& name, std::vector<int64_t> shape = {4, 2}) {
  control::Request r;
  r.rank = rank;
  r.name = name;
  r.shape = std::move(shape);
  return r;
}
}  // namespace

TEST_CASE("message_table: a tensor is ready once every rank asked, in any order") {
  control::MessageTable table(3);
  CHECK_FALSE(table.add(req(2, "b")));
  CHECK_FALSE(table.add(req(0, "a")));
  CHECK_FALSE(table.add(req(1, "a")));
  CHECK(table.pending().at("a") == std::vector<int>{0, 1});
  CHECK(table.pending().at("b") == std::vector<int>{2});
  CHECK(table.add(req(2, "a")));
  const control::Response r = table.take_response("a");
  CHECK(r.kind == control::Response::Kind::kRun);
  CHECK(r.names == std::vector<std::string>{"a"});
  CHECK(table.pending().count("a") == 0);  // forgotten once taken
}

TEST_CASE("message_table: disagreements fail the tensor and name the ranks") {
  control::MessageTable table(4);
  for (int rank = 0; rank < 4; ++rank) {
    control::Request r = req(rank, "w");
    if (rank == 1 || rank == 3) r.dtype = hvd::DataType::kFloat16;
    table.add(r);
  }
  control::Response r = table.take_response("w");
  CHECK(r.kind == control::Response::Kind::kError);
  CHECK(r.error ==
        "mismatched data types for tensor 'w': rank 0 has float32, ranks 1, 3 have float16 "
        "(first difference shown)");

  for (int rank = 0; rank < 4; ++rank)
    table.add(req(rank, "s", rank == 2 ? std::vector<int64_t>{4, 3} : std::vector<int64_t>{4, 2}));
  CHECK(table.take_response("s").error.find("mismatched shapes for tensor 's': rank 0 has [4, 2], "
                                            "rank 2 has [4, 3]") == 0);

  for (int rank = 0; rank < 4; ++rank) {
    control::Request b = req(rank, "bcast");
    b.type = control::OpType::kBroadcast;
    b.root = rank == 0 ? 0 : 1;
    table.add(b);
  }
  CHECK(table.take_response("bcast").error.find("mismatched root ranks") == 0);
}

TEST_CASE("message_table: allgather allows different first dimensions and records them") {
  control::MessageTable table(3);
  for (int rank = 0; rank < 3; ++rank) {
    control::Request g = req(rank, "g", {rank + 1, 5});
    g.type = control::OpType::kAllgather;
    table.add(g);
  }
  const control::Response r = table.take_response("g");
  CHECK(r.kind == control::Response::Kind::kRun);
  CHECK(r.first_dims == std::vector<int64_t>{1, 2, 3});
  for (int rank = 0; rank < 3; ++rank) {
    control::Request g = req(rank, "h", {2, rank == 1 ? 6 : 5});
    g.type = control::OpType::kAllgather;
    table.add(g);
  }
  CHECK(table.take_response("h").error.find("shapes after the first dimension") !=
        std::string::npos);
}

TEST_CASE("message_table: the same name twice from one rank is an error for that tensor") {
  control::MessageTable table(2);
  table.add(req(0, "x"));
  table.add(req(0, "x"));
  CHECK(table.add(req(1, "x")));
  CHECK(table.take_response("x").error.find("submitted twice by rank 0") != std::string::npos);
}

TEST_CASE("message_table: alltoall rows must split evenly over the ranks") {
  control::MessageTable table(3);
  for (const int64_t rows : {6, 4}) {
    const std::string name = "a2a." + std::to_string(rows);
    for (int rank = 0; rank < 3; ++rank) {
      control::Request r = req(rank, name, {rows, 2});
      r.type = control::OpType::kAlltoall;
      table.add(r);
    }
    const control::Response r = table.take_response(name);
    if (rows == 6) {
      CHECK(r.kind == control::Response::Kind::kRun);
    } else {
      REQUIRE(r.kind == control::Response::Kind::kError);
      CHECK(r.error ==
            "alltoall 'a2a.4': the first dimension (4) of rank 0 must be a multiple of the number "
            "of ranks (3) when it gives no splits");
    }
  }
  // Equal blocks: the coordinator sends the whole matrix (2 rows from everyone to everyone).
  for (int rank = 0; rank < 3; ++rank) {
    control::Request r = req(rank, "a2a.even", {6, 2});
    r.type = control::OpType::kAlltoall;
    table.add(r);
  }
  CHECK(table.take_response("a2a.even").first_dims == std::vector<int64_t>(9, 2));
}

TEST_CASE("message_table: alltoall with splits sends every rank the whole matrix") {
  control::MessageTable table(3);
  // Rank j sends k + j rows to rank k: its first dimension is the sum, different per rank.
  for (int rank = 0; rank < 3; ++rank) {
    control::Request r = req(rank, "v", {3 + 3 * rank, 5});
    r.type = control::OpType::kAlltoall;
    r.splits = {rank, 1 + rank, 2 + rank};
    table.add(r);
  }
  const control::Response r = table.take_response("v");
  REQUIRE(r.kind == control::Response::Kind::kRun);
  CHECK(r.first_dims == std::vector<int64_t>{0, 1, 2, 1, 2, 3, 2, 3, 4});

  const auto fails = [&](const std::string& name, std::vector<int64_t> bad_splits,
                         const std::string& why) {
    for (int rank = 0; rank < 3; ++rank) {
      control::Request q = req(rank, name, {3, rank == 1 ? 6 : 5});
      q.type = control::OpType::kAlltoall;
      q.shape = {3, 5};
      q.splits = rank == 2 ? bad_splits : std::vector<int64_t>{1, 1, 1};
      table.add(q);
    }
    const control::Response e = table.take_response(name);
    CAPTURE(e.error);
    REQUIRE(e.kind == control::Response::Kind::kError);
    CHECK(e.error.find(why) != std::string::npos);
  };
  fails("sum", {1, 1, 2}, "rank 2 gave 3 splits adding up to 4 for 3 rows");
  fails("count", {1, 2}, "rank 2 gave 2 splits adding up to 3 for 3 rows and 3 ranks");
  fails("negative", {-1, 2, 2}, "(some negative)");
  fails("mixed", {}, "every rank passes the same shape and no splits, or every rank passes");
  // The rows' shape after the first dimension must agree.
  for (int rank = 0; rank < 3; ++rank) {
    control::Request q = req(rank, "tail", {3, rank == 1 ? 6 : 5});
    q.type = control::OpType::kAlltoall;
    q.splits = {1, 1, 1};
    table.add(q);
  }
  CHECK(table.take_response("tail").error.find("shapes after the first dimension") !=
        std::string::npos);
}

TEST_CASE(
    "message_table: a peer's invalid shape, root or rank fails that tensor, naming the rank") {
  control::MessageTable table(2);
  control::Request bad = req(1, "g", {-1, 4});
  bad.type = control::OpType::kAllgather;
  control::Request good = req(0, "g", {2, 4});
  good.type = control::OpType::kAllgather;
  table.add(good);
  REQUIRE(table.add(bad));
  control::Response r = table.take_response("g");
  CHECK(r.kind == control::Response::Kind::kError);
  CHECK(r.error ==
        "allgather 'g': rank 1 gave shape [-1, 4]: dimension 0 is -1; dimensions "
        "must be >= 0");

  // Rows that are each fine but overflow int64 once gathered.
  control::Request big0 = req(0, "h", {int64_t{1} << 62, 1}),
                   big1 = req(1, "h", {int64_t{1} << 62, 1});
  big0.type = big1.type = control::OpType::kAllgather;
  big0.dtype = big1.dtype = hvd::DataType::kUInt8;
  table.add(big0);
  REQUIRE(table.add(big1));
  r = table.take_response("h");
  CHECK(r.kind == control::Response::Kind::kError);
  CHECK(r.error.find("the gathered tensor would be too large") != std::string::npos);

  control::Request b0 = req(0, "b"), b1 = req(1, "b");
  b0.type = b1.type = control::OpType::kBroadcast;
  b0.root = b1.root = 7;
  table.add(b0);
  REQUIRE(table.add(b1));
  CHECK(table.take_response("b").error == "broadcast 'b': rank 0 gave root rank 7, outside 0..1");

  CHECK_THROWS_AS(table.add(req(5, "x")), hvd::BackendError);
}

TEST_CASE("message_table: adding a process set needs the same ranks everywhere") {
  control::MessageTable table(3);
  for (int rank = 0; rank < 3; ++rank) {
    control::Request r = req(rank, "hvd.process_set.0", {0});
    r.type = control::OpType::kAddProcessSet;
    r.splits = rank == 2 ? std::vector<int64_t>{0, 2} : std::vector<int64_t>{0, 1};
    table.add(r);
  }
  const control::Response bad = table.take_response("hvd.process_set.0");
  CHECK(bad.kind == control::Response::Kind::kError);
  CHECK(bad.error.find("mismatched process set ranks") != std::string::npos);
  CHECK(bad.error.find("rank 2 has [0, 2]") != std::string::npos);

  for (int rank = 0; rank < 3; ++rank) {
    control::Request r = req(rank, "hvd.process_set.1", {0});
    r.type = control::OpType::kAddProcessSet;
    r.splits = {1, 2};
    table.add(r);
  }
  const control::Response ok = table.take_response("hvd.process_set.1");
  CHECK(ok.kind == control::Response::Kind::kRun);
  CHECK(ok.first_dims == std::vector<int64_t>{1, 2});  // the ranks, for every rank to apply
}
