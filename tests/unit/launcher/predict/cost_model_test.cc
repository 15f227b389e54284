// SPDX-License-Identifier: Apache-2.0
#include "predict/cost_model.h"

#include <doctest/doctest.h>

#include "hvd/error.h"
#include "predict/network_fit.h"

namespace predict = hvd::launcher::predict;

TEST_CASE("allreduce_us: ring and recursive doubling, as libhvd picks them") {
  const predict::Link link{10, 1};  // 10 us, 1 GB/s = 1000 bytes/us
  // Ring, 4 ranks, 1 MB: 2(p-1) steps of one block (250,000 bytes).
  CHECK(predict::allreduce_us(1e6, 4, link, 64 * 1024) == doctest::Approx(6 * (10 + 250)));
  // Recursive doubling, 4 ranks, 8 KB: log2(4) exchanges of the whole message.
  CHECK(predict::allreduce_us(8000, 4, link, 64 * 1024) == doctest::Approx(2 * (10 + 8)));
  // 3 ranks: one rank pairs up first and gets the result back last, 2 more steps.
  CHECK(predict::allreduce_us(8000, 3, link, 64 * 1024) == doctest::Approx(3 * (10 + 8)));
  CHECK(predict::allreduce_us(1e6, 1, link, 64 * 1024) == 0);
  CHECK(predict::allreduce_algorithm(8000, 4, 64 * 1024) == "recursive doubling");
  CHECK(predict::allreduce_algorithm(1e6, 4, 64 * 1024) == "ring");
}

TEST_CASE("cluster_allreduce_us: a flat ring goes at the network's pace, hierarchical splits") {
  predict::Cluster c;
  c.ranks_per_node = 4;
  c.intra = {1, 100};
  c.inter = {10, 1};
  predict::Schedule s;
  const double flat = predict::cluster_allreduce_us(8e6, 2, c, s);
  CHECK(flat == doctest::Approx(predict::allreduce_us(8e6, 8, c.inter, s.small_bytes)));
  s.hierarchical = true;
  const double hier = predict::cluster_allreduce_us(8e6, 2, c, s);
  const double local = 3 * (1 + 2e6 / 1e5);  // (L-1) steps of bytes/L at 100 GB/s
  CHECK(hier == doctest::Approx(2 * local + predict::allreduce_us(2e6, 2, c.inter, s.small_bytes)));
  CHECK(hier < flat);  // 1/4 of the bytes cross the slow network
}

TEST_CASE("predict: one rank is the measurement, overlap hides what the backward pass can") {
  predict::Workload w;
  w.compute_ms = 100;
  w.gradient_bytes = 100e6;
  w.tensors = 100;
  w.batch_per_rank = 32;
  predict::Cluster c;
  c.ranks_per_node = 1;
  c.inter = {20, 3.125};  // 25 Gbit/s
  predict::Schedule s;
  const auto rows = predict::predict(w, c, s, {1, 2, 4, 8, 16});
  REQUIRE(rows.size() == 5);
  CHECK(rows[0].step_ms == doctest::Approx(100));
  CHECK(rows[0].efficiency == doctest::Approx(1));
  CHECK(rows[0].samples_per_sec == doctest::Approx(320));
  for (size_t i = 1; i < rows.size(); ++i) {
    CHECK(rows[i].efficiency < 1);
    CHECK(rows[i].efficiency <= rows[i - 1].efficiency);
    CHECK(rows[i].exposed_ms < rows[i].comm_ms);  // partly hidden by the backward pass
    CHECK(rows[i].samples_per_sec > rows[i - 1].samples_per_sec);
  }
  // One fused allreduce per cycle of the 66.7 ms backward pass, at most one per tensor.
  CHECK(rows[1].allreduces == 67);
  // No time to overlap: everything is exposed.
  w.backward_fraction = 0;
  const auto exposed = predict::predict(w, c, s, {4});
  CHECK(exposed[0].exposed_ms == doctest::Approx(exposed[0].comm_ms + s.cycle_ms / 2));
}

TEST_CASE("predict: ranks beyond a node's cores share them") {
  predict::Workload w;
  w.compute_ms = 10;
  w.gradient_bytes = 1e6;
  predict::Cluster c;
  c.ranks_per_node = 4;
  c.cores_per_node = 2;
  c.intra = {1, 10};
  const auto rows = predict::predict(w, c, {}, {1});
  CHECK(rows[0].compute_ms == doctest::Approx(20));
}

TEST_CASE("fit_link: recovers a link from allreduce times it generated") {
  const predict::Link truth{3.5, 12.0};
  nlohmann::json rows = nlohmann::json::array();
  for (double bytes = 8; bytes <= 64e6; bytes *= 4) {
    rows.push_back({{"bytes", bytes},
                    {"impls", {{"hvd", {{"time_us", predict::allreduce_us(bytes, 4, truth, 64 * 1024)}}}}}});
  }
  const nlohmann::json bench = {{"tool", "hvd-bench"}, {"ranks", 4}, {"hosts", 1},
                                {"backend", "ring/shm"},
                                {"results", {{{"op", "allreduce"}, {"rows", rows}}}}};
  const predict::LinkFit fit = predict::fit_link(bench, "b.json", 64 * 1024);
  CHECK(fit.link.latency_us == doctest::Approx(3.5));
  CHECK(fit.link.bandwidth_gbps == doctest::Approx(12.0));
  CHECK(fit.worst_error < 1e-6);
  CHECK(fit.rows == static_cast<int>(rows.size()));
}

TEST_CASE("fit_link: near the job's allreduce size, the link the job will see") {
  // A link that is fast up to 1 MB and slower above (a rate limiter, a TCP window): one line
  // over all sizes fits neither; the sizes near the job's give the large-message bandwidth.
  const predict::Link small{5, 10.0}, large{5, 2.0};
  nlohmann::json rows = nlohmann::json::array();
  for (double bytes = 8; bytes <= 64e6; bytes *= 4) {
    const predict::Link& link = bytes <= 1e6 ? small : large;
    rows.push_back({{"bytes", bytes},
                    {"impls", {{"hvd", {{"time_us", predict::allreduce_us(bytes, 2, link, 64 * 1024)}}}}}});
  }
  const nlohmann::json bench = {{"tool", "hvd-bench"}, {"ranks", 2}, {"hosts", 2},
                                {"backend", "ring/tcp"},
                                {"results", {{{"op", "allreduce"}, {"rows", rows}}}}};
  const predict::LinkFit near = predict::fit_link(bench, "b.json", 64 * 1024, 32e6);
  CHECK(near.link.bandwidth_gbps == doctest::Approx(2.0).epsilon(0.01));
  CHECK(near.min_bytes >= 32e6 / predict::kFitSizeFactor);
  CHECK(near.max_bytes <= 32e6 * predict::kFitSizeFactor);
  const predict::LinkFit all = predict::fit_link(bench, "b.json", 64 * 1024);
  CHECK(all.rows == static_cast<int>(rows.size()));
  CHECK(all.worst_error > near.worst_error);
  // Fewer than two sizes near the focus: all of them, as without one.
  CHECK(predict::fit_link(bench, "b.json", 64 * 1024, 1e12).rows == all.rows);
}

TEST_CASE("fit_link: input it cannot fit is a config error naming the file") {
  CHECK_THROWS_WITH_AS(predict::fit_link({{"tool", "hvd-train"}}, "t.json", 65536),
                       "t.json: not hvd-bench JSON (no \"tool\": \"hvd-bench\")", hvd::ConfigError);
  CHECK_THROWS_AS(predict::fit_link({{"tool", "hvd-bench"}, {"ranks", 1}}, "b.json", 65536),
                  hvd::ConfigError);
  CHECK_THROWS_AS(predict::fit_link({{"tool", "hvd-bench"}, {"ranks", 2}, {"results", nlohmann::json::array()}},
                                    "b.json", 65536),
                  hvd::ConfigError);
}
